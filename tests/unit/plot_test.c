#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "plot.h"

static struct series ser;

static void fill(const double *v, int n)
{
	series_init(&ser, 64);
	for (int i = 0; i < n; i++)
		series_push(&ser, i, v[i]);
}

#define ROW(buf, w, r) ((buf) + (size_t)(r) * PLOT_ROW_BYTES(w))

/* ymax 15 over 2 rows of 8 eighths: 16 levels, level = 1 + v. */
TEST(plot_block_levels_gaps_and_baseline)
{
	const double v[] = { NAN, 0, 7, 15, 3, 0.1 };
	char buf[2 * PLOT_ROW_BYTES(7)];
	struct plot p = { .w = 7, .h = 2, .mode = PLOT_BLOCK, .ymax = 15 };

	fill(v, 6);
	CHECK_INT(plot_render(&p, &ser, buf, PLOT_ROW_BYTES(7), NULL), 0);
	/* one empty column (no sample), one gap, then 0 7 15 3 0.1 */
	CHECK_STR(ROW(buf, 7, 0), "    █  ");
	CHECK_STR(ROW(buf, 7, 1), "  ▁██▄▂");
	series_free(&ser);
}

TEST(plot_block_clamps_and_shows_newest)
{
	const double v[] = { 15, 15, -4, 99 };
	char buf[PLOT_ROW_BYTES(2)];
	struct plot p = { .w = 2, .h = 1, .mode = PLOT_BLOCK, .ymax = 7 };

	fill(v, 4);
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), 0);
	CHECK_STR(buf, "▁█");
	series_free(&ser);
}

/* ymax 3 over one row of 4 dots: level = 1 + v. Cells: left 0 (dot 7),
 * right 1 (dots 8, 6) = U+28E0; left 2 (dots 7, 3, 2), right 3 (dots
 * 8, 6, 5, 4) = U+28FE. */
/* A level is 1 + x rounded half away from zero, x = v / ymax * 7 on one
 * row of eighths, halves included. */
TEST(plot_block_levels_round_halves_up)
{
	char buf[PLOT_ROW_BYTES(1)];
	struct plot p = { .w = 1, .h = 1, .mode = PLOT_BLOCK, .ymax = 7 };

	for (int i = 1; i < 140; i++) {
		double v = i * 0.05, x = v / p.ymax * 7;
		long lv = 1 + lround(x);
		unsigned cp = 0x2580 + (unsigned)(lv < 2 ? 2 : lv > 8 ? 8 : lv);
		char want[4] = { (char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)),
				 (char)(0x80 | (cp & 0x3F)), 0 };

		series_init(&ser, 4);
		series_push(&ser, 0, v);
		CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), 0);
		if (strcmp(buf, want))
			t_fail(__FILE__, __LINE__, "v %g: U+%04X wanted", v, cp);
		series_free(&ser);
	}
}

TEST(plot_braille_two_samples_per_cell)
{
	const double v[] = { 0, 1, 2, 3 };
	char buf[PLOT_ROW_BYTES(3)];
	struct plot p = { .w = 3, .h = 1, .mode = PLOT_BRAILLE, .ymax = 3 };

	fill(v, 4);
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), 0);
	CHECK_STR(buf, " \u28E0\u28FE");
	series_free(&ser);
}

/* Samples 2i and 2i+1 of those pushed share a cell: with an odd count the
 * newest stands alone in the left half of the last cell, and the next one
 * changes that cell only. */
TEST(plot_braille_pairs_by_push_count)
{
	const double v[] = { 0, 1, 2, 3 };
	char buf[PLOT_ROW_BYTES(3)];
	struct plot p = { .w = 3, .h = 1, .mode = PLOT_BRAILLE, .ymax = 3 };
	int right;

	fill(v, 3);
	CHECK_INT(plot_window(&ser, 3, 2, &right), 3);
	CHECK_INT(right, 5);
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), 0);
	CHECK_STR(buf, " \u28E0\u2846");
	series_push(&ser, 3, v[3]);
	CHECK_INT(plot_window(&ser, 3, 2, &right), 4);
	CHECK_INT(right, 6);
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), 0);
	CHECK_STR(buf, " \u28E0\u28FE");
	/* one sample a cell: no pairing */
	CHECK_INT(plot_window(&ser, 3, 1, &right), 3);
	CHECK_INT(right, 3);
	CHECK_INT(plot_window(NULL, 3, 2, &right), 0);
	series_free(&ser);
}

