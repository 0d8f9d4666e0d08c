/* The live monitor screen's model and its layout, without curses: the
 * model a caller fills each tick (monscreen.h draws it), where each panel
 * goes on a screen of a given size, and the text of the header's clock,
 * each worker row, each plot's title and the reclaim lane. Pure: no
 * terminal, no I/O. */
#ifndef THRASHTOP_MONLAYOUT_H
#define THRASHTOP_MONLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "metrics.h"
#include "plot.h"
#include "runrec.h"
#include "series.h"
#include "taskstats.h"

struct tui_key;

/* Plots drawn at most: each registry series once. */
#define MS_MAX_PLOTS M_N
/* Places side by side at most, a line each in every plot. */
#define MS_SIDES_MAX 6

struct ms_plot {
	int id;			/* registry id (metrics.h): title, unit, colour */
	const struct series *s;	/* NULL: nothing sampled yet */
	/* A stored run's trace at the same sample times as s (the
	 * --against run, aligned on the run's start), drawn faint behind it;
	 * NULL for none. */
	const struct series *against;
	double scale;		/* top of the y axis in the series' unit; <= 0:
				   a nice maximum of the visible window, shared
				   with the plots of its scale group
				   (metrics_scale_group) */
	const char *na;		/* non-NULL: the figure cannot be read; drawn
				   instead of the plot, e.g. "kswapd not
				   visible (n/a)" or "no swap" */
	const char *extra;	/* appended to the title when there is room,
				   e.g. "failcnt 1.2k/s"; may be NULL */
	/* several places: each one's series (NULL: it has none), a line
	 * each on the model's axis; s and against unused */
	const struct series *side[MS_SIDES_MAX];
};

struct ms_worker {
	pid_t pid;
	const char *phase;	/* sort_phase_name(); NULL for a command */
	double frac;		/* 0..1 of the phase, NAN unknown */
	double elapsed;		/* seconds since start (shown for a command) */
	char state;		/* R S D Z T ..., 0 if unknown */
	double cpu_s;		/* user + system seconds, NAN unknown */
	int64_t majflt, minflt;	/* NA (-1) unknown */
	int64_t rss_kib, swap_kib;	/* NA unknown */
	enum worker_end end;	/* END_RUNNING until reaped */
	int code;		/* END_EXIT: exit status; END_SIGNAL: signal */
	double stall_pct[DL_N];	/* each delay in % of its elapsed time, NAN unknown */
	/* several places: a row of its own above each one's workers, its
	 * text (NULL: a worker), and whose it is (the place's colour) */
	const char *head;
	int side;
	bool head_bad;		/* the place failed or dropped: head says why */
};

struct ms_model {
	/* header */
	const char *host, *kernel;	/* NULL shows "?" */
	const char *place;		/* "vm tcg" off this machine; NULL, "" */
	int64_t ram_kib, swap_kib;	/* NA unknown */
	const char *swapdevs;		/* e.g. "/tmp/swap.img 512Mi"; may be NULL */
	const char *swappiness;		/* as the kernel prints it, "n/a" */
	const char *workload;		/* "qsbench -n 90000000 -p 1 -s 140175100" */
	const char *tuning;		/* "mem 128M, swap +512M": after the
					   workload, or on a header line of its
					   own when both do not fit; may be NULL */
	int run, nruns;			/* run k of N; nruns 0: no count shown */
	double elapsed;			/* seconds into this run */
	double interval;		/* sampling interval, seconds */
	bool paused;			/* flipped by MS_PAUSE, read by the caller */
	bool stalls;			/* flipped by MS_STALLS: the worker rows show
					   stall columns in place of the faults' */
	bool workers_first;		/* flipped by MS_WORKERS: one row of plots,
					   then every worker row that fits */
	const char *warning;		/* on the first header line, e.g.
					   "memory not locked: ..."; may be NULL */
	const char *status;		/* notice line, NULL for none */
	bool status_error;		/* draw status as an error */

	struct ms_plot plot[MS_MAX_PLOTS];	/* in screen order, row by row */
	int nplots;
	const char *against;		/* what the faint traces are, for the
					   status line: "behind: run 12 ..."; NULL */
	const double *marks;		/* marker times, ascending (plot.h) */
	int nmarks;
	/* the reclaim lane under the plots, on their time axis: kswapd awake
	 * as a bar, throttling and OOM kills as marks; lane_awake NULL: no
	 * lane (no reclaim events) */
	const struct series *lane_awake, *lane_throttled;
	const double *lane_kills;	/* OOM kill times, ascending, on the */
	int nlane_kills;		/* series' clock */

	const struct ms_worker *workers;
	int nworkers;

	const char *const *done;	/* completed runs of this session, */
	int ndone;			/* oldest first, preformatted lines */

	const struct tui_key *keys;	/* the view's key table: the ? */
	int nkeys;			/* overlay shows its lines */

	/* several places side by side (nsides > 1): each one's name in the
	 * plots' legends and whether it ended, the time axis of the plots (the
	 * newest sample of any, the interval), the places for the title, and
	 * which share this machine's cores; host, kernel and the header's
	 * figures are each place's own, on its head row */
	int nsides;
	struct {
		const char *name;
		bool ended;
	} side[MS_SIDES_MAX];
	struct plot_axis axis;
	const char *sides_title, *shared;
};

/* The smallest screen the monitor is laid out on: the smallest terminal
 * a view is drawn on (tui.h). */
