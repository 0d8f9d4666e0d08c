/* The record, as data: the field table, a record's life, its canonical
 * configuration and uuid, and the texts every view gives it. */
#include "runrec.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

#define F(n, t, since) { #n, t, offsetof(struct run_record, n), \
			 sizeof(((struct run_record *)0)->n), since }

#define S(n, k) { "stall_" #n "_s", HF_DBL, offsetof(struct run_record, stalls.s[k]), \
			 sizeof(double), 6 }

const struct hist_field history_fields[] = {
	F(uuid, HF_STR, 1),
	F(started_at, HF_STR, 1),
	F(label, HF_STR, 1),
	F(kind, HF_KIND, 1),
	F(nelems, HF_I64, 1),
	F(procs, HF_INT, 1),
	F(seed, HF_UINT, 1),
	F(command, HF_PSTR, 1),
	F(repeat_k, HF_INT, 1),
	F(repeat_n, HF_INT, 1),
	F(session, HF_STR, 2),
	F(cell, HF_STR, 2),
	F(status, HF_STATUS, 1),
	F(wall_us, HF_I64, 1),
	F(user_us, HF_I64, 1),
	F(sys_us, HF_I64, 1),
	F(cpu_pct, HF_DBL, 1),
	F(majflt, HF_I64, 1),
	F(minflt, HF_I64, 1),
	F(inblock, HF_I64, 1),
	F(oublock, HF_I64, 1),
	F(maxrss_kib, HF_I64, 10),
	F(kswapd_s, HF_DBL, 1),
	F(swap_peak_kib, HF_I64, 1),
	F(mem_free_min_kib, HF_I64, 1),
	F(swap_before_kib, HF_I64, 1),
	F(swap_after_kib, HF_I64, 1),
	F(kernel_release, HF_STR, 1),
	F(kernel_version, HF_PSTR, 1),
	F(proc_cmdline, HF_PSTR, 1),
	F(hostname, HF_STR, 1),
	F(ncpus, HF_INT, 1),
	F(ram_kib, HF_I64, 1),
	F(swap_devices, HF_PSTR, 1),
	F(swap_total_kib, HF_I64, 1),
	F(swappiness, HF_I64, 1),
	F(vfs_cache_pressure, HF_I64, 1),
	F(min_free_kbytes, HF_I64, 1),
	F(watermark_scale_factor, HF_I64, 1),
	F(page_cluster, HF_I64, 1),
	F(overcommit_memory, HF_I64, 1),
	F(dirty_ratio, HF_I64, 1),
	F(dirty_background_ratio, HF_I64, 1),
	F(zswap, HF_INT, 1),
	F(mem_limit_kib, HF_I64, 1),
	F(global_limit_kib, HF_I64, 1),
	F(tmp_swap_kib, HF_I64, 1),
	F(hugetlb_kib, HF_I64, 4),
	F(mlocked_kib, HF_I64, 4),
	F(sysctls, HF_PSTR, 4),
	F(cgroup_new, HF_INT, 5),
	F(swap_backend, HF_STR, 5),
	F(zswap_with, HF_STR, 5),
	F(fill, HF_STR, 5),
	F(zram_orig_kib, HF_I64, 5),
	F(zram_compr_kib, HF_I64, 5),
	F(zswap_stored_kib, HF_I64, 5),
	F(zswap_pool_kib, HF_I64, 5),
	F(zswpout, HF_I64, 5),
	F(zswpwb, HF_I64, 5),
	/* delay accounting: the workers' summed delay totals, seconds */
	S(swapin, DL_SWAPIN), S(reclaim, DL_RECLAIM), S(thrashing, DL_THRASHING),
	S(compact, DL_COMPACT), S(io, DL_IO), S(cpu, DL_CPU), S(wpcopy, DL_WPCOPY),
	S(irq, DL_IRQ),
	F(interval_s, HF_DBL, 7),
	F(reclaim_direct_stalls, HF_I64, 8),
	F(reclaim_direct_s, HF_DBL, 8),
	F(reclaim_direct_p50_ms, HF_DBL, 8),
	F(reclaim_direct_p99_ms, HF_DBL, 8),
	F(reclaim_direct_max_ms, HF_DBL, 8),
	F(reclaim_workload_stalls, HF_I64, 8),
	F(reclaim_workload_s, HF_DBL, 8),
	F(reclaim_memcg_stalls, HF_I64, 8),
	F(reclaim_memcg_s, HF_DBL, 8),
	F(reclaim_compact_stalls, HF_I64, 8),
	F(reclaim_compact_s, HF_DBL, 8),
	F(reclaim_kswapd_wakes, HF_I64, 8),
	F(reclaim_kswapd_awake_s, HF_DBL, 8),
	F(reclaim_throttled, HF_I64, 8),
	F(reclaim_oom, HF_I64, 8),
	F(reclaim_lost, HF_I64, 8),
	F(reclaim_events_past, HF_I64, 8),
	F(oom_unnamed, HF_I64, 11),
	F(place, HF_STR, 13),
	F(accel, HF_STR, 13),
	F(cgroup_version, HF_I64, 13),
	F(version, HF_STR, 1),
	F(config, HF_PSTR, 1),
	F(config_hash, HF_STR, 1),
};
const size_t history_nfields = sizeof(history_fields) / sizeof(history_fields[0]);

