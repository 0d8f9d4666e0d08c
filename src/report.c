/* Reports over recorded runs: groups, statistics, and the human formats. */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "confdiff.h"
#include "detail.h"
#include "export.h"
#include "fmt.h"
#include "plot.h"
#include "runkey.h"
#include "runsource.h"
#include "series.h"
#include "timefmt.h"

void report_opts_default(struct report_opts *o)
{
	o->unstable_cov_pct = 5.0;
	o->outlier_z = 3.5;
	o->gnu = false;
	o->lines = REPORT_STATS_LINES;
	o->rows = "kernel";
	o->cols = "label";
}

static const char *const metric_names[RM_N] = { "wall", "user", "sys", "majflt", "kswapd",
	[RM_STALL + DL_SWAPIN] = "swapin", [RM_STALL + DL_RECLAIM] = "reclaim",
	[RM_STALL + DL_THRASHING] = "thrash", [RM_STALL + DL_COMPACT] = "compact",
	[RM_STALL + DL_IO] = "io", [RM_STALL + DL_CPU] = "cpuwait",
	[RM_STALL + DL_WPCOPY] = "wpcopy", [RM_STALL + DL_IRQ] = "irq" };

const char *report_metric_name(enum report_metric m)
{
	return (unsigned)m < RM_N ? metric_names[m] : "?";
}

/* The workers a run's stalls are summed over: a qsbench run's -p, a
 * command's one (its tree's stalls are its own); NAN when not known. */
static double stall_workers(const struct run_record *r)
{
	if (r->kind == RUN_COMMAND)
		return 1;
	return r->procs > 0 ? r->procs : NAN;
}

/* workers: stall_workers of the run (a group's runs share it). */
static double fig_metric(const struct run_figures *r, enum report_metric m, double workers)
{
	int64_t v;

	switch (m) {
	case RM_WALL: v = r->wall_us; break;
	case RM_USER: v = r->user_us; break;
	case RM_SYS: v = r->sys_us; break;
	case RM_MAJFLT: return r->majflt == NA ? NAN : (double)r->majflt;
	case RM_KSWAPD: return r->kswapd_s;
	default:
		if (m >= RM_STALL && m < RM_N && r->wall_us != NA && r->wall_us > 0)
			return 100.0 * r->stalls.s[m - RM_STALL] * 1e6 / (double)r->wall_us /
			       workers;
		return NAN;
	}
	return v == NA ? NAN : (double)v / 1e6;
}

double report_metric(const struct run_record *r, enum report_metric m)
{
	struct run_figures x;

	run_figures_of(r, &x);
	return fig_metric(&x, m, stall_workers(r));
}

/* ---- groups ---- */

/* The figures of a group's completed runs, gathered a run at a time in
 * group order: x[m] holds the k[m] known values of metric m, wpos the
 * position in the group of each wall time. */
struct figures {
	double *x[RM_N];
	size_t k[RM_N];
	size_t *wpos;
	size_t n, cap;			/* runs added, room for */
	size_t nfailed, noom, naborted;
	double workers;			/* stall_workers of the group's runs */
};

static int figures_init(struct figures *fg, size_t cap, double workers)
{
	memset(fg, 0, sizeof(*fg));
	fg->cap = cap ? cap : 1;
	fg->workers = workers;
	fg->wpos = malloc(sizeof(size_t) * fg->cap);
	for (int m = 0; m < RM_N; m++)
		fg->x[m] = malloc(sizeof(double) * fg->cap);
	for (int m = 0; m < RM_N; m++)
		if (!fg->x[m])
			return -1;
	return fg->wpos ? 0 : -1;
}

static void figures_free(struct figures *fg)
{
	for (int m = 0; m < RM_N; m++)
		free(fg->x[m]);
	free(fg->wpos);
	memset(fg, 0, sizeof(*fg));
}

/* Adds the group's next run; a run beyond the room given is not counted. */
static void figures_add(struct figures *fg, const struct run_figures *r)
{
	if (fg->n == fg->cap)
		return;
	for (int m = 0; m < RM_N; m++) {
		double v = fig_metric(r, (enum report_metric)m, fg->workers);
		if (r->status == RUN_OK && isfinite(v)) {
			if (m == RM_WALL)
				fg->wpos[fg->k[m]] = fg->n;
			fg->x[m][fg->k[m]++] = v;
		}
	}
	fg->nfailed += r->status == RUN_FAILED;
	fg->noom += r->status == RUN_OOM;
	fg->naborted += r->status == RUN_ABORTED;
	fg->n++;
}

/* Wall time is printed to hundredths: a spread finer than that is none. */
#define WALL_RES_S 0.01

/* g's statistics, unstable mark and outliers (g->outlier has fg->n
 * entries) from fg. */
static void figures_stats(const struct figures *fg, struct report_group *g,
			  const struct report_opts *o)
{
	for (int m = 0; m < RM_N; m++) {
		size_t k = fg->k[m];
		stats_summarize(fg->x[m], k, &g->st[m]);
		if (m == RM_WALL) {
			bool *out = malloc(sizeof(bool) * (k ? k : 1));
			if (out && stats_outliers(fg->x[m], k, o->outlier_z, WALL_RES_S, out) == 0)
				for (size_t i = 0; i < k; i++)
					g->outlier[fg->wpos[i]] = out[i];
			free(out);
		}
	}
	g->unstable = g->st[RM_WALL].n >= 2 && g->st[RM_WALL].cv_pct > o->unstable_cov_pct;
}

struct fig_sink {
	struct figures fg;
	double *walls;			/* NULL, or each run's wall time */
	int64_t *ids;			/* each run's id */
};

static int add_figures(const struct run_figures *r, void *arg)
{
	struct fig_sink *k = arg;

	if (k->fg.n < k->fg.cap) {
		if (k->walls)
			k->walls[k->fg.n] = fig_metric(r, RM_WALL, k->fg.workers);
		k->ids[k->fg.n] = r->id;
	}
	figures_add(&k->fg, r);
	return 0;
}

static void group_free(struct report_group *g)
{
	free(g->outlier);
	free(g->id);
	cmdfigs_free(&g->own);
	g->outlier = NULL;
	g->id = NULL;
}

/* A run's own figure: the name known from any run, a value from a
 * completed one. */
static int add_own(int64_t id, enum run_status st, const struct run_metric *m, void *arg)
{
	(void)id;
	return cmdfigs_add(arg, m->name, m->higher, st == RUN_OK ? m->value : NAN) ? 1 : 0;
}

/* Group g's statistics into rg (its outlier and id arrays malloc'd:
 * group_free), n the runs read; first is its oldest run; with walls, each
 * run's wall time in group order. */
