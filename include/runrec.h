/* Stage: the record, a finished run as data. struct run_record and what it
 * holds (workers and how each ended, sysctl changes, free(1) snapshots,
 * status, series), the field table that storage, export and import go
 * through, the canonical configuration that groups runs, the content uuid,
 * and the texts every view gives a run (workload, time line). Pure: no I/O;
 * the run (run.h) fills a record, the history (history.h) keeps it. */
#ifndef THRASHTOP_RUNREC_H
#define THRASHTOP_RUNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "metrics.h"
#include "taskstats.h"
#include "timefmt.h"

/* Samples kept per series of a run: every one up to this many (7 h 16 min
 * at -d 0.1, 3 days at 1 s); a longer run is kept at a coarser step. */
#define RUN_SAMPLES_MAX (1 << 18)

enum run_status { RUN_OK, RUN_FAILED, RUN_OOM, RUN_ABORTED };

/* ok, failed, oom, aborted: as printed, stored and exported, and back
 * (parse returns 0, or -1 for any other text). */
const char *run_status_name(enum run_status st);
int run_status_parse(const char *s, enum run_status *out);
/* The same as the screens show it: "OOM" stands out. */
const char *run_status_title(enum run_status st);
/* What a time line carries after it for the status: "  failed",
 * "  aborted", or "" (an OOM kill has a line of its own before it). */
const char *run_status_mark(enum run_status st);

enum worker_end {
	END_RUNNING,
	END_OK,
	END_VERIFY,	/* sorted array failed verification */
	END_EXIT,	/* exited non-zero (allocation failure, command failure) */
	END_SIGNAL,	/* killed by a signal */
	END_OOM,	/* SIGKILL while the OOM-kill count rose (set by the run) */
};

/* running, ok, verify, exit, signal, oom: as stored and exported, and back
 * (parse returns 0, or -1 for any other text). */
const char *worker_end_name(enum worker_end e);
int worker_end_parse(const char *s, enum worker_end *out);

/* What procps-ng 4 `free -k` prints, in KiB: used = total - available,
 * cache = Cached + SReclaimable. NA where not taken. */
struct mem_snapshot {
	int64_t total, used, free, shared, buffers, cache, avail;
	int64_t swap_total, swap_used, swap_free;
};
#define MEM_SNAPSHOT_NFIELDS 10
/* Field j of m in the order above (the free_snaps columns), its value,
 * and its name there and in exports ("total", ..., "swap_free"). */
int64_t *mem_snapshot_field(struct mem_snapshot *m, int j);
int64_t mem_snapshot_get(const struct mem_snapshot *m, int j);
const char *mem_snapshot_key(int j);
/* True if any field of m is known. */
bool mem_snapshot_taken(const struct mem_snapshot *m);

enum run_kind { RUN_QSBENCH, RUN_COMMAND };

struct run_worker {
	int pid;
	enum worker_end end;
	int exit_code;		/* exit status, NA if killed */
	int signal;		/* terminating signal, 0 if it exited */
	int64_t user_us, sys_us, majflt, minflt;
	int64_t verify_errors;	/* 0, or errors found by the verify pass */
	int64_t first_bad;	/* first bad index, NA if none */
	struct delays delays;	/* its delay totals (seconds), NAN unknown */
};

/* A sysctl written while the run was going (tuning sessions). */
struct run_sysctl_change {
	double t_s;		/* seconds after the run started */
	char name[64], old_val[64], new_val[64];
};

/* A process the OOM killer took from the run, as the kernel log named it. */
struct run_victim {
	int pid;
	char comm[16];		/* at most 15 bytes, as the kernel keeps it */
};

/* A reclaim event the run kept (tracer.c): a stall, kswapd awake, a mark. */
struct run_event {
	double t_s, dur_s;	/* from the run's start; 0 for a mark */
	int pid;		/* the thread, the victim, kswapd's node */
	char kind[12];		/* rc_event_name() */
};

