#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cast.h"
#include "fmt.h"
#include "monscreen.h"
#include "prof.h"
#include "tui.h"

static struct {
	bool help;
	int help_top;		/* the help box's first line shown, where it is cut */
	bool need_full;		/* draw even when paused */
	int scroll;		/* first worker shown */
	int shown;		/* worker rows the last frame showed, -1 before one */
	struct slot {		/* what each plot's place shows now */
		char title[512];
		/* what the title was made of: the same again is the same */
		double t_ymax, t_last, t_scale;
		const char *t_na;
		char t_extra[128];
		bool t_ok;
		char note[128];	/* a notice drawn instead of the graph */
		bool graph;	/* the canvas's cells are on screen */
		struct plot_canvas canvas;
	} slot[MS_MAX_PLOTS];
	char *rowkey;		/* per screen row: what a text row shows */
	int nrowkeys;
	/* what the last frame was drawn for: a frame for the same is drawn
	 * by writing only what changed */
	const struct ms_model *f_model;
	int f_cols, f_lines, f_ids[MS_MAX_PLOTS];
	enum plot_mode f_mode;
	bool f_utf8;
	struct ms_layout f_layout;
	void (*overlay)(void *arg);	/* a window drawn over each frame */
	void *overlay_arg;
} U = { .need_full = true, .shown = -1 };

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

_Static_assert(MS_MIN_COLS == TUI_MIN_COLS && MS_MIN_ROWS == TUI_MIN_ROWS,
	       "the monitor is laid out down to the smallest terminal a view is drawn on");

/* ---- drawing --------------------------------------------------------- */

/* Blanks w cells of row y from x, as erase() leaves them. */
static void blank(int y, int x, int w)
{
	attrset(A_NORMAL);
	mvhline(y, x, ' ', w);
}

#define ROWKEY 1100

/* What the previous frame drew on screen row y: its key, NULL if unknown. */
static char *row_key(int y)
{
	return y >= 0 && y < U.nrowkeys ? U.rowkey + (size_t)y * ROWKEY : NULL;
}

static void row_keep(int y, const char *key)
{
	char *k = row_key(y);
	size_t n = key ? strlen(key) : ROWKEY;

	if (k && n < ROWKEY)
		memcpy(k, key, n + 1);
	else if (k)
		k[0] = '\0';
}

/* Whether screen row y shows what key says (the previous frame drew it
 * so). If not, it is remembered for the next frame, and the row is
 * cleared unless the frame is drawn in full (on a blank screen). */
static bool row_same(int y, const char *key, bool full)
{
	const char *k = row_key(y);

	if (!full && k && key && !strcmp(k, key))
		return true;
	row_keep(y, key);
	if (!full)
		blank(y, 0, COLS);
	return false;
}

/* Row y at column x shows old and is to show s, both of the same display
 * width: writes only from the first to the last code point that differ. */
static void put_diff(int y, int x, const char *old, const char *s)
{
	size_t n = strlen(s), m = strlen(old), a = 0, e = 0;
	int col = 0;

	while (s[a] && s[a] == old[a])
		a++;
	while (a > 0 && ((unsigned char)s[a] & 0xC0) == 0x80)
		a--;
	while (e < n - a && e < m - a && s[n - 1 - e] == old[m - 1 - e])
		e++;
	while (e > 0 && ((unsigned char)s[n - e] & 0xC0) == 0x80)
		e--;
	for (size_t i = 0; i < a; i++)
		col += ((unsigned char)s[i] & 0xC0) != 0x80;
	if (a < n - e)
		tui_addn(stdscr, y, x + col, s + a, (int)(n - e - a));
}

/* Whether s is printable ASCII exactly w columns wide: two such texts
 * differ on screen where their bytes do, as put_diff needs. */
static bool ascii_row(const char *s, int w)
{
	int n = 0;

	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e)
			return false;
	return n == w;
}

static void centre(struct ms_rect r, int dy, const char *s, int attr)
{
	tui_centre(stdscr, r.y + dy, r.x, r.w, s, attr);
}

static int layer_attr(enum plot_layer k, int colour)
{
	switch (k) {
	case PLOT_FAINT:
		return tui_faint();
	case PLOT_MARK:
		return tui_colour() ? A_BOLD | (int)COLOR_PAIR(TP_MARK) : A_REVERSE;
	case PLOT_LIVE:
		break;
	default:
		return A_BOLD | tui_attr(tui_place_pair(k - PLOT_LINE));
	}
	return colour;
}

