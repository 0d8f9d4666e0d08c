#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fmt.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(fmt_kib_units)
{
	char b[32];

	fmt_kib(b, sizeof(b), 0);
	CHECK_STR(b, "0K");
	fmt_kib(b, sizeof(b), 980);
	CHECK_STR(b, "980K");
	fmt_kib(b, sizeof(b), 999);
	CHECK_STR(b, "999K");
	fmt_kib(b, sizeof(b), 1000);		/* 0.977M, never "1000K" */
	CHECK_STR(b, "1.0M");
	fmt_kib(b, sizeof(b), 524288);
	CHECK_STR(b, "512M");
	fmt_kib(b, sizeof(b), 1572864);
	CHECK_STR(b, "1.5G");
	fmt_kib(b, sizeof(b), 1048064);		/* 1023.5M */
	CHECK_STR(b, "1.0G");
	fmt_kib(b, sizeof(b), 10423091);	/* 9.94G */
	CHECK_STR(b, "9.9G");
	fmt_kib(b, sizeof(b), 10443571);	/* 9.96G */
	CHECK_STR(b, "10G");
	fmt_kib(b, sizeof(b), 255984);		/* the 2001 box: 249.98M */
	CHECK_STR(b, "250M");
	fmt_kib(b, sizeof(b), 24683620);	/* 23.54G */
	CHECK_STR(b, "24G");
	fmt_kib(b, sizeof(b), INT64_C(3) << 30);
	CHECK_STR(b, "3.0T");
	fmt_kib(b, sizeof(b), INT64_MAX);
	CHECK_STR(b, "8192E");
	fmt_kib(b, sizeof(b), -1);
	CHECK_STR(b, "n/a");
}

TEST(fmt_kib_width)
{
	char b[32];

	CHECK_INT(fmt_kib_w(b, sizeof(b), 1572864, 6), 6);
	CHECK_STR(b, "  1.5G");
	fmt_kib_w(b, sizeof(b), -1, 5);
	CHECK_STR(b, "  n/a");
	fmt_kib_w(b, sizeof(b), 980, 2);
	CHECK_STR(b, "980K");
	/* snprintf semantics */
	CHECK_INT(fmt_kib_w(b, 3, 1572864, 6), 6);
	CHECK_STR(b, "  ");
}

TEST(fmt_duration_gnu_style)
{
	char b[32];

	fmt_duration(b, sizeof(b), 153.29);
	CHECK_STR(b, "2:33.29");
	fmt_duration(b, sizeof(b), 0.29);
	CHECK_STR(b, "0:00.29");
	fmt_duration(b, sizeof(b), 59.999);
	CHECK_STR(b, "0:59.99");	/* truncated, as GNU time */
	fmt_duration(b, sizeof(b), 650.12);
	CHECK_STR(b, "10:50.12");
	fmt_duration(b, sizeof(b), 3599.99);
	CHECK_STR(b, "59:59.99");
	fmt_duration(b, sizeof(b), 3600);
	CHECK_STR(b, "1:00:00");
	fmt_duration(b, sizeof(b), 3945.999);
	CHECK_STR(b, "1:05:45");
	fmt_duration(b, sizeof(b), 0);
	CHECK_STR(b, "0:00.00");
	fmt_duration(b, sizeof(b), NAN);
	CHECK_STR(b, "n/a");
	fmt_duration(b, sizeof(b), -1);
	CHECK_STR(b, "n/a");
	fmt_duration(b, sizeof(b), INFINITY);
	CHECK_STR(b, "n/a");
}

/* Every "N seconds (h:mm:ss.cc)" in seed 003 (lkml, Dec 2002). */
static const char *const seed_secs[] = {
	"3371.98 seconds (0:56:11.98)",
	"4585.03 seconds (1:16:25.03)",
	"4285.98 seconds (1:11:25.98)",
	"3633.64 seconds (1:00:33.64)",
	"809.39 seconds (0:13:29.39)",
	"3771.85 seconds (1:02:51.85)",
	"3342.82 seconds (0:55:42.82)",
	"855.22 seconds (0:14:15.22)",
	"796.03 seconds (0:13:16.03)",
	"840.41 seconds (0:14:00.41)",
	"828.59 seconds (0:13:48.59)",
	"833.92 seconds (0:13:53.92)",
	"790.80 seconds (0:13:10.80)",
	"788.65 seconds (0:13:08.65)",
	"790.54 seconds (0:13:10.54)",
	"793.79 seconds (0:13:13.79)",
	"779.54 seconds (0:12:59.54)",
	"782.86 seconds (0:13:02.86)",
	"778.81 seconds (0:12:58.81)",
	"778.65 seconds (0:12:58.65)",
	"768.98 seconds (0:12:48.98)",
	"770.43 seconds (0:12:50.43)",
	"771.76 seconds (0:12:51.76)",
};

