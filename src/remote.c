#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "loop.h"
#include "stream.h"
#include "sysctl.h"
#include "version.h"
#include "wire.h"

#define SEND_WAIT_S 5.0		/* for a request to be written */
#define STOP_WAIT_S 30.0	/* for an aborted run's end */
#define END_WAIT_S 3.0		/* for on_end to say why the stream ended */
#define CLOSE_WAIT_S 10.0	/* for a spawned agent to undo and exit, each step */

/* A sample and what came with it. */
struct rtick {
	struct sys_sample x;
	bool have_cg;
	struct cgroup_stat cg;
	int stalls_rc;		/* as the stalls op: 1, 0, -1 */
	struct delays sum;
};

struct remote {
	struct place p;
	int fd;
	pid_t child;			/* remote_spawn's command, 0 none */
	void (*on_close)(void *);	/* what else goes with the place */
	void *on_close_arg;
	bool (*on_end)(void *, char *, size_t, bool);	/* says why the stream ended */
	void *on_end_arg;
	int end_timer;			/* a timerfd beating while on_end waits */
	double gone_at;
	struct stream_in in;
	struct stream_out out;
	struct stream_msg m;
	struct stream_line l;
	double offset;			/* this machine's monotonic minus the agent's */
	bool hello, ready, gone;
	char why[sizeof(((struct place *)0)->ended)];	/* the agent's last failure */

	struct sysstate st;
	struct sampler_caps caps;
	char *tuned;			/* the last tuned line, as sent */
	char sysctls[TUNING_MAX_SYSCTL * 128];
	/* a sysctl request's answer: rc as the op's, 2 while none came */
	int knob_rc;
	char knob_old[SYSCTL_VALUE_MAX], knob_new[SYSCTL_VALUE_MAX], knob_err[300];

	struct rtick *q;		/* samples not yet taken, oldest first */
	int qn, qcap;
	struct rtick pend, last;	/* the one arriving; the last taken */
	bool have_last;

	/* the run */
	int n;
	bool started, ended, failed;
	double t_start;
	pid_t *pid;
	struct worker *w;
	struct wire_prog *prog;
	struct sys_sample now_x;	/* the newest start or end sample */
	bool have_now;
	struct oom_kill kills[RUN_VICTIMS_MAX];
	int nkills;
	struct place_end end;
	int left;
	int out_fd;			/* where a command's output goes */
	struct capture *cap;		/* and where it is matched, NULL: nowhere */
	struct rc_acc *rc;		/* the run's reclaim events, once rcrun came */
	bool have_rc;
	int64_t rc_n;			/* its processes' direct stalls */
	double rc_s;
	struct place_want sent;		/* the rows asked for last */
};

static struct remote *R(struct place *p)
{
	return (struct remote *)p;
}

/* Queues the message in m and writes, waiting a little: requests are
 * small, and the agent reads them on every turn. */
static void send_msg(struct remote *rm)
{
	double end = now_monotonic() + SEND_WAIT_S;

	if (rm->gone || stream_msg_end(&rm->m) || stream_out_put(&rm->out, rm->m.buf,
								 rm->m.len, false) < 0)
		return;
	while (stream_out_flush(&rm->out, rm->fd) > 0 && now_monotonic() < end) {
		struct pollfd pfd = { rm->fd, POLLOUT, 0 };

		poll(&pfd, 1, 100);
	}
}

static void push_tick(struct remote *rm)
{
	if (rm->qn == rm->qcap) {
		int c = rm->qcap ? 2 * rm->qcap : 16;
		struct rtick *q = realloc(rm->q, sizeof(*q) * (size_t)c);

		if (!q)
			return;
		rm->q = q;
		rm->qcap = c;
	}
	rm->q[rm->qn++] = rm->pend;
	rm->pend.have_cg = false;
	rm->pend.stalls_rc = 0;
}

static void on_clock(struct remote *rm, struct sys_sample *x)
{
	x->t += rm->offset;
	if (x->rc.oom_last_ns)
		x->rc.oom_last_ns += (uint64_t)(int64_t)(rm->offset * 1e9);
}