#undef F
#undef S

/* struct mem_snapshot's fields, in free_snaps column order. */
static const size_t snap_off[MEM_SNAPSHOT_NFIELDS] = {
	offsetof(struct mem_snapshot, total), offsetof(struct mem_snapshot, used),
	offsetof(struct mem_snapshot, free), offsetof(struct mem_snapshot, shared),
	offsetof(struct mem_snapshot, buffers), offsetof(struct mem_snapshot, cache),
	offsetof(struct mem_snapshot, avail), offsetof(struct mem_snapshot, swap_total),
	offsetof(struct mem_snapshot, swap_used), offsetof(struct mem_snapshot, swap_free),
};

int64_t *mem_snapshot_field(struct mem_snapshot *m, int j)
{
	return (int64_t *)((char *)m + snap_off[j]);
}

int64_t mem_snapshot_get(const struct mem_snapshot *m, int j)
{
	return *(const int64_t *)((const char *)m + snap_off[j]);
}

const char *mem_snapshot_key(int j)
{
	static const char *const keys[MEM_SNAPSHOT_NFIELDS] = {
		"total", "used", "free", "shared", "buffers", "cache", "avail",
		"swap_total", "swap_used", "swap_free",
	};

	return keys[j];
}

bool mem_snapshot_taken(const struct mem_snapshot *m)
{
	for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++)
		if (mem_snapshot_get(m, j) != NA)
			return true;
	return false;
}

/* The six series of releases before schema v4, under their old names. */
static const struct {
	const char *old;
	int id;
} legacy_series[] = {
	{ "swap_used_kib", M_SWAP_USED }, { "mem_free_kib", M_FREE },
	{ "mem_avail_kib", M_AVAIL }, { "majflt_per_s", M_MAJFLT },
	{ "minflt_per_s", M_MINFLT }, { "kswapd_pct", M_KSWAPD_CPU },
};
/* The one table of run status names: as stored, exported and printed in
 * result lines, as the screens title them, and after a time line. */
static const struct { const char *name, *title, *mark; } statuses[] = {
	[RUN_OK] = { "ok", "ok", "" },
	[RUN_FAILED] = { "failed", "failed", "  failed" },
	[RUN_OOM] = { "oom", "OOM", "" },
	[RUN_ABORTED] = { "aborted", "aborted", "  aborted" },
};
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

const char *run_status_name(enum run_status st)
{
	return (unsigned)st < NSTATUS ? statuses[st].name : "?";
}

const char *run_status_title(enum run_status st)
{
	return (unsigned)st < NSTATUS ? statuses[st].title : "?";
}

const char *run_status_mark(enum run_status st)
{
	return (unsigned)st < NSTATUS ? statuses[st].mark : "";
}

int run_status_parse(const char *s, enum run_status *out)
{
	for (unsigned i = 0; i < NSTATUS; i++)
		if (!strcmp(s, statuses[i].name)) {
			*out = (enum run_status)i;
			return 0;
		}
	return -1;
}

const char *worker_end_name(enum worker_end e)
{
	switch (e) {
	case END_RUNNING: return "running";
	case END_OK: return "ok";
	case END_VERIFY: return "verify";
	case END_EXIT: return "exit";
	case END_SIGNAL: return "signal";
	case END_OOM: return "oom";
	}
	return "unknown";
}

