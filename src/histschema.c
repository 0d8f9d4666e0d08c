/* The history's schema: each version's SQL, the migrations between them,
 * and the index of the figures. */
#include "histschema.h"

#include <endian.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "fmt.h"
#include "histfile.h"
#include "history.h"
#include "histvfs.h"
#include "metrics.h"
#include "runrec.h"

static int migrate_samples(sqlite3 *db, const char *path, char *err, size_t errlen);

/* Each step takes the schema from version i to i + 1: its SQL, then its C
 * step if any. v1 is the first released schema; v2 adds the sweep/tuning
 * session of a run; v3 adds the indexes that keep label filters and
 * grouping off full scans at 10,000 runs; v4 keeps every sample of every
 * registry series (blob.h) instead of 300 float points of six, and the
 * hugetlb pools, mlocked memory and sysctls a run started with; v5
 * whether the run's memory cgroup was new or used by runs before it, the
 * swap backend, zswap's settings, the sorter's data and the compressed
 * swap's figures.
 *
 * v6 delay accounting: the run's stalls (the workers' delay totals summed,
 * seconds, NULL where the kernel gave none: runs.stall_*_s) and each
 * worker's own (worker_delays, a row for a worker whose totals were
 * taken); v7 the sampling interval a run started with (interval_s);
 * v8 the run's reclaim events summed (tracer.c: direct,
 * memcg and compaction stalls, direct-reclaim latency percentiles, kswapd
 * wakes and awake time, throttling, OOM victims, events lost) and the
 * events themselves, the first RC_EVENTS_MAX of a run and OOM kills past
 * them in table events (how many others came after in
 * reclaim_events_past); v9 the highest run id ever given (run_ids), so
 * that a removed run's id is not given again, and cpu_pct in the
 * statistics' index; v10 the largest worker's maximum resident set
 * (maxrss_kib, time(1)'s maxresident), in that index too; v11 the OOM
 * killer's victims (table victims, pid and comm as the kernel log named
 * them) and the kills the run's cgroup counted that no line named
 * (oom_unnamed, NULL for the runs before: their victims are unknown); v12
 * run_ids raised by a removal, not by v9's trigger at each insert: a new
 * run's id is past it and every run's; v13 where the run happened (place,
 * accel) and the memory cgroup's version; v14 a command's own figures
 * (--metric: table run_metrics, a row for each in the order given,
 * value NULL where its output gave none). */
