#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "ticker.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct ticker *start(double iv)
{
	char err[256] = "";
	struct ticker *t = ticker_start(iv, err, sizeof(err));

	if (!t)
		t_fail(__FILE__, __LINE__, "ticker_start: %s", err);
	return t;
}

static bool readable(struct ticker *t, int ms)
{
	struct pollfd p = { .fd = ticker_fd(t), .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* The loop held up for a second takes what was sampled meanwhile, on the
 * thread's schedule, oldest first. */
TEST(ticker_samples_while_the_loop_waits)
{
	struct ticker *t = start(0.05);
	struct sys_sample x;
	double held, last = 0;
	int n = 0, before = 0;

	if (!t)
		return;
	sleep(1);
	held = mono();
	while (ticker_take(t, &x) > 0) {
		if (n && !(x.t > last))
			t_fail(__FILE__, __LINE__, "sample %d at %.6f after %.6f", n, x.t, last);
		CHECK(x.mem[MI_TOTAL] > 0);
		before += x.t < held;
		last = x.t;
		n++;
	}
	if (before < 2)
		t_fail(__FILE__, __LINE__, "%d of %d samples taken while the loop waited 1 s",
		       before, n);
	ticker_stop(t);
}

/* Readable while a sample waits, not once all are taken; a new interval
 * starts with a sample at once. */
TEST(ticker_fd_and_new_interval)
{
	struct ticker *t = start(10);
	struct sys_sample a, b;

	if (!t)
		return;
	CHECK(readable(t, 10000));
	CHECK_INT(ticker_take(t, &a), 1);
	CHECK_INT(ticker_take(t, &b), 0);
	CHECK(!readable(t, 0));
	ticker_set_interval(t, 10);
	CHECK(readable(t, 10000));
	CHECK_INT(ticker_take(t, &b), 1);
	CHECK(b.t > a.t);
	ticker_stop(t);
}