int worker_end_parse(const char *s, enum worker_end *out)
{
	for (enum worker_end e = END_RUNNING; e <= END_OOM; e++)
		if (!strcmp(s, worker_end_name(e))) {
			*out = e;
			return 0;
		}
	return -1;
}

/* ---- a record's life ---- */

void *hist_field_ptr(const struct run_record *r, const struct hist_field *f)
{
	return (char *)r + f->off;
}

void run_record_init(struct run_record *out)
{
	/* built once and copied: listings init a record per run */
	static struct run_record blank;
	static bool made;

	struct run_record *r = &blank;

	if (made) {
		*out = blank;
		return;
	}
	for (size_t i = 0; i < history_nfields; i++) {
		const struct hist_field *f = &history_fields[i];
		void *p = hist_field_ptr(r, f);

		switch (f->type) {
		case HF_I64: *(int64_t *)p = NA; break;
		case HF_INT: *(int *)p = NA; break;
		case HF_DBL: *(double *)p = NAN; break;
		default: break;
		}
	}
	r->kind = RUN_QSBENCH;
	r->status = RUN_OK;
	r->seed = 0;
	r->repeat_k = r->repeat_n = 1;
	for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++)
		*mem_snapshot_field(&r->free_before, j) = *mem_snapshot_field(&r->free_after, j) = NA;
	made = true;
	run_record_init(out);
}

void run_record_clear(struct run_record *r)
{
	free(r->command);
	free(r->kernel_version);
	free(r->proc_cmdline);
	free(r->swap_devices);
	free(r->config);
	free(r->workers);
	free(r->changes);
	free(r->events);
	free(r->victims);
	free(r->metrics);
	free(r->sysctls);
	free(r->t);
	/* most listings read no series: no call per empty slot */
	for (int i = 0; i < M_N; i++)
		if (r->series[i])
			free(r->series[i]);
	run_record_init(r);
}

