/* A run's detail as lines with attributes: the one formatter of the
 * tables `history show` prints and the history view's detail screen draws
 * (the command's own figures, free before and after, the workers, OOM
 * victims, sysctl changes), and
 * the line list the view lays the rest of its texts in. */
#ifndef THRASHTOP_DETAIL_H
#define THRASHTOP_DETAIL_H

#include <stddef.h>

#include "runrec.h"

/* How a line is drawn; plain text ignores it. */
enum detail_attr {
	DA_PLAIN, DA_TITLE, DA_BAD, DA_DIM,
	DA_PLOT,		/* + enum run_series_id of the plotted series */
};

struct detail_line {
	char *text;
	int attr;
};

struct detail_lines {
	struct detail_line *v;
	size_t n, cap;
	int cols;		/* widest line */
};

void detail_lines_free(struct detail_lines *t);
/* Appends s (malloc'd, taken over; freed on failure). 0, or -1. */
int detail_take(struct detail_lines *t, int attr, char *s);
int detail_add(struct detail_lines *t, int attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The columns `history show` has always printed, or the screen's, which
 * also sets each table apart by a blank line and a title. */
enum detail_layout { DETAIL_SHOW, DETAIL_SCREEN };

/* r's own figures (--metric), free table, workers, OOM victims and sysctl
 * changes appended to t,
 * each part only when recorded. 0, or -1 (ENOMEM; the lines added so far stay). */
int detail_tables(const struct run_record *r, enum detail_layout l, struct detail_lines *t);

#endif
