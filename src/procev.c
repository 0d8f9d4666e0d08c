#include "procev.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "fmt.h"

/* Room for the events between two reads: a read once a minute beside
 * make -j forks tens of thousands. */
#define RCVBUF (4 << 20)

struct procev {
	int fd;
};

/* PROC_CN_MCAST_LISTEN or _IGNORE to the connector; 0 or an errno. */
static int mcast(int fd, enum proc_cn_mcast_op op)
{
	enum { LEN = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op)) };
	unsigned char m[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(op))] = { 0 };
	struct nlmsghdr nl = { .nlmsg_len = LEN, .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(op) };

	memcpy(m, &nl, sizeof(nl));
	memcpy(m + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(m + NLMSG_HDRLEN + sizeof(cn), &op, sizeof(op));
	return send(fd, m, LEN, 0) == LEN ? 0 : errno;
}

struct procev *procev_open(char *err, size_t errlen)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct procev *p = malloc(sizeof(*p));
	int size = RCVBUF, e = ENOMEM;

	if (!p) {
		fmt_err(err, errlen, "proc connector: %s", strerror(e));
		return NULL;
	}
	p->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (p->fd < 0 || bind(p->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (e = mcast(p->fd, PROC_CN_MCAST_LISTEN))) {
		if (p->fd < 0 || !e)
			e = errno;
		fmt_err(err, errlen, "proc connector: %s", strerror(e));
		if (p->fd >= 0)
			close(p->fd);
		free(p);
		return NULL;
	}
	/* past the default's few thousand events; root may force it */
	setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	return p;
}

void procev_close(struct procev *p)
{
	if (!p)
		return;
	mcast(p->fd, PROC_CN_MCAST_IGNORE);
	close(p->fd);
	free(p);
}

void procev_drain(struct procev *p, void (*fork)(pid_t parent, pid_t child, void *arg), void *arg)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (!p)
		return;
	for (;;) {
		ssize_t n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);
		size_t left;

		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;	/* ENOBUFS: some were dropped; read on */
		if (n <= 0)
			return;
		left = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			/* as far as a fork's fields: the union grows by kernel */
			enum { FORK_END = offsetof(struct proc_event, event_data) +
					  sizeof(((struct proc_event *)0)->event_data.fork) };
			struct cn_msg cn;
			struct proc_event ev;

			/* the event follows the 20-byte cn_msg: copied out, as it
			 * is not aligned for its 64-bit fields */
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(cn) + FORK_END))
				continue;
			memcpy(&cn, NLMSG_DATA(h), sizeof(cn));
			memcpy(&ev, (const unsigned char *)NLMSG_DATA(h) + sizeof(cn), FORK_END);
			if (cn.id.idx != CN_IDX_PROC || ev.what != PROC_EVENT_FORK)
				continue;
			/* a thread shares its parent's tgid: no new process */
			if (ev.event_data.fork.child_pid == ev.event_data.fork.child_tgid)
				fork(ev.event_data.fork.parent_tgid, ev.event_data.fork.child_tgid, arg);
		}
	}
}
