/* A command's output through cmdout: passed on unchanged, each stream to
 * its own place, matched as it passes, a line cut across writes taken
 * whole, and all of it read by the close, even what waits in a pipe. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "cmdout.h"

static void put(int fd, const char *s)
{
	CHECK_INT(write(fd, s, strlen(s)), (long long)strlen(s));
}

/* What the read end of a pipe holds now. */
static void drain(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t k;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (n + 1 < len && (k = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
}

TEST(cmdout_passes_on_and_matches)
{
	struct capture_spec sp[2];
	struct capture *c;
	struct cmdout o;
	int out[2], err[2];
	char e[256], got[4096];
	const struct timespec pause = { 0, 20 * 1000 * 1000 };

	CHECK_INT(capture_parse("tput:higher=Throughput ([0-9.]+) MB/sec", &sp[0], e, sizeof(e)), 0);
	CHECK_INT(capture_parse("warn=warning ([0-9]+)", &sp[1], e, sizeof(e)), 0);
	c = capture_new(sp, 2, e, sizeof(e));
	CHECK(c != NULL);
	if (!c || pipe(out) || pipe(err))
		return;
	/* stdout and stderr apart: as batch mode has them */
	CHECK_INT(cmdout_open(&o, out[1], err[1], c, e, sizeof(e)), 0);
	put(o.w[0], "Throughput 7.0");
	nanosleep(&pause, NULL);
	put(o.w[1], "warning 3\n");
	put(o.w[0], "5841 MB/sec\n");
	put(o.w[0], "Throughput 6.11383 MB/sec");	/* no newline: the end */
	cmdout_close(&o);
	capture_flush(c);
	CHECK_NEAR(capture_result_at(c, 0)->value, 6.11383, 0);
	CHECK_NEAR(capture_result_at(c, 1)->value, 3, 0);
	drain(out[0], got, sizeof(got));
	CHECK_STR(got, "Throughput 7.05841 MB/sec\nThroughput 6.11383 MB/sec");
	drain(err[0], got, sizeof(got));
	CHECK_STR(got, "warning 3\n");
	/* nothing left open: the descriptors it made are free again */
	CHECK_INT(o.r[0], -1);
	CHECK_INT(o.w[1], -1);
	CHECK_INT(o.stop[0], -1);
	close(out[0]);
	close(out[1]);
	close(err[0]);
	close(err[1]);
	capture_free(c);
}

/* A writer that stays (a process the command left) does not keep the
 * close waiting: what it wrote is read, then the close ends. */
TEST(cmdout_close_with_a_writer_left)
{
	struct capture_spec sp;
	struct capture *c;
	struct cmdout o;
	int dest[2], keep;
	char e[256], got[256];

	capture_parse("n=n=([0-9]+)", &sp, e, sizeof(e));
	c = capture_new(&sp, 1, e, sizeof(e));
	if (!c || pipe(dest))
		return;
	CHECK_INT(cmdout_open(&o, dest[1], dest[1], c, e, sizeof(e)), 0);
	keep = dup(o.w[0]);
	put(keep, "n=41\nn=42\n");
	cmdout_forked(&o);
	cmdout_close(&o);
	CHECK_NEAR(capture_result_at(c, 0)->value, 42, 0);
	drain(dest[0], got, sizeof(got));
	CHECK_STR(got, "n=41\nn=42\n");
	close(keep);
	close(dest[0]);
	close(dest[1]);
	capture_free(c);
}