static const struct {
	const char *sql;
	int (*step)(sqlite3 *db, const char *path, char *err, size_t errlen);
} migrations[HISTORY_SCHEMA_VERSION] = {
	{
	("CREATE TABLE runs("
	" id INTEGER PRIMARY KEY,"
	" uuid TEXT NOT NULL UNIQUE,"
	" started_at TEXT NOT NULL,"
	" label TEXT NOT NULL DEFAULT '',"
	" kind TEXT NOT NULL CHECK (kind IN ('qsbench', 'command')),"
	" nelems INTEGER, procs INTEGER, seed INTEGER, command TEXT,"
	" repeat_k INTEGER, repeat_n INTEGER,"
	" status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'oom', 'aborted')),"
	" wall_us INTEGER, user_us INTEGER, sys_us INTEGER, cpu_pct REAL,"
	" majflt INTEGER, minflt INTEGER, inblock INTEGER, oublock INTEGER,"
	" kswapd_s REAL, swap_peak_kib INTEGER, mem_free_min_kib INTEGER,"
	" swap_before_kib INTEGER, swap_after_kib INTEGER,"
	" kernel_release TEXT, kernel_version TEXT, proc_cmdline TEXT,"
	" hostname TEXT, ncpus INTEGER, ram_kib INTEGER,"
	" swap_devices TEXT, swap_total_kib INTEGER,"
	" swappiness INTEGER, vfs_cache_pressure INTEGER, min_free_kbytes INTEGER,"
	" watermark_scale_factor INTEGER, page_cluster INTEGER,"
	" overcommit_memory INTEGER, dirty_ratio INTEGER,"
	" dirty_background_ratio INTEGER, zswap INTEGER,"
	" mem_limit_kib INTEGER, global_limit_kib INTEGER, tmp_swap_kib INTEGER,"
	" version TEXT, config TEXT NOT NULL, config_hash TEXT NOT NULL);"
	"CREATE INDEX runs_started ON runs(started_at, id);"
	"CREATE TABLE workers("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, pid INTEGER, end_state TEXT NOT NULL,"
	" exit_code INTEGER, signal INTEGER, user_us INTEGER, sys_us INTEGER,"
	" majflt INTEGER, minflt INTEGER, verify_errors INTEGER, first_bad INTEGER,"
	" PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE free_snaps("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" phase TEXT NOT NULL CHECK (phase IN ('before', 'after')),"
	" total INTEGER, used INTEGER, free INTEGER, shared INTEGER,"
	" buffers INTEGER, cache INTEGER, avail INTEGER,"
	" swap_total INTEGER, swap_used INTEGER, swap_free INTEGER,"
	" PRIMARY KEY (run_id, phase)) WITHOUT ROWID;"
	"CREATE TABLE sysctl_changes("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, t_s REAL NOT NULL, name TEXT NOT NULL,"
	" old_val TEXT NOT NULL, new_val TEXT NOT NULL,"
	" PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
	/* little-endian float32, one row per series */
	"CREATE TABLE series("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL, data BLOB NOT NULL,"
	" PRIMARY KEY (run_id, name)) WITHOUT ROWID;"), NULL },

	{ ("ALTER TABLE runs ADD COLUMN session TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN cell TEXT NOT NULL DEFAULT '';"
	"CREATE INDEX runs_session ON runs(session, started_at) WHERE session <> '';"), NULL },

	{ ("CREATE INDEX runs_label ON runs(label, started_at, id);"
	 "CREATE INDEX runs_config ON runs(config_hash, started_at);"), NULL },

	{ ("ALTER TABLE runs ADD COLUMN hugetlb_kib INTEGER;"
	"ALTER TABLE runs ADD COLUMN mlocked_kib INTEGER;"
	"ALTER TABLE runs ADD COLUMN sysctls TEXT;"
	/* name: a registry name, or "t" for the times; n samples of
	 * data (blob.h) in steps of quantum */
	"CREATE TABLE samples("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL, n INTEGER NOT NULL, quantum REAL NOT NULL, data BLOB NOT NULL,"
	" PRIMARY KEY (run_id, name)) WITHOUT ROWID;"), migrate_samples },

	{ ("ALTER TABLE runs ADD COLUMN cgroup_new INTEGER;"
	"ALTER TABLE runs ADD COLUMN swap_backend TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN zswap_with TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN fill TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN zram_orig_kib INTEGER;"
	"ALTER TABLE runs ADD COLUMN zram_compr_kib INTEGER;"
	"ALTER TABLE runs ADD COLUMN zswap_stored_kib INTEGER;"
	"ALTER TABLE runs ADD COLUMN zswap_pool_kib INTEGER;"
	"ALTER TABLE runs ADD COLUMN zswpout INTEGER;"
	"ALTER TABLE runs ADD COLUMN zswpwb INTEGER;"), NULL },

	/* delay accounting; the statistics' index is made again with the
	 * stalls once the schema is current */
	{ ("DROP INDEX IF EXISTS runs_figures;"
	"ALTER TABLE runs ADD COLUMN stall_swapin_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_reclaim_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_thrashing_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_compact_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_io_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_cpu_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_wpcopy_s REAL;"
	"ALTER TABLE runs ADD COLUMN stall_irq_s REAL;"
	"CREATE TABLE worker_delays("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, swapin_s REAL, reclaim_s REAL, thrashing_s REAL,"
	" compact_s REAL, io_s REAL, cpu_s REAL, wpcopy_s REAL, irq_s REAL,"
	" PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"), NULL },
	{ ("ALTER TABLE runs ADD COLUMN interval_s REAL;"), NULL },
	{ ("ALTER TABLE runs ADD COLUMN reclaim_direct_stalls INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_direct_s REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_direct_p50_ms REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_direct_p99_ms REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_direct_max_ms REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_workload_stalls INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_workload_s REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_memcg_stalls INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_memcg_s REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_compact_stalls INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_compact_s REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_kswapd_wakes INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_kswapd_awake_s REAL;"
	"ALTER TABLE runs ADD COLUMN reclaim_throttled INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_oom INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_lost INTEGER;"
	"ALTER TABLE runs ADD COLUMN reclaim_events_past INTEGER;"
	"CREATE TABLE events("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, kind TEXT NOT NULL, t_s REAL NOT NULL, dur_s REAL NOT NULL,"
	" pid INTEGER, PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"), NULL },
	/* the statistics' index, made again with cpu_pct: a posted %P is
	 * printed as posted */
	{ "DROP INDEX IF EXISTS runs_figures;"
	  "CREATE TABLE run_ids(last INTEGER NOT NULL);"
	  "INSERT INTO run_ids SELECT coalesce(max(id), 0) FROM runs;"
	  "CREATE TRIGGER run_ids_last AFTER INSERT ON runs"
	  " BEGIN UPDATE run_ids SET last = max(last, NEW.id); END;", NULL },
	{ "ALTER TABLE runs ADD COLUMN maxrss_kib INTEGER;"
	  "DROP INDEX IF EXISTS runs_figures;", NULL },
	{ "ALTER TABLE runs ADD COLUMN oom_unnamed INTEGER;"
	  "CREATE TABLE victims("
	  " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	  " idx INTEGER NOT NULL, pid INTEGER NOT NULL, comm TEXT NOT NULL,"
	  " PRIMARY KEY (run_id, idx)) WITHOUT ROWID;", NULL },
	{ "DROP TRIGGER run_ids_last;", NULL },
	/* where the run happened: '' this machine, "vm" a guest on it (with
	 * its accelerator); the machine's memory cgroup version */
	{ "ALTER TABLE runs ADD COLUMN place TEXT NOT NULL DEFAULT '';"
	  "ALTER TABLE runs ADD COLUMN accel TEXT NOT NULL DEFAULT '';"
	  "ALTER TABLE runs ADD COLUMN cgroup_version INTEGER;", NULL },
	{ "CREATE TABLE run_metrics("
	  " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	  " idx INTEGER NOT NULL, name TEXT NOT NULL, value REAL, higher INTEGER NOT NULL,"
	  " PRIMARY KEY (run_id, idx)) WITHOUT ROWID;", NULL },
};

