/* Keeps the monitor measuring under the load it watches: a raised CPU
 * priority, so its own workers cannot starve it, and its memory locked, so
 * the reclaim it watches cannot page it out. Each is best effort; what
 * could not be done is said in one line for the header. */
#ifndef THRASHTOP_GUARD_H
#define THRASHTOP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#define GUARD_NICE (-20)	/* the monitor's nice value as root, as atop */

struct guard {
	int nice_was;		/* the nice value the monitor started with */
	int nice_now;
	bool locked;		/* mlockall held */
	char why[128];		/* "" or why memory is not locked */
};

/* Raises the priority to GUARD_NICE and the calling thread to SCHED_FIFO
 * priority 1 with SCHED_RESET_ON_FORK where allowed (root), and locks the
 * memory mapped now and later with MCL_ONFAULT, so pages are locked as
 * they are touched and a reserved but unused buffer costs nothing. Not
 * under a sanitizer (its shadow memory is terabytes of reservation), nor
 * inside a memory cgroup with a limit: locked pages would come out of the
 * limit set for the workload beside it. */
void guard_apply(struct guard *g);

#endif
