/* A session: sets the machine up as asked, runs the workload (repeats,
 * sweeps), samples, draws or prints, records, and puts everything back. */
#ifndef THRASHTOP_APP_H
#define THRASHTOP_APP_H

#include "cli.h"

/* Returns the process exit status: 0, 1 if a run failed, 2 on bad input
 * or set-up failure, 128+N after signal N. */
int app_run(struct options *opt);

#endif
