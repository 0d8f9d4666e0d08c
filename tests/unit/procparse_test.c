#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "procparse.h"

/* Captured on kernel 6.18: a command named "we)ird (co mm", kswapd0 and init. */
static const char stat_weird[] =
	"6411 (we)ird (co mm) S 1 6407 2468 0 -1 4194304 129 0 0 0 1 0 0 0 20 0 1 0 "
	"40246 2990080 416 18446744073709551615 94044724400128 94044724418057 "
	"140731716942816 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 94044724432144 "
	"94044724433408 94045210062848 140731716950459 140731716950478 "
	"140731716950478 140731716952040 0\n";
static const char stat_kswapd[] =
	"45 (kswapd0) S 2 0 0 0 -1 2230336 0 0 0 0 0 0 0 0 20 0 1 0 32 0 0 "
	"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0\n";
static const char stat_init[] =
	"1 (process_api) S 0 0 0 0 -1 4194560 25443 484880 0 218 97 244 1593 1142 "
	"10 -10 13 0 20 44359680 3142 18446744073709551615 1 1 0 0 0 0 0 4096 1256 "
	"0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

TEST(procparse_stat_comm_with_paren_and_spaces)
{
	struct pstat ps;

	CHECK_INT(procparse_stat(stat_weird, sizeof(stat_weird) - 1, &ps), 0);
	CHECK_INT(ps.pid, 6411);
	CHECK_STR(ps.comm, "we)ird (co mm");
	CHECK_INT(ps.state, 'S');
	CHECK_INT(ps.ppid, 1);
	CHECK_INT(ps.pgrp, 6407);
	CHECK_INT(ps.flags, 4194304);
	CHECK_INT(ps.minflt, 129);
	CHECK_INT(ps.majflt, 0);
	CHECK_INT(ps.utime, 1);
	CHECK_INT(ps.stime, 0);
	CHECK_INT(ps.num_threads, 1);
	CHECK_INT(ps.starttime, 40246);
	CHECK_INT(ps.rss_pages, 416);
	CHECK(!pstat_is_kthread(&ps));
}

TEST(procparse_stat_kthread_and_init)
{
	struct pstat ps;

	CHECK_INT(procparse_stat(stat_kswapd, sizeof(stat_kswapd) - 1, &ps), 0);
	CHECK_STR(ps.comm, "kswapd0");
	CHECK_INT(ps.ppid, 2);
	CHECK(pstat_is_kthread(&ps));
	CHECK_INT(ps.rss_pages, 0);

	CHECK_INT(procparse_stat(stat_init, sizeof(stat_init) - 1, &ps), 0);
	CHECK_INT(ps.minflt, 25443);
	CHECK_INT(ps.majflt, 0);	/* field 12; 484880 is cminflt, 218 cmajflt */
	CHECK_INT(ps.utime, 97);
	CHECK_INT(ps.stime, 244);
	CHECK_INT(ps.num_threads, 13);
	CHECK_INT(ps.starttime, 20);
	CHECK_INT(ps.rss_pages, 3142);
}

/* Every cut before the rsslim field must fail, never yield a short number. */
TEST(procparse_stat_truncated)
{
	struct pstat ps;
	size_t full = sizeof(stat_init) - 1;
	size_t ok_from = (size_t)(strstr(stat_init, " 18446744073709551615") - stat_init) + 2;

	for (size_t len = 0; len < ok_from; len++) {
		errno = 0;
		if (procparse_stat(stat_init, len, &ps) == 0)
			t_fail(__FILE__, __LINE__, "stat cut at %zu parsed", len);
		else
			CHECK_INT(errno, EINVAL);
	}
	for (size_t len = ok_from; len <= full; len++)
		CHECK_INT(procparse_stat(stat_init, len, &ps), 0);
}

