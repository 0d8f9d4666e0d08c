#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cells.h"
#include "loop.h"
#include "session.h"
#include "stream.h"
#include "sysio.h"
#include "version.h"
#include "vm.h"
#include "wire.h"

#define HELLO_WAIT_S 60.0	/* for the session's hello and options */
#define OUT_CHUNK 3000		/* a command's output bytes a line */
#define OUT_PIPE (1 << 20)	/* its pipe's size: it waits for a tick to be read */

static struct agent {
	struct options o;
	bool have_o;
	struct session s;		/* the set-up: tuning, delays, the local place */
	struct place *p;
	struct run r;
	bool run_on;			/* begun, its end not yet sent */
	bool started;			/* every worker forked */
	char **argv;			/* the run's command, NULL for sorters */
	char **args, **words;		/* the options as argv, which o points into */
	int out_r, out_w;		/* its output pipe, -1 none */
	struct place_want want;
	int rfd, wfd;
	struct stream_in in;
	struct stream_out out;
	struct stream_msg m, chunk;	/* a message; a tick's messages together */
	struct stream_line l;
	struct rc_acc *rc;		/* a run's reclaim events, as sent */
	char cell_err[512];		/* the sweep cell asked for failed: why */
	bool bye;
	char disk[64], disk_kind[48];	/* a guest's swap disk, and what backs it */
	char err[512];
} the_agent;

/* The message in a->m queued (a tick's with the rest of the tick). */
static void send_msg(struct agent *a)
{
	if (stream_msg_end(&a->m) == 0)
		stream_out_put(&a->out, a->m.buf, a->m.len, false);
}

static void send_failed(struct agent *a, const char *msg)
{
	stream_msg_begin(&a->m, "failed");
	stream_put_str(&a->m, "msg", msg);
	send_msg(a);
}

/* Everything queued written, waiting at most timeout s: for the set-up's
 * messages and the last ones, outside the loop. */
static void flush_wait(struct agent *a, double timeout)
{
	double end = now_monotonic() + timeout;

	while (stream_out_flush(&a->out, a->wfd) > 0 && now_monotonic() < end) {
		struct pollfd pfd = { a->wfd, POLLOUT, 0 };

		poll(&pfd, 1, 100);
	}
}

/* The next line from the session, waiting at most until end; NULL with
 * err at the stream's end, on a bad line or when the time is up. */
static char *next_line(struct agent *a, double end)
{
	char *line;

	while (!(line = stream_in_next(&a->in))) {
		struct pollfd pfd = { a->rfd, POLLIN, 0 };
		double left = end - now_monotonic();

		if (errno == EMSGSIZE || a->in.eof || left <= 0) {
			snprintf(a->err, sizeof(a->err), "%s", errno == EMSGSIZE ? "a line over the limit"
				 : a->in.eof ? "the stream ended" : "no options from the session in time");
			return NULL;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) > 0 && stream_in_read(&a->in, a->rfd) < 0 &&
		    errno != EAGAIN && errno != EINTR) {
			snprintf(a->err, sizeof(a->err), "cannot read the stream: %s", strerror(errno));
			return NULL;
		}
	}
	return line;
}

/* hello both ways, then the options, parsed as the session's own. */
static int handshake(struct agent *a)
{
	double end = now_monotonic() + HELLO_WAIT_S;
	char *line, **args, **words;
	int n = 0, rc;

	if (stream_hello(&a->m, THRASHTOP_VERSION) == 0)
		stream_out_put(&a->out, a->m.buf, a->m.len, false);
	flush_wait(a, HELLO_WAIT_S);
	if (!(line = next_line(a, end)) || stream_parse(line, &a->l))
		return -1;
	if (stream_hello_check(&a->l, THRASHTOP_VERSION, "session", a->err, sizeof(a->err)))
		return -1;
	if (!(line = next_line(a, end)) || stream_parse(line, &a->l))
		return -1;
	if (strcmp(a->l.tag, "options") || !(words = wire_get_all(&a->l, "arg")))
		return snprintf(a->err, sizeof(a->err), "no options after the hello"), -1;
	while (words[n])
		n++;
	/* argv[0] is the program's name; the words stay in their block */
	if (!(args = a->args = malloc(sizeof(*args) * (size_t)(n + 2)))) {
		free(words);
		return snprintf(a->err, sizeof(a->err), "out of memory"), -1;
	}
	a->words = words;
	memcpy(args + 1, words, sizeof(*args) * (size_t)(n + 1));
	args[0] = "thrashtop";
	rc = cli_parse(n + 1, args, &a->o, a->err, sizeof(a->err));
	a->have_o = true;
	if (rc > 0)
		return snprintf(a->err, sizeof(a->err), "the options asked for no run"), -1;
	if (rc < 0)
		return -1;
	/* what is the session's alone: its screen, its history, its store */
	a->o.batch = true;
	a->o.no_history = true;
	a->o.history = NULL;
	a->o.against = 0;
	a->o.cast = NULL;
	a->o.label = NULL;
	return 0;
}

