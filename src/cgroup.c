#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "undo.h"
#include "fmt.h"
#include "sysio.h"

#define CG_ROOT "/sys/fs/cgroup/"
#define V1_ROOT "/sys/fs/cgroup/memory"
#define CGROUP2_MAGIC 0x63677270L
#define NAME_PREFIX "thrashtop-"
/* v1 reads "unlimited" back as LONG_MAX rounded down to a page */
#define V1_UNLIMITED 0x7ffffffffffff000LL
#define REMOVE_WAIT_MS 5000

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Reads dir/file whole into buf (NUL-terminated). The length, or -1. */
static ssize_t read_file(const char *dir, const char *file, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	return sysio_read(path, buf, len);
}

/* A file of n bytes in buf holding a single number ("max" is
 * CGROUP_UNLIMITED); NA when n <= 0 or it holds none. */
static long long number(const char *buf, ssize_t n)
{
	char *end;
	long long v;

	if (n <= 0)
		return NA;
	if (!strncmp(buf, "max", 3))
		return CGROUP_UNLIMITED;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return NA;
	return v;
}

/* What cgroup_read reads each tick, kept open: a pread from 0 makes the
 * kernel print the file anew, and opening it cost a path walk a file. */
static const char *const kept_files[CGROUP_KEPT] = {
	"memory.current", "memory.peak", "memory.max", "memory.swap.current",
	"memory.swap.max", "memory.stat", "memory.events", "memory.pressure",
	"memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.limit_in_bytes",
	"memory.memsw.limit_in_bytes", "memory.failcnt", "memory.memsw.failcnt",
	"memory.oom_control",
};

/* file of cg (one of kept_files) into buf, NUL-terminated; the length,
 * or -1 with errno. */
static ssize_t read_kept(struct cgroup *cg, const char *file, char *buf, size_t len)
{
	int i = 0;
	ssize_t n;

	while (i < CGROUP_KEPT && kept_files[i] && strcmp(kept_files[i], file))
		i++;
	if (i == CGROUP_KEPT || !kept_files[i])
		return read_file(cg->path, file, buf, len);
	if (cg->absent & 1u << i) {
		errno = ENOENT;
		return -1;
	}
	if (!(cg->kept & 1u << i)) {
		char path[512];

		snprintf(path, sizeof path, "%s/%s", cg->path, file);
		if ((cg->kept_fd[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			/* a cgroup's files are the kernel's: one it lacks
			 * (memory.peak before 5.19, memsw without swap
			 * accounting) does not come later */
			if (errno == ENOENT)
				cg->absent |= 1u << i;
			return -1;
		}
		cg->kept |= 1u << i;
	}
	if ((n = pread(cg->kept_fd[i], buf, len - 1, 0)) < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static long long kept_ll(struct cgroup *cg, const char *file)
{
	char buf[64];

	return number(buf, read_kept(cg, file, buf, sizeof buf));
}

void cgroup_close_files(struct cgroup *cg)
{
	for (int i = 0; i < CGROUP_KEPT; i++)
		if (cg->kept & 1u << i)
			close(cg->kept_fd[i]);
	cg->kept = cg->absent = 0;
}

/* cgroup.procs in dir, as long as it is; NULL if it cannot be read. */
static char *read_procs(const char *dir)
{
	char path[512];
	size_t len;

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	return sysio_read_alloc(path, SIZE_MAX, &len);
}

/* Writes s to dir/file; returns 0 or an errno. */
static int write_file(const char *dir, const char *file, const char *s)
{
	char path[512];
	size_t len = strlen(s);
	int fd, e = 0;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, s, len) != (ssize_t)len)
		e = errno ? errno : EIO;
	if (close(fd) < 0 && !e)
		e = errno;
	return e;
}

/* dir/file's single number, as number() reads it. */
static long long read_ll(const char *dir, const char *file)
{
	char buf[64];

	return number(buf, read_file(dir, file, buf, sizeof buf));
}

/* The value of "key N" in a flat-keyed file's text, or NA. */
static long long kv(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	return NA;
}

/* avg10 of the "some" or "full" line of a PSI file, or NAN. */
static double psi_avg10(const char *text, const char *which)
{
	size_t wlen = strlen(which);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, which, wlen) && !strncmp(p + wlen, " avg10=", 7))
			return strtod(p + wlen + 7, NULL);
	return NAN;
}

static int has_word(const char *text, const char *word)
{
	size_t wlen = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += wlen)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[wlen] == ' ' || p[wlen] == '\n' || !p[wlen]))
			return 1;
	return 0;
}

