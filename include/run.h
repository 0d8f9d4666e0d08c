/* One run of the workload, from its start to its result: the workers
 * forked a slice at a time and started together, the run's own samples of
 * each plotted figure (for the history), its result and the sysctl changes
 * made while it ran. Pure bookkeeping around workload.c and result.c: it
 * reads nothing itself (the session hands it each sample) and knows
 * nothing of screens or of the history store. */
#ifndef THRASHTOP_RUN_H
#define THRASHTOP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "history.h"
#include "result.h"
#include "sampler.h"
#include "runlog.h"
#include "workload.h"


struct run {
	struct workload wl;
	bool active;		/* begun and not finished */
	bool forking;		/* workers still being forked */
	struct run_result res;
	struct runlog log;	/* every registry series since the start, for the record */
	time_t started;		/* wall clock when the workers started */
	struct run_sysctl_change *changes;
	int nchanges;
};

void run_init(struct run *r);
void run_free(struct run *r);

/* Begins a run: the previous one's workers are freed, nothing is forked
 * yet. 0, or -1 with err. */
int run_begin(struct run *r, const struct workload_cfg *cfg, char *err, size_t errlen);

/* Forks workers until the monotonic clock passes until. Returns 1 once
 * all run (call run_started next), 0 when more are left, -1 with err when
 * one could not be forked (the others killed and reaped; the run is no
 * longer active). */
int run_fork(struct run *r, double until, char *err, size_t errlen);

/* The workers run: s is the first sample, v its value of each registry
 * series; the series on[] are recorded. */
void run_started(struct run *r, const struct sys_sample *s, const double *v,
		 const bool *on);

/* One more sample while the run is active. */
void run_observe(struct run *r, const struct sys_sample *s, const double *v);

/* A sysctl changed t seconds after the start (monotonic t). 0 or -1. */
int run_change(struct run *r, double t, const char *name, const char *old,
	       const char *new_val);

/* Ends the run with the sample s: kills what still runs when aborted,
 * takes the result. seen as result_finish. */
void run_finish(struct run *r, const struct sys_sample *s, const struct oom_seen *seen,
		bool aborted);

/* Prints the run as the seeds posted them: an OOM line for each victim
 * ("Out of Memory: Killed process PID (comm)."), to out, and
 * verify messages (to err), the time line in format f, then the kswapd line. The time line of a run that
 * was stopped (it covers only what ran) ends in "  aborted", as the
 * history's reports mark it. */
void run_print(const struct run *r, enum out_format f, FILE *out, FILE *err);

/* "#3 4.161u 0.086s 0:04.25 99.9% ...  0:00 kswapd  ok": one line for a
 * list of completed runs; cell may be NULL. Returns buf. */
char *run_done_line(const struct run *r, int no, const char *cell, char *buf, size_t len);

#endif
