/* Reports over recorded runs, and reading exports and posted lines back. */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "fmt.h"
#include "plot.h"
#include "series.h"
#include "timefmt.h"

static void seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

void report_opts_default(struct report_opts *o)
{
	o->unstable_cov_pct = 5.0;
	o->outlier_z = 3.5;
	o->gnu = false;
	o->rows = "kernel";
	o->cols = "label";
}

static const char *const metric_names[RM_N] = { "wall", "user", "sys", "majflt", "kswapd" };

const char *report_metric_name(enum report_metric m)
{
	return (unsigned)m < RM_N ? metric_names[m] : "?";
}

double report_metric(const struct run_record *r, enum report_metric m)
{
	int64_t v;

	switch (m) {
	case RM_WALL: v = r->wall_us; break;
	case RM_USER: v = r->user_us; break;
	case RM_SYS: v = r->sys_us; break;
	case RM_MAJFLT: return r->majflt == HIST_NA ? NAN : (double)r->majflt;
	case RM_KSWAPD: return r->kswapd_s;
	default: return NAN;
	}
	return v == HIST_NA ? NAN : (double)v / 1e6;
}

void report_timeline(const struct run_record *r, struct timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->user_us = r->user_us;
	t->sys_us = r->sys_us;
	t->wall_us = r->wall_us;
	t->majflt = r->majflt;
	t->minflt = r->minflt;
	t->inblock = r->inblock;
	t->oublock = r->oublock;
	t->maxrss_kib = HIST_NA;
	t->exit_code = 0;
	for (int i = 0; i < r->nworkers; i++) {
		if (r->workers[i].signal && !t->term_signal)
			t->term_signal = r->workers[i].signal;
		if (r->workers[i].exit_code > 0 && !t->exit_code)
			t->exit_code = r->workers[i].exit_code;
	}
}

/* ---- groups ---- */

static int cmp_started(const struct run_record *a, const struct run_record *b)
{
	int c = strcmp(a->started_at, b->started_at);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

static const struct run_record *sort_base;

static int cmp_idx(const void *x, const void *y)
{
	return cmp_started(&sort_base[*(const size_t *)x], &sort_base[*(const size_t *)y]);
}

static int group_stats(const struct run_record *runs, struct report_group *g,
		       const struct report_opts *o)
{
	double *x = malloc(sizeof(double) * (g->n ? g->n : 1));
	size_t *pos = malloc(sizeof(size_t) * (g->n ? g->n : 1));

	if (!x || !pos) {
		free(x);
		free(pos);
		return -1;
	}
	for (int m = 0; m < RM_N; m++) {
		size_t k = 0;
		for (size_t i = 0; i < g->n; i++) {
			const struct run_record *r = &runs[g->idx[i]];
			double v = report_metric(r, (enum report_metric)m);
			if (r->status == RUN_OK && isfinite(v)) {
				pos[k] = i;
				x[k++] = v;
			}
		}
		stats_summarize(x, k, &g->st[m]);
		if (m == RM_WALL && k >= 3) {
			double *z = malloc(sizeof(double) * k);
			if (z && stats_modified_z(x, k, z) == 0)
				for (size_t i = 0; i < k; i++)
					g->outlier[pos[i]] = fabs(z[i]) > o->outlier_z;
			free(z);
		}
	}
	g->unstable = g->st[RM_WALL].n >= 2 && g->st[RM_WALL].cv_pct > o->unstable_cov_pct;
	free(x);
	free(pos);
	return 0;
}

int report_group(const struct run_record *runs, size_t n, const struct report_opts *o,
		 struct report_group **out, size_t *ngroups)
{
	size_t *order = malloc(sizeof(size_t) * (n ? n : 1));
	struct report_group *g = NULL;
	size_t ng = 0;

	*out = NULL;
	*ngroups = 0;
	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_base = runs;
	qsort(order, n, sizeof(size_t), cmp_idx);
	for (size_t k = 0; k < n; k++) {
		const struct run_record *r = &runs[order[k]];
		size_t j;
		for (j = 0; j < ng; j++)
			if (!strcmp(g[j].config_hash, r->config_hash))
				break;
		if (j == ng) {
			struct report_group *ng2 = realloc(g, sizeof(*g) * (ng + 1));
			if (!ng2)
				goto fail;
			g = ng2;
			memset(&g[ng], 0, sizeof(*g));
			g[ng].config_hash = r->config_hash;
			g[ng].idx = malloc(sizeof(size_t) * n);
			g[ng].outlier = calloc(n, sizeof(bool));
			ng++;
			if (!g[j].idx || !g[j].outlier)
				goto fail;
		}
		g[j].idx[g[j].n++] = order[k];
		g[j].nfailed += r->status == RUN_FAILED;
		g[j].noom += r->status == RUN_OOM;
		g[j].naborted += r->status == RUN_ABORTED;
	}
	for (size_t j = 0; j < ng; j++)
		if (group_stats(runs, &g[j], o))
			goto fail;
	free(order);
	*out = g;
	*ngroups = ng;
	return 0;
fail:
	free(order);
	report_groups_free(g, ng);
	errno = ENOMEM;
	return -1;
}

void report_groups_free(struct report_group *g, size_t n)
{
	if (!g)
		return;
	for (size_t i = 0; i < n; i++) {
		free(g[i].idx);
		free(g[i].outlier);
	}
	free(g);
}

/* ---- keys ---- */

static const struct { const char *alias, *name; } key_alias[] = {
	{ "kernel", "kernel_release" }, { "mem", "mem_limit_kib" },
	{ "memory", "mem_limit_kib" }, { "global", "global_limit_kib" },
	{ "swap", "swap_total_kib" }, { "host", "hostname" }, { "ram", "ram_kib" },
	{ "page-cluster", "page_cluster" },
};

const struct hist_field *report_key(const char *name)
{
	for (size_t i = 0; i < sizeof(key_alias) / sizeof(key_alias[0]); i++)
		if (!strcmp(name, key_alias[i].alias))
			name = key_alias[i].name;
	if (!strncmp(name, "vm.", 3))
		name += 3;
	return hist_field_find(name);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* A key's value as a reader wants it: sizes in K/M/G, limits "none". */
static void key_text(const struct run_record *r, const struct hist_field *f,
		     char *buf, size_t len)
{
	if (f->type == HF_I64 && ends_with(f->name, "_kib")) {
		int64_t v = *(const int64_t *)((const char *)r + f->off);
		if (v == HIST_NA && strstr(f->name, "limit"))
			snprintf(buf, len, "none");
		else
			fmt_kib(buf, len, v);
		return;
	}
	if (r->kind != RUN_QSBENCH && (!strcmp(f->name, "nelems") || !strcmp(f->name, "procs") ||
					!strcmp(f->name, "seed"))) {
		snprintf(buf, len, "-");
		return;
	}
	if (!strcmp(f->name, "zswap")) {
		snprintf(buf, len, "%s", r->zswap == HIST_NA ? "n/a" : r->zswap ? "on" : "off");
		return;
	}
	hist_field_get(r, f, buf, len);
	if (!buf[0])
		snprintf(buf, len, "%s", f->type == HF_STR || f->type == HF_PSTR ? "-" : "n/a");
}

/* Keys a group header names when they differ between groups. */
static const char *const header_keys[] = {
	"hostname", "kernel_release", "nelems", "procs", "seed", "command",
	"swappiness", "vfs_cache_pressure", "min_free_kbytes", "watermark_scale_factor",
	"page_cluster", "overcommit_memory", "dirty_ratio", "dirty_background_ratio",
	"zswap", "mem_limit_kib", "global_limit_kib", "swap_total_kib", "tmp_swap_kib",
};
#define NHEADER_KEYS (sizeof(header_keys) / sizeof(header_keys[0]))

static void workload_text(const struct run_record *r, char *buf, size_t len)
{
	if (r->kind == RUN_QSBENCH)
		snprintf(buf, len, "qsbench -n %" PRId64 " -p %d -s %u", r->nelems, r->procs, r->seed);
	else
		snprintf(buf, len, "%s", r->command ? r->command : "(command not recorded)");
}

/* "LABEL key=value ...:" naming what sets the group apart from the others. */
static void group_header(const struct run_record *runs, const struct report_group *g,
			 size_t ng, const struct report_group *all, char *buf, size_t len)
{
	const struct run_record *r = &runs[g->idx[0]];
	size_t used;

	if (r->label[0])
		used = (size_t)snprintf(buf, len, "%s", r->label);
	else if (r->kernel_release[0])
		used = (size_t)snprintf(buf, len, "Linux-%s", r->kernel_release);
	else
		used = (size_t)snprintf(buf, len, "(no label)");
	for (size_t k = 0; k < NHEADER_KEYS && used < len; k++) {
		const struct hist_field *f = hist_field_find(header_keys[k]);
		char v[128], w[128];
		bool differs = false;

		if (!f || (!strcmp(f->name, "kernel_release") &&
			   (!r->label[0] || (r->kernel_release[0] && strstr(r->label, r->kernel_release)))))
			continue;
		key_text(r, f, v, sizeof(v));
		if (!strcmp(v, "-") || !strcmp(v, "n/a"))
			continue;
		for (size_t j = 0; j < ng && !differs; j++) {
			key_text(&runs[all[j].idx[0]], f, w, sizeof(w));
			differs = strcmp(w, "-") && strcmp(w, "n/a") && strcmp(v, w);
		}
		if (differs)
			used += (size_t)snprintf(buf + used, len - used, " %s=%s",
						 !strcmp(f->name, "kernel_release") ? "kernel" : f->name, v);
	}
}

/* ---- small formatting helpers ---- */

static void dur(char *buf, size_t len, int64_t us)
{
	if (us == HIST_NA)
		snprintf(buf, len, "n/a");
	else
		fmt_duration(buf, len, (double)us / 1e6);
}

static void i64s(char *buf, size_t len, int64_t v)
{
	if (v == HIST_NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%" PRId64, v);
}

static void run_line(const struct run_record *r, bool gnu, char *buf, size_t len)
{
	struct timeline t;

	report_timeline(r, &t);
	if (gnu)
		timefmt_gnu(buf, len, &t);
	else
		timefmt_csh(buf, len, &t);
}

/* Writes text wrapped at REPORT_WIDTH, continuation lines indented; a
 * word longer than a line is cut. */
static void wrap(FILE *f, const char *first, int indent, const char *text)
{
	int col = fprintf(f, "%s", first);
	bool start = true;

	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		int w = (int)strcspn(p, " ");
		if (!w)
			break;
		int room = REPORT_WIDTH - col - (start ? 0 : 1);
		if (w > room && !start) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			start = true;
			continue;
		}
		if (!start) {
			fputc(' ', f);
			col++;
		}
		int take = w > room ? room : w;
		col += fprintf(f, "%.*s", take, p);
		p += take;
		start = false;
		if (take < w) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			start = true;
		}
	}
	fputc('\n', f);
}

