/* Our own exports (export.h) read back into runs: JSON through SQLite's
 * JSON functions, CSV as RFC 4180 records whose nested cells hold JSON;
 * and the runs of another history database.
 * Never exits; failures fill err with one line naming the record at fault. */
#ifndef THRASHTOP_IMPORT_H
#define THRASHTOP_IMPORT_H

#include <stddef.h>

#include "runrec.h"

/* Where the runs go, one at a time: run gets each record (cleared after
 * it returns; copy what must stay) and returns 0, or -1 with err filled to
 * stop the import. note, if set, gets one line for each bad line a reader
 * was told to skip ("skipped line 3: ...") and each line read with a
 * warning ("line 3: ...", posted.h). */
struct import_sink {
	int (*run)(void *arg, struct run_record *r, char *err, size_t errlen);
	void (*note)(void *arg, const char *line);
	void *arg;
};

/* Read the whole text once to check it, then again to give each run to
 * sink: nothing reaches the sink from input that does not read in full.
 * Return 0, or -1 with err (from the reader or the sink). Memory stays one
 * run's worth beside the text. */
int import_json(const char *text, const struct import_sink *sink, char *err, size_t errlen);
int import_csv(const char *text, const struct import_sink *sink, char *err, size_t errlen);

/* Another machine's history database, opened read-only (any schema this
 * build reads): every run with its workers, changes and series, oldest
 * first, a page at a time. The runs keep their uuid, so a history that
 * already has one skips it. Returns 0, or -1 with err. */
#define IMPORT_DB_PAGE 200
int import_db(const char *path, const struct import_sink *sink, char *err, size_t errlen);

/* A sink's run function that keeps copies in a growing array. */
struct import_runs {
	struct run_record *runs;	/* run_records_free */
	size_t n;
};
int import_collect(void *arg, struct run_record *r, char *err, size_t errlen);

#endif
