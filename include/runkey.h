/* A run's keys by name, as the reports read them: a table's or a sweep's
 * key ("kernel", "swappiness", any field) to its field, and a field's
 * value as a reader wants it (sizes in K/M/G, "none" for no limit). */
#ifndef THRASHTOP_RUNKEY_H
#define THRASHTOP_RUNKEY_H

#include <stdbool.h>
#include <stddef.h>

#include "runrec.h"

/* A key ("kernel", "swappiness", any history_fields name, "vm." before
 * a sysctl's) to the field, NULL if unknown. Aliases: kernel, mem, memory,
 * global, swap, host, ram, page-cluster. */
const struct hist_field *run_key(const char *name);

/* Field f of r as a reader wants it: sizes in K/M/G, a limit not set
 * "none", a sorter's figure of a command "-", text cut between characters
 * with a mark, an unknown value "n/a". */
void run_key_text(const struct run_record *r, const struct hist_field *f, char *buf, size_t len);

/* A text field's own value, whole (a command has no bound): what tells
 * two runs' values apart. NULL for the other fields. */
const char *run_key_whole(const struct run_record *r, const struct hist_field *f);

/* Whether f is a size in KiB, which run_key_text gives in K/M/G. */
bool run_key_kib(const struct hist_field *f);

#endif
