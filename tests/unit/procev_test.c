#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "procev.h"

struct forks {
	pid_t parent[64], child[64];
	int n;
};

static void got(pid_t parent, pid_t child, void *arg)
{
	struct forks *f = arg;

	if (f->n < 64) {
		f->parent[f->n] = parent;
		f->child[f->n++] = child;
	}
}

static bool has(const struct forks *f, pid_t parent, pid_t child)
{
	for (int i = 0; i < f->n; i++)
		if (f->parent[i] == parent && f->child[i] == child)
			return true;
	return false;
}

/* A child whose own child lives a moment: both forks are reported with
 * their parents, after both are gone, and a thread is no process. */
TEST(procev_short_lived_grandchild)
{
	char err[256] = "";
	struct procev *p;
	struct forks f = { .n = 0 };
	int fds[2];
	pid_t child, grand = 0;

	if (geteuid() != 0) {
		printf("  skipped: the proc connector needs root\n");
		return;
	}
	p = procev_open(err, sizeof(err));
	CHECK(p != NULL);
	if (!p) {
		printf("  %s\n", err);
		return;
	}
	CHECK(pipe(fds) == 0);
	child = fork();
	if (child == 0) {
		pid_t g = fork();

		if (g == 0)
			_exit(0);
		waitpid(g, NULL, 0);
		if (write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(0);
	}
	CHECK_INT(read(fds[0], &grand, sizeof(grand)), sizeof(grand));
	waitpid(child, NULL, 0);
	close(fds[0]);
	close(fds[1]);
	procev_drain(p, got, &f);
	CHECK(has(&f, getpid(), child));
	CHECK(has(&f, child, grand));
	if (!has(&f, child, grand))
		printf("  %d events; child %d, grandchild %d\n", f.n, (int)child, (int)grand);
	/* read: nothing more of these */
	f.n = 0;
	procev_drain(p, got, &f);
	CHECK(!has(&f, child, grand));
	procev_close(p);
	procev_close(NULL);
	f.n = 0;
	procev_drain(NULL, got, &f);
	CHECK_INT(f.n, 0);
}