const struct run_metric *run_record_metric(const struct run_record *r, const char *name)
{
	for (int i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

int run_record_add_metric(struct run_record *r, const char *name, double value, bool higher)
{
	struct run_metric *m = realloc(r->metrics, sizeof(*m) * (size_t)(r->nmetrics + 1));

	if (!m)
		return -1;
	r->metrics = m;
	m = &m[r->nmetrics++];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = value;
	m->higher = higher;
	return 0;
}

void run_records_free(struct run_record *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
	free(v);
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

int run_record_copy(struct run_record *dst, const struct run_record *src)
{
	*dst = *src;
	dst->command = dst->kernel_version = dst->proc_cmdline = NULL;
	dst->swap_devices = dst->config = dst->sysctls = NULL;
	dst->workers = NULL;
	dst->changes = NULL;
	dst->events = NULL;
	dst->victims = NULL;
	dst->metrics = NULL;
	dst->t = NULL;
	for (int i = 0; i < M_N; i++)
		dst->series[i] = NULL;
	if (dup_str(&dst->command, src->command) ||
	    dup_str(&dst->kernel_version, src->kernel_version) ||
	    dup_str(&dst->proc_cmdline, src->proc_cmdline) ||
	    dup_str(&dst->swap_devices, src->swap_devices) ||
	    dup_str(&dst->config, src->config) ||
	    dup_str(&dst->sysctls, src->sysctls))
		goto fail;
	if (src->nworkers > 0) {
		dst->workers = malloc(sizeof(*dst->workers) * (size_t)src->nworkers);
		if (!dst->workers)
			goto fail;
		memcpy(dst->workers, src->workers, sizeof(*dst->workers) * (size_t)src->nworkers);
	}
	if (src->nchanges > 0) {
		dst->changes = malloc(sizeof(*dst->changes) * (size_t)src->nchanges);
		if (!dst->changes)
			goto fail;
		memcpy(dst->changes, src->changes, sizeof(*dst->changes) * (size_t)src->nchanges);
	}
	if (src->nevents > 0) {
		dst->events = malloc(sizeof(*dst->events) * (size_t)src->nevents);
		if (!dst->events)
			goto fail;
		memcpy(dst->events, src->events, sizeof(*dst->events) * (size_t)src->nevents);
	}
	if (src->nvictims > 0) {
		dst->victims = malloc(sizeof(*dst->victims) * (size_t)src->nvictims);
		if (!dst->victims)
			goto fail;
		memcpy(dst->victims, src->victims, sizeof(*dst->victims) * (size_t)src->nvictims);
	}
	if (src->nmetrics > 0) {
		dst->metrics = malloc(sizeof(*dst->metrics) * (size_t)src->nmetrics);
		if (!dst->metrics)
			goto fail;
		memcpy(dst->metrics, src->metrics, sizeof(*dst->metrics) * (size_t)src->nmetrics);
	}
	if (src->nsamples > 0) {
		size_t bytes = sizeof(double) * (size_t)src->nsamples;

		if (!(dst->t = malloc(bytes)))
			goto fail;
		memcpy(dst->t, src->t, bytes);
		for (int i = 0; i < M_N; i++) {
			if (!src->series[i])
				continue;
			if (!(dst->series[i] = malloc(bytes)))
				goto fail;
			memcpy(dst->series[i], src->series[i], bytes);
		}
	}
	return 0;
fail:
	run_record_clear(dst);
	errno = ENOMEM;
	return -1;
}

int run_record_alloc_series(struct run_record *r, int n)
{
	if (n < 0 || n > RUN_SAMPLES_MAX) {
		errno = EINVAL;
		return -1;
	}
	free(r->t);
	r->t = NULL;
	for (int i = 0; i < M_N; i++) {
		free(r->series[i]);
		r->series[i] = NULL;
	}
	r->nsamples = 0;
	if (n == 0)
		return 0;
	if (!(r->t = calloc((size_t)n, sizeof(double)))) {
		errno = ENOMEM;
		return -1;
	}
	r->nsamples = n;
	return 0;
}

double *run_record_add_series(struct run_record *r, int id)
{
	if (id < 0 || id >= M_N || r->nsamples < 1) {
		errno = EINVAL;
		return NULL;
	}
	if (!r->series[id]) {
		if (!(r->series[id] = malloc(sizeof(double) * (size_t)r->nsamples))) {
			errno = ENOMEM;
			return NULL;
		}
		for (int k = 0; k < r->nsamples; k++)
			r->series[id][k] = NAN;
	}
	return r->series[id];
}

int run_series_id(const char *name)
{
	for (size_t i = 0; i < sizeof(legacy_series) / sizeof(legacy_series[0]); i++)
		if (!strcmp(name, legacy_series[i].old))
			return legacy_series[i].id;
	return metric_find(name);
}

int hist_field_get(const struct run_record *r, const struct hist_field *f,
		   char *buf, size_t len)
{
	const void *p = hist_field_ptr(r, f);

	buf[0] = 0;
	switch (f->type) {
	case HF_I64:
		if (*(const int64_t *)p != NA)
			snprintf(buf, len, "%" PRId64, *(const int64_t *)p);
		break;
	case HF_INT:
		if (*(const int *)p != NA)
			snprintf(buf, len, "%d", *(const int *)p);
		break;
	case HF_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)p);
		break;
	case HF_DBL:
		if (!isnan(*(const double *)p))
			fmt_exact(buf, len, *(const double *)p);
		break;
	case HF_STR:
		snprintf(buf, len, "%s", (const char *)p);
		break;
	case HF_PSTR:
		snprintf(buf, len, "%s", *(char *const *)p ? *(char *const *)p : "");
		break;
	case HF_KIND:
		snprintf(buf, len, "%s", *(const enum run_kind *)p == RUN_COMMAND ? "command" : "qsbench");
		break;
	case HF_STATUS:
		snprintf(buf, len, "%s", run_status_name(*(const enum run_status *)p));
		break;
	}
	return 0;
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*v = x;
	return 0;
}

void run_record_config_fields(struct run_record *r, const char *config)
{
	const char *p = strstr(config, "\nglobal_by="), *sh = strstr(config, "\nshared_cores=");

	if (p)
		sscanf(p + 11, "%15[^\n]", r->global_by);
	if (sh && sscanf(sh + 14, "%d", &r->shared_cores) != 1)
		r->shared_cores = 0;
}

/* The largest value field f can hold, where one is less than its type's:
 * what the options and the kernel allow. */
static int64_t field_max(const struct hist_field *f)
{
	static const struct { const char *name; int64_t max; } lim[] = {
		{ "procs", 1024 }, { "swappiness", 200 }, { "overcommit_memory", 2 },
		{ "dirty_ratio", 100 }, { "dirty_background_ratio", 100 }, { "zswap", 1 },
		{ "cgroup_new", 1 },
	};

	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++)
		if (!strcmp(f->name, lim[i].name))
			return lim[i].max;
	return f->type == HF_INT ? INT32_MAX : INT64_MAX;
}

