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
#include "series.h"
#include "tui.h"

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

	check_table("monitor", monview_keys, monview_nkeys, 16);
	check_table("replay", replay_keys, replay_nkeys, 11);
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
	struct ms_model m = { .nworkers = 40, .workers = w, .interval = 0.5 };
	struct ms_layout l;

	ms_layout(80, 24, &m, &l);
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
