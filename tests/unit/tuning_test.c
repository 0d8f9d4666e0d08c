#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sysctl.h"
#include "tuning.h"

/* A sample's values with every reclaim figure known and still. */
static void quiet(double v[M_N])
{
	for (int i = 0; i < M_N; i++)
		v[i] = NAN;
	v[M_MAJFLT] = v[M_MINFLT] = v[M_PSWPIN] = v[M_PSWPOUT] = 0;
	v[M_SCAN_KSWAPD] = v[M_SCAN_DIRECT] = v[M_STEAL_KSWAPD] = v[M_STEAL_DIRECT] = 0;
	v[M_ALLOCSTALL] = v[M_KSWAPD_CPU] = 0;
}

TEST(tuning_reclaim_cgroup_limit_is_direct)
{
	double r[M_N];
	char buf[128];

	quiet(r);
	tuning_reclaim_text(buf, sizeof(buf), r, true, 2500);
	CHECK_STR(buf, "reclaim: direct (cgroup), kswapd idle");
	/* The same limit hits without a cgroup are no evidence. */
	tuning_reclaim_text(buf, sizeof(buf), r, false, 2500);
	CHECK_STR(buf, "reclaim: none");
}

TEST(tuning_reclaim_kswapd_and_global_direct)
{
	double r[M_N];
	char buf[128];

	quiet(r);
	r[M_SCAN_KSWAPD] = 12000;
	tuning_reclaim_text(buf, sizeof(buf), r, false, NAN);
	CHECK_STR(buf, "reclaim: kswapd");
	r[M_ALLOCSTALL] = 3;
	tuning_reclaim_text(buf, sizeof(buf), r, false, NAN);
	CHECK_STR(buf, "reclaim: direct + kswapd");
	tuning_reclaim_text(buf, sizeof(buf), r, true, 10);
	CHECK_STR(buf, "reclaim: direct (cgroup) + direct (global) + kswapd");
	/* kswapd spinning without a scan counted this tick still works. */
	quiet(r);
	r[M_KSWAPD_CPU] = 35;
	tuning_reclaim_text(buf, sizeof(buf), r, false, NAN);
	CHECK_STR(buf, "reclaim: kswapd");
	r[M_KSWAPD_CPU] = 0.4;	/* noise below 1% */
	tuning_reclaim_text(buf, sizeof(buf), r, false, NAN);
	CHECK_STR(buf, "reclaim: none");
}

TEST(tuning_reclaim_unknown_says_na)
{
	double r[M_N];
	char buf[128];

	quiet(r);
	r[M_SCAN_KSWAPD] = r[M_SCAN_DIRECT] = r[M_STEAL_KSWAPD] = r[M_STEAL_DIRECT] = NAN;
	r[M_ALLOCSTALL] = r[M_KSWAPD_CPU] = NAN;
	tuning_reclaim_text(buf, sizeof(buf), r, false, NAN);
	CHECK_STR(buf, "reclaim: n/a");
	/* kswapd hidden (a container): never claimed idle. */
	r[M_SCAN_DIRECT] = 0;
	r[M_ALLOCSTALL] = 0;
	tuning_reclaim_text(buf, sizeof(buf), r, true, 40);
	CHECK_STR(buf, "reclaim: direct (cgroup), kswapd n/a");
	tuning_reclaim_text(buf, sizeof(buf), r, true, 0);
	CHECK_STR(buf, "reclaim: none (kswapd n/a)");
}

TEST(tuning_cgroup_text_figures)
{
	struct cgroup_stat st = {
		.usage = 127LL << 20, .limit = 128LL << 20, .swap_usage = 45LL << 20,
		.psi_some10 = NAN, .psi_full10 = NAN,
	};
	struct tuning_rates r = { .majflt = 1234, .pgfault = NAN, .refault = NAN, .failcnt = 5 };
	char buf[128];

	tuning_cgroup_text(buf, sizeof(buf), &st, &r);
	CHECK_STR(buf, "cgroup 127M/128M swap 45M majflt 1.2k/s");
	st.limit = CGROUP_UNLIMITED;
	st.swap_usage = NA;
	st.psi_some10 = 12.4;
	r.majflt = NAN;
	tuning_cgroup_text(buf, sizeof(buf), &st, &r);
	CHECK_STR(buf, "cgroup 127M/no limit swap n/a majflt n/a psi 12%");
}

