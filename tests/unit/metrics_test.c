#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "metrics.h"
#include "sampler.h"

/* Whose figure a series is, as --list-plots and history show say. */
TEST(metrics_scope)
{
	CHECK_STR(metric_scope(metric_find("majflt")), "machine");
	CHECK_STR(metric_scope(metric_find("kswapd-cpu")), "machine");
	CHECK_STR(metric_scope(metric_find("direct-stalls")), "machine");
	CHECK_STR(metric_scope(metric_find("stall-swapin")), "workers");
	CHECK_STR(metric_scope(metric_find("cg-mem")), "cgroup");
	CHECK_STR(metric_scope(metric_find("cg-psi-full")), "cgroup");
	CHECK_STR(metric_scope(metric_find("zram-ratio")), "zram");
	/* and each as its source says it is read */
	for (int i = 0; i < M_N; i++) {
		const char *src = metric_def(i)->source, *sc = metric_scope(i);

		CHECK(!strncmp(src, "cgroup", 6) == !strcmp(sc, "cgroup"));
		CHECK(!strncmp(src, "taskstats", 9) == !strcmp(sc, "workers"));
		CHECK(!strncmp(src, "/sys/block/zram", 15) == !strcmp(sc, "zram"));
	}
}

TEST(metrics_registry_names)
{
	for (int i = 0; i < M_N; i++) {
		const struct metric_def *d = metric_def(i);

		CHECK(d && d->name && d->title && d->unit && d->source && d->quantum > 0);
		if (!d)
			continue;
		CHECK_INT(metric_find(d->name), i);
		CHECK(strlen(d->name) < 16 && !strpbrk(d->name, ", =\t"));
	}
	/* a narrow plot's title names its series alone */
	for (int i = 0; i < M_N; i++)
		for (int j = i + 1; j < M_N; j++)
			if (metric_def(i)->brief && metric_def(j)->brief &&
			    !strcmp(metric_def(i)->brief, metric_def(j)->brief))
				CHECK_STR(metric_def(i)->name, metric_def(j)->name);
	CHECK(metric_def(M_N) == NULL);
	CHECK(metric_def(-1) == NULL);
	CHECK_INT(metric_find("nonesuch"), -1);
	CHECK(metric_is_cgroup(M_CG_MEM));
	CHECK(!metric_is_cgroup(M_PROCS_BLOCKED));
	CHECK(M_N >= 20);
}

TEST(metrics_availability_reasons)
{
	struct sampler_caps caps;
	struct metric_avail av;
	struct metric_cgroup_info v1 = { .present = true, .version = 1, .swap_accounted = false };

	memset(&caps, 0, sizeof(caps));
	for (int i = 0; i < MI_N; i++)
		caps.mem[i] = true;
	for (int i = 0; i < VM_N; i++)
		caps.vm[i] = true;
	caps.vm[VM_REFAULT_ANON] = false;
	caps.vm[VM_PGMAJFAULT] = false;
	caps.psi = true;
	caps.nkswapd = 0;
	metrics_availability(&caps, NULL, &av);
	CHECK(!av.ok[M_REFAULT_ANON]);
	CHECK_STR(av.why[M_REFAULT_ANON], "kernel has no workingset_refault_anon in /proc/vmstat");
	CHECK(av.ok[M_REFAULT_FILE]);
	CHECK(!av.ok[M_MAJFLT]);
	/* minor faults are pgfault - pgmajfault: without the second, none */
	CHECK(!av.ok[M_MINFLT]);
	CHECK_STR(av.why[M_MINFLT], "kernel has no pgmajfault in /proc/vmstat");
	CHECK(!av.ok[M_PSI_FULL]);
	CHECK(av.ok[M_PSI_SOME]);
	CHECK(!av.ok[M_KSWAPD_CPU]);
	CHECK(strstr(av.why[M_KSWAPD_CPU], "not visible") != NULL);
	CHECK(!av.ok[M_CG_MEM]);
	CHECK_STR(av.why[M_CG_MEM], "only with --mem (the workload's memory cgroup)");

	caps.psi = false;
	metrics_availability(&caps, &v1, &av);
	CHECK(!av.ok[M_PSI_SOME] && !av.ok[M_PSI_SOME_RATE]);
	CHECK(av.ok[M_CG_MEM] && av.ok[M_CG_MAJFLT]);
	CHECK(!av.ok[M_CG_PSI_SOME]);
	CHECK_STR(av.why[M_CG_PSI_SOME], "cgroup v1 has no memory.pressure");
	CHECK(!av.ok[M_CG_SWAP]);

	/* no cgroup yet, but v1's: --mem would not give cgroup PSI either */
	v1.present = false;
	metrics_availability(&caps, &v1, &av);
	CHECK_STR(av.why[M_CG_MEM], "only with --mem (the workload's memory cgroup)");
	CHECK_STR(av.why[M_CG_PSI_SOME], "cgroup v1 has no memory.pressure");
}

