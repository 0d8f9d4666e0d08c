/* Reclaim events turned into figures: direct-reclaim stalls (paired
 * begin/end per thread, as bcc's drsnoop pairs them), memcg reclaim
 * stalls, compaction stalls, kswapd awake time and wakes, throttling and
 * OOM victims; and the run's reclaim line, formatted and parsed back.
 * Pure: the events come from tracer.c, or from a test. Times are
 * nanoseconds of one clock that orders events across CPUs. */
#ifndef THRASHTOP_RECLAIM_H
#define THRASHTOP_RECLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rc_kind {
	RC_DIRECT_BEGIN, RC_DIRECT_END,
	RC_MEMCG_BEGIN, RC_MEMCG_END,
	RC_COMPACT_BEGIN, RC_COMPACT_END,
	RC_KSWAPD_WAKE, RC_KSWAPD_SLEEP,
	RC_THROTTLED,
	RC_OOM_VICTIM,
};

struct rc_event {
	enum rc_kind kind;
	uint64_t ns;
	int pid;		/* the thread (common_pid); the victim for OOM */
	int nid;		/* kswapd's node */
	char comm[16];		/* OOM victim */
};

/* Running totals since the accumulator was made: what each sample keeps,
 * so that rates are differences of two samples. */
struct rc_counts {
	int64_t direct_n, direct_ns;	/* paired direct-reclaim stalls */
	int64_t memcg_n, memcg_ns;
	int64_t compact_n, compact_ns;
	int64_t kswapd_wakes, kswapd_awake_ns;	/* summed over nodes; awake
						   time runs up to now */
	int64_t throttled;
	int64_t oom;
	uint64_t oom_last_ns;		/* the newest OOM victim's time; 0: none */
	int64_t lost;			/* events the ring buffer dropped */
};

/* Latencies in log buckets: 64 to an octave, so a percentile is the upper
 * edge of its bucket, at most 1.6% above the true value (exact below 128 ns). */
#define RC_HIST_N (128 + 34 * 64)
struct rc_hist {
	uint32_t b[RC_HIST_N];
	int64_t n, max_ns;
};

/* A run's events, kept one by one: the first RC_EVENTS_MAX, and how many
 * came after; OOM kills past them too, up to RC_OOM_PAST_MAX more, since
 * the lane of a replay marks them from these. */
#define RC_EVENTS_MAX 4096
#define RC_OOM_PAST_MAX 256
enum rc_ev_kind { RE_DIRECT, RE_MEMCG, RE_COMPACT, RE_KSWAPD, RE_THROTTLED, RE_OOM };
struct rc_run_event {
	double t;		/* seconds from the run's start */
	double dur;		/* seconds: a stall, kswapd awake; 0 a mark */
	int pid;		/* the stalled thread, the victim, kswapd's node */
	uint8_t kind;		/* enum rc_ev_kind */
};

#define RC_VICTIMS_MAX 16
struct rc_victim {
	double t;		/* seconds from the run's start */
	int pid;
	char comm[16];
};

#define RC_PIDS_MAX 4096	/* threads with their own stall totals in a run */
#define RC_NODES_MAX 64

struct rc_slot { int pid; uint64_t v; };

struct rc_acc {
	struct rc_counts c;
	uint64_t awake_since[RC_NODES_MAX];	/* 0: asleep */
	bool node_seen[RC_NODES_MAX];		/* a wake or sleep of it fed */
	uint64_t t_open;			/* tracing began */
	uint64_t last_ns;			/* the newest event */
	struct rc_slot pend_direct[RC_PIDS_MAX], pend_memcg[RC_PIDS_MAX],
		pend_compact[RC_PIDS_MAX];
	/* the run: since rc_run_begin */
	uint64_t run_t0;
	struct rc_counts run;	/* what the run's events add up to (kswapd's
				   awake time within the run, its spans') */
	struct rc_hist run_hist, tick_hist;
	struct { int pid; int64_t n, ns; } per_pid[RC_PIDS_MAX];
	int64_t per_pid_other_n;	/* stalls of threads past RC_PIDS_MAX */
	struct rc_run_event ev[RC_EVENTS_MAX + RC_OOM_PAST_MAX];
	int nev;
	int64_t ev_past;		/* events after the first RC_EVENTS_MAX, not kept */
	struct rc_victim victims[RC_VICTIMS_MAX];
	int nvictims;
};

