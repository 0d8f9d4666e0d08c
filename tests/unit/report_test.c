/* Reports: group statistics against values computed independently (python3
 * statistics module), every export format against golden files, and the
 * readers (json, csv, posted lines) round-tripping. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "export.h"
#include "fmt.h"
#include "import.h"
#include "posted.h"
#include "report.h"
#include "report_fixture.h"
#include "runsource.h"

/* The seed thread's prompt before each of its runs. */
#define QS_PROMPT "lenstra:~/src/qsort> time ./qsbench -n 90000000 -p 1 -s 140175100"

/* The readers' runs collected into an array, as before they streamed. */
static int collected(int rc, struct import_runs *c, struct run_record **v, size_t *n)
{
	if (rc) {
		run_records_free(c->runs, c->n);
		c->runs = NULL;
		c->n = 0;
	}
	*v = c->runs;
	*n = c->n;
	return rc;
}

static int read_json(const char *text, struct run_record **v, size_t *n, char *err, size_t len)
{
	struct import_runs c = { 0 };
	const struct import_sink s = { import_collect, NULL, &c };
	return collected(import_json(text, &s, err, len), &c, v, n);
}

static int read_csv(const char *text, struct run_record **v, size_t *n, char *err, size_t len)
{
	struct import_runs c = { 0 };
	const struct import_sink s = { import_collect, NULL, &c };
	return collected(import_csv(text, &s, err, len), &c, v, n);
}

static int read_posted(const char *text, const char *label, struct run_record **v, size_t *n,
		       char *err, size_t len)
{
	struct import_runs c = { 0 };
	const struct import_sink s = { import_collect, NULL, &c };
	return collected(posted_read(text, label, false, &s, err, len), &c, v, n);
}

/* The list for a terminal *cols wide (NULL: not a terminal). */
static int w_list_at(FILE *f, const struct run_record *v, size_t n, void *cols)
{
	struct list_cols c;

	report_list_cols(cols ? *(const int *)cols : 0, &c);
	report_list_header(f, &c);
	for (size_t i = 0; i < n; i++)
		report_list_row(f, &v[i], &c);
	return 0;
}

static int w_list(FILE *f, const struct run_record *v, size_t n, void *a)
{
	(void)a;
	return w_list_at(f, v, n, NULL);
}

static int w_show(FILE *f, const struct run_record *v, size_t n, void *a)
{
	(void)a;
	(void)n;
	return report_show(f, &v[3]) || report_show(f, &v[6]) ? -1 : 0;
}

/* A group report over runs in memory. */
static int grouped(int (*report)(FILE *, struct run_source *, const struct report_opts *,
				 char *, size_t),
		   FILE *f, const struct run_record *v, size_t n, const struct report_opts *o)
{
	struct run_source *src = run_source_array(v, n, NULL, 0);
	int rc = src ? report(f, src, o, NULL, 0) : -1;

	run_source_free(src);
	return rc;
}

static int w_stats(FILE *f, const struct run_record *v, size_t n, void *a)
{
	return grouped(report_stats, f, v, n, a);
}

static int w_text(FILE *f, const struct run_record *v, size_t n, void *a)
{
	return grouped(report_text, f, v, n, a);
}

static int w_csv(FILE *f, const struct run_record *v, size_t n, void *a)
{
	(void)a;
	return export_csv(f, v, n);
}

static int w_json(FILE *f, const struct run_record *v, size_t n, void *a)
{
	(void)a;
	return export_json(f, v, n);
}

static int w_stats_json(FILE *f, const struct run_record *v, size_t n, void *a)
{
	return grouped(report_stats_json, f, v, n, a);
}

static int w_stats_csv(FILE *f, const struct run_record *v, size_t n, void *a)
{
	return grouped(report_stats_csv, f, v, n, a);
}

static int w_time(FILE *f, const struct run_record *v, size_t n, void *a)
{
	return grouped(report_time, f, v, n, a);
}

