#include "sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "undo.h"
#include "fmt.h"

#define PROC_VM "/proc/sys/vm/"

int sysctl_path(const char *name, char *path, size_t pathlen, char *err, size_t errlen)
{
	const char *p;
	struct stat sb;

	if (!name || !*name) {
		fmt_err(err, errlen, "empty sysctl name (want vm.NAME, e.g. vm.swappiness)");
		return -1;
	}
	if (strncmp(name, "vm.", 3) != 0) {
		fmt_err(err, errlen, "sysctl %s is not a vm.* sysctl (only vm.NAME is allowed)",
		       name);
		return -1;
	}
	if (strchr(name, '/') || strstr(name, "..")) {
		fmt_err(err, errlen, "sysctl name %s must not hold '/' or '..'", name);
		return -1;
	}
	if (!name[3]) {
		fmt_err(err, errlen, "sysctl name vm. lacks a NAME (e.g. vm.swappiness)");
		return -1;
	}
	for (p = name + 3; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '-';

		if (!ok) {
			fmt_err(err, errlen,
			       "sysctl name %s holds '%c' (letters, digits, '_' and '-' only)",
			       name, *p);
			return -1;
		}
	}
	if ((size_t)snprintf(path, pathlen, PROC_VM "%s", name + 3) >= pathlen) {
		fmt_err(err, errlen, "sysctl name %s is too long", name);
		return -1;
	}
	if (stat(path, &sb) < 0) {
		if (errno == ENOENT)
			fmt_err(err, errlen, "unknown sysctl %s (no %s on this kernel)", name, path);
		else
			fmt_err(err, errlen, "cannot check sysctl %s: %s: %s", name, path,
			       strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		fmt_err(err, errlen, "sysctl %s: %s is not a file", name, path);
		return -1;
	}
	return 0;
}

int sysctl_value_check(const char *val, char *err, size_t errlen)
{
	for (const char *p = val; *p; p++) {
		bool start = p == val || p[-1] == ' ' || p[-1] == '\t';
		const char *d = *p == '+' || *p == '-' ? p + 1 : p;

		if (start && d[0] == '0' && d[1] >= '0' && d[1] <= '9')
			return fmt_err(err, errlen, "'%s': the kernel reads a number with a leading 0 "
				       "as octal: write %ld", val, strtol(p, NULL, 10));
	}
	return 0;
}

int sysctl_same(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t' || *a == '\n')
			a++;
		while (*b == ' ' || *b == '\t' || *b == '\n')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		for (; *a && *a != ' ' && *a != '\t' && *a != '\n'; a++, b++)
			if (*a != *b)
				return 0;
		if (*b && *b != ' ' && *b != '\t' && *b != '\n')
			return 0;
	}
}

int sysctl_get(const char *name, char *val, size_t vallen, char *err, size_t errlen)
{
	char path[128], buf[SYSCTL_VALUE_MAX + 1];
	ssize_t n;
	int fd;

	if (sysctl_path(name, path, sizeof path, err, errlen) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fmt_err(err, errlen, "cannot read %s: %s: %s%s", name, path, strerror(errno),
		       errno == EACCES ? " (it is write-only)" : "");
		return -1;
	}
	n = read(fd, buf, sizeof buf);
	if (n < 0) {
		fmt_err(err, errlen, "cannot read %s: %s: %s", name, path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if ((size_t)n == sizeof buf) {
		fmt_err(err, errlen, "value of %s is longer than %d bytes", name,
		       SYSCTL_VALUE_MAX);
		return -1;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if ((size_t)n >= vallen) {
		fmt_err(err, errlen, "value of %s (%zd bytes) does not fit the buffer", name, n);
		return -1;
	}
	memcpy(val, buf, (size_t)n + 1);
	return 0;
}

int sysctl_write(const char *name, const char *val, char *err, size_t errlen)
{
	char path[128];
	size_t len;
	ssize_t n;
	int fd;

	if (sysctl_path(name, path, sizeof path, err, errlen) < 0)
		return -1;
	len = strlen(val);
	if (!len || strchr(val, '\n')) {
		fmt_err(err, errlen, "bad value \"%s\" for %s (want one line, not empty)", val,
		       name);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fmt_err(err, errlen, "cannot set %s%s: %s: %s", name,
		       errno == EACCES || errno == EPERM ? " (needs root)" : "", path,
		       strerror(errno));
		return -1;
	}
	/* /proc/sys takes the value in one write from offset 0 */
	n = write(fd, val, len);
	if (n < 0 || (size_t)n != len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		fmt_err(err, errlen, "cannot set %s to %s: %s%s", name, val, strerror(e),
		       e == EINVAL ? " (the kernel refuses this value)" : "");
		return -1;
	}
	if (close(fd) < 0) {
		fmt_err(err, errlen, "cannot set %s to %s: %s", name, val, strerror(errno));
		return -1;
	}
	return 0;
}

int sysctl_set(const char *name, const char *val, char *err, size_t errlen)
{
	char old[SYSCTL_VALUE_MAX], path[128], rec[SYSCTL_VALUE_MAX];
	int had;

	if (sysctl_path(name, path, sizeof path, err, errlen) < 0)
		return -1;
	if (!*val || strchr(val, '\n')) {
		fmt_err(err, errlen, "bad value \"%s\" for %s (want one line, not empty)", val,
		       name);
		return -1;
	}
	if (access(path, W_OK) < 0) {
		fmt_err(err, errlen, "cannot set %s%s: %s: %s", name,
		       errno == EACCES ? " (needs root)" : "", path, strerror(errno));
		return -1;
	}
	if (sysctl_get(name, old, sizeof old, err, errlen) < 0)
		return -1;
	if (!old[0]) {	/* vm.stat_refresh: a trigger, not a setting */
		fmt_err(err, errlen, "cannot set %s: it reads back empty (an action, not a "
			"setting), so there is nothing to put back afterwards", name);
		return -1;
	}
	had = undo_lookup(UNDO_SYSCTL, name, rec, sizeof rec, err, errlen);
	if (had < 0)
		return -1;
	if (had == 1 && undo_add(UNDO_SYSCTL, name, old, err, errlen) < 0)
		return -1;
	if (sysctl_write(name, val, err, errlen) < 0) {
		if (had == 1)
			undo_forget(UNDO_SYSCTL, name, NULL, 0);
		return -1;
	}
	return 0;
}

int sysctl_set_arg(const char *arg, char *err, size_t errlen)
{
	char name[128];
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		fmt_err(err, errlen, "--sysctl %s: want vm.NAME=VALUE", arg);
		return -1;
	}
	if ((size_t)(eq - arg) >= sizeof name) {
		fmt_err(err, errlen, "--sysctl %s: name too long", arg);
		return -1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	return sysctl_set(name, eq + 1, err, errlen);
}

int sysctl_restore(const char *name, char *err, size_t errlen)
{
	char old[SYSCTL_VALUE_MAX];
	int had = undo_lookup(UNDO_SYSCTL, name, old, sizeof old, err, errlen);

	if (had != 0)
		return had < 0 ? -1 : 0;
	if (sysctl_write(name, old, err, errlen) < 0)
		return -1;
	return undo_forget(UNDO_SYSCTL, name, err, errlen);
}
