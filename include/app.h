/* A session: sets the machine up as asked, runs the workload (repeats,
 * sweeps), samples, draws or prints, records, and puts everything back. */
#ifndef THRASHTOP_APP_H
#define THRASHTOP_APP_H

#include <stdint.h>

#include "cli.h"

/* Returns the process exit status: 0, 1 if a run failed, 2 on bad input
 * or set-up failure, 128+N after signal N. */
int app_run(struct options *opt);

struct history;

/* `thrashtop history replay ID`: opens the terminal and plays run id of h
 * in the one loop, the replay its only view, until q, the end of input,
 * or a signal. plots: registry ids, NULL for the run's default layout.
 * Returns an exit status (0, or 2 with the one-line reason on stderr,
 * 128+N after signal N). */
int app_replay(struct history *h, int64_t id, const int *plots, int nplots, double speed);

/* `history export ID --format=asciicast`, `history replay ID --cast`: run
 * id of h played at speed into an asciicast v2 file at path ("-": standard
 * output) as the replay draws it on a cols x rows terminal, without one:
 * the same run and options give the same file. Returns an exit status (0,
 * or 2 with the one-line reason on stderr). */
int app_replay_cast(struct history *h, int64_t id, const int *plots, int nplots, double speed,
		    int cols, int rows, const char *path);

#endif
