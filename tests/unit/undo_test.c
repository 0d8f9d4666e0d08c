#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "check.h"
#include "statedir.h"
#include "swapfile.h"
#include "sysctl.h"
#include "tuning.h"
#include "undo.h"

static size_t slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return 0;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

/* Start time of pid read here, apart from undo_proc_start. */
static unsigned long long starttime(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long v = 0;
	const char *p;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!slurp(path, buf, sizeof buf) || !(p = strrchr(buf, ')')))
		return 0;
	sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
	       "%*d %*d %*d %llu", &v);
	return v;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int in_proc_swaps(const char *path)
{
	char buf[8192];

	slurp("/proc/swaps", buf, sizeof buf);
	return strstr(buf, path) != NULL;
}

TEST(undo_roundtrip_format)
{
	char err[256] = "", file[16384], want[2048], boot[64], val[64];
	unsigned long long st = starttime(getpid());

	statedir_begin("undo");
	slurp("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
	boot[strcspn(boot, "\n")] = '\0';
	CHECK(st > 0);
	CHECK_INT(undo_add(UNDO_CGROUP, "/sys/fs/cgroup/memory/thrashtop-9", "v1", err,
			   sizeof err), 0);
	CHECK_INT(undo_add(UNDO_SWAP, "/var/tmp/a dir/thrashtop-swap-9", "", err,
			   sizeof err), 0);
	CHECK_INT(undo_add(UNDO_SYSCTL, "vm.lowmem_reserve_ratio", "256\t256\t32", err,
			   sizeof err), 0);
	CHECK_INT(undo_add(UNDO_BALLOON, "4242", "777", err, sizeof err), 0);
	/* a second record of the same sysctl keeps the first old value */
	CHECK_INT(undo_add(UNDO_SYSCTL, "vm.lowmem_reserve_ratio", "1", err, sizeof err), 0);
	slurp(undo_state_file(), file, sizeof file);
	snprintf(want, sizeof want,
		 "%d %llu %s cgroup v1 /sys/fs/cgroup/memory/thrashtop-9\n"
		 "%d %llu %s swap /var/tmp/a dir/thrashtop-swap-9\n"
		 "%d %llu %s sysctl vm.lowmem_reserve_ratio 256\t256\t32\n"
		 "%d %llu %s balloon 4242 777\n",
		 (int)getpid(), st, boot, (int)getpid(), st, boot, (int)getpid(), st, boot,
		 (int)getpid(), st, boot);
	CHECK_STR(file, want);
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.lowmem_reserve_ratio", val, sizeof val, err,
			      sizeof err), 0);
	CHECK_STR(val, "256\t256\t32");
	CHECK_INT(undo_lookup(UNDO_SWAP, "/var/tmp/a dir/thrashtop-swap-9", val, sizeof val,
			      err, sizeof err), 0);
	CHECK_STR(val, "");
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.swappiness", val, sizeof val, err,
			      sizeof err), 1);
	/* a newline would break the line format */
	CHECK_INT(undo_add(UNDO_SYSCTL, "vm.x", "1\n2", err, sizeof err), -1);
	CHECK(strstr(err, "malformed") != NULL);
	CHECK_INT(undo_add(UNDO_SYSCTL, "vm.a b", "1", err, sizeof err), -1);
	CHECK_INT(undo_forget(UNDO_BALLOON, "4242", err, sizeof err), 0);
	CHECK_INT(undo_forget(UNDO_SYSCTL, "vm.lowmem_reserve_ratio", err, sizeof err), 0);
	CHECK_INT(undo_forget(UNDO_SWAP, "/var/tmp/a dir/thrashtop-swap-9", err, sizeof err),
		  0);
	CHECK_INT(undo_forget(UNDO_SWAP, "/nothing", err, sizeof err), 0);
	slurp(undo_state_file(), file, sizeof file);
	CHECK_INT(count_lines(file), 1);
	CHECK_INT(undo_forget(UNDO_CGROUP, "/sys/fs/cgroup/memory/thrashtop-9", err,
			      sizeof err), 0);
	/* no records: no file */
	CHECK(access(undo_state_file(), F_OK) < 0 && errno == ENOENT);
	statedir_end();
}

/* One process changes the machine at a time: a second one's first
 * record is refused, naming the first, and leaves the state file alone. */
