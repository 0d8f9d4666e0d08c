/* One sorter worker in this process, exactly what a workload worker runs:
 * the half of the sort benchmark that times our code against qsbench. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sorter.h"

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sort_progress prog;
	long n, seed;
	int r;

	if (argc != 3 || parse_long(argv[1], &n) < 0 || parse_long(argv[2], &seed) < 0 ||
	    seed > 0xffffffffL) {
		fprintf(stderr, "usage: sortbench NELEMS SEED\n");
		return 1;
	}
	r = sorter_run(n, (unsigned)seed, &prog);
	if (r < 0) {
		fprintf(stderr, "sortbench: cannot allocate %ld elements: %s\n", n, strerror(errno));
		return 1;
	}
	if (r > 0) {
		fprintf(stderr, "sortbench: %ld pairs out of order, first at %ld\n",
			atomic_load(&prog.errors), atomic_load(&prog.first_bad));
		return 2;
	}
	return 0;
}
