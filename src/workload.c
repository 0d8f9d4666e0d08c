#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procparse.h"
#include "sysio.h"
#include "watchdog.h"
#include "workload.h"

/* What a command child reports through the close-on-exec pipe. */
enum child_stage {
	STAGE_STDIN,
	STAGE_OUT,
	STAGE_EXEC,
};

struct child_report {
	int stage;
	int err;
};

double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static _Noreturn void report_and_exit(int fd, int stage, int err, int code)
{
	struct child_report rep = { stage, err };

	if (fd >= 0 && write(fd, &rep, sizeof rep) < 0)
		code = 126;
	_exit(code);
}

static void reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	/* Every disposition back to default, SIG_IGN included (it survives
	 * exec); sigaction fails harmlessly on SIGKILL, SIGSTOP and the
	 * signals the C library reserves. */
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static _Noreturn void child_main(const struct workload *wl, int k, pid_t parent, int errfd)
{
	const struct workload_cfg *cfg = &wl->cfg;
	int fd;
	char go;

	setpgid(0, wl->w[k].pgid);
	/* The parent may have died before the death signal was armed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(126);
	reset_signals();
	/* The monitor may run at a raised priority; the workload runs at the
	 * one it was started with, every worker alike. */
	if (cfg->set_nice && setpriority(PRIO_PROCESS, 0, cfg->nice) < 0)
		_exit(126);

	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || (fd != STDIN_FILENO && dup2(fd, STDIN_FILENO) < 0))
		report_and_exit(errfd, STAGE_STDIN, errno, 126);
	if (fd != STDIN_FILENO)
		close(fd);
	if (cfg->out_fd > 0) {
		int efd = cfg->err_fd > 0 ? cfg->err_fd : cfg->out_fd;

		if (dup2(cfg->out_fd, STDOUT_FILENO) < 0 || dup2(efd, STDERR_FILENO) < 0)
			report_and_exit(errfd, STAGE_OUT, errno, 126);
		if (cfg->out_fd > STDERR_FILENO)
			close(cfg->out_fd);
		if (efd > STDERR_FILENO && efd != cfg->out_fd)
			close(efd);
	}

	if (cfg->in_child && cfg->in_child(cfg->in_child_arg) != 0)
		_exit(126);

	if (cfg->argv) {
		/* The terminal is the monitor's screen, which a command that
		 * opened /dev/tty would write over; in batch, one that read it
		 * from its own process group would be stopped for good. With
		 * no controlling terminal that open fails (ENXIO). */
		fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			ioctl(fd, TIOCNOTTY);
			close(fd);
		}
		/* Keep the monitor's own descriptors out of the command; on a
		 * kernel without close_range they merely stay open. */
		close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC);
		execvp(cfg->argv[0], cfg->argv);
		report_and_exit(errfd, STAGE_EXEC, errno, 127);
	}

	/* The start barrier: every sorter waits here until the last one is
	 * forked and the write end closes. */
	close(wl->bar[1]);
	while (read(wl->bar[0], &go, 1) < 0 && errno == EINTR)
		;
	close(wl->bar[0]);
	switch (sorter_run_fill(cfg->nelems, cfg->seed, &cfg->fill, &wl->prog[k])) {
	case 0:
		_exit(0);
	case 1:
		_exit(2);
	default:
		_exit(1);
	}
}

static void record_end(struct workload *wl, struct worker *w, int status, const struct rusage *ru)
{
	w->status = status;
	w->t_end = now_monotonic();
	if (ru)
		w->ru = *ru;
	else
		memset(&w->ru, 0, sizeof w->ru);
	if (status == -1)
		w->end = END_EXIT;
	else if (WIFSIGNALED(status))
		w->end = END_SIGNAL;
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		w->end = END_OK;
	else if (!wl->cfg.argv && WIFEXITED(status) && WEXITSTATUS(status) == 2)
		w->end = END_VERIFY;
	else
		w->end = END_EXIT;
	if (--wl->running == 0)
		wl->t_end = w->t_end;
}

/* The worker's delay totals, read while it is a zombie. */
static void take_delays(const struct workload *wl, struct worker *w)
{
	char err[256];

	if (wl->cfg.ts &&
	    taskstats_query_exited(wl->cfg.ts, w->pid, &w->delays, w->delays_past, err,
				   sizeof err) < 0)
		delays_clear(&w->delays);
}

/* Blocking reap of one worker that is known to have exited or been killed:
 * waited for without reaping, its delays taken, then reaped. */
