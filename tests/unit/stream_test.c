#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fmt.h"
#include "stream.h"
#include "wire.h"

/* One message through the line buffer and the parser, as the reader gets it. */
struct got {
	struct stream_in in;
	struct stream_line l;
	char *line;
};

static int pass(struct stream_msg *m, struct got *g)
{
	memset(g, 0, sizeof(*g));
	if (stream_msg_end(m) || stream_in_feed(&g->in, m->buf, m->len))
		return -1;
	if (!(g->line = stream_in_next(&g->in)))
		return -1;
	return stream_parse(g->line, &g->l);
}

static void got_free(struct got *g)
{
	stream_line_free(&g->l);
	stream_in_free(&g->in);
}

TEST(stream_sys_sample_round_trips_field_by_field)
{
	struct sys_sample a, b;
	struct stream_msg m = { 0 };
	struct got g;

	memset(&a, 0, sizeof(a));
	a.t = 12345.678901234567;
	for (int i = 0; i < MI_N; i++)
		a.mem[i] = i == 3 ? NA : 1000 + i;
	for (int i = 0; i < VM_N; i++)
		a.vm[i] = i == 5 ? NA : INT64_MAX - i;
	a.procs_running = 7;
	a.procs_blocked = 0;
	a.psi_some10 = 1.5;
	a.psi_full10 = NAN;
	a.psi_some_us = 99;
	a.psi_full_us = NA;
	a.nkswapd = 2;
	a.kswapd_ns = 123456789;
	a.mem_cache_all = 5;
	a.zswap_kib = NA;
	a.zswapped_kib = 4;
	a.zram_orig_kib = 1;
	a.zram_compr_kib = 2;
	a.zram_mem_kib = 3;
	a.rc_ok = true;
	a.rc = (struct rc_counts){ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, UINT64_MAX - 1, 12 };
	a.rc_p99_ms = 0.1;
	stream_msg_begin(&m, "tick");
	wire_put_sys(&m, "", &a);
	CHECK_INT(pass(&m, &g), 0);
	CHECK_STR(g.l.tag, "tick");
	memset(&b, 0x55, sizeof(b));
	wire_get_sys(&g.l, "", &b);
	CHECK(b.t == a.t);
	for (int i = 0; i < MI_N; i++)
		CHECK_INT(b.mem[i], a.mem[i]);
	for (int i = 0; i < VM_N; i++)
		CHECK_INT(b.vm[i], a.vm[i]);
	CHECK_INT(b.procs_running, 7);
	CHECK_INT(b.procs_blocked, 0);
	CHECK(b.psi_some10 == 1.5);
	CHECK(isnan(b.psi_full10));
	CHECK_INT(b.psi_some_us, 99);
	CHECK_INT(b.psi_full_us, NA);
	CHECK_INT(b.nkswapd, 2);
	CHECK_INT(b.kswapd_ns, 123456789);
	CHECK_INT(b.mem_cache_all, 5);
	CHECK_INT(b.zswap_kib, NA);
	CHECK_INT(b.zswapped_kib, 4);
	CHECK_INT(b.zram_orig_kib + b.zram_compr_kib + b.zram_mem_kib, 6);
	CHECK(b.rc_ok);
	CHECK(memcmp(&b.rc, &a.rc, sizeof(a.rc)) == 0);
	CHECK(b.rc_p99_ms == 0.1);
	printf("  sys line: %zu bytes\n", m.len);
	got_free(&g);
	stream_msg_free(&m);
}

