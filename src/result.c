#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "result.h"

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

void result_begin(struct run_result *r, const struct sys_sample *s)
{
	memset(r, 0, sizeof(*r));
	r->first = r->last = *s;
	r->swap_peak_kib = r->free_min_kib = r->avail_min_kib = NA;
	r->kswapd_s = NAN;
	mem_snapshot_from(s, &r->before);
	result_observe(r, s);
}

void result_observe(struct run_result *r, const struct sys_sample *s)
{
	int64_t swap = s->mem[MI_SWAP_USED];

	if (swap != NA && s->mem[MI_SWAP_TOTAL] > 0 &&
	    (r->swap_peak_kib == NA || swap > r->swap_peak_kib))
		r->swap_peak_kib = swap;
	lower(&r->free_min_kib, s->mem[MI_FREE]);
	lower(&r->avail_min_kib, s->mem[MI_AVAIL]);
	r->last = *s;
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

void result_finish(struct run_result *r, struct workload *wl,
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

/* The one table of run status names: as stored, exported and printed in
 * result lines, and as the screens title them. */
static const struct { const char *name, *title; } statuses[] = {
	[RUN_OK] = { "ok", "ok" },
	[RUN_FAILED] = { "failed", "failed" },
	[RUN_OOM] = { "oom", "OOM" },
	[RUN_ABORTED] = { "aborted", "aborted" },
};
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

const char *run_status_name(enum run_status st)
{
	return (unsigned)st < NSTATUS ? statuses[st].name : "?";
}

const char *run_status_title(enum run_status st)
{
	return (unsigned)st < NSTATUS ? statuses[st].title : "?";
}

int run_status_parse(const char *s, enum run_status *out)
{
	for (unsigned i = 0; i < NSTATUS; i++)
		if (!strcmp(s, statuses[i].name)) {
			*out = (enum run_status)i;
			return 0;
		}
	return -1;
}
