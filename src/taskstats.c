#include "taskstats.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "fmt.h"
#include "undo.h"

#define DELAYACCT_PATH "/proc/sys/kernel/task_delayacct"

static const char *const names[DL_N] = {
	"swapin", "reclaim", "thrashing", "compact", "io", "cpu", "wpcopy", "irq"
};

/* Byte offsets of each *_delay_total. Versions 1 to 14 only appended, and
 * 16 appended again (its max/min fields after irq_delay_total), so they
 * share one layout; 15 put a max and a min after every total. Checked
 * against the uapi header where it has the field. */
static const size_t off_common[DL_N] = { 56, 320, 336, 360, 40, 24, 408, 424 };
static const size_t off_v15[DL_N] = { 88, 368, 400, 440, 56, 24, 504, 536 };

_Static_assert(offsetof(struct taskstats, swapin_delay_total) == 56, "swapin");
_Static_assert(offsetof(struct taskstats, blkio_delay_total) == 40, "blkio");
_Static_assert(offsetof(struct taskstats, cpu_delay_total) == 24, "cpu");
_Static_assert(offsetof(struct taskstats, freepages_delay_total) == 320, "freepages");
_Static_assert(offsetof(struct taskstats, thrashing_delay_total) == 336, "thrashing");
_Static_assert(offsetof(struct taskstats, compact_delay_total) == 360, "compact");

const char *delay_name(enum delay_kind k)
{
	return (unsigned)k < DL_N ? names[k] : "?";
}

void delays_clear(struct delays *d)
{
	for (int i = 0; i < DL_N; i++)
		d->s[i] = NAN;
}

void delays_add(struct delays *sum, const struct delays *d)
{
	/* the kernel counts whole nanoseconds: kept to them, a sum prints as
	 * 21.314186367, not 21.314186366999998 */
	for (int i = 0; i < DL_N; i++)
		if (!isnan(d->s[i]))
			sum->s[i] = isnan(sum->s[i]) ? d->s[i] : round((sum->s[i] + d->s[i]) * 1e9) / 1e9;
}

bool delays_known(const struct delays *d)
{
	for (int i = 0; i < DL_N; i++)
		if (!isnan(d->s[i]))
			return true;
	return false;
}

double delays_total(const struct delays *d)
{
	double t = 0;

	for (int i = 0; i < DL_N; i++)
		if (!isnan(d->s[i]))
			t += d->s[i];
	return t;
}

int taskstats_parse(const void *p, size_t len, struct delays *d)
{
	const unsigned char *b = p;
	const size_t *off;
	uint16_t version;

	delays_clear(d);
	if (len < sizeof version)
		return -1;
	memcpy(&version, b, sizeof version);
	off = version == 15 ? off_v15 : off_common;
	for (int i = 0; i < DL_N; i++) {
		uint64_t ns;

		if (off[i] + sizeof ns > len)
			continue;
		memcpy(&ns, b + off[i], sizeof ns);
		d->s[i] = (double)ns / 1e9;
	}
	return version;
}

/* Offsets of ac_pid, ac_ppid, ac_etime, ac_btime64 and ac_tgid (version
 * 12 on); 15 has 48, 48, 80 and 96 bytes of max/min fields before them. */
#define OFF_PID 128
#define OFF_PPID 132
#define OFF_ETIME 144
#define OFF_BTIME64 344
#define OFF_TGID 368
#define V15_SHIFT_PID 48
#define V15_SHIFT_BTIME64 80
#define V15_SHIFT_TGID 96
_Static_assert(offsetof(struct taskstats, ac_pid) == OFF_PID, "ac_pid");
_Static_assert(offsetof(struct taskstats, ac_ppid) == OFF_PPID, "ac_ppid");
_Static_assert(offsetof(struct taskstats, ac_etime) == OFF_ETIME, "ac_etime");
_Static_assert(offsetof(struct taskstats, ac_btime64) == OFF_BTIME64, "ac_btime64");
_Static_assert(offsetof(struct taskstats, ac_tgid) == OFF_TGID, "ac_tgid");

