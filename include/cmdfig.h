/* A command's own figures (--metric) over runs, as the reports take them:
 * each name's known values gathered, the names in order, and a figure as
 * history stats, compare and check print it. Pure: no I/O. */
#ifndef THRASHTOP_CMDFIG_H
#define THRASHTOP_CMDFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "capture.h"

struct cmdfig {
	char name[CAPTURE_NAME_MAX + 1];
	bool higher;		/* higher is better, as the first run that had it said */
	double *x;		/* the values known */
	size_t n, cap;
};

struct cmdfigs {
	struct cmdfig *v;	/* in name order */
	size_t n;
};

/* Adds v to name's values; a NAN only makes the name known. 0, or -1
 * (ENOMEM). */
int cmdfigs_add(struct cmdfigs *s, const char *name, bool higher, double v);

/* name's index, or -1. */
int cmdfigs_find(const struct cmdfigs *s, const char *name);

void cmdfigs_free(struct cmdfigs *s);

/* v as the reports print a command's figure: at most 6 significant
 * digits, fewer where it would pass 9 columns; "n/a" for NAN. Returns
 * the value as printed, which changes are reckoned from (NAN for n/a). */
double cmdfig_text(char *buf, size_t len, double v);

#endif