TEST(plot_braille_gap_in_half_cell)
{
	const double v[] = { 7, NAN, NAN, NAN };
	char buf[2 * PLOT_ROW_BYTES(2)];
	struct plot p = { .w = 2, .h = 2, .mode = PLOT_BRAILLE, .ymax = 7 };

	fill(v, 4);
	CHECK_INT(plot_render(&p, &ser, buf, PLOT_ROW_BYTES(2), NULL), 0);
	/* 7 of 7 fills the left dot column of both rows */
	CHECK_STR(ROW(buf, 2, 0), "\u2847 ");
	CHECK_STR(ROW(buf, 2, 1), "\u2847 ");
	series_free(&ser);
}

/* ymax 5 over 2 rows of thirds: level = 1 + v. */
TEST(plot_ascii_thirds)
{
	const double v[] = { 0, 1, 2, 5, NAN };
	char buf[2 * PLOT_ROW_BYTES(5)];
	struct plot p = { .w = 5, .h = 2, .mode = PLOT_ASCII, .ymax = 5 };

	fill(v, 5);
	CHECK_INT(plot_render(&p, &ser, buf, PLOT_ROW_BYTES(5), NULL), 0);
	CHECK_STR(ROW(buf, 5, 0), "   # ");
	CHECK_STR(ROW(buf, 5, 1), ".:## ");
	series_free(&ser);
}

TEST(plot_marks_first_sample_after_change)
{
	const double v[] = { 0, 0, 0, 0, 0, 0 };
	const double marks[] = { -1, 0, 2.5, 2.7, 5.5 };
	char buf[2 * PLOT_ROW_BYTES(6)];
	unsigned char mc[6];
	struct plot p = { .w = 6, .h = 2, .mode = PLOT_BLOCK, .ymax = 1,
			  .marks = marks, .nmarks = 5 };

	fill(v, 6);	/* t = 0..5 */
	CHECK_INT(plot_render(&p, &ser, buf, PLOT_ROW_BYTES(6), mc), 0);
	CHECK_STR(ROW(buf, 6, 0), "   │  ");
	CHECK_STR(ROW(buf, 6, 1), "▁▁▁▁▁▁");
	for (int c = 0; c < 6; c++)
		CHECK_INT(mc[c], c == 3);
	p.mode = PLOT_ASCII;
	CHECK_INT(plot_render(&p, &ser, buf, PLOT_ROW_BYTES(6), mc), 0);
	CHECK_STR(ROW(buf, 6, 0), "   |  ");
	p.mode = PLOT_BRAILLE;	/* t = 3 is the right half of cell 1 */
	p.w = 3;
	CHECK_INT(plot_render(&p, &ser, buf, PLOT_ROW_BYTES(3), mc), 0);
	CHECK_STR(ROW(buf, 3, 0), " │ ");
	CHECK_INT(mc[1], 1);
	series_free(&ser);
}

TEST(plot_marks_outside_window_hidden)
{
	double v[10] = { 0 };
	const double marks[] = { 3.5, 7.5 };
	char buf[PLOT_ROW_BYTES(4)];
	unsigned char mc[4];
	struct plot p = { .w = 4, .h = 1, .mode = PLOT_ASCII, .ymax = 1,
			  .marks = marks, .nmarks = 2 };

	fill(v, 10);	/* visible: t = 6..9 */
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), mc), 0);
	CHECK_INT(mc[0] + mc[1] + mc[3], 0);
	CHECK_INT(mc[2], 1);
	series_free(&ser);
}

TEST(plot_render_rejects_bad_args)
{
	char buf[PLOT_ROW_BYTES(4)];
	struct plot p = { .w = 4, .h = 1, .mode = PLOT_BLOCK, .ymax = 0 };

	series_init(&ser, 4);
	errno = 0;
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), -1);
	CHECK_INT(errno, EINVAL);
	p.ymax = 1;
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf) - 1, NULL), -1);
	CHECK_INT(plot_render(&p, &ser, buf, sizeof(buf), NULL), 0);
	CHECK_STR(buf, "    ");
	series_free(&ser);
}

TEST(plot_nice_max_steps)
{
	CHECK_NEAR(plot_nice_max(0), 1, 0);
	CHECK_NEAR(plot_nice_max(NAN), 1, 0);
	CHECK_NEAR(plot_nice_max(0.3), 0.5, 1e-12);
	CHECK_NEAR(plot_nice_max(1), 1, 0);
	CHECK_NEAR(plot_nice_max(1.01), 2, 0);
	CHECK_NEAR(plot_nice_max(3), 5, 0);
	CHECK_NEAR(plot_nice_max(7), 10, 0);
	CHECK_NEAR(plot_nice_max(100), 100, 0);
	CHECK_NEAR(plot_nice_max(101), 200, 0);
	CHECK_NEAR(plot_nice_max(450479), 500000, 0);
	CHECK_NEAR(plot_nice_max(1000000), 1000000, 0);
}

