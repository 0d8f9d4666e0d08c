/* The run history store: SQLite, WAL (a rollback journal in a directory
 * others can write), one transaction per run. */
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "blob.h"
#include "fmt.h"
#include "histdetail.h"
#include "histfile.h"
#include "histschema.h"
#include "histvfs.h"
#include "sysio.h"

/* The writes of history_add, prepared on first use and kept until close
 * (an import adds hundreds of thousands of runs), and history_nsamples. */
enum { ST_FIND_UUID, ST_NEXT_ID, ST_RUN, ST_WORKER, ST_SNAP, ST_CHANGE, ST_EVENT, ST_SAMPLES,
       ST_SAVEPOINT, ST_RELEASE, ST_NSAMPLES, ST_DELAYS, ST_VICTIM, ST_METRIC, ST_N };

struct history {
	sqlite3 *db;
	sqlite3_stmt *st[ST_N];
	char *path;
	int version;
	bool rdonly;
	bool wal;		/* else a rollback journal, deleted at each commit */
	bool bulk;		/* history_bulk: no savepoint per run */
	int64_t next_id;	/* the next run's in this write transaction; 0 not read */
	const volatile sig_atomic_t *stop;	/* history_set_stop */
	struct timespec wait_start, stop_seen;
	bool stopping;
	bool created;		/* this handle made the file */
	bool dir_tried;		/* dir_fd opened, or tried */
	int dir_fd;		/* history_dir_open's, or -1 */
	struct sysio_made made;	/* and these directories above it */
};

static void dberr(struct history *h, char *err, size_t len, const char *what)
{
	histschema_err(h->db, h->path, err, len, what);
}

static int exec_sql(struct history *h, const char *sql, char *err, size_t errlen)
{
	return histschema_exec(h->db, h->path, sql, err, errlen);
}

/* ---- opening ---- */

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* The directory's descriptor a waiting writer says so on (histfile.h),
 * opened at first need: -1 if it cannot be. */
static int dir_fd(struct history *h)
{
	if (!h->dir_tried) {
		h->dir_tried = true;
		h->dir_fd = history_dir_open(h->path);
	}
	return h->dir_fd;
}

/* Waits for another writer's lock in 10 ms steps, saying so meanwhile: up
 * to HISTORY_BUSY_MS (after any long schema change another handle is
 * making), or HISTORY_STOP_GRACE_MS in all once the caller's stop flag is
 * up. */
static int busy_wait(void *arg, int count)
{
	struct history *h = arg;
	struct timespec now, step = { 0, 10 * 1000000L };

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (count == 0 || history_building(h->path))
		h->wait_start = now;
	if (h->stop && *h->stop && !h->stopping) {
		h->stopping = true;
		h->stop_seen = now;
	}
	if (ms_between(&h->wait_start, &now) >= HISTORY_BUSY_MS ||
	    (h->stopping && ms_between(&h->stop_seen, &now) >= HISTORY_STOP_GRACE_MS))
		return 0;
	int fd = dir_fd(h);
	if (fd >= 0)
		history_dir_waiting(fd, true);
	nanosleep(&step, NULL);
	if (fd >= 0)
		history_dir_waiting(fd, false);
	return 1;
}

bool history_contended(struct history *h)
{
	int fd = dir_fd(h);

	return fd >= 0 && history_dir_waited(fd);
}

void history_set_stop(struct history *h, const volatile sig_atomic_t *stop)
{
	h->stop = stop;
	h->stopping = false;
}

/* vfs: HISTVFS_NAME in a directory others can write, else NULL. */
static int open_db(struct history *h, const char *name, int oflags, const char *vfs, char *err,
		   size_t errlen)
{
	if (sqlite3_open_v2(name, &h->db, oflags | SQLITE_OPEN_NOMUTEX, vfs) != SQLITE_OK) {
		if (!histvfs_refusal(err, errlen))
			fmt_err(err, errlen, "%s: cannot open: %s", h->path,
				h->db ? sqlite3_errmsg(h->db) : "out of memory");
		return -1;
	}
	sqlite3_extended_result_codes(h->db, 1);
	sqlite3_busy_handler(h->db, busy_wait, h);
	return 0;
}

/* The journal mode a database file's header names (its read version):
 * 1 a rollback journal, 2 WAL; 0 for a file too short or not a database. */
static int header_mode(const char *path)
{
	unsigned char hdr[20];
	char *real = realpath(path, NULL);	/* the file SQLite opens */
	int fd = real ? open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	ssize_t n = fd < 0 ? -1 : pread(fd, hdr, sizeof(hdr), 0);

	free(real);
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr, "SQLite format 3", 16))
		return 0;
	return hdr[19];
}

/* Reading leaves nothing behind. A file in rollback mode is read under
 * its writers' locks, which makes no file. In WAL mode, SQLite's
 * read-only connection creates a missing -wal and -shm with the
 * database's mode: from a 0444 file they stay 0444 and refuse every later
 * writer, and in a read-only directory the open fails. So without a -wal
 * (every commit is in the file itself) the file is read as immutable: no
 * locks, no side files. With one, the shared files are used (a writer is
 * at work, or died before its checkpoint) when the -shm is there or may
 * be made with a mode writers can use, and the directory is not shared
 * (the unix VFS makes the -shm past histvfs); else the commits in the -wal
 * cannot be read and the file is read as it was at its last checkpoint. */
