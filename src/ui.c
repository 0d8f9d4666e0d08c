#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "fmt.h"
#include "ui.h"

/* Colour pairs; 0 is the terminal default. Plot id gets CP_PLOT + id. */
enum { CP_MARK = 1, CP_BAD, CP_GOOD, CP_DIM, CP_PLOT };

/* Titles alone, and beside cgroup plots, where every system-wide figure
 * says so. A cgroup plot has its counterpart's colour. */
static const struct {
	const char *title, *shorter;
	const char *sys, *sys_short;
	short fg;
} plot_info[UI_NPLOTS] = {
	[UI_PLOT_SWAP] = { "swap used", "swap", "swap used (system)", "sys swap",
			   COLOR_MAGENTA },
	[UI_PLOT_FREE] = { "free", "free", "free (system)", "sys free", COLOR_GREEN },
	[UI_PLOT_AVAIL] = { "available", "avail", "available (system)", "sys avail",
			    COLOR_CYAN },
	[UI_PLOT_MAJFLT] = { "major faults", "majflt", "major faults (system)",
			     "sys majflt", COLOR_RED },
	[UI_PLOT_MINFLT] = { "minor faults", "minflt", "minor faults (system)",
			     "sys minflt", COLOR_YELLOW },
	[UI_PLOT_KSWAPD] = { "kswapd CPU", "kswapd", "kswapd CPU", "kswapd",
			     COLOR_BLUE },
	[UI_PLOT_CG_MEM] = { "cgroup memory", "cg mem", "cgroup memory", "cg mem",
			     COLOR_WHITE },
	[UI_PLOT_CG_SWAP] = { "cgroup swap", "cg swap", "cgroup swap", "cg swap",
			      COLOR_MAGENTA },
	[UI_PLOT_CG_MAJFLT] = { "cgroup major faults", "cg majflt",
				"cgroup major faults", "cg majflt", COLOR_RED },
};

/* Row and column of each plot: alone (left memory, right rates; no cgroup
 * plots), and with the cgroup's beside their counterparts. */
static const struct {
	signed char row, col;
} slot2[UI_NPLOTS] = {
	[UI_PLOT_SWAP] = { 0, 0 }, [UI_PLOT_FREE] = { 1, 0 },
	[UI_PLOT_AVAIL] = { 2, 0 }, [UI_PLOT_MAJFLT] = { 0, 1 },
	[UI_PLOT_MINFLT] = { 1, 1 }, [UI_PLOT_KSWAPD] = { 2, 1 },
	[UI_PLOT_CG_MEM] = { -1, -1 }, [UI_PLOT_CG_SWAP] = { -1, -1 },
	[UI_PLOT_CG_MAJFLT] = { -1, -1 },
}, slot3[UI_NPLOTS] = {
	[UI_PLOT_SWAP] = { 0, 0 }, [UI_PLOT_CG_SWAP] = { 0, 1 },
	[UI_PLOT_KSWAPD] = { 0, 2 }, [UI_PLOT_MAJFLT] = { 1, 0 },
	[UI_PLOT_CG_MAJFLT] = { 1, 1 }, [UI_PLOT_MINFLT] = { 1, 2 },
	[UI_PLOT_AVAIL] = { 2, 0 }, [UI_PLOT_CG_MEM] = { 2, 1 },
	[UI_PLOT_FREE] = { 2, 2 },
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
	int shown;		/* worker rows the last frame showed, -1 before one */
	char *buf;		/* plot rows, grown on resize only */
	size_t bufsize;
	unsigned char *markcol;
	size_t marksize;
} U = { .mode = PLOT_ASCII, .need_full = true, .shown = -1 };

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