/* Where a plot's graph is and its series' colour, for put_cells. */
struct graph_at {
	struct ms_rect g;
	int colour;
};

static void put_cells(void *arg, const struct plot_canvas *c, int row, int col, int n,
		      enum plot_layer layer)
{
	const struct graph_at *at = arg;

	attrset(layer_attr(layer, at->colour));
	tui_put_cells(stdscr, at->g.y + row, at->g.x + col,
		      c->cells + (size_t)row * (size_t)c->w + (size_t)col, n);
}

/* A notice in place of the graph, unless it is there already. */
static void plot_note(struct slot *sl, struct ms_rect g, const char *s, int attr, bool full)
{
	if (!full && !sl->graph && !strcmp(sl->note, s))
		return;
	if (!full)
		for (int row = 0; row < g.h; row++)
			blank(g.y + row, g.x, g.w);
	centre(g, g.h / 2, s, attr);
	snprintf(sl->note, sizeof(sl->note), "%s", s);
	sl->graph = false;
}

/* Whether plot pl's title would come out as its slot shows it: made of
 * the same scale, newest value, extra text and notice (the frame's plots,
 * width and glyphs are the same). If not, remembers them. */
static bool title_same(struct slot *sl, const struct ms_plot *pl, double ymax)
{
	double last = pl->s ? series_last(pl->s) : NAN;
	const char *extra = pl->extra ? pl->extra : "";

	if (sl->t_ok && !memcmp(&ymax, &sl->t_ymax, sizeof(ymax)) &&
	    !memcmp(&last, &sl->t_last, sizeof(last)) &&
	    !memcmp(&pl->scale, &sl->t_scale, sizeof(pl->scale)) && pl->na == sl->t_na &&
	    !strcmp(extra, sl->t_extra))
		return true;
	sl->t_ymax = ymax;
	sl->t_last = last;
	sl->t_scale = pl->scale;
	sl->t_na = pl->na;
	/* an extra text too long to keep is never taken for the same */
	sl->t_ok = strlen(extra) < sizeof(sl->t_extra);
	snprintf(sl->t_extra, sizeof(sl->t_extra), "%s", extra);
	return false;
}

/* Whether the places' lines are told apart by glyphs (in ASCII, or
 * without colours), and the mode they are drawn in. */
static bool side_glyphs(void)
{
	return tui_mode() == PLOT_ASCII || !tui_colour();
}

/* Plot i with several places: their legends in the title, each in its
 * colour, and a line each on the model's time axis. */
static void draw_side_plot(const struct ms_model *m, int i, struct ms_rect r, bool full)
{
	const struct ms_plot *pl = &m->plot[i];
	struct slot *sl = &U.slot[i];
	struct ms_rect g = { r.y + 1, r.x, r.h - 1, r.w };
	enum plot_mode mode = side_glyphs() ? PLOT_ASCII : tui_mode();
	struct plot p = { .w = r.w, .h = r.h - 1, .mode = mode, .marks = m->marks,
			  .nmarks = m->nmarks };
	char title[sizeof(sl->title)];
	int at[MS_SIDES_MAX][2] = { { 0 } };
	struct graph_at ga = { g, A_NORMAL };
	bool any = false;

	if (r.h < 1)
		return;
	if (full) {
		sl->title[0] = sl->note[0] = '\0';
		sl->graph = false;
	}
	p.ymax = ms_plot_ymax(m, i, r.w, mode);
	ms_format_side_title(m, i, r.w, p.ymax, side_glyphs(), at, title, sizeof(title));
	if (full || strcmp(title, sl->title)) {
		if (!full)
			blank(r.y, r.x, r.w);
		attrset(A_BOLD);
		tui_put(stdscr, r.y, r.x, r.w, title);
		attrset(A_NORMAL);
		for (int j = 0; j < m->nsides && tui_colour(); j++)
			if (at[j][1] > 0)
				mvchgat(r.y, r.x + at[j][0], at[j][1], A_BOLD,
					(short)tui_place_pair(j), NULL);
		memcpy(sl->title, title, strlen(title) + 1);
		move(r.y, r.x);
	}
	for (int j = 0; j < m->nsides; j++)
		any = any || (pl->side[j] && series_len(pl->side[j]));
	if (g.h < 1)
		return;
	if (pl->na || !any || !(p.ymax > 0)) {
		plot_note(sl, g, pl->na ? pl->na : "waiting for samples",
			  (pl->na ? (int)A_BOLD : 0) | tui_attr(TP_DIM), full);
		return;
	}
	if (!sl->graph)
		plot_canvas_forget(&sl->canvas);
	if (plot_lines_draw(&sl->canvas, &p, &m->axis, pl->side, m->nsides, put_cells, &ga)) {
		plot_note(sl, g, "cannot draw", tui_attr(TP_BAD), full);
		return;
	}
	attrset(A_NORMAL);
	sl->graph = true;
}

