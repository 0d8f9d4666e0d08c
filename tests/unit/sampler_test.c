#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "metrics.h"
#include "procparse.h"
#include "sampler.h"

/* The value of "key N" in /proc/vmstat, read by hand; -1 if absent. */
static long long vmstat_by_hand(const char *key)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[128];
	long long v, found = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", name, &v) == 2)
		if (!strcmp(name, key))
			found = v;
	fclose(f);
	return found;
}

static struct sampler *new_sampler(void)
{
	char err[256] = "";
	struct sampler *s = sampler_new(err, sizeof(err));

	if (!s)
		t_fail(__FILE__, __LINE__, "sampler_new: %s", err);
	return s;
}

static const char *const vm_keys[VM_N] = {
	[VM_PGFAULT] = "pgfault", [VM_PGMAJFAULT] = "pgmajfault",
	[VM_PSWPIN] = "pswpin", [VM_PSWPOUT] = "pswpout",
	[VM_PGSCAN_KSWAPD] = "pgscan_kswapd", [VM_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[VM_PGSCAN_DIRECT] = "pgscan_direct", [VM_PGSTEAL_DIRECT] = "pgsteal_direct",
	[VM_OOM_KILL] = "oom_kill",
	[VM_REFAULT_ANON] = "workingset_refault_anon",
	[VM_REFAULT_FILE] = "workingset_refault_file",
	[VM_ZSWPIN] = "zswpin", [VM_ZSWPOUT] = "zswpout", [VM_ZSWPWB] = "zswpwb",
};

/* Each counter sampled lies between two hand reads, in each of three
 * samples in a row: the read stops at the last counter wanted, and the
 * next starts again at the top. */
TEST(sampler_sys_brackets_proc_vmstat)
{
	struct sampler *s = new_sampler();
	struct sys_sample ss;
	const char *stalls[] = { "allocstall_dma", "allocstall_dma32",
				 "allocstall_normal", "allocstall_movable" };

	if (!s)
		return;
	for (int round = 0; round < 3; round++) {
		long long before[VM_N] = { 0 }, after[VM_N] = { 0 };

		for (int i = 0; i < VM_N; i++)
			before[i] = vm_keys[i] ? vmstat_by_hand(vm_keys[i]) : 0;
		for (int k = 0; k < 4; k++)
			before[VM_ALLOCSTALL] += vmstat_by_hand(stalls[k]);
		CHECK_INT(sampler_sys(s, &ss), 0);
		for (int i = 0; i < VM_N; i++)
			after[i] = vm_keys[i] ? vmstat_by_hand(vm_keys[i]) : 0;
		for (int k = 0; k < 4; k++)
			after[VM_ALLOCSTALL] += vmstat_by_hand(stalls[k]);

		for (int i = 0; i < VM_N; i++) {
			if (before[i] < 0) {	/* this kernel lacks the key: NA, not 0 */
				CHECK_INT(ss.vm[i], NA);
				continue;
			}
			if (ss.vm[i] < before[i] || ss.vm[i] > after[i])
				t_fail(__FILE__, __LINE__, "vm[%d] = %lld not in [%lld, %lld]",
				       i, (long long)ss.vm[i], before[i], after[i]);
		}
		/* The faults of the hand reads themselves move pgfault: it must move. */
		CHECK(after[VM_PGFAULT] >= before[VM_PGFAULT]);
		CHECK(ss.t > 0);
		CHECK(ss.procs_running >= 1);	/* this very thread */
		CHECK(ss.procs_blocked >= 0);
	}
	sampler_free(s);
}

TEST(sampler_sys_meminfo_matches)
{
	struct sampler *s = new_sampler();
	struct sys_sample ss;
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long long total = -1, swap_total = -1;

	if (!s || !f) {
		CHECK(f != NULL);
		sampler_free(s);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "MemTotal: %lld kB", &total);
		sscanf(line, "SwapTotal: %lld kB", &swap_total);
	}
	fclose(f);
	CHECK_INT(sampler_sys(s, &ss), 0);
	CHECK_INT(ss.mem[MI_TOTAL], total);
	CHECK_INT(ss.mem[MI_SWAP_TOTAL], swap_total);
	CHECK_INT(ss.mem[MI_SWAP_USED], ss.mem[MI_SWAP_TOTAL] - ss.mem[MI_SWAP_FREE]);
	for (int i = 0; i < MI_N; i++)
		CHECK(ss.mem[i] >= 0);
	CHECK(ss.mem[MI_AVAIL] <= ss.mem[MI_TOTAL]);
	CHECK(ss.mem_cache_all >= ss.mem[MI_CACHED]);
	sampler_free(s);
}