TEST(stream_worker_proc_delays_cgroup_caps_round_trip)
{
	struct worker w = { 0 }, w2;
	struct proc_sample p = { 42, true, 'D', 1, 2, 3, 4, 5, NA }, p2;
	struct cgroup_stat c = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0.25, NAN }, c2;
	struct sampler_caps k = { 0 }, k2;
	struct stream_msg m = { 0 };
	struct got g;

	w.pid = 1234;
	w.pgid = 1230;
	w.status = 9;
	w.t_end = 99.5;
	w.end = END_SIGNAL;
	for (int i = 0; i < DL_N; i++)
		w.delays.s[i] = i == 2 ? NAN : i * 0.5;
	w.delays_past[3] = true;
	w.ru.ru_utime.tv_sec = 4;
	w.ru.ru_utime.tv_usec = 161000;
	w.ru.ru_stime.tv_usec = 86000;
	w.ru.ru_maxrss = 8000;
	w.ru.ru_majflt = 17;
	w.ru.ru_minflt = 123456;
	w.ru.ru_nvcsw = 3;
	w.ru.ru_nivcsw = 4;
	w.ru.ru_inblock = 5;
	w.ru.ru_oublock = 6;
	w.ru.ru_nswap = 7;
	k.mem[MI_FREE] = k.vm[VM_OOM_KILL] = k.psi = k.zram = true;
	k.nkswapd = 3;
	stream_msg_begin(&m, "reaped");
	wire_put_worker(&m, &w);
	wire_put_proc(&m, "p.", &p);
	wire_put_cgroup(&m, "cg.", &c);
	wire_put_caps(&m, "caps.", &k);
	CHECK_INT(pass(&m, &g), 0);
	wire_get_worker(&g.l, &w2);
	wire_get_proc(&g.l, "p.", &p2);
	wire_get_cgroup(&g.l, "cg.", &c2);
	memset(&k2, 0, sizeof(k2));
	wire_get_caps(&g.l, "caps.", &k2);
	CHECK_INT(w2.pid, 1234);
	CHECK_INT(w2.pgid, 1230);
	CHECK_INT(w2.status, 9);
	CHECK(w2.t_end == 99.5);
	CHECK_INT(w2.end, END_SIGNAL);
	for (int i = 0; i < DL_N; i++)
		CHECK(i == 2 ? isnan(w2.delays.s[i]) : w2.delays.s[i] == i * 0.5);
	for (int i = 0; i < DL_N; i++)
		CHECK_INT(w2.delays_past[i], i == 3);
	CHECK_INT(w2.ru.ru_utime.tv_sec, 4);
	CHECK_INT(w2.ru.ru_utime.tv_usec, 161000);
	CHECK_INT(w2.ru.ru_stime.tv_sec, 0);
	CHECK_INT(w2.ru.ru_stime.tv_usec, 86000);
	CHECK_INT(w2.ru.ru_maxrss, 8000);
	CHECK_INT(w2.ru.ru_majflt, 17);
	CHECK_INT(w2.ru.ru_minflt, 123456);
	CHECK_INT(w2.ru.ru_nvcsw + w2.ru.ru_nivcsw, 7);
	CHECK_INT(w2.ru.ru_inblock + w2.ru.ru_oublock + w2.ru.ru_nswap, 18);
	CHECK(p2.pid == 42 && p2.alive && p2.state == 'D' && p2.utime_ticks == 1 && p2.stime_ticks == 2 &&
	      p2.majflt == 3 && p2.minflt == 4 && p2.rss_kib == 5 && p2.swap_kib == NA);
	CHECK(c2.usage == 1 && c2.oom_kill == 11 && c2.psi_some10 == 0.25 && isnan(c2.psi_full10));
	CHECK(memcmp(&k, &k2, sizeof(k)) == 0);
	got_free(&g);
	stream_msg_free(&m);
}

static const char nasty[] = "a b%c=d\ne\x01\x7f\t\xc3\xa9t\xc3\xa9 \xe2\x86\x92 %41";