/* Requests go out ASK_CHUNK at a time in one send; the kernel answers each
 * within the send, so the replies (one a request: the statistics, or an
 * error) already wait on the socket and come back in one recvmmsg. A
 * chunk's replies take about 1.5 KB each of the receive buffer. */
#define ASK_CHUNK 32
#define ASK_REPLY 4096
#define ASK_RCVBUF (256 << 10)

struct taskstats_conn {
	struct nl_sock *sk;
	int family;
	uint32_t seq;
	unsigned char req[ASK_CHUNK][NLMSG_ALIGN(NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + 4)];
	unsigned char (*rep)[ASK_REPLY];	/* ASK_CHUNK of them */
	int acct_fd;				/* DELAYACCT_PATH, -1 until read */
};

/* One request's answer. */
struct answer {
	int err;		/* 0, or the errno the kernel answered */
	int version;
	double life;		/* ac_etime, s; NAN when the reply is short */
};

/* The seconds a task had lived, from a struct taskstats of len bytes
 * (ac_etime, microseconds); NAN when len does not cover it. */
static double life_of(const unsigned char *b, size_t len, int version)
{
	size_t at = OFF_ETIME + (version == 15 ? V15_SHIFT_PID : 0);
	uint64_t us;

	if (at + sizeof(us) > len)
		return NAN;
	memcpy(&us, b + at, sizeof(us));
	return (double)us / 1e6;
}

/* A reply to a TASKSTATS_CMD_GET into d and a; a->err EIO when it holds
 * no statistics. */
static void take_reply(struct nlmsghdr *h, struct delays *d, struct answer *a)
{
	struct nlattr *top[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1];
	struct nlattr *aggr, *st;

	a->err = EIO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = nlmsg_data(h);

		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error < 0)
			a->err = -e->error;
		return;
	}
	if (genlmsg_parse(h, 0, top, TASKSTATS_TYPE_MAX, NULL) < 0)
		return;
	aggr = top[TASKSTATS_TYPE_AGGR_TGID] ? top[TASKSTATS_TYPE_AGGR_TGID]
					     : top[TASKSTATS_TYPE_AGGR_PID];
	if (!aggr || nla_parse_nested(in, TASKSTATS_TYPE_MAX, aggr, NULL) < 0 ||
	    !(st = in[TASKSTATS_TYPE_STATS]))
		return;
	a->version = taskstats_parse(nla_data(st), (size_t)nla_len(st), d);
	a->life = life_of(nla_data(st), (size_t)nla_len(st), a->version);
	if (a->version >= 0)
		a->err = 0;
}

struct taskstats_conn *taskstats_open(char *err, size_t errlen)
{
	struct taskstats_conn *c = calloc(1, sizeof *c);
	int rc;

	if (!c || !(c->rep = malloc(ASK_CHUNK * sizeof(*c->rep)))) {
		fmt_err(err, errlen, "taskstats: %s", strerror(ENOMEM));
		free(c);
		return NULL;
	}
	c->acct_fd = -1;
	c->sk = nl_socket_alloc();
	if (!c->sk) {
		fmt_err(err, errlen, "taskstats: %s", strerror(ENOMEM));
		goto fail_alloc;
	}
	if ((rc = genl_connect(c->sk)) < 0 ||
	    (rc = nl_socket_set_buffer_size(c->sk, ASK_RCVBUF, 0)) < 0) {
		fmt_err(err, errlen, "taskstats: cannot open generic netlink: %s", nl_geterror(rc));
		goto fail;
	}
	if ((c->family = genl_ctrl_resolve(c->sk, TASKSTATS_GENL_NAME)) < 0) {
		fmt_err(err, errlen, "no taskstats in this kernel (no generic netlink family %s)",
			TASKSTATS_GENL_NAME);
		goto fail;
	}
	return c;
fail:
	nl_socket_free(c->sk);
fail_alloc:
	free(c->rep);
	free(c);
	return NULL;
}

/* One chunk: n <= ASK_CHUNK requests of attr for ids, sent at once. 0, or
 * -1 with err when the socket fails (a[] then says nothing). */
