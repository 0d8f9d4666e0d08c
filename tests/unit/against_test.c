#include <math.h>

#include "against.h"
#include "check.h"

/* A stored run sampled at 0.5 s: the value at a live time is the last
 * sample taken at or before it, and nothing before the first sample,
 * after the run's end, or for a series that was not kept. */
TEST(against_value_aligns_on_the_start)
{
	struct run_record r;
	double *v;

	run_record_init(&r);
	CHECK_INT(run_record_alloc_series(&r, 4), 0);
	v = run_record_add_series(&r, M_MAJFLT);
	for (int i = 0; i < 4; i++) {
		r.t[i] = 0.5 * (i + 1);
		v[i] = 100 * (i + 1);
	}
	CHECK(isnan(against_value(&r, M_MAJFLT, 0.2)));
	CHECK_NEAR(against_value(&r, M_MAJFLT, 0.5), 100, 0);
	CHECK_NEAR(against_value(&r, M_MAJFLT, 0.99), 100, 0);
	CHECK_NEAR(against_value(&r, M_MAJFLT, 1.0), 200, 0);
	CHECK_NEAR(against_value(&r, M_MAJFLT, 2.0), 400, 0);
	CHECK_NEAR(against_value(&r, M_MAJFLT, 2.4), 400, 0);	/* its last interval */
	CHECK(isnan(against_value(&r, M_MAJFLT, 2.6)));		/* over */
	CHECK(isnan(against_value(&r, M_FREE, 1.0)));		/* not kept */
	CHECK(isnan(against_value(&r, -1, 1.0)));
	CHECK(isnan(against_value(&r, M_MAJFLT, NAN)));
	run_record_clear(&r);
}

/* Pushed at each live sample: gaps while no run goes, the stored run's
 * values from each run's start. */
TEST(against_push_follows_each_run)
{
	struct against a = { 0 };
	double *v, x;

	run_record_init(&a.run);
	CHECK_INT(run_record_alloc_series(&a.run, 2), 0);
	v = run_record_add_series(&a.run, M_MAJFLT);
	a.run.t[0] = 1;
	a.run.t[1] = 2;
	v[0] = 10;
	v[1] = 20;
	for (int i = 0; i < M_N; i++)
		CHECK_INT(series_init(&a.view[i], 8), 0);
	a.have = true;
	against_push(&a, 100, NAN);
	against_push(&a, 101.5, 100);
	against_push(&a, 102, 100);
	against_push(&a, 103.2, 103);	/* a new run: aligned again */
	CHECK_INT(series_len(&a.view[M_MAJFLT]), 4);
	series_get(&a.view[M_MAJFLT], 0, NULL, &x);
	CHECK(isnan(x));
	series_get(&a.view[M_MAJFLT], 1, NULL, &x);
	CHECK_NEAR(x, 10, 0);
	series_get(&a.view[M_MAJFLT], 2, NULL, &x);
	CHECK_NEAR(x, 20, 0);
	series_get(&a.view[M_MAJFLT], 3, NULL, &x);
	CHECK(isnan(x));	/* 0.2 s in: before its first sample */
	against_free(&a);
}
