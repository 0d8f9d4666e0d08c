#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "cast.h"
#include "check.h"
#include "monscreen.h"
#include "monview.h"
#include "replay.h"
#include "sampler.h"
#include "series.h"
#include "tui.h"

static int cols_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* A model with nw workers, nd completed runs and the default plots (with
 * cg, the cgroup's too); tuning as given. Only what ms_layout reads. */
static struct series dummy;

static struct ms_model model(int nw, int nd, bool cg, const char *tuning)
{
	struct ms_model m = { .nworkers = nw, .ndone = nd, .interval = 0.5,
			      .workload = "qsbench -n 30000000 -p 2 -s 1",
			      .tuning = tuning };
	int ids[M_N];

	m.nplots = metrics_default_plots(cg, MC_NONE, ids);
	for (int i = 0; i < m.nplots; i++)
		m.plot[i] = (struct ms_plot){ .id = ids[i], .s = &dummy };
	return m;
}

static void layout(int cols, int rows, int nw, int nd, bool cg,
		   const char *tuning, struct ms_layout *l)
{
	struct ms_model m = model(nw, nd, cg, tuning);

	ms_layout(cols, rows, &m, l);
}

#define CHECK_RECT(r, y_, x_, h_, w_) do { \
	CHECK_INT((r).y, y_); CHECK_INT((r).x, x_); \
	CHECK_INT((r).h, h_); CHECK_INT((r).w, w_); } while (0)

/* The ten default plots in two columns, five rows of 2-row graphs; the 8
 * workers get the 2 rows of the minimum and the last run its line. */
TEST(ms_layout_80x24)
{
	struct ms_layout l;
	struct ms_model m = model(2, 0, false, NULL);

	layout(80, 24, 8, 2, false, NULL, &l);
	CHECK(!l.too_small);
	CHECK_INT(l.header.h, 3);
	CHECK_INT(l.plot_cols, 2);
	CHECK_INT(l.plots_hidden, 0);
	CHECK_RECT(l.plot[0], 3, 0, 3, 39);	/* swap used */
	CHECK_RECT(l.plot[1], 3, 40, 3, 40);	/* major faults */
	CHECK_INT(l.plot[2].y, 6);
	CHECK_RECT(l.plot[9], 15, 40, 3, 40);	/* PSI full */
	CHECK_RECT(l.workers, 18, 0, 4, 80);
	CHECK_INT(l.worker_rows, 2);
	CHECK(l.worker_more);
	CHECK_RECT(l.runs, 22, 0, 2, 80);
	CHECK_INT(l.runs_rows, 1);

	/* three plots chosen: two rows, and the rows left grow them */
	m.nplots = 3;
	ms_layout(80, 24, &m, &l);
	CHECK_INT(l.plot_cols, 2);
	CHECK_RECT(l.plot[0], 3, 0, 9, 39);
	CHECK_RECT(l.plot[2], 12, 0, 9, 39);
	CHECK_INT(l.plot[3].h, 0);
	CHECK_RECT(l.workers, 21, 0, 3, 80);
	/* one plot takes the whole width */
	m.nplots = 1;
	ms_layout(80, 24, &m, &l);
	CHECK_INT(l.plot_cols, 1);
	CHECK_INT(l.plot[0].w, 80);
	/* none: the workers have the screen */
	m.nplots = 0;
	ms_layout(80, 24, &m, &l);
	CHECK_INT(l.workers.y, 3);
	CHECK_INT(l.plots_hidden, 0);
}

/* --mem 128M --swap 512M -p 2 at 80x24, one run done: twelve plots in
 * three 26-column columns, each cgroup plot beside its system one; the
 * tuning needs 100 columns on line 1, so it takes the fourth header row. */
TEST(ms_layout_cgroup_80x24)
{
	struct ms_layout l;

	layout(80, 24, 2, 1, true, "mem 128M, swap +512M", &l);
	CHECK(!l.too_small);
	CHECK_RECT(l.header, 0, 0, 4, 80);
	CHECK_INT(l.plot_cols, 3);
	CHECK_RECT(l.plot[0], 4, 0, 3, 26);	/* swap used */
	CHECK_RECT(l.plot[1], 4, 27, 3, 26);	/* cgroup swap */
	CHECK_RECT(l.plot[2], 4, 54, 3, 26);	/* kswapd CPU */
	CHECK_RECT(l.plot[11], 13, 54, 3, 26);	/* PSI some */
	CHECK_RECT(l.workers, 16, 0, 3, 80);
	CHECK_RECT(l.runs, 19, 0, 2, 80);
	CHECK_INT(l.plots_hidden, 0);
}

/* 200x60: ten plots stay in two columns of 99 and 100 (three would leave
 * two cells empty); twelve with a cgroup fill three of 66. */
