#include "balloon.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "undo.h"
#include "fmt.h"
#include "sysio.h"

/* What the balloon child sends after each chunk and at the end. */
struct report {
	int err;		/* errno of the failed step, 0 if none */
	int done;		/* 1: final report */
	long long pinned;	/* bytes locked so far */
	char step[16];		/* the failed step */
};

static void human(long long b, char *buf, size_t len)
{
	if (b >= (1LL << 30) || b <= -(1LL << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1 << 30));
	else
		snprintf(buf, len, "%lld MiB", b / (1 << 20));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* MemTotal and MemAvailable in bytes. */
static int meminfo(long long *total, long long *avail, char *err, size_t errlen)
{
	static const char *const keys[] = { "MemTotal", "MemAvailable" };
	int64_t kib[2];

	if (sysio_meminfo(keys, kib, 2) < 0) {
		fmt_err(err, errlen, "cannot read /proc/meminfo: %s", strerror(errno));
		return -1;
	}
	if (kib[0] < 0 || kib[1] < 0) {
		fmt_err(err, errlen, "/proc/meminfo lacks MemTotal or MemAvailable");
		return -1;
	}
	*total = kib[0] * 1024;
	*avail = kib[1] * 1024;
	return 0;
}

static void send_report(int fd, int e, int done, long long pinned, const char *step)
{
	struct report r = { .err = e, .done = done, .pinned = pinned };

	snprintf(r.step, sizeof r.step, "%s", step);
	/* a report is far below PIPE_BUF: one write, never split */
	if (write(fd, &r, sizeof r) < 0)
		_exit(1);
}

/* Closes every inherited fd but keep1 and keep2, so the balloon holds no
 * pipe or file of its parent open for its lifetime. */
static void close_others(int keep1, int keep2)
{
	int a = keep1 < keep2 ? keep1 : keep2, b = keep1 < keep2 ? keep2 : keep1;

	if (a > 3)
		syscall(SYS_close_range, 3U, (unsigned)a - 1, 0U);
	if (b > a + 1)
		syscall(SYS_close_range, (unsigned)a + 1, (unsigned)b - 1, 0U);
	syscall(SYS_close_range, (unsigned)b + 1, ~0U, 0U);
}

static void balloon_child(pid_t parent, int go, int ready, long long bytes)
{
	long long pinned = 0, step, pagesz = sysconf(_SC_PAGESIZE);
	char c;
	int fd;

	close_others(go, ready);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	setpgid(0, 0);
	/* the parent records us in the undo state before we pin anything */
	if (read(go, &c, 1) != 1)
		_exit(0);
	close(go);
	/* under pressure the OOM killer should take the balloon, not a bystander */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1000", 4) != 4) {
		send_report(ready, errno, 1, 0, "oom_score_adj");
		_exit(1);
	}
	close(fd);
	if (geteuid() == 0) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		/* may fail without CAP_SYS_RESOURCE (containers); CAP_IPC_LOCK
		 * lets mlock pass the limit anyway, and mlock says if not */
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
	/* at least 16 steps, so a failure part-way says how far it got */
	step = bytes / 16 / pagesz * pagesz;
	step = step < (1LL << 20) ? 1LL << 20 : step > BALLOON_CHUNK ? BALLOON_CHUNK : step;
	while (pinned < bytes) {
		size_t chunk = (size_t)(bytes - pinned < step ? bytes - pinned : step);
		void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, -1, 0);

		if (p == MAP_FAILED) {
			send_report(ready, errno, 1, pinned, "mmap");
			_exit(1);
		}
		/* the raw syscall: sanitizer runtimes turn mlock() into a no-op */
		if (syscall(SYS_mlock, p, chunk) < 0) {
			send_report(ready, errno, 1, pinned, "mlock");
			_exit(1);
		}
		pinned += (long long)chunk;
		send_report(ready, 0, pinned == bytes, pinned, "");
	}
	close(ready);
	for (;;)
		pause();
}

static void reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

static void describe_death(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d%s", WTERMSIG(status),
			 WTERMSIG(status) == SIGKILL ? ", likely by the OOM killer" : "");
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/* Whether BYTES may be pinned now: MemAvailable keeps BALLOON_AVAIL_KEEP
 * beside it, and a caller that is not root has the RLIMIT_MEMLOCK for it. */
