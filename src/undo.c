#include "undo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "sysio.h"

#define DEFAULT_DIR "/run/thrashtop"
#define LINE_MAX_LEN 1024
#define BOOT_ID_LEN 40

struct entry {
	char line[LINE_MAX_LEN];	/* the text, kept verbatim if unparsable */
	bool ok;
	pid_t owner;
	unsigned long long ostart;
	char boot[BOOT_ID_LEN];
	enum undo_kind kind;
	char key[LINE_MAX_LEN];
	char val[LINE_MAX_LEN];
};

struct state {
	int lockfd;
	struct entry *e;
	int n;
};

static const char *const kind_names[] = { "balloon", "cgroup", "swap", "zram", "sysctl", "param",
					     "tracefs" };

static char dir_buf[PATH_MAX], file_buf[PATH_MAX + 8];

static struct {
	pid_t pid;
	unsigned long long start;
	char boot[BOOT_ID_LEN];
} self;

__attribute__((format(printf, 3, 4)))
static void msg_add(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (!msg || !msglen)
		return;
	used = strlen(msg);
	if (used && used + 1 < msglen)
		msg[used++] = '\n', msg[used] = '\0';
	if (used + 1 >= msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(msg + used, msglen - used, fmt, ap);
	va_end(ap);
}

static const char *state_dir(void)
{
	const char *d = getenv("THRASHTOP_STATE_DIR");

	snprintf(dir_buf, sizeof dir_buf, "%s", d && *d ? d : DEFAULT_DIR);
	return dir_buf;
}

const char *undo_state_file(void)
{
	snprintf(file_buf, sizeof file_buf, "%s/state", state_dir());
	return file_buf;
}

int undo_proc_start(pid_t pid, unsigned long long *start, char *state)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		errno = n < 0 ? errno : ESRCH;
		return -1;
	}
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields resume after the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2]) {
		errno = EIO;
		return -1;
	}
	p += 2;
	if (state)
		*state = *p;
	/* field 3 is the state; the start time is field 22 */
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p) {
			errno = EIO;
			return -1;
		}
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

static int read_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Who "this process" is; a child after fork is a new owner. */
static int self_id(char *err, size_t errlen)
{
	pid_t pid = getpid();

	if (self.pid == pid)
		return 0;
	if (undo_proc_start(pid, &self.start, NULL) < 0) {
		fmt_err(err, errlen, "cannot read /proc/%d/stat: %s", (int)pid, strerror(errno));
		return -1;
	}
	if (!self.boot[0] && read_boot_id(self.boot, sizeof self.boot) < 0) {
		fmt_err(err, errlen, "cannot read /proc/sys/kernel/random/boot_id: %s",
		       strerror(errno));
		return -1;
	}
	self.pid = pid;
	return 0;
}

static bool parse_entry(struct entry *e)
{
	char kind[16];
	const char *p;
	int off = 0;

	e->ok = false;
	if (sscanf(e->line, "%d %llu %39s %15s %n", &e->owner, &e->ostart, e->boot,
		   kind, &off) != 4 || !off)
		return false;
	p = e->line + off;
	e->key[0] = e->val[0] = '\0';
	if (!strcmp(kind, "cgroup")) {
		e->kind = UNDO_CGROUP;
		if (sscanf(p, "%15s %n", e->val, &off) != 1 || !p[off])
			return false;
		snprintf(e->key, sizeof e->key, "%s", p + off);
	} else if (!strcmp(kind, "swap")) {
		e->kind = UNDO_SWAP;
		if (!*p)
			return false;
		snprintf(e->key, sizeof e->key, "%s", p);
	} else if (!strcmp(kind, "zram")) {
		e->kind = UNDO_ZRAM;
		if (sscanf(p, "%255s", e->key) != 1)
			return false;
	} else if (!strcmp(kind, "sysctl") || !strcmp(kind, "param")) {
		e->kind = !strcmp(kind, "sysctl") ? UNDO_SYSCTL : UNDO_PARAM;
		off = 0;
		if (sscanf(p, "%255s %n", e->key, &off) != 1 || !off)
			return false;
		snprintf(e->val, sizeof e->val, "%s", p + off);
	} else if (!strcmp(kind, "tracefs")) {
		e->kind = UNDO_TRACEFS;
		if (sscanf(p, "%255s %31s", e->key, e->val) != 2)
			return false;
	} else if (!strcmp(kind, "balloon")) {
		e->kind = UNDO_BALLOON;
		if (sscanf(p, "%31s %31s", e->key, e->val) != 2)
			return false;
	} else {
		return false;
	}
	e->ok = true;
	return true;
}