static void reap_one(struct workload *wl, struct worker *w)
{
	struct rusage ru;
	siginfo_t si;
	int status;
	pid_t r;

	memset(&si, 0, sizeof si);
	while (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	if (si.si_pid == w->pid)
		take_delays(wl, w);
	do
		r = wait4(w->pid, &status, 0, &ru);
	while (r < 0 && errno == EINTR);
	if (r == w->pid)
		record_end(wl, w, status, &ru);
	else
		record_end(wl, w, -1, NULL);
}

static void kill_group(pid_t pid, int sig)
{
	/* ESRCH: the child never became a group leader (both setpgid calls
	 * failed), so only the process itself can be signalled. */
	if (kill(-pid, sig) < 0 && errno == ESRCH)
		kill(pid, sig);
}

/* The process groups of the live workers, each once; the sorters share
 * one, so this is usually a single group. */
static int live_groups(const struct workload *wl, pid_t *g)
{
	int n = 0;

	for (int k = 0; k < wl->n; k++) {
		const struct worker *w = &wl->w[k];
		int i = 0;

		if (w->end != END_RUNNING)
			continue;
		while (i < n && g[i] != w->pgid)
			i++;
		if (i == n)
			g[n++] = w->pgid;
	}
	return n;
}

static struct worker *worker_of(struct workload *wl, pid_t pid)
{
	for (int k = 0; k < wl->n; k++)
		if (wl->w[k].pid == pid && wl->w[k].end == END_RUNNING)
			return &wl->w[k];
	return NULL;
}

/* Reaps the sorters of group pg that have exited; with block, waits for
 * all of them. Once the group has no child left, its workers still
 * running are ones that never joined it (they died at once), or that
 * someone else reaped (status -1): each is waited for by its pid. */
static void reap_group(struct workload *wl, pid_t pg, bool block)
{
	for (;;) {
		struct rusage ru;
		struct worker *w;
		siginfo_t si;
		int status;
		pid_t r;

		/* the exited one stays a zombie until its delays are taken */
		memset(&si, 0, sizeof si);
		r = waitid(P_PGID, (id_t)pg, &si, WEXITED | WNOWAIT | (block ? 0 : WNOHANG));
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && si.si_pid > 0) {
			if ((w = worker_of(wl, si.si_pid)))
				take_delays(wl, w);
			while ((r = wait4(si.si_pid, &status, 0, &ru)) < 0 && errno == EINTR)
				;
		}
		if (r <= 0) {
			if (r < 0 && errno == ECHILD)
				for (int k = 0; k < wl->n; k++) {
					struct worker *x = &wl->w[k];

					if (x->end != END_RUNNING || x->pgid != pg)
						continue;
					if (block) {
						reap_one(wl, x);
						continue;
					}
					memset(&si, 0, sizeof si);
					if (waitid(P_PID, (id_t)x->pid, &si,
						   WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == x->pid)
						take_delays(wl, x);
					r = wait4(x->pid, &status, WNOHANG, &ru);
					if (r == x->pid)
						record_end(wl, x, status, &ru);
					else if (r < 0)
						record_end(wl, x, -1, NULL);
				}
			return;
		}
		if ((w = worker_of(wl, r)))
			record_end(wl, w, status, &ru);
	}
}

static bool is_worker(const struct workload *wl, pid_t pid)
{
	for (int k = 0; k < wl->n; k++)
		if (wl->w[k].pid == pid && wl->w[k].end == END_RUNNING)
			return true;
	return false;
}

/* A child of ours the workload left: no running worker, nor the spare. */
static bool is_stray(const struct workload *wl, pid_t pid)
{
	return !is_worker(wl, pid) && pid != wl->cfg.spare;
}

/* Our children that are no running worker: a command's descendants that
 * left its process group (setsid) and came to us, the child subreaper,
 * when their parent died. The main thread forks every worker, and orphans
 * go to the first live thread of their reaper, the main thread again, so
 * its children file lists them all. */
int workload_strays(const struct workload *wl, pid_t *out, int max)
{
	char path[64], buf[8192], *p, *end;
	ssize_t len;
	int fd, n = 0;

	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = '\0';
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > 0 && is_stray(wl, (pid_t)v))
			out[n++] = (pid_t)v;
	}
	return n;
}

