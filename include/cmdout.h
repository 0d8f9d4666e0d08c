/* A command's output passed on through this process while its own
 * figures are captured (capture.h, --metric): its standard output and
 * error each through a pipe of their own, read by a thread as it comes,
 * written on unchanged to where it would have gone, and matched line by
 * line on the way. The command is never kept waiting on a tick, and what
 * it wrote last is all read before the capture is taken. */
#ifndef THRASHTOP_CMDOUT_H
#define THRASHTOP_CMDOUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture.h"

struct cmdout {
	int r[CAPTURE_STREAMS], w[CAPTURE_STREAMS];	/* the pipes, -1 none */
	int dest[CAPTURE_STREAMS];	/* where each goes on */
	int stop[2];			/* written: the thread drains and ends */
	struct capture *cap;
	pthread_t th;
	bool running;
};

/* Nothing open: cmdout_close may be called. */
void cmdout_init(struct cmdout *o);

/* Pipes for a command whose standard output goes on to out and its
 * error to errfd (the same descriptor, or two), matched in cap, and the
 * thread that reads them. The child's ends are o->w[0] (stdout) and
 * o->w[1] (stderr). 0, or -1 with err and nothing left open. */
int cmdout_open(struct cmdout *o, int out, int errfd, struct capture *cap, char *err,
		size_t errlen);

/* The command is forked with its ends: this process's copies closed, so
 * the pipes end when the command's processes have all gone. */
void cmdout_forked(struct cmdout *o);

/* Whatever is written so far passed on and matched, the thread ended,
 * everything closed. Where no process of the command holds a pipe any
 * more, that is all it wrote. */
void cmdout_close(struct cmdout *o);

#endif
