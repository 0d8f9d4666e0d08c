#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "fmt.h"
#include "history.h"
#include "record.h"
#include "result.h"
#include "sampler.h"
#include "series.h"
#include "sorter.h"
#include "sysstate.h"
#include "timefmt.h"
#include "ui.h"
#include "workload.h"

#define VIEW_CAP 2048		/* display history: wider than any screen */
#define RUN_CAP 65536		/* one run's samples for the history: 18 h at 1 s */
#define DEFAULT_SECONDS 60.0	/* the default workload's target length */

static volatile sig_atomic_t got_signal, got_child;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

enum { S_SWAP, S_FREE, S_AVAIL, S_MAJ, S_MIN, S_KSWAPD, NSERIES };

struct session {
	struct options *o;
	struct sampler *smp;
	struct sysstate sys;
	char workload_desc[512];
	char swapdevs[256];

	struct workload wl;
	bool running;
	struct run_result res;
	int run_no;		/* 1-based, counts every run this session */
	int batch_left;		/* runs still to start in this batch of repeats */
	int nfailed_runs;

	struct sys_sample prev, cur;
	bool have_prev;
	struct sys_rates rates;
	struct series view[NSERIES];
	struct series run[NSERIES];	/* this run's samples, for the history */
	time_t started;			/* wall clock at this run's start */
	int repeat_k, repeat_n;		/* run k of n in the current batch of repeats */

	struct history *hist;		/* NULL: --no-history, or it could not be opened */

	struct proc_sample *ps;	/* per worker, last sample */

	bool tui;
	int out_fd;		/* where a command's output goes under the TUI */
	char out_path[256];
	struct ui_model m;
	struct ui_worker *rows;
	char **done;
	int ndone;
	char status[256];
};

static void set_status(struct session *s, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_status(struct session *s, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->status, sizeof(s->status), fmt, ap);
	va_end(ap);
	s->m.status = s->status;
	s->m.status_error = error;
}

/* Sizes the default workload to last about DEFAULT_SECONDS on this machine:
 * one short calibration sort, scaled by n log n, capped so all workers
 * together take at most half of what is available. */
static long default_nelems(int procs, int64_t avail_kib)
{
	const long n1 = 1L << 20;
	struct sort_progress p = { 0 };
	double t0 = now_monotonic(), t1, target, n;
	long cap;

	if (sorter_run(n1, 1, &p))
		return 10000000;
	t1 = now_monotonic() - t0;
	if (t1 <= 0)
		t1 = 1e-3;
	target = DEFAULT_SECONDS / t1 * (double)n1 * log((double)n1);
	n = (double)n1;
	for (int i = 0; i < 50; i++)	/* solve n log n = target */
		n = target / log(n);
	cap = avail_kib > 0 ? (long)(avail_kib * 1024 / 2 / procs / (long)sizeof(int)) : 50000000L;
	if (n > cap)
		n = cap;
	if (n >= 2000000)
		n = floor(n / 1000000) * 1000000;
	return n < 1000 ? 1000 : (long)n;
}

static void describe_workload(struct session *s)
{
	struct options *o = s->o;
	size_t off = 0;

	if (!o->argv) {
		snprintf(s->workload_desc, sizeof(s->workload_desc),
			 "qsbench -n %ld -p %d -s %u", o->nelems, o->procs, o->seed);
		return;
	}
	for (char **a = o->argv; *a && off < sizeof(s->workload_desc) - 1; a++)
		off += (size_t)snprintf(s->workload_desc + off, sizeof(s->workload_desc) - off,
					"%s%s", a == o->argv ? "" : " ", *a);
}

static void describe_swaps(struct session *s)
{
	size_t off = 0;
	char size[32];

	s->swapdevs[0] = '\0';
	for (int i = 0; i < s->sys.nswaps && off < sizeof(s->swapdevs) - 1; i++) {
		fmt_kib(size, sizeof(size), s->sys.swaps[i].size_kib);
		off += (size_t)snprintf(s->swapdevs + off, sizeof(s->swapdevs) - off, "%s%s %s",
					i ? ", " : "", s->sys.swaps[i].path, size);
	}
}