TEST(plot_nice_kib_units)
{
	CHECK_NEAR(plot_nice_kib(100), 100, 0);
	CHECK_NEAR(plot_nice_kib(500 * 1024.0), 500 * 1024.0, 0);
	CHECK_NEAR(plot_nice_kib(501 * 1024.0), 1048576, 0);
	CHECK_NEAR(plot_nice_kib(600 * 1024.0), 1048576, 0);
	CHECK_NEAR(plot_nice_kib(1.5 * 1048576), 2 * 1048576.0, 0);
	CHECK_NEAR(plot_nice_kib(3 * 1048576.0), 5 * 1048576.0, 0);
	CHECK_NEAR(plot_nice_kib(24 * 1048576.0), 50 * 1048576.0, 0);
	CHECK_NEAR(plot_nice_kib(-3), 1, 0);
}

/* ---- a canvas drawn frame after frame against a fresh render ---- */

#define CV_MAXW 40
#define CV_MAXH 6

/* What a terminal shows of a canvas: the runs it hands on, each over
 * what the last frame left. */
struct cv_screen {
	unsigned cells[CV_MAXW * CV_MAXH];
	unsigned char layer[CV_MAXW * CV_MAXH];
	int written, unchanged, badlayer;
};

static void cv_put(void *arg, const struct plot_canvas *c, int row, int col, int n,
		   enum plot_layer layer)
{
	struct cv_screen *sc = arg;

	for (int i = 0; i < n; i++) {
		size_t k = (size_t)row * (size_t)c->w + (size_t)(col + i);

		sc->unchanged += sc->cells[k] == c->cells[k] && sc->layer[k] == layer;
		sc->badlayer += c->layer[k] != layer;
		sc->cells[k] = c->cells[k];
		sc->layer[k] = (unsigned char)layer;
		sc->written++;
	}
}

/* The monitor's plot as it was composed before the canvas: s rendered,
 * the trace behind it in the cells s leaves blank, marked columns in
 * the mark layer. */
static void cv_reference(const struct plot *p, const struct series *s, const struct series *behind,
			 unsigned *cells, unsigned char *layer)
{
	unsigned back[CV_MAXW * CV_MAXH];
	unsigned char mark[CV_MAXW];
	size_t n = (size_t)p->w * (size_t)p->h;
	struct plot q = *p;

	q.marks = NULL;
	q.nmarks = 0;
	struct series b = behind ? *behind : (struct series){ 0 };

	/* the trace is placed by the plot's own series: paired as it is */
	b.pushed = s->pushed;
	CHECK_INT(plot_render_cells(p, s, cells, (size_t)p->w, mark), 0);
	memset(layer, PLOT_LIVE, n);
	if (behind && series_len(behind) &&
	    plot_render_cells(&q, &b, back, (size_t)p->w, NULL) == 0)
		for (size_t k = 0; k < n; k++)
			if (cells[k] == ' ' && back[k] != ' ') {
				cells[k] = back[k];
				layer[k] = PLOT_FAINT;
			}
	for (int c = 0; c < p->w; c++)
		if (mark[c])
			for (int r = 0; r < p->h; r++)
				layer[(size_t)r * (size_t)p->w + (size_t)c] = PLOT_MARK;
}

static unsigned cv_rnd = 1;

static double cv_next(double prev, double ymax)
{
	unsigned r;

	cv_rnd = cv_rnd * 1103515245 + 12345;
	r = cv_rnd >> 16 & 0x7FFF;
	if (r % 23 == 0)
		return NAN;
	if (r % 29 == 0)
		return 0;
	if (r % 31 == 0)
		return ymax * 3;	/* above the scale */
	if (r % 37 == 0)
		return -1;
	if (r % 5 == 0)
		return prev;		/* flat: columns that do not change */
	return fmax(prev, 0) * 0.6 + (double)(r % 1000) / 1000 * ymax * 0.5;
}

