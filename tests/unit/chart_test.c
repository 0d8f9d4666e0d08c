#include <stdlib.h>

#include "chart.h"
#include "check.h"
#include "fmt.h"
#include "record_fixture.h"

TEST(chart_series_names_and_refusals)
{
	struct chart_spec s;
	char err[256];

	CHECK_INT(chart_parse_series(CHART_DEFAULT_SERIES, &s, err, sizeof(err)), 0);
	CHECK_INT(s.nseries, 4);
	CHECK_INT(s.series[0], M_SWAP_USED);
	CHECK_INT(s.series[3], M_KSWAPD_CPU);
	CHECK_INT(chart_parse_series("kswapd-cpu,available", &s, err, sizeof(err)), 0);
	CHECK_INT(s.nseries, 2);
	CHECK_INT(s.series[1], M_AVAIL);
	CHECK_INT(chart_parse_series("swap-used,bogus", &s, err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown series \"bogus\""));
	CHECK_INT(chart_parse_series("free,free", &s, err, sizeof(err)), -1);
	CHECK_STR(err, "--series: free given twice");
	CHECK_INT(chart_parse_series("", &s, err, sizeof(err)), -1);
	CHECK_INT(chart_parse_series("t", &s, err, sizeof(err)), -1);
}

TEST(chart_ticks_are_1_2_5)
{
	double top;

	CHECK_NEAR(chart_ticks(37, 5, &top), 10, 1e-9);
	CHECK_NEAR(top, 40, 1e-9);
	CHECK_NEAR(chart_ticks(2700, 5, &top), 1000, 1e-9);
	CHECK_NEAR(top, 3000, 1e-9);
	CHECK_NEAR(chart_ticks(16.7, 8, &top), 5, 1e-9);
	CHECK_NEAR(top, 20, 1e-9);
	CHECK_NEAR(chart_ticks(0.3, 5, &top), 0.1, 1e-9);
	CHECK_NEAR(top, 0.3, 1e-9);
	chart_ticks(0, 5, &top);
	CHECK_NEAR(top, 1, 1e-9);
	chart_ticks(NAN, 5, &top);
	CHECK_NEAR(top, 1, 1e-9);
	/* exactly on a step: no extra step */
	chart_ticks(100, 5, &top);
	CHECK_NEAR(top, 100, 1e-9);
}

TEST(chart_units_and_tick_text)
{
	const char *u;
	char buf[32];

	CHECK_NEAR(chart_unit(M_SWAP_USED, 2 * 1048576.0, &u), 1048576, 0);
	CHECK_STR(u, "GiB");
	CHECK_NEAR(chart_unit(M_FREE, 5000, &u), 1024, 0);
	CHECK_STR(u, "MiB");
	CHECK_NEAR(chart_unit(M_FREE, 500, &u), 1, 0);
	CHECK_STR(u, "KiB");
	CHECK_NEAR(chart_unit(M_MAJFLT, 5e6, &u), 1, 0);
	CHECK_STR(u, "faults/s");
	CHECK_NEAR(chart_unit(M_KSWAPD_CPU, 50, &u), 1, 0);
	CHECK_STR(u, "% of a CPU");
	chart_tick_text(buf, sizeof(buf), 0);
	CHECK_STR(buf, "0");
	chart_tick_text(buf, sizeof(buf), 2.5);
	CHECK_STR(buf, "2.5");
	chart_tick_text(buf, sizeof(buf), 3000);
	CHECK_STR(buf, "3000");
	chart_tick_text(buf, sizeof(buf), 40000);
	CHECK_STR(buf, "40k");
	chart_tick_text(buf, sizeof(buf), 1.5e6);
	CHECK_STR(buf, "1.5M");
	chart_tick_text(buf, sizeof(buf), 5.551115123125783e-17);
	CHECK_STR(buf, "0");
}

static char *capture(int (*fn)(FILE *, const struct run_record *, size_t,
			       const struct chart_spec *),
		     const struct run_record *r, size_t n, const struct chart_spec *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	CHECK_INT(fn(f, r, n, s), 0);
	fclose(f);
	return text;
}

