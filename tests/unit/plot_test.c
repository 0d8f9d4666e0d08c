#include <errno.h>
#include <math.h>
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