TEST(fmt_seconds_long_seed)
{
	char b[64];

	for (size_t i = 0; i < N(seed_secs); i++) {
		double s = strtod(seed_secs[i], NULL);

		fmt_seconds_long(b, sizeof(b), s);
		CHECK_STR(b, seed_secs[i]);
	}
	fmt_hms(b, sizeof(b), 3371.98);
	CHECK_STR(b, "0:56:11.98");
	fmt_hms(b, sizeof(b), 36000.5);
	CHECK_STR(b, "10:00:00.50");
	fmt_seconds_long(b, sizeof(b), NAN);
	CHECK_STR(b, "n/a");
}

TEST(fmt_rate_units)
{
	char b[32];

	fmt_rate(b, sizeof(b), 0);
	CHECK_STR(b, "0.0/s");
	fmt_rate(b, sizeof(b), 0.5);
	CHECK_STR(b, "0.5/s");
	fmt_rate(b, sizeof(b), 99.96);
	CHECK_STR(b, "100/s");
	fmt_rate(b, sizeof(b), 950);
	CHECK_STR(b, "950/s");
	fmt_rate(b, sizeof(b), 999.7);
	CHECK_STR(b, "1.0k/s");
	fmt_rate(b, sizeof(b), 12345);
	CHECK_STR(b, "12.3k/s");
	fmt_rate(b, sizeof(b), 123456);
	CHECK_STR(b, "123k/s");
	fmt_rate(b, sizeof(b), 1234567);
	CHECK_STR(b, "1.2M/s");
	fmt_rate(b, sizeof(b), -12345);
	CHECK_STR(b, "-12.3k/s");
	fmt_rate(b, sizeof(b), -0.01);
	CHECK_STR(b, "0.0/s");
	fmt_rate(b, sizeof(b), NAN);
	CHECK_STR(b, "n/a");
}

TEST(fmt_pct_values)
{
	char b[32];

	fmt_pct(b, sizeof(b), 50.6);
	CHECK_STR(b, "50.6%");
	fmt_pct(b, sizeof(b), 50.66);
	CHECK_STR(b, "50.7%");
	fmt_pct(b, sizeof(b), 200);
	CHECK_STR(b, "200.0%");
	fmt_pct(b, sizeof(b), -0.01);
	CHECK_STR(b, "0.0%");
	fmt_pct(b, sizeof(b), -3.26);
	CHECK_STR(b, "-3.3%");
	fmt_pct(b, sizeof(b), NAN);
	CHECK_STR(b, "n/a");
}

TEST(fmt_parse_size_accepts)
{
	static const struct { const char *in; int64_t want; } ok[] = {
		{ "4096", 4096 },
		{ "64K", 65536 },
		{ "64k", 65536 },
		{ "512M", 536870912 },
		{ "200m", 209715200 },
		{ "1G", 1073741824 },
		{ "1.5G", 1610612736 },
		{ "2T", INT64_C(2199023255552) },
		{ "512MiB", 536870912 },
		{ "0", 0 },
		{ "0.1K", 102 },	/* 102.4 rounds to 102 */
		{ "0.5K", 512 },
		{ "9223372036854775807", INT64_MAX },
		{ "8388607T", INT64_C(8388607) << 40 },
	};

	for (size_t i = 0; i < N(ok); i++) {
		int64_t v = -7;

		CHECK_INT(fmt_parse_size(ok[i].in, &v), 0);
		CHECK_INT(v, ok[i].want);
	}
}

TEST(fmt_parse_size_rejects)
{
	static const char *const inval[] = {
		"", "-1", "+1", " 1G", "1G ", "1.5", ".", "G", "1GB", "1X",
		"1..5G", "12abc", "1e3", "0x10", "1 G", "1Gi", "nan",
	};
	static const char *const range[] = {
		"9223372036854775808", "8388608T", "99999999999999999999999",
	};
	int64_t v = 42;

	for (size_t i = 0; i < N(inval); i++) {
		errno = 0;
		CHECK_INT(fmt_parse_size(inval[i], &v), -1);
		CHECK_INT(errno, EINVAL);
	}
	for (size_t i = 0; i < N(range); i++) {
		errno = 0;
		CHECK_INT(fmt_parse_size(range[i], &v), -1);
		CHECK_INT(errno, ERANGE);
	}
	CHECK_INT(fmt_parse_size(NULL, &v), -1);
	CHECK_INT(v, 42);
}

