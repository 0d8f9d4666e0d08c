/* This machine as the place a run happens (place.h): its kernel read
 * through the sampler and the ticker's thread, the workers' delays
 * through taskstats (a command's whole tree through its exit records),
 * OOM kills from the kernel log, forks from the proc connector, reclaim
 * events from tracefs, and the workload forked here. */
#ifndef THRASHTOP_LOCAL_H
#define THRASHTOP_LOCAL_H

#include <stdbool.h>
#include <stddef.h>

#include "place.h"

/* The sampler, the kernel log and (for a command: a fork is matched to
 * its tree by the proc connector) the fork reports. NULL with err. */
struct place *local_open(bool command, char *err, size_t errlen);

/* Delay accounting, through a taskstats connection, and for a command the
 * exit records of the processes it starts. 0; -1 without (stalls_why
 * says why); 1 with the command's own process only (note says why). */
int local_delays(struct place *p, bool command, char *note, size_t notelen);

/* The ticker's thread at interval, with reclaim events if asked (without:
 * events_why says why). 0, or -1 with err. */
int local_start(struct place *p, double interval, const char *zram, bool events, char *err,
		size_t errlen);

#endif
