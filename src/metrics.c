#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "fmt.h"
#include "plot.h"

#define KIB 1.0		/* gauges in KiB are whole numbers */
#define FINE 0.001

static const struct metric_def defs[M_N] = {
	[M_SWAP_USED] = { "swap-used", "swap used", "swap", "KiB", MK_GAUGE, MS_SWAP, KIB,
			  "/proc/meminfo SwapTotal - SwapFree" },
	[M_FREE] = { "free", "free", "free", "KiB", MK_GAUGE, MS_RAM, KIB, "/proc/meminfo MemFree" },
	[M_AVAIL] = { "available", "available", "avail", "KiB", MK_GAUGE, MS_RAM, KIB,
		      "/proc/meminfo MemAvailable" },
	[M_CACHED] = { "cached", "page cache", "cache", "KiB", MK_GAUGE, MS_RAM, KIB,
		       "/proc/meminfo Cached" },
	[M_SWAP_CACHED] = { "swap-cached", "swap cached", "swcache", "KiB", MK_GAUGE, MS_SWAP, KIB,
			    "/proc/meminfo SwapCached" },
	[M_MAJFLT] = { "majflt", "major faults", "majflt", "faults/s", MK_RATE, MS_AUTO, FINE,
		       "/proc/vmstat pgmajfault" },
	[M_MINFLT] = { "minflt", "minor faults", "minflt", "faults/s", MK_RATE, MS_AUTO, FINE,
		       "/proc/vmstat pgfault - pgmajfault" },
	[M_PSWPIN] = { "pswpin", "swap-ins", "swpin", "pages/s", MK_RATE, MS_AUTO, FINE,
		       "/proc/vmstat pswpin" },
	[M_PSWPOUT] = { "pswpout", "swap-outs", "swpout", "pages/s", MK_RATE, MS_AUTO, FINE,
			"/proc/vmstat pswpout" },
	[M_SCAN_KSWAPD] = { "scan-kswapd", "scan kswapd", "scan k", "pages/s", MK_RATE, MS_AUTO, FINE,
			    "/proc/vmstat pgscan_kswapd" },
	[M_SCAN_DIRECT] = { "scan-direct", "scan direct", "scan d", "pages/s", MK_RATE, MS_AUTO, FINE,
			    "/proc/vmstat pgscan_direct" },
	[M_STEAL_KSWAPD] = { "steal-kswapd", "steal kswapd", "steal k", "pages/s", MK_RATE, MS_AUTO, FINE,
			     "/proc/vmstat pgsteal_kswapd" },
	[M_STEAL_DIRECT] = { "steal-direct", "steal direct", "steal d", "pages/s", MK_RATE, MS_AUTO, FINE,
			     "/proc/vmstat pgsteal_direct" },
	[M_ALLOCSTALL] = { "allocstall", "alloc stalls", "alloc st", "stalls/s", MK_RATE, MS_AUTO, FINE,
			   "/proc/vmstat allocstall_* summed" },
	[M_REFAULT_ANON] = { "refault-anon", "refaults anon", "rf anon", "pages/s", MK_RATE, MS_AUTO, FINE,
			     "/proc/vmstat workingset_refault_anon" },
	[M_REFAULT_FILE] = { "refault-file", "refaults file", "rf file", "pages/s", MK_RATE, MS_AUTO, FINE,
			     "/proc/vmstat workingset_refault_file" },
	[M_PSI_SOME] = { "psi-some", "PSI some avg10", "psi some", "%", MK_PERCENT, MS_AUTO, FINE,
			 "/proc/pressure/memory some avg10" },
	[M_PSI_FULL] = { "psi-full", "PSI full avg10", "psi full", "%", MK_PERCENT, MS_AUTO, FINE,
			 "/proc/pressure/memory full avg10" },
	[M_PSI_SOME_RATE] = { "psi-some-rate", "PSI some stall", "psi s stall", "% of time", MK_RATE, MS_AUTO,
			      FINE, "/proc/pressure/memory some total, per second" },
	[M_PSI_FULL_RATE] = { "psi-full-rate", "PSI full stall", "psi f stall", "% of time", MK_RATE, MS_AUTO,
			      FINE, "/proc/pressure/memory full total, per second" },
	[M_KSWAPD_CPU] = { "kswapd-cpu", "kswapd CPU", "kswapd", "% of a CPU", MK_PERCENT, MS_PERCENT, FINE,
			   "/proc/PID/schedstat of each kswapd" },
	[M_PROCS_RUNNING] = { "procs-running", "running", "run", "tasks", MK_GAUGE, MS_AUTO, 1,
			      "/proc/stat procs_running" },
	[M_PROCS_BLOCKED] = { "procs-blocked", "blocked on I/O", "I/O", "tasks", MK_GAUGE, MS_AUTO, 1,
			      "/proc/stat procs_blocked (tasks waiting for I/O)" },
	[M_CG_MEM] = { "cg-mem", "cgroup memory", "cg mem", "KiB", MK_GAUGE, MS_CG_LIMIT, KIB,
		       "cgroup memory.current / memory.usage_in_bytes" },
	[M_CG_SWAP] = { "cg-swap", "cgroup swap", "cg swap", "KiB", MK_GAUGE, MS_CG_SWAP, KIB,
			"cgroup memory.swap.current / memory.stat swap" },
	[M_CG_MAJFLT] = { "cg-majflt", "cgroup major faults", "cg majflt", "faults/s", MK_RATE, MS_AUTO, FINE,
			  "cgroup memory.stat pgmajfault" },
	[M_CG_REFAULT] = { "cg-refault", "cgroup refaults", "cg refault", "pages/s", MK_RATE, MS_AUTO, FINE,
			   "cgroup memory.stat workingset_refault_anon + _file" },
	[M_CG_PSI_SOME] = { "cg-psi-some", "cgroup PSI some", "cg psi s", "%", MK_PERCENT, MS_AUTO, FINE,
			    "cgroup memory.pressure some avg10" },
	[M_CG_PSI_FULL] = { "cg-psi-full", "cgroup PSI full", "cg psi f", "%", MK_PERCENT, MS_AUTO, FINE,
			    "cgroup memory.pressure full avg10" },
	[M_ZRAM_ORIG] = { "zram-orig", "zram stored", "zram", "KiB", MK_GAUGE, MS_AUTO, KIB,
			  "/sys/block/zramN/mm_stat orig_data_size" },
	[M_ZRAM_COMPR] = { "zram-compr", "zram compressed", "zram c", "KiB", MK_GAUGE, MS_AUTO, KIB,
			   "/sys/block/zramN/mm_stat compr_data_size" },
	[M_ZRAM_MEM] = { "zram-mem", "zram memory", "zram mem", "KiB", MK_GAUGE, MS_AUTO, KIB,
			 "/sys/block/zramN/mm_stat mem_used_total" },
	[M_ZRAM_RATIO] = { "zram-ratio", "zram ratio", "ratio", "x", MK_GAUGE, MS_AUTO, FINE,
			   "/sys/block/zramN/mm_stat orig_data_size / compr_data_size" },
	[M_ZSWAP_POOL] = { "zswap-pool", "zswap pool", "zswap", "KiB", MK_GAUGE, MS_AUTO, KIB,
			   "/proc/meminfo Zswap" },
	[M_ZSWAP_STORED] = { "zswap-stored", "zswap stored", "zswapped", "KiB", MK_GAUGE, MS_AUTO, KIB,
			     "/proc/meminfo Zswapped" },
	[M_ZSWPOUT] = { "zswpout", "zswap stores", "zswpout", "pages/s", MK_RATE, MS_AUTO, FINE,
			"/proc/vmstat zswpout" },
	[M_ZSWPIN] = { "zswpin", "zswap loads", "zswpin", "pages/s", MK_RATE, MS_AUTO, FINE,
		       "/proc/vmstat zswpin" },
	[M_ZSWPWB] = { "zswpwb", "zswap writeback", "zswpwb", "pages/s", MK_RATE, MS_AUTO, FINE,
		       "/proc/vmstat zswpwb" },
	/* delay accounting: seconds of stall per second, all workers summed */
	[M_STALL_SWAPIN] = { "stall-swapin", "swap-in stalls", "swapin", "s/s", MK_RATE, MS_AUTO,
			     FINE, "taskstats swapin_delay_total of every worker" },
	[M_STALL_RECLAIM] = { "stall-reclaim", "reclaim stalls", "reclaim", "s/s", MK_RATE, MS_AUTO,
			      FINE, "taskstats freepages_delay_total of every worker" },
	[M_STALL_THRASHING] = { "stall-thrashing", "thrashing stalls", "thrash", "s/s", MK_RATE,
				MS_AUTO, FINE, "taskstats thrashing_delay_total of every worker" },
	[M_STALL_IO] = { "stall-io", "block I/O stalls", "io", "s/s", MK_RATE, MS_AUTO, FINE,
			 "taskstats blkio_delay_total of every worker" },
	[M_STALL_CPU] = { "stall-cpu", "CPU wait", "cpu wait", "s/s", MK_RATE, MS_AUTO, FINE,
			  "taskstats cpu_delay_total of every worker" },
	[M_DR_STALLS] = { "direct-stalls", "direct reclaim stalls", "dr stalls", "stalls/s",
			  MK_RATE, MS_AUTO, FINE,
			  "tracefs vmscan:mm_vmscan_direct_reclaim_begin/_end, paired per thread" },
	[M_DR_P99] = { "direct-p99-ms", "direct reclaim p99", "dr p99", "ms", MK_GAUGE, MS_AUTO,
		       FINE, "tracefs direct_reclaim_begin/_end: p99 latency of the interval's stalls" },
	[M_DR_TIME] = { "direct-time", "direct reclaim time", "dr time", "s/s", MK_RATE, MS_AUTO,
			FINE, "tracefs direct_reclaim_begin/_end: stalled seconds per second, all threads" },
	[M_KSWAPD_AWAKE] = { "kswapd-awake", "kswapd awake", "ksw awake", "% of time", MK_RATE,
			     MS_PERCENT, FINE, "tracefs vmscan:mm_vmscan_kswapd_wake/_sleep" },
	[M_MEMCG_STALLS] = { "memcg-stalls", "memcg reclaim stalls", "memcg st", "stalls/s",
			     MK_RATE, MS_AUTO, FINE,
			     "tracefs vmscan:mm_vmscan_memcg_reclaim_begin/_end, paired per thread" },
	[M_THROTTLED] = { "throttled", "reclaim throttled", "throttled", "events/s", MK_RATE, MS_AUTO,
			  FINE, "tracefs vmscan:mm_vmscan_throttled" },
	[M_COMPACT_STALLS] = { "compact-stalls", "compaction stalls", "compact", "stalls/s", MK_RATE,
			       MS_AUTO, FINE, "tracefs compaction:mm_compaction_begin/_end" },
	[M_TRACE_LOST] = { "trace-lost", "events lost", "lost", "events/s", MK_RATE, MS_AUTO, FINE,
			   "tracefs per_cpu/cpuN/stats overrun + dropped events" },
};

