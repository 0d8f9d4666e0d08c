/* The command line: NUL-separated arguments after the program name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	char *argv[66];
	int argc = 0;
	char err[256];
	struct options o;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	argv[argc++] = "thrashtop";
	for (char *p = s; p < s + size && argc < 65; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	if (cli_parse(argc, argv, &o, err, sizeof(err)) >= 0)
		cli_free(&o);
	free(s);
	return 0;
}
