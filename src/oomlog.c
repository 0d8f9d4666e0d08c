#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oomlog.h"

int oomlog_open(struct oomlog *l)
{
	memset(l, 0, sizeof(*l));
	l->fd = open(OOMLOG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (l->fd < 0)
		return -1;
	if (lseek(l->fd, 0, SEEK_END) < 0) {
		int e = errno;
		close(l->fd);
		l->fd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

void oomlog_close(struct oomlog *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

static void copy_comm(char *dst, const char *s, size_t n)
{
	if (n > 15)
		n = 15;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "KEY=value," of a summary, up to the next ',' (or end). */
static const char *kv(const char *msg, const char *key, size_t *len)
{
	const char *p = strstr(msg, key);

	if (!p)
		return NULL;
	p += strlen(key);
	*len = strcspn(p, ",\n");
	return p;
}

int oomlog_parse(const char *msg, struct oom_kill *k)
{
	const char *p, *open_p, *close_p;
	size_t n;
	char *end;
	long pid;

	memset(k, 0, sizeof(*k));
	if (!strncmp(msg, "oom-kill:", 9)) {
		/* the comm may hold a comma: pid is found from the end */
		const char *t = strstr(msg, ",task="), *pp = strstr(msg, ",pid=");

		if (!t || !pp)
			return 0;
		while (strstr(pp + 1, ",pid="))
			pp = strstr(pp + 1, ",pid=");
		if (pp < t)
			return 0;
		pid = strtol(pp + 5, &end, 10);
		if (end == pp + 5 || pid <= 0)
			return 0;
		k->pid = (int)pid;
		copy_comm(k->comm, t + 6, (size_t)(pp - t - 6));
		if ((p = kv(msg, ",task_memcg=", &n)) && n < sizeof(k->memcg)) {
			memcpy(k->memcg, p, n);
			k->memcg[n] = '\0';
		}
		return 2;
	}
	if (!(p = strstr(msg, ": Killed process ")))
		return 0;
	p += 17;
	pid = strtol(p, &end, 10);
	if (end == p || pid <= 0 || strncmp(end, " (", 2))
		return 0;
	open_p = end + 2;
	if (!(close_p = strstr(open_p, ") total-vm:")) && !(close_p = strrchr(open_p, ')')))
		return 0;
	k->pid = (int)pid;
	copy_comm(k->comm, open_p, (size_t)(close_p - open_p));
	return 1;
}

int oomlog_read(struct oomlog *l, struct oom_kill *k, int max)
{
	char rec[8192];
	int n = 0;

	while (l->fd >= 0) {
		ssize_t got = read(l->fd, rec, sizeof(rec) - 1);
		struct oom_kill x;
		char *msg;

		if (got < 0 && errno == EPIPE)
			continue;	/* records overwritten before read: go on from the oldest */
		if (got <= 0)
			break;
		rec[got] = '\0';
		if (!(msg = strchr(rec, ';')))
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		switch (oomlog_parse(msg + 1, &x)) {
		case 2:
			l->summary = x;
			break;
		case 1:
			if (l->summary.pid == x.pid)
				memcpy(x.memcg, l->summary.memcg, sizeof(x.memcg));
			l->summary.pid = 0;
			if (n < max)
				k[n++] = x;
			break;
		}
	}
	return n;
}

bool oomlog_in_cgroup(const struct oom_kill *k, const char *path)
{
	size_t lp = strlen(path), lm = strlen(k->memcg);

	return lm > 1 && lm <= lp && !strcmp(path + lp - lm, k->memcg);
}