TEST(plot_canvas_scrolls_as_a_fresh_render)
{
	static const struct { int w, h; enum plot_mode mode; } size[] = {
		{ 20, 3, PLOT_BRAILLE }, { 7, 5, PLOT_BRAILLE }, { 31, 2, PLOT_BRAILLE },
		{ 40, 6, PLOT_BRAILLE }, { 12, 4, PLOT_BLOCK }, { 25, 3, PLOT_ASCII },
		{ 1, 1, PLOT_BRAILLE },
	};
	static const double ymaxes[] = { 10, 25, 7.5, 100, 1e-3 };
	/* two in one column, one before every sample, one between samples */
	const double marks[] = { -5, 13.5, 40.2, 40.7, 90.5, 170, 255.5, 256.5, 400.5 };
	struct series s, behind;
	struct plot_canvas cv = { 0 };
	struct cv_screen sc;
	unsigned want[CV_MAXW * CV_MAXH];
	unsigned char wantl[CV_MAXW * CV_MAXH];
	double v = 0, b = 0;
	int incremental = 0, written = 0, cells = 0, nsize = (int)(sizeof(size) / sizeof(size[0]));

	series_init(&s, 50);	/* less than 40 cells of 2 samples */
	series_init(&behind, 30);
	for (int f = 0; f < 700; f++) {
		int si = f / 100 % nsize;
		struct plot p = { .w = size[si].w, .h = size[si].h, .mode = size[si].mode,
				  .ymax = ymaxes[f / 37 % 5], .marks = marks };
		/* the trace behind: none, then one of its own length */
		const struct series *bh = f % 150 < 40 ? NULL : &behind;
		size_t n = (size_t)p.w * (size_t)p.h;
		bool fresh = f % 100 == 0 || f % 61 == 0;

		/* some frames without a new sample */
		if (f % 17 != 5) {
			v = cv_next(v, p.ymax);
			series_push(&s, f, v);
		}
		if (f % 13 != 7) {
			b = cv_next(b, p.ymax);
			series_push(&behind, f, b);
		}
		while (p.nmarks < (int)(sizeof(marks) / sizeof(marks[0])) && marks[p.nmarks] < f)
			p.nmarks++;
		if (f % 61 == 0)	/* a notice drawn over it */
			plot_canvas_forget(&cv);
		if (fresh)	/* every cell is handed on: the screen's old ones go */
			memset(&sc, 0xEE, sizeof(sc));
		sc.written = sc.unchanged = sc.badlayer = 0;
		CHECK_INT(plot_canvas_draw(&cv, &p, &s, bh, cv_put, &sc), 0);
		cv_reference(&p, &s, bh, want, wantl);
		for (size_t k = 0; k < n; k++) {
			if (sc.cells[k] != want[k] || sc.layer[k] != wantl[k] ||
			    cv.cells[k] != want[k] || cv.layer[k] != wantl[k]) {
				t_fail(__FILE__, __LINE__, "frame %d (%dx%d mode %d ymax %g): cell %zu "
				       "shows U+%04X layer %d, canvas U+%04X, fresh render U+%04X "
				       "layer %d", f, p.w, p.h, p.mode, p.ymax, k, sc.cells[k],
				       sc.layer[k], cv.cells[k], want[k], wantl[k]);
				break;
			}
		}
		CHECK_INT(sc.badlayer, 0);
		if (fresh) {
			CHECK_INT(sc.written, (int)n);
		} else {
			/* only cells that differ are handed on */
			CHECK_INT(sc.unchanged, 0);
			incremental++;
			written += sc.written;
			cells += (int)n;
		}
	}
	CHECK(incremental > 600);
	/* a scroll moves the plot's edge, not every cell */
	CHECK(written < cells / 2);
	/* nothing new: nothing to write */
	{
		struct plot p = { .w = 20, .h = 3, .mode = PLOT_BRAILLE, .ymax = 10 };

		memset(&sc, 0, sizeof(sc));
		CHECK_INT(plot_canvas_draw(&cv, &p, &s, &behind, cv_put, &sc), 0);
		sc.written = 0;
		CHECK_INT(plot_canvas_draw(&cv, &p, &s, &behind, cv_put, &sc), 0);
		CHECK_INT(sc.written, 0);
		p.ymax = 0;
		errno = 0;
		CHECK_INT(plot_canvas_draw(&cv, &p, &s, &behind, cv_put, &sc), -1);
		CHECK_INT(errno, EINVAL);
		CHECK_INT(sc.written, 0);
	}
	plot_canvas_free(&cv);
	plot_canvas_free(&cv);
	series_free(&s);
	series_free(&behind);
}

/* Several places on one time axis: each dot column shows the sample
 * nearest its time, within 3/4 of the interval, else nothing. */
