/* The registry of series: every figure the sampler reads that can be
 * plotted, stored and replayed, with its name, unit, kind and scale rule,
 * and whether this machine gives it (with the reason when it does not).
 * --list-plots, the history, its exports and charts all go through this
 * one list. Pure: no I/O; values come from
 * the sampler's samples and the workload cgroup's counters. */
#ifndef THRASHTOP_METRICS_H
#define THRASHTOP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgroup.h"
#include "sampler.h"
#include "taskstats.h"

/* Registry order is listing order; a new series goes before M_N. Names,
 * not these numbers, are what the history and config files keep. */
enum metric_id {
	M_SWAP_USED, M_FREE, M_AVAIL, M_CACHED, M_SWAP_CACHED,
	M_MAJFLT, M_MINFLT, M_PSWPIN, M_PSWPOUT,
	M_SCAN_KSWAPD, M_SCAN_DIRECT, M_STEAL_KSWAPD, M_STEAL_DIRECT,
	M_ALLOCSTALL, M_REFAULT_ANON, M_REFAULT_FILE,
	M_PSI_SOME, M_PSI_FULL, M_PSI_SOME_RATE, M_PSI_FULL_RATE,
	M_KSWAPD_CPU, M_PROCS_RUNNING, M_PROCS_BLOCKED,
	M_CG_MEM, M_CG_SWAP, M_CG_MAJFLT, M_CG_REFAULT, M_CG_PSI_SOME, M_CG_PSI_FULL,
	M_ZRAM_ORIG, M_ZRAM_COMPR, M_ZRAM_MEM, M_ZRAM_RATIO,
	M_ZSWAP_POOL, M_ZSWAP_STORED, M_ZSWPOUT, M_ZSWPIN, M_ZSWPWB,
	M_STALL_SWAPIN, M_STALL_RECLAIM, M_STALL_THRASHING, M_STALL_IO, M_STALL_CPU,
	/* reclaim events (tracer.c) */
	M_DR_STALLS, M_DR_P99, M_DR_TIME, M_KSWAPD_AWAKE, M_MEMCG_STALLS,
	M_THROTTLED, M_COMPACT_STALLS, M_TRACE_LOST,
	M_N
};

enum metric_kind {
	MK_GAUGE,	/* a level read as it is now */
	MK_RATE,	/* a counter's change per second between two samples */
	MK_PERCENT,	/* a share already in % (kernel averages, CPU share) */
};

/* Where a plot's y axis ends (metrics_scale). */
enum metric_scale {
	MS_RAM,		/* the RAM the kernel can use: MemTotal less hugetlb
			   pools and mlocked memory (a --global balloon) */
	MS_SWAP,	/* swap total */
	MS_PERCENT,	/* 100 */
	MS_CG_LIMIT,	/* the cgroup's memory limit; auto when unlimited */
	MS_CG_SWAP,	/* swap total, or the cgroup's swap limit if lower */
	MS_AUTO,	/* a nice maximum of the window shown */
};

struct metric_def {
	const char *name;	/* "scan-kswapd": --list-plots, history */
	const char *title;	/* "scan kswapd" */
	const char *brief;	/* "scan k": a narrow plot's title */
	const char *unit;	/* "KiB", "pages/s", "%" ... */
	enum metric_kind kind;
	enum metric_scale scale;
	double quantum;		/* the resolution the history keeps */
	const char *source;	/* where it is read, shown in the chooser */
};

/* NULL for an id out of range. */
const struct metric_def *metric_def(int id);
/* The id of name, or -1. */
int metric_find(const char *name);
/* Whether id is one of the reclaim-event series. */
bool metric_is_reclaim(int id);

/* Whether id is one of the workload cgroup's series. */
bool metric_is_cgroup(int id);
/* Whose figure id is: "machine", "workers", "cgroup" or "zram". */
const char *metric_scope(int id);

/* The workload's memory cgroup as the availability sees it. */
struct metric_cgroup_info {
	bool present;		/* false: no --mem, no cgroup */
	int version;		/* 1 or 2; 0 none (or not known) */
	bool swap_accounted;	/* v1: memory.memsw.* exist */
};