static int group_stats(struct run_source *src, size_t g, const struct run_record *first,
		       const struct report_opts *o, struct report_group *rg, double *walls,
		       char *err, size_t errlen)
{
	struct fig_sink k = { .walls = walls };
	size_t n = src->groups[g].n;
	int rc = -1, own = 0;

	memset(rg, 0, sizeof(*rg));
	rg->config_hash = first->config_hash;
	rg->first_id = first->id;
	if (figures_init(&k.fg, n, stall_workers(first)) || !(rg->outlier = calloc(n + 1, sizeof(bool))) ||
	    !(k.ids = rg->id = calloc(n + 1, sizeof(int64_t)))) {
		fmt_err(err, errlen, "history: out of memory");
	} else if (!src->figures(src, g, add_figures, &k, err, errlen) &&
		   !(own = src->own(src, g, add_own, &rg->own, err, errlen))) {
		figures_stats(&k.fg, rg, o);
		rg->n = k.fg.n;
		rg->nfailed = k.fg.nfailed;
		rg->noom = k.fg.noom;
		rg->naborted = k.fg.naborted;
		rc = 0;
	}
	if (own > 0)
		fmt_err(err, errlen, "history: out of memory");
	figures_free(&k.fg);
	if (rc)
		group_free(rg);
	return rc;
}

int report_group(const struct run_record *runs, size_t n, const struct report_opts *o,
		 struct report_group **out, size_t *ngroups)
{
	struct run_source *src = run_source_array(runs, n, NULL, 0);
	struct report_group *g = src ? calloc(src->ngroups + 1, sizeof(*g)) : NULL;
	size_t j = 0;

	*out = NULL;
	*ngroups = 0;
	for (; g && j < src->ngroups; j++) {
		const struct run_record *first;
		if (src->first(src, j, &first, NULL, 0) ||
		    group_stats(src, j, first, o, &g[j], NULL, NULL, 0))
			break;
	}
	if (!g || j < src->ngroups) {
		report_groups_free(g, j);
		run_source_free(src);
		errno = ENOMEM;
		return -1;
	}
	*out = g;
	*ngroups = j;
	run_source_free(src);
	return 0;
}

void report_groups_free(struct report_group *g, size_t n)
{
	if (!g)
		return;
	for (size_t i = 0; i < n; i++)
		group_free(&g[i]);
	free(g);
}

/* ---- group headers ---- */

const char *const report_header_keys[] = { REPORT_HEADER_KEYS, NULL };
#define NHEADER_KEYS (sizeof(report_header_keys) / sizeof(report_header_keys[0]) - 1)

const char *report_header_key(const char *f)
{
	return !strcmp(f, "kernel_release") ? "kernel" : f;
}

const char *const report_time_fields[] = {
	"started_at", "config_hash", "label", "kind", "status", "user_us", "sys_us",
	"wall_us", "majflt", "minflt", "inblock", "oublock", "maxrss_kib", "kswapd_s", "cpu_pct",
	/* the stall line */
	"stall_swapin_s", "stall_reclaim_s", "stall_thrashing_s", "stall_compact_s",
	"stall_io_s", "stall_cpu_s", "stall_wpcopy_s", "stall_irq_s",
	REPORT_HEADER_KEYS, NULL,
};

/* Whether header key k (report_header_keys) has a known value that differs
 * between groups: state is what the first runs of the groups gave so far,
 * seen[k] the first known value, differs[k] set once another comes. */
struct header_keys {
	char seen[NHEADER_KEYS][33];	/* run_uuid_of the whole value; "" none yet */
	bool differs[NHEADER_KEYS];
};

static bool workload_key(const char *name)
{
	return !strcmp(name, "nelems") || !strcmp(name, "procs") || !strcmp(name, "seed") ||
	       !strcmp(name, "command");
}

static void header_keys_add(struct header_keys *hk, const struct run_record *first)
{
	for (size_t k = 0; k < NHEADER_KEYS; k++) {
		const struct hist_field *f = hist_field_find(report_header_keys[k]);
		const char *whole;
		char v[128], id[33];

		if (!f || hk->differs[k])
			continue;
		run_key_text(first, f, v, sizeof(v));
		/* a workload that is no sorter's, or no command's, differs
		 * from one that is */
		if ((!strcmp(v, "-") && !workload_key(f->name)) || !strcmp(v, "n/a"))
			continue;
		whole = run_key_whole(first, f);
		run_uuid_of(whole ? whole : v, id);
		if (!hk->seen[k][0])
			memcpy(hk->seen[k], id, sizeof(id));
		else if (strcmp(hk->seen[k], id))
			hk->differs[k] = true;
	}
}

/* "LABEL key=value ...:" naming what sets the group of first run r apart
 * from the others. A workload that differs is named whole (a sorter's
 * nelems, procs and seed, or the command), so that an import of the
 * export has all of it. */
static void header_text(const struct run_record *r, const struct header_keys *hk,
			char *buf, size_t len)
{
	bool wl = false;
	size_t used;

	for (size_t k = 0; k < NHEADER_KEYS; k++)
		wl |= hk->differs[k] && workload_key(report_header_keys[k]);

	if (r->label[0])
		used = fmt_copy(buf, len, r->label);
	else if (r->kernel_release[0])
		used = (size_t)snprintf(buf, len, "Linux-%s", r->kernel_release);
	else
		used = (size_t)snprintf(buf, len, "(no label)");
	for (size_t k = 0; k < NHEADER_KEYS && used < len; k++) {
		const struct hist_field *f = hist_field_find(report_header_keys[k]);
		char v[1024];	/* a command whole */

		if (!f || (!strcmp(f->name, "kernel_release") &&
			   (!r->label[0] || (r->kernel_release[0] && strstr(r->label, r->kernel_release)))))
			continue;
		run_key_text(r, f, v, sizeof(v));
		if (!strcmp(v, "-") || !strcmp(v, "n/a"))
			continue;
		/* a known value differs from another known one */
		if (hk->differs[k] || (wl && workload_key(f->name)))
			used += (size_t)snprintf(buf + used, len - used, " %s=%s",
						 report_header_key(f->name), v);
	}
}

/* ---- small formatting helpers ---- */

static void dur(char *buf, size_t len, int64_t us)
{
	if (us == NA)
		snprintf(buf, len, "n/a");
	else
		fmt_duration(buf, len, (double)us / 1e6);
}

