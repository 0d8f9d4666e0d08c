/* The figures sampled each tick: /proc/meminfo and /proc/stat through
 * libproc2, /proc/vmstat in one pass of its own (libproc2 4.0.2 lacks
 * counters the series need, and a second read of the file cost as much
 * as the first), /proc/pressure/memory, and kswapd's and the workers'
 * /proc/PID files. The other readers of /proc and /sys: sysstate (the state
 * a run is recorded with: cmdline, meminfo, swaps, vm sysctls, zswap),
 * cgroup (the run's cgroup files, also each tick), sysctl (/proc/sys),
 * guard (this process's memory limit), undo (/proc/PID/stat and the boot
 * id, to tell whose records are whose), workload (its own children),
 * balloon and hugepool (MemTotal, MemAvailable), taskstats (the delay
 * accounting switch, the possible CPUs), tracer (mounts, tracefs) and zram
 * (/sys/block). Never includes ncurses.
 * A figure that cannot be read
 * (no swap, no PSI, a counter this kernel or library lacks, kswapd hidden)
 * is NA (-1) or NAN, never a made-up 0. */
#ifndef THRASHTOP_SAMPLER_H
#define THRASHTOP_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fmt.h"
#include "reclaim.h"

enum mem_item {		/* /proc/meminfo via libproc2, KiB */
	MI_TOTAL, MI_FREE, MI_AVAIL, MI_CACHED, MI_BUFFERS, MI_SHARED,
	MI_SWAP_TOTAL, MI_SWAP_FREE, MI_SWAP_USED, MI_SWAP_CACHED,
	MI_HUGETLB,		/* every hugetlb pool, all page sizes */
	MI_MLOCKED,
	MI_N
};

enum vm_item {		/* /proc/vmstat, cumulative counts */
	VM_PGFAULT, VM_PGMAJFAULT, VM_PSWPIN, VM_PSWPOUT,
	VM_PGSCAN_KSWAPD, VM_PGSTEAL_KSWAPD, VM_PGSCAN_DIRECT, VM_PGSTEAL_DIRECT,
	VM_ALLOCSTALL,	/* sum of the per-zone allocstall_* */
	VM_OOM_KILL,
	VM_REFAULT_ANON, VM_REFAULT_FILE,	/* workingset_refault_*, read by hand */
	VM_ZSWPIN, VM_ZSWPOUT, VM_ZSWPWB,	/* zswap's, read by hand */
	VM_N
};

struct sys_sample {
	double t;			/* monotonic seconds */
	int64_t mem[MI_N];		/* KiB or NA */
	int64_t vm[VM_N];		/* counts or NA */
	int64_t procs_running, procs_blocked;	/* /proc/stat via libproc2 */
	double psi_some10, psi_full10;	/* /proc/pressure/memory avg10 %, or NAN */
	int64_t psi_some_us, psi_full_us;	/* totals, or NA */
	int nkswapd;			/* kswapd threads seen; 0 = not visible */
	int64_t kswapd_ns;		/* their summed on-CPU time, or NA */
	int64_t mem_cache_all;		/* Cached + SReclaimable KiB (free's "cache"), or NA */
	int64_t zswap_kib, zswapped_kib;	/* /proc/meminfo Zswap (the pool), Zswapped
					   (what it holds), by hand; NA */
	int64_t zram_orig_kib, zram_compr_kib, zram_mem_kib;	/* the watched zram
					   device's mm_stat, NA without one */
	/* reclaim events (tracer.c): running totals, and the direct-reclaim
	 * p99 of the stalls since the sample before (NAN: none) */
	bool rc_ok;
	struct rc_counts rc;
	double rc_p99_ms;
};

struct proc_sample {
	pid_t pid;
	bool alive;
	char state;			/* R S D Z T ... */
	int64_t utime_ticks, stime_ticks;
	int64_t majflt, minflt;
	int64_t rss_kib, swap_kib;	/* swap NA if unreadable */
};

/* What this kernel and library let the sampler read, found once at open:
 * a figure without it is always NA or NAN. */
struct sampler_caps {
	bool mem[MI_N];
	bool vm[VM_N];
	bool psi, psi_full;		/* /proc/pressure/memory, its "full" line */
	int nkswapd;			/* 0: kswapd not visible */
	bool kswapd_ok;			/* every kswapd's schedstat readable */
	bool zswap_mem;			/* Zswap and Zswapped in /proc/meminfo */
	bool zram;			/* a zram device watched (sampler_zram) */
};

struct sampler;

/* Opens what every tick reads (libproc2 contexts, PSI, kswapd schedstat).
 * kswapd threads are found once, here. NULL with err filled on failure. */
struct sampler *sampler_new(char *err, size_t errlen);
void sampler_free(struct sampler *s);

/* Reads /sys/block/NAME/mm_stat (kept open) with every system sample from
 * now on; NULL stops. Returns 0, or -1 with errno (nothing watched). */
int sampler_zram(struct sampler *s, const char *name);

/* One system sample; 0, or -1 with errno if libproc2 could not read
 * meminfo or stat. */
int sampler_sys(struct sampler *s, struct sys_sample *out);

void sampler_caps(const struct sampler *s, struct sampler_caps *out);

/* The /proc/vmstat key behind a vm item ("pgscan_direct"; "allocstall_*"
 * for the summed VM_ALLOCSTALL). */
const char *sampler_vm_key(enum vm_item i);

/* The kswapd threads found by sampler_new; returns how many (<= max). */
int sampler_kswapd_pids(const struct sampler *s, pid_t *out, int max);

/* Per-process sampling through kept-open /proc/PID/{stat,status} fds, so a
 * reused pid is never mistaken for the watched one. sampler_watch: 0, or -1
 * with errno (ESRCH: no such process). sampler_proc watches pid if needed;
 * it returns 0 (alive is false for a zombie), or -1 with errno ESRCH once
 * the task has been reaped (out->alive false, figures NA). It reads
 * /proc/PID/stat (rss is the kernel's per-CPU-batched count, off by up to
 * 32 pages a CPU, whose exact sum status would cost twice as much to
 * read), and
 * when swap is set /proc/PID/status too, for VmSwap. */
int sampler_watch(struct sampler *s, pid_t pid);
void sampler_unwatch(struct sampler *s, pid_t pid);
int sampler_proc(struct sampler *s, pid_t pid, bool swap, struct proc_sample *out);

/* Every descendant of root (root excluded), walking
 * /proc/PID/task/TID/children; a descendant s watches (sampler_proc)
 * through its kept-open file when it has one thread. s may be NULL. Returns how
 * many there are, which may exceed max (only the first max are stored),
 * or -1 with errno (ESRCH: no root). */
int sampler_descendants(struct sampler *s, pid_t root, pid_t *out, int max);


#endif
