/* The monitor's one wait. Everything a session does happens in a turn of
 * this loop: it sleeps in ppoll until a sample comes (ticker.h), a key
 * comes, a child exits or a signal arrives. SIGINT, SIGTERM, SIGHUP and
 * SIGCHLD are unblocked only inside that ppoll, so a flag is never missed
 * between its check and the wait. A turn never blocks anywhere else: work
 * that takes long (forking a thousand workers) is done in slices between
 * turns, so a signal or a key is acted on within one slice. The loop knows
 * nothing of runs or screens; its owner's callbacks do the work. */
#ifndef THRASHTOP_LOOP_H
#define THRASHTOP_LOOP_H

#include <signal.h>
#include <stdbool.h>

/* What a callback returns: go on, end the loop, or end it with a failure. */
enum loop_rc { LOOP_GO = 0, LOOP_END = 1, LOOP_FAIL = -1 };

#define LOOP_TICKS_MAX 8

struct loop_ops {
	void *arg;
	int (*input_fd)(void *arg);	/* the terminal to poll, -1 none */
	int (*on_input)(void *arg);	/* input is waiting, or a signal came
					   (it may be SIGWINCH) */
	int (*on_child)(void *arg);	/* a SIGCHLD came */
	/* the descriptors readable while samples wait (a place's each), at
	 * most LOOP_TICKS_MAX into fds: how many; NULL none */
	int (*tick_fds)(void *arg, int *fds);
	int (*on_tick)(void *arg);	/* samples wait at one of them */
	/* Unfinished work, a slice at a time; *more true asks for another
	 * slice right after the next turn, which then does not sleep. */
	int (*on_work)(void *arg, bool *more);
	/* Optional: a view that plays over time (a replay) wants a turn at
	 * this monotonic time, 0 for none; on_wake is called once it is due. */
	double (*wake_at)(void *arg);
	int (*on_wake)(void *arg);
	/* Optional: a descriptor to poll for writing (-1 none), and what is
	 * done once it can be written (or has failed). */
	int (*out_fd)(void *arg);
	int (*on_output)(void *arg);
};

/* Blocks the four signals and installs handlers that only set flags. Call
 * before anything is set up: a signal that comes meanwhile waits, and ends
 * the loop on its first turn. */
void loop_signals(void);

/* Runs turns until a callback returns LOOP_END or LOOP_FAIL, an ending
 * signal comes, or the terminal hangs up (taken as SIGHUP). A failing
 * ppoll is LOOP_FAIL with errno set. */
int loop_run(const struct loop_ops *ops);

/* The signal that ended the loop (SIGINT, SIGTERM, SIGHUP), 0 for none. */
int loop_signal(void);

/* Whether an ending signal has come or is pending: for work outside the
 * loop that should give up early (a history write waiting on a lock). */
bool loop_interrupted(void);

/* The flag an ending signal sets, for a wait outside the loop that takes
 * one (history_set_stop). Such a wait must run between loop_let_end(true)
 * and loop_let_end(false): the ending signals are let in meanwhile, so
 * one that comes during the wait cuts it short. */
const volatile sig_atomic_t *loop_stop_flag(void);
void loop_let_end(bool on);

#endif