static int sample(struct session *s)
{
	if (sampler_sys(s->smp, &s->cur))
		return -1;
	if (s->have_prev)
		sys_rates_compute(&s->prev, &s->cur, &s->rates);
	else
		sys_rates_compute(&s->cur, &s->cur, &s->rates);
	s->have_prev = true;
	s->prev = s->cur;

	double t = s->cur.t;
	const int64_t *mem = s->cur.mem;
	double v[NSERIES] = {
		[S_SWAP] = mem[MI_SWAP_TOTAL] > 0 && mem[MI_SWAP_USED] != NA ?
			   (double)mem[MI_SWAP_USED] : NAN,
		[S_FREE] = mem[MI_FREE] == NA ? NAN : (double)mem[MI_FREE],
		[S_AVAIL] = mem[MI_AVAIL] == NA ? NAN : (double)mem[MI_AVAIL],
		[S_MAJ] = s->rates.majflt,
		[S_MIN] = s->rates.minflt,
		[S_KSWAPD] = s->rates.kswapd_pct,
	};
	for (int i = 0; i < NSERIES; i++) {
		series_push(&s->view[i], t, v[i]);
		if (s->running)
			series_push(&s->run[i], t, v[i]);
	}

	if (s->running) {
		result_observe(&s->res, &s->cur);
		for (int i = 0; i < s->wl.n; i++)
			if (s->wl.w[i].end == END_RUNNING &&
			    sampler_proc(s->smp, s->wl.w[i].pid, &s->ps[i]) == 0)
				s->ps[i].alive = true;
	}
	return 0;
}

static int start_run(struct session *s, char *err, size_t errlen)
{
	struct workload_cfg cfg = {
		.nelems = s->o->nelems,
		.procs = s->o->argv ? 1 : s->o->procs,
		.seed = s->o->seed,
		.argv = s->o->argv,
		.out_fd = s->out_fd,
	};

	if (sample(s)) {
		snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
		return -1;
	}
	result_begin(&s->res, &s->cur);
	for (int i = 0; i < NSERIES; i++)
		series_clear(&s->run[i]);
	s->started = time(NULL);
	workload_free(&s->wl);	/* the previous run's, kept until now for display */
	if (workload_start(&s->wl, &cfg)) {
		snprintf(err, errlen, "%s", s->wl.err);
		return -1;
	}
	free(s->ps);
	s->ps = calloc((size_t)s->wl.n, sizeof(*s->ps));
	if (!s->ps) {
		workload_stop(&s->wl);
		workload_free(&s->wl);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < s->wl.n; i++) {
		s->ps[i].pid = s->wl.w[i].pid;
		s->ps[i].rss_kib = s->ps[i].swap_kib = s->ps[i].majflt = s->ps[i].minflt = NA;
		sampler_watch(s->smp, s->wl.w[i].pid);
	}
	s->running = true;
	s->run_no++;
	s->batch_left--;
	s->repeat_k++;
	/* The first sample of the run's own series. */
	for (int i = 0; i < NSERIES; i++)
		series_push(&s->run[i], s->cur.t, series_last(&s->view[i]));
	return 0;
}

/* Prints a run the way the seeds posted them: any OOM and verify messages,
 * the time line, then the kswapd line. */
static void print_run(struct session *s, FILE *out)
{
	char line[256], ksw[64];
	const struct timeline *tl = &s->res.tl;

	for (int i = 0; i < s->wl.n; i++) {
		const struct worker *w = &s->wl.w[i];

		if (w->end == END_OOM)
			fprintf(out, "Out of Memory: Killed process %d (thrashtop).\n", (int)w->pid);
		else if (w->end == END_VERIFY && s->wl.prog)
			fprintf(stderr, "ERROR: i = %ld\n*** WARNING *** %ld errors.\n",
				atomic_load(&s->wl.prog[i].first_bad),
				atomic_load(&s->wl.prog[i].errors));
	}
	switch (s->o->format) {
	case OUT_CSH: timefmt_csh(line, sizeof(line), tl); break;
	case OUT_GNU: timefmt_gnu(line, sizeof(line), tl); break;
	case OUT_GNU_FULL: timefmt_gnu_default(line, sizeof(line), tl); break;
	}
	timefmt_kswapd(ksw, sizeof(ksw), s->res.kswapd_s);
	fprintf(out, "%s\n%s\n", line, ksw);
	fflush(out);
}