TEST(stream_strings_round_trip_whatever_their_bytes)
{
	struct sysstate a, b;
	struct oom_kill k = { 77, "sh -c x=1", "/thrashtop-1 %2" }, k2;
	struct stream_msg m = { 0 };
	struct got g;

	memset(&a, 0, sizeof(a));
	snprintf(a.hostname, sizeof(a.hostname), "%s", nasty);
	snprintf(a.release, sizeof(a.release), "6.1.0-18-amd64");
	snprintf(a.cmdline, sizeof(a.cmdline), "BOOT_IMAGE=/vmlinuz root=UUID=x ro quiet");
	a.version[0] = '\0';
	a.cpus_online = 2;
	a.memcg_version = 2;
	a.mem_total_kib = 4000000;
	a.hugetlb_kib = NA;
	a.nswaps = 2;
	snprintf(a.swaps[1].path, sizeof(a.swaps[1].path), "/swap file");
	a.swaps[1].size_kib = 1024;
	a.swaps[1].prio = -2;
	for (int i = 0; i < SYSSTATE_NVM; i++)
		snprintf(a.vm[i].value, sizeof(a.vm[i].value), "%d", i * 10);
	snprintf(a.vm[3].value, sizeof(a.vm[3].value), "4096\t4096 8192");
	snprintf(a.zswap_enabled, sizeof(a.zswap_enabled), "N");
	stream_msg_begin(&m, "state");
	wire_put_state(&m, &a);
	wire_put_kill(&m, "k.", &k);
	CHECK(!memchr(m.buf, '\n', m.len));
	CHECK_INT(pass(&m, &g), 0);
	wire_get_state(&g.l, &b);
	wire_get_kill(&g.l, "k.", &k2);
	CHECK_STR(b.hostname, nasty);
	CHECK_STR(b.release, a.release);
	CHECK_STR(b.cmdline, a.cmdline);
	CHECK_STR(b.version, "");
	CHECK_INT(b.cpus_online, 2);
	CHECK_INT(b.memcg_version, 2);
	CHECK_INT(b.hugetlb_kib, NA);
	CHECK_INT(b.nswaps, 2);
	CHECK_STR(b.swaps[1].path, "/swap file");
	CHECK_INT(b.swaps[1].prio, -2);
	CHECK_STR(b.vm[3].value, "4096\t4096 8192");
	CHECK_STR(b.vm[0].name, "vm.swappiness");
	CHECK_STR(b.zswap_enabled, "N");
	CHECK_INT(k2.pid, 77);
	CHECK_STR(k2.comm, "sh -c x=1");
	CHECK_STR(k2.memcg, "/thrashtop-1 %2");
	got_free(&g);
	stream_msg_free(&m);
}

TEST(stream_cfg_tuning_end_prog_round_trip)
{
	char *argv[] = { "sh", "-c", "echo 100% = done\n", "", NULL };
	struct workload_cfg c = { .nelems = 2000000, .procs = 2, .seed = 7,
		.fill = { FILL_ZERO, 30 }, .argv = argv, .set_nice = true, .nice = -5 }, c2;
	struct tuning t, t2;
	struct place_end e = { .nkills = 2, .tree_lost = true, .acct_off = true }, e2;
	struct wire_prog p = { 2, 1000, 2000, 0, -1 }, p2;
	struct stream_msg m = { 0 };
	struct got g;

	tuning_init(&t);
	t.have_cg = t.have_zram = t.touched = true;
	t.mem_limit = 64LL << 20;
	snprintf(t.cg.path, sizeof(t.cg.path), "/sys/fs/cgroup/thrashtop-9");
	t.cg.version = 2;
	t.zr.bytes = 256LL << 20;
	snprintf(t.zr.name, sizeof(t.zr.name), "zram3");
	snprintf(t.zr.algo, sizeof(t.zr.algo), "zstd");
	t.zr.prio = 32767;
	t.have_balloon = true;
	t.global_leave = 1LL << 30;
	t.cg_runs = 3;
	e.tree_past[DL_IO] = true;
	stream_msg_begin(&m, "x");
	wire_put_cfg(&m, &c);
	wire_put_tuning(&m, &t);
	wire_put_end(&m, &e);
	wire_put_prog(&m, &p);
	CHECK_INT(pass(&m, &g), 0);
	CHECK_INT(wire_get_cfg(&g.l, &c2), 0);
	tuning_init(&t2);
	wire_get_tuning(&g.l, &t2);
	wire_get_end(&g.l, &e2);
	wire_get_prog(&g.l, &p2);
	CHECK_INT(c2.nelems, 2000000);
	CHECK_INT(c2.procs, 2);
	CHECK_INT(c2.seed, 7);
	CHECK_INT(c2.fill.kind, FILL_ZERO);
	CHECK_INT(c2.fill.zero_pct, 30);
	CHECK(c2.set_nice && c2.nice == -5);
	CHECK(c2.argv && c2.argv[0] && c2.argv[3] && !c2.argv[4]);
	if (c2.argv && c2.argv[3]) {
		CHECK_STR(c2.argv[2], argv[2]);
		CHECK_STR(c2.argv[3], "");
	}
	wire_free_argv(c2.argv);
	CHECK(t2.have_cg && t2.have_zram && t2.touched && !t2.have_swap);
	CHECK_INT(t2.mem_limit, 64LL << 20);
	CHECK_STR(t2.cg.path, t.cg.path);
	CHECK_INT(t2.cg.version, 2);
	CHECK_INT(t2.cg.procs_fd, -1);
	CHECK_STR(t2.zr.name, "zram3");
	CHECK_STR(t2.zr.algo, "zstd");
	CHECK_INT(t2.zr.bytes, 256LL << 20);
	CHECK_INT(t2.zr.prio, 32767);
	CHECK_STR(tuning_global_by(&t2), "balloon");
	CHECK_INT(t2.global_leave, 1LL << 30);
	CHECK_INT(t2.cg_runs, 3);
	CHECK_INT(e2.nkills, 2);
	CHECK(e2.tree_lost && e2.acct_off && e2.tree_past[DL_IO] && !e2.tree_past[DL_CPU]);
	CHECK(p2.phase == 2 && p2.done == 1000 && p2.n == 2000 && p2.errors == 0 && p2.first_bad == -1);
	got_free(&g);
	stream_msg_free(&m);
}

