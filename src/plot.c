#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "plot.h"

int plot_samples_per_cell(enum plot_mode mode)
{
	return mode == PLOT_BRAILLE ? 2 : 1;
}

int plot_levels_per_cell(enum plot_mode mode)
{
	switch (mode) {
	case PLOT_BRAILLE:
		return 4;
	case PLOT_BLOCK:
		return 8;
	case PLOT_ASCII:
		break;
	}
	return 3;
}

/* 0: nothing (gap or no sample); 1: the zero baseline; nlev: ymax. */
static int level_of(double v, double ymax, int nlev)
{
	double x;
	int lv;

	if (isnan(v))
		return 0;
	if (v <= 0)
		return 1;
	x = v / ymax * (nlev - 1);
	if (x >= nlev - 1)
		return nlev;
	/* lround(x) without the call, in a frame's innermost loop: x - i is
	 * exact for 0 <= x < 2^31 */
	lv = (int)x;
	lv += 1 + (x - lv >= 0.5);
	return lv < 2 ? 2 : lv;
}

/* Level of dot column pos (0 = leftmost) given n visible samples. */
static int level_at(const struct plot *p, const struct series *s, int n,
		    int pos, int nlev)
{
	int j = pos - (p->w * plot_samples_per_cell(p->mode) - n);

	if (j < 0 || j >= n)
		return 0;
	/* the ring read directly: this is a frame's innermost loop */
	return level_of(s->v[(s->head + s->len - n + j) % s->cap], p->ymax, nlev);
}

/* Cell column of the first sample taken after time tm, or -1 if that
 * sample is not visible or no sample precedes tm. */
static int mark_cell(const struct plot *p, const struct series *s, int n,
		     double tm)
{
	int lo = 0, hi = series_len(s), k = plot_samples_per_cell(p->mode);
	double t;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		series_get(s, mid, &t, NULL);
		if (t < tm)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo == series_len(s) || lo < series_len(s) - n)
		return -1;
	return (p->w * k - n + lo - (series_len(s) - n)) / k;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
		return o;
	}
	*o++ = (char)(0xE0 | (cp >> 12));
	*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
	*o++ = (char)(0x80 | (cp & 0x3F));
	return o;
}

static int clampi(int x, int lo, int hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* Braille dot bits of the lowest 0 to 4 dots of a cell's left and right
 * column. */
static const unsigned braille_left[5] = { 0, 0x40, 0x44, 0x46, 0x47 };
static const unsigned braille_right[5] = { 0, 0x80, 0xA0, 0xB0, 0xB8 };

static unsigned cell_glyph(const struct plot *p, const int *lv, int base, int marked)
{
	int f;

	switch (p->mode) {
	case PLOT_BRAILLE: {
		unsigned bits = braille_left[clampi(lv[0] - base, 0, 4)] |
				braille_right[clampi(lv[1] - base, 0, 4)];

		if (bits)
			return 0x2800 + bits;
		break;
	}
	case PLOT_BLOCK:
		f = clampi(lv[0] - base, 0, 8);
		if (f)
			return 0x2580 + (unsigned)f;
		break;
	case PLOT_ASCII:
		f = clampi(lv[0] - base, 0, 3);
		if (f)
			return (unsigned char)".:#"[f - 1];
		break;
	}
	if (!marked)
		return ' ';
	return p->mode == PLOT_ASCII ? '|' : 0x2502;	/* box drawings light vertical */
}

int plot_render_cells(const struct plot *p, const struct series *s, unsigned *cells,
		      size_t stride, unsigned char *markcol)
{
	int k, nlev, n, lpc, mi = 0, mc = -1, lv[2] = { 0, 0 }, hi, lo;
	unsigned full, vline;

	if (p->w < 1 || p->h < 1 || !(p->ymax > 0) || isinf(p->ymax) ||
	    stride < (size_t)p->w || (p->nmarks > 0 && !p->marks)) {
		errno = EINVAL;
		return -1;
	}
	k = plot_samples_per_cell(p->mode);
	lpc = plot_levels_per_cell(p->mode);
	nlev = p->h * lpc;
	full = cell_glyph(p, (const int[2]){ lpc, lpc }, 0, 0);
	vline = cell_glyph(p, (const int[2]){ 0, 0 }, 0, 1);
	n = series_len(s) < p->w * k ? series_len(s) : p->w * k;
	/* a column at a time: its samples are read once for all its rows */
	for (int c = 0; c < p->w; c++) {
		/* marks ascending: advance to the first at or past c */
		while (mi < p->nmarks && mc < c)
			mc = mark_cell(p, s, n, p->marks[mi++]);
		int marked = mc == c;

		if (markcol)
			markcol[c] = (unsigned char)marked;
		for (int i = 0; i < k; i++)
			lv[i] = level_at(p, s, n, c * k + i, nlev);
		hi = k > 1 && lv[1] > lv[0] ? lv[1] : lv[0];
		lo = k > 1 && lv[1] < lv[0] ? lv[1] : lv[0];
		/* cells wholly above the column or below it are alike */
		for (int r = 0, base = (p->h - 1) * lpc; r < p->h; r++, base -= lpc)
			cells[(size_t)r * stride + (size_t)c] =
				base >= hi ? (marked ? vline : ' ') :
				base + lpc <= lo ? full : cell_glyph(p, lv, base, marked);
	}
	return 0;
}

int plot_render(const struct plot *p, const struct series *s, char *out,
		size_t rowbytes, unsigned char *markcol)
{
	unsigned *cells;

	if (p->w < 1 || p->h < 1 || rowbytes < PLOT_ROW_BYTES(p->w)) {
		errno = EINVAL;
		return -1;
	}
	cells = malloc(sizeof(*cells) * (size_t)p->w * (size_t)p->h);
	if (!cells)
		return -1;
	if (plot_render_cells(p, s, cells, (size_t)p->w, markcol)) {
		free(cells);
		return -1;
	}
	for (int r = 0; r < p->h; r++) {
		char *o = out + (size_t)r * rowbytes;

		for (int c = 0; c < p->w; c++)
			o = put_utf8(o, cells[(size_t)r * (size_t)p->w + (size_t)c]);
		*o = '\0';
	}
	free(cells);
	return 0;
}

/* Smallest of m * {1, 2, 5} * 10^j (j >= 0) that is >= v, for v >= m. */
static double nice_from(double v, double m)
{
	static const double step[3] = { 1, 2, 5 };
	double p = m;

	while (p * 10 <= v)
		p *= 10;
	for (int i = 0; i < 3; i++)
		if (p * step[i] >= v * (1 - 1e-12))
			return p * step[i];
	return p * 10;
}

double plot_nice_max(double v)
{
	double p = 1;

	if (!(v > 0) || isinf(v))
		return 1;
	while (p > v)
		p /= 10;
	return nice_from(v, p);
}

double plot_nice_kib(double kib)
{
	double unit = 1;

	if (!(kib > 0) || isinf(kib))
		return 1;
	if (kib <= 1)
		return 1;
	/* Stay in a unit while 500 of it is enough: 600 MiB goes to 1 GiB. */
	while (kib > 500 * unit * (1 + 1e-12) && unit < 1024.0 * 1024 * 1024)
		unit *= 1024;
	return nice_from(kib, unit);
}
