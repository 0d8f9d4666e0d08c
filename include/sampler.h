/* Everything the monitor shows about the system and the workers is read
 * here, and only here. Never includes ncurses. A figure that cannot be read
 * (no swap, no PSI, a counter this kernel or library lacks, kswapd hidden)
 * is NA (-1) or NAN, never a made-up 0. */
#ifndef THRASHTOP_SAMPLER_H
#define THRASHTOP_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define NA (-1)

enum mem_item {		/* /proc/meminfo via libproc2, KiB */
	MI_TOTAL, MI_FREE, MI_AVAIL, MI_CACHED, MI_BUFFERS, MI_SHARED,
	MI_SWAP_TOTAL, MI_SWAP_FREE, MI_SWAP_USED, MI_SWAP_CACHED,
	MI_N
};

enum vm_item {		/* /proc/vmstat via libproc2, cumulative counts */
	VM_PGFAULT, VM_PGMAJFAULT, VM_PSWPIN, VM_PSWPOUT,
	VM_PGSCAN_KSWAPD, VM_PGSTEAL_KSWAPD, VM_PGSCAN_DIRECT, VM_PGSTEAL_DIRECT,
	VM_ALLOCSTALL,	/* sum of the per-zone allocstall_* */
	VM_OOM_KILL,
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
};

struct proc_sample {
	pid_t pid;
	bool alive;
	char state;			/* R S D Z T ... */
	int64_t utime_ticks, stime_ticks;
	int64_t majflt, minflt;
	int64_t rss_kib, swap_kib;	/* swap NA if unreadable */
};

/* Rates between two samples, per second whatever the interval. */
struct sys_rates {
	double majflt, minflt;		/* faults/s (minflt = pgfault - pgmajfault) */
	double pswpin, pswpout;		/* pages/s */
	double scan_kswapd, scan_direct, steal_kswapd, steal_direct, allocstall;
	double kswapd_pct;		/* % of one CPU, NAN if not visible */
};

#endif