/* A command's own figure (--metric): the number its output gave. */
struct run_metric {
	char name[CAPTURE_NAME_MAX + 1];
	double value;			/* NAN: no value */
	bool higher;			/* higher is better */
};

struct run_record {
	int64_t id;			/* assigned by history_add */
	char uuid[33];			/* stable content id; history_add fills it if empty */
	char started_at[24];		/* UTC, "2025-01-31T12:00:00Z" */
	char label[801];		/* -L's 1 to 200 characters, UTF-8 */

	enum run_kind kind;
	int64_t nelems;			/* qsbench: elements per worker */
	int procs;
	unsigned seed;
	char *command;			/* RUN_COMMAND: the command line (owned) */
	int repeat_k, repeat_n;		/* run k of N (1-based); 1 of 1 if not repeated */
	char session[64];		/* sweep/tuning session id, "" if none */
	char cell[256];			/* that session's cell, "key=value key=value" */

	/* results */
	enum run_status status;
	int64_t wall_us, user_us, sys_us;
	double cpu_pct;
	int64_t majflt, minflt, inblock, oublock;
	int64_t maxrss_kib;		/* the largest worker's ru_maxrss: time(1)'s
					   maxresident */
	double kswapd_s;		/* NAN = n/a */
	struct delays stalls;		/* the workers' delay totals summed, NAN n/a */
	int64_t swap_peak_kib, mem_free_min_kib;
	int64_t swap_before_kib, swap_after_kib;
	int nworkers;
	struct run_worker *workers;	/* owned */

	/* system state at the start */
	char kernel_release[65];
	char *kernel_version;		/* uname -v (owned) */
	char *proc_cmdline;		/* /proc/cmdline (owned) */
	char hostname[65];
	char place[16];			/* "" this machine, "vm" a guest on it */
	char accel[8];			/* a guest's: "kvm" or "tcg"; "" */
	int64_t cgroup_version;		/* the memory cgroup's, 1 or 2; NA */
	int ncpus;
	int64_t ram_kib;
	char *swap_devices;		/* /proc/swaps body (owned) */
	int64_t swap_total_kib;
	int64_t swappiness, vfs_cache_pressure, min_free_kbytes;
	int64_t watermark_scale_factor, page_cluster, overcommit_memory;
	int64_t dirty_ratio, dirty_background_ratio;
	int zswap;			/* 1 on, 0 off, NA unknown */
	int64_t mem_limit_kib;		/* memory cgroup limit, NA none */
	int64_t global_limit_kib;	/* mem= or balloon limit, NA none */
	char global_by[16];		/* "hugetlb", "balloon", "hugetlb+balloon", "":
					 * kept in the config text, no column */
	int shared_cores;		/* the places of its session that ran on one
					 * machine's cores at once (two guests on
					 * it), 0 alone: kept in the config text */
	int64_t tmp_swap_kib;		/* temporary swap added for the run, 0 none */
	int cgroup_new;			/* 1: the memory cgroup was made for this run,
					 * 0: earlier runs used it, NA: none */
	int64_t hugetlb_kib;		/* hugetlb pools at the start, NA unknown */
	int64_t mlocked_kib;		/* mlocked memory at the start (a balloon's too) */
	char *sysctls;			/* every sysctl the session set, as it was at
					   the start: "vm.nr_hugepages=11000\n" (owned) */
	char swap_backend[64];		/* the session's swap: "zram 512M lzo-rle prio
					   32767", "file 2G", "" none */
	char zswap_with[40];		/* zswap at the start: "lzo-rle 20%", "off",
					   "" unknown */
	char fill[16];			/* the sorter's data: "" rand, "text", "zero:50" */
	/* compressed swap at its fullest in the run, NA without */
	int64_t zram_orig_kib, zram_compr_kib;		/* mm_stat at its peak */
	int64_t zswap_stored_kib, zswap_pool_kib;	/* Zswapped, Zswap at its peak */
	int64_t zswpout, zswpwb;			/* pages over the run */
	double interval_s;		/* the sampling interval at the start, s
					 * (+ and - may change it later); NAN
					 * unknown */
	/* reclaim events over the run (tracer.c); NA, NAN without them */
	int64_t reclaim_direct_stalls;
	double reclaim_direct_s, reclaim_direct_p50_ms, reclaim_direct_p99_ms,
	       reclaim_direct_max_ms;
	int64_t reclaim_workload_stalls;	/* of them, the workload's */
	double reclaim_workload_s;
	int64_t reclaim_memcg_stalls;
	double reclaim_memcg_s;
	int64_t reclaim_compact_stalls;
	double reclaim_compact_s;
	int64_t reclaim_kswapd_wakes;
	double reclaim_kswapd_awake_s;
	int64_t reclaim_throttled, reclaim_oom, reclaim_lost;
	int64_t reclaim_events_past;	/* events after the first RC_EVENTS_MAX */
	int nevents;
	struct run_event *events;	/* owned: the first RC_EVENTS_MAX */
	int nvictims;
	struct run_victim *victims;	/* owned: the OOM killer's, workers first */
	int64_t oom_unnamed;		/* kills the run's cgroup counted that no
					 * log line named; NA: the victims were
					 * not recorded (runs before they were) */
	char version[32];		/* thrashtop's */
	int nmetrics;
	struct run_metric *metrics;	/* owned: the command's own figures, by
					 * --metric's order */

