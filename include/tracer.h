/* The kernel's reclaim tracepoints, read into reclaim.c's figures. A
 * private tracefs instance (never the top-level buffer, so no other
 * tracing user is disturbed), TRACER_BUF_KB per CPU, clock "mono" (one
 * order across CPUs, and the samples' own CLOCK_MONOTONIC), the vmscan,
 * oom and compaction events this kernel has. tracefs is mounted if it is
 * not, and unmounted after. The mount and the instance are recorded in
 * undo before they are made (the instance holds the event enables, which
 * go with it). Every CPU's buffer is read through kept-open tracefs_cpu
 * handles, off the loop: by the sampling thread with its samples, at
 * most every TRACER_DRAIN_S (tracer_sync), and by a thread of its own
 * that sleeps until a buffer is half full (the instance's
 * buffer_percent), so that a burst between samples is not overwritten. */
#ifndef THRASHTOP_TRACER_H
#define THRASHTOP_TRACER_H

#include <stddef.h>

#include "reclaim.h"
#include "sampler.h"

#define TRACER_BUF_KB 256
#define TRACER_DRAIN_S 0.1

struct tracer;

/* Starts tracing. NULL with why filled ("needs root", "no tracefs", "another
 * thrashtop session changes the machine (pid N)") when it cannot: every
 * figure is then n/a. */
struct tracer *tracer_open(char *why, size_t whylen);

/* Whether tracer_open could work here, without changing anything: 0, or
 * -1 with why (not root, no tracefs). */
int tracer_probe(char *why, size_t whylen);

/* Stops the thread, removes the instance, unmounts what it mounted, and
 * drops their undo records; NULL is a no-op. Returns 0, or -1 with err
 * (what is left stays recorded for the next start). */
int tracer_close(struct tracer *t, char *err, size_t errlen);

/* Reads the buffers, feeding the events up to now (monotonic s), unless
 * they were read less than TRACER_DRAIN_S ago; then a sample's figures
 * are those of that read. Call from the sampling thread, before
 * tracer_fill. */
void tracer_sync(struct tracer *t, double now);

/* The totals as of now into x (x->rc, x->rc_p99_ms for the stalls since
 * the last call); safe from any thread. t NULL: x->rc_ok false. */
void tracer_fill(struct tracer *t, struct sys_sample *x);

/* Reads what the buffers hold now (the end of a run), then starts a run's
 * list, histogram and threads from the time t0 (monotonic seconds). */
void tracer_drain(struct tracer *t);
void tracer_run_begin(struct tracer *t, double t0);

/* The run so far: a copy of the accumulator (its run half) under the lock. */
void tracer_run_copy(struct tracer *t, struct rc_acc *out);

/* Undoes a record of kind UNDO_TRACEFS (instance: rmdir; mount: umount). */
int tracer_revert(const char *key, const char *val, char *err, size_t errlen);

#endif