static int open_readonly(struct history *h, const char *path, const char *vfs, int *v,
			 char *err, size_t errlen)
{
	char side[4200];
	bool wal, shm;

	if (header_mode(path) == 1) {
		if (open_db(h, path, SQLITE_OPEN_READONLY, vfs, err, errlen) ||
		    histschema_version(h->db, h->path, v, err, errlen))
			return -1;
		return 0;
	}
	snprintf(side, sizeof(side), "%s-wal", path);
	wal = access(side, F_OK) == 0;
	snprintf(side, sizeof(side), "%s-shm", path);
	shm = access(side, F_OK) == 0;
	if (!vfs && wal && (shm || access(path, W_OK) == 0)) {
		if (open_db(h, path, SQLITE_OPEN_READONLY, vfs, err, errlen) == 0 &&
		    histschema_version(h->db, h->path, v, err, errlen) == 0)
			return 0;
		sqlite3_close(h->db);
		h->db = NULL;
	}
	/* a URI: '%', '?' and '#' in the path are escaped */
	char uri[3 * 4096 + 32];
	size_t o = (size_t)snprintf(uri, sizeof(uri), "file:");
	for (const char *p = path; *p && o + 4 < sizeof(uri); p++)
		o += (size_t)(strchr("%?#", *p) ? snprintf(uri + o, sizeof(uri) - o, "%%%02X", *p)
				 : snprintf(uri + o, sizeof(uri) - o, "%c", *p));
	snprintf(uri + o, sizeof(uri) - o, "?immutable=1");
	if (open_db(h, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, vfs, err, errlen) ||
	    histschema_version(h->db, h->path, v, err, errlen))
		return -1;
	return 0;
}

/* What path must be before SQLite opens it as flags ask: a regular file
 * that may be written unless HISTORY_RDONLY, or with HISTORY_PARENTS a
 * path whose missing directories are made (into made). Whether it was
 * there goes in *existed. 0, or -1 with err. */
static int check_file(const char *path, int flags, bool *existed, struct sysio_made *made,
		      char *err, size_t errlen)
{
	bool rdonly = flags & HISTORY_RDONLY;
	struct stat sb;

	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && stat(path, &sb) < 0)
		return fmt_err(err, errlen, "%s: a symbolic link to nothing (%s)", path,
			       strerror(errno));
	*existed = stat(path, &sb) == 0;
	if (!*existed && rdonly)
		return fmt_err(err, errlen, "%s: no history yet (%s)", path, strerror(errno));
	if (*existed && !S_ISREG(sb.st_mode))
		return fmt_err(err, errlen, "%s: not a regular file", path);
	if (!*existed && (flags & HISTORY_PARENTS) && sysio_make_parents(path, 0700, made) < 0) {
		if (!made->failed[0])
			return fmt_err(err, errlen, "%s: path too long", path);
		return fmt_err(err, errlen, "%s: cannot create directory: %s", made->failed,
			       strerror(errno));
	}
	if (!*existed && !(flags & HISTORY_PARENTS) && !rdonly &&
	    history_check_path(path, err, errlen))
		return -1;
	if (!rdonly && *existed && access(path, W_OK) != 0)
		return fmt_err(err, errlen, "%s: cannot record runs: %s", path, strerror(errno));
	return 0;
}

/* The VFS path is opened through: others may plant files beside it in a
 * shared directory, so those there are checked now, and those made later
 * go through histvfs (*vfs HISTVFS_NAME); else *vfs NULL. 0, or -1 with
 * err. */
static int choose_vfs(const char *path, const char **vfs, char *err, size_t errlen)
{
	*vfs = NULL;
	if (!history_in_shared_dir(path))
		return 0;
	if (history_check_sides(path, err, errlen))
		return -1;
	if (histvfs_register())
		return fmt_err(err, errlen, "%s: SQLite has no unix VFS", path);
	*vfs = HISTVFS_NAME;
	return 0;
}

/* Opens path for writing and reads its version into *v. *held: a WAL
 * file, to be turned to a rollback journal, is held alone, which keeps
 * WAL's index in memory, never in a -shm. */
static int open_writable(struct history *h, const char *path, const char *vfs, bool existed,
			 bool *held, int *v, char *err, size_t errlen)
{
	if (open_db(h, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs, err, errlen))
		return -1;
	if (sqlite3_db_readonly(h->db, "main") == 1)
		return fmt_err(err, errlen, "%s: cannot record runs: read-only file", path);
	if (vfs && existed && header_mode(path) == 2) {
		if (exec_sql(h, "PRAGMA locking_mode = EXCLUSIVE", err, errlen))
			return -1;
		*held = true;
	}
	/* Reading user_version first makes a file that is not a
	 * database fail before anything is written to it. */
	return histschema_version(h->db, h->path, v, err, errlen);
}

/* A writer's journal, and the schema at v brought to version. */
static int start_writing(struct history *h, const char *vfs, bool held, int v, int version,
			 char *err, size_t errlen)
{
	/* WAL lets readers go on while a run is written, but needs its
	 * -shm. Of the rollback modes, DELETE makes the journal with
	 * O_EXCL at each write and removes it at the commit; TRUNCATE
	 * and PERSIST keep it between writes, to be opened again by
	 * name, so it could not be made exclusively. */
	h->wal = !vfs;
	if (exec_sql(h, vfs ? "PRAGMA journal_mode = DELETE" : "PRAGMA journal_mode = WAL",
		     err, errlen))
		return -1;
	/* the lock goes at the end of the next read */
	if (held && (exec_sql(h, "PRAGMA locking_mode = NORMAL", err, errlen) ||
		     histschema_version(h->db, h->path, &v, err, errlen)))
		return -1;
	if (histschema_update(h->db, h->path, &v, version, err, errlen))
		return -1;
	h->version = v;
	return 0;
}

/* Removes the file this open made, and what SQLite made beside it. */
static void unlink_made(const char *path)
{
	char side[4200];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

struct history *history_open_version(const char *path, int flags, int version,
				     char *err, size_t errlen)
{
	bool rdonly = flags & HISTORY_RDONLY;
	struct sysio_made made = { 0 };
	bool existed = true, held = false;
	const char *vfs;
	struct history *h;
	int v;

	if (version < 1 || version > HISTORY_SCHEMA_VERSION) {
		fmt_err(err, errlen, "history: no schema version %d", version);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->path = strdup(path))) {
		free(h);
		fmt_err(err, errlen, "history: out of memory");
		return NULL;
	}
	h->rdonly = rdonly;
	if (check_file(path, flags, &existed, &made, err, errlen) ||
	    choose_vfs(path, &vfs, err, errlen))
		goto fail_nodb;
	if (rdonly ? open_readonly(h, path, vfs, &v, err, errlen)
		   : open_writable(h, path, vfs, existed, &held, &v, err, errlen))
		goto fail;
	if (v > HISTORY_SCHEMA_VERSION) {
		fmt_err(err, errlen, "%s: schema version %d is newer than this thrashtop's (%d)",
		       path, v, HISTORY_SCHEMA_VERSION);
		goto fail;
	}
	if (exec_sql(h, "PRAGMA foreign_keys = ON", err, errlen))
		goto fail;
	if (!rdonly) {
		if (start_writing(h, vfs, held, v, version, err, errlen))
			goto fail;
	} else if (v < HISTORY_READ_VERSION && v < version) {
		fmt_err(err, errlen, "%s: schema version %d needs upgrading: open it once for writing",
		       path, v);
		goto fail;
	} else {
		h->version = v;
	}
	h->created = !existed;
	h->made = made;
	return h;
fail:
	sqlite3_close(h->db);
	if (h->dir_tried && h->dir_fd >= 0)
		close(h->dir_fd);
	if (!existed)
		unlink_made(path);
fail_nodb:
	while (made.n > 0)
		rmdir(made.dir[--made.n]);
	free(h->path);
	free(h);
	return NULL;
}

