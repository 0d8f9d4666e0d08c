#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

int plot_samples_per_cell(enum plot_mode mode)
{
	return mode == PLOT_BRAILLE ? 2 : 1;
}

int plot_window(const struct series *s, int w, int k, int *right)
{
	*right = w * k - (k == 2 && s ? (int)(s->pushed & 1) : 0);
	return !s ? 0 : series_len(s) < *right ? series_len(s) : *right;
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

/* Level of dot column pos (0 = leftmost) given n visible samples, the
 * newest before dot column right. */
static int level_at(const struct plot *p, const struct series *s, int n, int right,
		    int pos, int nlev)
{
	int j = pos - (right - n);

	if (j < 0 || j >= n)
		return 0;
	/* the ring read directly: this is a frame's innermost loop */
	return level_of(s->v[(s->head + s->len - n + j) % s->cap], p->ymax, nlev);
}

/* Cell column of the first sample taken after time tm, or -1 if that
 * sample is not visible or no sample precedes tm. */
static int mark_cell(const struct plot *p, const struct series *s, int n, int right,
		     double tm)
{
	int lo = series_find(s, tm), len = series_len(s), k = plot_samples_per_cell(p->mode);

	if (lo == 0 || lo == len || lo < len - n)
		return -1;
	return (right - n + lo - (len - n)) / k;
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

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
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
	int k, nlev, n, right, lpc, mi = 0, mc = -1, lv[2] = { 0, 0 }, hi, lo;
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
	n = plot_window(s, p->w, k, &right);
	/* a column at a time: its samples are read once for all its rows */
	for (int c = 0; c < p->w; c++) {
		/* marks ascending: advance to the first at or past c */
		while (mi < p->nmarks && mc < c)
			mc = mark_cell(p, s, n, right, p->marks[mi++]);
		int marked = mc == c;

		if (markcol)
			markcol[c] = (unsigned char)marked;
		for (int i = 0; i < k; i++)
			lv[i] = level_at(p, s, n, right, c * k + i, nlev);
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

struct plot_col {
	int lv[4];	/* levels of its samples, then of the trace's (0: none) */
	int marked;
};

/* Set in a cell's layer while a frame has changed it and not yet handed
 * it on. */
#define CHANGED 0x80

/* Levels of the newest samples of s (may be NULL), the newest before dot
 * column right (the plot's own series places its trace too), into each
 * column's lv[off] and lv[off + 1]; 0 where there is none. */
static void col_levels(const struct plot *p, const struct series *s, int k, int nlev,
		       struct plot_col *col, int off, int right)
{
	int n = s ? imin(series_len(s), right) : 0, pos = 0;
	int idx = n ? (s->head + s->len - n) % s->cap : 0, sh = k == 2;

	for (int c = 0; c < p->w; c++)
		col[c].lv[off] = col[c].lv[off + 1] = 0;
	for (pos = right - n; pos < right; pos++) {
		/* the ring read directly, as in level_at */
		col[pos >> sh].lv[off + (pos & sh)] = level_of(s->v[idx], p->ymax, nlev);
		if (++idx == s->cap)
			idx = 0;
	}
}

/* The glyph of levels lv in the cell whose lowest sub-level is base, ' '
 * for none; unmarked. */
static unsigned glyph_at(const struct plot *p, const int *lv, int k, int base, int lpc,
			 unsigned full)
{
	int hi = k > 1 && lv[1] > lv[0] ? lv[1] : lv[0];
	int lo = k > 1 && lv[1] < lv[0] ? lv[1] : lv[0];

	if (base >= hi)
		return ' ';
	if (base + lpc <= lo)
		return full;
	return cell_glyph(p, lv, base, 0);
}

/* Cell base of column col: its glyph into *g, and its layer. */
static enum plot_layer canvas_cell(const struct plot *p, const struct plot_col *col, int k,
				   int base, int lpc, unsigned full, unsigned vline, unsigned *g)
{
	unsigned live = glyph_at(p, col->lv, k, base, lpc, full);

	if (col->marked) {
		*g = live != ' ' ? live : vline;
		return PLOT_MARK;
	}
	if (live != ' ') {
		*g = live;
		return PLOT_LIVE;
	}
	*g = glyph_at(p, col->lv + 2, k, base, lpc, full);
	return *g != ' ' ? PLOT_FAINT : PLOT_LIVE;
}

/* The rows r0..r1 of a column drawn from a and now from b whose cells
 * can differ: a cell sees a level x only as x - base clamped to 0..lpc,
 * so a level going from lo to hi reaches the rows with base < hi and
 * base + lpc > lo. r0 > r1: none. */
static void dirty_rows(const struct plot_col *a, const struct plot_col *b, int h, int lpc,
		       int *r0, int *r1)
{
	*r0 = h;
	*r1 = -1;
	if (a->marked != b->marked) {
		*r0 = 0;
		*r1 = h - 1;
		return;
	}
	for (int i = 0; i < 4; i++) {
		int lo = imin(a->lv[i], b->lv[i]), hi = a->lv[i] + b->lv[i] - lo;

		if (lo == hi)
			continue;
		*r0 = imin(*r0, h - 1 - (hi - 1) / lpc);
		*r1 = imax(*r1, h - 1 - lo / lpc);
	}
}

static bool canvas_room(struct plot_canvas *c, size_t ncells, size_t ncols, size_t nrows)
{
	if (ncells > c->ncells) {
		unsigned *cells = realloc(c->cells, ncells * sizeof(*cells));
		unsigned char *layer;

		if (cells)
			c->cells = cells;
		layer = cells ? realloc(c->layer, ncells) : NULL;
		if (!layer)
			return false;
		c->layer = layer;
		c->ncells = ncells;
	}
	if (ncols > c->ncols) {
		struct plot_col *col = realloc(c->col, ncols * sizeof(*col)), *next;

		if (col)
			c->col = col;
		next = col ? realloc(c->next, ncols * sizeof(*next)) : NULL;
		if (!next)
			return false;
		c->next = next;
		c->ncols = ncols;
	}
	if (nrows > c->nrows) {
		int *span = realloc(c->span, 2 * nrows * sizeof(*span));

		if (!span)
			return false;
		c->span = span;
		c->nrows = nrows;
	}
	return true;
}

/* Cell o at column x of a row drawn as g in layer ly: kept, and the row's
 * changed span [*lo, *hi] widened, unless the last frame drew it so. */
static void keep_cell(struct plot_canvas *c, int o, unsigned g, int ly, int x, int *lo, int *hi)
{
	if (c->drawn && g == c->cells[o] && ly == c->layer[o])
		return;
	c->cells[o] = g;
	c->layer[o] = (unsigned char)(ly | CHANGED);
	*lo = imin(*lo, x);
	*hi = x;
}

/* Hands on the changed cells of row r, from column x0 to x1, in runs of
 * one layer, and clears their mark. */
static void put_row(struct plot_canvas *c, int r, int x0, int x1, plot_put_fn *put, void *arg)
{
	unsigned char *ly = c->layer + (size_t)r * (size_t)c->w;
	int start = -1;

	for (int x = x0; x <= x1 + 1; x++) {
		bool changed = x <= x1 && (ly[x] & CHANGED);

		if (start >= 0 && (!changed || (ly[x] & ~CHANGED) != ly[start])) {
			put(arg, c, r, start, x - start, (enum plot_layer)ly[start]);
			start = -1;
		}
		if (!changed)
			continue;
		ly[x] &= (unsigned char)~CHANGED;
		if (start < 0)
			start = x;
	}
}

int plot_canvas_draw(struct plot_canvas *c, const struct plot *p, const struct series *s,
		     const struct series *behind, plot_put_fn *put, void *arg)
{
	int k, lpc, nlev, n, right, mi = 0, mc = -1, *lo, *hi;
	unsigned full, vline;
	struct plot_col *t;

	if (p->w < 1 || p->h < 1 || !(p->ymax > 0) || isinf(p->ymax) ||
	    (p->nmarks > 0 && !p->marks)) {
		errno = EINVAL;
		return -1;
	}
	if (p->w != c->w || p->h != c->h || p->mode != c->mode || c->lines)
		c->drawn = false;
	if (!canvas_room(c, (size_t)p->w * (size_t)p->h, (size_t)p->w, (size_t)p->h)) {
		c->drawn = false;
		errno = ENOMEM;
		return -1;
	}
	c->w = p->w;
	c->h = p->h;
	c->mode = p->mode;
	c->lines = false;
	k = plot_samples_per_cell(p->mode);
	lpc = plot_levels_per_cell(p->mode);
	nlev = p->h * lpc;
	full = cell_glyph(p, (const int[2]){ lpc, lpc }, 0, 0);
	vline = cell_glyph(p, (const int[2]){ 0, 0 }, 0, 1);
	n = plot_window(s, p->w, k, &right);
	col_levels(p, s, k, nlev, c->next, 0, right);
	col_levels(p, behind, k, nlev, c->next, 2, right);
	/* the columns whose cells can differ, a column at a time; each row
	 * notes the first and last column it changed in */
	lo = c->span;
	hi = c->span + p->h;
	for (int r = 0; r < p->h; r++) {
		lo[r] = p->w;
		hi[r] = -1;
	}
	for (int x = 0; x < p->w; x++) {
		struct plot_col *b = &c->next[x];
		int r0 = 0, r1 = p->h - 1;

		while (mi < p->nmarks && mc < x)
			mc = mark_cell(p, s, n, right, p->marks[mi++]);
		b->marked = mc == x;
		if (c->drawn && !memcmp(&c->col[x], b, sizeof(*b)))
			continue;
		if (c->drawn)
			dirty_rows(&c->col[x], b, p->h, lpc, &r0, &r1);
		for (int r = r0; r <= r1; r++) {
			size_t o = (size_t)r * (size_t)p->w + (size_t)x;
			unsigned g;
			enum plot_layer ly = canvas_cell(p, b, k, (p->h - 1 - r) * lpc, lpc, full,
							 vline, &g);

			keep_cell(c, o, g, (int)ly, x, &lo[r], &hi[r]);
		}
	}
	for (int r = 0; r < p->h; r++)
		if (lo[r] <= hi[r])
			put_row(c, r, lo[r], hi[r], put, arg);
	t = c->col;
	c->col = c->next;
	c->next = t;
	c->drawn = true;
	return 0;
}

void plot_axis_values(const struct plot_axis *ax, int w, int k, const struct series *s,
		      double *out)
{
	int nd = w * k, len = s ? series_len(s) : 0;
	long newest = lround(ax->t / ax->dt);
	/* a cell pairs an even slot with the odd one after it */
	int xn = k == 2 && !(newest & 1) ? nd - 2 : nd - 1;
	double far = 0.75 * ax->dt, *dist = malloc(sizeof(*dist) * (size_t)(nd > 0 ? nd : 1));

	for (int x = 0; x < nd; x++) {
		out[x] = NAN;
		if (dist)
			dist[x] = INFINITY;
	}
	if (!dist || !len)
		goto out;
	for (int i = series_find(s, (double)(newest - xn) * ax->dt - 2 * ax->dt); i < len; i++) {
		double t, v;
		long j;

		series_get(s, i, &t, &v);
		j = lround(t / ax->dt);
		/* the nearest slot, and an empty one beside it within reach:
		 * two beats that drift apart leave no holes in a line */
		for (long jj = j - 1; jj <= j + 1; jj++) {
			long x = xn - (newest - jj);
			double e = fabs(t - (double)jj * ax->dt);

			if (x < 0 || x >= nd || e > far || e >= dist[x])
				continue;
			dist[x] = e;
			out[x] = v;
		}
	}
out:
	free(dist);
}

char plot_line_glyph(int i)
{
	static const char g[] = "*o+x%@";

	return g[i % (int)(sizeof(g) - 1)];
}

/* Braille dots from the bottom of a cell's left and right column. */
static const unsigned dot_left[4] = { 0x40, 0x04, 0x02, 0x01 };
static const unsigned dot_right[4] = { 0x80, 0x20, 0x10, 0x08 };

/* Line i's mark at dot column x, level lv (1..h * levels) into the cells
 * (braille: dots, or-ed; else its glyph where no lower index has one) and
 * own, the lowest line in each cell (0xFF: none). */
static void line_dot(const struct plot *p, int i, int x, int lv, unsigned *cells,
		     unsigned char *own)
{
	int lpc = plot_levels_per_cell(p->mode), k = plot_samples_per_cell(p->mode);
	size_t o = (size_t)(p->h - 1 - (lv - 1) / lpc) * (size_t)p->w + (size_t)(x / k);
	int b = (lv - 1) % lpc;

	if (p->mode == PLOT_BRAILLE)
		cells[o] |= (x & 1 ? dot_right : dot_left)[b];
	else if (own[o] == 0xFF)
		cells[o] = p->mode == PLOT_BLOCK ? 0x2581 + (unsigned)b :
			   (unsigned char)plot_line_glyph(i);
	if (own[o] == 0xFF || own[o] > i)
		own[o] = (unsigned char)i;
}

/* Every line's marks into cells and own, from the values at each dot
 * column (v: room for them). */
static void lines_mark(const struct plot *p, const struct plot_axis *ax,
		       const struct series *const *s, int n, double *v, unsigned *cells,
		       unsigned char *own)
{
	int k = plot_samples_per_cell(p->mode), nlev = p->h * plot_levels_per_cell(p->mode);

	for (int i = 0; i < n; i++) {
		int prev = 0;

		if (!s[i])
			continue;
		plot_axis_values(ax, p->w, k, s[i], v);
		for (int x = 0; x < p->w * k; x++) {
			int lv = level_of(v[x], p->ymax, nlev), lo = lv, hi = lv;

			/* braille joins a level to the one before it */
			if (lv && prev && k == 2 && prev < lv)
				lo = prev + 1;
			else if (lv && prev && k == 2 && prev > lv)
				hi = prev - 1;
			for (int l = lo; lv && l <= hi; l++)
				line_dot(p, i, x, l, cells, own);
			prev = lv;
		}
	}
}

/* The cell column each mark falls in (the first slot at or after it),
 * as 1 in marked[] (p->w entries). */
static void lines_marked(const struct plot *p, const struct plot_axis *ax, unsigned char *marked)
{
	int k = plot_samples_per_cell(p->mode), nd = p->w * k;
	long newest = lround(ax->t / ax->dt);
	int xn = k == 2 && !(newest & 1) ? nd - 2 : nd - 1;

	memset(marked, 0, (size_t)p->w);
	for (int m = 0; m < p->nmarks; m++) {
		long x = xn - (newest - (long)ceil(p->marks[m] / ax->dt - 1e-9));

		if (x >= 0 && x < nd)
			marked[x / k] = 1;
	}
}

int plot_lines_draw(struct plot_canvas *c, const struct plot *p, const struct plot_axis *ax,
		    const struct series *const *s, int n, plot_put_fn *put, void *arg)
{
	size_t nc = (size_t)p->w * (size_t)p->h;
	int k = plot_samples_per_cell(p->mode), *lo, *hi;
	unsigned *cells = NULL, vline;
	unsigned char *own = NULL, *marked = NULL;
	double *v = NULL;

	if (p->w < 1 || p->h < 1 || !(p->ymax > 0) || isinf(p->ymax) || !(ax->dt > 0) ||
	    (p->nmarks > 0 && !p->marks) || n < 0 || n > PLOT_LINE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (p->w != c->w || p->h != c->h || p->mode != c->mode || !c->lines)
		c->drawn = false;
	if (!canvas_room(c, nc, (size_t)p->w, (size_t)p->h) ||
	    !(cells = calloc(nc, sizeof(*cells))) || !(own = malloc(nc)) ||
	    !(marked = malloc((size_t)p->w)) ||
	    !(v = malloc(sizeof(*v) * (size_t)p->w * (size_t)k))) {
		free(cells);
		free(own);
		free(marked);
		c->drawn = false;
		errno = ENOMEM;
		return -1;
	}
	c->w = p->w;
	c->h = p->h;
	c->mode = p->mode;
	c->lines = true;
	memset(own, 0xFF, nc);
	lines_mark(p, ax, s, n, v, cells, own);
	lines_marked(p, ax, marked);
	vline = cell_glyph(p, (const int[2]){ 0, 0 }, 0, 1);
	lo = c->span;
	hi = c->span + p->h;
	for (int r = 0; r < p->h; r++) {
		lo[r] = p->w;
		hi[r] = -1;
		for (int x = 0; x < p->w; x++) {
			size_t o = (size_t)r * (size_t)p->w + (size_t)x;
			unsigned g = own[o] == 0xFF ? (marked[x] ? vline : ' ') :
				     p->mode == PLOT_BRAILLE ? 0x2800 + cells[o] : cells[o];
			int ly = own[o] != 0xFF ? PLOT_LINE + own[o] : marked[x] ? PLOT_MARK : PLOT_LIVE;

			keep_cell(c, o, g, (int)ly, x, &lo[r], &hi[r]);
		}
	}
	for (int r = 0; r < p->h; r++)
		if (lo[r] <= hi[r])
			put_row(c, r, lo[r], hi[r], put, arg);
	c->drawn = true;
	free(cells);
	free(own);
	free(marked);
	free(v);
	return 0;
}

void plot_canvas_forget(struct plot_canvas *c)
{
	c->drawn = false;
}

void plot_canvas_free(struct plot_canvas *c)
{
	free(c->cells);
	free(c->layer);
	free(c->col);
	free(c->next);
	free(c->span);
	*c = (struct plot_canvas){ 0 };
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