static long long meminfo_by_hand(const char *key);

/* SwapCached against reads by hand just before and after that agree:
 * within 4 MiB, as swap beside this test (other checks press the machine)
 * may move it and back between them; not more than the swap in use. */
TEST(sampler_sys_swap_cached_matches)
{
	struct sampler *s = new_sampler();
	struct sys_sample ss;
	long long a = -1, b = -2;

	if (!s)
		return;
	for (int k = 0; k < 50 && a != b; k++) {
		a = meminfo_by_hand("SwapCached");
		CHECK_INT(sampler_sys(s, &ss), 0);
		b = meminfo_by_hand("SwapCached");
	}
	/* one read of the file prints the swap totals before SwapCached:
	 * swap beside the test may move the one past the other in between */
	CHECK(ss.mem[MI_SWAP_CACHED] <= ss.mem[MI_SWAP_USED] + 4096);
	CHECK(a >= 0);
	if (a == b) {
		CHECK(llabs(ss.mem[MI_SWAP_CACHED] - a) <= 4096);
		if (llabs(ss.mem[MI_SWAP_CACHED] - a) > 4096)
			printf("  SwapCached %lld kB by hand, %lld kB sampled\n",
			       a, (long long)ss.mem[MI_SWAP_CACHED]);
	} else
		printf("  NOTE: SwapCached moved across 50 reads (last %lld, %lld kB): "
		       "not compared\n", a, b);
	sampler_free(s);
}

/* "Key: N kB" of /proc/meminfo by hand; -1 if absent. */
static long long meminfo_by_hand(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t k = strlen(key);
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && line[k] == ':') {
			v = atoll(line + k + 1);
			break;
		}
	fclose(f);
	return v;
}

static bool between(long long v, long long a, long long b)
{
	return v >= (a < b ? a : b) && v <= (a < b ? b : a);
}

/* Zswap and Zswapped, read by hand around the sample. */
TEST(sampler_sys_zswap_meminfo)
{
	struct sampler *s = new_sampler();
	struct sampler_caps caps;
	struct sys_sample ss;
	long long p0, z0, p1, z1;

	if (!s)
		return;
	/* the first sample reads the file; the next skip it while the pool is
	 * empty and zswpout still: the same figures either way */
	for (int round = 0; round < 3; round++) {
		p0 = meminfo_by_hand("Zswap"), z0 = meminfo_by_hand("Zswapped");
		CHECK_INT(sampler_sys(s, &ss), 0);
		p1 = meminfo_by_hand("Zswap"), z1 = meminfo_by_hand("Zswapped");
		sampler_caps(s, &caps);
		CHECK(caps.zswap_mem == (p0 >= 0 && z0 >= 0));
		if (p0 < 0 || z0 < 0) {
			CHECK_INT(ss.zswap_kib, NA);
		} else if (!between(ss.zswap_kib, p0, p1) || !between(ss.zswapped_kib, z0, z1)) {
			t_fail(__FILE__, __LINE__, "sample %d: Zswap %lld in [%lld, %lld], Zswapped %lld in [%lld, %lld]",
			       round, (long long)ss.zswap_kib, p0, p1, (long long)ss.zswapped_kib, z0, z1);
		}
	}
	sampler_free(s);
}

