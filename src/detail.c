/* A run's detail as lines with attributes. */
#include "detail.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

void detail_lines_free(struct detail_lines *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int detail_take(struct detail_lines *t, int attr, char *s)
{
	if (!s)
		return -1;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		struct detail_line *nv = realloc(t->v, ncap * sizeof(*nv));

		if (!nv) {
			free(s);
			return -1;
		}
		t->v = nv;
		t->cap = ncap;
	}
	t->v[t->n].text = s;
	t->v[t->n++].attr = attr;
	int cols = fmt_text_cols(s);
	if (cols > t->cols)
		t->cols = cols;
	return 0;
}

int detail_add(struct detail_lines *t, int attr, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	return detail_take(t, attr, rc < 0 ? NULL : s);
}

/* Each layout's columns: the free table's first, and the worker table's
 * index, pid, exit, signal and CPU time columns. */
static const struct layout {
	int key_w;
	const char *index;
	int idx_w, pid_w, exit_w, sig_w, cpu_w;
	bool titled;
} layouts[] = {
	[DETAIL_SHOW] = { 11, "worker", 6, 8, 5, 4, 10, false },
	[DETAIL_SCREEN] = { 12, "#", 3, 7, 4, 3, 9, true },
};

static void i64_text(char *buf, size_t len, int64_t v)
{
	if (v == NA)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%" PRId64, v);
}

static int section(struct detail_lines *t, const struct layout *l)
{
	return l->titled ? detail_add(t, DA_PLAIN, "%s", "") : 0;
}

static int free_table(const struct run_record *r, const struct layout *l,
		      struct detail_lines *t)
{
	const struct mem_snapshot *m[2] = { &r->free_before, &r->free_after };
	const char *name[2] = { "before", "after" };
	int rc = 0;

	if (m[0]->total == NA && m[1]->total == NA)
		return 0;
	rc |= section(t, l);
	rc |= detail_add(t, DA_TITLE, "%-*s %10s %10s %10s %10s %10s", l->key_w, "free (KiB)",
			 "total", "used", "free", "buff/cache", "available");
	for (int k = 0; k < 2; k++) {
		char v[5][24];
		int64_t bc;

		if (m[k]->total == NA)
			continue;
		bc = m[k]->buffers == NA || m[k]->cache == NA ? NA
		     : m[k]->buffers + m[k]->cache;
		i64_text(v[0], 24, m[k]->total);
		i64_text(v[1], 24, m[k]->used);
		i64_text(v[2], 24, m[k]->free);
		i64_text(v[3], 24, bc);
		i64_text(v[4], 24, m[k]->avail);
		rc |= detail_add(t, DA_PLAIN, "Mem %-*s %10s %10s %10s %10s %10s", l->key_w - 4,
				 name[k], v[0], v[1], v[2], v[3], v[4]);
		i64_text(v[0], 24, m[k]->swap_total);
		i64_text(v[1], 24, m[k]->swap_used);
		i64_text(v[2], 24, m[k]->swap_free);
		rc |= detail_add(t, DA_PLAIN, "Swap %-*s %10s %10s %10s", l->key_w - 5, name[k],
				 v[0], v[1], v[2]);
	}
	return rc;
}

static int workers(const struct run_record *r, const struct layout *l, struct detail_lines *t)
{
	int rc = 0;

	if (r->nworkers) {
		rc |= section(t, l);
		rc |= detail_add(t, DA_TITLE, "%*s %*s %-7s %*s %*s %*s %*s %9s %9s %s", l->idx_w,
				 l->index, l->pid_w, "pid", "end", l->exit_w, "exit", l->sig_w, "sig",
				 l->cpu_w, "user", l->cpu_w, "sys", "majflt", "minflt", "verify");
	}
	for (int i = 0; i < r->nworkers; i++) {
		const struct run_worker *w = &r->workers[i];
		char ex[16], mj[24], mn[24], ver[64];

		i64_text(ex, sizeof(ex), w->exit_code);
		i64_text(mj, sizeof(mj), w->majflt);
		i64_text(mn, sizeof(mn), w->minflt);
		/* only a sorter that got to its end verified anything */
		if (w->verify_errors > 0)
			snprintf(ver, sizeof(ver), "%" PRId64 " errors, first at %" PRId64,
				 w->verify_errors, w->first_bad);
		else
			snprintf(ver, sizeof(ver), "%s",
				 r->kind == RUN_QSBENCH && w->end == END_OK ? "ok" : "n/a");
		rc |= detail_add(t, w->end != END_OK ? DA_BAD : DA_PLAIN,
				 "%*d %*d %-7s %*s %*d %*.3f %*.3f %9s %9s %s", l->idx_w, i, l->pid_w,
				 w->pid, worker_end_name(w->end), l->exit_w, ex, l->sig_w, w->signal, l->cpu_w,
				 (double)w->user_us / 1e6, l->cpu_w, (double)w->sys_us / 1e6, mj, mn,
				 ver);
	}
	return rc;
}