TEST(tuning_rates_and_oom_from_samples)
{
	struct tuning t;
	struct tuning_rates r;

	tuning_init(&t);
	tuning_rates(&t, &r);
	CHECK(isnan(r.majflt) && isnan(r.failcnt));
	CHECK_INT(tuning_run_oom(&t), 0);	/* no cgroup: none of its own */
	t.have_cg = true;
	t.cur = (struct cgroup_stat){ .pgmajfault = 100, .pgfault = 1000, .failcnt = 7,
				      .refault_anon = 10, .refault_file = NA, .oom_kill = 2 };
	t.t_cur = 10.0;
	tuning_run_begin(&t);
	t.prev = t.cur;
	t.t_prev = t.t_cur;
	t.cur.pgmajfault = 600;
	t.cur.pgfault = 3000;
	t.cur.failcnt = 7;
	t.cur.refault_anon = 30;
	t.cur.oom_kill = 3;
	t.t_cur = 12.0;
	tuning_rates(&t, &r);
	CHECK_NEAR(r.majflt, 250, 1e-9);
	CHECK_NEAR(r.pgfault, 1000, 1e-9);
	CHECK_NEAR(r.failcnt, 0, 1e-9);
	CHECK_NEAR(r.refault, 10, 1e-9);
	CHECK_INT(tuning_run_oom(&t), 1);
	/* A counter that went backwards (a new cgroup) is no rate. */
	t.cur.pgmajfault = 5;
	tuning_rates(&t, &r);
	CHECK(isnan(r.majflt));
	t.cur.oom_kill = NA;
	CHECK_INT(tuning_run_oom(&t), -1);
}

TEST(tuning_knob_steps)
{
	char out[32] = "";

	CHECK_INT(tuning_knob_step("vm.swappiness", "60", -1, out, sizeof(out)), 0);
	CHECK_STR(out, "50");
	CHECK_INT(tuning_knob_step("vm.swappiness", "60\n", 1, out, sizeof(out)), 0);
	CHECK_STR(out, "70");
	CHECK_INT(tuning_knob_step("vm.swappiness", "195", 1, out, sizeof(out)), 0);
	CHECK_STR(out, "200");
	strcpy(out, "x");
	CHECK_INT(tuning_knob_step("vm.swappiness", "200", 1, out, sizeof(out)), 1);
	CHECK_STR(out, "x");
	CHECK_INT(tuning_knob_step("vm.swappiness", "0", -1, out, sizeof(out)), 1);
	CHECK_INT(tuning_knob_step("vm.swappiness", "55", -1, out, sizeof(out)), 0);
	CHECK_STR(out, "50");
	CHECK_INT(tuning_knob_step("vm.swappiness", "55", 1, out, sizeof(out)), 0);
	CHECK_STR(out, "60");
	CHECK_INT(tuning_knob_step("vm.page-cluster", "3", -1, out, sizeof(out)), 0);
	CHECK_STR(out, "2");
	CHECK_INT(tuning_knob_step("vm.vfs_cache_pressure", "100", 1, out, sizeof(out)), 0);
	CHECK_STR(out, "125");
	CHECK_INT(tuning_knob_step("vm.watermark_scale_factor", "10", -1, out, sizeof(out)), 0);
	CHECK_STR(out, "1");
	/* Unknown knobs: a tenth of the value, at least 1, not below 0. */
	CHECK_INT(tuning_knob_step("vm.min_free_kbytes", "67584", 1, out, sizeof(out)), 0);
	CHECK_STR(out, "74342");
	CHECK_INT(tuning_knob_step("vm.stat_interval", "1", -1, out, sizeof(out)), 0);
	CHECK_STR(out, "0");
	CHECK_INT(tuning_knob_step("vm.stat_interval", "0", -1, out, sizeof(out)), 1);
	CHECK_INT(tuning_knob_step("vm.lowmem_reserve_ratio", "256\t256\t32", 1, out, sizeof(out)), -1);
	CHECK_INT(tuning_knob_step("vm.swappiness", "", 1, out, sizeof(out)), -1);
}