static void i64s(char *buf, size_t len, int64_t v)
{
	if (v == NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%" PRId64, v);
}

/* Whether the blank between words a (alen bytes) and b keeps them on one
 * line: an option and its value ("-s 1"), a number and what it counts
 * ("3.0s reclaim"). */
static bool glued(const char *a, int alen, const char *b)
{
	bool option = alen >= 2 && a[0] == '-' && (isalpha((unsigned char)a[1]) ||
						   (a[1] == '-' && alen > 2));

	return (option && *b && *b != '-') ||
	       (isdigit((unsigned char)a[0]) && isalpha((unsigned char)*b));
}

/* Bytes from p to the end of its run of glued words. */
static int unit_len(const char *p)
{
	const char *q = p;

	for (;;) {
		int w = (int)strcspn(q, " ");
		const char *next = q + w;

		while (*next == ' ')
			next++;
		if (!*next || !glued(q, w, next))
			return (int)(q + w - p);
		q = next;
	}
}

/* Glued words wider than a line part at their blanks, and a word wider
 * than a line is cut between characters. */
void report_wrap(FILE *f, const char *first, int indent, const char *text)
{
	int col = fmt_text_cols(first);
	bool start = true;

	fputs(first, f);
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		int u = unit_len(p), uw = fmt_text_cols_n(p, (size_t)u);
		int room = REPORT_WIDTH - col - (start ? 0 : 1);
		if (uw <= room) {
			fprintf(f, "%s%.*s", start ? "" : " ", u, p);
			col += uw + !start;
			p += u;
			start = false;
			continue;
		}
		if (!start) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			start = true;
			continue;
		}
		/* at least one character, a wide one where one column is left */
		int w = (int)strcspn(p, " "), take = fmt_cut_bytes(p, room > 1 ? room : 2);
		take = take < w ? take : w;
		fprintf(f, "%.*s", take, p);
		col += fmt_text_cols_n(p, (size_t)take);
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
	snprintf(buf, len, "%s", run_status_name(r->status));
}

/* ---- list and show ---- */

void report_list_started(const char *iso, int w, char *buf, size_t len)
{
	if (strlen(iso) >= 16)
		snprintf(buf, len, "%.*s %.5s", w < 16 ? 5 : 10, iso + (w < 16 ? 5 : 0), iso + 11);
	else
		snprintf(buf, len, "%s", iso[0] ? iso : "-");
}

/* From the widest; each fits where the one before does not. */
static const struct list_cols list_layouts[] = {
	{ 16, 14, 12, 16, 22, 6 },
	{ 16, 14, 0, 16, 22, 6 },
	{ 11, 14, 0, 16, 22, 6 },
	{ 11, 10, 0, 14, 16, 6 },
	{ 11, 10, 0, 14, 0, 6 },
	{ 11, 10, 0, 0, 0, 6 },
	{ 11, 8, 0, 0, 0, 6 },
	{ 11, 8, 0, 0, 0, 0 },
};
#define NLAYOUTS (sizeof(list_layouts) / sizeof(list_layouts[0]))
/* ID, WALL, MAJFLT and STATUS ("aborted"), and their blanks */
#define LIST_FIXED (6 + 2 + 9 + 2 + 8 + 2 + 7)

static int list_width(const struct list_cols *c)
{
	const int w[] = { c->started, c->label, c->host, c->kernel, c->workload, c->kswapd };
	int n = LIST_FIXED;

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		n += w[i] ? w[i] + 2 : 0;
	return n;
}

void report_list_cols(int cols, struct list_cols *c)
{
	size_t i = 0;
	int room, more;

	*c = list_layouts[0];
	if (cols <= 0)
		return;
	while (i + 1 < NLAYOUTS && list_width(&list_layouts[i]) > cols)
		i++;
	*c = list_layouts[i];
	room = cols - list_width(c);
	if (c->workload) {
		more = room < 60 - c->workload ? room : 60 - c->workload;
		if (more > 0) {
			c->workload += more;
			room -= more;
		}
	}
	more = room < 24 - c->label ? room : 24 - c->label;
	if (more > 0)
		c->label += more;
}

void report_list_header(FILE *f, const struct list_cols *c)
{
	fprintf(f, "%6s  %-*s  %-*s  ", "ID", c->started, "STARTED", c->label, "LABEL");
	if (c->host)
		fprintf(f, "%-*s  ", c->host, "HOST");
	if (c->kernel)
		fprintf(f, "%-*s  ", c->kernel, "KERNEL");
	if (c->workload)
		fprintf(f, "%-*s  ", c->workload, "WORKLOAD");
	fprintf(f, "%9s  %8s  ", "WALL", "MAJFLT");
	if (c->kswapd)
		fprintf(f, "%*s  ", c->kswapd, "KSWAPD");
	fprintf(f, "STATUS\n");
}

/* s in a column w wide: what is cut ends in "...", never inside a number
 * ("-s 14" of "-s 140175100") or a character, and the column is w on the
 * terminal whatever the characters' widths; then two blanks. */
static void list_cell(FILE *f, const char *s, int w)
{
	char t[512], cell[512];

	fmt_field(t, sizeof(t), 0, s, w, false, false);
	fmt_cell(cell, sizeof(cell), t, w);
	fprintf(f, "%s  ", cell);
}

void report_list_row(FILE *f, const struct run_record *r, const struct list_cols *c)
{
	char date[24], wl[256], wall[32], mf[32], ks[32], st[16];

	report_list_started(r->started_at, c->started, date, sizeof(date));
	if (r->kind == RUN_QSBENCH)
		snprintf(wl, sizeof(wl), "-n %" PRId64 " -p %d -s %u", r->nelems, r->procs, r->seed);
	else
		snprintf(wl, sizeof(wl), "%s", r->command ? r->command : "-");
	fmt_blank_controls(wl);	/* a command's newline would split the row */
	dur(wall, sizeof(wall), r->wall_us);
	i64s(mf, sizeof(mf), r->majflt);
	if (isnan(r->kswapd_s))
		snprintf(ks, sizeof(ks), "n/a");
	else
		snprintf(ks, sizeof(ks), "%.2f", r->kswapd_s);
	status_text(r, st, sizeof(st));
	fprintf(f, "%6" PRId64 "  %-*s  ", r->id, c->started, date);
	list_cell(f, r->label[0] ? r->label : "-", c->label);
	if (c->host)
		list_cell(f, r->hostname[0] ? r->hostname : "-", c->host);
	if (c->kernel)
		list_cell(f, r->kernel_release[0] ? r->kernel_release : "-", c->kernel);
	if (c->workload)
		list_cell(f, wl, c->workload);
	fprintf(f, "%9s  %8s  ", wall, mf);
	if (c->kswapd)
		fprintf(f, "%*s  ", c->kswapd, ks);
	fprintf(f, "%s\n", st);
}

static void chart(FILE *f, const struct run_record *r, int id, const char *title);