	/* free(1)-style, every field NA when not taken */
	struct mem_snapshot free_before, free_after;

	int nchanges;
	struct run_sysctl_change *changes;	/* owned */

	/* The sampled series by registry id (metrics.h), nsamples each,
	 * time-aligned by t; NULL where a series was not recorded. */
	int nsamples;			/* 0..RUN_SAMPLES_MAX */
	double *t;			/* seconds since the run started (owned) */
	double *series[M_N];		/* owned */

	/* Grouping: runs with equal config (workload, host, kernel, sysctls,
	 * limits, swap, label) form a group. history_add computes both. */
	char *config;			/* canonical text (owned) */
	char config_hash[17];		/* FNV-1a 64 of config, hex */
};

/* The record's scalar fields, in storage and export order (id aside). */
enum hist_ftype {
	HF_I64, HF_INT, HF_UINT, HF_DBL,
	HF_STR,		/* char array of .size bytes */
	HF_PSTR,	/* owned char *, NULL = "" */
	HF_KIND, HF_STATUS,
};

struct hist_field {
	const char *name;
	enum hist_ftype type;
	size_t off, size;
	int since;		/* schema version that added the column */
};

extern const struct hist_field history_fields[];
extern const size_t history_nfields;

/* Reads or writes field f of r as text ("" = unknown, but set makes a
 * pointer text, HF_PSTR, known empty: only its NULL is unknown); set
 * returns -1 on a value that does not parse, 0 otherwise. */
int hist_field_get(const struct run_record *r, const struct hist_field *f,
		   char *buf, size_t len);
int hist_field_set(struct run_record *r, const struct hist_field *f, const char *val);
/* Whether v is a count, time or size a run can have: at least 0, or NA. */
bool hist_count_ok(int64_t v);
/* The first number of r that hist_field_set would refuse (a negative
 * count, procs past 1024 ...), or NULL: a history's own runs checked as an
 * export's are. */
const struct hist_field *hist_field_bad(const struct run_record *r);
/* The fields kept only in the config text: its "global_by=" and
 * "shared_cores=" lines into r (setting the config field does it too). */
void run_record_config_fields(struct run_record *r, const char *config);
const struct hist_field *hist_field_find(const char *name);
/* The storage of field f in r. */
void *hist_field_ptr(const struct run_record *r, const struct hist_field *f);

