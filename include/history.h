/* The run history: every finished run with the state that produced it, kept
 * in SQLite (WAL, busy timeout, one transaction per run, schema versioned by
 * PRAGMA user_version with forward migrations). Never prints: every failure
 * fills err with one line and leaves the database as it was. */
#ifndef THRASHTOP_HISTORY_H
#define THRASHTOP_HISTORY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "result.h"

#define HISTORY_SCHEMA_VERSION 5
/* Samples kept per series of a run: every one up to this many (7 h 16 min
 * at -d 0.1, 3 days at 1 s); a longer run is kept at a coarser step. */
#define HISTORY_SAMPLES_MAX (1 << 18)
#define HISTORY_BUSY_MS 5000		/* longest wait for another writer's lock */
#define HISTORY_STOP_GRACE_MS 500	/* longest wait once asked to stop */

/* Unknown integer figures are -1 (HIST_NA), unknown doubles NAN. */
#define HIST_NA (-1)

enum run_kind { RUN_QSBENCH, RUN_COMMAND };

struct run_worker {
	int pid;
	char end[12];		/* ok, verify, exit, signal, oom (worker_end_name) */
	int exit_code;		/* exit status, HIST_NA if killed */
	int signal;		/* terminating signal, 0 if it exited */
	int64_t user_us, sys_us, majflt, minflt;
	int64_t verify_errors;	/* 0, or errors found by the verify pass */
	int64_t first_bad;	/* first bad index, HIST_NA if none */
};

/* A sysctl written while the run was going (tuning sessions). */
struct run_sysctl_change {
	double t_s;		/* seconds after the run started */
	char name[64], old_val[64], new_val[64];
};

struct run_record {
	int64_t id;			/* assigned by history_add */
	char uuid[33];			/* stable content id; history_add fills it if empty */
	char started_at[24];		/* UTC, "2025-01-31T12:00:00Z" */
	char label[128];

	enum run_kind kind;
	int64_t nelems;			/* qsbench: elements per worker */
	int procs;
	unsigned seed;
	char *command;			/* RUN_COMMAND: the command line (owned) */
	int repeat_k, repeat_n;		/* run k of N (1-based); 1 of 1 if not repeated */
	char session[64];		/* sweep/tuning session id, "" if none */
	char cell[256];			/* that session's cell, "key=value key=value" */

	/* results */
	enum run_status status;
	int64_t wall_us, user_us, sys_us;
	double cpu_pct;
	int64_t majflt, minflt, inblock, oublock;
	double kswapd_s;		/* NAN = n/a */
	int64_t swap_peak_kib, mem_free_min_kib;
	int64_t swap_before_kib, swap_after_kib;
	int nworkers;
	struct run_worker *workers;	/* owned */

	/* system state at the start */
	char kernel_release[65];
	char *kernel_version;		/* uname -v (owned) */
	char *proc_cmdline;		/* /proc/cmdline (owned) */
	char hostname[65];
	int ncpus;
	int64_t ram_kib;
	char *swap_devices;		/* /proc/swaps body (owned) */
	int64_t swap_total_kib;
	int64_t swappiness, vfs_cache_pressure, min_free_kbytes;
	int64_t watermark_scale_factor, page_cluster, overcommit_memory;
	int64_t dirty_ratio, dirty_background_ratio;
	int zswap;			/* 1 on, 0 off, HIST_NA unknown */
	int64_t mem_limit_kib;		/* memory cgroup limit, HIST_NA none */
	int64_t global_limit_kib;	/* mem= or balloon limit, HIST_NA none */
	char global_by[16];		/* "hugetlb", "balloon", "hugetlb+balloon", "":
					 * kept in the config text, no column */
	int64_t tmp_swap_kib;		/* temporary swap added for the run, 0 none */
	int cgroup_new;			/* 1: the memory cgroup was made for this run,
					 * 0: earlier runs used it, HIST_NA: none */
	int64_t hugetlb_kib;		/* hugetlb pools at the start, HIST_NA unknown */
	int64_t mlocked_kib;		/* mlocked memory at the start (a balloon's too) */
	char *sysctls;			/* every sysctl the session set, as it was at
					   the start: "vm.nr_hugepages=11000\n" (owned) */
	char version[32];		/* thrashtop's */

	/* free(1)-style (sysstate.h), every field HIST_NA when not taken */
	struct mem_snapshot free_before, free_after;

	int nchanges;
	struct run_sysctl_change *changes;	/* owned */