static int check_room(long long bytes, char *err, size_t errlen)
{
	long long total, avail;
	char h1[32], h2[32], h3[32];
	struct rlimit rl;

	if (meminfo(&total, &avail, err, errlen) < 0)
		return -1;
	if (bytes > avail - BALLOON_AVAIL_KEEP) {
		human(bytes, h1, sizeof h1);
		human(avail, h2, sizeof h2);
		human(avail - BALLOON_AVAIL_KEEP, h3, sizeof h3);
		fmt_err(err, errlen, "refusing to pin %s: MemAvailable is %s and %lld MiB of "
		       "it must stay available (at most %s can be pinned now)", h1, h2,
		       BALLOON_AVAIL_KEEP >> 20, h3);
		return -1;
	}
	if (geteuid() != 0 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && (long long)rl.rlim_cur < bytes) {
		human(bytes, h1, sizeof h1);
		fmt_err(err, errlen, "--global needs root: locking %s exceeds RLIMIT_MEMLOCK "
		       "(%llu KiB)", h1, (unsigned long long)rl.rlim_cur / 1024);
		return -1;
	}
	return 0;
}

/* Forks the balloon child for BYTES. It pins nothing before a byte on *go,
 * and reports on *ready (the parent's ends). Returns its pid, or -1 with err. */
static pid_t spawn(long long bytes, int *go, int *ready, char *err, size_t errlen)
{
	int g[2], r[2];
	pid_t parent = getpid(), pid;

	/* a socket, so the go byte can be sent with MSG_NOSIGNAL: a balloon that
	 * died early must not SIGPIPE its parent */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g) < 0) {
		fmt_err(err, errlen, "cannot start the balloon: socketpair: %s",
		       strerror(errno));
		return -1;
	}
	if (pipe2(r, O_CLOEXEC) < 0) {
		fmt_err(err, errlen, "cannot start the balloon: pipe: %s", strerror(errno));
		close(g[0]);
		close(g[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fmt_err(err, errlen, "cannot start the balloon: fork: %s", strerror(errno));
		close(g[0]), close(g[1]), close(r[0]), close(r[1]);
		return -1;
	}
	if (pid == 0) {
		close(g[1]);
		close(r[0]);
		balloon_child(parent, g[0], r[1], bytes);
	}
	close(g[0]);
	close(r[1]);
	setpgid(pid, pid);	/* also done by the child: whichever runs first */
	*go = g[1];
	*ready = r[0];
	return pid;
}

/* Reads the child's reports on READY until it has pinned BYTES, for at most
 * BALLOON_TIMEOUT_S. Returns 0, or -1 with err; a child found dead is
 * reaped and *pid set to 0. *pinned is how far it got. */
static int wait_pinned(pid_t *pid, int ready, long long bytes, long long *pinned,
		       char *err, size_t errlen)
{
	time_t deadline = time(NULL) + BALLOON_TIMEOUT_S;
	char h1[32], h2[32];
	struct report r;

	for (;;) {
		struct pollfd pfd = { ready, POLLIN, 0 };
		long left = (long)(deadline - time(NULL));
		ssize_t n;
		int pr;

		if (left <= 0) {
			human(*pinned, h1, sizeof h1);
			human(bytes, h2, sizeof h2);
			return fmt_err(err, errlen, "balloon pinned only %s of %s in %d s: gave up",
				       h1, h2, BALLOON_TIMEOUT_S);
		}
		pr = poll(&pfd, 1, (int)(left * 1000));
		if (pr <= 0)
			continue;
		n = read(ready, &r, sizeof r);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof r) {
			char how[96];
			int status = 0;

			kill(*pid, SIGKILL);
			reap(*pid, &status);
			*pid = 0;
			describe_death(status, how, sizeof how);
			human(*pinned, h1, sizeof h1);
			human(bytes, h2, sizeof h2);
			return fmt_err(err, errlen, "balloon %s after pinning %s of %s", how, h1, h2);
		}
		*pinned = r.pinned;
		if (r.err) {
			human(*pinned, h1, sizeof h1);
			human(bytes, h2, sizeof h2);
			return fmt_err(err, errlen, "balloon pinned only %s of %s: %s: %s%s", h1, h2,
				       r.step, strerror(r.err),
				       r.err == ENOMEM && !strcmp(r.step, "mlock") ?
				       " (RLIMIT_MEMLOCK, or RAM ran out)" : "");
		}
		if (r.done)
			return 0;
	}
}

