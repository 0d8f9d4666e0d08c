#include <curses.h>
#include <math.h>

#include "check.h"
#include "sampler.h"
#include "series.h"
#include "ui.h"

static int cols_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* A model with nw workers, nd completed runs and, with cg, the cgroup
 * plots; tuning as given. Only what ui_layout reads. */
static struct series dummy;

static struct ui_model model(int nw, int nd, bool cg, const char *tuning)
{
	struct ui_model m = { .nworkers = nw, .ndone = nd, .interval = 0.5,
			      .workload = "qsbench -n 30000000 -p 2 -s 1",
			      .tuning = tuning };

	if (cg)
		m.plot[UI_PLOT_CG_MEM].s = m.plot[UI_PLOT_CG_SWAP].s =
			m.plot[UI_PLOT_CG_MAJFLT].s = &dummy;
	return m;
}

static void layout(int cols, int rows, int nw, int nd, bool cg,
		   const char *tuning, struct ui_layout *l)
{
	struct ui_model m = model(nw, nd, cg, tuning);

	ui_layout(cols, rows, &m, l);
}

#define CHECK_RECT(r, y_, x_, h_, w_) do { \
	CHECK_INT((r).y, y_); CHECK_INT((r).x, x_); \
	CHECK_INT((r).h, h_); CHECK_INT((r).w, w_); } while (0)

TEST(ui_layout_80x24)
{
	struct ui_layout l;

	layout(80, 24, 8, 2, false, NULL, &l);
	CHECK(!l.too_small);
	CHECK_INT(l.header.h, 3);
	CHECK_RECT(l.plot[UI_PLOT_SWAP], 3, 0, 4, 39);
	CHECK_RECT(l.plot[UI_PLOT_MAJFLT], 3, 40, 4, 40);
	CHECK_INT(l.plot[UI_PLOT_FREE].y, 7);
	CHECK_RECT(l.plot[UI_PLOT_KSWAPD], 11, 40, 4, 40);
	for (int id = UI_PLOT_CG_MEM; id <= UI_PLOT_CG_MAJFLT; id++)
		CHECK_INT(l.plot[id].h, 0);
	CHECK_INT(l.workers.y, 15);
	CHECK_INT(l.worker_rows, 5);
	CHECK(l.worker_more);
	CHECK_INT(l.workers.h, 7);	/* header, 5 rows, "3 more" */
	CHECK_INT(l.runs.y, 22);
	CHECK_INT(l.runs_rows, 1);
	CHECK_INT(l.runs.y + l.runs.h, 24);
}

/* --mem 128M --swap 512M -p 2 at 80x24, one run done: the workload, the
 * widest right side (47 columns) and the tuning need 100 columns, so the
 * tuning takes the fourth header row; 20 rows left give three rows of
 * 4-row graphs in three 26-column columns, the 2 workers and the run. */
TEST(ui_layout_cgroup_80x24)
{
	struct ui_layout l;

	layout(80, 24, 2, 1, true, "mem 128M, swap +512M", &l);
	CHECK(!l.too_small);
	CHECK_RECT(l.header, 0, 0, 4, 80);
	CHECK_RECT(l.plot[UI_PLOT_SWAP], 4, 0, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_CG_SWAP], 4, 27, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_KSWAPD], 4, 54, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_MAJFLT], 9, 0, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_CG_MAJFLT], 9, 27, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_MINFLT], 9, 54, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_AVAIL], 14, 0, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_CG_MEM], 14, 27, 5, 26);
	CHECK_RECT(l.plot[UI_PLOT_FREE], 14, 54, 5, 26);
	CHECK_RECT(l.workers, 19, 0, 3, 80);
	CHECK_INT(l.worker_rows, 2);
	CHECK(!l.worker_more);
	CHECK_RECT(l.runs, 22, 0, 2, 80);
	CHECK_INT(l.runs_rows, 1);

	/* without the tuning line the same rows go to the plots' growth:
	 * one row short of another graph row each, so it stays unused */
	layout(80, 24, 2, 1, true, NULL, &l);
	CHECK_INT(l.header.h, 3);
	CHECK_RECT(l.plot[UI_PLOT_SWAP], 3, 0, 5, 26);
	CHECK_INT(l.workers.y, 18);
	/* eight workers: the tuning line costs the fifth worker row */
	layout(80, 24, 8, 1, true, "mem 128M, swap +512M", &l);
	CHECK_INT(l.header.h, 4);
	CHECK_INT(l.plot[UI_PLOT_SWAP].h, 4);
	CHECK_INT(l.worker_rows, 4);
	CHECK_INT(l.runs.y + l.runs.h, 24);
}