static void draw_plot(const struct ms_model *m, int i, struct ms_rect r, bool full)
{
	const struct ms_plot *pl = &m->plot[i];
	struct slot *sl = &U.slot[i];
	struct ms_rect g = { r.y + 1, r.x, r.h - 1, r.w };
	char title[sizeof(sl->title)];
	struct plot p = { .w = r.w, .h = r.h - 1, .mode = tui_mode(),
			  .marks = m->marks, .nmarks = m->nmarks };
	struct graph_at at;

	if (r.h < 1)
		return;
	if (full) {
		sl->title[0] = sl->note[0] = '\0';
		sl->graph = sl->t_ok = false;
	}
	p.ymax = ms_plot_ymax(m, i, r.w, tui_mode());
	if (!title_same(sl, pl, p.ymax)) {
		ms_format_title(m, i, r.w, p.ymax, title, sizeof(title));
		if (!full && strcmp(title, sl->title) && ascii_row(sl->title, r.w) &&
		    ascii_row(title, r.w)) {
			/* a new value: the characters that changed, the cursor
			 * left where the whole title leaves it */
			attrset(A_BOLD);
			put_diff(r.y, r.x, sl->title, title);
			attrset(A_NORMAL);
			move(r.y, r.x);
		} else if (full || strcmp(title, sl->title)) {
			if (!full)
				blank(r.y, r.x, r.w);
			attrset(A_BOLD);
			tui_put(stdscr, r.y, r.x, r.w, title);
			attrset(A_NORMAL);
		}
		memcpy(sl->title, title, strlen(title) + 1);
	}
	if (g.h < 1)
		return;
	if (pl->na) {
		plot_note(sl, g, pl->na, A_BOLD | tui_attr(TP_DIM), full);
		return;
	}
	if (!pl->s || !series_len(pl->s)) {
		plot_note(sl, g, "waiting for samples", tui_attr(TP_DIM), full);
		return;
	}
	at = (struct graph_at){ g, tui_attr(tui_series_pair(pl->id)) };
	if (!sl->graph)
		plot_canvas_forget(&sl->canvas);
	/* the stored run's trace, faint, in the cells the live plot leaves
	 * blank: it shows where the stored run went higher */
	if (plot_canvas_draw(&sl->canvas, &p, pl->s, pl->against, put_cells, &at)) {
		plot_note(sl, g, "cannot draw", tui_attr(TP_BAD), full);
		return;
	}
	attrset(A_NORMAL);
	sl->graph = true;
}

/* Seconds the plots span: newest minus oldest visible sample. */
static double plot_span(const struct ms_model *m, int w)
{
	if (m->nsides > 1)
		return (w * plot_samples_per_cell(side_glyphs() ? PLOT_ASCII : tui_mode()) - 1) *
		       m->axis.dt;
	for (int i = 0; i < m->nplots; i++) {
		const struct series *s = m->plot[i].s;
		int n, len, right;
		double t0, t1;

		if (!s || (len = series_len(s)) < 2)
			continue;
		n = plot_window(s, w, plot_samples_per_cell(tui_mode()), &right);
		series_get(s, len - n, &t0, NULL);
		series_get(s, len - 1, &t1, NULL);
		return t1 - t0;
	}
	return NAN;
}

/* The key of a text row: its parts, in a form no other row takes; NULL
 * when it does not fit (the row is then always drawn). */
