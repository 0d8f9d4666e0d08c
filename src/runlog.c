#include "runlog.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T_QUANTUM 0.001

void runlog_begin(struct runlog *l, const bool on[M_N], int cap)
{
	runlog_free(l);
	l->cap = cap < 2 ? 2 : cap & ~1;	/* even: pairs cover it */
	l->step = 1;
	memcpy(l->on, on, sizeof(l->on));
}

void runlog_free(struct runlog *l)
{
	blob_free(&l->t);
	for (int i = 0; i < M_N; i++)
		blob_free(&l->v[i]);
	memset(l, 0, sizeof(*l));
}

static int put(struct runlog *l, double t, const double *v)
{
	int rc = blob_put(&l->t, t, T_QUANTUM);

	for (int i = 0; i < M_N; i++)
		if (l->on[i])
			rc |= blob_put(&l->v[i], v[i], metric_def(i)->quantum);
	l->n++;
	return rc ? -1 : 0;
}

/* At the cap: each pair of kept samples becomes its mean. */
static int halve(struct runlog *l)
{
	int n = l->n, h = n / 2;
	double *t = malloc(sizeof(double) * (size_t)n);
	double *v = malloc(sizeof(double) * (size_t)n * M_N);
	struct runlog nl = *l;

	if (!t || !v) {
		free(t);
		free(v);
		return -1;
	}
	blob_decode(l->t.buf, l->t.len, T_QUANTUM, t, n);
	for (int i = 0; i < M_N; i++)
		if (l->on[i])
			blob_decode(l->v[i].buf, l->v[i].len, metric_def(i)->quantum,
				    v + (size_t)i * (size_t)n, n);
	memset(&nl.t, 0, sizeof(nl.t));
	memset(nl.v, 0, sizeof(nl.v));
	nl.n = 0;
	int rc = 0;
	for (int k = 0; k < h && rc == 0; k++) {
		double mv[M_N];

		for (int i = 0; i < M_N; i++) {
			double a = v[(size_t)i * (size_t)n + 2 * (size_t)k];
			double b = v[(size_t)i * (size_t)n + 2 * (size_t)k + 1];

			mv[i] = isnan(a) ? b : isnan(b) ? a : (a + b) / 2;
		}
		rc = put(&nl, (t[2 * k] + t[2 * k + 1]) / 2, mv);
	}
	free(t);
	free(v);
	blob_free(&l->t);
	for (int i = 0; i < M_N; i++)
		blob_free(&l->v[i]);
	*l = nl;
	l->step *= 2;
	return rc;
}

int runlog_push(struct runlog *l, double t, const double v[M_N])
{
	if (l->oom)
		return -1;
	l->acc_t += t;
	for (int i = 0; i < M_N; i++)
		if (l->on[i] && !isnan(v[i])) {
			l->acc[i] += v[i];
			l->accn[i]++;
		}
	if (++l->pending < l->step)
		return 0;
	double mv[M_N];
	for (int i = 0; i < M_N; i++) {
		mv[i] = l->accn[i] ? l->acc[i] / l->accn[i] : NAN;
		l->acc[i] = 0;
		l->accn[i] = 0;
	}
	int rc = put(l, l->acc_t / l->pending, mv);
	l->acc_t = 0;
	l->pending = 0;
	if (rc == 0 && l->n >= l->cap)
		rc = halve(l);
	if (rc)
		l->oom = true;
	return rc;
}

int runlog_record(const struct runlog *l, double t0, struct run_record *r)
{
	if (l->oom) {
		errno = ENOMEM;
		return -1;
	}
	if (run_record_alloc_series(r, l->n))
		return -1;
	if (l->n == 0)
		return 0;
	blob_decode(l->t.buf, l->t.len, T_QUANTUM, r->t, l->n);
	for (int k = 0; k < l->n; k++)
		r->t[k] -= t0;
	for (int i = 0; i < M_N; i++) {
		double *dst;

		if (!l->on[i])
			continue;
		if (!(dst = run_record_add_series(r, i)))
			return -1;
		blob_decode(l->v[i].buf, l->v[i].len, metric_def(i)->quantum, dst, l->n);
	}
	return 0;
}