/* The same at 200x60: the tuning fits after the workload (29 + 3 + 20 +
 * 1 + 47 columns), 66-column plots grow to 16 graph rows. */
TEST(ui_layout_cgroup_200x60)
{
	struct ui_layout l;

	layout(200, 60, 2, 1, true, "mem 128M, swap +512M", &l);
	CHECK_RECT(l.header, 0, 0, 3, 200);
	CHECK_RECT(l.plot[UI_PLOT_SWAP], 3, 0, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_CG_SWAP], 3, 67, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_KSWAPD], 3, 134, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_MAJFLT], 20, 0, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_CG_MAJFLT], 20, 67, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_MINFLT], 20, 134, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_AVAIL], 37, 0, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_CG_MEM], 37, 67, 17, 66);
	CHECK_RECT(l.plot[UI_PLOT_FREE], 37, 134, 17, 66);
	CHECK_RECT(l.workers, 54, 0, 3, 200);
	CHECK_RECT(l.runs, 57, 0, 2, 200);

	/* and without a cgroup, as before: two columns of 99 and 100 */
	layout(200, 60, 2, 1, false, "mem 128M, swap +512M", &l);
	CHECK_RECT(l.plot[UI_PLOT_SWAP], 3, 0, 17, 99);
	CHECK_RECT(l.plot[UI_PLOT_MAJFLT], 3, 100, 17, 100);
	CHECK_RECT(l.plot[UI_PLOT_AVAIL], 37, 0, 17, 99);
	CHECK_INT(l.plot[UI_PLOT_CG_SWAP].h, 0);
	/* a tuning too long for line 1 (178 columns) gets its own line */
	layout(160, 50, 2, 1, false, "mem 128M, swap +512M, global 4.0G, "
	       "vm.swappiness=100, vm.page-cluster=0, vm.watermark_scale_factor=200", &l);
	CHECK_INT(l.header.h, 4);
	CHECK_INT(l.plot[UI_PLOT_SWAP].y, 4);
}

TEST(ui_layout_minimum_and_too_small)
{
	struct ui_layout l;

	layout(59, 24, 1, 0, false, NULL, &l);
	CHECK(l.too_small);
	layout(80, 15, 1, 0, false, NULL, &l);
	CHECK(l.too_small);
	layout(60, 16, 8, 1, false, NULL, &l);
	CHECK(!l.too_small);
	CHECK_INT(l.plot[UI_PLOT_AVAIL].y, 9);
	CHECK_INT(l.plot[UI_PLOT_AVAIL].h, 3);	/* title + 2 graph rows */
	CHECK_INT(l.worker_rows, 2);
	CHECK(l.worker_more);
	CHECK_INT(l.workers.y + l.workers.h, 16);
	CHECK_INT(l.runs_rows, 0);
	/* no row for the tuning at the minimum: it stays on line 1 */
	layout(60, 16, 8, 1, true, "mem 128M, swap +512M", &l);
	CHECK_INT(l.header.h, 3);
	CHECK_RECT(l.plot[UI_PLOT_CG_MEM], 9, 20, 3, 19);
	CHECK_RECT(l.plot[UI_PLOT_FREE], 9, 40, 3, 20);
}

/* Hand-computed: 57 rows under the header; plots grow to 14 graph rows
 * once the 4 workers and 5 runs have their rows. */
TEST(ui_layout_200x60_uses_space)
{
	struct ui_layout l;

	layout(200, 60, 4, 5, false, NULL, &l);
	CHECK_INT(l.plot[UI_PLOT_SWAP].h, 15);
	CHECK_INT(l.plot[UI_PLOT_SWAP].w, 99);
	CHECK_INT(l.plot[UI_PLOT_MAJFLT].w, 100);
	CHECK_INT(l.worker_rows, 4);
	CHECK(!l.worker_more);
	CHECK_INT(l.workers.y, 48);
	CHECK_INT(l.runs_rows, 5);
	CHECK_INT(l.runs.y + l.runs.h, 59);
}

/* Counts what breaks the tiling: rows of plots stacked under the header,
 * columns one apart and flush right, equal widths but for the last
 * (wider by less than the number of columns), hidden plots empty. */