static void row(struct remote *rm)
{
	int i = (int)stream_get_i64(&rm->l, "i", -1);

	if (i < 0 || i >= rm->n || !rm->p.rows.ps)
		return;
	wire_get_proc(&rm->l, "", &rm->p.rows.ps[i]);
	wire_get_delays(&rm->l, "dl.", &rm->p.rows.dl[i]);
}

static void prog(struct remote *rm)
{
	char k[32];

	for (int i = 0; i < rm->n && rm->prog; i++) {
		struct wire_prog *g = &rm->prog[i];

		snprintf(k, sizeof(k), "ph.%d", i);
		g->phase = (int)stream_get_i64(&rm->l, k, g->phase);
		snprintf(k, sizeof(k), "d.%d", i);
		g->done = (long)stream_get_i64(&rm->l, k, g->done);
		snprintf(k, sizeof(k), "e.%d", i);
		g->errors = (long)stream_get_i64(&rm->l, k, g->errors);
		snprintf(k, sizeof(k), "fb.%d", i);
		g->first_bad = (long)stream_get_i64(&rm->l, k, g->first_bad);
	}
}

static void started(struct remote *rm)
{
	char k[32];

	rm->t_start = stream_get_dbl(&rm->l, "t_start") + rm->offset;
	for (int i = 0; i < rm->n; i++) {
		snprintf(k, sizeof(k), "pid.%d", i);
		rm->pid[i] = (pid_t)stream_get_i64(&rm->l, k, 0);
	}
	rm->started = true;
}

static void reaped(struct remote *rm)
{
	int i = (int)stream_get_i64(&rm->l, "i", -1);

	if (i < 0 || i >= rm->n)
		return;
	wire_get_worker(&rm->l, &rm->w[i]);
	rm->w[i].t_end += rm->offset;
}

static void copy_str(struct remote *rm, const char *key, char *buf, size_t len)
{
	const char *v = stream_get(&rm->l, key);

	snprintf(buf, len, "%s", v ? v : "");
}

static void knob_answer(struct remote *rm)
{
	rm->knob_rc = (int)stream_get_i64(&rm->l, "rc", -1);
	if (rm->knob_rc < -1 || rm->knob_rc > 1)
		rm->knob_rc = -1;
	copy_str(rm, "old", rm->knob_old, sizeof(rm->knob_old));
	copy_str(rm, "new", rm->knob_new, sizeof(rm->knob_new));
	copy_str(rm, "msg", rm->knob_err, sizeof(rm->knob_err));
}

static void ready(struct remote *rm)
{
	struct place *p = &rm->p;
	const char *v;

	rm->offset = now_monotonic() - stream_get_dbl(&rm->l, "t");
	if (rm->offset != rm->offset)
		rm->offset = 0;
	p->nelems = (long)stream_get_i64(&rm->l, "nelems", 0);
	p->procs = (int)stream_get_i64(&rm->l, "procs", 0);
	p->stalls_on = stream_get_i64(&rm->l, "stalls_on", 0) != 0;
	v = stream_get(&rm->l, "stalls_why");
	snprintf(p->stalls_why, sizeof(p->stalls_why), "%s", v ? v : "");
	p->events_on = stream_get_i64(&rm->l, "events_on", 0) != 0;
	v = stream_get(&rm->l, "events_why");
	snprintf(p->events_why, sizeof(p->events_why), "%s", v ? v : "");
	rm->ready = true;
}