TEST(stream_unknown_keys_ignored_missing_keys_na)
{
	char line[] = "tick t=5.5 future.key=9 mem.0=100 mem.99=1 vm.2=x procs_running=3 zz";
	char line2[] = "tick t=5.5 future=9 mem.0=100 procs_running=3";
	struct stream_line l = { 0 };
	struct sys_sample x;

	CHECK_INT(stream_parse(line, &l), -1);	/* "zz" has no '=' */
	CHECK_INT(errno, EINVAL);
	CHECK_INT(stream_parse(line2, &l), 0);
	wire_get_sys(&l, "", &x);
	CHECK(x.t == 5.5);
	CHECK_INT(x.mem[0], 100);
	CHECK_INT(x.mem[1], NA);
	CHECK_INT(x.vm[2], NA);
	CHECK_INT(x.procs_running, 3);
	CHECK(isnan(x.psi_some10));
	CHECK(!x.rc_ok);
	CHECK_INT(x.rc.direct_n, NA);
	stream_line_free(&l);
}

TEST(stream_line_over_the_limit_is_refused)
{
	struct stream_in in = { 0 };
	struct stream_msg m = { 0 };
	char *big = malloc(STREAM_LINE_MAX + 10);

	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 'a', STREAM_LINE_MAX + 10);
	CHECK_INT(stream_in_feed(&in, "ok x=1\npart", 11), 0);
	CHECK_STR(stream_in_next(&in), "ok x=1");
	CHECK(stream_in_next(&in) == NULL && errno == 0);	/* "part" waits */
	CHECK_INT(stream_in_feed(&in, big, STREAM_LINE_MAX), 0);
	CHECK(stream_in_next(&in) == NULL);
	CHECK_INT(errno, EMSGSIZE);
	stream_in_free(&in);
	/* written: refused as well */
	memset(big, ' ', STREAM_LINE_MAX / 3 + 10);
	stream_msg_begin(&m, "out");
	stream_put_mem(&m, "data", big, STREAM_LINE_MAX / 3 + 10);	/* 3 bytes each */
	CHECK_INT(stream_msg_end(&m), -1);
	CHECK_INT(errno, EMSGSIZE);
	stream_msg_free(&m);
	free(big);
}

TEST(stream_hello_refuses_another_major_naming_both)
{
	struct stream_msg m = { 0 };
	char line[] = "hello proto=2 version=9.9", err[256];
	struct stream_line l = { 0 };
	struct got g;

	CHECK_INT(stream_hello(&m, "1.2"), 0);
	CHECK_STR(m.buf, "hello proto=1 version=1.2\n");
	CHECK_INT(pass(&m, &g), 0);
	CHECK_INT(stream_hello_check(&g.l, "1.3", "agent", err, sizeof(err)), 0);
	got_free(&g);
	CHECK_INT(stream_parse(line, &l), 0);
	CHECK_INT(stream_hello_check(&l, "1.3", "agent", err, sizeof(err)), -1);
	printf("  %s\n", err);
	CHECK(strstr(err, "9.9") && strstr(err, "1.3") && strstr(err, "protocol 2") &&
	      !strchr(err, '\n'));
	stream_line_free(&l);
	stream_msg_free(&m);
}

