/* Turns a finished run, and the state it ran in, into a history record. */
#ifndef THRASHTOP_RECORD_H
#define THRASHTOP_RECORD_H

#include <time.h>

#include "history.h"
#include "metrics.h"
#include "result.h"
#include "runlog.h"
#include "sysstate.h"
#include "workload.h"

struct record_input {
	const struct run_result *res;
	const struct workload *wl;
	const struct sysstate *sys;
	time_t started;			/* wall clock at the run's start */
	const char *label;		/* NULL: none */
	const char *command;		/* NULL: a qsbench run */
	int repeat_k, repeat_n;
	const char *session, *cell;	/* NULL: not part of a sweep */
	int64_t mem_limit_kib, global_limit_kib, tmp_swap_kib;	/* HIST_NA / 0: none */
	int cgroup_new;			/* as the record's */
	const char *global_by;		/* what held --global's memory; NULL, "": none */
	const struct runlog *log;	/* the run's samples; NULL: none */
	const char *sysctls;		/* every sysctl the session set, as it is at
					   the end, one "name=value" a line; NULL: none.
					   The record keeps them as at the start:
					   a change made during the run is undone
					   with its old value. */
	const struct run_sysctl_change *changes;
	int nchanges;
};

/* The sysctls text at the start of a run from the text at its end and the
 * changes made during it (oldest first). Returns a malloc'd text, or NULL
 * when out of memory. Pure. */
char *record_sysctls_at_start(const char *at_end, const struct run_sysctl_change *changes,
			      int nchanges);

/* Fills r (initialised by the caller with run_record_init). Returns 0, or -1
 * when out of memory. */
int record_build(struct run_record *r, const struct record_input *in);

#endif
