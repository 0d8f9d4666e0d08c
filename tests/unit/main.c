#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#define MAX_TESTS 1024

static struct { const char *name; void (*fn)(void); } tests[MAX_TESTS];
static int ntests, failures;

void t_register(const char *name, void (*fn)(void))
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "unit: more than %d tests\n", MAX_TESTS);
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests++].fn = fn;
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	failures++;
	fprintf(stdout, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* Runs every test, or those whose name contains argv[1]; says which took
 * a second or more, since the unit lane is part of make check's time. */
int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		int before = failures;
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		tests[i].fn();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (s >= 1.0)
			printf("  %s took %.1f s\n", tests[i].name, s);
		if (failures == before) {
			printf("PASS unit/%s\n", tests[i].name);
			passed++;
		} else {
			printf("FAIL unit/%s\n", tests[i].name);
			failed++;
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
