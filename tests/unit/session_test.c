#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "session.h"

/* A place that replays recorded samples: a machine of 40 MiB booted with
 * mem=40M whose two workers run for NREC - 2 ticks. Its pids are past
 * the kernel's PID_MAX_LIMIT, so no signal can reach a real process. */
#define NREC 6
#define FAKE_PID 4194305

struct fake {
	struct place p;
	struct sys_sample rec[NREC];
	int next, queued;
	int started, closed;
};

static struct fake *F(struct place *p)
{
	return (struct fake *)p;
}

static int f_tick_fd(const struct place *p)
{
	(void)p;
	return -1;
}

static int f_take(struct place *p, struct sys_sample *x)
{
	struct fake *f = F(p);

	if (f->next >= f->queued || f->next >= NREC)
		return 0;
	*x = f->rec[f->next++];
	return 1;
}

static int f_now(struct place *p, struct sys_sample *x)
{
	struct fake *f = F(p);

	if (f->next >= NREC)
		return -1;
	*x = f->rec[f->next++];
	if (f->queued < f->next)
		f->queued = f->next;
	return 0;
}

static void f_set_interval(struct place *p, double interval)
{
	(void)p;
	(void)interval;
}

static int f_state(struct place *p, struct sysstate *st, char *err, size_t errlen)
{
	(void)p;
	(void)err;
	(void)errlen;
	memset(st, 0, sizeof(*st));
	snprintf(st->hostname, sizeof(st->hostname), "guest");
	snprintf(st->release, sizeof(st->release), "6.1.0-fake");
	snprintf(st->cmdline, sizeof(st->cmdline), "console=ttyS0 mem=40M");
	st->cpus_online = 1;
	st->mem_total_kib = 40960;
	return 0;
}

static void f_caps(const struct place *p, struct sampler_caps *c)
{
	(void)p;
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < MI_N; i++)
		c->mem[i] = true;
	for (int i = 0; i < VM_N; i++)
		c->vm[i] = true;
	c->nkswapd = 1;
	c->kswapd_ok = true;
}

static void f_zram(struct place *p, const char *name)
{
	(void)p;
	(void)name;
}

static int f_begin(struct place *p, struct run *r, const struct workload_cfg *cfg, pid_t holder,
		   char *err, size_t errlen)
{
	(void)holder;
	p->rows.ps = calloc((size_t)cfg->procs, sizeof(*p->rows.ps));
	p->rows.dl = calloc((size_t)cfg->procs, sizeof(*p->rows.dl));
	if (!p->rows.ps || !p->rows.dl)
		return snprintf(err, errlen, "out of memory"), -1;
	return run_begin(r, cfg, err, errlen);
}

static int f_fork(struct place *p, struct run *r, double until, char *err, size_t errlen)
{
	(void)p;
	(void)until;
	(void)err;
	(void)errlen;
	r->wl.n = r->wl.running = r->wl.cfg.procs;
	for (int i = 0; i < r->wl.n; i++) {
		r->wl.w[i].pid = r->wl.w[i].pgid = FAKE_PID + i;
		r->wl.w[i].end = END_RUNNING;
	}
	r->wl.t_start = now_monotonic();
	r->forking = false;
	return 1;
}

static void f_started(struct place *p, const struct run *r, const struct sys_sample *first)
{
	(void)r;
	(void)first;
	F(p)->started++;
}

/* Every worker ends together once the last tick's sample is taken: 1.5 s
 * of user time and 0.25 s of system time each. */
static void end_all(struct run *r, enum worker_end end)
{
	for (int i = 0; i < r->wl.n; i++) {
		struct worker *w = &r->wl.w[i];

		if (w->end != END_RUNNING)
			continue;
		w->end = end;
		w->ru.ru_utime.tv_sec = 1;
		w->ru.ru_utime.tv_usec = 500000;
		w->ru.ru_stime.tv_usec = 250000;
		w->t_end = now_monotonic();
		for (int k = 0; k < DL_N; k++)
			w->delays.s[k] = NAN;
	}
	r->wl.running = 0;
	r->wl.t_end = now_monotonic();
}

static int f_reap(struct place *p, struct run *r)
{
	if (F(p)->next == NREC - 1)
		end_all(r, END_OK);
	return r->wl.running;
}

static void f_stop(struct place *p, struct run *r)
{
	(void)p;
	if (r->wl.running)
		end_all(r, END_SIGNAL);
}

static int f_stalls(struct place *p, const struct run *r, struct delays *sum)
{
	(void)p;
	(void)r;
	(void)sum;
	return -1;
}

static void f_watch(struct place *p, const struct run *r, const struct place_want *w,
		    const struct sys_sample *cur)
{
	if (!w->rows || !r->active)
		return;
	for (int i = w->lo; i < w->hi && i < r->wl.n; i++)
		p->rows.ps[i] = (struct proc_sample){ .pid = r->wl.w[i].pid, .alive = true,
			.state = 'R', .majflt = cur->vm[VM_PGMAJFAULT] / 2, .minflt = 0,
			.rss_kib = 8192, .swap_kib = 0 };
}

static void f_end(struct place *p, struct run *r, const char *cgroup, struct place_end *e)
{
	(void)p;
	(void)r;
	(void)cgroup;
	memset(e, 0, sizeof(*e));
}

static void f_done(struct place *p, const struct run *r)
{
	(void)p;
	(void)r;
}

static bool f_events(struct place *p, const struct run *r, struct rc_acc *into, int64_t *n,
		     double *s)
{
	(void)p;
	(void)r;
	(void)into;
	*n = 0;
	*s = 0;
	return false;
}

static int closed;

static void f_close(struct place *p)
{
	closed++;
	free(p->rows.ps);
	free(p->rows.dl);
	free(p);
}

