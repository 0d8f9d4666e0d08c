/* The system state recorded with each run and shown in the monitor header,
 * and `free`-style memory snapshots. */
#ifndef THRASHTOP_SYSSTATE_H
#define THRASHTOP_SYSSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "procparse.h"

#define SYSSTATE_MAX_SWAPS 32	/* the kernel's MAX_SWAPFILES is about 30 */

/* The vm sysctls that matter, in this order; names as sysctl(8) spells them. */
#define SYSSTATE_VM_SYSCTLS                                                  \
	X("vm.swappiness") X("vm.vfs_cache_pressure") X("vm.min_free_kbytes") \
	X("vm.watermark_scale_factor") X("vm.page-cluster")                 \
	X("vm.overcommit_memory") X("vm.dirty_ratio") X("vm.dirty_background_ratio")
#define SYSSTATE_NVM 8

struct sysstate {
	char hostname[256];
	char release[128];		/* uname -r */
	char version[256];		/* uname -v */
	char cmdline[4096];		/* /proc/cmdline, without the newline */
	char boot_id[40];		/* the kernel's random boot id: the same on
					   one machine's places, "n/a" unknown */
	int cpus_online;
	int memcg_version;		/* the memory cgroup's, 2 or 1; 0 none or
					   unknown (the place fills it) */
	int64_t mem_total_kib;
	int64_t hugetlb_kib;		/* every hugetlb pool, NA if not printed */
	int64_t mlocked_kib;		/* NA if not printed */
	int nswaps;			/* devices stored in swaps[] */
	struct swap_dev swaps[SYSSTATE_MAX_SWAPS];
	int64_t swap_total_kib, swap_used_kib;	/* over every listed device */
	struct {
		const char *name;	/* "vm.swappiness" ... */
		char value[64];		/* as the kernel prints it, or "n/a" */
	} vm[SYSSTATE_NVM];
	char zswap_enabled[8];		/* "Y", "N", or "n/a" without zswap */
	char zswap_compressor[32];	/* "lzo-rle", or "n/a" */
	char zswap_pool[8];		/* max_pool_percent, or "n/a" */
};

/* 0, or -1 with a one-line message in err. A sysctl this kernel lacks reads
 * "n/a"; only an unreadable uname, meminfo, swaps or cmdline is an error. */
int sysstate_read(struct sysstate *st, char *err, size_t errlen);

/* The value of one sysctl by name ("vm.swappiness"), NULL if not recorded. */
const char *sysstate_vm(const struct sysstate *st, const char *name);

#endif