static void status_text(const struct run_record *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", run_status_key(r->status));
}

/* ---- list and show ---- */

static void short_date(const char *iso, char *buf, size_t len)
{
	if (strlen(iso) >= 16)
		snprintf(buf, len, "%.10s %.5s", iso, iso + 11);
	else
		snprintf(buf, len, "%s", iso[0] ? iso : "-");
}

void report_list(FILE *f, const struct run_record *runs, size_t n)
{
	fprintf(f, "%6s  %-16s  %-14s  %-16s  %-22s  %9s  %8s  %6s  %s\n", "ID", "STARTED",
		"LABEL", "KERNEL", "WORKLOAD", "WALL", "MAJFLT", "KSWAPD", "STATUS");
	for (size_t i = 0; i < n; i++) {
		const struct run_record *r = &runs[i];
		char date[24], wl[256], wall[32], mf[32], ks[32], st[16];

		short_date(r->started_at, date, sizeof(date));
		if (r->kind == RUN_QSBENCH)
			snprintf(wl, sizeof(wl), "-n %" PRId64 " -p %d -s %u", r->nelems, r->procs, r->seed);
		else
			snprintf(wl, sizeof(wl), "%s", r->command ? r->command : "-");
		dur(wall, sizeof(wall), r->wall_us);
		i64s(mf, sizeof(mf), r->majflt);
		if (isnan(r->kswapd_s))
			snprintf(ks, sizeof(ks), "n/a");
		else
			snprintf(ks, sizeof(ks), "%.2f", r->kswapd_s);
		status_text(r, st, sizeof(st));
		fprintf(f, "%6" PRId64 "  %-16s  %-14.14s  %-16.16s  %-22.22s  %9s  %8s  %6s  %s\n",
			r->id, date, r->label[0] ? r->label : "-",
			r->kernel_release[0] ? r->kernel_release : "-", wl, wall, mf, ks, st);
	}
}

static void free_table(FILE *f, const struct run_record *r)
{
	const struct mem_snapshot *m[2] = { &r->free_before, &r->free_after };
	const char *name[2] = { "before", "after" };

	if (m[0]->total == HIST_NA && m[1]->total == HIST_NA)
		return;
	fprintf(f, "free (KiB)  %10s %10s %10s %10s %10s\n", "total", "used", "free",
		"buff/cache", "available");
	for (int k = 0; k < 2; k++) {
		char v[5][24];
		if (m[k]->total == HIST_NA)
			continue;
		int64_t bc = m[k]->buffers == HIST_NA || m[k]->cache == HIST_NA
			     ? HIST_NA : m[k]->buffers + m[k]->cache;
		i64s(v[0], 24, m[k]->total);
		i64s(v[1], 24, m[k]->used);
		i64s(v[2], 24, m[k]->free);
		i64s(v[3], 24, bc);
		i64s(v[4], 24, m[k]->avail);
		fprintf(f, "Mem %-7s %10s %10s %10s %10s %10s\n", name[k], v[0], v[1], v[2], v[3], v[4]);
		i64s(v[0], 24, m[k]->swap_total);
		i64s(v[1], 24, m[k]->swap_used);
		i64s(v[2], 24, m[k]->swap_free);
		fprintf(f, "Swap %-6s %10s %10s %10s\n", name[k], v[0], v[1], v[2]);
	}
}

static void chart(FILE *f, const struct run_record *r, enum run_series_id id, const char *title);

void report_show(FILE *f, const struct run_record *r)
{
	char buf[512];

	fprintf(f, "run %" PRId64 "  %s\n", r->id, r->uuid);
	for (size_t i = 0; i < history_nfields; i++) {
		const struct hist_field *fl = &history_fields[i];
		if (!strcmp(fl->name, "uuid") || !strcmp(fl->name, "config") ||
		    !strcmp(fl->name, "swap_devices"))
			continue;
		if (fl->type == HF_PSTR) {
			const char *s = *(char *const *)((const char *)r + fl->off);
			fprintf(f, "%-24s %s\n", fl->name, s ? s : "-");
			continue;
		}
		key_text(r, fl, buf, sizeof(buf));
		if (fl->type == HF_I64 && ends_with(fl->name, "_kib")) {
			char raw[32];
			hist_field_get(r, fl, raw, sizeof(raw));
			if (raw[0])
				fprintf(f, "%-24s %s (%s KiB)\n", fl->name, buf, raw);
			else
				fprintf(f, "%-24s %s\n", fl->name, buf);
		} else {
			fprintf(f, "%-24s %s\n", fl->name, buf);
		}
	}
	run_line(r, false, buf, sizeof(buf));
	fprintf(f, "%-24s %s\n", "time (csh)", buf);
	run_line(r, true, buf, sizeof(buf));
	fprintf(f, "%-24s %s\n", "time (GNU)", buf);
	fprintf(f, "swap devices:\n%s", r->swap_devices ? r->swap_devices : "  (none recorded)\n");
	if (r->swap_devices && !ends_with(r->swap_devices, "\n"))
		fputc('\n', f);
	free_table(f, r);
	if (r->nworkers) {
		fprintf(f, "%6s %8s %-7s %5s %4s %10s %10s %9s %9s %s\n", "worker", "pid", "end",
			"exit", "sig", "user", "sys", "majflt", "minflt", "verify");
		for (int i = 0; i < r->nworkers; i++) {
			const struct run_worker *w = &r->workers[i];
			char ex[16], u[32], s[32], mj[32], mn[32], ver[64];
			i64s(ex, sizeof(ex), w->exit_code);
			snprintf(u, sizeof(u), "%.3f", (double)w->user_us / 1e6);
			snprintf(s, sizeof(s), "%.3f", (double)w->sys_us / 1e6);
			i64s(mj, sizeof(mj), w->majflt);
			i64s(mn, sizeof(mn), w->minflt);
			if (w->verify_errors > 0)
				snprintf(ver, sizeof(ver), "%" PRId64 " errors, first at %" PRId64,
					 w->verify_errors, w->first_bad);
			else
				snprintf(ver, sizeof(ver), "ok");
			fprintf(f, "%6d %8d %-7s %5s %4d %10s %10s %9s %9s %s\n", i, w->pid, w->end,
				ex, w->signal, u, s, mj, mn, ver);
		}
	}
	for (int i = 0; i < r->nchanges; i++)
		fprintf(f, "sysctl at %.2fs: %s %s -> %s\n", r->changes[i].t_s, r->changes[i].name,
			r->changes[i].old_val, r->changes[i].new_val);
	if (r->npoints > 0) {
		chart(f, r, RS_SWAP_USED, "Swap used");
		chart(f, r, RS_MEM_FREE, "Free memory");
		chart(f, r, RS_MAJFLT, "Major faults/s");
		chart(f, r, RS_MINFLT, "Minor faults/s");
		chart(f, r, RS_KSWAPD, "kswapd CPU %");
	}
}

/* ---- charts ---- */

#define CHART_W 60
#define CHART_H 5