	/* The sampled series by registry id (metrics.h), nsamples each,
	 * time-aligned by t; NULL where a series was not recorded. */
	int nsamples;			/* 0..HISTORY_SAMPLES_MAX */
	double *t;			/* seconds since the run started (owned) */
	double *series[M_N];		/* owned */

	/* Grouping: runs with equal config (workload, host, kernel, sysctls,
	 * limits, swap, label) form a group. history_add computes both. */
	char *config;			/* canonical text (owned) */
	char config_hash[17];		/* FNV-1a 64 of config, hex */
};

/* The record's scalar fields, in storage and export order (id aside). */
enum hist_ftype {
	HF_I64, HF_INT, HF_UINT, HF_DBL,
	HF_STR,		/* char array of .size bytes */
	HF_PSTR,	/* owned char *, NULL = "" */
	HF_KIND, HF_STATUS,
};

struct hist_field {
	const char *name;
	enum hist_ftype type;
	size_t off, size;
	int since;		/* schema version that added the column */
};

extern const struct hist_field history_fields[];
extern const size_t history_nfields;

/* Reads or writes field f of r as text ("" = unknown); set returns -1 on a
 * value that does not parse, 0 otherwise. */
int hist_field_get(const struct run_record *r, const struct hist_field *f,
		   char *buf, size_t len);
int hist_field_set(struct run_record *r, const struct hist_field *f, const char *val);
const struct hist_field *hist_field_find(const char *name);

struct history;

enum {
	HISTORY_RDONLY = 1,		/* never writes, never creates */
};

/* Sets every field to "unknown" (HIST_NA, NAN, "", NULL). */
void run_record_init(struct run_record *r);
/* Frees owned members and re-inits. */
void run_record_clear(struct run_record *r);
void run_records_free(struct run_record *v, size_t n);
/* Deep copy; -1 with errno on allocation failure (dst left cleared). */
int run_record_copy(struct run_record *dst, const struct run_record *src);

/* Drops any series and allocates t for n samples (zero-filled). 0, or -1
 * with errno (EINVAL: n out of range, ENOMEM). */
int run_record_alloc_series(struct run_record *r, int n);
/* Series id for the nsamples allocated, NAN-filled (the one there if any);
 * NULL with errno (EINVAL: no such id, ENOMEM). */
double *run_record_add_series(struct run_record *r, int id);

/* Computes r->config and r->config_hash from r's fields. */
int run_record_config(struct run_record *r);

/* A series name of an older release ("swap_used_kib"), or a registry
 * name: the registry id, or -1. "t" is no series. */
int run_series_id(const char *name);

/* $XDG_DATA_HOME/thrashtop/history.db, else ~/.local/share/thrashtop/history.db.
 * Returns buf, or NULL (err filled) when neither variable is usable. */
char *history_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Whether --history PATH can hold a history, before anything starts: an
 * existing regular file, or a name whose nearest existing directory takes
 * files and may be written (its missing directories are made on open).
 * Refuses directories, devices, /proc and /sys. Returns 0, or -1 with err. */
int history_check_path(const char *path, char *err, size_t errlen);

/* Opens (creating the file and its parent directories unless
 * HISTORY_RDONLY) and migrates to HISTORY_SCHEMA_VERSION. A file that is
 * not a database, or a newer schema, is refused and left untouched. */
struct history *history_open(const char *path, int flags, char *err, size_t errlen);
/* As history_open but migrates no further than version (tests build older
 * files with it). */
struct history *history_open_version(const char *path, int flags, int version,
				     char *err, size_t errlen);
void history_close(struct history *h);
int history_schema_version(struct history *h);

/* Bounds the waits for another writer's lock (history_begin, history_add,
 * history_commit, history_rm) by a flag the caller sets, typically from a
 * signal handler: while *stop is 0 a wait lasts up to HISTORY_BUSY_MS; once
 * it is nonzero, all the waits of this handle together last at most
 * HISTORY_STOP_GRACE_MS more, and a write that still cannot get the lock
 * fails as "database is locked" with nothing written. So a session asked
 * to end still keeps its run when the lock comes free in time, and ends
 * within a second when it does not. NULL: no flag. Setting it again
 * starts a fresh grace. */
void history_set_stop(struct history *h, const volatile sig_atomic_t *stop);

/* For a long import into h: a page cache of up to 64 MiB, so that the
 * indexes stay in memory, and commits that reach the disk at checkpoints
 * (WAL's synchronous=NORMAL: a crash may lose the last batches, never the
 * database, and importing again adds only what is missing), made every
 * 100 MB of log rather than every 4 MB. history_add then runs no savepoint
 * of its own inside history_begin's transaction: a failed add rolls the
 * whole transaction back. */
