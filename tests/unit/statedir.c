#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "statedir.h"

static char dir[96];

void statedir_begin(const char *tag)
{
	snprintf(dir, sizeof dir, "/tmp/thrashtop-%s-test-XXXXXX", tag);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	setenv("THRASHTOP_STATE_DIR", dir, 1);
}

void statedir_end(void)
{
	const char *names[] = { "state", "state.tmp", "lock" };
	char p[160];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	unsetenv("THRASHTOP_STATE_DIR");
}
