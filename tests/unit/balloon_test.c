#include <errno.h>
#include <linux/capability.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "balloon.h"
#include "check.h"
#include "statedir.h"
#include "undo.h"

/* A /proc/meminfo or /proc/PID/status line's kB, or -1. */
static long long kb(const char *file, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

static long long proc_kb(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	return kb(path, key);
}

/* Pinning needs memory the machine may not have while another test (of
 * another checkout) squeezes it with a hugetlb pool or a balloon of its
 * own: then the pinning tests say so and skip rather than fail. */
static bool squeezed(void)
{
	long long avail = kb("/proc/meminfo", "MemAvailable");

	if (avail >= 1LL << 20)
		return false;
	printf("  (skipped: MemAvailable is %lld MiB, the machine is squeezed by something else)\n",
	       avail >> 10);
	return true;
}

/* The balloon's own VmLck and VmRSS are checked exactly. The machine's
 * Mlocked and MemAvailable are only printed: other processes lock and free
 * memory meanwhile (another test's balloon made Mlocked move by 300 MiB
 * instead of 256), and page cache and per-CPU drift move MemAvailable. */
TEST(balloon_pin_256m)
{
	char err[256] = "", key[24], val[32], path[64], adj[16] = "";
	struct balloon b;
	long long avail0, avail1, avail2, mlocked0, mlocked1, mlocked2;
	pid_t pid;
	FILE *f;

	if (squeezed())
		return;

	statedir_begin("balloon");
	avail0 = kb("/proc/meminfo", "MemAvailable");
	mlocked0 = kb("/proc/meminfo", "Mlocked");
	if (balloon_start_pin(&b, 256LL << 20, err, sizeof err) < 0) {
		CHECK_STR(err, "");
		goto out;
	}
	pid = b.pid;
	avail1 = kb("/proc/meminfo", "MemAvailable");
	mlocked1 = kb("/proc/meminfo", "Mlocked");
	printf("  MemAvailable %lld -> %lld KiB (-%lld), Mlocked +%lld KiB, VmLck %lld KiB\n",
	       avail0, avail1, avail0 - avail1, mlocked1 - mlocked0, proc_kb(pid, "VmLck"));
	CHECK_INT(b.bytes, 256LL << 20);
	CHECK_INT(proc_kb(pid, "VmLck"), 256 << 10);
	CHECK(proc_kb(pid, "VmRSS") >= 256 << 10);
	CHECK_INT(getpgid(pid), pid);
	snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)pid);
	if ((f = fopen(path, "r"))) {
		if (!fgets(adj, sizeof adj, f))
			adj[0] = '\0';
		fclose(f);
	}
	CHECK_STR(adj, "1000\n");
	snprintf(key, sizeof key, "%d", (int)pid);
	CHECK_INT(undo_lookup(UNDO_BALLOON, key, val, sizeof val, err, sizeof err), 0);
	CHECK_INT(balloon_check(&b, err, sizeof err), 1);
	CHECK_INT(balloon_stop(&b, err, sizeof err), 0);
	avail2 = kb("/proc/meminfo", "MemAvailable");
	mlocked2 = kb("/proc/meminfo", "Mlocked");
	printf("  after stop: MemAvailable +%lld KiB, Mlocked -%lld KiB\n", avail2 - avail1,
	       mlocked1 - mlocked2);
	CHECK(kill(pid, 0) < 0 && errno == ESRCH);
	CHECK_INT(undo_lookup(UNDO_BALLOON, key, val, sizeof val, err, sizeof err), 1);
	CHECK_INT(b.pid, 0);
out:
	balloon_stop(&b, err, sizeof err);
	statedir_end();
}

TEST(balloon_global_leaves_size)
{
	char err[256] = "";
	long long total = kb("/proc/meminfo", "MemTotal") * 1024;
	struct balloon b;

	if (squeezed())
		return;

	statedir_begin("balloon");
	/* leave all but 128 MiB: a 128 MiB pin */
	if (balloon_start_global(&b, total - (128LL << 20), err, sizeof err) < 0) {
		CHECK_STR(err, "");
		goto out;
	}
	CHECK_INT(b.bytes, 128LL << 20);
	CHECK_INT(proc_kb(b.pid, "VmLck"), 128 << 10);
out:
	CHECK_INT(balloon_stop(&b, err, sizeof err), 0);
	CHECK(access(undo_state_file(), F_OK) < 0);
	statedir_end();
}

