#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "ui.h"

/* Colour pairs; 0 is the terminal default. */
enum {
	CP_SWAP = 1, CP_FREE, CP_AVAIL, CP_MAJFLT, CP_MINFLT, CP_KSWAPD,
	CP_MARK, CP_BAD, CP_GOOD, CP_DIM,
};

static const struct {
	const char *title, *shorter;
	short fg;
} plot_info[UI_NPLOTS] = {
	[UI_PLOT_SWAP] = { "swap used", "swap", COLOR_MAGENTA },
	[UI_PLOT_FREE] = { "free", "free", COLOR_GREEN },
	[UI_PLOT_AVAIL] = { "available", "avail", COLOR_CYAN },
	[UI_PLOT_MAJFLT] = { "major faults", "majflt", COLOR_RED },
	[UI_PLOT_MINFLT] = { "minor faults", "minflt", COLOR_YELLOW },
	[UI_PLOT_KSWAPD] = { "kswapd CPU", "kswapd", COLOR_BLUE },
};

/* Left column memory, right column rates: the panel each plot takes. */
static const int plot_slot[UI_NPLOTS] = {
	[UI_PLOT_SWAP] = 0, [UI_PLOT_FREE] = 2, [UI_PLOT_AVAIL] = 4,
	[UI_PLOT_MAJFLT] = 1, [UI_PLOT_MINFLT] = 3, [UI_PLOT_KSWAPD] = 5,
};

static struct {
	bool active;
	SCREEN *scr;
	FILE *tty;		/* /dev/tty when opened by us */
	FILE *in;
	enum plot_mode mode;
	bool utf8;
	bool colour;
	bool help;
	bool need_full;		/* draw even when paused */
	int scroll;		/* first worker shown */
	char *buf;		/* plot rows, grown on resize only */
	size_t bufsize;
	unsigned char *markcol;
	size_t marksize;
} U = { .mode = PLOT_ASCII, .need_full = true };

/* ---- pure parts ------------------------------------------------------ */

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* Rows the worker table takes showing wr of nw workers. */
static int table_rows(int nw, int wr)
{
	return nw ? 1 + wr + (wr < nw) : 0;
}

/* Adds workers one at a time while the rows allow, up to target. */
static void grow_workers(int nw, int target, int *wr, int *rem)
{
	while (*wr < imin(nw, target)) {
		int cost = table_rows(nw, *wr + 1) - table_rows(nw, *wr);

		if (cost > *rem)
			break;
		*rem -= cost;
		(*wr)++;
	}
}

void ui_layout(int cols, int rows, int nworkers, int ndone,
	       struct ui_layout *l)
{
	const int prow = 3;	/* plot rows, two plots each */
	int rem, gh = 2, wr, runs = 0, y, lw, maxruns;

	memset(l, 0, sizeof(*l));
	if (cols < UI_MIN_COLS || rows < UI_MIN_ROWS) {
		l->too_small = true;
		return;
	}
	if (nworkers < 0)
		nworkers = 0;
	l->header = (struct ui_rect){ 0, 0, UI_HEADER_ROWS, cols };

	/* Essentials first: small plots, two workers, the last run; then
	 * grow in order of what a reader misses most. */
	wr = imin(nworkers, 2);
	rem = rows - UI_HEADER_ROWS - prow * (gh + 1) - table_rows(nworkers, wr);
	if (ndone > 0 && rem >= 2) {
		runs = 1;
		rem -= 2;
	}
	if (rem >= prow) {
		gh = 3;
		rem -= prow;
	}
	grow_workers(nworkers, 5, &wr, &rem);
	while (gh < 8 && rem >= prow) {
		gh++;
		rem -= prow;
	}
	maxruns = rows / 6;
	while (runs > 0 && runs < imin(ndone, maxruns) && rem > 0) {
		runs++;
		rem--;
	}
	grow_workers(nworkers, nworkers, &wr, &rem);
	while (gh < 20 && rem >= prow) {
		gh++;
		rem -= prow;
	}

