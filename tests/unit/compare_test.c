/* Comparisons: the golden table, the gains and the tests they are marked
 * by, OOM rates, stall rows as stats gives them, and the runs each set
 * names read from a history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compare.h"
#include "record_fixture.h"
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

/* A history of six runs: 1-3 labelled a at swappiness 60, 4-5 labelled b
 * at 100, 6 labelled "x*" at 80; 4-6 of session s1, at places host=a,
 * host=b, host=a; path names its file in dir. */
static struct history *six_runs(char *dir, char *path, size_t len)
{
	static const struct { const char *label; int swappiness; } runs[] = {
		{ "a", 60 }, { "a", 60 }, { "a", 60 }, { "b", 100 }, { "b", 100 }, { "x*", 80 },
	};
	char err[256];
	struct history *h;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, len, "%s/h.db", dir);
	if (!(h = history_open(path, 0, err, sizeof(err))))
		return NULL;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct run_record r;

		fixture_record(&r);
		snprintf(r.started_at, sizeof(r.started_at), "2025-06-0%zuT09:00:00Z", i + 1);
		snprintf(r.label, sizeof(r.label), "%s", runs[i].label);
		r.swappiness = runs[i].swappiness;
		if (i >= 3) {
			snprintf(r.session, sizeof(r.session), "s1");
			snprintf(r.cell, sizeof(r.cell), "host=%c", i == 4 ? 'b' : 'a');
		}
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
		CHECK_INT(r.id, (long long)i + 1);
		run_record_clear(&r);
	}
	return h;
}

/* The ids of c's runs, newest first, as "id:set" words. */
static const char *ids_sets(const struct compare_sets *c, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%lld:%d", i ? " " : "",
				      (long long)c->runs[i].id, c->set[i]);
	return buf;
}

/* Each set is what its argument names that no earlier one took, sets
 * numbered among the arguments that took runs; a label is matched exactly,
 * and the runs no argument took are left out. */
TEST(compare_collect_sets_in_order)
{
	char dir[] = "/tmp/thrashtop-compare.XXXXXX", path[64], err[256], buf[128];
	struct history *h = six_runs(dir, path, sizeof(path));
	struct compare_sets c;

	CHECK(h != NULL);
	if (!h)
		return;
	struct compare_arg run_group[] = { { .by = COMPARE_RUN, .id = 1 }, { .by = COMPARE_GROUP, .id = 1 } };
	CHECK_INT(compare_collect(h, run_group, 2, compare_fields, &c, err, sizeof(err)), 0);
	CHECK_STR(ids_sets(&c, buf, sizeof(buf)), "3:1 2:1 1:0");
	CHECK_INT(c.nsets, 2);
	CHECK_INT(run_group[0].set, 0);
	CHECK_INT(run_group[1].set, 1);
	compare_sets_free(&c);

	struct compare_arg taken[] = { { .by = COMPARE_GROUP, .id = 4 }, { .by = COMPARE_LABEL, .label = "a" },
				       { .by = COMPARE_GROUP, .id = 5 }, { .by = COMPARE_RUN, .id = 99 } };
	CHECK_INT(compare_collect(h, taken, 4, NULL, &c, err, sizeof(err)), 0);
	CHECK_STR(ids_sets(&c, buf, sizeof(buf)), "5:0 4:0 3:1 2:1 1:1");
	CHECK_INT(c.nsets, 2);
	CHECK_INT(taken[2].set, -1);
	CHECK_INT(taken[3].set, -1);
	CHECK(c.n && !strcmp(c.runs[0].hostname, "lenstra"));	/* every field */
	compare_sets_free(&c);

	struct compare_arg glob[] = { { .by = COMPARE_LABEL, .label = "x*", .text = "label:x*" },
				      { .by = COMPARE_LABEL, .label = "?" } };
	CHECK_INT(compare_collect(h, glob, 2, compare_fields, &c, err, sizeof(err)), 0);
	CHECK_STR(ids_sets(&c, buf, sizeof(buf)), "6:0");
	CHECK_INT(glob[1].set, -1);
	CHECK(c.n && !c.runs[0].hostname[0]);	/* compare_fields only */
	CHECK_STR(c.names[0], "label:x*");
	compare_sets_free(&c);

	/* a session: a set for each of its cells, the oldest first, named
	 * by the cell; run 1 first, before it */
	struct compare_arg session[] = { { .by = COMPARE_RUN, .id = 1, .text = "1" },
					 { .by = COMPARE_SESSION, .session = "s1", .text = "session:s1" } };
	CHECK_INT(compare_collect(h, session, 2, compare_fields, &c, err, sizeof(err)), 0);
	CHECK_STR(ids_sets(&c, buf, sizeof(buf)), "6:1 5:2 4:1 1:0");
	CHECK_INT(c.nsets, 3);
	CHECK_INT(session[1].set, 1);
	CHECK(c.nsets == 3 && !strcmp(c.names[0], "1") && !strcmp(c.names[1], "host=a") &&
	      !strcmp(c.names[2], "host=b"));
	compare_sets_free(&c);

	history_close(h);
	unlink(path);
	snprintf(buf, sizeof(buf), "%s-wal", path);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", path);
	unlink(buf);
	rmdir(dir);
}
