/* Stage: the history, where records (runrec.h) are kept. Every finished run
 * with the state that produced it, kept in SQLite (WAL, busy timeout, one
 * transaction per run, schema versioned by PRAGMA user_version with forward
 * migrations: histschema.h). In a directory others can write
 * (sysio_dir_shared) it is kept with a rollback journal instead, through
 * histvfs. Never prints: every failure fills err with one line and leaves
 * the database as it was. */
#ifndef THRASHTOP_HISTORY_H
#define THRASHTOP_HISTORY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runrec.h"

#define HISTORY_SCHEMA_VERSION 14
/* The oldest schema a reader (HISTORY_RDONLY) takes as it is: v9 added only
 * what a write uses, v10, v11, v13 and v14 what a reader leaves unknown
 * where it is not, v12 changed only when a write keeps the last id. */
#define HISTORY_READ_VERSION 8
#define HISTORY_BUSY_MS 5000		/* longest wait for another writer's lock */
#define HISTORY_STOP_GRACE_MS 500	/* longest wait once asked to stop */

struct history;

enum {
	HISTORY_RDONLY = 1,		/* never writes, never creates */
	HISTORY_PARENTS = 2,		/* makes the missing directories above
					   it: the default path's, never a
					   path given, where one is a typo */
};

/* Opens (creating the file unless HISTORY_RDONLY) and migrates to
 * HISTORY_SCHEMA_VERSION. A file that is not a database, or a newer
 * schema, is refused and left untouched. */
struct history *history_open(const char *path, int flags, char *err, size_t errlen);
/* As history_open but migrates no further than version (tests build older
 * files with it). */
struct history *history_open_version(const char *path, int flags, int version,
				     char *err, size_t errlen);
void history_close(struct history *h);
/* history_close; and when this handle made the file and it holds no run,
 * removes it and the directories history_open made above it, as if never
 * made: unless a file beside it says another handle has it open
 * (history_remove_unused). */
void history_close_unused(struct history *h);
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
 * indexes stay in memory, and in WAL mode commits that reach the disk at
 * checkpoints (WAL's synchronous=NORMAL: a crash may lose the last
 * batches, never the database, and importing again adds only what is
 * missing), made every 100 MB of log rather than every 4 MB. history_add then runs no savepoint
 * of its own inside history_begin's transaction: a failed add rolls the
 * whole transaction back. */
void history_bulk(struct history *h);

/* SQLite's page cache for h: up to mib MiB (2 by default), used only as
 * pages are read. A report that reads a group at a time through runs that
 * interleave reads each table page once instead of once per group. */
void history_cache_mib(struct history *h, int mib);

/* One import or batch as one transaction. history_add inside it joins it. */
int history_begin(struct history *h, char *err, size_t errlen);
/* Whether another writer waits for the lock h's transaction holds: one of
 * this build, which says so as it waits (histfile.h). */
bool history_contended(struct history *h);
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
	HISTORY_METRICS = 32,	/* also load the command's own figures (with
				   HISTORY_WORKERS too) */
};

/* The fields a group's statistics and time lines need, which an index
 * holds beside the group and start time: reading them for a group never
 * touches the runs' rows. */
extern const char *const history_figures[];

/* A run's figures as history_figures names them: unknown ones NA
 * or NAN. */
struct run_figures {
	int64_t id, user_us, sys_us, wall_us, majflt, minflt, inblock, oublock;
	int64_t maxrss_kib;
	double kswapd_s;
	double cpu_pct;			/* as stored: a posted %P kept as posted */
	enum run_status status;
	struct delays stalls;		/* NAN: not recorded */
};

/* Calls fn with the figures of each run f selects, oldest first, as
 * history_each with history_figures would give them, without a record
 * per run: what a group's statistics read over every run. Returns as
 * history_each. */
int history_each_figures(struct history *h, const struct history_filter *f,
			 int (*fn)(const struct run_figures *fig, void *arg), void *arg,
			 char *err, size_t errlen);

/* Calls fn with each of the command's own figures (--metric) of the runs f
 * selects, oldest run first, a run's in the order they were given: the
 * run's id and status, and the figure. None from a history before v14.
 * Returns as history_each. */
int history_each_metric(struct history *h, const struct history_filter *f,
			int (*fn)(int64_t id, enum run_status st, const struct run_metric *m,
				  void *arg), void *arg, char *err, size_t errlen);

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
/* Its id is not given to a run again. Returns 0, 1 if no such id, -1 on
 * failure. */
int history_rm(struct history *h, int64_t id, char *err, size_t errlen);

/* SQLite's EXPLAIN QUERY PLAN of history_list's query, one step a line. */
int history_list_plan(struct history *h, const struct history_filter *f,
		      char *buf, size_t len, char *err, size_t errlen);

#endif