/* One line of the agent's; raw is its text before parsing. */
static void handle(struct remote *rm, const char *raw)
{
	const char *tag = rm->l.tag, *v;

	if (!strcmp(tag, "tick")) {
		wire_get_sys(&rm->l, "", &rm->pend.x);
		on_clock(rm, &rm->pend.x);
		push_tick(rm);
	} else if (!strcmp(tag, "cg")) {
		rm->pend.have_cg = true;
		wire_get_cgroup(&rm->l, "", &rm->pend.cg);
	} else if (!strcmp(tag, "stalls")) {
		rm->pend.stalls_rc = (int)stream_get_i64(&rm->l, "rc", -1);
		wire_get_delays(&rm->l, "", &rm->pend.sum);
	} else if (!strcmp(tag, "row")) {
		row(rm);
	} else if (!strcmp(tag, "prog")) {
		prog(rm);
	} else if (!strcmp(tag, "now")) {
		wire_get_sys(&rm->l, "", &rm->now_x);
		on_clock(rm, &rm->now_x);
		rm->have_now = true;
	} else if (!strcmp(tag, "started")) {
		started(rm);
	} else if (!strcmp(tag, "reaped")) {
		reaped(rm);
	} else if (!strcmp(tag, "rcrun") && (rm->rc || (rm->rc = malloc(sizeof(*rm->rc))))) {
		wire_get_rcrun(&rm->l, rm->rc, &rm->rc_n, &rm->rc_s);
		rm->have_rc = true;
	} else if (!strcmp(tag, "rcev") && rm->have_rc) {
		wire_get_rcev(&rm->l, rm->rc);
	} else if (!strcmp(tag, "kill") && rm->nkills < RUN_VICTIMS_MAX) {
		wire_get_kill(&rm->l, "", &rm->kills[rm->nkills++]);
	} else if (!strcmp(tag, "end")) {
		wire_get_end(&rm->l, &rm->end);
		rm->end.nkills = rm->nkills;
		memcpy(rm->end.kills, rm->kills, sizeof(rm->kills));
		rm->left = (int)stream_get_i64(&rm->l, "left", 0);
		rm->ended = true;
		rm->p.ends_waiting = true;
	} else if (!strcmp(tag, "failed")) {
		v = stream_get(&rm->l, "msg");
		snprintf(rm->why, sizeof(rm->why), "%s", v ? v : "failed");
		rm->failed = true;
	} else if (!strcmp(tag, "out")) {
		/* the agent sends both streams as one */
		for (int i = 0; i < rm->l.n; i++) {
			if (strcmp(rm->l.kv[i].key, "data"))
				continue;
			if (rm->cap)
				capture_feed(rm->cap, 0, rm->l.kv[i].val, rm->l.kv[i].len);
			if (write(rm->out_fd, rm->l.kv[i].val, rm->l.kv[i].len) < 0)
				break;
		}
	} else if (!strcmp(tag, "drops")) {
		rm->p.drops = stream_get_i64(&rm->l, "n", rm->p.drops);
	} else if (!strcmp(tag, "state")) {
		wire_get_state(&rm->l, &rm->st);
	} else if (!strcmp(tag, "caps")) {
		wire_get_caps(&rm->l, "", &rm->caps);
	} else if (!strcmp(tag, "tuned")) {
		v = stream_get(&rm->l, "sysctls");
		snprintf(rm->sysctls, sizeof(rm->sysctls), "%s", v ? v : "");
		free(rm->tuned);
		rm->tuned = strdup(raw);
		rm->p.tuned_n++;
	} else if (!strcmp(tag, "sysctl")) {
		knob_answer(rm);
	} else if (!strcmp(tag, "ready")) {
		ready(rm);
	}
}

/* The stream's end under a ready place, said in its ended once on_end
 * can say why (the ssh or qemu behind it may take a moment to end): until
 * then a timerfd stands for the stream in the loop, which nothing waits
 * on. true once said. */
static bool say_end(struct remote *rm)
{
	bool last;

	if (rm->gone_at == 0) {
		struct itimerspec beat = { { 0, 50000000 }, { 0, 50000000 } };

		rm->gone_at = now_monotonic();
		rm->end_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (rm->end_timer >= 0)
			timerfd_settime(rm->end_timer, 0, &beat, NULL);
	}
	if (rm->end_timer >= 0) {
		uint64_t n;

		(void)!read(rm->end_timer, &n, sizeof(n));
	}
	last = rm->end_timer < 0 || now_monotonic() - rm->gone_at >= END_WAIT_S;
	if (rm->on_end && !rm->on_end(rm->on_end_arg, rm->why, sizeof(rm->why), last))
		return false;
	snprintf(rm->p.ended, sizeof(rm->p.ended), "%s%.500s", rm->on_end ? "" : "agent: ",
		 rm->why);
	if (rm->end_timer >= 0)
		close(rm->end_timer);
	rm->end_timer = -1;
	return true;
}