/* A zram device's mm_stat, read by hand around the sample; without one
 * the figures are NA. */
TEST(sampler_sys_zram_mm_stat)
{
	struct sampler *s = new_sampler();
	struct sampler_caps caps;
	struct sys_sample ss;
	long long a[3] = { -1, -1, -1 }, b[3] = { -1, -1, -1 };
	const char *path = "/sys/block/zram0/mm_stat";
	FILE *f;

	if (!s)
		return;
	CHECK_INT(sampler_sys(s, &ss), 0);
	CHECK_INT(ss.zram_orig_kib, NA);
	CHECK_INT(sampler_zram(s, "zram-none"), -1);
	if (access(path, R_OK) < 0) {
		sampler_free(s);
		return;
	}
	CHECK_INT(sampler_zram(s, "zram0"), 0);
	sampler_caps(s, &caps);
	CHECK(caps.zram);
	if ((f = fopen(path, "r"))) {
		CHECK_INT(fscanf(f, "%lld %lld %lld", &a[0], &a[1], &a[2]), 3);
		fclose(f);
	}
	CHECK_INT(sampler_sys(s, &ss), 0);
	if ((f = fopen(path, "r"))) {
		CHECK_INT(fscanf(f, "%lld %lld %lld", &b[0], &b[1], &b[2]), 3);
		fclose(f);
	}
	CHECK(between(ss.zram_orig_kib, a[0] / 1024, b[0] / 1024));
	CHECK(between(ss.zram_compr_kib, a[1] / 1024, b[1] / 1024));
	CHECK(between(ss.zram_mem_kib, a[2] / 1024, b[2] / 1024));
	CHECK_INT(sampler_zram(s, NULL), 0);
	CHECK_INT(sampler_sys(s, &ss), 0);
	CHECK_INT(ss.zram_mem_kib, NA);
	sampler_free(s);
}