TEST(undo_one_claimant)
{
	char file[4096], err[256], want[64];
	int fds[2], status = -1;
	pid_t pid;

	statedir_begin("undo");
	CHECK_INT(undo_add(UNDO_SYSCTL, "vm.k_parent", "1", err, sizeof err), 0);
	CHECK_INT(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		err[0] = '\0';
		if (undo_add(UNDO_SYSCTL, "vm.k_child", "1", err, sizeof err) == 0)
			_exit(1);
		if (write(fds[1], err, strlen(err)) < 0)
			_exit(1);
		/* undo_try_claim names the holder for a --wait */
		if (undo_try_claim(&pid, err, sizeof err) != 1 || pid != getppid())
			_exit(1);
		_exit(undo_claim(err, sizeof err) == 0);
	}
	close(fds[1]);
	memset(err, 0, sizeof err);
	CHECK(read(fds[0], err, sizeof err - 1) > 0);
	close(fds[0]);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_INT(status, 0);
	snprintf(want, sizeof want, "another thrashtop (pid %d) is tuning", (int)getpid());
	CHECK(strstr(err, want) != NULL);
	CHECK(!strchr(err, '\n'));
	slurp(undo_state_file(), file, sizeof file);
	CHECK_INT(count_lines(file), 1);
	CHECK(strstr(file, "vm.k_child") == NULL);
	CHECK_INT(undo_forget(UNDO_SYSCTL, "vm.k_parent", err, sizeof err), 0);
	statedir_end();
}

/* What the crashing child made. */
struct made {
	char err[256];
	char swap[256];
	char cgroup[256];
	pid_t inside;		/* a task left in the cgroup */
};

/* A run that dies holding a changed sysctl, an active swap file and a
 * memory cgroup with a task inside: the next start undoes all three, even
 * before the dead run is reaped (a zombie). */
TEST(undo_recover_dead_owner)
{
	char orig[64] = "", now[64] = "", err[256] = "", msg[2048] = "";
	char want[1024], file[4096];
	struct made m;
	int fds[2], status = 0, rc;
	siginfo_t si;
	struct stat sb;
	pid_t child;

	memset(&m, 0, sizeof m);
	statedir_begin("undo");
	/* the task left in the cgroup is reparented to us, so we can reap it */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	CHECK_INT(sysctl_get("vm.swappiness", orig, sizeof orig, err, sizeof err), 0);
	CHECK(pipe(fds) == 0);
	child = fork();
	if (child == 0) {
		struct made c;
		struct swapfile sw;
		struct cgroup cg;
		char name[64];

		memset(&c, 0, sizeof c);
		close(fds[0]);
		snprintf(name, sizeof name, "thrashtop-test-undo-%d", (int)getpid());
		if (sysctl_set("vm.swappiness", strcmp(orig, "61") ? "61" : "62", c.err,
			       sizeof c.err) < 0 ||
		    swapfile_create(&sw, NULL, 64LL << 20, -1, c.err, sizeof c.err) < 0 ||
		    cgroup_create(&cg, name, 64LL << 20, -1, c.err, sizeof c.err) < 0) {
			if (write(fds[1], &c, sizeof c) < 0)
				_exit(2);
			_exit(1);
		}
		snprintf(c.swap, sizeof c.swap, "%s", sw.path);
		snprintf(c.cgroup, sizeof c.cgroup, "%s", cg.path);
		c.inside = fork();
		if (c.inside == 0) {
			if (cgroup_attach_self(&cg) < 0)
				_exit(1);
			for (;;)
				pause();
		}
		while (cgroup_nprocs(&cg) < 1)
			usleep(1000);
		if (write(fds[1], &c, sizeof c) < 0)
			_exit(2);
		_exit(0);	/* a crash: nothing undone */
	}
	close(fds[1]);
	if (read(fds[0], &m, sizeof m) != (ssize_t)sizeof m)
		memset(&m, 0, sizeof m);
	close(fds[0]);
	/* let it die without reaping it */
	CHECK(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) == 0);
	CHECK_INT(si.si_status, 0);
	if (si.si_status != 0)
		printf("  child: %s\n", m.err);
	CHECK_INT(sysctl_get("vm.swappiness", now, sizeof now, err, sizeof err), 0);
	CHECK_STR(now, strcmp(orig, "61") ? "61" : "62");
	CHECK(m.swap[0] == '/' && in_proc_swaps(m.swap));
	CHECK(m.cgroup[0] == '/' && stat(m.cgroup, &sb) == 0);
	CHECK(m.inside > 0 && kill(m.inside, 0) == 0);

	/* a record of a live owner (this process) must survive the recovery */
	CHECK_INT(undo_add(UNDO_SWAP, "/var/tmp/thrashtop-swap-live-test", "", err,
			   sizeof err), 0);
	rc = undo_recover(msg, sizeof msg);
	CHECK_INT(rc, 3);
	CHECK_INT(count_lines(msg), 2);	/* three lines */
	/* in undo order: the cgroup, then swap, then the sysctl */
	snprintf(want, sizeof want,
		 "thrashtop pid %d (no longer running): memory cgroup %s removed\n"
		 "thrashtop pid %d (no longer running): swap file %s turned off and removed\n"
		 "thrashtop pid %d (no longer running): vm.swappiness restored to %s",
		 (int)child, m.cgroup, (int)child, m.swap, (int)child, orig);
	CHECK_STR(msg, want);
	CHECK_INT(sysctl_get("vm.swappiness", now, sizeof now, err, sizeof err), 0);
	CHECK_STR(now, orig);
	CHECK(!in_proc_swaps(m.swap));
	CHECK(access(m.swap, F_OK) < 0);
	CHECK(stat(m.cgroup, &sb) < 0 && errno == ENOENT);
	if (m.inside > 0) {
		CHECK(waitpid(m.inside, &status, 0) == m.inside);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}
	slurp(undo_state_file(), file, sizeof file);
	CHECK(strstr(file, "thrashtop-swap-live-test") != NULL);
	CHECK_INT(count_lines(file), 1);
	/* nothing left to do the second time */
	CHECK_INT(undo_recover(msg, sizeof msg), 0);
	CHECK_STR(msg, "");

	waitpid(child, &status, 0);
	/* whatever failed above, leave the machine as it was */
	if (m.inside > 0 && kill(m.inside, SIGKILL) == 0)
		waitpid(m.inside, &status, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	if (m.cgroup[0] == '/')
		rmdir(m.cgroup);
	if (m.swap[0] == '/') {
		swapoff(m.swap);
		unlink(m.swap);
	}
	if (orig[0])
		sysctl_write("vm.swappiness", orig, err, sizeof err);
	undo_forget(UNDO_SWAP, "/var/tmp/thrashtop-swap-live-test", err, sizeof err);
	statedir_end();
}

