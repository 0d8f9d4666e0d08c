/* The live monitor screen (ncursesw), on the terminal tui.h opened. It
 * never reads /proc: it draws a struct ms_model (monlayout.h) the caller
 * fills each tick, where monlayout.h lays it out. */
#ifndef THRASHTOP_MONSCREEN_H
#define THRASHTOP_MONSCREEN_H

#include <stdbool.h>
#include <stdio.h>

#include "monlayout.h"

/* Whether the ? overlay is open: a view gives the keys that close it
 * (q, Esc) to its help op then. */
bool ms_help_shown(void);

/* What the screen does itself, for a view's key table to bind (tui.h);
 * negative, apart from every view's own actions. */
enum ms_op {
	MS_WORKERS = -18,	/* flips model->workers_first */
	MS_STALLS = -17,	/* flips model->stalls */
	MS_PAUSE = -16,		/* flips model->paused: the frame is kept */
	MS_HELP,		/* opens or closes the ? overlay */
	MS_HELP_CLOSE,		/* closes it, if open */
	MS_RESIZE,		/* lays out and draws again */
	MS_REDRAW,		/* the same on a cleared terminal (Ctrl-L) */
	MS_UP,			/* scroll the workers a row, a page, */
	MS_DOWN,		/* to the first or the last */
	MS_PGUP,
	MS_PGDN,
	MS_HOME,
	MS_END,
};

/* Draws the model, then the overlay. While paused the screen keeps its
 * last frame; only a resize, scrolling or Ctrl-L draw the model as it is
 * then. */
void ms_draw(const struct ms_model *m);

/* The next frame is drawn in full: something else has been drawn on the
 * terminal (a view pushed over the monitor). Frames are otherwise drawn
 * by writing only the cells that changed since the last one. */
void ms_touch(void);

/* A window drawn over every frame, after the model and before the
 * terminal is updated (the plot chooser over the live plots); NULL for
 * none. The next frame is drawn in full. */
void ms_set_overlay(void (*draw)(void *arg), void *arg);

/* Writes the model as the screen shows it, plots and bars in ASCII, one
 * line per row with trailing blanks cut, to f. The screen itself keeps
 * its glyphs; the next frame is drawn whole, paused or not, so that a
 * note made meanwhile (the file's name) shows. 0, or -1 (no terminal, or
 * a failed write). */
int ms_dump(const struct ms_model *m, FILE *f);

/* Does op (enum ms_op) on m, and draws the outcome at once. */
void ms_do(struct ms_model *m, int op);

/* Index of the first worker row shown (scrolling). */
int ms_scroll(void);

/* How many worker rows the last frame showed from ms_scroll() on; -1 when
 * no frame has been drawn (or no screen): the caller cannot know which. */
int ms_rows_shown(void);

/* Frees what the screen keeps between frames and forgets its state (help,
 * scrolling); call before tui_end. Safe to call more than once. */
void ms_end(void);

#endif