static int ask_chunk(struct taskstats_conn *c, int attr, const pid_t *ids, int n,
		     struct delays *d, struct answer *a, char *err, size_t errlen)
{
	struct mmsghdr mm[ASK_CHUNK];
	struct iovec iov[ASK_CHUNK];
	size_t each = sizeof(c->req[0]);
	uint32_t seq0 = c->seq;
	int got = 0;

	for (int i = 0; i < n; i++) {
		struct nlmsghdr *h = (struct nlmsghdr *)c->req[i];
		struct genlmsghdr *g = (struct genlmsghdr *)((unsigned char *)h + NLMSG_HDRLEN);
		struct nlattr *na = (struct nlattr *)((unsigned char *)g + GENL_HDRLEN);
		uint32_t v = (uint32_t)ids[i];

		*h = (struct nlmsghdr){ .nlmsg_len = (uint32_t)each, .nlmsg_type = (uint16_t)c->family,
					.nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = seq0 + (uint32_t)i };
		*g = (struct genlmsghdr){ .cmd = TASKSTATS_CMD_GET, .version = TASKSTATS_GENL_VERSION };
		*na = (struct nlattr){ .nla_len = NLA_HDRLEN + sizeof(v), .nla_type = (uint16_t)attr };
		memcpy((unsigned char *)na + NLA_HDRLEN, &v, sizeof(v));
		delays_clear(&d[i]);
		a[i] = (struct answer){ .err = EIO, .version = -1, .life = NAN };
	}
	c->seq += (uint32_t)n;
	if (nl_sendto(c->sk, c->req, each * (size_t)n) < 0) {
		errno = EIO;
		return fmt_err(err, errlen, "taskstats: cannot send the requests");
	}
	while (got < n) {
		int k;

		for (int i = 0; i < n - got; i++) {
			iov[i] = (struct iovec){ c->rep[i], ASK_REPLY };
			mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		k = recvmmsg(nl_socket_get_fd(c->sk), mm, (unsigned)(n - got), MSG_DONTWAIT, NULL);
		if (k < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;	/* ENOBUFS: the replies the kernel dropped stay EIO */
		if (k < 0 && errno == EAGAIN)
			break;	/* a reply the kernel could not queue: that request's EIO */
		if (k < 0)
			return fmt_err(err, errlen, "taskstats: %s", strerror(errno));
		/* one reply a datagram; one of an earlier call that gave up
		 * early is read and not counted */
		for (int j = 0; j < k; j++) {
			struct nlmsghdr *h = (struct nlmsghdr *)c->rep[j];
			size_t left = mm[j].msg_len;

			if (left < sizeof(*h) || h->nlmsg_seq - seq0 >= (uint32_t)n)
				continue;
			got++;
			if (mm[j].msg_hdr.msg_flags & MSG_TRUNC)
				continue;	/* that request stays EIO */
			for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
				uint32_t i = h->nlmsg_seq - seq0;

				if (i < (uint32_t)n)
					take_reply(h, &d[i], &a[i]);
			}
		}
	}
	return 0;
}

/* One request: 0, or -1 with errno and err. */
static int ask_one(struct taskstats_conn *c, int attr, pid_t id, struct delays *d,
		   struct answer *a, char *err, size_t errlen)
{
	if (ask_chunk(c, attr, &id, 1, d, a, err, errlen) < 0)
		return -1;
	if (a->err) {
		errno = a->err;
		return fmt_err(err, errlen, "taskstats of %d: %s", (int)id,
			       a->err == EIO ? "no statistics in the reply" : strerror(a->err));
	}
	return 0;
}

int taskstats_query_many(struct taskstats_conn *c, const pid_t *tgid, int n, struct delays *d,
			 int *errs, char *err, size_t errlen)
{
	struct answer a[ASK_CHUNK];

	for (int i = 0; i < n; i += ASK_CHUNK) {
		int k = n - i < ASK_CHUNK ? n - i : ASK_CHUNK;

		if (ask_chunk(c, TASKSTATS_CMD_ATTR_TGID, tgid + i, k, d + i, a, err, errlen) < 0)
			return -1;
		for (int j = 0; j < k; j++)
			errs[i + j] = a[j].err;
	}
	return 0;
}

int taskstats_query_exited(struct taskstats_conn *c, pid_t tgid, struct delays *d,
			   bool past[DL_N], char *err, size_t errlen)
{
	struct delays own;
	struct answer a;

	/* A TGID query skips exited threads and gives what they left in the
	 * group's sum, which the kernel keeps only for a group that ever had
	 * two threads: 0 for a single-threaded zombie, whose own task (a PID
	 * query) still holds its totals. Otherwise the sum holds the leader's
	 * and is the larger, field by field. */
	if (ask_one(c, TASKSTATS_CMD_ATTR_TGID, tgid, d, &a, err, errlen) < 0 ||
	    ask_one(c, TASKSTATS_CMD_ATTR_PID, tgid, &own, &a, err, errlen) < 0)
		return -1;
	for (int i = 0; i < DL_N; i++)
		if (!isnan(own.s[i]) && (isnan(d->s[i]) || own.s[i] > d->s[i]))
			d->s[i] = own.s[i];
	for (int i = 0; i < DL_N; i++) {
		bool over = own.s[i] > a.life + TASKSTATS_LIFE_SLACK;

		if (over)
			d->s[i] = NAN;
		if (past)
			past[i] = over;
	}
	return 0;
}

void taskstats_close(struct taskstats_conn *c)
{
	if (!c)
		return;
	nl_socket_free(c->sk);
	if (c->acct_fd >= 0)
		close(c->acct_fd);
	free(c->rep);
	free(c);
}

static uint32_t get32(const unsigned char *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof v);
	return v;
}