static char tstate[64];

/* As root: a swap file, a cgroup and a sysctl, all undone by tuning_end. As
 * a normal user: a one-line refusal that names root, nothing recorded. The
 * sysctl is one the end-to-end tests, which may run meanwhile, never check. */
TEST(tuning_end_undoes_everything)
{
	struct tuning t;
	char err[512], old[64], now[64], msg[1024];

	snprintf(tstate, sizeof(tstate), "/tmp/thrashtop-tuning-test-XXXXXX");
	CHECK(mkdtemp(tstate) != NULL);
	setenv("THRASHTOP_STATE_DIR", tstate, 1);
	tuning_init(&t);
	if (geteuid() != 0) {
		CHECK_INT(tuning_set_mem(&t, 64LL << 20, err, sizeof(err)), -1);
		CHECK(strstr(err, "needs root") != NULL);
		CHECK(!strchr(err, '\n'));
		CHECK_INT(tuning_end(&t, msg, sizeof(msg)), 0);
	} else {
		char before[64], cgpath[256], swpath[256];
		struct stat sb;

		CHECK_INT(sysctl_get("vm.vfs_cache_pressure", before, sizeof(before), err, sizeof(err)), 0);
		CHECK_INT(tuning_set_swap(&t, 4LL << 20, err, sizeof(err)), 0);
		CHECK_INT(tuning_set_mem(&t, 64LL << 20, err, sizeof(err)), 0);
		CHECK_INT(tuning_set_mem(&t, 32LL << 20, err, sizeof(err)), 0);
		CHECK_INT(tuning_sample(&t, 1.0), 0);
		CHECK_INT(t.cur.limit, 32LL << 20);
		snprintf(cgpath, sizeof(cgpath), "%s", t.cg.path);
		snprintf(swpath, sizeof(swpath), "%s", t.sw.path);
		CHECK(stat(cgpath, &sb) == 0 && stat(swpath, &sb) == 0);
		CHECK_INT(tuning_sysctl(&t, "vm.vfs_cache_pressure", strcmp(before, "137") ? "137" : "138",
					old, sizeof(old), err, sizeof(err)), 0);
		CHECK_STR(old, before);
		CHECK_INT(tuning_sysctl(&t, "vm.vfs_cache_pressure", "139", old, sizeof(old), err,
					sizeof(err)), 0);
		CHECK_INT(tuning_end(&t, msg, sizeof(msg)), 0);
		CHECK_STR(msg, "");
		CHECK(stat(cgpath, &sb) < 0 && stat(swpath, &sb) < 0);
		CHECK_INT(sysctl_get("vm.vfs_cache_pressure", now, sizeof(now), err, sizeof(err)), 0);
		CHECK_STR(now, before);
		/* A kernel refusal is one line with nothing recorded. */
		CHECK_INT(tuning_sysctl(&t, "vm.swappiness", "999", old, sizeof(old), err, sizeof(err)), -1);
		CHECK(!strchr(err, '\n'));
		CHECK_INT(t.nset, 0);
	}
	unlink(strcat(strcpy(msg, tstate), "/state"));
	unlink(strcat(strcpy(msg, tstate), "/lock"));
	unlink(strcat(strcpy(msg, tstate), "/session"));
	CHECK(rmdir(tstate) == 0);	/* nothing else left in it */
	unsetenv("THRASHTOP_STATE_DIR");
}