void history_bulk(struct history *h);

/* SQLite's page cache for h: up to mib MiB (2 by default), used only as
 * pages are read. A report that reads a group at a time through runs that
 * interleave reads each table page once instead of once per group. */
void history_cache_mib(struct history *h, int mib);

/* One import or batch as one transaction. history_add inside it joins it. */
int history_begin(struct history *h, char *err, size_t errlen);
int history_commit(struct history *h, char *err, size_t errlen);
void history_rollback(struct history *h);

/* Adds r in one transaction (or the open one). Fills r->id, r->uuid and the
 * config. Returns 0, 1 if a run with the same uuid is already there
 * (r->id set to that run), -1 on failure (nothing written). */
int history_add(struct history *h, struct run_record *r, char *err, size_t errlen);

struct history_filter {
	const char *label;	/* exact, or a GLOB pattern if it has * ? [ */
	const char *kernel;	/* substring of release or version */
	const char *session;	/* exact */
	const char *config_hash;	/* exact */
	int64_t id;		/* exact, 0 = any */
	long limit;		/* 0 = all */
	long offset;
	const char *const *fields;	/* NULL-terminated names: read only these
					 * fields (and id), the rest unknown */
};

enum {
	HISTORY_WORKERS = 1,	/* also load workers, sysctl changes, free snapshots */
	HISTORY_SERIES = 2,	/* also load the sampled series */
	HISTORY_DETAIL = HISTORY_WORKERS | HISTORY_SERIES,
	HISTORY_BRIEF = 4,	/* only what `history list` shows; the rest unknown */
	HISTORY_OLDEST_FIRST = 8,	/* started_at, then id, ascending */
	HISTORY_WORKER_ENDS = 16,	/* also load workers, and no other detail */
};

/* The fields a group's statistics and time lines need, which an index
 * holds beside the group and start time: reading them for a group never
 * touches the runs' rows. */
extern const char *const history_figures[];

/* A run's figures as history_figures names them: unknown ones HIST_NA
 * or NAN. */
struct run_figures {
	int64_t id, user_us, sys_us, wall_us, majflt, minflt, inblock, oublock;
	double kswapd_s;
	enum run_status status;
};

/* Calls fn with the figures of each run f selects, oldest first, as
 * history_each with history_figures would give them, without a record
 * per run: what a group's statistics read over every run. Returns as
 * history_each. */
int history_each_figures(struct history *h, const struct history_filter *f,
			 int (*fn)(const struct run_figures *fig, void *arg), void *arg,
			 char *err, size_t errlen);

/* Calls fn for each run history_list would give, one at a time, so that
 * memory stays bounded whatever the count. fn may take the record over
 * (leaving it run_record_init'ed); it is cleared after the call. fn
 * returns 0 to go on, or nonzero to stop, returned. Returns 0, fn's value,
 * or -1 (err filled). */
int history_each(struct history *h, const struct history_filter *f, int flags,
		 int (*fn)(struct run_record *r, void *arg), void *arg,
		 char *err, size_t errlen);
/* Calls fn for each group of the runs f selects (their config_hash, and
 * how many runs f selects in it), ordered by each group's oldest run
 * (started_at, then id), as SQL groups and sorts them: memory stays bounded
 * whatever the count. f's limit and offset are not used. fn returns 0 to go
 * on, or nonzero to stop, returned. Returns 0, fn's value, or -1 (err). */
int history_each_group(struct history *h, const struct history_filter *f,
		       int (*fn)(const char *config_hash, int64_t nruns, void *arg), void *arg,
		       char *err, size_t errlen);
/* Newest first (started_at, then id). *out is malloc'd (run_records_free). */
int history_list(struct history *h, const struct history_filter *f, int flags,
		 struct run_record **out, size_t *n, char *err, size_t errlen);
int64_t history_count(struct history *h, const struct history_filter *f,
		      char *err, size_t errlen);
/* Full record. Returns 0, 1 if no such id, -1 on failure. */
int history_get(struct history *h, int64_t id, struct run_record *r,
		char *err, size_t errlen);
/* How many samples run id keeps (0 for none, or no such run), without
 * reading them. */
int history_nsamples(struct history *h, int64_t id);
/* Returns 0, 1 if no such id, -1 on failure. */
int history_rm(struct history *h, int64_t id, char *err, size_t errlen);

/* SQLite's EXPLAIN QUERY PLAN of history_list's query, one step a line. */
int history_list_plan(struct history *h, const struct history_filter *f,
		      char *buf, size_t len, char *err, size_t errlen);

#endif
