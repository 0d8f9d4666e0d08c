/* Comparisons of sets of stored runs against the first set, as mmtests'
 * compare-kernels prints them: the runs each set names, read from the
 * history; what differs in their configuration; each figure's mean and
 * median with the gain against the first and whether it passes the noise.
 * set[i] is the set run i belongs to (-1: none), names label the nsets
 * sets. Writes to a FILE; never exits. */
#ifndef THRASHTOP_COMPARE_H
#define THRASHTOP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "history.h"

/* The fields (history_filter.fields) a comparison reads: the rest of a
 * record may be left unknown. */
extern const char *const compare_fields[];

/* What differs in the configuration of each set against the first's
 * (vm.swappiness 70 -> 60, ...), then the figures (compare_figures), as
 * history compare prints them; with json, only the differences, as JSON
 * ("configuration"). 0, or -1 with err filled or on a write failure. */
int compare_print(FILE *f, const struct run_record *runs, size_t n, const int *set,
		  size_t nsets, const char *const *names, bool json, char *err, size_t errlen);

/* The figures of each set beside the first's, over each set's completed
 * runs: Amean and Median, the gain, Welch's test, and OOM kills with
 * Fisher's test. 0, or -1 with err filled or on a write failure. */
int compare_figures(FILE *f, const struct run_record *runs, size_t n, const int *set,
		    size_t nsets, const char *const *names, char *err, size_t errlen);

/* What names a set. */
enum compare_by {
	COMPARE_RUN,		/* one run */
	COMPARE_GROUP,		/* every run of a run's group (its config_hash) */
	COMPARE_LABEL,		/* every run of a label, exactly: * ? [ are themselves */
	COMPARE_SESSION,	/* every run of a session, a set for each cell it
				   ran: each place beside others, each cell of a
				   sweep, in the order they began */
};

struct compare_arg {
	enum compare_by by;
	int64_t id;		/* the run, or the run whose group it is */
	const char *label;
	int set;		/* compare_collect's: the arg's (first) set, -1 where it
				   took no run */
	const char *session;	/* COMPARE_SESSION's id */
	const char *text;	/* what names its set; NULL "" */
};

/* The runs of a comparison, newest first, and their sets. */
struct compare_sets {
	struct run_record *runs;
	size_t n;
	int *set;		/* n entries */
	size_t nsets;
	char **names;		/* nsets entries: each set's arg's text, a session's
				   sets their cells */
};

/* Reads from h the runs args[0..nargs) name, only fields of them (NULL:
 * every field, without workers or series). An arg's set is the runs it
 * names that no earlier arg took: args[i].set numbers it among the args
 * that took any, -1 where arg i took none (there is no such run, or the
 * earlier args took them all). 0, or -1 with err filled and c empty. */
int compare_collect(struct history *h, struct compare_arg *args, size_t nargs,
		    const char *const *fields, struct compare_sets *c, char *err, size_t errlen);
void compare_sets_free(struct compare_sets *c);

#endif
