/* The monitor screen's layout and text: panels on every screen size, the
 * plots' titles as they give way, worker rows, bars and the reclaim lane. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "fmt.h"
#include "metrics.h"
#include "monlayout.h"
#include "series.h"

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

/* The title of m's plot i, width w, on the y axis braille plots give it. */
static char *title(const struct ms_model *m, int i, int w, char *buf, size_t len)
{
	return ms_format_title(m, i, w, ms_plot_ymax(m, i, w, PLOT_BRAILLE), buf, len);
}

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

/* t at 80x24 with 8 workers: one row of plots, every worker, the others
 * counted as hidden; 30 workers take what is left and scroll. */
TEST(ms_layout_workers_first_80x24)
{
	struct ms_model m = model(8, 2, false, NULL);
	struct ms_layout l;

	m.workers_first = true;
	ms_layout(80, 24, &m, &l);
	CHECK_INT(l.plot_cols, 2);
	CHECK_INT(l.plots_hidden, 8);
	CHECK_INT(l.plot[0].y, 3);
	CHECK_INT(l.plot[2].h, 0);
	CHECK_INT(l.worker_rows, 8);
	CHECK(!l.worker_more);
	CHECK_INT(l.runs_rows, 2);
	CHECK(l.workers.y + l.workers.h + l.runs.h <= 24);
	m.nworkers = 30;
	ms_layout(80, 24, &m, &l);
	CHECK_INT(l.plot[0].h, 4);
	CHECK(l.worker_rows >= 12);
	CHECK(l.worker_more);
	CHECK_INT(l.workers.y + l.workers.h + l.runs.h, 24);
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

	/* each model made once, then laid out on every size */
	for (int nw = 0; nw <= 70; nw += 3)
		for (int nd = 0; nd <= 12; nd += 4)
			for (int v = 0; v < 8; v++) {
				const char *t = tun[(v >> 1) & 1];
				struct ms_model m = model(nw, nd, v & 1, t);

				if (v & 4)	/* every series */
					for (m.nplots = 0; m.nplots < M_N; m.nplots++)
						m.plot[m.nplots] = (struct ms_plot){
							.id = m.nplots, .s = &dummy };
				for (int c = MS_MIN_COLS; c <= 260; c += 7)
					for (int r = MS_MIN_ROWS; r <= 90; r++) {
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
						if (r >= 24 && !(v & 4)) {
							bad += l.plots_hidden != 0;
							bad += l.worker_rows < (nw < 2 ? nw : 2);
						}
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
	CHECK_STR(title(&m, 0, 39, b, sizeof(b)),
		  "swap used 227M (44%)            0..512M");
	CHECK_STR(title(&m, 1, 40, b, sizeof(b)),
		  "major faults 934/s               0..2k/s");

	m.plot[2] = (struct ms_plot){ .id = M_CG_SWAP, .s = &cgsw, .scale = 524284 };
	m.plot[3] = (struct ms_plot){ .id = M_CG_MAJFLT, .s = &cgmaj,
						      .extra = "refaults 1.6k/s" };
	m.plot[4] = (struct ms_plot){ .id = M_CG_MEM, .s = &cgmem, .scale = 131072,
						   .extra = "failcnt 1.7k/s" };
	m.nplots = 5;
	CHECK(ms_cgroup_shown(&m));
	CHECK_STR(title(&m, 0, 26, b, sizeof(b)),
		  "sys swap 227M 44%  0..512M");
	CHECK_STR(title(&m, 2, 26, b, sizeof(b)),
		  "cg swap 102M (19%) 0..512M");
	/* both fault plots top out at the nice maximum of both: 2500 -> 5k */
	CHECK_STR(title(&m, 1, 26, b, sizeof(b)),
		  "sys majflt 934/s   0..5k/s");
	/* a gap is n/a, never 0 */
	CHECK_STR(title(&m, 3, 26, b, sizeof(b)),
		  "cg majflt n/a      0..5k/s");
	/* 131000 KiB of a 128 MiB limit is 99.9%: shown as 99% */
	CHECK_STR(title(&m, 4, 26, b, sizeof(b)),
		  "cg memory 128M 99% 0..128M");
	/* a name's words kept before a value's parentheses: "sys scan
	 * kswapd", not "sys scan k", at 80 columns' three plots a row */
	m.plot[1] = (struct ms_plot){ .id = M_SCAN_KSWAPD, .s = &maj };
	CHECK_STR(title(&m, 1, 27, b, sizeof(b)),
		  "sys scan kswapd 934 0..2k/s");
	m.plot[1] = (struct ms_plot){ .id = M_MAJFLT, .s = &maj };
	/* wide: long names, "(system)", the extra text */
	CHECK_STR(title(&m, 4, 66, b, sizeof(b)),
		  "cgroup memory 128M (99%)  failcnt 1.7k/s                   0..128M");
	CHECK_STR(title(&m, 1, 40, b, sizeof(b)),
		  "major faults (system) 934/s      0..5k/s");
	/* the workers' stalls and the zram device's figures are not the
	 * system's, beside the cgroup's plots or not */
	for (int id = 0; id < M_N; id++) {
		int was = m.plot[1].id;

		if (strcmp(metric_scope(id), "workers") && strcmp(metric_scope(id), "zram"))
			continue;
		m.plot[1].id = id;
		title(&m, 1, 60, b, sizeof(b));
		if (strstr(b, "(system)"))
			t_fail(__FILE__, __LINE__, "%s titled \"%s\"", metric_def(id)->name, b);
		title(&m, 1, 12, b, sizeof(b));
		if (!strncmp(b, "sys ", 4))
			t_fail(__FILE__, __LINE__, "%s titled \"%s\"", metric_def(id)->name, b);
		m.plot[1].id = was;
	}
	/* the long name gives way before the extra, which goes next */
	CHECK_STR(title(&m, 4, 41, b, sizeof(b)),
		  "cg mem 128M (99%)  failcnt 1.7k/s 0..128M");
	CHECK_STR(title(&m, 4, 40, b, sizeof(b)),
		  "cgroup memory 128M (99%)         0..128M");
	/* the narrowest screen: compact values beside the scale; without
	 * it, the value with its unit again, compact only as the last resort */
	CHECK_STR(title(&m, 1, 22, b, sizeof(b)),
		  "sys majflt 934 0..5k/s");
	CHECK_STR(title(&m, 1, 19, b, sizeof(b)),
		  "sys majflt 934/s   ");
	CHECK_STR(title(&m, 1, 15, b, sizeof(b)),
		  "sys majflt 934 ");
	CHECK_STR(title(&m, 0, 19, b, sizeof(b)),
		  "sys swap 227M (44%)");
	CHECK_STR(title(&m, 0, 18, b, sizeof(b)),
		  "sys swap 227M 44% ");
	/* under 1% but not empty: "<1%", never "0%" */
	const double tiny[] = { 0, 0, 3000 }, none[] = { 0, 0, 0 };
	struct series t0, t1;
	fill(&t0, tiny, 3);
	fill(&t1, none, 3);
	m.plot[2].s = &t0;
	CHECK_STR(title(&m, 2, 26, b, sizeof(b)),
		  "cg swap 2.9M (<1%) 0..512M");
	m.plot[2].s = &t1;
	CHECK_STR(title(&m, 2, 26, b, sizeof(b)),
		  "cg swap 0K (0%)    0..512M");
	m.plot[2].s = &cgsw;
	series_free(&t0);
	series_free(&t1);
	/* a plot that cannot be read has no scale */
	m.plot[2].na = "swap not accounted (n/a)";
	CHECK_STR(title(&m, 2, 26, b, sizeof(b)),
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
	CHECK_STR(title(&m, 1, 40, b, sizeof(b)),
		  "scan direct 900/s               0..50k/s");
	CHECK_STR(title(&m, 2, 40, b, sizeof(b)),
		  "PSI some avg10 99.0%             0..100%");
	CHECK_STR(title(&m, 3, 40, b, sizeof(b)),
		  "running 4                           0..5");
	/* alone, direct scanning gets its own scale */
	m.plot[0] = m.plot[1];
	m.nplots = 1;
	CHECK_STR(title(&m, 0, 40, b, sizeof(b)),
		  "scan direct 900/s                0..2k/s");
	m.plot[0].against = &old;
	CHECK_STR(title(&m, 0, 40, b, sizeof(b)),
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
TEST(monlayout_lane_on_the_plots_axis)
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
TEST(monlayout_lane_oom_kills)
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
TEST(monlayout_lane_under_plots)
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

/* The workload line's right side, and how a worker's end reads. */
TEST(monlayout_header_right_and_end_text)
{
	struct ms_model m = { .interval = 0.5, .run = 2, .nruns = 5 };
	struct ms_worker w = { .end = END_EXIT, .code = 3 };
	char b[128];

	ms_header_right(&m, true, 83, b, sizeof(b));
	CHECK_STR(b, "PAUSED  run 2/5 1:23 elapsed  interval 0.5s  ? help");
	m.nruns = 0;
	ms_header_right(&m, false, 5, b, sizeof(b));
	CHECK_STR(b, "0:05 elapsed  interval 0.5s  ? help");
	CHECK_STR(ms_end_text(&w, b, sizeof(b)), "exit 3");
	w.end = END_RUNNING;
	CHECK_STR(ms_end_text(&w, b, sizeof(b)), "");
	w.end = END_OOM;
	CHECK_STR(ms_end_text(&w, b, sizeof(b)), "OOM killed");
}

TEST(ms_format_done_keeps_the_status)
{
	const char *line = "#1 0.101u 0.102s 0:00.23 86.9% 0+0k 0+0io 0pf+0w  0:00 kswapd  oom";
	char b[256];

	/* wide enough: as it is */
	CHECK_STR(ms_format_done(line, 80, true, b, sizeof(b)), line);
	/* 60 columns: the time line cut, the status kept */
	CHECK_STR(ms_format_done(line, 60, true, b, sizeof(b)),
		  "#1 0.101u 0.102s 0:00.23 86.9% 0+0k 0+0io 0pf+0w  0:00\u2026  oom");
	CHECK_INT(fmt_text_cols(b), 60);
	CHECK_STR(ms_format_done(line, 40, false, b, sizeof(b)),
		  "#1 0.101u 0.102s 0:00.23 86.9% 0+0~  oom");
	CHECK_INT(fmt_text_cols(b), 40);
	/* a sweep's cell after the status goes with it */
	CHECK_STR(ms_format_done("#2 1.0u 0.1s 0:01.10 99.0% 0+0k 0+0io 0pf+0w  0:00 kswapd  ok  "
				 "swappiness=60", 50, false, b, sizeof(b)),
		  "#2 1.0u 0.1s 0:01.10 99.0% 0+0~  ok  swappiness=60");
	/* narrower than the status: cut from the start as before */
	CHECK_STR(ms_format_done(line, 4, true, b, sizeof(b)), "#1 0");
}

/* Several places: each one's legend in every title, in the order given,
 * names cut where narrow, and where each legend is for its colour. */
TEST(ms_format_side_title_legends)
{
	struct series a, b;
	struct ms_model m = { .nsides = 2, .nplots = 1, .axis = { 10, 1 } };
	int at[MS_SIDES_MAX][2];
	char buf[512];

	series_init(&a, 4);
	series_init(&b, 4);
	series_push(&a, 10, 1024 * 1024);
	series_push(&b, 10, 2 * 1024 * 1024);
	m.side[0].name = "alpha";
	m.side[1].name = "beta";
	m.plot[0] = (struct ms_plot){ .id = M_FREE, .s = &a, .side = { &a, &b } };
	ms_format_side_title(&m, 0, 60, 4.0 * 1024 * 1024, false, at, buf, sizeof(buf));
	CHECK_INT(cols_of(buf), 60);
	CHECK(!strncmp(buf, "free  alpha 1.0G  beta 2.0G ", 28));
	CHECK(strstr(buf, "0..4.0G") != NULL);
	CHECK_INT(at[0][0], 6);
	CHECK_INT(at[0][1], 10);
	CHECK(!strncmp(buf + at[1][0], "beta 2.0G", 9));
	/* narrow: the names cut, the scale gone last */
	ms_format_side_title(&m, 0, 24, 4.0 * 1024 * 1024, true, at, buf, sizeof(buf));
	CHECK_STR(buf, "free *alp 1.0G obet 2.0G");
	CHECK(strstr(buf, "*alpha") == NULL && strstr(buf, "*alp") != NULL);
	CHECK(strstr(buf, "obet") != NULL);
	/* a place that ended says so */
	m.side[1].ended = true;
	ms_format_side_title(&m, 0, 60, 4.0 * 1024 * 1024, false, at, buf, sizeof(buf));
	CHECK(strstr(buf, "beta ended") != NULL);
	series_free(&a);
	series_free(&b);
}

/* Several places: a head row and a worker each at least, every place's
 * on an 80x24 screen with one worker each; the header's right side
 * without one place's run and time. */
TEST(ms_layout_sides_80x24)
{
	struct ms_model m = model(4, 0, false, NULL);
	struct ms_layout l;
	char right[128];

	m.nsides = 2;
	ms_layout(80, 24, &m, &l);
	CHECK_INT(l.worker_rows, 4);
	CHECK(!l.worker_more);
	m.nworkers = 6;
	ms_layout(80, 24, &m, &l);
	CHECK(l.worker_rows >= 4);
	ms_header_right(&m, false, 12, right, sizeof(right));
	CHECK_STR(right, "interval 0.5s  ? help");
}
