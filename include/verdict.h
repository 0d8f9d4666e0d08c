/* Whether a sample is a regression against a baseline beyond a relative
 * threshold, decided at looks taken as runs come in, with the false-alarm
 * rate of the whole sequence held at alpha: a Bonferroni split of alpha
 * over the looks the run limit allows. Pure: no I/O. */
#ifndef THRASHTOP_VERDICT_H
#define THRASHTOP_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* The exit statuses too, as git bisect run takes them. */
enum verdict { VERDICT_SAME = 0, VERDICT_WORSE = 1, VERDICT_UNSURE = 125 };

/* "no regression", "regression", "unsure". */
const char *verdict_name(enum verdict v);

/* The worse of two verdicts: a regression over an unsure over none. */
enum verdict verdict_worst(enum verdict a, enum verdict b);

/* Fewest runs of a side the first look takes. */
#define VERDICT_FIRST_LOOK 3

/* The looks of a sequence of at most max_runs runs: at 3, 5, 7 ... runs
 * and at max_runs. Their number (0 for max_runs < 2); look k (0-based)
 * happens at verdict_look_at(k, max_runs) runs. */
int verdict_nlooks(int max_runs);
int verdict_look_at(int k, int max_runs);

/* The level of each one-sided test at a look: alpha / nlooks. */
double verdict_look_alpha(double alpha, int max_runs);

struct verdict_result {
	enum verdict v;
	double base_mean, cur_mean;
	double change_pct;		/* 100 * (cur_mean - base_mean) / base_mean */
	double ci_lo_pct, ci_hi_pct;	/* its 95% interval (Welch), % of base_mean */
	double p;			/* Welch's two-sided p, cur against base */
	double p_worse, p_within;	/* the one-sided p of each decision */
};

/* Judges cur against base (each n >= 2) at one look of level a: worse
 * when cur is beyond base by more than threshold (a fraction: 0.05) in
 * the bad direction (higher when lower_better), at level a one-sided
 * (Welch's t of cur against base scaled by 1 +/- threshold); the same
 * when it is short of that, at level a the other side; else unsure.
 * Returns 0, or -1 (errno EINVAL: a side of fewer than 2, NaN, a base
 * mean of 0). */
int verdict_judge(const double *base, size_t nb, const double *cur, size_t nc,
		  double threshold, bool lower_better, double a, struct verdict_result *out);

/* Counts of a bad outcome (OOM kills): worse when cur's rate is above
 * base's and Fisher's exact test (two-sided, as history compare gives it)
 * is below a; the same when cur's rate is no higher; else unsure. */
enum verdict verdict_counts(size_t kb, size_t nb, size_t kc, size_t nc, double a, double *p);

#endif