static struct sys_sample sample_at(double t, int64_t k)
{
	struct sys_sample s = { .t = t, .nkswapd = 1 };

	for (int i = 0; i < MI_N; i++)
		s.mem[i] = 1000 * (i + 1);
	for (int i = 0; i < VM_N; i++)
		s.vm[i] = k * (i + 1);
	s.vm[VM_PGFAULT] = k * 100;
	s.psi_some10 = 1.5;
	s.psi_full10 = NAN;
	s.psi_some_us = k * 1000;
	s.psi_full_us = NA;
	s.kswapd_ns = k * 1000000;
	s.procs_running = 3;
	s.procs_blocked = NA;
	return s;
}

TEST(metrics_values_rates_and_gaps)
{
	struct sys_sample a = sample_at(10, 100), b = sample_at(10.5, 300);
	double v[M_N];
	struct metric_input in = { .cur = &a };

	/* first sample: gauges only */
	metrics_values(&in, v);
	CHECK_NEAR(v[M_FREE], 1000.0 * (MI_FREE + 1), 0);
	CHECK_NEAR(v[M_SWAP_CACHED], 1000.0 * (MI_SWAP_CACHED + 1), 0);
	CHECK_NEAR(v[M_SWAP_USED], 1000.0 * (MI_SWAP_USED + 1), 0);
	CHECK(isnan(v[M_MAJFLT]) && isnan(v[M_KSWAPD_CPU]) && isnan(v[M_PSI_SOME_RATE]));
	CHECK(isnan(v[M_CG_MEM]));

	in.prev = &a;
	in.cur = &b;
	metrics_values(&in, v);
	/* 200 * (i + 1) in 0.5 s */
	CHECK_NEAR(v[M_SCAN_KSWAPD], 400.0 * (VM_PGSCAN_KSWAPD + 1), 1e-9);
	CHECK_NEAR(v[M_REFAULT_FILE], 400.0 * (VM_REFAULT_FILE + 1), 1e-9);
	CHECK_NEAR(v[M_MAJFLT], 400.0 * (VM_PGMAJFAULT + 1), 1e-9);
	CHECK_NEAR(v[M_MINFLT], 400.0 * 100 - 400.0 * (VM_PGMAJFAULT + 1), 1e-9);
	/* 200 ms stalled in 0.5 s: 40 % of the time */
	CHECK_NEAR(v[M_PSI_SOME_RATE], 40.0, 1e-9);
	CHECK(isnan(v[M_PSI_FULL_RATE]));
	CHECK(isnan(v[M_PSI_FULL]));
	CHECK_NEAR(v[M_PSI_SOME], 1.5, 0);
	/* 200 ms on a CPU in 0.5 s */
	CHECK_NEAR(v[M_KSWAPD_CPU], 40.0, 1e-9);
	CHECK_NEAR(v[M_PROCS_RUNNING], 3, 0);
	CHECK(isnan(v[M_PROCS_BLOCKED]));

	/* a counter that went backwards or is NA is a gap, never 0 */
	b.vm[VM_PSWPIN] = 0;
	b.vm[VM_PSWPOUT] = NA;
	b.nkswapd = 2;
	metrics_values(&in, v);
	CHECK(isnan(v[M_PSWPIN]) && isnan(v[M_PSWPOUT]) && isnan(v[M_KSWAPD_CPU]));
}

static struct sys_sample synth(double t, int64_t base)
{
	struct sys_sample s = { .t = t, .nkswapd = 1, .kswapd_ns = base * 1000 };

	for (int i = 0; i < VM_N; i++)
		s.vm[i] = base * (i + 1);
	s.vm[VM_PGFAULT] = base * 100;	/* pgfault counts majflt too */
	return s;
}

/* The rates' edges: an NA or backward counter, minor faults without the
 * major ones or below them, no time elapsed, a real 0. */
