#include "histdetail.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "history.h"

void histdetail_finalize(struct histdetail *d)
{
	sqlite3_finalize(d->workers);
	sqlite3_finalize(d->snaps);
	sqlite3_finalize(d->changes);
	sqlite3_finalize(d->series);
	sqlite3_finalize(d->delays);
	sqlite3_finalize(d->events);
	sqlite3_finalize(d->victims);
	sqlite3_finalize(d->metrics);
	memset(d, 0, sizeof(*d));
}

int histdetail_prepare(struct histdetail *d, sqlite3 *db, int version, int flags)
{
	memset(d, 0, sizeof(*d));
	if ((flags & (HISTORY_WORKERS | HISTORY_WORKER_ENDS)) &&
	    sqlite3_prepare_v2(db,
			       "SELECT pid, end_state, exit_code, signal, user_us, sys_us, majflt,"
			       " minflt, verify_errors, first_bad FROM workers WHERE run_id = ?"
			       " ORDER BY idx", -1, &d->workers, NULL) != SQLITE_OK)
		goto fail;
	if ((flags & HISTORY_WORKERS) &&
	    (sqlite3_prepare_v2(db,
				"SELECT phase, total, used, free, shared, buffers, cache, avail,"
				" swap_total, swap_used, swap_free FROM free_snaps WHERE run_id = ?",
				-1, &d->snaps, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(db,
				"SELECT t_s, name, old_val, new_val FROM sysctl_changes"
				" WHERE run_id = ? ORDER BY idx", -1, &d->changes, NULL) != SQLITE_OK))
		goto fail;
	if ((flags & (HISTORY_WORKERS | HISTORY_WORKER_ENDS)) && version >= 6 &&
	    sqlite3_prepare_v2(db,
			       "SELECT idx, swapin_s, reclaim_s, thrashing_s, compact_s, io_s, cpu_s,"
			       " wpcopy_s, irq_s FROM worker_delays WHERE run_id = ?", -1,
			       &d->delays, NULL) != SQLITE_OK)
		goto fail;
	if ((flags & (HISTORY_WORKERS | HISTORY_WORKER_ENDS)) && version >= 11 &&
	    sqlite3_prepare_v2(db, "SELECT pid, comm FROM victims WHERE run_id = ?"
			       " ORDER BY idx", -1, &d->victims, NULL) != SQLITE_OK)
		goto fail;
	if ((flags & (HISTORY_WORKERS | HISTORY_METRICS)) && version >= 14 &&
	    sqlite3_prepare_v2(db, "SELECT name, value, higher FROM run_metrics WHERE run_id = ?"
			       " ORDER BY idx", -1, &d->metrics, NULL) != SQLITE_OK)
		goto fail;
	if ((flags & HISTORY_WORKERS) && version >= 8 &&
	    sqlite3_prepare_v2(db, "SELECT kind, t_s, dur_s, pid FROM events WHERE run_id = ?"
			       " ORDER BY idx", -1, &d->events, NULL) != SQLITE_OK)
		goto fail;
	if ((flags & HISTORY_SERIES) && version >= 4 &&
	    sqlite3_prepare_v2(db, "SELECT name, n, quantum, data FROM samples"
			       " WHERE run_id = ? ORDER BY name <> 't'", -1, &d->series, NULL) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	histdetail_finalize(d);
	return -1;
}

/* Binds run id to st for a new pass; st may be NULL (not asked for). */
static sqlite3_stmt *detail_bind(sqlite3_stmt *st, int64_t id)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
	}
	return st;
}

/* Each worker's delay totals onto the workers already read. */
static void load_delays(struct histdetail *d, struct run_record *r)
{
	sqlite3_stmt *st = detail_bind(d->delays, r->id);

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int i = sqlite3_column_int(st, 0);

		if (i < 0 || i >= r->nworkers)
			continue;
		for (int k = 0; k < DL_N; k++)
			r->workers[i].delays.s[k] = sqlite3_column_type(st, 1 + k) == SQLITE_NULL
				? NAN : sqlite3_column_double(st, 1 + k);
	}
}

static int load_victims(struct histdetail *d, struct run_record *r)
{
	sqlite3_stmt *st = detail_bind(d->victims, r->id);
	int n = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct run_victim *v = realloc(r->victims, sizeof(*v) * (size_t)(n + 1));

		if (!v)
			return -1;
		r->victims = v;
		v = &v[n++];
		r->nvictims = n;
		v->pid = sqlite3_column_int(st, 0);
		snprintf(v->comm, sizeof(v->comm), "%s", (const char *)sqlite3_column_text(st, 1));
	}
	return 0;
}

