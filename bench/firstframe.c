/* Time from exec to the monitor's first frame on a 200x60 terminal.
 * Runs COMMAND on a pseudo-terminal K times; the first frame is the first
 * burst of output, which ends when the terminal stays quiet for QUIET ms
 * (well below the sampling interval, which is the earliest the monitor
 * writes again). Prints the median time to the first byte and to the
 * burst's last byte, and the bytes and reads of that frame. With -k KEY,
 * KEY is then typed and the burst that answers it is timed the same way.
 * usage: firstframe K [-k KEY] COMMAND [ARGS...] */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUIET_MS 300

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Reads bursts until QUIET ms of silence; the time of the last byte in ms
 * since t0, or -1 if nothing came within 10 s. */
static double burst(int fd, double t0, double *first, double *bytes, double *reads)
{
	char buf[65536];
	double last = -1;

	*first = -1;
	*bytes = *reads = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int r = poll(&p, 1, *first < 0 ? 10000 : QUIET_MS);
		ssize_t n;

		if (r <= 0)
			break;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		last = now_ms() - t0;
		if (*first < 0)
			*first = last;
		*bytes += (double)n;
		*reads += 1;
	}
	return last;
}

/* One run: 0 and the times in ms since just before exec (and since the
 * key was typed), or -1. */
static int one(char **argv, const char *key, double *first, double *last, double *bytes,
	       double *reads, double *keyms)
{
	struct winsize ws = { .ws_row = 60, .ws_col = 200 };
	char buf[65536];
	double t0;
	int fd, status;
	pid_t pid;

	t0 = now_ms();
	pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		perror("forkpty");
		return -1;
	}
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	*last = burst(fd, t0, first, bytes, reads);
	*keyms = -1;
	if (key && *last >= 0) {
		double f, b, r, t1 = now_ms();

		if (write(fd, key, strlen(key)) == (ssize_t)strlen(key))
			*keyms = burst(fd, t1, &f, &b, &r);
		if (write(fd, key, strlen(key)) < 0)	/* close what it opened */
			perror("write");
		burst(fd, now_ms(), &f, &b, &r);
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (write(fd, "q", 1) != 1)
		kill(pid, SIGTERM);
	for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++) {
		while (read(fd, buf, sizeof(buf)) > 0)	/* let it restore the terminal */
			;
		usleep(10000);
	}
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	close(fd);
	return *first < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	int k = argc > 2 ? atoi(argv[1]) : 0, n = 0, nk = 0, a = 2;
	const char *key = NULL;
	double *f, *l, *b, *r, *km;

	if (argc > 4 && !strcmp(argv[2], "-k")) {
		key = argv[3];
		a = 4;
	}
	if (k < 1 || a >= argc) {
		fprintf(stderr, "usage: firstframe K [-k KEY] COMMAND [ARGS...]\n");
		return 2;
	}
	f = calloc((size_t)k, sizeof(*f));
	l = calloc((size_t)k, sizeof(*l));
	b = calloc((size_t)k, sizeof(*b));
	r = calloc((size_t)k, sizeof(*r));
	km = calloc((size_t)k, sizeof(*km));
	for (int i = 0; i < k; i++) {
		double kt;

		if (one(argv + a, key, &f[n], &l[n], &b[n], &r[n], &kt) == 0)
			n++;
		if (kt >= 0)
			km[nk++] = kt;
	}
	if (!n) {
		fprintf(stderr, "firstframe: no output from %s\n", argv[a]);
		return 1;
	}
	printf("first byte %.1f ms, first frame done %.1f ms (%.0f bytes in %.0f reads; medians of %d)\n",
	       median(f, n), median(l, n), median(b, n), median(r, n), n);
	if (key && nk)
		printf("key '%s' answered in %.1f ms (median of %d)\n", key, median(km, nk), nk);
	else if (key)
		printf("key '%s' got no answer\n", key);
	return 0;
}