TEST(ms_layout_200x60)
{
	struct ms_layout l;
	struct ms_model m = model(2, 1, false, NULL);

	layout(200, 60, 2, 1, false, "mem 128M, swap +512M", &l);
	CHECK_INT(l.plot_cols, 2);
	CHECK_RECT(l.plot[0], 3, 0, 10, 99);
	CHECK_RECT(l.plot[1], 3, 100, 10, 100);
	CHECK_RECT(l.plot[9], 43, 100, 10, 100);
	layout(200, 60, 2, 1, true, "mem 128M, swap +512M", &l);
	CHECK_INT(l.plot_cols, 3);
	CHECK_RECT(l.plot[0], 3, 0, 13, 66);
	CHECK_RECT(l.plot[11], 42, 134, 13, 66);
	CHECK_RECT(l.workers, 55, 0, 3, 200);
	/* nine plots on a wide screen: three rows of three */
	m.nplots = 9;
	ms_layout(200, 60, &m, &l);
	CHECK_INT(l.plot_cols, 3);
	/* a tuning too long for line 1 (178 columns) gets its own line */
	layout(160, 50, 2, 1, false, "mem 128M, swap +512M, global 4.0G, "
	       "vm.swappiness=100, vm.page-cluster=0, vm.watermark_scale_factor=200", &l);
	CHECK_INT(l.header.h, 4);
	CHECK_INT(l.plot[0].y, 4);
}

/* Counts what breaks the tiling: rows of plots stacked under the header,
 * columns one apart and flush right, equal widths but for the last
 * (wider by less than the number of columns), hidden plots empty and
 * counted. */
static int tiling_faults(const struct ms_layout *l, const struct ms_model *m, int c)
{
	int n = l->plot_cols, shown = m->nplots - l->plots_hidden, bad = 0;
	int y = l->header.h, h = shown ? l->plot[0].h : 0;

	bad += l->header.y != 0 || l->header.h < 3 || l->header.h > 4;
	bad += shown < 0 || (m->nplots && n < 1);
	for (int i = 0; i < shown; i++) {
		const struct ms_rect *p = &l->plot[i];
		int k = i % n;

		bad += p->y != y + i / n * h || p->h != h || h < 3;
		bad += k == 0 ? p->x != 0 : p->x != l->plot[i - 1].x + l->plot[i - 1].w + 1;
		bad += k < n - 1 ? p->w != l->plot[0].w :
		       p->x + p->w != c || p->w - l->plot[0].w >= n;
	}
	for (int i = shown; i < m->nplots; i++)
		bad += l->plot[i].h != 0;
	bad += y + (shown + n - 1) / (n ? n : 1) * h != l->workers.y;
	return bad;
}

TEST(ms_layout_panels_fit_every_size)
{
	static const char *const tun[] = { NULL, "mem 128M, swap +512M" };
	struct ms_layout l;
	int bad = 0, tuned = 0, hidden = 0;

	for (int c = TUI_MIN_COLS; c <= 260; c += 7)
		for (int r = TUI_MIN_ROWS; r <= 90; r++)
			for (int nw = 0; nw <= 70; nw += 3)
				for (int nd = 0; nd <= 12; nd += 4)
					for (int v = 0; v < 8; v++) {
						bool cg = v & 1;
						const char *t = tun[(v >> 1) & 1];
						struct ms_model m = model(nw, nd, cg, t);
						int few;

						if (v & 4)	/* every series */
							for (m.nplots = 0; m.nplots < M_N; m.nplots++)
								m.plot[m.nplots] = (struct ms_plot){
									.id = m.nplots, .s = &dummy };
						ms_layout(c, r, &m, &l);
						bad += l.too_small;
						bad += tiling_faults(&l, &m, c);
						bad += l.workers.y + l.workers.h != l.runs.y;
						bad += l.runs.y + l.runs.h > r;
						bad += l.worker_rows < (nw < 2 ? nw : 2);
						bad += l.worker_more != (l.worker_rows < nw);
						bad += l.workers.h != (nw ? 1 + l.worker_rows +
								      l.worker_more : 0);
						/* a line for the tuning only when
						 * there is one too long for line 1 */
						bad += l.header.h == 4 && (!t || c >= 100);
						tuned += l.header.h == 4;
						hidden += l.plots_hidden > 0;
						/* the default plots all show from 24
						 * rows up, with 2 workers */
						few = 2;
						if (r >= 24 && !(v & 4)) {
							bad += l.plots_hidden != 0;
							bad += l.worker_rows < (nw < few ? nw : few);
						}
					}
	CHECK_INT(bad, 0);
	CHECK(tuned > 1000);
	CHECK(hidden > 1000);
}

TEST(ms_layout_minimum_and_too_small)
{
	struct ms_layout l;

	layout(59, 24, 1, 0, false, NULL, &l);
	CHECK(l.too_small);
	layout(80, 15, 1, 0, false, NULL, &l);
	CHECK(l.too_small);
	/* 60x16: three rows of plots fit, the other four are counted */
	layout(60, 16, 8, 1, false, NULL, &l);
	CHECK(!l.too_small);
	CHECK_INT(l.plot[4].y, 9);
	CHECK_INT(l.plot[4].h, 3);	/* title + 2 graph rows */
	CHECK_INT(l.plot[6].h, 0);
	CHECK_INT(l.plots_hidden, 4);
	CHECK_INT(l.worker_rows, 2);
	CHECK(l.worker_more);
	CHECK_INT(l.workers.y + l.workers.h, 16);
	CHECK_INT(l.runs_rows, 0);
	/* no row for the tuning at the minimum: it stays on line 1 */
	layout(60, 16, 8, 1, true, "mem 128M, swap +512M", &l);
	CHECK_INT(l.header.h, 3);
	CHECK_RECT(l.plot[7], 9, 20, 3, 19);	/* cgroup memory */
	CHECK_RECT(l.plot[8], 9, 40, 3, 20);	/* free */
	CHECK_INT(l.plots_hidden, 3);
}

