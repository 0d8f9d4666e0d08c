/* Our own csv export read back: runs or one error line, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every run must come out whole: a copy of it is taken and dropped. */
static int take(void *arg, struct run_record *r, char *err, size_t errlen)
{
	struct run_record copy;

	(void)arg;
	(void)err;
	(void)errlen;
	if (run_record_copy(&copy, r))
		return -1;
	run_record_clear(&copy);
	return 0;
}

static void skipped(void *arg, const char *line)
{
	(void)arg;
	(void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	const struct import_sink sink = { take, skipped, NULL };

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	import_csv(s, &sink, err, sizeof(err));
	free(s);
	return 0;
}
