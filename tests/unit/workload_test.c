#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "workload.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Polls workload_reap until nothing runs or the timeout passes. */
static int reap_until_done(struct workload *wl, double timeout_s)
{
	double end = now_monotonic() + timeout_s;

	while (workload_reap(wl) > 0) {
		if (now_monotonic() > end)
			return -1;
		sleep_ms(5);
	}
	return 0;
}

/* Made subreaper, the test inherits the processes a workload leaves behind:
 * reaps them (up to timeout_s) and returns how many, or -1 if one of them
 * did not die of SIGKILL. */
static int reap_orphans(double timeout_s)
{
	double end = now_monotonic() + timeout_s;
	int n = 0, status;
	pid_t r;

	while ((r = waitpid(-1, &status, WNOHANG)) >= 0 && now_monotonic() < end) {
		if (r == 0) {
			sleep_ms(5);
			continue;
		}
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			return -1;
		n++;
	}
	return n;
}

static int no_children_left(void)
{
	errno = 0;
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

TEST(workload_sorters_run_to_done)
{
	struct workload_cfg cfg = { .nelems = 2000000, .procs = 2, .seed = 3 };
	struct workload wl;
	double t0 = now_monotonic();

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(wl.n, 2);
	CHECK(wl.prog != NULL);
	CHECK_INT(reap_until_done(&wl, 60), 0);
	CHECK_INT(wl.running, 0);
	for (int k = 0; k < wl.n; k++) {
		struct worker *w = &wl.w[k];

		CHECK_STR(worker_end_name(w->end), "ok");
		CHECK(WIFEXITED(w->status) && WEXITSTATUS(w->status) == 0);
		/* 2M elements take ~0.2 s of user time even optimised. */
		CHECK(w->ru.ru_utime.tv_sec > 0 || w->ru.ru_utime.tv_usec > 10000);
		CHECK(w->ru.ru_maxrss >= 2000000L * 4 / 1024);
		CHECK(w->t_end >= wl.t_start && w->t_end <= now_monotonic());
		CHECK_INT(atomic_load(&wl.prog[k].phase), PHASE_DONE);
		CHECK_INT(atomic_load(&wl.prog[k].done), 2000000);
		CHECK_INT(atomic_load(&wl.prog[k].errors), 0);
		CHECK_INT(wl.prog[k].n, 2000000);
	}
	CHECK(wl.t_start >= t0 && wl.t_end >= wl.t_start);
	CHECK(wl.t_end == wl.w[0].t_end || wl.t_end == wl.w[1].t_end);
	workload_free(&wl);
	CHECK(no_children_left());
}

TEST(workload_sorter_allocation_failure_exits_1)
{
	/* 2^62 ints do not fit in the address space. */
	struct workload_cfg cfg = { .nelems = 1L << 62, .procs = 1, .seed = 1 };
	struct workload wl;

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(reap_until_done(&wl, 10), 0);
	CHECK_INT(wl.w[0].end, END_EXIT);
	CHECK(WIFEXITED(wl.w[0].status) && WEXITSTATUS(wl.w[0].status) == 1);
	CHECK_INT(atomic_load(&wl.prog[0].phase), PHASE_ALLOC);
	workload_free(&wl);
}

TEST(workload_command_exit_status)
{
	char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK(wl.prog == NULL);
	CHECK_INT(reap_until_done(&wl, 10), 0);
	CHECK_INT(wl.w[0].end, END_EXIT);
	CHECK(WIFEXITED(wl.w[0].status));
	CHECK_INT(WEXITSTATUS(wl.w[0].status), 3);
	workload_free(&wl);
}

TEST(workload_command_exit_2_is_not_verify)
{
	char *argv[] = { "/bin/sh", "-c", "exit 2", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(reap_until_done(&wl, 10), 0);
	CHECK_STR(worker_end_name(wl.w[0].end), "exit");
	workload_free(&wl);
}

TEST(workload_signal_reaches_command)
{
	char *argv[] = { "sleep", "10", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;
	double t0 = now_monotonic();

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(workload_reap(&wl), 1);
	CHECK_INT(getpgid(wl.w[0].pid), wl.w[0].pid);
	workload_signal(&wl, SIGTERM);
	CHECK_INT(reap_until_done(&wl, 5), 0);
	CHECK_INT(wl.w[0].end, END_SIGNAL);
	CHECK(WIFSIGNALED(wl.w[0].status));
	CHECK_INT(WTERMSIG(wl.w[0].status), SIGTERM);
	CHECK(now_monotonic() - t0 < 5);
	workload_free(&wl);
}

/* The child must not inherit an ignored SIGTERM or a blocked mask. */
TEST(workload_child_signals_reset)
{
	char *argv[] = { "sleep", "10", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigset_t block, oldmask;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaction(SIGTERM, &ign, &old);
	sigprocmask(SIG_BLOCK, &block, &oldmask);
	CHECK_INT(workload_start(&wl, &cfg), 0);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(SIGTERM, &old, NULL);

	workload_signal(&wl, SIGTERM);
	CHECK_INT(reap_until_done(&wl, 5), 0);
	CHECK(WIFSIGNALED(wl.w[0].status) && WTERMSIG(wl.w[0].status) == SIGTERM);
	workload_free(&wl);
}

TEST(workload_missing_command_fails_at_start)
{
	char *argv[] = { "thrashtop-no-such-command", "x", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;

	errno = 0;
	CHECK_INT(workload_start(&wl, &cfg), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_STR(wl.err, "cannot run 'thrashtop-no-such-command': No such file or directory");
	CHECK(wl.w == NULL && wl.running == 0);
	/* the session stops and frees whatever the start left */
	workload_stop(&wl);
	workload_free(&wl);
	CHECK(no_children_left());
}

TEST(workload_rejects_bad_cfg)
{
	char *argv[] = { "true", NULL }, *empty[] = { NULL };
	struct workload_cfg cfg = { .nelems = 10, .procs = 0 };
	struct workload wl;

	errno = 0;
	CHECK_INT(workload_start(&wl, &cfg), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_STR(wl.err, "the number of processes must be 1..1024, got 0");
	cfg.procs = WORKLOAD_MAX_PROCS + 1;
	CHECK_INT(workload_start(&wl, &cfg), -1);
	CHECK_INT(errno, EINVAL);
	cfg.procs = 1;
	cfg.nelems = -5;
	CHECK_INT(workload_start(&wl, &cfg), -1);
	CHECK_INT(errno, EINVAL);
	cfg.nelems = 0;
	cfg.argv = empty;
	CHECK_INT(workload_start(&wl, &cfg), -1);
	CHECK_INT(errno, EINVAL);
	cfg.argv = argv;
	cfg.procs = 2;
	CHECK_INT(workload_start(&wl, &cfg), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(workload_start(&wl, NULL), -1);
	CHECK_INT(errno, EINVAL);
	CHECK(no_children_left());
}

TEST(workload_stop_leaves_no_child)
{
	struct workload_cfg cfg = { .nelems = 20000000, .procs = 3, .seed = 1 };
	char *argv[] = { "/bin/sh", "-c", "sleep 30 & sleep 30 & wait", NULL };
	struct workload_cfg ccfg = { .procs = 1, .argv = argv };
	struct workload wl, cwl;

	CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(workload_start(&cwl, &ccfg), 0);
	sleep_ms(200);
	workload_stop(&wl);
	workload_stop(&cwl);
	CHECK_INT(wl.running, 0);
	CHECK_INT(cwl.running, 0);
	for (int k = 0; k < wl.n; k++) {
		CHECK_INT(wl.w[k].end, END_SIGNAL);
		CHECK_INT(WTERMSIG(wl.w[k].status), SIGKILL);
	}
	/* The shell's background sleeps died with its group, and came to us,
	 * the subreaper, to be reaped by workload_stop. */
	CHECK_INT(reap_orphans(0.2), 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	CHECK(no_children_left());
	workload_free(&wl);
	workload_free(&cwl);
}

/* A command that exits leaving a background child: the straggler is killed
 * when the command is reaped. */
TEST(workload_reap_kills_stragglers)
{
	char *argv[] = { "/bin/sh", "-c", "sleep 30 & exit 0", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;

	CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(reap_until_done(&wl, 5), 0);
	CHECK_INT(wl.w[0].end, END_OK);
	CHECK_INT(reap_orphans(0.2), 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	CHECK(no_children_left());
	workload_free(&wl);
}

/* Whether a process with exactly this command line is alive. */
static bool cmdline_alive(const char *a0, const char *a1)
{
	char want[64], path[64], buf[64];
	size_t wn = (size_t)snprintf(want, sizeof want, "%s%c%s", a0, 0, a1) + 1;
	bool found = false;
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && !found && (e = readdir(d))) {
		FILE *f;
		size_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/cmdline", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		found = n == wn && !memcmp(buf, want, wn);
	}
	if (d)
		closedir(d);
	return found;
}

/* A descendant that left the command's session and process group
 * (setsid) is killed with the command all the same. */
TEST(workload_stop_kills_escaped_descendants)
{
	char *argv[] = { "/bin/sh", "-c", "setsid sleep 41.5 & wait", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;
	double end;

	CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	CHECK_INT(workload_start(&wl, &cfg), 0);
	end = now_monotonic() + 5;
	while (!cmdline_alive("sleep", "41.5") && now_monotonic() < end)
		sleep_ms(10);
	CHECK(cmdline_alive("sleep", "41.5"));
	workload_stop(&wl);
	CHECK(!cmdline_alive("sleep", "41.5"));
	CHECK_INT(reap_orphans(0.2), 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	CHECK(no_children_left());
	workload_free(&wl);
}

static int fail_hook(void *arg)
{
	(void)arg;
	return -1;
}

TEST(workload_in_child_failure_exits_126)
{
	struct workload_cfg cfg = { .nelems = 10, .procs = 2, .in_child = fail_hook };
	struct workload wl;

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(reap_until_done(&wl, 5), 0);
	for (int k = 0; k < wl.n; k++) {
		CHECK_INT(wl.w[k].end, END_EXIT);
		CHECK_INT(WEXITSTATUS(wl.w[k].status), 126);
		CHECK_INT(atomic_load(&wl.prog[k].phase), PHASE_START);
	}
	workload_free(&wl);
}

TEST(workload_out_fd_and_stdin)
{
	char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; cat", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv };
	struct workload wl;
	char buf[64] = "";
	int p[2];
	ssize_t r, got = 0;

	CHECK_INT(pipe(p), 0);
	cfg.out_fd = p[1];
	CHECK_INT(workload_start(&wl, &cfg), 0);
	close(p[1]);
	/* cat reads /dev/null, so the shell ends on its own. */
	CHECK_INT(reap_until_done(&wl, 5), 0);
	while ((r = read(p[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0)
		got += r;
	close(p[0]);
	CHECK_STR(buf, "out\nerr\n");
	CHECK_INT(wl.w[0].end, END_OK);
	workload_free(&wl);
}

/* The monitor dies without cleaning up: its workload must die too. */
TEST(workload_dies_with_parent)
{
	char *argv[] = { "sleep", "30", NULL };
	int p[2], status;
	pid_t mid, sleeper = 0, r = 0;
	double end;

	CHECK_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	CHECK_INT(pipe(p), 0);
	mid = fork();
	if (mid == 0) {
		struct workload_cfg cfg = { .procs = 1, .argv = argv };
		struct workload wl;

		close(p[0]);
		if (workload_start(&wl, &cfg) < 0)
			_exit(1);
		if (write(p[1], &wl.w[0].pid, sizeof wl.w[0].pid) != sizeof wl.w[0].pid)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	CHECK(mid > 0);
	CHECK_INT(read(p[0], &sleeper, sizeof sleeper), sizeof sleeper);
	close(p[0]);
	CHECK_INT(waitpid(mid, &status, 0), mid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* As subreaper we inherit the orphan and can read how it ended. */
	end = now_monotonic() + 1;
	while (sleeper > 0 && (r = waitpid(sleeper, &status, WNOHANG)) == 0 && now_monotonic() < end)
		sleep_ms(5);
	CHECK_INT(r, sleeper);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	if (r == 0 && sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	CHECK(no_children_left());
}

TEST(workload_names_and_clock)
{
	double a = now_monotonic(), b;
	struct timespec ts;

	CHECK_STR(worker_end_name(END_RUNNING), "running");
	CHECK_STR(worker_end_name(END_OK), "ok");
	CHECK_STR(worker_end_name(END_VERIFY), "verify");
	CHECK_STR(worker_end_name(END_EXIT), "exit");
	CHECK_STR(worker_end_name(END_SIGNAL), "signal");
	CHECK_STR(worker_end_name(END_OOM), "oom");
	sleep_ms(20);
	b = now_monotonic();
	CHECK(b - a >= 0.019 && b - a < 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	CHECK_NEAR(now_monotonic(), (double)ts.tv_sec + ts.tv_nsec / 1e9, 0.1);
}

/* Forked a slice at a time, sorters wait at the barrier: none starts
 * before the last one is forked, then all do. */
TEST(workload_fork_in_slices_behind_a_barrier)
{
	struct workload_cfg cfg = { .nelems = 100000, .procs = 3, .seed = 1 };
	struct workload wl;

	CHECK_INT(workload_begin(&wl, &cfg), 0);
	CHECK_INT(wl.n, 0);
	CHECK_INT(workload_fork(&wl, 0), 0);	/* one per call at least */
	CHECK_INT(wl.n, 1);
	sleep_ms(300);
	CHECK_INT(atomic_load(&wl.prog[0].phase), PHASE_START);
	CHECK_INT(workload_fork(&wl, 0), 0);
	CHECK_INT(workload_fork(&wl, 0), 1);
	CHECK_INT(wl.n, 3);
	CHECK(wl.t_start > 0);
	CHECK_INT(reap_until_done(&wl, 20), 0);
	for (int k = 0; k < wl.n; k++)
		CHECK_INT(wl.w[k].end, END_OK);
	workload_free(&wl);
	CHECK(no_children_left());
}

/* The sorters share the first one's process group: one kill reaches them
 * all, and each is reaped with its own end, also when one died first. */
TEST(workload_sorters_share_one_group)
{
	struct workload_cfg cfg = { .nelems = 20000000, .procs = 4, .seed = 1 };
	struct workload wl;

	CHECK_INT(workload_start(&wl, &cfg), 0);
	for (int k = 0; k < wl.n; k++) {
		CHECK_INT(getpgid(wl.w[k].pid), wl.w[0].pid);
		CHECK_INT(wl.w[k].pgid, wl.w[0].pid);
	}
	CHECK_INT(kill(wl.w[2].pid, SIGTERM), 0);
	while (workload_reap(&wl) == 4)
		sleep_ms(5);
	CHECK_INT(wl.running, 3);
	CHECK_INT(wl.w[2].end, END_SIGNAL);
	CHECK_INT(WTERMSIG(wl.w[2].status), SIGTERM);
	CHECK_INT(kill(-wl.w[0].pid, SIGKILL), 0);
	CHECK_INT(reap_until_done(&wl, 5), 0);
	for (int k = 0; k < wl.n; k++)
		if (k != 2) {
			CHECK_INT(wl.w[k].end, END_SIGNAL);
			CHECK_INT(WTERMSIG(wl.w[k].status), SIGKILL);
		}
	workload_free(&wl);
	CHECK(no_children_left());
}

/* The workload runs at the nice value it is given, not the monitor's. */
TEST(workload_children_take_their_nice)
{
	char *argv[] = { "/bin/sh", "-c", "test \"$(nice)\" = 7", NULL };
	struct workload_cfg cfg = { .procs = 1, .argv = argv, .set_nice = true, .nice = 7 };
	struct workload wl;

	CHECK_INT(workload_start(&wl, &cfg), 0);
	CHECK_INT(reap_until_done(&wl, 5), 0);
	CHECK_INT(wl.w[0].end, END_OK);
	workload_free(&wl);
}
