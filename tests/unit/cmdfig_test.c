/* A command's own figures in the reports: the figure's text, the rows of
 * history stats (text and JSON) and compare with direction-aware gains,
 * the same from a history as from memory, and the JSON export read back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmdfig.h"
#include "compare.h"
#include "export.h"
#include "history.h"
#include "history_fixture.h"
#include "import.h"
#include "report.h"
#include "report_fixture.h"
#include "runsource.h"

TEST(cmdfig_text_fits_nine_columns)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 7.05841, "7.05841" }, { 100.08, "100.08" }, { 85, "85" },
		{ 123456789, "1.235e+08" }, { 1234567.8, "1.235e+06" }, { 0.000123456, "0.0001235" },
		{ -0.000123456, "-0.000123" }, { 1e-9, "1e-09" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double p = cmdfig_text(buf, sizeof(buf), cases[i].v);
		CHECK_STR(buf, cases[i].text);
		CHECK(p == strtod(cases[i].text, NULL));
		CHECK(strlen(buf) <= 9);
	}
	CHECK(isnan(cmdfig_text(buf, sizeof(buf), NAN)));
	CHECK_STR(buf, "n/a");
}

TEST(cmdfig_sets_by_name)
{
	struct cmdfigs s = { 0 };

	CHECK_INT(cmdfigs_add(&s, "tput", true, 7), 0);
	CHECK_INT(cmdfigs_add(&s, "lat", false, NAN), 0);
	CHECK_INT(cmdfigs_add(&s, "tput", false, 8), 0);
	CHECK_INT((long long)s.n, 2);
	CHECK_STR(s.v[0].name, "lat");
	CHECK_INT((long long)s.v[0].n, 0);
	CHECK_INT(cmdfigs_find(&s, "tput"), 1);
	CHECK(s.v[1].higher && s.v[1].n == 2 && s.v[1].x[1] == 8);
	CHECK_INT(cmdfigs_find(&s, "x"), -1);
	cmdfigs_free(&s);
}

/* Six runs in two sets: throughput 100 then 85 (higher is better), a
 * latency 10 then 12 (lower is better); one run without a value, one
 * failed whose value is not counted. */
static void runs(struct run_record *v, int *set)
{
	static const int64_t wall[6] = { 1000000, 1010000, 990000, 1000000, 1000000, 1000000 };
	static const int64_t zero[6] = { 0 };
	static const double tput[6] = { 100, 100.4, 99.6, 85, 85.4, NAN };
	static const double lat[6] = { 10, 10.5, 9.5, 12, 12.5, 11.5 };

	timed_runs(v, 6, wall, zero, zero);
	for (int i = 0; i < 6; i++) {
		run_record_add_metric(&v[i], "tput", tput[i], true);
		run_record_add_metric(&v[i], "lat", lat[i], false);
		snprintf(v[i].label, sizeof(v[i].label), "%s", i < 3 ? "base" : "new");
		run_record_config(&v[i]);
		set[i] = i >= 3;
	}
	v[5].status = RUN_FAILED;
}

static char *stats_text(struct run_source *src, bool json)
{
	struct report_opts o;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_opts_default(&o);
	CHECK_INT((json ? report_stats_json : report_stats)(f, src, &o, err, sizeof(err)), 0);
	fclose(f);
	return buf;
}