TEST(stream_outbox_drops_ticks_never_control_and_counts)
{
	struct stream_out o = { 0 };
	char tick[1000], got[4096];
	int p[2], queued = 0, dropped = 0;
	size_t total = 0;

	memset(tick, 't', sizeof(tick));
	tick[sizeof(tick) - 1] = '\n';
	for (int i = 0; i < 2000; i++) {
		int rc = stream_out_put(&o, tick, sizeof(tick), true);

		queued += rc == 1;
		dropped += rc == 0;
	}
	printf("  %d ticks queued, %d dropped\n", queued, dropped);
	CHECK_INT(o.drops, dropped);
	CHECK(dropped > 0 && queued * sizeof(tick) >= STREAM_OUT_TICKS);
	/* control messages still go in, however full */
	CHECK_INT(stream_out_put(&o, "reaped pid=1\n", 13, false), 1);
	CHECK_INT(o.drops, dropped);
	CHECK(pipe(p) == 0);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	CHECK_INT(stream_out_flush(&o, p[1]), 1);	/* the pipe is full */
	/* drain the reader; then a tick goes in, after the drops' count */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (stream_out_pending(&o)) {
		ssize_t n;

		while ((n = read(p[0], got, sizeof(got))) > 0)
			total += (size_t)n;
		if (stream_out_flush(&o, p[1]) < 0)
			break;
	}
	while (read(p[0], got, sizeof(got)) > 0)
		;
	CHECK(total > 0);
	CHECK_INT(stream_out_put(&o, "tick t=1\n", 9, true), 1);
	CHECK_INT(stream_out_flush(&o, p[1]), 0);
	ssize_t n = read(p[0], got, sizeof(got) - 1);

	got[n > 0 ? n : 0] = '\0';
	snprintf(tick, sizeof(tick), "drops n=%d\ntick t=1\n", dropped);
	CHECK_STR(got, tick);
	close(p[0]);
	close(p[1]);
	stream_out_free(&o);
}

TEST(stream_reclaim_run_round_trips_in_lines_of_events)
{
	struct rc_acc *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct stream_msg m = { 0 };
	struct got g;
	int64_t n;
	double s;
	int lines = 0;

	CHECK(a && b);
	a->nev = 450;
	a->ev_past = 3;
	a->c.memcg_n = 450;
	a->c.oom_last_ns = 1234567890123ULL;
	a->run.memcg_n = 449;	/* the run's own counts: its summary */
	a->run.kswapd_wakes = 7;
	a->run_hist.n = 2;
	a->run_hist.max_ns = 5000;
	a->run_hist.b[7] = 1;
	a->run_hist.b[RC_HIST_N - 1] = 1;
	a->nvictims = 1;
	a->victims[0] = (struct rc_victim){ 1.5, 77, "sort x" };
	for (int i = 0; i < a->nev; i++)
		a->ev[i] = (struct rc_run_event){ i * 0.001, 0.25, 100 + i, (uint8_t)(i % 6) };
	stream_msg_begin(&m, "rcrun");
	wire_put_rcrun(&m, a, 12, 0.5);
	CHECK_INT(pass(&m, &g), 0);
	wire_get_rcrun(&g.l, b, &n, &s);
	got_free(&g);
	for (int i = 0; i < a->nev; i += WIRE_RC_EVENTS, lines++) {
		stream_msg_begin(&m, "rcev");
		wire_put_rcev(&m, a, i);
		CHECK_INT(pass(&m, &g), 0);
		wire_get_rcev(&g.l, b);
		got_free(&g);
	}
	CHECK_INT(lines, 3);
	CHECK_INT(n, 12);
	CHECK(s == 0.5);
	CHECK_INT(b->nev, 450);
	CHECK_INT(b->ev_past, 3);
	CHECK_INT(b->c.memcg_n, 450);
	CHECK(b->c.oom_last_ns == a->c.oom_last_ns);
	CHECK_INT(b->run.memcg_n, 449);
	CHECK_INT(b->run.kswapd_wakes, 7);
	CHECK(memcmp(&a->run_hist, &b->run_hist, sizeof(a->run_hist)) == 0);
	CHECK(b->nvictims == 1 && b->victims[0].pid == 77 && !strcmp(b->victims[0].comm, "sort x") &&
	      b->victims[0].t == 1.5);
	for (int i = 0; i < 450; i++)
		CHECK(b->ev[i].t == a->ev[i].t && b->ev[i].dur == 0.25 && b->ev[i].pid == 100 + i &&
		      b->ev[i].kind == i % 6);
	stream_msg_free(&m);
	free(a);
	free(b);
}
