#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "watchdog.h"

/* One message a write, far under PIPE_BUF: never torn. */
struct msg {
	int32_t op;	/* 1 watch, 0 forget */
	int32_t pgid;
};

static struct {
	int fd;		/* the write end; -1 without a watchdog */
	int pidfd;	/* the watchdog, to wait for */
} W = { -1, -1 };

static _Noreturn void watch(int rfd)
{
	pid_t g[WATCHDOG_GROUPS];
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	struct msg m;
	int n = 0, fd;

	setpgid(0, 0);
	prctl(PR_SET_NAME, "thrashtop-watch");
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGTSTP, &ign, NULL);
	sigaction(SIGTTIN, &ign, NULL);
	sigaction(SIGTTOU, &ign, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* nothing of the monitor's held open: its terminal, lock, sockets */
	if (rfd != 3) {
		if (dup2(rfd, 3) < 0)
			_exit(1);
		rfd = 3;
	}
	syscall(SYS_close_range, 4U, ~0U, 0U);
	fd = open("/dev/null", O_RDWR);
	for (int i = 0; i < 3 && fd >= 0; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
	for (;;) {
		ssize_t r = read(rfd, &m, sizeof m);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof m)
			break;	/* the monitor is gone */
		if (m.op == 1 && n < WATCHDOG_GROUPS) {
			g[n++] = m.pgid;
		} else if (m.op == 0) {
			for (int i = 0; i < n; i++)
				if (g[i] == m.pgid) {
					g[i] = g[--n];
					break;
				}
		}
	}
	/* A group is taken back as soon as the monitor has killed it, before
	 * its leader is reaped: until then its id cannot name another group. */
	for (int i = 0; i < n; i++)
		kill(-g[i], SIGKILL);
	_exit(0);
}

int watchdog_start(char *err, size_t errlen)
{
	int p[2], q[2], got[2] = { -1, EIO };	/* its pid, or -1 and errno */
	pid_t mid;

	if (W.fd >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return fmt_err(err, errlen, "cannot start the watchdog: pipe: %s", strerror(errno));
	if (pipe2(q, O_CLOEXEC) < 0) {
		got[1] = errno;
		close(p[0]);
		close(p[1]);
		return fmt_err(err, errlen, "cannot start the watchdog: pipe: %s", strerror(got[1]));
	}
	/* forked twice, so that it is no child of ours */
	mid = fork();
	if (mid == 0) {
		pid_t pid;

		close(p[1]);
		close(q[0]);
		pid = fork();
		if (pid == 0) {
			close(q[1]);
			watch(p[0]);
		}
		got[0] = (int)pid;
		got[1] = errno;
		(void)!write(q[1], got, sizeof(got));
		_exit(pid < 0);
	}
	if (mid < 0)
		got[1] = errno;
	close(p[0]);
	close(q[1]);
	if (mid > 0) {
		while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
			;
		if (read(q[0], got, sizeof(got)) != (ssize_t)sizeof(got))
			got[0] = -1;
	}
	close(q[0]);
	if (got[0] <= 0) {
		close(p[1]);
		return fmt_err(err, errlen, "cannot start the watchdog: fork: %s", strerror(got[1]));
	}
	W.fd = p[1];
	W.pidfd = (int)syscall(SYS_pidfd_open, (pid_t)got[0], 0);
	return 0;
}

static void send_msg(int op, pid_t pgid)
{
	struct msg m = { op, (int32_t)pgid };

	if (W.fd >= 0)
		while (write(W.fd, &m, sizeof m) < 0 && errno == EINTR)
			;
}

void watchdog_watch(pid_t pgid)
{
	send_msg(1, pgid);
}

void watchdog_forget(pid_t pgid)
{
	send_msg(0, pgid);
}

void watchdog_end(void)
{
	struct pollfd pf;

	if (W.fd < 0)
		return;
	close(W.fd);
	W.fd = -1;
	if (W.pidfd >= 0) {
		pf = (struct pollfd){ .fd = W.pidfd, .events = POLLIN };
		while (poll(&pf, 1, 1000) < 0 && errno == EINTR)
			;
		close(W.pidfd);
		W.pidfd = -1;
	}
}
