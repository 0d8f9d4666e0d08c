/* Comparisons of sets of stored runs against the first set, as mmtests'
 * compare-kernels prints them: what differs in their configuration, then
 * each figure's mean and median with the gain against the first and
 * whether it passes the noise. set[i] is the set run i belongs to (-1:
 * none), names label the nsets sets. Writes to a FILE; never exits. */
#ifndef THRASHTOP_COMPARE_H
#define THRASHTOP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "runrec.h"

/* The fields (history_filter.fields) a comparison reads: the rest of a
 * record may be left unknown. */
extern const char *const compare_fields[];

/* What differs in the configuration of each set against the first's
 * (vm.swappiness 70 -> 60, ...), as text, or as JSON ("configuration").
 * 0, or -1 with errno. */
int compare_config(FILE *f, const struct run_record *runs, size_t n, const int *set,
		   size_t nsets, const char *const *names, bool json);

/* The figures of each set beside the first's, over each set's completed
 * runs: Amean and Median, the gain, Welch's test, and OOM kills with
 * Fisher's test. 0, or -1 with err filled or on a write failure. */
int compare_figures(FILE *f, const struct run_record *runs, size_t n, const int *set,
		    size_t nsets, const char *const *names, char *err, size_t errlen);

#endif
