/* A fixed-capacity ring buffer of (t, value) samples for the plots. A NAN
 * value is a gap (the figure could not be read), never a zero. Once full,
 * each push drops the oldest sample. */
#ifndef THRASHTOP_SERIES_H
#define THRASHTOP_SERIES_H

struct series {
	double *t, *v;		/* cap entries each */
	int cap, len;
	int head;		/* index of the oldest sample */
	long long pushed;	/* since init or clear: plots pair samples by it */
};

/* Allocates room for cap samples. Returns 0, or -1 with errno set
 * (EINVAL for cap < 1, ENOMEM). */
int series_init(struct series *s, int cap);
void series_free(struct series *s);
void series_clear(struct series *s);

/* t in seconds (any monotonic clock, non-decreasing); v may be NAN. */
void series_push(struct series *s, double t, double v);

int series_len(const struct series *s);

/* The i-th sample counting from the oldest. Returns 0, or -1 if i is out of
 * range (t and v untouched). Either pointer may be NULL. */
int series_get(const struct series *s, int i, double *t, double *v);

/* The newest value, NAN if empty or a gap. */
double series_last(const struct series *s);

/* The index of the first sample at or after time t, series_len when none:
 * samples are pushed in time order. */
int series_find(const struct series *s, double t);

/* Min and max over the newest n samples (all if n exceeds the length),
 * ignoring gaps. Returns how many non-NAN values there were; with none,
 * *min and *max are NAN. */
int series_minmax(const struct series *s, int n, double *min, double *max);

/* Reduces the series to at most npoints points, oldest first: consecutive
 * samples are grouped into npoints buckets of equal sample count (differing
 * by at most one), and each point is the mean time and the mean of the
 * non-NAN values of its bucket (NAN if all are gaps). A mean of rates keeps
 * the total count when the samples are evenly spaced. With no more samples
 * than npoints they are copied unchanged. Returns the number of points
 * written, or -1 with errno EINVAL if npoints < 1. */
int series_downsample(const struct series *s, int npoints,
		      double *out_t, double *out_v);

#endif
