#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

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

static void put32(unsigned char *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, sizeof v);
}

/* An exit record as the kernel sends it: a TASKSTATS_CMD_NEW message with
 * the thread's pid and struct taskstats (len bytes, version, ac_ppid and
 * ac_tgid at their offsets for the layout), and for a process that had
 * threads their sum after it. */
static struct nl_msg *exit_msg(int cmd, int version, bool v15, size_t len, uint32_t pid,
			       uint32_t ppid, uint32_t tgid, bool group)
{
	unsigned char b[600] = { 0 };
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *a;

	fill(b, version, v15);
	put32(b, v15 ? 176 : 128, pid);
	put32(b, v15 ? 180 : 132, ppid);
	put64(b, v15 ? 192 : 144, 12500000);	/* lived 12.5 s */
	put64(b, v15 ? 424 : 344, 1700000000);	/* from this second */
	put32(b, v15 ? 464 : 368, tgid);
	genlmsg_put(m, 0, 7, 0x17, 0, 0, (uint8_t)cmd, TASKSTATS_GENL_VERSION);
	a = nla_nest_start(m, TASKSTATS_TYPE_AGGR_PID);
	nla_put_u32(m, TASKSTATS_TYPE_PID, pid);
	nla_put(m, TASKSTATS_TYPE_STATS, (int)len, b);
	nla_nest_end(m, a);
	if (group) {
		put64(b, 24, 9000000000ull);
		a = nla_nest_start(m, TASKSTATS_TYPE_AGGR_TGID);
		nla_put_u32(m, TASKSTATS_TYPE_TGID, tgid);
		nla_put(m, TASKSTATS_TYPE_STATS, (int)len, b);
		nla_nest_end(m, a);
	}
	return m;
}

static int parse_msg(struct nl_msg *m, size_t cut, struct taskstats_exit *e)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	int rc = taskstats_exit_parse(h, h->nlmsg_len - cut, e);

	nlmsg_free(m);
	return rc;
}

/* An exit record: the thread, its process and that one's parent, and the
 * thread's own totals, never the sum of its process's threads that comes
 * with the last one. */
TEST(taskstats_exit_record_parse)
{
	struct taskstats_exit e;

	memset(&e, 0, sizeof e);
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_NEW, 16, false, 560, 4242, 4000, 4240, true), 0,
			    &e), 1);
	CHECK_INT(e.pid, 4242);
	CHECK_INT(e.tgid, 4240);
	CHECK_INT(e.ppid, 4000);
	CHECK_INT(e.start, 1700000000);
	CHECK_NEAR(e.life, 12.5, 1e-12);
	check_all(&e.d, true);
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_NEW, 13, false, 416, 7, 1, 7, false), 0, &e), 1);
	CHECK_INT(e.tgid, 7);
	CHECK_INT(e.ppid, 1);
	check_all(&e.d, false);
	/* 15's max/min fields put the ids 48 and 96 bytes further */
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_NEW, 15, true, 600, 9, 8, 9, false), 0, &e), 1);
	CHECK_INT(e.ppid, 8);
	CHECK_INT(e.tgid, 9);
	CHECK_INT(e.start, 1700000000);
	CHECK_NEAR(e.life, 12.5, 1e-12);
	CHECK_NEAR(e.d.s[DL_COMPACT], 6.0, 1e-12);
	/* before 12 a record names no process */
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_NEW, 11, false, 360, 5, 1, 0, false), 0, &e), -1);
	/* a 12 cut before ac_tgid, a message cut short */
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_NEW, 12, false, 368, 5, 1, 5, false), 0, &e), -1);
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_NEW, 16, false, 560, 5, 1, 5, false), 100, &e),
		  -1);
	/* a reply to a query is no exit record */
	CHECK_INT(parse_msg(exit_msg(TASKSTATS_CMD_GET, 16, false, 560, 5, 1, 5, false), 0, &e), 0);
	{
		struct nlmsghdr ack = { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = NLMSG_ERROR };

		CHECK_INT(taskstats_exit_parse(&ack, sizeof ack, &e), 0);
		CHECK_INT(taskstats_exit_parse(&ack, 8, &e), -1);
	}
}

/* A record of thread pid of process tgid, whose parent is ppid, begun at
 * second 1000; cpu seconds of wait. */
static struct taskstats_exit rec(pid_t pid, pid_t tgid, pid_t ppid, double cpu)
{
	struct taskstats_exit e = { .pid = pid, .tgid = tgid, .ppid = ppid, .start = 1000,
				    .life = 100 };

	delays_clear(&e.d);
	e.d.s[DL_CPU] = cpu;
	e.d.s[DL_IO] = 0;
	return e;
}

