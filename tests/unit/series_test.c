#include <errno.h>
#include <math.h>

#include "check.h"
#include "series.h"

TEST(series_push_wraps_and_keeps_order)
{
	struct series s;
	double t, v;

	CHECK_INT(series_init(&s, 3), 0);
	CHECK_INT(series_len(&s), 0);
	CHECK(isnan(series_last(&s)));
	for (int i = 1; i <= 5; i++)
		series_push(&s, i, 10 * i);
	CHECK_INT(series_len(&s), 3);
	CHECK_INT(series_get(&s, 0, &t, &v), 0);
	CHECK_NEAR(t, 3, 0);
	CHECK_NEAR(v, 30, 0);
	CHECK_INT(series_get(&s, 2, &t, &v), 0);
	CHECK_NEAR(t, 5, 0);
	CHECK_NEAR(series_last(&s), 50, 0);
	t = -1;
	CHECK_INT(series_get(&s, 3, &t, NULL), -1);
	CHECK_INT(series_get(&s, -1, &t, NULL), -1);
	CHECK_NEAR(t, -1, 0);
	series_clear(&s);
	CHECK_INT(series_len(&s), 0);
	series_free(&s);
}

TEST(series_init_rejects_zero_capacity)
{
	struct series s;

	errno = 0;
	CHECK_INT(series_init(&s, 0), -1);
	CHECK_INT(errno, EINVAL);
	series_free(&s);
}

TEST(series_minmax_ignores_gaps_and_window)
{
	struct series s;
	double lo, hi;
	const double v[] = { 100, 7, NAN, 3, NAN, 9 };

	series_init(&s, 8);
	for (int i = 0; i < 6; i++)
		series_push(&s, i, v[i]);
	CHECK_INT(series_minmax(&s, 4, &lo, &hi), 2);
	CHECK_NEAR(lo, 3, 0);
	CHECK_NEAR(hi, 9, 0);
	CHECK_INT(series_minmax(&s, 100, &lo, &hi), 4);
	CHECK_NEAR(lo, 3, 0);
	CHECK_NEAR(hi, 100, 0);
	CHECK_INT(series_minmax(&s, 1, &lo, &hi), 1);
	CHECK_NEAR(lo, 9, 0);
	series_push(&s, 6, NAN);
	CHECK(isnan(series_last(&s)));
	CHECK_INT(series_minmax(&s, 1, &lo, &hi), 0);
	CHECK(isnan(lo) && isnan(hi));
	series_free(&s);
}

/* Once the ring has wrapped, the window is still the newest samples. */
TEST(series_minmax_across_the_wrap)
{
	struct series s;
	double lo, hi;

	series_init(&s, 5);
	for (int i = 0; i < 13; i++)	/* keeps 8..12: 8 NAN 10 11 NAN */
		series_push(&s, i, i % 3 == 0 ? NAN : i);
	CHECK_INT(series_minmax(&s, 5, &lo, &hi), 3);
	CHECK_NEAR(lo, 8, 0);
	CHECK_NEAR(hi, 11, 0);
	CHECK_INT(series_minmax(&s, 3, &lo, &hi), 2);
	CHECK_NEAR(lo, 10, 0);
	CHECK_NEAR(hi, 11, 0);
	CHECK_INT(series_minmax(&s, 0, &lo, &hi), 0);
	CHECK(isnan(lo) && isnan(hi));
	series_free(&s);
}

/* Reference values computed by hand: 10 samples into 4 buckets of sizes
 * 2,3,2,3 (floor(b*10/4) boundaries 0,2,5,7,10). */
TEST(series_downsample_bucket_means)
{
	struct series s;
	double ot[4], ov[4];

	series_init(&s, 16);
	for (int i = 0; i < 10; i++)
		series_push(&s, i, i == 5 || i == 6 ? NAN : i * 2.0);
	CHECK_INT(series_downsample(&s, 4, ot, ov), 4);
	CHECK_NEAR(ot[0], 0.5, 1e-12);
	CHECK_NEAR(ov[0], 1.0, 1e-12);
	CHECK_NEAR(ot[1], 3.0, 1e-12);
	CHECK_NEAR(ov[1], 6.0, 1e-12);	/* 4, 6, 8 */
	CHECK_NEAR(ot[2], 5.5, 1e-12);
	CHECK(isnan(ov[2]));		/* both gaps */
	CHECK_NEAR(ot[3], 8.0, 1e-12);
	CHECK_NEAR(ov[3], 16.0, 1e-12);	/* 14, 16, 18 */
	series_free(&s);
}

TEST(series_downsample_short_copies_and_wrapped)
{
	struct series s;
	double ot[8], ov[8];

	series_init(&s, 4);
	for (int i = 0; i < 6; i++)	/* keeps 2..5 */
		series_push(&s, i, i);
	CHECK_INT(series_downsample(&s, 8, ot, ov), 4);
	CHECK_NEAR(ot[0], 2, 0);
	CHECK_NEAR(ov[3], 5, 0);
	CHECK_INT(series_downsample(&s, 2, ot, ov), 2);
	CHECK_NEAR(ov[0], 2.5, 1e-12);
	CHECK_NEAR(ov[1], 4.5, 1e-12);
	errno = 0;
	CHECK_INT(series_downsample(&s, 0, ot, ov), -1);
	CHECK_INT(errno, EINVAL);
	series_free(&s);
}

TEST(series_find_first_at_or_after)
{
	struct series s;

	CHECK_INT(series_init(&s, 4), 0);
	CHECK_INT(series_find(&s, 1), 0);
	for (int i = 1; i <= 6; i++)	/* kept: 3 4 5 6, wrapped */
		series_push(&s, i, 0);
	CHECK_INT(series_find(&s, 0), 0);
	CHECK_INT(series_find(&s, 3), 0);
	CHECK_INT(series_find(&s, 4.5), 2);
	CHECK_INT(series_find(&s, 6), 3);
	CHECK_INT(series_find(&s, 6.1), 4);
	series_free(&s);
}