/* The delay behind each stall series. */
static const enum delay_kind stall_of[M_N] = {
	[M_STALL_SWAPIN] = DL_SWAPIN, [M_STALL_RECLAIM] = DL_RECLAIM,
	[M_STALL_THRASHING] = DL_THRASHING, [M_STALL_IO] = DL_IO, [M_STALL_CPU] = DL_CPU,
};

const struct metric_def *metric_def(int id)
{
	return id >= 0 && id < M_N ? &defs[id] : NULL;
}

int metric_find(const char *name)
{
	for (int i = 0; i < M_N; i++)
		if (!strcmp(defs[i].name, name))
			return i;
	return -1;
}

bool metric_is_reclaim(int id)
{
	return id >= M_DR_STALLS && id <= M_TRACE_LOST;
}

bool metric_is_cgroup(int id)
{
	return id >= M_CG_MEM && id <= M_CG_PSI_FULL;
}

/* The vm item behind each /proc/vmstat series. */
static const enum vm_item vm_of[M_N] = {
	[M_MAJFLT] = VM_PGMAJFAULT, [M_MINFLT] = VM_PGFAULT,
	[M_PSWPIN] = VM_PSWPIN, [M_PSWPOUT] = VM_PSWPOUT,
	[M_SCAN_KSWAPD] = VM_PGSCAN_KSWAPD, [M_SCAN_DIRECT] = VM_PGSCAN_DIRECT,
	[M_STEAL_KSWAPD] = VM_PGSTEAL_KSWAPD, [M_STEAL_DIRECT] = VM_PGSTEAL_DIRECT,
	[M_ALLOCSTALL] = VM_ALLOCSTALL,
	[M_REFAULT_ANON] = VM_REFAULT_ANON, [M_REFAULT_FILE] = VM_REFAULT_FILE,
	[M_ZSWPOUT] = VM_ZSWPOUT, [M_ZSWPIN] = VM_ZSWPIN, [M_ZSWPWB] = VM_ZSWPWB,
};

