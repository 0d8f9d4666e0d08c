#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "timefmt.h"

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
}

void run_free(struct run *r)
{
	workload_free(&r->wl);
	runlog_free(&r->log);
	free(r->changes);
	r->changes = NULL;
	r->nchanges = 0;
}

int run_begin(struct run *r, const struct workload_cfg *cfg, char *err, size_t errlen)
{
	workload_free(&r->wl);	/* the previous run's, kept until now for display */
	runlog_free(&r->log);
	r->nchanges = 0;
	if (workload_begin(&r->wl, cfg)) {
		snprintf(err, errlen, "%s", r->wl.err);
		return -1;
	}
	r->active = r->forking = true;
	return 0;
}

int run_fork(struct run *r, double until, char *err, size_t errlen)
{
	int rc = workload_fork(&r->wl, until);

	if (rc < 0) {
		snprintf(err, errlen, "%s", r->wl.err);
		r->active = r->forking = false;
		return -1;
	}
	r->forking = rc == 0;
	return rc;
}

void run_started(struct run *r, const struct sys_sample *s, const double *v,
		 const bool *on)
{
	r->started = time(NULL);
	result_begin(&r->res, s);
	runlog_begin(&r->log, on, HISTORY_SAMPLES_MAX);
	runlog_push(&r->log, s->t, v);
}

void run_observe(struct run *r, const struct sys_sample *s, const double *v)
{
	/* a sample from before the start, taken from the queue after it */
	if (!r->active || r->forking || s->t < r->wl.t_start)
		return;
	runlog_push(&r->log, s->t, v);
	result_observe(&r->res, s);
}

int run_change(struct run *r, double t, const char *name, const char *old,
	       const char *new_val)
{
	struct run_sysctl_change *c;

	if (!r->active || r->forking)
		return 0;
	c = realloc(r->changes, sizeof(*c) * (size_t)(r->nchanges + 1));
	if (!c)
		return -1;
	r->changes = c;
	c += r->nchanges++;
	c->t_s = t - r->wl.t_start;
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->old_val, sizeof(c->old_val), "%.63s", old);
	snprintf(c->new_val, sizeof(c->new_val), "%.63s", new_val);
	return 0;
}

void run_finish(struct run *r, const struct sys_sample *s, const struct oom_seen *seen,
		bool aborted)
{
	if (aborted)
		workload_stop(&r->wl);
	if (r->forking) {
		/* Stopped before the workers started: nothing ran to count. */
		r->wl.t_start = r->wl.t_end = s->t;
		result_begin(&r->res, s);
		r->started = time(NULL);
	}
	result_finish(&r->res, &r->wl, s, seen, aborted);
	r->active = r->forking = false;
}

void run_print(const struct run *r, enum out_format f, FILE *out, FILE *err)
{
	char line[256], ksw[64];
	const struct timeline *tl = &r->res.tl;

	for (int i = 0; i < r->res.nvictims; i++)
		fprintf(out, "Out of Memory: Killed process %d (%s).\n", r->res.victims[i].pid,
			r->res.victims[i].comm);
	if (r->res.unnamed > 0)
		fprintf(out, "Out of Memory: Killed process (unnamed: %lld more the run's cgroup"
			" counted).\n", (long long)r->res.unnamed);
	for (int i = 0; i < r->wl.n; i++) {
		const struct worker *w = &r->wl.w[i];

		if (w->end == END_VERIFY && r->wl.prog)
			fprintf(err, "ERROR: i = %ld\n*** WARNING *** %ld errors.\n",
				atomic_load(&r->wl.prog[i].first_bad),
				atomic_load(&r->wl.prog[i].errors));
	}
	switch (f) {
	case OUT_CSH: timefmt_csh(line, sizeof(line), tl); break;
	case OUT_GNU: timefmt_gnu(line, sizeof(line), tl); break;
	case OUT_GNU_FULL: timefmt_gnu_default(line, sizeof(line), tl); break;
	}
	timefmt_kswapd(ksw, sizeof(ksw), r->res.kswapd_s);
	/* marked as the history's reports mark it */
	fprintf(out, "%s%s\n%s\n", line, r->res.status == RUN_ABORTED ? "  aborted" : "", ksw);
	fflush(out);
}

char *run_done_line(const struct run *r, int no, const char *cell, char *buf, size_t len)
{
	char line[256], ksw[64];

	timefmt_csh(line, sizeof(line), &r->res.tl);
	timefmt_kswapd(ksw, sizeof(ksw), r->res.kswapd_s);
	snprintf(buf, len, "#%d %s  %s  %s%s%s", no, line, ksw, run_status_name(r->res.status),
		 cell ? "  " : "", cell ? cell : "");
	return buf;
}
