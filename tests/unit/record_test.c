#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics.h"
#include "record_fixture.h"
#include "run.h"
#include "runrec.h"

TEST(record_sysctls_at_start_undoes_live_changes)
{
	struct run_sysctl_change ch[3] = {
		{ 1.0, "vm.swappiness", "60", "70" },
		{ 2.0, "vm.swappiness", "70", "80" },
		{ 3.0, "vm.page-cluster", "3", "2" },
	};
	char *s;

	s = record_sysctls_at_start("vm.nr_hugepages=11000\nvm.page-cluster=2\nvm.swappiness=80\n",
				    ch, 3);
	/* the first change of a name holds its value at the start */
	CHECK_STR(s, "vm.nr_hugepages=11000\nvm.page-cluster=3\nvm.swappiness=60\n");
	free(s);
	s = record_sysctls_at_start("vm.swappiness=80", NULL, 0);
	CHECK_STR(s, "vm.swappiness=80\n");
	free(s);
	s = record_sysctls_at_start("vm.swappiness=80", ch, 1);
	CHECK_STR(s, "vm.swappiness=60\n");
	free(s);
	/* a name that only starts like another is not it */
	struct run_sysctl_change d = { 1.0, "vm.dirty_ratio", "20", "30" };
	s = record_sysctls_at_start("vm.dirty_ratio_x=5\nvm.dirty_ratio=30\n", &d, 1);
	CHECK_STR(s, "vm.dirty_ratio_x=5\nvm.dirty_ratio=20\n");
	free(s);
	s = record_sysctls_at_start("", &d, 1);
	CHECK_STR(s, "");
	free(s);
}

/* A series' lowest and highest sample, its gaps left out; none without
 * samples or with gaps only. */
TEST(record_series_range)
{
	struct run_record r;
	double lo, hi, *v;

	run_record_init(&r);
	CHECK(!run_record_series_range(&r, M_FREE, &lo, &hi));
	CHECK_INT(run_record_alloc_series(&r, 4), 0);
	v = run_record_add_series(&r, M_FREE);
	CHECK(v != NULL);
	CHECK(v && !run_record_series_range(&r, M_FREE, &lo, &hi));
	if (v) {
		v[0] = NAN;
		v[1] = 7;
		v[2] = -2;
		v[3] = 5;
	}
	CHECK(run_record_series_range(&r, M_FREE, &lo, &hi));
	CHECK(lo == -2 && hi == 7);
	run_record_clear(&r);
}

/* A kept run is drawn on the scale the monitor drew it on, from the sizes
 * kept with it, unless a sample went above that or none was kept. */
TEST(record_scale)
{
	struct run_record r;

	run_record_init(&r);
	r.ram_kib = 4 * 1024 * 1024;
	r.hugetlb_kib = 1024 * 1024;
	r.mlocked_kib = 0;
	r.swap_total_kib = 2 * 1024 * 1024;
	r.mem_limit_kib = 96 * 1024;
	CHECK_NEAR(run_record_scale(&r, M_FREE, 1000), 3 * 1024 * 1024, 0);
	CHECK_NEAR(run_record_scale(&r, M_SWAP_USED, 1000), 2 * 1024 * 1024, 0);
	CHECK_NEAR(run_record_scale(&r, M_CG_MEM, 90 * 1024), 96 * 1024, 0);
	CHECK_NEAR(run_record_scale(&r, M_KSWAPD_CPU, 3), 100, 0);
	/* above the kept scale, or none kept: a round one over the peak */
	CHECK_NEAR(run_record_scale(&r, M_SWAP_USED, 3 * 1024 * 1024),
		   metrics_nice_max(M_SWAP_USED, 3 * 1024 * 1024), 0);
	r.mem_limit_kib = NA;
	CHECK_NEAR(run_record_scale(&r, M_CG_MEM, 90 * 1024), metrics_nice_max(M_CG_MEM, 90 * 1024), 0);
	CHECK_NEAR(run_record_scale(&r, M_MAJFLT, 4321), metrics_nice_max(M_MAJFLT, 4321), 0);
	CHECK(metrics_nice_max(M_MAJFLT, 4321) >= 4321);
	run_record_clear(&r);
}

/* A stored CPU % is what the csh line prints (a posted one, kept where its
 * times give another); without one, the times give it. */
TEST(record_line_prints_stored_cpu_pct)
{
	struct run_record r;
	char line[128];

	fixture_record(&r);
	r.user_us = 3000270000;
	r.sys_us = 700330000;
	r.wall_us = 3753290000;
	r.cpu_pct = 98.6;
	run_record_line(&r, false, line, sizeof(line));
	CHECK_STR(line, "3000.270u 700.330s 1:02:33.29 98.6% 0+0k 0+8io 19670pf+0w");
	r.cpu_pct = NAN;
	run_record_line(&r, false, line, sizeof(line));
	CHECK_STR(line, "3000.270u 700.330s 1:02:33.29 98.5% 0+0k 0+8io 19670pf+0w");
	run_record_clear(&r);
}