bool hist_count_ok(int64_t v)
{
	return v >= 0 || v == NA;
}

static bool int_ok(const struct hist_field *f, int64_t v)
{
	return hist_count_ok(v) && v <= field_max(f);
}

/* every time, size and rate kept is at least 0; NAN is unknown */
static bool dbl_ok(double d)
{
	return isnan(d) || (isfinite(d) && d >= 0);
}

const struct hist_field *hist_field_bad(const struct run_record *r)
{
	for (size_t i = 0; i < history_nfields; i++) {
		const struct hist_field *f = &history_fields[i];
		const void *p = hist_field_ptr(r, f);

		if ((f->type == HF_I64 && !int_ok(f, *(const int64_t *)p)) ||
		    (f->type == HF_INT && !int_ok(f, *(const int *)p)) ||
		    (f->type == HF_DBL && !dbl_ok(*(const double *)p)))
			return f;
	}
	return NULL;
}

int hist_field_set(struct run_record *r, const struct hist_field *f, const char *val)
{
	void *p = hist_field_ptr(r, f);
	int64_t v;
	double d;
	char *end;

	switch (f->type) {
	case HF_I64:
		if (!*val) {
			*(int64_t *)p = NA;
			return 0;
		}
		if (parse_i64(val, &v) || !int_ok(f, v))
			return -1;
		*(int64_t *)p = v;
		return 0;
	case HF_INT:
		if (!*val) {
			*(int *)p = NA;
			return 0;
		}
		if (parse_i64(val, &v) || !int_ok(f, v))
			return -1;
		*(int *)p = (int)v;
		return 0;
	case HF_UINT:
		if (parse_i64(val, &v) || v < 0 || v > UINT32_MAX)
			return -1;
		*(unsigned *)p = (unsigned)v;
		return 0;
	case HF_DBL:
		if (!*val) {
			*(double *)p = NAN;
			return 0;
		}
		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end || isnan(d) || !dbl_ok(d))
			return -1;
		*(double *)p = d;
		return 0;
	case HF_STR:
		if (strlen(val) >= f->size)
			return -1;
		memcpy(p, val, strlen(val) + 1);
		return 0;
	case HF_PSTR: {
		char *s = strdup(val);	/* "" is known empty, NULL unknown */

		if (!s)
			return -1;
		free(*(char **)p);
		*(char **)p = s;
		if (p == &r->config)	/* an exported run's: its global_by too */
			run_record_config_fields(r, val);
		return 0;
	}
	case HF_KIND:
		if (!strcmp(val, "qsbench"))
			*(enum run_kind *)p = RUN_QSBENCH;
		else if (!strcmp(val, "command"))
			*(enum run_kind *)p = RUN_COMMAND;
		else
			return -1;
		return 0;
	case HF_STATUS:
		return run_status_parse(val, (enum run_status *)p);
	}
	return -1;
}

const struct hist_field *hist_field_find(const char *name)
{
	for (size_t i = 0; i < history_nfields; i++)
		if (!strcmp(history_fields[i].name, name))
			return &history_fields[i];
	return NULL;
}

/* ---- canonical configuration ---- */

/* "key=value\n", value escaped so the text stays one line per key. */
static void sb_kv(struct sbuf *b, const char *key, const char *val)
{
	const char *s = val ? val : "";
	char line[256];
	size_t k = strlen(key), n = strcspn(s, "\\\n");

	if (k + n + 2 <= sizeof(line) && !s[n]) {	/* the common case: one append */
		memcpy(line, key, k);
		line[k] = '=';
		memcpy(line + k + 1, s, n);
		line[k + 1 + n] = '\n';
		sb_putn(b, line, k + n + 2);
		return;
	}
	sb_putn(b, key, k);
	sb_putc(b, '=');
	for (;;) {
		sb_putn(b, s, n);
		s += n;
		if (!*s)
			break;
		sb_putn(b, *s == '\n' ? "\\n" : "\\\\", 2);
		s++;
		n = strcspn(s, "\\\n");
	}
	sb_putc(b, '\n');
}

