/* A stored run drawn behind the live plots (--against): its series taken
 * at the live samples' times, aligned on the start of each live run, so
 * that "kernel A against kernel B" is seen while B runs. Reads the
 * history once at the start; never draws. */
#ifndef THRASHTOP_AGAINST_H
#define THRASHTOP_AGAINST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "runrec.h"
#include "series.h"

struct history;

struct against {
	bool have;
	struct run_record run;		/* with its series */
	struct series view[M_N];	/* one value per live sample */
	char legend[192];		/* "faint: run 12 "label"" */
};

/* Loads run id with its series from h and sets up cap samples of window
 * per series. 0, or -1 with err ("--against 12: no run 12 in the history",
 * a run kept without series). */
int against_load(struct against *a, struct history *h, int64_t id, int cap,
		 char *err, size_t errlen);

/* Pure: series id of r at rel seconds after its start: the last sample
 * taken at or before rel; NAN before the first, past the run's end (one
 * interval after its last sample), or where the series was not kept. */
double against_value(const struct run_record *r, int id, double rel);

/* One value per series at live time t for a run that started at start
 * (NAN: none is going, every value a gap). */
void against_push(struct against *a, double t, double start);

void against_free(struct against *a);

#endif
