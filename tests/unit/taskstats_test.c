#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "statedir.h"
#include "taskstats.h"

static void put16(unsigned char *b, size_t off, uint16_t v)
{
	memcpy(b + off, &v, sizeof v);
}

static void put64(unsigned char *b, size_t off, uint64_t ns)
{
	memcpy(b + off, &ns, sizeof ns);
}

/* Each total at its offset for the layout, as kernels of that version
 * write them: cpu 1 s, io 2 s, swapin 3 s, reclaim 4 s, thrashing 5 s,
 * compact 6 s, wpcopy 7 s, irq 8 s. */
static void fill(unsigned char *b, int version, bool v15)
{
	put16(b, 0, (uint16_t)version);
	put64(b, 24, 1000000000ull);
	put64(b, v15 ? 56 : 40, 2000000000ull);
	put64(b, v15 ? 88 : 56, 3000000000ull);
	put64(b, v15 ? 368 : 320, 4000000000ull);
	put64(b, v15 ? 400 : 336, 5000000000ull);
	put64(b, v15 ? 440 : 360, 6000000000ull);
	put64(b, v15 ? 504 : 408, 7000000000ull);
	put64(b, v15 ? 536 : 424, 8000000000ull);
}

static void check_all(const struct delays *d, bool irq)
{
	CHECK_NEAR(d->s[DL_CPU], 1.0, 1e-12);
	CHECK_NEAR(d->s[DL_IO], 2.0, 1e-12);
	CHECK_NEAR(d->s[DL_SWAPIN], 3.0, 1e-12);
	CHECK_NEAR(d->s[DL_RECLAIM], 4.0, 1e-12);
	CHECK_NEAR(d->s[DL_THRASHING], 5.0, 1e-12);
	CHECK_NEAR(d->s[DL_COMPACT], 6.0, 1e-12);
	CHECK_NEAR(d->s[DL_WPCOPY], 7.0, 1e-12);
	if (irq)
		CHECK_NEAR(d->s[DL_IRQ], 8.0, 1e-12);
	else
		CHECK(isnan(d->s[DL_IRQ]));
}

TEST(taskstats_parse_v13_debian_header)
{
	unsigned char b[600] = { 0 };
	struct delays d;

	fill(b, 13, false);
	CHECK_INT(taskstats_parse(b, 416, &d), 13);
	check_all(&d, false);	/* 416 bytes end before irq */
}

TEST(taskstats_parse_v16_this_kernel)
{
	unsigned char b[600] = { 0 };
	struct delays d;

	fill(b, 16, false);
	put64(b, 432, 999);	/* cpu_delay_max, at the end since 16 */
	CHECK_INT(taskstats_parse(b, 560, &d), 16);
	check_all(&d, true);
}

TEST(taskstats_parse_v15_fields_mid_struct)
{
	unsigned char b[600] = { 0 };
	struct delays d;

	fill(b, 15, true);
	put64(b, 32, 999);	/* cpu_delay_max sits where blkio_count was */
	CHECK_INT(taskstats_parse(b, 560, &d), 15);
	check_all(&d, true);
}

TEST(taskstats_parse_longer_than_known)
{
	unsigned char b[1024] = { 0 };
	struct delays d;

	fill(b, 19, false);
	memset(b + 560, 0xff, sizeof b - 560);	/* a later version's fields */
	CHECK_INT(taskstats_parse(b + 0, sizeof b, &d), 19);
	check_all(&d, true);
}

TEST(taskstats_parse_shorter_than_needed)
{
	unsigned char b[600] = { 0 };
	struct delays d;

	fill(b, 16, false);
	/* cut inside freepages_delay_total: what it covers is read, no more */
	CHECK_INT(taskstats_parse(b, 324, &d), 16);
	CHECK_NEAR(d.s[DL_CPU], 1.0, 1e-12);
	CHECK_NEAR(d.s[DL_IO], 2.0, 1e-12);
	CHECK_NEAR(d.s[DL_SWAPIN], 3.0, 1e-12);
	CHECK(isnan(d.s[DL_RECLAIM]));
	CHECK(isnan(d.s[DL_THRASHING]));
	CHECK(isnan(d.s[DL_IRQ]));
	/* a version 1 struct (80 bytes) has the first three only */
	put16(b, 0, 1);
	CHECK_INT(taskstats_parse(b, 80, &d), 1);
	CHECK_NEAR(d.s[DL_SWAPIN], 3.0, 1e-12);
	CHECK(isnan(d.s[DL_COMPACT]));
	CHECK_INT(taskstats_parse(b, 1, &d), -1);
	CHECK(!delays_known(&d));
}

TEST(taskstats_parse_unaligned)
{
	unsigned char b[600] = { 0 };
	struct delays d;

	fill(b + 1, 16, false);
	CHECK_INT(taskstats_parse(b + 1, 560, &d), 16);
	check_all(&d, true);
}

