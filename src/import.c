/* Our own JSON and CSV exports read back into runs. */
#include "import.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "capture.h"
#include "fmt.h"
#include "history.h"

/* ---- reading JSON (through SQLite's JSON functions) ---- */

struct jctx {
	sqlite3 *db;
	char *err;
	size_t errlen;
};

/* Calls fn for each key of the JSON object text: key, SQL type name
 * ("null", "true", "false", "integer", "real", "text", "array", "object"),
 * and the value as text (JSON text for arrays and objects). */
static int json_each_kv(struct jctx *j, const char *obj,
			int (*fn)(void *arg, const char *key, const char *type, const char *val),
			void *arg)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(j->db, "SELECT key, type, CASE WHEN type = 'real' THEN"
			       " printf('%!.17g', atom) ELSE value END FROM json_each(?)",
			       -1, &st, NULL) != SQLITE_OK)
		return fmt_err(j->err, j->errlen, "JSON: %s", sqlite3_errmsg(j->db));
	sqlite3_bind_text(st, 1, obj, -1, SQLITE_STATIC);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *val = (const char *)sqlite3_column_text(st, 2);
		if (!key) {	/* a scalar where an object belongs */
			rc = fmt_err(j->err, j->errlen, "JSON: %.40s is not an object", obj);
			break;
		}
		rc = fn(arg, key, (const char *)sqlite3_column_text(st, 1), val ? val : "");
	}
	if (rc == 0 && s != SQLITE_DONE) {
		fmt_err(j->err, j->errlen, "JSON: %s", sqlite3_errmsg(j->db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The elements of a JSON array, each as JSON text (or its value). */
static int json_elems(struct jctx *j, const char *arr, char ***out, int *n)
{
	sqlite3_stmt *st;
	int k = 0, s;
	char **v = NULL;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(j->db, "SELECT CASE WHEN type = 'null' THEN NULL WHEN type = 'real'"
			       " THEN printf('%!.17g', atom) ELSE value END FROM json_each(?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, arr, -1, SQLITE_STATIC);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		char **nv = realloc(v, sizeof(*v) * (size_t)(k + 1));
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (!nv)
			break;
		v = nv;
		v[k] = t ? strdup(t) : NULL;
		k++;
	}
	sqlite3_finalize(st);
	*out = v;
	*n = k;
	if (s != SQLITE_DONE) {
		fmt_err(j->err, j->errlen, "JSON: %s", s == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(j->db));
		return -1;
	}
	return 0;
}

static void free_elems(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct rctx {
	struct jctx *j;
	struct run_record *r;
	int which;		/* snapshot 0/1, worker index */
	const char *where;
};

static int parse_i64_or_null(const char *type, const char *val, int64_t *out)
{
	char *end;

	if (!strcmp(type, "null")) {
		*out = NA;
		return 0;
	}
	if (strcmp(type, "integer"))
		return -1;
	errno = 0;
	*out = strtoll(val, &end, 10);
	return errno || *end ? -1 : 0;
}

static int snap_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct mem_snapshot *m = c->which ? &c->r->free_after : &c->r->free_before;
	int64_t v;

	for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++)
		if (!strcmp(key, mem_snapshot_key(j))) {
			if (parse_i64_or_null(type, val, &v) || !hist_count_ok(v))
				break;
			*mem_snapshot_field(m, j) = v;
			return 0;
		}
	fmt_err(c->j->err, c->j->errlen, "%s: free snapshot: bad \"%s\"", c->where, key);
	return -1;
}

/* "stalls" and a worker's "delays": seconds by delay name. */
static int delays_kv(struct rctx *c, struct delays *d, const char *key, const char *type,
		     const char *val)
{
	char *end;

	for (int k = 0; k < DL_N; k++)
		if (!strcmp(key, delay_name((enum delay_kind)k))) {
			if (!strcmp(type, "null")) {
				d->s[k] = NAN;
				return 0;
			}
			if (strcmp(type, "real") && strcmp(type, "integer"))
				break;
			d->s[k] = strtod(val, &end);
			if (*end || !(d->s[k] >= 0))
				break;
			return 0;
		}
	fmt_err(c->j->err, c->j->errlen, "%s: stalls: bad \"%s\"", c->where, key);
	return -1;
}

static int stalls_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;

	return delays_kv(c, &c->r->stalls, key, type, val);
}

static int worker_delays_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;

	return delays_kv(c, &c->r->workers[c->which].delays, key, type, val);
}

