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

/* The delay totals of the live thread groups tgid[0..n-1], each its
 * threads and those of them that have exited, in a few system calls for
 * all. errs[i] is 0, or the errno of tgid[i]'s query (ESRCH: gone).
 * Returns 0, or -1 with err when the socket itself failed. */
int taskstats_query_many(struct taskstats_conn *c, const pid_t *tgid, int n, struct delays *d,
			 int *errs, char *err, size_t errlen);

/* The same for a thread group whose leader has exited and is not yet
 * reaped (waitid WNOWAIT): its final totals. Two queries. A total of the
 * leader's own that passes its life is NAN: this kernel (6.18) at times
 * adds its whole uptime to a task's block I/O delay, as to one that ended
 * without having begun; past[] (may be NULL) says which. */
int taskstats_query_exited(struct taskstats_conn *c, pid_t tgid, struct delays *d,
			   bool past[DL_N], char *err, size_t errlen);

void taskstats_close(struct taskstats_conn *c);

/* A thread's final totals, as the kernel sends them to the listeners of
 * the CPU it exits on. */
struct taskstats_exit {
	pid_t pid, tgid;	/* the thread, its process */
	pid_t ppid;		/* the process's parent as the thread exited */
	long long start;	/* when the thread began, seconds since 1970 */
	double life;		/* seconds it lived */
	struct delays d;	/* the thread's own */
};

/* Pure: one TASKSTATS_CMD_NEW message of len bytes, from its netlink
 * header on, into e (its AGGR_PID part: a process that had threads also
 * sends their sum, which this leaves out). Returns 1, 0 when the message
 * is no exit record, -1 (EINVAL) when it is cut short or older than
 * version 12, which names no process (ac_tgid). */
int taskstats_exit_parse(const void *msg, size_t len, struct taskstats_exit *e);

struct taskstats_listener;

/* Registers for the exit records of every possible CPU, as getdelays -m
 * does (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK; root in the initial pid and
 * user namespaces), with a receive buffer of TASKSTATS_LISTEN_BUF bytes
 * (kernel memory, taken only while records wait). c asks the kernel its
 * version first. NULL with err filled, also when the records would be
 * older than version 12. */
#define TASKSTATS_LISTEN_BUF (4 << 20)
struct taskstats_listener *taskstats_listen(struct taskstats_conn *c, char *err,
					    size_t errlen);

/* The records waiting, without blocking: at most max into out. Returns
 * how many; sets *lost when the socket dropped records (its buffer was
 * full) since the last call. */
int taskstats_listen_read(struct taskstats_listener *l, struct taskstats_exit *out, int max,
			  bool *lost);

/* Deregisters and closes; NULL is a no-op. */
void taskstats_listen_close(struct taskstats_listener *l);

/* A command's process tree, summed from exit records: every thread of
 * every process below the root, the root's own left out (its totals come
 * with its reaping). A thread is the tree's when its process's parent is
 * (known alive, or its own record seen) and began no later than the
 * thread did, so that a stranger's record naming a parent whose pid the
 * tree has since reused is not taken; or when its process was handed to
 * the reaper (the child subreaper the root's orphans go to). The records
 * of a round (one drain of the listener) are settled together, so a
 * child whose record comes before its parent's is still counted; one not
 * settled is kept a round more (its parent may have been born and died
 * between two looks at the live ones), then dropped as another's. */
struct taskstats_tree;

/* A process alive: its pid and when it began, seconds since 1970. */
struct taskstats_proc {
	pid_t pid;
	long long start;
};

/* How far two clocks' starts of one process may differ: the records'
 * whole seconds since 1970, /proc's clock ticks after boot. */
#define TASKSTATS_START_SLACK 2
/* How far a delay may pass its thread's life (s): the delay is
 * sched_clock's, the life the monotonic clock's in whole microseconds. */
#define TASKSTATS_LIFE_SLACK 0.01

struct taskstats_tree *taskstats_tree_new(void);
void taskstats_tree_free(struct taskstats_tree *t);

/* Starts over for the tree of root; other is a child of the reaper's
 * that is no part of it (0: none). */
void taskstats_tree_begin(struct taskstats_tree *t, struct taskstats_proc root, pid_t reaper,
			  pid_t other);

/* Queues a round's records. 0, or -1 (ENOMEM: the tree is short). */
int taskstats_tree_feed(struct taskstats_tree *t, const struct taskstats_exit *e, int n);

/* No record waits to be settled: a round now settles nothing, whatever
 * is alive. */
bool taskstats_tree_idle(const struct taskstats_tree *t);

/* Settles the round: live holds the tree's processes alive now (the
 * reaper's other child, if among them, is skipped); last, for the final
 * round, drops what is not settled. 0, or -1 (ENOMEM). */
int taskstats_tree_round(struct taskstats_tree *t, const struct taskstats_proc *live, int nlive,
			 bool last);

/* The totals summed so far, false when memory ran out (sum then short).
 * A total some record held more of than its thread lived (see
 * taskstats_query_exited) is NAN, and past_life[] says which. */
bool taskstats_tree_sum(const struct taskstats_tree *t, struct delays *sum, bool past_life[DL_N]);

#define DELAYACCT_SYSCTL "kernel.task_delayacct"

/* kernel.task_delayacct: 1 on, 0 off, -1 with err when it cannot be read
 * (a kernel without CONFIG_TASK_DELAY_ACCT). */
int delayacct_get(char *err, size_t errlen);

/* The same, read through a file c keeps open: for a check every tick. */
int taskstats_acct_on(struct taskstats_conn *c, char *err, size_t errlen);

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