/* What the agent sent, all of it. 0, or -1 once the stream has ended or
 * went wrong (why says how); 0 still while its end is being said. */
static int pump(struct remote *rm)
{
	char *line, raw[STREAM_LINE_MAX];
	ssize_t n;

	while (!rm->gone) {
		n = stream_in_read(&rm->in, rm->fd);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			snprintf(rm->why, sizeof(rm->why), "the stream: %s", strerror(errno));
			rm->gone = true;
		}
		while ((line = stream_in_next(&rm->in))) {
			size_t len = strlen(line);

			memcpy(raw, line, len + 1);
			if (stream_parse(line, &rm->l) < 0)
				continue;
			if (!rm->hello) {
				if (stream_hello_check(&rm->l, THRASHTOP_VERSION, "agent", rm->why,
						       sizeof(rm->why)) < 0) {
					rm->gone = true;
					break;
				}
				rm->hello = true;
				continue;
			}
			handle(rm, raw);
		}
		if (errno == EMSGSIZE) {
			snprintf(rm->why, sizeof(rm->why), "the agent sent a line over %d bytes",
				 STREAM_LINE_MAX);
			rm->gone = true;
		}
		if (n == 0 && !rm->gone) {
			if (!rm->why[0])
				snprintf(rm->why, sizeof(rm->why), "the agent's stream ended");
			rm->gone = true;
		}
		if (n <= 0)
			break;
	}
	if (rm->gone && rm->ready && !rm->p.ended[0] && !say_end(rm))
		return 0;
	return rm->gone ? -1 : 0;
}

/* Pumps until done says so, the stream ends or timeout s pass. */
static bool wait_for(struct remote *rm, bool (*done)(const struct remote *), double timeout)
{
	const volatile sig_atomic_t *stop = loop_stop_flag();
	double end = now_monotonic() + timeout;

	loop_let_end(true);
	while (pump(rm) == 0 && !rm->gone && !done(rm) && !*stop) {
		struct pollfd pfd = { rm->fd, POLLIN, 0 };
		double left = end - now_monotonic();

		if (left <= 0)
			break;
		poll(&pfd, 1, (int)(left * 1000) + 1);
	}
	loop_let_end(false);
	if (*stop && !done(rm))
		snprintf(rm->why, sizeof(rm->why), "stopped by a signal while waiting");
	return done(rm);
}

static int r_tick_fd(const struct place *p)
{
	const struct remote *rm = (const struct remote *)p;

	return rm->end_timer >= 0 ? rm->end_timer : rm->fd;
}

static int r_take(struct place *p, struct sys_sample *x)
{
	struct remote *rm = R(p);

	if (!rm->qn && pump(rm) < 0 && !rm->qn) {
		errno = ECONNRESET;
		return -1;
	}
	if (!rm->qn)
		return 0;
	rm->last = rm->q[0];
	rm->have_last = true;
	memmove(rm->q, rm->q + 1, sizeof(*rm->q) * (size_t)--rm->qn);
	*x = rm->last.x;
	return 1;
}

static int r_now(struct place *p, struct sys_sample *x)
{
	struct remote *rm = R(p);

	pump(rm);
	if (rm->have_now)
		*x = rm->now_x;
	else if (rm->have_last)
		*x = rm->last.x;
	else
		return errno = ENODATA, -1;
	return 0;
}

static void r_set_interval(struct place *p, double interval)
{
	struct remote *rm = R(p);

	stream_msg_begin(&rm->m, "interval");
	stream_put_dbl(&rm->m, "s", interval);
	send_msg(rm);
}

static int r_state(struct place *p, struct sysstate *st, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	*st = R(p)->st;
	return 0;
}

static void r_caps(const struct place *p, struct sampler_caps *c)
{
	*c = ((const struct remote *)p)->caps;
}

static void r_zram(struct place *p, const char *name)
{
	(void)p;
	(void)name;	/* the agent watches the device it made */
}

#define GROW(p, n, tmp) \
	(((tmp) = realloc((p), sizeof(*(p)) * (size_t)(n))) ? ((p) = (tmp), 0) : -1)

