#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"
#include "compare.h"
#include "fmt.h"
#include "histui.h"
#include "history.h"
#include "report.h"
#include "runsource.h"
#include "series.h"
#include "timefmt.h"
#include "tui.h"

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* Control characters to blanks over every line of a text, so every byte
 * takes its column. */
static void sanitize_lines(struct detail_lines *t)
{
	for (size_t i = 0; i < t->n; i++)
		fmt_blank_controls(t->v[i].text);
}

/* ---- list rows ---- */

char *histui_params(const struct run_record *r, char *buf, size_t len)
{
	if (r->kind == RUN_QSBENCH)
		snprintf(buf, len, "-n %" PRId64 " -p %d -s %u", r->nelems, r->procs, r->seed);
	else
		snprintf(buf, len, "%s", r->command && r->command[0] ? r->command : "-");
	fmt_blank_controls(buf);
	return buf;
}

static int digits(int64_t v)
{
	int n = 1;

	for (; v >= 10; v /= 10)
		n++;
	return n;
}

/* Counts exactly while they fit the column, then 3 significant digits. */
static void count_text(char *buf, size_t len, int64_t v, int width)
{
	static const char unit[] = "kMGTPE";
	double x = (double)v;
	int u = -1;

	if (v < 0) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (digits(v) <= width) {
		snprintf(buf, len, "%" PRId64, v);
		return;
	}
	while (x >= 999.5 && u < 5) {
		x /= 1000;
		u++;
	}
	snprintf(buf, len, x < 9.995 ? "%.2f%c" : x < 99.95 ? "%.1f%c" : "%.0f%c", x, unit[u]);
}

static void kswapd_text(char *buf, size_t len, double s, int width)
{
	if (isnan(s) || s < 0)
		snprintf(buf, len, "n/a");
	else if (snprintf(buf, len, "%.2fs", s) > width)
		snprintf(buf, len, "%.0fs", s);
}

#define COL_MIN 5
#define PARAMS_BONUS 8	/* the parameters give way after the others */
#define MAJFLT_MAX 8

void histui_want_run(struct histui_want *want, const struct run_record *r)
{
	char p[512];
	int v;

	want->id = imax(want->id, digits(r->id));
	want->label = imax(want->label, r->label[0] ? fmt_text_cols(r->label) : 1);
	want->kernel = imax(want->kernel, r->kernel_release[0] ? fmt_text_cols(r->kernel_release) : 1);
	v = (int)strspn(r->kernel_release, "0123456789.");
	want->kernel_min = imax(want->kernel_min, r->kernel_release[v] ? v + 2 : v);
	want->params = imax(want->params, fmt_text_cols(histui_params(r, p, sizeof(p))));
	if (r->wall_us < 0)
		snprintf(p, sizeof(p), "n/a");
	else
		fmt_duration(p, sizeof(p), (double)r->wall_us / 1e6);
	want->wall = imax(want->wall, (int)strlen(p));
	want->majflt = imax(want->majflt, r->majflt < 0 ? 3 : imin(digits(r->majflt), MAJFLT_MAX));
	kswapd_text(p, sizeof(p), r->kswapd_s, 7);
	want->kswapd = imax(want->kswapd, (int)strlen(p));
	want->status = imax(want->status, (int)strlen(run_status_title(r->status)));
}

void histui_columns(int width, const struct histui_want *want, struct histui_cols *c)
{
	int fixed, room, kmin;

	c->id = imax(want->id, 2);		/* ID */
	c->wall = imin(imax(want->wall, 4), 10);	/* WALL */
	c->majflt = imin(imax(want->majflt, 6), MAJFLT_MAX);	/* MAJFLT */
	c->kswapd = imin(imax(want->kswapd, 6), 10);	/* KSWAPD */
	c->status = imin(imax(want->status, 6), 7);	/* STATUS */
	c->started = width >= 100 ? 16 : width >= 80 ? 11 : 0;
	/* mark, then a blank after every column but the last */
	fixed = 1 + c->id + 1 + (c->started ? c->started + 1 : 0) + 3 + c->wall + 1 +
		c->majflt + 1 + c->kswapd + 1 + c->status;
	room = width - fixed;
	c->label = imax(want->label, 5);	/* LABEL */
	c->kernel = imax(want->kernel, 6);	/* KERNEL */
	c->params = imax(want->params, 8);	/* WORKLOAD */
	kmin = imin(imax(want->kernel_min, COL_MIN), c->kernel);
	while (c->label + c->kernel + c->params > room) {
		int p = c->params - PARAMS_BONUS;

		if (p >= c->kernel && p >= c->label && c->params > COL_MIN)
			c->params--;
		else if (c->kernel >= c->label && c->kernel > kmin)
			c->kernel--;
		else if (c->label > COL_MIN)
			c->label--;
		else if (c->kernel > kmin)
			c->kernel--;
		else if (c->params > COL_MIN)
			c->params--;
		else if (c->kernel > COL_MIN)
			c->kernel--;
		else
			break;
	}
}

