/* Significance as mmtests marks it (gormanm/mmtests, bin/lib/MMTests/Stat.pm
 * calc_welch_test and PrintGeneric.pm): Welch's t with its degrees of
 * freedom floored to an integer k, H0 "equal means" rejected when
 * |t| > qt(1 - alpha/2, k); compare-kernels prints each comparison with the
 * format " (%6.2f%%)" and, for a value flagged significant, replaces both
 * parentheses with '*': "(  -1.94%)" becomes "*  -1.94%*". The percentage is
 * pdiff (cur / base * 100 - 100) when higher is better and pndiff
 * (100 - cur / base * 100) when lower is better, so positive is a gain.
 * Unlike mmtests' pdiff, a zero base gives n/a here, not 100%. */
#include "stats.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The k-th smallest of v[0..n) (Wirth's selection): v is reordered so
 * that nothing before k is larger and nothing after it smaller. */
static double select_kth(double *v, ptrdiff_t n, ptrdiff_t k)
{
	ptrdiff_t l = 0, m = n - 1;

	while (l < m) {
		double x = v[k];
		ptrdiff_t i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			l = i;
		if (k < i)
			m = j;
	}
	return v[k];
}

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* Median of v (n > 0), which is reordered: linear time, where a sort
 * would be n log n over a group of a million runs. */
static double median_of(double *v, size_t n)
{
	double hi = select_kth(v, (ptrdiff_t)n, (ptrdiff_t)(n / 2)), lo;

	if (n % 2)
		return hi;
	lo = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2.0;
}

