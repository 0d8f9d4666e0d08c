/* Stage: a stored run's rows in the history's other tables read back into
 * its record: workers and their delay totals, free(1) snapshots, sysctl
 * changes, reclaim events, OOM victims, the command's own figures and
 * series. The statements are
 * prepared once per listing rather than once per run. */
#ifndef THRASHTOP_HISTDETAIL_H
#define THRASHTOP_HISTDETAIL_H

#include <sqlite3.h>

#include "runrec.h"

struct histdetail {
	sqlite3_stmt *workers, *snaps, *changes, *series, *events;
	sqlite3_stmt *delays, *victims, *metrics;
};

/* What flags (HISTORY_WORKERS, HISTORY_WORKER_ENDS, HISTORY_SERIES,
 * HISTORY_METRICS) ask
 * for, of a schema of version: 0, or -1 with nothing prepared. */
int histdetail_prepare(struct histdetail *d, sqlite3 *db, int version, int flags);
void histdetail_finalize(struct histdetail *d);

/* r's rows (r->id) into r. 0, or -1 out of memory. */
int histdetail_load(struct histdetail *d, struct run_record *r);

#endif