static const char *key_of(char *buf, size_t len, char kind, const char *a, const char *b,
			  int flags)
{
	size_t na = a ? strlen(a) : 0, nb = b ? strlen(b) : 0;
	int o = snprintf(buf, len, "%c%d\x01", kind, flags);

	if (o < 0 || (size_t)o + na + nb + 2 > len)
		return NULL;
	memcpy(buf + o, a ? a : "", na);
	buf[(size_t)o + na] = '\x01';
	memcpy(buf + (size_t)o + na + 1, b ? b : "", nb);
	buf[(size_t)o + na + 1 + nb] = '\0';
	return buf;
}

static void draw_header(const struct ms_model *m, const struct ms_layout *l, bool full)
{
	int w = l->header.w, st = l->header.h - 1;
	bool own = l->header.h > MS_HEADER_ROWS;	/* the tuning's own line */
	char left[1024], right[512], a[32], b[32], k[ROWKEY + 8], lw[1400];
	const char *wl = m->workload ? m->workload : "";
	double span;

	fmt_kib(a, sizeof(a), m->ram_kib);
	fmt_kib(b, sizeof(b), m->swap_kib);
	snprintf(right, sizeof(right), "RAM %s  swap %s  swappiness %s", a, b,
		 m->swappiness ? m->swappiness : "n/a");
	if (m->swapdevs && m->swapdevs[0] &&
	    fmt_text_cols(right) + fmt_text_cols(m->swapdevs) + 40 <= w)
		snprintf(right, sizeof(right),
			 "RAM %s  swap %s (%s)  swappiness %s", a, b,
			 m->swapdevs, m->swappiness ? m->swappiness : "n/a");
	if (m->nsides > 1) {
		snprintf(left, sizeof(left), "thrashtop  %s", m->sides_title ? m->sides_title : "");
		snprintf(right, sizeof(right), "%s", m->shared ? m->shared : "");
	} else {
		snprintf(left, sizeof(left), "thrashtop  %s  %s%s%s",
			 m->host ? m->host : "?", m->kernel ? m->kernel : "?",
			 m->place && m->place[0] ? "  " : "", m->place ? m->place : "");
	}
	if (fmt_text_cols(left) + fmt_text_cols(right) + 1 > w)
		memmove(left, left + 11, strlen(left + 11) + 1);
	snprintf(lw, sizeof(lw), "%s\x01%s", left, m->warning ? m->warning : "");
	if (!row_same(0, key_of(k, sizeof(k), 'H', lw, right, 0), full)) {
		attron(A_BOLD);
		tui_put_lr(stdscr, 0, 0, w, left, right);
		attroff(A_BOLD);
		if (m->warning) {
			int x = fmt_text_cols(left) + 2, room = w - fmt_text_cols(right) - 1 - x;

			attron(tui_attr(TP_BAD));
			tui_put(stdscr, 0, x, room, m->warning);
			attroff(tui_attr(TP_BAD));
		}
	}

	ms_header_right(m, m->paused, m->elapsed, right, sizeof(right));
	if (m->tuning && m->tuning[0] && !own)
		snprintf(left, sizeof(left), "%s | %s", wl, m->tuning);
	else
		snprintf(left, sizeof(left), "%s", wl);
	if (!row_same(1, key_of(k, sizeof(k), 'W', left, right, m->paused), full)) {
		tui_put_lr(stdscr, 1, 0, w, left, right);
		if (m->paused)
			mvchgat(1, imax(w - fmt_text_cols(right), 0), 6, A_REVERSE | A_BOLD,
				0, NULL);
	}
	if (own) {
		snprintf(left, sizeof(left), "tuning: %s", m->tuning);
		if (!row_same(2, key_of(k, sizeof(k), 'T', left, NULL, 0), full))
			tui_put(stdscr, 2, 0, w, left);
	}

	span = plot_span(m, m->nplots ? l->plot[0].w : w / 2);
	/* at 0.01 s the plots hold under a second: hundredths, not "0:00" */
	if (span < 10)
		fmt_duration(a, sizeof(a), span);
	else
		fmt_minsec(a, sizeof(a), span);
	snprintf(right, sizeof(right), "%s%splots: last %s", m->against ? m->against : "",
		 m->against ? "  " : "", a);
	if (l->plots_hidden)
		snprintf(right + strlen(right), sizeof(right) - strlen(right),
			 ", %d more: c", l->plots_hidden);
	/* where both do not fit, the stored run's name goes last: without
	 * it the faint trace is no one's */
	if (m->status && fmt_text_cols(m->status) + fmt_text_cols(right) + 1 > w)
		snprintf(right, sizeof(right), "%s", m->against ? m->against : "");
	if (m->status && fmt_text_cols(m->status) + fmt_text_cols(right) + 1 > w)
		right[0] = '\0';
	if (row_same(st, key_of(k, sizeof(k), 'S', m->status, right, m->status_error), full))
		return;
	if (m->status_error)
		attron(A_BOLD | tui_attr(TP_BAD));
	tui_put_lr(stdscr, st, 0, w, m->status ? m->status : "", right);
	if (m->status_error)
		attroff(A_BOLD | tui_attr(TP_BAD));
	mvchgat(st, w - fmt_text_cols(right), fmt_text_cols(right), A_NORMAL,
		tui_colour() ? TP_DIM : 0, NULL);
}