/* The machine's state and tuning as they are now. */
static void send_tuning(struct agent *a)
{
	char sysctls[TUNING_MAX_SYSCTL * 128];

	session_refresh(&a->s);
	stream_msg_begin(&a->m, "state");
	wire_put_state(&a->m, &a->s.sys);
	send_msg(a);
	tuning_sysctls_text(&a->s.tun, sysctls, sizeof(sysctls));
	stream_msg_begin(&a->m, "tuned");
	wire_put_tuning(&a->m, &a->s.tun);
	stream_put_str(&a->m, "sysctls", sysctls);
	send_msg(a);
}

static void send_ready(struct agent *a)
{
	struct place *p = a->p;
	struct sampler_caps caps;

	send_tuning(a);
	p->ops->caps(p, &caps);
	stream_msg_begin(&a->m, "caps");
	wire_put_caps(&a->m, "", &caps);
	send_msg(a);
	stream_msg_begin(&a->m, "ready");
	stream_put_dbl(&a->m, "t", now_monotonic());
	stream_put_i64(&a->m, "nelems", a->s.plan.nelems);
	stream_put_i64(&a->m, "procs", a->s.plan.procs);
	stream_put_i64(&a->m, "stalls_on", p->stalls_on);
	stream_put_str(&a->m, "stalls_why", p->stalls_why);
	stream_put_i64(&a->m, "events_on", p->events_on);
	stream_put_str(&a->m, "events_why", p->events_why);
	send_msg(a);
}

static void send_now(struct agent *a, const struct sys_sample *x)
{
	stream_msg_begin(&a->m, "now");
	wire_put_sys(&a->m, "", x);
	send_msg(a);
}

/* A command's output, whatever waits, as out lines. */
static void pump_output(struct agent *a)
{
	char buf[OUT_CHUNK];
	ssize_t n;

	while (a->out_r >= 0 && (n = read(a->out_r, buf, sizeof(buf))) > 0) {
		stream_msg_begin(&a->m, "out");
		stream_put_mem(&a->m, "data", buf, (size_t)n);
		send_msg(a);
	}
}

static void close_output(struct agent *a)
{
	if (a->out_w >= 0)
		close(a->out_w);
	pump_output(a);
	if (a->out_r >= 0)
		close(a->out_r);
	a->out_r = a->out_w = -1;
}

/* The run's reclaim events, where the place traces them. */
static void send_events(struct agent *a)
{
	struct rc_acc *e = a->rc;
	int64_t n;
	double secs;

	if (!e && !(e = a->rc = malloc(sizeof(*e))))
		return;
	if (!a->p->ops->events(a->p, &a->r, e, &n, &secs))
		return;
	stream_msg_begin(&a->m, "rcrun");
	wire_put_rcrun(&a->m, e, n, secs);
	send_msg(a);
	for (int i = 0; i < e->nev; i += WIRE_RC_EVENTS) {
		stream_msg_begin(&a->m, "rcev");
		wire_put_rcev(&a->m, e, i);
		send_msg(a);
	}
}

/* The sorters' progress as a "prog" message in a->m; false for a command. */
static bool put_prog(struct agent *a)
{
	const struct run *r = &a->r;

	if (!r->wl.prog)
		return false;
	stream_msg_begin(&a->m, "prog");
	for (int i = 0; i < r->wl.n; i++) {
		char k[32];

		snprintf(k, sizeof(k), "ph.%d", i);
		stream_put_i64(&a->m, k, atomic_load(&r->wl.prog[i].phase));
		snprintf(k, sizeof(k), "d.%d", i);
		stream_put_i64(&a->m, k, atomic_load(&r->wl.prog[i].done));
		snprintf(k, sizeof(k), "e.%d", i);
		stream_put_i64(&a->m, k, atomic_load(&r->wl.prog[i].errors));
		snprintf(k, sizeof(k), "fb.%d", i);
		stream_put_i64(&a->m, k, atomic_load(&r->wl.prog[i].first_bad));
	}
	return true;
}

