#include "blob.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct blob *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->len + more > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		unsigned char *nb;

		while (cap < b->len + more)
			cap *= 2;
		nb = realloc(b->buf, cap);
		if (!nb) {
			b->oom = true;
			return -1;
		}
		b->buf = nb;
		b->cap = cap;
	}
	return 0;
}

int blob_put(struct blob *b, double v, double quantum)
{
	uint64_t tok;
	int64_t q;

	if (reserve(b, 11))
		return -1;
	if (b->len == 0)
		b->buf[b->len++] = BLOB_FORMAT;
	if (!isfinite(v)) {
		tok = 0;
	} else {
		double x = round(v / quantum);

		if (x > (double)BLOB_LIMIT)
			x = (double)BLOB_LIMIT;
		if (x < -(double)BLOB_LIMIT)
			x = -(double)BLOB_LIMIT;
		q = (int64_t)x;
		int64_t d = q - b->last;
		tok = (((uint64_t)d << 1) ^ (uint64_t)(d >> 63)) + 1;
		b->last = q;
	}
	do {
		unsigned char c = tok & 0x7f;
		tok >>= 7;
		b->buf[b->len++] = c | (tok ? 0x80 : 0);
	} while (tok);
	return 0;
}

void blob_free(struct blob *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

int blob_decode(const unsigned char *buf, size_t len, double quantum,
		double *out, int max)
{
	size_t i = 1;
	int64_t last = 0;
	int n = 0;

	if (len == 0)
		return 0;
	if (buf[0] != BLOB_FORMAT)
		return -1;
	while (i < len && n < max) {
		uint64_t tok = 0;
		int shift = 0;

		for (;;) {
			if (i >= len || shift > 63)
				return -1;
			unsigned char c = buf[i++];
			tok |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
			if (!(c & 0x80))
				break;
		}
		if (tok == 0) {
			out[n++] = NAN;
			continue;
		}
		tok--;
		int64_t d = (int64_t)(tok >> 1) ^ -(int64_t)(tok & 1);
		last = (int64_t)((uint64_t)last + (uint64_t)d);	/* garbage wraps, never UB */
		out[n++] = (double)last * quantum;
	}
	return n;
}
