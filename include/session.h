/* A session: sets the machine up as the options ask (swap, limits,
 * sysctls, sweeps), takes each tick's samples from the place the run
 * happens (place.h), runs the workload there as often as asked, records
 * each run, and puts everything back. It is driven by its owner's loop
 * (app.c) one step at a time and never waits itself; it never draws: the
 * monitor view reads its state. */
#ifndef THRASHTOP_SESSION_H
#define THRASHTOP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "against.h"
#include "cli.h"
#include "cmdlog.h"
#include "guard.h"
#include "history.h"
#include "metrics.h"
#include "place.h"
#include "run.h"
#include "series.h"
#include "sweep.h"
#include "sysctl.h"
#include "sysstate.h"
#include "ticker.h"
#include "tracer.h"
#include "tuning.h"

#define SESSION_KILLS_MAX 256	/* OOM kills the lane can draw */

/* What the session runs: the options' workload, then sized by the
 * session (the default size, the root default's pressure, sweep cells)
 * and the interval keys. The options themselves are never edited. */
struct session_plan {
	long nelems;
	int procs;
	double interval;
};

/* Progress through a sweep's cells. */
struct session_sweep {
	struct sweep sw;
	int cell;			/* running cell, -1 without a sweep */
	char cell_text[256];
	double t0, t_last;		/* start, end of the last finished run */
	int done;			/* runs finished */
	struct run_record *runs;	/* kept for the table */
	size_t nruns;
};

struct session {
	const struct options *o;
	struct session_plan plan;
	bool tui;
	struct guard guard;
	struct place *place;		/* where the runs happen */
	struct sysstate sys;
	char vm_start[SYSSTATE_NVM][64];	/* the vm settings the run began with */
	struct history *hist;		/* NULL: --no-history, or not opened */
	bool hist_tried;		/* opened, or failed to: not again */
	char hist_err[512];		/* why not, said again at exit */
	struct tuning tun;
	bool tuned_there;		/* the place tuned itself: tun mirrors it,
					   and nothing is undone here */
	unsigned tuned_seen;		/* the place's tuned_n mirrored */
	char knob_asked[64];		/* a k/K step the place has yet to answer */
	int64_t drops_said;		/* the place's dropped samples said so far */
	/* the workers' delay totals summed at the run's last two ticks, for
	 * the stall series; stall_t 0: none yet */
	struct delays stall_prev, stall_cur;
	double stall_t_prev, stall_t_cur;
	bool stall_fresh;		/* stall_cur was taken with this sample */

	/* the system, each tick */
	struct sys_sample prev, cur;
	bool have_prev;
	/* the last sample the plots took: their rates span a run's start or
	 * end sample, which they do not take, so that a run shorter than an
	 * interval still shows */
	struct sys_sample plot_prev;
	struct cgroup_stat plot_cg;
	double plot_cg_t;		/* when plot_cg was read, 0 none */
	bool have_plot_prev;
	bool unplotted;			/* a sample since plot_prev was not plotted */
	struct series view[M_N];	/* the plots' window, by registry id */
	struct metric_avail avail;	/* what this machine gives, at the run's start */
	struct against against;		/* --against: a stored run behind the plots */
	bool cg_ok;			/* the cgroup read at the last tick */
	bool want_procs;		/* per-process figures are on screen */
	int rows_first, rows_shown;	/* the worker rows on screen, the only
					   ones read; rows_shown < 0: all */

	/* runs */
	struct run run;
	int run_no;			/* 1-based, counts every run */
	int batch_left;			/* runs still to start in this batch */
	int repeat_k, repeat_n;		/* run k of n in the batch */
	int nfailed_runs;
	int64_t last_id;		/* the last run stored, 0 none */
	char **done;			/* each completed run's line, oldest first */
	int ndone;
	struct {			/* each completed run as run_print */
		char *out, *err;	/* prints it, for the monitor's exit */
		char vm[SYSSTATE_NVM][64];	/* as vm_start */
		char cell[288];		/* "cell 2/4: swappiness=60", or "" */
	} *posted;
	int nposted;
	struct session_sweep sweep;

	/* live tuning */
	char id[64];			/* "" unless the machine is tuned or swept */
	char knob[64];			/* the k/K sysctl */
	char swappiness[SYSCTL_VALUE_MAX];	/* as now, for the header */
	enum metric_comp comp;		/* compressed swap at work now */
	double *marks;			/* every live change, monotonic */
	int nmarks;

	/* texts for the header and the record */
	char workload_desc[512];
	char swapdevs[256];
	char tune_desc[256];
	struct cmdlog out;		/* a command's output under the monitor */
	struct capture *cap;		/* --metric: the command's own figures,
					   matched in its output; NULL none */