TEST(balloon_refusals)
{
	char err[256] = "";
	long long avail = kb("/proc/meminfo", "MemAvailable") * 1024;
	struct balloon b;

	statedir_begin("balloon");
	CHECK_INT(balloon_start_global(&b, 100LL << 20, err, sizeof err), -1);
	CHECK_STR(err, "--global 100 MiB leaves too little: the machine needs at least "
		  "256 MiB");
	CHECK_INT(balloon_start_global(&b, 1LL << 50, err, sizeof err), -1);
	CHECK(strstr(err, "is not below MemTotal") && strstr(err, "nothing to pin"));
	/* leaving 256 MiB would pin nearly everything */
	CHECK_INT(balloon_start_global(&b, 256LL << 20, err, sizeof err), -1);
	CHECK(strstr(err, "--global 256 MiB would pin ") == err);
	CHECK(strstr(err, "of it must stay available: --global must be at least ") != NULL);
	CHECK_INT(balloon_start_pin(&b, avail, err, sizeof err), -1);
	CHECK(strstr(err, "refusing to pin ") == err);
	CHECK(strstr(err, "512 MiB of it must stay available") != NULL);
	CHECK(strchr(err, '\n') == NULL);
	CHECK_INT(b.pid, 0);
	CHECK(access(undo_state_file(), F_OK) < 0);
	/* the undo code never kills pid 1, nor a pid whose start time differs */
	CHECK_INT(balloon_kill(1, 0, err, sizeof err), -1);
	CHECK_INT(balloon_kill(getpid(), 1, err, sizeof err), 0);
	statedir_end();
}

/* The balloon dies with the process that started it (PR_SET_PDEATHSIG),
 * and the next start drops its record. */
TEST(balloon_dies_with_parent)
{
	char err[256] = "", msg[512] = "", want[256];
	int fds[2], status = 0;
	pid_t mid, bpid = 0;

	if (squeezed())
		return;

	statedir_begin("balloon");
	CHECK(pipe(fds) == 0);
	mid = fork();
	if (mid == 0) {
		struct balloon b;

		close(fds[0]);
		if (balloon_start_pin(&b, 16LL << 20, err, sizeof err) < 0)
			_exit(1);
		if (write(fds[1], &b.pid, sizeof b.pid) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &bpid, sizeof bpid) != (ssize_t)sizeof bpid)
		bpid = 0;
	close(fds[0]);
	waitpid(mid, &status, 0);
	CHECK(bpid > 0);
	for (int i = 0; bpid > 0 && i < 200 && kill(bpid, 0) == 0; i++) {
		char path[64], st[512] = "";
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/stat", (int)bpid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(st, sizeof st, f))
				st[0] = '\0';
			fclose(f);
		}
		if (strstr(st, ") Z "))
			break;
		usleep(10000);
	}
	CHECK_INT(proc_kb(bpid, "VmLck"), -1);
	CHECK_INT(undo_recover(msg, sizeof msg), 1);
	snprintf(want, sizeof want, "thrashtop pid %d (no longer running): balloon pid %d "
		 "stopped", (int)mid, (int)bpid);
	CHECK_STR(msg, want);
	if (bpid > 0)
		kill(bpid, SIGKILL);
	statedir_end();
}

static int pin_256m(char *err, size_t errlen)
{
	struct balloon b;

	return balloon_start_pin(&b, 256LL << 20, err, errlen);
}

TEST(balloon_not_root_one_line)
{
	char err[256];

	if (squeezed())
		return;

	CHECK_INT(as_nobody(pin_256m, err, sizeof err), 0);
	CHECK(strstr(err, "--global needs root: locking 256 MiB exceeds RLIMIT_MEMLOCK (") ==
	      err);
	CHECK(strchr(err, '\n') == NULL);
}

/* Without CAP_IPC_LOCK (and CAP_SYS_RESOURCE to raise it) RLIMIT_MEMLOCK
 * stops the pin part-way: the message says how far it got. */
TEST(balloon_partial_pin_reported)
{
	char err[256] = "";
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	if (squeezed())
		return;

	statedir_begin("balloon");
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct cap[2];
		struct rlimit rl = { 8 << 20, 8 << 20 };
		struct balloon b;
		char cerr[256] = "";

		close(fds[0]);
		if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0 || syscall(SYS_capget, &hdr, cap) < 0)
			_exit(2);
		cap[0].effective &= ~((1u << CAP_IPC_LOCK) | (1u << CAP_SYS_RESOURCE));
		cap[0].permitted &= ~((1u << CAP_IPC_LOCK) | (1u << CAP_SYS_RESOURCE));
		if (syscall(SYS_capset, &hdr, cap) < 0)
			_exit(2);
		if (balloon_start_pin(&b, 16LL << 20, cerr, sizeof cerr) == 0)
			_exit(3);
		if (write(fds[1], cerr, strlen(cerr)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], err, sizeof err - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	CHECK_INT(status, 0);
	/* 1 MiB steps: eight fit under the 8 MiB limit, the ninth does not */
	CHECK_STR(err, "balloon pinned only 8 MiB of 16 MiB: mlock: Cannot allocate "
		  "memory (RLIMIT_MEMLOCK, or RAM ran out)");
	CHECK(access(undo_state_file(), F_OK) < 0);
	statedir_end();
}