static void chart(FILE *f, const struct run_record *r, enum run_series_id id, const char *title)
{
	struct series s, d;
	double tt[CHART_W], vv[CHART_W], lo, hi;
	char rows[CHART_H][PLOT_ROW_BYTES(CHART_W)], top[16], end[16];
	bool kib = id == RS_SWAP_USED || id == RS_MEM_FREE || id == RS_MEM_AVAIL;

	if (r->npoints < 2 || series_init(&s, r->npoints))
		return;
	for (int i = 0; i < r->npoints; i++)
		series_push(&s, r->series[RS_T][i], r->series[id][i]);
	int np = series_downsample(&s, CHART_W, tt, vv);
	series_free(&s);
	if (np < 1 || series_init(&d, np))
		return;
	for (int i = 0; i < np; i++)
		series_push(&d, tt[i], vv[i]);
	if (series_minmax(&d, np, &lo, &hi) == 0) {
		fprintf(f, "\n%s: not recorded\n", title);
		series_free(&d);
		return;
	}
	struct plot p = { .w = np, .h = CHART_H, .mode = PLOT_ASCII };
	p.ymax = kib ? plot_nice_kib(hi) : plot_nice_max(hi);
	if (kib)
		fmt_kib(top, sizeof(top), (int64_t)p.ymax);
	else if (id == RS_KSWAPD)
		snprintf(top, sizeof(top), "%g%%", p.ymax);
	else
		fmt_rate(top, sizeof(top), p.ymax);
	if (plot_render(&p, &d, &rows[0][0], sizeof(rows[0]), NULL) == 0) {
		char peak[24];
		if (kib)
			fmt_kib(peak, sizeof(peak), (int64_t)hi);
		else if (id == RS_KSWAPD)
			fmt_pct(peak, sizeof(peak), hi);
		else
			fmt_rate(peak, sizeof(peak), hi);
		fprintf(f, "\n%s, run %" PRId64 " (peak %s):\n", title, r->id, peak);
		for (int y = 0; y < CHART_H; y++) {
			size_t len = strlen(rows[y]);
			while (len && rows[y][len - 1] == ' ')
				rows[y][--len] = 0;
			fprintf(f, "%7s |%s\n", y == 0 ? top : y == CHART_H - 1 ? "0" : "", rows[y]);
		}
		fprintf(f, "%7s +", "");
		for (int x = 0; x < np; x++)
			fputc('-', f);
		snprintf(end, sizeof(end), "%.0fs", (double)r->series[RS_T][r->npoints - 1]);
		fprintf(f, "\n%8s %-*s%s\n", "", np - (int)strlen(end) > 2 ? np - (int)strlen(end) : 2,
			"0s", end);
	}
	series_free(&d);
}

/* ---- statistics ---- */

static void stat_num(char *buf, size_t len, double v, int m)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (m == RM_MAJFLT)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static void stats_table(FILE *f, const struct report_group *g)
{
	fprintf(f, "  %-7s %3s %9s %9s %9s %9s %9s %7s\n", "", "n", "min", "median", "mean",
		"max", "sd", "CoV");
	for (int m = 0; m < RM_N; m++) {
		const struct stats_summary *s = &g->st[m];
		char v[5][32], cv[16];
		stat_num(v[0], 32, s->min, m);
		stat_num(v[1], 32, s->median, m);
		stat_num(v[2], 32, m == RM_MAJFLT && !isnan(s->mean) ? round(s->mean * 10) / 10 : s->mean,
			 m == RM_MAJFLT ? RM_WALL : m);
		stat_num(v[3], 32, s->max, m);
		stat_num(v[4], 32, s->sd, m == RM_MAJFLT ? RM_WALL : m);
		if (m == RM_MAJFLT && !isnan(s->mean))
			snprintf(v[2], 32, "%.1f", s->mean);
		if (m == RM_MAJFLT && !isnan(s->sd))
			snprintf(v[4], 32, "%.1f", s->sd);
		if (isnan(s->cv_pct))
			snprintf(cv, sizeof(cv), "n/a");
		else
			snprintf(cv, sizeof(cv), "%.1f%%", s->cv_pct);
		fprintf(f, "  %-7s %3zu %9s %9s %9s %9s %9s %7s\n", metric_names[m], s->n,
			v[0], v[1], v[2], v[3], v[4], cv);
	}
	fprintf(f, "  (seconds; majflt in faults; over completed runs)\n");
}

static void group_notes(FILE *f, const struct report_group *g, const struct report_opts *o)
{
	if (g->nfailed || g->noom || g->naborted)
		fprintf(f, "  not in the statistics: %zu OOM-killed, %zu failed, %zu aborted\n",
			g->noom, g->nfailed, g->naborted);
	if (g->unstable)
		fprintf(f, "  UNSTABLE: wall time CoV %.1f%% > %.1f%%\n", g->st[RM_WALL].cv_pct,
			o->unstable_cov_pct);
}

static void group_runs(FILE *f, const struct run_record *runs, const struct report_group *g,
		       const struct report_opts *o, bool with_ids)
{
	char line[256];

	for (size_t i = 0; i < g->n; i++) {
		const struct run_record *r = &runs[g->idx[i]];
		char id[32] = "";
		if (with_ids)
			snprintf(id, sizeof(id), "%6" PRId64 "  ", r->id);
		run_line(r, o->gnu, line, sizeof(line));
		const char *mark = r->status == RUN_OOM ? "OOM" :
				   r->status == RUN_FAILED ? "failed" :
				   r->status == RUN_ABORTED ? "aborted" :
				   g->outlier[i] ? "<- outlier" : "";
		int len = fprintf(f, "%s%s", id, line);
		if (*mark && len + 2 + (int)strlen(mark) > REPORT_WIDTH)
			fprintf(f, "\n%*s%s\n", with_ids ? 8 : 0, "", mark);
		else
			fprintf(f, "%s%s\n", *mark ? "  " : "", mark);
	}
}

/* kswapd over the group's runs, as the seeds append it: only when known
 * for every run, so a partial sum never passes for the whole. */
static void group_kswapd(FILE *f, const struct run_record *runs, const struct report_group *g)
{
	double sum = 0;
	char buf[32];

	for (size_t i = 0; i < g->n; i++) {
		if (isnan(runs[g->idx[i]].kswapd_s))
			return;
		sum += runs[g->idx[i]].kswapd_s;
	}
	timefmt_kswapd(buf, sizeof(buf), sum);
	fprintf(f, "%s\n", buf);
}

void report_stats(FILE *f, const struct run_record *runs, size_t n, const struct report_opts *o)
{
	struct report_group *g;
	size_t ng;
	char hdr[512], wl[256];

	if (report_group(runs, n, o, &g, &ng)) {
		fprintf(f, "out of memory\n");
		return;
	}
	for (size_t j = 0; j < ng; j++) {
		group_header(runs, &g[j], ng, g, hdr, sizeof(hdr));
		workload_text(&runs[g[j].idx[0]], wl, sizeof(wl));
		fprintf(f, "%sgroup %zu: %s\n", j ? "\n" : "", j + 1, hdr);
		fprintf(f, "  %s, config %.8s\n", wl, g[j].config_hash);
		group_runs(f, runs, &g[j], o, true);
		stats_table(f, &g[j]);
		group_notes(f, &g[j], o);
	}
	report_groups_free(g, ng);
}

/* ---- text report ---- */

static void system_state(FILE *f, const struct run_record *r)
{
	char buf[1024], a[32], b[32];

	fmt_kib(a, sizeof(a), r->ram_kib);
	fmt_kib(b, sizeof(b), r->swap_total_kib);
	if (!r->hostname[0] && !r->kernel_version) {
		fprintf(f, "  system state not recorded (imported lines): RAM %s, swap %s\n", a, b);
		return;
	}
	if (r->ncpus == HIST_NA)
		snprintf(buf, sizeof(buf), "%s, n/a CPUs, RAM %s, swap %s", r->hostname, a, b);
	else
		snprintf(buf, sizeof(buf), "%s, %d CPUs, RAM %s, swap %s", r->hostname, r->ncpus, a, b);
	wrap(f, "  host:    ", 11, buf);
	snprintf(buf, sizeof(buf), "%s %s", r->kernel_release[0] ? r->kernel_release : "-",
		 r->kernel_version ? r->kernel_version : "");
	wrap(f, "  kernel:  ", 11, buf);
	wrap(f, "  cmdline: ", 11, r->proc_cmdline ? r->proc_cmdline : "-");
	buf[0] = 0;
	size_t used = 0;
	for (size_t k = 0; k < NHEADER_KEYS; k++) {
		const struct hist_field *fl = hist_field_find(header_keys[k]);
		char v[64];
		if (!fl || fl->type == HF_STR || fl->type == HF_PSTR ||
		    !strcmp(fl->name, "nelems") || !strcmp(fl->name, "procs") ||
		    !strcmp(fl->name, "seed") || !strcmp(fl->name, "swap_total_kib"))
			continue;
		key_text(r, fl, v, sizeof(v));
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%s",
					 used ? " " : "", fl->name, v);
	}
	wrap(f, "  vm:      ", 11, buf);
	if (r->swap_devices && r->swap_devices[0]) {
		char *copy = strdup(r->swap_devices);
		for (char *line = copy ? strtok(copy, "\n") : NULL; line; line = strtok(NULL, "\n"))
			wrap(f, "  swaps:   ", 11, line);
		free(copy);
	}
	fprintf(f, "  thrashtop %s\n", r->version[0] ? r->version : "-");
}