static int load_metrics(struct histdetail *d, struct run_record *r)
{
	sqlite3_stmt *st = detail_bind(d->metrics, r->id);

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		double v = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN
			   : sqlite3_column_double(st, 1);

		if (run_record_add_metric(r, name ? name : "", v, sqlite3_column_int(st, 2)))
			return -1;
	}
	return 0;
}

int histdetail_load(struct histdetail *d, struct run_record *r)
{
	sqlite3_stmt *st;
	int n;

	if ((st = detail_bind(d->workers, r->id))) {
		n = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct run_worker *w = realloc(r->workers, sizeof(*w) * (size_t)(n + 1));
			if (!w)
				return -1;
			r->workers = w;
			w = &w[n++];
			r->nworkers = n;
			memset(w, 0, sizeof(*w));
			delays_clear(&w->delays);
			w->pid = sqlite3_column_int(st, 0);
			/* text this release never writes reads as still running */
			worker_end_parse((const char *)sqlite3_column_text(st, 1), &w->end);
			int64_t *dst[] = { NULL, NULL, NULL, NULL, &w->user_us, &w->sys_us, &w->majflt,
					   &w->minflt, &w->verify_errors, &w->first_bad };
			w->exit_code = sqlite3_column_type(st, 2) == SQLITE_NULL ? NA : sqlite3_column_int(st, 2);
			w->signal = sqlite3_column_int(st, 3);
			for (int c = 4; c < 10; c++)
				*dst[c] = sqlite3_column_type(st, c) == SQLITE_NULL ? NA
										    : sqlite3_column_int64(st, c);
		}
	}

	load_delays(d, r);

	if ((st = detail_bind(d->snaps, r->id))) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *ph = (const char *)sqlite3_column_text(st, 0);
			struct mem_snapshot *m = !strcmp(ph, "after") ? &r->free_after : &r->free_before;
			for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++)
				*mem_snapshot_field(m, j) = sqlite3_column_type(st, 1 + j) == SQLITE_NULL ? NA
										     : sqlite3_column_int64(st, 1 + j);
		}
	}

	if ((st = detail_bind(d->events, r->id))) {
		n = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct run_event *e = realloc(r->events, sizeof(*e) * (size_t)(n + 1));
			if (!e)
				return -1;
			r->events = e;
			e = &e[n++];
			r->nevents = n;
			snprintf(e->kind, sizeof(e->kind), "%s", (const char *)sqlite3_column_text(st, 0));
			e->t_s = sqlite3_column_double(st, 1);
			e->dur_s = sqlite3_column_double(st, 2);
			e->pid = sqlite3_column_int(st, 3);
		}
	}

	if (load_victims(d, r) || load_metrics(d, r))
		return -1;

	if ((st = detail_bind(d->changes, r->id))) {
		n = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct run_sysctl_change *c = realloc(r->changes, sizeof(*c) * (size_t)(n + 1));
			if (!c)
				return -1;
			r->changes = c;
			c = &c[n++];
			r->nchanges = n;
			c->t_s = sqlite3_column_double(st, 0);
			snprintf(c->name, sizeof(c->name), "%s", (const char *)sqlite3_column_text(st, 1));
			snprintf(c->old_val, sizeof(c->old_val), "%s", (const char *)sqlite3_column_text(st, 2));
			snprintf(c->new_val, sizeof(c->new_val), "%s", (const char *)sqlite3_column_text(st, 3));
		}
	}

	/* t first, then each registry series with as many samples; a row of
	 * another length, or one that does not decode, is skipped, as is a
	 * name this release does not know. */
	if ((st = detail_bind(d->series, r->id))) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 0);
			int ns = sqlite3_column_int(st, 1);
			double q = sqlite3_column_double(st, 2);
			const unsigned char *data = sqlite3_column_blob(st, 3);
			size_t bytes = (size_t)sqlite3_column_bytes(st, 3);
			bool t = name && !strcmp(name, "t");
			int id = name && !t ? run_series_id(name) : -1;
			double *dst;

			if (!name || !(q > 0) || ns < 1 || ns > RUN_SAMPLES_MAX)
				continue;
			if (t) {
				if (run_record_alloc_series(r, ns))
					return -1;
				if (blob_decode(data, bytes, q, r->t, ns) != ns)
					run_record_alloc_series(r, 0);
				continue;
			}
			if (id < 0 || ns != r->nsamples)
				continue;
			if (!(dst = run_record_add_series(r, id)))
				return -1;
			if (blob_decode(data, bytes, q, dst, ns) != ns) {
				free(r->series[id]);
				r->series[id] = NULL;
			}
		}
	}
	return 0;
}