#define MS_MIN_COLS 60
#define MS_MIN_ROWS 16

#define MS_HEADER_ROWS 3		/* 4 with a line for the tuning */

struct ms_rect {
	int y, x, h, w;
};

/* Where each panel goes. A plot rect includes its title row (the graph is
 * the h - 1 rows below it). The plots fill a grid row by row in the
 * model's order: two columns, three on a wide screen or when a cgroup
 * plot is shown (the default layout puts each beside its system
 * counterpart). Plots that do not fit even two graph rows high are not
 * shown (h 0) and counted in plots_hidden. The worker rect holds the
 * column header, worker_rows workers, and one "N more" row when they do
 * not all fit. The runs rect holds a title row and runs_rows lines (h 0
 * when none). */
struct ms_layout {
	bool too_small;
	struct ms_rect header;
	struct ms_rect plot[MS_MAX_PLOTS];
	int plot_cols;
	int plots_hidden;
	struct ms_rect workers;
	int worker_rows;
	bool worker_more;
	struct ms_rect runs;
	int runs_rows;
	struct ms_rect lane;		/* h 0: none */
};

/* Lays out m (its plots, workers, completed runs and header texts) on a
 * cols x rows screen. Sets too_small below MS_MIN_COLS x MS_MIN_ROWS. */
void ms_layout(int cols, int rows, const struct ms_model *m,
	       struct ms_layout *l);

/* The reclaim lane under a plot of w columns, k samples a column,
 * on the plot's time axis (newest at the right): 'K' in the column of the
 * first sample taken after each of the nkills OOM kill times (ascending;
 * awake's samples give the times), else 'T' where reclaim was throttled,
 * else "━" (utf8, else '=') where kswapd was awake, ' ' elsewhere; either
 * series may be NULL. Returns buf. */
char *ms_format_lane(const struct series *awake, const struct series *throttled,
		     const double *kills, int nkills, int w, int k, bool utf8, char *buf,
		     size_t len);

/* Whether m has cgroup plots: then system-wide figures say so. */
bool ms_cgroup_shown(const struct ms_model *m);

/* The right side of the workload line: "PAUSED", run k of N, the time
 * elapsed (each place's on its head row, with several), the interval and
 * "? help". */
void ms_header_right(const struct ms_model *m, bool paused, double elapsed, char *buf,
		     size_t len);

/* As ms_format_worker, with the stall columns SWAPIN RECLAIM THRASH
 * IO CPUWAIT (each delay in % of the worker's time so far) in place of the
 * faults, RSS and swap. */
char *ms_format_worker_stalls(const struct ms_worker *w, int width, bool utf8,
			      char *buf, size_t len);

/* One worker table row (or the column header for w == NULL) of exactly
 * width display columns (>= MS_MIN_COLS) into buf. utf8 picks the
 * progress bar glyphs. Returns buf. */
char *ms_format_worker(const struct ms_worker *w, int width, bool utf8,
		       char *buf, size_t len);

/* The columns a worker row's state and its progress field start at. */
#define MS_WCOL_STATE 8
#define MS_WCOL_PROG 17

/* How worker w ended, as its progress field says it: "" while it runs,
 * "ok", "exit 3", "OOM killed", ...; buf holds the numbered ones. */
const char *ms_end_text(const struct ms_worker *w, char *buf, size_t len);

/* The top of the y axis of m's plot i, w cells wide: the plot's scale,
 * else a nice maximum of the visible window of every auto-scaled plot of
 * its scale group, the stored run's trace (or every place's line)
 * included; <= 0 before there is a series. mode sets how many samples a
 * cell holds. */
double ms_plot_ymax(const struct ms_model *m, int i, int w, enum plot_mode mode);

/* The title row of m's plot i for a plot width columns wide, its y axis
 * topped at ymax (ms_plot_ymax): its name ("(system)" on system-wide
 * figures beside cgroup plots), the newest value ("n/a" for a gap), the
 * plot's extra text, and the scale "0..X" flush right, exactly width
 * columns. Longer forms give way to shorter ones until it fits: the extra
 * text, then short names ("sys swap", "cg majflt"), then "219M 21%" for
 * "219M (21%)" and "1.6k" for "1.6k/s", then the scale. Returns buf. */
char *ms_format_title(const struct ms_model *m, int i, int width, double ymax, char *buf,
		      size_t len);

/* With several places, the title of plot i: its name, then each place's
 * legend "NAME VALUE" ("ended" for one that did, each named by its line's
 * glyph too where glyphs tell the lines apart), and the scale flush
 * right, exactly width columns. Longer forms give way to shorter ones:
 * the short names of the figure, the scale, the places' names cut. at[j]
 * gets where place j's legend starts and its width (0: not shown), for
 * its colour. Returns buf. */
char *ms_format_side_title(const struct ms_model *m, int i, int width, double ymax, bool glyphs,
			   int at[][2], char *buf, size_t len);

/* "[#####     ]" with width cells in total, frac clamped to 0..1,
 * eighth blocks when utf8. Returns buf. */
char *ms_format_bar(double frac, int width, bool utf8, char *buf, size_t len);

/* A run's done line ("#3 <time line>  0:00 kswapd  oom  cell") in width
 * columns: too wide, its time line is cut ("...") so that its status
 * and cell still show, the status being what a narrow screen must not
 * lose. Returns buf. */
char *ms_format_done(const char *line, int width, bool utf8, char *buf, size_t len);

#endif