int report_show(FILE *f, const struct run_record *r)
{
	struct detail_lines t = { 0 };
	char buf[512];
	int rc = 0;

	fprintf(f, "run %" PRId64 "  %s\n", r->id, r->uuid);
	for (size_t i = 0; i < history_nfields; i++) {
		const struct hist_field *fl = &history_fields[i];
		/* the victims' table has the unnamed kills */
		if (!strcmp(fl->name, "uuid") || !strcmp(fl->name, "config") ||
		    !strcmp(fl->name, "swap_devices") || !strcmp(fl->name, "oom_unnamed"))
			continue;
		if (fl->type == HF_PSTR) {
			const char *s = *(char *const *)((const char *)r + fl->off);
			char *line;

			fprintf(f, "%-24s ", fl->name);
			/* a command line's newlines are its own: blanked, as the
			 * list shows them, where a join would make another command */
			if (!strcmp(fl->name, "command") && s && *s && (line = strdup(s))) {
				fmt_blank_controls(line);
				fprintf(f, "%s\n", line);
				free(line);
				continue;
			}
			/* one line: the sysctls' lines joined */
			for (const char *p = s && *s ? s : "-"; *p; p++)
				if (*p != '\n')
					fputc(*p, f);
				else if (p[1])
					fputs(", ", f);
			fputc('\n', f);
			continue;
		}
		run_key_text(r, fl, buf, sizeof(buf));
		if (run_key_kib(fl)) {
			char raw[32];
			hist_field_get(r, fl, raw, sizeof(raw));
			if (raw[0])
				fprintf(f, "%-24s %s (%s KiB)\n", fl->name, buf, raw);
			else if (!strcmp(fl->name, "swap_peak_kib") && run_record_swapless(r))
				fprintf(f, "%-24s %s (no swap)\n", fl->name, buf);
			else
				fprintf(f, "%-24s %s\n", fl->name, buf);
		} else {
			fprintf(f, "%-24s %s\n", fl->name, buf);
		}
	}
	if (r->global_by[0])
		fprintf(f, "%-24s %s\n", "global_by", r->global_by);
	if (r->shared_cores > 1)
		fprintf(f, "%-24s %d places on one machine's cores\n", "shared_cores",
			r->shared_cores);
	run_record_line(r, false, buf, sizeof(buf));
	fprintf(f, "%-24s %s\n", "time (csh)", buf);
	run_record_line(r, true, buf, sizeof(buf));
	fprintf(f, "%-24s %s\n", "time (GNU)", buf);
	timefmt_stalls(buf, sizeof(buf), &r->stalls);
	fprintf(f, "%-24s %s\n", "stalls", buf);
	fprintf(f, "swap devices at the run's start:\n");
	for (const char *p = r->swap_devices; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (*p != '\n') {
			run_record_swap_line(p, buf, sizeof(buf));
			fmt_blank_controls(buf);
			fprintf(f, "  %s\n", buf);
		}
	if (!r->swap_devices || !r->swap_devices[0])
		fprintf(f, "  (none recorded)\n");
	if (detail_tables(r, DETAIL_SHOW, &t))
		rc = -1;
	for (size_t i = 0; i < t.n; i++)
		fprintf(f, "%s\n", t.v[i].text);
	detail_lines_free(&t);
	if (r->nsamples > 0) {
		chart(f, r, M_SWAP_USED, "Swap used");
		chart(f, r, M_FREE, "Free memory");
		chart(f, r, M_MAJFLT, "Major faults/s");
		chart(f, r, M_MINFLT, "Minor faults/s");
		chart(f, r, M_KSWAPD_CPU, "kswapd CPU %");
	}
	return rc || ferror(f) ? -1 : 0;
}

/* ---- charts ---- */

#define CHART_W 60
#define CHART_H 5

/* The end of a time axis: tenths under 10 s, where whole seconds would
 * print a short run's axis as "0s" at both ends. */
static void axis_secs(char *buf, size_t len, double s)
{
	if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else
		snprintf(buf, len, "%.0fs", s);
}

/* Series id of r in ASCII on the monitor's scale, titled with the extreme
 * that matters over every sample: what is left of RAM, its lowest; else
 * the peak. */
static void chart(FILE *f, const struct run_record *r, int id, const char *title)
{
	const struct metric_def *def = metric_def(id);
	struct series s, d;
	double tt[CHART_W], vv[CHART_W], lo, hi;
	char rows[CHART_H][PLOT_ROW_BYTES(CHART_W)], top[16], ext[24], end[16];

	if (r->nsamples < 2 || !r->series[id])
		return;
	if (!run_record_series_range(r, id, &lo, &hi)) {
		fprintf(f, "\n%s: not recorded\n", title);
		return;
	}
	if (series_init(&s, r->nsamples))
		return;
	for (int i = 0; i < r->nsamples; i++)
		series_push(&s, r->t[i], r->series[id][i]);
	int np = series_downsample(&s, CHART_W, tt, vv);
	series_free(&s);
	if (np < 1 || series_init(&d, np))
		return;
	for (int i = 0; i < np; i++)
		series_push(&d, tt[i], vv[i]);
	struct plot p = { .w = np, .h = CHART_H, .mode = PLOT_ASCII };
	p.ymax = run_record_scale(r, id, hi);
	metrics_value_text(id, p.ymax, top, sizeof(top));
	metrics_value_text(id, def->scale == MS_RAM ? lo : hi, ext, sizeof(ext));
	if (plot_render(&p, &d, &rows[0][0], sizeof(rows[0]), NULL) == 0) {
		fprintf(f, "\n%s, %s during run %" PRId64 " (%s %s):\n", title,
			!strcmp(metric_scope(id), "machine") ? "whole machine" : metric_scope(id),
			r->id, def->scale == MS_RAM ? "lowest" : "peak", ext);
		for (int y = 0; y < CHART_H; y++) {
			size_t len = strlen(rows[y]);
			while (len && rows[y][len - 1] == ' ')
				rows[y][--len] = 0;
			fprintf(f, "%7s |%s\n", y == 0 ? top : y == CHART_H - 1 ? "0" : "", rows[y]);
		}
		fprintf(f, "%7s +", "");
		for (int x = 0; x < np; x++)
			fputc('-', f);
		axis_secs(end, sizeof(end), r->t[r->nsamples - 1]);
		fprintf(f, "\n%8s %-*s%s\n", "", np - (int)strlen(end) > 3 ? np - (int)strlen(end) : 3,
			"0s", end);
	}
	series_free(&d);
}

/* ---- statistics ---- */

void report_figure(char *buf, size_t len, double v, enum report_metric m)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (m == RM_MAJFLT)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f%s", v, m >= RM_STALL ? "%" : "");
}

/* The 1e-7 keeps 149.29, stored as 149.28999..., at 149.29. */
double report_cut(double v, double q)
{
	return isnan(v) ? v : floor(v * q + 1e-7) / q;
}