	/* reclaim events: the place's, when it has them */
	bool tracer_wanted;		/* the session changed the machine when
					   the tracer was asked for: its runs
					   have a reclaim line */
	struct rc_summary rc_last;	/* the last finished run's */
	struct rc_acc *rc_run;		/* its events, threads and victims */
	double kills[SESSION_KILLS_MAX];	/* the latest OOM kills' times, */
	int nkills;				/* monotonic, for the lane */

	/* a notice for the status line (the monitor) or stderr (batch) */
	char note[256];
	bool note_error;
	double note_until;
	/* a note to show again once another one that replaced it has had
	 * its time (where the command's output goes) */
	char note_again[300];
	bool note_again_due;
	/* the monitor's notes (why stalls are n/a) for the stderr printed
	 * with the next run's result lines once the screen is gone */
	char kept_notes[1024];

	/* one of several places side by side (sides.h): its short name (the
	 * options' place_name), which its notes and printed runs carry, and
	 * the session whose run was printed last; NULL alone */
	const char *side_name;
	const struct session **side_printed;
	int shared_cores;		/* as the record's */
};

/* Sets everything up on this machine (local.h): undoes what an earlier
 * session left, checks the sweep, opens the place and the history (the
 * monitor's later, unless --against reads it), sizes the default
 * workload, tunes the machine, guards the monitor. 0, or -1 with err (what was set up stays for
 * session_close). */
int session_open(struct session *s, const struct options *o, char *err, size_t errlen);

/* A session whose runs happen at p, a place set up and sampling already
 * (place.h): it tunes nothing here. A place that tuned itself (an
 * agent's, its tuned op) gives the session its tuning, sysctls, cgroup
 * figures and workload size; a sweep's cells and the keys that retune
 * (k/K, s/S) are asked of it. p is the session's, closed with it. 0, or -1 with
 * err (what was set up stays for session_close). With --agent,
 * session_open opens the agent's place (remote.h) and comes here. */
int session_open_place(struct session *s, const struct options *o, struct place *p, char *err,
		       size_t errlen);

/* Opens the history once (never with --no-history). The monitor calls it
 * after its first frame, since a new database takes tens of
 * milliseconds; a run is never recorded before it has been called. A
 * failure costs the history, not the session: one line on stderr (at
 * exit, when the screen is up, with a note on it meanwhile). */
void session_open_history(struct session *s);

/* Readable while system samples wait to be taken. */
int session_tick_fd(const struct session *s);

/* One tick: every waiting system sample in order into the plots' series
 * and the run's samples, then, when want_procs, the workers and a
 * command's tree. 0, or -1 with err. */
int session_sample(struct session *s, char *err, size_t errlen);

/* The workers of rows_first..rows_shown alone, as a tick reads them: for
 * rows a scroll has just brought on screen. */
void session_sample_rows(struct session *s);

/* Begins the next run: another repeat, else the next cell of a sweep.
 * Returns 1 when one began, 0 when none is left, -1 with err. */
int session_next_run(struct session *s, char *err, size_t errlen);

/* Begins one more run of the current configuration (the r key). 1 began,
 * 0 when one is in progress, -1 with err. */
int session_rerun(struct session *s, char *err, size_t errlen);

/* Forks workers of the run being started until until; when all run, takes
 * the run's first sample. Returns 1 when more are left to fork, 0 when
 * done (or nothing to fork), -1 with err (the run ended). */
int session_fork(struct session *s, double until, char *err, size_t errlen);

/* After a SIGCHLD: reaps, and when the run is over, finishes, prints or
 * lists and records it. Returns true when a run finished. */
bool session_reap(struct session *s);

/* Whether the place has workers' ends waiting that came with its samples
 * (place.h ends_waiting): the owner calls session_reap then, as after a
 * SIGCHLD. */
bool session_ends_waiting(const struct session *s);

/* Ends the run in progress as aborted (kept in the history as such). */
void session_abort_run(struct session *s);

/* One step of a vm sysctl (s/S, k/K): set, recorded with the run, marked
 * on the plots, restored at exit; the outcome is a notice. */
void session_step_knob(struct session *s, const char *name, int dir);

/* One step along the interval ladder 0.05 .. 10 s. */
void session_step_interval(struct session *s, int dir);

/* A notice: on the status line for a while, or stderr in batch mode. */
void session_note(struct session *s, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether s->note is fresh. */
bool session_note_shown(const struct session *s);

/* For the session's own modules (cells.c): the place's state read again
 * for the header and the record; the workload's and the tuning's texts
 * made again. */
void session_refresh(struct session *s);
void session_describe(struct session *s);

/* One of several places: the line its printed runs come under, "NAME
 * hostname=HOST kernel=RELEASE:", as an export's header names a group
 * (history import takes them back so). */
void session_print_place(const struct session *s, FILE *f);

/* Stops what runs, undoes the tuning, prints a sweep's table, frees. */
void session_close(struct session *s);

/* The runs a sweep kept for its table (a sweep over places: each place's
 * session's), handed over: the caller frees them (run_records_free). */
void session_take_runs(struct session *s, struct run_record **runs, size_t *n);

#endif