/* The unified hierarchy that offers the memory controller, or NULL. */
static const char *v2_root(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	char buf[512];
	struct statfs sfs;

	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
		if (statfs(roots[i], &sfs) < 0 || (long)sfs.f_type != CGROUP2_MAGIC)
			continue;
		if (read_file(roots[i], "cgroup.controllers", buf, sizeof buf) >= 0 &&
		    has_word(buf, "memory"))
			return roots[i];
	}
	return NULL;
}

int cgroup_probe(bool *memsw)
{
	struct stat sb;

	*memsw = false;
	if (v2_root())
		return 2;
	if (stat(V1_ROOT "/memory.limit_in_bytes", &sb) < 0)
		return 0;
	*memsw = stat(V1_ROOT "/memory.memsw.limit_in_bytes", &sb) == 0;
	return 1;
}

static void fmt_limit(char *buf, size_t len, long long v, int version)
{
	if (v < 0 || v == CGROUP_UNLIMITED)
		snprintf(buf, len, "%s", version == 2 ? "max" : "-1");
	else
		snprintf(buf, len, "%lld", v);
}

static int set_one(const struct cgroup *cg, const char *file, long long v,
		   char *err, size_t errlen)
{
	char buf[32];
	int e;

	fmt_limit(buf, sizeof buf, v, cg->version);
	e = write_file(cg->path, file, buf);
	if (e) {
		fmt_err(err, errlen, "cannot write %s to %s/%s: %s%s", buf, cg->path, file,
		       strerror(e),
		       e == EBUSY ? " (usage is above it and cannot be reclaimed)" : "");
		return -1;
	}
	return 0;
}

int cgroup_set_swappiness(struct cgroup *cg, const char *val, char *err, size_t errlen)
{
	int e;

	if (cg->version == 2)
		return 0;
	e = write_file(cg->path, "memory.swappiness", val);
	if (e) {
		fmt_err(err, errlen, "cannot write %s to %s/memory.swappiness: %s", val, cg->path,
			strerror(e));
		return -1;
	}
	return 0;
}

int cgroup_set_limit(struct cgroup *cg, long long limit, long long swap_limit,
		     char *err, size_t errlen)
{
	long long memsw, cur_memsw, lim;

	if (cg->version == 2) {
		char path[512];

		snprintf(path, sizeof path, "%s/memory.swap.max", cg->path);
		if (swap_limit >= 0 && access(path, F_OK) < 0) {
			fmt_err(err, errlen, "a swap limit needs swap accounting, which is off: "
			       "%s is missing (boot with swapaccount=1)", path);
			return -1;
		}
		if (set_one(cg, "memory.max", limit, err, errlen) < 0)
			return -1;
		if (access(path, F_OK) == 0 &&
		    set_one(cg, "memory.swap.max", swap_limit, err, errlen) < 0)
			return -1;
		return 0;
	}
	if (!cg->memsw) {
		if (swap_limit >= 0) {
			fmt_err(err, errlen, "a swap limit needs swap accounting, which is off: "
			       "%s/memory.memsw.limit_in_bytes is missing (boot with "
			       "swapaccount=1)", cg->path);
			return -1;
		}
		return set_one(cg, "memory.limit_in_bytes", limit, err, errlen);
	}
	lim = limit < 0 ? CGROUP_UNLIMITED : limit;
	memsw = limit < 0 || swap_limit < 0 ? CGROUP_UNLIMITED : limit + swap_limit;
	cur_memsw = read_ll(cg->path, "memory.memsw.limit_in_bytes");
	/* memsw must stay >= the limit: raise memsw first when the limit would
	 * pass it, else lower the limit first */
	if (cur_memsw != NA && cur_memsw < V1_UNLIMITED && lim > cur_memsw) {
		if (set_one(cg, "memory.memsw.limit_in_bytes", memsw, err, errlen) < 0 ||
		    set_one(cg, "memory.limit_in_bytes", lim, err, errlen) < 0)
			return -1;
		return 0;
	}
	if (set_one(cg, "memory.limit_in_bytes", lim, err, errlen) < 0 ||
	    set_one(cg, "memory.memsw.limit_in_bytes", memsw, err, errlen) < 0)
		return -1;
	return 0;
}

static int valid_name(const char *name)
{
	return name && !strncmp(name, NAME_PREFIX, strlen(NAME_PREFIX)) &&
	       !strchr(name, '/') && !strstr(name, "..") && strlen(name) < 64 &&
	       !strpbrk(name, " \t\n");
}

