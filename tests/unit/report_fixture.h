/* The runs the report tests print, and the golden files in tests/golden
 * their outputs are held to. */
#ifndef THRASHTOP_TEST_REPORT_FIXTURE_H
#define THRASHTOP_TEST_REPORT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "history.h"

/* Two configurations (swappiness 60 and 100) of three runs each, the
 * second with an OOM kill; then a command run: 7 runs into v[8].
 * Deterministic. */
void fixture_runs(struct run_record *v, size_t *n);

/* Runs of the given wall, user and sys microseconds, one group, procs 1. */
void timed_runs(struct run_record *v, int n, const int64_t *wall, const int64_t *usr,
		const int64_t *sys);

/* What fn(f, v, n, arg) writes, checked to return 0; the caller frees it. */
char *render(int (*fn)(FILE *, const struct run_record *, size_t, void *),
	     const struct run_record *v, size_t n, void *arg);

/* got against tests/golden/name byte for byte; THRASHTOP_UPDATE_GOLDEN=1
 * rewrites the file instead. */
void golden(const char *name, const char *got);

#endif
