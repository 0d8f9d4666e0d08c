#include <errno.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "check.h"
#include "statedir.h"
#include "swapfile.h"
#include "undo.h"

static void cg_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "thrashtop-test-%s-%d", what, (int)getpid());
}

/* A number from a cgroup file, read here apart from cgroup_read. */
static long long file_ll(const char *dir, const char *file)
{
	char path[512];
	long long v = -2;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -2;
	if (fscanf(f, "%lld", &v) != 1)
		v = -2;
	fclose(f);
	return v;
}

/* VmSwap (KiB) and majflt of pid from /proc. */
static void proc_swap_majflt(pid_t pid, long long *swap_kib, long long *majflt)
{
	char path[64], line[256], stat[1024];
	FILE *f;

	*swap_kib = *majflt = -1;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof line, f))
			sscanf(line, "VmSwap: %lld kB", swap_kib);
		fclose(f);
	}
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r"))) {
		if (fgets(stat, sizeof stat, f)) {
			const char *p = strrchr(stat, ')');

			if (p)
				sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %lld", majflt);
		}
		fclose(f);
	}
}

/* Child: joins the cgroup, touches bytes twice, reports, waits to be killed. */
static void toucher(struct cgroup *cg, size_t bytes, int report)
{
	volatile char *p;

	if (cgroup_attach_self(cg) < 0)
		_exit(10);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(11);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < bytes; i += 4096)
			p[i] = (char)(i + (size_t)pass);
	if (write(report, "t", 1) != 1)
		_exit(12);
	for (;;)
		pause();
}

TEST(cgroup_limit_pushes_to_swap)
{
	char name[64], err[256] = "", c = 0, path[300] = "";
	struct cgroup cg = { .procs_fd = -1 };
	struct swapfile sw = { .path = "" };
	struct cgroup_stat st;
	long long swap_kib, majflt;
	int fds[2] = { -1, -1 }, status = 0;
	pid_t child = -1;
	struct stat sb;

	statedir_begin("cgroup");
	cg_name(name, sizeof name, "swap");
	if (swapfile_create(&sw, NULL, 128LL << 20, -1, err, sizeof err) < 0) {
		CHECK_STR(err, "");
		goto out;
	}
	if (cgroup_create(&cg, name, 32LL << 20, -1, err, sizeof err) < 0) {
		CHECK_STR(err, "");
		goto out;
	}
	snprintf(path, sizeof path, "%s", cg.path);
	CHECK(stat(cg.path, &sb) == 0);
	CHECK_INT(file_ll(cg.path, "memory.limit_in_bytes"), 32LL << 20);
	CHECK(pipe(fds) == 0);
	child = fork();
	if (child == 0)
		toucher(&cg, 64u << 20, fds[1]);
	close(fds[1]);
	fds[1] = -1;
	CHECK(read(fds[0], &c, 1) == 1);
	CHECK_INT(cgroup_nprocs(&cg), 1);
	CHECK_INT(cgroup_read(&cg, &st), 0);
	proc_swap_majflt(child, &swap_kib, &majflt);
	printf("  usage %lld swap %lld (VmSwap %lld KiB) pgmajfault %lld (task %lld) "
	       "pgfault %lld refault %lld/%lld failcnt %lld oom_kill %lld\n", st.usage,
	       st.swap_usage, swap_kib, st.pgmajfault, majflt, st.pgfault, st.refault_anon,
	       st.refault_file, st.failcnt, st.oom_kill);
	CHECK_INT(st.limit, 32LL << 20);
	CHECK_INT(st.swap_limit, CGROUP_UNLIMITED);
	CHECK(st.usage > 0 && st.usage <= 32LL << 20);
	/* 64 MiB touched under 32 MiB: at least the difference went to swap */
	CHECK(st.swap_usage >= 30LL << 20);
	CHECK(swap_kib >= 30LL << 10);
	/* The task's VmSwap also counts pages that swap-in readahead brought
	 * back (their PTEs still point to swap) which the cgroup charges to
	 * memory again: VmSwap is at least the cgroup's swap, and exceeds it
	 * by at most what the cgroup holds in memory. A fixed margin would
	 * depend on how much readahead the run happened to do. */
	CHECK((double)st.swap_usage / 1024 <= (double)swap_kib + 64);
	CHECK((double)swap_kib - (double)st.swap_usage / 1024 <= (double)st.usage / 1024);
	/* the second pass faulted swapped pages back in */
	CHECK(st.pgmajfault > 0 && majflt > 0);
	CHECK(st.pgmajfault >= majflt);
	CHECK(st.pgfault >= (64 << 20) / 4096);
	CHECK(st.failcnt > 0);
	CHECK_INT(st.oom_kill, 0);
	CHECK(isnan(st.psi_some10) && isnan(st.psi_full10));
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (cg.path[0]) {
		CHECK_INT(cgroup_remove(&cg, err, sizeof err), 0);
		if (err[0])
			printf("  %s\n", err);
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}
	if (path[0]) {
		CHECK(stat(path, &sb) < 0 && errno == ENOENT);
		rmdir(path);
	}
	if (sw.path[0])
		CHECK_INT(swapfile_remove(&sw, err, sizeof err), 0);
	CHECK(access(undo_state_file(), F_OK) < 0);
	statedir_end();
}

