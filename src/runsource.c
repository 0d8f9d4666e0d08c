/* Report run sources: the history a group at a time, or runs in memory. */
#include "runsource.h"

#include <stdlib.h>
#include <string.h>

#include "fmt.h"

void run_figures_of(const struct run_record *r, struct run_figures *x)
{
	*x = (struct run_figures){ r->id, r->user_us, r->sys_us, r->wall_us, r->majflt,
				   r->minflt, r->inblock, r->oublock, r->maxrss_kib, r->kswapd_s,
				   r->cpu_pct, r->status, r->stalls };
}

void run_source_free(struct run_source *s)
{
	if (s)
		s->free(s);
}

/* ---- the history ---- */

/* Groups up to this many runs are read once; larger ones again to print,
 * so that memory stays within about 32 MiB whatever a group holds. */
#define ROWS_MAX (1 << 18)

struct hist_source {
	struct run_source s;		/* first: what callers hold */
	struct history *h;
	struct history_filter gf;	/* the user's filter, narrowed to one group */
	size_t cap;
	struct run_record first, rep;
	size_t held;			/* the group whose figures are read */
	size_t nheld;
	int64_t *ids;			/* its runs' ids, in group order */
	struct run_figures *rows;	/* its runs as read for the figures,
					 * printed from here when the group
					 * is not too large */
};

static int add_group(const char *hash, int64_t n, void *arg)
{
	struct hist_source *hs = arg;

	if (hs->s.ngroups == hs->cap) {
		size_t ncap = hs->cap ? hs->cap * 2 : 64;
		struct run_group *g = realloc(hs->s.groups, sizeof(*g) * ncap);
		if (!g)
			return 1;
		hs->s.groups = g;
		hs->cap = ncap;
	}
	snprintf(hs->s.groups[hs->s.ngroups].hash, sizeof(hs->s.groups->hash), "%s", hash);
	hs->s.groups[hs->s.ngroups++].n = (size_t)n;
	return 0;
}

static void drop_held(struct hist_source *hs)
{
	free(hs->ids);
	free(hs->rows);
	hs->ids = NULL;
	hs->rows = NULL;
	hs->held = (size_t)-1;
	hs->nheld = 0;
}

static void hist_free(struct run_source *s)
{
	struct hist_source *hs = (struct hist_source *)s;

	drop_held(hs);
	run_record_clear(&hs->first);
	run_record_clear(&hs->rep);
	free(s->groups);
	free(hs);
}

static int take_run(struct run_record *r, void *arg)
{
	*(struct run_record *)arg = *r;
	run_record_init(r);
	return 0;
}

static int hist_first(struct run_source *s, size_t g, const struct run_record **r,
		      char *err, size_t errlen)
{
	struct hist_source *hs = (struct hist_source *)s;
	struct history_filter one = hs->gf;

	one.config_hash = s->groups[g].hash;
	one.limit = 1;
	run_record_clear(&hs->first);
	if (history_each(hs->h, &one, HISTORY_OLDEST_FIRST, take_run, &hs->first, err, errlen))
		return -1;
	if (hs->first.id < 1)
		return fmt_err(err, errlen, "history: a group vanished while it was read");
	*r = &hs->first;
	return 0;
}

struct fig_pass {
	struct hist_source *hs;
	size_t n;
	int (*fn)(const struct run_figures *x, void *arg);
	void *arg;
};

static int held_figures(const struct run_figures *x, void *arg)
{
	struct fig_pass *fp = arg;
	struct hist_source *hs = fp->hs;

	if (hs->nheld < fp->n) {
		if (hs->rows)
			hs->rows[hs->nheld] = *x;
		else
			hs->ids[hs->nheld] = x->id;
		hs->nheld++;
	}
	return fp->fn(x, fp->arg);
}

static int hist_figures(struct run_source *s, size_t g,
			int (*fn)(const struct run_figures *x, void *arg), void *arg,
			char *err, size_t errlen)
{
	struct hist_source *hs = (struct hist_source *)s;
	struct history_filter gf = hs->gf;
	struct fig_pass fp = { hs, s->groups[g].n, fn, arg };

	drop_held(hs);
	if (fp.n <= ROWS_MAX ? !(hs->rows = malloc(sizeof(*hs->rows) * (fp.n + 1)))
			     : !(hs->ids = malloc(sizeof(*hs->ids) * (fp.n + 1))))
		return fmt_err(err, errlen, "history: out of memory");
	hs->held = g;
	gf.config_hash = s->groups[g].hash;
	gf.fields = history_figures;
	return history_each_figures(hs->h, &gf, held_figures, &fp, err, errlen) ? -1 : 0;
}

static int hist_own(struct run_source *s, size_t g,
		    int (*fn)(int64_t id, enum run_status st, const struct run_metric *m,
			      void *arg), void *arg, char *err, size_t errlen)
{
	struct hist_source *hs = (struct hist_source *)s;
	struct history_filter gf = hs->gf;

	gf.config_hash = s->groups[g].hash;
	return history_each_metric(hs->h, &gf, fn, arg, err, errlen);
}

