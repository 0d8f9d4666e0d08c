/* A command's output under the monitor, kept in a file the user is told
 * about: DIR/thrashtop-PID-START-XXXXXX.log, made exclusively in $TMPDIR
 * or /tmp. The name carries its owner (pid and /proc start time), so a
 * later start removes one that a killed monitor left; at the end its last
 * lines are printed and it is removed. */
#ifndef THRASHTOP_CMDLOG_H
#define THRASHTOP_CMDLOG_H

#include <stddef.h>
#include <stdio.h>

struct cmdlog {
	int fd;			/* -1: none */
	char path[256];
};

/* Removes the logs of this user's monitors that are no longer running
 * from the directory cmdlog_open would use. How many. */
int cmdlog_sweep(void);

/* Makes the file: 0, or -1 with err. */
int cmdlog_open(struct cmdlog *l, char *err, size_t errlen);

/* Prints its last lines (at most lines) to out, closes and removes it. */
void cmdlog_close(struct cmdlog *l, int lines, FILE *out);

#endif