static const struct place_ops fake_ops = {
	.tick_fd = f_tick_fd, .take = f_take, .now = f_now, .set_interval = f_set_interval,
	.state = f_state, .caps = f_caps, .zram = f_zram, .begin = f_begin, .fork = f_fork,
	.started = f_started, .reap = f_reap, .stop = f_stop, .stalls = f_stalls,
	.watch = f_watch, .end = f_end, .done = f_done, .events = f_events, .close = f_close,
};

/* Sample i: 0.5 s apart, 50 major faults and 0.1 s of kswapd each. */
static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));
	double t0 = now_monotonic();

	f->p.ops = &fake_ops;
	snprintf(f->p.stalls_why, sizeof(f->p.stalls_why), "a fake place");
	snprintf(f->p.events_why, sizeof(f->p.events_why), "a fake place");
	for (int i = 0; i < NREC; i++) {
		struct sys_sample *x = &f->rec[i];

		x->t = t0 + 0.5 * i;
		x->mem[MI_TOTAL] = 40960;
		x->mem[MI_FREE] = 9000 - 100 * i;
		x->mem[MI_AVAIL] = 12000 - 100 * i;
		x->mem[MI_CACHED] = 2000;
		x->mem[MI_BUFFERS] = 100;
		x->mem[MI_SHARED] = 10;
		x->mem[MI_SWAP_TOTAL] = 0;
		x->mem[MI_SWAP_FREE] = 0;
		x->mem[MI_SWAP_USED] = 0;
		x->mem[MI_SWAP_CACHED] = 0;
		x->mem[MI_HUGETLB] = 0;
		x->mem[MI_MLOCKED] = 0;
		for (int k = 0; k < VM_N; k++)
			x->vm[k] = 0;
		x->vm[VM_PGFAULT] = 10000 + 1000 * i;
		x->vm[VM_PGMAJFAULT] = 1000 + 50 * i;
		x->psi_some10 = x->psi_full10 = NAN;
		x->psi_some_us = x->psi_full_us = NA;
		x->nkswapd = 1;
		x->kswapd_ns = 100000000LL * i;
		x->mem_cache_all = 2000;
		x->zswap_kib = x->zswapped_kib = NA;
		x->zram_orig_kib = x->zram_compr_kib = x->zram_mem_kib = NA;
		x->rc_p99_ms = NAN;
	}
	return f;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A session sees only what its place delivers: the run's figures, its
 * plotted rates, its rows and its stored record are the recorded
 * samples' and the place's own state, never this machine's. */
TEST(session_runs_at_a_fake_place)
{
	char dir[] = "/tmp/thrashtop-session-test-XXXXXX", db[96], err[512];
	char *argv[] = { "thrashtop", "-n", "1000", "-p", "2", "-d", "0.5", "--no-stalls",
			 "--no-events", "--history", db, "-L", "fake", NULL };
	static struct session s;
	struct options o;
	struct run_record rec;
	struct fake *f = fake_new();

	CHECK(mkdtemp(dir) != NULL);
	snprintf(db, sizeof(db), "%s/h.db", dir);
	memset(&o, 0, sizeof(o));
	CHECK_INT(cli_parse(13, argv, &o, err, sizeof(err)), 0);
	o.batch = false;	/* the monitor's session, whatever stdout is */
	closed = 0;
	if (session_open_place(&s, &o, &f->p, err, sizeof(err))) {
		t_fail(__FILE__, __LINE__, "session_open_place: %s", err);
		session_close(&s);
		return;
	}
	/* as the monitor does: the history after its first frame, every row */
	session_open_history(&s);
	CHECK(s.hist != NULL);
	s.want_procs = true;
	s.rows_shown = -1;
	CHECK_STR(s.sys.release, "6.1.0-fake");
	CHECK_INT(session_next_run(&s, err, sizeof(err)), 1);
	CHECK_INT(session_fork(&s, now_monotonic() + 1, err, sizeof(err)), 0);
	CHECK_INT(f->started, 1);
	for (int tick = 1; tick < NREC - 1; tick++) {
		f->queued++;
		CHECK_INT(session_sample(&s, err, sizeof(err)), 0);
		CHECK(!session_reap(&s) || tick == NREC - 2);
	}
	CHECK(!s.run.active);
	/* 50 faults each 0.5 s, as the place recorded them */
	CHECK_NEAR(series_last(&s.view[M_MAJFLT]), 100.0, 1e-9);
	CHECK_INT(s.run.res.sys_majflt, 50 * (NREC - 1));
	CHECK_NEAR(s.run.res.kswapd_s, 0.1 * (NREC - 1), 1e-9);
	CHECK_INT(s.place->rows.ps[1].majflt, (1000 + 50 * (NREC - 2)) / 2);
	CHECK_INT(s.ndone, 1);
	CHECK(s.ndone == 1 && !strncmp(s.done[0], "#1 3.000u 0.500s ", 17));
	CHECK(s.last_id > 0);
	run_record_init(&rec);
	if (s.hist && history_get(s.hist, s.last_id, &rec, err, sizeof(err)) == 0) {
		CHECK_STR(rec.kernel_release, "6.1.0-fake");
		CHECK_STR(rec.hostname, "guest");
		CHECK_STR(rec.proc_cmdline, "console=ttyS0 mem=40M");
		CHECK_INT(rec.ram_kib, 40960);
		CHECK_INT(rec.user_us, 3000000);
		CHECK_INT(rec.nworkers, 2);
		CHECK_STR(rec.label, "fake");
	} else {
		t_fail(__FILE__, __LINE__, "history_get: %s", err);
	}
	run_record_clear(&rec);
	session_close(&s);
	CHECK_INT(closed, 1);
	cli_free(&o);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}
