#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sorter.h"

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* Sorts a copy with sorter_quicksort and with qsort(); both must agree and
 * the sort must report every element placed. */
static void check_sorts_like_qsort(const int *in, long n)
{
	int *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
	struct sort_progress p = { .n = n };

	CHECK(a && b);
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	memcpy(a, in, n * sizeof *a);
	memcpy(b, in, n * sizeof *b);
	sorter_quicksort(a, 0, n - 1, &p);
	qsort(b, n, sizeof *b, cmp_int);
	CHECK(memcmp(a, b, n * sizeof *a) == 0);
	CHECK_INT(atomic_load(&p.done), n);
	CHECK_INT(sorter_verify(a, n, NULL), 0);
	free(a);
	free(b);
}

TEST(sorter_matches_qsort_on_rand_data)
{
	static const long sizes[] = { 0, 1, 2, 3, 10, 1000, 100000, 1000003 };
	static const unsigned seeds[] = { 1, 2, 12345 };

	for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			long n = sizes[k];
			int *in = malloc((n ? n : 1) * sizeof *in);

			CHECK(in != NULL);
			if (!in)
				return;
			srand(seeds[s]);
			for (long i = 0; i < n; i++)
				in[i] = rand();
			check_sorts_like_qsort(in, n);
			free(in);
		}
	}
}

TEST(sorter_matches_qsort_on_special_inputs)
{
	enum { N = 50001 };
	int *in = malloc(N * sizeof *in);

	CHECK(in != NULL);
	if (!in)
		return;
	for (int kind = 0; kind < 5; kind++) {
		for (long i = 0; i < N; i++) {
			switch (kind) {
			case 0: in[i] = 7; break;			/* all equal */
			case 1: in[i] = (int)i; break;			/* sorted */
			case 2: in[i] = (int)(N - i); break;		/* reversed */
			case 3: in[i] = (int)(i < N / 2 ? i : N - i); break; /* organ pipe */
			default: in[i] = (int)(i % 3) - 1; break;	/* few values, negatives */
			}
		}
		check_sorts_like_qsort(in, N);
		check_sorts_like_qsort(in, 2);
		check_sorts_like_qsort(in, 3);
	}
	free(in);
}

/* The expected states were produced by qsbench 0.93's quick_sort stopped after
 * its first partition, and independently by a Python transcription. */
TEST(sorter_first_partition_matches_qsbench)
{
	int a[16] = { 42, 7, 19, 42, 3, 88, 19, 61, 5, 42, 27, 99, 0, 13, 42, 50 };
	static const int want_a[16] = { 42, 7, 19, 42, 3, 50, 19, 42, 5, 42, 27, 13, 0, 99, 61, 88 };
	static const int want_b[20] = {
		1303455736, 846930886, 304089172, 1102520059, 783368690,
		424238335, 719885386, 1025202362, 596516649, 1189641421,
		1649760492, 1350490027, 1957747793, 1714636915, 2044897763,
		1967513926, 1365180540, 1540383426, 1681692777, 1804289383,
	};
	int b[20];
	long i, j;

	sorter_partition(a, 0, 15, &i, &j);
	CHECK_INT(i, 13);
	CHECK_INT(j, 12);
	CHECK(memcmp(a, want_a, sizeof a) == 0);

	/* qsbench's own data: srand(1), rand() */
	srand(1);
	for (int k = 0; k < 20; k++)
		b[k] = rand();
	CHECK_INT(b[0], 1804289383);
	sorter_partition(b, 0, 19, &i, &j);
	CHECK_INT(i, 10);
	CHECK_INT(j, 9);
	CHECK(memcmp(b, want_b, sizeof b) == 0);
}

