/* free(1) blocks: a block that parses prints again in its layout, and the
 * print parses back to the same figures. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "freeblk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), out[1024];
	struct free_parsed f, g;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (freeblk_parse(s, &f) > 0 && !f.human &&
	    freeblk_print(out, sizeof(out), &f) < sizeof(out)) {
		if (freeblk_parse(out, &g) <= 0 || g.total != f.total || g.swap_free != f.swap_free)
			abort();
	}
	free(s);
	return 0;
}