void workload_kill_strays(struct workload *wl)
{
	pid_t p[256];
	int n;

	/* Each round's victims hand their own children to us as they die. */
	for (int round = 0; round < 64 && (n = workload_strays(wl, p, 256)) > 0; round++) {
		for (int i = 0; i < n; i++) {
			kill(-p[i], SIGKILL);
			kill(p[i], SIGKILL);
		}
		for (int i = 0; i < n; i++)
			while (waitpid(p[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
}

/* Processes a command leaves running as it ends, not zombies: the rest of
 * its process group (leader's pgid) and what came to us orphaned. Read
 * once, at the command's end, before they are killed. */
static int left_running(const struct workload *wl, pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], buf[1024];
		struct pstat ps;
		ssize_t len;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if ((len = sysio_read(path, buf, sizeof(buf))) <= 0 ||
		    procparse_stat(buf, (size_t)len, &ps) < 0 || ps.pid == pgid || ps.state == 'Z')
			continue;
		n += ps.pgrp == pgid || (ps.ppid == getpid() && is_stray(wl, ps.pid));
	}
	if (d)
		closedir(d);
	return n;
}

int workload_reap(struct workload *wl)
{
	bool ended = false;

	if (!wl->cfg.argv) {
		pid_t g[WORKLOAD_MAX_PROCS];

		for (int i = 0, n = live_groups(wl, g); i < n; i++)
			reap_group(wl, g[i], false);
		return wl->running;
	}
	for (int k = 0; k < wl->n; k++) {
		struct worker *w = &wl->w[k];
		siginfo_t si;

		if (w->end != END_RUNNING)
			continue;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == ECHILD) {
				/* its leader reaped elsewhere: no longer ours to kill */
				watchdog_forget(w->pid);
				record_end(wl, w, -1, NULL);
			}
			continue;
		}
		if (si.si_pid == 0)
			continue;
		/* The unreaped leader keeps its group id from being reused, so
		 * this reaches only what the worker left behind. */
		wl->left += left_running(wl, w->pid);
		kill(-w->pid, SIGKILL);
		watchdog_forget(w->pid);
		reap_one(wl, w);
		ended = true;
	}
	if (ended && wl->cfg.argv)
		workload_kill_strays(wl);
	return wl->running;
}

void workload_signal(struct workload *wl, int sig)
{
	pid_t g[WORKLOAD_MAX_PROCS];

	for (int i = 0, n = live_groups(wl, g); i < n; i++)
		kill_group(g[i], sig);
}

void workload_stop(struct workload *wl)
{
	pid_t g[WORKLOAD_MAX_PROCS];
	int prio, n = live_groups(wl, g);

	/* One kill per group: a monitor that gets only its share of a CPU
	 * among a thousand sorters must not spend it on a kill each. */
	for (int i = 0; i < n; i++) {
		kill_group(g[i], SIGKILL);
		watchdog_forget(g[i]);
	}
	/* A killed worker still has to be scheduled to exit: at the monitor's
	 * priority it is not kept waiting behind the rest of a loaded
	 * machine. Only once killed, or it would sort on at that priority;
	 * allowed only as root, harmless otherwise. */
	errno = 0;
	prio = getpriority(PRIO_PROCESS, 0);
	if (prio != -1 || errno == 0)
		for (int i = 0; i < n; i++)
			setpriority(PRIO_PGRP, (id_t)g[i], prio);
	if (wl->cfg.argv) {
		if (wl->n && wl->w[0].end == END_RUNNING)
			reap_one(wl, &wl->w[0]);
		workload_kill_strays(wl);
		return;
	}
	for (int i = 0; i < n; i++)
		reap_group(wl, g[i], true);
}

static void close_barrier(struct workload *wl)
{
	if (!wl->barrier)
		return;
	close(wl->bar[0]);
	close(wl->bar[1]);
	wl->barrier = false;
}

void workload_free(struct workload *wl)
{
	if (wl->running > 0)
		workload_stop(wl);
	close_barrier(wl);
	if (wl->prog)
		munmap(wl->prog, (size_t)wl->cfg.procs * sizeof *wl->prog);
	free(wl->w);
	wl->prog = NULL;
	wl->w = NULL;
	wl->n = 0;
}