static int tiling_faults(const struct ui_layout *l, int c, bool cg)
{
	static const int grid2[3][3] = {
		{ UI_PLOT_SWAP, UI_PLOT_MAJFLT, -1 },
		{ UI_PLOT_FREE, UI_PLOT_MINFLT, -1 },
		{ UI_PLOT_AVAIL, UI_PLOT_KSWAPD, -1 },
	}, grid3[3][3] = {
		{ UI_PLOT_SWAP, UI_PLOT_CG_SWAP, UI_PLOT_KSWAPD },
		{ UI_PLOT_MAJFLT, UI_PLOT_CG_MAJFLT, UI_PLOT_MINFLT },
		{ UI_PLOT_AVAIL, UI_PLOT_CG_MEM, UI_PLOT_FREE },
	};
	const int (*g)[3] = cg ? grid3 : grid2;
	int n = cg ? 3 : 2, bad = 0, y = l->header.h;

	bad += l->header.y != 0 || l->header.h < 3 || l->header.h > 4;
	for (int r = 0; r < 3; r++) {
		const struct ui_rect *first = &l->plot[g[r][0]];

		for (int k = 0; k < n; k++) {
			const struct ui_rect *p = &l->plot[g[r][k]];

			bad += p->y != y || p->h != first->h || p->h < 3;
			bad += k == 0 ? p->x != 0 :
			       p->x != l->plot[g[r][k - 1]].x + l->plot[g[r][k - 1]].w + 1;
			bad += k < n - 1 ? p->w != first->w :
			       p->x + p->w != c || p->w < first->w || p->w - first->w >= n;
		}
		y += first->h;
	}
	if (!cg)
		for (int id = UI_PLOT_CG_MEM; id <= UI_PLOT_CG_MAJFLT; id++)
			bad += l->plot[id].h != 0;
	bad += y != l->workers.y;
	return bad;
}

