#include "sysio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procparse.h"

/* Closes fd keeping the errno of what failed before. */
static void close_keep(int fd)
{
	int e = errno;

	close(fd);
	errno = e;
}

ssize_t sysio_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t r = read(fd, buf + n, size - 1 - n);
		if (r < 0) {
			close_keep(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == size - 1) {
			char extra;
			if (read(fd, &extra, 1) != 0) {
				close(fd);
				errno = EFBIG;
				return -1;
			}
			break;
		}
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

char *sysio_read_alloc(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 16384, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r <= 0) {
			if (r == 0)
				break;
			free(buf);
			close_keep(fd);
			return NULL;
		}
		n += (size_t)r;
		if (n > max) {
			free(buf);
			close(fd);
			errno = EFBIG;
			return NULL;
		}
		if (n == cap - 1) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	close(fd);
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int sysio_meminfo(const char *const keys[], int64_t kib[], int n)
{
	char buf[32768];
	ssize_t len = sysio_read("/proc/meminfo", buf, sizeof(buf));

	if (len < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (procparse_kib(buf, (size_t)len, keys[i], &kib[i]) < 0)
			kib[i] = -1;
	return 0;
}

char *sysio_xdg_path(const char *var, const char *home_dir, const char *file, char *buf,
		     size_t len)
{
	const char *xdg = getenv(var);
	const char *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/thrashtop/%s", xdg, file);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/%s/thrashtop/%s", home, home_dir, file);
	else {
		errno = ENOENT;
		return NULL;
	}
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return buf;
}

int sysio_make_parents(const char *path, mode_t mode, struct sysio_made *made)
{
	char dir[PATH_MAX];

	if (made)
		made->failed[0] = '\0';
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, mode) == 0) {
			if (made && made->n < SYSIO_MADE_MAX)
				snprintf(made->dir[made->n++], sizeof(made->dir[0]), "%s", dir);
		} else if (errno != EEXIST) {
			if (made)
				snprintf(made->failed, sizeof(made->failed), "%s", dir);
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* Syncs the directory that holds path, so that a rename in it lasts. */
static void sync_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* An error that says where a file was to go is wrong, not the system. */
static bool path_fault(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EACCES || e == EPERM || e == EROFS ||
	       e == ENAMETOOLONG || e == ELOOP;
}

int sysio_replace(const char *path, mode_t mode, int (*fill)(FILE *f, const void *arg),
		  const void *arg)
{
	char tmp[PATH_MAX + 8];
	struct stat st;
	mode_t um;
	FILE *f;
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -2;
	}
	/* found before fill's work, which rename would waste */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -2;
	}
	if ((fd = mkstemp(tmp)) < 0)
		return path_fault(errno) ? -2 : -1;
	/* mkstemp makes it 0600 */
	um = umask(0);
	umask(um);
	fchmod(fd, stat(path, &st) == 0 ? st.st_mode & 07777 : mode & ~um);
	if (!(f = fdopen(fd, "w"))) {
		close_keep(fd);
		unlink(tmp);
		return -1;
	}
	rc = fill(f, arg);
	if (rc || fflush(f) || fsync(fileno(f))) {
		int e = errno;
		fclose(f);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (fclose(f) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	sync_parent(path);
	return 0;
}

bool sysio_dir_shared(const struct stat *dir, uid_t uid)
{
	return (dir->st_mode & S_IWOTH) || ((dir->st_mode & S_IWGRP) && dir->st_gid != 0) ||
	       (dir->st_uid != 0 && dir->st_uid != uid);
}

int sysio_create(const char *path, mode_t mode, bool *made)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat sb;
	int fd;

	*made = false;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
			  path) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (stat(dir, &sb) != 0 || sysio_dir_shared(&sb, geteuid())) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		*made = fd >= 0;
		if (fd < 0 && errno == EEXIST && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode))
			errno = ELOOP;
		return fd;
	}
	/* Others cannot plant a name here: an existing file is the user's own. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd >= 0 || errno != EEXIST) {
		*made = fd >= 0;
		return fd;
	}
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int e = fstat(fd, &sb) != 0 ? errno : !S_ISREG(sb.st_mode) ? EINVAL : 0;
	if (!e && (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, 0) != 0))
		e = errno;
	if (!e)
		return fd;
	close(fd);
	errno = e;
	return -1;
}
