/* Stage: the run's log, part of the run (run.h). One run's samples of every
 * recorded registry series, kept as they come in the history's compact form
 * (blob.h), so a long run at a short interval costs one to three bytes a
 * sample a series. Up to cap samples are kept one for one; at cap, pairs
 * are merged into their means and from then on each kept sample is the mean
 * of twice as many, so the whole run is always there. Pure: no I/O. */
#ifndef THRASHTOP_RUNLOG_H
#define THRASHTOP_RUNLOG_H

#include <stdbool.h>

#include "blob.h"
#include "metrics.h"
#include "runrec.h"

struct runlog {
	int cap, n;		/* samples kept, at most cap */
	bool on[M_N];		/* the series recorded */
	struct blob t, v[M_N];
	int step;		/* samples merged into each kept one */
	int pending;		/* samples gathered for the next kept one */
	double acc_t, acc[M_N];
	int accn[M_N];		/* non-gap samples in acc */
	bool oom;
};

/* Starts an empty log of the series on[] (cap >= 2). */
void runlog_begin(struct runlog *l, const bool on[M_N], int cap);

/* One tick: t (seconds, any clock) and every series' value (NAN: a gap).
 * 0, or -1 when out of memory (the log is then unusable). */
int runlog_push(struct runlog *l, double t, const double v[M_N]);

/* The samples into r's t (less t0) and series. 0, or -1 with errno. */
int runlog_record(const struct runlog *l, double t0, struct run_record *r);

void runlog_free(struct runlog *l);

#endif