/* The run's end: its last sample, every worker as reaped (a command's
 * with its tree's delays), the kills, the place's end. */
static void finish(struct agent *a, bool aborted)
{
	struct place *p = a->p;
	struct sys_sample x;
	struct place_end e;

	if (aborted)
		p->ops->stop(p, &a->r);
	close_output(a);
	if (p->ops->now(p, &x) == 0) {
		a->r.res.last = x;
		send_now(a, &x);
	}
	p->ops->end(p, &a->r, a->s.tun.have_cg ? a->s.tun.cg.path : NULL, &e);
	/* the sorters' last word (done, a verify's errors), after the last tick */
	if (put_prog(a))
		send_msg(a);
	for (int i = 0; i < a->r.wl.n; i++) {
		stream_msg_begin(&a->m, "reaped");
		stream_put_i64(&a->m, "i", i);
		wire_put_worker(&a->m, &a->r.wl.w[i]);
		send_msg(a);
	}
	send_events(a);
	for (int i = 0; i < e.nkills; i++) {
		stream_msg_begin(&a->m, "kill");
		wire_put_kill(&a->m, "", &e.kills[i]);
		send_msg(a);
	}
	stream_msg_begin(&a->m, "end");
	wire_put_end(&a->m, &e);
	stream_put_i64(&a->m, "left", a->r.wl.left);
	stream_put_i64(&a->m, "n", a->r.wl.n);
	send_msg(a);
	p->ops->done(p, &a->r);
	a->r.active = a->r.forking = false;
	a->run_on = a->started = false;
}

static void begin(struct agent *a)
{
	struct workload_cfg cfg;
	int pfd[2];

	if (a->run_on)
		finish(a, true);
	wire_free_argv(a->argv);
	a->argv = NULL;
	if (wire_get_cfg(&a->l, &cfg)) {
		send_failed(a, "out of memory");
		return;
	}
	a->argv = cfg.argv;
	if (a->cell_err[0]) {	/* not in a cell half set up */
		send_failed(a, a->cell_err);
		return;
	}
	if (cfg.argv && pipe2(pfd, O_CLOEXEC) == 0) {
		fcntl(pfd[0], F_SETFL, O_NONBLOCK);
		fcntl(pfd[0], F_SETPIPE_SZ, OUT_PIPE);
		a->out_r = pfd[0];
		a->out_w = cfg.out_fd = pfd[1];
	}
	if (tuning_cg_swappiness(&a->s.tun, a->err, sizeof(a->err)) < 0) {
		close_output(a);
		send_failed(a, a->err);
		return;
	}
	tuning_workload_cfg(&a->s.tun, &cfg);
	if (a->p->ops->begin(a->p, &a->r, &cfg, a->s.tun.have_balloon ? a->s.tun.bl.pid : 0,
			     a->err, sizeof(a->err))) {
		close_output(a);
		send_failed(a, a->err);
		return;
	}
	a->run_on = true;
	a->started = false;
}

static void started(struct agent *a)
{
	struct sys_sample x;

	if (a->out_w >= 0) {	/* the command has its copy */
		close(a->out_w);
		a->out_w = -1;
	}
	if (a->p->ops->now(a->p, &x)) {
		send_failed(a, "cannot sample the system");
		finish(a, true);
		return;
	}
	send_now(a, &x);
	tuning_run_begin(&a->s.tun);
	a->p->ops->started(a->p, &a->r, &x);
	a->started = true;
	stream_msg_begin(&a->m, "started");
	stream_put_i64(&a->m, "n", a->r.wl.n);
	stream_put_dbl(&a->m, "t_start", a->r.wl.t_start);
	for (int i = 0; i < a->r.wl.n; i++) {
		char k[32];

		snprintf(k, sizeof(k), "pid.%d", i);
		stream_put_i64(&a->m, k, a->r.wl.w[i].pid);
	}
	send_msg(a);
}

