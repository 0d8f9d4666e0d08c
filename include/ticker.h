/* The system sample, taken on schedule by a thread of its own: nothing the
 * loop waits on (a terminal that stops reading under memory pressure, a
 * history write, a fork) delays a sample or its time. As root the thread
 * runs SCHED_FIFO, so ordinary tasks do not keep it from the CPU however
 * nice values and autogroups share it out. Samples wait in a queue, oldest
 * first, and a descriptor is readable while any wait; the loop takes them
 * in order, in batches at intervals under 0.05 s. The thread only reads
 * /proc through its own sampler. */
#ifndef THRASHTOP_TICKER_H
#define THRASHTOP_TICKER_H

#include <stddef.h>

#include "sampler.h"

struct ticker;

/* Starts sampling at once, then every interval seconds. NULL with err
 * filled on failure. */
struct ticker *ticker_start(double interval, char *err, size_t errlen);

/* Stops the thread and frees everything; NULL is a no-op. */
void ticker_stop(struct ticker *t);

/* Readable while samples wait: from one at intervals of 0.05 s and longer,
 * from as many as span 0.05 s at shorter ones (the loop wakes at most 20
 * times a second). */
int ticker_fd(const struct ticker *t);

/* The oldest waiting sample: 1, 0 when none waits, -1 with errno when the
 * thread could not read the system (it then stops sampling). */
int ticker_take(struct ticker *t, struct sys_sample *out);

/* The zram device the samples read from the next one on (sampler_zram);
 * NULL for none. */
void ticker_zram(struct ticker *t, const char *name);

/* The tracer whose totals each sample from the next one on carries
 * (tracer_sync, tracer_fill); NULL for none. Returns once the thread no
 * longer reads the one before, which may then be closed. */
struct tracer;
void ticker_tracer(struct ticker *t, struct tracer *tr);

/* A new interval, from a sample taken now. */
void ticker_set_interval(struct ticker *t, double interval);

#endif
