/* A session's sweep cells (sweep.h): the options checked against the
 * sweep before anything is set up, and each cell set up in turn. On this
 * machine the session tunes it itself; a place that tunes itself (an
 * agent's) is asked to set the cell up from the --sweep it was given,
 * and begins the next run only once it has. */
#ifndef THRASHTOP_CELLS_H
#define THRASHTOP_CELLS_H

#include <stdbool.h>
#include <stddef.h>

#include "session.h"

/* The sweep parsed, refused where an option sets what it sweeps; with
 * here, also each compressor and memory limit this machine cannot take
 * (--zswap's and --mem's too, without a sweep). 0, or -1 with err. */
int cells_check(struct session *s, bool here, char *err, size_t errlen);

/* The session's one swap: a file or a zram device, the other removed
 * first; 0 bytes for none. 0, or -1 with err. */
int cells_set_swap(struct session *s, long long bytes, bool zram, const char *algo, char *err,
		   size_t errlen);

/* Sets cell c up: its swap, zswap, memory limit and sysctls (here, or
 * asked of the place), its workload size. In batch mode a header line
 * names it above its runs. 0, or -1 with err. */
int cells_apply(struct session *s, int c, char *err, size_t errlen);

#endif
