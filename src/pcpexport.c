/* Stored runs as Performance Co-Pilot archives. */
#include "pcpexport.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/import.h>

#include "fmt.h"
#include "metrics.h"
#include "runrec.h"

/* libpcp_import's own domain, which no agent of pmcd takes, for ours; the
 * linux agent's for its names. */
#define OUR_DOMAIN 245
#define LINUX_DOMAIN 60
enum { CL_SERIES = 1, CL_WORKER = 2 };
#define WORKER_INDOM 1
/* The linux agent's instance domain of the PSI averages, and avg10's
 * instance in it. */
#define PSI_INDOM 37
#define PSI_AVG10 10
/* A label's longest value: an archive keeps its context's labels in one
 * JSON object of at most 64 KiB. */
#define LABEL_MAX 4000

/* Units as pmiUnits takes them: dimensions space, time, count, then the
 * scales. */
struct units { signed char dim[3], scale[3]; };
#define U_NONE { { 0, 0, 0 }, { 0, 0, 0 } }
#define U_BYTE { { 1, 0, 0 }, { PM_SPACE_BYTE, 0, 0 } }
#define U_KBYTE { { 1, 0, 0 }, { PM_SPACE_KBYTE, 0, 0 } }
#define U_COUNT { { 0, 0, 1 }, { 0, 0, PM_COUNT_ONE } }
#define U_PER_SEC { { 0, -1, 1 }, { 0, PM_TIME_SEC, PM_COUNT_ONE } }
#define U_USEC { { 0, 1, 0 }, { 0, PM_TIME_USEC, 0 } }
#define U_MSEC { { 0, 1, 0 }, { 0, PM_TIME_MSEC, 0 } }
#define U_SEC { { 0, 1, 0 }, { 0, PM_TIME_SEC, 0 } }

/* Each registry unit as PCP's; the shares (%, s/s, a ratio) have none. */
static const struct { const char *unit; struct units u; } unit_map[] = {
	{ "KiB", U_KBYTE }, { "faults/s", U_PER_SEC }, { "pages/s", U_PER_SEC },
	{ "stalls/s", U_PER_SEC }, { "events/s", U_PER_SEC }, { "tasks", U_COUNT },
	{ "ms", U_MSEC }, { "%", U_NONE }, { "% of a CPU", U_NONE }, { "% of time", U_NONE },
	{ "s/s", U_NONE }, { "x", U_NONE },
};

/* The item of each series under thrashtop.: fixed, so that a series keeps
 * its PMID whatever the registry's order. */
static const unsigned char item_of[M_N] = {
	[M_SWAP_USED] = 1, [M_FREE] = 2, [M_AVAIL] = 3, [M_CACHED] = 4, [M_SWAP_CACHED] = 5,
	[M_MAJFLT] = 6, [M_MINFLT] = 7, [M_PSWPIN] = 8, [M_PSWPOUT] = 9,
	[M_SCAN_KSWAPD] = 10, [M_SCAN_DIRECT] = 11, [M_STEAL_KSWAPD] = 12,
	[M_STEAL_DIRECT] = 13, [M_ALLOCSTALL] = 14, [M_REFAULT_ANON] = 15,
	[M_REFAULT_FILE] = 16, [M_PSI_SOME] = 17, [M_PSI_FULL] = 18, [M_PSI_SOME_RATE] = 19,
	[M_PSI_FULL_RATE] = 20, [M_KSWAPD_CPU] = 21, [M_PROCS_RUNNING] = 22,
	[M_PROCS_BLOCKED] = 23, [M_CG_MEM] = 24, [M_CG_SWAP] = 25, [M_CG_MAJFLT] = 26,
	[M_CG_REFAULT] = 27, [M_CG_PSI_SOME] = 28, [M_CG_PSI_FULL] = 29, [M_ZRAM_ORIG] = 30,
	[M_ZRAM_COMPR] = 31, [M_ZRAM_MEM] = 32, [M_ZRAM_RATIO] = 33, [M_ZSWAP_POOL] = 34,
	[M_ZSWAP_STORED] = 35, [M_ZSWPOUT] = 36, [M_ZSWPIN] = 37, [M_ZSWPWB] = 38,
	[M_STALL_SWAPIN] = 39, [M_STALL_RECLAIM] = 40, [M_STALL_THRASHING] = 41,
	[M_STALL_IO] = 42, [M_STALL_CPU] = 43, [M_DR_STALLS] = 44, [M_DR_P99] = 45,
	[M_DR_TIME] = 46, [M_KSWAPD_AWAKE] = 47, [M_MEMCG_STALLS] = 48, [M_THROTTLED] = 49,
	[M_COMPACT_STALLS] = 50, [M_TRACE_LOST] = 51,
};

