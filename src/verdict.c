/* The sequential rule is Bonferroni's: each of the L looks the run limit
 * allows tests each direction at alpha / L. Whatever the looks' statistics
 * have in common (they share runs) and wherever the sequence stops, the
 * chance that some look calls a false regression is at most the sum of
 * the L looks' chances, L * alpha / L = alpha; stopping early only drops
 * later chances. Group-sequential boundaries (Pocock, O'Brien-Fleming)
 * spend alpha less conservatively, but their levels rest on the normal
 * joint law of the looks' statistics, which Welch's t with a few runs and
 * unequal variances only approximates; this bound needs no such law. */
#include "verdict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME: return "no regression";
	case VERDICT_WORSE: return "regression";
	default: return "unsure";
	}
}

static int rank(enum verdict v)
{
	return v == VERDICT_WORSE ? 2 : v == VERDICT_UNSURE ? 1 : 0;
}

enum verdict verdict_worst(enum verdict a, enum verdict b)
{
	return rank(a) >= rank(b) ? a : b;
}

int verdict_nlooks(int max_runs)
{
	if (max_runs < 2)
		return 0;
	if (max_runs <= VERDICT_FIRST_LOOK)
		return 1;
	/* 3, 5, 7 ... and max_runs when the steps of 2 miss it */
	return 1 + (max_runs - VERDICT_FIRST_LOOK + 1) / 2;
}

int verdict_look_at(int k, int max_runs)
{
	int at = VERDICT_FIRST_LOOK + 2 * k;

	return at < max_runs ? at : max_runs;
}

double verdict_look_alpha(double alpha, int max_runs)
{
	int l = verdict_nlooks(max_runs);

	return l ? alpha / l : NAN;
}

static double mean_var(const double *x, size_t n, double *var)
{
	double m = 0, s = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	*var = s / (double)(n - 1);
	return m;
}

/* P(T >= t) and P(T <= t) of Welch's statistic w; with both variances 0
 * the sign of t decides, and equal means decide nothing. */
static void one_sided(const struct stats_welch *w, double *ge, double *le)
{
	if (isnan(w->df)) {
		*ge = w->t > 0 ? 0 : 1;
		*le = w->t < 0 ? 0 : 1;
		return;
	}
	*le = stats_t_cdf(w->t, w->df);
	*ge = stats_t_cdf(-w->t, w->df);
}

int verdict_judge(const double *base, size_t nb, const double *cur, size_t nc,
		  double threshold, bool lower_better, double a, struct verdict_result *out)
{
	struct stats_welch w, ws;
	double vb, vc, *scaled;
	double limit = lower_better ? 1 + threshold : 1 - threshold;
	double ge, le;

	if (nb < 2 || nc < 2 || stats_welch(cur, nc, base, nb, &w))
		return errno = EINVAL, -1;
	out->base_mean = mean_var(base, nb, &vb);
	out->cur_mean = mean_var(cur, nc, &vc);
	if (out->base_mean == 0 || !(scaled = malloc(sizeof(*scaled) * nb)))
		return errno = out->base_mean == 0 ? EINVAL : ENOMEM, -1;
	for (size_t i = 0; i < nb; i++)
		scaled[i] = base[i] * limit;
	int rc = stats_welch(cur, nc, scaled, nb, &ws);
	free(scaled);
	if (rc)
		return -1;
	one_sided(&ws, &ge, &le);
	out->p = w.p;
	out->p_worse = lower_better ? ge : le;
	out->p_within = lower_better ? le : ge;
	out->v = out->p_worse < a ? VERDICT_WORSE : out->p_within < a ? VERDICT_SAME
		 : VERDICT_UNSURE;
	double d = out->cur_mean - out->base_mean, se = sqrt(vc / (double)nc + vb / (double)nb);
	double q = isnan(w.df) ? 0 : stats_t_quantile(0.975, w.df);

	out->change_pct = 100 * d / out->base_mean;
	out->ci_lo_pct = 100 * (d - q * se) / fabs(out->base_mean);
	out->ci_hi_pct = 100 * (d + q * se) / fabs(out->base_mean);
	return 0;
}

enum verdict verdict_counts(size_t kb, size_t nb, size_t kc, size_t nc, double a, double *p)
{
	*p = stats_fisher(kb, nb, kc, nc);
	/* kc / nc <= kb / nb, without division */
	if (kc * nb <= kb * nc)
		return VERDICT_SAME;
	return *p < a ? VERDICT_WORSE : VERDICT_UNSURE;
}
