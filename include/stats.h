/* Statistics over repeated runs: summaries, outliers, Student t intervals,
 * Welch's t-test and a before/after comparison marked as mmtests marks it,
 * and for counts (OOM kills of n runs) Wilson's interval and Fisher's test.
 * Pure functions, no I/O; NaN or infinite inputs are rejected (EINVAL). */
#ifndef THRASHTOP_STATS_H
#define THRASHTOP_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;
	double min, median, mean, max;	/* NAN when n == 0 */
	double sd;			/* sample standard deviation (n - 1); NAN if n < 2 */
	double cv_pct;			/* 100 * sd / mean; NAN if n < 2 or mean == 0 */
	double mad;			/* median of |x - median|, unscaled; NAN if n == 0 */
	double ci95_lo, ci95_hi;	/* mean -/+ t(0.975, n-1) * sd / sqrt(n); NAN if n < 2 */
};

/* Fills s; n == 0 is valid (all NAN). Returns 0, or -1 with errno EINVAL
 * (NaN/inf in x) or ENOMEM. */
int stats_summarize(const double *x, size_t n, struct stats_summary *s);

/* Median of x (selected in a copy, x left as it is); NAN for n == 0 or on
 * error (errno set). */
double stats_median(const double *x, size_t n);

/* Iglewicz-Hoaglin modified z-scores 0.6745 * (x - median) / MAD into z.
 * A MAD below mad_min (the resolution x is read at) is taken as mad_min;
 * a MAD of 0 with mad_min 0 as DBL_EPSILON, as hyperfine does, so any
 * value off the median scores huge. Returns 0, or -1 (EINVAL for n == 0,
 * NaN or mad_min < 0, ENOMEM). */
int stats_modified_z(const double *x, size_t n, double mad_min, double *z);

/* Fewest values an outlier verdict is drawn from. Of three, the MAD is the
 * smaller of the two deviations from the median, so the other scores
 * 0.6745 times their ratio and is flagged at 3.5 whenever it is 5.2 times
 * the first, however close all three are (28% of normal samples). Of
 * four, the farthest value's MAD is half the range of the other three. */
#define STATS_OUTLIER_MIN_N 4

/* out[i]: whether x[i]'s modified z-score (MAD at least mad_min) passes
 * cut in absolute value; all false for n < STATS_OUTLIER_MIN_N. Returns 0,
 * or -1 as stats_modified_z. */
int stats_outliers(const double *x, size_t n, double cut, double mad_min, bool *out);

/* Outliers as hyperfine counts them (src/outlier_detection.rs):
 * |x - median| / MAD > 1.4826 * 10, MAD 0 replaced by DBL_EPSILON; that is
 * a modified z-score above about 10, where Iglewicz-Hoaglin suggest 3.5.
 * Returns the count, or -1 on error. */
long stats_outliers_hyperfine(const double *x, size_t n);

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1 (else NAN). */
double stats_betai(double a, double b, double x);

/* Student t distribution with df > 0 degrees of freedom (real df allowed):
 * P(T <= t), and its inverse for 0 < p < 1. NAN on bad arguments. */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

struct stats_welch {
	double t;	/* (mean_a - mean_b) / sqrt(va/na + vb/nb) */
	double df;	/* Welch-Satterthwaite, not rounded; NAN if both variances are 0 */
	double p;	/* two-sided */
};

/* Welch's unequal-variance t-test; both samples need n >= 2. With both
 * variances 0: equal means give t 0, p 1; different means t +/-INFINITY,
 * p 0. Returns 0, or -1 (errno EINVAL). */
int stats_welch(const double *a, size_t na, const double *b, size_t nb,
		struct stats_welch *out);

enum stats_centre { STATS_MEAN, STATS_MEDIAN };

struct stats_cmp {
	double base, cur;	/* centre of each sample */
	double diff_pct;	/* 100 * (cur - base) / base; NAN if base == 0 */
	double gain_pct;	/* diff_pct, negated when lower is better (mmtests'
				 * pdiff/pndiff): positive is an improvement */
	struct stats_welch welch;
	bool significant;	/* mmtests' rule, see stats.c */
	char mark[16];		/* gain as mmtests prints it: "(  -1.94%)",
				 * "*  -1.94%*" when significant, "(    n/a)" */
};

/* Compares cur against base. Significance is always Welch's test on the
 * means at the 5% level, also when the centre shown is the median. Returns
 * 0, or -1 (errno EINVAL: a sample with n < 2, NaN). */
int stats_compare(const double *base, size_t nb, const double *cur, size_t nc,
		  enum stats_centre centre, bool lower_is_better,
		  struct stats_cmp *out);

/* Wilson's score interval at 95% (z 1.959964) for k successes in n
 * trials, as R's prop.test(k, n, correct = FALSE)$conf.int. Returns 0, or
 * -1 (errno EINVAL: n == 0 or k > n). */
int stats_wilson95(size_t k, size_t n, double *lo, double *hi);

/* Fisher's exact test of ka of na against kb of nb, two-sided as R's
 * fisher.test: the probability of every table with the same margins no
 * likelier than the one seen. NAN (errno EINVAL) if ka > na or kb > nb. */
double stats_fisher(size_t ka, size_t na, size_t kb, size_t nb);

#endif
