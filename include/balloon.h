/* A balloon: a child process that pins RAM with mlock so the rest of the
 * machine runs in what is left (--global SIZE). It is in its own process
 * group (a terminal's ^C does not reach it), dies with its parent
 * (PR_SET_PDEATHSIG), has oom_score_adj 1000 (the OOM killer takes it
 * first), and is recorded in the undo state before it pins anything. */
#ifndef THRASHTOP_BALLOON_H
#define THRASHTOP_BALLOON_H

#include <stddef.h>
#include <sys/types.h>

#define BALLOON_MIN_LEAVE (256LL << 20)	/* --global below this is refused */
#define BALLOON_AVAIL_KEEP (512LL << 20)	/* MemAvailable a pin must leave */
#define BALLOON_CHUNK (64LL << 20)		/* largest mmap + mlock step */
#define BALLOON_TIMEOUT_S 120			/* to pin everything */

struct balloon {
	pid_t pid;			/* 0 when not running */
	unsigned long long start;	/* its /proc start time */
	long long bytes;		/* pinned */
};

/* --global SIZE: pins MemTotal - leave. Refused (with the figures in err)
 * when leave is below BALLOON_MIN_LEAVE, not below MemTotal, or the pin
 * exceeds MemAvailable - BALLOON_AVAIL_KEEP. Returns 0 once everything is
 * locked, or -1 with err filled and no balloon left. */
int balloon_start_global(struct balloon *b, long long leave, char *err, size_t errlen);

/* Pins bytes (rounded up to whole pages) with the same MemAvailable check.
 * A failure part-way says how much had been pinned. */
int balloon_start_pin(struct balloon *b, long long bytes, char *err, size_t errlen);

/* Whether the balloon still runs: 1, or 0 once it has died (reaped, record
 * dropped, err says how: e.g. the OOM killer took it) or was never started. */
int balloon_check(struct balloon *b, char *err, size_t errlen);

/* SIGKILLs and reaps the balloon, drops its undo record. Returns 0, or -1
 * with err filled. */
int balloon_stop(struct balloon *b, char *err, size_t errlen);

/* For the undo state: SIGKILLs pid if its start time is start, and waits
 * (at most 5 s) until it is gone or a zombie. Gone already is 0. */
int balloon_kill(pid_t pid, unsigned long long start, char *err, size_t errlen);

#endif