/* A place's own row above its workers, in its colour (bold red when it
 * failed or dropped). */
static void draw_head(const struct ms_worker *w, int y, int x, int width, bool full)
{
	char line[1024], k[ROWKEY + 8];
	int attr = w->head_bad ? A_BOLD | tui_attr(TP_BAD) : A_BOLD | tui_attr(tui_place_pair(w->side));

	snprintf(line, sizeof(line), "%s", w->head);
	if (row_same(y, key_of(k, sizeof(k), 'P', line, NULL, w->side * 2 + w->head_bad), full))
		return;
	attron(attr);
	tui_put(stdscr, y, x, width, line);
	attroff(attr);
}

static void draw_workers(const struct ms_model *m, const struct ms_layout *l, bool full)
{
	struct ms_rect r = l->workers;
	char line[1024], t[16], k[ROWKEY + 8];
	int maxscroll = m->nworkers - l->worker_rows, y = r.y + 1;

	if (!r.h)
		return;
	if (U.scroll > maxscroll)
		U.scroll = maxscroll;
	if (U.scroll < 0)
		U.scroll = 0;
	(m->stalls ? ms_format_worker_stalls : ms_format_worker)(NULL, r.w, tui_utf8(), line,
								  sizeof(line));
	if (!row_same(r.y, key_of(k, sizeof(k), 'C', line, NULL, 0), full)) {
		attron(A_REVERSE);
		tui_add(stdscr, r.y, r.x, line);
		attroff(A_REVERSE);
	}
	for (int i = U.scroll; i < U.scroll + l->worker_rows; i++, y++) {
		const struct ms_worker *w = &m->workers[i];
		int prog = fmt_text_cols(ms_end_text(w, t, sizeof(t)));
		bool bad = w->state == 'D' || w->state == 'Z';

		const char *key, *old = row_key(y), *sep;
		size_t head;

		if (w->head) {
			draw_head(w, y, r.x, r.w, full);
			continue;
		}
		/* the row's colours follow from its text: state and end */
		(m->stalls ? ms_format_worker_stalls : ms_format_worker)(w, r.w, tui_utf8(), line,
									  sizeof(line));
		key = key_of(k, sizeof(k), 'R', line, NULL, (int)w->end * 2 + bad);
		sep = key ? strchr(key, '\x01') : NULL;
		head = sep ? (size_t)(sep - key + 1) : 0;
		if (!full && old && sep && !strncmp(old, key, head)) {
			/* the same colours and width (every row is r.w wide):
			 * only what changed */
			if (!strcmp(old, key))
				continue;
			put_diff(y, r.x, old + head, key + head);
			row_keep(y, key);
		} else {
			row_same(y, key, full);
			tui_add(stdscr, y, r.x, line);
		}
		if (bad)
			mvchgat(y, MS_WCOL_STATE, 1, tui_colour() ? A_BOLD : A_REVERSE,
				tui_colour() ? TP_BAD : 0, NULL);
		if (w->end == END_OK)
			mvchgat(y, MS_WCOL_PROG, prog, A_NORMAL,
				tui_colour() ? TP_GOOD : 0, NULL);
		else if (w->end != END_RUNNING)
			mvchgat(y, MS_WCOL_PROG, prog, A_BOLD,
				tui_colour() ? TP_BAD : 0, NULL);
	}
	if (l->worker_more) {
		int below = m->nworkers - U.scroll - l->worker_rows;

		if (U.scroll && below)
			snprintf(line, sizeof(line),
				 "  %d more below, %d above (Up/Down, PgUp/PgDn)",
				 below, U.scroll);
		else if (U.scroll)
			snprintf(line, sizeof(line),
				 "  %d more above (Up/PgUp)", U.scroll);
		else
			snprintf(line, sizeof(line),
				 "  %d more (Down/PgDn to scroll)", below);
		if (row_same(y, key_of(k, sizeof(k), 'M', line, NULL, 0), full))
			return;
		attron(tui_attr(TP_DIM) | A_BOLD);
		tui_put(stdscr, y, r.x, r.w, line);
		attroff(tui_attr(TP_DIM) | A_BOLD);
	}
}