TEST(procparse_stat_malformed)
{
	struct pstat ps;
	const char *bad[] = {
		"12 kswapd0 S 2 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 32 0 0 1\n",
		"12 (x S 2 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 32 0 0 1\n",
		"12 (x) S 2 0 0 0 -1 0 zz 0 0 0 0 0 0 0 20 0 1 0 32 0 0 1\n",
		"-3 (x) S 2 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 32 0 0 1\n",
		"",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(procparse_stat(bad[i], strlen(bad[i]), &ps), -1);
}

TEST(procparse_schedstat_basic)
{
	const char s[] = "68048 5390 3\n";
	int64_t ns = 0;

	CHECK_INT(procparse_schedstat(s, sizeof(s) - 1, &ns), 0);
	CHECK_INT(ns, 68048);
	CHECK_INT(procparse_schedstat("", 0, &ns), -1);
	CHECK_INT(procparse_schedstat("12a 3 4", 7, &ns), -1);
}

TEST(procparse_psi_memory)
{
	const char s[] =
		"some avg10=1.25 avg60=0.50 avg300=0.07 total=123456\n"
		"full avg10=0.80 avg60=0.10 avg300=0.00 total=98765\n";
	const char idle[] =		/* captured */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	const char some_only[] = "some avg10=3.00 avg60=2.00 avg300=1.00 total=7\n";
	struct psi p;

	CHECK_INT(procparse_psi(s, sizeof(s) - 1, &p), 0);
	CHECK(p.has_some && p.has_full);
	CHECK_NEAR(p.some.avg10, 1.25, 1e-12);
	CHECK_NEAR(p.some.avg60, 0.50, 1e-12);
	CHECK_NEAR(p.some.avg300, 0.07, 1e-12);
	CHECK_INT(p.some.total_us, 123456);
	CHECK_NEAR(p.full.avg10, 0.80, 1e-12);
	CHECK_INT(p.full.total_us, 98765);

	CHECK_INT(procparse_psi(idle, sizeof(idle) - 1, &p), 0);
	CHECK_INT(p.full.total_us, 0);

	CHECK_INT(procparse_psi(some_only, sizeof(some_only) - 1, &p), 0);
	CHECK(p.has_some && !p.has_full);
	CHECK_INT(p.some.total_us, 7);

	/* cut inside the first line's total, and junk */
	CHECK_INT(procparse_psi(s, 30, &p), -1);
	CHECK_INT(procparse_psi("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 48, &p), -1);
	CHECK_INT(procparse_psi("some avg10=x avg60=0 avg300=0 total=0\n", 38, &p), -1);
	CHECK_INT(procparse_psi("", 0, &p), -1);
}

TEST(procparse_kib_status)
{
	const char s[] =
		"Name:\tsleep\nVmPeak:\t    5560 kB\nVmRSS:\t    1836 kB\n"
		"RssAnon:\t      88 kB\nVmSwap:\t   20480 kB\nThreads:\t1\n";
	const char zombie[] = "Name:\tsh\nState:\tZ (zombie)\nThreads:\t1\n";
	int64_t v = 0;

	CHECK_INT(procparse_kib(s, sizeof(s) - 1, "VmRSS", &v), 0);
	CHECK_INT(v, 1836);
	CHECK_INT(procparse_kib(s, sizeof(s) - 1, "VmSwap", &v), 0);
	CHECK_INT(v, 20480);
	/* "Vm" is a prefix of keys but not a key */
	errno = 0;
	CHECK_INT(procparse_kib(s, sizeof(s) - 1, "Vm", &v), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(procparse_kib(zombie, sizeof(zombie) - 1, "VmSwap", &v), -1);
	CHECK_INT(errno, ENOENT);
	/* no unit: not a kB line */
	CHECK_INT(procparse_kib(s, sizeof(s) - 1, "Threads", &v), -1);
	CHECK_INT(errno, EINVAL);
	/* cut inside the number */
	CHECK_INT(procparse_kib(s, 45, "VmRSS", &v), -1);
}

TEST(procparse_swaps_escapes)
{
	/* captured: swapon "/tmp/sb/sw ap<TAB>x", 16 MiB file */
	const char s[] =
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/tmp/sb/sw\\040ap\\011x                   file\t\t16380\t\t0\t\t-2\n"
		"/dev/vdb2                               partition\t8388604\t\t1024\t\t5\n";
	const char empty[] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
	struct swap_dev d[2];

	CHECK_INT(procparse_swaps(s, sizeof(s) - 1, d, 2), 2);
	CHECK_STR(d[0].path, "/tmp/sb/sw ap\tx");
	CHECK_STR(d[0].type, "file");
	CHECK_INT(d[0].size_kib, 16380);
	CHECK_INT(d[0].used_kib, 0);
	CHECK_INT(d[0].prio, -2);
	CHECK_STR(d[1].path, "/dev/vdb2");
	CHECK_STR(d[1].type, "partition");
	CHECK_INT(d[1].size_kib, 8388604);
	CHECK_INT(d[1].used_kib, 1024);
	CHECK_INT(d[1].prio, 5);

	CHECK_INT(procparse_swaps(s, sizeof(s) - 1, d, 1), 2);	/* counts past max */
	CHECK_INT(procparse_swaps(empty, sizeof(empty) - 1, d, 2), 0);
	CHECK_INT(procparse_swaps(s, sizeof(s) - 5, d, 2), -1);	/* last line cut */
	CHECK_INT(procparse_swaps("", 0, d, 2), -1);
	CHECK_INT(procparse_swaps("Filename\n/dev/x file 1\n", 23, d, 2), -1);
}

TEST(procparse_children_list)
{
	const char s[] = "6412 6413 70001 ";	/* the kernel leaves a trailing space */
	pid_t p[3];

	CHECK_INT(procparse_children(s, sizeof(s) - 1, p, 3), 3);
	CHECK_INT(p[0], 6412);
	CHECK_INT(p[1], 6413);
	CHECK_INT(p[2], 70001);
	CHECK_INT(procparse_children(s, sizeof(s) - 1, p, 1), 3);
	CHECK_INT(procparse_children("", 0, p, 3), 0);
	CHECK_INT(procparse_children("12 x3 ", 6, p, 3), -1);
	CHECK_INT(procparse_children("12 0 ", 5, p, 3), -1);
}

TEST(procparse_vmstat_keys)
{
	const char s[] = "pgfault 123456\npgmajfault 7\nworkingset_refault_anon 0\n"
			 "pgfault_extra 9\nallocstall_dma 5\nbad x\nneg -3\nlast 42";
	const char *const keys[] = { "pgmajfault", "pgfault", "allocstall_device", "last",
				     "workingset_refault", "bad", "neg", "workingset_refault_anon" };
	int64_t v[8];

	CHECK_INT(procparse_vmstat(s, sizeof(s) - 1, keys, 8, v), 4);
	CHECK_INT(v[0], 7);
	CHECK_INT(v[1], 123456);	/* not pgfault_extra's */
	CHECK_INT(v[2], -1);		/* absent */
	CHECK_INT(v[3], 42);		/* the last line has no newline */
	CHECK_INT(v[4], -1);		/* a prefix of a key is no key */
	CHECK_INT(v[5], -1);		/* no number */
	CHECK_INT(v[6], -1);		/* no count */
	CHECK_INT(v[7], 0);
	CHECK_INT(procparse_vmstat("", 0, keys, 8, v), 0);
	CHECK_INT(v[1], -1);
}

/* The real file: the counters the sampler reads are there and count. */
TEST(procparse_vmstat_this_kernel)
{
	const char *const keys[] = { "pgfault", "pgmajfault", "pswpin", "pswpout", "oom_kill" };
	char buf[16384];
	int64_t v[5];
	size_t n = 0;
	ssize_t k;
	int fd = open("/proc/vmstat", O_RDONLY);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	while (n < sizeof(buf) && (k = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)k;
	close(fd);
	CHECK_INT(procparse_vmstat(buf, n, keys, 5, v), 5);
	CHECK(v[0] > 0);
	for (int i = 0; i < 5; i++)
		CHECK(v[i] >= 0);
}