int report_text(FILE *f, const struct run_record *runs, size_t n,
		const struct report_opts *o, char *err, size_t errlen)
{
	struct report_group *g;
	size_t ng;
	char hdr[512], wl[256];

	if (report_group(runs, n, o, &g, &ng)) {
		seterr(err, errlen, "report: out of memory");
		return -1;
	}
	fprintf(f, "%zu run%s in %zu group%s.\n", n, n == 1 ? "" : "s", ng, ng == 1 ? "" : "s");
	for (size_t j = 0; j < ng; j++) {
		const struct run_record *first = &runs[g[j].idx[0]];
		group_header(runs, &g[j], ng, g, hdr, sizeof(hdr));
		workload_text(first, wl, sizeof(wl));
		fprintf(f, "\n");
		wrap(f, "", 2, hdr);
		wrap(f, "  workload: ", 12, wl);
		if (j == 0 || strcmp(first->kernel_release, runs[g[j - 1].idx[0]].kernel_release) ||
		    strcmp(first->hostname, runs[g[j - 1].idx[0]].hostname))
			system_state(f, first);
		fprintf(f, "\n");
		group_runs(f, runs, &g[j], o, false);
		group_kswapd(f, runs, &g[j]);
		fprintf(f, "\n");
		stats_table(f, &g[j]);
		group_notes(f, &g[j], o);

		/* Charts of the run nearest the group's median wall time. */
		const struct run_record *rep = NULL;
		double best = INFINITY, med = g[j].st[RM_WALL].median;
		for (size_t i = 0; i < g[j].n; i++) {
			const struct run_record *r = &runs[g[j].idx[i]];
			double d = fabs(report_metric(r, RM_WALL) - med);
			if (r->npoints >= 2 && (d < best || !rep)) {
				best = d;
				rep = r;
			}
		}
		if (rep) {
			chart(f, rep, RS_SWAP_USED, "Swap used");
			chart(f, rep, RS_MAJFLT, "Major faults/s");
			chart(f, rep, RS_MINFLT, "Minor faults/s");
		}
	}
	report_groups_free(g, ng);
	return ferror(f) ? -1 : 0;
}

/* ---- time lines ---- */

static const char *oom_command(const struct run_record *r)
{
	return r->kind == RUN_QSBENCH ? "qsbench" : "command";
}

int report_time(FILE *f, const struct run_record *runs, size_t n, const struct report_opts *o)
{
	struct report_group *g;
	size_t ng;
	char hdr[512], line[512];

	if (report_group(runs, n, o, &g, &ng))
		return -1;
	for (size_t j = 0; j < ng; j++) {
		group_header(runs, &g[j], ng, g, hdr, sizeof(hdr));
		fprintf(f, "%s%s:\n", j ? "\n" : "", hdr);
		for (size_t i = 0; i < g[j].n; i++) {
			const struct run_record *r = &runs[g[j].idx[i]];
			if (r->status == RUN_OOM) {
				int pid = 0;
				for (int w = 0; w < r->nworkers; w++)
					if (!strcmp(r->workers[w].end, "oom")) {
						pid = r->workers[w].pid;
						break;
					}
				if (pid)
					fprintf(f, "Out of Memory: Killed process %d (%s).\n", pid, oom_command(r));
				else
					fprintf(f, "Out of Memory: Killed process (%s).\n", oom_command(r));
			} else if (r->status != RUN_OK) {
				fprintf(f, "thrashtop: run %s\n", run_status_key(r->status));
			}
			if (o->gnu) {
				struct timeline t;
				report_timeline(r, &t);
				timefmt_gnu(line, sizeof(line), &t);
			} else {
				run_line(r, false, line, sizeof(line));
			}
			fprintf(f, "%s\n", line);
		}
		group_kswapd(f, runs, &g[j]);
	}
	report_groups_free(g, ng);
	return ferror(f) ? -1 : 0;
}

/* ---- cross table ---- */

struct tval {
	char text[128];
	double num;
	bool is_num;
};

static int cmp_tval(const void *a, const void *b)
{
	const struct tval *x = a, *y = b;
	if (x->is_num && y->is_num)
		return (x->num > y->num) - (x->num < y->num);
	if (x->is_num != y->is_num)
		return x->is_num ? -1 : 1;
	return strcmp(x->text, y->text);
}

static void tval_of(const struct run_record *r, const struct hist_field *f, struct tval *t)
{
	char raw[128], *end;

	key_text(r, f, t->text, sizeof(t->text));
	hist_field_get(r, f, raw, sizeof(raw));
	t->num = strtod(raw, &end);
	t->is_num = raw[0] && !*end && f->type != HF_STR && f->type != HF_PSTR;
}

static size_t distinct(const struct run_record *runs, size_t n, const struct hist_field *f,
		       struct tval *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct tval t;
		size_t j;
		tval_of(&runs[i], f, &t);
		for (j = 0; j < k; j++)
			if (!strcmp(out[j].text, t.text))
				break;
		if (j == k)
			out[k++] = t;
	}
	qsort(out, k, sizeof(*out), cmp_tval);
	return k;
}

