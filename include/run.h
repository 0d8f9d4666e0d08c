/* Stage: the run, one run of the workload from fork to its record.
 * The workers are forked a slice at a time and started together; while
 * they run, each sample the session hands in is folded into the run's
 * figures (the workers' rusage summed as time(1) counts it, kswapd CPU,
 * swap and free memory extremes, OOM kills, free(1) snapshots) and kept
 * in its log of every recorded series, with the sysctl changes made
 * meanwhile. At the end the figures and the state the run had make its
 * record (runrec.h). Pure bookkeeping around workload.c: it reads nothing
 * itself and knows nothing of screens or of the history store. */
#ifndef THRASHTOP_RUN_H
#define THRASHTOP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "oomlog.h"
#include "runlog.h"
#include "runrec.h"
#include "sampler.h"
#include "timefmt.h"
#include "workload.h"

struct sysstate;

/* One run's figures, tracked from the sampler's samples. */
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
	struct delays stalls;		/* the reaped workers' delay totals summed */
	int64_t swap_peak_kib;		/* highest swap used seen, NA without swap */
	int64_t free_min_kib, avail_min_kib;	/* lowest MemFree / MemAvailable seen */
	int64_t oom_kills;		/* rise of the OOM-kill count, NA if unknown */
	struct oom_kill victims[RUN_VICTIMS_MAX];	/* the tree's, workers first */
	int nvictims;
	int64_t unnamed;		/* the cgroup's kills no log line named */
	int64_t sys_majflt, sys_minflt;	/* system-wide fault deltas (/proc/vmstat) */
	int64_t pswpin, pswpout;	/* system-wide swap page deltas */
	int64_t zram_orig_kib, zram_compr_kib;	/* the zram device at its fullest, NA */
	int64_t zswap_stored_kib, zswap_pool_kib;	/* zswap at its fullest, NA */
	int64_t zswpout, zswpwb;	/* zswap's stores and writebacks, NA */
	struct mem_snapshot before, after;	/* free(1)-style, at start and end */
	int nworkers, nfailed;
	enum run_status status;
	struct sys_sample first, last;
};

struct run {
	struct workload wl;
	bool active;		/* begun and not finished */
	bool forking;		/* workers still being forked */
	struct run_result res;
	struct runlog log;	/* every registry series since the start, for the record */
	time_t started;		/* wall clock when the workers started */
	double interval;	/* s, the sampling interval then */
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
 * takes its figures: each worker's end is classified (a SIGKILL while the
 * OOM-kill count rose is END_OOM); the victims are those workers and
 * seen's kills, and a run with any victim, or whose cgroup counted a kill,
 * is RUN_OOM unless aborted. seen may be NULL. */
void run_finish(struct run *r, const struct sys_sample *s, const struct oom_seen *seen,
		bool aborted);

/* Prints the run as the seeds posted them: an OOM line for each victim
 * ("Out of Memory: Killed process PID (comm)."), to out, and
 * verify messages (to err), the time line in format f, then the kswapd
 * line and the stall line, and a line for each of the command's own
 * figures ("metric tput: 7.05841", "metric tput: no value: no line
 * matched"). The time line of a run that
 * was stopped (it covers only what ran) ends in "  aborted", as the
 * history's reports mark it. */
void run_print(const struct run *r, enum out_format f, FILE *out, FILE *err);

/* "#3 4.161u 0.086s 0:04.25 99.9% ...  0:00 kswapd  ok  tput=7.05841": one
 * line for a list of completed runs, the command's own figures last; cell
 * may be NULL. Returns buf. */
char *run_done_line(const struct run *r, int no, const char *cell, char *buf, size_t len);

/* The free(1)-style snapshot of sample s. */
void mem_snapshot_from(const struct sys_sample *s, struct mem_snapshot *m);

/* ---- the record a finished run makes ---- */

struct record_input {
	const struct run_result *res;
	const struct workload *wl;
	const struct sysstate *sys;
	time_t started;			/* wall clock at the run's start */
	const char *label;		/* NULL: none */
	const char *place, *accel;	/* as the record's; NULL: this machine */
	const char *command;		/* NULL: a qsbench run */
	int repeat_k, repeat_n;
	const char *session, *cell;	/* NULL: not part of a sweep */
	int64_t mem_limit_kib, global_limit_kib, tmp_swap_kib;	/* NA / 0: none */
	int cgroup_new;			/* as the record's */
	double interval_s;		/* the sampling interval at the start */
	const char *global_by;		/* what held --global's memory; NULL, "": none */
	int shared_cores;		/* as the record's */
	const char *swap_backend;	/* the session's swap (run_record's); NULL: none */
	const struct runlog *log;	/* the run's samples; NULL: none */
	const char *sysctls;		/* every sysctl the session set, as it is at
					   the end, one "name=value" a line; NULL: none.
					   The record keeps them as at the start:
					   a change made during the run is undone
					   with its old value. */
	const struct run_sysctl_change *changes;
	int nchanges;
	const struct rc_summary *reclaim;	/* reclaim events; NULL: none */
	const struct rc_acc *reclaim_run;	/* the run's events kept; NULL: none */
};

/* The sysctls text at the start of a run from the text at its end and the
 * changes made during it (oldest first). Returns a malloc'd text, or NULL
 * when out of memory. Pure. */
char *record_sysctls_at_start(const char *at_end, const struct run_sysctl_change *changes,
			      int nchanges);

/* Fills r (initialised by the caller with run_record_init). Returns 0, or -1
 * when out of memory. */
int record_build(struct run_record *r, const struct record_input *in);

#endif
