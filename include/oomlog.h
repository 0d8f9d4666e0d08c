/* The OOM killer's victims, from the kernel log (/dev/kmsg, which root
 * reads): opened at a session's start, so only kills from then on are
 * read. A kill names the victim's pid and comm, and its memory cgroup when
 * the kernel printed the one-line summary before it (ratelimited: not
 * always). Reads only; never blocks. */
#ifndef THRASHTOP_OOMLOG_H
#define THRASHTOP_OOMLOG_H

#include <stdbool.h>
#include <stddef.h>

#define OOMLOG_PATH "/dev/kmsg"

struct oom_kill {
	int pid;
	char comm[16];		/* as the kernel keeps it, at most 15 bytes */
	char memcg[256];	/* task_memcg from the root of its hierarchy,
				 * "/thrashtop-1234"; "" when not printed */
};

struct oomlog {
	int fd;			/* -1: the log cannot be read */
	struct oom_kill summary;	/* the last summary line, for the kill after it */
};

/* Opens the log at its end. 0, or -1 with errno (fd stays -1). */
int oomlog_open(struct oomlog *l);
void oomlog_close(struct oomlog *l);

/* Every kill logged since the last call into k (kills beyond max are
 * dropped). Returns how many were stored; 0 when the log is not open. */
int oomlog_read(struct oomlog *l, struct oom_kill *k, int max);

/* One record's text (after the "prio,seq,ts,flags;" prefix): 1 for
 * "...: Killed process PID (comm) ...", 2 for the summary
 * "oom-kill:...,task_memcg=/x,task=comm,pid=PID,uid=0" (memcg, comm and
 * pid filled), 0 for any other. */
int oomlog_parse(const char *msg, struct oom_kill *k);

/* Whether cgroup directory path (e.g. /sys/fs/cgroup/memory/thrashtop-1)
 * is the memcg a kill named. */
bool oomlog_in_cgroup(const struct oom_kill *k, const char *path);

#endif
