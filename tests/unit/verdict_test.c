#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "verdict.h"

#define DRAWS 10000

TEST(verdict_looks)
{
	CHECK_INT(verdict_nlooks(10), 5);	/* 3 5 7 9 10 */
	CHECK_INT(verdict_look_at(0, 10), 3);
	CHECK_INT(verdict_look_at(3, 10), 9);
	CHECK_INT(verdict_look_at(4, 10), 10);
	CHECK_INT(verdict_nlooks(9), 4);	/* 3 5 7 9 */
	CHECK_INT(verdict_look_at(3, 9), 9);
	CHECK_INT(verdict_nlooks(3), 1);
	CHECK_INT(verdict_nlooks(2), 1);
	CHECK_INT(verdict_look_at(0, 2), 2);
	CHECK_INT(verdict_nlooks(1), 0);
	CHECK_NEAR(verdict_look_alpha(0.05, 10), 0.01, 1e-15);
	CHECK_INT(verdict_worst(VERDICT_SAME, VERDICT_UNSURE), VERDICT_UNSURE);
	CHECK_INT(verdict_worst(VERDICT_WORSE, VERDICT_UNSURE), VERDICT_WORSE);
	CHECK_INT(verdict_worst(VERDICT_SAME, VERDICT_SAME), VERDICT_SAME);
}

TEST(verdict_judge_cases)
{
	static const double base[] = { 0.200, 0.202, 0.201, 0.200, 0.202 };
	static const double slow[] = { 0.30, 0.31, 0.30 };
	static const double same[] = { 0.201, 0.200, 0.202 };
	static const double edge[] = { 0.19, 0.23, 0.21 };	/* +4% give or take */
	struct verdict_result r;

	CHECK_INT(verdict_judge(base, 5, slow, 3, 0.05, true, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_WORSE);
	CHECK_NEAR(r.change_pct, 100 * (0.3033333333 - 0.201) / 0.201, 1e-6);
	CHECK(r.ci_lo_pct < r.change_pct && r.change_pct < r.ci_hi_pct);
	CHECK(r.p < 0.001);
	CHECK_INT(verdict_judge(base, 5, same, 3, 0.05, true, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_SAME);
	CHECK_INT(verdict_judge(base, 5, edge, 3, 0.05, true, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_UNSURE);
	/* without a threshold, no change is never shown to be none */
	CHECK_INT(verdict_judge(base, 5, same, 3, 0, true, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_UNSURE);
	/* throughput: higher is better, 30% down is worse, 50% up the same */
	CHECK_INT(verdict_judge(slow, 3, base, 5, 0.05, false, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_WORSE);
	CHECK_INT(verdict_judge(base, 5, slow, 3, 0.05, false, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_SAME);
	CHECK_INT(verdict_judge(base, 1, slow, 3, 0.05, true, 0.01, &r), -1);
	/* equal figures without spread: none beyond the threshold */
	static const double z3[] = { 4, 4, 4 }, z5[] = { 4, 4, 4, 4, 4 };
	CHECK_INT(verdict_judge(z5, 5, z3, 3, 0.05, true, 0.01, &r), 0);
	CHECK_INT(r.v, VERDICT_SAME);
}

TEST(verdict_counts_cases)
{
	double p;

	CHECK_INT(verdict_counts(0, 5, 0, 3, 0.01, &p), VERDICT_SAME);
	/* 3 of 3 against 0 of 5: p = 1/56, not yet below 1% */
	CHECK_INT(verdict_counts(0, 5, 3, 3, 0.01, &p), VERDICT_UNSURE);
	CHECK_NEAR(p, 1.0 / 56, 1e-12);
	CHECK_INT(verdict_counts(0, 5, 5, 5, 0.01, &p), VERDICT_WORSE);
	CHECK_INT(verdict_counts(2, 5, 1, 3, 0.01, &p), VERDICT_SAME);
}

/* xorshift64* and Box-Muller: the same draws on every machine */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0) + 0x1p-54;
}

static double normal(double mu, double sd)
{
	return mu + sd * sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* One sequence as check runs it: 5 baseline runs, then up to max runs
 * whose true mean is the threshold's limit itself, judged at each look at
 * level a; its verdict. */
static enum verdict sequence(int max, double a, double sd_cur)
{
	double base[5], cur[32], th = 0.05;
	struct verdict_result r;
	int n = 0;

	for (int i = 0; i < 5; i++)
		base[i] = normal(1.0, 0.05);
	for (int k = 0; k < verdict_nlooks(max); k++) {
		for (; n < verdict_look_at(k, max); n++)
			cur[n] = normal(1.0 + th, sd_cur);
		if (verdict_judge(base, 5, cur, (size_t)n, th, true, a, &r))
			return VERDICT_UNSURE;
		if (r.v != VERDICT_UNSURE)
			return r.v;
	}
	return VERDICT_UNSURE;
}

/* Rates of each wrong verdict over DRAWS sequences at a true change of
 * exactly the threshold, where both are wrong. */
static void error_rates(int max, double a, double sd_cur, double *worse, double *same)
{
	int w = 0, s = 0;

	for (int i = 0; i < DRAWS; i++) {
		enum verdict v = sequence(max, a, sd_cur);
		w += v == VERDICT_WORSE;
		s += v == VERDICT_SAME;
	}
	*worse = (double)w / DRAWS;
	*same = (double)s / DRAWS;
}

TEST(verdict_sequential_level)
{
	const double alpha = 0.05, bound = alpha + 3 * sqrt(alpha * (1 - alpha) / DRAWS);
	double w, s;

	for (int c = 0; c < 2; c++) {
		/* equal spread, and the new runs twice as noisy */
		double sd = c ? 0.10 : 0.05;

		error_rates(10, verdict_look_alpha(alpha, 10), sd, &w, &s);
		printf("# Bonferroni over %d looks, sd %.2f: false regression %.4f, false "
		       "no-regression %.4f (bound %.4f)\n", verdict_nlooks(10), sd, w, s, bound);
		CHECK(w <= bound);
		CHECK(s <= bound);
	}
	/* the same looks each at alpha: the simulation sees the level break */
	error_rates(10, alpha, 0.05, &w, &s);
	printf("# each look at alpha: false regression %.4f (bound %.4f)\n", w, bound);
	CHECK(w > bound);
}