/* How a linux agent's figure comes from ours: a level as it is, a
 * counter summed from a rate, an avg10 as the instance "10 second". */
enum how { GAUGE, COUNTER, AVG10 };

/* The figures the linux agent names, each as `pminfo -d` describes it
 * there (6.0.3): ours times scale; plus, where it is not -1, a second
 * series added to the first (pgfault counts major and minor faults). */
static const struct linux_metric {
	const char *name;
	int cluster, item, type, sem;
	enum how how;
	int src, plus;
	double scale;
	struct units u;
} linux_metrics[] = {
	{ "swap.used", 1, 7, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_SWAP_USED, -1, 1024, U_BYTE },
	{ "mem.util.free", 1, 2, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_FREE, -1, 1, U_KBYTE },
	{ "mem.util.available", 1, 58, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_AVAIL, -1, 1, U_KBYTE },
	{ "mem.util.cached", 1, 5, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_CACHED, -1, 1, U_KBYTE },
	{ "mem.util.swapCached", 1, 13, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_SWAP_CACHED, -1, 1,
	  U_KBYTE },
	{ "mem.vmstat.pgmajfault", 28, 17, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER, M_MAJFLT, -1, 1,
	  U_COUNT },
	{ "mem.vmstat.pgfault", 28, 16, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER, M_MAJFLT, M_MINFLT, 1,
	  U_COUNT },
	{ "mem.vmstat.pswpin", 28, 8, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER, M_PSWPIN, -1, 1, U_COUNT },
	{ "mem.vmstat.pswpout", 28, 9, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER, M_PSWPOUT, -1, 1,
	  U_COUNT },
	{ "mem.vmstat.pgscan_kswapd", 28, 148, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER, M_SCAN_KSWAPD,
	  -1, 1, U_COUNT },
	{ "mem.vmstat.pgscan_direct", 28, 146, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER, M_SCAN_DIRECT,
	  -1, 1, U_COUNT },
	{ "mem.vmstat.pgsteal_kswapd", 28, 150, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER,
	  M_STEAL_KSWAPD, -1, 1, U_COUNT },
	{ "mem.vmstat.pgsteal_direct", 28, 149, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER,
	  M_STEAL_DIRECT, -1, 1, U_COUNT },
	{ "kernel.all.pressure.memory.some.avg", 84, 0, PM_TYPE_FLOAT, PM_SEM_INSTANT, AVG10,
	  M_PSI_SOME, -1, 1, U_NONE },
	{ "kernel.all.pressure.memory.full.avg", 84, 2, PM_TYPE_FLOAT, PM_SEM_INSTANT, AVG10,
	  M_PSI_FULL, -1, 1, U_NONE },
	/* % of the time stalled is 1e4 microseconds a second */
	{ "kernel.all.pressure.memory.some.total", 84, 1, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER,
	  M_PSI_SOME_RATE, -1, 1e4, U_USEC },
	{ "kernel.all.pressure.memory.full.total", 84, 3, PM_TYPE_U64, PM_SEM_COUNTER, COUNTER,
	  M_PSI_FULL_RATE, -1, 1e4, U_USEC },
	{ "kernel.all.running", 0, 15, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_PROCS_RUNNING, -1, 1,
	  U_NONE },
	{ "kernel.all.blocked", 0, 16, PM_TYPE_U64, PM_SEM_INSTANT, GAUGE, M_PROCS_BLOCKED, -1, 1,
	  U_NONE },
};
#define NLINUX (sizeof(linux_metrics) / sizeof(linux_metrics[0]))

/* Each worker's totals, thrashtop.worker.NAME, then its delays as
 * thrashtop.worker.delay.KIND (seconds). */
