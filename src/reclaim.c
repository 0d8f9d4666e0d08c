#include "reclaim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

const char *rc_event_name(int kind)
{
	static const char *const names[] = { "direct", "memcg", "compact", "kswapd", "throttled",
					     "oom" };

	return kind >= 0 && kind <= RE_OOM ? names[kind] : NULL;
}

void rc_init(struct rc_acc *a, uint64_t t_open_ns)
{
	memset(a, 0, sizeof(*a));
	a->t_open = t_open_ns;
}

/* Open addressing on pid, linear probing; deletion shifts back, so no
 * tombstones. pid 0 marks a free slot (pid 0 is the idle task, which
 * never reclaims). */
static size_t slot_of(int pid)
{
	return ((unsigned)pid * 2654435761u) % RC_PIDS_MAX;
}

static struct rc_slot *pend_find(struct rc_slot *t, int pid)
{
	for (size_t i = slot_of(pid), k = 0; k < RC_PIDS_MAX; i = (i + 1) % RC_PIDS_MAX, k++) {
		if (t[i].pid == pid)
			return &t[i];
		if (!t[i].pid)
			return NULL;
	}
	return NULL;
}

/* A begin while one is open for the thread (its end lost) replaces it. */
static void pend_put(struct rc_slot *t, int pid, uint64_t ns)
{
	for (size_t i = slot_of(pid), k = 0; k < RC_PIDS_MAX; i = (i + 1) % RC_PIDS_MAX, k++) {
		if (t[i].pid == pid || !t[i].pid) {
			t[i].pid = pid;
			t[i].v = ns;
			return;
		}
	}
}