/* Records from before a reboot are dropped without acting on them; a live
 * pid with another start time is a different process (the owner is gone). */
TEST(undo_recover_reboot_and_pid_reuse)
{
	char err[256] = "", msg[2048] = "", cur[64] = "", now[64] = "", text[1024];
	char boot[64];
	unsigned long long st = starttime(getpid());
	FILE *f;

	statedir_begin("undo");
	CHECK_INT(sysctl_get("vm.swappiness", cur, sizeof cur, err, sizeof err), 0);
	slurp("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
	boot[strcspn(boot, "\n")] = '\0';
	f = fopen(undo_state_file(), "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%d %llu 00000000-0000-0000-0000-000000000000 sysctl "
			"vm.swappiness 1\n", (int)getpid(), st);
		fprintf(f, "%d %llu 00000000-0000-0000-0000-000000000000 balloon 1 5\n",
			(int)getpid(), st);
		fprintf(f, "%d %llu %s sysctl vm.swappiness %s\n", (int)getpid(), st + 1,
			boot, cur);
		fprintf(f, "this line is not a record\n");
		fclose(f);
	}
	CHECK_INT(undo_recover(msg, sizeof msg), 3);
	CHECK(strstr(msg, "(before the last reboot): vm.swappiness not restored to 1 "
		      "(the reboot reset it)") != NULL);
	CHECK(strstr(msg, "(before the last reboot): balloon pid 1: record dropped") != NULL);
	CHECK(strstr(msg, "(no longer running): vm.swappiness restored to") != NULL);
	CHECK_INT(sysctl_get("vm.swappiness", now, sizeof now, err, sizeof err), 0);
	CHECK_STR(now, cur);
	/* the unparsable line is kept, not lost */
	slurp(undo_state_file(), text, sizeof text);
	CHECK_STR(text, "this line is not a record\n");
	if (cur[0])
		sysctl_write("vm.swappiness", cur, err, sizeof err);
	statedir_end();
}