TEST(plot_axis_values_nearest_or_none)
{
	struct plot_axis ax = { 12.5, 0.5 };
	double out[4];

	series_init(&ser, 16);
	series_push(&ser, 9.0, 1);	/* before the plot's left edge */
	series_push(&ser, 11.02, 2);	/* column 0 (11.0) */
	series_push(&ser, 12.6, 3);	/* column 3 (12.5); 12.0 too far */
	plot_axis_values(&ax, 4, 1, &ser, out);
	CHECK(out[0] == 2 && isnan(out[1]) && isnan(out[2]) && out[3] == 3);
	/* two beats that drift: 12.72 is nearest 12.5, which 12.6 has, and
	 * takes the empty column of 13.0 beside it */
	series_push(&ser, 12.72, 4);
	ax.t = 13.0;
	plot_axis_values(&ax, 4, 1, &ser, out);
	CHECK(isnan(out[0]) && isnan(out[1]) && out[2] == 3 && out[3] == 4);
	plot_axis_values(&ax, 4, 1, NULL, out);
	CHECK(isnan(out[0]) && isnan(out[3]));
	series_free(&ser);
}

struct lines_seen {
	char cells[2][5];
	int layer[2][4];
};

static void lines_put(void *arg, const struct plot_canvas *c, int row, int col, int n,
		      enum plot_layer layer)
{
	struct lines_seen *s = arg;

	for (int i = 0; i < n; i++) {
		s->cells[row][col + i] = (char)c->cells[(size_t)row * (size_t)c->w + (size_t)(col + i)];
		s->layer[row][col + i] = (int)layer;
	}
}

/* Two places' lines in ASCII: each its glyph at its level, the first
 * where both fall in a cell; a place without a sample draws nothing. */
TEST(plot_lines_draw_ascii_glyphs)
{
	struct series a, b;
	const double va[] = { 0, 5, 2.5, NAN }, vb[] = { 0, 0, 5, 5 };
	const struct series *s[] = { &a, &b };
	struct plot p = { .w = 4, .h = 2, .mode = PLOT_ASCII, .ymax = 5 };
	struct plot_axis ax = { 3, 1 };
	struct plot_canvas c = { 0 };
	struct lines_seen seen;

	memset(&seen, 0, sizeof(seen));
	series_init(&a, 8);
	series_init(&b, 8);
	for (int i = 0; i < 4; i++) {
		series_push(&a, i, va[i]);
		series_push(&b, i, vb[i]);
	}
	CHECK_INT(plot_lines_draw(&c, &p, &ax, s, 2, lines_put, &seen), 0);
	CHECK_STR(seen.cells[0], " **o");
	CHECK_STR(seen.cells[1], "*o  ");
	CHECK_INT(seen.layer[0][3], PLOT_LINE + 1);
	CHECK_INT(seen.layer[1][0], PLOT_LINE);
	CHECK_INT(seen.layer[1][3], PLOT_LIVE);
	/* the same again hands on nothing; a new sample, its columns */
	memset(&seen, 0, sizeof(seen));
	CHECK_INT(plot_lines_draw(&c, &p, &ax, s, 2, lines_put, &seen), 0);
	CHECK_INT(seen.cells[0][0] | seen.cells[1][0] | seen.cells[0][3], 0);
	CHECK_INT(plot_line_glyph(0), '*');
	CHECK_INT(plot_line_glyph(7), 'o');
	plot_canvas_free(&c);
	series_free(&a);
	series_free(&b);
}

static void lines_none(void *arg, const struct plot_canvas *c, int row, int col, int n,
		       enum plot_layer layer)
{
	(void)arg;
	(void)c;
	(void)row;
	(void)col;
	(void)n;
	(void)layer;
}

/* Braille joins a line's level to the one before it. */
TEST(plot_lines_draw_braille_joins)
{
	struct series a;
	const struct series *s[] = { &a };
	struct plot p = { .w = 1, .h = 1, .mode = PLOT_BRAILLE, .ymax = 3 };
	struct plot_axis ax = { 1, 1 };
	struct plot_canvas c = { 0 };
	unsigned got = 0;

	series_init(&a, 4);
	series_push(&a, 0, 0);
	series_push(&a, 1, 3);
	/* levels 1 then 4: dot 7 on the left, and on the right dots 6, 5
	 * and 4, levels 2 to 4, joined up from level 1 */
	CHECK_INT(plot_lines_draw(&c, &p, &ax, s, 1, lines_none, NULL), 0);
	got = c.cells[0];
	CHECK_INT(got, 0x2800 + 0x40 + 0x20 + 0x10 + 0x08);
	plot_canvas_free(&c);
	series_free(&a);
}