/* The lane under each column of plots, on that column's time axis. */
static void draw_lane(const struct ms_model *m, const struct ms_layout *l, bool full)
{
	char text[ROWKEY], k[ROWKEY + 8];
	size_t o = 0;
	int ncol = imax(l->plot_cols, 1), cw = (l->lane.w - (ncol - 1)) / ncol;

	if (!l->lane.h)
		return;
	for (int col = 0; col < ncol && o + 8 < sizeof(text); col++) {
		int x = col * (cw + 1), w = col == ncol - 1 ? l->lane.w - x : cw;
		char seg[ROWKEY];

		ms_format_lane(m->lane_awake, m->lane_throttled, m->lane_kills, m->nlane_kills, w,
			       plot_samples_per_cell(tui_mode()), tui_utf8(), seg, sizeof(seg));
		o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", col ? " " : "", seg);
	}
	if (row_same(l->lane.y, key_of(k, sizeof(k), 'R', text, NULL, 0), full))
		return;
	attron(tui_attr(tui_series_pair(M_KSWAPD_AWAKE)));
	tui_put(stdscr, l->lane.y, 0, l->lane.w, text);
	attroff(tui_attr(tui_series_pair(M_KSWAPD_AWAKE)));
}

static void draw_runs(const struct ms_model *m, const struct ms_layout *l, bool full)
{
	struct ms_rect r = l->runs;
	char title[64], k[ROWKEY + 8];
	int first = m->ndone - l->runs_rows;

	if (!r.h)
		return;
	snprintf(title, sizeof(title), "runs ended: %d", m->ndone);
	if (!row_same(r.y, key_of(k, sizeof(k), 'D', title, NULL, 0), full)) {
		attron(A_BOLD);
		tui_put(stdscr, r.y, r.x, r.w, title);
		attroff(A_BOLD);
	}
	for (int i = 0; i < l->runs_rows; i++) {
		char s[512];

		ms_format_done(m->done[first + i] ? m->done[first + i] : "", r.w, tui_utf8(), s,
			       sizeof(s));
		if (!row_same(r.y + 1 + i, key_of(k, sizeof(k), 'L', s, NULL, 0), full))
			tui_put(stdscr, r.y + 1 + i, r.x, r.w, s);
	}
}

/* The overlay is its own window so closing it restores whatever frame
 * stdscr holds, a paused one included. */
static WINDOW *help_win;

static void draw_help(const struct ms_model *m)
{
	static const char *const mark[] = { "K", "T", NULL };
	static const char *const what[] = { "OOM kill", "reclaim throttled", "kswapd awake" };
	char line[256];
	int n = 0, h, w = imin(50, COLS), rows, y = 3;

	for (int i = 0; i < m->nkeys; i++)
		n += m->keys[i].keys != NULL;
	/* the lane's marks under a heading of their own, as K and T are
	 * also keys; in the keys' columns */
	if (m->lane_awake)
		n += 4;
	h = imin(n + 4, LINES);
	rows = imax(h - 4, 1);
	/* a screen too short for all of it scrolls it (Up/Down, PgUp/PgDn) */
	U.help_top = imax(imin(U.help_top, n - rows), 0);

	if (help_win)
		delwin(help_win);
	help_win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
	if (!help_win)
		return;
	werase(help_win);
	box(help_win, 0, 0);
	wattron(help_win, A_BOLD);
	mvwaddnstr(help_win, 1, 2, n > rows ? "thrashtop keys (Up/Down for more)" : "thrashtop keys",
		   w - 4);
	wattroff(help_win, A_BOLD);
	for (int i = 0, k = 0; k < n && y < h - 1; k++) {
		int attr = 0;

		if (k < n - (m->lane_awake ? 4 : 0)) {
			while (!m->keys[i].keys)
				i++;
			tui_key_line(&m->keys[i++], line, sizeof(line));
		} else if (k == n - 4) {
			snprintf(line, sizeof(line), "marks in the event lane");
			attr = A_BOLD;
		} else {
			int j = k - (n - 3);

			snprintf(line, sizeof(line), "%s%9s%s",
				 mark[j] ? mark[j] : tui_utf8() ? "\u2501" : "=", "", what[j]);
		}
		if (k < U.help_top)
			continue;
		wattron(help_win, attr);
		mvwaddnstr(help_win, y++, 2, line, w - 4);
		wattroff(help_win, attr);
	}
	wnoutrefresh(help_win);
}