/* Time lines: an OOM line names the victims (or, for a run from before
 * they were kept, the killed worker) and the command kind, which only an
 * OOM-killed run needs read. */
static int oom_detail(struct hist_source *hs, struct run_record *r, char *err, size_t errlen)
{
	static const char *const kind[] = { "kind", "oom_unnamed", NULL };
	struct history_filter one = { .id = r->id, .fields = kind };
	struct run_record d;

	run_record_init(&d);
	if (history_each(hs->h, &one, HISTORY_WORKER_ENDS, take_run, &d, err, errlen))
		return -1;
	r->kind = d.kind;
	r->workers = d.workers;
	r->nworkers = d.nworkers;
	r->victims = d.victims;
	r->nvictims = d.nvictims;
	r->oom_unnamed = d.oom_unnamed;
	d.workers = NULL;
	d.nworkers = 0;
	d.victims = NULL;
	d.nvictims = 0;
	run_record_clear(&d);
	return 0;
}

struct run_pass {
	struct hist_source *hs;
	bool oom;
	int (*fn)(const struct run_record *r, void *arg);
	void *arg;
	char *err;
	size_t errlen;
};

static int pass_run(struct run_record *r, void *arg)
{
	struct run_pass *rp = arg;

	if (rp->oom && r->status == RUN_OOM && oom_detail(rp->hs, r, rp->err, rp->errlen))
		return -1;
	return rp->fn(r, rp->arg);
}

/* The group's runs from the figures its statistics were read into. */
static int held_runs(struct run_pass *rp, size_t from)
{
	struct hist_source *hs = rp->hs;
	int rc = 0;

	for (size_t i = from; i < hs->nheld && !rc; i++) {
		const struct run_figures *w = &hs->rows[i];
		struct run_record r;

		run_record_init(&r);
		r.id = w->id;
		r.user_us = w->user_us;
		r.sys_us = w->sys_us;
		r.wall_us = w->wall_us;
		r.majflt = w->majflt;
		r.minflt = w->minflt;
		r.inblock = w->inblock;
		r.oublock = w->oublock;
		r.maxrss_kib = w->maxrss_kib;
		r.kswapd_s = w->kswapd_s;
		r.cpu_pct = w->cpu_pct;
		r.status = w->status;
		r.stalls = w->stalls;
		rc = pass_run(&r, rp);
		run_record_clear(&r);
	}
	return rc;
}

static int hist_runs(struct run_source *s, size_t g, size_t from, bool oom,
		     int (*fn)(const struct run_record *r, void *arg), void *arg,
		     char *err, size_t errlen)
{
	struct hist_source *hs = (struct hist_source *)s;
	struct run_pass rp = { hs, oom, fn, arg, err, errlen };
	struct history_filter gf = hs->gf;

	if (hs->held == g && hs->rows)
		return held_runs(&rp, from);
	gf.config_hash = s->groups[g].hash;
	gf.fields = history_figures;
	gf.offset = (long)from;
	return history_each(hs->h, &gf, HISTORY_OLDEST_FIRST, pass_run, &rp, err, errlen) ? -1 : 0;
}

static int hist_charted(struct run_source *s, size_t g, size_t pos, const struct run_record **r,
			char *err, size_t errlen)
{
	struct hist_source *hs = (struct hist_source *)s;
	struct run_record full;
	int64_t id;

	if (hs->held != g || pos >= hs->nheld)
		return 0;
	id = hs->rows ? hs->rows[pos].id : hs->ids[pos];
	if (history_nsamples(hs->h, id) < 2)
		return 0;
	if (history_get(hs->h, id, &full, err, errlen))
		return -1;
	if (full.nsamples < 2) {
		run_record_clear(&full);
		return 0;
	}
	run_record_clear(&hs->rep);
	hs->rep = full;
	*r = &hs->rep;
	return 1;
}

struct run_source *run_source_history(struct history *h, const struct history_filter *f,
				      char *err, size_t errlen)
{
	struct hist_source *hs = calloc(1, sizeof(*hs));

	if (!hs) {
		fmt_err(err, errlen, "history: out of memory");
		return NULL;
	}
	hs->s = (struct run_source){ .first = hist_first, .figures = hist_figures,
				     .own = hist_own, .runs = hist_runs, .charted = hist_charted,
				     .free = hist_free };
	hs->h = h;
	if (f)
		hs->gf = *f;
	hs->gf.limit = hs->gf.offset = 0;
	hs->held = (size_t)-1;
	run_record_init(&hs->first);
	run_record_init(&hs->rep);
	int rc = history_each_group(h, &hs->gf, add_group, hs, err, errlen);
	if (rc) {
		if (rc > 0)
			fmt_err(err, errlen, "history: out of memory");
		hist_free(&hs->s);
		return NULL;
	}
	return &hs->s;
}