double stats_median(const double *x, size_t n)
{
	double *v, m;

	if (n == 0)
		return NAN;
	if (!all_finite(x, n)) {
		errno = EINVAL;
		return NAN;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	m = median_of(v, n);
	free(v);
	return m;
}

/* Median absolute deviation around med. */
static double mad_of(const double *x, size_t n, double med)
{
	double *d, m;

	d = malloc(n * sizeof(*d));
	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	m = median_of(d, n);
	free(d);
	return m;
}

static double mean_of(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

/* Sample variance, two-pass. */
static double var_of(const double *x, size_t n, double mean)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (x[i] - mean) * (x[i] - mean);
	return s / (double)(n - 1);
}

int stats_summarize(const double *x, size_t n, struct stats_summary *s)
{
	double *v;

	s->n = n;
	s->min = s->median = s->mean = s->max = NAN;
	s->sd = s->cv_pct = s->mad = s->ci95_lo = s->ci95_hi = NAN;
	if (n == 0)
		return 0;
	if (!all_finite(x, n)) {
		errno = EINVAL;
		return -1;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, x, n * sizeof(*v));
	s->min = s->max = x[0];
	for (size_t i = 1; i < n; i++) {
		s->min = x[i] < s->min ? x[i] : s->min;
		s->max = x[i] > s->max ? x[i] : s->max;
	}
	s->median = median_of(v, n);
	free(v);
	s->mad = mad_of(x, n, s->median);
	if (isnan(s->mad))
		return -1;
	s->mean = mean_of(x, n);
	if (n >= 2) {
		double half;

		s->sd = sqrt(var_of(x, n, s->mean));
		if (s->mean != 0)
			s->cv_pct = 100.0 * s->sd / s->mean;
		half = stats_t_quantile(0.975, (double)(n - 1)) * s->sd /
		       sqrt((double)n);
		s->ci95_lo = s->mean - half;
		s->ci95_hi = s->mean + half;
	}
	return 0;
}

/* The median of x and its median absolute deviation, at least mad_min
 * and kept above 0 so that it divides. Returns 0, or -1 when either is not
 * to be had. */
static int median_mad(const double *x, size_t n, double mad_min, double *med, double *mad)
{
	*med = stats_median(x, n);
	*mad = mad_of(x, n, *med);
	if (isnan(*med) || isnan(*mad))
		return -1;
	if (*mad < mad_min)
		*mad = mad_min;
	if (*mad <= 0)
		*mad = DBL_EPSILON;
	return 0;
}

int stats_modified_z(const double *x, size_t n, double mad_min, double *z)
{
	double med, mad;

	if (n == 0 || !all_finite(x, n) || !(mad_min >= 0) || isinf(mad_min)) {
		errno = EINVAL;
		return -1;
	}
	if (median_mad(x, n, mad_min, &med, &mad))
		return -1;
	for (size_t i = 0; i < n; i++)
		z[i] = 0.6745 * (x[i] - med) / mad;
	return 0;
}

int stats_outliers(const double *x, size_t n, double cut, double mad_min, bool *out)
{
	double *z;

	for (size_t i = 0; i < n; i++)
		out[i] = false;
	if (n < STATS_OUTLIER_MIN_N)
		return 0;
	z = malloc(n * sizeof(*z));
	if (!z)
		return -1;
	if (stats_modified_z(x, n, mad_min, z)) {
		free(z);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = fabs(z[i]) > cut;
	free(z);
	return 0;
}

long stats_outliers_hyperfine(const double *x, size_t n)
{
	double med, mad;
	long count = 0;

	if (n == 0)
		return 0;
	if (!all_finite(x, n)) {
		errno = EINVAL;
		return -1;
	}
	if (median_mad(x, n, 0, &med, &mad))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (fabs((x[i] - med) / mad) > 1.4826 * 10.0)
			count++;
	return count;
}

/* One term aa of the modified Lentz method, taken into the ratios c and d
 * (kept off 0): the factor the fraction's value is multiplied by. */
static double lentz_step(double aa, double *c, double *d)
{
	const double tiny = 1e-300;

	*d = 1.0 + aa * *d;
	*c = 1.0 + aa / *c;
	if (fabs(*d) < tiny)
		*d = tiny;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1.0 / *d;
	return *d * *c;
}

/* Continued fraction of I_x(a, b) (DLMF 8.17.22), evaluated with the
 * modified Lentz method. Converges fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double del;

		/* even step: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		h *= lentz_step(m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)), &c, &d);
		/* odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		del = lentz_step(-(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
				 &c, &d);
		h *= del;
		if (fabs(del - 1.0) < 1e-16)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double lfront;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1) || isinf(a) ||
	    isinf(b))
		return NAN;
	if (x == 0)
		return 0;
	if (x == 1)
		return 1;
	lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		 b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lfront) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

/* P(|T| > |t|) for T ~ t(df). */
static double t_two_tail(double t, double df)
{
	if (isinf(t))
		return 0;
	return stats_betai(df / 2.0, 0.5, df / (df + t * t));
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	tail = t_two_tail(t, df) / 2.0;
	return t >= 0 ? 1.0 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double target, lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -stats_t_quantile(1.0 - p, df);
	/* t > 0 with two-sided tail 2(1 - p): the tail falls as t grows */
	target = 2.0 * (1.0 - p);
	while (t_two_tail(hi, df) > target) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (t_two_tail(mid, df) > target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int stats_welch(const double *a, size_t na, const double *b, size_t nb,
		struct stats_welch *out)
{
	double ma, mb, qa, qb, se2;

	if (na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb)) {
		errno = EINVAL;
		return -1;
	}
	ma = mean_of(a, na);
	mb = mean_of(b, nb);
	qa = var_of(a, na, ma) / (double)na;
	qb = var_of(b, nb, mb) / (double)nb;
	se2 = qa + qb;
	if (se2 == 0) {
		out->df = NAN;
		if (ma == mb) {
			out->t = 0;
			out->p = 1;
		} else {
			out->t = ma > mb ? INFINITY : -INFINITY;
			out->p = 0;
		}
		return 0;
	}
	out->t = (ma - mb) / sqrt(se2);
	out->df = se2 * se2 / (qa * qa / (double)(na - 1) +
			       qb * qb / (double)(nb - 1));
	out->p = t_two_tail(out->t, out->df);
	return 0;
}

int stats_compare(const double *base, size_t nb, const double *cur, size_t nc,
		  enum stats_centre centre, bool lower_is_better,
		  struct stats_cmp *out)
{
	struct stats_welch w;

	if (stats_welch(cur, nc, base, nb, &w) < 0)
		return -1;
	if (centre == STATS_MEDIAN) {
		out->base = stats_median(base, nb);
		out->cur = stats_median(cur, nc);
		if (isnan(out->base) || isnan(out->cur))
			return -1;
	} else {
		out->base = mean_of(base, nb);
		out->cur = mean_of(cur, nc);
	}
	out->welch = w;
	out->diff_pct = out->base == 0 ? NAN :
			100.0 * (out->cur - out->base) / out->base;
	out->gain_pct = lower_is_better ? -out->diff_pct : out->diff_pct;
	if (isnan(w.df)) {
		out->significant = isinf(w.t);
	} else {
		double k = floor(w.df);

		out->significant = k >= 1 &&
				   fabs(w.t) > stats_t_quantile(0.975, k);
	}
	if (isnan(out->gain_pct))
		snprintf(out->mark, sizeof(out->mark), "(%7s)", "n/a");
	else if (out->significant)
		snprintf(out->mark, sizeof(out->mark), "*%6.2f%%*",
			 out->gain_pct + 0.0);
	else
		snprintf(out->mark, sizeof(out->mark), "(%6.2f%%)",
			 out->gain_pct + 0.0);
	return 0;
}

int stats_wilson95(size_t k, size_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054;

	if (n == 0 || k > n) {
		errno = EINVAL;
		return -1;
	}
	double p = (double)k / (double)n, z2n = z * z / (double)n;
	double mid = (p + z2n / 2) / (1 + z2n);
	double half = z * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n)) / (1 + z2n);

	*lo = k == 0 ? 0 : mid - half;
	*hi = k == n ? 1 : mid + half;
	return 0;
}

/* log C(n, k) */
static double lchoose(size_t n, size_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

double stats_fisher(size_t ka, size_t na, size_t kb, size_t nb)
{
	if (ka > na || kb > nb) {
		errno = EINVAL;
		return NAN;
	}
	size_t k = ka + kb, n = na + nb;
	size_t lo = k > nb ? k - nb : 0, hi = k < na ? k : na;
	double lall = lchoose(n, k), seen, p = 0;

	seen = exp(lchoose(na, ka) + lchoose(nb, kb) - lall);
	for (size_t x = lo; x <= hi; x++) {
		double px = exp(lchoose(na, x) + lchoose(nb, k - x) - lall);
		/* R's relative tolerance, so ties are not lost to rounding */
		if (px <= seen * (1 + 1e-7))
			p += px;
	}
	return p < 1 ? p : 1;
}