/* "direct", "memcg", "compact", "kswapd", "throttled", "oom"; NULL out of range. */
const char *rc_event_name(int kind);

/* t_open_ns: when tracing began. A kswapd whose first event is a sleep
 * was awake since then (woken before, by the session's set-up or anyone). */
void rc_init(struct rc_acc *a, uint64_t t_open_ns);

/* Feeds one event; events must come in time order. An end without its
 * begin (the begin before tracing started, or lost) is not counted. */
void rc_feed(struct rc_acc *a, const struct rc_event *e);

/* Puts v[0..at[nrun]) in time order, ties in run order: nrun runs, run
 * r from v[at[r]], each in time order as a CPU's buffer gives them (a run
 * that is not gets sorted). Merged pairwise through tmp, which has room
 * for as many; at[] is used up. Returns where the result is, v or tmp. */
struct rc_event *rc_order(struct rc_event *v, struct rc_event *tmp, size_t *at, int nrun);

/* Adds to the lost count. */
void rc_lost(struct rc_acc *a, int64_t n);

/* The totals with kswapd's awake time running up to now_ns. */
void rc_counts_at(const struct rc_acc *a, uint64_t now_ns, struct rc_counts *out);

/* Starts a run at t0_ns: its counts, histogram, threads, events and victims. */
void rc_run_begin(struct rc_acc *a, uint64_t t0_ns);

/* Ends a copy of the run at end_ns: each kswapd still awake is kept as a
 * span up to then, in the run's awake time. */
void rc_run_end(struct rc_acc *a, uint64_t end_ns);

/* The p-quantile (0 < p <= 1) of h in ns, nearest rank; -1 when empty. */
int64_t rc_hist_quantile(const struct rc_hist *h, double p);
void rc_hist_add(struct rc_hist *h, int64_t ns);

/* A thread's direct-reclaim stalls in the run: 0, or -1 when not seen. */
int rc_pid_stalls(const struct rc_acc *a, int pid, int64_t *n, int64_t *ns);

/* A run's summary: what the reclaim line and the history keep. */
struct rc_summary {
	bool ok;			/* false: n/a, why says why */
	int64_t direct_n;
	double direct_s, direct_p50_ms, direct_p99_ms, direct_max_ms;	/* NAN: none */
	int64_t workers_n;		/* of them, the run's own processes' */
	double workers_s;
	int64_t memcg_n;
	double memcg_s;
	int64_t compact_n;
	double compact_s;
	int64_t kswapd_wakes;
	double kswapd_awake_s;
	int64_t throttled, oom, lost;
};

/* The run's summary: its own counts, fed between rc_run_begin and the
 * copy rc_run_end closed, so that it is what the run's events add up to
 * (and not the difference of two samples' totals, each read at another
 * moment than the run's list was started and copied). */
void rc_run_summary(const struct rc_acc *a, struct rc_summary *out);

/* The reclaim line, in lines of at most RC_LINE_WIDTH columns, each after
 * the first indented two: "reclaim: 1234 direct stalls 4.1s (p50 0.80ms
 * p99 12ms max 40ms), 1000 of them the workload's 3.2s, kswapd awake 12.3s
 * in 45 wakes, 0 memcg stalls 0.0s, 0 compaction stalls 0.0s, 0 throttled,
 * 0 OOM, 0 lost", cut between clauses; "n/a reclaim" when !ok. Times to
 * 0.1 s, latencies to two significant digits (0.01 ms below 1 ms). Returns
 * the length, as snprintf. */
#define RC_LINE_WIDTH 76
size_t rc_line(char *buf, size_t len, const struct rc_summary *s);

#endif
