/* Stage: the history's schema (history.h). The SQL of each version, the
 * version a file is at (PRAGMA user_version), the forward migrations from
 * any older one, the figures' index, and the form of a samples row; with
 * the one line a failed statement of a history gives. Works on an open
 * SQLite handle; path only names the file in errors and its build lock. */
#ifndef THRASHTOP_HISTSCHEMA_H
#define THRASHTOP_HISTSCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define HISTSCHEMA_T_QUANTUM 0.001	/* sample times: milliseconds */

/* The run's stalls (v6), in delay_kind order, as the figures read them. */
#define HISTSCHEMA_STALL_COLUMNS " stall_swapin_s, stall_reclaim_s, stall_thrashing_s," \
	" stall_compact_s, stall_io_s, stall_cpu_s, stall_wpcopy_s, stall_irq_s"

/* Fills err for a failed statement on db: the file histvfs refused, a hot
 * journal a read-only handle cannot roll back, else what SQLite said,
 * after what was being done. */
void histschema_err(sqlite3 *db, const char *path, char *err, size_t len, const char *what);

/* Runs sql on db. 0, or -1 with err (NULL: not filled). */
int histschema_exec(sqlite3 *db, const char *path, const char *sql, char *err, size_t errlen);

/* The schema version of the file db has open, into *v. 0, or -1 with err;
 * a file that is not a database fails here, before anything is written. */
int histschema_version(sqlite3 *db, const char *path, int *v, char *err, size_t errlen);

/* Brings the file open for writing on db, at version *v, to version:
 * migrated one step at a time in one transaction, under path's build lock
 * (histfile.h); at the newest schema, also the index of the figures
 * (history_figures) if it is not there. *v is then the file's version,
 * which another writer may have taken further. 0, or -1 with err and the
 * file as it was. */
int histschema_update(sqlite3 *db, const char *path, int *v, int version, char *err,
		      size_t errlen);

/* One samples row (v4 on) through st, an INSERT of (run_id, name, n,
 * quantum, data): n values blob-coded (blob.h) in steps of quantum. st is
 * reset. 0, or -1. */
int histschema_put_samples(sqlite3_stmt *st, int64_t id, const char *name, const double *v,
			   int n, double quantum);

#endif
