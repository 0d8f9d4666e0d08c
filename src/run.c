#include "run.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fmt.h"
#include "metrics.h"
#include "sysstate.h"
#include "timefmt.h"
#include "version.h"

/* ---- the figures ---- */

static int64_t delta(const struct sys_sample *a, const struct sys_sample *b, int item)
{
	if (a->vm[item] == NA || b->vm[item] == NA || b->vm[item] < a->vm[item])
		return NA;
	return b->vm[item] - a->vm[item];
}

static void lower(int64_t *min, int64_t v)
{
	if (v != NA && (*min == NA || v < *min))
		*min = v;
}

/* Folds one more sample in (extremes). */
static void result_observe(struct run_result *r, const struct sys_sample *s)
{
	int64_t swap = s->mem[MI_SWAP_USED];

	if (swap != NA && s->mem[MI_SWAP_TOTAL] > 0 &&
	    (r->swap_peak_kib == NA || swap > r->swap_peak_kib))
		r->swap_peak_kib = swap;
	/* the ratio at the peak: the workers' exit empties both at the end */
	if (s->zram_orig_kib != NA && (r->zram_orig_kib == NA || s->zram_orig_kib > r->zram_orig_kib)) {
		r->zram_orig_kib = s->zram_orig_kib;
		r->zram_compr_kib = s->zram_compr_kib;
	}
	if (s->zswapped_kib != NA &&
	    (r->zswap_stored_kib == NA || s->zswapped_kib > r->zswap_stored_kib)) {
		r->zswap_stored_kib = s->zswapped_kib;
		r->zswap_pool_kib = s->zswap_kib;
	}
	lower(&r->free_min_kib, s->mem[MI_FREE]);
	lower(&r->avail_min_kib, s->mem[MI_AVAIL]);
	r->last = *s;
}

/* Starts tracking at the run's first sample. */
static void result_begin(struct run_result *r, const struct sys_sample *s)
{
	memset(r, 0, sizeof(*r));
	r->first = r->last = *s;
	r->swap_peak_kib = r->free_min_kib = r->avail_min_kib = NA;
	r->zram_orig_kib = r->zram_compr_kib = r->zswap_stored_kib = r->zswap_pool_kib = NA;
	r->kswapd_s = NAN;
	mem_snapshot_from(s, &r->before);
	result_observe(r, s);
}