struct history *history_open(const char *path, int flags, char *err, size_t errlen)
{
	return history_open_version(path, flags, HISTORY_SCHEMA_VERSION, err, errlen);
}

void history_close_unused(struct history *h)
{
	struct sysio_made made;
	char path[4096], err[256];
	bool unused;

	if (!h)
		return;
	/* counted, not told: another session may have kept a run in it */
	unused = h->created && strlen(h->path) < sizeof(path) &&
		 history_count(h, NULL, err, sizeof(err)) == 0;
	if (unused) {
		snprintf(path, sizeof(path), "%s", h->path);
		made = h->made;
	}
	history_close(h);
	if (unused && history_remove_unused(path))
		while (made.n > 0)
			rmdir(made.dir[--made.n]);
}

void history_close(struct history *h)
{
	if (!h)
		return;
	for (int i = 0; i < ST_N; i++)
		sqlite3_finalize(h->st[i]);
	sqlite3_close(h->db);
	if (h->dir_tried && h->dir_fd >= 0)
		close(h->dir_fd);
	free(h->path);
	free(h);
}

int history_schema_version(struct history *h)
{
	return h->version;
}

void history_cache_mib(struct history *h, int mib)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d", mib * 1024);
	sqlite3_exec(h->db, sql, NULL, NULL, NULL);
}