TEST(fmt_parse_seconds_values)
{
	static const char *const inval[] = {
		"", "-1", "+1", "1e3", "inf", "nan", " 1", "1 ", ".", "1.2.3",
		"0x1", "1s",
	};
	double s = -1;

	CHECK_INT(fmt_parse_seconds("0.05", &s), 0);
	CHECK_NEAR(s, 0.05, 1e-15);
	CHECK_INT(fmt_parse_seconds("1", &s), 0);
	CHECK_NEAR(s, 1.0, 0);
	CHECK_INT(fmt_parse_seconds("2.5", &s), 0);
	CHECK_NEAR(s, 2.5, 0);
	CHECK_INT(fmt_parse_seconds(".5", &s), 0);
	CHECK_NEAR(s, 0.5, 0);
	CHECK_INT(fmt_parse_seconds("0", &s), 0);
	CHECK_NEAR(s, 0.0, 0);
	for (size_t i = 0; i < N(inval); i++) {
		errno = 0;
		CHECK_INT(fmt_parse_seconds(inval[i], &s), -1);
		CHECK_INT(errno, EINVAL);
	}
	errno = 0;
	CHECK_INT(fmt_parse_seconds("2000000000", &s), -1);
	CHECK_INT(errno, ERANGE);
	CHECK_INT(fmt_parse_seconds("99999999999999999999", &s), -1);
	CHECK_INT(errno, ERANGE);
}

TEST(fmt_text_width)
{
	const char *s = "ab⣿⣀c";	/* braille cells are 3 bytes, 1 column */

	CHECK_INT(fmt_text_cols(""), 0);
	CHECK_INT(fmt_text_cols(s), 5);
	CHECK_INT(fmt_cut_bytes(s, 0), 0);
	CHECK_INT(fmt_cut_bytes(s, 2), 2);
	CHECK_INT(fmt_cut_bytes(s, 3), 5);	/* never inside a character */
	CHECK_INT(fmt_cut_bytes(s, 4), 8);
	CHECK_INT(fmt_cut_bytes(s, 99), (long long)strlen(s));
	CHECK_INT(fmt_cut_bytes(s, -1), 0);
}

/* A view panned sideways starts each line at the same column: a wide
 * character across the edge goes whole and its column on screen stays
 * blank, so what follows it stays where it was. */
TEST(fmt_skip_cols_keeps_columns)
{
	/* a, a wide one, b, a wide one with a combining mark, c */
	const char *s = "a\xe3\x81\x82" "b\xe3\x81\x84\xcc\x81" "c";
	int blank;

	CHECK_INT(fmt_skip_cols(s, 0, &blank), 0);
	CHECK_INT(blank, 0);
	CHECK_INT(fmt_skip_cols(s, 1, &blank), 1);	/* from the first wide one */
	CHECK_INT(blank, 0);
	CHECK_INT(fmt_skip_cols(s, 2, &blank), 4);	/* its right half: b at column 1 */
	CHECK_INT(blank, 1);
	CHECK_INT(fmt_skip_cols(s, 3, &blank), 4);
	CHECK_INT(blank, 0);
	CHECK_INT(fmt_skip_cols(s, 5, &blank), 10);	/* the mark goes with its character */
	CHECK_INT(blank, 1);
	CHECK_INT(fmt_skip_cols(s, 6, &blank), 10);
	CHECK_INT(blank, 0);
	CHECK_INT(fmt_skip_cols(s, 99, &blank), 11);
	CHECK_INT(blank, 0);
}

/* Wide characters take two columns, combining ones none: a cut leaves
 * out a wide one that would pass the width, and keeps the marks that go
 * with the last character. */
