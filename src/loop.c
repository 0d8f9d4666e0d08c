#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "loop.h"

static volatile sig_atomic_t got_signal, got_child;
static sigset_t wait_mask;	/* the mask ppoll waits with */

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ending_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

void loop_signals(void)
{
	struct sigaction sa;
	sigset_t block;

	ending_set(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGHUP);
	sigdelset(&wait_mask, SIGCHLD);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ppoll delivers the signals it unblocks only when it returns EINTR: one
 * that returns a ready descriptor leaves them pending, so they are taken
 * here. */
static void take_pending(void)
{
	const struct timespec zero = { 0, 0 };
	sigset_t set;
	int sig;

	ending_set(&set);
	sigaddset(&set, SIGCHLD);
	while ((sig = sigtimedwait(&set, NULL, &zero)) > 0) {
		if (sig == SIGCHLD)
			got_child = 1;
		else
			got_signal = sig;
	}
}

int loop_signal(void)
{
	return got_signal;
}

bool loop_interrupted(void)
{
	sigset_t pend, end;

	if (got_signal)
		return true;
	if (sigpending(&pend) < 0)
		return false;
	ending_set(&end);
	return sigismember(&pend, SIGINT) == 1 || sigismember(&pend, SIGTERM) == 1 ||
	       sigismember(&pend, SIGHUP) == 1;
}

const volatile sig_atomic_t *loop_stop_flag(void)
{
	return &got_signal;
}

void loop_let_end(bool on)
{
	sigset_t set;

	ending_set(&set);
	sigprocmask(on ? SIG_UNBLOCK : SIG_BLOCK, &set, NULL);
}

int loop_run(const struct loop_ops *o)
{
	const struct timespec zero = { 0, 0 };
	bool more = false;
	int rc, n;

	for (;;) {
		struct pollfd pfd[2 + LOOP_TICKS_MAX] = {
			{ .fd = o->input_fd ? o->input_fd(o->arg) : -1, .events = POLLIN },
			{ .fd = o->out_fd ? o->out_fd(o->arg) : -1, .events = POLLOUT },
		};
		int fds[LOOP_TICKS_MAX], nt = o->tick_fds ? o->tick_fds(o->arg, fds) : 0;
		double wake = o->wake_at ? o->wake_at(o->arg) : 0;
		struct timespec ts = zero;
		bool ticked = false;

		for (int i = 0; i < nt; i++)
			pfd[2 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (!more && wake > 0 && wake > now()) {
			double wait = wake - now();

			ts.tv_sec = (time_t)wait;
			ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		}
		n = ppoll(pfd, (nfds_t)(2 + nt), more || wake > 0 ? &ts : NULL, &wait_mask);
		if (n < 0 && errno != EINTR)
			return LOOP_FAIL;
		take_pending();
		/* The terminal went away without a SIGHUP reaching us (a
		 * session leader that died first): the same as a SIGHUP. */
		if (pfd[0].fd >= 0 && (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
			got_signal = SIGHUP;
		if (got_signal)
			return LOOP_END;
		if (got_child) {
			got_child = 0;
			if ((rc = o->on_child(o->arg)) != LOOP_GO)
				return rc;
		}
		/* A signal may be the terminal's SIGWINCH, which curses turns
		 * into a key only when asked for one. */
		if (pfd[0].fd >= 0 && ((pfd[0].revents & POLLIN) || n < 0) &&
		    (rc = o->on_input(o->arg)) != LOOP_GO)
			return rc;
		for (int i = 0; n > 0 && i < nt; i++)
			ticked = ticked || (pfd[2 + i].revents & POLLIN);
		if (ticked && (rc = o->on_tick(o->arg)) != LOOP_GO)
			return rc;
		if (n > 0 && pfd[1].fd >= 0 && pfd[1].revents &&
		    (rc = o->on_output(o->arg)) != LOOP_GO)
			return rc;
		wake = o->wake_at ? o->wake_at(o->arg) : 0;
		if (wake > 0 && now() >= wake && (rc = o->on_wake(o->arg)) != LOOP_GO)
			return rc;
		more = false;
		if (o->on_work && (rc = o->on_work(o->arg, &more)) != LOOP_GO)
			return rc;
	}
}