int cgroup_create(struct cgroup *cg, const char *name, long long limit,
		  long long swap_limit, char *err, size_t errlen)
{
	const char *root = v2_root();
	char buf[512], own[32];
	int e;

	memset(cg, 0, sizeof *cg);
	cg->procs_fd = -1;
	if (!name) {
		snprintf(own, sizeof own, NAME_PREFIX "%d", (int)getpid());
		name = own;
	}
	if (!valid_name(name)) {
		fmt_err(err, errlen, "bad cgroup name \"%s\" (want " NAME_PREFIX "SOMETHING, "
		       "no '/', spaces or '..')", name ? name : "");
		return -1;
	}
	if (root) {
		cg->version = 2;
	} else {
		struct stat sb;

		if (stat(V1_ROOT "/memory.limit_in_bytes", &sb) < 0) {
			fmt_err(err, errlen, "--mem: no memory cgroup controller (neither "
			       "cgroup.controllers of the unified hierarchy nor "
			       V1_ROOT " offers it)");
			return -1;
		}
		root = V1_ROOT;
		cg->version = 1;
	}
	snprintf(cg->path, sizeof cg->path, "%s/%s", root, name);
	if (access(root, W_OK) < 0) {
		fmt_err(err, errlen, "--mem needs root: cannot create %s: %s", cg->path,
		       strerror(errno));
		return -1;
	}
	if (cg->version == 2 &&
	    (read_file(root, "cgroup.subtree_control", buf, sizeof buf) < 0 ||
	     !has_word(buf, "memory"))) {
		e = write_file(root, "cgroup.subtree_control", "+memory");
		if (e) {
			fmt_err(err, errlen, "cannot enable the memory controller in "
			       "%s/cgroup.subtree_control: %s", root, strerror(e));
			return -1;
		}
	}
	if (undo_add(UNDO_CGROUP, cg->path, cg->version == 2 ? "v2" : "v1", err, errlen) < 0)
		return -1;
	if (mkdir(cg->path, 0755) < 0) {
		e = errno;
		fmt_err(err, errlen, "cannot create %s: %s%s", cg->path, strerror(e),
		       e == EEXIST ? " (left by an earlier run? start thrashtop again to "
				     "clean up, or rmdir it)" : "");
		undo_forget(UNDO_CGROUP, cg->path, NULL, 0);
		return -1;
	}
	if (cg->version == 1) {
		snprintf(buf, sizeof buf, "%s/memory.memsw.limit_in_bytes", cg->path);
		cg->memsw = access(buf, F_OK) == 0;
	}
	if (cgroup_set_limit(cg, limit, swap_limit, err, errlen) < 0)
		goto fail;
	snprintf(buf, sizeof buf, "%s/cgroup.procs", cg->path);
	cg->procs_fd = open(buf, O_WRONLY | O_CLOEXEC);
	if (cg->procs_fd < 0) {
		fmt_err(err, errlen, "cannot open %s: %s", buf, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	rmdir(cg->path);
	undo_forget(UNDO_CGROUP, cg->path, NULL, 0);
	cg->path[0] = '\0';
	return -1;
}

int cgroup_attach_self(struct cgroup *cg)
{
	char buf[24];
	int pos = (int)sizeof buf;
	unsigned long v = (unsigned long)getpid();

	/* no stdio after fork: format the pid by hand */
	do {
		buf[--pos] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (cg->procs_fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (write(cg->procs_fd, buf + pos, sizeof buf - (size_t)pos) < 0)
		return -1;
	return 0;
}

int cgroup_attach_child(void *arg)
{
	return cgroup_attach_self(arg);
}

int cgroup_attach_pid(struct cgroup *cg, pid_t pid, char *err, size_t errlen)
{
	char buf[24];
	int e;

	snprintf(buf, sizeof buf, "%d", (int)pid);
	e = write_file(cg->path, "cgroup.procs", buf);
	if (e) {
		fmt_err(err, errlen, "cannot move pid %d into %s: %s", (int)pid, cg->path,
		       strerror(e));
		return -1;
	}
	return 0;
}

int cgroup_read(struct cgroup *cg, struct cgroup_stat *st)
{
	char text[8192];

	st->peak = st->limit = st->swap_usage = st->swap_limit = NA;
	st->pgfault = st->pgmajfault = st->refault_anon = st->refault_file = NA;
	st->failcnt = st->oom_kill = NA;
	st->psi_some10 = st->psi_full10 = NAN;
	if (cg->version == 2) {
		st->usage = kept_ll(cg, "memory.current");
		if (st->usage == NA) {
			errno = errno ? errno : EIO;
			return -1;
		}
		st->peak = kept_ll(cg, "memory.peak");
		st->limit = kept_ll(cg, "memory.max");
		st->swap_usage = kept_ll(cg, "memory.swap.current");
		st->swap_limit = kept_ll(cg, "memory.swap.max");
		if (read_kept(cg, "memory.stat", text, sizeof text) >= 0) {
			st->pgfault = kv(text, "pgfault");
			st->pgmajfault = kv(text, "pgmajfault");
			st->refault_anon = kv(text, "workingset_refault_anon");
			st->refault_file = kv(text, "workingset_refault_file");
		}
		if (read_kept(cg, "memory.events", text, sizeof text) >= 0) {
			st->failcnt = kv(text, "max");
			st->oom_kill = kv(text, "oom_kill");
		}
		if (read_kept(cg, "memory.pressure", text, sizeof text) >= 0) {
			st->psi_some10 = psi_avg10(text, "some");
			st->psi_full10 = psi_avg10(text, "full");
		}
		return 0;
	}
	st->usage = kept_ll(cg, "memory.usage_in_bytes");
	if (st->usage == NA) {
		errno = errno ? errno : EIO;
		return -1;
	}
	st->peak = kept_ll(cg, "memory.max_usage_in_bytes");
	st->limit = kept_ll(cg, "memory.limit_in_bytes");
	if (st->limit >= V1_UNLIMITED)
		st->limit = CGROUP_UNLIMITED;
	if (cg->memsw) {
		long long memsw = kept_ll(cg, "memory.memsw.limit_in_bytes");

		if (memsw >= V1_UNLIMITED)
			st->swap_limit = CGROUP_UNLIMITED;
		else if (memsw != NA && st->limit != NA)
			st->swap_limit = memsw - st->limit;
	}
	/* total_* include descendants, the same scope as v2's files */
	if (read_kept(cg, "memory.stat", text, sizeof text) >= 0) {
		st->swap_usage = kv(text, "total_swap");
		st->pgfault = kv(text, "total_pgfault");
		st->pgmajfault = kv(text, "total_pgmajfault");
		st->refault_anon = kv(text, "total_workingset_refault_anon");
		st->refault_file = kv(text, "total_workingset_refault_file");
	}
	/* a failed charge is counted once: by memsw if that limit stopped it,
	 * else by the memory limit */
	st->failcnt = kept_ll(cg, "memory.failcnt");
	if (cg->memsw && st->failcnt != NA) {
		long long f = kept_ll(cg, "memory.memsw.failcnt");

		if (f != NA)
			st->failcnt += f;
	}
	if (read_kept(cg, "memory.oom_control", text, sizeof text) >= 0)
		st->oom_kill = kv(text, "oom_kill");
	return 0;
}

/* SIGKILLs every task listed; returns how many were listed, or -1. */
static int kill_procs(const char *path)
{
	char *text = read_procs(path);
	int n = 0;

	if (!text)
		return -1;
	for (char *p = text; *p; ) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0) {
			kill((pid_t)pid, SIGKILL);
			n++;
		}
		p = end + (*end == '\n');
	}
	free(text);
	return n;
}

int cgroup_nprocs(const struct cgroup *cg)
{
	char *text = read_procs(cg->path);
	int n = 0;

	if (!text)
		return -1;
	for (char *p = text; *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

int cgroup_remove_path(const char *path, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct stat sb;
	int left = 0;

	if (strncmp(path, CG_ROOT, strlen(CG_ROOT)) != 0 || !base ||
	    !valid_name(base + 1) || strstr(path, "/../")) {
		fmt_err(err, errlen, "refusing to remove %s: not a thrashtop cgroup", path);
		return -1;
	}
	if (stat(path, &sb) < 0 && errno == ENOENT)
		return 0;
	write_file(path, "cgroup.kill", "1");	/* v2 (5.14+): kills forks in flight too */
	for (int waited = 0; ; waited += 10) {
		left = kill_procs(path);
		if (left < 0) {
			if (errno == ENOENT)
				return 0;
			fmt_err(err, errlen, "cannot read %s/cgroup.procs: %s", path,
			       strerror(errno));
			return -1;
		}
		if (left == 0) {
			if (rmdir(path) == 0 || errno == ENOENT)
				return 0;
			if (errno != EBUSY) {
				fmt_err(err, errlen, "cannot remove %s: %s%s", path, strerror(errno),
				       errno == EACCES || errno == EPERM ? " (needs root)" : "");
				return -1;
			}
		}
		if (waited >= REMOVE_WAIT_MS)
			break;
		sleep_ms(10);
	}
	fmt_err(err, errlen, "cannot remove %s: %d process(es) still inside %d s after "
	       "SIGKILL (zombies whose parent has not reaped them?)", path, left,
	       REMOVE_WAIT_MS / 1000);
	return -1;
}

int cgroup_remove(struct cgroup *cg, char *err, size_t errlen)
{
	if (!cg->path[0])
		return 0;
	if (cg->procs_fd >= 0) {
		close(cg->procs_fd);
		cg->procs_fd = -1;
	}
	cgroup_close_files(cg);
	if (cgroup_remove_path(cg->path, err, errlen) < 0)
		return -1;
	if (undo_forget(UNDO_CGROUP, cg->path, err, errlen) < 0)
		return -1;
	cg->path[0] = '\0';
	return 0;
}
