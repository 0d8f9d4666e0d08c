#include "cmdlog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "undo.h"

static const char *log_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/* Whether name is a log whose monitor is gone. */
static int stale(const char *name)
{
	unsigned long long start, now;
	char tail[16];
	int pid, end = 0;

	if (sscanf(name, "thrashtop-%d-%llu-%15[a-zA-Z0-9].log%n", &pid, &start, tail, &end) != 3 ||
	    name[end] || strlen(tail) != 6 || pid <= 0)
		return 0;
	return undo_proc_start(pid, &now, NULL) < 0 || now != start;
}

int cmdlog_sweep(void)
{
	DIR *d = opendir(log_dir());
	struct dirent *e;
	struct stat sb;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (stale(e->d_name) && fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
		    unlinkat(dirfd(d), e->d_name, 0) == 0)
			n++;
	closedir(d);
	return n;
}

int cmdlog_open(struct cmdlog *l, char *err, size_t errlen)
{
	unsigned long long start;

	l->fd = -1;
	if (undo_proc_start(getpid(), &start, NULL) < 0) {
		snprintf(err, errlen, "cannot read this process's start time: %s", strerror(errno));
		return -1;
	}
	snprintf(l->path, sizeof(l->path), "%s/thrashtop-%d-%llu-XXXXXX.log", log_dir(),
		 (int)getpid(), start);
	/* a shared directory: a name no one can plant a link at */
	l->fd = mkostemps(l->path, 4, O_CLOEXEC);
	if (l->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", l->path, strerror(errno));
		return -1;
	}
	return 0;
}

void cmdlog_close(struct cmdlog *l, int lines, FILE *out)
{
	char buf[4096];
	off_t end = lseek(l->fd, 0, SEEK_END);
	off_t from = end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = end > 0 ? pread(l->fd, buf, sizeof(buf) - 1, from) : 0;

	if (n > 0) {
		const char *at = buf, *nl;
		int k = 0;

		buf[n] = '\0';
		for (ssize_t i = n - 2; i >= 0; i--)
			if (buf[i] == '\n' && ++k == lines) {
				at = buf + i + 1;
				break;
			}
		if (at == buf && from && (nl = strchr(buf, '\n')) && nl[1])
			at = nl + 1;		/* not half a line */
		fprintf(out, "thrashtop: the command's last output:\n%s%s", at,
			buf[n - 1] == '\n' ? "" : "\n");
	}
	close(l->fd);
	l->fd = -1;
	unlink(l->path);
}
