/* The history's runs as JSON and CSV: every field of history_fields, the
 * free(1) snapshots, the workers, the sysctl changes, the reclaim events
 * and the series (in CSV each of the last four a cell of JSON text, as
 * the JSON has it), in a form import.h reads back to the same records.
 * Writes to a FILE; never exits. */
#ifndef THRASHTOP_EXPORT_H
#define THRASHTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runrec.h"

/* Runs in the order given. Return 0, or -1 (errno) on a write failure. */
int export_json(FILE *f, const struct run_record *runs, size_t n);
int export_csv(FILE *f, const struct run_record *runs, size_t n);

/* The same a run at a time, for exports that stream from the history:
 * begin, each run (first true for the first), then end, which returns as
 * above. */
void export_json_begin(FILE *f);
void export_json_run(FILE *f, const struct run_record *r, bool first);
int export_json_end(FILE *f);
void export_csv_begin(FILE *f);
void export_csv_run(FILE *f, const struct run_record *r);
int export_csv_end(FILE *f);

/* A number as the exports print one, for other data (stats
 * --format=json/csv): v unrounded (fmt_exact), an unknown one JSON's null
 * or CSV's empty field. Strings go out through fmt_json_str and
 * fmt_csv_cell. */
void export_num(FILE *f, double v, bool json);


#endif