	y = UI_HEADER_ROWS;
	lw = (cols - 1) / 2;
	for (int id = 0; id < UI_NPLOTS; id++) {
		int slot = plot_slot[id], right = slot % 2;

		l->plot[id] = (struct ui_rect){
			y + slot / 2 * (gh + 1), right ? lw + 1 : 0,
			gh + 1, right ? cols - lw - 1 : lw };
	}
	y += prow * (gh + 1);
	l->worker_rows = wr;
	l->worker_more = wr < nworkers;
	l->workers = (struct ui_rect){ y, 0, table_rows(nworkers, wr), cols };
	y += l->workers.h;
	l->runs_rows = runs;
	l->runs = (struct ui_rect){ y, 0, runs ? runs + 1 : 0, cols };
}

char *ui_format_bar(double frac, int width, bool utf8, char *buf, size_t len)
{
	int cells = width - 2, eighths, o = 0;

	if (len < (size_t)width * PLOT_GLYPH_MAX + 1 || width < 2) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	if (isnan(frac) || frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	eighths = (int)floor(frac * cells * 8);
	buf[o++] = '[';
	for (int c = 0; c < cells; c++) {
		int f = eighths - c * 8;

		if (f >= 8) {
			if (utf8) {
				memcpy(buf + o, "\u2588", 3);
				o += 3;
			} else {
				buf[o++] = '#';
			}
		} else if (f > 0 && utf8) {
			/* U+258F is one eighth, U+2589 seven eighths */
			unsigned cp = 0x2590 - (unsigned)f;

			buf[o++] = (char)(0xE0 | (cp >> 12));
			buf[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
			buf[o++] = (char)(0x80 | (cp & 0x3F));
		} else {
			buf[o++] = ' ';
		}
	}
	buf[o++] = ']';
	buf[o] = '\0';
	return buf;
}

/* Worker table columns for a given width. */
struct wcols {
	int prog;		/* progress field width */
	bool minflt, rss;	/* dropped, in that order, when narrow */
};

#define WCOL_STATE 8
#define WCOL_PROG 17
#define WCOL_PROG_MIN 16
#define WCOL_PROG_MAX 40

static void worker_cols(int width, struct wcols *c)
{
	c->minflt = c->rss = true;
	c->prog = imin(width - 56, WCOL_PROG_MAX);
	if (c->prog < WCOL_PROG_MIN) {
		c->minflt = false;
		c->prog += 8;
	}
	if (c->prog < WCOL_PROG_MIN) {
		c->rss = false;
		c->prog += 7;
	}
}

/* Exact counts up to 7 digits, then 3 significant digits and a suffix. */
static void fmt_count(char *buf, size_t len, int64_t v)
{
	static const char unit[] = "kMGTPE";
	double x = (double)v;
	int u = -1;

	if (v < 0) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (v < 10000000) {
		snprintf(buf, len, "%lld", (long long)v);
		return;
	}
	while (x >= 999.5 && u < 5) {
		x /= 1000;
		u++;
	}
	snprintf(buf, len, x < 9.995 ? "%.2f%c" : x < 99.95 ? "%.1f%c" : "%.0f%c",
		 x, unit[u]);
}

static const char *end_text(const struct ui_worker *w, char *buf, size_t len)
{
	switch (w->end) {
	case END_RUNNING:
		return "";
	case END_OK:
		return "ok";
	case END_VERIFY:
		return "verify failed";
	case END_EXIT:
		snprintf(buf, len, "exit %d", w->code);
		return buf;
	case END_SIGNAL:
		snprintf(buf, len, "signal %d", w->code);
		return buf;
	case END_OOM:
		return "OOM killed";
	}
	return "?";
}

/* The progress field: a bar and percent, a command's elapsed time, or how
 * the worker ended. */
static void format_progress(const struct ui_worker *w, int width, bool utf8,
			    char *buf, size_t len)
{
	char t[32];

	if (w->end != END_RUNNING) {
		snprintf(buf, len, "%s", end_text(w, t, sizeof(t)));
	} else if (!w->phase) {
		fmt_duration(t, sizeof(t), w->elapsed);
		snprintf(buf, len, "running %s", t);
	} else {
		size_t o;

		ui_format_bar(w->frac, width - 5, utf8, buf, len);
		o = strlen(buf);
		if (isnan(w->frac))
			snprintf(buf + o, len - o, " n/a");
		else	/* truncated: 99.7% is not done */
			snprintf(buf + o, len - o, " %3d%%",
				 (int)floor(fmin(fmax(w->frac, 0), 1) * 100));
	}
}

/* Appends s padded with blanks (left or right aligned) to width columns. */
static size_t put_field(char *buf, size_t len, size_t o, const char *s,
			int width, bool right)
{
	int n = fmt_text_cols(s), pad = width > n ? width - n : 0;
	int nb = fmt_cut_bytes(s, width);

	if (o + (size_t)nb + (size_t)pad + 1 > len)
		return o;
	if (right) {
		memset(buf + o, ' ', (size_t)pad);
		o += (size_t)pad;
	}
	memcpy(buf + o, s, (size_t)nb);
	o += (size_t)nb;
	if (!right) {
		memset(buf + o, ' ', (size_t)pad);
		o += (size_t)pad;
	}
	buf[o] = '\0';
	return o;
}

char *ui_format_worker(const struct ui_worker *w, int width, bool utf8,
		       char *buf, size_t len)
{
	char pid[16], st[2], prog[256], cpu[32], maj[16], min[16], rss[16],
	     swp[16];
	struct wcols c;
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	worker_cols(width, &c);
	if (!w) {
		snprintf(pid, sizeof(pid), "PID");
		snprintf(st, sizeof(st), "S");
		snprintf(prog, sizeof(prog), "PROGRESS");
		snprintf(cpu, sizeof(cpu), "CPU");
		snprintf(maj, sizeof(maj), "MAJFLT");
		snprintf(min, sizeof(min), "MINFLT");
		snprintf(rss, sizeof(rss), "RSS");
		snprintf(swp, sizeof(swp), "SWAP");
	} else {
		snprintf(pid, sizeof(pid), "%d", (int)w->pid);
		st[0] = w->state ? w->state : w->end != END_RUNNING ? '-' : '?';
		st[1] = '\0';
		format_progress(w, imin(c.prog, 80), utf8, prog, sizeof(prog));
		fmt_duration(cpu, sizeof(cpu), w->cpu_s);
		fmt_count(maj, sizeof(maj), w->majflt);
		fmt_count(min, sizeof(min), w->minflt);
		fmt_kib(rss, sizeof(rss), w->rss_kib);
		fmt_kib(swp, sizeof(swp), w->swap_kib);
	}
	o = put_field(buf, len, o, pid, 7, true);
	o = put_field(buf, len, o, " ", 1, false);
	o = put_field(buf, len, o, st, 1, false);
	o = put_field(buf, len, o, " ", 1, false);
	o = put_field(buf, len, o, !w ? "PHASE" : w->phase ? w->phase : "cmd",
		      6, false);
	o = put_field(buf, len, o, " ", 1, false);
	o = put_field(buf, len, o, prog, c.prog, false);
	o = put_field(buf, len, o, cpu, 9, true);
	o = put_field(buf, len, o, maj, 8, true);
	if (c.minflt)
		o = put_field(buf, len, o, min, 8, true);
	if (c.rss)
		o = put_field(buf, len, o, rss, 7, true);
	o = put_field(buf, len, o, swp, 7, true);
	put_field(buf, len, o, "", width - fmt_text_cols(buf), false);
	return buf;
}

/* ---- drawing --------------------------------------------------------- */

static int attr_pair(int pair)
{
	return U.colour ? (int)COLOR_PAIR(pair) : 0;
}

/* Draws s in at most w columns. Text that does not fit ends with an
 * ellipsis, and never inside a number: "-n 90000000" must not show as
 * "-n 9000000". */
static void put(int y, int x, int w, const char *s)
{
	const char *mark = U.utf8 ? "\u2026" : "...";
	int mw = U.utf8 ? 1 : 3, nb, sp;
	char exp[1024];

	if (w <= 0)
		return;
	if (strchr(s, '\t')) {
		/* tcsh's time line has a tab: expand it as a terminal would,
		 * so the width is known and nothing wraps */
		size_t o = 0;
		int col = 0;

		for (; *s && o + 9 < sizeof(exp); s++) {
			if (*s == '\t') {
				do
					exp[o++] = ' ';
				while (++col % 8);
				continue;
			}
			exp[o++] = *s;
			col += ((unsigned char)*s & 0xC0) != 0x80;
		}
		exp[o] = '\0';
		s = exp;
	}
	if (fmt_text_cols(s) <= w) {
		mvaddstr(y, x, s);
		return;
	}
	if (w <= mw) {
		mvaddnstr(y, x, mark, fmt_cut_bytes(mark, w));
		return;
	}
	nb = fmt_cut_bytes(s, w - mw);
	if (nb > 0 && isdigit((unsigned char)s[nb]) &&
	    (isdigit((unsigned char)s[nb - 1]) || s[nb - 1] == '.')) {
		for (sp = nb; sp > 0 && s[sp - 1] != ' '; sp--)
			;
		nb = sp;
	}
	mvaddnstr(y, x, s, nb);
	addstr(mark);
}

/* left at x, right flush with x + w; left gives way when both do not fit. */
static void put_lr(int y, int x, int w, const char *left, const char *right)
{
	int rn = imin(fmt_text_cols(right), w);

	put(y, x, w - rn - (rn ? 1 : 0), left);
	put(y, x + w - rn, rn, right);
}

static void fmt_kibd(char *buf, size_t len, double kib)
{
	if (isnan(kib))
		snprintf(buf, len, "n/a");
	else
		fmt_kib(buf, len, (int64_t)llround(kib));
}

/* Value of plot id in its unit; with pct also the share of scale. */
static void fmt_value(int id, double v, double scale, char *buf, size_t len)
{
	char a[32];

	switch (id) {
	case UI_PLOT_SWAP:
		fmt_kibd(a, sizeof(a), v);
		if (!isnan(v) && scale > 0)
			/* truncated: 99.6% full is not "100%" */
			snprintf(buf, len, "%s (%d%%)", a,
				 (int)(fmin(fmax(v / scale, 0), 1) * 100));
		else
			snprintf(buf, len, "%s", a);
		return;
	case UI_PLOT_FREE:
	case UI_PLOT_AVAIL:
		fmt_kibd(buf, len, v);
		return;
	case UI_PLOT_MAJFLT:
	case UI_PLOT_MINFLT:
		fmt_rate(buf, len, v);
		return;
	case UI_PLOT_KSWAPD:
		fmt_pct(buf, len, v);
		return;
	}
}

static bool is_kib(int id)
{
	return id == UI_PLOT_SWAP || id == UI_PLOT_FREE || id == UI_PLOT_AVAIL;
}

static bool ensure_buffers(int w, int h)
{
	size_t need = PLOT_ROW_BYTES(w) * (size_t)h;

	if (need > U.bufsize) {
		char *b = realloc(U.buf, need);

		if (!b)
			return false;
		U.buf = b;
		U.bufsize = need;
	}
	if ((size_t)w > U.marksize) {
		unsigned char *m = realloc(U.markcol, (size_t)w);

		if (!m)
			return false;
		U.markcol = m;
		U.marksize = (size_t)w;
	}
	return true;
}

static void centre(struct ui_rect r, int dy, const char *s, int attr)
{
	int n = imin(fmt_text_cols(s), r.w);

	attron(attr);
	put(r.y + dy, r.x + (r.w - n) / 2, r.w, s);
	attroff(attr);
}

static void draw_plot(const struct ui_model *m, int id, struct ui_rect r)
{
	const struct ui_plot *pl = &m->plot[id];
	struct ui_rect g = { r.y + 1, r.x, r.h - 1, r.w };
	char val[48], sc[48], left[96], right[64];
	struct plot p = { .w = r.w, .h = r.h - 1, .mode = U.mode,
			  .marks = m->marks, .nmarks = m->nmarks };
	double lo, hi, v = pl->s ? series_last(pl->s) : NAN;
	int k = plot_samples_per_cell(U.mode);

	p.ymax = pl->scale;
	if (!(p.ymax > 0) && pl->s) {
		series_minmax(pl->s, r.w * k, &lo, &hi);
		p.ymax = is_kib(id) ? plot_nice_kib(hi) : plot_nice_max(hi);
	}
	if (pl->na || !(p.ymax > 0))
		snprintf(sc, sizeof(sc), "%s", "");
	else if (is_kib(id))
		fmt_kibd(sc, sizeof(sc), p.ymax);
	else if (id == UI_PLOT_KSWAPD)
		snprintf(sc, sizeof(sc), "%g%%", p.ymax);
	else
		fmt_rate(sc, sizeof(sc), p.ymax);
	fmt_value(id, pl->na ? NAN : v, p.ymax, val, sizeof(val));
	snprintf(right, sizeof(right), sc[0] ? "0..%s" : "%s", sc);
	snprintf(left, sizeof(left), "%s %s", plot_info[id].title, val);
	if (fmt_text_cols(left) + fmt_text_cols(right) + 1 > r.w)
		snprintf(left, sizeof(left), "%s %s", plot_info[id].shorter, val);

	attron(A_BOLD);
	put_lr(r.y, r.x, r.w, left, right);
	attroff(A_BOLD);
	if (g.h < 1)
		return;
	if (pl->na) {
		centre(g, g.h / 2, pl->na, A_BOLD | attr_pair(CP_DIM));
		return;
	}
	if (!pl->s || !series_len(pl->s)) {
		centre(g, g.h / 2, "waiting for samples", attr_pair(CP_DIM));
		return;
	}
	if (!ensure_buffers(p.w, p.h) ||
	    plot_render(&p, pl->s, U.buf, PLOT_ROW_BYTES(p.w), U.markcol)) {
		centre(g, g.h / 2, "cannot draw", attr_pair(CP_BAD));
		return;
	}
	attron(attr_pair(CP_SWAP + id));
	for (int row = 0; row < p.h; row++)
		mvaddstr(g.y + row, g.x, U.buf + (size_t)row * PLOT_ROW_BYTES(p.w));
	attroff(attr_pair(CP_SWAP + id));
	for (int c = 0; c < p.w && m->nmarks; c++)
		if (U.markcol[c])
			for (int row = 0; row < p.h; row++)
				mvchgat(g.y + row, g.x + c, 1,
					U.colour ? A_BOLD : A_REVERSE,
					U.colour ? CP_MARK : 0, NULL);
}

/* Seconds the plots span: newest minus oldest visible sample. */
static double plot_span(const struct ui_model *m, int w)
{
	for (int id = 0; id < UI_NPLOTS; id++) {
		const struct series *s = m->plot[id].s;
		int n, len;
		double t0, t1;

		if (!s || (len = series_len(s)) < 2)
			continue;
		n = imin(len, w * plot_samples_per_cell(U.mode));
		series_get(s, len - n, &t0, NULL);
		series_get(s, len - 1, &t1, NULL);
		return t1 - t0;
	}
	return NAN;
}

/* Whole seconds as [h:]m:ss, truncated; n/a for NAN or negative. */
static void fmt_minsec(char *buf, size_t len, double sec)
{
	long long s;

	if (isnan(sec) || sec < 0 || sec > 9e12) {
		snprintf(buf, len, "n/a");
		return;
	}
	s = (long long)sec;
	if (s >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60,
			 s % 60);
	else
		snprintf(buf, len, "%lld:%02lld", s / 60, s % 60);
}

static void draw_header(const struct ui_model *m, const struct ui_layout *l)
{
	int w = l->header.w;
	char left[512], right[512], a[32], b[32], c[32];

	fmt_kib(a, sizeof(a), m->ram_kib);
	fmt_kib(b, sizeof(b), m->swap_kib);
	snprintf(right, sizeof(right), "RAM %s  swap %s  swappiness %s", a, b,
		 m->swappiness ? m->swappiness : "n/a");
	if (m->swapdevs && m->swapdevs[0] &&
	    fmt_text_cols(right) + fmt_text_cols(m->swapdevs) + 40 <= w)
		snprintf(right, sizeof(right),
			 "RAM %s  swap %s (%s)  swappiness %s", a, b,
			 m->swapdevs, m->swappiness ? m->swappiness : "n/a");
	snprintf(left, sizeof(left), "thrashtop  %s  %s",
		 m->host ? m->host : "?", m->kernel ? m->kernel : "?");
	if (fmt_text_cols(left) + fmt_text_cols(right) + 1 > w)
		memmove(left, left + 11, strlen(left + 11) + 1);
	attron(A_BOLD);
	put_lr(0, 0, w, left, right);
	attroff(A_BOLD);

	fmt_minsec(a, sizeof(a), m->elapsed);
	snprintf(b, sizeof(b), "%.3g", m->interval);
	if (m->nruns > 0)
		snprintf(c, sizeof(c), "run %d/%d ", m->run, m->nruns);
	else
		c[0] = '\0';
	snprintf(right, sizeof(right), "%s%s%s elapsed  interval %ss  ? help",
		 m->paused ? "PAUSED  " : "", c, a, b);
	put_lr(1, 0, w, m->workload ? m->workload : "", right);
	if (m->paused)
		mvchgat(1, imax(w - fmt_text_cols(right), 0), 6, A_REVERSE | A_BOLD,
			0, NULL);

	fmt_minsec(a, sizeof(a), plot_span(m, l->plot[0].w));
	snprintf(right, sizeof(right), "plots: last %s", a);
	if (m->status && fmt_text_cols(m->status) + fmt_text_cols(right) + 1 > w)
		right[0] = '\0';
	if (m->status_error)
		attron(A_BOLD | attr_pair(CP_BAD));
	put_lr(2, 0, w, m->status ? m->status : "", right);
	if (m->status_error)
		attroff(A_BOLD | attr_pair(CP_BAD));
	mvchgat(2, w - fmt_text_cols(right), fmt_text_cols(right), A_NORMAL,
		CP_DIM * U.colour, NULL);
}

static void draw_workers(const struct ui_model *m, const struct ui_layout *l)
{
	struct ui_rect r = l->workers;
	char line[1024], t[16];
	struct wcols c;
	int maxscroll = m->nworkers - l->worker_rows, y = r.y + 1;

	if (!r.h)
		return;
	if (U.scroll > maxscroll)
		U.scroll = maxscroll;
	if (U.scroll < 0)
		U.scroll = 0;
	worker_cols(r.w, &c);
	attron(A_REVERSE);
	mvaddstr(r.y, r.x, ui_format_worker(NULL, r.w, U.utf8, line,
					    sizeof(line)));
	attroff(A_REVERSE);
	for (int i = U.scroll; i < U.scroll + l->worker_rows; i++, y++) {
		const struct ui_worker *w = &m->workers[i];
		int prog = fmt_text_cols(end_text(w, t, sizeof(t)));

		mvaddstr(y, r.x, ui_format_worker(w, r.w, U.utf8, line,
						  sizeof(line)));
		if (w->state == 'D' || w->state == 'Z')
			mvchgat(y, WCOL_STATE, 1, U.colour ? A_BOLD : A_REVERSE,
				U.colour ? CP_BAD : 0, NULL);
		if (w->end == END_OK)
			mvchgat(y, WCOL_PROG, prog, A_NORMAL,
				U.colour ? CP_GOOD : 0, NULL);
		else if (w->end != END_RUNNING)
			mvchgat(y, WCOL_PROG, prog, A_BOLD,
				U.colour ? CP_BAD : 0, NULL);
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
		attron(attr_pair(CP_DIM) | A_BOLD);
		put(y, r.x, r.w, line);
		attroff(attr_pair(CP_DIM) | A_BOLD);
	}
}

static void draw_runs(const struct ui_model *m, const struct ui_layout *l)
{
	struct ui_rect r = l->runs;
	char title[64];
	int first = m->ndone - l->runs_rows;

	if (!r.h)
		return;
	snprintf(title, sizeof(title), "completed runs: %d", m->ndone);
	attron(A_BOLD);
	put(r.y, r.x, r.w, title);
	attroff(A_BOLD);
	for (int i = 0; i < l->runs_rows; i++)
		put(r.y + 1 + i, r.x, r.w, m->done[first + i] ?
		    m->done[first + i] : "");
}

static const char *const help_lines[] = {
	"q         quit (stops the workload)",
	"r         run the workload again",
	"space     pause drawing (sampling goes on)",
	"+ / -     longer / shorter interval",
	"s / S     swappiness -10 / +10 (root)",
	"k / K     other vm knob down / up (root)",
	"h         history of runs (monitor waits)",
	"Up/Down   scroll the workers",
	"PgUp/PgDn scroll a page of workers",
	"Ctrl-L    redraw the screen",
	"?         close this help",
};

/* The overlay is its own window so closing it restores whatever frame
 * stdscr holds, a paused one included. */
static WINDOW *help_win;

static void draw_help(void)
{
	int n = (int)(sizeof(help_lines) / sizeof(help_lines[0]));
	int h = imin(n + 4, LINES), w = imin(46, COLS);

	if (help_win)
		delwin(help_win);
	help_win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
	if (!help_win)
		return;
	werase(help_win);
	box(help_win, 0, 0);
	wattron(help_win, A_BOLD);
	mvwaddnstr(help_win, 1, 2, "thrashtop keys", w - 4);
	wattroff(help_win, A_BOLD);
	for (int i = 0; i < n && 3 + i < h - 1; i++)
		mvwaddnstr(help_win, 3 + i, 2, help_lines[i], w - 4);
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

static void draw_too_small(void)
{
	char msg[96];
	struct ui_rect r = { 0, 0, LINES, COLS };

	snprintf(msg, sizeof(msg), "terminal too small: %dx%d, need at least %dx%d",
		 COLS, LINES, UI_MIN_COLS, UI_MIN_ROWS);
	centre(r, LINES / 2, msg, A_BOLD);
}

void ui_draw(const struct ui_model *m)
{
	struct ui_layout l;

	if (!U.active || (m->paused && !U.need_full))
		return;
	U.need_full = false;
	erase();
	ui_layout(COLS, LINES, m->nworkers, m->ndone, &l);
	if (l.too_small) {
		draw_too_small();
	} else {
		draw_header(m, &l);
		for (int id = 0; id < UI_NPLOTS; id++)
			draw_plot(m, id, l.plot[id]);
		draw_workers(m, &l);
		draw_runs(m, &l);
	}
	wnoutrefresh(stdscr);
	if (U.help && !l.too_small)
		draw_help();
	doupdate();
}

static void redraw(const struct ui_model *m)
{
	U.need_full = true;
	ui_draw(m);
}

enum ui_action ui_key(struct ui_model *m, int ch)
{
	struct ui_layout l;
	int page;

	switch (ch) {
	case 'q':
	case 'Q':
		return UI_QUIT;
	case 'r':
	case 'R':
		return UI_RERUN;
	case ' ':
		m->paused = !m->paused;
		redraw(m);
		return UI_TOGGLE_PAUSE;
	case '+':
		return UI_SLOWER;
	case '-':
		return UI_FASTER;
	case 's':
		return UI_SWAPPINESS_DOWN;
	case 'S':
		return UI_SWAPPINESS_UP;
	case 'k':
		return UI_KNOB_DOWN;
	case 'K':
		return UI_KNOB_UP;
	case 'h':
		return UI_HISTORY;
	case '?':
		U.help = !U.help;
		if (U.active) {
			if (U.help)
				draw_help();
			else
				close_help();
			doupdate();
		}
		return UI_HELP;
	case 27:	/* Esc closes the help */
		if (!U.help)
			return UI_NONE;
		U.help = false;
		if (U.active) {
			close_help();
			doupdate();
		}
		return UI_HELP;
	case KEY_RESIZE:
		redraw(m);
		return UI_RESIZE;
	case 12:	/* Ctrl-L */
		if (U.active)
			clearok(curscr, TRUE);
		redraw(m);
		return UI_NONE;
	}

	ui_layout(U.active ? COLS : 80, U.active ? LINES : 24, m->nworkers,
		  m->ndone, &l);
	page = l.worker_rows > 1 ? l.worker_rows - 1 : 1;
	switch (ch) {
	case KEY_UP:
		U.scroll--;
		break;
	case KEY_DOWN:
		U.scroll++;
		break;
	case KEY_PPAGE:
		U.scroll -= page;
		break;
	case KEY_NPAGE:
		U.scroll += page;
		break;
	case KEY_HOME:
		U.scroll = 0;
		break;
	case KEY_END:
		U.scroll = m->nworkers;
		break;
	default:
		return UI_NONE;
	}
	if (U.scroll > m->nworkers - l.worker_rows)
		U.scroll = m->nworkers - l.worker_rows;
	if (U.scroll < 0)
		U.scroll = 0;
	redraw(m);
	return UI_NONE;
}

int ui_scroll(void)
{
	return U.scroll;
}

enum ui_action ui_read_input(struct ui_model *m)
{
	int ch;

	if (!U.active)
		return UI_NONE;
	while ((ch = getch()) != ERR) {
		enum ui_action a = ui_key(m, ch);

		if (a != UI_NONE)
			return a;
	}
	return UI_NONE;
}

void ui_set_mode(enum plot_mode mode)
{
	U.mode = mode;
	U.need_full = true;
}

enum plot_mode ui_mode(void)
{
	return U.mode;
}

int ui_fd(void)
{
	return U.active ? fileno(U.in) : -1;
}

static void init_colours(void)
{
	short bg = COLOR_BLACK;

	U.colour = has_colors() && start_color() == OK;
	if (!U.colour)
		return;
	if (use_default_colors() == OK)
		bg = -1;
	for (int id = 0; id < UI_NPLOTS; id++)
		init_pair((short)(CP_SWAP + id), plot_info[id].fg, bg);
	init_pair(CP_MARK, COLOR_YELLOW, bg);
	init_pair(CP_BAD, COLOR_RED, bg);
	init_pair(CP_GOOD, COLOR_GREEN, bg);
	init_pair(CP_DIM, COLOR_CYAN, bg);
}

int ui_init(char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	FILE *in, *out;

	if (U.active)
		return 0;
	if (!term || !*term) {
		snprintf(err, errlen, "cannot start the monitor: TERM is not set");
		return -1;
	}
	U.tty = fopen("/dev/tty", "r+e");
	if (U.tty) {
		in = out = U.tty;
	} else if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		in = stdin;
		out = stdout;
	} else {
		snprintf(err, errlen,
			 "cannot start the monitor: no terminal (/dev/tty: %s)",
			 strerror(errno));
		return -1;
	}
	U.scr = newterm(NULL, out, in);
	if (!U.scr) {
		snprintf(err, errlen,
			 "cannot start the monitor: terminal type \"%s\" unknown",
			 term);
		if (U.tty)
			fclose(U.tty);
		U.tty = NULL;
		return -1;
	}
	set_term(U.scr);
	U.in = in;
	U.active = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	init_colours();
	U.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	U.mode = U.utf8 ? PLOT_BRAILLE : PLOT_ASCII;
	U.need_full = true;
	U.help = false;
	U.scroll = 0;
	return 0;
}

void ui_end(void)
{
	if (!U.active)
		return;
	U.active = false;
	if (help_win)
		delwin(help_win);
	help_win = NULL;
	endwin();
	delscreen(U.scr);
	U.scr = NULL;
	if (U.tty)
		fclose(U.tty);
	U.tty = NULL;
	free(U.buf);
	free(U.markcol);
	U.buf = NULL;
	U.markcol = NULL;
	U.bufsize = U.marksize = 0;
}