struct metric_avail {
	bool ok[M_N];
	char why[M_N][96];	/* for each !ok: "kernel has no pgscan_direct" */
};

/* What this machine gives, from what the sampler found at start and the
 * cgroup (NULL: none). */
void metrics_availability(const struct sampler_caps *caps,
			  const struct metric_cgroup_info *cg,
			  struct metric_avail *out);

/* Reclaim events are not had (no root, no tracefs, not a tuning
 * session): every reclaim series n/a with why. */
void metrics_reclaim_availability(struct metric_avail *av, bool ok, const char *why);

/* One tick's inputs. prev NULL: the first sample, rates are NAN. cg_cur
 * NULL: no cgroup; cg_prev NULL or cg_dt <= 0: no cgroup rates yet. */
struct metric_input {
	const struct sys_sample *prev, *cur;
	const struct cgroup_stat *cg_prev, *cg_cur;
	double cg_dt;
	/* the workers' delay totals summed at the last two ticks of a run,
	 * stall_dt seconds apart; NULL: none (no run, no delay accounting) */
	const struct delays *stall_prev, *stall_cur;
	double stall_dt;
};

/* The workers' stall series are n/a, for why (no root, no taskstats). */
void metrics_no_stalls(struct metric_avail *av, const char *why);

/* Every series' value at this tick, NAN where it cannot be read (never a
 * made-up 0). Rates are per second whatever the interval. */
void metrics_values(const struct metric_input *in, double out[M_N]);

/* MemTotal less Hugetlb and Mlocked, KiB; NA when MemTotal is. A figure
 * the kernel lacks counts as 0 here: MemTotal is the honest upper bound. */
int64_t metrics_usable_ram_kib(int64_t total, int64_t hugetlb, int64_t mlocked);

/* The top of id's axis now in its unit; 0 when the rule is auto (or the
 * bound is unknown): a nice maximum of the window shown. cg may be NULL. */
double metrics_scale(int id, const struct sys_sample *cur, const struct cgroup_stat *cg);

/* The same rule from figures kept with a run (KiB; NA unknown): usable
 * RAM from ram, hugetlb and mlocked, swap from swap_total, a cgroup's
 * memory from its limit cg_limit; 0 for auto. */
double metrics_scale_kept(int id, int64_t ram, int64_t hugetlb, int64_t mlocked, int64_t cg_limit,
			  int64_t swap_total);

/* v in id's unit, short: "219M", "1.2k/s", "12%", "3" ("n/a" for NAN). */
size_t metrics_value_text(int id, double v, char *buf, size_t len);

/* A nice top for an auto scale over a window whose highest value is hi. */
double metrics_nice_max(int id, double hi);

/* The auto-scale group id shares with others shown beside it (scan
 * kswapd and direct, swap-ins and outs, PSI some and full), -1 none. */
int metrics_scale_group(int id);

/* Compressed swap at work, for the default plots. */
enum metric_comp { MC_NONE, MC_ZRAM, MC_ZSWAP };

/* The monitor's plots when the user chose none: the five headline figures
 * (swap used, free, available, major and minor faults) and kswapd CPU,
 * reclaim scanning by kswapd and direct, and PSI; with a cgroup, its
 * memory, swap and major faults beside their system counterparts. With
 * zram or zswap, their figures take the places of free, minor faults,
 * kswapd scanning and PSI full (kswapd CPU with a cgroup, where kswapd
 * idles). Returns how many ids were written. */
int metrics_default_plots(bool cgroup, enum metric_comp comp, int ids[M_N]);

/* "swap-used,majflt,psi-some" as registry ids in that order. Returns how
 * many, or -1 with err (an unknown or repeated name, an empty one). */
int metrics_parse_list(const char *text, int ids[M_N], char *err, size_t errlen);

/* The names of ids, comma-separated, as metrics_parse_list reads them.
 * Returns the length (cut to len). */
size_t metrics_list_text(const int *ids, int n, char *buf, size_t len);

/* --list-plots: a header, then one line per series: its name, unit,
 * kind, whose figure it is (OF), and "yes" or "no: reason"; then a note
 * on OF. */
void metrics_print(FILE *out, const struct metric_avail *av);

#endif
