/* zswap's module parameters (/sys/module/zswap/parameters): read them, set
 * enabled, compressor and max_pool_percent for a session (each old value
 * recorded in the undo state before it is written), and put them back.
 * The compressors zswap takes come from the crypto API, not from a list
 * the kernel prints: they are found by writing each candidate and seeing
 * which the kernel accepts, the old compressor written back after. */
#ifndef THRASHTOP_ZSWAP_H
#define THRASHTOP_ZSWAP_H

#include <stdbool.h>
#include <stddef.h>

#define ZSWAP_PARAMS "/sys/module/zswap/parameters"

struct zswap_params {
	bool present;		/* the directory exists */
	char enabled[8];	/* "Y", "N" */
	char compressor[32];
	int pool_pct;		/* max_pool_percent, -1 unknown */
};

/* What the kernel holds now; without zswap present is false. */
void zswap_read(struct zswap_params *p);

/* Pure: "lzo-rle" or "lzo-rle:25" into algo and pool (-1 when not given);
 * "off" gives algo "". Returns 0, or -1 with err filled. */
int zswap_parse(const char *arg, char *algo, size_t len, int *pool, char *err, size_t errlen);

/* Checks that zswap can take algo before anything is set: root, zswap
 * present, and the compressor accepted (tried, and the old one written
 * back). A refusal names the compressors the kernel takes. 0, or -1. */
int zswap_check(const char *algo, char *err, size_t errlen);

/* algo "" turns zswap off; otherwise compressor algo, max_pool_percent
 * pool (-1 leaves it) and enabled Y. Returns 0, or -1 with err filled (what
 * was written stays recorded for zswap_restore). */
int zswap_set(const char *algo, int pool, char *err, size_t errlen);

/* Writes back every parameter this process recorded, enabled first, and
 * drops the records. 0, or -1 with err (the rest stays recorded). */
int zswap_restore(char *err, size_t errlen);

/* Whether this process changed zswap (a record is there). */
bool zswap_touched(void);

/* The undo state's revert for a parameter path: writes val back. */
int zswap_param_write(const char *path, const char *val, char *err, size_t errlen);

#endif
