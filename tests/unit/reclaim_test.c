#include <stdlib.h>

#include "check.h"
#include "reclaim.h"

static struct rc_acc *acc(void)
{
	struct rc_acc *a = malloc(sizeof(*a));

	rc_init(a, 0);
	return a;
}

static void ev(struct rc_acc *a, enum rc_kind k, uint64_t ns, int pid)
{
	struct rc_event e = { .kind = k, .ns = ns, .pid = pid };

	rc_feed(a, &e);
}

/* Two threads stall at once, their begins and ends interleaved (as they
 * come from two CPUs merged by time): each is paired with its own begin. */
TEST(reclaim_pairs_per_thread)
{
	struct rc_acc *a = acc();
	int64_t n, ns;

	rc_run_begin(a, 1000);
	ev(a, RC_DIRECT_BEGIN, 1000, 10);
	ev(a, RC_DIRECT_BEGIN, 1500, 11);
	ev(a, RC_DIRECT_END, 3000, 11);		/* 1.5 us */
	ev(a, RC_DIRECT_END, 5000, 10);		/* 4 us */
	ev(a, RC_DIRECT_END, 6000, 12);		/* begin never seen: not counted */
	CHECK_INT(a->c.direct_n, 2);
	CHECK_INT(a->c.direct_ns, 5500);
	CHECK_INT(rc_pid_stalls(a, 10, &n, &ns), 0);
	CHECK_INT(n, 1);
	CHECK_INT(ns, 4000);
	CHECK_INT(rc_pid_stalls(a, 11, &n, &ns), 0);
	CHECK_INT(ns, 1500);
	CHECK_INT(rc_pid_stalls(a, 12, &n, &ns), -1);
	CHECK_INT(a->nev, 2);
	CHECK_NEAR(a->ev[0].t, 500e-9, 1e-12);	/* 11's, which ended first */
	CHECK_NEAR(a->ev[0].dur, 1500e-9, 1e-12);
	CHECK_INT(a->ev[0].pid, 11);
	CHECK_INT(a->ev[0].kind, RE_DIRECT);
	free(a);
}

/* Many threads hashing to neighbouring slots, ended in another order:
 * deletion keeps every later begin findable. */
TEST(reclaim_pending_table_survives_deletes)
{
	struct rc_acc *a = acc();

	for (int p = 1; p <= 3000; p++)
		ev(a, RC_DIRECT_BEGIN, (uint64_t)p, p);
	for (int p = 3000; p >= 1; p -= 2)
		ev(a, RC_DIRECT_END, 10000, p);
	for (int p = 1; p <= 3000; p += 2)
		ev(a, RC_DIRECT_END, 10000, p);
	CHECK_INT(a->c.direct_n, 3000);
	free(a);
}

TEST(reclaim_kswapd_awake_time)
{
	struct rc_acc *a = acc();
	struct rc_event w = { .kind = RC_KSWAPD_WAKE, .nid = 0 }, s = { .kind = RC_KSWAPD_SLEEP };
	struct rc_counts c;

	w.ns = 1000000000;
	rc_feed(a, &w);
	w.ns = 1200000000;		/* a second pass while awake: one span */
	rc_feed(a, &w);
	s.ns = 1500000000;
	rc_feed(a, &s);
	s.ns = 1600000000;		/* asleep already: nothing */
	rc_feed(a, &s);
	w.ns = 2000000000;
	rc_feed(a, &w);
	rc_counts_at(a, 2250000000u, &c);	/* awake up to now */
	CHECK_INT(c.kswapd_wakes, 3);
	CHECK_INT(c.kswapd_awake_ns, 750000000);
	CHECK_INT(a->c.kswapd_awake_ns, 500000000);
	free(a);
}

/* The run's kswapd spans add up to what the summary says: one awake
 * across its start is cut at the start, one awake at its end is closed
 * there, and every pass of kswapd counts as a wake. */