static const enum mem_item mem_of[M_N] = {
	[M_SWAP_USED] = MI_SWAP_USED, [M_FREE] = MI_FREE,
	[M_AVAIL] = MI_AVAIL, [M_CACHED] = MI_CACHED, [M_SWAP_CACHED] = MI_SWAP_CACHED,
};
static const char *const mem_key[M_N] = {
	[M_SWAP_USED] = "SwapTotal/SwapFree", [M_FREE] = "MemFree",
	[M_AVAIL] = "MemAvailable", [M_CACHED] = "Cached", [M_SWAP_CACHED] = "SwapCached",
};

static void no(struct metric_avail *av, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void no(struct metric_avail *av, int id, const char *fmt, ...)
{
	va_list ap;

	av->ok[id] = false;
	va_start(ap, fmt);
	vsnprintf(av->why[id], sizeof(av->why[id]), fmt, ap);
	va_end(ap);
}

void metrics_availability(const struct sampler_caps *caps,
			  const struct metric_cgroup_info *cg,
			  struct metric_avail *av)
{
	memset(av, 0, sizeof(*av));
	for (int i = 0; i < M_N; i++)
		av->ok[i] = true;
	for (int i = M_SWAP_USED; i <= M_SWAP_CACHED; i++)
		if (!caps->mem[mem_of[i]])
			no(av, i, "kernel has no %s in /proc/meminfo", mem_key[i]);
	for (int i = M_MAJFLT; i <= M_REFAULT_FILE; i++)
		if (!caps->vm[vm_of[i]] || (i == M_MINFLT && !caps->vm[VM_PGMAJFAULT]))
			no(av, i, "kernel has no %s in /proc/vmstat",
			   sampler_vm_key(caps->vm[vm_of[i]] ? VM_PGMAJFAULT : vm_of[i]));
	if (!caps->psi) {
		for (int i = M_PSI_SOME; i <= M_PSI_FULL_RATE; i++)
			no(av, i, "%s", "no /proc/pressure/memory (kernel without PSI, or psi=0)");
	} else if (!caps->psi_full) {
		no(av, M_PSI_FULL, "%s", "kernel prints no \"full\" line in /proc/pressure/memory");
		no(av, M_PSI_FULL_RATE, "%s", av->why[M_PSI_FULL]);
	}
	if (caps->nkswapd == 0)
		no(av, M_KSWAPD_CPU, "%s", "kswapd not visible (a container, or LIBPROC_HIDE_KERNEL)");
	else if (!caps->kswapd_ok)
		no(av, M_KSWAPD_CPU, "%s", "kswapd's /proc/PID/schedstat cannot be read");

	for (int i = M_ZSWPOUT; i <= M_ZSWPWB; i++)
		if (!caps->vm[vm_of[i]])
			no(av, i, "kernel has no %s in /proc/vmstat (no zswap)", sampler_vm_key(vm_of[i]));
	for (int i = M_ZSWAP_POOL; i <= M_ZSWAP_STORED; i++)
		if (!caps->zswap_mem)
			no(av, i, "%s", "kernel has no Zswap/Zswapped in /proc/meminfo (no zswap)");
	for (int i = M_ZRAM_ORIG; i <= M_ZRAM_RATIO; i++)
		if (!caps->zram)
			no(av, i, "%s", "only with --swap zram:SIZE (the session's zram device)");
	for (int i = M_CG_MEM; i <= M_CG_PSI_FULL; i++) {
		if ((i == M_CG_PSI_SOME || i == M_CG_PSI_FULL) && cg && cg->version == 1)
			no(av, i, "%s", "cgroup v1 has no memory.pressure");
		else if (!cg || !cg->present)
			no(av, i, "%s", "only with --mem (the workload's memory cgroup)");
		else if (i == M_CG_SWAP && cg->version == 1 && !cg->swap_accounted)
			no(av, i, "%s", "cgroup v1 without swap accounting (no memory.memsw.*)");
	}
}

void metrics_reclaim_availability(struct metric_avail *av, bool ok, const char *why)
{
	for (int i = M_DR_STALLS; i <= M_TRACE_LOST; i++)
		if (!ok)
			no(av, i, "%s", why && *why ? why : "no reclaim events");
}

static double gauge(int64_t v)
{
	return v == NA ? NAN : (double)v;
}

static double rate(int64_t a, int64_t b, double dt)
{
	if (a == NA || b == NA || b < a || !(dt > 0))
		return NAN;
	return (double)(b - a) / dt;
}

static double cg_rate(long long a, long long b, double dt)
{
	if (a == NA || b == NA || b < a || !(dt > 0))
		return NAN;
	return (double)(b - a) / dt;
}

void metrics_no_stalls(struct metric_avail *av, const char *why)
{
	for (int i = M_STALL_SWAPIN; i <= M_STALL_CPU; i++)
		no(av, i, "%s", why);
}

/* Seconds of stall per second between the run's last two ticks. */
static void stall_rates(const struct metric_input *in, double out[M_N])
{
	if (!in->stall_prev || !in->stall_cur || !(in->stall_dt > 0))
		return;
	for (int i = M_STALL_SWAPIN; i <= M_STALL_CPU; i++) {
		double a = in->stall_prev->s[stall_of[i]], b = in->stall_cur->s[stall_of[i]];

		if (!isnan(a) && !isnan(b) && b >= a)
			out[i] = (b - a) / in->stall_dt;
	}
}

void metrics_values(const struct metric_input *in, double out[M_N])
{
	const struct sys_sample *c = in->cur, *p = in->prev;
	double dt = p ? c->t - p->t : 0;

	for (int i = 0; i < M_N; i++)
		out[i] = NAN;
	for (int i = M_SWAP_USED; i <= M_SWAP_CACHED; i++)
		out[i] = gauge(c->mem[mem_of[i]]);
	if (p) {
		for (int i = M_MAJFLT; i <= M_REFAULT_FILE; i++)
			out[i] = rate(p->vm[vm_of[i]], c->vm[vm_of[i]], dt);
		out[M_MINFLT] -= out[M_MAJFLT];
		if (out[M_MINFLT] < 0)
			out[M_MINFLT] = NAN;
		/* microseconds stalled per second, as % of the time */
		out[M_PSI_SOME_RATE] = rate(p->psi_some_us, c->psi_some_us, dt) / 1e4;
		out[M_PSI_FULL_RATE] = rate(p->psi_full_us, c->psi_full_us, dt) / 1e4;
		/* ns on a CPU per wall ns; a changed thread set is no rate */
		if (p->nkswapd == c->nkswapd)
			out[M_KSWAPD_CPU] = rate(p->kswapd_ns, c->kswapd_ns, dt) / 1e7;
	}
	out[M_PSI_SOME] = c->psi_some10;
	out[M_PSI_FULL] = c->psi_full10;
	out[M_PROCS_RUNNING] = gauge(c->procs_running);
	out[M_PROCS_BLOCKED] = gauge(c->procs_blocked);
	out[M_ZRAM_ORIG] = gauge(c->zram_orig_kib);
	out[M_ZRAM_COMPR] = gauge(c->zram_compr_kib);
	out[M_ZRAM_MEM] = gauge(c->zram_mem_kib);
	if (c->zram_orig_kib != NA && c->zram_compr_kib > 0)
		out[M_ZRAM_RATIO] = (double)c->zram_orig_kib / (double)c->zram_compr_kib;
	out[M_ZSWAP_POOL] = gauge(c->zswap_kib);
	out[M_ZSWAP_STORED] = gauge(c->zswapped_kib);
	if (p)
		for (int i = M_ZSWPOUT; i <= M_ZSWPWB; i++)
			out[i] = rate(p->vm[vm_of[i]], c->vm[vm_of[i]], dt);

	stall_rates(in, out);
	if (p && p->rc_ok && c->rc_ok) {
		const struct rc_counts *a = &p->rc, *b = &c->rc;

		out[M_DR_STALLS] = rate(a->direct_n, b->direct_n, dt);
		out[M_DR_TIME] = rate(a->direct_ns, b->direct_ns, dt) / 1e9;
		out[M_KSWAPD_AWAKE] = rate(a->kswapd_awake_ns, b->kswapd_awake_ns, dt) / 1e7;
		out[M_MEMCG_STALLS] = rate(a->memcg_n, b->memcg_n, dt);
		out[M_THROTTLED] = rate(a->throttled, b->throttled, dt);
		out[M_COMPACT_STALLS] = rate(a->compact_n, b->compact_n, dt);
		out[M_TRACE_LOST] = rate(a->lost, b->lost, dt);
	}
	if (c->rc_ok)
		out[M_DR_P99] = c->rc_p99_ms;

	if (in->cg_cur) {
		const struct cgroup_stat *g = in->cg_cur, *h = in->cg_prev;

		out[M_CG_MEM] = g->usage == NA ? NAN : (double)g->usage / 1024;
		out[M_CG_SWAP] = g->swap_usage == NA ? NAN : (double)g->swap_usage / 1024;
		out[M_CG_PSI_SOME] = g->psi_some10;
		out[M_CG_PSI_FULL] = g->psi_full10;
		if (h) {
			out[M_CG_MAJFLT] = cg_rate(h->pgmajfault, g->pgmajfault, in->cg_dt);
			if (h->refault_anon != NA && h->refault_file != NA &&
			    g->refault_anon != NA && g->refault_file != NA)
				out[M_CG_REFAULT] = cg_rate(h->refault_anon + h->refault_file,
							    g->refault_anon + g->refault_file,
							    in->cg_dt);
		}
	}
}

int64_t metrics_usable_ram_kib(int64_t total, int64_t hugetlb, int64_t mlocked)
{
	int64_t v = total;

	if (total == NA)
		return NA;
	if (hugetlb != NA && hugetlb > 0)
		v -= hugetlb;
	if (mlocked != NA && mlocked > 0)
		v -= mlocked;
	return v > 0 ? v : total;
}

static bool limited(long long v)
{
	return v != NA && v != CGROUP_UNLIMITED && v > 0;
}

double metrics_scale(int id, const struct sys_sample *cur, const struct cgroup_stat *cg)
{
	double swap = cur && cur->mem[MI_SWAP_TOTAL] > 0 ? (double)cur->mem[MI_SWAP_TOTAL] : 0;
	int64_t ram;

	if (id < 0 || id >= M_N)
		return 0;
	switch (defs[id].scale) {
	case MS_RAM:
		if (!cur)
			return 0;
		ram = metrics_usable_ram_kib(cur->mem[MI_TOTAL], cur->mem[MI_HUGETLB],
					     cur->mem[MI_MLOCKED]);
		return ram > 0 ? (double)ram : 0;
	case MS_SWAP:
		return swap;
	case MS_PERCENT:
		return 100;
	case MS_CG_LIMIT:
		return cg && limited(cg->limit) ? (double)cg->limit / 1024 : 0;
	case MS_CG_SWAP:
		if (cg && limited(cg->swap_limit) && (!swap || (double)cg->swap_limit / 1024 < swap))
			return (double)cg->swap_limit / 1024;
		return swap;
	case MS_AUTO:
		break;
	}
	return 0;
}

double metrics_scale_kept(int id, int64_t ram, int64_t hugetlb, int64_t mlocked, int64_t cg_limit,
			  int64_t swap_total)
{
	int64_t usable;

	if (id < 0 || id >= M_N)
		return 0;
	switch (defs[id].scale) {
	case MS_RAM:
		usable = metrics_usable_ram_kib(ram, hugetlb, mlocked);
		return usable > 0 ? (double)usable : 0;
	case MS_SWAP:
	case MS_CG_SWAP:
		return swap_total > 0 ? (double)swap_total : 0;
	case MS_PERCENT:
		return 100;
	case MS_CG_LIMIT:
		return cg_limit > 0 ? (double)cg_limit : 0;
	case MS_AUTO:
		break;
	}
	return 0;
}

static bool is_kib(int id)
{
	return id >= 0 && id < M_N && !strcmp(defs[id].unit, "KiB");
}

static bool is_pct(int id)
{
	return id >= 0 && id < M_N && defs[id].unit[0] == '%';
}

size_t metrics_value_text(int id, double v, char *buf, size_t len)
{
	if (isnan(v))
		return (size_t)snprintf(buf, len, "n/a");
	if (is_kib(id))
		return fmt_kib(buf, len, (int64_t)llround(v));
	if (is_pct(id))
		return fmt_pct(buf, len, v);
	if (id == M_ZRAM_RATIO)
		return (size_t)snprintf(buf, len, "%.1fx", v);
	/* seconds of stall a second: not a count a second */
	if (!strcmp(defs[id].unit, "s/s"))
		return (size_t)snprintf(buf, len, fabs(v) < 9.995 ? "%.2fs/s" : "%.1fs/s", v);
	/* the tracer keeps 0.01 ms below 1 ms */
	if (!strcmp(defs[id].unit, "ms"))
		return (size_t)snprintf(buf, len, v < 0.995 ? "%.2fms" : v < 99.95 ? "%.1fms" :
					"%.0fms", v);
	if (defs[id].kind == MK_GAUGE)
		return (size_t)snprintf(buf, len, "%.0f", v);
	return fmt_rate(buf, len, v);
}

double metrics_nice_max(int id, double hi)
{
	if (is_kib(id))
		return plot_nice_kib(hi);
	/* a share never needs an axis past 100%, nor one under 1%: PSI of
	 * 0.02% filled a 0..0.02% plot beside a title reading 0.0% */
	if (is_pct(id) && hi <= 100)
		return fmin(fmax(plot_nice_max(hi), 1), 100);
	return plot_nice_max(hi);
}

/* Series that share an auto scale when shown together, so that one can be
 * read against the other: k and direct, in and out, some and full. */
static const signed char group_of[M_N] = {
	[M_SWAP_USED] = -1, [M_FREE] = -1, [M_AVAIL] = -1, [M_CACHED] = -1, [M_SWAP_CACHED] = -1,
	[M_MAJFLT] = 1, [M_CG_MAJFLT] = 1, [M_MINFLT] = -1,
	[M_PSWPIN] = 2, [M_PSWPOUT] = 2,
	[M_SCAN_KSWAPD] = 3, [M_SCAN_DIRECT] = 3,
	[M_STEAL_KSWAPD] = 4, [M_STEAL_DIRECT] = 4, [M_ALLOCSTALL] = -1,
	[M_REFAULT_ANON] = 5, [M_REFAULT_FILE] = 5,
	[M_PSI_SOME] = 6, [M_PSI_FULL] = 6,
	[M_PSI_SOME_RATE] = 7, [M_PSI_FULL_RATE] = 7,
	[M_KSWAPD_CPU] = -1, [M_PROCS_RUNNING] = -1, [M_PROCS_BLOCKED] = -1,
	[M_CG_MEM] = -1, [M_CG_SWAP] = -1, [M_CG_REFAULT] = -1,
	[M_CG_PSI_SOME] = 8, [M_CG_PSI_FULL] = 8,
	[M_ZRAM_ORIG] = 9, [M_ZRAM_COMPR] = 9, [M_ZRAM_MEM] = 9, [M_ZRAM_RATIO] = -1,
	[M_ZSWAP_POOL] = 10, [M_ZSWAP_STORED] = 10,
	[M_ZSWPOUT] = 11, [M_ZSWPIN] = 11, [M_ZSWPWB] = 11,
	[M_DR_STALLS] = 12, [M_MEMCG_STALLS] = 12, [M_DR_P99] = -1, [M_DR_TIME] = -1,
	[M_KSWAPD_AWAKE] = -1, [M_THROTTLED] = -1, [M_COMPACT_STALLS] = -1, [M_TRACE_LOST] = -1,
};

int metrics_scale_group(int id)
{
	return id >= 0 && id < M_N ? group_of[id] : -1;
}

/* Row by row in two columns, memory left, rates right; with a cgroup in
 * three, each cgroup plot beside its system counterpart. */
static const int layout_sys[] = {
	M_SWAP_USED, M_MAJFLT, M_FREE, M_MINFLT, M_AVAIL, M_KSWAPD_CPU,
	M_SCAN_KSWAPD, M_SCAN_DIRECT, M_PSI_SOME, M_PSI_FULL,
};
static const int layout_cg[] = {
	M_SWAP_USED, M_CG_SWAP, M_KSWAPD_CPU, M_MAJFLT, M_CG_MAJFLT, M_MINFLT,
	M_AVAIL, M_CG_MEM, M_FREE, M_SCAN_KSWAPD, M_SCAN_DIRECT, M_PSI_SOME,
};

/* What compressed swap puts in place of which plot: system, then cgroup. */
static const int swap_in[2][2][4][2] = {
	{ { { M_FREE, M_ZRAM_ORIG }, { M_MINFLT, M_ZRAM_RATIO },
	    { M_SCAN_KSWAPD, M_ZRAM_MEM }, { M_PSI_FULL, M_PSWPOUT } },
	  { { M_FREE, M_ZSWAP_STORED }, { M_MINFLT, M_ZSWPOUT },
	    { M_SCAN_KSWAPD, M_ZSWAP_POOL }, { M_PSI_FULL, M_ZSWPIN } } },
	{ { { M_KSWAPD_CPU, M_ZRAM_RATIO }, { M_MINFLT, M_PSWPOUT },
	    { M_FREE, M_ZRAM_MEM }, { M_SCAN_KSWAPD, M_ZRAM_ORIG } },
	  { { M_KSWAPD_CPU, M_ZSWAP_POOL }, { M_MINFLT, M_ZSWPOUT },
	    { M_FREE, M_ZSWAP_STORED }, { M_SCAN_KSWAPD, M_ZSWPIN } } },
};

int metrics_default_plots(bool cgroup, enum metric_comp comp, int ids[M_N])
{
	const int *l = cgroup ? layout_cg : layout_sys;
	int n = cgroup ? (int)(sizeof(layout_cg) / sizeof(layout_cg[0])) :
			 (int)(sizeof(layout_sys) / sizeof(layout_sys[0]));

	memcpy(ids, l, sizeof(*l) * (size_t)n);
	if (comp == MC_NONE)
		return n;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 4; k++)
			if (ids[i] == swap_in[cgroup][comp == MC_ZSWAP][k][0])
				ids[i] = swap_in[cgroup][comp == MC_ZSWAP][k][1];
	return n;
}