/* The command's own figures' rows of the statistics, to 6 digits. */
static void own_rows(FILE *f, const struct cmdfigs *own)
{
	for (size_t i = 0; i < own->n; i++) {
		const struct cmdfig *c = &own->v[i];
		struct stats_summary s;
		char v[5][32], cv[16];

		stats_summarize(c->x, c->n, &s);
		cmdfig_text(v[0], 32, s.min);
		cmdfig_text(v[1], 32, s.median);
		cmdfig_text(v[2], 32, s.mean);
		cmdfig_text(v[3], 32, s.max);
		cmdfig_text(v[4], 32, s.sd);
		if (isnan(s.cv_pct))
			snprintf(cv, sizeof(cv), "n/a");
		else
			snprintf(cv, sizeof(cv), "%.1f%%", s.cv_pct);
		fprintf(f, "  %-7s %3zu %9s %9s %9s %9s %9s %7s\n", c->name, s.n, v[0], v[1], v[2],
			v[3], v[4], cv);
	}
}

void report_own_note(FILE *f, const struct cmdfigs *own, const char *first, int indent)
{
	char note[512];
	size_t o = 0;

	if (!own->n)
		return;
	for (size_t i = 0; i < own->n && o < sizeof(note); i++)
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%s%s %s%s", i ? ", " : "(",
				      own->v[i].name, own->v[i].higher ? "higher" : "lower",
				      i ? "" : " is better");
	if (o < sizeof(note))
		snprintf(note + o, sizeof(note) - o, ": the command's own figures, --metric, to at"
			 " most 6 significant digits)");
	report_wrap(f, first, indent, note);
}

static void stats_table(FILE *f, const struct report_group *g)
{
	fprintf(f, "  %-7s %3s %9s %9s %9s %9s %9s %7s\n", "", "n", "min", "median", "mean",
		"max", "sd", "CoV");
	bool stalls = false;
	char note[320];

	for (int m = 0; m < RM_N; m++) {
		const struct stats_summary *s = &g->st[m];
		char v[5][32], cv[16];
		/* a stall the runs have no figure for has no row */
		if (m >= RM_STALL && !s->n)
			continue;
		stalls |= m >= RM_STALL;
		double q = m == RM_MAJFLT ? 1 : 100;
		report_figure(v[0], 32, report_cut(s->min, q), m);
		report_figure(v[1], 32, report_cut(s->median, q), m);
		report_figure(v[3], 32, report_cut(s->max, q), m);
		/* a mean or sd of faults has a decimal */
		if (m == RM_MAJFLT && !isnan(s->mean))
			snprintf(v[2], 32, "%.1f", report_cut(s->mean, 10));
		else
			report_figure(v[2], 32, report_cut(s->mean, 100), m);
		if (m == RM_MAJFLT && !isnan(s->sd))
			snprintf(v[4], 32, "%.1f", s->sd);
		else
			report_figure(v[4], 32, s->sd, m);
		if (isnan(s->cv_pct))
			snprintf(cv, sizeof(cv), "n/a");
		else
			snprintf(cv, sizeof(cv), "%.1f%%", s->cv_pct);
		fprintf(f, "  %-7s %3zu %9s %9s %9s %9s %9s %7s\n", metric_names[m], s->n,
			v[0], v[1], v[2], v[3], v[4], cv);
	}
	own_rows(f, &g->own);
	snprintf(note, sizeof(note), "(wall, user, sys, kswapd in seconds, majflt in faults: min,"
		 " median, mean and max truncated as time lines truncate, sd rounded;%s CoV n/a"
		 " where the mean is 0; over completed runs)", stalls ? " swapin to irq: a"
		 " worker's stall in % of wall time, the workers' sum over their number;" : "");
	report_wrap(f, "  ", 3, note);
	report_own_note(f, &g->own, "  ", 3);
}

/* "1 of 3 runs killed, 33% (95% 6-79%, Wilson)": over the runs that went
 * to their end, the aborted ones aside; said only of a group with a kill. */
static void oom_rate(FILE *f, const struct report_group *g)
{
	size_t ran = g->n - g->naborted;
	double lo, hi;

	if (!g->noom || stats_wilson95(g->noom, ran, &lo, &hi))
		return;
	fprintf(f, "  OOM: %zu of %zu runs killed, %.0f%% (95%% %.0f-%.0f%%, Wilson)\n",
		g->noom, ran, 100.0 * (double)g->noom / (double)ran, 100 * lo, 100 * hi);
}

static void group_notes(FILE *f, const struct report_group *g, const struct report_opts *o)
{
	oom_rate(f, g);
	if (g->nfailed || g->noom || g->naborted)
		fprintf(f, "  not in the statistics: %zu OOM-killed, %zu failed, %zu aborted\n",
			g->noom, g->nfailed, g->naborted);
	if (g->unstable)
		fprintf(f, "  UNSTABLE: wall time CoV %.1f%% > %.1f%%\n", g->st[RM_WALL].cv_pct,
			o->unstable_cov_pct);
}

/* A group's run: its time line, marked when it failed or is an outlier. */
static void group_run(FILE *f, const struct run_record *r, bool outlier,
		      const struct report_opts *o, bool with_ids)
{
	char line[256];
	char id[32] = "";

	if (with_ids)
		snprintf(id, sizeof(id), "%6" PRId64 "  ", r->id);
	run_record_line(r, o->gnu, line, sizeof(line));
	const char *mark = r->status != RUN_OK ? run_status_title(r->status) :
			   outlier ? "<- outlier" : "";
	int len = fprintf(f, "%s%s", id, line);
	if (*mark && len + 2 + (int)strlen(mark) > REPORT_WIDTH)
		fprintf(f, "\n%*s%s\n", with_ids ? 8 : 0, "", mark);
	else
		fprintf(f, "%s%s\n", *mark ? "  " : "", mark);
}

/* Stats: where a group's printed run lines start (the older ones are
 * counted in one line instead), and that line. */
static size_t lines_from(const struct report_opts *o, size_t n)
{
	return o->lines && n > o->lines ? n - o->lines : 0;
}

static void older_runs(FILE *f, const bool *outlier, size_t hidden)
{
	size_t nout = 0;

	if (!hidden)
		return;
	for (size_t i = 0; i < hidden; i++)
		nout += outlier[i];
	fprintf(f, "  %zu older run%s not shown", hidden, hidden == 1 ? "" : "s");
	if (nout)
		fprintf(f, ", %zu of them outlier%s", nout, nout == 1 ? "" : "s");
	fprintf(f, " (--all shows every run)\n");
}

/* ---- text report ---- */

