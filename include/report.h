/* Reports over recorded runs: groups and their statistics, and the output
 * formats of `thrashtop history` (the list, a run shown, text for a
 * mailing-list post, time lines, statistics as data); crosstab.h has the
 * cross tables, compare.h the comparisons, export.h csv and json. Writes
 * to a FILE; never exits. */
#ifndef THRASHTOP_REPORT_H
#define THRASHTOP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cmdfig.h"
#include "history.h"
#include "stats.h"

#define REPORT_WIDTH 72

/* Writes first, then text wrapped at REPORT_WIDTH terminal columns at
 * blanks between words, words glued by meaning kept on one line (an option
 * and its value, "-s 1"; a number and what it counts, "3.0s reclaim"), the
 * lines after the first indented by indent columns. */
void report_wrap(FILE *f, const char *first, int indent, const char *text);

/* RM_STALL + k: the workers' delay of kind k (taskstats.h) in % of the
 * run's wall time per worker: their sum over the run's workers (a qsbench
 * run's -p, a command's one), the mean of history show's shares. */
enum report_metric { RM_WALL, RM_USER, RM_SYS, RM_MAJFLT, RM_KSWAPD, RM_STALL,
		     RM_N = RM_STALL + DL_N };

struct report_opts {
	double unstable_cov_pct;	/* a group whose wall CoV passes this is unstable */
	double outlier_z;		/* modified z-score of wall beyond this: outlier */
	bool gnu;			/* time lines as GNU time, else csh */
	size_t lines;			/* stats: a group's newest this many run
					 * lines, 0 for every run */
	const char *rows, *cols;	/* the cross table's keys (crosstab.h) */
};

/* A group's run lines `history stats` prints unless --all is given. */
#define REPORT_STATS_LINES 50

/* 5% and 3.5 (Iglewicz and Hoaglin's cut-off), csh lines, the newest
 * REPORT_STATS_LINES run lines a group, kernel x label. */
void report_opts_default(struct report_opts *o);

/* Runs with one config_hash. Statistics are over the runs that completed
 * (status ok) and whose figure is known; failures are only counted. */
struct report_group {
	const char *config_hash;	/* points into the first run */
	int64_t first_id;		/* its oldest run's: "g:ID" names the group */
	size_t n;			/* runs in the group */
	bool *outlier;			/* n entries: wall time far from the group's */
	int64_t *id;			/* n entries: each run's id */
	size_t nfailed, noom, naborted;
	struct stats_summary st[RM_N];
	struct cmdfigs own;		/* the command's own figures (--metric), of
					 * the completed runs */
	bool unstable;
};

/* Groups runs (any order) by config_hash, groups ordered by their oldest
 * run. Returns 0, or -1 with errno. */
int report_group(const struct run_record *runs, size_t n, const struct report_opts *o,
		 struct report_group **out, size_t *ngroups);
void report_groups_free(struct report_group *g, size_t n);

const char *report_metric_name(enum report_metric m);
/* The metric of one run in its natural unit (seconds, faults), NAN if unknown. */
double report_metric(const struct run_record *r, enum report_metric m);
/* v cut to q-ths, as time lines cut their figures: a min, median or max
 * is then the line it comes from, a mean of equal lines one of them, the
 * median of two their mean. */
double report_cut(double v, double q);
/* A figure of metric m as stats prints it: "n/a", faults whole, the rest
 * to hundredths, a stall with "%". */
void report_figure(char *buf, size_t len, double v, enum report_metric m);

/* What the rows of the command's own figures own are, wrapped as
 * report_wrap does: "(tput higher is better, lat lower: the command's own
 * figures, ...)"; nothing without any. */
void report_own_note(FILE *f, const struct cmdfigs *own, const char *first, int indent);

/* The fields a group header of report_time names where groups differ,
 * " KEY=value" each (kernel_release as "kernel"): what the workload and
 * machine were, then from REPORT_HEADER_SETTINGS on the settings. The
 * list, and report_header_keys[] holding it with a NULL after. */
#define REPORT_HEADER_KEYS \
	"hostname", "kernel_release", "nelems", "procs", "seed", "command", \
	"swappiness", "vfs_cache_pressure", "min_free_kbytes", "watermark_scale_factor", \
	"page_cluster", "overcommit_memory", "dirty_ratio", "dirty_background_ratio", \
	"zswap", "mem_limit_kib", "global_limit_kib", "swap_total_kib", "tmp_swap_kib"
#define REPORT_HEADER_SETTINGS 6
extern const char *const report_header_keys[];
/* The KEY a header prints for field name f. */
const char *report_header_key(const char *f);

/* The fields (history_filter.fields) report_time reads: the rest of a
 * record may be left unknown. */
extern const char *const report_time_fields[];

/* `history list`, a run at a time, newest first: the header, then each
 * row, in columns of these widths (0: the column is left out). */
struct list_cols {
	int started;	/* 16 "2025-03-01 09:00", or 11 "03-01 09:00" */
	int label, host, kernel, workload, kswapd;
};
/* The columns for a terminal cols wide: HOST goes first, then the year,
 * then WORKLOAD and KERNEL narrow and go, then KSWAPD as LABEL narrows;
 * room beyond the layout chosen widens WORKLOAD (to 60) and then LABEL (to
 * 24). Rows fit from 59 columns. cols <= 0 (not a terminal): every
 * column, 133 in all. */
void report_list_cols(int cols, struct list_cols *c);
void report_list_header(FILE *f, const struct list_cols *c);
void report_list_row(FILE *f, const struct run_record *r, const struct list_cols *c);
/* A start time ("2025-03-01T09:00:00Z") as the lists show it, the
 * history view's too: "2025-03-01 09:00" in a column 16 wide, "03-01
 * 09:00" in a narrower one. */
void report_list_started(const char *iso, int w, char *buf, size_t len);
/* `history show`: everything recorded for one run. 0, or -1 (errno) on
 * a write or allocation failure. */
int report_show(FILE *f, const struct run_record *r);
/* The reports printed group by group, as src gives the groups (from the
 * history, memory is one group's figures, about 60 bytes a run, whatever
 * it holds). Return 0, or -1 with err filled. */
struct run_source;
/* `history stats`: per group, the runs and their statistics. */
int report_stats(FILE *f, struct run_source *src, const struct report_opts *o,
		 char *err, size_t errlen);
/* `history stats --format=json|csv`: per group (named g:ID by its oldest
 * run, its counts, verdicts and outliers' IDs), each figure's n, min,
 * median, mean, max, sd and CoV unrounded; JSON null, CSV empty for n/a. */
int report_stats_json(FILE *f, struct run_source *src, const struct report_opts *o,
		      char *err, size_t errlen);
int report_stats_csv(FILE *f, struct run_source *src, const struct report_opts *o,
		     char *err, size_t errlen);
/* The time export: each group's time lines, as the posts showed them. */
int report_time(FILE *f, struct run_source *src, const struct report_opts *o,
		char *err, size_t errlen);
/* The text export: a report for a mailing-list post, which charts the
 * series of one run a group (the only series it reads). */
int report_text(FILE *f, struct run_source *src, const struct report_opts *o,
		char *err, size_t errlen);

#endif