static double tree_cpu(const struct taskstats_tree *t)
{
	bool past[DL_N];
	struct delays d;

	CHECK(taskstats_tree_sum(t, &d, past));
	return isnan(d.s[DL_CPU]) ? -1 : d.s[DL_CPU];
}

/* The tree of root 100 under reaper 1 (whose other child, 50, is not the
 * tree's): children counted before their parents' records, threads of a
 * live process, orphans handed to the reaper; the root's own record, the
 * other child's and strangers' not. */
TEST(taskstats_tree_sums_its_processes)
{
	struct taskstats_tree *t = taskstats_tree_new();
	const struct taskstats_proc live[] = { { 100, 990 }, { 50, 900 }, { 300, 995 } };
	const struct taskstats_exit r1[] = {
		rec(201, 201, 200, 1),		/* child of 200, before 200's record */
		rec(200, 200, 100, 2),		/* the root's child */
		rec(302, 300, 100, 4),		/* a thread of live 300, the root's */
		rec(400, 400, 1, 8),		/* an orphan the reaper took */
		rec(100, 100, 1, 16),		/* the root: its reaping has it */
		rec(50, 50, 1, 32),		/* the reaper's other child */
		rec(901, 901, 900, 64),		/* another's */
	};

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_NEAR(tree_cpu(t), -1, 0);	/* nothing known yet */
	taskstats_tree_begin(t, (struct taskstats_proc){ 100, 990 }, 1, 50);
	CHECK_INT(taskstats_tree_feed(t, r1, 7), 0);
	CHECK_INT(taskstats_tree_round(t, live, 3, false), 0);
	CHECK_NEAR(tree_cpu(t), 1 + 2 + 4 + 8, 1e-12);
	/* a new start forgets the sum */
	taskstats_tree_begin(t, (struct taskstats_proc){ 100, 990 }, 1, 50);
	CHECK_NEAR(tree_cpu(t), -1, 0);
	taskstats_tree_free(t);
}

/* A record whose parent is not known yet waits one round: the parent may
 * be seen alive then, or its record come; after that it is another's.
 * A process settled in one round is the parent of records in the next
 * (a child's exit sent as its parent's was), not in the one after. */
TEST(taskstats_tree_rounds)
{
	struct taskstats_tree *t = taskstats_tree_new();
	const struct taskstats_proc live2[] = { { 500, 999 } }, live3[] = { { 900, 999 } },
				    live4[] = { { 700, 999 } };
	const struct taskstats_exit r1[] = {
		rec(501, 501, 500, 1),	/* 500 forked after the look at the live */
		rec(901, 901, 900, 2),	/* another's */
		rec(600, 600, 100, 4),	/* the root's child */
	}, r2[] = {
		rec(601, 601, 600, 8),	/* 600's child, a round late */
		rec(801, 801, 800, 16),	/* another's */
	}, r3[] = {
		rec(602, 602, 600, 32),	/* two rounds late: 600 is gone */
		rec(701, 701, 700, 64),
	};

	if (!t)
		return;
	taskstats_tree_begin(t, (struct taskstats_proc){ 100, 990 }, 1, 0);
	taskstats_tree_feed(t, r1, 3);
	taskstats_tree_round(t, NULL, 0, false);
	CHECK_NEAR(tree_cpu(t), 4, 1e-12);
	taskstats_tree_feed(t, r2, 2);
	taskstats_tree_round(t, live2, 1, false);
	CHECK_NEAR(tree_cpu(t), 4 + 1 + 8, 1e-12);
	taskstats_tree_feed(t, r3, 2);
	/* 901 waited its round and went, though 900 is seen now; the last
	 * round drops what it does not settle */
	taskstats_tree_round(t, live3, 1, true);
	CHECK_NEAR(tree_cpu(t), 4 + 1 + 8, 1e-12);
	taskstats_tree_round(t, live4, 1, false);
	CHECK_NEAR(tree_cpu(t), 4 + 1 + 8, 1e-12);
	taskstats_tree_free(t);
}

/* A pid the tree holds now may have been another's: a record naming it
 * as parent but begun before it (past the two clocks' slack) is that
 * other's child. */
TEST(taskstats_tree_pid_reused)
{
	struct taskstats_tree *t = taskstats_tree_new();
	const struct taskstats_proc live[] = { { 200, 1000 } };
	struct taskstats_exit r[] = {
		rec(201, 201, 200, 1), rec(202, 202, 200, 2), rec(203, 203, 100, 4),
		rec(205, 204, 100, 8), rec(206, 206, 204, 16),
	};

	if (!t)
		return;
	r[0].start = 1000 - TASKSTATS_START_SLACK;	/* within the slack */
	r[1].start = 1000 - TASKSTATS_START_SLACK - 1;	/* 200's last owner's */
	r[2].start = 990 - TASKSTATS_START_SLACK - 1;	/* the root's last owner's */
	r[3].start = 1000;	/* a thread of 204, which began before it */
	r[4].start = 995;	/* 204's child: 204 is not known by a thread's record */
	taskstats_tree_begin(t, (struct taskstats_proc){ 100, 990 }, 1, 0);
	taskstats_tree_feed(t, r, 5);
	taskstats_tree_round(t, live, 1, true);
	CHECK_NEAR(tree_cpu(t), 1 + 8, 1e-12);
	taskstats_tree_free(t);
}

