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
};

struct plot_col;

struct plot_canvas {
	int w, h;
	enum plot_mode mode;
	bool drawn;		/* cells hold a frame of this size and mode */
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

/* Smallest 1, 2 or 5 x 10^k that is >= v; 1 for v <= 0 or NAN. */
double plot_nice_max(double v);

/* The same for a size in KiB: 1, 2, 5, 10, 20, 50, 100, 200 or 500 KiB,
 * MiB, GiB or TiB (so 600 MiB -> 1 GiB); 1 for v <= 0 or NAN. */
double plot_nice_kib(double kib);

#endif
