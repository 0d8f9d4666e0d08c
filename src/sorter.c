#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sorter.h"

/* Elements between two progress stores: rare enough to cost nothing in the
 * hot loops, frequent enough (~1 ms of work) for a smooth display. */
#define FLUSH_EVERY 65536L

/* Pending right-hand ranges kept in the frame before the stack moves to the
 * heap; random input needs about 2*log2(n). */
#define INLINE_PENDING 64

struct range {
	long l, r;
};

static const char *const phase_names[] = {
	"start", "alloc", "fill", "sort", "verify", "done",
};

const char *sort_phase_name(int phase)
{
	if (phase < PHASE_START || phase > PHASE_DONE)
		return "unknown";
	return phase_names[phase];
}

double sort_progress_fraction(const struct sort_progress *p)
{
	int phase = atomic_load_explicit(&p->phase, memory_order_acquire);
	long done = atomic_load_explicit(&p->done, memory_order_relaxed);
	double f;

	if (phase == PHASE_DONE)
		return 1.0;
	if (phase < PHASE_FILL || phase > PHASE_VERIFY)
		return 0.0;
	if (p->n <= 0)
		return 1.0;
	f = (double)done / (double)p->n;
	return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

static void set_phase(struct sort_progress *p, int phase)
{
	atomic_store_explicit(&p->done, 0, memory_order_relaxed);
	/* Release: a reader that sees the new phase sees done reset. */
	atomic_store_explicit(&p->phase, phase, memory_order_release);
}

/* Only the worker writes done, so load+store needs no locked instruction. */
static void add_done(struct sort_progress *p, long delta)
{
	if (!p || !delta)
		return;
	atomic_store_explicit(&p->done,
			      atomic_load_explicit(&p->done, memory_order_relaxed) + delta,
			      memory_order_relaxed);
}

static int grow_pending(struct range **stack, size_t *cap, struct range *inline_stack)
{
	struct range *s;
	size_t ncap = *cap * 2;

	if (*stack == inline_stack) {
		s = malloc(ncap * sizeof *s);
		if (s)
			memcpy(s, inline_stack, *cap * sizeof *s);
	} else {
		s = realloc(*stack, ncap * sizeof *s);
	}
	if (!s)
		return -1;
	*stack = s;
	*cap = ncap;
	return 0;
}

/* One step of qsbench's quicksort on a[l..r], l < r: the pivot is the median
 * of a[l], a[(l+r)/2], a[r]; on return a[l..j] <= pivot <= a[i..r], i > j. */
static inline void partition(int *a, long l, long r, long *pi, long *pj)
{
	long i = l, j = r, m = (l + r) >> 1;
	int lo, hi, piv, t;

	if (a[m] >= a[l]) {
		hi = a[m];
		lo = a[l];
	} else {
		hi = a[l];
		lo = a[m];
	}
	if (a[r] >= hi)
		piv = hi;
	else if (a[r] >= lo)
		piv = a[r];
	else
		piv = lo;

	do {
		while (a[i] < piv)
			i++;
		while (piv < a[j])
			j--;
		if (i <= j) {
			t = a[i];
			a[i] = a[j];
			a[j] = t;
			i++;
			j--;
		}
	} while (i <= j);
	*pi = i;
	*pj = j;
}

void sorter_partition(int *a, long l, long r, long *pi, long *pj)
{
	partition(a, l, r, pi, pj);
}

/*
 * qsbench 0.93's quicksort: partition a[l..r] into [l,j] and [i,r], then sort
 * the left side completely before the right side. qsbench recurses on both
 * sides, so a bad input costs it O(n) stack frames and it dies of SIGSEGV.
 * Here the right sides wait on an explicit LIFO stack, which visits the
 * ranges in exactly qsbench's order while the call stack stays flat; that
 * stack lives on the heap (at most 8 bytes per element in the worst case).
 * Only if it cannot grow do we recurse into the left side as qsbench does,
 * so we never fail where qsbench would not.
 */
static void sort_range(int *a, long l, long r, struct sort_progress *p)
{
	struct range inline_stack[INLINE_PENDING], *stack = inline_stack;
	size_t cap = INLINE_PENDING, top = 0;
	long placed = 0;

	for (;;) {
		long i, j;

		partition(a, l, r, &i, &j);

		/* j >= l-1, i <= r+1, and a[j+1..i-1] (equal to the pivot) are in place;
		 * a side of 0 or 1 element is not sorted further. */
		/* Selects, not branches: these outcomes are as random as the data,
		 * and qsbench has no such branches to mispredict. */
		placed += i - j - 1 + (l >= j ? j - l + 1 : 0) + (i >= r ? r - i + 1 : 0);
		if (placed >= FLUSH_EVERY) {
			add_done(p, placed);
			placed = 0;
		}

		if (l < j) {
			if (i < r) {
				if (top == cap && grow_pending(&stack, &cap, inline_stack) < 0) {
					add_done(p, placed);
					placed = 0;
					sort_range(a, l, j, p);
					l = i;
					continue;
				}
				stack[top].l = i;
				stack[top].r = r;
				top++;
			}
			r = j;
		} else if (i < r) {
			l = i;
		} else if (top > 0) {
			top--;
			l = stack[top].l;
			r = stack[top].r;
		} else {
			break;
		}
	}
	add_done(p, placed);
	if (stack != inline_stack)
		free(stack);
}

void sorter_quicksort(int *a, long l, long r, struct sort_progress *p)
{
	if (l < r)
		sort_range(a, l, r, p);
	else if (l == r)
		add_done(p, 1);
}

long sorter_verify(const int *a, long n, struct sort_progress *p)
{
	long errors = 0, first = -1, i = 0;

	if (p) {
		atomic_store_explicit(&p->errors, 0, memory_order_relaxed);
		atomic_store_explicit(&p->first_bad, -1, memory_order_relaxed);
	}
	while (i < n - 1) {
		long end = n - 1 - i > FLUSH_EVERY ? i + FLUSH_EVERY : n - 1;

		for (; i < end; i++) {
			if (a[i] > a[i + 1]) {
				if (first < 0)
					first = i;
				errors++;
			}
		}
		if (p) {
			atomic_store_explicit(&p->errors, errors, memory_order_relaxed);
			atomic_store_explicit(&p->first_bad, first, memory_order_relaxed);
			atomic_store_explicit(&p->done, i, memory_order_relaxed);
		}
	}
	if (p)
		atomic_store_explicit(&p->done, n > 0 ? n : 0, memory_order_relaxed);
	return errors;
}

int sorter_fill_parse(const char *s, struct sort_fill *f)
{
	char *end;
	long v;

	f->kind = FILL_RAND;
	f->zero_pct = 0;
	if (!strcmp(s, "rand"))
		return 0;
	if (!strcmp(s, "text")) {
		f->kind = FILL_TEXT;
		return 0;
	}
	if (strncmp(s, "zero:", 5) || s[5] < '1' || s[5] > '9')
		return -1;
	v = strtol(s + 5, &end, 10);
	if ((*end && strcmp(end, "%")) || v < 1 || v > 100)
		return -1;
	f->kind = FILL_ZERO;
	f->zero_pct = (int)v;
	return 0;
}

size_t sorter_fill_text(const struct sort_fill *f, char *buf, size_t len)
{
	if (!f || f->kind == FILL_RAND)
		return (size_t)snprintf(buf, len, "%s", "");
	if (f->kind == FILL_TEXT)
		return (size_t)snprintf(buf, len, "%s", "text");
	return (size_t)snprintf(buf, len, "zero:%d", f->zero_pct);
}

/* English words picked by rand() in every other page, rand() itself in
 * the rest: sorting packs the words' few values into runs that would
 * compress without limit, while the random half keeps the whole near 2:1,
 * as anonymous memory commonly is. */
static const char *const words[] = {
	"the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was",
	"with", "be", "by", "on", "not", "he", "this", "are", "or", "his", "from",
	"at", "which", "but", "have", "an", "had", "they", "you", "were", "their",
	"one", "all", "we", "can", "her", "has", "there", "been", "if", "more",
	"when", "will", "would", "who", "so", "no", "memory", "page", "swap",
	"kernel", "process", "time", "system", "reclaim", "under", "pressure",
	"machine", "while", "each", "other", "than",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

#define ZERO_BLOCK 1024		/* elements in a 4 KiB page */

struct text_gen {
	const char *w;		/* the rest of the current word, then a space */
};

static unsigned char text_byte(struct text_gen *g)
{
	if (!g->w) {
		g->w = words[(unsigned)rand() % NWORDS];
		return ' ';
	}
	unsigned char c = (unsigned char)*g->w++;
	if (!*g->w)
		g->w = NULL;
	return c;
}

static void fill(int *a, long i, long end, const struct sort_fill *f, struct text_gen *g)
{
	for (; i < end; i++) {
		if (!f || f->kind == FILL_RAND) {
			a[i] = rand();
		} else if (f->kind == FILL_TEXT && (i / ZERO_BLOCK) & 1) {
			a[i] = rand();
		} else if (f->kind == FILL_TEXT) {
			unsigned char b[4] = { text_byte(g), text_byte(g), text_byte(g), text_byte(g) };
			memcpy(&a[i], b, sizeof(b));
		} else if (i % ZERO_BLOCK == 0 && rand() % 100 < f->zero_pct) {
			long stop = i + ZERO_BLOCK < end ? i + ZERO_BLOCK : end;
			memset(&a[i], 0, (size_t)(stop - i) * sizeof(*a));
			i = stop - 1;
		} else {
			a[i] = rand();
		}
	}
}

int sorter_run(long n, unsigned seed, struct sort_progress *p)
{
	return sorter_run_fill(n, seed, NULL, p);
}

int sorter_run_fill(long n, unsigned seed, const struct sort_fill *f, struct sort_progress *p)
{
	struct sort_progress scratch;
	struct text_gen g = { NULL };
	long errors, i = 0;
	int *a;

	if (!p)
		p = &scratch;
	if (n < 0) {
		errno = EINVAL;
		return -1;
	}
	p->n = n;
	atomic_store_explicit(&p->errors, 0, memory_order_relaxed);
	atomic_store_explicit(&p->first_bad, -1, memory_order_relaxed);
	set_phase(p, PHASE_ALLOC);
	if ((unsigned long)n > SIZE_MAX / sizeof *a) {
		errno = ENOMEM;
		return -1;
	}
	a = malloc(n > 0 ? (size_t)n * sizeof *a : 1);
	if (!a)
		return -1;

	set_phase(p, PHASE_FILL);
	srand(seed);
	while (i < n) {
		long end = n - i > FLUSH_EVERY ? i + FLUSH_EVERY : n;

		fill(a, i, end, f, &g);
		i = end;
		atomic_store_explicit(&p->done, i, memory_order_relaxed);
	}

	set_phase(p, PHASE_SORT);
	sorter_quicksort(a, 0, n - 1, p);

	set_phase(p, PHASE_VERIFY);
	errors = sorter_verify(a, n, p);
	free(a);

	atomic_store_explicit(&p->done, n, memory_order_relaxed);
	atomic_store_explicit(&p->phase, PHASE_DONE, memory_order_release);
	return errors ? 1 : 0;
}