TEST(sampler_sys_psi_brackets)
{
	struct sampler *s = new_sampler();
	struct sys_sample ss;
	char buf[512];
	struct psi p1, p2;
	int fd = open("/proc/pressure/memory", O_RDONLY);
	ssize_t n;

	if (!s)
		return;
	if (fd < 0) {
		CHECK_INT(sampler_sys(s, &ss), 0);
		CHECK(isnan(ss.psi_some10));
		CHECK_INT(ss.psi_some_us, NA);
		sampler_free(s);
		return;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	CHECK_INT(procparse_psi(buf, (size_t)(n > 0 ? n : 0), &p1), 0);
	CHECK_INT(sampler_sys(s, &ss), 0);
	n = pread(fd, buf, sizeof(buf), 0);
	CHECK_INT(procparse_psi(buf, (size_t)(n > 0 ? n : 0), &p2), 0);
	close(fd);
	CHECK(ss.psi_some_us >= p1.some.total_us && ss.psi_some_us <= p2.some.total_us);
	CHECK(ss.psi_full_us >= p1.full.total_us && ss.psi_full_us <= p2.full.total_us);
	CHECK(ss.psi_some10 >= 0 && ss.psi_some10 <= 100);
	sampler_free(s);
}

static int read_pstat(pid_t pid, struct pstat *ps)
{
	char path[64], buf[4096];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n < 0 ? -1 : procparse_stat(buf, (size_t)n, ps);
}

/* kswapd_ns against utime+stime, which the kernel scales to the same
 * runtime but truncates to ticks. */
TEST(sampler_kswapd_vs_stat_ticks)
{
	struct sampler *s = new_sampler();
	struct sys_sample ss;
	pid_t pids[64];
	long long ticks = 0, hz = sysconf(_SC_CLK_TCK);
	int n;

	if (!s)
		return;
	n = sampler_kswapd_pids(s, pids, 64);
	CHECK(n >= 1);		/* visible on this machine: one NUMA node */
	for (int i = 0; i < n; i++) {
		struct pstat ps;
		CHECK_INT(read_pstat(pids[i], &ps), 0);
		CHECK(!strncmp(ps.comm, "kswapd", 6));
		CHECK(pstat_is_kthread(&ps));
		ticks += ps.utime + ps.stime;
	}
	CHECK_INT(sampler_sys(s, &ss), 0);
	CHECK_INT(ss.nkswapd, n);
	CHECK(ss.kswapd_ns >= 0);
	CHECK_NEAR((double)ss.kswapd_ns, ticks * 1e9 / hz, 2e9 / hz * n);
	sampler_free(s);
}

TEST(sampler_kswapd_hidden)
{
	struct sampler *s;
	struct sys_sample a, b;
	struct metric_input in = { .prev = &a, .cur = &b };
	double v[M_N];
	pid_t pids[4];

	setenv("LIBPROC_HIDE_KERNEL", "1", 1);
	s = new_sampler();
	unsetenv("LIBPROC_HIDE_KERNEL");
	if (!s)
		return;
	CHECK_INT(sampler_kswapd_pids(s, pids, 4), 0);
	CHECK_INT(sampler_sys(s, &a), 0);
	CHECK_INT(sampler_sys(s, &b), 0);
	CHECK_INT(a.nkswapd, 0);
	CHECK_INT(a.kswapd_ns, NA);
	metrics_values(&in, v);
	CHECK(isnan(v[M_KSWAPD_CPU]));
	sampler_free(s);
}

/* A child that touches mib MiB of private memory, then waits. */
static pid_t toucher(size_t mib, int *ready_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t len = mib << 20;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(1);
		madvise(m, len, MADV_NOHUGEPAGE);	/* one fault per page */
		for (size_t i = 0; i < len; i += 4096)
			m[i] = 1;
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	*ready_fd = p[0];
	return pid;
}

static long long status_kib(pid_t pid, const char *key)
{
	char path[64], buf[8192];
	int fd;
	ssize_t n;
	int64_t v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && procparse_kib(buf, (size_t)n, key, &v) == 0 ? v : -1;
}

TEST(sampler_proc_child_touching_memory)
{
	struct sampler *s = new_sampler();
	struct proc_sample p;
	int fd = -1;
	char c;
	pid_t pid;

	if (!s)
		return;
	pid = toucher(32, &fd);
	CHECK(pid > 0);
	if (pid <= 0) {
		sampler_free(s);
		return;
	}
	CHECK_INT(sampler_watch(s, pid), 0);
	CHECK_INT(read(fd, &c, 1), 1);
	/* after its write the child still runs on to pause(): wait for it */
	for (int i = 0; i < 1000 && sampler_proc(s, pid, true, &p) == 0 && p.state != 'S'; i++)
		usleep(1000);
	CHECK_INT(sampler_proc(s, pid, true, &p), 0);
	CHECK(p.alive);
	CHECK_INT(p.pid, pid);
	CHECK_INT(p.state, 'S');
	CHECK(p.rss_kib >= 32 * 1024);
	CHECK(p.minflt >= 32 * 256);
	CHECK(p.majflt >= 0);
	CHECK(p.utime_ticks >= 0 && p.stime_ticks >= 0);
	/* stat's rss leaves out what each CPU has not folded into the
	 * mm's counter yet: under the percpu_counter batch, max(32, 2 x
	 * CPUs) pages, on each CPU; status sums them */
	{
		long cpus = sysconf(_SC_NPROCESSORS_CONF);
		long slack = (cpus * 2 > 32 ? cpus * 2 : 32) * cpus * (sysconf(_SC_PAGESIZE) / 1024);
		int64_t exact = status_kib(pid, "VmRSS");

		CHECK(p.rss_kib >= exact - slack && p.rss_kib <= exact + slack);
	}
	CHECK_INT(p.swap_kib, status_kib(pid, "VmSwap"));

	/* stat alone: the batched rss, and no swap figure rather than a 0 */
	CHECK_INT(sampler_proc(s, pid, false, &p), 0);
	CHECK(p.alive);
	CHECK(p.rss_kib >= 32 * 1024);
	CHECK(p.minflt >= 32 * 256);
	CHECK_INT(p.swap_kib, NA);

	/* zombie: readable, no longer alive, no VmSwap */
	kill(pid, SIGKILL);
	for (int i = 0; i < 1000 && sampler_proc(s, pid, true, &p) == 0 && p.state != 'Z'; i++)
		usleep(1000);
	CHECK_INT(p.state, 'Z');
	CHECK(!p.alive);
	CHECK_INT(p.swap_kib, NA);

	/* reaped: the kept-open fd says ESRCH */
	waitpid(pid, NULL, 0);
	errno = 0;
	CHECK_INT(sampler_proc(s, pid, true, &p), -1);
	CHECK_INT(errno, ESRCH);
	CHECK(!p.alive);
	CHECK_INT(p.rss_kib, NA);
	close(fd);
	sampler_unwatch(s, pid);
	sampler_unwatch(s, pid);	/* twice is harmless */
	sampler_free(s);
}

TEST(sampler_proc_unknown_pid)
{
	struct sampler *s = new_sampler();
	struct proc_sample p;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);	/* a pid that existed and is gone */
	if (s) {
		errno = 0;
		CHECK_INT(sampler_proc(s, pid, true, &p), -1);
		CHECK_INT(errno, ESRCH);
		CHECK_INT(sampler_watch(s, 0), -1);
		sampler_free(s);
	}
}