enum { W_END, W_EXIT, W_SIGNAL, W_USER, W_SYS, W_MAJFLT, W_MINFLT, W_VERIFY, W_FIRST_BAD, W_N };
static const struct { const char *name, *help; int type; struct units u; } worker_metrics[W_N] = {
	[W_END] = { "end", "how the worker ended: ok, verify, exit, signal, oom",
		    PM_TYPE_STRING, U_NONE },
	[W_EXIT] = { "exit_code", "its exit status", PM_TYPE_32, U_NONE },
	[W_SIGNAL] = { "signal", "the signal that ended it, 0 if it exited", PM_TYPE_32, U_NONE },
	[W_USER] = { "user", "its user CPU time", PM_TYPE_64, U_USEC },
	[W_SYS] = { "sys", "its system CPU time", PM_TYPE_64, U_USEC },
	[W_MAJFLT] = { "majflt", "its major faults", PM_TYPE_64, U_COUNT },
	[W_MINFLT] = { "minflt", "its minor faults", PM_TYPE_64, U_COUNT },
	[W_VERIFY] = { "verify_errors", "errors its verify pass found", PM_TYPE_64, U_COUNT },
	[W_FIRST_BAD] = { "first_bad", "the first index out of order", PM_TYPE_64, U_NONE },
};
#define NW (W_N + DL_N)