/* A delay longer than its thread's life is this kernel's uptime added to
 * it: that total is unknown, the others stand. */
TEST(taskstats_tree_delay_past_life)
{
	struct taskstats_tree *t = taskstats_tree_new();
	struct taskstats_exit r[] = { rec(201, 201, 100, 1), rec(202, 202, 100, 2) };
	bool past[DL_N];
	struct delays d;

	if (!t)
		return;
	taskstats_tree_begin(t, (struct taskstats_proc){ 100, 990 }, 1, 0);
	r[0].life = 1 - TASKSTATS_LIFE_SLACK / 2;	/* within the two clocks' slack */
	r[0].d.s[DL_IO] = 0.5;
	taskstats_tree_feed(t, r, 1);
	taskstats_tree_round(t, NULL, 0, false);
	CHECK(taskstats_tree_sum(t, &d, past));
	CHECK(!past[DL_CPU] && !past[DL_IO]);
	CHECK_NEAR(d.s[DL_IO], 0.5, 1e-12);
	r[1].d.s[DL_IO] = 4346.5;	/* this machine's uptime, in a shell of 2.3 s */
	r[1].life = 2.3;
	taskstats_tree_feed(t, r + 1, 1);
	taskstats_tree_round(t, NULL, 0, true);
	CHECK(taskstats_tree_sum(t, &d, past));
	CHECK(past[DL_IO] && isnan(d.s[DL_IO]));
	CHECK(!past[DL_CPU]);
	CHECK_NEAR(d.s[DL_CPU], 3, 1e-12);
	/* a new run starts clean */
	taskstats_tree_begin(t, (struct taskstats_proc){ 100, 990 }, 1, 0);
	CHECK(taskstats_tree_sum(t, &d, past));
	CHECK(!past[DL_IO]);
	taskstats_tree_free(t);
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
	/* two workers' nanosecond totals sum to the nearest double of their
	 * nanosecond sum, which prints as itself */
	delays_clear(&a);
	delays_clear(&b);
	a.s[DL_RECLAIM] = 10948531203 / 1e9;
	b.s[DL_RECLAIM] = 10365655164 / 1e9;
	delays_add(&a, &b);
	CHECK(a.s[DL_RECLAIM] == 21314186367 / 1e9);
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

/* As root: a state directory, delay accounting on (*on: as it was) and
 * a connection. NULL with *on -1 when not root (said: the test is
 * skipped), or NULL when the connection failed (checked; the caller
 * still restores). */
static struct taskstats_conn *live_begin(const char *name, int *on)
{
	struct taskstats_conn *c;
	char err[256] = "";

	*on = -1;
	if (geteuid() != 0) {
		printf("  skipped: taskstats needs root\n");
		return NULL;
	}
	statedir_begin(name);
	*on = delayacct_get(err, sizeof err);
	CHECK(*on >= 0);
	CHECK_INT(delayacct_enable(err, sizeof err), *on ? 0 : 1);
	CHECK_INT(delayacct_get(err, sizeof err), 1);
	c = taskstats_open(err, sizeof err);
	CHECK(c != NULL);
	if (!c)
		printf("  %s\n", err);
	return c;
}

TEST(taskstats_live_child_against_proc)
{
	struct taskstats_conn *c;
	struct delays d, z;
	struct timespec born;
	char err[256] = "";
	long long ticks = -1, run_ns = -1;
	int fds[2], on, e = -1;
	siginfo_t si;
	pid_t pid;
	char r;

	c = live_begin("taskstats", &on);
	if (on < 0)
		return;
	if (!c)
		goto out;
	CHECK(pipe(fds) == 0);
	clock_gettime(CLOCK_MONOTONIC, &born);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child_work(fds[1]);
	}
	close(fds[1]);
	CHECK_INT(read(fds[0], &r, 1), 1);
	close(fds[0]);
	CHECK(proc_delays(pid, &ticks, &run_ns) == 0);
	CHECK_INT(taskstats_query_many(c, &pid, 1, &d, &e, err, sizeof err), 0);
	CHECK_INT(e, 0);
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
	CHECK_INT(taskstats_query_exited(c, pid, &z, NULL, err, sizeof err), 0);
	/* (killed, it may have waited for a CPU once more to exit) */
	CHECK(z.s[DL_CPU] >= d.s[DL_CPU] && z.s[DL_CPU] < d.s[DL_CPU] + 5);
	if (isnan(z.s[DL_IO])) {
		/* The kernel now and then adds its uptime to a task's block
		 * I/O delay for good; the query then gives n/a, a figure past
		 * the task's life. The zombie's stat field 42 must show one as
		 * long: well past half of the life seen here (from before the
		 * fork to now, longer than the kernel's), for a task that spun
		 * and slept. */
		long long zt = -1, zr;
		struct timespec now;
		double life;

		clock_gettime(CLOCK_MONOTONIC, &now);
		life = (double)(now.tv_sec - born.tv_sec) + (double)(now.tv_nsec - born.tv_nsec) / 1e9;
		CHECK(proc_delays(pid, &zt, &zr) == 0);
		CHECK((double)zt / 100 > life / 2);
		printf("  %s: pid %d's block I/O delay %.2f s alive, %lld ticks exited, "
		       "in a life of %.2f s\n",
		       (double)zt / 100 > life / 2 ? "NOTE: n/a, botched by the kernel" : "n/a",
		       (int)pid, d.s[DL_IO], zt, life);
	} else {
		CHECK(z.s[DL_IO] >= d.s[DL_IO]);
		if (z.s[DL_IO] < d.s[DL_IO])
			printf("  pid %d: io %.9f s alive, %.9f s exited\n",
			       (int)pid, d.s[DL_IO], z.s[DL_IO]);
	}
	waitpid(pid, NULL, 0);
	CHECK_INT(taskstats_query_many(c, &pid, 1, &z, &e, err, sizeof err), 0);
	CHECK_INT(e, ESRCH);	/* reaped */
	taskstats_close(c);
out:
	CHECK_INT(delayacct_restore(err, sizeof err), 0);
	CHECK_INT(delayacct_get(err, sizeof err), on);
	statedir_end();
}

