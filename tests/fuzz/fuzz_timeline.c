/* Posted csh and GNU time lines: a line that parses prints again without
 * overflowing, and parsing never reads past the terminating NUL. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "timefmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char out[512];
	struct timeline t;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (timefmt_parse_csh(s, &t) == 0) {
		timefmt_csh(out, sizeof(out), &t);
		timefmt_gnu(out, sizeof(out), &t);
	}
	if (timefmt_parse_gnu(s, &t) == 0) {
		timefmt_gnu_default(out, sizeof(out), &t);
		timefmt_csh(out, sizeof(out), &t);
	}
	free(s);
	return 0;
}