static int r_begin(struct place *p, struct run *r, const struct workload_cfg *cfg, pid_t holder,
		   char *err, size_t errlen)
{
	struct remote *rm = R(p);
	int n = cfg->procs;
	void *t;

	(void)holder;
	if (rm->gone)
		return snprintf(err, errlen, "agent: %s", rm->why), -1;
	if (GROW(p->rows.ps, n, t) || GROW(p->rows.dl, n, t) || GROW(rm->pid, n, t) ||
	    GROW(rm->w, n, t) || GROW(rm->prog, n, t))
		return snprintf(err, errlen, "out of memory"), -1;
	for (int i = 0; i < n; i++) {
		p->rows.ps[i] = (struct proc_sample){ .alive = false, .utime_ticks = NA,
			.stime_ticks = NA, .majflt = NA, .minflt = NA, .rss_kib = NA, .swap_kib = NA };
		delays_clear(&p->rows.dl[i]);
		memset(&rm->w[i], 0, sizeof(rm->w[i]));
		rm->prog[i] = (struct wire_prog){ 0, 0, cfg->nelems, 0, -1 };
	}
	rm->n = n;
	rm->started = rm->ended = rm->failed = rm->have_now = rm->have_rc = false;
	rm->nkills = 0;
	rm->left = 0;
	rm->out_fd = cfg->out_fd > 0 ? cfg->out_fd : STDOUT_FILENO;
	rm->cap = cfg->argv ? cfg->cap : NULL;
	memset(&rm->sent, 0, sizeof(rm->sent));
	stream_msg_begin(&rm->m, "begin");
	wire_put_cfg(&rm->m, cfg);
	send_msg(rm);
	/* the run's tables here: its workers are the agent's */
	return run_begin(r, cfg, err, errlen);
}

static bool is_started(const struct remote *rm)
{
	return rm->started || rm->failed || rm->ended;
}

static int r_fork(struct place *p, struct run *r, double until, char *err, size_t errlen)
{
	struct remote *rm = R(p);

	wait_for(rm, is_started, until - now_monotonic());
	if (rm->failed || rm->gone || (rm->ended && !rm->started)) {
		snprintf(err, errlen, "agent: %s", rm->why[0] ? rm->why : "the run ended");
		r->active = r->forking = false;
		return -1;
	}
	if (!rm->started)
		return 0;
	/* Never a running worker here: nothing of this machine's is one,
	 * and nothing here may signal or wait for the agent's pids. */
	r->wl.n = rm->n;
	r->wl.running = 0;
	r->wl.t_start = rm->t_start;
	for (int i = 0; i < rm->n; i++) {
		r->wl.w[i].pid = rm->pid[i];
		r->wl.w[i].end = END_RUNNING;
		p->rows.ps[i].pid = rm->pid[i];
		p->rows.ps[i].alive = true;
		p->rows.ps[i].utime_ticks = p->rows.ps[i].stime_ticks = 0;
	}
	r->forking = false;
	return 1;
}

static void r_started(struct place *p, const struct run *r, const struct sys_sample *first)
{
	(void)p;
	(void)r;
	(void)first;	/* the agent began its watch as the last worker started */
}

/* The workers as the agent reaped them, or killed where it never said. */
static void apply_ends(struct remote *rm, struct run *r)
{
	for (int i = 0; i < rm->n && i < r->wl.n; i++) {
		if (rm->w[i].end == END_RUNNING) {
			rm->w[i].pid = rm->pid[i];
			rm->w[i].status = SIGKILL;
			rm->w[i].end = END_SIGNAL;
			rm->w[i].t_end = now_monotonic();
			delays_clear(&rm->w[i].delays);
		}
		r->wl.w[i] = rm->w[i];
		if (r->wl.w[i].t_end > r->wl.t_end)
			r->wl.t_end = r->wl.w[i].t_end;
	}
	r->wl.left = rm->left;
	r->wl.running = 0;
}

static int r_reap(struct place *p, struct run *r)
{
	struct remote *rm = R(p);

	pump(rm);
	p->ends_waiting = false;
	/* a stream lost before the end: the run is aborted as its samples
	 * stop (take), not ended here as if its workers had been killed */
	if (!rm->ended)
		return rm->n > 0 ? rm->n : 1;
	apply_ends(rm, r);
	return 0;
}