/* The sweep's cell n, as the options' --sweep numbers them (the one set
 * up already is not set up again); its tuning is the answer. */
static void cell(struct agent *a)
{
	int c = (int)stream_get_i64(&a->l, "n", -1);

	a->cell_err[0] = '\0';
	if (c < 0 || c >= (a->o.nsweep ? a->s.sweep.sw.ncells : 0))
		snprintf(a->cell_err, sizeof(a->cell_err), "no sweep cell %d here", c + 1);
	else if (c != a->s.sweep.cell)
		cells_apply(&a->s, c, a->cell_err, sizeof(a->cell_err));
	if (a->cell_err[0])
		send_failed(a, a->cell_err);
	else
		send_tuning(a);
}

/* One step of a sysctl (the k/K, s/S keys): the tuning, then the answer. */
static void knob(struct agent *a)
{
	char old[SYSCTL_VALUE_MAX] = "", now[SYSCTL_VALUE_MAX] = "", err[512] = "";
	const char *name = stream_get(&a->l, "name");
	int rc = -1;

	if (!name || !*name)
		snprintf(err, sizeof(err), "a sysctl without a name");
	else
		rc = tuning_knob(&a->s.tun, name, (int)stream_get_i64(&a->l, "dir", 1), old, now,
				 sizeof(now), err, sizeof(err));
	if (rc == 0)
		send_tuning(a);
	stream_msg_begin(&a->m, "sysctl");
	stream_put_i64(&a->m, "rc", rc);
	stream_put_str(&a->m, "old", old);
	stream_put_str(&a->m, "new", now);
	stream_put_str(&a->m, "msg", err);
	send_msg(a);
}

/* One request of the session's. */
static int request(struct agent *a)
{
	const char *tag = a->l.tag;

	if (!strcmp(tag, "begin")) {
		begin(a);
	} else if (!strcmp(tag, "want")) {
		a->want.tick = true;
		a->want.rows = stream_get_i64(&a->l, "rows", 0) != 0;
		a->want.lo = (int)stream_get_i64(&a->l, "lo", 0);
		a->want.hi = (int)stream_get_i64(&a->l, "hi", 0);
	} else if (!strcmp(tag, "interval")) {
		double s = stream_get_dbl(&a->l, "s");

		if (s >= 0.001 && s <= 3600) {
			a->s.plan.interval = s;
			a->p->ops->set_interval(a->p, s);
		}
	} else if (!strcmp(tag, "cell")) {
		cell(a);
	} else if (!strcmp(tag, "sysctl")) {
		knob(a);
	} else if (!strcmp(tag, "stop")) {
		if (a->run_on)
			finish(a, true);
	} else if (!strcmp(tag, "bye")) {
		a->bye = true;
		return LOOP_END;
	}
	return LOOP_GO;
}

static int on_input(void *arg)
{
	struct agent *a = arg;
	char *line;
	int rc = LOOP_GO;

	if (stream_in_read(&a->in, a->rfd) < 0 && errno != EAGAIN && errno != EINTR)
		return LOOP_END;
	while (rc == LOOP_GO && (line = stream_in_next(&a->in)))
		if (stream_parse(line, &a->l) == 0)
			rc = request(a);
	if (errno == EMSGSIZE || a->in.eof)
		return LOOP_END;	/* the session is gone, or speaks nonsense */
	return rc;
}

static void to_chunk(struct agent *a)
{
	if (stream_msg_end(&a->m) == 0)
		stream_msg_cat(&a->chunk, &a->m);
}

/* The rows asked for, the sorters' progress, the stall sum: the newest
 * sample's company, into chunk. */
static void tick_extras(struct agent *a, const struct sys_sample *x)
{
	struct place *p = a->p;
	struct run *r = &a->r;
	struct delays sum;
	struct cgroup_stat *cg = &a->s.tun.cur;
	int rc;

	if (a->s.tun.have_cg && tuning_sample(&a->s.tun, x->t) == 0) {
		stream_msg_begin(&a->m, "cg");
		wire_put_cgroup(&a->m, "", cg);
		to_chunk(a);
	}
	if (!a->started)
		return;
	rc = p->ops->stalls(p, r, &sum);
	stream_msg_begin(&a->m, "stalls");
	stream_put_i64(&a->m, "rc", rc);
	wire_put_delays(&a->m, "", &sum);
	to_chunk(a);
	p->ops->watch(p, r, &a->want, x);
	for (int i = a->want.lo; a->want.rows && i < a->want.hi && i < r->wl.n; i++) {
		if (i < 0)
			continue;
		stream_msg_begin(&a->m, "row");
		stream_put_i64(&a->m, "i", i);
		wire_put_proc(&a->m, "", &p->rows.ps[i]);
		wire_put_delays(&a->m, "dl.", &p->rows.dl[i]);
		to_chunk(a);
	}
	if (put_prog(a))
		to_chunk(a);
}