/* Sets every field to "unknown" (NA, NAN, "", NULL). */
void run_record_init(struct run_record *r);
/* Frees owned members and re-inits. */
void run_record_clear(struct run_record *r);
void run_records_free(struct run_record *v, size_t n);
/* Deep copy; -1 with errno on allocation failure (dst left cleared). */
int run_record_copy(struct run_record *dst, const struct run_record *src);

/* r's own figure named name, NULL for none. */
const struct run_metric *run_record_metric(const struct run_record *r, const char *name);
/* Appends a figure to r's. 0, or -1 with errno. */
int run_record_add_metric(struct run_record *r, const char *name, double value, bool higher);

/* Drops any series and allocates t for n samples (zero-filled). 0, or -1
 * with errno (EINVAL: n out of range, ENOMEM). */
int run_record_alloc_series(struct run_record *r, int n);
/* Series id for the nsamples allocated, NAN-filled (the one there if any);
 * NULL with errno (EINVAL: no such id, ENOMEM). */
double *run_record_add_series(struct run_record *r, int id);

/* The line batch mode prints for an OOM victim, "Out of Memory: Killed
 * process PID (comm).", and for kills the run's cgroup counted that no
 * log line named (n > 0). */
void run_oom_line(char *buf, size_t len, int pid, const char *comm);
void run_oom_unnamed_line(char *buf, size_t len, int64_t n);

/* Computes r->config and r->config_hash from r's fields. */
int run_record_config(struct run_record *r);

/* A series name of an older release ("swap_used_kib"), or a registry
 * name: the registry id, or -1. "t" is no series. */
int run_series_id(const char *name);

/* Computes r->uuid from r's config (run_record_config first), start time,
 * figures, session and workers' pids: a content id, so the same run
 * imported twice gets the same one. */
void run_record_uuid(struct run_record *r);

/* A content uuid of text: 32 hex digits of two FNV-1a hashes. */
void run_uuid_of(const char *text, char uuid[33]);

/* The record's figures as time(1) counts them, for timefmt.h. */
void run_record_timeline(const struct run_record *r, struct timeline *t);
/* "qsbench -n 1000000 -p 4 -s 1", or the command line on one line (its
 * control characters blanks, as fmt_blank_controls makes them; cut with
 * "..." where it does not fit). */
void run_record_workload(const struct run_record *r, char *buf, size_t len);

/* Where a run happened, as every view says it: "" this machine, "vm tcg"
 * a guest on it under its accelerator. Returns buf. */
char *run_place_text(const char *place, const char *accel, char *buf, size_t len);

/* "box", or "box (vm tcg)": the host a record names, and where on it. */
char *run_record_host(const struct run_record *r, char *buf, size_t len);
/* Whether a and b ran the same workload, whatever its length. */
bool run_record_same_workload(const struct run_record *a, const struct run_record *b);

/* True for a run read from posted text: every run thrashtop records
 * carries its version. */
bool run_record_posted(const struct run_record *r);
/* True when the run had no swap at its start and end: its swap peak,
 * taken only while swap exists, is none rather than unknown. */
bool run_record_swapless(const struct run_record *r);
/* Series id's lowest and highest sample, gaps left out; false when it has
 * none (not recorded, or all gaps). */
bool run_record_series_range(const struct run_record *r, int id, double *lo, double *hi);
/* The top of the scale series id of r is drawn on, hi its highest sample:
 * the monitor's, from the machine's sizes kept with the run, or a nice
 * round one above hi where that is unknown or too low. */
double run_record_scale(const struct run_record *r, int id, double hi);
/* The time line as csh's time prints it (timefmt_csh), or timefmt_gnu's. */
void run_record_line(const struct run_record *r, bool gnu, char *buf, size_t len);
/* One line of the record's swap devices ("PATH TYPE SIZE_KIB USED_KIB
 * PRIO", as at the run's start) with its units: "/swapfile file, 191M,
 * 0K used, priority -2"; a line not of that form as it is. */
void run_record_swap_line(const char *line, char *buf, size_t len);

#endif
