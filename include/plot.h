/* Renders a series into cells (code points, or rows of UTF-8), one glyph each;
 * no ncurses, so the same code draws the monitor and plain-text reports.
 *
 * The newest samples are drawn right-aligned, k per cell
 * (plot_samples_per_cell); see plot_window. A value fills the column from the bottom: the
 * lowest sub-level is 0 and the top one is ymax, linearly; any value above
 * 0 is at least one sub-level above the baseline, so a trickle never looks
 * like zero; a zero draws the baseline alone, a gap (NAN) draws nothing.
 * Values below 0 draw as 0, values above ymax as ymax. */
#ifndef THRASHTOP_PLOT_H
#define THRASHTOP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"

enum plot_mode {
	PLOT_BRAILLE,	/* 2x4 dots per cell */
	PLOT_BLOCK,	/* eighth blocks, one sample per cell */
	PLOT_ASCII,	/* ".:#" thirds, one sample per cell; '|' markers */
};

/* Bytes one glyph may take, and the room one row of w cells needs. */
#define PLOT_GLYPH_MAX 3
#define PLOT_ROW_BYTES(w) ((size_t)(w) * PLOT_GLYPH_MAX + 1)

struct plot {
	int w, h;		/* cells */
	enum plot_mode mode;
	double ymax;		/* top of the scale, > 0 */
	/* Marker times (same clock as the series), e.g. sysctl changes: the
	 * column of the first sample taken after each one is marked. */
	const double *marks;
	int nmarks;
};

int plot_samples_per_cell(enum plot_mode mode);

/* How many of the newest samples of s (NULL: none) a plot w cells wide at
 * k samples a cell shows, and *right, the dot column after the newest.
 * With two a cell, samples 2i and 2i+1 of those pushed share a cell: a
 * new sample then changes the newest cell alone, and the cells move left
 * every other sample, the newest cell half drawn between (*right is then
 * w * k - 1). Every plot of a screen pushed in step is paired alike; a
 * trace behind a plot is placed by the plot's series. */
int plot_window(const struct series *s, int w, int k, int *right);

/* Sub-levels per cell row: 4, 8 or 3. */
int plot_levels_per_cell(enum plot_mode mode);

/* Writes p->h rows of p->w code points, top first, cell c of row r at
 * cells[r * stride + c]: ' ', ".:#|", U+2502 or U+2581..U+28FF, each one
 * column wide. Marked columns get a vertical line in their empty cells,
 * and markcol[c] (p->w entries; may be NULL) is set to 1 for them, 0
 * otherwise, so a screen can colour them. Returns 0, or -1 with errno
 * EINVAL (bad size or scale, stride < p->w). */
int plot_render_cells(const struct plot *p, const struct series *s, unsigned *cells,
		      size_t stride, unsigned char *markcol);

/* The same as p->h NUL-terminated rows of UTF-8, top first, at out + r *
 * rowbytes. Returns 0, or -1 with errno EINVAL (as above, or rowbytes <
 * PLOT_ROW_BYTES(p->w)) or ENOMEM. */
int plot_render(const struct plot *p, const struct series *s, char *out,
		size_t rowbytes, unsigned char *markcol);

/* A plot drawn frame after frame, as a screen shows it: the cells of its
 * last frame and the levels each column was drawn from. A frame
 * recomputes only the cells of the columns whose levels or marking
 * changed, in the rows that change could reach, and hands on only the
 * cells that differ. Zeroed to start; plot_canvas_free frees it. */
enum plot_layer {
	PLOT_LIVE,	/* the series, and blank cells */
	PLOT_FAINT,	/* a trace behind it, where the series leaves a cell blank */
	PLOT_MARK,	/* every cell of a marked column */
	PLOT_LINE,	/* PLOT_LINE + i: series i of several (plot_lines_draw) */
};

struct plot_col;

struct plot_canvas {
	int w, h;
	enum plot_mode mode;
	bool drawn;		/* cells hold a frame of this size and mode */
	bool lines;		/* ... drawn by plot_lines_draw */
	unsigned *cells;	/* h rows of w, top first, as plot_render_cells */
	unsigned char *layer;	/* enum plot_layer of each cell */
	struct plot_col *col, *next;	/* the last frame's columns, this one's */
	int *span;		/* each row's first and last changed column */
	size_t ncells, ncols, nrows;	/* room */
};

/* Called for each run of cells a frame changed: n cells of one layer
 * from column col of row row, at c->cells + row * c->w + col. */
typedef void plot_put_fn(void *arg, const struct plot_canvas *c, int row, int col, int n,
			 enum plot_layer layer);

/* Draws s into c as plot_render_cells does, and behind it (may be NULL)
 * the trace of another series in the cells s leaves blank, without
 * marks, right-aligned on its own newest sample; marked columns are in
 * PLOT_MARK. Calls put for the cells that differ from c's last frame:
 * all of them after plot_canvas_forget, or when the size or mode
 * changed. Returns 0, or -1 with errno EINVAL (as plot_render_cells) or
 * ENOMEM, having called put for none. */
int plot_canvas_draw(struct plot_canvas *c, const struct plot *p, const struct series *s,
		     const struct series *behind, plot_put_fn *put, void *arg);

/* The next frame hands on every cell: what showed c's cells was drawn
 * over. */
void plot_canvas_forget(struct plot_canvas *c);

void plot_canvas_free(struct plot_canvas *c);

/* Several series on one time axis, a line each: one place's figures
 * beside another's, each sampled on its own beat. Dot column x of a plot
 * w cells wide at k a cell stands for a time on the axis, the newest at
 * the right, dt apart, their cells paired as plot_window pairs samples;
 * it shows the sample of a series nearest that time, if one is within
 * 3/4 of dt of it, else nothing (a place that ended stops there). */
struct plot_axis {
	double t;		/* the newest time */
	double dt;		/* the interval between two dot columns, > 0 */
};

/* The value each of the w * k dot columns shows of s (NULL: none) into
 * out, NAN where none. */
void plot_axis_values(const struct plot_axis *ax, int w, int k, const struct series *s,
		      double *out);

/* The glyph of series i's line in PLOT_ASCII, where colours may not tell
 * the lines apart: '*', 'o', '+', 'x', '%', '@'. */
char plot_line_glyph(int i);

#define PLOT_LINE_MAX 16

/* Draws the n series of s (NULL entries: none, n <= PLOT_LINE_MAX) as lines into c, on the
 * axis, as plot_canvas_draw draws one series, and calls put alike. A line
 * marks the level of each sample (braille: joined to the one before);
 * where lines meet in a cell, braille shows both lines' dots, else the
 * lower index's; a cell is in layer PLOT_LINE + the lowest index in it.
 * Marked columns' empty cells are PLOT_MARK. Returns 0, or -1 with errno
 * EINVAL or ENOMEM, having called put for none. */
int plot_lines_draw(struct plot_canvas *c, const struct plot *p, const struct plot_axis *ax,
		    const struct series *const *s, int n, plot_put_fn *put, void *arg);

/* Smallest 1, 2 or 5 x 10^k that is >= v; 1 for v <= 0 or NAN. */
double plot_nice_max(double v);

/* The same for a size in KiB: 1, 2, 5, 10, 20, 50, 100, 200 or 500 KiB,
 * MiB, GiB or TiB (so 600 MiB -> 1 GiB); 1 for v <= 0 or NAN. */
double plot_nice_kib(double kib);

#endif
