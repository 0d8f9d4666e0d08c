/* A command's process tree: every pid seen in it during a run (so that a
 * kill the kernel log names later is known as the run's), and the rows of
 * its live descendants, read each tick through the sampler. */
#ifndef THRASHTOP_PROCTREE_H
#define THRASHTOP_PROCTREE_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "place.h"
#include "procev.h"
#include "sampler.h"
#include "workload.h"

#define PROCTREE_SEEN_MAX 4096	/* a command's descendants seen in one run */
#define PROCTREE_SEEN_HASH 8192	/* their pids' open-addressed set: a fork
				   of the machine's is looked up there */

struct proctree {
	pid_t seen[PROCTREE_SEEN_MAX];
	int nseen;
	pid_t seen_set[PROCTREE_SEEN_HASH];	/* 0: empty */
	pid_t scan[PROCTREE_SEEN_MAX];	/* the command's descendants, read this
					   tick for seen and again for the rows */
	int nscan;
	bool scan_fresh;		/* scan was read this tick */
	pid_t root;			/* the command, 0 none */
};

/* When pid started on clock clk (CLOCK_MONOTONIC, CLOCK_REALTIME): its
 * /proc start time counts clock ticks since boot, as CLOCK_BOOTTIME
 * does. NAN once it has gone. */
double proctree_started(pid_t pid, clockid_t clk);

/* A new run's tree: nothing seen yet; root is the command (0: workers). */
void proctree_begin(struct proctree *t, pid_t root);
bool proctree_seen(struct proctree *t, pid_t pid);

/* The forks the kernel reported (forks may be NULL) join the seen ones. */
void proctree_forks(struct proctree *t, struct procev *forks);

/* The forks the kernel reported, then every pid of
 * root's tree now, join the seen ones; running: root has not ended. */
void proctree_note(struct proctree *t, struct sampler *smp, struct procev *forks, bool running);

/* The rows of the command's tree: its descendants and what its processes
 * left to us (strays), read as cur's figures ask (VmSwap only while swap
 * is used, every swap_every s). A tree not running (NULL wl) has none. */
void proctree_rows(struct proctree *t, struct place_tree *tr, struct sampler *smp,
		   const struct workload *wl, double now, bool swap, double swap_every);

/* Forgets every row, giving their files back. */
void proctree_untrack(struct place_tree *tr, struct sampler *smp);

#endif
