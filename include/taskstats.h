/* Delay accounting: how long a task waited, and for what, from the
 * kernel's taskstats interface (generic netlink family TASKSTATS, through
 * libnl-genl-3; needs CAP_NET_ADMIN), and the kernel.task_delayacct switch
 * that makes the kernel count it (off by default since 5.14; only tasks
 * started while it is on are counted).
 *
 * The reply's struct taskstats grows by version: fields are read at their
 * offsets for the reply's own version, and only where its length covers
 * them (version 15 put max/min fields in the middle, 16 moved them to the
 * end). Never prints. */
#ifndef THRASHTOP_TASKSTATS_H
#define THRASHTOP_TASKSTATS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* In the order the stall line prints them. */
enum delay_kind {
	DL_SWAPIN,	/* swapin_delay_total: waiting for a page to come back from swap */
	DL_RECLAIM,	/* freepages_delay_total: direct reclaim */
	DL_THRASHING,	/* thrashing_delay_total: refaulting workingset pages */
	DL_COMPACT,	/* compact_delay_total: direct compaction */
	DL_IO,		/* blkio_delay_total: synchronous block I/O */
	DL_CPU,		/* cpu_delay_total: runnable, waiting for a CPU */
	DL_WPCOPY,	/* wpcopy_delay_total: copy on write */
	DL_IRQ,		/* irq_delay_total: IRQ and softirq work */
	DL_N
};

/* Seconds of each delay; NAN where the kernel does not give it. */
struct delays {
	double s[DL_N];
};
#define DELAYS_NONE { { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN } }

/* "swapin", "reclaim", "thrashing", "compact", "io", "cpu", "wpcopy", "irq". */
const char *delay_name(enum delay_kind k);

/* Every field NAN: nothing known. */
void delays_clear(struct delays *d);

/* Adds d into sum field by field; a field known in either is known. */
void delays_add(struct delays *sum, const struct delays *d);

/* Whether any field is known. */
bool delays_known(const struct delays *d);

/* The sum of the known fields (0 when none is). */
double delays_total(const struct delays *d);

/* Pure: reads a struct taskstats of len bytes (as the reply's attribute
 * carries it; p need not be aligned) into d, by the version it holds. A
 * field the version lacks or the length does not cover is NAN. Returns the
 * version, or -1 when len cannot hold even the version. */
int taskstats_parse(const void *p, size_t len, struct delays *d);

struct taskstats_conn;

/* A connection to the TASKSTATS family. NULL with err filled ("no
 * taskstats in this kernel", "...: Operation not permitted"). */
struct taskstats_conn *taskstats_open(char *err, size_t errlen);

/* The delay totals of a live thread group tgid: its threads, and those
 * of them that have exited. Returns 0, or -1 with err filled (errno ESRCH:
 * no such process). */
int taskstats_query(struct taskstats_conn *c, pid_t tgid, struct delays *d,
		    char *err, size_t errlen);

/* The same for a thread group whose leader has exited and is not yet
 * reaped (waitid WNOWAIT): its final totals. Two queries. */
int taskstats_query_exited(struct taskstats_conn *c, pid_t tgid, struct delays *d,
			   char *err, size_t errlen);

void taskstats_close(struct taskstats_conn *c);

#define DELAYACCT_SYSCTL "kernel.task_delayacct"

/* kernel.task_delayacct: 1 on, 0 off, -1 with err when it cannot be read
 * (a kernel without CONFIG_TASK_DELAY_ACCT). */
int delayacct_get(char *err, size_t errlen);

/* Turns kernel.task_delayacct on when it is off, recorded in the undo
 * state first (which takes the one-session lock). Returns 1 when it was
 * turned on, 0 when it was on already, -1 with err. */
int delayacct_enable(char *err, size_t errlen);

/* Puts back the value recorded by delayacct_enable and drops the record
 * (none: 0). 0, or -1 with err. */
int delayacct_restore(char *err, size_t errlen);

/* Writes val to kernel.task_delayacct: how the undo state reverts the
 * record (key must be DELAYACCT_SYSCTL). 0, or -1 with err. */
int delayacct_write(const char *key, const char *val, char *err, size_t errlen);

#endif
