/* Where a frame's CPU time goes, for the bench: with THRASHTOP_PROFILE
 * set to a file name, each part's thread CPU time (CLOCK_THREAD_CPUTIME_ID,
 * user and kernel) is summed from 5 s after start, past the first full
 * frames and the forks, and written to that file at exit. Unset, a part
 * costs one branch. */
#ifndef THRASHTOP_PROF_H
#define THRASHTOP_PROF_H

#include <stdbool.h>
#include <stdint.h>

enum prof_part {
	PROF_SAMPLE,	/* the sampling thread's system sample */
	PROF_WORKERS,	/* the loop's reads of the workers' /proc files */
	PROF_STALLS,	/* the loop's taskstats query of the live workers */
	PROF_MODEL,	/* the loop: samples taken into the run and series, the
			   screen's model filled (workers' reads and stalls
			   excluded) */
	PROF_DRAW,	/* the frame drawn into curses' screen */
	PROF_OUTPUT,	/* curses comparing it with the terminal, and the write */
	PROF_N
};

struct prof_mark {
	int64_t ns;
};

/* Reads THRASHTOP_PROFILE; call once at start, before any thread. */
void prof_init(void);

bool prof_on(void);

/* A part begins and ends on the same thread; parts may nest (WORKERS
 * and STALLS inside MODEL), and the report takes the inner out of the
 * outer. */
void prof_begin(struct prof_mark *m);
void prof_end(enum prof_part p, const struct prof_mark *m);

/* A frame went out. */
void prof_frame(void);

#endif