/* Each worker's delay totals (ms precision) and their share of the run's
 * wall time, for the workers that have them. */
static int worker_delays(const struct run_record *r, const struct layout *l,
			 struct detail_lines *t)
{
	bool any = false;
	int rc = 0;

	for (int i = 0; i < r->nworkers; i++)
		any |= delays_known(&r->workers[i].delays);
	if (!any)
		return 0;
	rc |= section(t, l);
	rc |= detail_add(t, DA_TITLE, "%*s %*s delays, s (%% of wall)", l->idx_w, l->index,
			 l->pid_w, "pid");
	for (int i = 0; i < r->nworkers; i++) {
		const struct delays *d = &r->workers[i].delays;
		char buf[320];
		size_t o = 0;

		if (!delays_known(d))
			continue;
		buf[0] = '\0';
		for (int k = 0; k < DL_N && o < sizeof(buf); k++) {
			if (isnan(d->s[k]))
				continue;
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s %.3f", o ? "  " : "",
					      delay_name((enum delay_kind)k), d->s[k]);
			if (r->wall_us > 0 && o < sizeof(buf))
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, " (%.0f%%)",
						      100.0 * d->s[k] * 1e6 / (double)r->wall_us);
		}
		rc |= detail_add(t, DA_PLAIN, "%*d %*d %s", l->idx_w, i, l->pid_w,
				 r->workers[i].pid, buf);
	}
	return rc;
}

static int changes(const struct run_record *r, const struct layout *l, struct detail_lines *t)
{
	int rc = 0;

	if (r->nchanges && l->titled) {
		rc |= section(t, l);
		rc |= detail_add(t, DA_TITLE, "%s", "sysctls changed during the run (| in the plots)");
	}
	for (int i = 0; i < r->nchanges; i++)
		rc |= detail_add(t, DA_PLAIN, l->titled ? "  at %.2fs  %s %s -> %s"
				 : "sysctl at %.2fs: %s %s -> %s", r->changes[i].t_s,
				 r->changes[i].name, r->changes[i].old_val, r->changes[i].new_val);
	return rc;
}

/* The OOM killer's victims, where the run kept them. */
static int victims(const struct run_record *r, const struct layout *l, struct detail_lines *t)
{
	int rc = 0;

	if (r->nvictims <= 0 && !(r->oom_unnamed > 0))
		return 0;
	if (l->titled) {
		rc |= section(t, l);
		rc |= detail_add(t, DA_TITLE, "%s", "OOM victims (as the kernel log named them)");
	}
	for (int i = 0; i < r->nvictims; i++)
		rc |= detail_add(t, DA_BAD, "%-*s %d (%s)", l->key_w, l->titled ? "" : "victim",
				 r->victims[i].pid, r->victims[i].comm);
	if (r->oom_unnamed > 0)
		rc |= detail_add(t, DA_BAD, "%-*s %" PRId64 " more the run's cgroup counted, unnamed",
				 l->key_w, l->titled ? "" : "victim", r->oom_unnamed);
	return rc;
}

/* The command's own figures (--metric), where it has any. */
static int own_figures(const struct run_record *r, const struct layout *l,
		       struct detail_lines *t)
{
	int rc = 0;

	if (r->nmetrics <= 0)
		return 0;
	if (l->titled) {
		rc |= section(t, l);
		rc |= detail_add(t, DA_TITLE, "%s", "the command's own figures (--metric)");
	}
	for (int i = 0; i < r->nmetrics; i++) {
		const struct run_metric *m = &r->metrics[i];
		char v[64], key[32];

		if (isnan(m->value))
			snprintf(v, sizeof(v), "no value");
		else
			fmt_exact(v, sizeof(v), m->value);
		snprintf(key, sizeof(key), "%s%s", l->titled ? "" : "metric ", m->name);
		rc |= detail_add(t, isnan(m->value) ? DA_DIM : DA_PLAIN, "%-*s %s (%s is better)",
				 l->titled ? l->key_w : 24, key, v, m->higher ? "higher" : "lower");
	}
	return rc;
}

int detail_tables(const struct run_record *r, enum detail_layout l, struct detail_lines *t)
{
	const struct layout *lo = &layouts[l];
	int rc = own_figures(r, lo, t);

	rc |= free_table(r, lo, t);

	rc |= workers(r, lo, t);
	rc |= victims(r, lo, t);
	rc |= worker_delays(r, lo, t);
	rc |= changes(r, lo, t);
	return rc ? -1 : 0;
}