void pcpexport_metric_name(int id, char *buf, size_t len)
{
	const struct metric_def *d = metric_def(id);

	snprintf(buf, len, "thrashtop.%s", d ? d->name : "?");
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* One archive being written. */
struct writer {
	const struct run_record *r;
	int64_t epoch;			/* the run's start, s */
	int hs[M_N];			/* pmiGetHandle's, 0 where not written */
	int hl[NLINUX];
	double sum[NLINUX];		/* the counters so far */
	int *hw;			/* worker i's metric k at hw[i * NW + k] */
	char *err;
	size_t errlen;
};

static int pmi_fail(struct writer *w, int sts, const char *what)
{
	char msg[PMI_MAXERRMSGLEN];

	fmt_err(w->err, w->errlen, "PCP archive: %s: %s", what, pmiErrStr_r(sts, msg, sizeof(msg)));
	return -1;
}

static pmUnits units_of(const struct units *u)
{
	return pmiUnits(u->dim[0], u->dim[1], u->dim[2], u->scale[0], u->scale[1], u->scale[2]);
}

/* A metric and its one line of help. 0, or -1. */
static int define(struct writer *w, const char *name, pmID pmid, int type, pmInDom indom, int sem,
		  const struct units *u, const char *help)
{
	int sts = pmiAddMetric(name, pmid, type, indom, sem, units_of(u));

	if (sts >= 0)
		sts = pmiPutText(PM_TEXT_PMID, PM_TEXT_ONELINE, pmid, help);
	return sts < 0 ? pmi_fail(w, sts, name) : 0;
}

/* The handle values of name's instance inst (NULL: a singular metric) go
 * through, or -1. */
static int handle(struct writer *w, const char *name, const char *inst)
{
	int h = pmiGetHandle(name, inst);

	return h > 0 ? h : pmi_fail(w, h, name);
}

static bool known_from(const double *v, int from, int n)
{
	for (int i = from; v && i < n; i++)
		if (!isnan(v[i]))
			return true;
	return false;
}

/* thrashtop.NAME for each series with a sample, as stored. */
static int add_series(struct writer *w)
{
	char name[64], help[256];

	for (int id = 0; id < M_N; id++) {
		const struct metric_def *d = metric_def(id);
		size_t u = 0;

		if (!known_from(w->r->series[id], 0, w->r->nsamples))
			continue;
		while (u < sizeof(unit_map) / sizeof(unit_map[0]) && strcmp(unit_map[u].unit, d->unit))
			u++;
		if (u == sizeof(unit_map) / sizeof(unit_map[0]))
			return fmt_err(w->err, w->errlen, "PCP archive: series %s: no PCP unit for %s",
				       d->name, d->unit);
		pcpexport_metric_name(id, name, sizeof(name));
		snprintf(help, sizeof(help), "%s, %s (%s)", d->title, d->unit, d->source);
		if (define(w, name, pmID_build(OUR_DOMAIN, CL_SERIES, item_of[id]), PM_TYPE_DOUBLE,
			   PM_INDOM_NULL, PM_SEM_INSTANT, &unit_map[u].u, help) ||
		    (w->hs[id] = handle(w, name, NULL)) < 0)
			return -1;
	}
	return 0;
}

/* The linux agent's names whose figure the run has: a counter from the
 * second sample on, where its rate first is. */
static int add_linux(struct writer *w)
{
	pmInDom psi = pmInDom_build(LINUX_DOMAIN, PSI_INDOM);
	bool psi_added = false;
	char help[256];

	for (size_t k = 0; k < NLINUX; k++) {
		const struct linux_metric *m = &linux_metrics[k];
		const double *v = w->r->series[m->src];
		int n = w->r->nsamples;

		if (!known_from(v, m->how == COUNTER, n) ||
		    (m->plus >= 0 && !known_from(w->r->series[m->plus], 1, n)))
			continue;
		if (m->how == AVG10 && !psi_added) {
			int sts = pmiAddInstance(psi, "10 second", PSI_AVG10);
			if (sts < 0)
				return pmi_fail(w, sts, "kernel.all.pressure.memory");
			psi_added = true;
		}
		snprintf(help, sizeof(help), m->how == COUNTER ?
			 "from thrashtop's %s%s%s: 0 at the run's first sample, then the sum of rate x interval" :
			 "thrashtop's %s%s%s", metric_def(m->src)->name, m->plus >= 0 ? " + " : "",
			 m->plus >= 0 ? metric_def(m->plus)->name : "");
		if (define(w, m->name, pmID_build(LINUX_DOMAIN, m->cluster, m->item), m->type,
			   m->how == AVG10 ? psi : PM_INDOM_NULL, m->sem, &m->u, help) ||
		    (w->hl[k] = handle(w, m->name, m->how == AVG10 ? "10 second" : NULL)) < 0)
			return -1;
	}
	return 0;
}

/* Worker field k as pmiPutValue takes it; false where it is unknown. */
static bool worker_value(const struct run_worker *wk, int k, char *buf, size_t len)
{
	const int64_t v[W_N] = {
		[W_EXIT] = wk->exit_code, [W_SIGNAL] = wk->signal, [W_USER] = wk->user_us,
		[W_SYS] = wk->sys_us, [W_MAJFLT] = wk->majflt, [W_MINFLT] = wk->minflt,
		[W_VERIFY] = wk->verify_errors, [W_FIRST_BAD] = wk->first_bad,
	};

	if (k >= W_N) {
		double s = wk->delays.s[k - W_N];
		return !isnan(s) && snprintf(buf, len, "%.17g", s) > 0;
	}
	if (k == W_END)
		return snprintf(buf, len, "%s", worker_end_name(wk->end)) > 0;
	return v[k] != NA && snprintf(buf, len, "%" PRId64, v[k]) > 0;
}

/* The workers as instances "worker1", "worker2"... (each with its pid as
 * a label), and those of their totals that any of them has. */
static int add_workers(struct writer *w)
{
	const struct run_record *r = w->r;
	pmInDom indom = pmInDom_build(OUR_DOMAIN, WORKER_INDOM);
	struct units sec = U_SEC;
	char inst[32], name[64], help[128], v[64];
	int sts = 0;

	if (!r->nworkers)
		return 0;
	if (!(w->hw = calloc((size_t)r->nworkers * NW, sizeof(*w->hw))))
		return fmt_err(w->err, w->errlen, "out of memory");
	for (int i = 0; sts >= 0 && i < r->nworkers; i++) {
		snprintf(inst, sizeof(inst), "worker%d", i + 1);
		snprintf(v, sizeof(v), "%d", r->workers[i].pid);
		if ((sts = pmiAddInstance(indom, inst, i + 1)) >= 0)
			sts = pmiPutLabel(PM_LABEL_INSTANCES, indom, (unsigned)i + 1, "pid", v);
	}
	if (sts < 0)
		return pmi_fail(w, sts, "the workers");
	for (int k = 0; k < NW; k++) {
		bool delay = k >= W_N, any = false;
		const char *dn = delay ? delay_name((enum delay_kind)(k - W_N)) : "";
		pmID pmid = pmID_build(OUR_DOMAIN, CL_WORKER, k + 1);

		for (int i = 0; i < r->nworkers; i++)
			any = any || worker_value(&r->workers[i], k, v, sizeof(v));
		if (!any)
			continue;
		snprintf(name, sizeof(name), "thrashtop.worker.%s%s", delay ? "delay." : "",
			 delay ? dn : worker_metrics[k].name);
		snprintf(help, sizeof(help), delay ? "seconds the worker waited: %s delay" : "%s",
			 delay ? dn : worker_metrics[k].help);
		if (define(w, name, pmid, delay ? PM_TYPE_DOUBLE : worker_metrics[k].type, indom,
			   PM_SEM_DISCRETE, delay ? &sec : &worker_metrics[k].u, help))
			return -1;
		for (int i = 0; i < r->nworkers; i++) {
			snprintf(inst, sizeof(inst), "worker%d", i + 1);
			if ((w->hw[i * NW + k] = handle(w, name, inst)) < 0)
				return -1;
		}
	}
	return 0;
}

/* One label, its value JSON-escaped (pmiPutLabel quotes it) and cut at
 * LABEL_MAX bytes. */
static int put_label(struct writer *w, const char *name, const char *val)
{
	char cut[LABEL_MAX + 4], *json = NULL;
	size_t n = strlen(val), len = 0;
	FILE *m;

	if (n > LABEL_MAX) {
		n = LABEL_MAX;
		while (n && ((unsigned char)val[n] & 0xC0) == 0x80)
			n--;
		memcpy(cut, val, n);
		memcpy(cut + n, "...", 4);
		val = cut;
	}
	if (!(m = open_memstream(&json, &len)))
		return fmt_err(w->err, w->errlen, "out of memory");
	fmt_json_str(m, val);
	if (fclose(m) || len < 2) {
		free(json);
		return fmt_err(w->err, w->errlen, "out of memory");
	}
	json[len - 1] = '\0';
	int sts = pmiPutLabel(PM_LABEL_CONTEXT, 0, 0, name, json + 1);
	free(json);
	return sts < 0 ? pmi_fail(w, sts, name) : 0;
}

/* The run's id and every field of it that is known, as the CSV export's
 * columns name them, as labels of the archive. */
static int put_labels(struct writer *w)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%" PRId64, w->r->id);
	if (put_label(w, "id", buf))
		return -1;
	for (size_t k = 0; k < history_nfields; k++) {
		const struct hist_field *fl = &history_fields[k];
		const char *v = buf;

		if (fl->type == HF_PSTR)
			v = *(char *const *)((const char *)w->r + fl->off);
		else
			hist_field_get(w->r, fl, buf, sizeof(buf));
		if (v && *v && put_label(w, fl->name, v))
			return -1;
	}
	return 0;
}