void histschema_err(sqlite3 *db, const char *path, char *err, size_t len, const char *what)
{
	if (histvfs_refusal(err, len))
		return;
	/* a read-only handle met a hot journal */
	if (sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK)
		fmt_err(err, len, "%s: a write was cut off and its journal is to be rolled back: "
			"open it once for writing", path);
	else
		fmt_err(err, len, "%s: %s: %s", path, what, sqlite3_errmsg(db));
}

int histschema_exec(sqlite3 *db, const char *path, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (!histvfs_refusal(err, errlen))
			fmt_err(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int histschema_version(sqlite3 *db, const char *path, int *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) {
		histschema_err(db, path, err, errlen, "cannot read");
		return -1;
	}
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		histschema_err(db, path, err, errlen, "cannot read");
		sqlite3_finalize(st);
		return -1;
	}
	*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int histschema_put_samples(sqlite3_stmt *st, int64_t id, const char *name, const double *v,
			   int n, double quantum)
{
	struct blob b = { 0 };
	int rc = 0;

	for (int i = 0; i < n && rc == 0; i++)
		rc = blob_put(&b, v[i], quantum);
	if (rc == 0) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, n);
		sqlite3_bind_double(st, 4, quantum);
		sqlite3_bind_blob(st, 5, b.buf, (int)b.len, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	blob_free(&b);
	return rc;
}

/* v3 to v4: each run's six float32 series of at most 300 points become
 * samples rows; the old table goes. */
static int migrate_samples(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	double *v = NULL;
	int rc = -1, step;

	if (sqlite3_prepare_v2(db, "SELECT run_id, name, data FROM series", -1, &sel,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO samples VALUES(?,?,?,?,?)", -1,
			       &ins, NULL) != SQLITE_OK)
		goto out;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(sel, 1);
		const unsigned char *data = sqlite3_column_blob(sel, 2);
		int bytes = sqlite3_column_bytes(sel, 2), n = bytes / 4;
		bool t = name && !strcmp(name, "t");
		int id = name && !t ? run_series_id(name) : -1;
		double *nv;

		if (!name || (!t && id < 0) || bytes % 4 || n < 1)
			continue;
		if (!(nv = realloc(v, sizeof(*v) * (size_t)n)))
			goto out;
		v = nv;
		for (int i = 0; i < n; i++) {
			uint32_t u;
			float f;
			memcpy(&u, data + 4 * i, 4);
			u = le32toh(u);
			memcpy(&f, &u, 4);
			v[i] = f;
		}
		if (histschema_put_samples(ins, sqlite3_column_int64(sel, 0),
					   t ? "t" : metric_def(id)->name, v, n,
					   t ? HISTSCHEMA_T_QUANTUM : metric_def(id)->quantum))
			goto out;
	}
	if (step != SQLITE_DONE)
		goto out;
	sqlite3_finalize(sel);
	sel = NULL;
	rc = histschema_exec(db, path, "DROP TABLE series", err, errlen);
	free(v);
	sqlite3_finalize(ins);
	return rc;
out:
	histschema_err(db, path, err, errlen, "cannot convert the stored series");
	free(v);
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc;
}