bool ui_cgroup_shown(const struct ui_model *m)
{
	return m->plot[UI_PLOT_CG_MEM].s || m->plot[UI_PLOT_CG_SWAP].s ||
	       m->plot[UI_PLOT_CG_MAJFLT].s;
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

/* The right side of the workload line. */
static void header_right(const struct ui_model *m, bool paused, double elapsed,
			 char *buf, size_t len)
{
	char a[32], b[32], c[32];

	fmt_minsec(a, sizeof(a), elapsed);
	snprintf(b, sizeof(b), "%.3g", m->interval);
	if (m->nruns > 0)
		snprintf(c, sizeof(c), "run %d/%d ", m->run, m->nruns);
	else
		c[0] = '\0';
	snprintf(buf, len, "%s%s%s elapsed  interval %ss  ? help",
		 paused ? "PAUSED  " : "", c, a, b);
}

/* Whether the tuning needs a line of its own: judged with the widest right
 * side a run can show (paused, ten hours in), so the layout does not
 * change as the clock runs. */
static bool tuning_needs_line(const struct ui_model *m, int cols)
{
	char right[128];

	if (!m->tuning || !m->tuning[0])
		return false;
	header_right(m, true, 36000, right, sizeof(right));
	return fmt_text_cols(m->workload ? m->workload : "") + 3 +
	       fmt_text_cols(m->tuning) + 1 + fmt_text_cols(right) > cols;
}

void ui_layout(int cols, int rows, const struct ui_model *m,
	       struct ui_layout *l)
{
	const int prow = 3;	/* plot rows */
	bool cg = ui_cgroup_shown(m);
	int ncol = cg ? 3 : 2, nworkers = m->nworkers, ndone = m->ndone;
	int rem, hdr = UI_HEADER_ROWS, gh = 2, wr, runs = 0, y, cw, maxruns;

	memset(l, 0, sizeof(*l));
	if (cols < UI_MIN_COLS || rows < UI_MIN_ROWS) {
		l->too_small = true;
		return;
	}
	if (nworkers < 0)
		nworkers = 0;

	/* Essentials first: small plots, two workers, the last run, the
	 * tuning in full; then grow in order of what a reader misses most. */
	wr = imin(nworkers, 2);
	rem = rows - hdr - prow * (gh + 1) - table_rows(nworkers, wr);
	if (ndone > 0 && rem >= 2) {
		runs = 1;
		rem -= 2;
	}
	if (rem >= 1 && tuning_needs_line(m, cols)) {
		hdr++;
		rem--;
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

	l->header = (struct ui_rect){ 0, 0, hdr, cols };
	y = hdr;
	/* equal columns one apart; the last takes what is left over */
	cw = (cols - (ncol - 1)) / ncol;
	for (int id = 0; id < UI_NPLOTS; id++) {
		int row = cg ? slot3[id].row : slot2[id].row;
		int col = cg ? slot3[id].col : slot2[id].col;
		int x = col * (cw + 1);

		if (row < 0)
			continue;
		l->plot[id] = (struct ui_rect){ y + row * (gh + 1), x, gh + 1,
						col == ncol - 1 ? cols - x : cw };
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

static bool is_kib(int id)
{
	return id == UI_PLOT_SWAP || id == UI_PLOT_FREE || id == UI_PLOT_AVAIL ||
	       id == UI_PLOT_CG_MEM || id == UI_PLOT_CG_SWAP;
}

static bool is_rate(int id)
{
	return id == UI_PLOT_MAJFLT || id == UI_PLOT_MINFLT ||
	       id == UI_PLOT_CG_MAJFLT;
}

/* The plot whose auto scale id shares, -1 for none. */
static int scale_partner(const struct ui_model *m, int id)
{
	if (!ui_cgroup_shown(m))
		return -1;
	if (id == UI_PLOT_MAJFLT)
		return UI_PLOT_CG_MAJFLT;
	if (id == UI_PLOT_CG_MAJFLT)
		return UI_PLOT_MAJFLT;
	return -1;
}

/* Top of plot id's y axis, w cells wide: the model's scale, else a nice
 * maximum of the visible window (of both plots sharing it); <= 0 before
 * there is a series. */
static double plot_ymax(const struct ui_model *m, int id, int w,
			enum plot_mode mode)
{
	const struct ui_plot *pl = &m->plot[id];
	int n = w * plot_samples_per_cell(mode), o = scale_partner(m, id);
	double lo, hi = NAN, hi2 = NAN;

	if (pl->scale > 0 || !pl->s)
		return pl->scale;
	series_minmax(pl->s, n, &lo, &hi);
	if (o >= 0 && m->plot[o].s && !(m->plot[o].scale > 0))
		series_minmax(m->plot[o].s, n, &lo, &hi2);
	hi = fmax(hi, hi2);	/* NAN only if both are */
	return is_kib(id) ? plot_nice_kib(hi) : plot_nice_max(hi);
}

static void fmt_kibd(char *buf, size_t len, double kib)
{
	if (isnan(kib))
		snprintf(buf, len, "n/a");
	else
		fmt_kib(buf, len, (int64_t)llround(kib));
}

/* A rate scale (1, 2 or 5 x 10^k) without a needless decimal: "2k/s". */
static void fmt_rate_scale(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g%s/s", v, unit[u]);
}

/* The newest value of plot id in its unit; share of the model's scale
 * for sizes that fill up. compact: "219M 21%" for "219M (21%)", "1.6k"
 * for "1.6k/s" (the scale names the unit). */
static void fmt_value(const struct ui_model *m, int id, bool compact,
		      char *buf, size_t len)
{
	const struct ui_plot *pl = &m->plot[id];
	double v = pl->s && !pl->na ? series_last(pl->s) : NAN;
	char a[32];

	if (is_kib(id)) {
		fmt_kibd(a, sizeof(a), v);
		if (!isnan(v) && pl->scale > 0 && id != UI_PLOT_FREE &&
		    id != UI_PLOT_AVAIL) {
			/* truncated: 99.6% full is not "100%" */
			int pct = (int)(fmin(fmax(v / pl->scale, 0), 1) * 100);

			snprintf(buf, len, compact ? "%s %d%%" : "%s (%d%%)", a, pct);
		} else {
			snprintf(buf, len, "%s", a);
		}
	} else if (is_rate(id)) {
		size_t n = fmt_rate(buf, len, v);

		if (compact && n >= 2 && n < len && !strcmp(buf + n - 2, "/s"))
			buf[n - 2] = '\0';
	} else {
		fmt_pct(buf, len, v);
	}
}

char *ui_format_title(const struct ui_model *m, int id, int width,
		      enum plot_mode mode, char *buf, size_t len)
{
	const struct ui_plot *pl = &m->plot[id];
	bool cg = ui_cgroup_shown(m);
	const char *name[2] = { cg ? plot_info[id].sys : plot_info[id].title,
				cg ? plot_info[id].sys_short : plot_info[id].shorter };
	const char *extra = pl->extra && pl->extra[0] && !pl->na ? pl->extra : NULL;
	double ymax = plot_ymax(m, id, width, mode);
	char val[2][48], sc[48] = "", left[192];
	/* name, compact value, with extra, with scale: longest first */
	static const struct { int name; bool compact, extra, scale; } form[] = {
		{ 0, false, true, true }, { 1, false, true, true },
		{ 0, false, false, true }, { 1, false, false, true },
		{ 1, true, false, true }, { 1, true, false, false },
	};
	int nf = (int)(sizeof(form) / sizeof(form[0])), f, lw, sw = 0;

	if (!len)
		return buf;
	if (pl->na || !(ymax > 0))
		sc[0] = '\0';
	else if (is_kib(id))
		fmt_kibd(sc, sizeof(sc), ymax);
	else if (is_rate(id))
		fmt_rate_scale(sc, sizeof(sc), ymax);
	else
		snprintf(sc, sizeof(sc), "%g%%", ymax);
	if (sc[0]) {
		char t[48];

		snprintf(t, sizeof(t), "0..%s", sc);
		snprintf(sc, sizeof(sc), "%s", t);
	}
	fmt_value(m, id, false, val[0], sizeof(val[0]));
	fmt_value(m, id, true, val[1], sizeof(val[1]));
	for (f = 0; f < nf; f++) {
		if (form[f].extra && !extra)
			continue;
		snprintf(left, sizeof(left), "%s %s%s%s", name[form[f].name],
			 val[form[f].compact], form[f].extra ? "  " : "",
			 form[f].extra ? extra : "");
		sw = form[f].scale && sc[0] ? fmt_text_cols(sc) + 1 : 0;
		if (fmt_text_cols(left) + sw <= width || f == nf - 1)
			break;
	}
	lw = fmt_text_cols(left);
	if (lw + sw > width) {
		snprintf(buf, len, "%s", left);
		return buf;
	}
	snprintf(buf, len, "%s%*s%s", left, width - lw - (sw ? sw - 1 : 0), "",
		 sw ? sc : "");
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
	char title[512];
	struct plot p = { .w = r.w, .h = r.h - 1, .mode = U.mode,
			  .marks = m->marks, .nmarks = m->nmarks };

	if (r.h < 1)
		return;
	p.ymax = plot_ymax(m, id, r.w, U.mode);
	attron(A_BOLD);
	put(r.y, r.x, r.w, ui_format_title(m, id, r.w, U.mode, title,
					   sizeof(title)));
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
	attron(attr_pair(CP_PLOT + id));
	for (int row = 0; row < p.h; row++)
		mvaddstr(g.y + row, g.x, U.buf + (size_t)row * PLOT_ROW_BYTES(p.w));
	attroff(attr_pair(CP_PLOT + id));
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

static void draw_header(const struct ui_model *m, const struct ui_layout *l)
{
	int w = l->header.w, st = l->header.h - 1;
	bool own = l->header.h > UI_HEADER_ROWS;	/* the tuning's own line */
	char left[1024], right[512], a[32], b[32];
	const char *wl = m->workload ? m->workload : "";

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
	if (m->warning) {
		int x = fmt_text_cols(left) + 2, room = w - fmt_text_cols(right) - 1 - x;

		attron(attr_pair(CP_BAD));
		put(0, x, room, m->warning);
		attroff(attr_pair(CP_BAD));
	}

	header_right(m, m->paused, m->elapsed, right, sizeof(right));
	if (m->tuning && m->tuning[0] && !own)
		snprintf(left, sizeof(left), "%s | %s", wl, m->tuning);
	else
		snprintf(left, sizeof(left), "%s", wl);
	put_lr(1, 0, w, left, right);
	if (m->paused)
		mvchgat(1, imax(w - fmt_text_cols(right), 0), 6, A_REVERSE | A_BOLD,
			0, NULL);
	if (own) {
		snprintf(left, sizeof(left), "tuning: %s", m->tuning);
		put(2, 0, w, left);
	}

	fmt_minsec(a, sizeof(a), plot_span(m, l->plot[0].w));
	snprintf(right, sizeof(right), "plots: last %s", a);
	if (m->status && fmt_text_cols(m->status) + fmt_text_cols(right) + 1 > w)
		right[0] = '\0';
	if (m->status_error)
		attron(A_BOLD | attr_pair(CP_BAD));
	put_lr(st, 0, w, m->status ? m->status : "", right);
	if (m->status_error)
		attroff(A_BOLD | attr_pair(CP_BAD));
	mvchgat(st, w - fmt_text_cols(right), fmt_text_cols(right), A_NORMAL,
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
	"h         history of runs (sampling goes on)",
	"w         write the screen to a text file",
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

/* The model on stdscr, not yet sent to the terminal. */
static void paint(const struct ui_model *m, struct ui_layout *l)
{
	erase();
	ui_layout(COLS, LINES, m, l);
	if (l->too_small) {
		draw_too_small();
		return;
	}
	draw_header(m, l);
	for (int id = 0; id < UI_NPLOTS; id++)
		draw_plot(m, id, l->plot[id]);
	draw_workers(m, l);
	draw_runs(m, l);
}

void ui_draw(const struct ui_model *m)
{
	struct ui_layout l;

	if (!U.active || (m->paused && !U.need_full))
		return;
	U.need_full = false;
	paint(m, &l);
	U.shown = l.too_small ? 0 : l.worker_rows;
	wnoutrefresh(stdscr);
	if (U.help && !l.too_small)
		draw_help();
	doupdate();
}

int ui_dump(const struct ui_model *m, FILE *f)
{
	enum plot_mode mode = U.mode;
	bool utf8 = U.utf8;
	struct ui_layout l;
	wchar_t line[1024];
	char out[4096];
	int rc = 0;

	if (!U.active)
		return -1;
	U.mode = PLOT_ASCII;
	U.utf8 = false;
	paint(m, &l);
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
	U.mode = mode;
	U.utf8 = utf8;
	U.need_full = true;
	ui_draw(m);
	return rc;
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
	case 'w':
		return UI_DUMP;
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

	ui_layout(U.active ? COLS : 80, U.active ? LINES : 24, m, &l);
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

int ui_rows_shown(void)
{
	return U.active ? U.shown : -1;
}

int ui_next_key(void)
{
	return U.active ? getch() : ERR;
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
		init_pair((short)(CP_PLOT + id), plot_info[id].fg, bg);
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
	/* Until the screen has been suspended and resumed once, ncurses
	 * flushes its output at every cursor jump: some sixty writes a frame.
	 * Once resumed, a frame goes out in one write, or a few. */
	endwin();
	doupdate();
	U.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	U.mode = U.utf8 ? PLOT_BRAILLE : PLOT_ASCII;
	U.need_full = true;
	U.help = false;
	U.scroll = 0;
	U.shown = -1;
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