/* No swap allowed: 64 MiB under 32 MiB is an OOM kill, counted. */
TEST(cgroup_oom_kill_counted)
{
	char name[64], err[256] = "";
	struct cgroup cg = { .procs_fd = -1 };
	struct cgroup_stat st;
	int status = 0, rc;
	pid_t child;

	statedir_begin("cgroup");
	cg_name(name, sizeof name, "oom");
	rc = cgroup_create(&cg, name, 32LL << 20, 0, err, sizeof err);
	if (rc < 0) {
		/* without swap accounting a swap limit is refused, and says why */
		CHECK(strstr(err, "swap accounting") != NULL);
		goto out;
	}
	CHECK_INT(file_ll(cg.path, "memory.memsw.limit_in_bytes"), 32LL << 20);
	child = fork();
	if (child == 0)
		toucher(&cg, 64u << 20, -1);
	waitpid(child, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK_INT(cgroup_read(&cg, &st), 0);
	CHECK_INT(st.oom_kill, 1);
	CHECK_INT(st.swap_limit, 0);
	/* memsw hits are not counted by every kernel (6.18 counts none) */
	CHECK(st.failcnt >= 0);
	CHECK_INT(cgroup_remove(&cg, err, sizeof err), 0);
out:
	if (cg.path[0])
		cgroup_remove(&cg, err, sizeof err);
	statedir_end();
}

/* v1 memsw must stay >= the limit whichever way the limits move. */
TEST(cgroup_set_limit_both_ways)
{
	char name[64], err[256] = "";
	struct cgroup cg = { .procs_fd = -1 };
	struct cgroup_stat st;
	static const long long steps[][2] = {
		{ 16LL << 20, 16LL << 20 },	/* shrink both */
		{ 256LL << 20, 8LL << 20 },	/* limit above the old memsw */
		{ 256LL << 20, -1 },		/* unlimited swap */
		{ 64LL << 20, 32LL << 20 },	/* back from unlimited memsw */
		{ -1, -1 },			/* no limit at all */
		{ 48LL << 20, 0 },
	};

	statedir_begin("cgroup");
	cg_name(name, sizeof name, "limits");
	if (cgroup_create(&cg, name, 64LL << 20, 64LL << 20, err, sizeof err) < 0) {
		CHECK(strstr(err, "swap accounting") != NULL);
		goto out;
	}
	CHECK_INT(file_ll(cg.path, "memory.limit_in_bytes"), 64LL << 20);
	CHECK_INT(file_ll(cg.path, "memory.memsw.limit_in_bytes"), 128LL << 20);
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		long long lim = steps[i][0], swp = steps[i][1];

		err[0] = '\0';
		CHECK_INT(cgroup_set_limit(&cg, lim, swp, err, sizeof err), 0);
		if (err[0])
			printf("  step %zu: %s\n", i, err);
		CHECK_INT(cgroup_read(&cg, &st), 0);
		CHECK_INT(st.limit, lim < 0 ? CGROUP_UNLIMITED : lim);
		CHECK_INT(st.swap_limit, lim < 0 || swp < 0 ? CGROUP_UNLIMITED : swp);
		if (lim >= 0 && swp >= 0)
			CHECK_INT(file_ll(cg.path, "memory.memsw.limit_in_bytes"), lim + swp);
	}
	CHECK_INT(cgroup_remove(&cg, err, sizeof err), 0);
out:
	if (cg.path[0])
		cgroup_remove(&cg, err, sizeof err);
	statedir_end();
}

