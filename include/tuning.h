/* The session's changes to the machine: a temporary swap file or zram
 * device (--swap), zswap's parameters (--zswap), a memory cgroup for the workload (--mem), a hugetlb pool or a balloon
 * (--global) and vm
 * sysctls (--sysctl, the monitor's keys, sweep cells). Each goes through
 * the primitives that record it in the undo state before making it, and
 * tuning_end undoes them all; what a crash or SIGKILL leaves is undone by
 * tuning_recover at the next start. Also samples the workload's cgroup and
 * says which reclaim is at work. Never prints. */
#ifndef THRASHTOP_TUNING_H
#define THRASHTOP_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "balloon.h"
#include "cgroup.h"
#include "cli.h"
#include "hugepool.h"
#include "metrics.h"
#include "sampler.h"
#include "swapfile.h"
#include "workload.h"
#include "zram.h"

#define TUNING_MAX_SYSCTL 64
#define TUNING_DEFAULT_KNOB "vm.page-cluster"

struct tuning {
	struct cgroup cg;
	bool have_cg;
	long long mem_limit;		/* bytes, 0 = no limit */
	struct swapfile sw;
	bool have_swap;
	/* a disk of the session's own that holds the swap instead of a file
	 * (a guest's, /dev/vdX) and what backs it; NULL: a swap file */
	const char *swap_disk, *swap_disk_kind;
	struct zram zr;			/* --swap zram:SIZE */
	bool have_zram;
	bool have_zswap;		/* zswap's parameters set (--zswap) */
	struct balloon bl;
	bool have_balloon;
	struct hugepool pool;		/* pool.active: --global holds a pool */
	long long global_leave;		/* bytes left to the machine, 0 = none */
	bool touched;			/* anything recorded in the undo state */
	bool delayacct_on;		/* kernel.task_delayacct turned on for the
					   session (not a tuning of the workload:
					   no session id, configuration unchanged) */
	int nset;			/* sysctls written, restored at the end */
	char set[TUNING_MAX_SYSCTL][64];

	/* the cgroup's last two samples */
	struct cgroup_stat prev, cur;
	double t_prev, t_cur;		/* monotonic seconds, 0 = none */
	long long oom_base;		/* cur.oom_kill at the run's start */
	int cg_runs;			/* runs begun in this cgroup */
};

/* The cgroup's counters per second between its last two samples; NAN
 * where unknown. */
struct tuning_rates {
	double majflt, pgfault, refault, failcnt;
};

void tuning_init(struct tuning *t);

/* Tells the undo module how each kind of change is undone (the balloon,
 * the cgroup, the swap file, a sysctl). tuning_init and tuning_recover do
 * it; anything else that undoes records calls it first. */
void tuning_register_undo(void);

/* Undoes what an earlier, dead instance left (undo_recover), when this
 * process may read the state file at all: a normal user without one gets
 * 0 and msg "". Returns as undo_recover. */
int tuning_recover(char *msg, size_t msglen);

/* Sets the temporary swap to bytes (0: none), replacing any earlier one:
 * a file, or an area on swap_disk when there is one.
 * Returns 0, or -1 with err filled (a refusal for want of root says so). */
int tuning_set_swap(struct tuning *t, long long bytes, char *err, size_t errlen);

/* Sets the session's zram swap to bytes compressed by algo (NULL or "":
 * zram's default), replacing any earlier device; 0 removes it. Returns 0,
 * or -1 with err filled. */
int tuning_set_zram(struct tuning *t, long long bytes, const char *algo,
		    char *err, size_t errlen);

/* zswap for the session: algo "" turns it off, else it compresses with
 * algo in a pool of pool % of RAM (-1: as it is); restored at the end. */
int tuning_set_zswap(struct tuning *t, const char *algo, int pool, char *err, size_t errlen);

/* Limits the workload's memory to bytes (0: no limit), creating the
 * cgroup thrashtop-PID on first use; swap beyond the limit is not limited.
 * Only between runs. Returns 0, or -1 with err filled. */
int tuning_set_mem(struct tuning *t, long long bytes, char *err, size_t errlen);

/* Leaves only bytes of RAM to the machine (0: give everything back). A
 * hugetlb pool is tried first, unless with says balloon, and a balloon
 * pins what the kernel could not give as huge pages; a pool the kernel gives no
 * page for is dropped for the balloon (GLOBAL_AUTO) or refused
 * (GLOBAL_HUGETLB). Returns 0, or -1 with err filled and nothing held. */
int tuning_set_global(struct tuning *t, long long bytes, enum global_with with,
		      char *err, size_t errlen);

