/* Several places side by side: the same session run at each of them at
 * once (--host and --kernel given more than once, the boxes of a sweep),
 * a session (session.h) each, driven by one loop and drawn by one
 * monitor. The places start together: guests boot at once, boxes connect
 * at once. A place that cannot start, or fails or drops later, costs its
 * own runs only: what it ran is kept, its lines stay on the plots, the
 * others go on. Their runs share a session id and carry the place as
 * their cell ("host=box", "kernel=6.1"), so that the table at the end and
 * `history compare session:ID` set the places beside each other. One
 * place is the plain session, as session.h has it. */
#ifndef THRASHTOP_SIDES_H
#define THRASHTOP_SIDES_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "runrec.h"
#include "session.h"

#define SIDES_MAX CLI_PLACES_MAX

struct side {
	struct session s;
	struct options o;		/* the session's: this place alone */
	char name[24];			/* its short name: the box, the kernel's version */
	char cell[300];			/* its runs' cell beside others: "host=box" */
	bool dead;			/* it failed or dropped: no run of it is left */
	bool all_started;		/* no run of it is left to start */
	char why[512];			/* why it is dead */
};

struct sides {
	int n;				/* the places that started */
	struct side *side[SIDES_MAX];
	int nfailed;			/* places that could not start */
	bool several;			/* more than one place was asked for */
	bool tui;
	const struct session *printed;	/* whose run batch mode printed last */
	char id[64];			/* the session id of several */
	int shared;			/* places on this machine's cores, when 2 or more */
	char shared_text[160];		/* "6.1 and 6.12 share this machine's 2 CPUs" */
	/* a note of the whole (a screen written), not one place's */
	char note[256];
	bool note_error;
	double note_until;
};

/* The places o names (o->places; none or one: the plain session of o),
 * started together; each one that cannot start is said in one line on
 * stderr. 0; or -1 with err when none started (the lines of the others
 * said already), or a plain session failed (what was set up stays for
 * sides_close). */
int sides_open(struct sides *sd, const struct options *o, char *err, size_t errlen);

/* The live places' tick descriptors, at most SIDES_MAX: how many. */
int sides_tick_fds(const struct sides *sd, int *fds);

/* Place i failed or dropped (why, one line): its run ended as aborted and
 * kept, why said (stderr in batch mode, a note in the monitor and again
 * at its exit), its session left for sides_close. */
void sides_lose(struct sides *sd, int i, const char *why);

/* Whether every place is done: dead, or with no run left to start nor one
 * in progress. */
bool sides_over(const struct sides *sd);

/* Whether every place is dead. */
bool sides_dead(const struct sides *sd);

/* A note of the whole: the plain session's own, else the monitor's
 * status line (stderr in batch mode). */
void sides_note(struct sides *sd, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The exit status the places earn, the worst of theirs: 2 one could not
 * start or dropped, 1 a run failed or quit is early, else 0. */
int sides_status(const struct sides *sd, bool quit_early);

/* Closes every session. Several places' runs are handed to runs (NULL:
 * their table printed, with the commands that show it again). */
void sides_close(struct sides *sd, struct run_record **runs, size_t *nruns);

#endif