/* Tree: child -> {g1, g2 -> {gg}}; all wait on a pipe that never writes. */
TEST(sampler_descendants_tree)
{
	int p[2];
	pid_t child, got[8];
	int n, ready = 0;
	char c;

	CHECK_INT(pipe(p), 0);
	int go[2];
	CHECK_INT(pipe(go), 0);
	child = fork();
	if (child == 0) {
		close(p[1]);
		for (int i = 0; i < 2; i++)
			if (fork() == 0) {
				if (i == 1 && fork() == 0) {
					if (write(go[1], "x", 1) != 1)
						_exit(1);
					if (read(p[0], &c, 1) < 0)
						_exit(1);
					_exit(0);
				}
				if (write(go[1], "x", 1) != 1)
					_exit(1);
				if (read(p[0], &c, 1) < 0)
					_exit(1);
				_exit(0);
			}
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[1]);
	while (ready < 3 && read(go[0], &c, 1) == 1)
		ready++;
	CHECK_INT(ready, 3);
	n = sampler_descendants(NULL, child, got, 8);
	CHECK_INT(n, 3);
	for (int i = 0; i < n && i < 8; i++) {
		struct pstat ps;
		CHECK_INT(read_pstat(got[i], &ps), 0);
		/* every one descends from child: its parent is child or listed */
		bool ok = ps.ppid == child;
		for (int j = 0; j < n; j++)
			ok |= ps.ppid == got[j];
		CHECK(ok);
	}
	CHECK_INT(sampler_descendants(NULL, child, got, 1), 3);	/* counts past max */
	close(p[1]);		/* everyone's read returns 0: they exit */
	close(p[0]);
	close(go[0]);
	waitpid(child, NULL, 0);
	errno = 0;
	CHECK_INT(sampler_descendants(NULL, child, got, 8), -1);
	CHECK_INT(errno, ESRCH);
}