TEST(reclaim_kswapd_spans_are_the_summary)
{
	struct rc_acc *a = acc();
	struct rc_event w = { .kind = RC_KSWAPD_WAKE, .nid = 0 }, s = { .kind = RC_KSWAPD_SLEEP };
	struct rc_summary sum;
	double spans = 0;

	w.ns = 1000000000;
	rc_feed(a, &w);
	rc_run_begin(a, 1500000000u);
	for (uint64_t t = 1600000000u; t < 2000000000u; t += 100000000u) {
		w.ns = t;		/* four more passes of one span */
		rc_feed(a, &w);
	}
	s.ns = 2000000000u;
	rc_feed(a, &s);
	w.ns = 3000000000u;
	w.nid = 1;
	rc_feed(a, &w);
	rc_run_end(a, 3250000000u);
	rc_run_summary(a, &sum);
	CHECK_INT(sum.kswapd_wakes, 5);
	CHECK_NEAR(sum.kswapd_awake_s, 0.75, 1e-9);
	CHECK_INT(a->nev, 2);
	for (int i = 0; i < a->nev; i++)
		spans += a->ev[i].dur;
	CHECK_NEAR(spans, sum.kswapd_awake_s, 1e-9);
	CHECK_NEAR(a->ev[0].t, 0, 1e-9);
	CHECK_NEAR(a->ev[0].dur, 0.5, 1e-9);
	CHECK_NEAR(a->ev[1].t, 1.5, 1e-9);
	free(a);
}

/* The buffers are read before a sample's time is taken, and the tracing
 * thread reads them between a sample and the run's copy: a kswapd sleep
 * stamped before the start sample but fed after it, or one fed after the
 * end sample but before the copy, counts in the run as in its spans (the
 * summary was the difference of the samples' totals: 2.9 s against 3
 * spans of 3.5 s, one of them over before the run). */
TEST(reclaim_summary_is_the_spans_fed_between_samples)
{
	struct rc_acc *a = acc();
	struct rc_event w = { .kind = RC_KSWAPD_WAKE, .nid = 0 }, s = { .kind = RC_KSWAPD_SLEEP };
	struct rc_summary sum;
	double spans = 0;

	w.ns = 1000000000u;
	rc_feed(a, &w);
	rc_run_begin(a, 2000000000u);
	s.ns = 1900000000u;		/* fed late: over before the run, not kept */
	rc_feed(a, &s);
	w.ns = 3000000000u;
	rc_feed(a, &w);
	s.ns = 4000000000u;
	rc_feed(a, &s);
	w.ns = 5000000000u;
	rc_feed(a, &w);
	s.ns = 7500000000u;		/* after the end sample, before the copy */
	rc_feed(a, &s);
	rc_run_end(a, 7000000000u);
	rc_run_summary(a, &sum);
	for (int i = 0; i < a->nev; i++)
		spans += a->ev[i].dur;
	CHECK_INT(a->nev, 2);
	CHECK_NEAR(a->ev[0].t, 1, 1e-9);
	CHECK_NEAR(spans, 3.5, 1e-9);
	CHECK_NEAR(sum.kswapd_awake_s, spans, 1e-9);
	CHECK_INT(sum.kswapd_wakes, 2);
	free(a);
}

/* A kswapd awake when tracing began (woken by the session's set-up, its
 * wake not traced) is seen first going to sleep: it was awake since the
 * tracing began, and the run keeps its span from its start (it was
 * dropped: perf saw 4 spans, 18.902 s, the run 3, 18.883 s). A sleep
 * after a sleep is still nothing. */
TEST(reclaim_kswapd_awake_before_tracing)
{
	struct rc_acc *a = malloc(sizeof(*a));
	struct rc_event s = { .kind = RC_KSWAPD_SLEEP, .nid = 1 };
	struct rc_summary sum;

	rc_init(a, 500000000u);
	rc_run_begin(a, 1000000000u);
	s.ns = 1018000000u;
	rc_feed(a, &s);
	s.ns = 1500000000u;
	rc_feed(a, &s);
	rc_run_end(a, 2000000000u);
	rc_run_summary(a, &sum);
	CHECK_INT(a->nev, 1);
	CHECK_NEAR(a->ev[0].t, 0, 1e-9);
	CHECK_NEAR(a->ev[0].dur, 0.018, 1e-9);
	CHECK_INT(a->ev[0].pid, 1);
	CHECK_NEAR(sum.kswapd_awake_s, 0.018, 1e-9);
	CHECK_INT(sum.kswapd_wakes, 0);
	free(a);
}

