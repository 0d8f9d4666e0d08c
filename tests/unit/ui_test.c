#include <curses.h>
#include <math.h>

#include "check.h"
#include "sampler.h"
#include "ui.h"

static int cols_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

TEST(ui_layout_80x24)
{
	struct ui_layout l;

	ui_layout(80, 24, 8, 2, &l);
	CHECK(!l.too_small);
	CHECK_INT(l.header.h, 3);
	CHECK_INT(l.plot[UI_PLOT_SWAP].y, 3);
	CHECK_INT(l.plot[UI_PLOT_SWAP].x, 0);
	CHECK_INT(l.plot[UI_PLOT_SWAP].w, 39);
	CHECK_INT(l.plot[UI_PLOT_SWAP].h, 4);
	CHECK_INT(l.plot[UI_PLOT_MAJFLT].x, 40);
	CHECK_INT(l.plot[UI_PLOT_MAJFLT].w, 40);
	CHECK_INT(l.plot[UI_PLOT_FREE].y, 7);
	CHECK_INT(l.plot[UI_PLOT_KSWAPD].y, 11);
	CHECK_INT(l.plot[UI_PLOT_KSWAPD].x, 40);
	CHECK_INT(l.workers.y, 15);
	CHECK_INT(l.worker_rows, 5);
	CHECK(l.worker_more);
	CHECK_INT(l.workers.h, 7);	/* header, 5 rows, "3 more" */
	CHECK_INT(l.runs.y, 22);
	CHECK_INT(l.runs_rows, 1);
	CHECK_INT(l.runs.y + l.runs.h, 24);
}

TEST(ui_layout_minimum_and_too_small)
{
	struct ui_layout l;

	ui_layout(59, 24, 1, 0, &l);
	CHECK(l.too_small);
	ui_layout(80, 15, 1, 0, &l);
	CHECK(l.too_small);
	ui_layout(60, 16, 8, 1, &l);
	CHECK(!l.too_small);
	CHECK_INT(l.plot[UI_PLOT_AVAIL].y, 9);
	CHECK_INT(l.plot[UI_PLOT_AVAIL].h, 3);	/* title + 2 graph rows */
	CHECK_INT(l.worker_rows, 2);
	CHECK(l.worker_more);
	CHECK_INT(l.workers.y + l.workers.h, 16);
	CHECK_INT(l.runs_rows, 0);
}

/* Hand-computed: 57 rows under the header; plots grow to 14 graph rows
 * once the 4 workers and 5 runs have their rows. */
TEST(ui_layout_200x60_uses_space)
{
	struct ui_layout l;

	ui_layout(200, 60, 4, 5, &l);
	CHECK_INT(l.plot[UI_PLOT_SWAP].h, 15);
	CHECK_INT(l.plot[UI_PLOT_SWAP].w, 99);
	CHECK_INT(l.plot[UI_PLOT_MAJFLT].w, 100);
	CHECK_INT(l.worker_rows, 4);
	CHECK(!l.worker_more);
	CHECK_INT(l.workers.y, 48);
	CHECK_INT(l.runs_rows, 5);
	CHECK_INT(l.runs.y + l.runs.h, 59);
}

TEST(ui_layout_panels_fit_every_size)
{
	struct ui_layout l;
	int bad = 0;

	for (int c = UI_MIN_COLS; c <= 260; c += 7)
		for (int r = UI_MIN_ROWS; r <= 90; r++)
			for (int nw = 0; nw <= 70; nw += 3)
				for (int nd = 0; nd <= 12; nd += 4) {
					ui_layout(c, r, nw, nd, &l);
					int y = l.plot[UI_PLOT_SWAP].y;

					bad += l.too_small;
					bad += y != 3;
					bad += l.plot[UI_PLOT_FREE].y != y + l.plot[0].h;
					bad += l.plot[UI_PLOT_KSWAPD].x +
					       l.plot[UI_PLOT_KSWAPD].w != c;
					bad += l.plot[UI_PLOT_AVAIL].y +
					       l.plot[UI_PLOT_AVAIL].h != l.workers.y;
					bad += l.workers.y + l.workers.h != l.runs.y;
					bad += l.runs.y + l.runs.h > r;
					bad += l.plot[0].h < 3;
					bad += l.worker_rows < (nw < 2 ? nw : 2);
					bad += l.worker_more != (l.worker_rows < nw);
					bad += l.workers.h != (nw ? 1 + l.worker_rows +
							      l.worker_more : 0);
					/* at 24 rows and up: the last run, a few workers */
					if (r >= 24) {
						bad += nd && l.runs_rows < 1;
						bad += l.worker_rows < (nw < 5 ? nw : 5);
						bad += l.plot[0].h < 4;
					}
				}
	CHECK_INT(bad, 0);
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

	ui_layout(80, 24, 40, 0, &l);
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