int balloon_start_pin(struct balloon *b, long long bytes, char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	long long pinned = 0;
	char key[24], val[32];
	int go, ready, status = 0;
	pid_t pid;

	memset(b, 0, sizeof *b);
	if (bytes <= 0) {
		fmt_err(err, errlen, "balloon size %lld bytes: must be positive", bytes);
		return -1;
	}
	bytes = (bytes + pagesz - 1) / pagesz * pagesz;
	if (check_room(bytes, err, errlen) < 0 ||
	    (pid = spawn(bytes, &go, &ready, err, errlen)) < 0)
		return -1;
	snprintf(key, sizeof key, "%d", (int)pid);
	if (undo_proc_start(pid, &b->start, NULL) < 0) {
		fmt_err(err, errlen, "cannot read /proc/%d/stat of the balloon: %s", (int)pid,
		       strerror(errno));
		goto kill;
	}
	snprintf(val, sizeof val, "%llu", b->start);
	if (undo_add(UNDO_BALLOON, key, val, err, errlen) < 0)
		goto kill;
	if (send(go, "1", 1, MSG_NOSIGNAL) != 1) {
		fmt_err(err, errlen, "cannot start the balloon: %s", strerror(errno));
		goto forget;
	}
	close(go);
	go = -1;
	if (wait_pinned(&pid, ready, bytes, &pinned, err, errlen) < 0)
		goto forget;
	close(ready);
	b->pid = pid;
	b->bytes = pinned;
	return 0;
forget:
	if (pid > 0) {
		kill(pid, SIGKILL);
		reap(pid, &status);
		pid = 0;
	}
	undo_forget(UNDO_BALLOON, key, NULL, 0);
kill:
	if (pid > 0) {
		kill(pid, SIGKILL);
		reap(pid, &status);
	}
	if (go >= 0)
		close(go);
	close(ready);
	memset(b, 0, sizeof *b);
	return -1;
}

int balloon_start_global(struct balloon *b, long long leave, char *err, size_t errlen)
{
	long long total, avail, pin;
	char h1[32], h2[32], h3[32], h4[32];

	memset(b, 0, sizeof *b);
	if (meminfo(&total, &avail, err, errlen) < 0)
		return -1;
	human(leave, h1, sizeof h1);
	human(total, h2, sizeof h2);
	if (leave < BALLOON_MIN_LEAVE) {
		fmt_err(err, errlen, "--global %s leaves too little: the machine needs at "
		       "least %lld MiB", h1, BALLOON_MIN_LEAVE >> 20);
		return -1;
	}
	if (leave >= total) {
		fmt_err(err, errlen, "--global %s is not below MemTotal (%s): nothing to pin",
		       h1, h2);
		return -1;
	}
	pin = total - leave;
	if (pin > avail - BALLOON_AVAIL_KEEP) {
		human(pin, h3, sizeof h3);
		human(avail, h4, sizeof h4);
		human(total - (avail - BALLOON_AVAIL_KEEP), h2, sizeof h2);
		fmt_err(err, errlen, "--global %s would pin %s, but MemAvailable is %s and "
		       "%lld MiB of it must stay available: --global must be at least %s now",
		       h1, h3, h4, BALLOON_AVAIL_KEEP >> 20, h2);
		return -1;
	}
	return balloon_start_pin(b, pin, err, errlen);
}

int balloon_kill(pid_t pid, unsigned long long start, char *err, size_t errlen)
{
	unsigned long long st;
	char state;

	if (pid <= 1) {
		fmt_err(err, errlen, "refusing to kill balloon pid %d", (int)pid);
		return -1;
	}
	if (undo_proc_start(pid, &st, &state) < 0 || st != start || state == 'Z')
		return 0;
	if (kill(pid, SIGKILL) < 0 && errno != ESRCH) {
		fmt_err(err, errlen, "cannot kill balloon pid %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	for (int waited = 0; waited <= 5000; waited += 10) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno == ECHILD &&
		    (undo_proc_start(pid, &st, &state) < 0 || st != start || state == 'Z'))
			return 0;
		sleep_ms(10);
	}
	fmt_err(err, errlen, "balloon pid %d still alive 5 s after SIGKILL", (int)pid);
	return -1;
}

int balloon_check(struct balloon *b, char *err, size_t errlen)
{
	char key[24], how[96], h[32];
	int status;

	if (b->pid <= 0)
		return 0;
	if (waitpid(b->pid, &status, WNOHANG) != b->pid)
		return 1;
	describe_death(status, how, sizeof how);
	human(b->bytes, h, sizeof h);
	fmt_err(err, errlen, "the balloon pinning %s %s: that memory is free again", h, how);
	snprintf(key, sizeof key, "%d", (int)b->pid);
	b->pid = 0;
	b->bytes = 0;
	undo_forget(UNDO_BALLOON, key, NULL, 0);
	return 0;
}

int balloon_stop(struct balloon *b, char *err, size_t errlen)
{
	char key[24];
	int status;

	if (b->pid <= 0)
		return 0;
	kill(b->pid, SIGKILL);
	reap(b->pid, &status);
	snprintf(key, sizeof key, "%d", (int)b->pid);
	b->pid = 0;
	b->bytes = 0;
	return undo_forget(UNDO_BALLOON, key, err, errlen);
}