/* ---- runs in memory ---- */

struct array_source {
	struct run_source s;
	const struct run_record *runs;
	size_t *byg;			/* run indexes, group after group */
	size_t *start;			/* where each group's begin in byg */
};

static const struct run_record *array_run(struct run_source *s, size_t g, size_t pos)
{
	struct array_source *as = (struct array_source *)s;

	return &as->runs[as->byg[as->start[g] + pos]];
}

static int array_first(struct run_source *s, size_t g, const struct run_record **r,
		       char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	*r = array_run(s, g, 0);
	return 0;
}

static int array_figures(struct run_source *s, size_t g,
			 int (*fn)(const struct run_figures *x, void *arg), void *arg,
			 char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	for (size_t i = 0; i < s->groups[g].n; i++) {
		struct run_figures x;
		run_figures_of(array_run(s, g, i), &x);
		if (fn(&x, arg))
			return -1;
	}
	return 0;
}

static int array_own(struct run_source *s, size_t g,
		     int (*fn)(int64_t id, enum run_status st, const struct run_metric *m,
			       void *arg), void *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	for (size_t i = 0; i < s->groups[g].n; i++) {
		const struct run_record *r = array_run(s, g, i);

		for (int k = 0; k < r->nmetrics; k++) {
			int rc = fn(r->id, r->status, &r->metrics[k], arg);

			if (rc)
				return rc;
		}
	}
	return 0;
}

static int array_runs(struct run_source *s, size_t g, size_t from, bool oom,
		      int (*fn)(const struct run_record *r, void *arg), void *arg,
		      char *err, size_t errlen)
{
	(void)oom;
	(void)err;
	(void)errlen;
	for (size_t i = from; i < s->groups[g].n; i++)
		if (fn(array_run(s, g, i), arg))
			return -1;
	return 0;
}

static int array_charted(struct run_source *s, size_t g, size_t pos, const struct run_record **r,
			 char *err, size_t errlen)
{
	const struct run_record *x = array_run(s, g, pos);

	(void)err;
	(void)errlen;
	if (x->nsamples < 2)
		return 0;
	*r = x;
	return 1;
}

static void array_free(struct run_source *s)
{
	struct array_source *as = (struct array_source *)s;

	free(as->byg);
	free(as->start);
	free(s->groups);
	free(as);
}

static const struct run_record *sort_base;

static int cmp_started(const void *x, const void *y)
{
	const struct run_record *a = &sort_base[*(const size_t *)x], *b = &sort_base[*(const size_t *)y];
	int c = strcmp(a->started_at, b->started_at);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* Groups the runs in start order by config_hash, each group where its
 * oldest run falls. */
static int array_group(struct array_source *as, size_t n, size_t *order, size_t *gid)
{
	struct run_source *s = &as->s;
	const struct run_record *runs = as->runs;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_base = runs;
	qsort(order, n, sizeof(size_t), cmp_started);
	for (size_t k = 0; k < n; k++) {
		const char *hash = runs[order[k]].config_hash;
		size_t j;
		for (j = 0; j < s->ngroups; j++)
			if (!strcmp(s->groups[j].hash, hash))
				break;
		if (j == s->ngroups) {
			struct run_group *g = realloc(s->groups, sizeof(*g) * (j + 1));
			if (!g)
				return -1;
			s->groups = g;
			snprintf(g[j].hash, sizeof(g[j].hash), "%s", hash);
			g[j].n = 0;
			s->ngroups++;
		}
		s->groups[j].n++;
		gid[k] = j;
	}
	if (!(as->start = malloc(sizeof(size_t) * (s->ngroups + 1))))
		return -1;
	for (size_t j = 0, at = 0; j < s->ngroups; at += s->groups[j++].n)
		as->start[j] = at;
	/* each group's runs in start order, from where it begins */
	for (size_t k = 0; k < n; k++)
		as->byg[as->start[gid[k]]++] = order[k];
	for (size_t j = 0; j < s->ngroups; j++)
		as->start[j] -= s->groups[j].n;
	return 0;
}

struct run_source *run_source_array(const struct run_record *runs, size_t n,
				    char *err, size_t errlen)
{
	struct array_source *as = calloc(1, sizeof(*as));
	size_t *order = malloc(sizeof(size_t) * (n + 1)), *gid = malloc(sizeof(size_t) * (n + 1));
	int rc = -1;

	if (as) {
		as->s = (struct run_source){ .first = array_first, .figures = array_figures,
					     .own = array_own, .runs = array_runs,
					     .charted = array_charted, .free = array_free };
		as->runs = runs;
		as->byg = malloc(sizeof(size_t) * (n + 1));
		rc = as->byg && order && gid ? array_group(as, n, order, gid) : -1;
	}
	free(order);
	free(gid);
	if (rc) {
		if (as)
			array_free(&as->s);
		fmt_err(err, errlen, "report: out of memory");
		return NULL;
	}
	return &as->s;
}
