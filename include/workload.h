/* Stage: the workers of a run (run.h drives them). Starting, watching and
 * reaping the workload: P sorter workers sharing a progress array in shared
 * memory, or one command (execvp, never a shell). A command is in its own
 * process group, the sorters share one; every worker dies with the monitor
 * (PR_SET_PDEATHSIG) and is reaped with its rusage, and with its delay
 * totals, taken while it is a zombie (waitid WNOWAIT), since reaping drops
 * them. A command's are its own process's: the kernel does not add a
 * reaped child's delays to its parent as it does its rusage. */
#ifndef THRASHTOP_WORKLOAD_H
#define THRASHTOP_WORKLOAD_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "capture.h"
#include "runrec.h"
#include "sorter.h"
#include "taskstats.h"

#define WORKLOAD_MAX_PROCS 1024

struct worker {
	pid_t pid;
	pid_t pgid;		/* its process group */
	int status;		/* wait4 status once reaped */
	struct rusage ru;	/* wait4 rusage once reaped */
	double t_end;		/* monotonic seconds when reaped */
	enum worker_end end;
	struct delays delays;	/* its thread group's totals, taken between
				   its exit and its reaping; NAN unknown */
	bool delays_past[DL_N];	/* which of them the kernel gave past the
				   process's life (so NAN) */
};

struct workload_cfg {
	long nelems;		/* per worker */
	int procs;
	unsigned seed;
	struct sort_fill fill;	/* the sorters' data */
	char **argv;		/* non-NULL: run this command (one process, procs
				   must be 1, no controlling terminal) instead of
				   sorters; kept by pointer */
	/* Called in each child after fork, before any work (e.g. to join a
	 * cgroup). Non-zero return: the child exits 126. */
	int (*in_child)(void *arg);
	void *in_child_arg;
	int out_fd;		/* > 0: the child's stdout and stderr; 0 or -1: inherited */
	int err_fd;		/* > 0 with out_fd: its stderr apart */
	struct capture *cap;	/* non-NULL: a command's own figures (--metric)
				   are matched in its output where it passes
				   this process (the place's end feeds it) */
	bool set_nice;		/* the children run at nice, whatever the monitor's */
	int nice;
	struct taskstats_conn *ts;	/* non-NULL: each worker's delay totals
					   are taken before it is reaped */
	pid_t spare;		/* > 0: a child of ours that is not the workload's
				   (the balloon): never one of what a command
				   leaves behind, nor killed with it */
};

struct workload {
	struct workload_cfg cfg;
	int n;				/* processes started */
	int running;
	struct worker *w;		/* n entries */
	struct sort_progress *prog;	/* n entries in shared memory; NULL for a command */
	double t_start, t_end;		/* monotonic seconds; t_start when the
					   barrier opened (a command: at fork) */
	bool barrier;			/* bar is open: sorters wait on it */
	int bar[2];
	char err[256];			/* why workload_start failed, one line */
	int left;			/* processes a command left running as it
					   ended, killed then */
};

/* Prepares a start: the worker table, the progress array, the start
 * barrier. Nothing runs yet. Returns 0, or -1 with errno set and wl->err
 * filled (nothing left allocated). */
int workload_begin(struct workload *wl, const struct workload_cfg *cfg);

/* Forks workers until all are, or the monotonic clock passes until (at
 * least one is forked per call). Sorters wait at the barrier, which opens
 * when the last one is forked, so they start together and the forking is
 * not slowed by the first ones sorting. A command is forked and exec'd in
 * one call; one that cannot be executed fails here ("cannot run 'cmd': No
 * such file or directory"). Returns 1 when everything runs (t_start set),
 * 0 when more are left to fork, or -1 with errno set and wl->err filled
 * ("cannot fork worker 513 of 1024: ..."), every worker forked so far
 * killed and reaped. Worker exit codes: 0 sorted, 1 allocation failed,
 * 2 verify failed, 126 setup in the child failed (in_child, /dev/null,
 * out_fd, nice). */
int workload_fork(struct workload *wl, double until);

/* workload_begin, then workload_fork with no time limit. 0 or -1. */
int workload_start(struct workload *wl, const struct workload_cfg *cfg);

/* Reaps whatever has exited (never blocks); returns how many still run. When
 * a worker exits, what is left of its process group (a command's background
 * children) is SIGKILLed before the worker is reaped, and a command's
 * strays after it (workload_kill_strays), so nothing outlives it; how
 * many were running then is added to wl->left.
 * status is -1 if someone else reaped the worker. */
int workload_reap(struct workload *wl);

/* The children of ours that are no running worker nor the spare, into
 * out (max at most): a command's descendants that came to us, the child
 * subreaper, when their parent died. How many, or -1 with errno. */
int workload_strays(const struct workload *wl, pid_t *out, int max);

/* Kills and reaps every child of ours that is no running worker: what a
 * command left behind outside its process group, which reaches us only
 * when we are the child subreaper (PR_SET_CHILD_SUBREAPER). Called by
 * workload_reap and workload_stop once a command has ended. */
void workload_kill_strays(struct workload *wl);

/* Sends sig to the process groups of the live workers. */
void workload_signal(struct workload *wl, int sig);

/* SIGKILLs, then reaps every worker (blocking). The workers are first
 * given the caller's priority, where it may, so they exit promptly. */
void workload_stop(struct workload *wl);

/* Stops whatever still runs, then frees. */
void workload_free(struct workload *wl);

double now_monotonic(void);

#endif