static void add_tv(int64_t *us, const struct timeval *tv)
{
	*us += (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* A victim once; comm from the log's kill of pid, else the fallback. */
static void add_victim(struct run_result *r, int pid, const char *comm,
		       const struct oom_seen *seen)
{
	struct oom_kill *v;

	for (int i = 0; i < r->nvictims; i++)
		if (r->victims[i].pid == pid)
			return;
	if (r->nvictims == RUN_VICTIMS_MAX)
		return;
	v = &r->victims[r->nvictims++];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	snprintf(v->comm, sizeof(v->comm), "%.15s", comm);
	for (int i = 0; seen && i < seen->nkills; i++)
		if (seen->kills[i].pid == pid)
			*v = seen->kills[i];
}

/* Closes the run: sums the reaped workers' rusage, classifies each end,
 * takes deltas. */
static void result_finish(struct run_result *r, struct workload *wl,
		   const struct sys_sample *s, const struct oom_seen *seen, bool aborted)
{
	const char *comm = "thrashtop";
	int64_t extra_oom = seen ? seen->extra : 0;
	double t_end = wl->t_start;
	int64_t oom;

	result_observe(r, s);
	mem_snapshot_from(s, &r->after);
	r->sys_majflt = delta(&r->first, s, VM_PGMAJFAULT);
	r->pswpin = delta(&r->first, s, VM_PSWPIN);
	r->pswpout = delta(&r->first, s, VM_PSWPOUT);
	r->zswpout = delta(&r->first, s, VM_ZSWPOUT);
	r->zswpwb = delta(&r->first, s, VM_ZSWPWB);
	r->sys_minflt = delta(&r->first, s, VM_PGFAULT);
	if (r->sys_minflt != NA && r->sys_majflt != NA)
		r->sys_minflt -= r->sys_majflt;
	if (r->first.kswapd_ns != NA && s->kswapd_ns != NA && r->first.nkswapd > 0)
		r->kswapd_s = (double)(s->kswapd_ns - r->first.kswapd_ns) / 1e9;

	oom = delta(&r->first, s, VM_OOM_KILL);
	if (extra_oom > 0)
		oom = (oom == NA ? 0 : oom) + extra_oom;
	r->oom_kills = oom;

	if (wl->cfg.argv) {
		comm = strrchr(wl->cfg.argv[0], '/');
		comm = comm ? comm + 1 : wl->cfg.argv[0];
	}
	r->nvictims = 0;
	r->unnamed = 0;
	memset(&r->tl, 0, sizeof(r->tl));
	delays_clear(&r->stalls);
	r->nworkers = wl->n;
	r->nfailed = 0;
	for (int i = 0; i < wl->n; i++) {
		struct worker *w = &wl->w[i];

		if (w->end == END_RUNNING)
			continue;
		add_tv(&r->tl.user_us, &w->ru.ru_utime);
		add_tv(&r->tl.sys_us, &w->ru.ru_stime);
		r->tl.majflt += w->ru.ru_majflt;
		r->tl.minflt += w->ru.ru_minflt;
		r->tl.inblock += w->ru.ru_inblock;
		r->tl.oublock += w->ru.ru_oublock;
		r->tl.nswap += w->ru.ru_nswap;
		if (w->ru.ru_maxrss > r->tl.maxrss_kib)
			r->tl.maxrss_kib = w->ru.ru_maxrss;
		delays_add(&r->stalls, &w->delays);
		if (w->t_end > t_end)
			t_end = w->t_end;
		if (w->end == END_SIGNAL && WIFSIGNALED(w->status) &&
		    WTERMSIG(w->status) == SIGKILL && oom > 0 && !aborted)
			w->end = END_OOM;
		if (w->end == END_OOM)
			add_victim(r, w->pid, comm, seen);
		if (w->end != END_OK && r->nfailed++ == 0) {
			/* GNU time's full format names how the first failure ended. */
			if (WIFSIGNALED(w->status))
				r->tl.term_signal = WTERMSIG(w->status);
			else
				r->tl.exit_code = WEXITSTATUS(w->status);
		}
	}
	r->tl.wall_us = (int64_t)llround((t_end - wl->t_start) * 1e6);
	/* a total some worker lacks is unknown: the others' sum is short */
	for (int i = 0; i < wl->n; i++)
		for (int k = 0; k < DL_N; k++)
			if (wl->w[i].end != END_RUNNING && isnan(wl->w[i].delays.s[k]))
				r->stalls.s[k] = NAN;
	for (int i = 0; seen && i < seen->nkills; i++)
		add_victim(r, seen->kills[i].pid, seen->kills[i].comm, seen);
	if (seen && seen->cgroup > r->nvictims)
		r->unnamed = seen->cgroup - r->nvictims;

	if (aborted)
		r->status = RUN_ABORTED;
	else if (r->nvictims > 0 || r->unnamed > 0)
		r->status = RUN_OOM;
	else
		r->status = r->nfailed == 0 ? RUN_OK : RUN_FAILED;
}

static int64_t diff(int64_t a, int64_t b)
{
	return a == NA || b == NA ? NA : a - b;
}

void mem_snapshot_from(const struct sys_sample *s, struct mem_snapshot *m)
{
	m->total = s->mem[MI_TOTAL];
	m->used = diff(s->mem[MI_TOTAL], s->mem[MI_AVAIL]);
	m->free = s->mem[MI_FREE];
	m->shared = s->mem[MI_SHARED];
	m->buffers = s->mem[MI_BUFFERS];
	m->cache = s->mem_cache_all;
	m->avail = s->mem[MI_AVAIL];
	m->swap_total = s->mem[MI_SWAP_TOTAL];
	m->swap_used = diff(s->mem[MI_SWAP_TOTAL], s->mem[MI_SWAP_FREE]);
	m->swap_free = s->mem[MI_SWAP_FREE];
}

/* ---- the run ---- */

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
	double first[M_N];

	r->started = time(NULL);
	result_begin(&r->res, s);
	runlog_begin(&r->log, on, RUN_SAMPLES_MAX);
	/* a rate here spans the time before the workers started, not the
	 * run's: a gap, so that it neither shows nor sets a plot's scale */
	for (int i = 0; i < M_N; i++)
		first[i] = metric_def(i)->kind == MK_RATE || i == M_KSWAPD_CPU ? NAN : v[i];
	runlog_push(&r->log, s->t, first);
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
	if (aborted && r->wl.running > 0)
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

/* Why a failed run's workers ended, one line each for the first few: the
 * time line gives no reason, and a sorter that could not allocate its
 * array looks like any other exit 1. */
static void print_failures(const struct run *r, FILE *err)
{
	const char *who = r->wl.cfg.argv ? r->wl.cfg.argv[0] : "worker";
	int shown = 0, more = 0;

	for (int i = 0; i < r->wl.n; i++) {
		const struct worker *w = &r->wl.w[i];
		char why[160], size[32];

		if (w->end != END_EXIT && w->end != END_SIGNAL)
			continue;
		if (shown == 3) {
			more++;
			continue;
		}
		if (w->status == -1) {	/* reaped by someone else: no status */
			snprintf(why, sizeof(why), "ended with no status to read");
		} else if (w->end == END_SIGNAL) {
			snprintf(why, sizeof(why), "killed by signal %d (%s)", WTERMSIG(w->status),
				 strsignal(WTERMSIG(w->status)));
		} else if (r->wl.prog && atomic_load(&r->wl.prog[i].phase) == PHASE_ALLOC) {
			fmt_kib(size, sizeof(size),
				(int64_t)((double)r->wl.cfg.nelems * sizeof(int) / 1024));
			snprintf(why, sizeof(why), "could not allocate its %s array: exit %d", size,
				 WEXITSTATUS(w->status));
		} else {
			snprintf(why, sizeof(why), "exited with status %d", WEXITSTATUS(w->status));
		}
		fprintf(err, "thrashtop: %s %d %s\n", who, (int)w->pid, why);
		shown++;
	}
	if (more)
		fprintf(err, "thrashtop: %d more worker%s failed\n", more, more > 1 ? "s" : "");
}

void run_print(const struct run *r, enum out_format f, FILE *out, FILE *err)
{
	const struct capture *cap = r->wl.cfg.cap;
	char line[256], ksw[64], stalls[256];
	const struct timeline *tl = &r->res.tl;

	for (int i = 0; i < r->res.nvictims; i++) {
		run_oom_line(line, sizeof(line), r->res.victims[i].pid, r->res.victims[i].comm);
		fprintf(out, "%s\n", line);
	}
	if (r->res.unnamed > 0) {
		run_oom_unnamed_line(line, sizeof(line), r->res.unnamed);
		fprintf(out, "%s\n", line);
	}
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
	timefmt_stalls_lines(stalls, sizeof(stalls), &r->res.stalls);
	/* marked as the history's reports mark it */
	if (r->res.status == RUN_FAILED)
		print_failures(r, err);
	fprintf(out, "%s%s\n%s\n%s\n", line, run_status_mark(r->res.status), ksw, stalls);
	for (int i = 0; cap && i < capture_count(cap); i++) {
		capture_text(cap, i, line, sizeof(line));
		fprintf(out, "metric %s: %s\n", capture_spec_at(cap, i)->name, line);
	}
	fflush(out);
}

char *run_done_line(const struct run *r, int no, const char *cell, char *buf, size_t len)
{
	const struct capture *cap = r->wl.cfg.cap;
	char line[256], ksw[64];

	timefmt_csh(line, sizeof(line), &r->res.tl);
	timefmt_kswapd(ksw, sizeof(ksw), r->res.kswapd_s);
	size_t o = (size_t)snprintf(buf, len, "#%d %s  %s  %s%s%s", no, line, ksw,
				    run_status_name(r->res.status), cell ? "  " : "",
				    cell ? cell : "");

	/* the command's own figures, as far as they fit */
	for (int i = 0; cap && i < capture_count(cap) && o < len; i++) {
		const struct capture_result *c = capture_result_at(cap, i);

		fmt_exact(ksw, sizeof(ksw), c->value);
		o += (size_t)snprintf(buf + o, len - o, "  %s=%s", capture_spec_at(cap, i)->name,
				      c->state == CAPTURE_VALUE ? ksw : "n/a");
	}
	return buf;
}

/* ---- the record ---- */

static int64_t vm_int(const struct sysstate *sys, const char *name)
{
	const char *v = sysstate_vm(sys, name);
	char *end;
	long long n;

	if (!v || !*v)
		return NA;
	n = strtoll(v, &end, 10);
	return *end ? NA : n;
}

static char *swaps_text(const struct sysstate *sys)
{
	size_t len = 1, off = 0;
	char *buf;

	for (int i = 0; i < sys->nswaps; i++)
		len += strlen(sys->swaps[i].path) + 64;
	if (!(buf = malloc(len)))
		return NULL;
	buf[0] = '\0';
	for (int i = 0; i < sys->nswaps; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s %s %lld %lld %d\n",
					sys->swaps[i].path, sys->swaps[i].type,
					(long long)sys->swaps[i].size_kib,
					(long long)sys->swaps[i].used_kib, sys->swaps[i].prio);
	return buf;
}

static void fill_workers(struct run_record *r, const struct workload *wl)
{
	for (int i = 0; i < r->nworkers; i++) {
		const struct worker *w = &wl->w[i];
		struct run_worker *o = &r->workers[i];

		o->pid = (int)w->pid;
		o->end = w->end;
		o->signal = WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0;
		o->exit_code = WIFEXITED(w->status) ? WEXITSTATUS(w->status) : NA;
		o->user_us = (int64_t)w->ru.ru_utime.tv_sec * 1000000 + w->ru.ru_utime.tv_usec;
		o->sys_us = (int64_t)w->ru.ru_stime.tv_sec * 1000000 + w->ru.ru_stime.tv_usec;
		o->majflt = w->ru.ru_majflt;
		o->minflt = w->ru.ru_minflt;
		o->verify_errors = wl->prog ? atomic_load(&wl->prog[i].errors) : 0;
		o->first_bad = wl->prog && o->verify_errors ? atomic_load(&wl->prog[i].first_bad)
							    : NA;
		o->delays = w->delays;
	}
}

char *record_sysctls_at_start(const char *at_end, const struct run_sysctl_change *changes,
			      int nchanges)
{
	size_t cap = strlen(at_end) + 2, off = 0, most = 0;
	char *out;

	for (int i = 0; i < nchanges; i++)
		if (strlen(changes[i].old_val) > most)
			most = strlen(changes[i].old_val);
	for (const char *p = at_end; *p; p++)	/* each line may take the longest */
		cap += *p == '\n' ? most + 1 : 0;
	cap += most;
	if (!(out = malloc(cap)))
		return NULL;
	for (const char *p = at_end; *p;) {
		const char *eol = strchr(p, '\n'), *eq = strchr(p, '=');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		const char *val = NULL;

		if (eq && eq < p + n)
			for (int i = 0; i < nchanges && !val; i++)
				if (strlen(changes[i].name) == (size_t)(eq - p) &&
				    !strncmp(changes[i].name, p, (size_t)(eq - p)))
					val = changes[i].old_val;
		if (val)
			off += (size_t)sprintf(out + off, "%.*s%s\n", (int)(eq - p + 1), p, val);
		else
			off += (size_t)sprintf(out + off, "%.*s\n", (int)n, p);
		p += n + (eol ? 1 : 0);
	}
	out[off] = '\0';
	return out;
}

/* The run's reclaim summary, or every field unknown without one. */
static void record_reclaim(struct run_record *r, const struct rc_summary *s)
{
	if (!s || !s->ok)
		return;
	r->reclaim_direct_stalls = s->direct_n;
	r->reclaim_direct_s = s->direct_s;
	r->reclaim_direct_p50_ms = s->direct_p50_ms;
	r->reclaim_direct_p99_ms = s->direct_p99_ms;
	r->reclaim_direct_max_ms = s->direct_max_ms;
	r->reclaim_workload_stalls = s->workers_n;
	r->reclaim_workload_s = s->workers_s;
	r->reclaim_memcg_stalls = s->memcg_n;
	r->reclaim_memcg_s = s->memcg_s;
	r->reclaim_compact_stalls = s->compact_n;
	r->reclaim_compact_s = s->compact_s;
	r->reclaim_kswapd_wakes = s->kswapd_wakes;
	r->reclaim_kswapd_awake_s = s->kswapd_awake_s;
	r->reclaim_throttled = s->throttled;
	r->reclaim_oom = s->oom;
	r->reclaim_lost = s->lost;
}

/* The events the tracer kept of the run, and how many came after. */
static int record_events(struct run_record *r, const struct rc_acc *a)
{
	r->reclaim_events_past = a->ev_past;
	if (a->nev <= 0)
		return 0;
	if (!(r->events = calloc((size_t)a->nev, sizeof(*r->events))))
		return -1;
	for (int i = 0; i < a->nev; i++) {
		const struct rc_run_event *e = &a->ev[i];

		r->events[i].t_s = e->t;
		r->events[i].dur_s = e->dur;
		r->events[i].pid = e->pid;
		snprintf(r->events[i].kind, sizeof(r->events[i].kind), "%s", rc_event_name(e->kind));
	}
	r->nevents = a->nev;
	return 0;
}

/* The run's OOM victims, and the command's own figures as cap took them
 * (NULL: none). */
static int victims_and_own(struct run_record *r, const struct run_result *res,
			   const struct capture *cap)
{
	if (res->nvictims > 0 &&
	    !(r->victims = calloc((size_t)res->nvictims, sizeof(*r->victims))))
		return -1;
	for (int i = 0; i < res->nvictims; i++) {
		r->victims[i].pid = res->victims[i].pid;
		snprintf(r->victims[i].comm, sizeof(r->victims[i].comm), "%s", res->victims[i].comm);
	}
	r->nvictims = res->nvictims;
	r->oom_unnamed = res->unnamed;
	for (int i = 0; cap && i < capture_count(cap); i++) {
		const struct capture_spec *sp = capture_spec_at(cap, i);

		if (run_record_add_metric(r, sp->name, capture_result_at(cap, i)->value, sp->higher))
			return -1;
	}
	return 0;
}

int record_build(struct run_record *r, const struct record_input *in)
{
	const struct run_result *res = in->res;
	const struct sysstate *sys = in->sys;
	struct tm tm;

	gmtime_r(&in->started, &tm);
	strftime(r->started_at, sizeof(r->started_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(r->label, sizeof(r->label), "%s", in->label ? in->label : "");
	r->kind = in->command ? RUN_COMMAND : RUN_QSBENCH;
	if (in->command) {
		if (!(r->command = strdup(in->command)))
			return -1;
		r->procs = 1;
	} else {
		r->nelems = in->wl->cfg.nelems;
		r->procs = in->wl->cfg.procs;
		r->seed = in->wl->cfg.seed;
	}
	r->repeat_k = in->repeat_k;
	r->repeat_n = in->repeat_n;
	snprintf(r->session, sizeof(r->session), "%s", in->session ? in->session : "");
	snprintf(r->cell, sizeof(r->cell), "%s", in->cell ? in->cell : "");

	r->status = res->status;
	r->wall_us = res->tl.wall_us;
	r->user_us = res->tl.user_us;
	r->sys_us = res->tl.sys_us;
	r->cpu_pct = (double)timefmt_csh_permille(&res->tl) / 10.0;
	r->majflt = res->tl.majflt;
	r->minflt = res->tl.minflt;
	r->inblock = res->tl.inblock;
	r->oublock = res->tl.oublock;
	r->maxrss_kib = res->tl.maxrss_kib;
	r->kswapd_s = res->kswapd_s;
	r->stalls = res->stalls;
	r->swap_peak_kib = res->swap_peak_kib;
	r->mem_free_min_kib = res->free_min_kib;
	r->swap_before_kib = res->before.swap_used;
	r->swap_after_kib = res->after.swap_used;
	r->free_before = res->before;
	r->free_after = res->after;

	r->nworkers = in->wl->n;
	if (r->nworkers && !(r->workers = calloc((size_t)r->nworkers, sizeof(*r->workers))))
		return -1;
	fill_workers(r, in->wl);

	snprintf(r->kernel_release, sizeof(r->kernel_release), "%.64s", sys->release);
	snprintf(r->hostname, sizeof(r->hostname), "%.64s", sys->hostname);
	snprintf(r->place, sizeof(r->place), "%s", in->place ? in->place : "");
	snprintf(r->accel, sizeof(r->accel), "%s", in->accel ? in->accel : "");
	r->cgroup_version = sys->memcg_version > 0 ? sys->memcg_version : NA;
	if (!(r->kernel_version = strdup(sys->version)) ||
	    !(r->proc_cmdline = strdup(sys->cmdline)) ||
	    !(r->swap_devices = swaps_text(sys)))
		return -1;
	r->ncpus = sys->cpus_online;
	r->ram_kib = sys->mem_total_kib;
	r->swap_total_kib = sys->swap_total_kib;
	r->swappiness = vm_int(sys, "vm.swappiness");
	r->vfs_cache_pressure = vm_int(sys, "vm.vfs_cache_pressure");
	r->min_free_kbytes = vm_int(sys, "vm.min_free_kbytes");
	r->watermark_scale_factor = vm_int(sys, "vm.watermark_scale_factor");
	r->page_cluster = vm_int(sys, "vm.page-cluster");
	r->overcommit_memory = vm_int(sys, "vm.overcommit_memory");
	r->dirty_ratio = vm_int(sys, "vm.dirty_ratio");
	r->dirty_background_ratio = vm_int(sys, "vm.dirty_background_ratio");
	r->zswap = !strcmp(sys->zswap_enabled, "Y") ? 1 :
		   !strcmp(sys->zswap_enabled, "N") ? 0 : NA;
	r->mem_limit_kib = in->mem_limit_kib;
	r->global_limit_kib = in->global_limit_kib;
	snprintf(r->global_by, sizeof(r->global_by), "%s", in->global_by ? in->global_by : "");
	r->shared_cores = in->shared_cores;
	r->tmp_swap_kib = in->tmp_swap_kib;
	r->cgroup_new = in->cgroup_new;
	r->interval_s = in->interval_s > 0 ? in->interval_s : NAN;
	snprintf(r->swap_backend, sizeof(r->swap_backend), "%s",
		 in->swap_backend ? in->swap_backend : "");
	if (r->zswap == 1)
		snprintf(r->zswap_with, sizeof(r->zswap_with), "%.24s %.8s%%",
			 sys->zswap_compressor, sys->zswap_pool);
	else if (r->zswap == 0)
		snprintf(r->zswap_with, sizeof(r->zswap_with), "off");
	sorter_fill_text(&in->wl->cfg.fill, r->fill, sizeof(r->fill));
	r->zram_orig_kib = res->zram_orig_kib;
	r->zram_compr_kib = res->zram_compr_kib;
	r->zswap_stored_kib = res->zswap_stored_kib;
	r->zswap_pool_kib = res->zswap_pool_kib;
	r->zswpout = res->zswpout;
	r->zswpwb = res->zswpwb;
	record_reclaim(r, in->reclaim);
	if (in->reclaim_run && record_events(r, in->reclaim_run))
		return -1;
	r->hugetlb_kib = sys->hugetlb_kib;
	r->mlocked_kib = sys->mlocked_kib;
	if (in->sysctls && *in->sysctls &&
	    !(r->sysctls = record_sysctls_at_start(in->sysctls, in->changes, in->nchanges)))
		return -1;
	snprintf(r->version, sizeof(r->version), "%s", THRASHTOP_VERSION);

	if (victims_and_own(r, res, in->wl->cfg.cap))
		return -1;

	if (in->nchanges > 0) {
		r->changes = malloc(sizeof(*r->changes) * (size_t)in->nchanges);
		if (!r->changes)
			return -1;
		memcpy(r->changes, in->changes, sizeof(*r->changes) * (size_t)in->nchanges);
		r->nchanges = in->nchanges;
	}
	return in->log ? runlog_record(in->log, in->wl->t_start, r) : 0;
}
