/* Cross tables of stored runs: the median wall time of the runs at each
 * value of one key (--rows) and another (--cols), with its CoV and count,
 * and what the figures leave out (kills, failures) in the cells. */
#ifndef THRASHTOP_CROSSTAB_H
#define THRASHTOP_CROSSTAB_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"

/* The table of runs by o->rows down and o->cols across (run_key names),
 * values in order (numbers by value), runs printed in the order given.
 * Returns 0, or -1 (errno) on a write or allocation failure, or with err
 * filled on a key that is not known. */
int crosstab_print(FILE *f, const struct run_record *runs, size_t n, const struct report_opts *o,
		   char *err, size_t errlen);

#endif