TEST(metrics_values_rate_edges)
{
	struct sys_sample a = synth(10.0, 100), b = synth(12.0, 300);
	struct metric_input in = { .prev = &a, .cur = &b };
	double v[M_N];

	/* deltas: vm[i] moves 200*(i+1) in 2 s; kswapd 0.2 ms in 2 s */
	metrics_values(&in, v);
	CHECK_NEAR(v[M_MAJFLT], 200.0 * (VM_PGMAJFAULT + 1) / 2, 1e-9);
	CHECK_NEAR(v[M_MINFLT], (200.0 * 100 - 200.0 * (VM_PGMAJFAULT + 1)) / 2, 1e-9);
	CHECK_NEAR(v[M_PSWPOUT], 200.0 * (VM_PSWPOUT + 1) / 2, 1e-9);
	CHECK_NEAR(v[M_ALLOCSTALL], 200.0 * (VM_ALLOCSTALL + 1) / 2, 1e-9);
	CHECK_NEAR(v[M_KSWAPD_CPU], 200000.0 / 2e9 * 100, 1e-12);

	b.kswapd_ns = a.kswapd_ns + 500000000;	/* half a CPU-second in 2 s */
	metrics_values(&in, v);
	CHECK_NEAR(v[M_KSWAPD_CPU], 25.0, 1e-9);

	b.vm[VM_PSWPIN] = NA;
	a.vm[VM_PGSCAN_DIRECT] = NA;
	b.vm[VM_PSWPOUT] = a.vm[VM_PSWPOUT] - 1;	/* went backwards */
	metrics_values(&in, v);
	CHECK(isnan(v[M_PSWPIN]));
	CHECK(isnan(v[M_SCAN_DIRECT]));
	CHECK(isnan(v[M_PSWPOUT]));
	CHECK(!isnan(v[M_STEAL_DIRECT]));

	b.vm[VM_PGMAJFAULT] = NA;	/* minflt needs majflt */
	b.kswapd_ns = NA;
	metrics_values(&in, v);
	CHECK(isnan(v[M_MAJFLT]));
	CHECK(isnan(v[M_MINFLT]));
	CHECK(isnan(v[M_KSWAPD_CPU]));

	b = synth(12.0, 300);		/* majflt above pgfault: inconsistent */
	b.vm[VM_PGMAJFAULT] = a.vm[VM_PGMAJFAULT] + 200 * 100 + 2;
	metrics_values(&in, v);
	CHECK(isnan(v[M_MINFLT]));

	b = synth(10.0, 300);		/* no time elapsed */
	metrics_values(&in, v);
	CHECK(isnan(v[M_MAJFLT]) && isnan(v[M_KSWAPD_CPU]));

	b = synth(10.5, 100);		/* nothing moved in 0.5 s: a real 0 */
	metrics_values(&in, v);
	CHECK_NEAR(v[M_MAJFLT], 0, 0);
	CHECK_NEAR(v[M_KSWAPD_CPU], 0, 0);
}

TEST(metrics_values_cgroup)
{
	struct sys_sample a = sample_at(1, 1);
	struct cgroup_stat g0 = { .usage = 2048, .swap_usage = NA, .pgmajfault = 10,
				  .refault_anon = 5, .refault_file = 5, .psi_some10 = NAN,
				  .psi_full10 = NAN },
			   g1 = g0;
	double v[M_N];
	struct metric_input in = { .cur = &a, .cg_cur = &g1 };

	g1.usage = 4096;
	g1.pgmajfault = 30;
	g1.refault_anon = 15;
	g1.psi_some10 = 2.25;
	metrics_values(&in, v);
	CHECK_NEAR(v[M_CG_MEM], 4, 0);
	CHECK(isnan(v[M_CG_SWAP]));
	CHECK(isnan(v[M_CG_MAJFLT]));	/* no previous sample */
	in.cg_prev = &g0;
	in.cg_dt = 2;
	metrics_values(&in, v);
	CHECK_NEAR(v[M_CG_MAJFLT], 10, 1e-9);
	CHECK_NEAR(v[M_CG_REFAULT], 5, 1e-9);
	CHECK_NEAR(v[M_CG_PSI_SOME], 2.25, 0);
	g1.refault_file = NA;
	metrics_values(&in, v);
	CHECK(isnan(v[M_CG_REFAULT]));
}

