/* The live monitor screen (ncursesw). It never reads /proc: it draws a
 * struct ui_model the caller fills each tick. setlocale(LC_ALL, "") must
 * have been called before ui_init. */
#ifndef THRASHTOP_UI_H
#define THRASHTOP_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plot.h"
#include "series.h"
#include "workload.h"

enum ui_plot_id {
	UI_PLOT_SWAP,		/* swap used, KiB; scale = swap total */
	UI_PLOT_FREE,		/* MemFree, KiB; scale = RAM total */
	UI_PLOT_AVAIL,		/* MemAvailable, KiB; scale = RAM total */
	UI_PLOT_MAJFLT,		/* major faults/s; scale 0 = auto */
	UI_PLOT_MINFLT,		/* minor faults/s; scale 0 = auto */
	UI_PLOT_KSWAPD,		/* kswapd CPU, % of one CPU; scale 100 */
	UI_NPLOTS
};

struct ui_plot {
	const struct series *s;	/* NULL: nothing sampled yet */
	double scale;		/* top of the y axis in the series' unit; <= 0:
				   a nice maximum of the visible window */
	const char *na;		/* non-NULL: the figure cannot be read; drawn
				   instead of the plot, e.g. "kswapd not
				   visible (n/a)" or "no swap" */
};

struct ui_worker {
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
};

struct ui_model {
	/* header */
	const char *host, *kernel;	/* NULL shows "?" */
	int64_t ram_kib, swap_kib;	/* NA unknown */
	const char *swapdevs;		/* e.g. "/tmp/swap.img 512Mi"; may be NULL */
	const char *swappiness;		/* as the kernel prints it, "n/a" */
	const char *workload;		/* "qsbench -n 90000000 -p 1 -s 140175100" */
	int run, nruns;			/* run k of N; nruns 0: no count shown */
	double elapsed;			/* seconds into this run */
	double interval;		/* sampling interval, seconds */
	bool paused;			/* flipped by ui_key, read by the caller */
	const char *status;		/* notice line, NULL for none */
	bool status_error;		/* draw status as an error */

	struct ui_plot plot[UI_NPLOTS];
	const double *marks;		/* marker times, ascending (plot.h) */
	int nmarks;

	const struct ui_worker *workers;
	int nworkers;

	const char *const *done;	/* completed runs of this session, */
	int ndone;			/* oldest first, preformatted lines */
};

enum ui_action {
	UI_NONE,
	UI_QUIT,
	UI_RERUN,
	UI_TOGGLE_PAUSE,	/* already applied to model->paused */
	UI_FASTER,		/* the caller shortens the interval */
	UI_SLOWER,
	UI_HELP,		/* overlay toggled and drawn */
	UI_RESIZE,		/* relaid out and drawn */
	UI_SWAPPINESS_DOWN,	/* s: the caller lowers vm.swappiness */
	UI_SWAPPINESS_UP,	/* S */
	UI_KNOB_DOWN,		/* k: the caller lowers its chosen vm knob */
	UI_KNOB_UP,		/* K */
	UI_HISTORY,		/* h: the caller opens the history screen */
};

#define UI_MIN_COLS 60
#define UI_MIN_ROWS 16
#define UI_HEADER_ROWS 3

struct ui_rect {
	int y, x, h, w;
};

/* Where each panel goes. A plot rect includes its title row (the graph is
 * the h - 1 rows below it). The worker rect holds the column header,
 * worker_rows workers, and one "N more" row when they do not all fit. The
 * runs rect holds a title row and runs_rows lines (h 0 when none). */
struct ui_layout {
	bool too_small;
	struct ui_rect header;
	struct ui_rect plot[UI_NPLOTS];
	struct ui_rect workers;
	int worker_rows;
	bool worker_more;
	struct ui_rect runs;
	int runs_rows;
};

/* Pure: lays out a cols x rows screen for nworkers workers and ndone
 * completed runs. Sets too_small below UI_MIN_COLS x UI_MIN_ROWS. */
void ui_layout(int cols, int rows, int nworkers, int ndone,
	       struct ui_layout *l);

/* Pure: one worker table row (or the column header for w == NULL) of
 * exactly width display columns (>= UI_MIN_COLS) into buf. utf8 picks the
 * progress bar glyphs. Returns buf. */
char *ui_format_worker(const struct ui_worker *w, int width, bool utf8,
		       char *buf, size_t len);

/* Pure: "[#####     ]" with width cells in total, frac clamped to 0..1,
 * eighth blocks when utf8. Returns buf. */
char *ui_format_bar(double frac, int width, bool utf8, char *buf, size_t len);

/* Opens the terminal (/dev/tty, else stdin/stdout if they are a terminal),
 * sets it up and picks braille (UTF-8 locale) or ASCII plots. Returns 0, or
 * -1 with a one-line message in err; nothing is left changed on failure. */
int ui_init(char *err, size_t errlen);

/* Overrides the plot glyphs picked by ui_init (e.g. for --ascii). */
void ui_set_mode(enum plot_mode mode);
/* The plot glyphs in use, for other screens drawn on the same terminal. */
enum plot_mode ui_mode(void);

/* The descriptor keys arrive on, for poll(); -1 before ui_init. */
int ui_fd(void);

/* Draws the model. While paused the screen keeps its last frame; only a
 * resize, scrolling or Ctrl-L draw the model as it is then. */
void ui_draw(const struct ui_model *m);

/* Handles one key (a getch() value). Help, scrolling, pause and resize
 * are handled here and redrawn at once; the rest is for the caller. */
enum ui_action ui_key(struct ui_model *m, int ch);

/* Index of the first worker row shown (scrolling). */
int ui_scroll(void);

/* Reads pending keys without blocking and returns the first action the
 * caller must handle, UI_NONE when no key is left. Call in a loop. */
enum ui_action ui_read_input(struct ui_model *m);

/* Restores the terminal. Safe to call more than once, and before ui_init. */
void ui_end(void);

#endif
