/* One run's figures: the workers' rusage summed as time(1) counts it, and
 * what the system did meanwhile (kswapd CPU, swap and free memory extremes,
 * OOM kills), tracked from the sampler's samples. Pure bookkeeping: no I/O. */
#ifndef THRASHTOP_RESULT_H
#define THRASHTOP_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "oomlog.h"
#include "sampler.h"
#include "sysstate.h"
#include "timefmt.h"
#include "workload.h"

enum run_status { RUN_OK, RUN_FAILED, RUN_OOM, RUN_ABORTED };

#define RUN_VICTIMS_MAX 16

/* What was seen of OOM kills beyond the workers' own ends. */
struct oom_seen {
	int64_t extra;			/* kills the cgroup counted that /proc/vmstat did not */
	int64_t cgroup;			/* the run's cgroup's own kills, 0 without one */
	const struct oom_kill *kills;	/* the kernel log's kills of the run's tree */
	int nkills;
};

struct run_result {
	struct timeline tl;		/* summed over workers; wall = start to last reap */
	double kswapd_s;		/* kswapd CPU seconds during the run, NAN if not visible */
	int64_t swap_peak_kib;		/* highest swap used seen, NA without swap */
	int64_t free_min_kib, avail_min_kib;	/* lowest MemFree / MemAvailable seen */
	int64_t oom_kills;		/* rise of the OOM-kill count, NA if unknown */
	struct oom_kill victims[RUN_VICTIMS_MAX];	/* the tree's, workers first */
	int nvictims;
	int64_t unnamed;		/* the cgroup's kills no log line named */
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
 * (a SIGKILL while the OOM-kill count rose is END_OOM), takes deltas. The
 * victims are those workers and seen's kills; a run with any victim, or
 * whose cgroup counted a kill, is RUN_OOM unless aborted. seen may be
 * NULL. */
void result_finish(struct run_result *r, struct workload *wl,
		   const struct sys_sample *s, const struct oom_seen *seen, bool aborted);

/* ok, failed, oom, aborted: as printed, stored and exported, and back
 * (parse returns 0, or -1 for any other text). */
const char *run_status_name(enum run_status st);
int run_status_parse(const char *s, enum run_status *out);
/* The same as the screens show it: "OOM" stands out. */
const char *run_status_title(enum run_status st);

#endif
