#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
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