static void table_cell(const struct run_record *runs, size_t n, const struct hist_field *rf,
		       const char *rv, const struct hist_field *cf, const char *cv,
		       char *buf, size_t len)
{
	double *x = malloc(sizeof(double) * (n ? n : 1));
	size_t k = 0, oom = 0, failed = 0, total = 0;
	struct tval a, b;

	buf[0] = 0;
	if (!x)
		return;
	for (size_t i = 0; i < n; i++) {
		tval_of(&runs[i], rf, &a);
		tval_of(&runs[i], cf, &b);
		if (strcmp(a.text, rv) || strcmp(b.text, cv))
			continue;
		total++;
		double w = report_metric(&runs[i], RM_WALL);
		if (runs[i].status == RUN_OK && isfinite(w))
			x[k++] = w;
		else if (runs[i].status == RUN_OOM)
			oom++;
		else
			failed++;
	}
	size_t used = 0;
	if (!total) {
		snprintf(buf, len, "-");
	} else if (k) {
		struct stats_summary s;
		char d[32];
		stats_summarize(x, k, &s);
		fmt_duration(d, sizeof(d), s.median);
		used = (size_t)snprintf(buf, len, "%s", d);
		if (k >= 2)
			used += (size_t)snprintf(buf + used, len - used, " +-%.1f%%", s.cv_pct);
		else
			used += (size_t)snprintf(buf + used, len - used, " n=1");
	}
	if (oom && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s%zu OOM", used ? " " : "", oom);
	if (failed && used < len)
		snprintf(buf + used, len - used, "%s%zu failed", used ? " " : "", failed);
	free(x);
}

int report_table(FILE *f, const struct run_record *runs, size_t n,
		 const struct report_opts *o, char *err, size_t errlen)
{
	const struct hist_field *rf = report_key(o->rows), *cf = report_key(o->cols);

	if (!rf || !cf) {
		seterr(err, errlen, "table: unknown key \"%s\" (try kernel, label, swappiness, mem, swap, procs, nelems)",
		       !rf ? o->rows : o->cols);
		return -1;
	}
	struct tval *rv = malloc(sizeof(*rv) * (n ? n : 1)), *cv = malloc(sizeof(*cv) * (n ? n : 1));
	if (!rv || !cv) {
		free(rv);
		free(cv);
		seterr(err, errlen, "table: out of memory");
		return -1;
	}
	size_t nr = distinct(runs, n, rf, rv), nc = distinct(runs, n, cf, cv);
	char cell[160];
	int w0 = (int)strlen(o->rows);
	int *cw = calloc(nc ? nc : 1, sizeof(int));

	if (!cw) {
		free(rv);
		free(cv);
		seterr(err, errlen, "table: out of memory");
		return -1;
	}
	for (size_t i = 0; i < nr; i++)
		if ((int)strlen(rv[i].text) > w0)
			w0 = (int)strlen(rv[i].text);
	for (size_t j = 0; j < nc; j++) {
		cw[j] = (int)strlen(cv[j].text);
		for (size_t i = 0; i < nr; i++) {
			table_cell(runs, n, rf, rv[i].text, cf, cv[j].text, cell, sizeof(cell));
			if ((int)strlen(cell) > cw[j])
				cw[j] = (int)strlen(cell);
		}
	}
	fprintf(f, "Wall time by %s (rows) and %s (columns): median of the completed\n"
		"runs, +-CoV over them; runs killed by the OOM killer or failed are\n"
		"counted apart.\n\n", o->rows, o->cols);
	fprintf(f, "%-*s", w0, o->rows);
	for (size_t j = 0; j < nc; j++)
		fprintf(f, "  %-*s", j + 1 < nc ? cw[j] : 0, cv[j].text);
	fputc('\n', f);
	for (size_t i = 0; i < nr; i++) {
		fprintf(f, "%-*s", w0, rv[i].text);
		for (size_t j = 0; j < nc; j++) {
			table_cell(runs, n, rf, rv[i].text, cf, cv[j].text, cell, sizeof(cell));
			fprintf(f, "  %-*s", j + 1 < nc ? cw[j] : 0, cell);
		}
		fputc('\n', f);
	}
	free(cw);
	free(rv);
	free(cv);
	return ferror(f) ? -1 : 0;
}

/* ---- compare ---- */

int report_compare(FILE *f, const struct run_record *runs, size_t n, const int *set,
		   size_t nsets, const char *const *names, char *err, size_t errlen)
{
	double *x = malloc(sizeof(double) * (n ? n : 1) * (nsets ? nsets : 1));
	size_t *cnt = calloc(nsets ? nsets : 1, sizeof(size_t));

	if (!x || !cnt) {
		free(x);
		free(cnt);
		seterr(err, errlen, "compare: out of memory");
		return -1;
	}
	if (nsets < 2) {
		free(x);
		free(cnt);
		seterr(err, errlen, "compare: need at least two runs or groups");
		return -1;
	}
	fprintf(f, "%-15s", "");
	for (size_t s = 0; s < nsets; s++)
		fprintf(f, " %21.21s", names[s]);
	fputc('\n', f);
	static const char *const centre_name[2] = { "Amean", "Median" };
	for (int m = 0; m < RM_N; m++) {
		for (size_t s = 0; s < nsets; s++) {
			cnt[s] = 0;
			for (size_t i = 0; i < n; i++) {
				double v = report_metric(&runs[i], (enum report_metric)m);
				if (set[i] == (int)s && runs[i].status == RUN_OK && isfinite(v))
					x[s * n + cnt[s]++] = v;
			}
		}
		for (int c = 0; c < 2; c++) {
			fprintf(f, "%-6s %-8s", centre_name[c], metric_names[m]);
			for (size_t s = 0; s < nsets; s++) {
				struct stats_summary a, b;
				char val[32], mark[32];
				stats_summarize(&x[0], cnt[0], &a);
				stats_summarize(&x[s * n], cnt[s], &b);
				double base = c ? a.median : a.mean, cur = c ? b.median : b.mean;
				struct stats_cmp cmp;
				if (s == 0) {
					if (isnan(base))
						snprintf(mark, sizeof(mark), "(%7s)", "n/a");
					else
						snprintf(mark, sizeof(mark), "(%6.2f%%)", 0.0);
				} else if (stats_compare(&x[0], cnt[0], &x[s * n], cnt[s],
							 c ? STATS_MEDIAN : STATS_MEAN, true, &cmp) == 0) {
					snprintf(mark, sizeof(mark), "%s", cmp.mark);
				} else if (!isnan(base) && !isnan(cur) && base != 0) {
					/* One run a side: the difference, no test possible. */
					snprintf(mark, sizeof(mark), "(%6.2f%%)", -100.0 * (cur - base) / base);
				} else {
					snprintf(mark, sizeof(mark), "(%7s)", "n/a");
				}
				stat_num(val, sizeof(val), cur, m == RM_MAJFLT ? RM_WALL : m);
				fprintf(f, " %10s %10s", val, mark);
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "\nseconds and faults, over completed runs; (gain%%) is positive when\n"
		"lower than the first column; *gain%%* marks a difference beyond the\n"
		"noise (Welch's t-test on the means, 5%%), as mmtests marks it.\n");
	free(x);
	free(cnt);
	return ferror(f) ? -1 : 0;
}

/* ---- JSON and CSV export ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_field(FILE *f, const struct run_record *r, const struct hist_field *fl)
{
	char buf[64];

	if (fl->type == HF_PSTR) {
		const char *s = *(char *const *)((const char *)r + fl->off);
		if (s)
			json_str(f, s);
		else
			fputs("null", f);
		return;
	}
	if (fl->type == HF_STR || fl->type == HF_KIND || fl->type == HF_STATUS) {
		char big[512];
		hist_field_get(r, fl, big, sizeof(big));
		json_str(f, big);
		return;
	}
	hist_field_get(r, fl, buf, sizeof(buf));
	fputs(buf[0] ? buf : "null", f);
}

static void json_i64(FILE *f, int64_t v)
{
	if (v == HIST_NA)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, v);
}

static const char *const snap_keys[10] = {
	"total", "used", "free", "shared", "buffers", "cache", "avail",
	"swap_total", "swap_used", "swap_free",
};

static int64_t snap_get(const struct mem_snapshot *m, int j)
{
	const int64_t v[10] = { m->total, m->used, m->free, m->shared, m->buffers, m->cache,
				m->avail, m->swap_total, m->swap_used, m->swap_free };
	return v[j];
}

static void snap_set(struct mem_snapshot *m, int j, int64_t v)
{
	int64_t *p[10] = { &m->total, &m->used, &m->free, &m->shared, &m->buffers, &m->cache,
			   &m->avail, &m->swap_total, &m->swap_used, &m->swap_free };
	*p[j] = v;
}

static bool snap_taken(const struct mem_snapshot *m)
{
	for (int j = 0; j < 10; j++)
		if (snap_get(m, j) != HIST_NA)
			return true;
	return false;
}

static void json_snap(FILE *f, const struct mem_snapshot *m)
{
	if (!snap_taken(m)) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (int j = 0; j < 10; j++) {
		fprintf(f, "%s\"%s\": ", j ? ", " : "", snap_keys[j]);
		json_i64(f, snap_get(m, j));
	}
	fputc('}', f);
}

static void json_workers(FILE *f, const struct run_record *r)
{
	fputc('[', f);
	for (int i = 0; i < r->nworkers; i++) {
		const struct run_worker *w = &r->workers[i];
		fprintf(f, "%s{\"pid\": %d, \"end\": ", i ? ", " : "", w->pid);
		json_str(f, w->end);
		fputs(", \"exit_code\": ", f);
		json_i64(f, w->exit_code);
		fprintf(f, ", \"signal\": %d, \"user_us\": ", w->signal);
		json_i64(f, w->user_us);
		fputs(", \"sys_us\": ", f);
		json_i64(f, w->sys_us);
		fputs(", \"majflt\": ", f);
		json_i64(f, w->majflt);
		fputs(", \"minflt\": ", f);
		json_i64(f, w->minflt);
		fputs(", \"verify_errors\": ", f);
		json_i64(f, w->verify_errors);
		fputs(", \"first_bad\": ", f);
		json_i64(f, w->first_bad);
		fputc('}', f);
	}
	fputc(']', f);
}

static void json_changes(FILE *f, const struct run_record *r)
{
	char t[32];

	fputc('[', f);
	for (int i = 0; i < r->nchanges; i++) {
		const struct run_sysctl_change *c = &r->changes[i];
		/* shortest text that reads back to the same double */
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(t, sizeof(t), "%.*g", prec, c->t_s);
			if (strtod(t, NULL) == c->t_s)
				break;
		}
		fprintf(f, "%s{\"t_s\": %s, \"name\": ", i ? ", " : "", t);
		json_str(f, c->name);
		fputs(", \"old\": ", f);
		json_str(f, c->old_val);
		fputs(", \"new\": ", f);
		json_str(f, c->new_val);
		fputc('}', f);
	}
	fputc(']', f);
}