static int worker_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_worker *w = &c->r->workers[c->which];
	int64_t v = 0;
	int64_t *dst = NULL;

	if (!strcmp(key, "delays"))
		return !strcmp(type, "null") ? 0 : json_each_kv(c->j, val, worker_delays_kv, c);

	if (!strcmp(key, "end") && !strcmp(type, "text") && !worker_end_parse(val, &w->end))
		return 0;
	if (!strcmp(key, "user_us")) dst = &w->user_us;
	else if (!strcmp(key, "sys_us")) dst = &w->sys_us;
	else if (!strcmp(key, "majflt")) dst = &w->majflt;
	else if (!strcmp(key, "minflt")) dst = &w->minflt;
	else if (!strcmp(key, "verify_errors")) dst = &w->verify_errors;
	else if (!strcmp(key, "first_bad")) dst = &w->first_bad;
	if (!parse_i64_or_null(type, val, &v)) {
		if (dst) {
			*dst = v;
			return 0;
		}
		if (!strcmp(key, "pid") && v >= 0 && v <= INT32_MAX) {
			w->pid = (int)v;
			return 0;
		}
		if (!strcmp(key, "exit_code") && v >= NA && v <= 255) {
			w->exit_code = (int)v;
			return 0;
		}
		if (!strcmp(key, "signal") && v >= 0 && v < 128) {
			w->signal = (int)v;
			return 0;
		}
	}
	fmt_err(c->j->err, c->j->errlen, "%s: worker %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

static int change_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_sysctl_change *ch = &c->r->changes[c->which];
	char *dst = NULL;

	if (!strcmp(key, "t_s") && (!strcmp(type, "real") || !strcmp(type, "integer"))) {
		ch->t_s = strtod(val, NULL);
		return 0;
	}
	if (!strcmp(key, "name")) dst = ch->name;
	else if (!strcmp(key, "old")) dst = ch->old_val;
	else if (!strcmp(key, "new")) dst = ch->new_val;
	if (dst && !strcmp(type, "text") && strlen(val) < sizeof(ch->name)) {
		memcpy(dst, val, strlen(val) + 1);
		return 0;
	}
	fmt_err(c->j->err, c->j->errlen, "%s: sysctl change %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

/* A reclaim event: kind (one rc_event_name() gives), t_s, dur_s, pid. */
static int event_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_event *e = &c->r->events[c->which];
	bool num = !strcmp(type, "real") || !strcmp(type, "integer");
	bool known = false;

	for (int k = 0; rc_event_name(k); k++)
		known = known || !strcmp(val, rc_event_name(k));
	if (!strcmp(key, "kind") && !strcmp(type, "text") && known) {
		snprintf(e->kind, sizeof(e->kind), "%s", val);
		return 0;
	}
	if (!strcmp(key, "t_s") && num) {
		e->t_s = strtod(val, NULL);
		return 0;
	}
	if (!strcmp(key, "dur_s") && num) {
		e->dur_s = strtod(val, NULL);
		return 0;
	}
	if (!strcmp(key, "pid") && !strcmp(type, "integer")) {
		e->pid = atoi(val);
		return 0;
	}
	fmt_err(c->j->err, c->j->errlen, "%s: event %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

static int events_of(struct rctx *c, const char *arr)
{
	char **v;
	int n, rc = 0;

	if (json_elems(c->j, arr, &v, &n))
		return -1;
	free(c->r->events);
	c->r->events = calloc((size_t)(n ? n : 1), sizeof(struct run_event));
	c->r->nevents = c->r->events ? n : 0;
	if (!c->r->events)
		rc = -1;
	for (int i = 0; rc == 0 && i < n; i++) {
		c->which = i;
		rc = json_each_kv(c->j, v[i] ? v[i] : "{}", event_kv, c);
		if (rc == 0 && !c->r->events[i].kind[0]) {
			fmt_err(c->j->err, c->j->errlen, "%s: event %d: no kind", c->where, i);
			rc = -1;
		}
	}
	free_elems(v, n);
	return rc;
}

/* An OOM victim: pid and comm, both there. */
static int victim_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_victim *v = &c->r->victims[c->which];
	int64_t x;

	if (!strcmp(key, "pid") && !parse_i64_or_null(type, val, &x) && x > 0 && x <= INT32_MAX) {
		v->pid = (int)x;
		return 0;
	}
	if (!strcmp(key, "comm") && !strcmp(type, "text") && strlen(val) < sizeof(v->comm)) {
		memcpy(v->comm, val, strlen(val) + 1);
		return 0;
	}
	fmt_err(c->j->err, c->j->errlen, "%s: victim %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

static int victims_of(struct rctx *c, const char *arr)
{
	char **v;
	int n, rc = 0;

	if (json_elems(c->j, arr, &v, &n))
		return -1;
	free(c->r->victims);
	c->r->victims = calloc((size_t)(n ? n : 1), sizeof(struct run_victim));
	c->r->nvictims = c->r->victims ? n : 0;
	if (!c->r->victims)
		rc = -1;
	for (int i = 0; rc == 0 && i < n; i++) {
		c->which = i;
		rc = json_each_kv(c->j, v[i] ? v[i] : "{}", victim_kv, c);
		if (rc == 0 && c->r->victims[i].pid <= 0) {
			fmt_err(c->j->err, c->j->errlen, "%s: victim %d: no pid", c->where, i);
			rc = -1;
		}
	}
	free_elems(v, n);
	return rc;
}

/* A command's own figure: a name --metric takes, its value (null: none),
 * which is better. */
static int metric_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_metric *m = &c->r->metrics[c->which];

	if (!strcmp(key, "name") && !strcmp(type, "text") && capture_name_ok(val)) {
		snprintf(m->name, sizeof(m->name), "%s", val);
		return 0;
	}
	if (!strcmp(key, "value") && (!strcmp(type, "real") || !strcmp(type, "integer") ||
				      !strcmp(type, "null"))) {
		m->value = !strcmp(type, "null") ? NAN : strtod(val, NULL);
		if (!strcmp(type, "null") || isfinite(m->value))
			return 0;
	}
	if (!strcmp(key, "better") && !strcmp(type, "text") &&
	    (!strcmp(val, "higher") || !strcmp(val, "lower"))) {
		m->higher = !strcmp(val, "higher");
		return 0;
	}
	fmt_err(c->j->err, c->j->errlen, "%s: metric %d: bad \"%s\"", c->where, c->which, key);
	return -1;
}

static int metrics_of(struct rctx *c, const char *arr)
{
	char **v;
	int n, rc = 0;

	if (json_elems(c->j, arr, &v, &n))
		return -1;
	free(c->r->metrics);
	c->r->metrics = calloc((size_t)(n ? n : 1), sizeof(struct run_metric));
	c->r->nmetrics = c->r->metrics ? n : 0;
	if (!c->r->metrics)
		rc = -1;
	for (int i = 0; rc == 0 && i < n; i++) {
		c->which = i;
		c->r->metrics[i].value = NAN;
		rc = json_each_kv(c->j, v[i] ? v[i] : "{}", metric_kv, c);
		for (int k = 0; rc == 0 && k <= i; k++)
			if (!c->r->metrics[i].name[0] ||
			    (k < i && !strcmp(c->r->metrics[k].name, c->r->metrics[i].name)))
				rc = fmt_err(c->j->err, c->j->errlen, "%s: metric %d: %s", c->where,
					     i, c->r->metrics[i].name[0] ? "its name again" : "no name");
	}
	free_elems(v, n);
	return rc;
}

/* "nsamples" (older exports: "npoints") first, then "t" and each series
 * by its registry name or its name before the registry. */
static int series_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;
	struct run_record *r = c->r;
	double *dst = NULL;

	if (!strcmp(key, "nsamples") || !strcmp(key, "npoints")) {
		int64_t v;
		if (parse_i64_or_null(type, val, &v) || v < 0 || v > RUN_SAMPLES_MAX ||
		    run_record_alloc_series(r, (int)v)) {
			fmt_err(c->j->err, c->j->errlen, "%s: series: bad %s", c->where, key);
			return -1;
		}
		return 0;
	}
	if (r->nsamples > 0) {
		int id = run_series_id(key);

		if (!strcmp(key, "t"))
			dst = r->t;
		else if (id >= 0)
			dst = run_record_add_series(r, id);
	}
	if (dst && !strcmp(type, "array")) {
		char **v;
		int n;

		if (json_elems(c->j, val, &v, &n) == 0) {
			if (n == r->nsamples) {
				for (int i = 0; i < n; i++)
					dst[i] = v[i] ? strtod(v[i], NULL) : NAN;
				free_elems(v, n);
				return 0;
			}
			free_elems(v, n);
		}
	}
	fmt_err(c->j->err, c->j->errlen, "%s: series: bad \"%s\" (nsamples must come first)",
		c->where, key);
	return -1;
}

static int array_of(struct rctx *c, const char *arr, bool workers)
{
	char **v;
	int n;

	if (json_elems(c->j, arr, &v, &n))
		return -1;
	if (workers) {
		free(c->r->workers);
		c->r->workers = calloc((size_t)(n ? n : 1), sizeof(struct run_worker));
		c->r->nworkers = c->r->workers ? n : 0;
	} else {
		free(c->r->changes);
		c->r->changes = calloc((size_t)(n ? n : 1), sizeof(struct run_sysctl_change));
		c->r->nchanges = c->r->changes ? n : 0;
	}
	int rc = (workers ? (void *)c->r->workers : (void *)c->r->changes) ? 0 : -1;
	for (int i = 0; rc == 0 && i < n; i++) {
		c->which = i;
		if (workers) {
			c->r->workers[i].exit_code = NA;
			c->r->workers[i].first_bad = NA;
			delays_clear(&c->r->workers[i].delays);
		}
		rc = json_each_kv(c->j, v[i] ? v[i] : "{}", workers ? worker_kv : change_kv, c);
	}
	free_elems(v, n);
	return rc;
}

static int run_kv(void *arg, const char *key, const char *type, const char *val)
{
	struct rctx *c = arg;

	if (!strcmp(key, "id"))
		return 0;
	if (!strcmp(key, "free_before") || !strcmp(key, "free_after")) {
		c->which = !strcmp(key, "free_after");
		return !strcmp(type, "null") ? 0 : json_each_kv(c->j, val, snap_kv, c);
	}
	if (!strcmp(key, "workers") || !strcmp(key, "sysctl_changes"))
		return array_of(c, val, key[0] == 'w');
	if (!strcmp(key, "series"))
		return json_each_kv(c->j, val, series_kv, c);
	if (!strcmp(key, "stalls"))
		return !strcmp(type, "null") ? 0 : json_each_kv(c->j, val, stalls_kv, c);
	if (!strcmp(key, "events"))
		return events_of(c, val);
	if (!strcmp(key, "victims"))
		return victims_of(c, val);
	if (!strcmp(key, "metrics"))
		return metrics_of(c, val);
	const struct hist_field *f = hist_field_find(key);
	if (!f) {
		fmt_err(c->j->err, c->j->errlen, "%s: unknown field \"%s\"", c->where, key);
		return -1;
	}
	if (!strcmp(type, "null")) {
		if (f->type == HF_STR || f->type == HF_PSTR || !hist_field_set(c->r, f, ""))
			return 0;
	} else if (!strcmp(type, "array") || !strcmp(type, "object")) {
		/* no scalar field takes these */
	} else if (!hist_field_set(c->r, f, val)) {
		return 0;
	}
	fmt_err(c->j->err, c->j->errlen, "%s: bad value for \"%s\": %.40s", c->where, key, val);
	return -1;
}

/* A qsbench run names its size; a command run may lack its command line,
 * as posted GNU time lines do. */
static int check_workload(const struct run_record *r, const char *where, char *err, size_t errlen)
{
	if (r->kind == RUN_QSBENCH && (r->nelems < 1 || r->procs < 1))
		return fmt_err(err, errlen, "%s: no workload (a qsbench run needs \"nelems\" and \"procs\")",
			       where);
	return 0;
}

/* Each run of the export, read and given to emit (NULL: only checked). */
static int read_runs_json(struct jctx *j, const char *text, const struct import_sink *emit)
{
	sqlite3_stmt *st;
	int rc = 0, s;

	/* in the order they ran: oldest first; runs of one second in the
	 * reverse of the file's order, as an export lists the newest first,
	 * then by the highest id */
	if (sqlite3_prepare_v2(j->db, "SELECT type, value, key FROM json_each(?1, '$.runs') ORDER BY"
			       " CASE type WHEN 'object' THEN json_extract(value, '$.started_at') END,"
			       " key DESC", -1, &st, NULL) != SQLITE_OK)
		return fmt_err(j->err, j->errlen, "JSON: %s", sqlite3_errmsg(j->db));
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		char where[32];
		struct run_record r;
		struct rctx c = { j, &r, 0, where };
		const char *type = (const char *)sqlite3_column_text(st, 0);
		run_record_init(&r);
		snprintf(where, sizeof(where), "run %d", sqlite3_column_int(st, 2) + 1);
		if (!type || strcmp(type, "object"))
			rc = fmt_err(j->err, j->errlen, "%s: not an object", where);
		else
			rc = json_each_kv(j, (const char *)sqlite3_column_text(st, 1), run_kv, &c);
		if (rc == 0)
			rc = check_workload(&r, where, j->err, j->errlen);
		if (rc == 0 && emit)
			rc = emit->run(emit->arg, &r, j->err, j->errlen);
		run_record_clear(&r);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = fmt_err(j->err, j->errlen, "JSON: %s", sqlite3_errmsg(j->db));
	sqlite3_finalize(st);
	return rc;
}

static int jctx_open(struct jctx *j, char *err, size_t errlen)
{
	j->err = err;
	j->errlen = errlen;
	if (sqlite3_open_v2(":memory:", &j->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fmt_err(err, errlen, "JSON: cannot start SQLite");
		sqlite3_close(j->db);
		return -1;
	}
	return 0;
}

int import_json(const char *text, const struct import_sink *sink, char *err, size_t errlen)
{
	struct jctx j;
	sqlite3_stmt *st;
	int rc = -1;

	if (jctx_open(&j, err, errlen))
		return -1;
	if (sqlite3_prepare_v2(j.db, "SELECT json_valid(?1)", -1, &st, NULL) != SQLITE_OK ||
	    (sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC), sqlite3_step(st)) != SQLITE_ROW ||
	    !sqlite3_column_int(st, 0)) {
		fmt_err(err, errlen, "JSON: not valid JSON");
		sqlite3_finalize(st);
		sqlite3_close(j.db);
		return -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(j.db, "SELECT 1, json_type(?1, '$.runs'),"
			       " json_extract(?1, '$.thrashtop_history')", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *type = (const char *)sqlite3_column_text(st, 1);
			if (sqlite3_column_int(st, 2) != 1 || !type || strcmp(type, "array"))
				fmt_err(err, errlen, "JSON: not a thrashtop history export (version 1)");
			else if ((rc = read_runs_json(&j, text, NULL)) == 0)
				rc = read_runs_json(&j, text, sink);
		} else {
			fmt_err(err, errlen, "JSON: %s", sqlite3_errmsg(j.db));
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(j.db);
	return rc;
}

/* ---- reading CSV ---- */

/* One RFC 4180 field at *p, which advances past it: quoted ("" for a
 * quote), or up to a comma or the line's end. Returns it malloc'd, or NULL
 * for a quote left open or no memory. */
static char *csv_cell(const char **p)
{
	struct sbuf b = { 0 };
	const char *s = *p;

	if (*s == '"') {
		for (s++;;) {
			size_t n = strcspn(s, "\"");
			sb_putn(&b, s, n);
			s += n;
			if (!*s) {
				free(b.s);
				return NULL;
			}
			if (s[1] != '"') {
				s++;
				break;
			}
			sb_putc(&b, '"');
			s += 2;
		}
	} else {
		size_t n = strcspn(s, ",\n\r");
		sb_putn(&b, s, n);
		s += n;
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	*p = s;
	return b.s ? b.s : strdup("");
}

/* One RFC 4180 record; *p advances past it. Fields are malloc'd; on
 * failure there are none (*fields NULL, *n 0). */
static int csv_record(const char **p, char ***fields, int *n)
{
	char **v = NULL;
	int k = 0;
	const char *s = *p;

	*fields = NULL;
	*n = 0;
	for (;;) {
		char *cell = csv_cell(&s);
		if (!cell)
			goto fail;
		char **nv = realloc(v, sizeof(*v) * (size_t)(k + 1));
		if (!nv) {
			free(cell);
			goto fail;
		}
		v = nv;
		v[k++] = cell;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		else if (*s)
			goto fail;	/* junk after a closing quote */
		break;
	}
	*p = s;
	*fields = v;
	*n = k;
	return 0;
fail:
	free_elems(v, k);
	return -1;
}

/* The header row of a thrashtop export at *p, which advances past it:
 * id, uuid, then fields and the details' columns. Its cells are malloc'd;
 * on failure there are none, and err says why. */
static int csv_header(const char **p, char ***hdr, int *nh, char *err, size_t errlen)
{
	char **h;

	if (csv_record(p, hdr, nh) || *nh < 2 || strcmp((*hdr)[0], "id") ||
	    strcmp((*hdr)[1], "uuid")) {
		fmt_err(err, errlen, "CSV line 1: not a thrashtop history export header");
		goto fail;
	}
	h = *hdr;
	for (int c = 1; c < *nh; c++) {
		if (hist_field_find(h[c]) || !strcmp(h[c], "workers") ||
		    !strcmp(h[c], "sysctl_changes") || !strcmp(h[c], "events") ||
		    !strcmp(h[c], "victims") || !strcmp(h[c], "metrics") ||
		    !strcmp(h[c], "series") ||
		    !strncmp(h[c], "free_before_", 12) || !strncmp(h[c], "free_after_", 11))
			continue;
		fmt_err(err, errlen, "CSV line 1: unknown column \"%s\"", h[c]);
		goto fail;
	}
	return 0;
fail:
	free_elems(*hdr, *nh);
	*hdr = NULL;
	*nh = 0;
	return -1;
}

/* A free_before_KEY or free_after_KEY cell, h its column, v its text,
 * onto c's record. */
static int csv_free_cell(struct rctx *c, const char *h, const char *v)
{
	int b = !strncmp(h, "free_after_", 11);
	const char *key = h + (b ? 11 : 12);
	int64_t x = NA;
	char *end;
	int rc = 0;

	for (int jj = 0; jj < MEM_SNAPSHOT_NFIELDS; jj++) {
		if (strcmp(key, mem_snapshot_key(jj)))
			continue;
		if (*v) {
			errno = 0;
			x = strtoll(v, &end, 10);
			if (errno || *end || !hist_count_ok(x)) {
				fmt_err(c->j->err, c->j->errlen, "%s: bad value for \"%s\"", c->where, h);
				rc = -1;
			}
		}
		*mem_snapshot_field(b ? &c->r->free_after : &c->r->free_before, jj) = x;
	}
	return rc;
}

/* One record's cells, row under hdr (nh of each), onto c's record, cleared
 * first. 0, or -1 with c's err. */
static int csv_row(struct rctx *c, char *const *hdr, char *const *row, int nh)
{
	run_record_clear(c->r);
	for (int col = 1; col < nh; col++) {
		const char *h = hdr[col], *v = row[col];
		const struct hist_field *f = hist_field_find(h);
		int rc = 0;
		if (f) {
			/* CSV writes an unknown text as an empty one */
			if ((*v || f->type != HF_PSTR) && hist_field_set(c->r, f, v)) {
				fmt_err(c->j->err, c->j->errlen, "%s: bad value for \"%s\": %.40s",
					c->where, h, v);
				rc = -1;
			}
		} else if (!strncmp(h, "free_", 5)) {
			rc = csv_free_cell(c, h, v);
		} else if (*v && (!strcmp(h, "workers") || !strcmp(h, "sysctl_changes"))) {
			rc = array_of(c, v, h[0] == 'w');
		} else if (*v && !strcmp(h, "events")) {
			rc = events_of(c, v);
		} else if (*v && !strcmp(h, "victims")) {
			rc = victims_of(c, v);
		} else if (*v && !strcmp(h, "metrics")) {
			rc = metrics_of(c, v);
		} else if (*v && !strcmp(h, "series")) {
			rc = json_each_kv(c->j, v, series_kv, c);
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* A record's place in the text and when its run started: the check finds
 * them, and the runs are then given in the order they ran. */
struct csv_at {
	size_t off;
	int line;
	char started_at[sizeof(((struct run_record *)0)->started_at)];
};

/* Each record read and given to emit, in the order of at (n of them), or
 * only checked with emit NULL, where at is then made (*at, *n). */
static int read_csv(const char *text, const struct import_sink *emit, struct csv_at **at,
		    size_t *nat, char *err, size_t errlen)
{
	const char *p = text;
	char **hdr = NULL, **row = NULL;
	int nh = 0, nr = 0, line = 1;
	size_t k = 0, cap = 0;
	struct run_record r;
	struct jctx j = { 0 };

	run_record_init(&r);
	if (csv_header(&p, &hdr, &nh, err, errlen))
		return -1;
	if (jctx_open(&j, err, errlen)) {
		free_elems(hdr, nh);
		return -1;
	}
	if (!emit)
		*nat = 0;
	for (; emit ? k < *nat : *p != 0; k++) {
		size_t off = (size_t)(p - text);

		if (emit) {
			p = text + (*at)[k].off;
			line = (*at)[k].line;
		} else {
			line++;
		}
		if (csv_record(&p, &row, &nr)) {
			fmt_err(err, errlen, "CSV record %d: unterminated quote or junk after a quote", line);
			goto fail;
		}
		if (nr == 1 && !row[0][0]) {
			free_elems(row, nr);
			row = NULL;
			continue;
		}
		if (nr != nh) {
			fmt_err(err, errlen, "CSV record %d: %d fields, the header has %d", line, nr, nh);
			goto fail;
		}
		char where[40];
		struct rctx c = { &j, &r, 0, where };
		snprintf(where, sizeof(where), "CSV record %d", line);
		if (csv_row(&c, hdr, row, nh) || check_workload(&r, where, err, errlen) ||
		    (emit && emit->run(emit->arg, &r, err, errlen)))
			goto fail;
		if (!emit) {
			if (*nat == cap) {
				struct csv_at *m = realloc(*at, sizeof(*m) * (cap = cap ? 2 * cap : 64));

				if (!m) {
					fmt_err(err, errlen, "out of memory");
					goto fail;
				}
				*at = m;
			}
			(*at)[*nat].off = off;
			(*at)[*nat].line = line;
			memcpy((*at)[*nat].started_at, r.started_at, sizeof(r.started_at));
			++*nat;
		}
		free_elems(row, nr);
		row = NULL;
		nr = 0;
	}
	free_elems(hdr, nh);
	sqlite3_close(j.db);
	run_record_clear(&r);
	return 0;
fail:
	free_elems(hdr, nh);
	free_elems(row, nr);
	run_record_clear(&r);
	sqlite3_close(j.db);
	return -1;
}

/* The order read_runs_json gives the runs in. */
static int csv_by_start(const void *x, const void *y)
{
	const struct csv_at *a = x, *b = y;
	int c = strcmp(a->started_at, b->started_at);

	return c ? c : (a->off < b->off) - (a->off > b->off);
}

int import_csv(const char *text, const struct import_sink *sink, char *err, size_t errlen)
{
	struct csv_at *at = NULL;
	size_t n = 0;
	int rc = read_csv(text, NULL, &at, &n, err, errlen);

	if (!rc) {
		if (n)
			qsort(at, n, sizeof(*at), csv_by_start);
		rc = read_csv(text, sink, &at, &n, err, errlen);
	}
	free(at);
	return rc;
}

int import_collect(void *arg, struct run_record *r, char *err, size_t errlen)
{
	struct import_runs *c = arg;
	struct run_record *nv = realloc(c->runs, sizeof(*nv) * (c->n + 1));

	if (!nv || run_record_copy(&nv[c->n], r)) {
		if (nv)
			c->runs = nv;
		return fmt_err(err, errlen, "out of memory");
	}
	c->runs = nv;
	c->n++;
	return 0;
}

int import_db(const char *path, const struct import_sink *sink, char *err, size_t errlen)
{
	struct history *h = history_open(path, HISTORY_RDONLY, err, errlen);
	int64_t total;
	int rc = 0;

	if (!h)
		return -1;
	total = history_count(h, NULL, err, errlen);
	if (total < 0)
		rc = -1;
	/* history_list gives newest first: the oldest page left each time,
	 * given to the sink backwards */
	for (int64_t left = total; rc == 0 && left > 0;) {
		int64_t cnt = left < IMPORT_DB_PAGE ? left : IMPORT_DB_PAGE;
		struct history_filter f = { .limit = (long)cnt, .offset = (long)(left - cnt) };
		struct run_record *runs;
		size_t n;

		if (history_list(h, &f, HISTORY_DETAIL, &runs, &n, err, errlen)) {
			rc = -1;
			break;
		}
		for (size_t i = n; rc == 0 && i-- > 0;) {
			const struct hist_field *bad = hist_field_bad(&runs[i]);

			if (bad)
				rc = fmt_err(err, errlen, "run %" PRId64 ": bad value for \"%s\"",
					     runs[i].id, bad->name);
			else
				rc = sink->run(sink->arg, &runs[i], err, errlen);
		}
		run_records_free(runs, n);
		left -= cnt;
	}
	history_close(h);
	return rc;
}