static void fixture(struct run_record *r, int64_t id, const char *label, int npoints)
{
	fixture_record(r);
	r->id = id;
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->kernel_release, sizeof(r->kernel_release), "2.4.14-pre8");
	snprintf(r->started_at, sizeof(r->started_at), "2001-11-04T14:11:00Z");
	r->minflt = 0;
	r->oublock = 0;
	r->kswapd_s = 1.5;
	CHECK_INT(run_record_alloc_series(r, npoints), 0);
	double *sw = run_record_add_series(r, M_SWAP_USED);
	double *mf = run_record_add_series(r, M_MAJFLT);
	CHECK(sw && mf);
	for (int k = 0; sw && mf && k < npoints; k++) {
		r->t[k] = k;
		sw[k] = k * 1024 * 10;
		mf[k] = k == 2 ? NAN : k * 100;
	}
	r->changes = calloc(1, sizeof(*r->changes));
	r->nchanges = 1;
	r->changes[0].t_s = 2.5;
	snprintf(r->changes[0].name, sizeof(r->changes[0].name), "vm.swappiness");
	snprintf(r->changes[0].old_val, sizeof(r->changes[0].old_val), "60");
	snprintf(r->changes[0].new_val, sizeof(r->changes[0].new_val), "100");
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

TEST(chart_svg_runs_markers_caption)
{
	struct run_record r[2];
	struct chart_spec s;
	char err[128];

	fixture(&r[0], 3, "pre8 & <swap>", 5);
	fixture(&r[1], 4, "pre7", 4);
	CHECK_INT(chart_parse_series("swap-used,majflt", &s, err, sizeof(err)), 0);
	char *svg = capture(chart_svg, r, 2, &s);
	CHECK(svg);
	if (!svg)
		return;
	CHECK(strstr(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ") == svg);
	CHECK(strstr(svg, "</svg>\n"));
	CHECK(strstr(svg, "thrashtop: runs #3, #4"));
	CHECK(strstr(svg, "#3 pre8 &amp; &lt;swap&gt; (2.4.14-pre8 on lenstra, 2001-11-04T14:11:00Z)"));
	CHECK(!strstr(svg, "<swap>"));
	CHECK(strstr(svg, "swap used (MiB)"));
	CHECK(strstr(svg, "major faults (faults/s)"));
	CHECK(strstr(svg, "seconds since the run started"));
	/* one line per run per panel; the NAN gap starts a new segment */
	CHECK_INT(count(svg, "<path "), 4);
	CHECK(strstr(svg, " L"));
	/* the marker in both panels, its text in the first only */
	CHECK_INT(count(svg, "stroke-dasharray"), 4);
	CHECK_INT(count(svg, "vm.swappiness 60\xe2\x86\x92" "100"), 2);
	CHECK_INT(count(svg, "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w  0:01 kswapd"), 2);
	free(svg);

	char *gp = capture(chart_gnuplot, r, 2, &s);
	CHECK(gp);
	if (gp) {
		CHECK(strstr(gp, "$run3 << EOD\n# t_s swap-used_MiB majflt_faults/s\n0.000 0 0\n"));
		CHECK(strstr(gp, "2.000 20 NaN\n"));
		CHECK_INT(count(gp, "EOD\n"), 4);
		CHECK(strstr(gp, "set multiplot layout 2,1 title \"#3: 70.270u"));
		CHECK(strstr(gp, "kswapd\\n#4: "));
		CHECK(strstr(gp, "set arrow from 2.500, graph 0 to 2.500, graph 1 nohead"));
		CHECK(strstr(gp, "set label \"vm.swappiness 60->100\" at 2.500"));
		CHECK(strstr(gp, "title \"#3 pre8 & <swap> (2.4.14-pre8"));
		CHECK(strstr(gp, "unset multiplot\n"));
		free(gp);
	}
	run_record_clear(&r[0]);
	run_record_clear(&r[1]);
}

/* Whether s is UTF-8 throughout (controls allowed). */
static bool utf8_whole(const char *s)
{
	unsigned cp;

	for (int k; *s; s += k)
		if (!(k = (unsigned char)*s < 0x80 ? 1 : fmt_utf8_len(s, &cp)))
			return false;
	return true;
}

/* A label of 200 wide characters (600 bytes): the title cuts it between
 * characters to 60 columns with a mark, in both writers. */
TEST(chart_title_cuts_a_long_label)
{
	char label[801] = "", want[128] = "#5 ";
	struct run_record r;
	struct chart_spec s;
	char err[128];

	for (int k = 0; k < 200; k++)
		strcat(label, "\xe6\x97\xa5");
	for (int k = 0; k < 28; k++)	/* 56 columns, then "...", 59 */
		strcat(want, "\xe6\x97\xa5");
	strcat(want, "... (2.4.14-pre8 on lenstra");
	fixture(&r, 5, label, 4);
	CHECK_INT(chart_parse_series("swap-used", &s, err, sizeof(err)), 0);
	char *svg = capture(chart_svg, &r, 1, &s);
	CHECK(svg && utf8_whole(svg) && strstr(svg, want));
	free(svg);
	char *gp = capture(chart_gnuplot, &r, 1, &s);
	CHECK(gp && utf8_whole(gp) && strstr(gp, want));
	free(gp);
	run_record_clear(&r);
}
