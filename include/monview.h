/* The monitor view: the live screen of monscreen.c as a view of the one loop.
 * It fills its model from the session's state (the plots' series, the
 * workers' rows, the header and status texts) and turns keys into the
 * session's actions; it reads no /proc and changes nothing itself. */
#ifndef THRASHTOP_MONVIEW_H
#define THRASHTOP_MONVIEW_H

#include "monscreen.h"
#include "session.h"
#include "sides.h"
#include "view.h"

/* The monitor's own actions, for the owner of the loop. */
enum monview_action {
	MV_QUIT = VIEW_ACTION,
	MV_RERUN,
	MV_FASTER,
	MV_SLOWER,
	MV_SWAPPINESS_DOWN,
	MV_SWAPPINESS_UP,
	MV_KNOB_DOWN,
	MV_KNOB_UP,
	MV_HISTORY,
	MV_DUMP,
	MV_CHOOSE,
};

/* The monitor's keys and its ? help (tui.h). */
extern const struct tui_key *const monview_keys;
extern const int monview_nkeys;

struct monview {
	struct view v;
	const struct sides *sd;
	const struct session *s;	/* the first place's: the plain session */
	struct ms_model m;
	struct ms_worker *rows;
	int nrows_cap;
	char status[256];
	char wl_line[1024];		/* header: sweep cell and ETA, workload */
	char cg_extra[2][128];		/* cgroup plot titles' extra text */
	char place[32];			/* the header's "vm tcg" */
	int chosen[M_N];		/* the user's plots, registry ids */
	int nchosen;			/* -1: the default layout */

	/* several places: the title, each one's head row text, where its
	 * head row is in the table and how many rows follow it, and every
	 * place's ended runs named, in the order they ended */
	char title[256];
	char heads[MS_SIDES_MAX][640];
	int row_at[MS_SIDES_MAX], nrows[MS_SIDES_MAX];
	char **done;
	int ndone, done_seen[MS_SIDES_MAX];
};

/* Sets the view up over the places' sessions (kept by pointer) with the
 * user's plots (NULL: the default layout). 0, or -1 (out of memory). */
int monview_init(struct monview *mv, const struct sides *sd, const int *plots, int nplots);

/* Place i's worker rows the last frame showed: the first, and how many
 * (-1: no frame yet, all of them), as session.h's rows_first and
 * rows_shown take them. */
void monview_rows(const struct monview *mv, int i, int *first, int *shown);

/* The plots from now on: registry ids in screen order, NULL for the
 * default layout. */
void monview_set_plots(struct monview *mv, const int *plots, int nplots);

/* Fills the model from the session as it is now. 0, or -1 (out of memory:
 * the previous rows are kept). */
int monview_fill(struct monview *mv);

void monview_free(struct monview *mv);

#endif