static void system_state(FILE *f, const struct run_record *r)
{
	char buf[1024], a[32], b[32], host[128];

	fmt_kib(a, sizeof(a), r->ram_kib);
	fmt_kib(b, sizeof(b), r->swap_total_kib);
	if (!r->hostname[0] && !r->kernel_version) {
		fprintf(f, "  system state not recorded (imported lines): RAM %s, swap %s\n", a, b);
		return;
	}
	run_record_host(r, host, sizeof(host));
	if (r->ncpus == NA)
		snprintf(buf, sizeof(buf), "%s, n/a CPUs, RAM %s, swap %s", host, a, b);
	else
		snprintf(buf, sizeof(buf), "%s, %d CPUs, RAM %s, swap %s", host, r->ncpus, a, b);
	report_wrap(f, "  host:    ", 11, buf);
	snprintf(buf, sizeof(buf), "%s %s", r->kernel_release[0] ? r->kernel_release : "-",
		 r->kernel_version ? r->kernel_version : "");
	report_wrap(f, "  kernel:  ", 11, buf);
	report_wrap(f, "  cmdline: ", 11, r->proc_cmdline ? r->proc_cmdline : "-");
	buf[0] = 0;
	size_t used = 0;
	for (size_t k = REPORT_HEADER_SETTINGS; k < NHEADER_KEYS; k++) {
		const struct hist_field *fl = hist_field_find(report_header_keys[k]);
		char v[64];

		if (!fl || !strcmp(fl->name, "swap_total_kib"))	/* the swaps line's */
			continue;
		run_key_text(r, fl, v, sizeof(v));
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%s",
					 used ? " " : "", fl->name, v);
	}
	report_wrap(f, "  vm:      ", 11, buf);
	for (const char *p = r->swap_devices; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (*p != '\n') {
			run_record_swap_line(p, buf, sizeof(buf));
			report_wrap(f, "  swaps:   ", 11, buf);
		}
	fprintf(f, "  thrashtop %s\n", r->version[0] ? r->version : "-");
}

/* ---- time lines ---- */

/* A run as batch mode prints it: a line for each OOM victim, then its
 * time line, "  failed" or "  aborted" after it. A run from before the
 * victims were kept names its OOM-killed workers by pid alone, as a posted
 * import reads them. */
static void time_line(FILE *f, const struct run_record *r, const struct report_opts *o)
{
	char line[512];
	bool named = r->nvictims > 0 || r->oom_unnamed > 0;

	for (int i = 0; i < r->nvictims; i++) {
		run_oom_line(line, sizeof(line), r->victims[i].pid, r->victims[i].comm);
		fprintf(f, "%s\n", line);
	}
	if (r->oom_unnamed > 0) {
		run_oom_unnamed_line(line, sizeof(line), r->oom_unnamed);
		fprintf(f, "%s\n", line);
	}
	for (int w = 0; !named && r->status == RUN_OOM && w < r->nworkers; w++)
		if (r->workers[w].end == END_OOM && r->workers[w].pid > 0) {
			fprintf(f, "Out of Memory: Killed process %d.\n", r->workers[w].pid);
			named = true;
		}
	if (r->status == RUN_OOM && !named)
		fprintf(f, "Out of Memory: Killed process.\n");
	if (o->gnu) {
		struct timeline t;
		run_record_timeline(r, &t);
		timefmt_gnu(line, sizeof(line), &t);
	} else {
		run_record_line(r, false, line, sizeof(line));
	}
	fprintf(f, "%s%s\n", line, run_status_mark(r->status));
}

/* ---- statistics, time lines and the text report, a group at a time ---- */

enum pass_kind { PASS_STATS, PASS_TIME, PASS_TEXT };

struct group_pass {
	enum pass_kind kind;
	FILE *f;
	struct run_source *src;
	const struct report_opts *o;
	struct header_keys hk;
	size_t gi;			/* the group being printed */
	struct report_group g;		/* its statistics, n the runs read */
	size_t pos;			/* the run being printed, in group order */
	double kswapd;			/* the group's sum so far, NAN once unknown */
	struct delays stalls;		/* the group's stalls summed so far */
	bool stalls_known;		/* every run so far has them */
	double *walls;			/* text: each run's wall time, in group order */
	const struct run_record *rep;	/* text: the run charted, with its series */
	char prev_kernel[65], prev_host[65];	/* the previous group's first run's */
	struct run_record base;		/* text: the first group's first run */
	char *err;
	size_t errlen;
};

/* A run's distance to the group's median wall time, and its place. */
struct rep_cand {
	double d;
	size_t pos;
};