static bool is_ended(const struct remote *rm)
{
	return rm->ended;
}

static void r_stop(struct place *p, struct run *r)
{
	struct remote *rm = R(p);

	if (!r->active)
		return;
	if (!rm->ended) {
		stream_msg_begin(&rm->m, "stop");
		send_msg(rm);
		wait_for(rm, is_ended, STOP_WAIT_S);
	}
	p->ends_waiting = false;
	apply_ends(rm, r);
}

static int r_stalls(struct place *p, const struct run *r, struct delays *sum)
{
	struct remote *rm = R(p);

	(void)r;
	if (!p->stalls_on)
		return -1;
	if (rm->last.stalls_rc == 1)
		*sum = rm->last.sum;
	return rm->last.stalls_rc < 0 ? 0 : rm->last.stalls_rc;
}

/* The sorters' progress as the agent last sent it, where the rows read it. */
static void copy_prog(const struct remote *rm, const struct run *r)
{
	for (int i = 0; r->wl.prog && i < rm->n && i < r->wl.n; i++) {
		atomic_store(&r->wl.prog[i].phase, rm->prog[i].phase);
		atomic_store(&r->wl.prog[i].done, rm->prog[i].done);
		atomic_store(&r->wl.prog[i].errors, rm->prog[i].errors);
		atomic_store(&r->wl.prog[i].first_bad, rm->prog[i].first_bad);
	}
}

static void r_watch(struct place *p, const struct run *r, const struct place_want *w,
		    const struct sys_sample *cur)
{
	struct remote *rm = R(p);

	(void)cur;
	copy_prog(rm, r);
	if (w->rows == rm->sent.rows && w->lo == rm->sent.lo && w->hi == rm->sent.hi)
		return;
	rm->sent = *w;
	stream_msg_begin(&rm->m, "want");
	stream_put_i64(&rm->m, "rows", w->rows);
	stream_put_i64(&rm->m, "lo", w->lo);
	stream_put_i64(&rm->m, "hi", w->hi);
	send_msg(rm);
}

static void r_end(struct place *p, struct run *r, const char *cgroup, struct place_end *e)
{
	struct remote *rm = R(p);

	(void)cgroup;	/* the agent's own */
	copy_prog(rm, r);
	*e = rm->end;
	if (!rm->ended)
		memset(e, 0, sizeof(*e));
}

static void r_done(struct place *p, const struct run *r)
{
	(void)p;
	(void)r;
}

static bool r_events(struct place *p, const struct run *r, struct rc_acc *into, int64_t *n,
		     double *s)
{
	struct remote *rm = R(p);

	(void)r;
	*n = 0;
	*s = 0;
	if (!rm->have_rc)
		return false;
	*into = *rm->rc;
	*n = rm->rc_n;
	*s = rm->rc_s;
	return true;
}

static void r_tuned(struct place *p, struct tuning *t)
{
	struct remote *rm = R(p);
	struct stream_line l = { 0 };
	char *copy = rm->tuned ? strdup(rm->tuned) : NULL;

	if (copy && stream_parse(copy, &l) == 0)
		wire_get_tuning(&l, t);
	stream_line_free(&l);
	free(copy);
}

static size_t r_sysctls(struct place *p, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "%s", R(p)->sysctls);
}

static int r_cgroup(struct place *p, struct cgroup_stat *st)
{
	struct remote *rm = R(p);

	if (!rm->have_last || !rm->last.have_cg)
		return -1;
	*st = rm->last.cg;
	return 0;
}

static int r_cell(struct place *p, int c, char *err, size_t errlen)
{
	struct remote *rm = R(p);

	if (rm->gone)
		return snprintf(err, errlen, "agent: %s", rm->why), -1;
	stream_msg_begin(&rm->m, "cell");
	stream_put_i64(&rm->m, "n", c);
	send_msg(rm);
	return 0;
}

