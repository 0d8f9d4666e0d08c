/* Comparisons: the golden table, the gains and the tests they are marked
 * by, OOM rates, and stall rows as stats gives them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compare.h"
#include "report_fixture.h"

static int w_compare(FILE *f, const struct run_record *v, size_t n, void *a)
{
	int set[7] = { 0, 0, 0, 1, 1, 1, -1 };
	const char *names[2] = { "swap60", "swap100" };
	(void)a;
	return compare_figures(f, v, n, set, 2, names, NULL, 0);
}

TEST(compare_golden)
{
	struct run_record v[8];
	size_t n;

	fixture_runs(v, &n);
	char *out = render(w_compare, v, n, NULL);
	golden("compare.txt", out);
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* 3 of 8 runs killed against 0 of 8: both rates, and Fisher's two-sided
 * p of 0.2, beside the times of the completed runs. */
TEST(compare_oom_rates)
{
	struct run_record v[16];
	int set[16];
	const char *names[2] = { "pre7", "pre8" };
	char *buf = NULL, err[128] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; i < 16; i++) {
		run_record_init(&v[i]);
		v[i].wall_us = (150 + i) * 1000000LL;
		v[i].user_us = 70 * 1000000LL;
		v[i].sys_us = 7 * 1000000LL;
		v[i].majflt = 19000 + i;
		v[i].status = i < 3 ? RUN_OOM : RUN_OK;
		set[i] = i < 8 ? 0 : 1;
	}
	CHECK_INT(compare_figures(f, v, 16, set, 2, names, err, sizeof(err)), 0);
	fclose(f);
	CHECK(strstr(buf, "\nOOM    killed       3 of 8                0 of 8  (p=0.200)\n") != NULL);
	if (!strstr(buf, "(p=0.200)"))
		printf("%s", buf);
	free(buf);
	for (int i = 0; i < 16; i++)
		run_record_clear(&v[i]);
}

/* compare tests what it can and says so: one run on a side is marked
 * [untested], with no claim of noise; a first column printed as 0 gives
 * n/a; figures that print alike differ by 0.00%. */
TEST(compare_marks_what_it_tested)
{
	struct run_record v[5];
	int set[5] = { 0, 0, 0, 1, 2 };
	const char *names[3] = { "A", "B", "C" };
	const int64_t wall[] = { 20000, 20300, 21000, 900000, 17000 },
		      usr[] = { 10000, 10000, 10000, 800000, 10000 },
		      sys[] = { 0, 0, 0, 9240000, 0 };
	char *out = NULL;
	size_t len = 0;

	timed_runs(v, 5, wall, usr, sys);
	v[4].wall_us = 20900;	/* 0.0209 against A's mean 0.0204: both 0.02 */
	FILE *f = open_memstream(&out, &len);
	CHECK_INT(compare_figures(f, v, 5, set, 3, names, NULL, 0), 0);
	fclose(f);
	CHECK(out && strstr(out, "\nAmean  wall           0.02  (  0.00%)       0.90 [-4400.00%]"
			    "       0.02  [  0.00%]\n"));
	CHECK(out && strstr(out, "\nAmean  sys            0.00  (    n/a)       9.24  (    n/a)"));
	CHECK(out && strstr(out, "\n[gain%]: not tested, a side has fewer than 2 runs: it may be noise.\n"));
	CHECK(out && !strstr(out, "OOM"));
	if (out && !strstr(out, "[-4400.00%]"))
		printf("%s", out);
	free(out);
	for (int i = 0; i < 5; i++)
		run_record_clear(&v[i]);
}

/* No OOM line where no run of the sets was killed. */
TEST(compare_no_oom_line_without_a_kill)
{
	struct run_record v[8];
	size_t n;
	int set[8] = { 0, 0, 0, 1, 1, -1, -1, -1 };
	const char *names[2] = { "swap60", "swap100" };
	char *cmp = NULL;
	size_t len = 0;

	fixture_runs(v, &n);
	FILE *f = open_memstream(&cmp, &len);
	CHECK_INT(compare_figures(f, v, n, set, 2, names, NULL, 0), 0);
	fclose(f);
	CHECK(cmp && !strstr(cmp, "OOM"));
	free(cmp);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* Stall rows are a worker's share, as in stats: two workers each 25% of
 * the wall in reclaim are 25.00%. */
TEST(compare_stall_rows_per_worker)
{
	struct run_record v[2];
	const int64_t wall[] = { 1000000, 1000000 }, usr[] = { 900000, 900000 },
		      sys[] = { 1000, 1000 };
	char *cmp = NULL;
	size_t len = 0;
	int set[2] = { 0, 1 };
	const char *names[2] = { "a", "b" };

	timed_runs(v, 2, wall, usr, sys);
	for (int i = 0; i < 2; i++) {
		v[i].procs = 2;
		v[i].stalls.s[DL_RECLAIM] = 0.5;
		run_record_config(&v[i]);
	}
	FILE *f = open_memstream(&cmp, &len);
	CHECK_INT(compare_figures(f, v, 2, set, 2, names, NULL, 0), 0);
	fclose(f);
	CHECK(cmp && strstr(cmp, "\nAmean  reclaim      25.00%  (  0.00%)     25.00%  [  0.00%]\n"));
	CHECK(cmp && strstr(cmp, "\nswapin to irq: a worker's stall in % of wall time, the workers' sum\n"
			    "over their number.\n"));
	free(cmp);
	for (int i = 0; i < 2; i++)
		run_record_clear(&v[i]);
}