/* Metric k of the linux agent at sample i, in its unit: NAN where the
 * run has none there. A counter is 0 at the first sample and rises by
 * rate x interval where the rate is known. */
static double linux_value(struct writer *w, size_t k, int i)
{
	const struct linux_metric *m = &linux_metrics[k];
	const struct run_record *r = w->r;
	double x = r->series[m->src][i];

	if (m->plus >= 0)
		x += r->series[m->plus][i];
	if (m->how != COUNTER)
		return x >= 0 ? x * m->scale : NAN;
	if (i == 0)
		return 0;
	return x >= 0 ? (w->sum[k] += x * m->scale * (r->t[i] - r->t[i - 1])) : NAN;
}

/* Sample i's value of every metric the run has; the workers' at the last.
 * *any says whether one was put. */
static int put_sample(struct writer *w, int i, bool *any)
{
	const struct run_record *r = w->r;
	char v[64];
	int sts = 0;

	for (int id = 0; id < M_N && sts >= 0; id++) {
		if (!w->hs[id] || isnan(r->series[id][i]))
			continue;
		snprintf(v, sizeof(v), "%.17g", r->series[id][i]);
		sts = pmiPutValueHandle(w->hs[id], v);
		*any = true;
	}
	for (size_t k = 0; k < NLINUX && sts >= 0; k++) {
		double x = w->hl[k] ? linux_value(w, k, i) : NAN;

		if (isnan(x))
			continue;
		if (linux_metrics[k].type == PM_TYPE_FLOAT)
			snprintf(v, sizeof(v), "%.17g", x);
		else
			snprintf(v, sizeof(v), "%.0f", round(x));
		sts = pmiPutValueHandle(w->hl[k], v);
		*any = true;
	}
	for (int j = 0; i == r->nsamples - 1 && j < r->nworkers && sts >= 0; j++)
		for (int k = 0; k < NW && sts >= 0; k++) {
			if (!w->hw[j * NW + k] || !worker_value(&r->workers[j], k, v, sizeof(v)))
				continue;
			sts = pmiPutValueHandle(w->hw[j * NW + k], v);
			*any = true;
		}
	return sts < 0 ? pmi_fail(w, sts, "a value") : 0;
}