int taskstats_exit_parse(const void *msg, size_t len, struct taskstats_exit *e)
{
	const struct nlmsghdr *nlh = msg;
	struct nlattr *top[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1];
	const unsigned char *b;
	size_t n, pid_at, tgid_at;
	uint64_t btime;
	int version;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		goto bad;
	if (nlh->nlmsg_type < NLMSG_MIN_TYPE)	/* an error, an ack, a no-op */
		return 0;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		goto bad;
	if (((const struct genlmsghdr *)nlmsg_data(nlh))->cmd != TASKSTATS_CMD_NEW)
		return 0;
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, top, TASKSTATS_TYPE_MAX, NULL) < 0)
		goto bad;
	if (!top[TASKSTATS_TYPE_AGGR_PID])
		return 0;
	if (nla_parse_nested(in, TASKSTATS_TYPE_MAX, top[TASKSTATS_TYPE_AGGR_PID], NULL) < 0 ||
	    !in[TASKSTATS_TYPE_PID] || !in[TASKSTATS_TYPE_STATS] ||
	    nla_len(in[TASKSTATS_TYPE_PID]) < (int)sizeof(uint32_t))
		goto bad;
	b = nla_data(in[TASKSTATS_TYPE_STATS]);
	n = (size_t)nla_len(in[TASKSTATS_TYPE_STATS]);
	version = taskstats_parse(b, n, &e->d);
	pid_at = OFF_PID + (version == 15 ? V15_SHIFT_PID : 0);
	tgid_at = OFF_TGID + (version == 15 ? V15_SHIFT_TGID : 0);
	if (version < 12 || tgid_at + sizeof(uint32_t) > n)
		goto bad;
	e->pid = (pid_t)nla_get_u32(in[TASKSTATS_TYPE_PID]);
	e->ppid = (pid_t)get32(b, pid_at + (OFF_PPID - OFF_PID));
	e->tgid = (pid_t)get32(b, tgid_at);
	memcpy(&btime, b + OFF_BTIME64 + (version == 15 ? V15_SHIFT_BTIME64 : 0), sizeof(btime));
	e->start = (long long)btime;
	e->life = life_of(b, n, version);
	return 1;
bad:
	errno = EINVAL;
	return -1;
}

struct taskstats_listener {
	struct nl_sock *sk;
	int family;
	char cpus[256];		/* the possible CPUs, "0-63" */
	union {
		struct nlmsghdr h;
		unsigned char b[16384];
	} buf;
};

/* Sends TASKSTATS_CMD_GET with the cpu list as attr and waits for the
 * kernel's ack. 0, or a libnl error. */
