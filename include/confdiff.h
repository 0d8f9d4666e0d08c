/* What differs between the configurations of two runs: the canonical
 * configuration's keys (run_record_config), the kernel's command line and
 * the kinds of swap, each named as a reply would name it ("vm.swappiness",
 * "mem limit") with its value as the monitor shows it ("512M"). */
#ifndef THRASHTOP_CONFDIFF_H
#define THRASHTOP_CONFDIFF_H

#include <stddef.h>
#include <stdio.h>

#include "runrec.h"

struct conf_diff {
	char key[64];
	/* "-": not set on that side, or empty. Values are compared whole;
	 * where one does not fit here, both are shown from a little before
	 * where they first differ ("...quiet mem=256M"), cut with "...". */
	char from[256], to[256];
};

/* Pure: the keys whose values differ from a to b, in the canonical order
 * (a's keys, then those only b has), up to max into d. a and b need
 * config (computed if absent), proc_cmdline and swap_devices. Returns how
 * many differ (more than max when they do not all fit), -1 out of memory. */
int conf_diff(const struct run_record *a, const struct run_record *b,
	      struct conf_diff *d, size_t max);

/* One line a key, "vm.swappiness  60 -> 100", or "same configuration",
 * each after indent. */
void conf_diff_text(FILE *f, const char *indent, const struct conf_diff *d, size_t n);
/* The same as a JSON object: {"set": set, "against": against, "same":
 * true|false, "differs": [{"key", "from", "to"}...]}. */
void conf_diff_json(FILE *f, const char *set, const char *against,
		    const struct conf_diff *d, size_t n);

#endif