void history_bulk(struct history *h)
{
	h->bulk = true;
	history_cache_mib(h, 64);
	if (h->rdonly)
		return;
	/* with a rollback journal, NORMAL could lose the file at a power
	 * cut, not only the last batches */
	if (h->wal)
		sqlite3_exec(h->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
	/* the schema's CHECKs build a lookup table per row; validate() checks
	 * the same kind and status */
	sqlite3_exec(h->db, "PRAGMA ignore_check_constraints = ON", NULL, NULL, NULL);
	/* index pages that every batch changes are copied into the database
	 * once per 100 MB of log instead of once per batch */
	sqlite3_exec(h->db, "PRAGMA wal_autocheckpoint = 25000", NULL, NULL, NULL);
}

int history_begin(struct history *h, char *err, size_t errlen)
{
	if (h->rdonly) {
		fmt_err(err, errlen, "%s: opened read-only", h->path);
		return -1;
	}
	h->next_id = 0;
	return exec_sql(h, "BEGIN IMMEDIATE", err, errlen);
}

int history_commit(struct history *h, char *err, size_t errlen)
{
	if (exec_sql(h, "COMMIT", err, errlen)) {
		history_rollback(h);
		return -1;
	}
	return 0;
}

void history_rollback(struct history *h)
{
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- writing ---- */

/* Statement which of h, prepared from sql the first time; reset. NULL on
 * failure. */
static sqlite3_stmt *cached(struct history *h, int which, const char *sql)
{
	if (!h->st[which] &&
	    sqlite3_prepare_v3(h->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &h->st[which],
			       NULL) != SQLITE_OK)
		return NULL;
	return h->st[which];
}

/* A cached statement's parameters are all NULL between uses (step_done
 * clears them), so a NULL is not bound: an imported run has dozens. */
static int bind_i64(sqlite3_stmt *st, int i, int64_t v)
{
	return v == NA ? SQLITE_OK : sqlite3_bind_int64(st, i, v);
}

static int bind_field(sqlite3_stmt *st, int i, const struct run_record *r,
		      const struct hist_field *f)
{
	const void *p = hist_field_ptr(r, f);

	switch (f->type) {
	case HF_I64: return bind_i64(st, i, *(const int64_t *)p);
	case HF_INT: return bind_i64(st, i, *(const int *)p);
	case HF_UINT: return sqlite3_bind_int64(st, i, *(const unsigned *)p);
	case HF_DBL:
		return isnan(*(const double *)p) ? SQLITE_OK
						 : sqlite3_bind_double(st, i, *(const double *)p);
	case HF_STR: return sqlite3_bind_text(st, i, (const char *)p, -1, SQLITE_STATIC);
	case HF_PSTR:
		return *(char *const *)p ? sqlite3_bind_text(st, i, *(char *const *)p, -1, SQLITE_STATIC)
					 : SQLITE_OK;
	case HF_KIND:
		return sqlite3_bind_text(st, i, *(const enum run_kind *)p == RUN_COMMAND ? "command" : "qsbench",
					 -1, SQLITE_STATIC);
	case HF_STATUS:
		return sqlite3_bind_text(st, i, run_status_name(*(const enum run_status *)p), -1, SQLITE_STATIC);
	}
	return SQLITE_MISUSE;
}

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The id the next run gets, past every run's and every removed run's
 * (run_ids): "run 41" in an old post does not come to name another run.
 * Read once a write transaction, which no other writer adds to. */
static int next_id(struct history *h)
{
	sqlite3_stmt *st;

	if (h->next_id)
		return 0;
	if (!(st = cached(h, ST_NEXT_ID, "SELECT max(last, (SELECT coalesce(max(id), 0)"
			  " FROM runs)) + 1 FROM run_ids")))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		h->next_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return h->next_id ? 0 : -1;
}

/* Returns 0, 1 if a run with r's uuid is there already (nothing added), or
 * -1. */
static int insert_run(struct history *h, const struct run_record *r, int64_t *id)
{
	sqlite3_stmt *st = h->st[ST_RUN];
	bool ids = h->version >= 9;
	int n = 0;

	if (ids && next_id(h))
		return -1;
	if (!st) {
		struct sbuf q = { 0 };

		sb_puts(&q, ids ? "INSERT INTO runs(id," : "INSERT INTO runs(");
		for (size_t i = 0; i < history_nfields; i++) {
			if (history_fields[i].since > h->version)
				continue;
			if (n++)
				sb_putc(&q, ',');
			sb_puts(&q, history_fields[i].name);
		}
		sb_puts(&q, ids ? ") VALUES(?," : ") VALUES(");
		for (int i = 0; i < n; i++)
			sb_puts(&q, i ? ",?" : "?");
		sb_puts(&q, ") ON CONFLICT(uuid) DO NOTHING");
		st = q.oom ? NULL : cached(h, ST_RUN, q.s);
		free(q.s);
		if (!st)
			return -1;
	}
	n = 0;
	if (ids && sqlite3_bind_int64(st, ++n, h->next_id) != SQLITE_OK)
		return -1;
	for (size_t i = 0; i < history_nfields; i++) {
		if (history_fields[i].since > h->version)
			continue;
		if (bind_field(st, ++n, r, &history_fields[i]) != SQLITE_OK) {
			sqlite3_clear_bindings(st);
			return -1;
		}
	}
	if (step_done(st))
		return -1;
	if (!sqlite3_changes(h->db))
		return 1;
	*id = sqlite3_last_insert_rowid(h->db);
	if (ids)
		h->next_id++;
	return 0;
}

static int insert_samples(struct history *h, const struct run_record *r, int64_t id)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (r->nsamples < 1)
		return 0;
	if (!(st = cached(h, ST_SAMPLES, "INSERT INTO samples VALUES(?,?,?,?,?)")))
		return -1;
	rc = histschema_put_samples(st, id, "t", r->t, r->nsamples, HISTSCHEMA_T_QUANTUM);
	for (int i = 0; i < M_N && rc == 0; i++)
		if (r->series[i])
			rc = histschema_put_samples(st, id, metric_def(i)->name, r->series[i],
						    r->nsamples, metric_def(i)->quantum);
	return rc;
}

/* Each worker's delay totals, a row for each worker that has them. */
static int insert_delays(struct history *h, const struct run_record *r, int64_t id)
{
	sqlite3_stmt *st = NULL;

	for (int i = 0; i < r->nworkers; i++) {
		const struct delays *d = &r->workers[i].delays;

		if (!delays_known(d))
			continue;
		if (!st && !(st = cached(h, ST_DELAYS,
					  "INSERT INTO worker_delays VALUES(?,?,?,?,?,?,?,?,?,?)")))
			return -1;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		for (int k = 0; k < DL_N; k++)
			if (isnan(d->s[k]))
				sqlite3_bind_null(st, 3 + k);
			else
				sqlite3_bind_double(st, 3 + k, d->s[k]);
		if (step_done(st))
			return -1;
	}
	return 0;
}

/* The run's reclaim events, in the order they ended. */
static int insert_events(struct history *h, const struct run_record *r, int64_t id)
{
	sqlite3_stmt *st;

	if (r->nevents <= 0)
		return 0;
	if (!(st = cached(h, ST_EVENT, "INSERT INTO events VALUES(?,?,?,?,?,?)")))
		return -1;
	for (int i = 0; i < r->nevents; i++) {
		const struct run_event *e = &r->events[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_text(st, 3, e->kind, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 4, e->t_s);
		sqlite3_bind_double(st, 5, e->dur_s);
		sqlite3_bind_int(st, 6, e->pid);
		if (step_done(st))
			return -1;
	}
	return 0;
}

/* The OOM killer's victims, in the order the run named them. */
static int insert_victims(struct history *h, const struct run_record *r, int64_t id)
{
	sqlite3_stmt *st;

	if (r->nvictims <= 0)
		return 0;
	if (!(st = cached(h, ST_VICTIM, "INSERT INTO victims VALUES(?,?,?,?)")))
		return -1;
	for (int i = 0; i < r->nvictims; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int(st, 3, r->victims[i].pid);
		sqlite3_bind_text(st, 4, r->victims[i].comm, -1, SQLITE_STATIC);
		if (step_done(st))
			return -1;
	}
	return 0;
}

/* The command's own figures, NULL where its output gave none. */
static int insert_metrics(struct history *h, const struct run_record *r, int64_t id)
{
	sqlite3_stmt *st;

	if (r->nmetrics <= 0)
		return 0;
	if (!(st = cached(h, ST_METRIC, "INSERT INTO run_metrics VALUES(?,?,?,?,?)")))
		return -1;
	for (int i = 0; i < r->nmetrics; i++) {
		const struct run_metric *m = &r->metrics[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_text(st, 3, m->name, -1, SQLITE_STATIC);
		if (isfinite(m->value))
			sqlite3_bind_double(st, 4, m->value);
		sqlite3_bind_int(st, 5, m->higher);
		if (step_done(st))
			return -1;
	}
	return 0;
}

static int insert_details(struct history *h, const struct run_record *r, int64_t id)
{
	sqlite3_stmt *st = NULL;

	if (r->nworkers &&
	    !(st = cached(h, ST_WORKER, "INSERT INTO workers VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")))
		return -1;
	for (int i = 0; i < r->nworkers; i++) {
		const struct run_worker *w = &r->workers[i];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int(st, 3, w->pid);
		sqlite3_bind_text(st, 4, worker_end_name(w->end), -1, SQLITE_STATIC);
		bind_i64(st, 5, w->exit_code);
		sqlite3_bind_int(st, 6, w->signal);
		bind_i64(st, 7, w->user_us);
		bind_i64(st, 8, w->sys_us);
		bind_i64(st, 9, w->majflt);
		bind_i64(st, 10, w->minflt);
		bind_i64(st, 11, w->verify_errors);
		bind_i64(st, 12, w->first_bad);
		if (step_done(st))
			return -1;
	}

	for (int k = 0; k < 2; k++) {
		const struct mem_snapshot *m = k ? &r->free_after : &r->free_before;

		if (!mem_snapshot_taken(m))
			continue;
		if (!(st = cached(h, ST_SNAP, "INSERT INTO free_snaps VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")))
			return -1;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, k ? "after" : "before", -1, SQLITE_STATIC);
		for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++)
			bind_i64(st, 3 + j, mem_snapshot_get(m, j));
		if (step_done(st))
			return -1;
	}

	if (r->nchanges &&
	    !(st = cached(h, ST_CHANGE, "INSERT INTO sysctl_changes VALUES(?,?,?,?,?,?)")))
		return -1;
	for (int i = 0; i < r->nchanges; i++) {
		const struct run_sysctl_change *c = &r->changes[i];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_double(st, 3, c->t_s);
		sqlite3_bind_text(st, 4, c->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, c->old_val, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, c->new_val, -1, SQLITE_STATIC);
		if (step_done(st))
			return -1;
	}
	if (h->version >= 6 && insert_delays(h, r, id))
		return -1;
	if (h->version >= 8 && insert_events(h, r, id))
		return -1;
	if (h->version >= 11 && insert_victims(h, r, id))
		return -1;
	if (h->version >= 14 && insert_metrics(h, r, id))
		return -1;
	return h->version >= 4 ? insert_samples(h, r, id) : 0;
}

static int validate(const struct run_record *r, char *err, size_t errlen)
{
	if (r->nsamples < 0 || r->nsamples > RUN_SAMPLES_MAX || (r->nsamples > 0 && !r->t)) {
		fmt_err(err, errlen, "history: %d samples (at most %d), or no times",
		       r->nsamples, RUN_SAMPLES_MAX);
		return -1;
	}
	if (r->nworkers < 0 || (r->nworkers > 0 && !r->workers) ||
	    r->nchanges < 0 || (r->nchanges > 0 && !r->changes) ||
	    r->nevents < 0 || (r->nevents > 0 && !r->events) ||
	    r->nvictims < 0 || (r->nvictims > 0 && !r->victims) ||
	    r->nmetrics < 0 || (r->nmetrics > 0 && !r->metrics)) {
		fmt_err(err, errlen, "history: inconsistent worker or sysctl change list");
		return -1;
	}
	for (int i = 0; i < r->nmetrics; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(r->metrics[i].name, r->metrics[k].name))
				return fmt_err(err, errlen, "history: the command's figure %s given "
					       "twice", r->metrics[i].name);
	if ((unsigned)r->status > RUN_ABORTED || (r->kind != RUN_QSBENCH && r->kind != RUN_COMMAND)) {
		fmt_err(err, errlen, "history: bad run status or kind");
		return -1;
	}
	return 0;
}

int history_add(struct history *h, struct run_record *r, char *err, size_t errlen)
{
	bool outer = !sqlite3_get_autocommit(h->db);
	/* a savepoint copies each page a run changes: a bulk import's batch
	 * is rolled back whole instead */
	bool save = outer && !h->bulk;
	sqlite3_stmt *st = NULL;
	int64_t id = 0;

	if (h->rdonly) {
		fmt_err(err, errlen, "%s: opened read-only", h->path);
		return -1;
	}
	if (validate(r, err, errlen))
		return -1;
	if (run_record_config(r)) {
		fmt_err(err, errlen, "history: out of memory");
		return -1;
	}
	if (!r->uuid[0])
		run_record_uuid(r);
	if (!outer)
		h->next_id = 0;
	if (save ? step_done(cached(h, ST_SAVEPOINT, "SAVEPOINT add_run")) :
		   !outer && exec_sql(h, "BEGIN IMMEDIATE", err, errlen)) {
		if (save)
			dberr(h, err, errlen, "cannot record the run");
		return -1;
	}

	/* the insert finds a run already there by its uuid */
	int k = insert_run(h, r, &id);
	if (k == 1) {
		if (!(st = cached(h, ST_FIND_UUID, "SELECT id FROM runs WHERE uuid = ?")))
			goto fail;
		sqlite3_bind_text(st, 1, r->uuid, -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		r->id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW)
			goto fail;
		if (save)
			step_done(cached(h, ST_RELEASE, "RELEASE add_run"));
		else if (!outer)
			exec_sql(h, "COMMIT", NULL, 0);
		return 1;
	}
	if (k || insert_details(h, r, id))
		goto fail;
	if (save ? step_done(cached(h, ST_RELEASE, "RELEASE add_run")) :
		   !outer && exec_sql(h, "COMMIT", err, errlen)) {
		if (save)
			dberr(h, err, errlen, "cannot record the run");
		goto rollback;
	}
	r->id = id;
	return 0;
fail:
	dberr(h, err, errlen, "cannot record the run");
rollback:
	if (save) {
		sqlite3_exec(h->db, "ROLLBACK TO add_run", NULL, NULL, NULL);
		sqlite3_exec(h->db, "RELEASE add_run", NULL, NULL, NULL);
	} else {
		history_rollback(h);
	}
	return -1;
}

/* ---- reading ---- */

static void column_field(sqlite3_stmt *st, int col, struct run_record *r,
			 const struct hist_field *f)
{
	void *p = hist_field_ptr(r, f);
	bool null = sqlite3_column_type(st, col) == SQLITE_NULL;
	/* numbers are read as numbers: asking for text would convert them */
	const char *txt = f->type == HF_STR || f->type == HF_PSTR || f->type == HF_KIND ||
			  f->type == HF_STATUS ? (const char *)sqlite3_column_text(st, col) : NULL;

	switch (f->type) {
	case HF_I64: *(int64_t *)p = null ? NA : sqlite3_column_int64(st, col); break;
	case HF_INT: *(int *)p = null ? NA : sqlite3_column_int(st, col); break;
	case HF_UINT: *(unsigned *)p = (unsigned)sqlite3_column_int64(st, col); break;
	case HF_DBL: *(double *)p = null ? NAN : sqlite3_column_double(st, col); break;
	case HF_STR: snprintf(p, f->size, "%s", txt ? txt : ""); break;
	case HF_PSTR:
		*(char **)p = txt ? strdup(txt) : NULL;
		if (txt && p == &r->config)
			run_record_config_fields(r, txt);
		break;
	case HF_KIND:
	case HF_STATUS: hist_field_set(r, f, txt ? txt : ""); break;
	}
}

static void build_where(struct history *h, struct sbuf *q, const struct history_filter *f)
{
	const char *sep = " WHERE ";

	(void)h;
	if (!f)
		return;
	if (f->label) {
		sb_puts(q, sep);
		sb_puts(q, strpbrk(f->label, "*?[") ? "label GLOB :label" : "label = :label");
		sep = " AND ";
	}
	if (f->kernel) {
		sb_puts(q, sep);
		sb_puts(q, "(instr(kernel_release, :kernel) > 0 OR instr(kernel_version, :kernel) > 0)");
		sep = " AND ";
	}
	if (f->session) {
		sb_puts(q, sep);
		sb_puts(q, "session = :session");
		sep = " AND ";
	}
	if (f->config_hash) {
		sb_puts(q, sep);
		sb_puts(q, "config_hash = :config");
		sep = " AND ";
	}
	if (f->id) {
		sb_puts(q, sep);
		sb_puts(q, "id = :id");
	}
}

static void bind_filter(sqlite3_stmt *st, const struct history_filter *f)
{
	if (!f)
		return;
	int i;
	if (f->label && (i = sqlite3_bind_parameter_index(st, ":label")))
		sqlite3_bind_text(st, i, f->label, -1, SQLITE_STATIC);
	if (f->kernel && (i = sqlite3_bind_parameter_index(st, ":kernel")))
		sqlite3_bind_text(st, i, f->kernel, -1, SQLITE_STATIC);
	if (f->session && (i = sqlite3_bind_parameter_index(st, ":session")))
		sqlite3_bind_text(st, i, f->session, -1, SQLITE_STATIC);
	if (f->config_hash && (i = sqlite3_bind_parameter_index(st, ":config")))
		sqlite3_bind_text(st, i, f->config_hash, -1, SQLITE_STATIC);
	if (f->id && (i = sqlite3_bind_parameter_index(st, ":id")))
		sqlite3_bind_int64(st, i, f->id);
	if ((i = sqlite3_bind_parameter_index(st, ":limit")))
		sqlite3_bind_int64(st, i, f->limit > 0 ? f->limit : -1);
	if ((i = sqlite3_bind_parameter_index(st, ":offset")))
		sqlite3_bind_int64(st, i, f->offset > 0 ? f->offset : 0);
}

const char *const history_figures[] = { "status", "user_us", "sys_us", "wall_us", "majflt",
	"minflt", "inblock", "oublock", "kswapd_s", "cpu_pct",
	"stall_swapin_s", "stall_reclaim_s", "stall_thrashing_s", "stall_compact_s",
	"stall_io_s", "stall_cpu_s", "stall_wpcopy_s", "stall_irq_s", "maxrss_kib", NULL };

/* Whether a listing with flags (and f's field list) reads field i. */
static bool field_read(const struct history *h, const struct history_filter *f, int flags,
		       size_t i)
{
	static const char *const brief[] = { "started_at", "label", "kind", "nelems", "procs",
		"seed", "command", "status", "wall_us", "majflt", "kswapd_s", "kernel_release",
		"hostname" };
	const struct hist_field *fl = &history_fields[i];

	if (fl->since > h->version)
		return false;
	if (f && f->fields) {
		for (const char *const *n = f->fields; *n; n++)
			if (!strcmp(fl->name, *n))
				return true;
		return false;
	}
	if (!(flags & HISTORY_BRIEF))
		return true;
	for (size_t k = 0; k < sizeof(brief) / sizeof(brief[0]); k++)
		if (!strcmp(fl->name, brief[k]))
			return true;
	return false;
}

static char *list_sql(struct history *h, const struct history_filter *f, int flags)
{
	struct sbuf q = { 0 };

	sb_puts(&q, "SELECT id");
	for (size_t i = 0; i < history_nfields; i++) {
		if (!field_read(h, f, flags, i))
			continue;
		sb_putc(&q, ',');
		sb_puts(&q, history_fields[i].name);
	}
	sb_puts(&q, " FROM runs");
	build_where(h, &q, f);
	sb_puts(&q, flags & HISTORY_OLDEST_FIRST ? " ORDER BY started_at, id"
						 : " ORDER BY started_at DESC, id DESC");
	if (f && (f->limit > 0 || f->offset > 0))
		sb_puts(&q, " LIMIT :limit OFFSET :offset");
	if (q.oom) {
		free(q.s);
		return NULL;
	}
	return q.s;
}

int history_each(struct history *h, const struct history_filter *f, int flags,
		 int (*fn)(struct run_record *r, void *arg), void *arg,
		 char *err, size_t errlen)
{
	char *sql = list_sql(h, f, flags);
	bool *rd = malloc(history_nfields * sizeof(*rd));
	sqlite3_stmt *st = NULL;
	struct histdetail d;
	struct run_record r;
	int rc, ret = 0;

	if (!sql || !rd) {
		free(sql);
		free(rd);
		fmt_err(err, errlen, "history: out of memory");
		return -1;
	}
	for (size_t i = 0; i < history_nfields; i++)
		rd[i] = field_read(h, f, flags, i);
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    histdetail_prepare(&d, h->db, h->version, flags)) {
		sqlite3_finalize(st);
		free(sql);
		free(rd);
		dberr(h, err, errlen, "cannot list runs");
		return -1;
	}
	free(sql);
	bind_filter(st, f);
	/* One read transaction so details match the rows listed. */
	bool txn = sqlite3_get_autocommit(h->db);
	if (txn)
		sqlite3_exec(h->db, "BEGIN", NULL, NULL, NULL);
	/* clearing a record leaves it initialised for the next row */
	run_record_init(&r);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r.id = sqlite3_column_int64(st, 0);
		int col = 1;
		for (size_t i = 0; i < history_nfields; i++)
			if (rd[i])
				column_field(st, col++, &r, &history_fields[i]);
		if (histdetail_load(&d, &r)) {
			run_record_clear(&r);
			fmt_err(err, errlen, "history: out of memory reading runs");
			ret = -1;
			break;
		}
		ret = fn(&r, arg);
		run_record_clear(&r);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE) {
		dberr(h, err, errlen, "cannot list runs");
		ret = -1;
	}
	sqlite3_finalize(st);
	histdetail_finalize(&d);
	free(rd);
	if (txn)
		sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	return ret;
}