/* Takes the file from *v to target in one transaction. */
static int migrate(sqlite3 *db, const char *path, int *v, int target, char *err, size_t errlen)
{
	int at;
	char sql[64];

	if (histschema_exec(db, path, "BEGIN IMMEDIATE", err, errlen))
		return -1;
	/* Another process may have migrated while we waited for the lock. */
	if (histschema_version(db, path, &at, err, errlen))
		goto fail;
	for (; at < target; at++) {
		if (histschema_exec(db, path, migrations[at].sql, err, errlen) ||
		    (migrations[at].step && migrations[at].step(db, path, err, errlen)))
			goto fail;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", at + 1);
		if (histschema_exec(db, path, sql, err, errlen))
			goto fail;
	}
	if (histschema_exec(db, path, "COMMIT", err, errlen))
		goto fail;
	*v = at;
	return 0;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static bool has_index(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	bool yes = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int histschema_update(sqlite3 *db, const char *path, int *v, int version, char *err,
		      size_t errlen)
{
	/* what history_figures names, in each group's run order */
	bool figures = (*v > version ? *v : version) == HISTORY_SCHEMA_VERSION;
	bool ok;
	int fd;

	/* a migration must be done before use; an index that another
	 * handle is making is not waited for */
	if (*v >= version && (!figures || has_index(db, "runs_figures")))
		return 0;
	fd = history_build_begin(path, *v < version, err, errlen);
	if (fd < 0)
		return fd == -1 ? -1 : 0;
	ok = (*v >= version || !migrate(db, path, v, version, err, errlen)) &&
	     (!figures ||
	      !histschema_exec(db, path, "CREATE INDEX IF NOT EXISTS runs_figures ON runs("
			       "config_hash, started_at, id, status, user_us, sys_us,"
			       " wall_us, majflt, minflt, inblock, oublock, kswapd_s, cpu_pct,"
			       HISTSCHEMA_STALL_COLUMNS ", maxrss_kib)",
			       err, errlen));
	history_build_end(path, fd);
	return ok ? 0 : -1;
}
