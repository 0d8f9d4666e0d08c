/* Where the history file lives: its default path, whether a path can hold
 * it, whether others may plant files beside it, the lock beside it while
 * its schema is rebuilt, and a waiting writer's word on its directory. */
#include "histfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fmt.h"
#include "sysio.h"

char *history_default_path(char *buf, size_t len, char *err, size_t errlen)
{
	if (sysio_xdg_path("XDG_DATA_HOME", ".local/share", "history.db", buf, len))
		return buf;
	fmt_err(err, errlen, errno == ENAMETOOLONG ? "history: default path too long"
			     : "history: neither XDG_DATA_HOME nor HOME is an absolute path; "
			       "use --history PATH");
	return NULL;
}

int history_check_path(const char *path, char *err, size_t errlen)
{
	char dir[4096];
	struct stat sb;
	struct statfs fs;

	if (!*path)
		return fmt_err(err, errlen, "--history: empty path");
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return fmt_err(err, errlen, "--history %s: a directory, not a file", path);
		if (!S_ISREG(sb.st_mode))
			return fmt_err(err, errlen, "--history %s: not a regular file", path);
		if (statfs(path, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC))
			return fmt_err(err, errlen, "--history %s: not a file that keeps data", path);
		return history_check_sides(path, err, errlen);
	}
	if (errno != ENOENT)
		return fmt_err(err, errlen, "--history %s: %s", path, strerror(errno));
	/* Not there yet: its directory must be, and take files (only the
	 * default path's directories are made: a typo makes none). */
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return fmt_err(err, errlen, "--history: path too long");
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	if (stat(dir, &sb) != 0)
		return fmt_err(err, errlen, "--history %s: %s: %s", path, dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return fmt_err(err, errlen, "--history %s: %s is not a directory", path, dir);
	if (statfs(dir, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC))
		return fmt_err(err, errlen, "--history %s: %s takes no files", path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return fmt_err(err, errlen, "--history %s: cannot create it in %s: %s", path, dir,
			       strerror(errno));
	return history_check_sides(path, err, errlen);
}

/* The directory part of path into dir ("." for none). */
static void dir_part(const char *path, char *dir, size_t len)
{
	snprintf(dir, len, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
}

/* Whether the directory holding name (its last part not resolved) is
 * shared; one that cannot be looked at counts as shared. */
static bool beside_shared(const char *name)
{
	char dir[4200];
	struct stat sb;

	dir_part(name, dir, sizeof(dir));
	if (stat(dir, &sb) != 0)
		return errno != ENOENT;
	return sysio_dir_shared(&sb, geteuid());
}

bool history_in_shared_dir(const char *path)
{
	char *real = realpath(path, NULL);	/* SQLite's files go beside a link's target */
	bool shared = beside_shared(real ? real : path);

	free(real);
	return shared;
}

int history_side_ok(const char *name, const struct stat *sb, uid_t owner, char *err,
		    size_t errlen)
{
	const char *why = "in a directory others can write";

	if (S_ISLNK(sb->st_mode))
		return fmt_err(err, errlen, "%s: a symbolic link %s: refused", name, why);
	if (!S_ISREG(sb->st_mode))
		return fmt_err(err, errlen, "%s: not a regular file, %s: refused", name, why);
	if (sb->st_nlink != 1)
		return fmt_err(err, errlen, "%s: %lu hard links %s: refused", name,
			       (unsigned long)sb->st_nlink, why);
	if (sb->st_uid != owner)
		return fmt_err(err, errlen, "%s: owned by uid %u, not by the history's owner "
			       "(uid %u), %s: refused", name, (unsigned)sb->st_uid,
			       (unsigned)owner, why);
	return 0;
}

int history_check_sides(const char *path, char *err, size_t errlen)
{
	static const char *const sides[] = { "-journal", "-wal", "-shm", "-build" };
	char *real = realpath(path, NULL);
	struct stat sb;
	uid_t owner = stat(path, &sb) == 0 ? sb.st_uid : geteuid();
	int rc = 0;

	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]) && !rc; i++) {
		char name[4200];
		/* SQLite's beside the file, the build lock beside the name */
		bool sqlite = strcmp(sides[i], "-build") != 0;
		snprintf(name, sizeof(name), "%s%s", sqlite && real ? real : path, sides[i]);
		if (lstat(name, &sb) == 0 && beside_shared(name))
			rc = history_side_ok(name, &sb, owner, err, errlen);
	}
	free(real);
	return rc;
}

static void build_name(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s-build", path);
}

bool history_building(const char *path)
{
	char name[4200];
	int fd;
	bool held;

	build_name(path, name, sizeof(name));
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

/* A builder unlinks the file as it ends, so the file locked must still be
 * the one under the name. */
int history_build_begin(const char *path, bool wait, char *err, size_t errlen)
{
	char name[4200];
	struct stat a, b;

	build_name(path, name, sizeof(name));
	for (;;) {
		/* made exclusively, or another builder's opened as it is */
		int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST) {
			fd = open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 && errno == ENOENT)
				continue;	/* its builder has just removed it */
		}
		if (fd < 0)
			return fmt_err(err, errlen, "%s: %s", name, strerror(errno));
		if (flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
			int e = errno;
			close(fd);
			if (e == EINTR)
				continue;
			if (e == EWOULDBLOCK)
				return -2;
			return fmt_err(err, errlen, "%s: %s", name, strerror(e));
		}
		if (fstat(fd, &a) == 0 && stat(name, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
}

void history_build_end(const char *path, int fd)
{
	char name[4200];

	build_name(path, name, sizeof(name));
	unlink(name);
	close(fd);
}

int history_dir_open(const char *path)
{
	char *real = realpath(path, NULL);
	int fd;

	if (!real)
		return -1;
	char *slash = strrchr(real, '/');
	if (slash)
		slash[slash == real] = '\0';
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(real);
	return fd;
}

void history_dir_waiting(int fd, bool on)
{
	flock(fd, on ? LOCK_SH | LOCK_NB : LOCK_UN);
}

bool history_dir_waited(int fd)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return false;
	}
	return errno == EWOULDBLOCK;
}

bool history_remove_unused(const char *path)
{
	static const char *const side[] = { "-wal", "-shm", "-journal", "-build" };
	char name[4200];

	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, side[i]);
		if (access(name, F_OK) == 0 || errno != ENOENT)
			return false;
	}
	return unlink(path) == 0;
}