static int64_t col_i64(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NA : sqlite3_column_int64(st, col);
}

int history_each_figures(struct history *h, const struct history_filter *f,
			 int (*fn)(const struct run_figures *fig, void *arg), void *arg,
			 char *err, size_t errlen)
{
	struct sbuf q = { 0 };
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	/* the columns of the runs_figures index, so no run's row is read */
	sb_puts(&q, "SELECT id, status, user_us, sys_us, wall_us, majflt, minflt, inblock, oublock,"
		" kswapd_s, cpu_pct");
	if (h->version >= 6)
		sb_puts(&q, "," HISTSCHEMA_STALL_COLUMNS);
	if (h->version >= 10)
		sb_puts(&q, ", maxrss_kib");
	sb_puts(&q, " FROM runs");
	build_where(h, &q, f);
	sb_puts(&q, " ORDER BY started_at, id");
	if (f && (f->limit > 0 || f->offset > 0))
		sb_puts(&q, " LIMIT :limit OFFSET :offset");
	if (q.oom) {
		free(q.s);
		return fmt_err(err, errlen, "history: out of memory");
	}
	rc = sqlite3_prepare_v2(h->db, q.s, -1, &st, NULL);
	free(q.s);
	if (rc != SQLITE_OK) {
		dberr(h, err, errlen, "cannot list runs");
		return -1;
	}
	bind_filter(st, f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(st, 1);
		struct run_figures fig = {
			.id = sqlite3_column_int64(st, 0),
			.user_us = col_i64(st, 2), .sys_us = col_i64(st, 3),
			.wall_us = col_i64(st, 4), .majflt = col_i64(st, 5),
			.minflt = col_i64(st, 6), .inblock = col_i64(st, 7),
			.oublock = col_i64(st, 8),
			.maxrss_kib = h->version >= 10 ? col_i64(st, 11 + DL_N) : NA,
			.kswapd_s = sqlite3_column_type(st, 9) == SQLITE_NULL
				    ? NAN : sqlite3_column_double(st, 9),
			.cpu_pct = sqlite3_column_type(st, 10) == SQLITE_NULL
				   ? NAN : sqlite3_column_double(st, 10),
			.status = RUN_OK,
			.stalls = DELAYS_NONE,
		};
		for (int k = 0; h->version >= 6 && k < DL_N; k++)
			if (sqlite3_column_type(st, 11 + k) != SQLITE_NULL)
				fig.stalls.s[k] = sqlite3_column_double(st, 11 + k);
		if (status)
			run_status_parse(status, &fig.status);
		if ((ret = fn(&fig, arg)))
			break;
	}
	if (!ret && rc != SQLITE_DONE) {
		dberr(h, err, errlen, "cannot list runs");
		ret = -1;
	}
	sqlite3_finalize(st);
	return ret;
}