char *histui_format_run(const struct run_record *r, bool marked, const struct histui_cols *c,
			int width, bool utf8, char *buf, size_t len)
{
	char id[24], st[24], label[sizeof(((struct run_record *)0)->label)], kern[80], par[512], wall[32], mf[32], ks[32];
	const char *stat;
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!r) {
		snprintf(id, sizeof(id), "ID");
		snprintf(st, sizeof(st), "STARTED");
		snprintf(label, sizeof(label), "LABEL");
		snprintf(kern, sizeof(kern), "KERNEL");
		snprintf(par, sizeof(par), "WORKLOAD");
		snprintf(wall, sizeof(wall), "WALL");
		snprintf(mf, sizeof(mf), "MAJFLT");
		snprintf(ks, sizeof(ks), "KSWAPD");
		stat = "STATUS";
	} else {
		snprintf(id, sizeof(id), "%" PRId64, r->id);
		report_list_started(r->started_at, c->started, st, sizeof(st));
		snprintf(label, sizeof(label), "%s", r->label[0] ? r->label : "-");
		fmt_blank_controls(label);
		snprintf(kern, sizeof(kern), "%s", r->kernel_release[0] ? r->kernel_release : "-");
		fmt_blank_controls(kern);
		histui_params(r, par, sizeof(par));
		if (r->wall_us < 0)
			snprintf(wall, sizeof(wall), "n/a");
		else
			fmt_duration(wall, sizeof(wall), (double)r->wall_us / 1e6);
		count_text(mf, sizeof(mf), r->majflt, c->majflt);
		kswapd_text(ks, sizeof(ks), r->kswapd_s, c->kswapd);
		stat = run_status_title(r->status);
	}
	o = fmt_field(buf, len, o, marked ? "*" : " ", 1, false, utf8);
	o = fmt_field(buf, len, o, id, c->id, true, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	if (c->started) {
		o = fmt_field(buf, len, o, st, c->started, false, utf8);
		o = fmt_field(buf, len, o, " ", 1, false, utf8);
	}
	o = fmt_field(buf, len, o, label, c->label, false, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	o = fmt_field(buf, len, o, kern, c->kernel, false, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	o = fmt_field(buf, len, o, par, c->params, false, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	o = fmt_field(buf, len, o, wall, c->wall, true, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	o = fmt_field(buf, len, o, mf, c->majflt, true, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	o = fmt_field(buf, len, o, ks, c->kswapd, true, utf8);
	o = fmt_field(buf, len, o, " ", 1, false, utf8);
	o = fmt_field(buf, len, o, stat, c->status, false, utf8);
	/* exactly width: cut a row the minimums overflow, pad a short one */
	buf[fmt_cut_bytes(buf, width)] = '\0';
	if (fmt_text_cols(buf) < width)
		fmt_field(buf, len, strlen(buf), "", width - fmt_text_cols(buf), false, utf8);
	return buf;
}

/* Column where the status field starts. */
static int status_x(const struct histui_cols *c)
{
	return 1 + c->id + 1 + (c->started ? c->started + 1 : 0) + c->label + 1 + c->kernel + 1 +
	       c->params + 1 + c->wall + 1 + c->majflt + 1 + c->kswapd + 1;
}

/* ---- paging ---- */

bool histui_page(long top, int nrows, long total, long have, long nhave, long pagesz,
		 long *off, long *limit)
{
	long end, lim;

	if (total <= 0 || nrows <= 0)
		return false;
	if (top < 0)
		top = 0;
	end = top + nrows < total ? top + nrows : total;
	if (nhave > 0 && top >= have && end <= have + nhave)
		return false;
	lim = pagesz > 2L * nrows ? pagesz : 2L * nrows;
	*off = top - (lim - nrows) / 4;
	if (*off + lim > total)
		*off = total - lim;
	if (*off < 0)
		*off = 0;
	*limit = lim;
	return true;
}

void histui_move(long *cur, long *top, long total, int nrows, long delta)
{
	long maxtop;

	if (total <= 0) {
		*cur = *top = 0;
		return;
	}
	if (nrows < 1)
		nrows = 1;
	if (delta > 0 && *cur > total - 1 - delta)
		*cur = total - 1;
	else if (delta < 0 && *cur < -delta)
		*cur = 0;
	else
		*cur += delta;
	if (*cur > total - 1)
		*cur = total - 1;
	if (*cur < 0)
		*cur = 0;
	if (*cur < *top)
		*top = *cur;
	if (*cur >= *top + nrows)
		*top = *cur - nrows + 1;
	maxtop = total > nrows ? total - nrows : 0;
	if (*top > maxtop)
		*top = maxtop;
	if (*top < 0)
		*top = 0;
}

int histui_cache_load(struct histui_cache *c, struct history *h, const struct history_filter *f,
		      long top, int nrows, char *err, size_t errlen)
{
	struct history_filter q = { 0 };
	struct run_record *v;
	long off, limit;
	size_t n;

	if (f)
		q = *f;
	q.limit = q.offset = 0;
	if (c->total < 0) {
		int64_t t = history_count(h, &q, err, errlen);

		if (t < 0)
			return -1;
		c->total = (long)t;
	}
	if (!histui_page(top, nrows, c->total, c->off, (long)c->n, HISTUI_PAGE, &off, &limit))
		return 0;
	q.offset = off;
	q.limit = limit;
	if (history_list(h, &q, 0, &v, &n, err, errlen))
		return -1;
	run_records_free(c->runs, c->n);
	c->runs = v;
	c->n = n;
	c->off = off;
	return 0;
}

void histui_cache_drop(struct histui_cache *c)
{
	run_records_free(c->runs, c->n);
	c->runs = NULL;
	c->n = 0;
	c->off = 0;
	c->total = -1;
}

/* ---- texts: a run's details, a comparison ---- */

#define KEY_W 12

/* "key         value", the value wrapped at width on blanks, continuation
 * lines indented under it; a word longer than a line is cut. */
static int text_kv(struct detail_lines *t, int width, const char *key, const char *val)
{
	int room = imin(imax(width - KEY_W, 20), 250);	/* 4 bytes a column fit line[] */
	const char *p = val;
	bool first = true;

	do {
		char line[KEY_W + 4 * 250 + 64];
		size_t o = (size_t)snprintf(line, sizeof(line), "%-*s", KEY_W, first ? key : "");
		int col = 0;

		while (*p == ' ')
			p++;
		while (*p) {
			int nb = (int)strcspn(p, " "), wc = fmt_text_cols_n(p, (size_t)nb);

			if (col && col + 1 + wc > room)
				break;
			if (wc > room) {	/* a wide character always goes on */
				nb = fmt_cut_bytes(p, room < 2 ? 2 : room);
				wc = fmt_text_cols_n(p, (size_t)nb);
			}
			if (col) {
				line[o++] = ' ';
				col++;
			}
			memcpy(line + o, p, (size_t)nb);
			o += (size_t)nb;
			col += wc;
			p += nb;
			while (*p == ' ')
				p++;
		}
		line[o] = '\0';
		if (detail_add(t, DA_PLAIN, "%s", line))
			return -1;
		first = false;
	} while (*p);
	return 0;
}

static void kib_text(char *buf, size_t len, int64_t kib)
{
	fmt_kib(buf, len, kib);
}

static void i64_text(char *buf, size_t len, int64_t v)
{
	if (v == NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%" PRId64, v);
}

static int detail_head(const struct run_record *r, int width, struct detail_lines *t)
{
	char a[512], b[64], c[64], d[64];
	struct timeline tl;
	int rc = 0;

	if (r->repeat_n > 1)
		snprintf(b, sizeof(b), "  run %d of %d", r->repeat_k, r->repeat_n);
	else
		b[0] = '\0';
	rc |= detail_add(t, DA_TITLE, "run %" PRId64 "  started %s  label %s%s", r->id,
		       r->started_at[0] ? r->started_at : "?", r->label[0] ? r->label : "-", b);
	/* the victims by name where the run kept them */
	if (r->status == RUN_OOM && r->nvictims > 0)
		snprintf(c, sizeof(c), " (killed %d %s%s)", r->victims[0].pid, r->victims[0].comm,
			 r->nvictims > 1 || r->oom_unnamed > 0 ? " and more" : "");
	else
		snprintf(c, sizeof(c), "%s", r->status == RUN_OOM ? " (a worker was OOM-killed)"
			 : r->status == RUN_FAILED ? " (a worker failed)" : "");
	rc |= detail_add(t, r->status == RUN_OK ? DA_PLAIN : DA_BAD, "%-*s%s%s", KEY_W, "status",
		       run_status_title(r->status), c);
	if (r->kind == RUN_QSBENCH) {
		histui_params(r, c, sizeof(c));
		snprintf(a, sizeof(a), "qsbench %s", c);
	} else {
		histui_params(r, a, sizeof(a));
	}
	rc |= text_kv(t, width, "workload", a);
	if (r->session[0]) {
		snprintf(a, sizeof(a), "%s  %s", r->session, r->cell);
		rc |= text_kv(t, width, "session", a);
	}
	run_record_timeline(r, &tl);
	timefmt_csh(a, sizeof(a), &tl);
	rc |= detail_add(t, DA_PLAIN, "%-*s%s", KEY_W, "time (csh)", a);
	timefmt_gnu(a, sizeof(a), &tl);
	rc |= detail_add(t, DA_PLAIN, "%-*s%s", KEY_W, "time (GNU)", a);
	timefmt_kswapd(a, sizeof(a), r->kswapd_s);
	if (isnan(r->kswapd_s))	/* posted text gives it for one run alone, or not at all */
		rc |= detail_add(t, DA_PLAIN, "%-*s%s (%s)", KEY_W, "kswapd", a,
				 run_record_posted(r) ? "not recorded for this run" :
				 "kswapd was not visible");
	else
		rc |= detail_add(t, DA_PLAIN, "%-*s%s (%.2f s of CPU)", KEY_W, "kswapd", a,
			       r->kswapd_s);
	timefmt_stalls(a, sizeof(a), &r->stalls);
	rc |= detail_add(t, DA_PLAIN, "%-*s%s", KEY_W, "stalls", a);
	if (run_record_swapless(r))
		snprintf(b, sizeof(b), "none (no swap)");
	else
		kib_text(b, sizeof(b), r->swap_peak_kib);
	kib_text(c, sizeof(c), r->swap_before_kib);
	kib_text(d, sizeof(d), r->swap_after_kib);
	kib_text(a, sizeof(a), r->mem_free_min_kib);
	rc |= detail_add(t, DA_PLAIN, "%-*sswap peak %s, before %s, after %s; lowest MemFree %s",
		       KEY_W, "memory", b, c, d, a);
	return rc;
}

static int detail_system(const struct run_record *r, int width, struct detail_lines *t)
{
	static const struct {
		const char *name;
		size_t off;
	} vm[] = {
		{ "swappiness", offsetof(struct run_record, swappiness) },
		{ "vfs_cache_pressure", offsetof(struct run_record, vfs_cache_pressure) },
		{ "min_free_kbytes", offsetof(struct run_record, min_free_kbytes) },
		{ "watermark_scale_factor", offsetof(struct run_record, watermark_scale_factor) },
		{ "page-cluster", offsetof(struct run_record, page_cluster) },
		{ "overcommit_memory", offsetof(struct run_record, overcommit_memory) },
		{ "dirty_ratio", offsetof(struct run_record, dirty_ratio) },
		{ "dirty_background_ratio", offsetof(struct run_record, dirty_background_ratio) },
	};
	char a[4096], b[64], c[64], d[64], host[128];
	size_t o = 0;
	int rc = 0;

	rc |= detail_add(t, DA_PLAIN, "%s", "");
	rc |= detail_add(t, DA_TITLE, "%s", "System at the start");
	kib_text(b, sizeof(b), r->ram_kib);
	kib_text(c, sizeof(c), r->swap_total_kib);
	if (r->ncpus > 0)
		snprintf(d, sizeof(d), "%d", r->ncpus);
	else
		snprintf(d, sizeof(d), "?");
	snprintf(a, sizeof(a), "%s, %s CPUs, RAM %s, swap %s", run_record_host(r, host, sizeof(host)),
		 d, b, c);
	rc |= text_kv(t, width, "host", a);
	snprintf(a, sizeof(a), "%s %s", r->kernel_release[0] ? r->kernel_release : "?",
		 r->kernel_version ? r->kernel_version : "");
	rc |= text_kv(t, width, "kernel", a);
	rc |= text_kv(t, width, "cmdline", r->proc_cmdline && r->proc_cmdline[0] ?
		      r->proc_cmdline : "-");
	if (r->swap_devices && r->swap_devices[0]) {
		const char *p = r->swap_devices;
		bool first = true;

		while (*p) {
			size_t n = strcspn(p, "\n");

			if (n) {
				run_record_swap_line(p, a, sizeof(a));
				fmt_blank_controls(a);
				rc |= text_kv(t, width, first ? "swap" : "", a);
				first = false;
			}
			p += n + (p[n] == '\n');
		}
	} else {
		rc |= text_kv(t, width, "swap", "no swap devices recorded");
	}
	for (size_t i = 0; i < sizeof(vm) / sizeof(vm[0]); i++) {
		int64_t v = *(const int64_t *)((const char *)r + vm[i].off);

		i64_text(b, sizeof(b), v);
		o += (size_t)snprintf(a + o, sizeof(a) - o, "%s%s=%s", i ? " " : "", vm[i].name, b);
	}
	snprintf(a + o, sizeof(a) - o, " zswap=%s",
		 r->zswap == NA ? "n/a" : r->zswap ? "on" : "off");
	rc |= text_kv(t, width, "vm sysctls", a);
	if (r->mem_limit_kib == NA)
		snprintf(b, sizeof(b), "none");
	else
		kib_text(b, sizeof(b), r->mem_limit_kib);
	if (r->global_limit_kib == NA)
		snprintf(c, sizeof(c), "none");
	else
		kib_text(c, sizeof(c), r->global_limit_kib);
	if (r->tmp_swap_kib <= 0)
		snprintf(d, sizeof(d), "none");
	else
		kib_text(d, sizeof(d), r->tmp_swap_kib);
	snprintf(a, sizeof(a), "memory cgroup %s, whole machine %s, temporary swap %s", b, c, d);
	rc |= text_kv(t, width, "limits", a);
	snprintf(a, sizeof(a), "%s%s, group %s", run_record_posted(r) ? "posted text" : "thrashtop ",
		 r->version, r->config_hash[0] ? r->config_hash : "-");
	rc |= text_kv(t, width, "recorded by", a);
	return rc;
}

static void secs_text(char *buf, size_t len, double s)
{
	if (isnan(s))
		snprintf(buf, len, "?");
	else if (s < 0 && s > -0.05)	/* the first sample, a tick before the start */
		snprintf(buf, len, "0s");
	else if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else
		snprintf(buf, len, "%.0fs", s);
}

/* The run's series as exactly w * k samples spanning the whole run: means
 * of buckets when there are more points, points repeated when fewer. */
static int resample(const struct run_record *r, int id, int n, struct series *out)
{
	int np = r->nsamples;

	if (series_init(out, n))
		return -1;
	if (np >= n) {
		struct series all;
		double *tt = malloc(sizeof(double) * (size_t)n * 2);

		if (!tt || series_init(&all, np)) {
			free(tt);
			series_free(out);
			return -1;
		}
		for (int i = 0; i < np; i++)
			series_push(&all, r->t[i], r->series[id][i]);
		series_downsample(&all, n, tt, tt + n);
		for (int i = 0; i < n; i++)
			series_push(out, tt[i], tt[n + i]);
		series_free(&all);
		free(tt);
	} else {
		for (int i = 0; i < n; i++) {
			int j = (int)((long)i * np / n);

			series_push(out, r->t[j], r->series[id][j]);
		}
	}
	return 0;
}

/* One recorded series, on the scale its registry rule gives with the
 * figures kept with the run. */
static int detail_plot(const struct run_record *r, int id, int width, int plot_h,
		       enum plot_mode mode, const double *marks, struct detail_lines *t)
{
	const struct metric_def *d = metric_def(id);
	double lo, hi, scale;
	char left[128], right[64], a[32], b[32];
	struct plot p = { .w = width, .h = plot_h, .mode = mode, .marks = marks,
			  .nmarks = r->nchanges };
	struct series s;
	char *rows;
	int rc = 0, n = width * plot_samples_per_cell(mode);

	if (!run_record_series_range(r, id, &lo, &hi))
		return detail_add(t, DA_TITLE, "%s  n/a (%s)", d->title,
				id == M_KSWAPD_CPU ? "kswapd was not visible" : "not recorded");
	p.ymax = scale = run_record_scale(r, id, hi);
	metrics_value_text(id, hi, b, sizeof(b));
	if (d->scale == MS_RAM) {	/* what is left matters: its low */
		metrics_value_text(id, lo, a, sizeof(a));
		snprintf(left, sizeof(left), "%s  lowest %s  highest %s", d->title, a, b);
	} else {
		snprintf(left, sizeof(left), "%s%s  peak %s", d->title,
			 d->kind == MK_RATE && d->unit[0] != '%' ? "/s" : "", b);
	}
	metrics_value_text(id, scale, a, sizeof(a));
	snprintf(right, sizeof(right), "scale 0..%s", a);
	rc |= detail_add(t, DA_TITLE, "%s%*s", left, imax(width - fmt_text_cols(left), fmt_text_cols(right) + 1),
		       right);
	rows = malloc(PLOT_ROW_BYTES(width) * (size_t)plot_h);
	if (!rows || resample(r, id, n, &s)) {
		free(rows);
		return -1;
	}
	if (plot_render(&p, &s, rows, PLOT_ROW_BYTES(width), NULL) == 0) {
		for (int y = 0; y < plot_h; y++)
			rc |= detail_add(t, DA_PLOT + id, "%s", rows + (size_t)y * PLOT_ROW_BYTES(width));
	} else {
		rc |= detail_add(t, DA_BAD, "%s", "cannot draw this plot");
	}
	secs_text(a, sizeof(a), r->t[0]);
	secs_text(b, sizeof(b), r->t[r->nsamples - 1]);
	rc |= detail_add(t, DA_DIM, "%s%*s", a, imax(width - fmt_text_cols(a), 1), b);
	series_free(&s);
	free(rows);
	return rc;
}

int histui_detail(const struct run_record *r, int width, int plot_h, enum plot_mode mode,
		  struct detail_lines *t)
{
	double *marks = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	width = imax(width, 20);
	plot_h = imax(plot_h, 1);
	rc = detail_head(r, width, t);
	rc |= detail_system(r, width, t);
	rc |= detail_tables(r, DETAIL_SCREEN, t);
	rc |= detail_add(t, DA_PLAIN, "%s", "");
	if (r->nsamples < 1) {
		rc |= detail_add(t, DA_DIM, "%s", "no samples recorded for this run: nothing to plot");
	} else {
		if (r->nchanges) {
			marks = malloc(sizeof(double) * (size_t)r->nchanges);
			if (!marks)
				rc = -1;
			for (int i = 0; marks && i < r->nchanges; i++)
				marks[i] = r->changes[i].t_s;
		}
		for (int id = 0, k = 0; !rc && id < M_N; id++) {
			if (!r->series[id])
				continue;
			if (k++)
				rc |= detail_add(t, DA_PLAIN, "%s", "");
			rc |= detail_plot(r, id, width, plot_h, mode, marks, t);
		}
		free(marks);
	}
	if (rc) {
		detail_lines_free(t);
		errno = ENOMEM;
		return -1;
	}
	sanitize_lines(t);
	return 0;
}

/* ---- the screen ---- */

struct hs {
	struct view v;			/* first: the loop's handle */
	struct history *h;
	WINDOW *w;
	bool resized;
	enum plot_mode mode;
	char label[128], kernel[128];	/* filters, "" none */
	struct histui_cache cache;
	long cur, top;
	int64_t *marks;			/* in the order marked */
	size_t nmarks, capmarks;
	bool groups;			/* c compares the marked runs' groups */
	int64_t replay_id;		/* p: the run to replay */
	char msg[512];
	bool msg_bad;
	/* a pane: a run's details or a comparison */
	bool pane;
	char pane_title[840];	/* "run ID  LABEL" */
	struct detail_lines text;
	long pscroll;
	int hscroll;
	struct run_record run;		/* the run shown, laid out again on resize */
	bool has_run;
	/* a line being typed on the bottom row, fed a key at a time */
	const char *question;		/* NULL: no prompt */
	char *answer;			/* where Enter puts it */
	size_t answer_len;
	char in[128];
	size_t nin;
};

static void setmsg(struct hs *s, bool bad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void setmsg(struct hs *s, bool bad, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	fmt_blank_controls(s->msg);
	s->msg_bad = bad;
}

static int list_rows(void)
{
	return LINES - 4;	/* title, header; cursor run, keys */
}

static long mark_index(const struct hs *s, int64_t id)
{
	for (size_t i = 0; i < s->nmarks; i++)
		if (s->marks[i] == id)
			return (long)i;
	return -1;
}

static const struct run_record *row(const struct hs *s, long i)
{
	const struct histui_cache *c = &s->cache;

	if (i < c->off || i >= c->off + (long)c->n)
		return NULL;
	return &c->runs[i - c->off];
}

static void filter_of(const struct hs *s, struct history_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->label = s->label[0] ? s->label : NULL;
	f->kernel = s->kernel[0] ? s->kernel : NULL;
}

/* Loads what the list shows; a failure is said and the rows kept. */
static void load(struct hs *s)
{
	struct history_filter f;
	char err[512];

	filter_of(s, &f);
	if (s->cache.total < 0) {
		histui_cache_drop(&s->cache);
		s->cur = s->top = 0;
	}
	if (histui_cache_load(&s->cache, s->h, &f, s->top, list_rows(), err, sizeof(err))) {
		setmsg(s, true, "%s", err);
		return;
	}
	histui_move(&s->cur, &s->top, s->cache.total, list_rows(), 0);
	if (histui_cache_load(&s->cache, s->h, &f, s->top, list_rows(), err, sizeof(err)))
		setmsg(s, true, "%s", err);
}

static void draw_footer(struct hs *s, const char *keys)
{
	int y = LINES - 1;

	if (s->msg[0]) {
		wattron(s->w, s->msg_bad ? A_BOLD | tui_attr(TP_BAD) : A_BOLD);
		tui_put(s->w, y, 0, COLS, s->msg);
		wattroff(s->w, s->msg_bad ? A_BOLD | tui_attr(TP_BAD) : A_BOLD);
		return;
	}
	wattron(s->w, tui_attr(TP_DIM));
	tui_put(s->w, y, 0, COLS, keys);
	wattroff(s->w, tui_attr(TP_DIM));
}

static void draw_list(struct hs *s)
{
	char left[512], right[128], line[4096], par[512];
	struct histui_want want = { 0 };
	struct histui_cols c;
	const struct run_record *r;
	int n = list_rows();

	snprintf(left, sizeof(left), "thrashtop history  %ld run%s%s%s%s%s", s->cache.total,
		 s->cache.total == 1 ? "" : "s", s->label[0] ? "  label=" : "", s->label,
		 s->kernel[0] ? "  kernel~" : "", s->kernel);
	fmt_blank_controls(left);
	snprintf(right, sizeof(right), "%zu marked  c compares %s", s->nmarks,
		 s->groups ? "groups" : "runs");
	wattron(s->w, A_BOLD | tui_attr(TP_TITLE));
	tui_put_lr(s->w, 0, 0, COLS, left, right);
	wattroff(s->w, A_BOLD | tui_attr(TP_TITLE));

	for (size_t i = 0; i < s->cache.n; i++)
		histui_want_run(&want, &s->cache.runs[i]);
	histui_columns(COLS, &want, &c);
	wattron(s->w, A_REVERSE);
	mvwaddstr(s->w, 1, 0, histui_format_run(NULL, false, &c, COLS, tui_utf8(), line, sizeof(line)));
	wattroff(s->w, A_REVERSE);

	if (s->cache.total <= 0) {
		tui_centre(s->w, 2 + n / 2, 0, COLS, s->cache.total < 0 ? "the history could not be read" :
		       s->label[0] || s->kernel[0] ? "no runs match the filter (/ or k, then Enter, clears it)"
		       : "no runs recorded yet", A_BOLD);
	}
	for (int i = 0; i < n && s->top + i < s->cache.total; i++) {
		long idx = s->top + i;
		int y = 2 + i, attr = idx == s->cur ? A_REVERSE : 0;

		r = row(s, idx);
		if (!r) {
			tui_put(s->w, y, 0, COLS, "  (not loaded)");
			continue;
		}
		histui_format_run(r, mark_index(s, r->id) >= 0, &c, COLS, tui_utf8(), line, sizeof(line));
		wattron(s->w, attr);
		mvwaddstr(s->w, y, 0, line);
		wattroff(s->w, attr);
		if ((r->status == RUN_OOM || r->status == RUN_FAILED) && status_x(&c) < COLS)
			mvwchgat(s->w, y, status_x(&c), imin(c.status, COLS - status_x(&c)),
				 A_BOLD | attr | (tui_colour() ? 0 : A_UNDERLINE),
				 (short)(tui_colour() ? TP_BAD : 0), NULL);
	}

	r = row(s, s->cur);
	if (r) {
		char st[64];

		if (r->repeat_n > 1)
			snprintf(st, sizeof(st), "  run %d of %d", r->repeat_k, r->repeat_n);
		else
			st[0] = '\0';
		histui_params(r, par, sizeof(par));
		snprintf(line, sizeof(line), "#%" PRId64 " %s  host %s  %s  %s  %s%s%s", r->id,
			 r->started_at, r->hostname[0] ? r->hostname : "?",
			 r->label[0] ? r->label : "(no label)",
			 r->kernel_release[0] ? r->kernel_release : "?",
			 r->kind == RUN_QSBENCH ? "qsbench " : "", par, st);
		fmt_blank_controls(line);
		wattron(s->w, tui_attr(TP_DIM));
		tui_put(s->w, LINES - 2, 0, COLS, line);
		wattroff(s->w, tui_attr(TP_DIM));
	}
	draw_footer(s, COLS >= 100 ?
		    "Enter open  p replay  space mark  u unmark all  c compare  g runs/groups  / label  k kernel  q back"
		    : "Enter open  p replay  spc mark  c compare  g run/group  / label  k kernel  q");
}

static int pane_rows(void)
{
	return LINES - 2;
}

static void draw_pane(struct hs *s)
{
	char right[96];
	int n = pane_rows();
	long maxs = (long)s->text.n - n;

	if (s->pscroll > maxs)
		s->pscroll = maxs;
	if (s->pscroll < 0)
		s->pscroll = 0;
	snprintf(right, sizeof(right), "lines %ld-%ld of %zu", s->text.n ? s->pscroll + 1 : 0,
		 s->pscroll + n < (long)s->text.n ? s->pscroll + n : (long)s->text.n, s->text.n);
	wattron(s->w, A_BOLD | tui_attr(TP_TITLE));
	tui_put_lr(s->w, 0, 0, COLS, s->pane_title, right);
	wattroff(s->w, A_BOLD | tui_attr(TP_TITLE));
	for (int i = 0; i < n && s->pscroll + i < (long)s->text.n; i++) {
		const struct detail_line *l = &s->text.v[s->pscroll + i];
		const char *t = l->text;
		int attr = 0, blank;

		t += fmt_skip_cols(t, s->hscroll, &blank);	/* the columns panned past */
		if (l->attr == DA_TITLE)
			attr = A_BOLD;
		else if (l->attr == DA_BAD)
			attr = A_BOLD | tui_attr(TP_BAD);
		else if (l->attr == DA_DIM)
			attr = tui_attr(TP_DIM);
		else if (l->attr >= DA_PLOT)
			attr = tui_attr(tui_series_pair(l->attr - DA_PLOT));
		wattron(s->w, attr);
		tui_put(s->w, 1 + i, blank, COLS - blank, t);
		wattroff(s->w, attr);
	}
	draw_footer(s, s->text.cols > COLS ?
		    "Up/Down PgUp/PgDn Home/End scroll  Left/Right pan  q back  h leave" :
		    "Up/Down PgUp/PgDn Home/End scroll  q back to the list  h leave");
}

static void draw(struct hs *s)
{
	werase(s->w);
	if (tui_too_small()) {
		tui_draw_too_small(s->w);
	} else if (s->pane) {
		draw_pane(s);
	} else {
		draw_list(s);
	}
	if (s->question && !tui_too_small()) {
		char line[512];

		snprintf(line, sizeof(line), "%s%s", s->question, s->in);
		wmove(s->w, LINES - 1, 0);
		wclrtoeol(s->w);
		wattron(s->w, A_BOLD);
		tui_put(s->w, LINES - 1, 0, COLS - 1, line);
		wattroff(s->w, A_BOLD);
		/* the cursor after the answer: tui_put leaves the window's own
		 * cursor where it began */
		mvwaddch(s->w, LINES - 1, imin(fmt_text_cols(line), COLS - 1), ' ' | A_REVERSE);
	}
	wnoutrefresh(s->w);
	cast_doupdate();
}

static int detail_plot_h(void)
{
	return imin(imax(LINES / 6, 3), 10);
}

static void open_run(struct hs *s)
{
	const struct run_record *r = row(s, s->cur);
	char err[512];
	int rc;

	if (!r)
		return;
	run_record_clear(&s->run);
	s->has_run = false;
	rc = history_get(s->h, r->id, &s->run, err, sizeof(err));
	if (rc == 1)
		setmsg(s, true, "run %" PRId64 " is no longer in the history", r->id);
	else if (rc)
		setmsg(s, true, "%s", err);
	if (rc)
		return;
	detail_lines_free(&s->text);
	if (histui_detail(&s->run, COLS, detail_plot_h(), s->mode, &s->text)) {
		setmsg(s, true, "out of memory laying out run %" PRId64, s->run.id);
		run_record_clear(&s->run);
		return;
	}
	s->has_run = true;
	snprintf(s->pane_title, sizeof(s->pane_title), "run %" PRId64 "  %s", s->run.id,
		 s->run.label[0] ? s->run.label : "(no label)");
	fmt_blank_controls(s->pane_title);
	s->pane = true;
	s->pscroll = 0;
	s->hscroll = 0;
}

/* Splits what a report printed into the pane's lines. */
static int text_from(struct detail_lines *t, const char *buf)
{
	while (*buf) {
		size_t n = strcspn(buf, "\n");

		if (detail_add(t, DA_PLAIN, "%.*s", (int)n, buf))
			return -1;
		buf += n + (buf[n] == '\n');
	}
	return 0;
}

/* The marked runs, or their groups, as compare_collect's sets in the order
 * marked (the first is the base), named as the list shows them: names
 * has room for every mark's. */
static int cmp_collect(struct hs *s, struct compare_sets *c, char (*names)[48], char *err,
		       size_t errlen)
{
	struct compare_arg *args = calloc(s->nmarks, sizeof(*args));
	int rc = -1;

	if (!args) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->nmarks; i++)
		args[i] = (struct compare_arg){ .by = s->groups ? COMPARE_GROUP : COMPARE_RUN,
						.id = s->marks[i] };
	if (compare_collect(s->h, args, s->nmarks, NULL, c, err, errlen))
		goto out;
	for (size_t i = 0; i < s->nmarks; i++) {
		const struct run_record *r = NULL, *oldest = NULL;
		int k = args[i].set;

		for (size_t j = 0; j < c->n; j++) {
			if (c->runs[j].id == s->marks[i])
				r = &c->runs[j];
			if (c->set[j] == k)
				oldest = &c->runs[j];	/* newest first: the last */
		}
		if (!r) {
			snprintf(err, errlen, "run %" PRId64 " is no longer in the history", s->marks[i]);
			goto out;
		}
		if (k < 0)	/* of a group marked before */
			continue;
		/* a group named as stats names it, after its oldest run */
		snprintf(names[k], sizeof(names[k]), "%s%" PRId64 " %.*s", s->groups ? "g:" : "#",
			 s->groups ? oldest->id : r->id, fmt_cut_bytes(r->label, 16), r->label);
		fmt_blank_controls(names[k]);
	}
	rc = 0;
out:
	free(args);
	return rc;
}

static void compare(struct hs *s)
{
	struct compare_sets c = { 0 };
	char (*cnames)[48] = NULL;
	const char **names = NULL;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	if (s->nmarks < 2) {
		setmsg(s, true, "mark two or more runs with space first (g: compare %s instead)",
		       s->groups ? "runs" : "groups");
		return;
	}
	cnames = calloc(s->nmarks, sizeof(*cnames));
	names = calloc(s->nmarks, sizeof(*names));
	if (!cnames || !names) {
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	if (cmp_collect(s, &c, cnames, err, sizeof(err)))
		goto out;
	if (c.nsets < 2) {
		snprintf(err, sizeof(err), "the marked runs are all of one group: mark runs of "
			 "another group, or press g to compare runs");
		goto out;
	}
	if (!(f = open_memstream(&buf, &len))) {
		snprintf(err, sizeof(err), "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.nsets; i++)
		names[i] = cnames[i];
	fprintf(f, "%zu %s compared with the first, %s:\n\n", c.nsets, s->groups ? "groups" : "runs",
		cnames[0]);
	rc = compare_print(f, c.runs, c.n, c.set, c.nsets, names, false, err, sizeof(err));
	if (!rc && s->groups) {
		struct report_opts o;
		struct run_source *src = run_source_array(c.runs, c.n, err, sizeof(err));

		report_opts_default(&o);
		o.lines = 0;
		fprintf(f, "\nThe groups, run by run:\n\n");
		rc = !src || report_stats(f, src, &o, err, sizeof(err)) ? -1 : 0;
		run_source_free(src);
	}
	if (fclose(f) && !rc) {
		snprintf(err, sizeof(err), "cannot lay out the comparison: %s", strerror(errno));
		rc = -1;
	}
	if (!rc) {
		detail_lines_free(&s->text);
		if (text_from(&s->text, buf)) {
			detail_lines_free(&s->text);
			snprintf(err, sizeof(err), "out of memory");
			rc = -1;
		}
		sanitize_lines(&s->text);
	}
	if (!rc) {
		snprintf(s->pane_title, sizeof(s->pane_title), "compare %zu %s", c.nsets,
			 s->groups ? "groups" : "runs");
		s->pane = true;
		s->pscroll = 0;
		s->hscroll = 0;
		run_record_clear(&s->run);
		s->has_run = false;
	}
out:
	if (rc)
		setmsg(s, true, "compare: %s", err[0] ? err : "failed");
	free(buf);
	free(names);
	free(cnames);
	compare_sets_free(&c);
}

static void toggle_mark(struct hs *s)
{
	const struct run_record *r = row(s, s->cur);
	long i;

	if (!r)
		return;
	i = mark_index(s, r->id);
	if (i >= 0) {
		memmove(s->marks + i, s->marks + i + 1, (s->nmarks - (size_t)i - 1) * sizeof(*s->marks));
		s->nmarks--;
	} else {
		if (s->nmarks == s->capmarks) {
			size_t ncap = s->capmarks ? s->capmarks * 2 : 16;
			int64_t *nm = realloc(s->marks, ncap * sizeof(*nm));

			if (!nm) {
				setmsg(s, true, "out of memory");
				return;
			}
			s->marks = nm;
			s->capmarks = ncap;
		}
		s->marks[s->nmarks++] = r->id;
	}
	histui_move(&s->cur, &s->top, s->cache.total, list_rows(), 1);
}

static bool is_enter(int ch)
{
	return ch == '\n' || ch == '\r' || ch == KEY_ENTER;
}

static void on_resize(struct hs *s)
{
	s->resized = true;
	wresize(s->w, LINES, COLS);
	if (s->pane && s->has_run) {
		detail_lines_free(&s->text);
		if (histui_detail(&s->run, COLS, detail_plot_h(), s->mode, &s->text))
			setmsg(s, true, "out of memory laying out run %" PRId64, s->run.id);
	}
}

/* Starts a prompt on the bottom row; Enter sets the filter it is for. */
static void ask(struct hs *s, const char *question, char *answer, size_t len)
{
	s->question = question;
	s->answer = answer;
	s->answer_len = len;
	s->in[0] = '\0';
	s->nin = 0;
}

/* One key typed at the prompt: Enter sets the filter, Esc drops it. */
static void key_prompt(struct hs *s, int ch)
{
	if (is_enter(ch)) {
		snprintf(s->answer, s->answer_len, "%s", s->in);
		histui_cache_drop(&s->cache);
		s->cur = s->top = 0;
		s->question = NULL;
	} else if (ch == 27) {
		s->question = NULL;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		while (s->nin > 0 && ((unsigned char)s->in[--s->nin] & 0xC0) == 0x80)
			;
		s->in[s->nin] = '\0';
	} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && s->nin + 1 < sizeof(s->in) &&
		   s->nin + 1 < s->answer_len) {
		s->in[s->nin++] = (char)ch;
		s->in[s->nin] = '\0';
	}
}

enum { STAY, LEAVE, REPLAY };

static int key_list(struct hs *s, int ch)
{
	int n = list_rows();

	switch (ch) {
	case 'q': case 'Q': case 27: case 'h':
		return LEAVE;
	case KEY_UP: histui_move(&s->cur, &s->top, s->cache.total, n, -1); break;
	case KEY_DOWN: histui_move(&s->cur, &s->top, s->cache.total, n, 1); break;
	case KEY_PPAGE: histui_move(&s->cur, &s->top, s->cache.total, n, -n); break;
	case KEY_NPAGE: histui_move(&s->cur, &s->top, s->cache.total, n, n); break;
	case KEY_HOME: histui_move(&s->cur, &s->top, s->cache.total, n, -s->cur); break;
	case KEY_END: histui_move(&s->cur, &s->top, s->cache.total, n, s->cache.total); break;
	case ' ': toggle_mark(s); break;
	case 'u': s->nmarks = 0; break;
	case 'g':
		s->groups = !s->groups;
		setmsg(s, false, "c now compares the marked %s", s->groups ?
		       "runs' groups (runs of one configuration)" : "runs one by one");
		break;
	case 'c': compare(s); break;
	case 'p':
		if (!row(s, s->cur))
			break;
		s->replay_id = row(s, s->cur)->id;
		return REPLAY;
	case '/':
		ask(s, "label (exact, or a pattern with * ? [ ]; empty clears): ", s->label,
		    sizeof(s->label));
		break;
	case 'k':
		ask(s, "kernel contains (empty clears): ", s->kernel, sizeof(s->kernel));
		break;
	default:
		if (is_enter(ch))
			open_run(s);
		break;
	}
	return STAY;
}

static int key_pane(struct hs *s, int ch)
{
	int n = pane_rows();

	switch (ch) {
	case 'h':
		return LEAVE;
	case 'q': case 'Q': case 27: case KEY_BACKSPACE:
		s->pane = false;
		break;
	case KEY_UP: s->pscroll--; break;
	case KEY_DOWN: s->pscroll++; break;
	case KEY_PPAGE: s->pscroll -= n - 1; break;
	case KEY_NPAGE: case ' ': s->pscroll += n - 1; break;
	case KEY_HOME: s->pscroll = 0; break;
	case KEY_END: s->pscroll = (long)s->text.n; break;
	case KEY_LEFT: s->hscroll = imax(s->hscroll - 8, 0); break;
	case KEY_RIGHT:
		if (s->hscroll + COLS < s->text.cols)
			s->hscroll += 8;
		break;
	}
	return STAY;
}

static void hv_draw(struct view *v)
{
	struct hs *s = (struct hs *)v;

	if (!s->pane && !tui_too_small())
		load(s);
	draw(s);
}

static int hv_key(struct view *v, int ch)
{
	struct hs *s = (struct hs *)v;

	s->msg[0] = '\0';
	if (ch == KEY_RESIZE) {
		on_resize(s);
		return VIEW_STAY;
	}
	if (ch == 12) {	/* Ctrl-L */
		clearok(curscr, TRUE);
		return VIEW_STAY;
	}
	if (s->question) {
		key_prompt(s, ch);
		return VIEW_STAY;
	}
	if (tui_too_small())
		return ch == 'q' || ch == 'Q' || ch == 27 || ch == 'h' ? VIEW_CLOSE : VIEW_STAY;
	switch (s->pane ? key_pane(s, ch) : key_list(s, ch)) {
	case LEAVE: return VIEW_CLOSE;
	case REPLAY: return HISTUI_REPLAY;
	default: return VIEW_STAY;
	}
}

static void hv_close(struct view *v)
{
	struct hs *s = (struct hs *)v;

	delwin(s->w);
	histui_cache_drop(&s->cache);
	detail_lines_free(&s->text);
	run_record_clear(&s->run);
	free(s->marks);
	free(s);
	touchwin(stdscr);
	wnoutrefresh(stdscr);
}

static const struct view_ops histui_ops = {
	.name = "history", .key = hv_key, .draw = hv_draw, .close = hv_close,
};

struct view *histui_open(struct history *h, char *err, size_t errlen)
{
	struct hs *s;

	if (!tui_active()) {
		snprintf(err, errlen, "history view: the terminal is not set up (tui_init)");
		return NULL;
	}
	if (!h) {
		snprintf(err, errlen, "history view: no history");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "history view: out of memory");
		return NULL;
	}
	s->w = newwin(LINES, COLS, 0, 0);
	if (!s->w) {
		free(s);
		snprintf(err, errlen, "history view: cannot create a window");
		return NULL;
	}
	s->v.ops = &histui_ops;
	s->h = h;
	s->cache.total = -1;
	keypad(s->w, TRUE);
	s->mode = tui_mode();
	run_record_init(&s->run);
	return &s->v;
}

int64_t histui_replay_id(const struct view *v)
{
	return v->ops == &histui_ops ? ((const struct hs *)v)->replay_id : 0;
}

void histui_added(struct view *v, int64_t id)
{
	struct hs *s = (struct hs *)v;

	if (v->ops != &histui_ops)
		return;
	histui_cache_drop(&s->cache);
	if (!s->question)
		setmsg(s, false, "run %" PRId64 " added to the history", id);
}