TEST(metrics_scales_are_honest)
{
	struct sys_sample s = { 0 };
	struct cgroup_stat g = { .limit = CGROUP_UNLIMITED, .swap_limit = CGROUP_UNLIMITED };

	s.mem[MI_TOTAL] = 24 * 1024 * 1024;
	s.mem[MI_HUGETLB] = 21 * 1024 * 1024;
	s.mem[MI_MLOCKED] = 512 * 1024;
	s.mem[MI_SWAP_TOTAL] = 4 * 1024 * 1024;
	/* 24 GiB less a 21 GiB pool less 512 MiB locked */
	CHECK_NEAR(metrics_scale(M_FREE, &s, NULL), 2.5 * 1024 * 1024, 0);
	CHECK_NEAR(metrics_scale(M_AVAIL, &s, NULL), 2.5 * 1024 * 1024, 0);
	CHECK_NEAR(metrics_scale(M_SWAP_USED, &s, NULL), 4 * 1024 * 1024, 0);
	/* a CPU share on its full scale; pressure auto-scaled, it is rarely
	 * near 100% and must not look like zero */
	CHECK_NEAR(metrics_scale(M_KSWAPD_CPU, &s, NULL), 100, 0);
	CHECK_NEAR(metrics_scale(M_PSI_SOME, &s, NULL), 0, 0);
	CHECK_NEAR(metrics_scale(M_SCAN_DIRECT, &s, NULL), 0, 0);
	CHECK_NEAR(metrics_scale(M_CG_MEM, &s, &g), 0, 0);
	CHECK_NEAR(metrics_scale(M_CG_SWAP, &s, &g), 4 * 1024 * 1024, 0);
	g.limit = 128 << 20;
	g.swap_limit = 64 << 20;
	CHECK_NEAR(metrics_scale(M_CG_MEM, &s, &g), 128 * 1024, 0);
	CHECK_NEAR(metrics_scale(M_CG_SWAP, &s, &g), 64 * 1024, 0);
	/* an unknown pool or lock is no pool; a nonsense one leaves MemTotal */
	CHECK_INT(metrics_usable_ram_kib(1000, NA, NA), 1000);
	CHECK_INT(metrics_usable_ram_kib(1000, 600, 500), 1000);
	CHECK_INT(metrics_usable_ram_kib(NA, 10, 10), NA);
}

/* On this machine: at least 20 series, every /proc/vmstat one that is
 * available moves with the file read by hand. */
TEST(metrics_on_this_machine)
{
	char err[256] = "";
	struct sampler *smp = sampler_new(err, sizeof(err));
	struct sampler_caps caps;
	struct metric_avail av;
	int n = 0;

	if (!smp) {
		t_fail(__FILE__, __LINE__, "sampler_new: %s", err);
		return;
	}
	sampler_caps(smp, &caps);
	metrics_availability(&caps, NULL, &av);
	for (int i = 0; i < M_N; i++)
		n += av.ok[i];
	if (n < 20)
		t_fail(__FILE__, __LINE__, "only %d series available", n);
	FILE *f = fopen("/proc/vmstat", "r");
	char key[128];
	long long val;
	bool anon = false;
	while (f && fscanf(f, "%127s %lld", key, &val) == 2)
		anon |= !strcmp(key, "workingset_refault_anon");
	if (f)
		fclose(f);
	CHECK_INT(av.ok[M_REFAULT_ANON], anon);
	sampler_free(smp);
}