static void pend_del(struct rc_slot *t, struct rc_slot *s)
{
	size_t i = (size_t)(s - t), j = i;

	t[i].pid = 0;
	for (;;) {
		size_t home;

		j = (j + 1) % RC_PIDS_MAX;
		if (!t[j].pid)
			return;
		home = slot_of(t[j].pid);
		/* t[j] may move to i when i lies cyclically in [home, j) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t[i] = t[j];
			t[j].pid = 0;
			i = j;
		}
	}
}

void rc_hist_add(struct rc_hist *h, int64_t ns)
{
	size_t i;

	if (ns < 0)
		ns = 0;
	if (ns < 128) {
		i = (size_t)ns;
	} else {
		int e = 63 - __builtin_clzll((unsigned long long)ns);

		i = 128 + (size_t)(e - 7) * 64 + (size_t)(((unsigned long long)ns >> (e - 6)) & 63);
		if (i >= RC_HIST_N)
			i = RC_HIST_N - 1;
	}
	h->b[i]++;
	h->n++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/* The largest value bucket i holds. */
static int64_t bucket_top(size_t i)
{
	int e;
	unsigned long long sub;

	if (i < 128)
		return (int64_t)i;
	e = (int)((i - 128) / 64) + 7;
	sub = (i - 128) % 64;
	return (int64_t)(((64 + sub + 1) << (e - 6)) - 1);
}

int64_t rc_hist_quantile(const struct rc_hist *h, double p)
{
	int64_t rank, seen = 0;

	if (h->n <= 0)
		return -1;
	rank = (int64_t)ceil(p * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < RC_HIST_N; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			int64_t top = bucket_top(i);
			return top < h->max_ns ? top : h->max_ns;
		}
	}
	return h->max_ns;
}

static void keep_event(struct rc_acc *a, enum rc_ev_kind k, uint64_t begin, uint64_t dur, int pid)
{
	struct rc_run_event *e;

	/* kswapd's awake time is the run's from its start; a span over
	 * before it (its sleep read late) is not the run's */
	if (k == RE_KSWAPD && begin < a->run_t0) {
		if (begin + dur <= a->run_t0)
			return;
		dur = begin + dur - a->run_t0;
	}
	if (k == RE_KSWAPD)
		a->run.kswapd_awake_ns += (int64_t)dur;
	if (begin < a->run_t0)
		begin = a->run_t0;
	if (a->nev >= RC_EVENTS_MAX &&
	    (k != RE_OOM || a->nev >= RC_EVENTS_MAX + RC_OOM_PAST_MAX)) {
		a->ev_past++;
		return;
	}
	e = &a->ev[a->nev++];
	e->t = (double)(begin - a->run_t0) / 1e9;
	e->dur = (double)dur / 1e9;
	e->pid = pid;
	e->kind = (uint8_t)k;
}

static void per_pid_add(struct rc_acc *a, int pid, int64_t ns)
{
	for (size_t i = slot_of(pid), k = 0; k < RC_PIDS_MAX; i = (i + 1) % RC_PIDS_MAX, k++) {
		if (a->per_pid[i].pid == pid || !a->per_pid[i].pid) {
			a->per_pid[i].pid = pid;
			a->per_pid[i].n++;
			a->per_pid[i].ns += ns;
			return;
		}
	}
	a->per_pid_other_n++;
}

int rc_pid_stalls(const struct rc_acc *a, int pid, int64_t *n, int64_t *ns)
{
	for (size_t i = slot_of(pid), k = 0; k < RC_PIDS_MAX; i = (i + 1) % RC_PIDS_MAX, k++) {
		if (a->per_pid[i].pid == pid) {
			*n = a->per_pid[i].n;
			*ns = a->per_pid[i].ns;
			return 0;
		}
		if (!a->per_pid[i].pid)
			break;
	}
	*n = *ns = 0;
	return -1;
}

/* An end: the stall's length, or -1 when its begin was not seen. */
static int64_t pair(struct rc_slot *t, const struct rc_event *e, uint64_t *begin)
{
	struct rc_slot *s = pend_find(t, e->pid);
	int64_t d;

	if (!s)
		return -1;
	*begin = s->v;
	d = e->ns >= s->v ? (int64_t)(e->ns - s->v) : 0;
	pend_del(t, s);
	return d;
}

static int by_time(const void *a, const void *b)
{
	const struct rc_event *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

struct rc_event *rc_order(struct rc_event *v, struct rc_event *tmp, size_t *at, int nrun)
{
	for (int r = 0; r < nrun; r++)
		for (size_t i = at[r] + 1; i < at[r + 1]; i++)
			if (v[i].ns < v[i - 1].ns) {
				qsort(v + at[r], at[r + 1] - at[r], sizeof(*v), by_time);
				break;
			}
	while (nrun > 1) {
		int out = 0;

		for (int r = 0; r < nrun; r += 2) {
			size_t lo = at[r], mid = at[r + 1], hi = at[r + 2 < nrun ? r + 2 : nrun];
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)	/* a tie keeps the left run's first */
				tmp[k++] = v[j].ns < v[i].ns ? v[j++] : v[i++];
			memcpy(tmp + k, v + i, (mid - i) * sizeof(*v));
			k += mid - i;
			memcpy(tmp + k, v + j, (hi - j) * sizeof(*v));
			at[out++] = lo;
		}
		at[out] = at[nrun];
		nrun = out;
		struct rc_event *sw = v;
		v = tmp;
		tmp = sw;
	}
	return v;
}

void rc_feed(struct rc_acc *a, const struct rc_event *e)
{
	uint64_t begin = 0;
	int64_t d;

	if (e->ns > a->last_ns)
		a->last_ns = e->ns;
	switch (e->kind) {
	case RC_DIRECT_BEGIN: pend_put(a->pend_direct, e->pid, e->ns); break;
	case RC_MEMCG_BEGIN: pend_put(a->pend_memcg, e->pid, e->ns); break;
	case RC_COMPACT_BEGIN: pend_put(a->pend_compact, e->pid, e->ns); break;
	case RC_DIRECT_END:
		if ((d = pair(a->pend_direct, e, &begin)) < 0)
			break;
		a->c.direct_n++;
		a->c.direct_ns += d;
		a->run.direct_n++;
		a->run.direct_ns += d;
		rc_hist_add(&a->run_hist, d);
		rc_hist_add(&a->tick_hist, d);
		per_pid_add(a, e->pid, d);
		keep_event(a, RE_DIRECT, begin, (uint64_t)d, e->pid);
		break;
	case RC_MEMCG_END:
		if ((d = pair(a->pend_memcg, e, &begin)) < 0)
			break;
		a->c.memcg_n++;
		a->c.memcg_ns += d;
		a->run.memcg_n++;
		a->run.memcg_ns += d;
		keep_event(a, RE_MEMCG, begin, (uint64_t)d, e->pid);
		break;
	case RC_COMPACT_END:
		if ((d = pair(a->pend_compact, e, &begin)) < 0)
			break;
		a->c.compact_n++;
		a->c.compact_ns += d;
		a->run.compact_n++;
		a->run.compact_ns += d;
		keep_event(a, RE_COMPACT, begin, (uint64_t)d, e->pid);
		break;
	case RC_KSWAPD_WAKE:
		/* kswapd_wake is traced at each pass of kswapd's balancing,
		 * after a sleep or straight after the last pass: every one is
		 * a wake, as perf counts them, and the first after a sleep
		 * begins an awake span */
		if (e->nid >= 0 && e->nid < RC_NODES_MAX) {
			a->node_seen[e->nid] = true;
			if (!a->awake_since[e->nid])
				a->awake_since[e->nid] = e->ns ? e->ns : 1;
			a->c.kswapd_wakes++;
			a->run.kswapd_wakes++;
		}
		break;
	case RC_KSWAPD_SLEEP:
		if (e->nid < 0 || e->nid >= RC_NODES_MAX)
			break;
		if (!a->node_seen[e->nid] && e->ns > a->t_open)
			a->awake_since[e->nid] = a->t_open ? a->t_open : 1;
		a->node_seen[e->nid] = true;
		if (a->awake_since[e->nid]) {
			uint64_t from = a->awake_since[e->nid];

			d = e->ns > from ? (int64_t)(e->ns - from) : 0;
			a->c.kswapd_awake_ns += d;
			a->awake_since[e->nid] = 0;
			keep_event(a, RE_KSWAPD, from, (uint64_t)d, e->nid);
		}
		break;
	case RC_THROTTLED:
		a->c.throttled++;
		a->run.throttled++;
		keep_event(a, RE_THROTTLED, e->ns, 0, e->pid);
		break;
	case RC_OOM_VICTIM:
		a->c.oom++;
		a->c.oom_last_ns = e->ns;
		a->run.oom++;
		a->run.oom_last_ns = e->ns;
		keep_event(a, RE_OOM, e->ns, 0, e->pid);
		if (a->nvictims < RC_VICTIMS_MAX) {
			struct rc_victim *v = &a->victims[a->nvictims++];

			v->t = e->ns > a->run_t0 ? (double)(e->ns - a->run_t0) / 1e9 : 0;
			v->pid = e->pid;
			snprintf(v->comm, sizeof(v->comm), "%s", e->comm);
		}
		break;
	}
}

void rc_lost(struct rc_acc *a, int64_t n)
{
	if (n > 0) {
		a->c.lost += n;
		a->run.lost += n;
	}
}

void rc_counts_at(const struct rc_acc *a, uint64_t now_ns, struct rc_counts *out)
{
	*out = a->c;
	for (int i = 0; i < RC_NODES_MAX; i++)
		if (a->awake_since[i] && now_ns > a->awake_since[i])
			out->kswapd_awake_ns += (int64_t)(now_ns - a->awake_since[i]);
}

void rc_run_begin(struct rc_acc *a, uint64_t t0_ns)
{
	a->run_t0 = t0_ns;
	memset(&a->run, 0, sizeof(a->run));
	memset(&a->run_hist, 0, sizeof(a->run_hist));
	memset(a->per_pid, 0, sizeof(a->per_pid));
	a->per_pid_other_n = 0;
	a->nev = 0;
	a->ev_past = 0;
	a->nvictims = 0;
}

void rc_run_end(struct rc_acc *a, uint64_t end_ns)
{
	for (int i = 0; i < RC_NODES_MAX; i++)
		if (a->awake_since[i] && end_ns > a->awake_since[i]) {
			keep_event(a, RE_KSWAPD, a->awake_since[i], end_ns - a->awake_since[i], i);
			a->awake_since[i] = 0;
		}
}

static double ms_of(int64_t ns)
{
	return ns < 0 ? NAN : (double)ns / 1e6;
}

void rc_run_summary(const struct rc_acc *a, struct rc_summary *s)
{
	const struct rc_counts *r = &a->run;
	const struct rc_hist *h = &a->run_hist;

	memset(s, 0, sizeof(*s));
	s->ok = true;
	s->direct_n = r->direct_n;
	s->direct_s = (double)r->direct_ns / 1e9;
	s->direct_p50_ms = ms_of(rc_hist_quantile(h, 0.50));
	s->direct_p99_ms = ms_of(rc_hist_quantile(h, 0.99));
	s->direct_max_ms = h->n ? ms_of(h->max_ns) : NAN;
	s->memcg_n = r->memcg_n;
	s->memcg_s = (double)r->memcg_ns / 1e9;
	s->compact_n = r->compact_n;
	s->compact_s = (double)r->compact_ns / 1e9;
	s->kswapd_wakes = r->kswapd_wakes;
	s->kswapd_awake_s = (double)r->kswapd_awake_ns / 1e9;
	s->throttled = r->throttled;
	s->oom = r->oom;
	s->lost = r->lost;
}

/* A latency as printed: 0.01 ms steps below 1 ms, 0.1 below 10, then 1. */
static void fmt_ms(char *b, size_t n, double ms)
{
	if (ms < 1)
		snprintf(b, n, "%.2fms", ms);
	else if (ms < 10)
		snprintf(b, n, "%.1fms", ms);
	else
		snprintf(b, n, "%.0fms", ms);
}

/* "N stall" or "N stalls" */
static const char *plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

size_t rc_line(char *buf, size_t len, const struct rc_summary *s)
{
	struct fmt_lines l = { { buf, len, 0 }, RC_LINE_WIDTH, 0 };
	char part[9][96], p50[16], p99[16], mx[16];

	if (!s->ok)
		return (size_t)snprintf(buf, len, "n/a reclaim");
	memset(part, 0, sizeof(part));
	snprintf(part[0], sizeof(part[0]), "reclaim: %lld direct stall%s %.1fs",
		 (long long)s->direct_n, plural(s->direct_n), s->direct_s);
	if (s->direct_n > 0) {
		fmt_ms(p50, sizeof(p50), s->direct_p50_ms);
		fmt_ms(p99, sizeof(p99), s->direct_p99_ms);
		fmt_ms(mx, sizeof(mx), s->direct_max_ms);
		snprintf(part[1], sizeof(part[1]), "(p50 %s p99 %s max %s)", p50, p99, mx);
	}
	snprintf(part[2], sizeof(part[2]), "%lld of them the workload's %.1fs",
		 (long long)s->workers_n, s->workers_s);
	snprintf(part[3], sizeof(part[3]), "kswapd awake %.1fs in %lld wake%s", s->kswapd_awake_s,
		 (long long)s->kswapd_wakes, plural(s->kswapd_wakes));
	snprintf(part[4], sizeof(part[4]), "%lld memcg stall%s %.1fs", (long long)s->memcg_n,
		 plural(s->memcg_n), s->memcg_s);
	snprintf(part[5], sizeof(part[5]), "%lld compaction stall%s %.1fs",
		 (long long)s->compact_n, plural(s->compact_n), s->compact_s);
	snprintf(part[6], sizeof(part[6]), "%lld throttled", (long long)s->throttled);
	snprintf(part[7], sizeof(part[7]), "%lld OOM", (long long)s->oom);
	snprintf(part[8], sizeof(part[8]), "%lld lost", (long long)s->lost);
	/* clauses whole, lines within RC_LINE_WIDTH: fit to paste into a mail;
	 * the latencies go with their stalls, after a blank, not a comma */
	for (int i = 0; i < 9; i++)
		if (part[i][0])
			fmt_lines_add(&l, i == 1 ? " " : ", ", part[i], strlen(part[i]), i < 8);
	return fmt_buf_done(&l.o);
}