/* 40 sleeping children and one reaped pid in one query: more requests
 * than one send carries. Each child's cpu delay is its schedstat run
 * delay; the reaped one is ESRCH, and the others still answer. */
TEST(taskstats_query_many_against_proc)
{
	enum { N = 40 };
	struct taskstats_conn *c;
	struct delays d[N + 1];
	pid_t pid[N + 1];
	int errs[N + 1], on, fds[2];
	char err[256] = "";

	c = live_begin("taskstats-many", &on);
	if (on < 0)
		return;
	if (!c)
		goto out;
	CHECK(pipe(fds) == 0);
	for (int i = 0; i <= N; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			close(fds[0]);
			if (write(fds[1], "r", 1) < 0)
				_exit(1);
			if (i == N)
				_exit(0);
			pause();
			_exit(0);
		}
	}
	close(fds[1]);
	for (int i = 0; i <= N; i++) {
		char r;

		CHECK_INT(read(fds[0], &r, 1), 1);
	}
	close(fds[0]);
	waitpid(pid[N], NULL, 0);
	for (int i = 0; i < N; i++) {	/* each asleep in pause(): totals still */
		char path[64], st = 0;
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid[i]);
		for (int k = 0; k < 500 && st != 'S'; k++) {
			if ((f = fopen(path, "r"))) {
				if (fscanf(f, "%*d %*s %c", &st) != 1)
					st = 0;
				fclose(f);
			}
			if (st != 'S')
				usleep(10000);
		}
	}
	CHECK_INT(taskstats_acct_on(c, err, sizeof err), 1);
	CHECK_INT(taskstats_query_many(c, pid, N + 1, d, errs, err, sizeof err), 0);
	CHECK_INT(errs[N], ESRCH);
	for (int i = 0; i < N; i++) {
		char path[64];
		long long run_ns = -1;
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid[i]);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%*s %lld", &run_ns) != 1)
				run_ns = -1;
			fclose(f);
		}
		CHECK_INT(errs[i], 0);
		CHECK_NEAR(d[i].s[DL_CPU], (double)run_ns / 1e9, 1e-9);
		if (errs[i] || fabs(d[i].s[DL_CPU] - (double)run_ns / 1e9) > 1e-9)
			printf("  child %d (pid %d): errno %d, cpu %.9f s, schedstat %lld ns\n", i,
			       (int)pid[i], errs[i], d[i].s[DL_CPU], run_ns);
	}
	for (int i = 0; i < N; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	/* the kept-open switch reads the kernel's value anew */
	CHECK_INT(delayacct_restore(err, sizeof err), 0);
	CHECK_INT(taskstats_acct_on(c, err, sizeof err), on);
	taskstats_close(c);
out:
	CHECK_INT(delayacct_restore(err, sizeof err), 0);
	CHECK_INT(delayacct_get(err, sizeof err), on);
	statedir_end();
}