/* A watched one-thread descendant's children are read again through its
 * kept-open file (one more descriptor, kept): one forked after the first
 * read is there at the next, one reaped is gone, as a fresh walk of its
 * threads finds. The root c is read by its threads; m, its child, forks. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

TEST(sampler_descendants_watched)
{
	struct sampler *s = new_sampler();
	struct proc_sample ps;
	int cmd[2], ack[2], fds;
	pid_t c, m, kid[2], got[4], fresh[4];
	char ch;

	if (!s)
		return;
	CHECK_INT(pipe(cmd), 0);
	CHECK_INT(pipe(ack), 0);
	c = fork();
	if (c == 0) {
		pid_t k = 0;

		close(cmd[1]);
		close(ack[0]);
		if (fork() != 0) {	/* c: waits for m, which ends with the pipe */
			wait(NULL);
			_exit(0);
		}
		k = getpid();
		if (write(ack[1], &k, sizeof(k)) != sizeof(k))
			_exit(1);
		while (read(cmd[0], &ch, 1) == 1) {
			if (ch == 'r') {	/* reap the last one */
				kill(k, SIGKILL);
				waitpid(k, NULL, 0);
			} else if ((k = fork()) == 0) {
				pause();
				_exit(0);
			}
			if (write(ack[1], &k, sizeof(k)) != sizeof(k))
				_exit(1);
		}
		_exit(0);
	}
	close(cmd[0]);
	close(ack[1]);
	CHECK_INT(read(ack[0], &m, sizeof(m)), (int)sizeof(m));
	CHECK_INT(sampler_proc(s, m, false, &ps), 0);	/* watched: one thread */
	fds = open_fds();
	CHECK_INT(sampler_descendants(s, c, got, 4), 1);
	CHECK_INT(got[0], m);
	CHECK_INT(open_fds(), fds + 1);	/* m's children file, kept */
	for (int i = 0; i < 2; i++) {
		CHECK_INT(write(cmd[1], "f", 1), 1);
		CHECK_INT(read(ack[0], &kid[i], sizeof(kid[i])), (int)sizeof(kid[i]));
		CHECK_INT(sampler_descendants(s, c, got, 4), i + 2);
		CHECK_INT(got[i + 1], kid[i]);
	}
	CHECK_INT(write(cmd[1], "r", 1), 1);
	CHECK_INT(read(ack[0], &kid[1], sizeof(kid[1])), (int)sizeof(kid[1]));
	CHECK_INT(sampler_descendants(s, c, got, 4), 2);
	CHECK_INT(sampler_descendants(NULL, c, fresh, 4), 2);
	CHECK_INT(got[1], kid[0]);
	CHECK_INT(fresh[1], kid[0]);
	CHECK_INT(open_fds(), fds + 1);
	kill(kid[0], SIGKILL);
	close(cmd[1]);
	close(ack[0]);
	waitpid(c, NULL, 0);
	sampler_free(s);
}

/* Two real samples one interval apart give finite, non-negative rates. */
TEST(sampler_rates_live)
{
	struct sampler *s = new_sampler();
	struct sys_sample a, b;
	struct metric_input in = { .prev = &a, .cur = &b };
	double v[M_N];

	if (!s)
		return;
	CHECK_INT(sampler_sys(s, &a), 0);
	usleep(50000);
	CHECK_INT(sampler_sys(s, &b), 0);
	metrics_values(&in, v);
	CHECK(b.t - a.t >= 0.05);
	CHECK(v[M_MINFLT] >= 0 && v[M_MAJFLT] >= 0 && v[M_PSWPIN] >= 0 && v[M_ALLOCSTALL] >= 0);
	CHECK(v[M_KSWAPD_CPU] >= 0 && v[M_KSWAPD_CPU] <= 100);
	sampler_free(s);
}

TEST(sampler_descendants_none)
{
	pid_t out[4] = { 0 };
	pid_t c = fork();

	if (c == 0) {
		pause();
		_exit(0);
	}
	CHECK(c > 0);
	usleep(20000);
	CHECK_INT(sampler_descendants(NULL, c, out, 4), 0);
	CHECK_INT(out[0], 0);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}
