#include "cmdlog.h"

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

static int rm_file(int dirfd, const char *name)
{
	return unlinkat(dirfd, name, 0);
}

int cmdlog_sweep(void)
{
	return undo_sweep_dead(log_dir(), "thrashtop-", ".log", S_IFREG, rm_file);
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