TEST(metrics_plot_lists)
{
	int ids[M_N], n;
	char err[256], buf[512];

	n = metrics_parse_list("swap-used, scan-kswapd,psi-some", ids, err, sizeof(err));
	CHECK_INT(n, 3);
	CHECK_INT(ids[0], M_SWAP_USED);
	CHECK_INT(ids[1], M_SCAN_KSWAPD);
	CHECK_INT(ids[2], M_PSI_SOME);
	metrics_list_text(ids, n, buf, sizeof(buf));
	CHECK_STR(buf, "swap-used,scan-kswapd,psi-some");
	CHECK_INT(metrics_parse_list("swap-used,nope", ids, err, sizeof(err)), -1);
	CHECK_STR(err, "no plot named \"nope\" (thrashtop --list-plots lists them)");
	CHECK_INT(metrics_parse_list("free,free", ids, err, sizeof(err)), -1);
	CHECK_STR(err, "plot \"free\" is listed twice");
	CHECK_INT(metrics_parse_list("free,,majflt", ids, err, sizeof(err)), -1);
	CHECK(strstr(err, "empty name") != NULL);
	CHECK_INT(metrics_parse_list("", ids, err, sizeof(err)), -1);
	CHECK_INT(metrics_parse_list("\x1b[2J", ids, err, sizeof(err)), -1);
	CHECK(strchr(err, 0x1b) == NULL);
	/* the default layout: today's headline figures, then reclaim and
	 * PSI; with a cgroup, its plots beside their system ones */
	n = metrics_default_plots(false, MC_NONE, ids);
	metrics_list_text(ids, n, buf, sizeof(buf));
	CHECK_STR(buf, "swap-used,majflt,free,minflt,available,kswapd-cpu,scan-kswapd,"
		  "scan-direct,psi-some,psi-full");
	n = metrics_default_plots(true, MC_NONE, ids);
	metrics_list_text(ids, n, buf, sizeof(buf));
	CHECK_STR(buf, "swap-used,cg-swap,kswapd-cpu,majflt,cg-majflt,minflt,available,"
		  "cg-mem,free,scan-kswapd,scan-direct,psi-some");
	CHECK(metrics_scale_group(M_SCAN_KSWAPD) == metrics_scale_group(M_SCAN_DIRECT));
	CHECK(metrics_scale_group(M_SCAN_KSWAPD) >= 0);
	CHECK(metrics_scale_group(M_MAJFLT) == metrics_scale_group(M_CG_MAJFLT));
	CHECK(metrics_scale_group(M_PSI_SOME) != metrics_scale_group(M_PSI_SOME_RATE));
	CHECK_INT(metrics_scale_group(M_FREE), -1);
	CHECK_NEAR(metrics_nice_max(M_PSI_SOME, 97), 100, 0);
	CHECK_NEAR(metrics_nice_max(M_PSI_SOME, 0.3), 1, 0);
	CHECK_NEAR(metrics_nice_max(M_PSI_SOME, 0.02), 1, 0);
	CHECK_NEAR(metrics_nice_max(M_PSI_SOME, 3), 5, 0);
	CHECK_NEAR(metrics_nice_max(M_KSWAPD_CPU, 0.4), 1, 0);
	metrics_value_text(M_PROCS_BLOCKED, 3, buf, sizeof(buf));
	CHECK_STR(buf, "3");
	/* stall seconds a second and milliseconds say their unit */
	metrics_value_text(M_STALL_RECLAIM, 0.3, buf, sizeof(buf));
	CHECK_STR(buf, "0.30s/s");
	metrics_value_text(M_DR_TIME, 12.34, buf, sizeof(buf));
	CHECK_STR(buf, "12.3s/s");
	metrics_value_text(M_DR_P99, 0.408, buf, sizeof(buf));
	CHECK_STR(buf, "0.41ms");
	metrics_value_text(M_DR_P99, 12.25, buf, sizeof(buf));
	CHECK_STR(buf, "12.2ms");
	metrics_value_text(M_DR_P99, 250, buf, sizeof(buf));
	CHECK_STR(buf, "250ms");
	metrics_value_text(M_DR_STALLS, 197, buf, sizeof(buf));
	CHECK_STR(buf, "197/s");
}

TEST(metrics_stall_rates)
{
	struct sys_sample a, b;
	struct delays p, c;
	double v[M_N];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.t = 10;
	b.t = 12;
	delays_clear(&p);
	delays_clear(&c);
	p.s[DL_SWAPIN] = 1.0;
	c.s[DL_SWAPIN] = 2.5;
	p.s[DL_CPU] = 3.0;
	c.s[DL_CPU] = 2.0;	/* fell: a worker gone between the ticks, no rate */
	c.s[DL_IO] = 4.0;	/* unknown before: no rate */
	struct metric_input in = { .prev = &a, .cur = &b, .stall_prev = &p, .stall_cur = &c,
				   .stall_dt = 0.5 };
	metrics_values(&in, v);
	CHECK_NEAR(v[M_STALL_SWAPIN], 3.0, 1e-12);	/* s of stall per s */
	CHECK(isnan(v[M_STALL_CPU]));
	CHECK(isnan(v[M_STALL_IO]));
	CHECK(isnan(v[M_STALL_RECLAIM]));
	in.stall_prev = NULL;
	metrics_values(&in, v);
	CHECK(isnan(v[M_STALL_SWAPIN]));
	CHECK_STR(metric_def(M_STALL_CPU)->name, "stall-cpu");
	CHECK_INT(metric_find("stall-thrashing"), M_STALL_THRASHING);

	struct metric_avail av;
	struct sampler_caps caps;
	memset(&caps, 0, sizeof(caps));
	metrics_availability(&caps, NULL, &av);
	CHECK(av.ok[M_STALL_SWAPIN]);
	metrics_no_stalls(&av, "delay accounting needs root (taskstats)");
	CHECK(!av.ok[M_STALL_SWAPIN] && !av.ok[M_STALL_CPU]);
	CHECK_STR(av.why[M_STALL_IO], "delay accounting needs root (taskstats)");
}