int history_each_metric(struct history *h, const struct history_filter *f,
			int (*fn)(int64_t id, enum run_status st, const struct run_metric *m,
				  void *arg), void *arg, char *err, size_t errlen)
{
	struct sbuf q = { 0 };
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (h->version < 14)
		return 0;
	sb_puts(&q, "SELECT r.id, r.status, m.name, m.value, m.higher FROM (SELECT id, status,"
		" started_at FROM runs");
	build_where(h, &q, f);
	sb_puts(&q, " ORDER BY started_at, id");
	if (f && (f->limit > 0 || f->offset > 0))
		sb_puts(&q, " LIMIT :limit OFFSET :offset");
	sb_puts(&q, ") r JOIN run_metrics m ON m.run_id = r.id ORDER BY r.started_at, r.id, m.idx");
	if (q.oom) {
		free(q.s);
		return fmt_err(err, errlen, "history: out of memory");
	}
	rc = sqlite3_prepare_v2(h->db, q.s, -1, &st, NULL);
	free(q.s);
	if (rc != SQLITE_OK) {
		dberr(h, err, errlen, "cannot list runs");
		return -1;
	}
	bind_filter(st, f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(st, 1);
		const char *name = (const char *)sqlite3_column_text(st, 2);
		struct run_metric m = {
			.value = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN
				 : sqlite3_column_double(st, 3),
			.higher = sqlite3_column_int(st, 4),
		};
		enum run_status rs = RUN_OK;

		snprintf(m.name, sizeof(m.name), "%s", name ? name : "");
		if (status)
			run_status_parse(status, &rs);
		if ((ret = fn(sqlite3_column_int64(st, 0), rs, &m, arg)))
			break;
	}
	if (!ret && rc != SQLITE_DONE) {
		dberr(h, err, errlen, "cannot list runs");
		ret = -1;
	}
	sqlite3_finalize(st);
	return ret;
}