TEST(report_golden_every_format)
{
	struct run_record v[8];
	size_t n;
	struct report_opts o;

	fixture_runs(v, &n);
	report_opts_default(&o);
	static const struct {
		const char *file;
		int (*fn)(FILE *, const struct run_record *, size_t, void *);
		bool gnu;
	} cases[] = {
		{ "list.txt", w_list, false },
		{ "show.txt", w_show, false },
		{ "stats.txt", w_stats, false },
		{ "text.txt", w_text, false },
		{ "csv.txt", w_csv, false },
		{ "json.txt", w_json, false },
		{ "time.txt", w_time, false },
		{ "time-gnu.txt", w_time, true },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		o.gnu = cases[c].gnu;
		char *out = render(cases[c].fn, v, n, &o);
		golden(cases[c].file, out);
		free(out);
	}
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* Reference values: python3 -c 'import statistics as s; x=[...];
 * print(s.median(x), s.mean(x), s.stdev(x), 100*s.stdev(x)/s.mean(x))' */
TEST(report_group_statistics_match_python)
{
	struct run_record v[8];
	size_t n, ng;
	struct report_opts o;
	struct report_group *g;

	fixture_runs(v, &n);
	report_opts_default(&o);
	CHECK_INT(report_group(v, n, &o, &g, &ng), 0);
	CHECK_INT(ng, 3);
	if (ng == 3) {
		/* wall [153.29, 152.29, 149.29] */
		CHECK_INT(g[0].n, 3);
		CHECK_NEAR(g[0].st[RM_WALL].median, 152.29, 1e-9);
		CHECK_NEAR(g[0].st[RM_WALL].mean, 151.62333333333333, 1e-9);
		CHECK_NEAR(g[0].st[RM_WALL].sd, 2.0816659994661326, 1e-9);
		CHECK_NEAR(g[0].st[RM_WALL].cv_pct, 1.3729192952708242, 1e-9);
		/* majflt [19670, 18337, 18463] */
		CHECK_NEAR(g[0].st[RM_MAJFLT].mean, 18823.333333333332, 1e-6);
		CHECK_NEAR(g[0].st[RM_MAJFLT].sd, 735.9363650026634, 1e-6);
		/* kswapd [0.61, 0.42, 0.37] */
		CHECK_NEAR(g[0].st[RM_KSWAPD].sd, 0.12662279942148388, 1e-9);
		CHECK(!g[0].unstable);
		/* [144.39, 176.97]: the OOM run stays out */
		CHECK_INT(g[1].n, 3);
		CHECK_INT(g[1].noom, 1);
		CHECK_INT(g[1].st[RM_WALL].n, 2);
		CHECK_NEAR(g[1].st[RM_WALL].mean, 160.68, 1e-9);
		CHECK_NEAR(g[1].st[RM_WALL].sd, 23.03753893105773, 1e-9);
		CHECK_NEAR(g[1].st[RM_WALL].cv_pct, 14.33752734071305, 1e-9);
		CHECK(g[1].unstable);
		CHECK_INT(g[2].n, 1);
		CHECK_INT(g[2].nfailed, 1);
		CHECK_INT(g[2].st[RM_WALL].n, 0);
	}
	report_groups_free(g, ng);
	o.unstable_cov_pct = 15;
	CHECK_INT(report_group(v, n, &o, &g, &ng), 0);
	CHECK(ng == 3 && !g[1].unstable);
	report_groups_free(g, ng);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* Modified z-score of [100, 101, 102, 100.5, 150]: median 101, MAD 1,
 * z(150) = 0.6745 * 49 = 33.05; z(102) = 0.67. */
TEST(report_outlier_flag)
{
	struct run_record v[5];
	const double wall[5] = { 100, 101, 102, 100.5, 150 };
	struct report_opts o;
	struct report_group *g;
	size_t ng;

	report_opts_default(&o);
	for (int i = 0; i < 5; i++) {
		run_record_init(&v[i]);
		v[i].id = i + 1;
		snprintf(v[i].started_at, sizeof(v[i].started_at), "2025-01-0%cT00:00:00Z", (char)('1' + i));
		v[i].wall_us = (int64_t)(wall[i] * 1e6);
		run_record_config(&v[i]);
	}
	CHECK_INT(report_group(v, 5, &o, &g, &ng), 0);
	CHECK_INT(ng, 1);
	if (ng == 1) {
		for (int i = 0; i < 5; i++)
			CHECK_INT(g[0].outlier[i], i == 4);
	}
	report_groups_free(g, ng);
	o.outlier_z = 40;
	CHECK_INT(report_group(v, 5, &o, &g, &ng), 0);
	CHECK(ng == 1 && !g[0].outlier[4]);
	report_groups_free(g, ng);
	for (int i = 0; i < 5; i++)
		run_record_clear(&v[i]);
}

/* The trial's group of three close runs (wall CoV 0.7%) has no outlier:
 * three runs give no verdict, nor does a spread finer than the 0.01 s
 * wall time is printed to; a run 0.18 s off the others still is one. */
TEST(report_outlier_needs_runs_and_resolution)
{
	static const double walls[][5] = {
		{ 0.2728, 0.2694, 0.2731 },
		{ 0.2728, 0.2694, 0.2731, 0.2729, 0.2730 },
		{ 0.2728, 0.2694, 0.2731, 0.2729, 0.4512 },
	};
	static const int nw[] = { 3, 5, 5 };
	struct run_record v[5];
	struct report_opts o;
	struct report_group *g;
	size_t ng;

	report_opts_default(&o);
	for (int c = 0; c < 3; c++) {
		for (int i = 0; i < nw[c]; i++) {
			run_record_init(&v[i]);
			v[i].id = i + 1;
			v[i].wall_us = (int64_t)llround(walls[c][i] * 1e6);
			run_record_config(&v[i]);
		}
		CHECK_INT(report_group(v, (size_t)nw[c], &o, &g, &ng), 0);
		CHECK_INT(ng, 1);
		for (int i = 0; ng == 1 && i < nw[c]; i++)
			CHECK_INT(g[0].outlier[i], c == 2 && i == 4);
		report_groups_free(g, ng);
		for (int i = 0; i < nw[c]; i++)
			run_record_clear(&v[i]);
	}
}

/* Stall rows say they are a worker's % of wall time; a stall of a few
 * microseconds a run, whose mean prints as 0.00%, still has its CoV; one
 * that was 0 in every run has none. */
TEST(report_stats_table_units)
{
	static const double wpcopy_s[] = { 0.000004, 0.000009, 0.000003 };
	struct run_record v[3];
	struct report_opts o;
	char *out = NULL;
	size_t len = 0;

	report_opts_default(&o);
	for (int i = 0; i < 3; i++) {
		run_record_init(&v[i]);
		v[i].id = i + 1;
		v[i].procs = 1;
		v[i].wall_us = 2000000;
		v[i].user_us = 1000000 + 100000 * i;
		v[i].sys_us = 10000;
		v[i].majflt = 0;
		v[i].kswapd_s = 0;
		delays_clear(&v[i].stalls);
		v[i].stalls.s[DL_IO] = 0;
		v[i].stalls.s[DL_CPU] = 0.02 * (i + 1);
		v[i].stalls.s[DL_WPCOPY] = wpcopy_s[i];
		run_record_config(&v[i]);
	}
	FILE *f = open_memstream(&out, &len);
	CHECK_INT(w_stats(f, v, 3, &o), 0);
	fclose(f);
	CHECK(strstr(out, "\n  cpuwait   3     1.00%     2.00%     2.00%     3.00%     1.00%   50.0%\n"));
	CHECK(strstr(out, "\n  wpcopy    3     0.00%     0.00%     0.00%     0.00%     0.00%   60.3%\n"));
	CHECK(strstr(out, "\n  io        3     0.00%     0.00%     0.00%     0.00%     0.00%     n/a\n"));
	CHECK(strstr(out, "\n  user      3      1.00      1.10      1.10      1.20      0.10    9.1%\n"));
	CHECK(strstr(out, "\n  majflt    3         0         0       0.0         0       0.0     n/a\n"));
	CHECK(strstr(out, "\n  (wall, user, sys, kswapd in seconds, majflt in faults: min, median,\n"
			  "   mean and max truncated as time lines truncate, sd rounded; swapin to\n"
			  "   irq: a worker's stall in % of wall time, the workers' sum over their\n"
			  "   number; CoV n/a where the mean is 0; over completed runs)\n"));
	if (!strstr(out, "wpcopy    3     0.00%"))
		printf("%s", out);
	free(out);
	for (int i = 0; i < 3; i++)
		run_record_clear(&v[i]);
}

/* show's plots of a 0.59 s run on a 24 GiB box: free memory titled by its
 * lowest value on the RAM's 0..24G axis (its peak drew a 0..50G one),
 * kswapd CPU on 0..100%, and the time axis in tenths ("0s0s" was whole
 * seconds run together). */
TEST(report_show_plots_scale_and_short_axis)
{
	static const double t[] = { 0, 0.3, 0.59 };
	static const double freek[] = { 24105784, 23900000, 24105000 };
	struct run_record r;
	char *out = NULL;
	size_t len = 0;

	run_record_init(&r);
	r.id = 2;
	r.wall_us = 590000;
	r.ram_kib = 24683568;
	r.mlocked_kib = 18336;
	r.swap_total_kib = 0;
	CHECK_INT(run_record_alloc_series(&r, 3), 0);
	double *fr = run_record_add_series(&r, M_FREE), *ks = run_record_add_series(&r, M_KSWAPD_CPU);
	CHECK(fr && ks);
	for (int i = 0; fr && ks && i < 3; i++) {
		r.t[i] = t[i];
		fr[i] = freek[i];
		ks[i] = i ? 0.5 : NAN;
	}
	FILE *f = open_memstream(&out, &len);
	CHECK_INT(report_show(f, &r), 0);
	fclose(f);
	CHECK(strstr(out, "\nFree memory, whole machine during run 2 (lowest 23G):\n    24G |###\n") != NULL);
	CHECK(strstr(out, "\nkswapd CPU %, whole machine during run 2 (peak 0.5%):\n 100.0% |\n") != NULL);
	CHECK(strstr(out, "\n        +---\n         0s 0.6s\n") != NULL);
	CHECK(strstr(out, "0s0") == NULL && strstr(out, "50G") == NULL);
	if (!strstr(out, "lowest 23G"))
		printf("%s", out);
	/* no swap taken at the start and end: no peak, rather than unknown */
	CHECK(strstr(out, "\nswap_peak_kib            n/a\n") != NULL);
	free(out);
	out = NULL;
	r.free_before.swap_total = r.free_after.swap_total = 0;
	f = open_memstream(&out, &len);
	CHECK_INT(report_show(f, &r), 0);
	fclose(f);
	CHECK(strstr(out, "\nswap_peak_kib            n/a (no swap)\n") != NULL);
	free(out);
	run_record_clear(&r);
}

/* Stats print a group's newest lines and count the older ones, their
 * outliers too; the statistics stay over every run. */
TEST(report_stats_newest_lines)
{
	enum { N = 60 };
	struct run_record v[N];
	struct report_opts o;
	char *out = NULL;
	size_t len = 0;

	report_opts_default(&o);
	for (int i = 0; i < N; i++) {
		run_record_init(&v[i]);
		v[i].id = i + 1;
		snprintf(v[i].started_at, sizeof(v[i].started_at), "2025-01-01T00:%02d:00Z", i);
		v[i].wall_us = (int64_t)((i == 3 || i == 7 ? 300 : 100 + i % 3) * 1e6);
		run_record_config(&v[i]);
	}
	FILE *f = open_memstream(&out, &len);
	CHECK_INT(w_stats(f, v, N, &o), 0);
	fclose(f);
	CHECK(strstr(out, "  10 older runs not shown, 2 of them outliers (--all shows every run)\n") != NULL);
	CHECK(strstr(out, "\n    10  ") == NULL);
	CHECK(strstr(out, "\n    11  ") != NULL);
	CHECK(strstr(out, "\n    60  ") != NULL);
	CHECK(strstr(out, "  wall     60 ") != NULL);
	free(out);
	o.lines = 0;
	f = open_memstream(&out, &len);
	CHECK_INT(w_stats(f, v, N, &o), 0);
	fclose(f);
	CHECK(strstr(out, "not shown") == NULL);
	CHECK(strstr(out, "\n     4  ") != NULL && strstr(out, "<- outlier") != NULL);
	free(out);
	for (int i = 0; i < N; i++)
		run_record_clear(&v[i]);
}

/* With every stall known (a stall line of 97 columns) and workloads whose
 * tokens fall at the edge: lines wrap at blanks between whole tokens, an
 * option with its value, a stall with its name. */
/* Each line of text fits in cols terminal columns. */
static bool fits(const char *text, int cols, char *worst, size_t len)
{
	const char *p = text;

	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		if (line && (size_t)fmt_cut_bytes(line, cols) < n) {
			snprintf(worst, len, "%s", line);
			free(line);
			return false;
		}
		free(line);
		p += n + (p[n] == '\n');
	}
	return true;
}

/* history list on a terminal: every row fits from 59 columns (the
 * monitor needs 60), the columns that go are the ones that matter least,
 * and a wide terminal shows a workload in full. */
TEST(report_list_fits_the_terminal)
{
	static const int widths[] = { 59, 60, 66, 67, 68, 69, 72, 80, 100, 119, 132, 133, 134,
				      160, 200, 300 };
	struct run_record v[8];
	struct list_cols c;
	char worst[1024];
	size_t n;

	fixture_runs(v, &n);
	/* 15 wide characters: 30 columns, cut by them with a mark */
	snprintf(v[1].label, sizeof(v[1].label), "%s", "\xe3\x81\x82\xe3\x81\x84\xe3\x81\x86"
		 "\xe3\x81\x88\xe3\x81\x8a\xe3\x81\x8b\xe3\x81\x8d\xe3\x81\x8f\xe3\x81\x91"
		 "\xe3\x81\x93\xe3\x81\x95\xe3\x81\x97\xe3\x81\x99\xe3\x81\x9b\xe3\x81\x9d");
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		char *out = render(w_list_at, v, n, (void *)&widths[i]);

		if (!fits(out, widths[i], worst, sizeof(worst)))
			t_fail(__FILE__, __LINE__, "%d columns: \"%s\" is wider", widths[i], worst);
		CHECK(out && strstr(out, "STARTED") && strstr(out, "LABEL") && strstr(out, "MAJFLT"));
		/* KSWAPD goes only where nothing else is left to narrow */
		CHECK(out && !strstr(out, "KSWAPD") == (widths[i] < 67));
		free(out);
	}
	report_list_cols(0, &c);
	CHECK_INT(c.host, 12);
	CHECK_INT(c.workload, 22);
	report_list_cols(80, &c);
	CHECK_INT(c.host, 0);
	CHECK_INT(c.kernel, 0);
	CHECK_INT(c.workload, 0);
	CHECK_INT(c.started, 11);
	report_list_cols(100, &c);
	CHECK_INT(c.kernel, 14);	/* "6.1.0-18-amd64" whole */
	report_list_cols(200, &c);
	CHECK_INT(c.host, 12);
	CHECK_INT(c.workload, 60);
	CHECK_INT(c.label, 24);
	int w = 200;
	char *out = render(w_list_at, v, n, &w);
	CHECK(out && strstr(out, "-n 90000000 -p 2 -s 140175100 "));
	CHECK(out && strstr(out, " 2025-03-01 09:00 "));
	free(out);
	w = 80;
	out = render(w_list_at, v, n, &w);
	CHECK(out && strstr(out, " 03-01 09:00 ") && !strstr(out, "2025-"));
	/* LABEL is 21 there: nine of them and the mark */
	CHECK(out && strstr(out, "\xe3\x81\x91...  "));
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

TEST(report_text_fits_72_columns)
{
	struct run_record v[8];
	size_t n;
	struct report_opts o;

	fixture_runs(v, &n);
	report_opts_default(&o);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < DL_N; k++)
			v[i].stalls.s[k] = 10.0 + k;
	/* the third group's workload against the first's: "-p 2 -s" would
	 * end a line, its "1" the next */
	free(v[6].command);
	v[6].command = strdup("./qsbench -n 2000000 -p 2 -s 1 --fill /usr/src/linux/arch/x86/"
			      "kernel/cpu/microcode/amd.bin -o x");
	run_record_config(&v[6]);
	/* a label of 200 wide characters, 400 columns (600 bytes) with no
	 * blank: cut between characters, each line within the width */
	for (size_t i = 3; i < 6; i++) {
		v[i].label[0] = 0;
		for (int k = 0; k < 200; k++)
			strcat(v[i].label, "\xe6\x97\xa5");
		run_record_config(&v[i]);
	}
	for (int gnu = 0; gnu < 2; gnu++) {
		o.gnu = gnu;
		char *out = render(w_text, v, n, &o);
		int worst = 0;
		for (const char *p = out; p && *p;) {
			size_t k = strcspn(p, "\n");
			char *l = strndup(p, k);

			CHECK(l && fmt_text_clean(l));	/* no character cut */
			if (l && fmt_text_cols(l) > worst)
				worst = fmt_text_cols(l);
			free(l);
			p += k + (p[k] == '\n');
		}
		CHECK(worst <= REPORT_WIDTH);
		CHECK(out && strstr(out, "UNSTABLE: wall time CoV 14.3% > 5.0%"));
		CHECK(out && strstr(out, "Swap used, whole machine during run"));
		CHECK(out && strstr(out, "\nstalls: 10.0s swapin 11.0s reclaim 12.0s thrashing 13.0s"
				    " compact\n        14.0s io 15.0s cpu 16.0s wpcopy 17.0s irq\n"));
		CHECK(out && strstr(out, "\n      ./qsbench -n 2000000 -p 2 -s 1\n"
				    "      --fill /usr/src/linux/arch/x86/kernel/cpu/microcode/amd.bin -o x\n"));
		CHECK(out && !strstr(out, " -s\n") && !strstr(out, " -p\n") && !strstr(out, "--fill\n"));
		if (worst > REPORT_WIDTH || (out && !strstr(out, " -s 1\n")))
			printf("%s", out);
		free(out);
	}
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

static char *stats_of(struct run_record *v, size_t n)
{
	struct report_opts o;

	report_opts_default(&o);
	return render(w_stats, v, n, &o);
}

/* min, median, mean and max say what the time lines say: 0.3456 s is the
 * line's 0:00.34 and the median 0.34 beside it, not 0.35, and 0.2899 s
 * the min 0.28 of 0:00.28; three runs of 0.186 s are 0:00.18 each, and so
 * is their mean, never above their max. */
TEST(report_stats_min_max_as_the_lines)
{
	struct run_record v[3];
	const int64_t wall[] = { 345600, 289900, 400000 }, usr[] = { 340000, 280000, 390000 },
		      sys[] = { 5000, 5000, 5000 };
	const int64_t same[] = { 186000, 186000, 186000 };

	timed_runs(v, 3, wall, usr, sys);
	char *out = stats_of(v, 3);
	CHECK(out && strstr(out, " 0:00.34 ") && strstr(out, " 0:00.28 "));
	CHECK(out && strstr(out, "\n  wall      3      0.28      0.34      0.34      0.40      0.06   "));
	CHECK(out && strstr(out, "min, median,\n   mean and max truncated as time lines truncate, sd"
			    " rounded"));
	if (out && !strstr(out, "  wall      3      0.28"))
		printf("%s", out);
	free(out);
	for (int i = 0; i < 3; i++)
		run_record_clear(&v[i]);
	timed_runs(v, 3, same, usr, sys);
	out = stats_of(v, 3);
	CHECK(out && strstr(out, "\n  wall      3      0.18      0.18      0.18      0.18      0.00 "));
	free(out);
	for (int i = 0; i < 3; i++)
		run_record_clear(&v[i]);
}

/* sys of 8005 us and 0 us: a mean of 4.0 ms prints as 0.00, and its CoV
 * is still 141.4%; only a mean of exactly 0 has none. */
TEST(report_stats_cov_of_a_small_mean)
{
	struct run_record v[2];
	const int64_t wall[] = { 1000000, 1000000 }, usr[] = { 900000, 900000 },
		      sys[] = { 8005, 0 };

	timed_runs(v, 2, wall, usr, sys);
	char *out = stats_of(v, 2);
	CHECK(out && strstr(out, "\n  sys       2      0.00      0.00      0.00      0.00      0.01  141.4%\n"));
	CHECK(out && strstr(out, "\n  wall      2      1.00      1.00      1.00      1.00      0.00    0.0%\n"));
	CHECK(out && strstr(out, "\n  majflt    2     19670     19670   19670.0     19670       0.0    0.0%\n"));
	if (out && !strstr(out, "141.4%"))
		printf("%s", out);
	free(out);
	for (int i = 0; i < 2; i++)
		run_record_clear(&v[i]);
}

/* A stats group is named as compare takes it, g:ID of its oldest run,
 * whatever groups a filter left out before it; the text report's too. */
TEST(report_groups_named_for_compare)
{
	struct run_record v[8];
	size_t n;
	struct report_opts o;

	fixture_runs(v, &n);
	report_opts_default(&o);
	char *out = render(w_stats, v, n, &o);
	CHECK(out && strstr(out, "\ngroup g:4: swap100 nelems=90000000 procs=2 seed=140175100 "
			    "swappiness=100 mem_limit_kib=128M\n"
			    "  qsbench -n 90000000 -p 2 -s 140175100, config "));
	CHECK(out && strstr(out, ", oldest run 4\n"));
	CHECK(out && !strstr(out, "group 2:"));
	free(out);
	/* swap100's runs alone, as stats -L swap100 reads them */
	out = render(w_stats, v + 3, 3, &o);
	CHECK(out && !strncmp(out, "group g:4: swap100", 18));
	free(out);
	out = render(w_text, v, n, &o);
	CHECK(out && strstr(out, "\ngroup g:4: swap100") && strstr(out, "\n  against g:1:\n"));
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* stats as JSON and CSV: each group's figures with their statistics and
 * verdicts, the outlier by its ID; never the runs' own export. */
TEST(report_stats_as_data)
{
	struct run_record v[5];
	const double wall[5] = { 100, 101, 102, 100.5, 150 };
	struct report_opts o;

	report_opts_default(&o);
	for (int i = 0; i < 5; i++) {
		run_record_init(&v[i]);
		v[i].id = 11 + i;
		v[i].procs = 1;
		snprintf(v[i].label, sizeof(v[i].label), "lab,el");
		snprintf(v[i].started_at, sizeof(v[i].started_at), "2025-01-0%cT00:00:00Z", (char)('1' + i));
		v[i].wall_us = (int64_t)(wall[i] * 1e6);
		v[i].user_us = 1000000;
		run_record_config(&v[i]);
	}
	v[2].status = RUN_OOM;
	char *json = render(w_stats_json, v, 5, &o), *csv = render(w_stats_csv, v, 5, &o);
	CHECK(json && !strncmp(json, "{\"thrashtop_stats\": 1, \"groups\": [\n  {\"group\": \"g:11\","
			       " \"oldest_run\": 11, \"label\": \"lab,el\"", 80));
	CHECK(json && strstr(json, "\"runs\": 5, \"oom_killed\": 1, \"failed\": 0, \"aborted\": 0,"
			     " \"oom_ci95_pct\": [3.62"));
	CHECK(json && strstr(json, "\"unstable\": true, \"outliers\": [15], \"figures\": {\"wall\":"
			     " {\"unit\": \"s\", \"n\": 4, \"min\": 100, \"median\": 100.75, \"mean\":"
			     " 112.875, \"max\": 150, \"sd\": 24.75"));
	CHECK(json && strstr(json, "\"majflt\": {\"unit\": \"faults\", \"n\": 0, \"min\": null"));
	CHECK(json && !strstr(json, "\"uuid\"") && !strcmp(json + strlen(json) - 5, "}\n]}\n"));
	CHECK(csv && !strncmp(csv, "group,label,kernel,hostname,workload,config_hash,runs,oom_killed,"
			      "failed,aborted,oom_ci95_lo_pct,oom_ci95_hi_pct,unstable,outliers,figure,"
			      "unit,n,min,median,mean,max,sd,cov_pct\ng:11,\"lab,el\",,,", 190));
	CHECK(csv && strstr(csv, ",1,15,wall,s,4,100,100.75,112.875,150,24.75"));
	CHECK(csv && strstr(csv, ",1,15,majflt,faults,0,,,,,,\n"));
	if (json && !strstr(json, "\"outliers\": [15]"))
		printf("%s\n%s", json, csv);
	free(json);
	free(csv);
	for (int i = 0; i < 5; i++)
		run_record_clear(&v[i]);
}

/* Every outlier is named, however many: 150 of 400 runs far out. */
TEST(report_stats_names_every_outlier)
{
	enum { N = 400 };
	struct run_record *v = calloc(N, sizeof(*v));
	struct report_opts o;
	char want[64];

	CHECK(v != NULL);
	if (!v)
		return;
	report_opts_default(&o);
	for (int i = 0; i < N; i++) {
		run_record_init(&v[i]);
		v[i].id = 100000 + i;
		v[i].procs = 1;
		v[i].wall_us = (i < 150 ? 500 + i : 100) * (int64_t)1000000 + (i % 7) * 10000;
		v[i].user_us = 1000000;
		run_record_config(&v[i]);
	}
	char *json = render(w_stats_json, v, N, &o), *csv = render(w_stats_csv, v, N, &o);
	CHECK(json && strstr(json, "\"outliers\": [100000, 100001, "));
	CHECK(json && strstr(json, ", 100148, 100149], \"figures\""));
	snprintf(want, sizeof(want), ",1,100000 100001 100002 ");
	CHECK(csv && strstr(csv, want));
	CHECK(csv && strstr(csv, " 100148 100149,wall,s,400,"));
	free(json);
	free(csv);
	for (int i = 0; i < N; i++)
		run_record_clear(&v[i]);
	free(v);
}

/* The OOM line comes where a kill was, not under a group without one. */
TEST(report_oom_said_where_killed)
{
	struct run_record v[8];
	size_t n;
	struct report_opts o;

	fixture_runs(v, &n);
	report_opts_default(&o);
	char *out = render(w_stats, v, n, &o);
	char *g2 = out ? strstr(out, "\ngroup g:4:") : NULL;
	CHECK(g2 && !memmem(out, (size_t)(g2 - out), "OOM:", 4));
	CHECK(g2 && strstr(g2, "\n  OOM: 1 of 3 runs killed, 33% (95% 6-79%, Wilson)\n"));
	CHECK(g2 && !strstr(g2, "OOM: 0 of"));
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* Stall rows are a worker's share: two workers each 25% of the wall in
 * reclaim (0.5 s summed over 1 s) are 25.00%, as history show gives each,
 * not 50.00%. compare_test.c holds a comparison's rows to the same. */
TEST(report_stall_rows_per_worker)
{
	struct run_record v[2];
	const int64_t wall[] = { 1000000, 1000000 }, usr[] = { 900000, 900000 },
		      sys[] = { 1000, 1000 };

	timed_runs(v, 2, wall, usr, sys);
	for (int i = 0; i < 2; i++) {
		v[i].procs = 2;
		v[i].stalls.s[DL_RECLAIM] = 0.5;
		run_record_config(&v[i]);
	}
	char *out = stats_of(v, 2);
	CHECK(out && strstr(out, "\n  reclaim   2    25.00%    25.00%    25.00%    25.00%     0.00%    0.0%\n"));
	CHECK(out && strstr(out, "irq: a worker's stall in % of wall time, the workers' sum over their\n"
			    "   number;"));
	free(out);
	CHECK_NEAR(report_metric(&v[0], RM_STALL + DL_RECLAIM), 25.0, 1e-9);
	for (int i = 0; i < 2; i++)
		run_record_clear(&v[i]);
}

/* The time export marks a run as batch mode does: a failed or aborted
 * one at the end of its line; an OOM kill by its pid, the victim's name
 * not being recorded, and the import reads both back. */
TEST(report_time_lines_as_batch_prints_them)
{
	struct run_record v[8], *back;
	size_t n, nb;
	struct report_opts o;
	char err[256] = "";

	fixture_runs(v, &n);
	report_opts_default(&o);
	v[2].status = RUN_ABORTED;
	char *out = render(w_time, v, n, &o);
	CHECK(out && strstr(out, "\n548.270u 94.180s 10:50.00 98.8% 0+0k 8+1024io 450479pf+0w  failed\n"));
	CHECK(out && strstr(out, "\n70.510u 6.660s 2:29.29 51.6% 0+0k 0+16io 18463pf+0w  aborted\n"));
	CHECK(out && strstr(out, "\nOut of Memory: Killed process 4051.\n17.770u "));
	CHECK(out && !strstr(out, "thrashtop: run") && !strstr(out, "(qsbench)"));
	CHECK_INT(read_posted(out, "t", &back, &nb, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(nb, n);
	if (nb == n) {
		CHECK_INT(back[2].status, RUN_ABORTED);
		CHECK_INT(back[5].status, RUN_OOM);
		CHECK_INT(back[6].status, RUN_FAILED);
	}
	run_records_free(back, nb);
	free(out);
	/* a kill with no worker to name: no made-up name either */
	v[5].workers[1].end = END_SIGNAL;
	o.gnu = true;
	out = render(w_time, v + 3, 3, &o);
	CHECK(out && strstr(out, "\nOut of Memory: Killed process.\n17.77user "));
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* The victims kept with a run: the batch's lines above its time line,
 * read back by a posted import with the run below them. */
TEST(report_time_lines_name_the_victims)
{
	struct run_record v[8], *back;
	size_t n, nb;
	struct report_opts o;
	char err[256] = "";

	fixture_runs(v, &n);
	report_opts_default(&o);
	v[5].victims = calloc(2, sizeof(*v[5].victims));
	v[5].nvictims = 2;
	v[5].victims[0] = (struct run_victim){ .pid = 4051, .comm = "qsbench" };
	v[5].victims[1] = (struct run_victim){ .pid = 4077, .comm = "sh" };
	v[5].oom_unnamed = 1;
	char *out = render(w_time, v, n, &o);
	CHECK(out && strstr(out, "\nOut of Memory: Killed process 4051 (qsbench).\n"
			    "Out of Memory: Killed process 4077 (sh).\n"
			    "Out of Memory: Killed process (unnamed: 1 more the run's cgroup counted).\n"
			    "17.770u "));
	CHECK(out && !strstr(out, "Killed process 4051.\n"));
	CHECK_INT(read_posted(out, "t", &back, &nb, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(nb, n);
	for (size_t i = 0; nb == n && i < n; i++) {
		CHECK_INT(back[i].nvictims, i == 5 ? 2 : 0);
		CHECK_INT(back[i].oom_unnamed, i == 5 ? 1 : NA);
	}
	if (nb == n && back[5].nvictims == 2) {
		CHECK_INT(back[5].status, RUN_OOM);
		CHECK_INT(back[5].victims[1].pid, 4077);
		CHECK_STR(back[5].victims[1].comm, "sh");
	}
	run_records_free(back, nb);
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* Export, read back, export again: the same bytes. */
TEST(report_json_and_csv_round_trip)
{
	struct run_record v[8], *back;
	size_t n, nb;
	char err[256];

	fixture_runs(v, &n);
	char *json = render(w_json, v, n, NULL);
	CHECK_INT(read_json(json, &back, &nb, err, sizeof(err)), 0);
	CHECK_INT(nb, n);
	for (size_t i = 0; i < nb; i++)
		back[i].id = v[i].id;
	char *json2 = render(w_json, back, nb, NULL);
	CHECK_STR(json2, json);
	free(json2);
	run_records_free(back, nb);

	char *csv = render(w_csv, v, n, NULL);
	CHECK_INT(read_csv(csv, &back, &nb, err, sizeof(err)), 0);
	CHECK_INT(nb, n);
	for (size_t i = 0; i < nb; i++)
		back[i].id = v[i].id;
	char *csv2 = render(w_csv, back, nb, NULL);
	CHECK_STR(csv2, csv);
	/* and across formats: csv in, json out */
	json2 = render(w_json, back, nb, NULL);
	CHECK_STR(json2, json);
	CHECK(nb == n && isnan(back[3].series[M_KSWAPD_CPU][5]));
	CHECK(nb == n && back[6].command && !strcmp(back[6].command, "make -j4 \"KCFLAGS=-O2, -g\""));
	free(json2);
	free(csv2);
	run_records_free(back, nb);
	free(csv);
	free(json);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

TEST(report_readers_reject_bad_input)
{
	struct run_record *v = NULL;
	size_t n = 0;
	char err[256];

	CHECK_INT(read_json("{\"runs\": [", &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "JSON: not valid JSON");
	CHECK_INT(read_json("{\"thrashtop_history\": 1, \"runs\": [{\"wall_us\": \"x\"}]}",
				   &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "run 1: bad value for \"wall_us\": x");
	CHECK_INT(read_json("{\"thrashtop_history\": 1, \"runs\": [{\"walls\": 1}]}",
				   &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "run 1: unknown field \"walls\"");
	CHECK_INT(read_json("{\"thrashtop_history\": 1, \"runs\": [{}]}", &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "run 1: no workload (a qsbench run needs \"nelems\" and \"procs\")");
	CHECK_INT(read_csv("id,uuid,label\n1,a,x\n", &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "CSV record 2: no workload (a qsbench run needs \"nelems\" and \"procs\")");
	CHECK_INT(read_csv("id,uuid,kind\n1,a,command\n2,b\n", &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "CSV record 3: 2 fields, the header has 3");
	CHECK_INT(read_csv("id,uuid,colour\n", &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "CSV line 1: unknown column \"colour\"");
	CHECK_INT(read_csv("id,uuid\n1,\"open\n", &v, &n, err, sizeof(err)), -1);
	CHECK(strstr(err, "unterminated quote") != NULL);
	CHECK_INT(read_posted("nothing to see\nhere\n", NULL, &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "no csh or GNU time lines found");
	CHECK_INT(read_posted("1.00user 2.00system 0:03.00elapsed 200%CPU (0avgtext+0avgdata\n"
				     "garbage\n", NULL, &v, &n, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 1: looks like GNU time output") != NULL);
	CHECK(v == NULL && n == 0);
}

/* The first seed's lines, as posted on linux-kernel in November 2001. */
TEST(report_posted_seed_lines)
{
	const char *text =
		"I begin with the last Linus' kernel, three runs and kswapd CPU\n"
		"time appended.\n"
		"Linux-2.4.14-pre8:\n"
		QS_PROMPT "\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		QS_PROMPT "\n"
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w\n"
		"0:01 kswapd\n"
		"\n"
		"Linux-2.4.14-pre7:\n"
		QS_PROMPT "\n"
		"Out of Memory: Killed process 224 (qsbench).\n"
		"17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w\n"
		"> 70.530u 7.290s 2:33.26 50.7% 0+0k 0+0io 19689pf+0w\n"
		"lenstra:~/src/qsort> free\n"
		"             total       used       free     shared    buffers     cached\n"
		"Mem:        255984       6008     249976          0        100       1096\n"
		"-/+ buffers/cache:       4812     251172\n"
		"Swap:       195512       5080     190432\n"
		"pre4:\n"
		"Throughput 7.05841 MB/sec (NB=8.82301 MB/sec 70.5841 MBit/sec)\n"
		"70.94user 232.54system 15:17.39elapsed 33%CPU (0avgtext+0avgdata\n"
		"0maxresident)k 0inputs+0outputs (1277major+1586minor)pagefaults 0swaps\n";
	struct run_record *v;
	size_t n;
	char err[256];

	CHECK_INT(read_posted(text, "lkml", &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 4);
	if (n != 4)
		return;
	CHECK_STR(v[0].label, "lkml");
	CHECK_STR(v[0].kernel_release, "2.4.14-pre8");
	CHECK_INT(v[0].kind, RUN_QSBENCH);
	CHECK_INT(v[0].nelems, 90000000);
	CHECK_INT(v[0].seed, 140175100);
	CHECK_INT(v[0].wall_us, 153290000);
	CHECK_INT(v[0].user_us, 70270000);
	CHECK_INT(v[0].sys_us, 7330000);
	CHECK_INT(v[0].majflt, 19670);
	CHECK_INT(v[0].minflt, NA);
	CHECK_NEAR(v[0].cpu_pct, 50.6, 1e-9);
	/* "0:01 kswapd" below two runs: their total, neither's own */
	CHECK(isnan(v[0].kswapd_s) && isnan(v[1].kswapd_s));
	CHECK_INT(v[0].repeat_k, 1);
	CHECK_INT(v[1].repeat_k, 2);
	CHECK_INT(v[1].repeat_n, 2);
	CHECK_INT(v[0].status, RUN_OK);
	CHECK_STR(v[2].label, "lkml");
	CHECK_STR(v[2].kernel_release, "2.4.14-pre7");
	CHECK_INT(v[2].status, RUN_OOM);
	CHECK_INT(v[2].free_after.swap_used, 5080);
	CHECK_INT(v[2].free_after.buffers, 100);
	CHECK_INT(v[2].swap_after_kib, 5080);
	CHECK_STR(v[3].label, "lkml");
	CHECK_INT(v[3].kind, RUN_COMMAND);
	CHECK_INT(v[3].wall_us, 917390000);
	CHECK_INT(v[3].majflt, 1277);
	CHECK_INT(v[3].minflt, 1586);
	CHECK_NEAR(v[3].cpu_pct, 33, 1e-9);
	/* The same text twice gives the same ids, other text other ids. */
	struct run_record *w;
	size_t m;
	CHECK_INT(read_posted(text, "lkml", &w, &m, err, sizeof(err)), 0);
	for (size_t i = 0; i < n && i < m; i++)
		CHECK_STR(w[i].uuid, v[i].uuid);
	CHECK(strcmp(v[0].uuid, v[1].uuid) != 0);
	run_records_free(w, m);
	run_records_free(v, n);
}

/* A cut or broken CSV is refused with its record, never a crash. */
TEST(import_csv_cut_anywhere)
{
	struct run_record v[8], *back = NULL;
	size_t n, nb = 0;
	char err[256];

	CHECK_INT(read_csv("id,uuid,label\n\n\"x", &back, &nb, err, sizeof(err)), -1);
	CHECK_STR(err, "CSV record 3: unterminated quote or junk after a quote");
	CHECK(back == NULL && nb == 0);
	fixture_runs(v, &n);
	char *csv = render(w_csv, v, n, NULL);
	size_t len = strlen(csv);
	for (size_t cut = 1; cut < len; cut += 97) {
		char *part = strndup(csv, cut);
		err[0] = 0;
		int rc = read_csv(part, &back, &nb, err, sizeof(err));
		CHECK(rc == 0 || (rc == -1 && err[0] && back == NULL));
		if (rc == 0)
			run_records_free(back, nb);
		free(part);
	}
	free(csv);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

struct skips {
	struct import_runs c;
	int n;
	char last[160];
};

static int skips_run(void *arg, struct run_record *r, char *err, size_t errlen)
{
	return import_collect(&((struct skips *)arg)->c, r, err, errlen);
}

static void skips_note(void *arg, const char *line)
{
	struct skips *k = arg;
	k->n++;
	snprintf(k->last, sizeof(k->last), "%s", line);
}

/* A line that looks like a time line and does not parse is named by its
 * number and nothing is imported, unless the reader is told to skip it. */
TEST(posted_bad_time_line_refused_or_skipped)
{
	static const char *const bad[] = {
		"70.100u 7.100s 2:30.00 51.4%% 0+0k 0+0io 18000pf+0w\n",
		"70.100u 7.100s 2:30.00 99.9% 0+0k 0+0io 18000pf+0w\n",	/* % disagrees */
	};
	/* what the line says after "does not parse: " */
	static const char *const why[] = {
		"70.100u",
		"CPU 99.9% is not user+sys over wall (51.4%): 70.100u",
	};
	for (size_t i = 0; i < 2; i++) {
		char want[160];
		char text[512], err[256] = "";
		struct run_record *v;
		size_t n;
		snprintf(text, sizeof(text), "2.4.14-pre8:\n"
			 "70.270u 7.330s 2:33.29 50.6%% 0+0k 0+0io 19670pf+0w\n%s"
			 "70.120u 7.560s 2:45.04 47.0%% 0+0k 0+0io 20403pf+0w\n", bad[i]);
		CHECK_INT(read_posted(text, NULL, &v, &n, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "line 3: looks like a csh time line but does not parse: %s",
			 why[i]);
		CHECK(!strncmp(err, want, strlen(want)));
		CHECK(strstr(err, "--skip-bad") != NULL);
		CHECK_INT(n, 0);

		struct skips k = { { 0 }, 0, "" };
		const struct import_sink s = { skips_run, skips_note, &k };
		CHECK_INT(posted_read(text, NULL, true, &s, err, sizeof(err)), 0);
		CHECK_INT(k.c.n, 2);
		CHECK(k.c.n == 2 && !strcmp(k.c.runs[1].label, ""));
		CHECK(k.c.n == 2 && !strcmp(k.c.runs[1].kernel_release, "2.4.14-pre8"));
		CHECK(k.c.n == 2 && k.c.runs[1].repeat_k == 2 && k.c.runs[1].repeat_n == 2);
		CHECK_INT(k.n, 1);
		CHECK(!strncmp(k.last, "skipped line 3: looks like a csh time line", 42));
		run_records_free(k.c.runs, k.c.n);
	}
}

/* A posted run's content id is what earlier imports gave it, so importing
 * a file again skips its runs: the ids below were made by the formatter
 * the reader had before, the last one from an id text cut at its bound. */
TEST(posted_ids_stay_as_before)
{
	char text[2048], cmd[1400], err[256];
	struct run_record *v;
	size_t n;

	memset(cmd, 'a', 1300);
	cmd[1300] = 0;
	snprintf(text, sizeof(text), "Linux-2.4.14-pre8:\n"
		 QS_PROMPT "\n"
		 "70.270u 7.330s 2:33.29 50.6%% 0+0k 0+0io 19670pf+0w\n"
		 "Out of Memory: Killed process 224 (qsbench).\n"
		 "17.770u 3.160s 1:19.95 26.1%% 0+0k 0+0io 13294pf+0w\n"
		 "$ time ./big %s\n"
		 "29.350u 41.360s 2:27.63 47.8%% 0+0k 0+0io 15214pf+0w\n", cmd);
	CHECK_INT(read_posted(text, "lkml", &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 3);
	if (n != 3)
		return;
	CHECK_STR(v[0].uuid, "a5f7aa840ffd5d581491b794ea56ae7d");
	CHECK_STR(v[1].uuid, "983786d117c6652637dba68221f00e87");
	CHECK_STR(v[2].uuid, "17c174311cb87afa719a0ac4c756c19f");
	CHECK_INT(v[0].status, RUN_OK);
	CHECK_INT(v[1].status, RUN_OOM);
	CHECK_INT(v[2].status, RUN_OK);
	CHECK(v[0].repeat_k == 1 && v[0].repeat_n == 3 && v[2].repeat_k == 3);
	CHECK_INT(v[1].kind, RUN_QSBENCH);
	CHECK(v[2].kind == RUN_COMMAND && v[2].command && !strncmp(v[2].command, "./big aaa", 9));
	run_records_free(v, n);
}

/* A kswapd line is kept as one run's own; a group's total is no run's, so
 * each of its runs is n/a, and said once; the label is -L's alone, never a
 * header or a mail's Subject. */
TEST(posted_kswapd_line_and_label)
{
	const char *text =
		"Subject: VM: qsbench numbers\n"
		"\n"
		"Linux-2.4.14-pre8:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w\n"
		"70.510u 6.660s 2:29.29 51.6% 0+0k 0+0io 18463pf+0w\n"
		"0:03 kswapd\n"
		"\n"
		"Linux-2.4.14-pre7:\n"
		"17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w\n"
		"1:12 kswapd\n"
		"26.030u 15.530s 1:39.39 41.8% 0+0k 0+0io 13283pf+0w\n"
		"n/a kswapd\n"
		"29.350u 41.360s 2:27.63 47.8% 0+0k 0+0io 15214pf+0w\n";
	struct run_record *v;
	size_t n;
	char err[256];

	struct skips k = { { 0 }, 0, "" };
	const struct import_sink sink = { skips_run, skips_note, &k };

	CHECK_INT(posted_read(text, NULL, false, &sink, err, sizeof(err)), 0);
	CHECK_INT(k.n, 1);
	CHECK_STR(k.last, "line 7: \"0:03 kswapd\" is the total of the 3 runs above it, not each"
		  " one's: their kswapd is n/a");
	run_records_free(k.c.runs, k.c.n);
	CHECK_INT(read_posted(text, NULL, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 6);
	if (n != 6)
		return;
	for (size_t i = 0; i < 3; i++)
		CHECK(isnan(v[i].kswapd_s));
	CHECK_NEAR(v[3].kswapd_s, 72.0, 1e-9);
	CHECK(isnan(v[4].kswapd_s));
	CHECK(isnan(v[5].kswapd_s));
	for (size_t i = 0; i < n; i++)
		CHECK_STR(v[i].label, "");
	CHECK_STR(v[3].kernel_release, "2.4.14-pre7");
	run_records_free(v, n);
	CHECK_INT(read_posted(text, "mine", &v, &n, err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++)
		CHECK_STR(v[i].label, "mine");
	run_records_free(v, n);
}

/* A time line a tenth off its times is imported with its posted %, and
 * its line named once. */
TEST(posted_pct_a_little_off_is_kept)
{
	const char *text = "2.4.14-pre8:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"70.270u 7.330s 2:33.29 50.7% 0+0k 0+0io 19670pf+0w\n";
	struct skips k = { { 0 }, 0, "" };
	const struct import_sink s = { skips_run, skips_note, &k };
	char err[256];

	CHECK_INT(posted_read(text, NULL, false, &s, err, sizeof(err)), 0);
	CHECK_INT(k.c.n, 2);
	CHECK_INT(k.n, 1);
	CHECK_STR(k.last, "line 3: CPU 50.7% as posted, 50.6% from its times; kept as posted");
	if (k.c.n == 2)
		CHECK_NEAR(k.c.runs[1].cpu_pct, 50.7, 1e-9);
	run_records_free(k.c.runs, k.c.n);
}

/* A GNU line whose CPU % its times cannot give says so, not only that it
 * does not parse. */
TEST(posted_gnu_far_percent_says_why)
{
	struct run_record *v;
	size_t n;
	char err[256];

	CHECK_INT(read_posted("pre4:\n548.27user 94.18system 10:50.12 90%CPU (450479major+696869minor)\n",
			      NULL, &v, &n, err, sizeof(err)), -1);
	CHECK(!strncmp(err, "line 2: looks like GNU time output but does not parse: CPU 90% is not"
		       " user+sys over wall (98%): 548.27user", 103));
}

/* Our own time export reads back with its groups: each header's keys set
 * its runs apart again and its kernel stays; a count printed "?" stays
 * unknown; a kept CPU % comes back as kept. */
TEST(posted_time_export_round_trip)
{
	struct run_record v[8], *back;
	size_t n, nb;
	struct report_opts o;
	char err[256];

	fixture_runs(v, &n);
	v[0].minflt = NA;
	v[0].inblock = NA;
	v[1].cpu_pct = 50.6;	/* its times give 50.5 */
	report_opts_default(&o);
	for (int gnu = 0; gnu < 2; gnu++) {
		o.gnu = gnu;
		char *text = render(w_time, v, n, &o);
		err[0] = 0;
		CHECK_INT(read_posted(text, "posted", &back, &nb, err, sizeof(err)), 0);
		CHECK_STR(err, "");
		CHECK_INT(nb, n);
		free(text);
		if (nb != n)
			continue;
		for (size_t i = 0; i < nb; i++)
			run_record_config(&back[i]);
		/* as exported: swap60's 3 runs, swap100's 3, the command's 1 */
		CHECK_STR(back[0].config_hash, back[2].config_hash);
		CHECK_STR(back[3].config_hash, back[5].config_hash);
		CHECK(strcmp(back[0].config_hash, back[3].config_hash) != 0);
		CHECK(strcmp(back[0].config_hash, back[6].config_hash) != 0);
		CHECK(strcmp(back[3].config_hash, back[6].config_hash) != 0);
		CHECK_INT(back[0].swappiness, 60);
		CHECK_INT(back[3].swappiness, 100);
		CHECK_INT(back[0].mem_limit_kib, 128 * 1024);
		CHECK_INT(back[6].mem_limit_kib, NA);
		CHECK_STR(back[6].kernel_release, "6.1.0-18-amd64");
		CHECK_INT(back[5].status, RUN_OOM);
		CHECK_INT(back[6].status, RUN_FAILED);
		CHECK_INT(back[0].majflt, 19670);
		if (gnu) {
			CHECK_INT(back[0].minflt, NA);
			CHECK_INT(back[1].minflt, 1001);
		} else {
			char want[128], got[128];

			CHECK_INT(back[0].inblock, NA);
			CHECK_NEAR(back[1].cpu_pct, 50.6, 1e-9);
			run_record_line(&v[1], false, want, sizeof(want));
			run_record_line(&back[1], false, got, sizeof(got));
			CHECK_STR(got, want);
		}
		run_records_free(back, nb);
	}
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* Batch output's marks after a time line are the run's status. */
TEST(posted_batch_marks)
{
	struct run_record *v;
	size_t n;
	char err[256];

	CHECK_INT(read_posted("70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w  failed\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w  aborted\n"
			      "1.00user 0.50system 0:03.00elapsed 50%CPU (0avgtext+0avgdata 1560maxresident)k\n"
			      "0inputs+0outputs (0major+97minor)pagefaults 0swaps  failed\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n",
			      NULL, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 4);
	if (n != 4)
		return;
	CHECK_INT(v[0].status, RUN_FAILED);
	CHECK_INT(v[1].status, RUN_ABORTED);
	CHECK_INT(v[2].status, RUN_FAILED);
	CHECK_INT(v[2].minflt, 97);
	CHECK_INT(v[2].maxrss_kib, 1560);	/* GNU's maxresident kept */
	CHECK_INT(v[0].maxrss_kib, NA);		/* csh's "0+0k" is not it */
	CHECK_INT(v[3].status, RUN_OK);
	run_records_free(v, n);
}

/* The runs of posted text, read without error and want of them; NULL
 * (and the check failed) else. */
static struct run_record *posted_runs(const char *text, size_t want, size_t *n)
{
	struct run_record *v;
	char err[256] = "";

	CHECK_INT(read_posted(text, NULL, &v, n, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(*n, want);
	if (*n == want)
		return v;
	run_records_free(v, *n);
	return NULL;
}

/* Seed 002's kernel compile numbers: the header is the line right above
 * the runs, not the prose above it, nor a quote's attribution; "the time
 * 2.4.1pre8 ..." in a sentence is no prompt. */
TEST(posted_header_right_above_the_runs)
{
	static const char text[] =
		"On Thu, 18 Jan 2001, Marcelo Tosatti wrote:\n"
		"Below some kernel compile numbers on a 32 MB RAM + 32 MB swap box. The\n"
		"three lines mean compilation with the -j1, -j2 and -j4 option. Most of\n"
		"the time 2.4.1pre8 was also unable to compile the kernel because cc1\n"
		"\n"
		"\tSzaka\n"
		"\n"
		"2.2.18\n"
		"548.27user 94.18system     10:50  98%CPU (450479major+696869minor)\n"
		"=========\n"
		"Linux-2.4.0:\n"
		"Throughput 5.1 MB/sec\n"
		"557.18user 121.57system    11:25  99%CPU (442434major+705429minor)\n"
		"lenstra:~/src/qsort> time ./qsbench -n 90000000 -p 1\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 3, &n);

	if (!v)
		return;
	CHECK_STR(v[0].kernel_release, "2.2.18");
	CHECK(v[0].command == NULL);
	CHECK_STR(v[1].kernel_release, "2.4.0");
	CHECK_STR(v[2].kernel_release, "2.4.0");
	CHECK_INT(v[2].kind, RUN_QSBENCH);
	CHECK_INT(v[2].nelems, 90000000);
	run_records_free(v, n);
}

/* Prompts before "time" in the forms posts have them; a line of text
 * under a kernel's line leaves it the header; thrashtop's own reclaim
 * lines, cut for a mail, are no header for the runs after them. */
TEST(posted_prompts_kernels_and_reclaim_lines)
{
	static const char text[] =
		"2.4.17\n"
		"[root@box qsort]# sudo time ./qsbench -n 90000000 -p 1 -s 140175100\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"2.4.0+blk-13B\n"
		"make -j4 bzImage, 32MB RAM, 32MB swap\n"
		"$ sync; time ./qsbench -n 1000 -p 2\n"
		"546.89user 140.35system    11:33  99%CPU (442435major+705424minor)\n"
		"50% time in reclaim\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"Linux-6.1.0:\n"
		"1.721u 0.044s 0:01.77 99.4% 0+0k 0+0io 0pf+0w\n"
		"reclaim: 0 direct stalls 0.0s, 0 of them the workload's 0.0s,\n"
		"  kswapd awake 0.0s in 0 wakes, 717 memcg stalls 0.3s,\n"
		"  0 compaction stalls 0.0s, 0 throttled, 0 OOM, 0 lost\n"
		"1.722u 0.044s 0:01.77 99.4% 0+0k 0+0io 0pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 5, &n);

	if (!v)
		return;
	CHECK_STR(v[0].kernel_release, "2.4.17");
	CHECK_INT(v[0].kind, RUN_QSBENCH);
	CHECK_INT(v[0].seed, 140175100);
	CHECK_STR(v[1].kernel_release, "2.4.0+blk-13B");
	CHECK_INT(v[1].nelems, 1000);
	CHECK_INT(v[1].procs, 2);
	CHECK_STR(v[2].kernel_release, "");
	CHECK(v[2].command == NULL && v[2].kind == RUN_COMMAND);
	CHECK_STR(v[3].kernel_release, "6.1.0");
	CHECK_STR(v[4].kernel_release, "6.1.0");
	run_records_free(v, n);
}

/* More prompts as posts have them, prose that looks like one, and
 * thrashtop's lines pasted indented: "n/a reclaim" goes on with nothing,
 * a reclaim line with its clauses indented further. */
TEST(posted_prompt_forms_and_indented_reclaim)
{
	static const char text[] =
		"Linux-2.4.14-pre8:\n"
		"% time ./qsbench -n 90000000 -p 1\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"sudo time ./qsbench -n 90000000 -p 2\n"
		"71.200u 7.400s 2:40.00 49.1% 0+0k 0+0io 19670pf+0w\n"
		"sync; time ./qsbench -n 90000000 -p 3\n"
		"71.200u 7.400s 2:40.00 49.1% 0+0k 0+0io 19670pf+0w\n"
		"-> the time is still spent in kswapd\n"
		"71.200u 7.400s 2:40.00 49.1% 0+0k 0+0io 19670pf+0w\n"
		"Linux-6.1:\n"
		"  0.010u 0.003s 0:00.01 100.0% 0+0k 0+0io 0pf+0w\n"
		"  n/a reclaim\n"
		"  0.010u 0.003s 0:00.01 100.0% 0+0k 0+0io 0pf+0w\n"
		"  reclaim: 0 direct stalls 0.0s, 0 of them the workload's 0.0s,\n"
		"    kswapd awake 0.0s in 0 wakes, 717 memcg stalls 0.3s,\n"
		"    0 compaction stalls 0.0s, 0 throttled, 0 OOM, 0 lost\n"
		"  0.010u 0.003s 0:00.01 100.0% 0+0k 0+0io 0pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 7, &n);

	if (!v)
		return;
	for (int i = 0; i < 3; i++) {
		CHECK_STR(v[i].kernel_release, "2.4.14-pre8");
		CHECK_INT(v[i].kind, RUN_QSBENCH);
		CHECK_INT(v[i].procs, i + 1);
	}
	CHECK(v[3].command == NULL);
	for (int i = 4; i < 7; i++)
		CHECK_STR(v[i].kernel_release, "6.1");
	run_records_free(v, n);
}

/* A stall line cut for a mail is read whole with the run it follows; a
 * kswapd line after it is not taken for one of its fields. */
TEST(posted_stall_line_cut_for_a_mail)
{
	static const char text[] =
		"1.810u 0.459s 0:02.54 88.9% 0+0k 217128+0io 3601pf+0w\n"
		"0:00 kswapd\n"
		"stalls: 0.0s swapin 0.2s reclaim 0.0s thrashing 0.0s compact 0.2s io\n"
		"  1.5s cpu 0.0s wpcopy 0.0s irq\n"
		"  0:01 kswapd\n";
	size_t n;
	struct run_record *v = posted_runs(text, 1, &n);

	if (!v)
		return;
	CHECK_NEAR(v[0].stalls.s[DL_RECLAIM], 0.2, 1e-9);
	CHECK_NEAR(v[0].stalls.s[DL_CPU], 1.5, 1e-9);
	CHECK_NEAR(v[0].stalls.s[DL_IRQ], 0, 0);
	run_records_free(v, n);
}

/* A posted GNU line keeps what its form gives: the default two-line form
 * its block I/O and max RSS, the short one neither (unknown, not 0). */
TEST(posted_gnu_forms_keep_what_they_give)
{
	static const char text[] =
		"548.27user 94.18system 10:50.12elapsed 98%CPU (0avgtext+0avgdata 2048maxresident)k\n"
		"16inputs+8outputs (450479major+696869minor)pagefaults 0swaps\n"
		"548.27user 94.18system 10:50.12 98%CPU (450479major+696869minor)\n";
	size_t n;
	struct run_record *v = posted_runs(text, 2, &n);

	if (!v)
		return;
	CHECK_INT(v[0].inblock, 16);
	CHECK_INT(v[0].oublock, 8);
	CHECK_INT(v[0].maxrss_kib, 2048);
	CHECK_INT(v[1].inblock, NA);
	CHECK_INT(v[1].oublock, NA);
	CHECK_INT(v[1].maxrss_kib, NA);
	run_records_free(v, n);
}

/* A message an archive flattened onto one line gives the runs its lines
 * give: the same ids, kernels, workloads, kswapd, OOM and marks. */
TEST(posted_flattened_message_reads_as_its_lines)
{
	static const char flat[] =
		"* VM: qsbench numbers @ 2001-11-04 14:11 Lorenzo Allegrucci I begin with the "
		"last Linus' kernel, three runs and kswapd CPU time appended. Linux-2.4.14-pre8: "
		QS_PROMPT " "
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w "
		QS_PROMPT " "
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w 0:01 kswapd "
		"Double swap space (from 200M to 400M): "
		QS_PROMPT " "
		"70.510u 6.390s 2:24.39 53.2% 0+0k 0+0io 17902pf+0w 0:03 kswapd "
		"Old results below. Linux-2.4.14-pre7: "
		QS_PROMPT " "
		"Out of Memory: Killed process 224 (qsbench). "
		"17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w "
		"2.4.14-pre5 has the best VM for qsbench :) Linux-2.4.13: "
		"71.260u 2.150s 2:20.68 52.1% 0+0k 0+0io 20173pf+0w  aborted 0:06 kswapd "
		"1.00user 0.50system 0:03.00elapsed 50%CPU (0avgtext+0avgdata 1560maxresident)k "
		"0inputs+0outputs (0major+97minor)pagefaults 0swaps -- Lorenzo\n";
	static const char lines[] =
		"Linux-2.4.14-pre8:\n"
		QS_PROMPT "\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		QS_PROMPT "\n"
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w\n"
		"0:01 kswapd\n"
		"Double swap space (from 200M to 400M):\n"
		QS_PROMPT "\n"
		"70.510u 6.390s 2:24.39 53.2% 0+0k 0+0io 17902pf+0w\n"
		"0:03 kswapd\n"
		"Linux-2.4.14-pre7:\n"
		QS_PROMPT "\n"
		"Out of Memory: Killed process 224 (qsbench).\n"
		"17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w\n"
		"Linux-2.4.13:\n"
		"71.260u 2.150s 2:20.68 52.1% 0+0k 0+0io 20173pf+0w  aborted\n"
		"0:06 kswapd\n"
		"1.00user 0.50system 0:03.00elapsed 50%CPU (0avgtext+0avgdata 1560maxresident)k 0inputs+0outputs (0major+97minor)pagefaults 0swaps\n";
	struct run_record *f, *l;
	size_t nf, nl;
	char err[256] = "";

	CHECK_INT(read_posted(flat, NULL, &f, &nf, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_INT(read_posted(lines, NULL, &l, &nl, err, sizeof(err)), 0);
	CHECK_INT(nf, 6);
	CHECK_INT(nl, 6);
	if (nf != 6 || nl != 6)
		return;
	for (size_t i = 0; i < nf; i++) {
		CHECK_STR(f[i].uuid, l[i].uuid);
		CHECK_STR(f[i].kernel_release, l[i].kernel_release);
		CHECK_INT(f[i].status, l[i].status);
		CHECK_INT(f[i].wall_us, l[i].wall_us);
		CHECK_INT(f[i].repeat_k, l[i].repeat_k);
		CHECK_INT(f[i].repeat_n, l[i].repeat_n);
	}
	CHECK_STR(f[0].kernel_release, "2.4.14-pre8");
	CHECK(f[0].kind == RUN_QSBENCH && f[0].nelems == 90000000);
	CHECK(isnan(f[1].kswapd_s));		/* 0:01 is the two runs' total */
	CHECK_STR(f[2].kernel_release, "");	/* its header names none */
	CHECK_STR(f[2].label, "Double swap space (from 200M to 400M)");
	CHECK_NEAR(f[2].kswapd_s, 3.0, 1e-9);
	CHECK_STR(f[3].kernel_release, "2.4.14-pre7");
	CHECK_INT(f[3].status, RUN_OOM);
	CHECK_STR(f[4].kernel_release, "2.4.13");	/* not the aside's 2.4.14-pre5 */
	CHECK_INT(f[4].status, RUN_ABORTED);
	CHECK_INT(f[5].minflt, 97);
	run_records_free(f, nf);
	run_records_free(l, nl);
}

/* In a flattened reply, what follows a quote mark ("> 70.590u ...", a
 * quoted free block) is someone else's and is skipped; a quote ends at
 * its last sentence before the poster's own runs; an aside between runs
 * ("<-") names no group, "<linux/swap.h>" and "2>" are no prompts; each
 * line is a message of its own, whose runs nothing above names; and a
 * message's one quoted OOM kill is not its own. */
TEST(posted_flattened_quotes_and_asides)
{
	static const char text[] =
		"Linux-2.4.14-pre8:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"On Sun, 4 Nov 2001, Lorenzo wrote: > >Does free imply swap used? > > "
		"70.590u 7.640s 2:31.06 51.7% 0+0k 0+0io 19036pf+0w > lenstra:~/src/qsort> free > "
		"total used free shared buffers cached > Mem: 255984 6008 249976 0 100 1096 > "
		"-/+ buffers/cache: 4812 251172 > Swap: 195512 5080 190432 Not a leak. > >unstable "
		"numbers? mm/memory.c: #undef vm_swap_full() swap=200M "
		"70.480u 7.440s 2:35.74 50.0% 0+0k 0+0io 19897pf+0w "
		"70.640u 7.280s 2:28.87 52.3% 0+0k 0+0io 18453pf+0w <- best of these. Defined in "
		"<linux/swap.h> as before. Linux-2.4.14-pre8 with swap=400M "
		"70.120u 6.940s 2:29.55 51.5% 0+0k 0+0io 18598pf+0w\n"
		"* Re: VM: qsbench numbers From: Someone Else, with a run of a command whose "
		"output went elsewhere, which the header of the message above does not name: "
		"lenstra:~> time ./qsbench -n 1000 2> /dev/null "
		"1.000u 0.100s 0:01.10 100.0% 0+0k 0+0io 0pf+0w\n"
		"* Re: VM: qsbench numbers From: Third Person. Thanks for the numbers; you wrote: "
		"> Out of Memory: Killed process 224 (qsbench). and I see no such thing here, "
		"where the run below, in a line of its own, went to its end.\n"
		"70.900u 7.000s 2:30.00 51.9% 0+0k 0+0io 19300pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 6, &n);

	if (!v)
		return;
	CHECK_INT(v[1].wall_us, 155740000);	/* not the quoted 2:31.06 */
	CHECK_STR(v[1].kernel_release, "");	/* the header above is another message's */
	CHECK_INT(v[1].ram_kib, NA);		/* nor is the quoted free block its own */
	CHECK(v[1].repeat_k == 1 && v[1].repeat_n == 2 && v[2].repeat_k == 2);
	CHECK_INT(v[2].wall_us, 148870000);
	CHECK_INT(v[3].wall_us, 149550000);
	CHECK_STR(v[3].kernel_release, "2.4.14-pre8");
	CHECK(v[3].repeat_k == 1 && v[3].repeat_n == 1);
	CHECK_STR(v[4].kernel_release, "");
	CHECK(v[4].repeat_k == 1 && v[4].repeat_n == 1);
	CHECK_INT(v[5].status, RUN_OK);		/* the OOM was quoted */
	CHECK(v[4].kind == RUN_COMMAND && v[4].command &&
	      !strcmp(v[4].command, "./qsbench -n 1000 2> /dev/null"));
	run_records_free(v, n);
}

/* A post's own lines are read as they are: a quoted line that holds
 * someone's runs stays quoted, and a line with two of a post's lines on it
 * (an OOM line twice) is no message of its own that would forget the
 * header above. */
TEST(posted_lines_are_not_flattened)
{
	static const char text[] =
		"Linux-2.4.14-pre8:\n"
		QS_PROMPT "\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"> pre7 gave 17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w and 26.030u "
		"15.530s 1:39.39 41.8% 0+0k 0+0io 13283pf+0w, and as a long quoted line in a reply "
		"can go on: " QS_PROMPT "\n"
		QS_PROMPT "\n"
		"Out of Memory: Killed process 224 (qsbench). Killed process 225 (qsbench).\n"
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w\n"
		"70.510u 6.660s 2:29.29 51.6% 0+0k 0+0io 18463pf+0w\n"
		"The swap used stays low in total, and free after each run:\n"
		"70.600u 7.600s 2:56.97 44.1% 0+0k 0+0io 23599pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 4, &n);

	if (!v)
		return;
	for (size_t i = 0; i < 3; i++) {
		CHECK_STR(v[i].kernel_release, "2.4.14-pre8");
		CHECK(v[i].kind == RUN_QSBENCH && v[i].seed == 140175100);
	}
	CHECK_INT(v[1].majflt, 18337);
	CHECK_INT(v[1].status, RUN_OOM);
	CHECK_INT(v[2].majflt, 18463);
	/* words of a free header in prose are no free block */
	CHECK_INT(v[3].majflt, 23599);
	CHECK_STR(v[3].kernel_release, "");
	run_records_free(v, n);
}

/* A flattened message is not fooled: a quoted run with the quote's words
 * before it stays quoted, the kernel is the header's first, "i.e." ends
 * no sentence, "70.27u" in prose is no time line, "[root@box dir]#" and
 * "lenstra%" are prompts, and the header after a free block names the run
 * after it. */
TEST(posted_flattened_not_fooled)
{
	static const char text[] =
		"On Sun, A wrote: > Linux-2.4.14-pre8: 70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io "
		"19670pf+0w > 0:01 kswapd I see. Hi all. Linux-2.4.14-pre8 with the VM patch from "
		"Linux-2.4.13-ac4: h:~> time ./qsbench -n 1 -p 1 -s 2 "
		"70.300u 7.000s 2:30.00 51.5% 0+0k 0+0io 19000pf+0w That is about 70.27u 7.33s "
		"per run. Linux-2.4.14-pre8 (i.e. the new VM): [root@box qsort]# time ./qsbench -n 1 "
		"-p 1 -s 3 70.400u 7.000s 2:30.00 51.6% 0+0k 0+0io 19100pf+0w h:~> free total used "
		"free shared buffers cached Mem: 255984 16760 239224 0 1092 8008 -/+ buffers/cache: "
		"7660 248324 Swap: 195512 0 195512 Linux-2.4.13: lenstra% time ./qsbench -n 1 -p 1 "
		"-s 4 70.500u 7.000s 2:30.00 51.6% 0+0k 0+0io 19200pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 3, &n);

	if (!v)
		return;
	CHECK_STR(v[0].kernel_release, "2.4.14-pre8");
	CHECK(v[0].kind == RUN_QSBENCH && v[0].seed == 2);
	CHECK_STR(v[1].kernel_release, "2.4.14-pre8");
	CHECK(v[1].kind == RUN_QSBENCH && v[1].seed == 3);
	CHECK_STR(v[2].kernel_release, "2.4.13");
	CHECK(v[2].kind == RUN_QSBENCH && v[2].seed == 4);
	CHECK_INT(v[2].ram_kib, 255984);
	run_records_free(v, n);
}

/* A line past FLAT_MAX is no message: refused with its line, or skipped. */
TEST(posted_line_past_a_message_refused_or_skipped)
{
	const char run[] = "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w ";
	size_t len = ((size_t)1 << 20) + sizeof(run);
	char *text = malloc(len + 200), err[256] = "";
	struct run_record *v;
	size_t n = 0, o = 0;

	CHECK(text != NULL);
	if (!text)
		return;
	while (o + sizeof(run) < len) {
		memcpy(text + o, run, sizeof(run) - 1);
		o += sizeof(run) - 1;
	}
	snprintf(text + o, 200, "\n70.090u 6.890s 2:32.29 50.5%% 0+0k 0+0io 18337pf+0w\n");
	CHECK_INT(read_posted(text, NULL, &v, &n, err, sizeof(err)), -1);
	CHECK(!strncmp(err, "line 1: ", 8) && strstr(err, "bytes on one line"));

	struct skips k = { { 0 }, 0, "" };
	const struct import_sink s = { skips_run, skips_note, &k };
	CHECK_INT(posted_read(text, NULL, true, &s, err, sizeof(err)), 0);
	CHECK_INT(k.c.n, 1);
	CHECK(k.c.n == 1 && k.c.runs[0].majflt == 18337);
	CHECK(!strncmp(k.last, "skipped line 1: ", 16));
	run_records_free(k.c.runs, k.c.n);
	free(text);
}

/* A kswapd or stall line under a run and a time line --skip-bad left out
 * is the total of both: not the one imported run's, and said to count the
 * other. */
TEST(posted_kswapd_total_counts_skipped_runs)
{
	static const char text[] =
		"Linux-2.4.14:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"70.270u 7.330s 2:33.29 99.6% 0+0k 0+0io 19671pf+0w\n"
		"0:03 kswapd\n"
		"stalls: 41.2s swapin 3.1s reclaim\n";
	char err[256] = "";
	struct skips k = { { 0 }, 0, "" };
	const struct import_sink s = { skips_run, skips_note, &k };

	CHECK_INT(posted_read(text, NULL, true, &s, err, sizeof(err)), 0);
	CHECK_INT(k.c.n, 1);
	CHECK(k.c.n == 1 && isnan(k.c.runs[0].kswapd_s));
	CHECK(k.c.n == 1 && !delays_known(&k.c.runs[0].stalls));	/* the pair's too */
	CHECK(strstr(k.last, "is the total of the 2 runs above it (1 of them skipped)") != NULL);
	run_records_free(k.c.runs, k.c.n);
}

/* A posted GNU line's percent, which its printed times do not give again
 * (198% from times giving 199%), is printed back by the GNU export. */
TEST(posted_gnu_percent_printed_back)
{
	static const char text[] =
		"1.95user 0.04system 0:01.00elapsed 198%CPU (0avgtext+0avgdata 40272maxresident)k\n"
		"0inputs+0outputs (0major+9810minor)pagefaults 0swaps\n";
	struct run_record *v;
	struct report_opts o;
	size_t n;
	char err[256] = "", *out;

	CHECK_INT(read_posted(text, NULL, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 1);
	if (n != 1)
		return;
	report_opts_default(&o);
	o.gnu = true;
	out = render(w_time, v, n, &o);
	CHECK(out && strstr(out, " 198%CPU "));
	if (out && !strstr(out, " 198%CPU "))
		printf("%s", out);
	free(out);
	run_records_free(v, n);
}

/* A free(1) header whose block does not add up is refused with its line,
 * or with --skip-bad skipped with the rows under it, said once. */
TEST(posted_bad_free_block_refused_or_skipped)
{
	static const char text[] =
		"Linux-2.4.14-pre8:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"             total       used       free     shared    buffers     cached\n"
		"Mem:        255984       6008     249976          0        100       1096\n"
		"Swap:       195512       5080     190000\n"
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w\n";
	struct run_record *v;
	size_t n;
	char err[256] = "";

	CHECK_INT(read_posted(text, NULL, &v, &n, err, sizeof(err)), -1);
	CHECK(!strncmp(err, "line 3: a free(1) header without a block that adds up: ", 55));
	CHECK(strstr(err, " total       used") != NULL);
	CHECK(strstr(err, " (--skip-bad imports the rest)") != NULL);
	CHECK_INT(n, 0);

	struct skips k = { { 0 }, 0, "" };
	const struct import_sink s = { skips_run, skips_note, &k };
	CHECK_INT(posted_read(text, NULL, true, &s, err, sizeof(err)), 0);
	CHECK_INT(k.c.n, 2);
	CHECK(k.c.n == 2 && k.c.runs[1].repeat_k == 2 && k.c.runs[1].repeat_n == 2);
	CHECK(k.c.n == 2 && !mem_snapshot_taken(&k.c.runs[0].free_after));
	CHECK_INT(k.n, 1);
	CHECK(!strncmp(k.last, "skipped line 3: a free(1) header without a block that adds up: ", 63));
	run_records_free(k.c.runs, k.c.n);
}

/* The poster's headers: one ending in ':' gives its runs its words as
 * their label (not a kernel's name alone, nor the export's "(no label)"),
 * a line of text above the runs gives none; kernels are named in the ways
 * posts name them, and not by numbers that are no release. */
TEST(posted_headers_label_and_kernel)
{
	static const char text[] =
		"Linux-2.4.14-pre8:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"Double swap space:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19671pf+0w\n"
		"Throughput 7.05841 MB/sec (NB=8.82301 MB/sec  70.5841 MBit/sec)\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19672pf+0w\n"
		"Mine:\n"
		"\n"
		"2.4.13-ac5\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19673pf+0w\n"
		"Linux 2.4.17\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19674pf+0w\n"
		"Here on 2.4.13:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19675pf+0w\n"
		"(no label):\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19676pf+0w\n"
		"Tested on 1.5 GB of RAM, a 2.4GHz P4:\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19677pf+0w\n"
		"swap=400M\n"
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19678pf+0w\n";
	size_t n;
	struct run_record *v = posted_runs(text, 9, &n);

	if (!v)
		return;
	CHECK_STR(v[0].label, "");
	CHECK_STR(v[0].kernel_release, "2.4.14-pre8");
	CHECK_STR(v[1].label, "Double swap space");
	CHECK_STR(v[1].kernel_release, "");
	CHECK_STR(v[2].label, "");
	CHECK_STR(v[3].label, "Mine");
	CHECK_STR(v[3].kernel_release, "2.4.13-ac5");
	CHECK_STR(v[4].label, "");
	CHECK_STR(v[4].kernel_release, "2.4.17");
	CHECK_STR(v[5].label, "Here on 2.4.13");
	CHECK_STR(v[5].kernel_release, "2.4.13");
	CHECK_STR(v[6].label, "");
	CHECK_STR(v[6].kernel_release, "");
	CHECK_STR(v[7].label, "Tested on 1.5 GB of RAM, a 2.4GHz P4");
	CHECK_STR(v[7].kernel_release, "");
	CHECK_STR(v[8].label, "swap=400M");	/* one setting names its runs too */
	run_records_free(v, n);
}

/* A header that only looks like ours (a value that is no such value)
 * gives its kernel alone, as any posted header. */
TEST(posted_header_keys_all_or_none)
{
	struct run_record *v;
	size_t n;
	char err[256];

	CHECK_INT(read_posted("Linux-2.4.14 swappiness=60 mem_limit_kib=lots:\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
			      "Linux-2.4.15 host=a procs=2 seed=7 command=make -j75 swappiness=10:\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
			      "Linux-2.4.16 nelems=300000 procs=2 seed=7:\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
			      "Linux-2.4.17 nelems=300000 procs=2:\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
			      "Linux 6.1 kernel=6.18.44:\n"
			      "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n",
			      NULL, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 5);
	if (n != 5)
		return;
	CHECK_STR(v[0].kernel_release, "2.4.14");
	CHECK_INT(v[0].swappiness, NA);
	CHECK_INT(v[0].mem_limit_kib, NA);
	/* "host=a" is no key of ours: the tail runs from "procs=" */
	CHECK_STR(v[1].kernel_release, "2.4.15");
	CHECK_INT(v[1].kind, RUN_COMMAND);
	CHECK(v[1].command && !strcmp(v[1].command, "make -j75"));
	CHECK_INT(v[1].swappiness, 10);
	/* a sorter named whole is one; without its seed it is not known */
	CHECK_INT(v[2].kind, RUN_QSBENCH);
	CHECK_INT(v[2].nelems, 300000);
	CHECK_INT(v[2].procs, 2);
	CHECK_INT(v[2].seed, 7);
	CHECK_INT(v[3].kind, RUN_COMMAND);
	CHECK(!v[3].command);
	/* beside an export's own kernel key, a kernel-like lead is a label */
	CHECK_STR(v[4].label, "Linux 6.1");
	CHECK_STR(v[4].kernel_release, "6.18.44");
	run_records_free(v, n);
}

/* Found by fuzzing: a scalar where a worker object belongs. */
TEST(import_scalar_where_object_belongs)
{
	struct run_record *v;
	size_t n;
	char err[256];

	CHECK_INT(read_json("{\"thrashtop_history\": 1, \"runs\": [{\"workers\": [5]}]}",
			    &v, &n, err, sizeof(err)), -1);
	CHECK_STR(err, "JSON: 5 is not an object");
}

/* Recorded text with control bytes and broken UTF-8 (from an old history)
 * leaves JSON valid UTF-8 with every control escaped. */
TEST(export_json_stays_valid_utf8)
{
	struct run_record v[8];
	size_t n;

	fixture_runs(v, &n);
	snprintf(v[0].label, sizeof(v[0].label), "a\033]0;x\007 \xff\xc2\x9b \xc3\xa9");
	char *json = render(w_json, v, 1, NULL);
	CHECK(json && strstr(json, "\"a\\u001b]0;x\\u0007 \\ufffd\\u009b \xc3\xa9\""));
	for (char *p = json; p && *p; p++)
		if (*p == '\n')
			*p = ' ';
	CHECK(json && fmt_text_clean(json));
	free(json);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* One run of the streaming fixture: group g (its label and, for some,
 * swappiness), start minute s ("" when s < 0), figures from k. */
static void stream_run(struct run_record *r, int g, int s, int k)
{
	run_record_init(r);
	snprintf(r->uuid, sizeof(r->uuid), "%08x%08x%016x", g, k, 7);
	if (s >= 0)
		snprintf(r->started_at, sizeof(r->started_at), "2025-04-01T%02d:%02d:00Z", s / 60,
			 s % 60);
	snprintf(r->label, sizeof(r->label), "grp%02d", g);
	snprintf(r->hostname, sizeof(r->hostname), "host%d", g % 3 == 0 ? 1 : 2);
	r->nelems = 1000000;
	r->procs = 1 + g % 2;
	r->seed = 1;
	r->swappiness = g == 4 ? 100 : 60;
	r->status = k % 11 == 3 ? RUN_ABORTED : k % 13 == 5 ? RUN_OOM : k % 17 == 7 ? RUN_FAILED
										     : RUN_OK;
	r->wall_us = k % 7 == 2 ? NA : 100000000 + (k * 7919) % 5000000;
	r->user_us = k % 5 == 1 ? NA : 60000000 + (k * 104729) % 3000000;
	r->sys_us = 5000000 + (k * 31) % 200000;
	r->majflt = k % 9 == 4 ? NA : 10000 + (k * 37) % 900;
	r->minflt = 5000 + k;
	r->inblock = 0;
	r->oublock = k % 3;
	r->kswapd_s = k % 4 == 0 ? NAN : 0.01 * (k % 50);
	if (g == 2 && k % 6 == 0)
		r->wall_us = 900000000;		/* outliers */
	if (r->status == RUN_OOM) {
		r->nworkers = 1;
		r->workers = calloc(1, sizeof(*r->workers));
		r->workers[0] = (struct run_worker){ 4000 + k, END_OOM, NA, 9, 0, 0, 0, 0, 0,
						     NA, DELAYS_NONE };
	}
	/* series on some runs, for the text report's charts */
	if (k % 3 == 0 && g != 6) {
		run_record_alloc_series(r, 8);
		run_record_add_series(r, M_SWAP_USED);
		run_record_add_series(r, M_MAJFLT);
		for (int i = 0; i < 8; i++) {
			r->t[i] = i * 0.5;
			r->series[M_SWAP_USED][i] = 1000.0 * i * (k % 5 + 1);
			r->series[M_MAJFLT][i] = (i * k) % 300;
		}
	}
}

typedef int report_fn(FILE *, struct run_source *, const struct report_opts *, char *, size_t);

static int from_history(report_fn *report, FILE *f, struct history *h,
			const struct history_filter *filt, const struct report_opts *o)
{
	char err[256];
	struct run_source *src = run_source_history(h, filt, err, sizeof(err));
	int rc = src ? report(f, src, o, err, sizeof(err)) : -1;

	run_source_free(src);
	return rc;
}

/* The history as a run source, a group at a time, gives each report what
 * the same runs loaded at once give: unknown figures, aborted, failed and
 * OOM runs (whose workers it reads apart), one-run groups, groups and runs
 * that started at the same time (or at no recorded time), ids out of start
 * order, groups without series, and label filters. */
TEST(report_history_source_gives_the_loaded_runs)
{
	char dir[] = "/tmp/thrashtop-stats.XXXXXX", path[64], err[256];
	struct report_opts o;
	struct run_record r;

	report_opts_default(&o);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.db", dir);
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	int bad = 0, k = 0;
	CHECK_INT(history_begin(h, err, sizeof(err)), 0);
	/* later runs first, so that ids do not follow start times */
	for (int i = 399; i >= 0; i--) {
		int g = i % 9;
		/* groups 5 and 6 start at the same minute; group 7 records
		 * no start time; group 8 has a single run */
		int s = g == 7 ? -1 : g == 5 || g == 6 ? 600 + i / 40 : 60 + i / 3;
		if (g == 8 && i != 8)
			continue;
		stream_run(&r, g, s, k++);
		bad += history_add(h, &r, err, sizeof(err)) != 0;
		run_record_clear(&r);
	}
	CHECK_INT(history_commit(h, err, sizeof(err)), 0);
	CHECK_INT(bad, 0);

	const char *labels[] = { NULL, "grp0[2-6]", "grp08", "none" };
	for (size_t l = 0; l < sizeof(labels) / sizeof(labels[0]); l++) {
		struct history_filter f = { .label = labels[l] };
		struct run_record *v;
		size_t n;

		CHECK_INT(history_list(h, &f, HISTORY_DETAIL, &v, &n, err, sizeof(err)), 0);
		for (int kind = 0; kind < 6; kind++) {
			char *a = NULL, *b = NULL;
			size_t alen = 0, blen = 0;
			FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);
			report_fn *const fn[3] = { report_stats, report_time, report_text };

			/* each report with csh lines, then with GNU time's */
			o.gnu = kind >= 3;
			CHECK_INT(grouped(fn[kind % 3], fa, v, n, &o), 0);
			CHECK_INT(from_history(fn[kind % 3], fb, h, &f, &o), 0);
			fclose(fa);
			fclose(fb);
			CHECK(alen > 0 || l == 3);
			CHECK(strstr(a, kind % 3 == 0 ? "outlier" :
				     kind % 3 == 1 ? "Out of Memory: Killed process 4" :
				     "Swap used") != NULL || l > 1);
			if (strcmp(a, b)) {
				size_t d = 0;
				while (a[d] == b[d])
					d++;
				CHECK_STR(b + (d > 40 ? d - 40 : 0), a + (d > 40 ? d - 40 : 0));
			}
			free(a);
			free(b);
		}
		/* stats with a group's newest 10 lines (groups here have up
		 * to 45 runs), and with every line */
		for (int cap = 0; cap < 2; cap++) {
			char *a = NULL, *b = NULL;
			size_t alen = 0, blen = 0;
			FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);

			o.gnu = false;
			o.lines = cap ? 10 : 0;
			CHECK_INT(grouped(report_stats, fa, v, n, &o), 0);
			CHECK_INT(from_history(report_stats, fb, h, &f, &o), 0);
			fclose(fa);
			fclose(fb);
			CHECK_STR(b, a);
			CHECK((strstr(a, "older runs not shown") != NULL) == (cap && l != 2 && l != 3));
			free(a);
			free(b);
		}
		o.lines = REPORT_STATS_LINES;
		run_records_free(v, n);
	}
	history_close(h);
	unlink(path);
	char side[80];
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
	rmdir(dir);
}

TEST(report_posted_stall_line_kept_with_its_run)
{
	/* batch output: each run's own lines; then an export's group of two,
	 * whose stall line is their sum and stays with neither */
	const char *text =
		"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w\n"
		"0:01 kswapd\n"
		"stalls: 41.2s swapin 3.1s reclaim 12.0s thrashing 0.4s io 1.9s cpu\n"
		"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w\n"
		"0:01 kswapd\n"
		"n/a stalls\n"
		"70.510u 6.660s 2:29.29 51.6% 0+0k 0+0io 18463pf+0w\n"
		"70.510u 6.390s 2:24.39 53.2% 0+0k 0+0io 17902pf+0w\n"
		"0:02 kswapd\n"
		"stalls: 80.0s swapin\n";
	struct run_record *v = NULL;
	size_t n = 0;
	char err[256] = "";

	CHECK_INT(read_posted(text, "t", &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_NEAR(v[0].stalls.s[DL_SWAPIN], 41.2, 1e-9);
		CHECK_NEAR(v[0].stalls.s[DL_CPU], 1.9, 1e-9);
		CHECK(isnan(v[0].stalls.s[DL_COMPACT]));
		CHECK(!delays_known(&v[1].stalls));
		CHECK(!delays_known(&v[2].stalls));
		CHECK(!delays_known(&v[3].stalls));
	}
	run_records_free(v, n);
}

TEST(report_stalls_and_delays_round_trip)
{
	struct run_record runs[8], *back = NULL;
	size_t n = 0, nb = 0;
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	FILE *f;

	fixture_runs(runs, &n);
	for (int csv = 0; csv < 2; csv++) {
		f = open_memstream(&buf, &len);
		if (csv)
			export_csv(f, runs, n);
		else
			export_json(f, runs, n);
		fclose(f);
		CHECK_INT(csv ? read_csv(buf, &back, &nb, err, sizeof(err))
			      : read_json(buf, &back, &nb, err, sizeof(err)), 0);
		CHECK_INT(nb, n);
		for (size_t i = 0; i < n && i < nb; i++) {
			for (int k = 0; k < DL_N; k++) {
				double a = runs[i].stalls.s[k], b = back[i].stalls.s[k];
				CHECK(isnan(a) ? isnan(b) : a == b);
				for (int w = 0; w < runs[i].nworkers && w < back[i].nworkers; w++) {
					a = runs[i].workers[w].delays.s[k];
					b = back[i].workers[w].delays.s[k];
					CHECK(isnan(a) ? isnan(b) : a == b);
				}
			}
		}
		run_records_free(back, nb);
		back = NULL;
		free(buf);
		buf = NULL;
	}
	for (size_t i = 0; i < n; i++)
		run_record_clear(&runs[i]);
}

/* Groups are named by what sets them apart, compared whole: two
 * commands that differ only at their ends still name the groups. */
TEST(report_groups_named_by_whole_commands)
{
	struct run_record v[2];
	struct report_opts o;
	char cmd[300];
	char *out;

	report_opts_default(&o);
	memset(cmd, 'x', sizeof(cmd) - 1);
	cmd[0] = 's';
	cmd[sizeof(cmd) - 1] = '\0';
	for (int i = 0; i < 2; i++) {
		run_record_init(&v[i]);
		v[i].id = i + 1;
		v[i].kind = RUN_COMMAND;
		v[i].wall_us = 1000000;
		snprintf(v[i].started_at, sizeof(v[i].started_at), "2025-03-0%dT09:00:00Z", i + 1);
		cmd[sizeof(cmd) - 2] = (char)('1' + i);
		v[i].command = strdup(cmd);
		run_record_config(&v[i]);
	}
	out = render(w_stats, v, 2, &o);
	CHECK(out && strstr(out, "group g:1: (no label) command=sxxx") &&
	      strstr(out, "group g:2: (no label) command=sxxx"));
	/* whole, so that an export of them imports as two groups again */
	CHECK(out && strstr(out, cmd + 1));
	if (out && !strstr(out, "command="))
		printf("%s", out);
	free(out);
	for (int i = 0; i < 2; i++)
		run_record_clear(&v[i]);
}

