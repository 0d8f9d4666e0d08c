/* Sweeps: every combination of the --sweep KEY=V1,V2,... values (the
 * cells), the order they run in, each cell's text as the history keeps it
 * ("mem=128M swappiness=60"), an ETA, and the cross table of a sweep's
 * runs (crosstab_print's, one per combination of any third and further key). */
#ifndef THRASHTOP_SWEEP_H
#define THRASHTOP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "runrec.h"

#define SWEEP_MAX_CELLS 10000

enum sweep_kind {
	SWEEP_SYSCTL,		/* swappiness or any vm.NAME: the sysctl is set */
	SWEEP_MEM,		/* memory cgroup limit, bytes; 0 = none */
	SWEEP_SWAP,		/* temporary swap file or zram device, bytes; 0 = none */
	SWEEP_ZSWAP,		/* zswap off, or on with a compressor */
	SWEEP_PROCS,		/* sorter workers */
	SWEEP_ELEMS,		/* elements per worker */
};

struct sweep_value {
	char text[64];		/* as given */
	long long num;		/* bytes or a count; 0 for a sysctl */
	bool zram;		/* SWEEP_SWAP: a zram device, not a file */
	char algo[32];		/* zram's or zswap's compressor; "": default, off */
	int pool;		/* SWEEP_ZSWAP: max_pool_percent, -1 as it is */
};

struct sweep_dim {
	enum sweep_kind kind;
	char key[64];		/* as given: "mem", "swappiness", "vm.page-cluster" */
	char sysctl[64];	/* SWEEP_SYSCTL: "vm.swappiness" */
	int nvals;
	struct sweep_value *vals;
};

struct sweep {
	int ndims;
	struct sweep_dim dim[CLI_MAX_SWEEP];	/* in the order given */
	int order[CLI_MAX_SWEEP];	/* run order, slowest first: a swap file
					   (slow to build and tear down) changes
					   least often, the rest as given */
	int ncells;
};

/* Checks and expands the axes: known keys (swappiness, mem, swap, zswap,
 * procs, elems, vm.NAME), values that parse (sizes for mem, swap as
 * SIZE, file:SIZE or zram:SIZE[:ALGO], "none" or 0 for none; zswap off
 * or ALGO[:POOL]), no key or value twice, at most SWEEP_MAX_CELLS cells.
 * Returns 0, or -1 with one line in err (nothing allocated). */
int sweep_init(struct sweep *sw, const struct sweep_axis *axes, int naxes,
	       char *err, size_t errlen);
void sweep_free(struct sweep *sw);

/* The dimension of kind (the first SWEEP_SYSCTL naming sysctl for that
 * kind), or -1. */
int sweep_find(const struct sweep *sw, enum sweep_kind kind, const char *sysctl);

/* Cell c (0-based, in run order): idx[d] gets the value index of each
 * dimension d. */
void sweep_cell(const struct sweep *sw, int c, int *idx);

/* "mem=128M swappiness=60": keys in the order given. Returns the length
 * the text needs, as snprintf. */
size_t sweep_cell_text(const struct sweep *sw, int c, char *buf, size_t len);

/* The value of key in a cell text, copied to val. Returns 0, or -1 if the
 * cell has no such key. */
int sweep_cell_value(const char *cell, const char *key, char *val, size_t len);

/* Seconds left: the mean time per finished run so far (done_s over
 * runs_done, set-up included) for the runs still to start, plus what the
 * running one has left by that mean (at least 0). NAN before any run has
 * finished. */
double sweep_eta(double done_s, int runs_done, int runs_total, bool running,
		 double running_s);

/* The run key (run_key) a sweep key's runs are told apart by in the
 * history: "mem" -> "mem", "swap" -> "swap" (the total swap the run had),
 * "elems" -> "nelems", "vm.page-cluster" -> "page_cluster". Returns 0, or
 * -1 when no recorded field holds it. */
int sweep_table_key(const char *key, char *buf, size_t len);

/* The cross table of one sweep's runs, keys taken from their cell text:
 * the first key down, the second across (kernel across for a single key),
 * one table per combination of any further keys. Runs without a cell are
 * left out. Returns 0, or -1 with err filled. */
int sweep_table(FILE *f, const struct run_record *runs, size_t n, char *err, size_t errlen);

/* The table of a sweep's runs on stdout after a blank line (none: nothing)
 * and, when they were kept in a history (history: its path, NULL the
 * default), the command that prints it again for session id. */
void sweep_print(const struct run_record *runs, size_t n, const char *id, bool kept,
		 const char *history);

#endif