/* The run's start in s since the epoch (started_at is UTC), and each
 * sample's time in us from it, rising. 0, or 1 (err filled). */
static int check_times(const struct run_record *r, int64_t *epoch, char *err, size_t errlen)
{
	struct tm tm = { 0 };
	int used = 0;

	if (r->nsamples <= 0 || !r->t) {
		fmt_err(err, errlen, "run %" PRId64 " has no recorded series", r->id);
		return 1;
	}
	if (sscanf(r->started_at, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 6 ||
	    r->started_at[used]) {
		fmt_err(err, errlen, "run %" PRId64 " has no start time", r->id);
		return 1;
	}
	tm.tm_year -= 1900;
	tm.tm_mon--;
	*epoch = (int64_t)timegm(&tm);
	for (int i = 0; i < r->nsamples; i++) {
		double us = round(r->t[i] * 1e6), prev = i ? round(r->t[i - 1] * 1e6) : -1;
		double at = (double)*epoch + us / 1e6;

		if (!(us > prev) || !(at >= 0 && at < INT_MAX)) {
			fmt_err(err, errlen, "run %" PRId64 ": its sample times do not rise"
				" (sample %d at %.6f s)", r->id, i + 1, r->t[i]);
			return 1;
		}
	}
	return 0;
}

/* The signals an export ends on; its caller blocks them, so that one
 * waits here until what was written is removed. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static bool stop_pending(char *err, size_t errlen)
{
	sigset_t pending;

	sigpending(&pending);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (sigismember(&pending, stop_signals[i])) {
			fmt_err(err, errlen, "interrupted by %s: nothing written",
				strsignal(stop_signals[i]));
			return true;
		}
	return false;
}

int pcpexport_run(const struct run_record *r, const char *base, char *err, size_t errlen)
{
	struct writer w = { .r = r, .err = err, .errlen = errlen };
	char host[80];
	int rc, ctx;

	if ((rc = check_times(r, &w.epoch, err, errlen)))
		return rc;
	if ((ctx = pmiStart(base, 0)) < 0)
		return pmi_fail(&w, ctx, base);
	snprintf(host, sizeof(host), "%s", r->hostname[0] ? r->hostname : "unknown");
	if ((rc = pmiSetHostname(host)) < 0 || (rc = pmiSetTimezone("UTC")) < 0)
		rc = pmi_fail(&w, rc, "the archive's label");
	else
		rc = add_series(&w) || add_linux(&w) || add_workers(&w) || put_labels(&w) ? -1 : 0;
	for (int i = 0; !rc && i < r->nsamples; i++) {
		int64_t us = w.epoch * 1000000 + llround(r->t[i] * 1e6);
		bool any = i == 0;	/* the first record carries the labels */
		int sts;

		if (i % 4096 == 4095 && stop_pending(err, errlen))
			rc = -1;
		else if (!(rc = put_sample(&w, i, &any)) && any &&
			 (sts = pmiWrite((int)(us / 1000000), (int)(us % 1000000))) < 0)
			rc = pmi_fail(&w, sts, base);
	}
	int sts = pmiEnd();
	if (!rc && sts < 0)
		rc = pmi_fail(&w, sts, base);
	free(w.hw);
	return rc;
}

/* One export into a directory: the runs written so far into tmp, a
 * directory of its own in dir, and linked into dir at the end. */