TEST(reclaim_marks_victims_and_memcg)
{
	struct rc_acc *a = acc();
	struct rc_event o = { .kind = RC_OOM_VICTIM, .ns = 3000000000u, .pid = 77, .comm = "thrashtop" };

	rc_run_begin(a, 1000000000);
	ev(a, RC_MEMCG_BEGIN, 1000000000, 5);
	ev(a, RC_MEMCG_END, 1002000000, 5);
	ev(a, RC_COMPACT_BEGIN, 1000000000, 6);
	ev(a, RC_COMPACT_END, 1000500000, 6);
	ev(a, RC_THROTTLED, 1100000000, 5);
	rc_feed(a, &o);
	CHECK_INT(a->c.memcg_n, 1);
	CHECK_INT(a->c.memcg_ns, 2000000);
	CHECK_INT(a->c.compact_n, 1);
	CHECK_INT(a->c.direct_n, 0);
	CHECK_INT(a->c.throttled, 1);
	CHECK_INT(a->nvictims, 1);
	CHECK_NEAR(a->victims[0].t, 2.0, 1e-9);
	CHECK_STR(a->victims[0].comm, "thrashtop");
	CHECK_INT(a->nev, 4);
	free(a);
}

/* Past RC_EVENTS_MAX the events are counted, not kept; a new run starts
 * its list, histogram and threads again but keeps the running totals. */
TEST(reclaim_run_events_bounded)
{
	struct rc_acc *a = acc();

	rc_run_begin(a, 0);
	for (int i = 0; i < RC_EVENTS_MAX + 10; i++) {
		ev(a, RC_DIRECT_BEGIN, (uint64_t)i * 10, 3);
		ev(a, RC_DIRECT_END, (uint64_t)i * 10 + 5, 3);
	}
	CHECK_INT(a->nev, RC_EVENTS_MAX);
	CHECK_INT(a->ev_past, 10);
	/* an OOM kill past them is still kept: a replay's lane marks it */
	ev(a, RC_OOM_VICTIM, (uint64_t)RC_EVENTS_MAX * 10 + 100, 77);
	CHECK_INT(a->nev, RC_EVENTS_MAX + 1);
	CHECK_INT(a->ev[RC_EVENTS_MAX].kind, RE_OOM);
	CHECK_INT(a->ev[RC_EVENTS_MAX].pid, 77);
	CHECK_INT(a->ev_past, 10);
	for (int i = 0; i < RC_OOM_PAST_MAX; i++)
		ev(a, RC_OOM_VICTIM, (uint64_t)RC_EVENTS_MAX * 10 + 200 + (uint64_t)i, 78);
	CHECK_INT(a->nev, RC_EVENTS_MAX + RC_OOM_PAST_MAX);
	CHECK_INT(a->ev_past, 11);
	rc_run_begin(a, 1000000);
	CHECK_INT(a->nev, 0);
	CHECK_INT(a->ev_past, 0);
	CHECK_INT(a->run_hist.n, 0);
	CHECK_INT(a->c.direct_n, RC_EVENTS_MAX + 10);
	free(a);
}

TEST(reclaim_quantiles_within_a_bucket)
{
	struct rc_hist h = { 0 };

	CHECK_INT(rc_hist_quantile(&h, 0.5), -1);
	for (int64_t i = 1; i <= 1000; i++)
		rc_hist_add(&h, i * 1000000);	/* 1..1000 ms */
	/* nearest rank: 500 ms and 990 ms, reported at most 1/64 above */
	CHECK(rc_hist_quantile(&h, 0.5) >= 500000000);
	CHECK(rc_hist_quantile(&h, 0.5) <= 500000000 + 500000000 / 64);
	CHECK(rc_hist_quantile(&h, 0.99) >= 990000000);
	CHECK(rc_hist_quantile(&h, 0.99) <= 990000000 + 990000000 / 64);
	CHECK_INT(rc_hist_quantile(&h, 1.0), 1000000000);
	CHECK_INT(h.max_ns, 1000000000);

	struct rc_hist small = { 0 };
	rc_hist_add(&small, 100);
	rc_hist_add(&small, 7);
	CHECK_INT(rc_hist_quantile(&small, 0.5), 7);	/* exact below 128 ns */
}

/* The reclaim line: clauses whole, lines of at most 76 columns for a mail,
 * counts of one in the singular. */