static int cpumask_cmd(struct taskstats_listener *l, int attr)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return -NLE_NOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, l->family, 0, NLM_F_REQUEST,
			 TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION) ||
	    nla_put_string(msg, attr, l->cpus) < 0) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	return nl_send_sync(l->sk, msg);
}

struct taskstats_listener *taskstats_listen(struct taskstats_conn *c, char *err,
					    size_t errlen)
{
	struct taskstats_listener *l;
	struct delays d;
	struct answer a;
	int rc, fd, size = TASKSTATS_LISTEN_BUF;
	ssize_t n;

	if (ask_one(c, TASKSTATS_CMD_ATTR_TGID, getpid(), &d, &a, err, errlen) < 0)
		return NULL;
	if (a.version < 12) {
		fmt_err(err, errlen, "the kernel's taskstats are version %d: its exit records "
			"name no process before 12", a.version);
		return NULL;
	}
	if (!(l = calloc(1, sizeof(*l))) || !(l->sk = nl_socket_alloc())) {
		fmt_err(err, errlen, "taskstats: %s", strerror(ENOMEM));
		free(l);
		return NULL;
	}
	fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, l->cpus, sizeof(l->cpus) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		fmt_err(err, errlen, "/sys/devices/system/cpu/possible: cannot read it");
		goto fail;
	}
	l->cpus[strcspn(l->cpus, "\n")] = '\0';
	/* a record may come before a command's ack */
	nl_socket_disable_seq_check(l->sk);
	if ((rc = genl_connect(l->sk)) < 0 ||
	    (l->family = rc = genl_ctrl_resolve(l->sk, TASKSTATS_GENL_NAME)) < 0) {
		fmt_err(err, errlen, "taskstats exit records: %s", nl_geterror(rc));
		goto fail;
	}
	/* before the first record can come: a buffer past net.core.rmem_max */
	fd = nl_socket_get_fd(l->sk);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0) {
		fmt_err(err, errlen, "taskstats exit records: SO_RCVBUFFORCE: %s", strerror(errno));
		goto fail;
	}
	if ((rc = cpumask_cmd(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK)) < 0) {
		fmt_err(err, errlen, "taskstats exit records of CPUs %s: %s", l->cpus,
			nl_geterror(rc));
		goto fail;
	}
	return l;
fail:
	nl_socket_free(l->sk);
	free(l);
	return NULL;
}

int taskstats_listen_read(struct taskstats_listener *l, struct taskstats_exit *out, int max,
			  bool *lost)
{
	int fd = nl_socket_get_fd(l->sk), k = 0;

	while (k < max) {
		ssize_t n = recv(fd, l->buf.b, sizeof(l->buf.b), MSG_DONTWAIT);
		size_t left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			*lost = true;
			continue;
		}
		if (n < 0)
			break;
		left = (size_t)n;
		/* the kernel sends one record a datagram */
		for (const struct nlmsghdr *h = &l->buf.h; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			int rc = k < max ? taskstats_exit_parse(h, h->nlmsg_len, &out[k]) : -1;

			if (rc < 0)
				*lost = true;
			k += rc > 0;
		}
	}
	return k;
}

void taskstats_listen_close(struct taskstats_listener *l)
{
	if (!l)
		return;
	cpumask_cmd(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK);
	nl_socket_free(l->sk);
	free(l);
}

struct tree_rec {
	struct taskstats_exit e;
	bool carried;		/* kept from the round before */
};

struct taskstats_tree {
	struct taskstats_proc root;
	pid_t reaper, other;
	struct tree_rec *q;	/* the round's records, the carried first */
	size_t nq, capq;
	struct taskstats_proc *prev;	/* processes settled the round before */
	size_t nprev;
	struct taskstats_proc *set;	/* the round's: a hash on pid, 0 free */
	size_t capset;
	struct delays sum;
	bool short_of_memory;
	bool past_life[DL_N];	/* a record held more of it than its life */
};

struct taskstats_tree *taskstats_tree_new(void)
{
	struct taskstats_tree *t = calloc(1, sizeof(*t));

	if (t)
		taskstats_tree_begin(t, (struct taskstats_proc){ 0, 0 }, 0, 0);
	return t;
}