struct job {
	const char *dir;
	int dirfd, tmpfd;
	char tmp[PATH_MAX];
	int64_t *ids;			/* the runs written, in order */
	size_t n, cap, left;
	char *err;
	size_t errlen;
};

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* The names in directory fd but . and .., malloc'd; NULL with errno. */
static char **dir_names(int fd, size_t *n)
{
	int dfd = dup(fd), e0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	char **v = calloc(1, sizeof(*v)), **m;
	struct dirent *e;

	*n = 0;
	e0 = !d ? errno : !v ? ENOMEM : 0;
	if (!d && dfd >= 0)
		close(dfd);
	if (d)
		rewinddir(d);
	while (!e0 && (errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!(m = realloc(v, (*n + 1) * sizeof(*v))) || !(m[*n] = strdup(e->d_name)))
			e0 = ENOMEM;
		if (m)
			v = m;
		if (!e0)
			++*n;
	}
	if (!e0)
		e0 = errno;
	if (d)
		closedir(d);
	if (e0) {
		free_names(v, *n);
		errno = e0;
		return NULL;
	}
	return v;
}

/* Whether dir holds anything named PREFIX ID.*: an archive's volumes,
 * metadata, index, each maybe compressed. 0 free, 1 taken, -1 (err
 * filled). */
static int name_taken(struct job *j, int64_t id)
{
	char prefix[64];
	size_t n, len;
	char **v = dir_names(j->dirfd, &n);
	int rc = 0;

	if (!v)
		return fmt_err(j->err, j->errlen, "%s: %s", j->dir, strerror(errno));
	len = (size_t)snprintf(prefix, sizeof(prefix), "%s%" PRId64 ".", PCPEXPORT_PREFIX, id);
	for (size_t i = 0; !rc && i < n; i++)
		if (!strncmp(v[i], prefix, len)) {
			fmt_err(j->err, j->errlen, "%s/%s: an archive of run %" PRId64
				" is there already: refused", j->dir, v[i], id);
			rc = 1;
		}
	free_names(v, n);
	return rc;
}

/* Run r into tmp. named: the user named it, so one that cannot be an
 * archive is refused rather than left out. 0, 1, -1 as
 * pcpexport_history. */
static int add_run(struct job *j, const struct run_record *r, bool named)
{
	char base[PATH_MAX + 64];
	int rc;

	if ((rc = name_taken(j, r->id)))
		return rc;
	snprintf(base, sizeof(base), "%s/%s%" PRId64, j->tmp, PCPEXPORT_PREFIX, r->id);
	rc = pcpexport_run(r, base, j->err, j->errlen);
	if (rc == 1 && !named) {
		j->left++;
		j->err[0] = '\0';
		rc = 0;
	} else if (rc == 0) {
		if (j->n == j->cap) {
			int64_t *ids = realloc(j->ids, (j->cap * 2 + 8) * sizeof(*ids));
			if (!ids)
				return fmt_err(j->err, j->errlen, "out of memory");
			j->ids = ids;
			j->cap = j->cap * 2 + 8;
		}
		j->ids[j->n++] = r->id;
	}
	return !rc && stop_pending(j->err, j->errlen) ? -1 : rc;
}

static int each_run(struct run_record *r, void *arg)
{
	return add_run(arg, r, false);
}

/* The files of tmp, each linked into dir where its name is free (linkat
 * neither replaces a name nor follows a link there); on failure the
 * links made are removed again. */
