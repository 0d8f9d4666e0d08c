/* Where the history file lives: its default path, whether a path can hold
 * it, the directories made for it. */
#include "histfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fmt.h"

char *history_default_path(char *buf, size_t len, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	int n;

	/* The XDG spec says a relative XDG_DATA_HOME is to be ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/thrashtop/history.db", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/share/thrashtop/history.db", home);
	else {
		fmt_err(err, errlen, "history: neither XDG_DATA_HOME nor HOME is an absolute path; use --history PATH");
		return NULL;
	}
	if (n < 0 || (size_t)n >= len) {
		fmt_err(err, errlen, "history: default path too long");
		return NULL;
	}
	return buf;
}

int history_make_parents(const char *path, char made[][4096], int *nmade, int max,
			char *err, size_t errlen)
{
	char dir[4096];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		fmt_err(err, errlen, "%s: path too long", path);
		return -1;
	}
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	for (char *p = dir + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(dir, 0700) == 0) {
			if (*nmade < max)
				snprintf(made[(*nmade)++], 4096, "%s", dir);
		} else if (errno != EEXIST) {
			fmt_err(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	return 0;
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
		return 0;
	}
	if (errno != ENOENT)
		return fmt_err(err, errlen, "--history %s: %s", path, strerror(errno));
	/* Not there yet: its nearest existing directory must take files. */
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return fmt_err(err, errlen, "--history: path too long");
	for (;;) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			dir[1] = 0;
		else
			*slash = 0;
		if (stat(dir, &sb) == 0)
			break;
		if (errno != ENOENT || !slash)
			return fmt_err(err, errlen, "--history %s: %s: %s", path, dir, strerror(errno));
	}
	if (!S_ISDIR(sb.st_mode))
		return fmt_err(err, errlen, "--history %s: %s is not a directory", path, dir);
	if (statfs(dir, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC))
		return fmt_err(err, errlen, "--history %s: %s takes no files", path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return fmt_err(err, errlen, "--history %s: cannot create it in %s: %s", path, dir,
			       strerror(errno));
	return 0;
}