static int fail(struct workload *wl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fills wl->err, undoes everything started, returns -1 with errno = err. */
static int fail(struct workload *wl, int err, const char *fmt, ...)
{
	char msg[sizeof wl->err];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	workload_free(wl);
	memcpy(wl->err, msg, sizeof msg);
	errno = err;
	return -1;
}

static int check_cfg(struct workload *wl, const struct workload_cfg *cfg)
{
	if (cfg->procs < 1 || cfg->procs > WORKLOAD_MAX_PROCS)
		return fail(wl, EINVAL, "the number of processes must be 1..%d, got %d",
			    WORKLOAD_MAX_PROCS, cfg->procs);
	if (cfg->argv && !cfg->argv[0])
		return fail(wl, EINVAL, "empty command");
	if (cfg->argv && cfg->procs != 1)
		return fail(wl, EINVAL, "a command runs as one process, got %d processes",
			    cfg->procs);
	if (!cfg->argv && cfg->nelems < 0)
		return fail(wl, EINVAL, "the number of elements must be >= 0, got %ld",
			    cfg->nelems);
	return 0;
}

/* Waits for a command child to exec (EOF) or report why it could not. */
static int wait_exec(struct workload *wl, int rfd)
{
	const char *cmd = wl->cfg.argv[0];
	struct child_report rep;
	ssize_t r;

	do
		r = read(rfd, &rep, sizeof rep);
	while (r < 0 && errno == EINTR);
	close(rfd);
	if (r == 0)
		return 0;
	if (r != (ssize_t)sizeof rep)
		return fail(wl, r < 0 ? errno : EIO, "cannot start '%s': lost contact with the child",
			    cmd);
	switch (rep.stage) {
	case STAGE_STDIN:
		return fail(wl, rep.err, "cannot open /dev/null for '%s': %s", cmd,
			    strerror(rep.err));
	case STAGE_OUT:
		return fail(wl, rep.err, "cannot redirect the output of '%s': %s", cmd,
			    strerror(rep.err));
	default:
		return fail(wl, rep.err, "cannot run '%s': %s", cmd, strerror(rep.err));
	}
}

int workload_begin(struct workload *wl, const struct workload_cfg *cfg)
{
	memset(wl, 0, sizeof *wl);
	if (!cfg) {
		snprintf(wl->err, sizeof wl->err, "no workload configuration");
		errno = EINVAL;
		return -1;
	}
	if (check_cfg(wl, cfg) < 0)
		return -1;
	wl->cfg = *cfg;

	wl->w = calloc((size_t)cfg->procs, sizeof *wl->w);
	if (!wl->w)
		return fail(wl, errno, "cannot allocate the worker table: %s", strerror(errno));
	for (int k = 0; k < cfg->procs; k++)
		delays_clear(&wl->w[k].delays);
	if (cfg->argv)
		return 0;
	void *m = mmap(NULL, (size_t)cfg->procs * sizeof *wl->prog, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return fail(wl, errno, "cannot map the progress array: %s", strerror(errno));
	wl->prog = m;
	for (int k = 0; k < cfg->procs; k++) {
		wl->prog[k].n = cfg->nelems;
		atomic_init(&wl->prog[k].phase, PHASE_START);
		atomic_init(&wl->prog[k].done, 0);
		atomic_init(&wl->prog[k].errors, 0);
		atomic_init(&wl->prog[k].first_bad, -1);
	}
	if (pipe2(wl->bar, O_CLOEXEC) < 0)
		return fail(wl, errno, "cannot create the start barrier: %s", strerror(errno));
	wl->barrier = true;
	return 0;
}

/* A command: one process, started at once; its exec is confirmed (or its
 * failure reported) through a close-on-exec pipe. */
static int start_command(struct workload *wl, pid_t parent)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return fail(wl, errno, "cannot create a pipe: %s", strerror(errno));
	wl->t_start = now_monotonic();
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(pfd[0]);
		close(pfd[1]);
		return fail(wl, err, "cannot fork '%s': %s", wl->cfg.argv[0], strerror(err));
	}
	if (pid == 0) {
		close(pfd[0]);
		child_main(wl, 0, parent, pfd[1]);
	}
	setpgid(pid, pid);
	watchdog_watch(pid);
	wl->w[0].pid = wl->w[0].pgid = pid;
	wl->w[0].end = END_RUNNING;
	wl->n = wl->running = 1;
	close(pfd[1]);
	return wait_exec(wl, pfd[0]);
}

int workload_fork(struct workload *wl, double until)
{
	pid_t parent = getpid();

	if (wl->cfg.argv)
		return wl->n ? 1 : start_command(wl, parent) < 0 ? -1 : 1;
	while (wl->n < wl->cfg.procs) {
		int k = wl->n;
		pid_t pid;

		/* The sorters share the first one's process group, so that one
		 * kill stops them all; 0 makes a group of its own. */
		wl->w[k].pgid = k ? wl->w[k - 1].pgid : 0;
		pid = fork();

		if (pid < 0) {
			int err = errno;

			return fail(wl, err, "cannot fork worker %d of %d: %s", k + 1,
				    wl->cfg.procs, strerror(err));
		}
		if (pid == 0)
			child_main(wl, k, parent, -1);
		/* Also here, so the group exists before we return whichever
		 * runs first. The group is gone only if all its workers died
		 * during the start: this one begins a new one. */
		if (setpgid(pid, wl->w[k].pgid) < 0 && wl->w[k].pgid) {
			setpgid(pid, pid);
			wl->w[k].pgid = 0;
		}
		if (!wl->w[k].pgid)
			wl->w[k].pgid = pid;
		wl->w[k].pid = pid;
		wl->w[k].end = END_RUNNING;
		wl->n++;
		wl->running++;
		if (wl->n < wl->cfg.procs && now_monotonic() >= until)
			return 0;
	}
	/* Every worker waits at the barrier: closing it starts them together. */
	close_barrier(wl);
	wl->t_start = now_monotonic();
	return 1;
}

int workload_start(struct workload *wl, const struct workload_cfg *cfg)
{
	if (workload_begin(wl, cfg) < 0)
		return -1;
	return workload_fork(wl, INFINITY) < 0 ? -1 : 0;
}