static int format_entry(struct entry *e)
{
	const char *k = kind_names[e->kind];
	int n;

	switch (e->kind) {
	case UNDO_CGROUP:
		n = snprintf(e->line, sizeof e->line, "%d %llu %s %s %s %s", (int)e->owner,
			     e->ostart, e->boot, k, e->val, e->key);
		break;
	case UNDO_SWAP:
	case UNDO_ZRAM:
		n = snprintf(e->line, sizeof e->line, "%d %llu %s %s %s", (int)e->owner,
			     e->ostart, e->boot, k, e->key);
		break;
	default:
		n = snprintf(e->line, sizeof e->line, "%d %llu %s %s %s %s", (int)e->owner,
			     e->ostart, e->boot, k, e->key, e->val);
		break;
	}
	return n < 0 || (size_t)n >= sizeof e->line ? -1 : 0;
}

static void state_close(struct state *s)
{
	if (s->lockfd >= 0)
		close(s->lockfd);	/* releases the flock */
	s->lockfd = -1;
	free(s->e);
	s->e = NULL;
	s->n = 0;
}

static int make_dir(const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fmt_err(err, errlen, "cannot create state directory %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The tuning lock: a write lock on DIR/session, held from this process's
 * first change to its exit. A POSIX record lock, so that the kernel names
 * its holder and a forked child never holds it. */
static struct {
	int fd;
	pid_t pid;		/* a forked child inherits the fd, not the lock */
	char dir[PATH_MAX];
} claim = { -1, 0, "" };

int undo_try_claim(pid_t *holder, char *err, size_t errlen)
{
	const char *dir = state_dir();
	char path[PATH_MAX + 16];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int rc = -1;

	*holder = 0;
	if (claim.fd >= 0 && claim.pid == getpid() && !strcmp(claim.dir, dir))
		return 0;
	if (claim.fd >= 0)
		close(claim.fd);
	claim.fd = -1;
	if (make_dir(dir, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/session", dir);
	claim.fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (claim.fd < 0) {
		fmt_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fcntl(claim.fd, F_SETLK, &fl) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		if ((e == EAGAIN || e == EACCES) && fcntl(claim.fd, F_GETLK, &fl) == 0 &&
		    fl.l_type != F_UNLCK) {
			fmt_err(err, errlen, "another thrashtop (pid %d) is tuning this machine: one "
			       "tuning session at a time", (int)fl.l_pid);
			*holder = fl.l_pid;
			rc = 1;
		} else if (e == EAGAIN || e == EACCES) {
			fl.l_type = F_WRLCK;	/* it went meanwhile */
			continue;
		} else {
			fmt_err(err, errlen, "cannot lock %s: %s", path, strerror(e));
		}
		close(claim.fd);
		claim.fd = -1;
		return rc;
	}
	snprintf(claim.dir, sizeof claim.dir, "%s", dir);
	claim.pid = getpid();
	return 0;
}

int undo_claim(char *err, size_t errlen)
{
	pid_t holder;

	return undo_try_claim(&holder, err, errlen) ? -1 : 0;
}

/* Takes the lock and reads every record. */
static int state_open(struct state *s, char *err, size_t errlen)
{
	char lock[PATH_MAX + 8], *line = NULL;
	const char *dir = state_dir();
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int cnt = 0;

	s->lockfd = -1;
	s->e = NULL;
	s->n = 0;
	if (make_dir(dir, err, errlen) < 0)
		return -1;
	snprintf(lock, sizeof lock, "%s/lock", dir);
	s->lockfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (s->lockfd < 0 && errno == EACCES)
		s->lockfd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (s->lockfd < 0) {
		fmt_err(err, errlen, "cannot open %s: %s", lock, strerror(errno));
		return -1;
	}
	while (flock(s->lockfd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			fmt_err(err, errlen, "cannot lock %s: %s", lock, strerror(errno));
			state_close(s);
			return -1;
		}
	}
	f = fopen(undo_state_file(), "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		fmt_err(err, errlen, "cannot read %s: %s", undo_state_file(), strerror(errno));
		state_close(s);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct entry *e;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (s->n == cnt) {
			int ncnt = cnt ? 2 * cnt : 16;
			struct entry *ne = realloc(s->e, (size_t)ncnt * sizeof *ne);

			if (!ne) {
				fmt_err(err, errlen, "cannot read %s: %s", undo_state_file(),
				       strerror(ENOMEM));
				free(line);
				fclose(f);
				state_close(s);
				return -1;
			}
			s->e = ne;
			cnt = ncnt;
		}
		e = &s->e[s->n++];
		snprintf(e->line, sizeof e->line, "%s", line);
		parse_entry(e);
	}
	free(line);
	fclose(f);
	return 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

static int write_entries(FILE *f, const void *arg)
{
	const struct state *s = arg;

	for (int i = 0; i < s->n; i++)
		fprintf(f, "%s\n", s->e[i].line);
	return ferror(f) ? -1 : 0;
}

/* Replaces the state file atomically; no records left removes it. */
static int state_save(const struct state *s, char *err, size_t errlen)
{
	const char *path = undo_state_file();

	if (!s->n) {
		if (unlink(path) < 0 && errno != ENOENT) {
			fmt_err(err, errlen, "cannot remove %s: %s", path, strerror(errno));
			return -1;
		}
		sync_dir(dir_buf);
		return 0;
	}
	if (sysio_replace(path, 0644, write_entries, s) < 0) {
		fmt_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static bool is_mine(const struct entry *e)
{
	return e->ok && e->owner == self.pid && e->ostart == self.start &&
	       !strcmp(e->boot, self.boot);
}

static int find_mine(const struct state *s, enum undo_kind kind, const char *key)
{
	for (int i = 0; i < s->n; i++)
		if (is_mine(&s->e[i]) && s->e[i].kind == kind && !strcmp(s->e[i].key, key))
			return i;
	return -1;
}

static void drop(struct state *s, int i)
{
	memmove(&s->e[i], &s->e[i + 1], (size_t)(s->n - i - 1) * sizeof *s->e);
	s->n--;
}

static bool valid_field(const char *v, bool spaces)
{
	for (; *v; v++)
		if (*v == '\n' || *v == '\r' || (!spaces && (*v == ' ' || *v == '\t')))
			return false;
	return true;
}

int undo_add(enum undo_kind kind, const char *key, const char *val,
	     char *err, size_t errlen)
{
	struct state s;
	struct entry *e;
	bool key_spaces = kind == UNDO_CGROUP || kind == UNDO_SWAP;
	int rc;

	if ((unsigned)kind > UNDO_LAST || !key || !*key || !val ||
	    !valid_field(key, key_spaces) ||
	    !valid_field(val, kind == UNDO_SYSCTL || kind == UNDO_PARAM) ||
	    (kind != UNDO_SWAP && kind != UNDO_ZRAM && !*val)) {
		fmt_err(err, errlen, "cannot record %s \"%s\" in the undo state: malformed",
		       (unsigned)kind > UNDO_LAST ? "change" : kind_names[kind], key ? key : "");
		return -1;
	}
	if (self_id(err, errlen) < 0 || undo_claim(err, errlen) < 0 ||
	    state_open(&s, err, errlen) < 0)
		return -1;
	if (find_mine(&s, kind, key) >= 0) {
		state_close(&s);
		return 0;
	}
	e = realloc(s.e, (size_t)(s.n + 1) * sizeof *e);
	if (!e) {
		fmt_err(err, errlen, "cannot record %s %s: %s", kind_names[kind], key,
		       strerror(ENOMEM));
		state_close(&s);
		return -1;
	}
	s.e = e;
	e = &s.e[s.n];
	memset(e, 0, sizeof *e);
	e->ok = true;
	e->owner = self.pid;
	e->ostart = self.start;
	snprintf(e->boot, sizeof e->boot, "%s", self.boot);
	e->kind = kind;
	snprintf(e->key, sizeof e->key, "%s", key);
	snprintf(e->val, sizeof e->val, "%s", val);
	if (strlen(key) >= sizeof e->key || strlen(val) >= sizeof e->val ||
	    format_entry(e) < 0) {
		fmt_err(err, errlen, "cannot record %s %s: too long", kind_names[kind], key);
		state_close(&s);
		return -1;
	}
	s.n++;
	rc = state_save(&s, err, errlen);
	state_close(&s);
	return rc;
}

int undo_forget(enum undo_kind kind, const char *key, char *err, size_t errlen)
{
	struct state s;
	int i, rc = 0;

	if (self_id(err, errlen) < 0 || state_open(&s, err, errlen) < 0)
		return -1;
	i = find_mine(&s, kind, key);
	if (i >= 0) {
		drop(&s, i);
		rc = state_save(&s, err, errlen);
	}
	state_close(&s);
	return rc;
}

int undo_lookup(enum undo_kind kind, const char *key, char *val, size_t vallen,
		char *err, size_t errlen)
{
	struct state s;
	int i;

	if (self_id(err, errlen) < 0 || state_open(&s, err, errlen) < 0)
		return -1;
	i = find_mine(&s, kind, key);
	if (i >= 0)
		snprintf(val, vallen, "%s", s.e[i].val);
	state_close(&s);
	return i >= 0 ? 0 : 1;
}

static undo_revert_fn reverts[UNDO_LAST + 1];

void undo_set_revert(enum undo_kind kind, undo_revert_fn fn)
{
	if ((int)kind >= 0 && kind <= UNDO_LAST)
		reverts[kind] = fn;
}

static int revert(const struct entry *e, char *err, size_t errlen)
{
	if (!reverts[e->kind]) {
		snprintf(err, errlen, "nothing here knows how to undo it");
		return -1;
	}
	return reverts[e->kind](e->key, e->val, err, errlen);
}

/* Undoes one record; prev_boot: made before the last reboot. Returns 0 when
 * the record can go. */
static int undo_one(const struct entry *e, bool prev_boot, const char *who,
		    char *msg, size_t msglen)
{
	char err[512] = "";
	int rc = 0;

	switch (e->kind) {
	case UNDO_BALLOON:
		if (prev_boot) {
			msg_add(msg, msglen, "%sballoon pid %s: record dropped (the reboot ended it)",
				who, e->key);
			return 0;
		}
		rc = revert(e, err, sizeof err);
		if (!rc)
			msg_add(msg, msglen, "%sballoon pid %s stopped", who, e->key);
		break;
	case UNDO_CGROUP:
		rc = revert(e, err, sizeof err);
		if (!rc && prev_boot)
			msg_add(msg, msglen, "%smemory cgroup %s: record dropped (the reboot "
				"removed it)", who, e->key);
		else if (!rc)
			msg_add(msg, msglen, "%smemory cgroup %s removed", who, e->key);
		break;
	case UNDO_SWAP:
		rc = revert(e, err, sizeof err);
		if (!rc && prev_boot)
			msg_add(msg, msglen, "%sswap file %s removed (the reboot had turned it "
				"off)", who, e->key);
		else if (!rc)
			msg_add(msg, msglen, "%sswap file %s turned off and removed", who, e->key);
		break;
	case UNDO_ZRAM:
		/* after a reboot the number may be another's device */
		if (prev_boot) {
			msg_add(msg, msglen, "%szram device %s: record dropped (the reboot "
				"removed it)", who, e->key);
			return 0;
		}
		rc = revert(e, err, sizeof err);
		if (!rc)
			msg_add(msg, msglen, "%szram device %s turned off and removed", who, e->key);
		break;
	case UNDO_TRACEFS:
		if (prev_boot) {
			msg_add(msg, msglen, "%stracefs %s %s: record dropped (the reboot "
				"removed it)", who, e->val, e->key);
			return 0;
		}
		rc = revert(e, err, sizeof err);
		if (!rc)
			msg_add(msg, msglen, "%stracefs %s %s removed", who, e->val, e->key);
		break;
	case UNDO_SYSCTL:
	case UNDO_PARAM:
		if (prev_boot) {
			msg_add(msg, msglen, "%s%s not restored to %s (the reboot reset it)", who,
				e->key, e->val);
			return 0;
		}
		rc = revert(e, err, sizeof err);
		if (!rc)
			msg_add(msg, msglen, "%s%s restored to %s", who, e->key, e->val);
		break;
	}
	if (rc)
		msg_add(msg, msglen, "%scould not undo: %s (kept in %s)", who, err,
			undo_state_file());
	return rc;
}

static bool owner_gone(const struct entry *e, bool *prev_boot)
{
	unsigned long long start;
	char st;

	*prev_boot = strcmp(e->boot, self.boot) != 0;
	if (*prev_boot)
		return true;
	if (undo_proc_start(e->owner, &start, &st) < 0)
		return errno == ESRCH;
	return start != e->ostart || st == 'Z' || st == 'X';
}

/* A hugetlb pool holds memory as a balloon does: it goes back with the
 * balloons, before swapoff needs the room. */
static int undo_rank(const struct entry *e)
{
	return e->kind == UNDO_SYSCTL && !strcmp(e->key, "vm.nr_hugepages") ? UNDO_BALLOON :
	       (int)e->kind;
}

/* Undoes this process's records (mine) or those of owners that are gone, in
 * undo_kind order and, within a kind, newest first. */
static int undo_selected(bool mine, char *msg, size_t msglen)
{
	char err[512];
	struct state s;
	struct stat sb;
	bool *done;
	int undone = 0, failed = 0;

	if (msg && msglen)
		msg[0] = '\0';
	/* no file, no records: nothing to lock (and no directory to create as
	 * a user who never changed anything) */
	if (stat(undo_state_file(), &sb) < 0 && errno == ENOENT)
		return 0;
	if (self_id(err, sizeof err) < 0 || state_open(&s, err, sizeof err) < 0) {
		msg_add(msg, msglen, "%s", err);
		return -1;
	}
	done = calloc((size_t)s.n + 1, sizeof *done);
	if (!done) {
		msg_add(msg, msglen, "cannot undo: %s", strerror(ENOMEM));
		state_close(&s);
		return -1;
	}
	for (int kind = UNDO_BALLOON; kind <= UNDO_LAST; kind++) {
		for (int i = s.n - 1; i >= 0; i--) {
			const struct entry *e = &s.e[i];
			char who[96];
			bool prev_boot = false;

			if (!e->ok || undo_rank(e) != kind)
				continue;
			if (mine) {
				if (!is_mine(e))
					continue;
				who[0] = '\0';
			} else {
				if (!owner_gone(e, &prev_boot))
					continue;
				snprintf(who, sizeof who, "thrashtop pid %d (%s): ", (int)e->owner,
					 prev_boot ? "before the last reboot" : "no longer running");
			}
			if (undo_one(e, prev_boot, who, msg, msglen) == 0) {
				done[i] = true;
				undone++;
			} else {
				failed++;
			}
		}
	}
	if (undone) {
		int n = s.n;

		for (int i = n - 1; i >= 0; i--)
			if (done[i])
				drop(&s, i);
		if (state_save(&s, err, sizeof err) < 0) {
			msg_add(msg, msglen, "%s", err);
			failed++;
		}
	}
	free(done);
	state_close(&s);
	return failed ? -1 : undone;
}

int undo_recover(char *msg, size_t msglen)
{
	return undo_selected(false, msg, msglen);
}

int undo_all(char *msg, size_t msglen)
{
	return undo_selected(true, msg, msglen);
}

/* Whether name is PREFIX PID-START-XXXXXX SUFFIX of a process gone. */
static bool left_by_dead(const char *name, const char *prefix, const char *suffix)
{
	size_t np = strlen(prefix), ns = strlen(suffix), n = strlen(name);
	unsigned long long start, now;
	int pid, end = 0;

	if (strncmp(name, prefix, np) || n < np + ns || strcmp(name + n - ns, suffix) ||
	    sscanf(name + np, "%d-%llu-%n", &pid, &start, &end) != 2 || pid <= 0 ||
	    n - ns - np - (size_t)end != 6 ||
	    strspn(name + np + end, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") < 6)
		return false;
	return undo_proc_start(pid, &now, NULL) < 0 || now != start;
}

int undo_sweep_dead(const char *dir, const char *prefix, const char *suffix, mode_t type,
		    int (*rm)(int dirfd, const char *name))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat sb;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (left_by_dead(e->d_name, prefix, suffix) &&
		    fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (sb.st_mode & S_IFMT) == type && sb.st_uid == geteuid() &&
		    rm(dirfd(d), e->d_name) == 0)
			n++;
	closedir(d);
	return n;
}
