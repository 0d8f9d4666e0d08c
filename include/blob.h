/* The history's compact form of a sampled series: each value rounded to a
 * quantum (1 KiB, 0.001/s ...), stored as the zigzag LEB128 varint of its
 * difference from the previous value, plus one, with 0 for a gap (NAN).
 * Slowly moving figures take one or two bytes a sample. The first byte is
 * the format, BLOB_FORMAT. Pure. */
#ifndef THRASHTOP_BLOB_H
#define THRASHTOP_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BLOB_FORMAT 1
/* Values beyond this many quanta from 0 are kept at this bound. */
#define BLOB_LIMIT (INT64_C(1) << 53)

struct blob {
	unsigned char *buf;
	size_t len, cap;
	int64_t last;		/* the previous value, in quanta */
	bool oom;		/* an append failed: the blob is unusable */
};

/* Appends v (NAN or infinite: a gap). 0, or -1 when out of memory (then
 * oom stays set and every later append fails too). */
int blob_put(struct blob *b, double v, double quantum);

void blob_free(struct blob *b);

/* Decodes up to max values of a blob of len bytes into out. Returns how
 * many, or -1 when the blob is not one (bad format byte, a varint cut
 * short or too long). */
int blob_decode(const unsigned char *buf, size_t len, double quantum,
		double *out, int max);

#endif