/* Asked, never awaited: the answer comes with the stream (r_answer). */
static int r_sysctl(struct place *p, const char *name, int dir, char *old, char *now, size_t vlen,
		    char *err, size_t errlen)
{
	struct remote *rm = R(p);

	(void)old;
	(void)now;
	(void)vlen;
	if (rm->gone)
		return snprintf(err, errlen, "%s: agent: %s", name, rm->why), -1;
	rm->knob_rc = 2;
	stream_msg_begin(&rm->m, "sysctl");
	stream_put_str(&rm->m, "name", name);
	stream_put_i64(&rm->m, "dir", dir);
	send_msg(rm);
	return 2;
}

static int r_answer(struct place *p, char *old, char *now, size_t vlen, char *err, size_t errlen)
{
	struct remote *rm = R(p);

	pump(rm);
	if (rm->knob_rc == 2 && rm->gone)
		return snprintf(err, errlen, "agent: %s", rm->why), rm->knob_rc = -1;
	if (rm->knob_rc == 2)
		return 2;
	snprintf(old, vlen, "%s", rm->knob_old);
	snprintf(now, vlen, "%s", rm->knob_new);
	if (rm->knob_rc < 0)
		snprintf(err, errlen, "%s", rm->knob_err);
	return rm->knob_rc;
}

/* A spawned agent is given its time to undo what it set up. */
static void reap_child(pid_t pid)
{
	for (int step = 0; step < 3; step++) {
		double end = now_monotonic() + CLOSE_WAIT_S;
		const struct timespec tick = { 0, 20000000 };

		if (step)
			kill(pid, step == 1 ? SIGTERM : SIGKILL);
		while (now_monotonic() < end) {
			pid_t r = waitpid(pid, NULL, WNOHANG);

			if (r == pid || (r < 0 && errno != EINTR))
				return;
			nanosleep(&tick, NULL);
		}
	}
}

static void r_close(struct place *p)
{
	struct remote *rm = R(p);

	if (!rm->gone) {
		stream_msg_begin(&rm->m, "bye");
		send_msg(rm);
	}
	close(rm->fd);
	if (rm->end_timer >= 0)
		close(rm->end_timer);
	if (rm->child > 0)
		reap_child(rm->child);
	if (rm->on_close)
		rm->on_close(rm->on_close_arg);
	stream_in_free(&rm->in);
	stream_out_free(&rm->out);
	stream_msg_free(&rm->m);
	stream_line_free(&rm->l);
	free(rm->tuned);
	free(rm->rc);
	free(rm->q);
	free(rm->pid);
	free(rm->w);
	free(rm->prog);
	free(p->rows.ps);
	free(p->rows.dl);
	free(rm);
}

static const struct place_ops remote_ops = {
	.tick_fd = r_tick_fd,
	.take = r_take,
	.now = r_now,
	.set_interval = r_set_interval,
	.state = r_state,
	.caps = r_caps,
	.zram = r_zram,
	.begin = r_begin,
	.fork = r_fork,
	.started = r_started,
	.reap = r_reap,
	.stop = r_stop,
	.stalls = r_stalls,
	.watch = r_watch,
	.end = r_end,
	.done = r_done,
	.events = r_events,
	.tuned = r_tuned,
	.sysctls = r_sysctls,
	.cgroup = r_cgroup,
	.cell = r_cell,
	.sysctl = r_sysctl,
	.answer = r_answer,
	.close = r_close,
};

/* The options for the agent: the session's own but --agent's. */
/* The options of this side alone: where the place is, and what draws,
 * keeps or reads the runs here. Each takes a value. */
static const char *const here_only[] = { "--agent", "--kernel", "--boot-mem", "--against",
					  "--cast", "--history", "--host", "--metric" };

static bool is_here_only(const char *a, bool *value_next)
{
	if (!strcmp(a, "--host-copy"))
		return *value_next = false, true;
	for (size_t k = 0; k < sizeof(here_only) / sizeof(here_only[0]); k++) {
		size_t n = strlen(here_only[k]);

		if (!strncmp(a, here_only[k], n) && (a[n] == '=' || !a[n])) {
			*value_next = !a[n];
			return true;
		}
	}
	return false;
}

/* A sweep over places (kernel=, boot-mem=, host=): the session at each
 * place runs one of its cells. */
