/* The place a run happens: the machine whose kernel is sampled and whose
 * workload runs. A session drives its place through these operations
 * alone and reads no machine itself; the monitor, the history and the
 * reports see only what the session took from it. This machine is the
 * first place (local.h). A new place (a guest, an ssh host) provides
 * every operation with the meaning given here, from whatever carries its
 * figures, and fills the same rows. */
#ifndef THRASHTOP_PLACE_H
#define THRASHTOP_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "oomlog.h"
#include "run.h"
#include "sampler.h"
#include "sysstate.h"
#include "taskstats.h"
#include "tracer.h"
#include "tuning.h"

#define PLACE_TREE_MAX 255	/* a command's descendants shown as rows */

/* A command's descendants, sampled each tick, each with a row. */
struct place_tree {
	int n;
	pid_t pid[PLACE_TREE_MAX];
	struct proc_sample ps[PLACE_TREE_MAX];
	double seen[PLACE_TREE_MAX];		/* monotonic start */
	double swap_at[PLACE_TREE_MAX];	/* when its VmSwap was read */
};

/* What the monitor shows of the run's processes, kept by the place. */
struct place_rows {
	struct proc_sample *ps;	/* per worker, its last sample */
	struct delays *dl;	/* per worker, its delay totals at the last tick
				   it was on screen; NAN unknown */
	struct place_tree tree;
};

/* What the session asks of a run's processes: with tick, a tick's
 * reading (forks into the run's tree, exit records, whether delay
 * accounting is still on, and a command's tree rows); with rows, the
 * worker rows lo..hi-1, those on screen. */
struct place_want {
	bool tick;
	bool rows;
	int lo, hi;
};

/* The run's end as the place saw it beyond its samples. */
struct place_end {
	struct oom_kill kills[RUN_VICTIMS_MAX];	/* the log's kills of the run */
	int nkills;
	bool tree_lost;		/* a command's tree records were lost: its own
				   totals cleared */
	bool tree_past[DL_N];	/* a tree record held more than its life: n/a */
	bool acct_off;		/* delay accounting was off at some point */
};

struct place;

struct place_ops {
	/* The system on the place's own beat: the descriptor readable when
	 * a sample waits, the next waiting sample (1, 0 when none, -1 with
	 * errno), and one read now, for a run's start and end (0, -1). */
	int (*tick_fd)(const struct place *p);
	int (*take)(struct place *p, struct sys_sample *x);
	int (*now)(struct place *p, struct sys_sample *x);
	void (*set_interval)(struct place *p, double interval);
	/* The state a run is recorded with (0, or -1 with err). */
	int (*state)(struct place *p, struct sysstate *st, char *err, size_t errlen);
	/* What it gives, and the zram device it samples (NULL: none). */
	void (*caps)(const struct place *p, struct sampler_caps *c);
	void (*zram)(struct place *p, const char *name);

	/* The workload. begin: sized, nothing forked yet; holder is a
	 * process of the session's own beside the run, outside the command's
	 * tree (0: none). 0, or -1 with err. fork: forks until the monotonic
	 * until: 1 when all run, 0 when more are left, -1 with err (the run
	 * ended). started: first is the run's first sample; the place's
	 * watch of the run starts. reap: how many workers still run. stop:
	 * kills what runs. */
	int (*begin)(struct place *p, struct run *r, const struct workload_cfg *cfg, pid_t holder,
		     char *err, size_t errlen);
	int (*fork)(struct place *p, struct run *r, double until, char *err, size_t errlen);
	void (*started)(struct place *p, const struct run *r, const struct sys_sample *first);
	int (*reap)(struct place *p, struct run *r);
	void (*stop)(struct place *p, struct run *r);

	/* At each sample of an active run: the workers' delay totals summed
	 * into sum (the ended ones' final totals with the live ones'): 1
	 * when taken, 0 when not this time, -1 when the place has none.
	 * watch: what the session wants read of the run's processes, at cur. */
	int (*stalls)(struct place *p, const struct run *r, struct delays *sum);
	void (*watch)(struct place *p, const struct run *r, const struct place_want *w,
		      const struct sys_sample *cur);
	/* At the run's end, before run_finish: its OOM kills (any in cgroup,
	 * the run's memory cgroup, count whatever their pid; NULL: none),
	 * a command's other processes' delay totals added to its own, and
	 * its output all passed on and matched in the begin cfg's capture
	 * (its unfinished last lines left for capture_flush). done,
	 * after run_finish: the rows are let go. */
	void (*end)(struct place *p, struct run *r, const char *cgroup, struct place_end *e);
	void (*done)(struct place *p, const struct run *r);

	/* Reclaim events: the run's, copied into into, and the direct
	 * reclaim stalls of its processes (n, s seconds). false: none. */
	bool (*events)(struct place *p, const struct run *r, struct rc_acc *into, int64_t *n,
		       double *s);

	/* A place that sets itself up from the session's options (an
	 * agent's); NULL for this machine, which the session tunes itself.
	 * tuned: what it set up, into the fields of t a session reads (a
	 * mirror: nothing in it is held or undone here). sysctls: every
	 * sysctl it set as tuning_sysctls_text gives them. cgroup: the
	 * workload cgroup's figures that came with the last sample taken
	 * (0; -1 none). */
	void (*tuned)(struct place *p, struct tuning *t);
	size_t (*sysctls)(struct place *p, char *buf, size_t len);
	int (*cgroup)(struct place *p, struct cgroup_stat *st);
	/* cell: sets the sweep's cell c up as the --sweep it was given
	 * numbers them; the run begun next begins in it, or fails with why.
	 * 0, or -1 with err when it cannot be asked. sysctl: one step of
	 * name in dir as the k/K keys step it (tuning_knob_step), restored
	 * when the place closes: 0 with its old and new values, 1 at the end
	 * of its range (now holds the value), -1 with err, or 2: asked, and
	 * answer gives the answer as sysctl would, 2 while none came. Either
	 * answers with a tuning of its own (tuned_n counts them). */
	int (*cell)(struct place *p, int c, char *err, size_t errlen);
	int (*sysctl)(struct place *p, const char *name, int dir, char *old, char *now, size_t vlen,
		      char *err, size_t errlen);
	int (*answer)(struct place *p, char *old, char *now, size_t vlen, char *err,
		      size_t errlen);

	void (*close)(struct place *p);
};

struct place {
	const struct place_ops *ops;
	/* what the records call it: "" this machine, "vm" a guest on it,
	 * with its accelerator ("kvm", "tcg") */
	char kind[16], accel[8];
	struct place_rows rows;
	/* delay accounting and reclaim events: whether the place has them,
	 * and why not */
	bool stalls_on, events_on;
	char stalls_why[256], events_why[256];
	/* A place that sets itself up: the workload's size it chose for its
	 * machine (0: none). */
	long nelems;
	int procs;
	/* Set when the workers' ends came with the samples rather than as a
	 * SIGCHLD: the owner reaps after taking them (session_reap). */
	bool ends_waiting;
	int64_t drops;		/* samples lost on the way, as the place counted */
	unsigned tuned_n;	/* a place that tunes itself: its tunings sent */
	/* Why the place stopped serving the session, one line ("" while it
	 * serves): its samples fail with errno from then on. */
	char ended[512];
};

#endif
