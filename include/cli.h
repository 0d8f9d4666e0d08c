/* Command-line options: qsbench's flags (-n -p -s -h -V, plus -m MB as
 * qsbench 1.0 had), top's -d, the batch and history options, the tuning
 * options, and `-- COMMAND` for any command as the workload. */
#ifndef THRASHTOP_CLI_H
#define THRASHTOP_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "metrics.h"
#include "timefmt.h"
#include "sorter.h"

#define CLI_MAX_SYSCTL 32
#define CLI_MAX_SWEEP 8
#define CLI_BOOT_MEM_DEFAULT (512LL << 20)	/* a guest's RAM without --boot-mem */
#define CLI_BOOT_MEM_MIN (32LL << 20)
#define CLI_WAIT_DEFAULT 600	/* --wait without SECONDS */
#define CLI_PLACES_MAX 6	/* --host and --kernel side by side */

/* --global-with: a hugetlb pool where the kernel has one, else a balloon
 * (auto); or one of them only. */
enum global_with { GLOBAL_AUTO, GLOBAL_HUGETLB, GLOBAL_BALLOON };

struct sweep_axis {
	char key[64];		/* swappiness, mem, swap, procs, elems, vm.NAME */
	int nvals;
	char **vals;
};

/* --swap and a sweep's swap value: SIZE or file:SIZE (a swap file),
 * zram:SIZE[:ALGO] (a zram device). */
struct swap_spec {
	int64_t bytes;
	bool zram;
	char algo[32];		/* zram's compressor, "" its default */
};

/* A place --host or --kernel names, in the order given. */
struct cli_place {
	bool kernel;		/* a guest booting what; else the box what over ssh */
	const char *what;
};

/* Parses a swap spec. Returns 0, or -1 with err filled. Pure. */
int cli_parse_swap(const char *arg, struct swap_spec *sp, char *err, size_t errlen);

struct options {
	long nelems;		/* per worker; 0 = pick a default for this machine */
	int procs;		/* 0 = online CPUs */
	unsigned seed;
	bool nelems_set, procs_set;
	double interval;	/* seconds */
	bool interval_set;	/* -d given: the config file's delay does not apply */
	bool list_plots;	/* --list-plots: print the registry and exit */
	bool plots_set;		/* --plots given: the config's plots do not apply */
	int nplots;		/* --plots, else the config's; 0: the default */
	int plots[M_N];		/* registry ids, in screen order */
	int64_t against;	/* --against ID, 0: none */
	const char *cast;	/* --cast FILE, NULL: none */
	bool no_stalls;		/* --no-stalls: no delay accounting */
	bool no_events;		/* --no-events: no tracefs instance */
	const char *config;	/* the config file read, NULL: none */
	bool batch;		/* -b, or stdout is not a terminal */
	enum out_format format;
	int repeat;		/* -r N */
	const char *label;	/* -L */
	const char *history;	/* --history PATH */
	bool no_history;
	int64_t mem_limit;	/* --mem, bytes; 0 = none */
	int64_t global_limit;	/* --global, bytes; 0 = none */
	enum global_with global_with;
	int64_t swap_size;	/* --swap, bytes; 0 = none */
	struct swap_spec swap;	/* --swap as given: a file or zram */
	bool zswap_set;		/* --zswap given */
	char zswap_algo[32];	/* its compressor, "" for off */
	int zswap_pool;		/* its max_pool_percent, -1 as it is */
	struct sort_fill fill;	/* --fill */
	int nsysctl;
	char *sysctl[CLI_MAX_SYSCTL];	/* "vm.NAME=VALUE" */
	int nsweep;
	struct sweep_axis sweep[CLI_MAX_SWEEP];
	const char *knob;	/* --knob vm.NAME: the monitor's k/K key; NULL = default */
	char **argv;		/* after "--": the command workload, else NULL */
	int nmetric;		/* --metric: the command's own figures, its
				   output matched as it passes here */
	struct capture_spec metric[CAPTURE_MAX];
	bool pressure_default;	/* no workload flags given: `make run` defaults */
	int wait;		/* --wait: seconds a tuning session queues for another's
				   end; 0: refused at once */
	const char *kernel;	/* the first --kernel: the runs happen in a guest
				   booting it; NULL: on this machine */
	int64_t boot_mem;	/* --boot-mem, the guest's RAM, bytes */
	/* set by a guest's agent: the disk its host made for --swap's (and a
	 * sweep's) swap files, /dev/vdX, and what backs it; NULL: a file */
	const char *swap_disk, *swap_disk_kind;
	/* set by a sweep over places (kernel=, boot-mem=) for each place's
	 * session: the session id the runs share, and the place's cell text;
	 * and beside other places (sides.h), its short name */
	const char *session_id, *place_cell, *place_name;
	const char *agent;	/* --agent CMD: the runs happen at its place; NULL here */
	const char *host;	/* the first --host [USER@]BOX: the runs happen
				   there, over ssh */
	/* every --host and --kernel, in the order given: more than one, and
	 * the session runs at each of them side by side */
	struct cli_place places[CLI_PLACES_MAX];
	int nplaces;
	bool host_copy;		/* --host-copy: with this binary as BOX's agent */
	int argc;		/* the command line parsed, for a place's agent */
	char **args;
};

/* Parses argv into opt. Returns 0 to go on, 1 when the request is already
 * answered (help, version: exit 0), -1 on bad input (message in err). */
int cli_parse(int argc, char **argv, struct options *opt, char *err, size_t errlen);

void cli_usage(FILE *out);

/* Whether the options change the machine: --mem, --global, --swap,
 * --sysctl, --sweep or --zswap (not the root monitor's default pressure
 * run, which only a session knows it makes). */
bool cli_tunes(const struct options *o);

/* 0 when box is a [USER@]BOX ssh can be given as its destination;
 * -1 with err. */
int cli_check_host(const char *box, char *err, size_t errlen);

/* Frees what cli_parse allocated (sweep values). */
void cli_free(struct options *opt);

#endif
