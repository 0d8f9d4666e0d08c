#include "proctree.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "undo.h"

double proctree_started(pid_t pid, clockid_t clk)
{
	unsigned long long start;
	struct timespec now, boot;

	if (undo_proc_start(pid, &start, NULL) < 0 || clock_gettime(clk, &now) < 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return NAN;
	return (double)now.tv_sec - (double)boot.tv_sec +
	       ((double)now.tv_nsec - (double)boot.tv_nsec) / 1e9 +
	       (double)start / (double)sysconf(_SC_CLK_TCK);
}

void proctree_begin(struct proctree *t, pid_t root)
{
	t->nseen = 0;
	memset(t->seen_set, 0, sizeof(t->seen_set));
	t->scan_fresh = false;
	t->root = root;
}

/* pid's slot in the seen set: where it is, or the empty one it would take. */
static pid_t *seen_slot(struct proctree *t, pid_t pid)
{
	unsigned h = (unsigned)pid * 2654435761u & (PROCTREE_SEEN_HASH - 1);

	while (t->seen_set[h] && t->seen_set[h] != pid)
		h = (h + 1) & (PROCTREE_SEEN_HASH - 1);
	return &t->seen_set[h];
}

bool proctree_seen(struct proctree *t, pid_t pid)
{
	return *seen_slot(t, pid) == pid;
}

static void add_seen(struct proctree *t, pid_t pid)
{
	pid_t *slot = seen_slot(t, pid);

	if (*slot != pid && t->nseen < PROCTREE_SEEN_MAX) {
		*slot = pid;
		t->seen[t->nseen++] = pid;
	}
}

/* A fork the kernel reported: the child of the command or of a process
 * of its tree is of the tree, though it may be gone before a tick. */
static void forked(pid_t parent, pid_t child, void *arg)
{
	struct proctree *t = arg;

	if ((t->root && parent == t->root) || proctree_seen(t, parent))
		add_seen(t, child);
}

void proctree_forks(struct proctree *t, struct procev *forks)
{
	procev_drain(forks, forked, t);
}

void proctree_note(struct proctree *t, struct sampler *smp, struct procev *forks, bool running)
{
	int n;

	t->scan_fresh = false;
	proctree_forks(t, forks);
	if (!running || !t->root)
		return;
	n = sampler_descendants(smp, t->root, t->scan, PROCTREE_SEEN_MAX);
	for (int i = 0; i < n && i < PROCTREE_SEEN_MAX; i++)
		add_seen(t, t->scan[i]);
	t->nscan = n;
	t->scan_fresh = n >= 0;
}

void proctree_untrack(struct place_tree *tr, struct sampler *smp)
{
	for (int i = 0; i < tr->n; i++)
		sampler_unwatch(smp, tr->pid[i]);
	tr->n = 0;
}

/* The pids of the tree now: the scan of this tick, or a new walk, and
 * each stray with its own descendants. */
static int tree_now(struct proctree *t, struct sampler *smp, const struct workload *wl,
		    pid_t *now)
{
	pid_t left[64];
	int n, nl;

	if (t->scan_fresh) {
		n = t->nscan < PLACE_TREE_MAX ? t->nscan : PLACE_TREE_MAX;
		memcpy(now, t->scan, sizeof(pid_t) * (size_t)n);
	} else {
		n = sampler_descendants(smp, wl->w[0].pid, now, PLACE_TREE_MAX);
	}
	t->scan_fresh = false;
	if (n < 0)
		n = 0;
	if (n > PLACE_TREE_MAX)
		n = PLACE_TREE_MAX;
	/* what its processes left to us when they died, with theirs: the
	 * command's tree still, no longer below it */
	nl = workload_strays(wl, left, 64);
	for (int i = 0; i < nl && n < PLACE_TREE_MAX; i++) {
		int m;

		now[n++] = left[i];
		m = sampler_descendants(smp, left[i], now + n, PLACE_TREE_MAX - n);
		if (m > 0)
			n += m < PLACE_TREE_MAX - n ? m : PLACE_TREE_MAX - n;
	}
	return n;
}

void proctree_rows(struct proctree *t, struct place_tree *tr, struct sampler *smp,
		   const struct workload *wl, double now, bool swap, double swap_every)
{
	pid_t pids[PLACE_TREE_MAX];
	struct proc_sample ps[PLACE_TREE_MAX];
	double seen[PLACE_TREE_MAX], swap_at[PLACE_TREE_MAX];
	int n, k = 0;

	if (!wl) {
		t->scan_fresh = false;
		proctree_untrack(tr, smp);
		return;
	}
	n = tree_now(t, smp, wl, pids);
	for (int i = 0; i < n; i++) {
		int j = 0;
		bool known, due;

		while (j < tr->n && tr->pid[j] != pids[i])
			j++;
		known = j < tr->n;
		due = swap && (!known || now - tr->swap_at[j] >= swap_every - 1e-6);
		if (sampler_proc(smp, pids[i], due, &ps[k]) < 0 || !ps[k].alive) {
			sampler_unwatch(smp, pids[i]);
			continue;
		}
		if (!swap)
			ps[k].swap_kib = 0;
		else if (!due)
			ps[k].swap_kib = tr->ps[j].swap_kib;
		swap_at[k] = due ? now : known ? tr->swap_at[j] : 0;
		if (known) {
			seen[k] = tr->seen[j];
		} else {
			double st = proctree_started(pids[i], CLOCK_MONOTONIC);
			seen[k] = !isnan(st) && st < now ? st : now;
		}
		pids[k++] = pids[i];
	}
	for (int j = 0; j < tr->n; j++) {
		int i = 0;

		while (i < k && pids[i] != tr->pid[j])
			i++;
		if (i == k)
			sampler_unwatch(smp, tr->pid[j]);
	}
	memcpy(tr->pid, pids, sizeof(pid_t) * (size_t)k);
	memcpy(tr->ps, ps, sizeof(ps[0]) * (size_t)k);
	memcpy(tr->seen, seen, sizeof(double) * (size_t)k);
	memcpy(tr->swap_at, swap_at, sizeof(double) * (size_t)k);
	tr->n = k;
}
