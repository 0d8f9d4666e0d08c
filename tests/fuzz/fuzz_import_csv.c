/* Our own csv export read back: runs or one error line, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	struct run_record *runs;
	size_t n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (import_csv(s, &runs, &n, err, sizeof(err)) == 0)
		run_records_free(runs, n);
	free(s);
	return 0;
}
