/* A memory cgroup for the workload: cgroup v2 when the unified hierarchy
 * (/sys/fs/cgroup or /sys/fs/cgroup/unified) offers the memory controller,
 * else v1 (/sys/fs/cgroup/memory). Recorded in the undo state before it is
 * created; removal kills whatever is still inside. */
#ifndef THRASHTOP_CGROUP_H
#define THRASHTOP_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fmt.h"

#define CGROUP_UNLIMITED LLONG_MAX	/* a limit of "max" (v2) or -1 (v1) */

#define CGROUP_KEPT 16

struct cgroup {
	int version;		/* 1 or 2 */
	char path[256];		/* e.g. /sys/fs/cgroup/memory/thrashtop-1234 */
	int procs_fd;		/* cgroup.procs, opened for cgroup_attach_self; -1 closed */
	bool memsw;		/* v1: memory.memsw.* exist (swap accounting on) */
	/* the files cgroup_read reads, kept open: bit i of kept says fd[i] is,
	 * of absent that the kernel has no such file (not looked for again) */
	int kept_fd[CGROUP_KEPT];
	unsigned kept, absent;
};

/* Counters of one cgroup. NA where this cgroup version lacks the
 * figure, NAN for the pressure averages. Bytes unless told. */
struct cgroup_stat {
	long long usage;	/* v1 memory.usage_in_bytes, v2 memory.current */
	long long peak;		/* v1 memory.max_usage_in_bytes, v2 memory.peak */
	long long limit;	/* bytes, or CGROUP_UNLIMITED */
	long long swap_usage;	/* v1 memory.stat total_swap, v2 memory.swap.current */
	long long swap_limit;	/* swap beyond the memory limit: v1 memsw - limit,
				 * v2 memory.swap.max; or CGROUP_UNLIMITED */
	long long pgfault, pgmajfault;			/* counts */
	long long refault_anon, refault_file;		/* workingset_refault_*, counts */
	long long failcnt;	/* times a charge hit a limit: v1 memory.failcnt +
				 * memory.memsw.failcnt, v2 memory.events "max" */
	long long oom_kill;	/* v1 memory.oom_control, v2 memory.events */
	double psi_some10, psi_full10;	/* v2 memory.pressure avg10 %; v1 NAN */
};

/* Creates the cgroup NAME (which must start with "thrashtop-"; NULL means
 * "thrashtop-PID" with this process's pid) with a memory limit in bytes and a swap limit in bytes
 * beyond it (-1: unlimited swap; on v1 it becomes memory.memsw = limit +
 * swap). Returns 0, or -1 with err filled and nothing left behind. */
int cgroup_create(struct cgroup *cg, const char *name, long long limit,
		  long long swap_limit, char *err, size_t errlen);

/* Which version cgroup_create would use: 2, 1, or 0 when neither offers
 * the memory controller; *memsw says whether v1 accounts swap. */
int cgroup_probe(bool *memsw);

/* Changes the limits, keeping v1's memsw >= limit throughout. */
int cgroup_set_limit(struct cgroup *cg, long long limit, long long swap_limit,
		     char *err, size_t errlen);

/* v1 gives each memory cgroup a swappiness of its own, copied from its
 * parent when made and never from vm.swappiness after: sets it to val (a
 * number as vm.swappiness takes it). v2 has none, reclaim in it follows
 * vm.swappiness: nothing to do. Returns 0, or -1 with err filled. */
int cgroup_set_swappiness(struct cgroup *cg, const char *val, char *err, size_t errlen);

/* In a child after fork: moves the calling process into the cgroup through
 * the fd opened by cgroup_create (no allocation, no stdio). Returns 0, or
 * -1 with errno. */
int cgroup_attach_self(struct cgroup *cg);

/* cgroup_attach_self for workload_cfg.in_child (arg is the struct cgroup). */
int cgroup_attach_child(void *arg);

/* Moves pid into the cgroup. Returns 0, or -1 with err filled. */
int cgroup_attach_pid(struct cgroup *cg, pid_t pid, char *err, size_t errlen);

/* Reads every counter. Returns 0, or -1 with errno if the cgroup's files
 * cannot be read at all (a figure missing from a file is NA). */
int cgroup_read(struct cgroup *cg, struct cgroup_stat *st);

/* Closes the files cgroup_read keeps open (cgroup_remove does too); the
 * next read opens them again. */
void cgroup_close_files(struct cgroup *cg);

/* How many processes the cgroup holds, or -1 with errno. */
int cgroup_nprocs(const struct cgroup *cg);

/* SIGKILLs whatever is inside, waits (at most 5 s) for it to leave, removes
 * the directory and drops the undo record. Returns 0, or -1 with err. */
int cgroup_remove(struct cgroup *cg, char *err, size_t errlen);

/* The same for a path from the undo state (no record dropped). The path
 * must be under /sys/fs/cgroup/ with a last component starting with
 * "thrashtop-". A directory already gone is 0. */
int cgroup_remove_path(const char *path, char *err, size_t errlen);

#endif
