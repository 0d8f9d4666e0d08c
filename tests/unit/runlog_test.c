#include <math.h>
#include <string.h>

#include "check.h"
#include "runlog.h"

static void all_on(bool on[M_N])
{
	for (int i = 0; i < M_N; i++)
		on[i] = i != M_PSI_FULL;
}

/* 600 samples (60 s at -d 0.1) are kept one for one. */
TEST(runlog_keeps_every_sample)
{
	struct runlog l = { 0 };
	struct run_record r;
	bool on[M_N];
	double v[M_N];

	all_on(on);
	runlog_begin(&l, on, RUN_SAMPLES_MAX);
	for (int k = 0; k < 600; k++) {
		for (int i = 0; i < M_N; i++)
			v[i] = k % 10 == 3 ? NAN : 1000.0 * i + k;
		CHECK_INT(runlog_push(&l, 100 + k * 0.1, v), 0);
	}
	run_record_init(&r);
	CHECK_INT(runlog_record(&l, 100, &r), 0);
	CHECK_INT(r.nsamples, 600);
	CHECK(r.series[M_PSI_FULL] == NULL);
	for (int k = 0; k < 600 && r.nsamples == 600; k++) {
		CHECK_NEAR(r.t[k], k * 0.1, 0.0006);
		if (k % 10 == 3)
			CHECK(isnan(r.series[M_FREE][k]));
		else
			CHECK_NEAR(r.series[M_SCAN_DIRECT][k], 1000.0 * M_SCAN_DIRECT + k, 0.0006);
	}
	run_record_clear(&r);
	runlog_free(&l);
}

/* Past the cap the run is kept whole, as means of equal stretches. */
TEST(runlog_halves_at_cap)
{
	struct runlog l = { 0 };
	struct run_record r;
	bool on[M_N];
	double v[M_N];

	all_on(on);
	runlog_begin(&l, on, 8);
	for (int k = 0; k < 20; k++) {
		for (int i = 0; i < M_N; i++)
			v[i] = k;
		runlog_push(&l, k, v);
	}
	/* 8 kept -> 4 pairs, step 2; 12 more make 6: 10 -> 5 of 4 each... */
	CHECK(l.n < 8);
	CHECK(l.step >= 2);
	run_record_init(&r);
	CHECK_INT(runlog_record(&l, 0, &r), 0);
	/* the whole run is there: from the first samples to the last */
	CHECK(r.nsamples >= 3);
	CHECK(r.t[0] < 2);
	CHECK(r.t[r.nsamples - 1] > 15);
	for (int k = 0; k < r.nsamples; k++)
		CHECK_NEAR(r.series[M_FREE][k], r.t[k], 0.6);	/* a mean of v = t */
	run_record_clear(&r);
	runlog_free(&l);
}