static void close_help(void)
{
	if (help_win)
		delwin(help_win);
	help_win = NULL;
	touchwin(stdscr);
	wnoutrefresh(stdscr);
}

/* Whether the last frame was drawn for the same model, terminal, glyphs
 * and layout: then stdscr holds it, and only what changed is written. */
static bool same_frame(const struct ms_model *m, const struct ms_layout *l)
{
	if (m != U.f_model || COLS != U.f_cols || LINES != U.f_lines || tui_mode() != U.f_mode ||
	    tui_utf8() != U.f_utf8 || l->too_small || memcmp(l, &U.f_layout, sizeof(*l)))
		return false;
	for (int i = 0; i < m->nplots; i++)
		if (m->plot[i].id != U.f_ids[i])
			return false;
	return true;
}

/* A blank screen, and nothing remembered of what was on it. */
static void clear_frame(const struct ms_model *m, const struct ms_layout *l)
{
	erase();
	U.f_model = m;
	U.f_cols = COLS;
	U.f_lines = LINES;
	U.f_mode = tui_mode();
	U.f_utf8 = tui_utf8();
	U.f_layout = *l;
	for (int i = 0; i < m->nplots; i++)
		U.f_ids[i] = m->plot[i].id;
	if (LINES > U.nrowkeys) {
		char *k = realloc(U.rowkey, (size_t)LINES * ROWKEY);

		if (k) {
			U.rowkey = k;
			U.nrowkeys = LINES;
		}
	}
	for (int y = 0; y < U.nrowkeys; y++)
		U.rowkey[(size_t)y * ROWKEY] = '\0';
}

/* The model on stdscr, not yet sent to the terminal: in full on a blank
 * screen, or only what changed since the last frame. */
static void paint(const struct ms_model *m, struct ms_layout *l, bool full)
{
	ms_layout(COLS, LINES, m, l);
	if (full || !same_frame(m, l)) {
		full = true;
		clear_frame(m, l);
	}
	if (l->too_small) {
		tui_draw_too_small(stdscr);
		return;
	}
	draw_header(m, l, full);
	for (int i = 0; i < m->nplots; i++)
		(m->nsides > 1 ? draw_side_plot : draw_plot)(m, i, l->plot[i], full);
	draw_lane(m, l, full);
	draw_workers(m, l, full);
	draw_runs(m, l, full);
}

void ms_draw(const struct ms_model *m)
{
	struct prof_mark pm;
	struct ms_layout l;

	if (!tui_active())
		return;
	prof_begin(&pm);
	if (!m->paused || U.need_full) {
		paint(m, &l, U.need_full);
		U.need_full = false;
		U.shown = l.too_small ? 0 : l.worker_rows;
		wnoutrefresh(stdscr);
		if (U.help && !l.too_small)
			draw_help(m);
	}
	if (U.overlay)
		U.overlay(U.overlay_arg);
	prof_end(PROF_DRAW, &pm);
	prof_begin(&pm);
	cast_doupdate();
	prof_end(PROF_OUTPUT, &pm);
	prof_frame();
}

void ms_touch(void)
{
	U.need_full = true;
}

void ms_set_overlay(void (*draw)(void *arg), void *arg)
{
	U.overlay = draw;
	U.overlay_arg = arg;
	U.need_full = true;
}

