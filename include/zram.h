/* A zram swap device of the session's own: hot_add through
 * /sys/class/zram-control (never a device that was there before), recorded
 * in the undo state at once, then comp_algorithm, disksize, the swap
 * header (swapfile_header) and swapon(2) at ZRAM_PRIO, above any other
 * swap. Removal is swapoff, reset, hot_remove. */
#ifndef THRASHTOP_ZRAM_H
#define THRASHTOP_ZRAM_H

#include <stdbool.h>
#include <stddef.h>

#define ZRAM_CONTROL "/sys/class/zram-control"
#define ZRAM_PRIO 32767		/* the highest swap priority: used first */

struct zram {
	int id;			/* N of zramN, -1 none */
	char name[16];		/* "zram3" */
	long long bytes;	/* disksize: a whole number of pages */
	char algo[32];		/* the compressor it runs */
	int prio;
	bool active;		/* swapon done */
};

/* Adds a device of bytes (rounded down to pages) compressing with algo
 * (NULL or "": the kernel's default) and turns it on as swap. An algorithm
 * zram lacks is refused naming those it has. Returns 0, or -1 with err
 * filled and nothing left behind. */
int zram_create(struct zram *z, long long bytes, const char *algo, char *err, size_t errlen);

/* swapoff, reset, hot_remove, and drop the undo record. On failure
 * (swapoff ENOMEM) the device stays on and recorded. 0, or -1 with err. */
int zram_remove(struct zram *z, char *err, size_t errlen);

/* The same for a name from the undo state ("zram3"). A device whose swap
 * header is not the one zram_create writes is left alone, said so. */
int zram_remove_name(const char *name, char *err, size_t errlen);

/* The algorithms zram offers, space-separated without the brackets round
 * the current one ("lzo-rle lzo lz4"), from
 * /sys/block/NAME/comp_algorithm. Returns 0, or -1 with errno. */
int zram_algorithms(const char *name, char *buf, size_t len);

/* Pure: the compressor in brackets in a comp_algorithm text, into buf;
 * without one buf is "". */
void zram_current_algo(const char *text, char *buf, size_t len);

#endif