static int commit(struct job *j)
{
	size_t n, made = 0;
	char **v = dir_names(j->tmpfd, &n);
	int rc = 0;

	if (!v)
		return fmt_err(j->err, j->errlen, "%s: %s", j->tmp, strerror(errno));
	for (; made < n; made++)
		if (linkat(j->tmpfd, v[made], j->dirfd, v[made], 0)) {
			rc = errno == EEXIST ? 1 : -1;
			fmt_err(j->err, j->errlen, "%s/%s: %s", j->dir, v[made], errno == EEXIST ?
				"an archive of that name is there already: refused" : strerror(errno));
			break;
		}
	for (size_t i = 0; rc && i < made; i++) {
		struct stat a, b;
		if (!fstatat(j->tmpfd, v[i], &a, AT_SYMLINK_NOFOLLOW) &&
		    !fstatat(j->dirfd, v[i], &b, AT_SYMLINK_NOFOLLOW) && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			unlinkat(j->dirfd, v[i], 0);
	}
	free_names(v, n);
	return rc;
}

/* tmp and what is in it, gone. */
static void remove_tmp(struct job *j)
{
	size_t n;
	char **v = dir_names(j->tmpfd, &n);

	for (size_t i = 0; v && i < n; i++)
		unlinkat(j->tmpfd, v[i], 0);
	free_names(v, n);
	close(j->tmpfd);
	rmdir(j->tmp);
}

/* The runs, into tmp: those named, or those f selects. */
static int write_runs(struct job *j, struct history *h, const char *path,
		      const struct history_filter *f, const int64_t *ids, int nids)
{
	struct run_record r;
	char err[512];
	int rc = 0;

	for (int i = 0; !rc && i < nids; i++) {
		rc = history_get(h, ids[i], &r, err, sizeof(err));
		if (rc == 1)
			fmt_err(j->err, j->errlen, "no run %" PRId64 " in %s", ids[i], path);
		else if (rc)
			fmt_err(j->err, j->errlen, "%s", err);
		else
			rc = add_run(j, &r, true);
		run_record_clear(&r);
	}
	if (nids)
		return rc;
	rc = history_each(h, f, HISTORY_DETAIL, each_run, j, err, sizeof(err));
	if (rc && !j->err[0])
		fmt_err(j->err, j->errlen, "%s", err);
	if (rc || j->n)
		return rc;
	if (j->left)
		fmt_err(j->err, j->errlen, "none of the %zu runs selected in %s has a recorded series",
			j->left, path);
	else
		fmt_err(j->err, j->errlen, "no runs in %s to export", path);
	return 1;
}

/* dir checked and opened, and tmp made in it. 0, 1, -1. */
static int open_dir(struct job *j)
{
	struct stat sb;
	int e;

	if (stat(j->dir, &sb)) {
		fmt_err(j->err, j->errlen, "%s: %s", j->dir, errno == ENOENT ? "no such directory" :
			strerror(errno));
		return 1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		fmt_err(j->err, j->errlen, "%s: not a directory", j->dir);
		return 1;
	}
	if ((j->dirfd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    snprintf(j->tmp, sizeof(j->tmp), "%s/.thrashtop-pcp-XXXXXX", j->dir) >= (int)sizeof(j->tmp)) {
		fmt_err(j->err, j->errlen, "%s: %s", j->dir, strerror(j->dirfd < 0 ? errno : ENAMETOOLONG));
		return 1;
	}
	if (!mkdtemp(j->tmp)) {
		e = errno;
		fmt_err(j->err, j->errlen, "%s: cannot write there: %s", j->dir, strerror(e));
		return e == EACCES || e == EROFS || e == EPERM ? 1 : -1;
	}
	if ((j->tmpfd = open(j->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fmt_err(j->err, j->errlen, "%s: %s", j->tmp, strerror(errno));
		rmdir(j->tmp);
		return -1;
	}
	return 0;
}

int pcpexport_history(const char *path, const struct history_filter *f, const int64_t *ids,
		      int nids, const char *dir, FILE *out, size_t *left, char *err,
		      size_t errlen)
{
	struct job j = { .dir = dir, .dirfd = -1, .tmpfd = -1, .err = err, .errlen = errlen };
	struct history *h = NULL;
	sigset_t stop, old;
	int rc;

	err[0] = '\0';
	*left = 0;
	sigemptyset(&stop);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&stop, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if ((rc = open_dir(&j))) {
		if (j.dirfd >= 0)
			close(j.dirfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	if (access(path, F_OK) && errno == ENOENT) {
		if (nids)
			fmt_err(err, errlen, "no run %" PRId64 " in %s (no history yet)", ids[0], path);
		else
			fmt_err(err, errlen, "no runs in %s to export", path);
		rc = 1;
	} else if (!(h = history_open(path, HISTORY_RDONLY, err, errlen))) {
		rc = -1;
	}
	if (!rc)
		rc = write_runs(&j, h, path, f, ids, nids);
	if (h)
		history_close(h);
	if (!rc)
		rc = commit(&j);
	for (size_t i = 0; !rc && i < j.n; i++)
		fprintf(out, "%s%s%s%" PRId64 "\n", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
			PCPEXPORT_PREFIX, j.ids[i]);
	fflush(out);
	*left = j.left;
	remove_tmp(&j);
	close(j.dirfd);
	free(j.ids);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
