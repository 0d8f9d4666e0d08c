#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "series.h"

int series_init(struct series *s, int cap)
{
	s->t = s->v = NULL;
	s->cap = s->len = s->head = 0;
	s->pushed = 0;
	if (cap < 1) {
		errno = EINVAL;
		return -1;
	}
	s->t = malloc((size_t)cap * sizeof(*s->t));
	s->v = malloc((size_t)cap * sizeof(*s->v));
	if (!s->t || !s->v) {
		series_free(s);
		errno = ENOMEM;
		return -1;
	}
	s->cap = cap;
	return 0;
}

void series_free(struct series *s)
{
	free(s->t);
	free(s->v);
	s->t = s->v = NULL;
	s->cap = s->len = s->head = 0;
}

void series_clear(struct series *s)
{
	s->len = s->head = 0;
	s->pushed = 0;
}

void series_push(struct series *s, double t, double v)
{
	int i;

	if (s->cap < 1)
		return;
	if (s->len < s->cap) {
		i = (s->head + s->len) % s->cap;
		s->len++;
	} else {
		i = s->head;
		s->head = (s->head + 1) % s->cap;
	}
	s->t[i] = t;
	s->v[i] = v;
	s->pushed++;
}

int series_len(const struct series *s)
{
	return s->len;
}

int series_get(const struct series *s, int i, double *t, double *v)
{
	int k;

	if (i < 0 || i >= s->len)
		return -1;
	k = (s->head + i) % s->cap;
	if (t)
		*t = s->t[k];
	if (v)
		*v = s->v[k];
	return 0;
}

double series_last(const struct series *s)
{
	double v = NAN;

	series_get(s, s->len - 1, NULL, &v);
	return v;
}

int series_minmax(const struct series *s, int n, double *min, double *max)
{
	int cnt = 0, idx;
	double lo = NAN, hi = NAN;

	if (n > s->len)
		n = s->len;
	if (n < 0)
		n = 0;
	/* the ring read directly: every plot's scale reads its window each
	 * frame */
	idx = n ? (s->head + s->len - n) % s->cap : 0;
	for (int i = 0; i < n; i++) {
		double v = s->v[idx];

		if (++idx == s->cap)
			idx = 0;
		if (isnan(v))
			continue;
		if (!cnt || v < lo)
			lo = v;
		if (!cnt || v > hi)
			hi = v;
		cnt++;
	}
	*min = lo;
	*max = hi;
	return cnt;
}

int series_downsample(const struct series *s, int npoints,
		      double *out_t, double *out_v)
{
	if (npoints < 1) {
		errno = EINVAL;
		return -1;
	}
	if (s->len <= npoints) {
		for (int i = 0; i < s->len; i++)
			series_get(s, i, &out_t[i], &out_v[i]);
		return s->len;
	}
	for (int b = 0; b < npoints; b++) {
		int lo = (int)((int64_t)b * s->len / npoints);
		int hi = (int)((int64_t)(b + 1) * s->len / npoints);
		double st = 0, sv = 0, t = 0, v = NAN;
		int nv = 0;

		for (int i = lo; i < hi; i++) {
			series_get(s, i, &t, &v);
			st += t;
			if (!isnan(v)) {
				sv += v;
				nv++;
			}
		}
		out_t[b] = st / (hi - lo);
		out_v[b] = nv ? sv / nv : NAN;
	}
	return npoints;
}

int series_find(const struct series *s, double t)
{
	int lo = 0, hi = series_len(s);
	double ti = 0;	/* mid is always in range: series_get sets it */

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		series_get(s, mid, &ti, NULL);
		if (ti < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