void taskstats_tree_free(struct taskstats_tree *t)
{
	if (!t)
		return;
	free(t->q);
	free(t->prev);
	free(t->set);
	free(t);
}

void taskstats_tree_begin(struct taskstats_tree *t, struct taskstats_proc root, pid_t reaper,
			  pid_t other)
{
	t->root = root;
	t->reaper = reaper;
	t->other = other;
	t->nq = t->nprev = 0;
	delays_clear(&t->sum);
	t->short_of_memory = false;
	memset(t->past_life, 0, sizeof(t->past_life));
}

/* Grows *v (of *cap elements of size each) to hold n. 0, or -1. */
static int grow(void *v, size_t *cap, size_t n, size_t each)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	if (!(p = realloc(*(void **)v, c * each)))
		return -1;
	*(void **)v = p;
	*cap = c;
	return 0;
}

int taskstats_tree_feed(struct taskstats_tree *t, const struct taskstats_exit *e, int n)
{
	if (n <= 0)
		return 0;
	if (grow(&t->q, &t->capq, t->nq + (size_t)n, sizeof(*t->q)) < 0) {
		t->short_of_memory = true;
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < n; i++)
		t->q[t->nq++] = (struct tree_rec){ e[i], false };
	return 0;
}

/* Open addressing on pid, linear probing, in capset (a power of 2): the
 * slot of pid, or of the free one where it would go. */
static struct taskstats_proc *slot(const struct taskstats_tree *t, pid_t pid)
{
	size_t i = (size_t)pid * 2654435761u & (t->capset - 1);

	while (t->set[i].pid && t->set[i].pid != pid)
		i = (i + 1) & (t->capset - 1);
	return &t->set[i];
}

/* Adds p (a pid already there keeps its start); whether it was new. */
static bool set_add(struct taskstats_tree *t, struct taskstats_proc p)
{
	struct taskstats_proc *s;

	if (p.pid <= 0 || (s = slot(t, p.pid))->pid)
		return false;
	*s = p;
	return true;
}

/* Whether e's process is the tree's: its parent is and began no later
 * than e's thread, or it is the reaper's. */
static bool settles(const struct taskstats_tree *t, const struct taskstats_exit *e)
{
	const struct taskstats_proc *p;

	if (e->ppid == t->reaper)
		return true;
	p = e->ppid > 0 ? slot(t, e->ppid) : NULL;
	return p && p->pid && p->start <= e->start + TASKSTATS_START_SLACK;
}

bool taskstats_tree_idle(const struct taskstats_tree *t)
{
	return t->nq == 0;
}

int taskstats_tree_round(struct taskstats_tree *t, const struct taskstats_proc *live, int nlive,
			 bool last)
{
	size_t need = 2 * (1 + (size_t)(nlive > 0 ? nlive : 0) + t->nprev + t->nq), cap = 64,
	       nnext = 0, kept = 0;
	struct taskstats_proc *next;
	bool changed;

	while (cap < need)
		cap *= 2;
	if (cap > t->capset) {
		free(t->set);
		t->capset = 0;
		if (!(t->set = malloc(cap * sizeof(*t->set))))
			goto nomem;
		t->capset = cap;
	}
	/* every process settled now is the next round's prev: at most nq */
	if (!(next = malloc((t->nq + 1) * sizeof(*next))))
		goto nomem;
	memset(t->set, 0, t->capset * sizeof(*t->set));
	set_add(t, t->root);
	for (int i = 0; i < nlive; i++)
		if (live[i].pid != t->other)
			set_add(t, live[i]);
	for (size_t i = 0; i < t->nprev; i++)
		set_add(t, t->prev[i]);
	/* a parent's record may come after its children's: again until
	 * nothing more is settled */
	do {
		changed = false;
		for (size_t i = 0; i < t->nq; i++) {
			struct taskstats_exit *e = &t->q[i].e;
			struct taskstats_proc p = { e->tgid, e->start };

			if (e->tgid <= 0)
				continue;
			if (e->tgid == t->root.pid || e->tgid == t->other) {
				e->tgid = 0;
				continue;
			}
			if (!settles(t, e))
				continue;
			for (int k = 0; k < DL_N; k++)
				t->past_life[k] = t->past_life[k] ||
						  e->d.s[k] > e->life + TASKSTATS_LIFE_SLACK;
			delays_add(&t->sum, &e->d);
			/* only a leader's start is its process's */
			if (e->pid == e->tgid && set_add(t, p)) {
				next[nnext++] = p;
				changed = true;
			}
			e->tgid = 0;
		}
	} while (changed);
	for (size_t i = 0; i < t->nq; i++)
		if (t->q[i].e.tgid > 0 && !t->q[i].carried && !last)
			t->q[kept++] = (struct tree_rec){ t->q[i].e, true };
	t->nq = kept;
	free(t->prev);
	t->prev = next;
	t->nprev = nnext;
	return 0;
nomem:
	t->short_of_memory = true;
	errno = ENOMEM;
	return -1;
}

