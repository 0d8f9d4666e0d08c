#include "local.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cmdout.h"
#include "prof.h"
#include "proctree.h"
#include "ticker.h"

/* A row's VmSwap is read at most this often (s): status costs twice what
 * stat does, and at 0.1 s, reading it for every row each tick took 55 rows
 * from 0.3 to 1 ms a tick. */
#define SWAP_EVERY 1.0

struct local {
	struct place p;
	bool command;
	struct sampler *smp;		/* the system and the workers' files */
	struct ticker *tick;		/* the system, on schedule */
	double interval;
	struct tracer *tracer;
	struct oomlog oomlog;
	struct procev *forks;
	struct proctree tree;
	pid_t holder;			/* the session's own process beside the run */

	/* delay accounting: NULL without */
	struct taskstats_conn *ts;
	bool acct_off;			/* off at some check of the run */
	double t_fork;			/* monotonic s before the run's first fork: no
					   worker lived longer than since then */
	/* a tick's one query of the running workers: whose, and the replies */
	pid_t *q_pid;
	int *q_at, *q_err;
	struct delays *q_dl;
	/* a command's other processes: their exit records, summed into the
	 * command's totals; NULL without (the command's own counted only) */
	struct taskstats_listener *exits;
	struct taskstats_tree *exit_tree;
	bool exits_lost;		/* records the run needed were dropped */
	pid_t *live;			/* the reaper's descendants, each look */
	struct taskstats_proc *live_at;	/* and when each began */
	int live_cap;

	double *swap_at;		/* per worker, when VmSwap was read; 0 never */
	int watch_lo, watch_hi;		/* the worker rows read last tick */
	struct cmdout out;		/* a command's output while --metric reads it */
};

static struct local *L(struct place *p)
{
	return (struct local *)p;
}

static int l_tick_fd(const struct place *p)
{
	return ticker_fd(((const struct local *)p)->tick);
}

static int l_take(struct place *p, struct sys_sample *x)
{
	return ticker_take(L(p)->tick, x);
}

static int l_now(struct place *p, struct sys_sample *x)
{
	struct local *l = L(p);

	tracer_drain(l->tracer);
	if (sampler_sys(l->smp, x))
		return -1;
	tracer_fill(l->tracer, x);
	return 0;
}

static void l_set_interval(struct place *p, double interval)
{
	L(p)->interval = interval;
	ticker_set_interval(L(p)->tick, interval);
}

static int l_state(struct place *p, struct sysstate *st, char *err, size_t errlen)
{
	bool memsw;

	(void)p;
	if (sysstate_read(st, err, errlen))
		return -1;
	st->memcg_version = cgroup_probe(&memsw);
	return 0;
}

static void l_caps(const struct place *p, struct sampler_caps *c)
{
	sampler_caps(((const struct local *)p)->smp, c);
}

static void l_zram(struct place *p, const char *name)
{
	sampler_zram(L(p)->smp, name);
	if (L(p)->tick)
		ticker_zram(L(p)->tick, name);
}

/* p's array grown to n of its elements through tmp, p kept on failure. */
#define GROW(p, n, tmp) \
	(((tmp) = realloc((p), sizeof(*(p)) * (size_t)(n))) ? ((p) = (tmp), 0) : -1)

