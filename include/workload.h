/* Starting, watching and reaping the workload: P sorter workers sharing a
 * progress array in shared memory, or one command (execvp, never a shell).
 * Every worker is in its own process group, dies with the monitor
 * (PR_SET_PDEATHSIG) and is reaped with its rusage. */
#ifndef THRASHTOP_WORKLOAD_H
#define THRASHTOP_WORKLOAD_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sorter.h"

#define WORKLOAD_MAX_PROCS 1024

enum worker_end {
	END_RUNNING,
	END_OK,
	END_VERIFY,	/* sorted array failed verification */
	END_EXIT,	/* exited non-zero (allocation failure, command failure) */
	END_SIGNAL,	/* killed by a signal */
	END_OOM,	/* SIGKILL while the OOM-kill count rose (set by the caller) */
};

struct worker {
	pid_t pid;
	int status;		/* wait4 status once reaped */
	struct rusage ru;	/* wait4 rusage once reaped */
	double t_end;		/* monotonic seconds when reaped */
	enum worker_end end;
};

struct workload_cfg {
	long nelems;		/* per worker */
	int procs;
	unsigned seed;
	char **argv;		/* non-NULL: run this command (one process, procs
				   must be 1) instead of sorters; kept by pointer */
	/* Called in each child after fork, before any work (e.g. to join a
	 * cgroup). Non-zero return: the child exits 126. */
	int (*in_child)(void *arg);
	void *in_child_arg;
	int out_fd;		/* > 0: the child's stdout and stderr; 0 or -1: inherited */
};

struct workload {
	struct workload_cfg cfg;
	int n;				/* processes started */
	int running;
	struct worker *w;		/* n entries */
	struct sort_progress *prog;	/* n entries in shared memory; NULL for a command */
	double t_start, t_end;		/* monotonic seconds */
	char err[256];			/* why workload_start failed, one line */
};

/* Forks the workers. Returns 0, or -1 with errno set and wl->err filled
 * (nothing left running). A command that cannot be executed fails here
 * ("cannot run 'cmd': No such file or directory"). Worker exit codes: 0 sorted,
 * 1 allocation failed, 2 verify failed, 126 setup in the child failed (in_child,
 * /dev/null, out_fd). */
int workload_start(struct workload *wl, const struct workload_cfg *cfg);

/* Reaps whatever has exited (never blocks); returns how many still run. When
 * a worker exits, what is left of its process group (a command's background
 * children) is SIGKILLed before the worker is reaped, so nothing outlives it.
 * status is -1 if someone else reaped the worker. */
int workload_reap(struct workload *wl);

/* Sends sig to every live worker's process group. */
void workload_signal(struct workload *wl, int sig);

/* SIGKILLs, then reaps every worker (blocking). */
void workload_stop(struct workload *wl);

/* Stops whatever still runs, then frees. */
void workload_free(struct workload *wl);

const char *worker_end_name(enum worker_end e);

double now_monotonic(void);

#endif