/* Every sample waiting, in order; the newest with its company. All of a
 * tick's lines go together, or are dropped together. */
static int on_tick(void *arg)
{
	struct agent *a = arg;
	struct sys_sample x, next;
	int rc = a->p->ops->take(a->p, &x);

	while (rc > 0) {
		rc = a->p->ops->take(a->p, &next);
		a->chunk.len = 0;
		a->chunk.bad = false;
		if (rc <= 0)
			tick_extras(a, &x);
		stream_msg_begin(&a->m, "tick");
		wire_put_sys(&a->m, "", &x);
		to_chunk(a);
		if (!a->chunk.bad)
			stream_out_put(&a->out, a->chunk.buf, a->chunk.len, true);
		x = next;
	}
	pump_output(a);
	if (rc < 0) {
		snprintf(a->err, sizeof(a->err), "cannot sample the system: %s", strerror(errno));
		send_failed(a, a->err);
		return LOOP_FAIL;
	}
	return LOOP_GO;
}

static int on_child(void *arg)
{
	struct agent *a = arg;

	if (a->run_on && a->started && a->p->ops->reap(a->p, &a->r) == 0)
		finish(a, false);
	return LOOP_GO;
}

static int on_work(void *arg, bool *more)
{
	struct agent *a = arg;
	int rc;

	if (a->run_on && !a->started) {
		rc = a->p->ops->fork(a->p, &a->r, now_monotonic() + 0.01, a->err, sizeof(a->err));
		if (rc < 0) {
			close_output(a);
			send_failed(a, a->err);
			a->run_on = false;
		} else if (rc > 0) {
			started(a);
		}
		*more = a->run_on && !a->started;
	}
	if (stream_out_flush(&a->out, a->wfd) < 0)
		return LOOP_END;	/* the session is gone */
	return LOOP_GO;
}

static int on_output(void *arg)
{
	struct agent *a = arg;

	return stream_out_flush(&a->out, a->wfd) < 0 ? LOOP_END : LOOP_GO;
}

static int out_fd(void *arg)
{
	struct agent *a = arg;

	return stream_out_pending(&a->out) ? a->wfd : -1;
}

static int input_fd(void *arg)
{
	return ((struct agent *)arg)->rfd;
}

static int tick_fds(void *arg, int *fds)
{
	struct agent *a = arg;

	fds[0] = a->p->ops->tick_fd(a->p);
	return 1;
}

/* The swap disk a guest's host made (its kernel command line names its
 * cache mode), found by its serial: the swap files asked for go on it.
 * -1 when it was made but is not there. */
static int find_swap_disk(struct agent *a)
{
	char cmdline[4096], path[PATH_MAX], serial[64];
	const char *p;
	struct dirent *e;
	DIR *d;

	if (sysio_read("/proc/cmdline", cmdline, sizeof(cmdline)) < 0 ||
	    !(p = strstr(cmdline, VM_SWAP_PARAM)))
		return 0;
	p += strlen(VM_SWAP_PARAM);
	snprintf(a->disk_kind, sizeof(a->disk_kind), "virtio-blk cache=%.*s",
		 (int)strcspn(p, " \n"), p);
	if ((d = opendir("/sys/block"))) {
		while ((e = readdir(d)))
			if (snprintf(path, sizeof(path), "/sys/block/%s/serial", e->d_name) > 0 &&
			    sysio_read(path, serial, sizeof(serial)) >= 0 &&
			    (serial[strcspn(serial, "\n")] = '\0', !strcmp(serial, VM_SWAP_SERIAL)))
				snprintf(a->disk, sizeof(a->disk), "/dev/%.50s", e->d_name);
		closedir(d);
	}
	if (!a->disk[0])
		return snprintf(a->err, sizeof(a->err), "the guest's swap disk (serial "
				VM_SWAP_SERIAL ") is not there: has its kernel virtio_blk?"), -1;
	a->o.swap_disk = a->disk;
	a->o.swap_disk_kind = a->disk_kind;
	return 0;
}

