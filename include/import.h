/* Our own exports (export.h) read back into runs: JSON through SQLite's
 * JSON functions, CSV as RFC 4180 records whose nested cells hold JSON.
 * Never exits; failures fill err with one line naming the record at fault. */
#ifndef THRASHTOP_IMPORT_H
#define THRASHTOP_IMPORT_H

#include <stddef.h>

#include "history.h"

/* Each returns a malloc'd array (run_records_free) and 0, or -1 with err. */
int import_json(const char *text, struct run_record **out, size_t *n,
		char *err, size_t errlen);
int import_csv(const char *text, struct run_record **out, size_t *n,
	       char *err, size_t errlen);

#endif
