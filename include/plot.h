/* Renders a series into cells (code points, or rows of UTF-8), one glyph each;
 * no ncurses, so the same code draws the monitor and plain-text reports.
 *
 * The newest w*k samples are drawn right-aligned, k samples per cell
 * (plot_samples_per_cell). A value fills the column from the bottom: the
 * lowest sub-level is 0 and the top one is ymax, linearly; any value above
 * 0 is at least one sub-level above the baseline, so a trickle never looks
 * like zero; a zero draws the baseline alone, a gap (NAN) draws nothing.
 * Values below 0 draw as 0, values above ymax as ymax. */
#ifndef THRASHTOP_PLOT_H
#define THRASHTOP_PLOT_H

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

/* Smallest 1, 2 or 5 x 10^k that is >= v; 1 for v <= 0 or NAN. */
double plot_nice_max(double v);

/* The same for a size in KiB: 1, 2, 5, 10, 20, 50, 100, 200 or 500 KiB,
 * MiB, GiB or TiB (so 600 MiB -> 1 GiB); 1 for v <= 0 or NAN. */
double plot_nice_kib(double kib);

#endif