/* A series holding the given values, one a second. */
static void fill(struct series *s, const double *v, int n)
{
	series_init(s, 64);
	for (int i = 0; i < n; i++)
		series_push(s, i, v[i]);
}

/* --mem 128M --swap 512M as the monitor showed it at 80x24: 26-column
 * titles shortened step by step, the swap plots on one scale, the fault
 * plots sharing an auto scale. */
TEST(ms_format_title_cgroup_26)
{
	struct series sw, cgsw, maj, cgmaj, cgmem;
	const double swv[] = { 0, 102400, 232448 }, cgswv[] = { 0, 51200, 104448 };
	const double majv[] = { 0, 1500, 934 }, cgmajv[] = { 0, 2500, NAN };
	const double memv[] = { 65536, 130048, 131000 };
	struct ms_model m = { 0 };
	char b[256];

	fill(&sw, swv, 3);
	fill(&cgsw, cgswv, 3);
	fill(&maj, majv, 3);
	fill(&cgmaj, cgmajv, 3);
	fill(&cgmem, memv, 3);
	m.plot[0] = (struct ms_plot){ .id = M_SWAP_USED, .s = &sw, .scale = 524284 };
	m.plot[1] = (struct ms_plot){ .id = M_MAJFLT, .s = &maj };
	m.nplots = 2;
	/* alone: the long names, and the faults' own scale */
	CHECK_STR(ms_format_title(&m, 0, 39, PLOT_BRAILLE, b, sizeof(b)),
		  "swap used 227M (44%)            0..512M");
	CHECK_STR(ms_format_title(&m, 1, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "major faults 934/s               0..2k/s");

	m.plot[2] = (struct ms_plot){ .id = M_CG_SWAP, .s = &cgsw, .scale = 524284 };
	m.plot[3] = (struct ms_plot){ .id = M_CG_MAJFLT, .s = &cgmaj,
						      .extra = "refaults 1.6k/s" };
	m.plot[4] = (struct ms_plot){ .id = M_CG_MEM, .s = &cgmem, .scale = 131072,
						   .extra = "failcnt 1.7k/s" };
	m.nplots = 5;
	CHECK(ms_cgroup_shown(&m));
	CHECK_STR(ms_format_title(&m, 0, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "sys swap 227M 44%  0..512M");
	CHECK_STR(ms_format_title(&m, 2, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg swap 102M (19%) 0..512M");
	/* both fault plots top out at the nice maximum of both: 2500 -> 5k */
	CHECK_STR(ms_format_title(&m, 1, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934/s   0..5k/s");
	/* a gap is n/a, never 0 */
	CHECK_STR(ms_format_title(&m, 3, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg majflt n/a      0..5k/s");
	/* 131000 KiB of a 128 MiB limit is 99.9%: shown as 99% */
	CHECK_STR(ms_format_title(&m, 4, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg mem 128M (99%)  0..128M");
	/* wide: long names, "(system)", the extra text */
	CHECK_STR(ms_format_title(&m, 4, 66, PLOT_BRAILLE, b, sizeof(b)),
		  "cgroup memory 128M (99%)  failcnt 1.7k/s                   0..128M");
	CHECK_STR(ms_format_title(&m, 1, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "major faults (system) 934/s      0..5k/s");
	/* the workers' stalls and the zram device's figures are not the
	 * system's, beside the cgroup's plots or not */
	for (int id = 0; id < M_N; id++) {
		int was = m.plot[1].id;

		if (strcmp(metric_scope(id), "workers") && strcmp(metric_scope(id), "zram"))
			continue;
		m.plot[1].id = id;
		ms_format_title(&m, 1, 60, PLOT_BRAILLE, b, sizeof(b));
		if (strstr(b, "(system)"))
			t_fail(__FILE__, __LINE__, "%s titled \"%s\"", metric_def(id)->name, b);
		ms_format_title(&m, 1, 12, PLOT_BRAILLE, b, sizeof(b));
		if (!strncmp(b, "sys ", 4))
			t_fail(__FILE__, __LINE__, "%s titled \"%s\"", metric_def(id)->name, b);
		m.plot[1].id = was;
	}
	/* the long name gives way before the extra, which goes next */
	CHECK_STR(ms_format_title(&m, 4, 41, PLOT_BRAILLE, b, sizeof(b)),
		  "cg mem 128M (99%)  failcnt 1.7k/s 0..128M");
	CHECK_STR(ms_format_title(&m, 4, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "cgroup memory 128M (99%)         0..128M");
	/* the narrowest screen: compact values beside the scale; without
	 * it, the value with its unit again, compact only as the last resort */
	CHECK_STR(ms_format_title(&m, 1, 22, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934 0..5k/s");
	CHECK_STR(ms_format_title(&m, 1, 19, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934/s   ");
	CHECK_STR(ms_format_title(&m, 1, 15, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934 ");
	CHECK_STR(ms_format_title(&m, 0, 19, PLOT_BRAILLE, b, sizeof(b)),
		  "sys swap 227M (44%)");
	CHECK_STR(ms_format_title(&m, 0, 18, PLOT_BRAILLE, b, sizeof(b)),
		  "sys swap 227M 44% ");
	/* under 1% but not empty: "<1%", never "0%" */
	const double tiny[] = { 0, 0, 3000 }, none[] = { 0, 0, 0 };
	struct series t0, t1;
	fill(&t0, tiny, 3);
	fill(&t1, none, 3);
	m.plot[2].s = &t0;
	CHECK_STR(ms_format_title(&m, 2, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg swap 2.9M (<1%) 0..512M");
	m.plot[2].s = &t1;
	CHECK_STR(ms_format_title(&m, 2, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg swap 0K (0%)    0..512M");
	m.plot[2].s = &cgsw;
	series_free(&t0);
	series_free(&t1);
	/* a plot that cannot be read has no scale */
	m.plot[2].na = "swap not accounted (n/a)";
	CHECK_STR(ms_format_title(&m, 2, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cgroup swap n/a           ");
	series_free(&sw);
	series_free(&cgsw);
	series_free(&maj);
	series_free(&cgmaj);
	series_free(&cgmem);
}

/* Scale groups: scan kswapd and direct share an auto scale, so the
 * smaller reads against the larger; a share tops out at 100%; a stored
 * run's trace counts toward its plot's scale; tasks are counts. */
TEST(ms_format_title_groups_and_units)
{
	struct series k, d, psi, run, old;
	const double kv[] = { 0, 30000, 41000 }, dv[] = { 0, 1200, 900 };
	const double pv[] = { 2, 97.5, 99 }, rv[] = { 1, 3, 4 }, ov[] = { 0, 5000, 180000 };
	struct ms_model m = { 0 };
	char b[256];

	fill(&k, kv, 3);
	fill(&d, dv, 3);
	fill(&psi, pv, 3);
	fill(&run, rv, 3);
	fill(&old, ov, 3);
	m.plot[0] = (struct ms_plot){ .id = M_SCAN_KSWAPD, .s = &k };
	m.plot[1] = (struct ms_plot){ .id = M_SCAN_DIRECT, .s = &d };
	m.plot[2] = (struct ms_plot){ .id = M_PSI_SOME, .s = &psi };
	m.plot[3] = (struct ms_plot){ .id = M_PROCS_RUNNING, .s = &run };
	m.nplots = 4;
	CHECK_STR(ms_format_title(&m, 1, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "scan direct 900/s               0..50k/s");
	CHECK_STR(ms_format_title(&m, 2, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "PSI some avg10 99.0%             0..100%");
	CHECK_STR(ms_format_title(&m, 3, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "running 4                           0..5");
	/* alone, direct scanning gets its own scale */
	m.plot[0] = m.plot[1];
	m.nplots = 1;
	CHECK_STR(ms_format_title(&m, 0, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "scan direct 900/s                0..2k/s");
	m.plot[0].against = &old;
	CHECK_STR(ms_format_title(&m, 0, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "scan direct 900/s              0..200k/s");
	series_free(&k);
	series_free(&d);
	series_free(&psi);
	series_free(&run);
	series_free(&old);
}

TEST(ms_format_bar_ascii_and_eighths)
{
	char b[64];

	CHECK_STR(ms_format_bar(0.5, 12, false, b, sizeof(b)), "[#####     ]");
	CHECK_STR(ms_format_bar(0.27, 12, false, b, sizeof(b)), "[##        ]");
	/* 0.27 of 80 eighths is 21.6: two full cells and five eighths */
	CHECK_STR(ms_format_bar(0.27, 12, true, b, sizeof(b)),
		  "[\u2588\u2588\u258B       ]");
	CHECK_STR(ms_format_bar(0.01, 6, true, b, sizeof(b)), "[    ]");
	CHECK_STR(ms_format_bar(1.7, 6, true, b, sizeof(b)),
		  "[\u2588\u2588\u2588\u2588]");
	CHECK_STR(ms_format_bar(NAN, 4, false, b, sizeof(b)), "[  ]");
}

TEST(ms_format_worker_rows_80)
{
	char b[512];
	struct ms_worker w = { .pid = 22402, .phase = "sort", .frac = 0.27,
			       .state = 'D', .cpu_s = 25, .majflt = 39340,
			       .minflt = 900958, .rss_kib = 349184,
			       .swap_kib = 23552, .end = END_RUNNING };

	CHECK_STR(ms_format_worker(NULL, 80, true, b, sizeof(b)),
		  "    PID S PHASE  PROGRESS                      CPU  MAJFLT  MINFLT    RSS   SWAP");
	CHECK_STR(ms_format_worker(&w, 80, false, b, sizeof(b)),
		  "  22402 D sort   [####             ]  27%  0:25.00   39340  900958   341M    23M");
	CHECK_INT(cols_of(ms_format_worker(&w, 80, true, b, sizeof(b))), 80);
	w.frac = 0.9999;	/* not done until it is */
	CHECK(strstr(ms_format_worker(&w, 80, false, b, sizeof(b)), " 99%"));
	w.end = END_OOM;
	w.state = 0;
	w.majflt = NA;
	w.swap_kib = NA;
	w.minflt = 10400000;
	CHECK_STR(ms_format_worker(&w, 80, true, b, sizeof(b)),
		  "  22402 - sort   OOM killed                0:25.00     n/a   10.4M   341M    n/a");
	w.end = END_SIGNAL;
	w.code = 11;
	CHECK(strstr(ms_format_worker(&w, 80, true, b, sizeof(b)), " signal 11 "));
	w.end = END_RUNNING;	/* state not read yet */
	CHECK(strstr(ms_format_worker(&w, 80, true, b, sizeof(b)), "  22402 ? sort "));
	w.end = END_SIGNAL;
	w.end = END_EXIT;
	w.code = 3;
	CHECK(strstr(ms_format_worker(&w, 80, true, b, sizeof(b)), " exit 3 "));
	w.end = END_VERIFY;
	CHECK(strstr(ms_format_worker(&w, 80, true, b, sizeof(b)), " verify failed "));
}

TEST(ms_format_worker_command_and_narrow)
{
	char b[512];
	struct ms_worker w = { .pid = 7, .phase = NULL, .elapsed = 83.4,
			       .state = 'S', .cpu_s = NAN, .majflt = 1,
			       .minflt = 2, .rss_kib = 1024, .swap_kib = 0 };

	CHECK(strstr(ms_format_worker(&w, 80, true, b, sizeof(b)),
		     "      7 S cmd    running 1:23.40  "));
	CHECK(strstr(b, "     n/a       1       2   1.0M     0K"));
	/* at 60 columns MINFLT and RSS give way to the progress field */
	CHECK_STR(ms_format_worker(NULL, 60, true, b, sizeof(b)),
		  "    PID S PHASE  PROGRESS                 CPU  MAJFLT   SWAP");
	CHECK_INT(cols_of(ms_format_worker(&w, 60, true, b, sizeof(b))), 60);
	/* wide screens cap the bar and pad the row */
	CHECK_INT(cols_of(ms_format_worker(&w, 200, true, b, sizeof(b))), 200);
}

TEST(ms_keys_without_terminal)
{
	struct ms_model m = { .nworkers = 0 };
	const struct tui_key *k = monview_keys;
	int n = monview_nkeys;

	tui_end();	/* before tui_init: a no-op */
	CHECK_INT(tui_key_action(k, n, 'q'), MV_QUIT);
	CHECK_INT(tui_key_action(k, n, 'R'), MV_RERUN);
	CHECK_INT(tui_key_action(k, n, '+'), MV_SLOWER);
	CHECK_INT(tui_key_action(k, n, '-'), MV_FASTER);
	CHECK_INT(tui_key_action(k, n, 'x'), 0);
	CHECK_INT(tui_key_action(k, n, ' '), MS_PAUSE);
	ms_do(&m, MS_PAUSE);
	CHECK(m.paused);
	ms_do(&m, MS_PAUSE);
	CHECK(!m.paused);
	ms_do(&m, MS_HELP);
	CHECK(ms_help_shown());
	ms_do(&m, MS_HELP_CLOSE);
	CHECK(!ms_help_shown());
	ms_do(&m, MS_HELP_CLOSE);
	CHECK(!ms_help_shown());
	ms_do(&m, MS_RESIZE);
	CHECK_INT(tui_fd(), -1);
	CHECK(!tui_active());
	ms_end();
	tui_end();
}

/* Every key of a view's table does one thing, and the ? help is drawn
 * from the same rows: a line for each row with keys in its column. */
static void check_table(const char *name, const struct tui_key *t, int n, int nlines)
{
	char line[256];
	int lines = 0;

	for (int i = 0; i < n; i++) {
		if (t[i].keys) {
			lines++;
			tui_key_line(&t[i], line, sizeof(line));
			if (strncmp(line, t[i].keys, strlen(t[i].keys)) || !strstr(line, t[i].help))
				t_fail(__FILE__, __LINE__, "%s: help line \"%s\"", name, line);
		}
		if (!t[i].k[0].ch)
			t_fail(__FILE__, __LINE__, "%s: row %d binds no key", name, i);
		for (int j = 0; j < TUI_KEYS_PER_LINE && t[i].k[j].ch; j++) {
			int ch = t[i].k[j].ch;

			if (!t[i].k[j].action)
				t_fail(__FILE__, __LINE__, "%s: key %d does nothing", name, ch);
			for (int i2 = 0; i2 < n; i2++)
				for (int j2 = 0; j2 < TUI_KEYS_PER_LINE && t[i2].k[j2].ch; j2++)
					if (t[i2].k[j2].ch == ch && (i2 != i || j2 != j))
						t_fail(__FILE__, __LINE__, "%s: key %d bound twice",
						       name, ch);
		}
	}
	CHECK_INT(lines, nlines);
}

TEST(ms_key_tables_one_binding_each)
{
	char line[256];

	check_table("monitor", monview_keys, monview_nkeys, 15);
	check_table("replay", replay_keys, replay_nkeys, 10);
	CHECK_INT(tui_key_action(replay_keys, replay_nkeys, 'd'), MS_STALLS);
	CHECK_STR(tui_key_line(&monview_keys[0], line, sizeof(line)),
		  "q         quit (stops the workload)");
	CHECK_STR(tui_key_line(&replay_keys[2], line, sizeof(line)),
		  "Left/Right 10 s back / on");
	CHECK_STR(tui_key_line(&monview_keys[monview_nkeys - 1], line, sizeof(line)), "");
	CHECK_INT(tui_key_action(replay_keys, replay_nkeys, 27), VIEW_CLOSE);
	CHECK_INT(tui_key_action(replay_keys, replay_nkeys, KEY_NPAGE), MS_PGDN);
}

/* Without a terminal the scroll ops lay out 80x24. */
TEST(ms_scroll_clamps)
{
	struct ms_worker w[40] = { { 0 } };
	struct ms_model m = model(40, 0, false, NULL);
	struct ms_layout l;

	m.workers = w;
	layout(80, 24, 40, 0, false, NULL, &l);
	ms_do(&m, MS_HOME);
	CHECK_INT(ms_scroll(), 0);
	ms_do(&m, MS_UP);
	CHECK_INT(ms_scroll(), 0);
	ms_do(&m, MS_DOWN);
	CHECK_INT(ms_scroll(), 1);
	ms_do(&m, MS_PGDN);
	CHECK_INT(ms_scroll(), l.worker_rows);
	ms_do(&m, MS_END);
	CHECK_INT(ms_scroll(), 40 - l.worker_rows);
	ms_do(&m, MS_DOWN);
	CHECK_INT(ms_scroll(), 40 - l.worker_rows);
	m.nworkers = 3;		/* fewer workers than rows */
	ms_do(&m, MS_END);
	CHECK_INT(ms_scroll(), 0);
}

TEST(ms_format_worker_stall_columns)
{
	char b[512];
	struct ms_worker w = { .pid = 22402, .phase = "sort", .frac = 0.27,
			       .state = 'D', .cpu_s = 25, .end = END_RUNNING,
			       .stall_pct = { [DL_SWAPIN] = 0.3, [DL_RECLAIM] = 14.96,
					      [DL_THRASHING] = 5.5, [DL_COMPACT] = 0,
					      [DL_IO] = 100, [DL_CPU] = NAN } };

	CHECK_STR(ms_format_worker_stalls(NULL, 80, true, b, sizeof(b)),
		  "    PID S PHASE  PROGRESS            CPU  SWAPIN RECLAIM  THRASH      IO CPUWAIT");
	CHECK_STR(ms_format_worker_stalls(&w, 80, false, b, sizeof(b)),
		  "  22402 D sort   [#      ]  27%  0:25.00    0.3%   15.0%    5.5%  100.0%     n/a");
	for (int width = 60; width <= 200; width += 7)
		CHECK_INT(cols_of(ms_format_worker_stalls(&w, width, true, b, sizeof(b))), width);
	/* narrow: the last stalls give way, the progress keeps its room */
	CHECK_STR(ms_format_worker_stalls(NULL, 60, true, b, sizeof(b)),
		  "    PID S PHASE  PROGRESS        CPU  SWAPIN RECLAIM  THRASH");
}

/* The reclaim lane: right-aligned as the plots are, kswapd's bar where
 * it was awake, T where reclaim was throttled. */
TEST(monscreen_lane_on_the_plots_axis)
{
	struct series a, t;
	char buf[64];

	series_init(&a, 16);
	series_init(&t, 16);
	for (int i = 0; i < 6; i++) {
		series_push(&a, i, i >= 2 && i <= 3 ? 50 : 0);
		series_push(&t, i, i == 5 ? 1 : NAN);
	}
	/* 8 columns, one sample each: the 6 samples fill the last 6 */
	CHECK_STR(ms_format_lane(&a, &t, NULL, 0, 8, 1, false, buf, sizeof(buf)), "    == T");
	/* 3 columns of two samples: the last 6 */
	CHECK_STR(ms_format_lane(&a, &t, NULL, 0, 3, 2, false, buf, sizeof(buf)), " =T");
	CHECK_STR(ms_format_lane(&a, NULL, NULL, 0, 3, 2, true, buf, sizeof(buf)), " \u2501 ");
	CHECK_STR(ms_format_lane(NULL, NULL, NULL, 0, 2, 1, true, buf, sizeof(buf)), "  ");
	series_free(&a);
	series_free(&t);
}

/* An OOM kill is a K in the column of the first sample taken after it,
 * over the throttling mark and kswapd's bar there; a kill before the
 * samples kept or after the newest is not drawn. */
TEST(monscreen_lane_oom_kills)
{
	struct series a, t;
	const double kills[] = { -1, 1.5, 3.0, 5.2, 7.5 };
	char buf[64];

	series_init(&a, 16);
	series_init(&t, 16);
	for (int i = 0; i < 8; i++) {
		series_push(&a, i, i >= 1 && i <= 5 ? 100 : 0);
		series_push(&t, i, i == 3 || i == 7 ? 2 : 0);
	}
	/* one sample a column: K over the bar at 2, over T at 3 */
	CHECK_STR(ms_format_lane(&a, &t, kills, 5, 8, 1, false, buf, sizeof(buf)), " =KK==KT");
	CHECK_STR(ms_format_lane(&a, &t, kills, 5, 8, 1, true, buf, sizeof(buf)),
		  " \u2501KK\u2501\u2501KT");
	/* two a column: a kill before either sample marks it */
	CHECK_STR(ms_format_lane(&a, &t, kills, 5, 4, 2, false, buf, sizeof(buf)), "=K=K");
	/* a lane wider than the samples: they fill its right end */
	CHECK_STR(ms_format_lane(&a, NULL, kills, 5, 10, 1, false, buf, sizeof(buf)), "   =KK==K ");
	/* a window of the last 4: the kills before it are not drawn */
	CHECK_STR(ms_format_lane(&a, NULL, kills, 5, 2, 2, false, buf, sizeof(buf)), "=K");
	/* no samples, no time axis */
	CHECK_STR(ms_format_lane(NULL, NULL, kills, 5, 3, 1, false, buf, sizeof(buf)), "   ");
	series_free(&a);
	series_free(&t);
}

/* The lane takes one row under the plots, before the workers, when there
 * are reclaim events; none without. */
TEST(monscreen_layout_lane_under_plots)
{
	struct ms_model m = model(2, 0, false, NULL);
	struct ms_layout l, without;

	ms_layout(100, 40, &m, &without);
	CHECK_INT(without.lane.h, 0);
	m.lane_awake = &dummy;
	ms_layout(100, 40, &m, &l);
	CHECK_INT(l.lane.h, 1);
	CHECK_INT(l.lane.w, 100);
	CHECK_INT(l.lane.y, l.plot[m.nplots - 1].y + l.plot[m.nplots - 1].h);
	CHECK_INT(l.workers.y, l.lane.y + 1);
}

/* ---- frames drawn by what changed, against frames drawn whole ---- */

#define FR_N 160
#define FR_COLS 120
#define FR_ROWS 36

struct fr_cell {
	wchar_t ch;
	attr_t attr;
	short pair;
};

/* What the screen holds: each cell's character, attributes and colour. */
static void fr_grab(struct fr_cell *out)
{
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++) {
			cchar_t c;
			wchar_t w[CCHARW_MAX + 1] = { 0 };
			struct fr_cell *o = &out[y * FR_COLS + x];

			mvin_wch(y, x, &c);
			getcchar(&c, w, &o->attr, &o->pair, NULL);
			o->ch = w[0];
		}
}

static unsigned fr_rnd;

static double fr_next(void)
{
	fr_rnd = fr_rnd * 1103515245 + 12345;
	return (double)(fr_rnd >> 16 & 0x7FFF) / 32768.0;
}

/* FR_N frames of a model whose plots scroll (gaps, auto scales shared
 * and changing, a stored run's trace behind one, sysctl marks, a plot
 * that turns n/a and back, one waiting for samples), whose titles,
 * header and rows change, and whose terminal is resized; each frame
 * drawn by what changed, or (whole) on a cleared screen. */
static void fr_play(bool whole, struct fr_cell *shots)
{
	static const int ids[] = { M_SWAP_USED, M_MAJFLT, M_FREE, M_MINFLT, M_SCAN_KSWAPD,
				   M_SCAN_DIRECT, M_PSI_SOME, M_KSWAPD_CPU, M_PSI_FULL };
	enum { NP = sizeof(ids) / sizeof(ids[0]) };
	static struct series s[NP], back;
	struct ms_worker w[6];
	double marks[3];
	char status[64];
	struct ms_model m = { .host = "host", .kernel = "6.1", .ram_kib = 1 << 20,
			      .swap_kib = 1 << 19, .swappiness = "60",
			      .workload = "qsbench -n 30000000 -p 6 -s 1", .interval = 0.1,
			      .marks = marks, .status = status, .workers = w, .nworkers = 6 };

	fr_rnd = 7;
	for (int i = 0; i < NP; i++) {
		series_init(&s[i], 400);
		m.plot[i] = (struct ms_plot){ .id = ids[i], .s = &s[i],
					      .scale = ids[i] == M_SWAP_USED ? 1 << 19 : 0 };
	}
	series_init(&back, 400);
	m.plot[6].against = &back;
	m.against = "behind: run 3";
	m.nplots = NP;
	for (int i = 0; i < 6; i++)
		w[i] = (struct ms_worker){ .pid = 100 + i, .phase = "fill", .state = 'R',
					   .end = END_RUNNING, .majflt = 0, .swap_kib = 0 };
	resizeterm(FR_ROWS, FR_COLS);
	for (int f = 0; f < FR_N; f++) {
		double t = f * 0.1;

		for (int i = 0; i < NP; i++) {
			double v = fr_next();

			if (i == 8 && f < 20)	/* waiting for samples */
				continue;
			v = i == 0 ? 3e5 : i == 1 ? (v < 0.1 ? v * 4000 : 0) :
			    i == 2 ? 8e5 - f * 1000 * v : i == 3 ? (v < 0.05 ? NAN : 4e4 * v) :
			    i == 4 ? (f > 80 ? 300 * v : 0) : i == 5 ? 90 * v * (f % 50 < 25) :
			    i == 6 ? 10 + 5 * sin(f / 9.0) + v : 40 * v;
			series_push(&s[i], t, v);
		}
		series_push(&back, t, 12 + 6 * cos(f / 7.0));
		m.plot[7].na = f >= 50 && f < 70 ? "kswapd not visible (n/a)" : NULL;
		m.nmarks = (f > 40) + (f > 41) + (f > 120);
		marks[0] = 4.05;
		marks[1] = 4.12;
		marks[2] = 12.05;
		snprintf(status, sizeof(status), "reclaim: %s", f % 30 < 10 ? "none" : "kswapd");
		m.elapsed = t;
		for (int i = 0; i < 6; i++) {
			w[i].frac = fmin(f / 120.0 + i / 50.0, 1);
			w[i].cpu_s = t * (0.5 + i / 10.0);
			w[i].minflt = (int64_t)(f * 37 * (i + 1));
			w[i].rss_kib = (int64_t)(f * 100 * (i + 1));
			w[i].state = i == 2 && f % 20 < 5 ? 'D' : 'R';
		}
		if (f == 90) {
			w[4].end = END_OK;
			w[4].state = 0;
		}
		if (f == 110)	/* the terminal narrowed, and back */
			resizeterm(FR_ROWS - 6, FR_COLS - 30);
		if (f == 130)
			resizeterm(FR_ROWS, FR_COLS);
		if (whole)
			ms_touch();
		ms_draw(&m);
		fr_grab(&shots[(size_t)f * FR_COLS * FR_ROWS]);
	}
	ms_end();
	for (int i = 0; i < NP; i++)
		series_free(&s[i]);
	series_free(&back);
}

/* A headless screen of cols x rows in a UTF-8 locale, drawn into a cast
 * file in a directory of its own: true when curses is up. */
struct headless {
	char dir[32], path[64], *loc;
	struct cast *c;
};

static bool headless_open(struct headless *h, int cols, int rows)
{
	char err[256];

	snprintf(h->dir, sizeof(h->dir), "/tmp/thrashtop-unit-XXXXXX");
	h->loc = strdup(setlocale(LC_CTYPE, NULL));
	h->c = NULL;
	CHECK(h->loc && mkdtemp(h->dir));
	snprintf(h->path, sizeof(h->path), "%s/frames.cast", h->dir);
	setlocale(LC_CTYPE, "C.UTF-8");
	h->c = cast_open(h->path, cols, rows, "xterm-256color", "t", 0, err, sizeof(err));
	CHECK(h->c && tui_init_headless(h->c, cols, rows, "xterm-256color", err, sizeof(err)) == 0);
	return h->c && tui_active();
}

static void headless_close(struct headless *h)
{
	tui_end();
	cast_close(h->c);
	unlink(h->path);
	rmdir(h->dir);
	setlocale(LC_CTYPE, h->loc ? h->loc : "C");
	free(h->loc);
}

TEST(ms_draw_by_changes_as_drawn_whole)
{
	size_t n = (size_t)FR_N * FR_COLS * FR_ROWS;
	struct fr_cell *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
	struct headless h;

	CHECK(a && b);
	if (a && b && headless_open(&h, FR_COLS, FR_ROWS)) {
		CHECK(tui_utf8() && tui_colour());
		fr_play(false, a);
		fr_play(true, b);
		for (size_t k = 0; k < n; k++)
			if (a[k].ch != b[k].ch || a[k].attr != b[k].attr || a[k].pair != b[k].pair) {
				size_t f = k / (FR_COLS * FR_ROWS), y = k / FR_COLS % FR_ROWS;

				t_fail(__FILE__, __LINE__, "frame %zu row %zu col %zu: U+%04X attr %#lx "
				       "pair %d, drawn whole U+%04X attr %#lx pair %d", f, y, k % FR_COLS,
				       (unsigned)a[k].ch, (unsigned long)a[k].attr, a[k].pair,
				       (unsigned)b[k].ch, (unsigned long)b[k].attr, b[k].pair);
				break;
			}
	}
	if (a && b)
		headless_close(&h);
	free(a);
	free(b);
}

/* tui_put's tabs go to the next multiple of 8 terminal columns, counted
 * past a wide character as two. */
TEST(tui_put_tab_stops_count_columns)
{
	struct headless h;
	cchar_t cc;
	wchar_t wc[4];
	attr_t a;
	short pair;

	if (headless_open(&h, 40, 4)) {
		static const struct { int x; wchar_t ch; } want[] = {
			{ 1, L'b' }, { 2, L' ' }, { 8, L'c' }, { 9, 0x65E5 }, { 13, 0x65E5 },
			{ 15, L' ' }, { 16, L'd' }, { 17, L'e' },
		};

		/* three wide characters: 6 columns in 9 bytes */
		tui_put(stdscr, 0, 0, 40, "ab\tc\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\tde");
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			CHECK(mvwin_wch(stdscr, 0, want[i].x, &cc) == OK &&
			      getcchar(&cc, wc, &a, &pair, NULL) == OK);
			if (wc[0] != want[i].ch)
				t_fail(__FILE__, __LINE__, "column %d: U+%04X, want U+%04X", want[i].x,
				       (unsigned)wc[0], (unsigned)want[i].ch);
		}
	}
	headless_close(&h);
}