TEST(sorter_verify_counts_and_first_bad)
{
	static const int sorted[] = { 1, 2, 2, 3, 9 };
	static const int bad[] = { 1, 5, 4, 4, 6, 2, 7, 7 };	/* 5>4 at 1, 6>2 at 4 */
	static const int desc[] = { 5, 4, 3, 2, 1 };
	struct sort_progress p;

	CHECK_INT(sorter_verify(sorted, 5, &p), 0);
	CHECK_INT(atomic_load(&p.errors), 0);
	CHECK_INT(atomic_load(&p.first_bad), -1);
	CHECK_INT(atomic_load(&p.done), 5);

	CHECK_INT(sorter_verify(bad, 8, &p), 2);
	CHECK_INT(atomic_load(&p.errors), 2);
	CHECK_INT(atomic_load(&p.first_bad), 1);

	CHECK_INT(sorter_verify(desc, 5, &p), 4);
	CHECK_INT(atomic_load(&p.first_bad), 0);

	CHECK_INT(sorter_verify(desc + 4, 1, &p), 0);
	CHECK_INT(sorter_verify(desc, 0, &p), 0);
	CHECK_INT(atomic_load(&p.first_bad), -1);
}

TEST(sorter_verify_finds_error_past_flush_boundary)
{
	long n = 200000;
	int *a = malloc(n * sizeof *a);
	struct sort_progress p;

	CHECK(a != NULL);
	if (!a)
		return;
	for (long i = 0; i < n; i++)
		a[i] = (int)i;
	a[150000] = -1;		/* a[149999] > a[150000] only */
	CHECK_INT(sorter_verify(a, n, &p), 1);
	CHECK_INT(atomic_load(&p.first_bad), 149999);
	a[n - 1] = -2;		/* a[n-2] > a[n-1] too */
	CHECK_INT(sorter_verify(a, n, &p), 2);
	CHECK_INT(atomic_load(&p.first_bad), 149999);
	free(a);
}

TEST(sorter_run_reaches_done)
{
	struct sort_progress p;

	CHECK_INT(sorter_run(300000, 1, &p), 0);
	CHECK_INT(atomic_load(&p.phase), PHASE_DONE);
	CHECK_INT(atomic_load(&p.done), 300000);
	CHECK_INT(p.n, 300000);
	CHECK_INT(atomic_load(&p.errors), 0);
	CHECK_INT(atomic_load(&p.first_bad), -1);
	CHECK_NEAR(sort_progress_fraction(&p), 1.0, 0);

	CHECK_INT(sorter_run(0, 1, &p), 0);
	CHECK_INT(atomic_load(&p.phase), PHASE_DONE);
	CHECK_INT(sorter_run(1, 1, &p), 0);
	CHECK_INT(atomic_load(&p.done), 1);
}

TEST(sorter_run_rejects_bad_sizes)
{
	struct sort_progress p;

	errno = 0;
	CHECK_INT(sorter_run(-1, 1, &p), -1);
	CHECK_INT(errno, EINVAL);
	/* More than the address space: fails at allocation, phase stays there. */
	errno = 0;
	CHECK_INT(sorter_run(0x7fffffffffffffffL, 1, &p), -1);
	CHECK_INT(errno, ENOMEM);
	CHECK_INT(atomic_load(&p.phase), PHASE_ALLOC);
}

TEST(sorter_phase_names_and_fraction)
{
	struct sort_progress p = { .n = 200 };

	CHECK_STR(sort_phase_name(PHASE_START), "start");
	CHECK_STR(sort_phase_name(PHASE_ALLOC), "alloc");
	CHECK_STR(sort_phase_name(PHASE_FILL), "fill");
	CHECK_STR(sort_phase_name(PHASE_SORT), "sort");
	CHECK_STR(sort_phase_name(PHASE_VERIFY), "verify");
	CHECK_STR(sort_phase_name(PHASE_DONE), "done");
	CHECK_STR(sort_phase_name(99), "unknown");
	CHECK_STR(sort_phase_name(-1), "unknown");

	atomic_store(&p.phase, PHASE_ALLOC);
	CHECK_NEAR(sort_progress_fraction(&p), 0.0, 0);
	atomic_store(&p.phase, PHASE_SORT);
	atomic_store(&p.done, 50);
	CHECK_NEAR(sort_progress_fraction(&p), 0.25, 1e-12);
	atomic_store(&p.done, 500);
	CHECK_NEAR(sort_progress_fraction(&p), 1.0, 0);
}