static int l_begin(struct place *p, struct run *r, const struct workload_cfg *cfg, pid_t holder,
		   char *err, size_t errlen)
{
	struct local *l = L(p);
	struct workload_cfg c = *cfg;
	int n = cfg->procs;
	void *t;

	if (GROW(p->rows.dl, n, t) || GROW(l->q_dl, n, t) || GROW(l->q_pid, n, t) ||
	    GROW(l->q_at, n, t) || GROW(l->q_err, n, t) || GROW(p->rows.ps, n, t) ||
	    GROW(l->swap_at, n, t)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(l->swap_at, 0, sizeof(*l->swap_at) * (size_t)n);
	l->watch_lo = l->watch_hi = 0;
	/* frames drawn while the workers are forked show their rows */
	for (int i = 0; i < n; i++)
		p->rows.ps[i] = (struct proc_sample){ .alive = false, .utime_ticks = NA,
			.stime_ticks = NA, .majflt = NA, .minflt = NA, .rss_kib = NA, .swap_kib = NA };
	for (int i = 0; i < n; i++)
		delays_clear(&p->rows.dl[i]);
	l->holder = holder;
	c.ts = l->ts;
	{
		char e[256];

		/* tasks forked while it is off are never accounted */
		l->acct_off = l->ts && taskstats_acct_on(l->ts, e, sizeof(e)) != 1;
	}
	l->t_fork = now_monotonic();
	cmdout_close(&l->out);
	if (c.cap && c.argv) {
		if (cmdout_open(&l->out, c.out_fd > 0 ? c.out_fd : STDOUT_FILENO,
				c.out_fd > 0 ? c.out_fd : STDERR_FILENO, c.cap, err, errlen))
			return -1;
		c.out_fd = l->out.w[0];
		c.err_fd = l->out.w[1];
	}
	if (run_begin(r, &c, err, errlen)) {
		cmdout_close(&l->out);
		return -1;
	}
	return 0;
}

/* The exit records waiting, settled into the command's tree against its
 * processes alive now (every descendant of ours: a command's orphans come
 * to us); outside a run they are read only to keep the socket from
 * filling. last: the run's end, all of it reaped. */
static void settle_exits(struct local *l, const struct run *r, bool last)
{
	struct taskstats_exit e[256];
	bool run = r->active && !r->forking, lost = false;
	int n, nlive, nat = 0;

	if (!l->exits)
		return;
	do {
		n = taskstats_listen_read(l->exits, e, 256, &lost);
		if (run && taskstats_tree_feed(l->exit_tree, e, n) < 0)
			lost = true;
	} while (n == 256);
	if (!run)
		return;
	/* nothing to settle: the round only forgets the last one's, and the
	 * walk of /proc for the living would cost the tick most of its time */
	if (!last && taskstats_tree_idle(l->exit_tree)) {
		if (taskstats_tree_round(l->exit_tree, NULL, 0, false) < 0 || lost)
			l->exits_lost = true;
		return;
	}
	while ((nlive = sampler_descendants(l->smp, getpid(), l->live, l->live_cap)) > l->live_cap) {
		pid_t *pp = realloc(l->live, sizeof(*pp) * (size_t)nlive);
		struct taskstats_proc *q = pp ? realloc(l->live_at, sizeof(*q) * (size_t)nlive) : NULL;

		if (pp)
			l->live = pp;
		if (!q)
			break;
		l->live_at = q;
		l->live_cap = nlive;
	}
	if (nlive < 0 || nlive > l->live_cap) {
		l->exits_lost = true;
		return;
	}
	/* one gone meanwhile is known by its record */
	for (int i = 0; i < nlive; i++) {
		double st = proctree_started(l->live[i], CLOCK_REALTIME);

		if (!isnan(st)) {
			l->live_at[nat].start = (long long)floor(st);
			l->live_at[nat++].pid = l->live[i];
		}
	}
	if (taskstats_tree_round(l->exit_tree, l->live_at, nat, last) < 0)
		lost = true;
	l->exits_lost = l->exits_lost || lost;
}

static int l_fork(struct place *p, struct run *r, double until, char *err, size_t errlen)
{
	struct local *l = L(p);
	int rc;

	/* the exit records of before the command are not its tree's */
	settle_exits(l, r, false);
	rc = run_fork(r, until, err, errlen);
	if (rc < 0)
		cmdout_close(&l->out);
	if (rc <= 0)
		return rc;
	cmdout_forked(&l->out);
	if (l->exits) {
		/* forked just now: a record of a child of its pid's last
		 * owner began before it */
		struct taskstats_proc root = { r->wl.w[0].pid, (long long)time(NULL) };

		taskstats_tree_begin(l->exit_tree, root, getpid(), l->holder);
		l->exits_lost = false;
	}
	for (int i = 0; i < r->wl.n; i++) {
		struct proc_sample *ps = &p->rows.ps[i];

		ps->pid = r->wl.w[i].pid;
		ps->alive = true;
		ps->state = 0;
		ps->utime_ticks = ps->stime_ticks = 0;
		ps->rss_kib = ps->swap_kib = ps->majflt = ps->minflt = NA;
	}
	return 1;
}

static void l_started(struct place *p, const struct run *r, const struct sys_sample *first)
{
	struct local *l = L(p);

	/* kills before the start were not the run's */
	oomlog_read(&l->oomlog, NULL, 0);
	proctree_begin(&l->tree, l->command ? r->wl.w[0].pid : 0);
	tracer_run_begin(l->tracer, first->t);
}

static int l_reap(struct place *p, struct run *r)
{
	(void)p;
	return workload_reap(&r->wl);
}

static void l_stop(struct place *p, struct run *r)
{
	(void)p;
	workload_stop(&r->wl);
}

static int l_stalls(struct place *p, const struct run *r, struct delays *sum)
{
	struct local *l = L(p);
	const struct workload *wl = &r->wl;
	bool bad[DL_N] = { false };
	double life = now_monotonic() - l->t_fork + TASKSTATS_LIFE_SLACK;
	struct prof_mark pm;
	char err[256];
	int n = 0, rc;

	if (!l->ts)
		return -1;
	delays_clear(sum);
	for (int i = 0; i < wl->n; i++) {
		if (wl->w[i].end != END_RUNNING) {
			delays_add(sum, &wl->w[i].delays);
			continue;
		}
		l->q_at[n] = i;
		l->q_pid[n++] = wl->w[i].pid;
	}
	prof_begin(&pm);
	rc = taskstats_query_many(l->ts, l->q_pid, n, l->q_dl, l->q_err, err, sizeof(err));
	prof_end(PROF_STALLS, &pm);
	if (rc < 0)
		return 0;
	for (int j = 0; j < n; j++) {
		struct delays *d = &l->q_dl[j];

		if (l->q_err[j])
			return 0;	/* exited meanwhile: its totals come with its reaping */
		/* A sorter has one thread, whose delays fit in its life: this
		 * kernel now and then gives a task its whole uptime as block
		 * I/O delay. A command's threads may wait at once, and add up
		 * past its wall time. */
		if (!l->command)
			for (int k = 0; k < DL_N; k++)
				if (d->s[k] > life)
					d->s[k] = NAN, bad[k] = true;
		p->rows.dl[l->q_at[j]] = *d;	/* the rows' stall columns */
		delays_add(sum, d);
	}
	for (int k = 0; k < DL_N; k++)	/* the others' sum alone would be short */
		if (bad[k])
			sum->s[k] = NAN;
	return 1;
}

/* The worker rows on screen; the others give their files back. */
static void read_rows(struct local *l, const struct run *r, int lo, int hi, bool swap, double t)
{
	int per = (int)ceil(SWAP_EVERY / l->interval - 1e-9);
	struct prof_mark pm;

	prof_begin(&pm);
	lo = lo < 0 ? 0 : lo;
	/* rows scrolled off give their files back: paging through 1,024
	 * workers kept up to 2,048 open, past the usual soft limit of 1,024 */
	for (int i = l->watch_lo; i < l->watch_hi && i < r->wl.n; i++)
		if (i < lo || i >= hi) {
			sampler_unwatch(l->smp, r->wl.w[i].pid);
			l->swap_at[i] = 0;
		}
	l->watch_lo = lo;
	l->watch_hi = hi;
	for (int i = lo; i < hi && i < r->wl.n; i++) {
		struct proc_sample *ps = &l->p.rows.ps[i];
		bool first = l->swap_at[i] == 0;
		bool due = swap && (first || t - l->swap_at[i] >= SWAP_EVERY - 1e-6);
		int64_t was = ps->swap_kib;

		if (r->wl.w[i].end != END_RUNNING)
			continue;
		sampler_proc(l->smp, r->wl.w[i].pid, due, ps);
		if (!swap && ps->alive)
			ps->swap_kib = 0;
		else if (!due && ps->alive)
			ps->swap_kib = was;
		if (due)	/* rows first read together are due on different ticks */
			l->swap_at[i] = first && per > 1 ? t - SWAP_EVERY * (i % per) / per : t;
	}
	prof_end(PROF_WORKERS, &pm);
}

static void l_watch(struct place *p, const struct run *r, const struct place_want *w,
		    const struct sys_sample *cur)
{
	struct local *l = L(p);
	bool run = r->active && !r->forking;
	/* status only while anything is swapped: else every VmSwap is 0 */
	bool swap = cur->mem[MI_SWAP_USED] != 0;
	char e[256];

	if (w->tick) {
		/* every pid of the command's tree joins the run's seen ones,
		 * so that a kill the log names later is known as the run's */
		if (l->command && run)
			proctree_note(&l->tree, l->smp, l->forks, r->wl.w[0].end == END_RUNNING);
		else
			l->tree.scan_fresh = false;
		settle_exits(l, r, false);
		/* delay accounting off at a tick of the run: switched back on,
		 * it adds the kernel's uptime to a delay that was under way */
		if (l->ts && run && !l->acct_off)
			l->acct_off = taskstats_acct_on(l->ts, e, sizeof(e)) != 1;
	}
	if (!w->rows || !run) {
		if (w->tick)
			proctree_untrack(&p->rows.tree, l->smp);
		return;
	}
	read_rows(l, r, w->lo, w->hi, swap, cur->t);
	if (w->tick)
		proctree_rows(&l->tree, &p->rows.tree, l->smp,
			      l->command && r->wl.w[0].end == END_RUNNING ? &r->wl : NULL, cur->t,
			      swap, SWAP_EVERY);
}

/* The kills the log named since its last read that were the run's: of
 * its cgroup, of a worker, or of a pid seen in the command's tree. */
static int run_kills(struct local *l, const struct run *r, const char *cgroup,
		     struct oom_kill *k, int max)
{
	struct oom_kill all[64];	/* other work's kills are read too */
	int n = oomlog_read(&l->oomlog, all, 64), m = 0;

	proctree_forks(&l->tree, l->forks);
	for (int i = 0; i < n && m < max; i++) {
		bool ours = cgroup && oomlog_in_cgroup(&all[i], cgroup);

		for (int j = 0; !ours && j < r->wl.n; j++)
			ours = r->wl.w[j].pid == all[i].pid;
		ours = ours || proctree_seen(&l->tree, all[i].pid);
		if (ours)
			k[m++] = all[i];
	}
	return m;
}

/* A command's totals become its whole tree's: its other processes' are
 * added to its own; none when records it needed were lost. */
static void add_tree(struct local *l, struct run *r, struct place_end *e)
{
	struct worker *w = &r->wl.w[0];
	bool past[DL_N];
	struct delays sum;

	if (!l->exits || !r->wl.n || r->forking)
		return;
	settle_exits(l, r, true);
	if (!taskstats_tree_sum(l->exit_tree, &sum, past) || l->exits_lost) {
		delays_clear(&w->delays);
		e->tree_lost = true;
		return;
	}
	/* the command's unknown stays unknown: the tree alone is short */
	for (int k = 0; k < DL_N; k++)
		if (past[k] && !w->delays_past[k]) {
			w->delays.s[k] = NAN;
			e->tree_past[k] = true;
		} else if (!isnan(sum.s[k])) {
			w->delays.s[k] += sum.s[k];
		}
}

static void l_end(struct place *p, struct run *r, const char *cgroup, struct place_end *e)
{
	struct local *l = L(p);
	char err[256];

	memset(e, 0, sizeof(*e));
	/* what the command wrote last, read before its figures are taken */
	cmdout_close(&l->out);
	if (l->command && r->active && !r->forking)
		proctree_note(&l->tree, l->smp, l->forks, r->wl.w[0].end == END_RUNNING);
	e->nkills = run_kills(l, r, cgroup, e->kills, RUN_VICTIMS_MAX);
	add_tree(l, r, e);
	/* Another process (a session that turned it on, then ended) may
	 * have turned delay accounting off. */
	e->acct_off = l->ts && (l->acct_off || taskstats_acct_on(l->ts, err, sizeof(err)) != 1);
}

static void l_done(struct place *p, const struct run *r)
{
	struct local *l = L(p);

	for (int i = 0; i < r->wl.n; i++)
		sampler_unwatch(l->smp, r->wl.w[i].pid);
	proctree_untrack(&p->rows.tree, l->smp);
}

static bool l_events(struct place *p, const struct run *r, struct rc_acc *into, int64_t *n,
		     double *s)
{
	struct local *l = L(p);

	*n = 0;
	*s = 0;
	if (!l->tracer)
		return false;
	tracer_run_copy(l->tracer, into);
	rc_run_end(into, (uint64_t)(r->res.last.t * 1e9));
	/* the workers, and every process of a command's tree seen */
	for (int i = 0; i < r->wl.n + l->tree.nseen; i++) {
		pid_t pid = i < r->wl.n ? r->wl.w[i].pid : l->tree.seen[i - r->wl.n];
		bool twice = false;
		int64_t k, ns;

		for (int j = 0; j < r->wl.n && i >= r->wl.n; j++)
			twice = twice || r->wl.w[j].pid == pid;
		if (!twice && rc_pid_stalls(into, pid, &k, &ns) == 0) {
			*n += k;
			*s += (double)ns / 1e9;
		}
	}
	return true;
}

static void l_close(struct place *p)
{
	struct local *l = L(p);
	char err[512];

	cmdout_close(&l->out);
	ticker_stop(l->tick);
	if (tracer_close(l->tracer, err, sizeof(err)) < 0)
		fprintf(stderr, "thrashtop: could not undo: %s\n", err);
	taskstats_listen_close(l->exits);
	taskstats_tree_free(l->exit_tree);
	free(l->live);
	free(l->live_at);
	taskstats_close(l->ts);
	if (l->smp)
		proctree_untrack(&p->rows.tree, l->smp);
	oomlog_close(&l->oomlog);
	procev_close(l->forks);
	free(p->rows.ps);
	free(p->rows.dl);
	free(l->swap_at);
	free(l->q_dl);
	free(l->q_pid);
	free(l->q_at);
	free(l->q_err);
	if (l->smp)
		sampler_free(l->smp);
	free(l);
}

static const struct place_ops local_ops = {
	.tick_fd = l_tick_fd,
	.take = l_take,
	.now = l_now,
	.set_interval = l_set_interval,
	.state = l_state,
	.caps = l_caps,
	.zram = l_zram,
	.begin = l_begin,
	.fork = l_fork,
	.started = l_started,
	.reap = l_reap,
	.stop = l_stop,
	.stalls = l_stalls,
	.watch = l_watch,
	.end = l_end,
	.done = l_done,
	.events = l_events,
	.close = l_close,
};

struct place *local_open(bool command, char *err, size_t errlen)
{
	struct local *l = calloc(1, sizeof(*l));
	char why[256];

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->p.ops = &local_ops;
	l->command = command;
	cmdout_init(&l->out);
	oomlog_open(&l->oomlog);
	/* a victim the log names is matched to a command's run by its pid;
	 * without forks reported, by the ticks' scans alone */
	if (command && l->oomlog.fd >= 0)
		l->forks = procev_open(why, sizeof(why));
	if (!(l->smp = sampler_new(err, errlen))) {
		l_close(&l->p);
		return NULL;
	}
	return &l->p;
}

int local_delays(struct place *p, bool command, char *note, size_t notelen)
{
	struct local *l = L(p);
	char err[512];

	if (!(l->ts = taskstats_open(err, sizeof(err)))) {
		snprintf(p->stalls_why, sizeof(p->stalls_why), "%.250s", err);
		return -1;
	}
	p->stalls_on = true;
	if (!command)
		return 0;
	l->live_cap = 64;
	if (!(l->exits = taskstats_listen(l->ts, err, sizeof(err))) ||
	    !(l->exit_tree = taskstats_tree_new()) ||
	    !(l->live = malloc(sizeof(*l->live) * (size_t)l->live_cap)) ||
	    !(l->live_at = malloc(sizeof(*l->live_at) * (size_t)l->live_cap))) {
		if (l->exits)
			snprintf(err, sizeof(err), "%s", strerror(ENOMEM));
		snprintf(note, notelen, "%s", err);
		taskstats_listen_close(l->exits);
		l->exits = NULL;
		taskstats_tree_free(l->exit_tree);
		l->exit_tree = NULL;
		return 1;
	}
	return 0;
}

int local_start(struct place *p, double interval, const char *zram, bool events, char *err,
		size_t errlen)
{
	struct local *l = L(p);

	l->interval = interval;
	if (!(l->tick = ticker_start(interval, err, errlen)))
		return -1;
	if (zram)
		ticker_zram(l->tick, zram);
	if (events && (l->tracer = tracer_open(p->events_why, sizeof(p->events_why))))
		ticker_tracer(l->tick, l->tracer);
	p->events_on = l->tracer != NULL;
	return 0;
}