TEST(fmt_text_width_wide_and_combining)
{
	const char *cjk = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e";	/* 3 wide */
	const char *acute = "e\xcc\x81x";	/* e, combining acute, x */
	char buf[64];

	CHECK_INT(fmt_text_cols(cjk), 6);
	CHECK_INT(fmt_text_cols_n(cjk, 3), 2);
	CHECK_INT(fmt_cut_bytes(cjk, 5), 6);	/* two of them: 4 columns */
	CHECK_INT(fmt_cut_bytes(cjk, 1), 0);
	CHECK_INT(fmt_text_cols(acute), 2);
	CHECK_INT(fmt_cut_bytes(acute, 1), 3);	/* the mark with its e */
	CHECK_INT(fmt_text_cols("\xf0\x9f\x98\x80"), 2);	/* an emoji */
	/* a field cut ends in its mark and is exactly w columns */
	fmt_field(buf, sizeof(buf), 0, "\xe3\x81\x82\xe3\x81\x84\xe3\x81\x86\xe3\x81\x88"
		  "\xe3\x81\x8a\xe3\x81\x8b\xe3\x81\x8d\xe3\x81\x8f", 14, false, false);
	CHECK_STR(buf, "\xe3\x81\x82\xe3\x81\x84\xe3\x81\x86\xe3\x81\x88\xe3\x81\x8a... ");
	CHECK_INT(fmt_text_cols(buf), 14);
	fmt_field(buf, sizeof(buf), 0, cjk, 5, true, true);
	CHECK_STR(buf, "\xe6\x97\xa5\xe6\x9c\xac\xe2\x80\xa6");
	CHECK_INT(fmt_text_cols(buf), 5);
}

/* Copied whole, or cut between characters with a mark. */
TEST(fmt_copy_cuts_between_characters)
{
	char buf[8];

	CHECK_INT((int)fmt_copy(buf, sizeof(buf), "abcdefg"), 7);
	CHECK_STR(buf, "abcdefg");
	CHECK_INT((int)fmt_copy(buf, sizeof(buf), "abcdefgh"), 7);
	CHECK_STR(buf, "abcd...");
	/* a 3-byte character that would pass the room goes whole */
	CHECK_INT((int)fmt_copy(buf, sizeof(buf), "ab\xe6\x97\xa5\xe6\x97\xa5"), 8 - 3);
	CHECK_STR(buf, "ab...");
	CHECK_INT((int)fmt_copy(buf, 3, "abcdef"), 0);
	CHECK_STR(buf, "");
}

/* A cell of w columns: wide characters take 2, combining ones 0, and a
 * character is never split. */