int history_each_group(struct history *h, const struct history_filter *f,
		       int (*fn)(const char *config_hash, int64_t nruns, void *arg), void *arg,
		       char *err, size_t errlen)
{
	struct sbuf q = { 0 };
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	/* Each group's first run: its earliest start, and the lowest id
	 * among the runs that started then. */
	sb_puts(&q, "SELECT config_hash, count(*), min(started_at) AS s, (SELECT min(id) FROM runs");
	build_where(h, &q, f);
	sb_puts(&q, f && (f->label || f->kernel || f->session || f->config_hash || f->id) ? " AND "
											: " WHERE ");
	sb_puts(&q, "config_hash = r.config_hash AND started_at = min(r.started_at)) AS first"
		" FROM runs AS r");
	build_where(h, &q, f);
	sb_puts(&q, " GROUP BY config_hash ORDER BY s, first");
	if (q.oom || sqlite3_prepare_v2(h->db, q.s, -1, &st, NULL) != SQLITE_OK) {
		free(q.s);
		sqlite3_finalize(st);
		dberr(h, err, errlen, "cannot group runs");
		return -1;
	}
	free(q.s);
	bind_filter(st, f);
	bool txn = sqlite3_get_autocommit(h->db);
	if (txn)
		sqlite3_exec(h->db, "BEGIN", NULL, NULL, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char hash[sizeof(((struct run_record *)0)->config_hash)];
		snprintf(hash, sizeof(hash), "%s", (const char *)sqlite3_column_text(st, 0));
		if ((ret = fn(hash, sqlite3_column_int64(st, 1), arg)))
			break;
	}
	if (!ret && rc != SQLITE_DONE) {
		dberr(h, err, errlen, "cannot group runs");
		ret = -1;
	}
	sqlite3_finalize(st);
	if (txn)
		sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	return ret;
}