TEST(taskstats_delays_sum)
{
	struct delays a, b;

	delays_clear(&a);
	CHECK(!delays_known(&a));
	CHECK_NEAR(delays_total(&a), 0.0, 0);
	delays_clear(&b);
	b.s[DL_SWAPIN] = 1.5;
	b.s[DL_CPU] = 0.25;
	delays_add(&a, &b);
	delays_add(&a, &b);
	CHECK(delays_known(&a));
	CHECK_NEAR(a.s[DL_SWAPIN], 3.0, 1e-12);
	CHECK_NEAR(a.s[DL_CPU], 0.5, 1e-12);
	CHECK(isnan(a.s[DL_IRQ]));
	CHECK_NEAR(delays_total(&a), 3.5, 1e-12);
	CHECK_STR(delay_name(DL_RECLAIM), "reclaim");
	CHECK_STR(delay_name(DL_IO), "io");
}

/* A child that waited for a CPU (it and a spinner share CPU 0) and for
 * block I/O (a file written, synced, dropped from the cache and read
 * back), then sleeps: its totals stand still while they are read. */
static void child_work(int ready)
{
	cpu_set_t one;
	char path[] = "/var/tmp/thrashtop-taskstats-XXXXXX";
	static char buf[1 << 20];
	pid_t spin;
	int fd;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof one, &one);
	spin = fork();
	if (spin == 0)
		for (;;)
			;
	for (volatile long i = 0; i < 300000000L; i++)
		;
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		memset(buf, 'x', sizeof buf);
		for (int i = 0; i < 8; i++)
			if (write(fd, buf, sizeof buf) < 0)
				break;
		fsync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		for (off_t o = 0; pread(fd, buf, sizeof buf, o) > 0; o += (off_t)sizeof buf)
			;
		close(fd);
	}
	if (write(ready, "r", 1) < 0)
		_exit(1);
	pause();
	_exit(0);
}

/* Field 42 of /proc/PID/stat (delayacct_blkio_ticks) and the second of
 * /proc/PID/schedstat (run delay, ns). */
static int proc_delays(pid_t pid, long long *blkio_ticks, long long *run_delay_ns)
{
	char path[64], buf[4096], *p;
	FILE *f;
	int field = 3;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")) || !fgets(buf, sizeof buf, f))
		return -1;
	fclose(f);
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (p += 2; *p && field < 42; p++)
		if (*p == ' ')
			field++;
	*blkio_ticks = atoll(p);
	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	if (fscanf(f, "%*s %lld", run_delay_ns) != 1) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

TEST(taskstats_live_child_against_proc)
{
	struct taskstats_conn *c;
	struct delays d, z;
	char err[256] = "", was[8];
	long long ticks = -1, run_ns = -1;
	int fds[2], on;
	siginfo_t si;
	pid_t pid;
	char r;

	if (geteuid() != 0) {
		printf("  skipped: taskstats needs root\n");
		return;
	}
	statedir_begin("taskstats");
	on = delayacct_get(err, sizeof err);
	CHECK(on >= 0);
	snprintf(was, sizeof was, "%d", on);
	CHECK_INT(delayacct_enable(err, sizeof err), on ? 0 : 1);
	CHECK_INT(delayacct_get(err, sizeof err), 1);
	c = taskstats_open(err, sizeof err);
	CHECK(c != NULL);
	if (!c) {
		printf("  %s\n", err);
		goto out;
	}
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child_work(fds[1]);
	}
	close(fds[1]);
	CHECK_INT(read(fds[0], &r, 1), 1);
	close(fds[0]);
	CHECK(proc_delays(pid, &ticks, &run_ns) == 0);
	CHECK_INT(taskstats_query(c, pid, &d, err, sizeof err), 0);
	/* the same nanoseconds: schedstat's run delay is cpu_delay_total */
	CHECK_NEAR(d.s[DL_CPU], (double)run_ns / 1e9, 1e-9);
	CHECK(d.s[DL_CPU] > 0);
	/* ticks are the nanoseconds truncated to clock ticks (USER_HZ 100) */
	CHECK(d.s[DL_IO] > 0);
	CHECK_INT((long long)(d.s[DL_IO] * 100 + 1e-9), ticks);
	CHECK(!isnan(d.s[DL_SWAPIN]) && !isnan(d.s[DL_RECLAIM]) && !isnan(d.s[DL_THRASHING]));
	if (d.s[DL_IO] <= 0 || (long long)(d.s[DL_IO] * 100 + 1e-9) != ticks)
		printf("  pid %d: cpu %.9f s (schedstat %lld ns), io %.9f s (stat %lld ticks)\n",
		       (int)pid, d.s[DL_CPU], run_ns, d.s[DL_IO], ticks);

	/* exited, not yet reaped: the totals are still there */
	kill(pid, SIGKILL);
	CHECK(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0);
	CHECK_INT(taskstats_query_exited(c, pid, &z, err, sizeof err), 0);
	/* (killed, it may have waited for a CPU once more to exit) */
	CHECK(z.s[DL_CPU] >= d.s[DL_CPU] && z.s[DL_CPU] < d.s[DL_CPU] + 5);
	CHECK(z.s[DL_IO] >= d.s[DL_IO]);
	waitpid(pid, NULL, 0);
	CHECK_INT(taskstats_query(c, pid, &z, err, sizeof err), -1);
	taskstats_close(c);
out:
	CHECK_INT(delayacct_restore(err, sizeof err), 0);
	CHECK_INT(delayacct_get(err, sizeof err), on);
	statedir_end();
}