static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* v2's files, as the kernel writes them, in a directory of our own. */
TEST(cgroup_read_v2_files)
{
	static const char *const files[] = {
		"memory.current", "memory.peak", "memory.max", "memory.swap.current",
		"memory.swap.max", "memory.stat", "memory.events", "memory.pressure",
	};
	char dir[] = "/tmp/thrashtop-cgv2-XXXXXX", path[600];
	struct cgroup cg = { .version = 2, .procs_fd = -1 };
	struct cgroup_stat st;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(cg.path, sizeof cg.path, "%s", dir);
	put(dir, "memory.current", "33550336\n");
	put(dir, "memory.peak", "33554432\n");
	put(dir, "memory.max", "33554432\n");
	put(dir, "memory.swap.current", "35651584\n");
	put(dir, "memory.swap.max", "max\n");
	put(dir, "memory.stat", "anon 30000000\nfile 100\npgfault 49152\npgmajfault 321\n"
	    "workingset_refault_anon 300\nworkingset_refault_file 7\n"
	    "pgmajfault_extra 9\n");
	put(dir, "memory.events", "low 0\nhigh 0\nmax 4242\noom 1\noom_kill 1\n"
	    "oom_group_kill 0\n");
	put(dir, "memory.pressure", "some avg10=12.50 avg60=3.00 avg300=0.50 total=123\n"
	    "full avg10=0.25 avg60=0.00 avg300=0.00 total=45\n");
	CHECK_INT(cgroup_read(&cg, &st), 0);
	CHECK_INT(st.usage, 33550336);
	CHECK_INT(st.peak, 33554432);
	CHECK_INT(st.limit, 33554432);
	CHECK_INT(st.swap_usage, 35651584);
	CHECK_INT(st.swap_limit, CGROUP_UNLIMITED);
	CHECK_INT(st.pgfault, 49152);
	CHECK_INT(st.pgmajfault, 321);
	CHECK_INT(st.refault_anon, 300);
	CHECK_INT(st.refault_file, 7);
	CHECK_INT(st.failcnt, 4242);
	CHECK_INT(st.oom_kill, 1);
	CHECK_NEAR(st.psi_some10, 12.5, 1e-9);
	CHECK_NEAR(st.psi_full10, 0.25, 1e-9);
	/* an older kernel: no memory.peak, no swap files, no PSI (read
	 * from the start: the open files would still read) */
	cgroup_close_files(&cg);
	snprintf(path, sizeof path, "%s/memory.peak", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/memory.swap.current", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/memory.pressure", dir);
	unlink(path);
	CHECK_INT(cgroup_read(&cg, &st), 0);
	CHECK_INT(st.peak, NA);
	CHECK_INT(st.swap_usage, NA);
	CHECK(isnan(st.psi_some10) && isnan(st.psi_full10));
	/* a file the kernel lacks is not looked for each tick: one that
	 * turns up is read only once the files are opened anew */
	put(dir, "memory.peak", "33554432\n");
	CHECK_INT(cgroup_read(&cg, &st), 0);
	CHECK_INT(st.peak, NA);
	cgroup_close_files(&cg);
	CHECK_INT(cgroup_read(&cg, &st), 0);
	CHECK_INT(st.peak, 33554432);
	/* gone altogether */
	cgroup_close_files(&cg);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	CHECK_INT(cgroup_read(&cg, &st), -1);
	rmdir(dir);
}

TEST(cgroup_refusals)
{
	char err[256] = "";
	struct cgroup cg;

	statedir_begin("cgroup");
	CHECK_INT(cgroup_create(&cg, "workload", 1 << 30, -1, err, sizeof err), -1);
	CHECK_STR(err, "bad cgroup name \"workload\" (want thrashtop-SOMETHING, no '/', "
		  "spaces or '..')");
	CHECK_INT(cgroup_create(&cg, "thrashtop-../x", 1 << 30, -1, err, sizeof err), -1);
	/* never the root or a cgroup not ours, whatever the state file says */
	CHECK_INT(cgroup_remove_path("/sys/fs/cgroup/memory", err, sizeof err), -1);
	CHECK_STR(err, "refusing to remove /sys/fs/cgroup/memory: not a thrashtop cgroup");
	CHECK_INT(cgroup_remove_path("/sys/fs/cgroup/memory/system.slice", err, sizeof err),
		  -1);
	CHECK_INT(cgroup_remove_path("/tmp/thrashtop-x", err, sizeof err), -1);
	CHECK_INT(cgroup_remove_path("/sys/fs/cgroup/memory/thrashtop-none-here", err,
				     sizeof err), 0);
	CHECK(access(undo_state_file(), F_OK) < 0);
	statedir_end();
}

static int create_64m(char *err, size_t errlen)
{
	struct cgroup cg;

	return cgroup_create(&cg, "thrashtop-nobody", 64LL << 20, -1, err, errlen);
}

TEST(cgroup_not_root_one_line)
{
	char err[256];

	CHECK_INT(as_nobody(create_64m, err, sizeof err), 0);
	CHECK_STR(err, "--mem needs root: cannot create "
		  "/sys/fs/cgroup/memory/thrashtop-nobody: Permission denied");
}