TEST(fmt_cell_by_display_width)
{
	char buf[64];
	unsigned bad;

	CHECK_INT((int)fmt_cell(buf, sizeof(buf), "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 5), 7);
	CHECK_STR(buf, "\xe6\x97\xa5\xe6\x9c\xac ");
	fmt_cell(buf, sizeof(buf), "e\xcc\x81x", 4);
	CHECK_STR(buf, "e\xcc\x81x  ");
	fmt_cell(buf, sizeof(buf), "abcdef", 3);
	CHECK_STR(buf, "abc");
	fmt_cell(buf, sizeof(buf), "\xc3\xa9\xc3\xa9\xc3\xa9", 2);
	CHECK_STR(buf, "\xc3\xa9\xc3\xa9");
	CHECK_INT(fmt_label_check("ok", &bad), 0);
	CHECK_INT(fmt_label_check("\xe2\x80\x8fx", &bad), -2);
	CHECK_INT((int)bad, 0x200F);
	CHECK_INT(fmt_label_check("x\x1b", &bad), -1);
	CHECK_INT(fmt_label_check("", &bad), -3);
	CHECK(!fmt_text_clean("rlo \xe2\x80\xae"));
}

TEST(fmt_text_clean_utf8_without_controls)
{
	CHECK(fmt_text_clean("2.4.14-pre8 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
	CHECK(!fmt_text_clean("esc \033[31m"));
	CHECK(!fmt_text_clean("del \x7f"));
	CHECK(!fmt_text_clean("c1 \xc2\x9b"));
	CHECK(!fmt_text_clean("cut \xc3"));
	CHECK(!fmt_text_clean("overlong \xc0\xaf"));
	CHECK(!fmt_text_clean("surrogate \xed\xa0\x80"));
	CHECK(!fmt_text_clean("past max \xf4\x90\x80\x80"));
}

TEST(fmt_escape_makes_text_terminal_safe)
{
	char buf[64];

	CHECK_STR(fmt_escape(buf, sizeof(buf), "a\033[2Jb"), "a\\x1b[2Jb");
	CHECK_STR(fmt_escape(buf, sizeof(buf), "\xff\xc3\xa9"), "\\xff\xc3\xa9");
	CHECK_STR(fmt_escape(buf, sizeof(buf), "\xc2\x9b"), "\\xc2\\x9b");
	CHECK_STR(fmt_escape(buf, 6, "ab\033cd"), "ab");
	CHECK(fmt_text_clean(fmt_escape(buf, sizeof(buf), "\x01\x02\x80\xfe tail")));
}

TEST(fmt_blank_controls_keeps_one_line)
{
	char s[] = "python3 -c a=1\nb=2\tc\r\033[2J\x7f\xc3\xa9";

	fmt_blank_controls(s);
	CHECK_STR(s, "python3 -c a=1 b=2 c  [2J \xc3\xa9");
}

/* fmt_g9 is printf's %.9g, byte for byte: edge values, ties that round to
 * even, and a sweep of bit patterns across the float range. */
TEST(fmt_g9_is_printf)
{
	const float edge[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.05f, 54224.90625f, 0.5f, 2.5f,
			       123456789.0f, 999999999.0f, 1e9f, 1e-4f, 9.9999999e-5f, 1e-5f,
			       3.4028235e38f, 1.17549435e-38f, 1.4e-45f, 16777217.0f,
			       1234567.25f, 0.1f, 1e29f, 1e31f, NAN, INFINITY, -INFINITY };
	char a[FMT_G9_LEN], b[64];
	uint32_t x = 2463534242u;
	int bad = 0;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		fmt_g9(a, edge[i]);
		snprintf(b, sizeof(b), "%.9g", (double)edge[i]);
		CHECK_STR(a, b);
	}
	for (int i = 0; i < 300000 && bad < 5; i++) {
		float f;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		memcpy(&f, &x, sizeof(f));
		if (isnan(f))
			continue;
		CHECK_INT(fmt_g9(a, f), (long long)snprintf(b, sizeof(b), "%.9g", (double)f));
		if (strcmp(a, b)) {
			CHECK_STR(a, b);
			bad++;
		}
	}
}

/* fmt_fixed is printf's %.*f, byte for byte: ties, negative zeros, values
 * too large to shortcut, and quantized values as a history keeps them. */
/* The fewest decimals that read back to the same double, no exponent
 * while 24 characters do. */
TEST(fmt_exact_reads_back)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 5.7334e-05, "0.000057334" }, { 21.314186367, "21.314186367" },
		{ 0.1 + 0.2, "0.30000000000000004" }, { 0, "0" }, { -0.0, "-0" },
		{ 141.7, "141.7" }, { -2.5, "-2.5" }, { 9007199254740993.0, "9007199254740992" },
		{ 1e30, "1e+30" }, { 1e-300, "1e-300" }, { 1.0 / 3, "0.3333333333333333" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(fmt_exact(buf, sizeof(buf), cases[i].v), strlen(cases[i].text));
		CHECK_STR(buf, cases[i].text);
		CHECK(strtod(buf, NULL) == cases[i].v);
	}
	fmt_exact(buf, sizeof(buf), NAN);
	CHECK_STR(buf, "nan");
}

TEST(fmt_fixed_is_printf)
{
	const double edge[] = { 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.0005, 0.0015, 0.125, -0.125,
				0.05, 0.15, 1e15, -1e15, 1e14 + 0.5, 999999999999.9995, 1e-300,
				-1e-300, 4503599627370495.5, 1e300, NAN, INFINITY, -INFINITY };
	char a[FMT_FIXED_LEN], b[FMT_FIXED_LEN];
	uint64_t x = 88172645463325252ull;
	int bad = 0;

	for (int dec = 0; dec <= 3; dec++)
		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
			fmt_fixed(a, edge[i], dec);
			snprintf(b, sizeof(b), "%.*f", dec, edge[i]);
			CHECK_STR(a, b);
		}
	for (int i = 0; i < 400000 && bad < 5; i++) {
		static const double quantum[] = { 1, 0.1, 0.01, 0.001 };
		int dec = i % 4;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* a quantized value, or any bit pattern */
		double v = (double)((int64_t)(x >> 20) - (1ll << 43)) * quantum[dec];
		if (i % 3 == 2)
			memcpy(&v, &x, sizeof(v));
		CHECK_INT(fmt_fixed(a, v, dec), (long long)snprintf(b, sizeof(b), "%.*f", dec, v));
		if (strcmp(a, b)) {
			CHECK_STR(a, b);
			bad++;
		}
	}
}