TEST(reclaim_line_formats_in_lines_for_a_mail)
{
	struct rc_summary s = {
		.ok = true, .direct_n = 1234, .direct_s = 4.12, .direct_p50_ms = 0.8,
		.direct_p99_ms = 12.3, .direct_max_ms = 40.4, .workers_n = 1000, .workers_s = 3.24,
		.kswapd_wakes = 45,
		.kswapd_awake_s = 12.34, .throttled = 2, .lost = 0,
	};
	char buf[512], *line;

	CHECK_INT(rc_line(buf, sizeof(buf), &s), strlen(buf));
	CHECK_STR(buf, "reclaim: 1234 direct stalls 4.1s (p50 0.80ms p99 12ms max 40ms),\n"
		  "  1000 of them the workload's 3.2s, kswapd awake 12.3s in 45 wakes,\n"
		  "  0 memcg stalls 0.0s, 0 compaction stalls 0.0s, 2 throttled, 0 OOM, 0 lost");
	s = (struct rc_summary){ .ok = true, .direct_n = 1, .workers_n = 1, .kswapd_wakes = 1,
				 .memcg_n = 1, .compact_n = 1, .direct_p50_ms = 0.5,
				 .direct_p99_ms = 0.5, .direct_max_ms = 0.5 };
	rc_line(buf, sizeof(buf), &s);
	CHECK_STR(buf, "reclaim: 1 direct stall 0.0s (p50 0.50ms p99 0.50ms max 0.50ms),\n"
		  "  1 of them the workload's 0.0s, kswapd awake 0.0s in 1 wake,\n"
		  "  1 memcg stall 0.0s, 1 compaction stall 0.0s, 0 throttled, 0 OOM, 0 lost");
	/* the widest figures still cut between clauses within the width */
	s = (struct rc_summary){ .ok = true, .direct_n = 123456789, .direct_s = 123456.7,
				 .direct_p50_ms = 1234, .direct_p99_ms = 123456,
				 .direct_max_ms = 1234567, .workers_n = 123456789,
				 .workers_s = 123456.7, .kswapd_wakes = 1234567,
				 .kswapd_awake_s = 123456.7, .memcg_n = 123456789,
				 .memcg_s = 123456.7, .compact_n = 123456, .compact_s = 12345.6,
				 .throttled = 1234567, .oom = 12, .lost = 123456 };
	rc_line(buf, sizeof(buf), &s);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		CHECK(strlen(line) <= RC_LINE_WIDTH);
	/* a line that would end at column 77 with its comma is cut before */
	s = (struct rc_summary){ .ok = true, .direct_n = 95716, .workers_n = 95716,
				 .direct_p50_ms = 1.5, .direct_p99_ms = 150, .direct_max_ms = 4000,
				 .memcg_n = 298929, .memcg_s = 72.8, .compact_n = 29670,
				 .compact_s = 30.1, .throttled = 101854, .kswapd_wakes = 6365,
				 .oom = 91, .lost = 397 };
	rc_line(buf, sizeof(buf), &s);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		CHECK(strlen(line) <= RC_LINE_WIDTH);
	s.ok = false;
	rc_line(buf, sizeof(buf), &s);
	CHECK_STR(buf, "n/a reclaim");
}

/* The tracer's rounds: what was held back, then each CPU's buffer, each
 * in time order but for a rare one; merged into one order, a tie kept in
 * the order of the runs. */
TEST(rc_order_merges_runs)
{
	static const uint64_t ns[] = { 1, 5, 9,  2, 5, 10,  /* no events */  8, 3, 4,  0,  7 };
	size_t at[] = { 0, 3, 6, 6, 9, 10, 11 };
	struct rc_event v[11], tmp[11], *out;
	static const uint64_t want_ns[] = { 0, 1, 2, 3, 4, 5, 5, 7, 8, 9, 10 };

	for (int i = 0; i < 11; i++)
		v[i] = (struct rc_event){ .kind = RC_THROTTLED, .ns = ns[i], .pid = i };
	out = rc_order(v, tmp, at, 6);
	CHECK(out == v || out == tmp);
	for (int i = 0; i < 11; i++)
		CHECK_INT(out[i].ns, want_ns[i]);
	CHECK_INT(out[5].pid, 1);	/* the held 5 before CPU 0's */
	CHECK_INT(out[6].pid, 4);

	/* one run: nothing to merge, in place */
	at[0] = 0;
	at[1] = 3;
	CHECK(rc_order(v, tmp, at, 1) == v);
	for (int i = 0; i < 11; i++)
		v[i].ns = 11 - (uint64_t)i;
	at[0] = 0;
	at[1] = 0;
	at[2] = 11;
	out = rc_order(v, tmp, at, 2);
	for (int i = 1; i < 11; i++)
		CHECK(out[i - 1].ns <= out[i].ns);
}