bool taskstats_tree_sum(const struct taskstats_tree *t, struct delays *sum, bool past_life[DL_N])
{
	*sum = t->sum;
	for (int k = 0; k < DL_N; k++)
		if ((past_life[k] = t->past_life[k]))
			sum->s[k] = NAN;
	return !t->short_of_memory;
}

/* The switch read through fd: 1, 0, or -1 with err. */
static int acct_read(int fd, char *err, size_t errlen)
{
	char buf[16] = "";
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

	if (n <= 0 || (buf[0] != '0' && buf[0] != '1'))
		return fmt_err(err, errlen, "%s: cannot read it", DELAYACCT_PATH);
	return buf[0] == '1';
}

static int acct_open(char *err, size_t errlen)
{
	int fd = open(DELAYACCT_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fmt_err(err, errlen, "%s: %s%s", DELAYACCT_PATH, strerror(errno),
			       errno == ENOENT ? " (kernel without delay accounting)" : "");
	return fd;
}

int delayacct_get(char *err, size_t errlen)
{
	int fd = acct_open(err, errlen), on;

	if (fd < 0)
		return -1;
	on = acct_read(fd, err, errlen);
	close(fd);
	return on;
}

int taskstats_acct_on(struct taskstats_conn *c, char *err, size_t errlen)
{
	if (c->acct_fd < 0 && (c->acct_fd = acct_open(err, errlen)) < 0)
		return -1;
	return acct_read(c->acct_fd, err, errlen);
}

int delayacct_write(const char *key, const char *val, char *err, size_t errlen)
{
	size_t n = strlen(val);
	ssize_t w;
	int fd, e;

	if (strcmp(key, DELAYACCT_SYSCTL) || (strcmp(val, "0") && strcmp(val, "1")))
		return fmt_err(err, errlen, "%s = %s: not the delay accounting switch", key, val);
	fd = open(DELAYACCT_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fmt_err(err, errlen, "%s: %s", DELAYACCT_PATH, strerror(errno));
	w = write(fd, val, n);
	e = errno;
	close(fd);
	if (w != (ssize_t)n)
		return fmt_err(err, errlen, "%s = %s: %s", DELAYACCT_SYSCTL, val, strerror(e));
	return 0;
}

int delayacct_enable(char *err, size_t errlen)
{
	int on = delayacct_get(err, errlen);

	if (on != 0)
		return on < 0 ? -1 : 0;
	if (undo_add(UNDO_SYSCTL, DELAYACCT_SYSCTL, "0", err, errlen) < 0)
		return -1;
	if (delayacct_write(DELAYACCT_SYSCTL, "1", err, errlen) < 0) {
		char e[256];

		undo_forget(UNDO_SYSCTL, DELAYACCT_SYSCTL, e, sizeof e);
		return -1;
	}
	return 1;
}

int delayacct_restore(char *err, size_t errlen)
{
	char val[16];
	int rc = undo_lookup(UNDO_SYSCTL, DELAYACCT_SYSCTL, val, sizeof val, err, errlen);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (delayacct_write(DELAYACCT_SYSCTL, val, err, errlen) < 0)
		return -1;
	return undo_forget(UNDO_SYSCTL, DELAYACCT_SYSCTL, err, errlen);
}
