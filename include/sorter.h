/* The qsbench-compatible sort: srand(seed), fill with rand(), median-of-three
 * quicksort with qsbench 0.93's partition scheme, verify. Knows nothing of
 * /proc or the screen: it only publishes progress into a struct the caller
 * may place in shared memory. */
#ifndef THRASHTOP_SORTER_H
#define THRASHTOP_SORTER_H

#include <stdatomic.h>
#include <stddef.h>

enum sort_phase {
	PHASE_START,	/* forked, not yet allocated */
	PHASE_ALLOC,
	PHASE_FILL,
	PHASE_SORT,
	PHASE_VERIFY,
	PHASE_DONE,
};

/* Written by one worker only, read by the monitor. Relaxed atomics: no
 * syscalls, no locks on the hot path. */
struct sort_progress {
	_Atomic int phase;		/* enum sort_phase */
	_Atomic long done;		/* elements done in this phase; in PHASE_SORT,
					   elements already in their final place */
	long n;				/* elements */
	_Atomic long errors;		/* verify: pairs out of order */
	_Atomic long first_bad;		/* verify: first i with a[i] > a[i+1], or -1 */
};

const char *sort_phase_name(int phase);

/* Fraction 0..1 of the current phase. */
double sort_progress_fraction(const struct sort_progress *p);

/* What the array is filled with: qsbench's rand() (which barely
 * compresses), English words in every other page (near 2:1, sorted or
 * not), or rand() with a share of whole pages zero. */
enum fill_kind { FILL_RAND, FILL_TEXT, FILL_ZERO };
struct sort_fill {
	enum fill_kind kind;
	int zero_pct;		/* FILL_ZERO: % of pages, 1..100 */
};

/* "rand", "text", "zero:P" (P 1..100, an optional %). 0, or -1. */
int sorter_fill_parse(const char *s, struct sort_fill *f);
/* As the configuration keeps it: "" for rand, "text", "zero:50". */
size_t sorter_fill_text(const struct sort_fill *f, char *buf, size_t len);

/* The whole worker body with rand() data. Returns 0 when sorted, 1 on a
 * verify failure, -1 (errno set) if the array cannot be allocated. */
int sorter_run(long n, unsigned seed, struct sort_progress *p);
/* The same filled as f says (NULL: rand). */
int sorter_run_fill(long n, unsigned seed, const struct sort_fill *f, struct sort_progress *p);

/* Sorts a[l..r] in place; counts placed elements into p->done (may be NULL). */
void sorter_quicksort(int *a, long l, long r, struct sort_progress *p);

/* One partitioning step of sorter_quicksort on a[l..r], l < r: on return
 * a[l..*j] <= pivot <= a[*i..r] and *i > *j. */
void sorter_partition(int *a, long l, long r, long *i, long *j);

/* Counts pairs out of order, records the first one; returns the count. */
long sorter_verify(const int *a, long n, struct sort_progress *p);

#endif
