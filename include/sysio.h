/* The small system reads and writes other modules share: whole files,
 * /proc/meminfo fields, the XDG base directories, parent directories and
 * replacing a file whole. Every function returns -1 (or NULL; -2 where
 * said) with errno set on failure and prints nothing: callers word their
 * own errors. */
#ifndef THRASHTOP_SYSIO_H
#define THRASHTOP_SYSIO_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Reads path whole into buf, NUL-terminated; its length. A file that
 * does not fit is EFBIG, so a cut value is never taken for the real one. */
ssize_t sysio_read(const char *path, char *buf, size_t size);

/* Reads path whole into a malloc'ed, NUL-terminated buffer; *len gets its
 * length. A file over max bytes is EFBIG. */
char *sysio_read_alloc(const char *path, size_t max, size_t *len);

/* kib[i] gets /proc/meminfo's "keys[i]: N kB" (key without the colon), or
 * -1 where the kernel prints no such line. 0, or -1 when the file cannot
 * be read. */
int sysio_meminfo(const char *const keys[], int64_t kib[], int n);

/* $var/thrashtop/file when var names an absolute path (the XDG spec says a
 * relative one is ignored), else $HOME/home_dir/thrashtop/file. NULL with
 * ENOENT when neither is an absolute path, ENAMETOOLONG when len is short. */
char *sysio_xdg_path(const char *var, const char *home_dir, const char *file, char *buf,
		     size_t len);

/* The directories sysio_make_parents made, deepest last, so that a later
 * failure can remove them again (only the first SYSIO_MADE_MAX are kept),
 * and the one it could not make (empty when path itself is too long). */
#define SYSIO_MADE_MAX 8
struct sysio_made {
	int n;
	char dir[SYSIO_MADE_MAX][PATH_MAX];
	char failed[PATH_MAX];
};

/* mkdir -p of path's parent, each directory made with mode (less the
 * umask). made may be NULL. */
int sysio_make_parents(const char *path, mode_t mode, struct sysio_made *made);

/* Replaces path with what fill writes to f, never leaving a half file: the
 * text goes into a temporary created exclusively beside path, is synced to
 * disk and renamed over path, and the directory is synced. A file replaced
 * keeps its mode; a new one gets mode less the umask. fill returns 0, or
 * -1 with errno; on failure the temporary is removed and path is as it
 * was. -2 (fill not called) when no file can be made at path: a directory
 * there, or its directory missing, not writable or read-only. */
int sysio_replace(const char *path, mode_t mode, int (*fill)(FILE *f, const void *arg),
		  const void *arg);

/* Whether a user other than root and uid may write in a directory (its
 * lstat): it is writable by others, or by a group other than root's, or
 * it belongs to another user, who may make it writable. The sticky bit
 * does not count: it keeps others from removing files, not from planting
 * a name before it is made. */
bool sysio_dir_shared(const struct stat *dir, uid_t uid);

/* Opens a file the user named for writing, never through a link: a
 * symbolic link at path is ELOOP. In a directory others can write (or
 * one that cannot be looked at) the file is created exclusively, so a
 * name already there is EEXIST; elsewhere a regular file there is
 * truncated and anything else is EINVAL. *made says whether the file is
 * new, for a caller that removes it again on failure. A descriptor
 * (close-on-exec), or -1 with errno. */
int sysio_create(const char *path, mode_t mode, bool *made);

#endif