TEST(cmdfig_stats_and_compare_rows)
{
	struct run_record v[6];
	int set[6];
	const char *names[2] = { "base", "new" };
	char *buf = NULL, err[256];
	size_t len = 0;

	runs(v, set);
	struct run_source *src = run_source_array(v, 3, err, sizeof(err));
	char *text = stats_text(src, false);
	printf("%s", text);
	CHECK(strstr(text, "\n  tput      3      99.6       100       100     100.4       0.4    0.4%\n"));
	CHECK(strstr(text, "\n  lat       3       9.5        10        10      10.5       0.5    5.0%\n"));
	CHECK(strstr(text, "(lat lower is better, tput higher: the command's own figures,"));
	free(text);
	text = stats_text(src, true);
	CHECK(strstr(text, "\"tput\": {\"unit\": \"\", \"n\": 3, \"better\": \"higher\", \"min\": 99.6,"));
	free(text);
	run_source_free(src);

	FILE *f = open_memstream(&buf, &len);
	CHECK_INT(compare_figures(f, v, 6, set, 2, names, err, sizeof(err)), 0);
	fclose(f);
	printf("%s", buf);
	/* 100.00 -> 85.20: 14.8% lower, a loss where higher is better */
	CHECK(strstr(buf, "\nAmean  tput            100  (  0.00%)       85.2  *-14.80%*\n"));
	CHECK(strstr(buf, "\nMedian tput            100  (  0.00%)       85.2  *-14.80%*\n"));
	/* 10 -> 12.25: a loss where lower is better, as for times */
	CHECK(strstr(buf, "\nAmean  lat              10  (  0.00%)      12.25  *-22.50%*\n"));
	CHECK(strstr(buf, "positive when higher"));
	free(buf);
	for (int i = 0; i < 6; i++)
		run_record_clear(&v[i]);
}

/* From a history the same rows as from memory; the figures read by
 * history_each_metric; the JSON export read back with them. */
TEST(cmdfig_from_a_history)
{
	struct run_record v[6];
	int set[6];
	char path[256], err[256];
	struct history_filter f = { .label = "base" };

	runs(v, set);
	tpath(path, sizeof(path), "own.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	for (int i = 0; i < 6; i++)
		CHECK_INT(history_add(h, &v[i], err, sizeof(err)), 0);
	struct run_source *a = run_source_array(v, 3, err, sizeof(err));
	struct run_source *b = run_source_history(h, &f, err, sizeof(err));
	char *ta = stats_text(a, false), *tb = stats_text(b, false);
	CHECK_STR(tb, ta);
	free(ta);
	free(tb);
	run_source_free(a);
	run_source_free(b);

	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct run_record *got;
	size_t n;
	f.label = "new";
	CHECK_INT(history_list(h, &f, HISTORY_METRICS, &got, &n, err, sizeof(err)), 0);
	CHECK_INT((long long)n, 3);
	for (size_t i = 0; i < n; i++)
		CHECK_INT(got[i].nmetrics, 2);
	CHECK(n == 3 && isnan(got[0].metrics[0].value) && got[2].metrics[0].value == 85);
	export_json(out, got, n);
	fclose(out);
	CHECK(strstr(buf, "\"metrics\": [{\"name\": \"tput\", \"value\": null, \"better\": \"higher\"}"));
	run_records_free(got, n);
	history_close(h);
	rm_db(path);

	struct import_runs back = { 0 };
	struct import_sink sink = { .run = import_collect, .arg = &back };
	CHECK_INT(import_json(buf, &sink, err, sizeof(err)), 0);
	CHECK_INT((long long)back.n, 3);
	double sum = 0;
	for (size_t i = 0; i < back.n; i++) {
		const struct run_record *r = &back.runs[i];

		CHECK(r->nmetrics == 2 && r->metrics[0].higher && !r->metrics[1].higher);
		if (r->nmetrics == 2)
			sum += (isnan(r->metrics[0].value) ? 1000 : r->metrics[0].value) +
			       r->metrics[1].value;
	}
	CHECK_NEAR(sum, 85 + 85.4 + 1000 + 12 + 12.5 + 11.5, 1e-9);
	run_records_free(back.runs, back.n);
	/* a name --metric would refuse is refused on import */
	char *bad = strstr(buf, "\"name\": \"tput\"");
	if (bad)
		memcpy(bad, "\"name\": \"wall\"", 14);
	back = (struct import_runs){ 0 };
	CHECK_INT(import_json(buf, &sink, err, sizeof(err)), -1);
	CHECK(strstr(err, "metric 0: bad \"name\""));
	run_records_free(back.runs, back.n);
	free(buf);
	for (int i = 0; i < 6; i++)
		run_record_clear(&v[i]);
}