/* However the writes cut the text, the stream escapes it as fmt_escape. */
TEST(fmt_escaping_stream_any_cut)
{
	const char *text = "k\xc3\xa9rnel \xe2\x82\xac \033[2J \xc2\x9b \xff\xf0\x9f\x98\x80 \xe2\x82 end";
	char want[256];
	size_t len = strlen(text);

	fmt_escape(want, sizeof(want), text);
	for (size_t cut = 0; cut <= len; cut++) {
		char *buf = NULL;
		size_t blen = 0;
		FILE *m = open_memstream(&buf, &blen);
		FILE *f = fmt_escaping_stream(m);
		CHECK(f != NULL);
		if (!f)
			return;
		fwrite(text, 1, cut, f);
		fflush(f);
		fwrite(text + cut, 1, len - cut, f);
		fputs("\n\tok\n", f);
		fclose(f);
		fclose(m);
		char expect[300];
		snprintf(expect, sizeof(expect), "%s\n\tok\n", want);
		if (strcmp(buf, expect))
			printf("  cut %zu: %s\n", cut, buf);
		CHECK_STR(buf, expect);
		free(buf);
	}
}

/* A command's words as a shell reads them back. */
TEST(fmt_shell_word_quotes)
{
	static const char *const argv[] = { "sh", "-c", "./hog 200 & ./hog 300; wait", "it's", "",
					    "a=b,c:d/e.f@g%h+i", NULL };
	char buf[128], small[8];
	size_t off = 0;

	for (int i = 0; argv[i]; i++) {
		if (i)
			buf[off++] = ' ';
		fmt_shell_word(buf, sizeof(buf), &off, argv[i]);
	}
	CHECK_STR(buf, "sh -c './hog 200 & ./hog 300; wait' 'it'\\''s' '' a=b,c:d/e.f@g%h+i");
	off = 0;
	fmt_shell_word(small, sizeof(small), &off, "a b c d e f");
	CHECK_STR(small, "'a b c ");
	CHECK_INT(off, 7);
}

/* Pieces on lines of at most width columns, cut before a piece with its
 * reserve, the separator's blanks then a break and two of indent. */
TEST(fmt_lines_cut_between_pieces)
{
	char buf[64];
	struct fmt_lines l = { { buf, sizeof(buf), 0 }, 12, 0 };

	fmt_lines_add(&l, ", ", "aaaa", 4, 1);
	fmt_lines_add(&l, ", ", "bbbb", 4, 1);	/* "aaaa, bbbb," is 11 */
	fmt_lines_add(&l, ", ", "cc", 2, 1);	/* 11 + 2 + 1 past 12 */
	fmt_lines_add(&l, " ", "dddddddd", 8, 0);	/* "  cc dddddddd" is 13 */
	CHECK_INT(fmt_buf_done(&l.o), strlen(buf));
	CHECK_STR(buf, "aaaa, bbbb,\n  cc\n  dddddddd");
}

/* A label is one line that shows: no line separator, not only marks that
 * combine with nothing. */
TEST(fmt_label_check_one_line_that_shows)
{
	unsigned bad;

	CHECK_INT(fmt_label_check("ab\xe2\x80\xa8" "cd", &bad), -1);	/* U+2028 */
	CHECK_INT(bad, 0x2028);
	CHECK_INT(fmt_label_check("ab\xe2\x80\xa9" "cd", &bad), -1);	/* U+2029 */
	CHECK_INT(fmt_label_check("\xcc\x81\xcc\x81", &bad), -4);	/* U+0301 twice */
	CHECK_INT(fmt_label_check("e\xcc\x81", &bad), 0);		/* é, decomposed */
	CHECK_INT(fmt_label_check("2.4.14-pre8", &bad), 0);
}

/* An error quoting a value with a newline or an escape stays one line
 * that does nothing to a terminal. */
TEST(fmt_err_one_escaped_line)
{
	char err[128];

	CHECK_INT(fmt_err(err, sizeof(err), "--zswap '%s': want off", "lzo\nrle"), -1);
	CHECK_STR(err, "--zswap 'lzo\\x0arle': want off");
	fmt_err(err, sizeof(err), "--swap '%s': bad", "\x1b[31mX");
	CHECK_STR(err, "--swap '\\x1b[31mX': bad");
	fmt_err(err, sizeof(err), "%s: plain, caf\xc3\xa9", "x");
	CHECK_STR(err, "x: plain, caf\xc3\xa9");
	fmt_err(err, 12, "%s", "a\tb\tc\td\te\tf");
	CHECK(strlen(err) < 12 && !strchr(err, '\t'));
}
