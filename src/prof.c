#include "prof.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sysio.h"

/* Start-up (the first full frames, the workers' forks) is not steady
 * state: parts are summed from this many seconds after prof_init. */
#define SETTLE_S 5

static const char *path;
static int64_t from_ns;		/* CLOCK_MONOTONIC */
static _Atomic int64_t cpu[PROF_N], calls[PROF_N], frames;

static const char *const names[PROF_N] = {
	[PROF_SAMPLE] = "sample", [PROF_WORKERS] = "workers", [PROF_STALLS] = "stalls",
	[PROF_MODEL] = "model",
	[PROF_DRAW] = "draw", [PROF_OUTPUT] = "output",
};

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool settled(void)
{
	return clock_ns(CLOCK_MONOTONIC) >= from_ns;
}

/* One line a part: calls, CPU us in all, us a call, us a frame. */
static void report(void)
{
	bool made;
	int fd = sysio_create(path, 0644, &made);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	int64_t n = frames > 0 ? frames : 1;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	fprintf(f, "frames %lld\n", (long long)frames);
	for (int p = 0; p < PROF_N; p++) {
		int64_t c = cpu[p] - (p == PROF_MODEL ? cpu[PROF_WORKERS] + cpu[PROF_STALLS] : 0);

		fprintf(f, "%-8s calls %8lld cpu_us %10.0f us_call %8.1f us_frame %8.1f\n",
			names[p], (long long)calls[p], c / 1e3,
			calls[p] ? c / 1e3 / (double)calls[p] : 0.0, c / 1e3 / (double)n);
	}
	fclose(f);
}

void prof_init(void)
{
	path = getenv("THRASHTOP_PROFILE");
	if (path && !*path)
		path = NULL;
	if (path) {
		from_ns = clock_ns(CLOCK_MONOTONIC) + SETTLE_S * (int64_t)1000000000;
		atexit(report);
	}
}

bool prof_on(void)
{
	return path != NULL;
}

void prof_begin(struct prof_mark *m)
{
	if (path)
		m->ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void prof_end(enum prof_part p, const struct prof_mark *m)
{
	if (!path || !settled())
		return;
	cpu[p] += clock_ns(CLOCK_THREAD_CPUTIME_ID) - m->ns;
	calls[p]++;
}

void prof_frame(void)
{
	if (path && settled())
		frames++;
}