/* The stream's descriptors, kept apart from the workers: they get
 * /dev/null for standard input and output, never the stream. */
static int open_stream(struct agent *a, int fd)
{
	int null;

	if (fd >= 0) {
		a->rfd = a->wfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (a->rfd >= 0)
			close(fd);
	} else {
		a->rfd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		a->wfd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if ((null = open("/dev/null", O_RDWR)) >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			if (null > STDERR_FILENO)
				close(null);
		}
	}
	if (a->rfd < 0 || a->wfd < 0)
		return -1;
	fcntl(a->rfd, F_SETFL, fcntl(a->rfd, F_GETFL) | O_NONBLOCK);
	fcntl(a->wfd, F_SETFL, fcntl(a->wfd, F_GETFL) | O_NONBLOCK);
	return 0;
}

static int parse_args(int argc, char **argv, int *fd, char *err, size_t errlen)
{
	char *end;
	long v;

	*fd = -1;
	if (argc == 1)
		return 0;
	if (argc == 3 && !strcmp(argv[1], "--fd")) {
		v = strtol(argv[2], &end, 10);
		if (*argv[2] && !*end && v >= 0 && v < 1 << 20 && fcntl((int)v, F_GETFD) >= 0) {
			*fd = (int)v;
			return 0;
		}
		snprintf(err, errlen, "agent: --fd %.40s: not an open descriptor", argv[2]);
		return -1;
	}
	snprintf(err, errlen, "agent: usage: thrashtop agent [--fd N]");
	return -1;
}

static const struct loop_ops agent_ops = {
	.input_fd = input_fd, .on_input = on_input, .on_child = on_child, .on_tick = on_tick,
	.on_work = on_work, .tick_fds = tick_fds, .out_fd = out_fd, .on_output = on_output,
};

/* Stops what runs, says the end, undoes the set-up. */
static void teardown(struct agent *a, bool opened)
{
	if (a->run_on)
		finish(a, true);
	if (opened) {
		session_close(&a->s);
		run_free(&a->r);
	}
	flush_wait(a, 2.0);
	wire_free_argv(a->argv);
	if (a->have_o)
		cli_free(&a->o);
	free(a->args);
	free(a->words);
	free(a->rc);
	stream_in_free(&a->in);
	stream_out_free(&a->out);
	stream_msg_free(&a->m);
	stream_msg_free(&a->chunk);
	stream_line_free(&a->l);
	close(a->rfd);
	if (a->wfd != a->rfd)
		close(a->wfd);
}

/* A failure to set up, said to the session, which says it; on the
 * agent's own standard error only when the stream cannot take it. */
static void tell_failed(struct agent *a)
{
	send_failed(a, a->err);
	flush_wait(a, 5.0);
	if (stream_out_flush(&a->out, a->wfd) != 0)
		fprintf(stderr, "thrashtop: agent: %s\n", a->err);
}

int agent_main(int argc, char **argv)
{
	struct agent *a = &the_agent;
	struct loop_ops ops = agent_ops;
	int fd, rc;

	a->out_r = a->out_w = -1;
	run_init(&a->r);
	if (parse_args(argc, argv, &fd, a->err, sizeof(a->err)) || open_stream(a, fd)) {
		fprintf(stderr, "thrashtop: %s\n", a->err[0] ? a->err : "agent: no stream");
		return 2;
	}
	/* a signal during the set-up waits, and ends the loop at once */
	loop_signals();
	if (handshake(a) || find_swap_disk(a)) {
		tell_failed(a);
		teardown(a, false);
		return 2;
	}
	if (session_open(&a->s, &a->o, a->err, sizeof(a->err))) {
		tell_failed(a);
		teardown(a, true);
		return 2;
	}
	a->p = a->s.place;
	send_ready(a);
	ops.arg = a;
	rc = loop_run(&ops);
	teardown(a, true);
	if (rc == LOOP_FAIL)
		return 2;
	return loop_signal() && loop_signal() != SIGHUP ? 128 + loop_signal() : 0;
}