static void remember_run(struct session *s)
{
	char line[256], ksw[64], buf[400];
	char **d;

	timefmt_csh(line, sizeof(line), &s->res.tl);
	timefmt_kswapd(ksw, sizeof(ksw), s->res.kswapd_s);
	snprintf(buf, sizeof(buf), "#%d %s  %s  %s", s->run_no, line, ksw,
		 run_status_name(s->res.status));
	d = realloc(s->done, sizeof(*d) * (size_t)(s->ndone + 1));
	if (!d)
		return;
	s->done = d;
	if ((d[s->ndone] = strdup(buf)))
		s->ndone++;
}

/* Keeps the run in the history. A failure is said in one line; the result
 * itself has been printed or shown already. */
static void store_run(struct session *s)
{
	struct run_record r;
	struct record_input in = {
		.res = &s->res,
		.wl = &s->wl,
		.sys = &s->sys,
		.started = s->started,
		.label = s->o->label,
		.command = s->o->argv ? s->workload_desc : NULL,
		.repeat_k = s->repeat_k,
		.repeat_n = s->repeat_n,
		.mem_limit_kib = HIST_NA,
		.global_limit_kib = HIST_NA,
		.series = {
			[RS_SWAP_USED] = &s->run[S_SWAP],
			[RS_MEM_FREE] = &s->run[S_FREE],
			[RS_MEM_AVAIL] = &s->run[S_AVAIL],
			[RS_MAJFLT] = &s->run[S_MAJ],
			[RS_MINFLT] = &s->run[S_MIN],
			[RS_KSWAPD] = &s->run[S_KSWAPD],
		},
	};
	char err[512];

	if (!s->hist)
		return;
	run_record_init(&r);
	if (record_build(&r, &in))
		snprintf(err, sizeof(err), "out of memory");
	else if (history_add(s->hist, &r, err, sizeof(err)) >= 0)
		err[0] = '\0';
	run_record_clear(&r);
	if (!err[0])
		return;
	if (s->tui)
		set_status(s, true, "history: %s (run %d not kept)", err, s->run_no);
	else
		fprintf(stderr, "thrashtop: history: %s (run not kept)\n", err);
}

static void finish_run(struct session *s, bool aborted)
{
	if (aborted)
		workload_stop(&s->wl);
	sample(s);
	result_finish(&s->res, &s->wl, &s->cur, 0, aborted);
	for (int i = 0; i < s->wl.n; i++)
		sampler_unwatch(s->smp, s->wl.w[i].pid);
	if (s->res.status != RUN_OK && s->res.status != RUN_ABORTED)
		s->nfailed_runs++;
	if (s->tui)
		remember_run(s);
	else
		print_run(s, stdout);
	store_run(s);
	s->running = false;
}

static void fill_model(struct session *s)
{
	struct ui_model *m = &s->m;
	double now = now_monotonic();

	m->elapsed = s->running ? now - s->wl.t_start :
		     s->wl.n ? s->wl.t_end - s->wl.t_start : 0;
	m->interval = s->o->interval;
	m->run = s->run_no;
	m->nruns = s->o->repeat > 1 ? s->o->repeat : 0;
	m->plot[UI_PLOT_SWAP].scale = (double)s->cur.mem[MI_SWAP_TOTAL];
	m->plot[UI_PLOT_SWAP].na = s->cur.mem[MI_SWAP_TOTAL] == NA ? "swap n/a" :
				   s->cur.mem[MI_SWAP_TOTAL] == 0 ? "no swap" : NULL;
	m->plot[UI_PLOT_FREE].scale = m->plot[UI_PLOT_AVAIL].scale = (double)s->cur.mem[MI_TOTAL];
	m->plot[UI_PLOT_KSWAPD].na = s->cur.nkswapd > 0 ? NULL : "kswapd not visible (n/a)";

	for (int i = 0; i < s->wl.n; i++) {
		struct ui_worker *r = &s->rows[i];
		const struct worker *w = &s->wl.w[i];
		const struct proc_sample *p = &s->ps[i];
		long tck = sysconf(_SC_CLK_TCK);

		r->pid = w->pid;
		r->end = w->end;
		r->code = w->end == END_SIGNAL || w->end == END_OOM ? WTERMSIG(w->status) :
			  w->end != END_RUNNING && WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 0;
		r->elapsed = (w->end == END_RUNNING ? now : w->t_end) - s->wl.t_start;
		if (s->wl.prog) {
			r->phase = sort_phase_name(atomic_load(&s->wl.prog[i].phase));
			r->frac = sort_progress_fraction(&s->wl.prog[i]);
		} else {
			r->phase = NULL;
			r->frac = NAN;
		}
		if (w->end == END_RUNNING) {
			r->state = p->alive ? p->state : 0;
			r->cpu_s = p->alive ? (double)(p->utime_ticks + p->stime_ticks) / (double)tck : NAN;
			r->majflt = p->alive ? p->majflt : NA;
			r->minflt = p->alive ? p->minflt : NA;
			r->rss_kib = p->alive ? p->rss_kib : NA;
			r->swap_kib = p->alive ? p->swap_kib : NA;
		} else {
			r->state = 0;
			r->cpu_s = (double)(w->ru.ru_utime.tv_sec + w->ru.ru_stime.tv_sec) +
				   (double)(w->ru.ru_utime.tv_usec + w->ru.ru_stime.tv_usec) / 1e6;
			r->majflt = w->ru.ru_majflt;
			r->minflt = w->ru.ru_minflt;
			r->rss_kib = r->swap_kib = NA;
		}
	}
	m->workers = s->rows;
	m->nworkers = s->wl.n;
	m->done = (const char *const *)s->done;
	m->ndone = s->ndone;
}

