/* A command's output passed on and matched by a thread of its own. */
#include "cmdout.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"

#define PUMP_BUF 65536
#define DRAIN_MAX 1024		/* reads after the stop: a writer that never ends */

void cmdout_init(struct cmdout *o)
{
	memset(o, 0, sizeof(*o));
	for (int s = 0; s < CAPTURE_STREAMS; s++)
		o->r[s] = o->w[s] = o->dest[s] = -1;
	o->stop[0] = o->stop[1] = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, buf, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		buf += k;
		n -= (size_t)k;
	}
}

/* Reads stream s once: passed on and matched. false at its end. */
static bool pump_one(struct cmdout *o, int s, char *buf)
{
	ssize_t k = read(o->r[s], buf, PUMP_BUF);

	if (k > 0) {
		write_all(o->dest[s], buf, (size_t)k);
		capture_feed(o->cap, s, buf, (size_t)k);
		return true;
	}
	return k < 0 && (errno == EINTR || errno == EAGAIN);
}

static void *pump(void *arg)
{
	char buf[PUMP_BUF];
	struct cmdout *o = arg;
	bool draining = false;
	int open = CAPTURE_STREAMS, drained = 0;

	while (open > 0 && drained < DRAIN_MAX) {
		struct pollfd p[CAPTURE_STREAMS + 1];
		int n;

		for (int s = 0; s < CAPTURE_STREAMS; s++)
			p[s] = (struct pollfd){ o->r[s], POLLIN, 0 };
		p[CAPTURE_STREAMS] = (struct pollfd){ draining ? -1 : o->stop[0], POLLIN, 0 };
		n = poll(p, CAPTURE_STREAMS + 1, draining ? 0 : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		draining = draining || p[CAPTURE_STREAMS].revents;
		drained += draining;
		for (int s = 0; s < CAPTURE_STREAMS; s++)
			if (p[s].revents && !pump_one(o, s, buf)) {
				close_fd(&o->r[s]);
				open--;
			}
	}
	return NULL;
}

int cmdout_open(struct cmdout *o, int out, int errfd, struct capture *cap, char *err,
		size_t errlen)
{
	sigset_t all, was;
	int rc;

	cmdout_init(o);
	o->cap = cap;
	if (pipe2(o->stop, O_CLOEXEC) < 0)
		goto fail;
	for (int s = 0; s < CAPTURE_STREAMS; s++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0)
			goto fail;
		o->r[s] = p[0];
		o->w[s] = p[1];
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		o->dest[s] = s ? errfd : out;
	}
	/* the signals stay the loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	rc = pthread_create(&o->th, NULL, pump, o);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (rc) {
		errno = rc;
		goto fail;
	}
	o->running = true;
	return 0;
fail:
	fmt_err(err, errlen, "cannot pass the command's output on: %s", strerror(errno));
	cmdout_close(o);
	return -1;
}

void cmdout_forked(struct cmdout *o)
{
	for (int s = 0; s < CAPTURE_STREAMS; s++)
		close_fd(&o->w[s]);
}

void cmdout_close(struct cmdout *o)
{
	cmdout_forked(o);
	if (o->running) {
		write_all(o->stop[1], "x", 1);
		pthread_join(o->th, NULL);
		o->running = false;
	}
	for (int s = 0; s < CAPTURE_STREAMS; s++)
		close_fd(&o->r[s]);
	close_fd(&o->stop[0]);
	close_fd(&o->stop[1]);
}