static void sb_kv_i64(struct sbuf *b, const char *key, int64_t v)
{
	char num[24], *p = num + sizeof(num);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (v == NA) {
		sb_kv(b, key, "n/a");
		return;
	}
	*--p = 0;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	sb_kv(b, key, p);
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void run_uuid_of(const char *text, char uuid[33])
{
	snprintf(uuid, 33, "%016" PRIx64 "%016" PRIx64, fnv1a(text, 0xcbf29ce484222325ULL),
		 fnv1a(text, 0x84222325cbf29ce4ULL));
}

int run_record_config(struct run_record *r)
{
	struct sbuf b = { 0 };
	char tmp[160];

	sb_kv(&b, "label", r->label);
	sb_kv(&b, "host", r->hostname);
	/* only off this machine, so that its runs keep their groups: a
	 * guest's timings compare with no other accelerator's */
	if (r->place[0])
		sb_kv(&b, "place", r->place);
	if (r->accel[0])
		sb_kv(&b, "accel", r->accel);
	/* only where they competed, so that a place's own runs keep theirs */
	if (r->shared_cores > 1)
		sb_kv_i64(&b, "shared_cores", r->shared_cores);
	sb_kv_i64(&b, "ram_kib", r->ram_kib);
	sb_kv_i64(&b, "cpus", r->ncpus);
	sb_kv(&b, "kernel", r->kernel_release);
	sb_kv(&b, "kernel_version", r->kernel_version);
	if (r->kind == RUN_QSBENCH) {
		run_record_workload(r, tmp, sizeof(tmp));
		sb_kv(&b, "workload", tmp);
	} else {
		sb_kv(&b, "workload", r->command);
		if (!r->command) {	/* what a posted header gave of it */
			if (r->nelems != NA)
				sb_kv_i64(&b, "nelems", r->nelems);
			if (r->procs != NA)
				sb_kv_i64(&b, "procs", r->procs);
			if (r->seed)
				sb_kv_i64(&b, "seed", r->seed);
		}
	}
	sb_kv_i64(&b, "swappiness", r->swappiness);
	sb_kv_i64(&b, "vfs_cache_pressure", r->vfs_cache_pressure);
	sb_kv_i64(&b, "min_free_kbytes", r->min_free_kbytes);
	sb_kv_i64(&b, "watermark_scale_factor", r->watermark_scale_factor);
	sb_kv_i64(&b, "page_cluster", r->page_cluster);
	sb_kv_i64(&b, "overcommit_memory", r->overcommit_memory);
	sb_kv_i64(&b, "dirty_ratio", r->dirty_ratio);
	sb_kv_i64(&b, "dirty_background_ratio", r->dirty_background_ratio);
	sb_kv_i64(&b, "zswap", r->zswap);
	sb_kv_i64(&b, "mem_limit_kib", r->mem_limit_kib);
	sb_kv_i64(&b, "global_limit_kib", r->global_limit_kib);
	if (r->global_by[0])
		sb_kv(&b, "global_by", r->global_by);
	sb_kv_i64(&b, "swap_total_kib", r->swap_total_kib);
	sb_kv_i64(&b, "tmp_swap_kib", r->tmp_swap_kib);
	/* Only where they differ from what runs before them had: a swap file,
	 * rand() data; zswap's compressor only when it is on. */
	if (!strncmp(r->swap_backend, "zram", 4) || !strncmp(r->swap_backend, "virtio-blk ", 11))
		sb_kv(&b, "swap_backend", r->swap_backend);
	if (r->zswap == 1 && r->zswap_with[0])
		sb_kv(&b, "zswap_with", r->zswap_with);
	if (r->fill[0])
		sb_kv(&b, "fill", r->fill);
	/* Only when there is one, so that runs without a pool, a balloon or a
	 * sysctl group with those recorded before these were kept. The
	 * monitor's own locked pages move by a few MiB from run to run: 256
	 * MiB steps keep those runs together and a balloon apart. */
	if (r->hugetlb_kib > 0)
		sb_kv_i64(&b, "hugetlb_kib", r->hugetlb_kib);
	if (r->mlocked_kib != NA && (r->mlocked_kib + 128 * 1024) / (256 * 1024) > 0)
		sb_kv_i64(&b, "mlocked_256m", (r->mlocked_kib + 128 * 1024) / (256 * 1024));
	for (const char *p = r->sysctls ? r->sysctls : ""; *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		snprintf(tmp, sizeof(tmp), "%.*s", (int)(n < sizeof(tmp) ? n : sizeof(tmp) - 1), p);
		if (*tmp)
			sb_kv(&b, "sysctl", tmp);
		p += n + (eol ? 1 : 0);
	}
	for (int i = 0; i < r->nchanges; i++) {
		const struct run_sysctl_change *c = &r->changes[i];
		snprintf(tmp, sizeof(tmp), "%s=%s@%.3f", c->name, c->new_val, c->t_s);
		sb_kv(&b, "change", tmp);
	}
	if (b.oom) {
		free(b.s);
		errno = ENOMEM;
		return -1;
	}
	free(r->config);
	r->config = b.s;
	uint64_t hash = fnv1a(b.s, 0xcbf29ce484222325ULL);
	for (int i = 15; i >= 0; i--, hash >>= 4)	/* "%016" PRIx64 */
		r->config_hash[i] = "0123456789abcdef"[hash & 15];
	r->config_hash[16] = 0;
	return 0;
}

void run_oom_line(char *buf, size_t len, int pid, const char *comm)
{
	snprintf(buf, len, "Out of Memory: Killed process %d (%s).", pid, comm);
}

void run_oom_unnamed_line(char *buf, size_t len, int64_t n)
{
	snprintf(buf, len, "Out of Memory: Killed process (unnamed: %" PRId64
		 " more the run's cgroup counted).", n);
}

void run_record_uuid(struct run_record *r)
{
	struct sbuf b = { 0 };
	char tmp[64];

	sb_puts(&b, r->config ? r->config : "");
	sb_kv(&b, "started_at", r->started_at);
	for (size_t i = 0; i < history_nfields; i++) {
		const struct hist_field *f = &history_fields[i];
		/* the victims came later: a run's id stays what it was */
		if ((f->type != HF_I64 && f->type != HF_INT && f->type != HF_DBL) ||
		    f->off == offsetof(struct run_record, oom_unnamed))
			continue;
		hist_field_get(r, f, tmp, sizeof(tmp));
		sb_kv(&b, f->name, tmp);
	}
	sb_kv(&b, "session", r->session);
	sb_kv(&b, "cell", r->cell);
	for (int i = 0; i < r->nworkers; i++) {
		snprintf(tmp, sizeof(tmp), "%d", r->workers[i].pid);
		sb_kv(&b, "pid", tmp);
	}
	run_uuid_of(b.s ? b.s : "", r->uuid);
	free(b.s);
}

void run_record_timeline(const struct run_record *r, struct timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->user_us = r->user_us;
	t->sys_us = r->sys_us;
	t->wall_us = r->wall_us;
	t->majflt = r->majflt;
	t->minflt = r->minflt;
	t->inblock = r->inblock;
	t->oublock = r->oublock;
	t->maxrss_kib = r->maxrss_kib;
	t->exit_code = 0;
	/* A stored %P is what the csh line prints: a posted one kept as
	 * posted, a native run's csh's own from these times. To tenths,
	 * truncated as tcsh does; the 1e-6 undoes 98.6's binary fraction.
	 * Past the most a csh line parses, it is computed. */
	if (r->cpu_pct >= 0 && r->cpu_pct <= 1e6) {
		t->pct_src = TIMEFMT_CSH;
		t->pct_posted = (int)floor(r->cpu_pct * 10 + 1e-6);
		/* A run read from a post (no start time) with a whole %P may
		 * have come from a GNU line, whose percent its printed times
		 * cannot always give again (194% from times giving 193): the
		 * GNU line prints it back. A native run's is computed, from
		 * times to the microsecond. */
		if (!r->started_at[0] && r->cpu_pct == floor(r->cpu_pct)) {
			t->has_pct_gnu = true;
			t->pct_gnu = (int)r->cpu_pct;
		}
	}
	for (int i = 0; i < r->nworkers; i++) {
		if (r->workers[i].signal && !t->term_signal)
			t->term_signal = r->workers[i].signal;
		if (r->workers[i].exit_code > 0 && !t->exit_code)
			t->exit_code = r->workers[i].exit_code;
	}
}

bool run_record_series_range(const struct run_record *r, int id, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (int i = 0; r->series[id] && i < r->nsamples; i++) {
		double v = r->series[id][i];

		if (isnan(v))
			continue;
		*lo = isnan(*lo) || v < *lo ? v : *lo;
		*hi = isnan(*hi) || v > *hi ? v : *hi;
	}
	return !isnan(*hi);
}

double run_record_scale(const struct run_record *r, int id, double hi)
{
	double top = metrics_scale_kept(id, r->ram_kib, r->hugetlb_kib, r->mlocked_kib,
					r->mem_limit_kib, r->swap_total_kib);

	return top > 0 && hi <= top ? top : metrics_nice_max(id, hi);
}

bool run_record_posted(const struct run_record *r)
{
	return !r->version[0];
}

bool run_record_swapless(const struct run_record *r)
{
	return r->swap_peak_kib == NA && r->free_before.swap_total == 0 &&
	       r->free_after.swap_total == 0;
}

bool run_record_same_workload(const struct run_record *a, const struct run_record *b)
{
	bool params = a->nelems == b->nelems && a->procs == b->procs && a->seed == b->seed;

	/* as run_record_workload names them */
	if (a->kind != b->kind)
		return false;
	if (a->kind == RUN_QSBENCH)
		return params;
	if (a->command && b->command)
		return !strcmp(a->command, b->command);
	return !a->command && !b->command && params;
}

void run_record_workload(const struct run_record *r, char *buf, size_t len)
{
	if (r->kind == RUN_QSBENCH)
		snprintf(buf, len, "qsbench -n %" PRId64 " -p %d -s %u", r->nelems, r->procs, r->seed);
	else if (r->command)
		fmt_copy(buf, len, r->command);
	else {
		/* what a posted header gave of it */
		char n[32] = "", p[24] = "", sd[24] = "";

		if (r->nelems != NA)
			snprintf(n, sizeof(n), " nelems=%" PRId64, r->nelems);
		if (r->procs != NA)
			snprintf(p, sizeof(p), " procs=%d", r->procs);
		if (r->seed)
			snprintf(sd, sizeof(sd), " seed=%u", r->seed);
		snprintf(buf, len, "(command not recorded%s%s%s%s)", *n || *p || *sd ? ":" : "",
			 n, p, sd);
	}
	fmt_blank_controls(buf);
}

void run_record_line(const struct run_record *r, bool gnu, char *buf, size_t len)
{
	struct timeline t;

	run_record_timeline(r, &t);
	if (gnu)
		timefmt_gnu(buf, len, &t);
	else
		timefmt_csh(buf, len, &t);
}

void run_record_swap_line(const char *line, char *buf, size_t len)
{
	char l[4096], type[32], size[32], used[32], tail[2];
	long long size_kib, used_kib;
	int prio, at;

	snprintf(l, sizeof(l), "%.*s", (int)strcspn(line, "\n"), line);
	/* the path may hold blanks: the four fields are the last four */
	at = (int)strlen(l);
	for (int blanks = 0; at > 0 && blanks < 4; )
		if (l[--at] == ' ')
			blanks++;
	if (at > 0 && sscanf(l + at, " %31s %lld %lld %d%1s", type, &size_kib, &used_kib,
			     &prio, tail) == 4 && size_kib >= 0 && used_kib >= 0) {
		fmt_kib(size, sizeof(size), size_kib);
		fmt_kib(used, sizeof(used), used_kib);
		snprintf(buf, len, "%.*s %s, %s, %s used, priority %d", at, l, type, size, used,
			 prio);
	} else {
		snprintf(buf, len, "%s", l);
	}
}

char *run_place_text(const char *place, const char *accel, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", place, place[0] && accel[0] ? " " : "", place[0] ? accel : "");
	return buf;
}

char *run_record_host(const struct run_record *r, char *buf, size_t len)
{
	char where[32];

	run_place_text(r->place, r->accel, where, sizeof(where));
	snprintf(buf, len, "%s%s%s%s", r->hostname[0] ? r->hostname : "?", where[0] ? " (" : "",
		 where, where[0] ? ")" : "");
	return buf;
}
