/* Sizes and durations as the command line takes them (--mem 512M, -d 0.5). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char out[64];
	int64_t bytes;
	double sec;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (fmt_parse_size(s, &bytes) == 0)
		fmt_kib(out, sizeof(out), bytes / 1024);
	if (fmt_parse_seconds(s, &sec) == 0)
		fmt_duration(out, sizeof(out), sec);
	fmt_text_cols(s);
	fmt_cut_bytes(s, 10);
	free(s);
	return 0;
}
