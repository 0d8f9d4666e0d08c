/* The live monitor screen's layout and text, without curses. */
#include "monlayout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

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

bool ms_cgroup_shown(const struct ms_model *m)
{
	for (int i = 0; i < m->nplots; i++)
		if (metric_is_cgroup(m->plot[i].id))
			return true;
	return false;
}

/* Grid columns: three beside a cgroup's plots, or on a wide screen when
 * that leaves no more empty cells than two; else two. */
static int plot_cols(int cols, const struct ms_model *m)
{
	int n = m->nplots, ncol = 2;

	if (ms_cgroup_shown(m) ||
	    (cols >= 180 && (3 - n % 3) % 3 <= n % 2))
		ncol = 3;
	return n < ncol ? imax(n, 1) : ncol;
}

void ms_header_right(const struct ms_model *m, bool paused, double elapsed, char *buf,
		     size_t len)
{
	char a[32], b[32], c[32];

	fmt_minsec(a, sizeof(a), elapsed);
	snprintf(b, sizeof(b), "%.3g", m->interval);
	if (m->nsides > 1) {
		snprintf(buf, len, "%sinterval %ss  ? help", paused ? "PAUSED  " : "", b);
		return;
	}
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
static bool tuning_needs_line(const struct ms_model *m, int cols)
{
	char right[128];

	if (!m->tuning || !m->tuning[0])
		return false;
	ms_header_right(m, true, 36000, right, sizeof(right));
	return fmt_text_cols(m->workload ? m->workload : "") + 3 +
	       fmt_text_cols(m->tuning) + 1 + fmt_text_cols(right) > cols;
}

void ms_layout(int cols, int rows, const struct ms_model *m,
	       struct ms_layout *l)
{
	int ncol = plot_cols(cols, m), nplots = imax(m->nplots, 0);
	int prow = (nplots + ncol - 1) / ncol;	/* plot rows */
	int nworkers = imax(m->nworkers, 0), ndone = m->ndone;
	int rem, hdr = MS_HEADER_ROWS, gh = 2, wr, runs = 0, y, cw, maxruns;

	memset(l, 0, sizeof(*l));
	if (cols < MS_MIN_COLS || rows < MS_MIN_ROWS) {
		l->too_small = true;
		return;
	}
	if (m->workers_first)
		prow = imin(prow, 1);

	/* Essentials first: small plots, two workers (two rows a place
	 * beside others: its head and one), the last run, the tuning in
	 * full; then grow in order of what a reader misses most. */
	wr = imin(nworkers, m->nsides > 1 ? 2 * m->nsides : 2);
	while (prow > 0 && hdr + prow * (gh + 1) + table_rows(nworkers, wr) > rows)
		prow--;
	rem = rows - hdr - prow * (gh + 1) - table_rows(nworkers, wr);
	if (ndone > 0 && rem >= 2) {
		runs = 1;
		rem -= 2;
	}
	if (rem >= 1 && tuning_needs_line(m, cols)) {
		hdr++;
		rem--;
	}
	if (prow && rem >= prow) {
		gh = 3;
		rem -= prow;
	}
	if (prow && m->lane_awake && rem >= 1) {
		l->lane.h = 1;
		rem--;
	}
	/* with several places, a head row and two workers of each */
	grow_workers(nworkers, m->workers_first ? nworkers : imax(5, 3 * m->nsides), &wr, &rem);
	while (prow && gh < 8 && rem >= prow) {
		gh++;
		rem -= prow;
	}
	maxruns = rows / 6;
	while (runs > 0 && runs < imin(ndone, maxruns) && rem > 0) {
		runs++;
		rem--;
	}
	grow_workers(nworkers, nworkers, &wr, &rem);
	while (prow && gh < 20 && rem >= prow) {
		gh++;
		rem -= prow;
	}

	l->header = (struct ms_rect){ 0, 0, hdr, cols };
	y = hdr;
	/* equal columns one apart; the last takes what is left over */
	l->plot_cols = ncol;
	cw = (cols - (ncol - 1)) / ncol;
	for (int i = 0; i < nplots && i / ncol < prow; i++) {
		int col = i % ncol, x = col * (cw + 1);

		l->plot[i] = (struct ms_rect){ y + i / ncol * (gh + 1), x, gh + 1,
					       col == ncol - 1 ? cols - x : cw };
	}
	l->plots_hidden = imax(nplots - prow * ncol, 0);
	y += prow * (gh + 1);
	if (l->lane.h) {
		l->lane = (struct ms_rect){ y, 0, 1, cols };
		y++;
	}
	l->worker_rows = wr;
	l->worker_more = wr < nworkers;
	l->workers = (struct ms_rect){ y, 0, table_rows(nworkers, wr), cols };
	y += l->workers.h;
	l->runs_rows = runs;
	l->runs = (struct ms_rect){ y, 0, runs ? runs + 1 : 0, cols };
}

/* Whether dot column pos shows a sample > 0: the last n of s, the newest
 * before column right (plot_window). */
static bool lane_on(const struct series *s, int n, int right, int pos)
{
	int j = pos - (right - n);
	double v;

	if (!s || j < 0)
		return false;
	series_get(s, series_len(s) - n + j, NULL, &v);
	return v > 0;
}

/* The lane column of the first of the last n samples of s (placed as
 * plot_window does, the newest before dot column right) taken at or after
 * tm; -1 when none is, or none of s precedes tm (the kill came before the
 * samples kept). */
static int lane_col(const struct series *s, int n, int right, int k, double tm)
{
	int lo = series_find(s, tm), len = series_len(s);

	if (lo == 0 || lo == len || lo < len - n)
		return -1;
	return (right - n + lo - (len - n)) / k;
}

char *ms_format_lane(const struct series *awake, const struct series *throttled,
		     const double *kills, int nkills, int w, int k, bool utf8, char *buf,
		     size_t len)
{
	size_t o = 0;
	int ra, rt, na = plot_window(awake, w, k, &ra), nt = plot_window(throttled, w, k, &rt);
	int ki = 0, kc = -1;

	if (len < (size_t)w * 3 + 1) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	for (int c = 0; c < w; c++) {
		bool a = false, t = false;

		for (int i = 0; i < k; i++) {
			a = a || lane_on(awake, na, ra, c * k + i);
			t = t || lane_on(throttled, nt, rt, c * k + i);
		}
		/* kills ascending: advance to the first at or past c */
		while (awake && ki < nkills && kc < c)
			kc = lane_col(awake, na, ra, k, kills[ki++]);
		if (kc == c) {
			buf[o++] = 'K';
		} else if (t) {
			buf[o++] = 'T';
		} else if (a && utf8) {
			memcpy(buf + o, "\u2501", 3);
			o += 3;
		} else {
			buf[o++] = a ? '=' : ' ';
		}
	}
	buf[o] = '\0';
	return buf;
}

char *ms_format_bar(double frac, int width, bool utf8, char *buf, size_t len)
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

const char *ms_end_text(const struct ms_worker *w, char *buf, size_t len)
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
static void format_progress(const struct ms_worker *w, int width, bool utf8,
			    char *buf, size_t len)
{
	char t[32];

	if (w->end != END_RUNNING) {
		snprintf(buf, len, "%s", ms_end_text(w, t, sizeof(t)));
	} else if (!w->phase) {
		fmt_duration(t, sizeof(t), w->elapsed);
		snprintf(buf, len, "running %s", t);
	} else {
		size_t o;

		ms_format_bar(w->frac, width - 5, utf8, buf, len);
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
	int nb = fmt_cut_bytes(s, width), n = fmt_text_cols_n(s, (size_t)nb);
	int pad = width > n ? width - n : 0;

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

/* A worker row's first columns, both forms alike: PID, state, phase. */
static size_t row_head(const struct ms_worker *w, const char *pid, const char *st,
		       char *buf, size_t len, size_t o)
{
	o = put_field(buf, len, o, pid, 7, true);
	o = put_field(buf, len, o, " ", 1, false);
	o = put_field(buf, len, o, st, 1, false);
	o = put_field(buf, len, o, " ", 1, false);
	o = put_field(buf, len, o, !w ? "PHASE" : w->phase ? w->phase : "cmd", 6, false);
	return put_field(buf, len, o, " ", 1, false);
}

char *ms_format_worker(const struct ms_worker *w, int width, bool utf8,
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
	o = row_head(w, pid, st, buf, len, o);
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

/* The stall columns, in delay_kind terms, as the d key shows them. */
static const struct {
	const char *title;
	enum delay_kind k;
} stall_cols[] = {
	{ "SWAPIN", DL_SWAPIN }, { "RECLAIM", DL_RECLAIM }, { "THRASH", DL_THRASHING },
	{ "IO", DL_IO }, { "CPUWAIT", DL_CPU },
};
#define NSTALL_COLS (sizeof(stall_cols) / sizeof(stall_cols[0]))

char *ms_format_worker_stalls(const struct ms_worker *w, int width, bool utf8,
			      char *buf, size_t len)
{
	char pid[16], st[2], prog[256], cpu[32], v[NSTALL_COLS][16];
	/* 17 columns to the progress, 9 of CPU, 8 a stall; the progress
	 * keeps at least 8, and the last stalls give way on a narrow screen */
	int ncols = imax(imin((width - 34) / 8, (int)NSTALL_COLS), 0);
	int prog_w = imin(width - 26 - 8 * ncols, WCOL_PROG_MAX);
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!w) {
		snprintf(pid, sizeof(pid), "PID");
		snprintf(st, sizeof(st), "S");
		/* what the columns are, where it fits: the kinds overlap */
		static const char *const heads[] = {
			"PROGRESS   stalls in % of the run's wall time, a row may add past 100%",
			"PROGRESS   stalls in % of the run's wall time", "PROGRESS   % of wall time",
		};
		snprintf(prog, sizeof(prog), "PROGRESS");
		for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
			if ((int)strlen(heads[i]) <= imin(prog_w, 80)) {
				snprintf(prog, sizeof(prog), "%s", heads[i]);
				break;
			}
		snprintf(cpu, sizeof(cpu), "CPU");
		for (size_t i = 0; i < NSTALL_COLS; i++)
			snprintf(v[i], sizeof(v[i]), "%s", stall_cols[i].title);
	} else {
		snprintf(pid, sizeof(pid), "%d", (int)w->pid);
		st[0] = w->state ? w->state : w->end != END_RUNNING ? '-' : '?';
		st[1] = '\0';
		format_progress(w, imin(prog_w, 80), utf8, prog, sizeof(prog));
		fmt_duration(cpu, sizeof(cpu), w->cpu_s);
		for (size_t i = 0; i < NSTALL_COLS; i++)
			fmt_pct(v[i], sizeof(v[i]), w->stall_pct[stall_cols[i].k]);
	}
	o = row_head(w, pid, st, buf, len, o);
	o = put_field(buf, len, o, prog, prog_w, false);
	o = put_field(buf, len, o, cpu, 9, true);
	for (int i = 0; i < ncols; i++)
		o = put_field(buf, len, o, v[i], 8, true);
	put_field(buf, len, o, "", width - fmt_text_cols(buf), false);
	return buf;
}

static const char *unit_of(int id)
{
	const struct metric_def *d = metric_def(id);

	return d ? d->unit : "";
}

static bool is_kib(int id)
{
	return !strcmp(unit_of(id), "KiB");
}

static bool is_pct(int id)
{
	return unit_of(id)[0] == '%';
}

static bool is_rate(int id)
{
	const struct metric_def *d = metric_def(id);

	return d && d->kind == MK_RATE && !is_pct(id);
}

/* The highest value any place's line of plot o shows, NAN none. */
static double sides_max(const struct ms_model *m, const struct ms_plot *o, int w, int spc)
{
	double *v = malloc(sizeof(*v) * (size_t)(w > 0 ? w * spc : 1)), hi = NAN;

	for (int j = 0; v && j < m->nsides; j++) {
		if (!o->side[j])
			continue;
		plot_axis_values(&m->axis, w, spc, o->side[j], v);
		for (int x = 0; x < w * spc; x++)
			hi = fmax(hi, v[x]);
	}
	free(v);
	return hi;
}

double ms_plot_ymax(const struct ms_model *m, int i, int w, enum plot_mode mode)
{
	const struct ms_plot *pl = &m->plot[i];
	int spc = plot_samples_per_cell(mode), g = metrics_scale_group(pl->id), right;
	double hi = NAN;

	if (m->nsides > 1 && pl->scale <= 0) {
		for (int k = 0; k < m->nplots; k++)
			if (k == i || (g >= 0 && metrics_scale_group(m->plot[k].id) == g &&
				       m->plot[k].scale <= 0))
				hi = fmax(hi, sides_max(m, &m->plot[k], w, spc));
		return isnan(hi) ? 0 : metrics_nice_max(pl->id, hi);
	}
	if (pl->scale > 0 || !pl->s)
		return pl->scale;
	for (int k = 0; k < m->nplots; k++) {
		const struct ms_plot *o = &m->plot[k];
		double lo, h = NAN, ha = NAN;
		int n;

		if (k != i && (g < 0 || metrics_scale_group(o->id) != g || o->scale > 0))
			continue;
		n = plot_window(o->s, w, spc, &right);
		if (o->s)
			series_minmax(o->s, n, &lo, &h);
		if (o->against)	/* placed by the plot's own series */
			series_minmax(o->against, imin(series_len(o->against), right), &lo, &ha);
		hi = fmax(hi, fmax(h, ha));	/* NAN only if all are */
	}
	return metrics_nice_max(pl->id, hi);
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

/* The newest value of plot i in its unit; share of the model's scale
 * for sizes that fill up. compact: "219M 21%" for "219M (21%)", "1.6k"
 * for "1.6k/s" (the scale names the unit). */
static void fmt_value_of(int id, double v, double scale, bool compact, char *buf, size_t len)
{
	char a[32];

	if (is_kib(id)) {
		fmt_kibd(a, sizeof(a), v);
		if (!isnan(v) && scale > 0 && id != M_FREE && id != M_AVAIL) {
			/* truncated: 99.6% full is not "100%"; nor is 188M
			 * of 24G "0%" */
			int pct = (int)(fmin(fmax(v / scale, 0), 1) * 100);
			const char *lt = pct == 0 && v > 0 ? "<" : "";

			if (*lt)
				pct = 1;
			snprintf(buf, len, compact ? "%s %s%d%%" : "%s (%s%d%%)", a, lt, pct);
		} else {
			snprintf(buf, len, "%s", a);
		}
	} else if (is_rate(id) && strcmp(metric_def(id)->unit, "s/s")) {
		size_t n = fmt_rate(buf, len, v);

		if (compact && n >= 2 && n < len && !strcmp(buf + n - 2, "/s"))
			buf[n - 2] = '\0';
	} else {
		metrics_value_text(id, v, buf, len);
	}
}

static void fmt_value(const struct ms_model *m, int i, bool compact,
		      char *buf, size_t len)
{
	const struct ms_plot *pl = &m->plot[i];

	fmt_value_of(pl->id, pl->s && !pl->na ? series_last(pl->s) : NAN, pl->scale, compact,
		     buf, len);
}

/* The axis top: "0..512M", "0..2k/s", "0..5%", "0..20". */
static void fmt_scale(int id, double ymax, char *buf, size_t len)
{
	char t[40];

	if (is_kib(id))
		fmt_kibd(t, sizeof(t), ymax);
	else if (!strcmp(metric_def(id)->unit, "s/s") || !strcmp(metric_def(id)->unit, "ms"))
		snprintf(t, sizeof(t), "%g%s", ymax, metric_def(id)->unit);
	else if (is_rate(id))
		fmt_rate_scale(t, sizeof(t), ymax);
	else if (is_pct(id))
		snprintf(t, sizeof(t), "%g%%", ymax);
	else
		snprintf(t, sizeof(t), "%g", ymax);
	snprintf(buf, len, "0..%s", t);
}

/* System-wide figures that a cgroup's plots beside them could be taken
 * for. */
/* Whether a series is the whole machine's where the cgroup has its own
 * of the same figure: "(system)" tells them apart. The workers' stalls
 * and the zram device's figures are neither. */
static bool has_counterpart(int id)
{
	return !strcmp(metric_scope(id), "machine") && id != M_KSWAPD_CPU &&
	       id != M_PROCS_RUNNING && id != M_PROCS_BLOCKED;
}

/* A plot's shorter names: "sys swap used", "cg majflt"; its brief. */
static void short_names(const struct metric_def *d, bool sys, char name[3][80])
{
	if (sys)
		snprintf(name[1], sizeof(name[1]), "sys %s", d->title);
	else if (!strncmp(d->title, "cgroup ", 7))
		snprintf(name[1], sizeof(name[1]), "cg %s", d->title + 7);
	else
		snprintf(name[1], sizeof(name[1]), "%s", d->title);
	snprintf(name[2], sizeof(name[2]), "%s%s", sys ? "sys " : "", d->brief);
}

char *ms_format_title(const struct ms_model *m, int i, int width, double ymax, char *buf,
		      size_t len)
{
	const struct ms_plot *pl = &m->plot[i];
	const struct metric_def *d = metric_def(pl->id);
	bool sys = ms_cgroup_shown(m) && has_counterpart(pl->id);
	char name[3][80];
	const char *extra = pl->extra && pl->extra[0] && !pl->na ? pl->extra : NULL;
	char val[2][48], sc[48] = "", left[256];
	/* name (the title, its words kept shorter, the brief), compact
	 * value, with extra, with scale: longest first. A compact value
	 * leaves its unit to the scale, so without the scale the value is
	 * whole again, unless only the compact one fits. */
	static const struct { int name; bool compact, extra, scale; } form[] = {
		{ 0, false, true, true }, { 1, false, true, true }, { 2, false, true, true },
		{ 0, false, false, true }, { 1, false, false, true }, { 1, true, false, true },
		{ 2, false, false, true }, { 2, true, false, true }, { 2, false, false, false },
		{ 2, true, false, false },
	};
	int nf = (int)(sizeof(form) / sizeof(form[0])), f, lw, sw = 0;
	bool shorts = false;	/* name[1] and val[1] made */

	if (!len)
		return buf;
	if (!d) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(name[0], sizeof(name[0]), "%s%s", d->title, sys ? " (system)" : "");
	if (!pl->na && ymax > 0)
		fmt_scale(pl->id, ymax, sc, sizeof(sc));
	fmt_value(m, i, false, val[0], sizeof(val[0]));
	for (f = 0; f < nf; f++) {
		if (form[f].extra && !extra)
			continue;
		/* the short forms only when the long ones do not fit */
		if ((form[f].name || form[f].compact) && !shorts) {
			short_names(d, sys, name);
			fmt_value(m, i, true, val[1], sizeof(val[1]));
			shorts = true;
		}
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

/* Place j's legend in plot pl: its glyph, its name cut to cut columns
 * (< 0 whole, 0 none) and its newest value. */
static void legend(const struct ms_model *m, const struct ms_plot *pl, int j, int cut, bool compact,
		   bool glyphs, char *buf, size_t len)
{
	const char *name = m->side[j].name ? m->side[j].name : "?";
	char val[48], g[2] = { glyphs ? plot_line_glyph(j) : '\0', '\0' };
	int nb = cut < 0 ? (int)strlen(name) : fmt_cut_bytes(name, cut);

	if (m->side[j].ended)
		snprintf(val, sizeof(val), "%s", compact ? "end" : "ended");
	else if (!pl->side[j] || pl->na)
		snprintf(val, sizeof(val), "n/a");
	else
		fmt_value_of(pl->id, series_last(pl->side[j]), 0, compact, val, sizeof(val));
	snprintf(buf, len, "%s%.*s%s%s", g, nb, name, nb ? " " : "", val);
}

char *ms_format_side_title(const struct ms_model *m, int i, int width, double ymax, bool glyphs,
			   int at[][2], char *buf, size_t len)
{
	const struct ms_plot *pl = &m->plot[i];
	const struct metric_def *d = metric_def(pl->id);
	bool sys = ms_cgroup_shown(m) && has_counterpart(pl->id);
	/* the figure's name (long, short, brief), the places' names cut to
	 * so many columns (-1 whole), values compact, with the scale */
	static const struct { int name, cut; bool compact, scale; } form[] = {
		{ 0, -1, false, true }, { 1, -1, false, true }, { 2, -1, false, true },
		{ 2, -1, true, true }, { 2, 8, true, true }, { 2, 5, true, true },
		{ 2, 5, true, false }, { 2, 3, true, false }, { 2, 0, true, false },
	};
	int nf = (int)(sizeof(form) / sizeof(form[0])), f, lw = 0, sw = 0;
	char name[3][80], sc[48] = "", left[512], entry[128];

	if (!len)
		return buf;
	if (!d) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(name[0], sizeof(name[0]), "%s%s", d->title, sys ? " (system)" : "");
	short_names(d, sys, name);
	if (!pl->na && ymax > 0)
		fmt_scale(pl->id, ymax, sc, sizeof(sc));
	for (f = 0; f < nf; f++) {
		size_t o = (size_t)snprintf(left, sizeof(left), "%s", name[form[f].name]);

		lw = fmt_text_cols(left);
		for (int j = 0; j < m->nsides && o < sizeof(left); j++) {
			legend(m, pl, j, form[f].cut, form[f].compact, glyphs, entry, sizeof(entry));
			at[j][0] = lw + (form[f].compact ? 1 : 2);
			at[j][1] = fmt_text_cols(entry);
			o += (size_t)snprintf(left + o, sizeof(left) - o, "%s%s",
					      form[f].compact ? " " : "  ", entry);
			lw = at[j][0] + at[j][1];
		}
		sw = form[f].scale && sc[0] ? fmt_text_cols(sc) + 1 : 0;
		if (lw + sw <= width || f == nf - 1)
			break;
	}
	for (int j = 0; j < m->nsides; j++)
		if (at[j][0] + at[j][1] > width)
			at[j][1] = imax(width - at[j][0], 0);
	if (lw + sw > width) {
		snprintf(buf, len, "%s", left);
		return buf;
	}
	snprintf(buf, len, "%s%*s%s", left, width - lw - (sw ? sw - 1 : 0), "", sw ? sc : "");
	return buf;
}

char *ms_format_done(const char *line, int width, bool utf8, char *buf, size_t len)
{
	const char *tail = strstr(line, "  "), *ell = utf8 ? "\u2026" : "~";
	int head;

	/* the status follows the time line's and the kswapd figure's */
	if (tail)
		tail = strstr(tail + 2, "  ");
	if (fmt_text_cols(line) <= width || !tail || fmt_text_cols(tail) + 2 > width) {
		snprintf(buf, len, "%.*s", fmt_cut_bytes(line, width), line);
		return buf;
	}
	head = fmt_cut_bytes(line, width - fmt_text_cols(tail) - 1);
	snprintf(buf, len, "%.*s%s%.*s", head, line, ell, fmt_cut_bytes(tail, width), tail);
	return buf;
}
