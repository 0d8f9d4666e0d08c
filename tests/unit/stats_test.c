#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Reference values: python3's statistics module for means, medians and
 * standard deviations; Student t quantiles from printed tables; t CDF and
 * Welch p-values from Simpson integration of the t density in python3
 * (200000 intervals), the C/D p-value also matching ClickHouse's
 * welchTTest test (0.021378001462867). */

/* Wall seconds from seed 000: 2.4.14-pre8 with 200M swap, then 400M. */
static const double pre8[] = { 153.29, 152.29, 149.29 };
static const double pre8_swap2[] = { 144.39, 176.97, 170.26 };
/* Rosetta Code's Welch's t-test sample pair. */
static const double wc[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
static const double wd[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };

TEST(stats_t_quantile_table)
{
	CHECK_NEAR(stats_t_quantile(0.975, 2), 4.302653, 1e-6);
	CHECK_NEAR(stats_t_quantile(0.975, 10), 2.228139, 1e-6);
	CHECK_NEAR(stats_t_quantile(0.975, 1), 12.706205, 1e-6);
	CHECK_NEAR(stats_t_quantile(0.975, 30), 2.042272, 1e-6);
	CHECK_NEAR(stats_t_quantile(0.995, 5), 4.032143, 1e-6);
	CHECK_NEAR(stats_t_quantile(0.05, 10), -1.812461, 1e-6);
	CHECK_NEAR(stats_t_quantile(0.5, 3), 0.0, 0);
	CHECK(isnan(stats_t_quantile(1.0, 3)));
	CHECK(isnan(stats_t_quantile(0.5, 0)));
	/* inverse of the CDF at a real df */
	CHECK_NEAR(stats_t_cdf(stats_t_quantile(0.9, 4.7), 4.7), 0.9, 1e-12);
}

TEST(stats_t_cdf_values)
{
	CHECK_NEAR(stats_t_cdf(1.5, 3), 0.884708067378, 1e-9);
	CHECK_NEAR(stats_t_cdf(-2, 7.3), 0.041970519667, 1e-9);
	/* df 1 is Cauchy: 1/2 + atan(t)/pi */
	CHECK_NEAR(stats_t_cdf(0.3, 1), 0.5 + atan(0.3) / M_PI, 1e-12);
	CHECK_NEAR(stats_t_cdf(0, 9), 0.5, 1e-15);
	CHECK_NEAR(stats_t_cdf(INFINITY, 9), 1.0, 0);
	CHECK(isnan(stats_t_cdf(NAN, 9)));
}

TEST(stats_betai_identities)
{
	CHECK_NEAR(stats_betai(3.7, 3.7, 0.5), 0.5, 1e-13);
	CHECK_NEAR(stats_betai(1, 1, 0.3), 0.3, 1e-13);
	CHECK_NEAR(stats_betai(2.5, 1, 0.6), pow(0.6, 2.5), 1e-13);
	CHECK_NEAR(stats_betai(1, 4, 0.2), 1 - pow(0.8, 4), 1e-13);
	CHECK_NEAR(stats_betai(2, 3, 0), 0, 0);
	CHECK_NEAR(stats_betai(2, 3, 1), 1, 0);
	CHECK(isnan(stats_betai(0, 3, 0.5)));
	CHECK(isnan(stats_betai(2, 3, 1.5)));
}

TEST(stats_summary_seed)
{
	struct stats_summary s;

	CHECK_INT(stats_summarize(pre8, N(pre8), &s), 0);
	CHECK_INT(s.n, 3);
	CHECK_NEAR(s.min, 149.29, 0);
	CHECK_NEAR(s.max, 153.29, 0);
	CHECK_NEAR(s.median, 152.29, 0);
	CHECK_NEAR(s.mean, 151.62333333333333, 1e-12);
	CHECK_NEAR(s.sd, 2.0816659994661326, 1e-12);
	CHECK_NEAR(s.cv_pct, 1.3729192952708242, 1e-12);
	CHECK_NEAR(s.mad, 1.0, 1e-12);
	/* mean -/+ 4.302653 * sd / sqrt(3) */
	CHECK_NEAR(s.ci95_lo, 146.45218832063333, 1e-8);
	CHECK_NEAR(s.ci95_hi, 156.79447834603334, 1e-8);

	CHECK_INT(stats_summarize(pre8_swap2, N(pre8_swap2), &s), 0);
	CHECK_NEAR(s.median, 170.26, 0);
	CHECK_NEAR(s.sd, 17.203378544150375, 1e-11);
	CHECK_NEAR(s.cv_pct, 10.497973156594753, 1e-11);
}

TEST(stats_summary_edges)
{
	const double one[] = { 7.5 }, two[] = { 1, 3 }, flat[] = { 5, 5, 5 };
	const double bad[] = { 1, NAN, 3 }, inf[] = { 1, INFINITY };
	struct stats_summary s;

	CHECK_INT(stats_summarize(NULL, 0, &s), 0);
	CHECK_INT(s.n, 0);
	CHECK(isnan(s.mean) && isnan(s.median) && isnan(s.min) && isnan(s.sd));

	CHECK_INT(stats_summarize(one, 1, &s), 0);
	CHECK_NEAR(s.mean, 7.5, 0);
	CHECK_NEAR(s.median, 7.5, 0);
	CHECK_NEAR(s.mad, 0, 0);
	CHECK(isnan(s.sd) && isnan(s.cv_pct) && isnan(s.ci95_lo));

	CHECK_INT(stats_summarize(two, 2, &s), 0);
	CHECK_NEAR(s.median, 2, 0);
	CHECK_NEAR(s.sd, sqrt(2), 1e-15);
	CHECK_NEAR(s.ci95_lo, 2 - 12.706205, 1e-6);
	CHECK_NEAR(s.ci95_hi, 2 + 12.706205, 1e-6);

	CHECK_INT(stats_summarize(flat, 3, &s), 0);
	CHECK_NEAR(s.sd, 0, 0);
	CHECK_NEAR(s.cv_pct, 0, 0);
	CHECK_NEAR(s.ci95_lo, 5, 0);
	CHECK_NEAR(s.ci95_hi, 5, 0);

	errno = 0;
	CHECK_INT(stats_summarize(bad, 3, &s), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(stats_summarize(inf, 2, &s), -1);
	CHECK(isnan(stats_median(bad, 3)));
	CHECK_NEAR(stats_median(two, 2), 2, 0);
}

TEST(stats_modified_z_scores)
{
	const double x[] = { 1, 2, 4, 7, 100 }, flat[] = { 3, 3, 3, 4 };
	double z[5];

	/* median 4, MAD 3 */
	CHECK_INT(stats_modified_z(x, 5, 0, z), 0);
	CHECK_NEAR(z[0], -0.6745, 1e-12);
	CHECK_NEAR(z[1], -0.44966666666666666, 1e-12);
	CHECK_NEAR(z[2], 0, 0);
	CHECK_NEAR(z[3], 0.6745, 1e-12);
	CHECK_NEAR(z[4], 21.584, 1e-12);
	/* a MAD under mad_min is taken as mad_min; one above it is kept */
	CHECK_INT(stats_modified_z(x, 5, 6, z), 0);
	CHECK_NEAR(z[4], 10.792, 1e-12);
	CHECK_INT(stats_modified_z(x, 5, 2, z), 0);
	CHECK_NEAR(z[4], 21.584, 1e-12);
	/* MAD 0: hyperfine's DBL_EPSILON */
	CHECK_INT(stats_modified_z(flat, 4, 0, z), 0);
	CHECK_NEAR(z[0], 0, 0);
	CHECK(z[3] > 1e15);
	CHECK_INT(stats_modified_z(x, 0, 0, z), -1);
	CHECK_INT(stats_modified_z(x, 5, -1, z), -1);
	CHECK_INT(stats_modified_z(x, 5, NAN, z), -1);
}

/* The trial's three walls (CoV 0.7%): median 0.2728, MAD 0.0003, so the
 * bare score of 0.2694 is 0.6745 * 0.0034 / 0.0003 = 7.64. */
TEST(stats_outliers_need_runs_and_resolution)
{
	const double three[] = { 0.2728, 0.2694, 0.2731 };
	const double five[] = { 0.2728, 0.2694, 0.2731, 0.2729, 0.2730 };
	const double real[] = { 0.2728, 0.2694, 0.2731, 0.2729, 0.4512 };
	const double four[] = { 0.27, 0.27, 0.28, 0.45 };
	double z[5];
	bool out[5];

	CHECK_INT(stats_modified_z(three, 3, 0, z), 0);
	CHECK_NEAR(z[1], -7.644333333, 1e-6);
	CHECK_INT(stats_outliers(three, 3, 3.5, 0, out), 0);
	CHECK(!out[0] && !out[1] && !out[2]);
	CHECK_INT(stats_outliers(three, 3, 3.5, 0.01, out), 0);
	CHECK(!out[0] && !out[1] && !out[2]);
	/* five as close: MAD 0.0001 would score 0.2694 at 23.6; at the
	 * resolution of 0.01 it scores 0.24 */
	CHECK_INT(stats_outliers(five, 5, 3.5, 0, out), 0);
	CHECK(out[1]);
	CHECK_INT(stats_outliers(five, 5, 3.5, 0.01, out), 0);
	for (int i = 0; i < 5; i++)
		CHECK(!out[i]);
	/* a run 0.18 s off: 0.6745 * 0.1783 / 0.01 = 12.0 */
	CHECK_INT(stats_modified_z(real, 5, 0.01, z), 0);
	CHECK_NEAR(z[4], 12.026335, 1e-6);
	CHECK_INT(stats_outliers(real, 5, 3.5, 0.01, out), 0);
	for (int i = 0; i < 5; i++)
		CHECK_INT(out[i], i == 4);
	CHECK_INT(stats_outliers(real, 5, 13, 0.01, out), 0);
	CHECK(!out[4]);
	/* four suffice: median 0.275, MAD 0.005 (half the others' range)
	 * taken as 0.01, z(0.45) = 11.8 */
	CHECK_INT(stats_outliers(four, 4, 3.5, 0.01, out), 0);
	for (int i = 0; i < 4; i++)
		CHECK_INT(out[i], i == 3);
}

TEST(stats_outliers_as_hyperfine)
{
	/* the cases of hyperfine's own test_detect_outliers */
	const double one[] = { 50.0 }, two[] = { 1000.0, 0.0 };
	const double low[] = { -0.2, 0.0, 0.2 }, single[] = { -0.2, 0.0, 0.2, 4.0 };
	const double single2[] = { 0.5, 0.30, 0.29, 0.31, 0.30 };
	const double normal[] = { 2.33269488, 1.42195907, -0.57527698, -0.31293437,
				  2.2948158, 0.75813273, -1.0712388, -0.96394741,
				  -1.15897446, 1.10976285 };
	const double added[] = { 2.33269488, 1.42195907, -0.57527698, -0.31293437,
				 2.2948158, 0.75813273, -1.0712388, -0.96394741,
				 -1.15897446, 1.10976285, 20.0, -500.0 };
	const double mad0[] = { 10, 10, 10, 10, 10, 10, 10, 100 };
	const double mad0b[] = { 10, 10, 10, 10, 10, 10, 10, 100, 100 };

	CHECK_INT(stats_outliers_hyperfine(NULL, 0), 0);
	CHECK_INT(stats_outliers_hyperfine(one, N(one)), 0);
	CHECK_INT(stats_outliers_hyperfine(two, N(two)), 0);
	CHECK_INT(stats_outliers_hyperfine(low, N(low)), 0);
	CHECK_INT(stats_outliers_hyperfine(single, N(single)), 1);
	CHECK_INT(stats_outliers_hyperfine(single2, N(single2)), 1);
	CHECK_INT(stats_outliers_hyperfine(normal, N(normal)), 0);
	CHECK_INT(stats_outliers_hyperfine(added, N(added)), 2);
	CHECK_INT(stats_outliers_hyperfine(mad0, N(mad0)), 1);
	CHECK_INT(stats_outliers_hyperfine(mad0b, N(mad0b)), 2);
}

TEST(stats_welch_values)
{
	struct stats_welch w;
	const double a2[] = { 1, 1 }, b2[] = { 2, 2 }, c2[] = { 1, 1 };
	const double bad[] = { 1, NAN };

	CHECK_INT(stats_welch(pre8, 3, pre8_swap2, 3, &w), 0);
	CHECK_NEAR(w.t, -1.224409229023, 1e-10);
	CHECK_NEAR(w.df, 2.058554665236, 1e-10);
	CHECK_NEAR(w.p, 0.342424314405, 1e-9);

	CHECK_INT(stats_welch(wc, N(wc), wd, N(wd), &w), 0);
	CHECK_NEAR(w.t, -2.455356398286, 1e-10);
	CHECK_NEAR(w.df, 24.988529290231, 1e-9);
	CHECK_NEAR(w.p, 0.021378001462867, 1e-10);

	/* zero variance on both sides */
	CHECK_INT(stats_welch(a2, 2, b2, 2, &w), 0);
	CHECK(isinf(w.t) && w.t < 0);
	CHECK_NEAR(w.p, 0, 0);
	CHECK(isnan(w.df));
	CHECK_INT(stats_welch(a2, 2, c2, 2, &w), 0);
	CHECK_NEAR(w.t, 0, 0);
	CHECK_NEAR(w.p, 1, 0);

	errno = 0;
	CHECK_INT(stats_welch(pre8, 1, pre8_swap2, 3, &w), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(stats_welch(bad, 2, a2, 2, &w), -1);
}

TEST(stats_compare_marks)
{
	struct stats_cmp c;
	const double a2[] = { 1, 1 }, b2[] = { 2, 2 }, z[] = { 0, 0, 0 };

	/* seed 000: doubling swap made the runs 8.08% slower on the mean,
	 * but three runs each cannot show it (p 0.34) */
	CHECK_INT(stats_compare(pre8, 3, pre8_swap2, 3, STATS_MEAN, true, &c), 0);
	CHECK_NEAR(c.diff_pct, 8.0792314288, 1e-8);
	CHECK_NEAR(c.gain_pct, -8.0792314288, 1e-8);
	CHECK(!c.significant);
	CHECK_STR(c.mark, "( -8.08%)");

	CHECK_INT(stats_compare(pre8, 3, pre8_swap2, 3, STATS_MEDIAN, true, &c), 0);
	CHECK_NEAR(c.base, 152.29, 0);
	CHECK_NEAR(c.cur, 170.26, 0);
	CHECK_NEAR(c.diff_pct, 11.7998555388, 1e-8);

	/* floor(24.99) = 24 df: |t| 2.455 > 2.0639 */
	CHECK_INT(stats_compare(wc, N(wc), wd, N(wd), STATS_MEAN, false, &c), 0);
	CHECK(c.significant);
	CHECK_NEAR(c.diff_pct, 10.4066602626, 1e-8);
	CHECK_STR(c.mark, "* 10.41%*");

	CHECK_INT(stats_compare(a2, 2, b2, 2, STATS_MEAN, false, &c), 0);
	CHECK(c.significant);
	CHECK_STR(c.mark, "*100.00%*");

	CHECK_INT(stats_compare(z, 3, pre8, 3, STATS_MEAN, false, &c), 0);
	CHECK(isnan(c.diff_pct));
	CHECK_STR(c.mark, "(    n/a)");

	CHECK_INT(stats_compare(pre8, 3, b2, 1, STATS_MEAN, false, &c), -1);
}

static int cmp_ref(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Medians, minima, maxima and MADs as a plain sort gives them, on inputs a
 * selection finds hard: sorted, reversed, all equal, few distinct values,
 * organ pipes, and random, at even and odd lengths. */
TEST(stats_order_statistics_any_input)
{
	static double x[3000], v[3000];
	uint32_t seed = 12345;
	int bad = 0;

	for (int shape = 0; shape < 6; shape++)
		for (size_t n = 1; n <= 3000 && bad < 3; n = n < 40 ? n + 1 : n * 3 / 2) {
			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				x[i] = shape == 0 ? (double)i : shape == 1 ? (double)(n - i) :
				       shape == 2 ? 7.0 : shape == 3 ? (double)(seed >> 16 & 3) :
				       shape == 4 ? (double)(i < n / 2 ? i : n - i) : (double)(seed >> 8) / 7.0;
			}
			struct stats_summary s;
			CHECK_INT(stats_summarize(x, n, &s), 0);
			memcpy(v, x, n * sizeof(*v));
			qsort(v, n, sizeof(*v), cmp_ref);
			double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
			for (size_t i = 0; i < n; i++)
				v[i] = fabs(x[i] - med);
			qsort(v, n, sizeof(*v), cmp_ref);
			double mad = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
			memcpy(v, x, n * sizeof(*v));
			qsort(v, n, sizeof(*v), cmp_ref);
			if (s.median != med || s.mad != mad || s.min != v[0] || s.max != v[n - 1] ||
			    stats_median(x, n) != med) {
				CHECK(s.median == med && s.mad == mad && s.min == v[0] && s.max == v[n - 1]);
				bad++;
			}
		}
}

/* R: prop.test(k, n, correct = FALSE)$conf.int */
TEST(stats_wilson_values)
{
	double lo, hi;

	CHECK_INT(stats_wilson95(1, 3, &lo, &hi), 0);
	CHECK_NEAR(lo, 0.0614919447, 1e-9);
	CHECK_NEAR(hi, 0.7923403992, 1e-9);
	CHECK_INT(stats_wilson95(3, 8, &lo, &hi), 0);
	CHECK_NEAR(lo, 0.1368442858, 1e-9);
	CHECK_NEAR(hi, 0.6942576054, 1e-9);
	CHECK_INT(stats_wilson95(0, 8, &lo, &hi), 0);
	CHECK_NEAR(lo, 0.0, 1e-12);
	CHECK_NEAR(hi, 0.3244075649, 1e-9);
	CHECK_INT(stats_wilson95(3, 3, &lo, &hi), 0);
	CHECK_NEAR(lo, 0.4385029682, 1e-9);
	CHECK_NEAR(hi, 1.0, 1e-12);
	errno = 0;
	CHECK_INT(stats_wilson95(0, 0, &lo, &hi), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(stats_wilson95(4, 3, &lo, &hi), -1);
}

/* R: fisher.test(matrix(c(ka, na - ka, kb, nb - kb), 2))$p.value */
TEST(stats_fisher_values)
{
	CHECK_NEAR(stats_fisher(3, 8, 0, 8), 0.2, 1e-12);
	CHECK_NEAR(stats_fisher(0, 8, 3, 8), 0.2, 1e-12);
	/* the first seed: pre7 killed in 3 of 3 runs, pre8 in none */
	CHECK_NEAR(stats_fisher(3, 3, 0, 3), 0.1, 1e-12);
	/* R's TeaTasting example */
	CHECK_NEAR(stats_fisher(3, 4, 1, 4), 17.0 / 35, 1e-12);
	CHECK_NEAR(stats_fisher(0, 8, 0, 8), 1.0, 1e-12);
	/* 2 of 12 against 3 of 8: the exact sum, 0.347265... */
	CHECK_NEAR(stats_fisher(2, 12, 3, 8), 0.3472652219, 1e-9);
	CHECK(isnan(stats_fisher(4, 3, 0, 3)));
}
