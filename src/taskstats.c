#include "taskstats.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	for (int i = 0; i < DL_N; i++)
		if (!isnan(d->s[i]))
			sum->s[i] = isnan(sum->s[i]) ? d->s[i] : sum->s[i] + d->s[i];
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

struct taskstats_conn {
	struct nl_sock *sk;
	int family;
};

struct reply {
	struct delays *d;
	int got;
};

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;
	struct nlattr *top[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1];
	struct nlattr *aggr;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, top, TASKSTATS_TYPE_MAX, NULL) < 0)
		return NL_SKIP;
	aggr = top[TASKSTATS_TYPE_AGGR_TGID] ? top[TASKSTATS_TYPE_AGGR_TGID]
					     : top[TASKSTATS_TYPE_AGGR_PID];
	if (!aggr || nla_parse_nested(in, TASKSTATS_TYPE_MAX, aggr, NULL) < 0 ||
	    !in[TASKSTATS_TYPE_STATS])
		return NL_SKIP;
	if (taskstats_parse(nla_data(in[TASKSTATS_TYPE_STATS]),
			    (size_t)nla_len(in[TASKSTATS_TYPE_STATS]), r->d) >= 0)
		r->got = 1;
	return NL_OK;
}

struct taskstats_conn *taskstats_open(char *err, size_t errlen)
{
	struct taskstats_conn *c = calloc(1, sizeof *c);
	int rc;

	if (!c) {
		fmt_err(err, errlen, "taskstats: %s", strerror(ENOMEM));
		return NULL;
	}
	c->sk = nl_socket_alloc();
	if (!c->sk) {
		fmt_err(err, errlen, "taskstats: %s", strerror(ENOMEM));
		free(c);
		return NULL;
	}
	/* one reply per request: an ACK left queued would be read as the next
	 * request's reply */
	nl_socket_disable_auto_ack(c->sk);
	if ((rc = genl_connect(c->sk)) < 0) {
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
	free(c);
	return NULL;
}

static int query(struct taskstats_conn *c, int attr, pid_t tgid, struct delays *d,
		 char *err, size_t errlen)
{
	struct reply r = { d, 0 };
	struct nl_msg *msg = nlmsg_alloc();
	int rc;

	delays_clear(d);
	if (!msg) {
		errno = ENOMEM;
		return fmt_err(err, errlen, "taskstats: %s", strerror(ENOMEM));
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, NLM_F_REQUEST,
			 TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION) ||
	    nla_put_u32(msg, attr, (uint32_t)tgid) < 0) {
		nlmsg_free(msg);
		errno = ENOMEM;
		return fmt_err(err, errlen, "taskstats: cannot build the request");
	}
	rc = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (rc >= 0) {
		nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, &r);
		rc = nl_recvmsgs_default(c->sk);
	}
	if (rc < 0) {
		/* libnl folds the kernel's errno into its own codes */
		errno = rc == -NLE_OBJ_NOTFOUND || rc == -NLE_NOADDR ? ESRCH
			: rc == -NLE_PERM ? EPERM : EIO;
		return fmt_err(err, errlen, "taskstats of %d: %s", (int)tgid, nl_geterror(rc));
	}
	if (!r.got) {
		errno = EIO;
		return fmt_err(err, errlen, "taskstats of %d: no statistics in the reply",
			       (int)tgid);
	}
	return 0;
}

int taskstats_query(struct taskstats_conn *c, pid_t tgid, struct delays *d,
		    char *err, size_t errlen)
{
	return query(c, TASKSTATS_CMD_ATTR_TGID, tgid, d, err, errlen);
}

int taskstats_query_exited(struct taskstats_conn *c, pid_t tgid, struct delays *d,
			   char *err, size_t errlen)
{
	struct delays own;

	/* A TGID query skips exited threads and gives what they left in the
	 * group's sum, which the kernel keeps only for a group that ever had
	 * two threads: 0 for a single-threaded zombie, whose own task (a PID
	 * query) still holds its totals. Otherwise the sum holds the leader's
	 * and is the larger, field by field. */
	if (query(c, TASKSTATS_CMD_ATTR_TGID, tgid, d, err, errlen) < 0 ||
	    query(c, TASKSTATS_CMD_ATTR_PID, tgid, &own, err, errlen) < 0)
		return -1;
	for (int i = 0; i < DL_N; i++)
		if (!isnan(own.s[i]) && (isnan(d->s[i]) || own.s[i] > d->s[i]))
			d->s[i] = own.s[i];
	return 0;
}

void taskstats_close(struct taskstats_conn *c)
{
	if (!c)
		return;
	nl_socket_free(c->sk);
	free(c);
}

int delayacct_get(char *err, size_t errlen)
{
	char buf[16] = "";
	int fd = open(DELAYACCT_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return fmt_err(err, errlen, "%s: %s%s", DELAYACCT_PATH, strerror(errno),
			       errno == ENOENT ? " (kernel without delay accounting)" : "");
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0 || (buf[0] != '0' && buf[0] != '1'))
		return fmt_err(err, errlen, "%s: cannot read it", DELAYACCT_PATH);
	return buf[0] == '1';
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