int metrics_parse_list(const char *text, int ids[M_N], char *err, size_t errlen)
{
	char name[64];
	int n = 0;
	bool seen[M_N] = { false };

	for (const char *p = text;;) {
		size_t k = strcspn(p, ",");
		int id;

		while (k && (*p == ' ' || *p == '\t'))
			p++, k--;
		while (k && (p[k - 1] == ' ' || p[k - 1] == '\t'))
			k--;
		if (!k) {
			char safe[256];

			fmt_escape(safe, sizeof(safe), text);
			return fmt_err(err, errlen, "empty name in the plot list \"%.60s\"", safe);
		}
		snprintf(name, sizeof(name), "%.*s", (int)(k < sizeof(name) ? k : sizeof(name) - 1), p);
		if (k >= sizeof(name) || (id = metric_find(name)) < 0) {
			char safe[256];

			fmt_escape(safe, sizeof(safe), name);
			return fmt_err(err, errlen,
				       "no plot named \"%s\" (thrashtop --list-plots lists them)", safe);
		}
		if (seen[id])
			return fmt_err(err, errlen, "plot \"%s\" is listed twice", name);
		seen[id] = true;
		ids[n++] = id;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	return n;
}

size_t metrics_list_text(const int *ids, int n, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const struct metric_def *d = metric_def(ids[i]);

		if (d && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "", d->name);
	}
	return o;
}

const char *metric_scope(int id)
{
	if (metric_is_cgroup(id))
		return "cgroup";
	if (id >= M_STALL_SWAPIN && id <= M_STALL_CPU)
		return "workers";
	if (id >= M_ZRAM_ORIG && id <= M_ZRAM_RATIO)
		return "zram";
	return "machine";
}

void metrics_print(FILE *out, const struct metric_avail *av)
{
	fprintf(out, "%-15s %-11s %-9s %-8s %s\n", "NAME", "UNIT", "KIND", "OF", "AVAILABLE");
	for (int i = 0; i < M_N; i++) {
		static const char *const kinds[] = { "gauge", "rate", "percent" };

		fprintf(out, "%-15s %-11s %-9s %-8s %s%s\n", defs[i].name, defs[i].unit,
			kinds[defs[i].kind], metric_scope(i), av->ok[i] ? "yes" : "no: ",
			av->ok[i] ? "" : av->why[i]);
	}
	fprintf(out, "\nOF: machine, every process on it; workers, the workload's processes; "
		"cgroup,\nthe workload's memory cgroup; zram, the session's zram device.\n");
}