struct collect {
	struct run_record *v;
	size_t n, cap;
};

/* Takes the record over: r is left cleared for history_each. */
static int collect_run(struct run_record *r, void *arg)
{
	struct collect *c = arg;

	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct run_record *nv = realloc(c->v, sizeof(*nv) * ncap);
		if (!nv)
			return 1;
		c->v = nv;
		c->cap = ncap;
	}
	c->v[c->n++] = *r;
	run_record_init(r);
	return 0;
}

int history_list(struct history *h, const struct history_filter *f, int flags,
		 struct run_record **out, size_t *n, char *err, size_t errlen)
{
	struct collect c = { 0 };
	int rc = history_each(h, f, flags, collect_run, &c, err, errlen);

	*out = NULL;
	*n = 0;
	if (rc) {
		if (rc > 0)
			fmt_err(err, errlen, "history: out of memory reading runs");
		run_records_free(c.v, c.n);
		return -1;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

int64_t history_count(struct history *h, const struct history_filter *f,
		      char *err, size_t errlen)
{
	struct sbuf q = { 0 };
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	sb_puts(&q, "SELECT count(*) FROM runs");
	build_where(h, &q, f);
	if (q.oom) {
		free(q.s);
		fmt_err(err, errlen, "history: out of memory");
		return -1;
	}
	if (sqlite3_prepare_v2(h->db, q.s, -1, &st, NULL) == SQLITE_OK) {
		bind_filter(st, f);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
	}
	if (n < 0)
		dberr(h, err, errlen, "cannot count runs");
	sqlite3_finalize(st);
	free(q.s);
	return n;
}

int history_get(struct history *h, int64_t id, struct run_record *r,
		char *err, size_t errlen)
{
	struct sbuf q = { 0 };
	sqlite3_stmt *st = NULL;
	struct histdetail d = { 0 };
	int ret = -1;

	run_record_init(r);
	sb_puts(&q, "SELECT id");
	for (size_t i = 0; i < history_nfields; i++) {
		if (history_fields[i].since > h->version)
			continue;
		sb_putc(&q, ',');
		sb_puts(&q, history_fields[i].name);
	}
	sb_puts(&q, " FROM runs WHERE id = ?");
	if (q.oom || sqlite3_prepare_v2(h->db, q.s, -1, &st, NULL) != SQLITE_OK ||
	    histdetail_prepare(&d, h->db, h->version, HISTORY_DETAIL)) {
		dberr(h, err, errlen, "cannot read run");
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	bool txn = sqlite3_get_autocommit(h->db);
	if (txn)
		sqlite3_exec(h->db, "BEGIN", NULL, NULL, NULL);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->id = id;
		int col = 1;
		for (size_t i = 0; i < history_nfields; i++) {
			if (history_fields[i].since > h->version)
				continue;
			column_field(st, col++, r, &history_fields[i]);
		}
		if (histdetail_load(&d, r)) {
			run_record_clear(r);
			fmt_err(err, errlen, "history: out of memory reading run %" PRId64, id);
		} else {
			ret = 0;
		}
	} else if (rc == SQLITE_DONE) {
		fmt_err(err, errlen, "%s: no run %" PRId64, h->path, id);
		ret = 1;
	} else {
		dberr(h, err, errlen, "cannot read run");
	}
	if (txn)
		sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	histdetail_finalize(&d);
	free(q.s);
	return ret;
}

int history_nsamples(struct history *h, int64_t id)
{
	sqlite3_stmt *st;
	int n = 0;

	if (h->version < 4 ||
	    !(st = cached(h, ST_NSAMPLES, "SELECT n FROM samples WHERE run_id = ? AND name = 't'")))
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	return n;
}

/* Raises run_ids to run id, if there, before it goes: a removed run's id
 * is not given again. v9's trigger raised it at every insert instead,
 * which made each insert a statement of two tables that SQLite journals
 * page by page (to a temporary file past 64 KiB) in case it is undone
 * alone. */
static int keep_removed_id(struct history *h, int64_t id)
{
	sqlite3_stmt *st;
	int rc;

	if (h->version < 9)
		return 0;
	if (sqlite3_prepare_v2(h->db, "UPDATE run_ids SET last = max(last, ?1)"
			       " WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1)", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int history_rm(struct history *h, int64_t id, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (h->rdonly) {
		fmt_err(err, errlen, "%s: opened read-only", h->path);
		return -1;
	}
	if (keep_removed_id(h, id)) {
		dberr(h, err, errlen, "cannot remove run");
		return -1;
	}
	if (sqlite3_prepare_v2(h->db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		dberr(h, err, errlen, "cannot remove run");
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		dberr(h, err, errlen, "cannot remove run");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_changes(h->db) == 0) {
		fmt_err(err, errlen, "%s: no run %" PRId64, h->path, id);
		return 1;
	}
	return 0;
}

int history_list_plan(struct history *h, const struct history_filter *f,
		      char *buf, size_t len, char *err, size_t errlen)
{
	char *sql = list_sql(h, f, 0);
	char *q = sql ? sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql) : NULL;
	sqlite3_stmt *st = NULL;
	size_t used = 0;

	free(sql);
	buf[0] = 0;
	if (!q || sqlite3_prepare_v2(h->db, q, -1, &st, NULL) != SQLITE_OK) {
		dberr(h, err, errlen, "cannot plan");
		sqlite3_free(q);
		return -1;
	}
	sqlite3_free(q);
	bind_filter(st, f);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int w = snprintf(buf + used, len - used, "%s\n",
				 (const char *)sqlite3_column_text(st, 3));
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	sqlite3_finalize(st);
	return 0;
}
