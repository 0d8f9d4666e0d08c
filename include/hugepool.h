/* A hugetlb pool as global pressure (--global SIZE): raising vm.nr_hugepages
 * takes whole huge pages off the free lists at once, usable by nothing but
 * hugetlbfs, so the rest of the machine runs in what is left, and it takes
 * milliseconds where an mlock balloon faults in and zeroes every page. The
 * pool is set through sysctl_set, so the undo state holds the old size
 * before the pool grows. Reads /proc/meminfo; never prints. */
#ifndef THRASHTOP_HUGEPOOL_H
#define THRASHTOP_HUGEPOOL_H

#include <stdbool.h>
#include <stddef.h>

#define HUGEPOOL_SYSCTL "vm.nr_hugepages"
#define HUGEPOOL_TRIES 4		/* writes while the kernel still gives pages */

struct hugepool {
	long long page;		/* Hugepagesize, bytes */
	long nr0;		/* vm.nr_hugepages before */
	long want, nr;		/* asked for, and what the kernel gave */
	bool active;		/* nr0 recorded and the pool raised */
};

/* Pages the pool must hold in all (its old pages included) so that at
 * least leave of total stays outside it; 0 when leave >= total. */
long hugepool_target(long long total, long long page, long long leave);

/* Whether this kernel has a pool thrashtop may size: Hugepagesize in
 * /proc/meminfo and a writable /proc/sys/vm/nr_hugepages. */
bool hugepool_usable(void);

/* Raises the pool so that MemTotal - pool = leave, with the balloon's
 * limits (balloon.h: BALLOON_MIN_LEAVE, BALLOON_AVAIL_KEEP). Returns 0 with
 * p->nr the pool the kernel actually made (it may give fewer pages than
 * p->want, even none: see hugepool_short), or -1 with err filled and the
 * pool as it was. */
int hugepool_start(struct hugepool *p, long long leave, char *err, size_t errlen);

/* Bytes the kernel did not give: (want - nr) * page, 0 when it gave all. */
long long hugepool_short(const struct hugepool *p);

/* Returns the pool to its old size and drops the undo record. Returns 0,
 * or -1 with err filled (the record stays for a later start). */
int hugepool_stop(struct hugepool *p, char *err, size_t errlen);

#endif