TEST(undo_all_restores_own)
{
	char orig[64] = "", now[64] = "", err[256] = "", msg[1024] = "";

	statedir_begin("undo");
	CHECK_INT(undo_recover(msg, sizeof msg), 0);	/* no state file yet */
	CHECK_STR(msg, "");
	CHECK_INT(sysctl_get("vm.swappiness", orig, sizeof orig, err, sizeof err), 0);
	CHECK_INT(sysctl_set("vm.swappiness", strcmp(orig, "62") ? "62" : "63", err,
			     sizeof err), 0);
	CHECK_INT(undo_all(msg, sizeof msg), 1);
	CHECK(strstr(msg, "vm.swappiness restored to ") != NULL);
	CHECK_INT(sysctl_get("vm.swappiness", now, sizeof now, err, sizeof err), 0);
	CHECK_STR(now, orig);
	CHECK(access(undo_state_file(), F_OK) < 0);
	if (orig[0])
		sysctl_write("vm.swappiness", orig, err, sizeof err);
	statedir_end();
}

/* A kind nobody said how to undo stays recorded, and the message says so;
 * once the owner registers its reverts, the same record is undone. */
TEST(undo_kind_without_revert_is_kept)
{
	char orig[64] = "", err[256] = "", msg[1024] = "";

	statedir_begin("undo");
	CHECK_INT(sysctl_get("vm.swappiness", orig, sizeof orig, err, sizeof err), 0);
	CHECK_INT(sysctl_set("vm.swappiness", strcmp(orig, "62") ? "62" : "63", err,
			     sizeof err), 0);
	undo_set_revert(UNDO_SYSCTL, NULL);
	CHECK_INT(undo_all(msg, sizeof msg), -1);
	CHECK(strstr(msg, "could not undo: nothing here knows how to undo it") != NULL);
	CHECK(access(undo_state_file(), F_OK) == 0);
	tuning_register_undo();
	CHECK_INT(undo_all(msg, sizeof msg), 1);
	CHECK(strstr(msg, "vm.swappiness restored to ") != NULL);
	if (orig[0])
		sysctl_write("vm.swappiness", orig, err, sizeof err);
	statedir_end();
}

/* Without write access to the state directory the error is one line. */
TEST(undo_error_one_line)
{
	char err[256] = "";

	setenv("THRASHTOP_STATE_DIR", "/nonexistent-dir/thrashtop", 1);
	CHECK_INT(undo_add(UNDO_SYSCTL, "vm.swappiness", "60", err, sizeof err), -1);
	CHECK_STR(err, "cannot create state directory /nonexistent-dir/thrashtop: "
		  "No such file or directory");
	unsetenv("THRASHTOP_STATE_DIR");
}

static int rm_file(int dirfd, const char *name)
{
	return unlinkat(dirfd, name, 0);
}

TEST(undo_sweep_dead_takes_only_a_dead_sessions_own)
{
	char dir[] = "/tmp/thrashtop-sweep-test-XXXXXX", path[256];
	unsigned long long start;
	const char *gone[] = { "thrashtop-1-1-abcDE1.log" };	/* pid 1 never started at tick 1 */
	const char *kept[] = { "thrashtop-1-1-abcDE1.txt", "thrashtop-1-1-abc.log",
			       "thrashtop-x-1-abcDE1.log", "other-1-1-abcDE1.log", NULL };
	char mine[64];

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(undo_proc_start(getpid(), &start, NULL), 0);
	snprintf(mine, sizeof(mine), "thrashtop-%d-%llu-zzzzzz.log", (int)getpid(), start);
	for (int i = 0; i < 1; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, gone[i]);
		close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	for (int i = 0; kept[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kept[i]);
		close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	snprintf(path, sizeof(path), "%s/%s", dir, mine);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	/* a dead one's name on a directory: not a file, kept */
	snprintf(path, sizeof(path), "%s/thrashtop-1-2-abcDE1.log", dir);
	CHECK_INT(mkdir(path, 0700), 0);

	CHECK_INT(undo_sweep_dead(dir, "thrashtop-", ".log", S_IFREG, rm_file), 1);
	snprintf(path, sizeof(path), "%s/%s", dir, gone[0]);
	CHECK(access(path, F_OK) != 0);
	for (int i = 0; kept[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kept[i]);
		CHECK(access(path, F_OK) == 0);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, mine);
	CHECK(access(path, F_OK) == 0);	/* alive: this process */
	unlink(path);
	snprintf(path, sizeof(path), "%s/thrashtop-1-2-abcDE1.log", dir);
	rmdir(path);
	CHECK_INT(rmdir(dir), 0);
}
