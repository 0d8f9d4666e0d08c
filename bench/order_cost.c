/* What putting a tracer round's reclaim events in time order costs:
 * rc_order's merge of the runs a round holds against qsort of the whole
 * round, as the tracer did before. A round is what the last one held back
 * (a twentieth) and two CPUs' buffers whose events interleave in time.
 * CPU time of this thread over 2,000 rounds each, the copy of the round
 * into place (done either way) left out.
 *   build/order_cost [EVENTS...]   (default 300 3000 30000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reclaim.h"

#define ROUNDS 2000

static int by_time(const void *a, const void *b)
{
	const struct rc_event *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void one(size_t n)
{
	struct rc_event *src = calloc(n, sizeof(*src)), *v = calloc(n, sizeof(*v)),
			*tmp = calloc(n, sizeof(*tmp));
	size_t held = n / 20, cpu1 = held + (n - held) / 2;
	double t, copy, sorted, merged;

	if (!src || !v || !tmp) {
		fprintf(stderr, "order_cost: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < held; i++)
		src[i].ns = 1000 + i * 7;
	for (size_t i = held; i < cpu1; i++)
		src[i].ns = 1000 + (i - held) * 13;
	for (size_t i = cpu1; i < n; i++)
		src[i].ns = 1005 + (i - cpu1) * 13;
	t = cpu_s();
	for (int r = 0; r < ROUNDS; r++)
		memcpy(v, src, sizeof(*v) * n);
	copy = cpu_s() - t;
	t = cpu_s();
	for (int r = 0; r < ROUNDS; r++) {
		memcpy(v, src, sizeof(*v) * n);
		qsort(v, n, sizeof(*v), by_time);
	}
	sorted = cpu_s() - t - copy;
	t = cpu_s();
	for (int r = 0; r < ROUNDS; r++) {
		size_t at[] = { 0, held, cpu1, n };

		memcpy(v, src, sizeof(*v) * n);
		rc_order(v, tmp, at, 3);
	}
	merged = cpu_s() - t - copy;
	printf("%6zu events a round: qsort %8.1f us, rc_order %7.1f us\n", n,
	       sorted / ROUNDS * 1e6, merged / ROUNDS * 1e6);
	free(src);
	free(v);
	free(tmp);
}

int main(int argc, char **argv)
{
	static const size_t dflt[] = { 300, 3000, 30000 };

	if (argc < 2)
		for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++)
			one(dflt[i]);
	for (int i = 1; i < argc; i++) {
		long n = atol(argv[i]);

		if (n < 1) {
			fprintf(stderr, "order_cost: '%s' is not a count of events\n", argv[i]);
			return 2;
		}
		one((size_t)n);
	}
	return 0;
}
