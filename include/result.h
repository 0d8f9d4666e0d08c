/* One run's figures: the workers' rusage summed as time(1) counts it, and
 * what the system did meanwhile (kswapd CPU, swap and free memory extremes,
 * OOM kills), tracked from the sampler's samples. Pure bookkeeping: no I/O. */
#ifndef THRASHTOP_RESULT_H
#define THRASHTOP_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "runrec.h"
#include "sampler.h"
#include "timefmt.h"
#include "workload.h"

struct run_result {
	struct timeline tl;		/* summed over workers; wall = start to last reap */
	double kswapd_s;		/* kswapd CPU seconds during the run, NAN if not visible */
	int64_t swap_peak_kib;		/* highest swap used seen, NA without swap */
	int64_t free_min_kib, avail_min_kib;	/* lowest MemFree / MemAvailable seen */
	int64_t oom_kills;		/* rise of the OOM-kill count, NA if unknown */
	int64_t sys_majflt, sys_minflt;	/* system-wide fault deltas (/proc/vmstat) */
	int64_t pswpin, pswpout;	/* system-wide swap page deltas */
	struct mem_snapshot before, after;	/* free(1)-style, at start and end */
	int nworkers, nfailed;
	enum run_status status;
	struct sys_sample first, last;
};

/* Starts tracking at the run's first sample. */
void result_begin(struct run_result *r, const struct sys_sample *s);

/* Folds one more sample in (extremes). */
void result_observe(struct run_result *r, const struct sys_sample *s);

/* Closes the run: sums the reaped workers' rusage, classifies each end
 * (a SIGKILL while the OOM-kill count rose is END_OOM), takes deltas.
 * extra_oom adds OOM kills seen elsewhere (a cgroup's own count). */
void result_finish(struct run_result *r, struct workload *wl,
		   const struct sys_sample *s, int64_t extra_oom, bool aborted);

/* The free(1)-style snapshot of sample s. */
void mem_snapshot_from(const struct sys_sample *s, struct mem_snapshot *m);

#endif
