#include <math.h>
#include <stdlib.h>

#include "blob.h"
#include "check.h"

TEST(blob_roundtrip_with_gaps)
{
	struct blob b = { 0 };
	double in[] = { 0, 1, 2, 1000000, 999999.5, NAN, -3, 24.0 * 1024 * 1024, NAN, NAN, 7 };
	int n = (int)(sizeof(in) / sizeof(in[0]));
	double out[16];

	for (int i = 0; i < n; i++)
		CHECK_INT(blob_put(&b, in[i], 1), 0);
	CHECK_INT(b.buf[0], BLOB_FORMAT);
	CHECK_INT(blob_decode(b.buf, b.len, 1, out, 16), n);
	for (int i = 0; i < n; i++) {
		if (isnan(in[i]))
			CHECK(isnan(out[i]));
		else
			CHECK_NEAR(out[i], round(in[i]), 0);
	}
	/* max cuts the output, not the input */
	CHECK_INT(blob_decode(b.buf, b.len, 1, out, 3), 3);
	blob_free(&b);
	CHECK(b.buf == NULL && b.len == 0);
}

TEST(blob_quantum_and_size)
{
	struct blob b = { 0 };
	double out[1000];

	/* a rate that moves a little each sample: about one byte per sample */
	for (int i = 0; i < 1000; i++)
		blob_put(&b, 1234.567 + (i % 7) * 0.01, 0.001);
	CHECK(b.len < 2 * 1000 + 1);
	CHECK_INT(blob_decode(b.buf, b.len, 0.001, out, 1000), 1000);
	for (int i = 0; i < 1000; i++)
		CHECK_NEAR(out[i], 1234.567 + (i % 7) * 0.01, 0.0005);
	blob_free(&b);
	/* a constant: one byte a sample */
	for (int i = 0; i < 100; i++)
		blob_put(&b, 42, 1);
	CHECK_INT(b.len, 1 + 1 + 99);	/* format, the first value, 99 zero deltas */
	blob_free(&b);
}

TEST(blob_extremes_clamped)
{
	struct blob b = { 0 };
	double out[4];

	blob_put(&b, 1e300, 1);
	blob_put(&b, -1e300, 1);
	blob_put(&b, INFINITY, 1);
	blob_put(&b, 5, 1);
	CHECK_INT(blob_decode(b.buf, b.len, 1, out, 4), 4);
	CHECK_NEAR(out[0], (double)BLOB_LIMIT, 0);
	CHECK_NEAR(out[1], -(double)BLOB_LIMIT, 0);
	CHECK(isnan(out[2]));
	CHECK_NEAR(out[3], 5, 0);
	blob_free(&b);
}

TEST(blob_decode_rejects_garbage)
{
	unsigned char bad_fmt[] = { 9, 1, 2 };
	unsigned char cut[] = { BLOB_FORMAT, 0x81 };	/* continuation, then nothing */
	unsigned char too_long[13] = { BLOB_FORMAT };
	double out[8];

	for (int i = 1; i < 13; i++)
		too_long[i] = 0xff;
	CHECK_INT(blob_decode(bad_fmt, sizeof(bad_fmt), 1, out, 8), -1);
	CHECK_INT(blob_decode(cut, sizeof(cut), 1, out, 8), -1);
	CHECK_INT(blob_decode(too_long, sizeof(too_long), 1, out, 8), -1);
	CHECK_INT(blob_decode(NULL, 0, 1, out, 8), 0);
}