/* What holds --global's memory: "hugetlb", "balloon", "hugetlb+balloon",
 * or "" when nothing does. */
const char *tuning_global_by(const struct tuning *t);

/* Turns kernel.task_delayacct on for the session when it is off, so that
 * the workers' delays are counted (restored by tuning_end, or by the next
 * start after a crash). As delayacct_enable: 1, 0 or -1 with err. */
int tuning_delayacct(struct tuning *t, char *err, size_t errlen);

/* Writes vm.NAME = val (restored at the end); old gets the value before.
 * Returns 0, or -1 with err filled. */
int tuning_sysctl(struct tuning *t, const char *name, const char *val,
		  char *old, size_t oldlen, char *err, size_t errlen);

/* Every sysctl written this session (restored at the end), as it is now,
 * one "name=value" a line in name order, into buf ("" for none; a value
 * that cannot be read is "n/a"). Returns the length needed. */
size_t tuning_sysctls_text(const struct tuning *t, char *buf, size_t len);

/* Points cfg's in_child at the cgroup, if there is one. */
void tuning_workload_cfg(struct tuning *t, struct workload_cfg *cfg);

/* Reads the cgroup's counters (nothing to do without one). Returns 0, or
 * -1 with errno. */
int tuning_sample(struct tuning *t, double now);

/* A cgroup sample read elsewhere (at an agent's place), kept as
 * tuning_sample keeps its own. */
void tuning_take(struct tuning *t, const struct cgroup_stat *st, double now);

void tuning_rates(const struct tuning *t, struct tuning_rates *r);

/* Marks the start of a run, and gives the cgroup's OOM kills since then
 * (0 without a cgroup, NA if unreadable). */
void tuning_run_begin(struct tuning *t);

/* The workload's v1 cgroup given vm.swappiness as it is now, which the
 * cgroup otherwise keeps from when it was made (tuning_sysctl does this
 * for a vm.swappiness it sets). Returns 0, or -1 with err filled. */
int tuning_cg_swappiness(struct tuning *t, char *err, size_t errlen);
int64_t tuning_run_oom(const struct tuning *t);

/* Checks that the balloon still runs. Returns 1, or 0 with err saying how
 * it ended (e.g. the OOM killer took it). */
int tuning_balloon_alive(struct tuning *t, char *err, size_t errlen);

/* Undoes everything in the required order (balloon and pool, cgroup, swap
 * file, zram device, sysctls, zswap, then undo_all for anything left): the workload must have been
 * stopped. msg gets one line per failure. Returns 0, or -1 if anything
 * could not be undone (it stays recorded for the next start). */
int tuning_end(struct tuning *t, char *msg, size_t msglen);

/* Which reclaim is at work, from the registry's values of a sample (v:
 * scanning, stealing, allocation stalls, kswapd CPU) and, with a cgroup,
 * its limit hits per second: "reclaim: direct (cgroup), kswapd idle",
 * "reclaim: kswapd", "reclaim: direct + kswapd", "reclaim: none", or
 * "reclaim: n/a" before there are rates. A limit hit is direct reclaim by
 * the charging task, which the system's pgscan_direct does not count. */
size_t tuning_reclaim_text(char *buf, size_t len, const double v[M_N],
			   bool cgroup, double cg_failcnt_rate);

/* The cgroup's figures for the status line: "cgroup 127M/128M swap 45M
 * 1.2k majflt/s" (and "psi 12%" on v2). Pure. */
size_t tuning_cgroup_text(char *buf, size_t len, const struct cgroup_stat *st,
			  const struct tuning_rates *r);

/* The next value of a live knob from cur, one step in direction dir (-1 or
 * +1): vm.swappiness by 10 within 0..200, vm.page-cluster by 1 within
 * 0..10, vm.vfs_cache_pressure by 25, watermark_scale_factor by 10 within
 * 1..3000, dirty ratios by 5 within 0..100; any other knob by a tenth of
 * its value (at least 1), not below 0. Returns 0, 1 when cur is already at
 * the end of the range (out unchanged), or -1 when cur is not a whole
 * number. Pure. */
int tuning_knob_step(const char *name, const char *cur, int dir, char *out, size_t outlen);

/* One step of the sysctl name in dir (tuning_knob_step), set as
 * tuning_sysctl sets it: 0 with its old and new values (each vlen
 * bytes), 1 at the end of its range (now holds the value), -1 with err. */
int tuning_knob(struct tuning *t, const char *name, int dir, char *old, char *now, size_t vlen,
		char *err, size_t errlen);

#endif