static int cmp_cand(const void *x, const void *y)
{
	const struct rep_cand *a = x, *b = y;

	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Whether the run at pos has recorded series to chart; if so it is p->rep. */
static int try_rep(struct group_pass *p, size_t pos, bool *taken)
{
	int k = p->src->charted(p->src, p->gi, pos, &p->rep, p->err, p->errlen);

	*taken = k == 1;
	return k < 0 ? -1 : 0;
}

/* Text: the run to chart, the one with series nearest the group's median
 * wall time (the earliest of equals). Only the first run with series is
 * taken at an unknown distance. Series are read for that run alone. */
static int pick_rep(struct group_pass *p)
{
	const double *wall = p->walls;
	double med = p->g.st[RM_WALL].median;
	size_t first, nc = 0;
	bool taken = false;

	for (first = 0; first < p->g.n && !taken; first++)
		if (try_rep(p, first, &taken))
			return -1;
	if (!taken)
		return 0;
	first--;
	if (isnan(fabs(wall[first] - med)))
		return 0;
	struct rep_cand *c = malloc(sizeof(*c) * (p->g.n - first));
	if (!c)
		return fmt_err(p->err, p->errlen, "history: out of memory");
	for (size_t i = first; i < p->g.n; i++)
		if (!isnan(fabs(wall[i] - med)))
			c[nc++] = (struct rep_cand){ fabs(wall[i] - med), i };
	qsort(c, nc, sizeof(*c), cmp_cand);
	/* the first run with series stays unless a nearer one has series */
	taken = false;
	for (size_t k = 0; k < nc && c[k].pos != first && !taken; k++)
		if (try_rep(p, c[k].pos, &taken)) {
			free(c);
			return -1;
		}
	free(c);
	return 0;
}

/* The group's stall line sums every run's; a run without them (an older
 * release, no root) leaves the group without one, as kswapd's. */
static void add_stalls(struct group_pass *p, const struct run_record *r)
{
	if (!delays_known(&r->stalls))
		p->stalls_known = false;
	delays_add(&p->stalls, &r->stalls);
}

static void print_stalls(struct group_pass *p)
{
	char buf[256];

	if (!p->stalls_known || !delays_known(&p->stalls))
		return;
	/* the time export's lines are the batch ones, which import reads */
	if (p->kind == PASS_TEXT) {
		timefmt_stalls(buf, sizeof(buf), &p->stalls);
		report_wrap(p->f, "", 8, buf);
	} else {
		timefmt_stalls_lines(buf, sizeof(buf), &p->stalls);
		fprintf(p->f, "%s\n", buf);
	}
}

static int print_run(const struct run_record *r, void *arg)
{
	struct group_pass *p = arg;
	bool outlier = p->kind != PASS_TIME && p->pos < p->g.n && p->g.outlier[p->pos];

	if (p->kind == PASS_TIME)
		time_line(p->f, r, p->o);
	else
		group_run(p->f, r, outlier, p->o, p->kind == PASS_STATS);
	p->kswapd += r->kswapd_s;
	add_stalls(p, r);
	p->pos++;
	return ferror(p->f) ? -1 : 0;
}

/* In the text report, what a group's configuration has that the first
 * group's has not, the first thing a reply asks; the first group is kept
 * for it. */
static void config_against_first(struct group_pass *p, const struct run_record *first)
{
	struct conf_diff d[64];
	int n, w = 0;

	if (p->gi == 0) {
		run_record_clear(&p->base);
		if (run_record_copy(&p->base, first))
			run_record_init(&p->base);
		return;
	}
	if (p->base.id < 1 || (n = conf_diff(&p->base, first, d, sizeof(d) / sizeof(d[0]))) < 0)
		return;
	fprintf(p->f, "  against g:%" PRId64 ":%s\n", p->base.id, n ? "" : " same configuration");
	if ((size_t)n > sizeof(d) / sizeof(d[0]))
		n = (int)(sizeof(d) / sizeof(d[0]));
	for (int i = 0; i < n; i++)
		if ((int)strlen(d[i].key) > w)
			w = (int)strlen(d[i].key);
	for (int i = 0; i < n; i++) {
		char key[80], text[600];

		snprintf(key, sizeof(key), "    %-*.64s  ", w, d[i].key);
		snprintf(text, sizeof(text), "%s -> %s", d[i].from, d[i].to);
		report_wrap(p->f, key, 6, text);
	}
}

/* The lines that open a group: what sets it apart, its workload and, in
 * the text report, the system when it differs from the previous group's. */
static void group_head(struct group_pass *p, const struct run_record *first)
{
	char hdr[2048], wl[256];	/* hdr: a label of up to 800 bytes, a command */

	header_text(first, &p->hk, hdr, sizeof(hdr));
	run_record_workload(first, wl, sizeof(wl));
	/* named as compare takes a group, by its oldest run */
	if (p->kind == PASS_STATS) {
		fprintf(p->f, "%sgroup g:%" PRId64 ": %s\n", p->gi ? "\n" : "", first->id, hdr);
		fprintf(p->f, "  %s, config %.8s, oldest run %" PRId64 "\n", wl,
			p->src->groups[p->gi].hash, first->id);
	} else if (p->kind == PASS_TIME) {
		fprintf(p->f, "%s%s:\n", p->gi ? "\n" : "", hdr);
	} else {
		char head[40];

		fprintf(p->f, "\n");
		snprintf(head, sizeof(head), "group g:%" PRId64 ": ", first->id);
		report_wrap(p->f, head, 2, hdr);
		report_wrap(p->f, "  workload: ", 12, wl);
		if (p->gi == 0 || strcmp(first->kernel_release, p->prev_kernel) ||
		    strcmp(first->hostname, p->prev_host))
			system_state(p->f, first);
		config_against_first(p, first);
		snprintf(p->prev_kernel, sizeof(p->prev_kernel), "%s", first->kernel_release);
		snprintf(p->prev_host, sizeof(p->prev_host), "%s", first->hostname);
		fprintf(p->f, "\n");
	}
}

static int report_of_group(struct group_pass *p, size_t gi)
{
	const struct run_record *first;
	char buf[32];
	int rc = -1;

	p->gi = gi;
	p->rep = NULL;
	memset(&p->g, 0, sizeof(p->g));
	if (p->src->first(p->src, gi, &first, p->err, p->errlen))
		return -1;
	if (p->kind != PASS_TIME) {
		if (p->kind == PASS_TEXT &&
		    !(p->walls = malloc(sizeof(*p->walls) * (p->src->groups[gi].n + 1)))) {
			fmt_err(p->err, p->errlen, "history: out of memory");
			goto out;
		}
		if (group_stats(p->src, gi, first, p->o, &p->g, p->walls, p->err, p->errlen) ||
		    (p->kind == PASS_TEXT && pick_rep(p)))
			goto out;
	}
	group_head(p, first);
	p->pos = p->kind == PASS_STATS ? lines_from(p->o, p->g.n) : 0;
	p->kswapd = 0;
	delays_clear(&p->stalls);
	p->stalls_known = true;
	older_runs(p->f, p->g.outlier, p->pos);
	if (p->src->runs(p->src, gi, p->pos, p->kind == PASS_TIME, print_run, p, p->err,
			 p->errlen)) {
		if (ferror(p->f))
			fmt_err(p->err, p->errlen, "history: writing the output: %s", strerror(errno));
		goto out;
	}
	if (p->kind != PASS_STATS && !isnan(p->kswapd)) {
		timefmt_kswapd(buf, sizeof(buf), p->kswapd);
		fprintf(p->f, "%s\n", buf);
	}
	if (p->kind != PASS_STATS)
		print_stalls(p);
	if (p->kind == PASS_TEXT)
		fprintf(p->f, "\n");
	if (p->kind != PASS_TIME) {
		stats_table(p->f, &p->g);
		group_notes(p->f, &p->g, p->o);
	}
	if (p->rep) {
		chart(p->f, p->rep, M_SWAP_USED, "Swap used");
		chart(p->f, p->rep, M_MAJFLT, "Major faults/s");
		chart(p->f, p->rep, M_MINFLT, "Minor faults/s");
	}
	rc = ferror(p->f) ? -1 : 0;
out:
	group_free(&p->g);
	free(p->walls);
	p->walls = NULL;
	return rc;
}

/* Every group's first run for the header keys, then each group's report. */
static int report_source(enum pass_kind kind, FILE *f, struct run_source *src,
			 const struct report_opts *o, char *err, size_t errlen)
{
	struct group_pass *p = calloc(1, sizeof(*p));
	size_t nruns = 0;
	int rc = 0;

	if (!p)
		return fmt_err(err, errlen, "history: out of memory");
	p->kind = kind;
	p->f = f;
	p->src = src;
	run_record_init(&p->base);
	p->o = o;
	p->err = err;
	p->errlen = errlen;
	for (size_t j = 0; !rc && j < src->ngroups; j++) {
		const struct run_record *first;
		rc = src->first(src, j, &first, err, errlen);
		if (!rc)
			header_keys_add(&p->hk, first);
		nruns += src->groups[j].n;
	}
	if (!rc && kind == PASS_TEXT)
		fprintf(f, "%zu run%s in %zu group%s.\n", nruns, nruns == 1 ? "" : "s",
			src->ngroups, src->ngroups == 1 ? "" : "s");
	for (size_t j = 0; !rc && j < src->ngroups; j++)
		rc = report_of_group(p, j);
	run_record_clear(&p->base);
	free(p);
	return rc ? -1 : 0;
}

int report_stats(FILE *f, struct run_source *src, const struct report_opts *o,
		 char *err, size_t errlen)
{
	return report_source(PASS_STATS, f, src, o, err, errlen);
}

int report_time(FILE *f, struct run_source *src, const struct report_opts *o,
		char *err, size_t errlen)
{
	return report_source(PASS_TIME, f, src, o, err, errlen);
}

int report_text(FILE *f, struct run_source *src, const struct report_opts *o,
		char *err, size_t errlen)
{
	return report_source(PASS_TEXT, f, src, o, err, errlen);
}

/* ---- statistics as data ---- */

static const char *metric_unit(int m)
{
	return m == RM_MAJFLT ? "faults" : m >= RM_STALL ? "% of wall per worker" : "s";
}

/* The ids of g's outliers: "3, 7" in JSON, "3 7" in a CSV cell. */
static void outlier_ids(FILE *f, const struct report_group *g, bool json)
{
	bool any = false;

	for (size_t i = 0; i < g->n; i++)
		if (g->outlier[i]) {
			fprintf(f, "%s%" PRId64, !any ? "" : json ? ", " : " ", g->id[i]);
			any = true;
		}
}

/* One group's statistics: a JSON object, or a CSV row a figure. */
static void group_data(FILE *f, const struct run_record *first, const struct report_group *g,
		       bool json)
{
	char wl[1024], name[32];
	size_t ran = g->n - g->naborted;
	double lo = NAN, hi = NAN;

	run_record_workload(first, wl, sizeof(wl));
	snprintf(name, sizeof(name), "g:%" PRId64, g->first_id);
	if (ran)
		stats_wilson95(g->noom, ran, &lo, &hi);
	if (json) {
		fprintf(f, "{\"group\": \"%s\", \"oldest_run\": %" PRId64 ", \"label\": ", name,
			g->first_id);
		fmt_json_str(f, first->label);
		fputs(", \"kernel\": ", f);
		fmt_json_str(f, first->kernel_release);
		fputs(", \"hostname\": ", f);
		fmt_json_str(f, first->hostname);
		fputs(", \"workload\": ", f);
		fmt_json_str(f, wl);
		fprintf(f, ", \"config_hash\": \"%s\", \"runs\": %zu, \"oom_killed\": %zu, "
			"\"failed\": %zu, \"aborted\": %zu, \"oom_ci95_pct\": ", g->config_hash, g->n,
			g->noom, g->nfailed, g->naborted);
		fputc('[', f);
		export_num(f, 100 * lo, true);
		fputs(", ", f);
		export_num(f, 100 * hi, true);
		fprintf(f, "], \"unstable\": %s, \"outliers\": [", g->unstable ? "true" : "false");
		outlier_ids(f, g, true);
		fputs("], \"figures\": {", f);
	}
	bool any = false;
	for (size_t m = 0; m < RM_N + g->own.n; m++) {
		const struct cmdfig *own = m >= RM_N ? &g->own.v[m - RM_N] : NULL;
		struct stats_summary so;
		const struct stats_summary *s = own ? &so : &g->st[m];

		if (own)
			stats_summarize(own->x, own->n, &so);
		const double v[6] = { s->min, s->median, s->mean, s->max, s->sd, s->cv_pct };
		static const char *const key[6] = { "min", "median", "mean", "max", "sd", "cov_pct" };
		const char *fig = own ? own->name : metric_names[m];
		const char *unit = own ? "" : metric_unit((int)m);

		if (!own && m >= RM_STALL && !s->n)
			continue;
		if (json) {
			fprintf(f, "%s\"%s\": {\"unit\": \"%s\", \"n\": %zu", any ? ", " : "",
				fig, unit, s->n);
			if (own)
				fprintf(f, ", \"better\": \"%s\"", own->higher ? "higher" : "lower");
			for (int k = 0; k < 6; k++) {
				fprintf(f, ", \"%s\": ", key[k]);
				export_num(f, v[k], true);
			}
			fputc('}', f);
		} else {
			fprintf(f, "%s,", name);
			fmt_csv_cell(f, first->label);
			fputc(',', f);
			fmt_csv_cell(f, first->kernel_release);
			fputc(',', f);
			fmt_csv_cell(f, first->hostname);
			fputc(',', f);
			fmt_csv_cell(f, wl);
			fprintf(f, ",%s,%zu,%zu,%zu,%zu,", g->config_hash, g->n, g->noom, g->nfailed,
				g->naborted);
			export_num(f, 100 * lo, false);
			fputc(',', f);
			export_num(f, 100 * hi, false);
			fprintf(f, ",%d,", g->unstable);
			outlier_ids(f, g, false);
			fprintf(f, ",%s,%s,%zu", fig, unit, s->n);
			for (int k = 0; k < 6; k++) {
				fputc(',', f);
				export_num(f, v[k], false);
			}
			fputc('\n', f);
		}
		any = true;
	}
	if (json)
		fputs("}}", f);
}

/* `history stats --format=json|csv`: what stats prints, unrounded. */
static int stats_data(FILE *f, struct run_source *src, const struct report_opts *o, bool json,
		      char *err, size_t errlen)
{
	if (json)
		fputs("{\"thrashtop_stats\": 1, \"groups\": [", f);
	else
		fputs("group,label,kernel,hostname,workload,config_hash,runs,oom_killed,failed,"
		      "aborted,oom_ci95_lo_pct,oom_ci95_hi_pct,unstable,outliers,figure,unit,n,min,"
		      "median,mean,max,sd,cov_pct\n", f);
	for (size_t gi = 0; gi < src->ngroups; gi++) {
		const struct run_record *first;
		struct report_group g;

		if (src->first(src, gi, &first, err, errlen) ||
		    group_stats(src, gi, first, o, &g, NULL, err, errlen))
			return -1;
		if (json)
			fputs(gi ? ",\n  " : "\n  ", f);
		group_data(f, first, &g, json);
		group_free(&g);
	}
	if (json)
		fputs(src->ngroups ? "\n]}\n" : "]}\n", f);
	return ferror(f) ? -1 : 0;
}

int report_stats_json(FILE *f, struct run_source *src, const struct report_opts *o,
		      char *err, size_t errlen)
{
	return stats_data(f, src, o, true, err, errlen);
}

int report_stats_csv(FILE *f, struct run_source *src, const struct report_opts *o,
		     char *err, size_t errlen)
{
	return stats_data(f, src, o, false, err, errlen);
}