int ms_dump(const struct ms_model *m, FILE *f)
{
	enum plot_mode mode = tui_mode();
	bool utf8 = tui_utf8();
	struct ms_layout l;
	wchar_t line[1024];
	char out[4096];
	int rc = 0;

	if (!tui_active())
		return -1;
	tui_set_mode(PLOT_ASCII);
	tui_set_utf8(false);
	paint(m, &l, true);
	for (int y = 0; y < LINES && rc == 0; y++) {
		int n = mvinnwstr(y, 0, line, COLS < 1023 ? COLS : 1023);
		size_t len;

		if (n == ERR)
			n = 0;
		line[n] = L'\0';
		len = wcstombs(out, line, sizeof(out) - 1);
		if (len == (size_t)-1)
			len = 0;
		while (len > 0 && out[len - 1] == ' ')
			len--;
		out[len] = '\0';
		if (fprintf(f, "%s\n", out) < 0)
			rc = -1;
	}
	tui_set_mode(mode);
	tui_set_utf8(utf8);
	/* drawn whole by the caller's next frame, paused or not, with the
	 * note that names the file */
	U.need_full = true;
	return rc;
}

bool ms_help_shown(void)
{
	return U.help;
}

static void redraw(const struct ms_model *m)
{
	U.need_full = true;
	ms_draw(m);
}

static void help_show(const struct ms_model *m, bool on)
{
	if (U.help == on)
		return;
	U.help = on;
	U.help_top = 0;
	if (!tui_active())
		return;
	if (on)
		draw_help(m);
	else
		close_help();
	cast_doupdate();
}

/* Scrolls the worker rows as op asks, within the rows there are. */
static void scroll_rows(const struct ms_model *m, int op)
{
	struct ms_layout l;
	int page, to;

	ms_layout(tui_active() ? COLS : 80, tui_active() ? LINES : 24, m, &l);
	page = l.worker_rows > 1 ? l.worker_rows - 1 : 1;
	switch (op) {
	case MS_UP: to = U.scroll - 1; break;
	case MS_DOWN: to = U.scroll + 1; break;
	case MS_PGUP: to = U.scroll - page; break;
	case MS_PGDN: to = U.scroll + page; break;
	case MS_HOME: to = 0; break;
	default: to = m->nworkers; break;
	}
	U.scroll = imax(imin(to, m->nworkers - l.worker_rows), 0);
	redraw(m);
}

void ms_do(struct ms_model *m, int op)
{
	switch (op) {
	case MS_PAUSE:
		m->paused = !m->paused;
		redraw(m);
		return;
	case MS_STALLS:
		m->stalls = !m->stalls;
		redraw(m);
		return;
	case MS_WORKERS:
		m->workers_first = !m->workers_first;
		redraw(m);
		return;
	case MS_HELP:
		help_show(m, !U.help);
		return;
	case MS_HELP_CLOSE:
		help_show(m, false);
		return;
	case MS_RESIZE:
		redraw(m);
		return;
	case MS_REDRAW:
		if (tui_active())
			clearok(curscr, TRUE);
		redraw(m);
		return;
	case MS_UP: case MS_DOWN: case MS_PGUP: case MS_PGDN: case MS_HOME: case MS_END:
		if (U.help) {	/* the help box's lines, where it is cut */
			int step = op == MS_PGUP || op == MS_PGDN ? imax(LINES - 4, 1) : 1;

			U.help_top += op == MS_UP || op == MS_PGUP ? -step :
				      op == MS_HOME ? -U.help_top : op == MS_END ? 1000 : step;
			if (tui_active()) {
				draw_help(m);
				cast_doupdate();
			}
			return;
		}
		scroll_rows(m, op);
		return;
	}
}

int ms_scroll(void)
{
	return U.scroll;
}

int ms_rows_shown(void)
{
	return tui_active() ? U.shown : -1;
}

void ms_end(void)
{
	if (help_win)
		delwin(help_win);
	help_win = NULL;
	for (int i = 0; i < MS_MAX_PLOTS; i++) {
		plot_canvas_free(&U.slot[i].canvas);
		U.slot[i] = (struct slot){ 0 };
	}
	free(U.rowkey);
	U.rowkey = NULL;
	U.nrowkeys = 0;
	U.f_model = NULL;
	U.need_full = true;
	U.help = false;
	U.scroll = 0;
	U.shown = -1;
}