static bool is_place_axis(const char *v)
{
	return v && (!strncmp(v, "kernel=", 7) || !strncmp(v, "boot-mem=", 9) ||
		     !strncmp(v, "host=", 5));
}

static void send_options(struct remote *rm, const struct options *o)
{
	bool command = false, value_next;

	stream_msg_begin(&rm->m, "options");
	for (int i = 1; i < o->argc; i++) {
		const char *a = o->args[i];

		command = command || !strcmp(a, "--");
		if (!command && is_here_only(a, &value_next)) {
			i += value_next;
			continue;
		}
		if (!command && !strcmp(a, "--sweep") && is_place_axis(o->args[i + 1])) {
			i++;
			continue;
		}
		if (!command && !strncmp(a, "--sweep=", 8) && is_place_axis(a + 8))
			continue;
		stream_put_str(&rm->m, "arg", a);
	}
	send_msg(rm);
}

static bool is_ready(const struct remote *rm)
{
	return rm->ready || rm->failed;
}

struct place *remote_open(int fd, const struct options *o, double timeout, char *err,
			  size_t errlen)
{
	struct remote *rm = calloc(1, sizeof(*rm));

	if (!rm) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rm->p.ops = &remote_ops;
	rm->fd = fd;
	rm->end_timer = -1;
	rm->out_fd = STDOUT_FILENO;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (stream_hello(&rm->m, THRASHTOP_VERSION) == 0 &&
	    stream_out_put(&rm->out, rm->m.buf, rm->m.len, false) > 0)
		send_options(rm, o);
	if (!wait_for(rm, is_ready, timeout) || rm->failed) {
		snprintf(err, errlen, "agent: %s", rm->why[0] ? rm->why :
			 "not ready in time");
		rm->gone = true;
		r_close(&rm->p);
		return NULL;
	}
	return &rm->p;
}

struct place *remote_spawn(char *const argv[], const struct options *o, double timeout,
			   char *err, size_t errlen)
{
	struct place *p;
	sigset_t none;
	int sv[2], status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errlen, "agent: socketpair: %s", strerror(errno));
		return NULL;
	}
	if ((pid = fork()) < 0) {
		snprintf(err, errlen, "agent: fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return NULL;
	}
	if (pid == 0) {
		/* its own group: the terminal's ^C is the session's to act on */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(sv[1], STDIN_FILENO) < 0 || dup2(sv[1], STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	if ((p = remote_open(sv[0], o, timeout, err, errlen))) {
		R(p)->child = pid;
		return p;
	}
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(err, errlen, "--agent: cannot run '%.200s'", argv[0]);
	return NULL;
}

void remote_on_end(struct place *p, bool (*fn)(void *, char *, size_t, bool), void *arg)
{
	R(p)->on_end = fn;
	R(p)->on_end_arg = arg;
}

void remote_on_close(struct place *p, void (*fn)(void *), void *arg)
{
	R(p)->on_close = fn;
	R(p)->on_close_arg = arg;
}

struct place *remote_command(const char *cmd, const struct options *o, double timeout,
			     char *err, size_t errlen)
{
	static const char *const why[] = {
		[WRDE_BADCHAR] = "a character only a shell takes (|&;<>(){}, a newline)",
		[WRDE_CMDSUB] = "a command substitution", [WRDE_SYNTAX] = "unbalanced quotes",
		[WRDE_NOSPACE] = "out of memory",
	};
	wordexp_t we;
	struct place *p;
	int rc = wordexp(cmd, &we, WRDE_NOCMD);

	if (rc) {
		const char *w = rc > 0 && rc < (int)(sizeof(why) / sizeof(why[0])) && why[rc] ?
				why[rc] : "cannot split it into words";

		if (rc == WRDE_NOSPACE)
			wordfree(&we);
		return snprintf(err, errlen, "--agent '%s': %s", cmd, w), NULL;
	}
	if (!we.we_wordc) {
		wordfree(&we);
		return snprintf(err, errlen, "--agent: want a command that starts an agent"), NULL;
	}
	p = remote_spawn(we.we_wordv, o, timeout, err, errlen);
	wordfree(&we);
	return p;
}
