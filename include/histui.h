/* The history view: a full-screen browser of recorded runs drawn on the
 * terminal the monitor opened (tui_init). It reads only the history store:
 * the run list newest first, loaded a page at a time; a run's details and
 * recorded plots; marked runs or their groups compared as history
 * compare compares them (compare.h); label and kernel filters. The formatting and paging parts
 * are pure and tested on their own. */
#ifndef THRASHTOP_HISTUI_H
#define THRASHTOP_HISTUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detail.h"
#include "plot.h"
#include "runrec.h"
#include "view.h"

struct history;
struct history_filter;

/* Opens the history view on the terminal tui_init opened, in a window of
 * its own over the monitor's. It closes (VIEW_CLOSE) on q, Esc or h; the
 * owner then draws what is below it again, resized if the terminal was.
 * The filter prompts are a state of the view, fed a key at a time.
 * Failures of the store are shown in the view, not returned. NULL with
 * one line in err when it cannot be shown (no history, no tui_init, out
 * of memory). */
struct view *histui_open(struct history *h, char *err, size_t errlen);

/* The view's own action: p on a run asks its owner to replay it
 * (histui_replay_id). */
enum { HISTUI_REPLAY = VIEW_ACTION + 32 };

/* The run p asked to replay, 0 for none (or another view). */
int64_t histui_replay_id(const struct view *v);

/* A run was added to the history while the view is open: the list is
 * read again at its next draw, and the footer says so. Any other view is
 * left alone. */
void histui_added(struct view *v, int64_t id);

/* ---- pure parts ---- */

/* List columns, in display columns; 0 drops a column. */
struct histui_cols {
	int id, started, label, kernel, params, wall, majflt, kswapd, status;
};

/* Widths the columns want: the longest text of the rows at hand. */
struct histui_want {
	int id, label, kernel, params, wall, majflt, kswapd, status;
	int kernel_min;		/* "6.18.44-…": the version number stays whole */
};

/* Lays the list out in width columns. Every column gets what it wants
 * when it fits (numbers always do); otherwise label, kernel and
 * parameters give way, the widest first (parameters count 8 narrower),
 * down to 5 each (the kernel to kernel_min). The start time shortens to MM-DD HH:MM below 100
 * columns and goes below 80. */
void histui_columns(int width, const struct histui_want *want, struct histui_cols *c);

/* Widens want to fit r. */
void histui_want_run(struct histui_want *want, const struct run_record *r);

/* The workload as the list shows it: "-n N -p P -s S", or the command. */
char *histui_params(const struct run_record *r, char *buf, size_t len);

/* One list row (marked: '*' first) or, for r NULL, the column header, of
 * exactly width display columns. A cut text ends in an ellipsis ("..."
 * without utf8) and is never cut inside a number. Returns buf. */
char *histui_format_run(const struct run_record *r, bool marked, const struct histui_cols *c,
			int width, bool utf8, char *buf, size_t len);

/* Which rows to load so that rows top .. top + nrows - 1 of total are in
 * memory, given that rows have .. have + nhave - 1 are. Returns false when
 * they already are (or there is nothing to show); else true with the
 * offset and limit of one history_list page of at least pagesz rows,
 * starting a little above top so a step back does not reload. */
bool histui_page(long top, int nrows, long total, long have, long nhave, long pagesz,
		 long *off, long *limit);

/* Cursor and first shown row after moving the cursor by delta (clamped to
 * 0 .. total - 1) in a window of nrows rows: the window follows the cursor. */
void histui_move(long *cur, long *top, long total, int nrows, long delta);

/* The rows of the list held in memory: one page of history_list. */
#define HISTUI_PAGE 200

struct histui_cache {
	struct run_record *runs;
	size_t n;
	long off;		/* index of runs[0] in the filtered list */
	long total;		/* runs the filter matches; -1 before counting */
};

/* Counts the matching runs (when total is -1) and loads the page holding
 * rows top .. top + nrows - 1, unless it is loaded. The filter's limit and
 * offset are ignored. 0, or -1 with err filled (the cache is kept). */
int histui_cache_load(struct histui_cache *c, struct history *h, const struct history_filter *f,
		      long top, int nrows, char *err, size_t errlen);
/* Frees the rows and sets total back to -1. */
void histui_cache_drop(struct histui_cache *c);

/* Everything recorded for one run laid out for width columns: the result
 * and time lines (csh, GNU, kswapd), system state and sysctls, free
 * before/after, workers, sysctl changes, then each recorded series as a
 * plot of width x plot_h cells spanning the whole run, with its scale and
 * time axis. 0, or -1 with errno ENOMEM (t freed). */
int histui_detail(const struct run_record *r, int width, int plot_h, enum plot_mode mode,
		  struct detail_lines *t);

#endif