TEST(ui_layout_panels_fit_every_size)
{
	static const char *const tun[] = { NULL, "mem 128M, swap +512M" };
	struct ui_layout l;
	int bad = 0, tuned = 0;

	for (int c = UI_MIN_COLS; c <= 260; c += 7)
		for (int r = UI_MIN_ROWS; r <= 90; r++)
			for (int nw = 0; nw <= 70; nw += 3)
				for (int nd = 0; nd <= 12; nd += 4)
					for (int v = 0; v < 4; v++) {
						bool cg = v & 1;
						int few;

						layout(c, r, nw, nd, cg, tun[v >> 1], &l);
						bad += l.too_small;
						bad += tiling_faults(&l, c, cg);
						bad += l.workers.y + l.workers.h != l.runs.y;
						bad += l.runs.y + l.runs.h > r;
						bad += l.worker_rows < (nw < 2 ? nw : 2);
						bad += l.worker_more != (l.worker_rows < nw);
						bad += l.workers.h != (nw ? 1 + l.worker_rows +
								      l.worker_more : 0);
						/* a line for the tuning only when
						 * there is one too long for line 1 */
						bad += l.header.h == 4 && (!tun[v >> 1] || c >= 100);
						tuned += l.header.h == 4;
						/* at 24 rows and up: the last run, a
						 * few workers (one fewer with the
						 * tuning's line), 3 graph rows */
						few = l.header.h == 4 ? 4 : 5;
						if (r >= 24) {
							bad += nd && l.runs_rows < 1;
							bad += l.worker_rows < (nw < few ? nw : few);
							bad += l.plot[0].h < 4;
						}
					}
	CHECK_INT(bad, 0);
	CHECK(tuned > 1000);
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
TEST(ui_format_title_cgroup_26)
{
	struct series sw, cgsw, maj, cgmaj, cgmem;
	const double swv[] = { 0, 102400, 232448 }, cgswv[] = { 0, 51200, 104448 };
	const double majv[] = { 0, 1500, 934 }, cgmajv[] = { 0, 2500, NAN };
	const double memv[] = { 65536, 130048, 131000 };
	struct ui_model m = { 0 };
	char b[256];

	fill(&sw, swv, 3);
	fill(&cgsw, cgswv, 3);
	fill(&maj, majv, 3);
	fill(&cgmaj, cgmajv, 3);
	fill(&cgmem, memv, 3);
	m.plot[UI_PLOT_SWAP] = (struct ui_plot){ .s = &sw, .scale = 524284 };
	m.plot[UI_PLOT_MAJFLT] = (struct ui_plot){ .s = &maj };
	/* alone: the long names, and the faults' own scale */
	CHECK_STR(ui_format_title(&m, UI_PLOT_SWAP, 39, PLOT_BRAILLE, b, sizeof(b)),
		  "swap used 227M (44%)            0..512M");
	CHECK_STR(ui_format_title(&m, UI_PLOT_MAJFLT, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "major faults 934/s               0..2k/s");

	m.plot[UI_PLOT_CG_SWAP] = (struct ui_plot){ .s = &cgsw, .scale = 524284 };
	m.plot[UI_PLOT_CG_MAJFLT] = (struct ui_plot){ .s = &cgmaj,
						      .extra = "refaults 1.6k/s" };
	m.plot[UI_PLOT_CG_MEM] = (struct ui_plot){ .s = &cgmem, .scale = 131072,
						   .extra = "failcnt 1.7k/s" };
	CHECK(ui_cgroup_shown(&m));
	CHECK_STR(ui_format_title(&m, UI_PLOT_SWAP, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "sys swap 227M 44%  0..512M");
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_SWAP, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg swap 102M (19%) 0..512M");
	/* both fault plots top out at the nice maximum of both: 2500 -> 5k */
	CHECK_STR(ui_format_title(&m, UI_PLOT_MAJFLT, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934/s   0..5k/s");
	/* a gap is n/a, never 0 */
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_MAJFLT, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg majflt n/a      0..5k/s");
	/* 131000 KiB of a 128 MiB limit is 99.9%: shown as 99% */
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_MEM, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cg mem 128M (99%)  0..128M");
	/* wide: long names, "(system)", the extra text */
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_MEM, 66, PLOT_BRAILLE, b, sizeof(b)),
		  "cgroup memory 128M (99%)  failcnt 1.7k/s                   0..128M");
	CHECK_STR(ui_format_title(&m, UI_PLOT_MAJFLT, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "major faults (system) 934/s      0..5k/s");
	/* the long name gives way before the extra, which goes next */
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_MEM, 41, PLOT_BRAILLE, b, sizeof(b)),
		  "cg mem 128M (99%)  failcnt 1.7k/s 0..128M");
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_MEM, 40, PLOT_BRAILLE, b, sizeof(b)),
		  "cgroup memory 128M (99%)         0..128M");
	/* the narrowest screen: compact values, then no scale */
	CHECK_STR(ui_format_title(&m, UI_PLOT_MAJFLT, 22, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934 0..5k/s");
	CHECK_STR(ui_format_title(&m, UI_PLOT_MAJFLT, 19, PLOT_BRAILLE, b, sizeof(b)),
		  "sys majflt 934     ");
	CHECK_STR(ui_format_title(&m, UI_PLOT_SWAP, 19, PLOT_BRAILLE, b, sizeof(b)),
		  "sys swap 227M 44%  ");
	/* a plot that cannot be read has no scale */
	m.plot[UI_PLOT_CG_SWAP].na = "swap not accounted (n/a)";
	CHECK_STR(ui_format_title(&m, UI_PLOT_CG_SWAP, 26, PLOT_BRAILLE, b, sizeof(b)),
		  "cgroup swap n/a           ");
	series_free(&sw);
	series_free(&cgsw);
	series_free(&maj);
	series_free(&cgmaj);
	series_free(&cgmem);
}

TEST(ui_format_bar_ascii_and_eighths)
{
	char b[64];

	CHECK_STR(ui_format_bar(0.5, 12, false, b, sizeof(b)), "[#####     ]");
	CHECK_STR(ui_format_bar(0.27, 12, false, b, sizeof(b)), "[##        ]");
	/* 0.27 of 80 eighths is 21.6: two full cells and five eighths */
	CHECK_STR(ui_format_bar(0.27, 12, true, b, sizeof(b)),
		  "[\u2588\u2588\u258B       ]");
	CHECK_STR(ui_format_bar(0.01, 6, true, b, sizeof(b)), "[    ]");
	CHECK_STR(ui_format_bar(1.7, 6, true, b, sizeof(b)),
		  "[\u2588\u2588\u2588\u2588]");
	CHECK_STR(ui_format_bar(NAN, 4, false, b, sizeof(b)), "[  ]");
}

TEST(ui_format_worker_rows_80)
{
	char b[512];
	struct ui_worker w = { .pid = 22402, .phase = "sort", .frac = 0.27,
			       .state = 'D', .cpu_s = 25, .majflt = 39340,
			       .minflt = 900958, .rss_kib = 349184,
			       .swap_kib = 23552, .end = END_RUNNING };

	CHECK_STR(ui_format_worker(NULL, 80, true, b, sizeof(b)),
		  "    PID S PHASE  PROGRESS                      CPU  MAJFLT  MINFLT    RSS   SWAP");
	CHECK_STR(ui_format_worker(&w, 80, false, b, sizeof(b)),
		  "  22402 D sort   [####             ]  27%  0:25.00   39340  900958   341M    23M");
	CHECK_INT(cols_of(ui_format_worker(&w, 80, true, b, sizeof(b))), 80);
	w.frac = 0.9999;	/* not done until it is */
	CHECK(strstr(ui_format_worker(&w, 80, false, b, sizeof(b)), " 99%"));
	w.end = END_OOM;
	w.state = 0;
	w.majflt = NA;
	w.swap_kib = NA;
	w.minflt = 10400000;
	CHECK_STR(ui_format_worker(&w, 80, true, b, sizeof(b)),
		  "  22402 - sort   OOM killed                0:25.00     n/a   10.4M   341M    n/a");
	w.end = END_SIGNAL;
	w.code = 11;
	CHECK(strstr(ui_format_worker(&w, 80, true, b, sizeof(b)), " signal 11 "));
	w.end = END_RUNNING;	/* state not read yet */
	CHECK(strstr(ui_format_worker(&w, 80, true, b, sizeof(b)), "  22402 ? sort "));
	w.end = END_SIGNAL;
	w.end = END_EXIT;
	w.code = 3;
	CHECK(strstr(ui_format_worker(&w, 80, true, b, sizeof(b)), " exit 3 "));
	w.end = END_VERIFY;
	CHECK(strstr(ui_format_worker(&w, 80, true, b, sizeof(b)), " verify failed "));
}

TEST(ui_format_worker_command_and_narrow)
{
	char b[512];
	struct ui_worker w = { .pid = 7, .phase = NULL, .elapsed = 83.4,
			       .state = 'S', .cpu_s = NAN, .majflt = 1,
			       .minflt = 2, .rss_kib = 1024, .swap_kib = 0 };

	CHECK(strstr(ui_format_worker(&w, 80, true, b, sizeof(b)),
		     "      7 S cmd    running 1:23.40  "));
	CHECK(strstr(b, "     n/a       1       2   1.0M     0K"));
	/* at 60 columns MINFLT and RSS give way to the progress field */
	CHECK_STR(ui_format_worker(NULL, 60, true, b, sizeof(b)),
		  "    PID S PHASE  PROGRESS                 CPU  MAJFLT   SWAP");
	CHECK_INT(cols_of(ui_format_worker(&w, 60, true, b, sizeof(b))), 60);
	/* wide screens cap the bar and pad the row */
	CHECK_INT(cols_of(ui_format_worker(&w, 200, true, b, sizeof(b))), 200);
}

TEST(ui_key_actions_without_terminal)
{
	struct ui_model m = { .nworkers = 0 };

	ui_end();	/* before ui_init: a no-op */
	CHECK_INT(ui_key(&m, 'q'), UI_QUIT);
	CHECK_INT(ui_key(&m, 'r'), UI_RERUN);
	CHECK_INT(ui_key(&m, '+'), UI_SLOWER);
	CHECK_INT(ui_key(&m, '-'), UI_FASTER);
	CHECK_INT(ui_key(&m, 'x'), UI_NONE);
	CHECK_INT(ui_key(&m, ' '), UI_TOGGLE_PAUSE);
	CHECK(m.paused);
	CHECK_INT(ui_key(&m, ' '), UI_TOGGLE_PAUSE);
	CHECK(!m.paused);
	CHECK_INT(ui_key(&m, '?'), UI_HELP);
	CHECK_INT(ui_key(&m, '?'), UI_HELP);
	CHECK_INT(ui_key(&m, KEY_RESIZE), UI_RESIZE);
	CHECK_INT(ui_fd(), -1);
	ui_end();
}

/* Without a terminal ui_key lays out 80x24. */
TEST(ui_key_scroll_clamps)
{
	struct ui_worker w[40] = { { 0 } };
	struct ui_model m = { .workers = w, .nworkers = 40 };
	struct ui_layout l;

	layout(80, 24, 40, 0, false, NULL, &l);
	ui_key(&m, KEY_HOME);
	CHECK_INT(ui_scroll(), 0);
	ui_key(&m, KEY_UP);
	CHECK_INT(ui_scroll(), 0);
	ui_key(&m, KEY_DOWN);
	CHECK_INT(ui_scroll(), 1);
	ui_key(&m, KEY_NPAGE);
	CHECK_INT(ui_scroll(), l.worker_rows);
	ui_key(&m, KEY_END);
	CHECK_INT(ui_scroll(), 40 - l.worker_rows);
	ui_key(&m, KEY_DOWN);
	CHECK_INT(ui_scroll(), 40 - l.worker_rows);
	m.nworkers = 3;		/* fewer workers than rows */
	ui_key(&m, KEY_END);
	CHECK_INT(ui_scroll(), 0);
}
