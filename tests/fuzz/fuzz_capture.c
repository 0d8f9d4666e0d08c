/* A command's output as --metric reads it: any bytes, cut anywhere, give
 * each figure a number, no value, or not a number, never a crash; what
 * reads as a strict number is a finite one. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct capture *c;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const specs[] = { "tput:higher=Throughput ([0-9.]+) MB/sec",
		"secs=[0-9]+\\.?[0-9]*$", "any=(.*)" };
	char err[256], text[64];
	double v;

	if (!c) {
		struct capture_spec sp[3];

		for (int i = 0; i < 3; i++)
			if (capture_parse(specs[i], &sp[i], err, sizeof(err)))
				abort();
		if (!(c = capture_new(sp, 3, err, sizeof(err))))
			abort();
	}
	capture_reset(c);
	/* the first byte cuts the rest into reads of that many bytes */
	size_t step = size ? data[0] % 17 + 1 : 1;
	for (size_t i = size ? 1 : 0; i < size; i += step)
		capture_feed(c, (int)(i / step % CAPTURE_STREAMS), (const char *)data + i,
			     size - i < step ? size - i : step);
	capture_flush(c);
	for (int i = 0; i < capture_count(c); i++) {
		const struct capture_result *r = capture_result_at(c, i);

		if ((r->state == CAPTURE_VALUE) != isfinite(r->value))
			abort();
		capture_text(c, i, text, sizeof(text));
	}
	if (capture_number((const char *)data, size, &v) == 0 && !isfinite(v))
		abort();
	return 0;
}