static void change_interval(struct session *s, int dir)
{
	static const double steps[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
	const int n = (int)(sizeof(steps) / sizeof(steps[0]));
	int i = 0;

	while (i < n - 1 && steps[i] < s->o->interval - 1e-9)
		i++;
	i += dir;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	s->o->interval = steps[i];
	set_status(s, false, "interval %.2f s", s->o->interval);
}

/* A history that cannot be opened costs the history, not the session. */
static void open_history(struct session *s)
{
	char path[4096], err[512];
	const char *p = s->o->history;

	if (!p && !(p = history_default_path(path, sizeof(path), err, sizeof(err)))) {
		fprintf(stderr, "thrashtop: history: %s (runs will not be kept)\n", err);
		return;
	}
	s->hist = history_open(p, 0, err, sizeof(err));
	if (!s->hist) {
		fprintf(stderr, "thrashtop: history: %s (runs will not be kept)\n", err);
		if (s->tui)
			set_status(s, true, "history: %s (runs will not be kept)", err);
	}
}

static int setup(struct session *s, char *err, size_t errlen)
{
	struct options *o = s->o;

	s->smp = sampler_new(err, errlen);
	if (!s->smp)
		return -1;
	if (sysstate_read(&s->sys, err, errlen))
		return -1;
	if (!o->procs)
		o->procs = s->sys.cpus_online > 0 ? s->sys.cpus_online : 1;
	if (!o->argv && !o->nelems) {
		struct sys_sample now;
		if (sampler_sys(s->smp, &now))
			return snprintf(err, errlen, "cannot read memory figures"), -1;
		o->nelems = default_nelems(o->procs, now.mem[MI_AVAIL]);
	}
	for (int i = 0; i < NSERIES; i++)
		if (series_init(&s->view[i], VIEW_CAP) || series_init(&s->run[i], RUN_CAP))
			return snprintf(err, errlen, "out of memory"), -1;
	if (!o->no_history)
		open_history(s);
	s->rows = calloc((size_t)(o->argv ? 1 : o->procs), sizeof(*s->rows));
	if (!s->rows)
		return snprintf(err, errlen, "out of memory"), -1;
	describe_workload(s);
	describe_swaps(s);
	s->out_fd = -1;
	if (s->tui && o->argv) {
		/* The command's own output would tear the screen: keep it in a
		 * file the user is told about. */
		const char *dir = getenv("TMPDIR");
		snprintf(s->out_path, sizeof(s->out_path), "%s/thrashtop-%d.log",
			 dir && *dir ? dir : "/tmp", (int)getpid());
		s->out_fd = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (s->out_fd < 0)
			return snprintf(err, errlen, "cannot create %s: %s", s->out_path,
					strerror(errno)), -1;
		set_status(s, false, "command output: %s", s->out_path);
	}

	struct ui_model *m = &s->m;
	m->host = s->sys.hostname;
	m->kernel = s->sys.release;
	m->ram_kib = s->sys.mem_total_kib;
	m->swap_kib = s->sys.swap_total_kib;
	m->swapdevs = s->swapdevs;
	m->swappiness = sysstate_vm(&s->sys, "vm.swappiness");
	m->workload = s->workload_desc;
	m->plot[UI_PLOT_SWAP].s = &s->view[S_SWAP];
	m->plot[UI_PLOT_FREE].s = &s->view[S_FREE];
	m->plot[UI_PLOT_AVAIL].s = &s->view[S_AVAIL];
	m->plot[UI_PLOT_MAJFLT].s = &s->view[S_MAJ];
	m->plot[UI_PLOT_MINFLT].s = &s->view[S_MIN];
	m->plot[UI_PLOT_KSWAPD].s = &s->view[S_KSWAPD];
	m->plot[UI_PLOT_KSWAPD].scale = 100;
	return 0;
}

static void teardown(struct session *s)
{
	if (s->running) {
		workload_stop(&s->wl);
		s->running = false;
	}
	workload_free(&s->wl);
	ui_end();
	for (int i = 0; i < NSERIES; i++) {
		series_free(&s->view[i]);
		series_free(&s->run[i]);
	}
	if (s->hist)
		history_close(s->hist);
	for (int i = 0; i < s->ndone; i++)
		free(s->done[i]);
	free(s->done);
	free(s->rows);
	free(s->ps);
	if (s->out_fd >= 0)
		close(s->out_fd);
	if (s->smp)
		sampler_free(s->smp);
}

static void install_signals(sigset_t *wait_mask)
{
	struct sigaction sa = { 0 };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	/* Delivered only inside ppoll, so a flag is never missed between the
	 * check and the wait. */
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGHUP);
	sigdelset(wait_mask, SIGCHLD);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The event loop: samples on schedule, reaps on SIGCHLD, reads keys. */
static int loop(struct session *s, const sigset_t *wait_mask, char *err, size_t errlen)
{
	double next = now_monotonic();

	for (;;) {
		struct pollfd pfd = { .fd = s->tui ? ui_fd() : -1, .events = POLLIN };
		double wait = next - now_monotonic();
		struct timespec ts;

		if (wait < 0)
			wait = 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		if (ppoll(&pfd, 1, &ts, wait_mask) < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
		if (got_signal)
			return 0;
		if (got_child) {
			got_child = 0;
			if (s->running && workload_reap(&s->wl) == 0) {
				finish_run(s, false);
				if (s->batch_left > 0) {
					if (start_run(s, err, errlen))
						return -1;
				} else if (!s->tui) {
					return 0;
				}
			}
		}
		if (s->tui && (pfd.revents & POLLIN)) {
			enum ui_action a;
			while ((a = ui_read_input(&s->m)) != UI_NONE) {
				switch (a) {
				case UI_QUIT:
					return 0;
				case UI_RERUN:
					if (s->running) {
						set_status(s, false, "a run is in progress");
					} else {
						s->batch_left = s->repeat_n = 1;
						s->repeat_k = 0;
						if (start_run(s, err, errlen))
							return -1;
						set_status(s, false, "run %d started", s->run_no);
					}
					break;
				case UI_FASTER:
				case UI_SLOWER:
					change_interval(s, a == UI_FASTER ? -1 : 1);
					next = now_monotonic() + s->o->interval;
					break;
				default:
					break;
				}
			}
			fill_model(s);
			ui_draw(&s->m);
		}
		if (now_monotonic() >= next) {
			if (sample(s)) {
				snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
				return -1;
			}
			next += s->o->interval;
			if (next < now_monotonic())
				next = now_monotonic() + s->o->interval;
			if (s->tui) {
				fill_model(s);
				ui_draw(&s->m);
			}
		}
	}
}

int app_run(struct options *o)
{
	struct session s = { .o = o, .out_fd = -1 };
	char err[512] = "";
	sigset_t wait_mask;

	s.tui = !o->batch;
	if (setup(&s, err, sizeof(err)))
		goto fail;
	install_signals(&wait_mask);
	if (s.tui && ui_init(err, sizeof(err)))
		goto fail;
	s.batch_left = s.repeat_n = o->repeat;
	if (start_run(&s, err, sizeof(err)))
		goto fail;
	if (loop(&s, &wait_mask, err, sizeof(err)))
		goto fail;
	if (s.running)
		finish_run(&s, true);
	teardown(&s);
	if (got_signal)
		return 128 + got_signal;
	return s.nfailed_runs ? 1 : 0;
fail:
	teardown(&s);
	fprintf(stderr, "thrashtop: %s\n", err);
	return 2;
}
