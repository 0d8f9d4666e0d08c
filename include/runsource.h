/* Where a report's runs come from, a group at a time, as ncdu's outputs
 * are fed: the history, read as SQL groups and orders them (memory is one
 * group's figures whatever it holds), or runs in memory. A group is the
 * runs of one config_hash; groups come ordered by their oldest run, a
 * group's runs oldest first (started_at, then id). A record a source hands
 * out is its own, valid until its next call of the same kind. Calls return
 * 0, or -1 with err filled. */
#ifndef THRASHTOP_RUNSOURCE_H
#define THRASHTOP_RUNSOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "history.h"

struct run_group {
	char hash[17];			/* config_hash */
	size_t n;			/* runs in it */
};

struct run_source {
	struct run_group *groups;
	size_t ngroups;
	/* Group g's oldest run, every field. */
	int (*first)(struct run_source *s, size_t g, const struct run_record **r,
		     char *err, size_t errlen);
	/* The figures of group g's runs, at most its n. */
	int (*figures)(struct run_source *s, size_t g,
		       int (*fn)(const struct run_figures *x, void *arg), void *arg,
		       char *err, size_t errlen);
	/* Group g's runs from its from'th on, with their figures and, with
	 * oom, an OOM-killed run's kind and workers. fn returns 0 to go on,
	 * -1 to stop (err filled or a write failed). */
	int (*runs)(struct run_source *s, size_t g, size_t from, bool oom,
		    int (*fn)(const struct run_record *r, void *arg), void *arg,
		    char *err, size_t errlen);
	/* The command's own figures (--metric) of group g's runs, oldest
	 * run first, as history_each_metric gives them: 0, fn's nonzero
	 * value, or -1 with err. */
	int (*own)(struct run_source *s, size_t g,
		   int (*fn)(int64_t id, enum run_status st, const struct run_metric *m,
			     void *arg), void *arg, char *err, size_t errlen);
	/* Group g's pos'th run whole with its series, if it has two samples
	 * or more: 1 (*r set), or 0 (*r untouched). */
	int (*charted)(struct run_source *s, size_t g, size_t pos, const struct run_record **r,
		       char *err, size_t errlen);
	void (*free)(struct run_source *s);
};

/* The runs f selects from h (f's limit and offset are not used); h and f's
 * strings must outlive the source. NULL with err filled. */
struct run_source *run_source_history(struct history *h, const struct history_filter *f,
				      char *err, size_t errlen);
/* runs[0..n), in any order; they must outlive the source. */
struct run_source *run_source_array(const struct run_record *runs, size_t n,
				    char *err, size_t errlen);
void run_source_free(struct run_source *s);

/* A record's figures as history_figures names them. */
void run_figures_of(const struct run_record *r, struct run_figures *x);

#endif