/* Floats as %.9g, which reads back to the same float. */
static void json_series(FILE *f, const struct run_record *r)
{
	fprintf(f, "{\"npoints\": %d", r->npoints);
	for (int s = 0; s < RS_N && r->npoints > 0; s++) {
		fprintf(f, ", \"%s\": [", run_series_key((enum run_series_id)s));
		for (int i = 0; i < r->npoints; i++) {
			float v = r->series[s][i];
			if (isnan(v))
				fprintf(f, "%snull", i ? "," : "");
			else
				fprintf(f, "%s%.9g", i ? "," : "", (double)v);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

int report_json(FILE *f, const struct run_record *runs, size_t n)
{
	fprintf(f, "{\"thrashtop_history\": 1, \"runs\": [");
	for (size_t i = 0; i < n; i++) {
		const struct run_record *r = &runs[i];
		fprintf(f, "%s\n  {\"id\": %" PRId64, i ? "," : "", r->id);
		for (size_t k = 0; k < history_nfields; k++) {
			fprintf(f, ",\n   \"%s\": ", history_fields[k].name);
			json_field(f, r, &history_fields[k]);
		}
		fputs(",\n   \"free_before\": ", f);
		json_snap(f, &r->free_before);
		fputs(",\n   \"free_after\": ", f);
		json_snap(f, &r->free_after);
		fputs(",\n   \"workers\": ", f);
		json_workers(f, r);
		fputs(",\n   \"sysctl_changes\": ", f);
		json_changes(f, r);
		fputs(",\n   \"series\": ", f);
		json_series(f, r);
		fputc('}', f);
	}
	fprintf(f, "\n]}\n");
	return ferror(f) ? -1 : 0;
}

static void csv_cell(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
}

/* The nested parts as JSON text in one cell each. */
static void csv_nested(FILE *f, const struct run_record *r, void (*fn)(FILE *, const struct run_record *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	fn(m, r);
	fclose(m);
	fputc(',', f);
	csv_cell(f, buf ? buf : "");
	free(buf);
}

int report_csv(FILE *f, const struct run_record *runs, size_t n)
{
	fputs("id", f);
	for (size_t k = 0; k < history_nfields; k++)
		fprintf(f, ",%s", history_fields[k].name);
	for (int b = 0; b < 2; b++)
		for (int j = 0; j < 10; j++)
			fprintf(f, ",free_%s_%s", b ? "after" : "before", snap_keys[j]);
	fputs(",workers,sysctl_changes,series\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct run_record *r = &runs[i];
		fprintf(f, "%" PRId64, r->id);
		for (size_t k = 0; k < history_nfields; k++) {
			const struct hist_field *fl = &history_fields[k];
			fputc(',', f);
			if (fl->type == HF_PSTR) {
				const char *s = *(char *const *)((const char *)r + fl->off);
				csv_cell(f, s ? s : "");
			} else {
				char buf[512];
				hist_field_get(r, fl, buf, sizeof(buf));
				csv_cell(f, buf);
			}
		}
		for (int b = 0; b < 2; b++)
			for (int j = 0; j < 10; j++) {
				int64_t v = snap_get(b ? &r->free_after : &r->free_before, j);
				if (v == HIST_NA)
					fputc(',', f);
				else
					fprintf(f, ",%" PRId64, v);
			}
		csv_nested(f, r, json_workers);
		csv_nested(f, r, json_changes);
		csv_nested(f, r, json_series);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- reading JSON (through SQLite's JSON functions) ---- */

struct jctx {
	sqlite3 *db;
	char *err;
	size_t errlen;
};

/* Calls fn for each key of the JSON object text: key, SQL type name
 * ("null", "true", "false", "integer", "real", "text", "array", "object"),
 * and the value as text (JSON text for arrays and objects). */
static int json_each_kv(struct jctx *j, const char *obj,
			int (*fn)(void *arg, const char *key, const char *type, const char *val),
			void *arg)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(j->db, "SELECT key, type, CASE WHEN type = 'real' THEN"
			       " printf('%!.17g', atom) ELSE value END FROM json_each(?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, obj, -1, SQLITE_STATIC);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *val = (const char *)sqlite3_column_text(st, 2);
		rc = fn(arg, (const char *)sqlite3_column_text(st, 0),
			(const char *)sqlite3_column_text(st, 1), val ? val : "");
	}
	if (rc == 0 && s != SQLITE_DONE) {
		seterr(j->err, j->errlen, "JSON: %s", sqlite3_errmsg(j->db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The elements of a JSON array, each as JSON text (or its value). */
static int json_elems(struct jctx *j, const char *arr, char ***out, int *n)
{
	sqlite3_stmt *st;
	int k = 0, s;
	char **v = NULL;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(j->db, "SELECT CASE WHEN type = 'null' THEN NULL WHEN type = 'real'"
			       " THEN printf('%!.17g', atom) ELSE value END FROM json_each(?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, arr, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		char **nv = realloc(v, sizeof(*v) * (size_t)(k + 1));
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (!nv)
			break;
		v = nv;
		v[k] = t ? strdup(t) : NULL;
		k++;
	}
	sqlite3_finalize(st);
	*out = v;
	*n = k;
	if (s != SQLITE_DONE) {
		seterr(j->err, j->errlen, "JSON: %s", s == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(j->db));
		return -1;
	}
	return 0;
}

static void free_elems(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct rctx {
	struct jctx *j;
	struct run_record *r;
	int which;		/* snapshot 0/1, worker index */
	const char *where;
};

static int parse_i64_or_null(const char *type, const char *val, int64_t *out)
{
	char *end;

	if (!strcmp(type, "null")) {
		*out = HIST_NA;
		return 0;
	}
	if (strcmp(type, "integer"))
		return -1;
	errno = 0;
	*out = strtoll(val, &end, 10);
	return errno || *end ? -1 : 0;
}

static int snap_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct mem_snapshot *m = c->which ? &c->r->free_after : &c->r->free_before;
	int64_t v;

	for (int j = 0; j < 10; j++)
		if (!strcmp(key, snap_keys[j])) {
			if (parse_i64_or_null(type, val, &v))
				break;
			snap_set(m, j, v);
			return 0;
		}
	seterr(c->j->err, c->j->errlen, "%s: free snapshot: bad \"%s\"", c->where, key);
	return -1;
}

static int worker_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_worker *w = &c->r->workers[c->which];
	int64_t v = 0;
	int64_t *dst = NULL;

	if (!strcmp(key, "end") && !strcmp(type, "text") && strlen(val) < sizeof(w->end)) {
		snprintf(w->end, sizeof(w->end), "%s", val);
		return 0;
	}
	if (!strcmp(key, "user_us")) dst = &w->user_us;
	else if (!strcmp(key, "sys_us")) dst = &w->sys_us;
	else if (!strcmp(key, "majflt")) dst = &w->majflt;
	else if (!strcmp(key, "minflt")) dst = &w->minflt;
	else if (!strcmp(key, "verify_errors")) dst = &w->verify_errors;
	else if (!strcmp(key, "first_bad")) dst = &w->first_bad;
	if (!parse_i64_or_null(type, val, &v)) {
		if (dst) {
			*dst = v;
			return 0;
		}
		if (!strcmp(key, "pid") && v >= 0 && v <= INT32_MAX) {
			w->pid = (int)v;
			return 0;
		}
		if (!strcmp(key, "exit_code") && v >= HIST_NA && v <= 255) {
			w->exit_code = (int)v;
			return 0;
		}
		if (!strcmp(key, "signal") && v >= 0 && v < 128) {
			w->signal = (int)v;
			return 0;
		}
	}
	seterr(c->j->err, c->j->errlen, "%s: worker %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

static int change_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_sysctl_change *ch = &c->r->changes[c->which];
	char *dst = NULL;

	if (!strcmp(key, "t_s") && (!strcmp(type, "real") || !strcmp(type, "integer"))) {
		ch->t_s = strtod(val, NULL);
		return 0;
	}
	if (!strcmp(key, "name")) dst = ch->name;
	else if (!strcmp(key, "old")) dst = ch->old_val;
	else if (!strcmp(key, "new")) dst = ch->new_val;
	if (dst && !strcmp(type, "text") && strlen(val) < sizeof(ch->name)) {
		memcpy(dst, val, strlen(val) + 1);
		return 0;
	}
	seterr(c->j->err, c->j->errlen, "%s: sysctl change %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

static int series_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_record *r = c->r;

	if (!strcmp(key, "npoints")) {
		int64_t v;
		if (parse_i64_or_null(type, val, &v) || v < 0 || v > HISTORY_SERIES_MAX ||
		    run_record_alloc_series(r, (int)v)) {
			seterr(c->j->err, c->j->errlen, "%s: series: bad npoints", c->where);
			return -1;
		}
		return 0;
	}
	for (int s = 0; s < RS_N; s++) {
		if (strcmp(key, run_series_key((enum run_series_id)s)))
			continue;
		char **v;
		int n;
		if (strcmp(type, "array") || json_elems(c->j, val, &v, &n))
			break;
		if (n != r->npoints) {
			free_elems(v, n);
			break;
		}
		for (int i = 0; i < n; i++)
			r->series[s][i] = v[i] ? strtof(v[i], NULL) : NAN;
		free_elems(v, n);
		return 0;
	}
	seterr(c->j->err, c->j->errlen, "%s: series: bad \"%s\" (npoints must come first)",
	       c->where, key);
	return -1;
}

static int array_of(struct rctx *c, const char *arr, bool workers)
{
	char **v;
	int n;

	if (json_elems(c->j, arr, &v, &n))
		return -1;
	if (workers) {
		free(c->r->workers);
		c->r->workers = calloc((size_t)(n ? n : 1), sizeof(struct run_worker));
		c->r->nworkers = c->r->workers ? n : 0;
	} else {
		free(c->r->changes);
		c->r->changes = calloc((size_t)(n ? n : 1), sizeof(struct run_sysctl_change));
		c->r->nchanges = c->r->changes ? n : 0;
	}
	int rc = (workers ? (void *)c->r->workers : (void *)c->r->changes) ? 0 : -1;
	for (int i = 0; rc == 0 && i < n; i++) {
		c->which = i;
		if (workers) {
			c->r->workers[i].exit_code = HIST_NA;
			c->r->workers[i].first_bad = HIST_NA;
		}
		rc = json_each_kv(c->j, v[i] ? v[i] : "{}", workers ? worker_kv : change_kv, c);
	}
	free_elems(v, n);
	return rc;
}

static int run_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;

	if (!strcmp(key, "id"))
		return 0;
	if (!strcmp(key, "free_before") || !strcmp(key, "free_after")) {
		c->which = !strcmp(key, "free_after");
		return !strcmp(type, "null") ? 0 : json_each_kv(c->j, val, snap_kv, c);
	}
	if (!strcmp(key, "workers") || !strcmp(key, "sysctl_changes"))
		return array_of(c, val, key[0] == 'w');
	if (!strcmp(key, "series"))
		return json_each_kv(c->j, val, series_kv, c);
	const struct hist_field *f = hist_field_find(key);
	if (!f) {
		seterr(c->j->err, c->j->errlen, "%s: unknown field \"%s\"", c->where, key);
		return -1;
	}
	if (!strcmp(type, "null")) {
		if (f->type == HF_STR || f->type == HF_PSTR || !hist_field_set(c->r, f, ""))
			return 0;
	} else if (!strcmp(type, "array") || !strcmp(type, "object")) {
		/* no scalar field takes these */
	} else if (!hist_field_set(c->r, f, val)) {
		return 0;
	}
	seterr(c->j->err, c->j->errlen, "%s: bad value for \"%s\": %.40s", c->where, key, val);
	return -1;
}

static int read_runs_json(struct jctx *j, const char *arr, struct run_record **out, size_t *n)
{
	char **v;
	int k;

	*out = NULL;
	*n = 0;
	if (json_elems(j, arr, &v, &k))
		return -1;
	struct run_record *runs = calloc((size_t)(k ? k : 1), sizeof(*runs));
	if (!runs) {
		free_elems(v, k);
		seterr(j->err, j->errlen, "JSON: out of memory");
		return -1;
	}
	for (int i = 0; i < k; i++) {
		char where[32];
		struct rctx c = { j, &runs[i], 0, where };
		run_record_init(&runs[i]);
		snprintf(where, sizeof(where), "run %d", i + 1);
		if (!v[i] || json_each_kv(j, v[i], run_kv, &c)) {
			if (!v[i])
				seterr(j->err, j->errlen, "%s: not an object", where);
			run_records_free(runs, (size_t)k);
			free_elems(v, k);
			return -1;
		}
	}
	free_elems(v, k);
	*out = runs;
	*n = (size_t)k;
	return 0;
}

static int jctx_open(struct jctx *j, char *err, size_t errlen)
{
	j->err = err;
	j->errlen = errlen;
	if (sqlite3_open_v2(":memory:", &j->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		seterr(err, errlen, "JSON: cannot start SQLite");
		sqlite3_close(j->db);
		return -1;
	}
	return 0;
}

int report_read_json(const char *text, struct run_record **out, size_t *n,
		     char *err, size_t errlen)
{
	struct jctx j;
	sqlite3_stmt *st;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (jctx_open(&j, err, errlen))
		return -1;
	if (sqlite3_prepare_v2(j.db, "SELECT json_valid(?1)", -1, &st, NULL) != SQLITE_OK ||
	    (sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC), sqlite3_step(st)) != SQLITE_ROW ||
	    !sqlite3_column_int(st, 0)) {
		seterr(err, errlen, "JSON: not valid JSON");
		sqlite3_finalize(st);
		sqlite3_close(j.db);
		return -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(j.db, "SELECT 1, json_type(?1, '$.runs'),"
			       " json_extract(?1, '$.thrashtop_history'), json_extract(?1, '$.runs')",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *type = (const char *)sqlite3_column_text(st, 1);
			if (sqlite3_column_int(st, 2) != 1 || !type || strcmp(type, "array"))
				seterr(err, errlen, "JSON: not a thrashtop history export (version 1)");
			else
				rc = read_runs_json(&j, (const char *)sqlite3_column_text(st, 3), out, n);
		} else {
			seterr(err, errlen, "JSON: %s", sqlite3_errmsg(j.db));
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(j.db);
	return rc;
}

/* ---- reading CSV ---- */

/* One RFC 4180 record; *p advances past it. Fields are malloc'd. */
static int csv_record(const char **p, char ***fields, int *n)
{
	char **v = NULL;
	int k = 0;
	const char *s = *p;

	for (;;) {
		size_t cap = 64, len = 0;
		char *cell = malloc(cap);
		if (!cell)
			goto fail;
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s) {
					free(cell);
					goto fail;
				}
				if (*s == '"' && s[1] == '"') {
					s += 2;
					cell[len++] = '"';
				} else if (*s == '"') {
					s++;
					break;
				} else {
					cell[len++] = *s++;
				}
				if (len + 1 >= cap) {
					char *c2 = realloc(cell, cap *= 2);
					if (!c2) {
						free(cell);
						goto fail;
					}
					cell = c2;
				}
			}
		} else {
			while (*s && *s != ',' && *s != '\n' && *s != '\r') {
				cell[len++] = *s++;
				if (len + 1 >= cap) {
					char *c2 = realloc(cell, cap *= 2);
					if (!c2) {
						free(cell);
						goto fail;
					}
					cell = c2;
				}
			}
		}
		cell[len] = 0;
		char **nv = realloc(v, sizeof(*v) * (size_t)(k + 1));
		if (!nv) {
			free(cell);
			goto fail;
		}
		v = nv;
		v[k++] = cell;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		else if (*s)
			goto fail;	/* junk after a closing quote */
		break;
	}
	*p = s;
	*fields = v;
	*n = k;
	return 0;
fail:
	free_elems(v, k);
	return -1;
}

int report_read_csv(const char *text, struct run_record **out, size_t *n,
		    char *err, size_t errlen)
{
	const char *p = text;
	char **hdr = NULL, **row = NULL;
	int nh = 0, nr = 0, line = 1;
	struct run_record *runs = NULL;
	size_t k = 0;
	struct jctx j = { 0 };

	*out = NULL;
	*n = 0;
	if (csv_record(&p, &hdr, &nh) || nh < 2 || strcmp(hdr[0], "id") || strcmp(hdr[1], "uuid")) {
		seterr(err, errlen, "CSV line 1: not a thrashtop history export header");
		free_elems(hdr, nh);
		return -1;
	}
	for (int c = 1; c < nh; c++) {
		if (hist_field_find(hdr[c]) || !strcmp(hdr[c], "workers") ||
		    !strcmp(hdr[c], "sysctl_changes") || !strcmp(hdr[c], "series") ||
		    !strncmp(hdr[c], "free_before_", 12) || !strncmp(hdr[c], "free_after_", 11))
			continue;
		seterr(err, errlen, "CSV line 1: unknown column \"%s\"", hdr[c]);
		free_elems(hdr, nh);
		return -1;
	}
	if (jctx_open(&j, err, errlen)) {
		free_elems(hdr, nh);
		return -1;
	}
	while (*p) {
		line++;
		if (csv_record(&p, &row, &nr)) {
			seterr(err, errlen, "CSV record %d: unterminated quote or junk after a quote", line);
			goto fail;
		}
		if (nr == 1 && !row[0][0]) {
			free_elems(row, nr);
			row = NULL;
			continue;
		}
		if (nr != nh) {
			seterr(err, errlen, "CSV record %d: %d fields, the header has %d", line, nr, nh);
			goto fail;
		}
		struct run_record *nv = realloc(runs, sizeof(*runs) * (k + 1));
		if (!nv) {
			seterr(err, errlen, "CSV: out of memory");
			goto fail;
		}
		runs = nv;
		struct run_record *r = &runs[k++];
		char where[40];
		struct rctx c = { &j, r, 0, where };
		run_record_init(r);
		snprintf(where, sizeof(where), "CSV record %d", line);
		for (int col = 1; col < nh; col++) {
			const char *h = hdr[col], *v = row[col];
			const struct hist_field *f = hist_field_find(h);
			int rc = 0;
			if (f) {
				if (hist_field_set(r, f, v)) {
					seterr(err, errlen, "%s: bad value for \"%s\": %.40s", where, h, v);
					rc = -1;
				}
			} else if (!strncmp(h, "free_", 5)) {
				int b = !strncmp(h, "free_after_", 11);
				const char *key = h + (b ? 11 : 12);
				int64_t x = HIST_NA;
				char *end;
				for (int jj = 0; jj < 10; jj++) {
					if (strcmp(key, snap_keys[jj]))
						continue;
					if (*v) {
						errno = 0;
						x = strtoll(v, &end, 10);
						if (errno || *end) {
							seterr(err, errlen, "%s: bad value for \"%s\"", where, h);
							rc = -1;
						}
					}
					snap_set(b ? &r->free_after : &r->free_before, jj, x);
				}
			} else if (*v && (!strcmp(h, "workers") || !strcmp(h, "sysctl_changes"))) {
				rc = array_of(&c, v, h[0] == 'w');
			} else if (*v && !strcmp(h, "series")) {
				rc = json_each_kv(&j, v, series_kv, &c);
			}
			if (rc)
				goto fail;
		}
		free_elems(row, nr);
		row = NULL;
	}
	free_elems(hdr, nh);
	sqlite3_close(j.db);
	*out = runs;
	*n = k;
	return 0;
fail:
	free_elems(hdr, nh);
	free_elems(row, nr);
	run_records_free(runs, k);
	sqlite3_close(j.db);
	return -1;
}

/* ---- reading posted lines ---- */

static bool blank_line(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

static bool rule_line(const char *s, size_t len)
{
	bool any = false;
	for (size_t i = 0; i < len; i++) {
		if (strchr("=-_*", s[i]))
			any = true;
		else if (!isspace((unsigned char)s[i]))
			return false;
	}
	return any;
}

static bool kswapd_line(const char *s)
{
	unsigned m, sec;
	char word[16];
	return sscanf(s, " %u:%2u %15s", &m, &sec, word) == 3 && !strcmp(word, "kswapd");
}

/* "... time ./qsbench -n 90000000 -p 1 -s 140175100" */
static bool prompt_line(const char *s, size_t len, char *cmd, size_t cmdlen)
{
	char line[1024];
	snprintf(line, sizeof(line), "%.*s", (int)len, s);
	char *t = strstr(line, "time ");
	if (!t || (t > line && !isspace((unsigned char)t[-1]) && t[-1] != '>'))
		return false;
	t += 5;
	while (*t == ' ')
		t++;
	if (!*t)
		return false;
	char *e = t + strlen(t);
	while (e > t && isspace((unsigned char)e[-1]))
		*--e = 0;
	snprintf(cmd, cmdlen, "%s", t);
	return true;
}

/* "host:~/dir> free", "$ sync": a shell prompt with some other command. */
static bool shell_prompt(const char *s)
{
	size_t w = strcspn(s, " \t");
	return w > 0 && strchr(">$#", s[w - 1]) && s[w] == ' ' && s[w + 1] && s[w + 1] != ' ';
}

static void workload_from_command(struct run_record *r, const char *cmd)
{
	char copy[1024], *save = NULL;
	snprintf(copy, sizeof(copy), "%s", cmd);
	char *prog = strtok_r(copy, " \t", &save);
	const char *base = prog ? strrchr(prog, '/') : NULL;
	base = base ? base + 1 : prog;
	r->kind = RUN_COMMAND;
	free(r->command);
	r->command = strdup(cmd);
	if (!base || (strcmp(base, "qsbench") && strcmp(base, "qs")))
		return;
	/* qsbench's defaults: -n 1000000 -p 1 -s 1 */
	long long nel = 1000000, procs = 1, seed = 1;
	for (char *a = strtok_r(NULL, " \t", &save); a; a = strtok_r(NULL, " \t", &save)) {
		char *v = strtok_r(NULL, " \t", &save), *end;
		long long *dst = !strcmp(a, "-n") ? &nel : !strcmp(a, "-p") ? &procs :
				 !strcmp(a, "-s") ? &seed : NULL;
		if (!dst || !v)
			return;
		*dst = strtoll(v, &end, 10);
		if (*end)
			return;
	}
	if (nel < 1 || procs < 1 || procs > 1024 || seed < 0 || seed > UINT32_MAX)
		return;
	r->kind = RUN_QSBENCH;
	r->nelems = nel;
	r->procs = (int)procs;
	r->seed = (unsigned)seed;
	free(r->command);
	r->command = NULL;
}

/* A header's kernel: "Linux-2.4.14-pre8" or a leading "2.4.0+blk-13B,..." */
static void kernel_from_header(const char *h, char *out, size_t len)
{
	out[0] = 0;
	if (!strncasecmp(h, "linux-", 6) && isdigit((unsigned char)h[6]))
		h += 6;
	else if (!(isdigit((unsigned char)h[0]) && h[1] == '.' && isdigit((unsigned char)h[2])))
		return;
	size_t n = strcspn(h, " ,:;\t");
	snprintf(out, len, "%.*s", (int)n, h);
}

static void snap_from_free(struct mem_snapshot *m, const struct free_parsed *fp)
{
	m->total = fp->total;
	m->used = fp->used;
	m->free = fp->free;
	m->shared = fp->shared;
	m->buffers = fp->buffers;
	m->cache = fp->cached;
	m->avail = fp->available;
	m->swap_total = fp->swap_total;
	m->swap_used = fp->swap_used;
	m->swap_free = fp->swap_free;
}

struct posted {
	struct run_record *runs;
	size_t n;
	const char *label;
	char header[256];
	size_t group_start;
	struct mem_snapshot pending_free;
	bool have_free;
	bool oom_next;
	enum run_status status_next;
	char command[1024];
	int ordinal;
	bool fresh_header;	/* a header came after the last run */
};

static void close_group(struct posted *ps)
{
	for (size_t i = ps->group_start; i < ps->n; i++) {
		ps->runs[i].repeat_k = (int)(i - ps->group_start) + 1;
		ps->runs[i].repeat_n = (int)(ps->n - ps->group_start);
	}
	ps->group_start = ps->n;
}

static int posted_run(struct posted *ps, const struct timeline *t, bool csh, const char *raw,
		      size_t rawlen, bool oom_here)
{
	struct run_record *nv = realloc(ps->runs, sizeof(*nv) * (ps->n + 1));
	if (!nv)
		return -1;
	ps->runs = nv;
	struct run_record *r = &nv[ps->n++];
	run_record_init(r);
	if (ps->label && ps->header[0])
		snprintf(r->label, sizeof(r->label), "%.63s %.62s", ps->label, ps->header);
	else
		snprintf(r->label, sizeof(r->label), "%.127s", ps->label ? ps->label : ps->header);
	kernel_from_header(ps->header, r->kernel_release, sizeof(r->kernel_release));
	r->kind = RUN_COMMAND;
	if (ps->command[0])
		workload_from_command(r, ps->command);
	r->wall_us = t->wall_us;
	r->user_us = t->user_us;
	r->sys_us = t->sys_us;
	r->majflt = t->majflt;
	r->minflt = csh ? HIST_NA : t->minflt;	/* csh's line has no minor faults */
	r->inblock = csh ? t->inblock : HIST_NA;
	r->oublock = csh ? t->oublock : HIST_NA;
	if (t->pct_src == TIMEFMT_CSH)
		r->cpu_pct = t->pct_posted / 10.0;
	else if (t->pct_src == TIMEFMT_GNU && t->pct_posted >= 0)
		r->cpu_pct = t->pct_posted;
	r->status = oom_here || ps->oom_next ? RUN_OOM : ps->status_next;
	if (t->term_signal) {
		r->status = r->status == RUN_OK ? RUN_FAILED : r->status;
	} else if (t->exit_code && r->status == RUN_OK) {
		r->status = RUN_FAILED;
	}
	ps->oom_next = false;
	ps->status_next = RUN_OK;
	ps->fresh_header = false;
	if (ps->have_free) {
		r->free_before = ps->pending_free;
		ps->have_free = false;
	}
	const struct mem_snapshot *fs = snap_taken(&r->free_before) ? &r->free_before : NULL;
	if (fs) {
		r->ram_kib = fs->total;
		r->swap_total_kib = fs->swap_total;
		r->swap_before_kib = fs->swap_used;
	}
	/* The content id: the same line under the same header in the same
	 * place is the same run, however often the text is imported. */
	char idtext[1400];
	snprintf(idtext, sizeof(idtext), "posted\n%s\n%s\n%d\n%.*s", r->label, ps->command,
		 ps->ordinal++, (int)rawlen, raw);
	uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
	for (const char *c = idtext; *c; c++) {
		h1 = (h1 ^ (unsigned char)*c) * 0x100000001b3ULL;
		h2 = (h2 ^ (unsigned char)*c) * 0x100000001b3ULL;
	}
	snprintf(r->uuid, sizeof(r->uuid), "%016" PRIx64 "%016" PRIx64, h1, h2);
	return 0;
}

int report_read_posted(const char *text, const char *label,
		       struct run_record **out, size_t *n, char *err, size_t errlen)
{
	struct posted ps = { .label = label && *label ? label : NULL, .status_next = RUN_OK };
	const char *p = text;
	int lineno = 0, lastrun_line = 0;
	size_t lastrun = (size_t)-1;

	*out = NULL;
	*n = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *next = eol ? eol + 1 : p + len;
		char line[2048];
		struct timeline t;
		struct free_parsed fp;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		const char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '>' || blank_line(line, strlen(line)) || rule_line(line, strlen(line))) {
			p = next;
			continue;
		}
		bool oom_here = strstr(line, "Out of Memory") || strstr(line, "Killed process");
		if (timefmt_parse_csh(line, &t) == 0) {
			if (posted_run(&ps, &t, true, line, strlen(line), oom_here))
				goto oom;
			lastrun = ps.n - 1;
			lastrun_line = lineno;
			p = next;
			continue;
		}
		if (strstr(line, "user") && strstr(line, "system")) {
			/* GNU's default output is two lines; mailers wrap it further. */
			char two[4096];
			const char *eol2 = *next ? strchr(next, '\n') : NULL;
			size_t len2 = eol2 ? (size_t)(eol2 - next) : strlen(next);
			int used = 1;
			if (timefmt_parse_gnu(line, &t) != 0) {
				snprintf(two, sizeof(two), "%s\n%.*s", line, (int)len2, next);
				if (timefmt_parse_gnu(two, &t) != 0) {
					seterr(err, errlen, "line %d: looks like GNU time output but does not parse: %.40s",
					       lineno, s);
					goto fail;
				}
				used = 2;
			}
			if (posted_run(&ps, &t, false, line, strlen(line), oom_here))
				goto oom;
			lastrun = ps.n - 1;
			lastrun_line = lineno;
			if (used == 2) {
				lineno++;
				next = eol2 ? eol2 + 1 : next + len2;
			}
			p = next;
			continue;
		}
		if (strstr(line, "total") && strstr(line, "used") && strstr(line, "free")) {
			int used = timefmt_parse_free(p, &fp);
			if (used <= 0) {
				seterr(err, errlen, "line %d: a free(1) header without a block that adds up", lineno);
				goto fail;
			}
			struct mem_snapshot m;
			snap_from_free(&m, &fp);
			/* After a run it is that run's "after"; it is also the next
			 * run's "before" unless another free comes first. */
			if (lastrun != (size_t)-1 && lastrun == ps.n - 1 && lastrun_line > 0 &&
			    !snap_taken(&ps.runs[lastrun].free_after)) {
				struct run_record *r = &ps.runs[lastrun];
				r->free_after = m;
				r->swap_after_kib = m.swap_used;
			}
			ps.pending_free = m;
			ps.have_free = true;
			for (const char *q = p; q < p + used; q++)
				if (*q == '\n')
					lineno++;
			p += used;
			while (*p && *p != '\n')
				p++;
			if (*p == '\n')
				p++;
			continue;
		}
		if (kswapd_line(s)) {
			p = next;
			continue;
		}
		if (strstr(line, "Out of Memory") || strstr(line, "Killed process")) {
			ps.oom_next = true;
			p = next;
			continue;
		}
		if (!strncmp(s, "thrashtop: run ", 15)) {
			enum run_status st;
			if (!run_status_parse(s + 15, &st))
				ps.status_next = st;
			p = next;
			continue;
		}
		char cmd[1024];
		if (prompt_line(line, strlen(line), cmd, sizeof(cmd))) {
			snprintf(ps.command, sizeof(ps.command), "%s", cmd);
			p = next;
			continue;
		}
		if (shell_prompt(s)) {
			p = next;
			continue;
		}
		/* Any other line names the runs below it: one ending in ':'
		 * always, another only if no header came since the last run
		 * (so "Throughput ..." under "pre4:" stays out). */
		char *h = line + (s - line);
		size_t hl = strlen(h);
		while (hl && isspace((unsigned char)h[hl - 1]))
			h[--hl] = 0;
		bool colon = hl && h[hl - 1] == ':';
		if (colon || !ps.fresh_header) {
			close_group(&ps);
			while (hl && (isspace((unsigned char)h[hl - 1]) || h[hl - 1] == ':'))
				h[--hl] = 0;
			snprintf(ps.header, sizeof(ps.header), "%.255s", h);
			ps.fresh_header = true;
			ps.command[0] = 0;
			lastrun = (size_t)-1;
		}
		p = next;
	}
	close_group(&ps);
	if (!ps.n) {
		seterr(err, errlen, "no csh or GNU time lines found");
		goto fail;
	}
	*out = ps.runs;
	*n = ps.n;
	return 0;
oom:
	seterr(err, errlen, "out of memory");
fail:
	run_records_free(ps.runs, ps.n);
	return -1;
}
