/* A command's own figures: --metric parsed, strict numbers, and the output
 * matched line by line: a line cut across reads, several matches, none, a
 * match that is not a number, the two streams apart. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "report.h"

static const char *const TPUT = "tput:higher=Throughput ([0-9.]+) MB/sec";

TEST(capture_parse_specs)
{
	struct capture_spec sp;
	char err[256];

	CHECK_INT(capture_parse(TPUT, &sp, err, sizeof(err)), 0);
	CHECK_STR(sp.name, "tput");
	CHECK(sp.higher);
	CHECK_STR(sp.regex, "Throughput ([0-9.]+) MB/sec");
	CHECK_INT(capture_parse("lat=took ([0-9]+) ms", &sp, err, sizeof(err)), 0);
	CHECK(!sp.higher);
	CHECK_INT(capture_parse("t_2:lower=a=b:c", &sp, err, sizeof(err)), 0);
	CHECK_STR(sp.name, "t_2");
	CHECK_STR(sp.regex, "a=b:c");
	CHECK_INT(capture_parse("abcdefgh=x", &sp, err, sizeof(err)), 0);

	static const struct { const char *arg, *says; } bad[] = {
		{ "tput", "want NAME=REGEX" },
		{ "=x", "NAME: a lower-case letter" },
		{ "Tput=x", "NAME: a lower-case letter" },
		{ "9a=x", "NAME: a lower-case letter" },
		{ "abcdefghi=x", "up to 7" },
		{ "a-b=x", "NAME" },
		{ "wall=x", "wall names a figure every run has" },
		{ "oom:higher=x", "oom names a figure" },
		{ "tput:up=x", "':up': want :higher or :lower" },
		{ "tput:=x", "want :higher or :lower" },
		{ "tput=", "no regex after the =" },
		{ "tput=(", "the regex:" },
		{ "tput=a{2,1}", "the regex:" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_INT(capture_parse(bad[i].arg, &sp, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says) || !strstr(err, "--metric '"))
			t_fail(__FILE__, __LINE__, "%s: \"%s\" lacks \"%s\"", bad[i].arg, err,
			       bad[i].says);
	}
}

/* Every figure a report gives every run is refused as a command's name. */
TEST(capture_reserved_names_are_the_reports)
{
	for (int m = 0; m < RM_N; m++)
		CHECK(capture_reserved(report_metric_name((enum report_metric)m)));
	CHECK(capture_reserved("oom"));
	CHECK(!capture_reserved("tput"));
	CHECK(capture_name_ok("tput") && !capture_name_ok("wall") && !capture_name_ok("T"));
}

TEST(capture_strict_numbers)
{
	static const struct { const char *s; double v; } good[] = {
		{ "7.05841", 7.05841 }, { "6", 6 }, { "-1.5", -1.5 }, { "+2", 2 },
		{ ".5", 0.5 }, { "7.", 7 }, { "1e3", 1000 }, { "2.5E-2", 0.025 }, { "0", 0 },
	};
	static const char *const bad[] = { "", "-", ".", "1.2.3", "1,000", " 7", "7 ", "0x10",
		"inf", "nan", "1e", "1e+", "e5", "7MB", "1e999" };
	double v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = NAN;
		CHECK_INT(capture_number(good[i].s, strlen(good[i].s), &v), 0);
		CHECK_NEAR(v, good[i].v, 1e-12);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (capture_number(bad[i], strlen(bad[i]), &v) != -1)
			t_fail(__FILE__, __LINE__, "\"%s\" taken as a number", bad[i]);
	/* only the n bytes given */
	CHECK_INT(capture_number("12x", 2, &v), 0);
	CHECK_NEAR(v, 12, 0);
}

static struct capture *tput(void)
{
	struct capture_spec sp[2];
	char err[256];

	capture_parse(TPUT, &sp[0], err, sizeof(err));
	capture_parse("lat=latency ([^ ]+) ms", &sp[1], err, sizeof(err));
	return capture_new(sp, 2, err, sizeof(err));
}

static void feed(struct capture *c, int s, const char *text)
{
	capture_feed(c, s, text, strlen(text));
}

/* dbench's line, cut across reads in the middle of its number. */
TEST(capture_line_cut_across_reads)
{
	struct capture *c = tput();
	char text[64];

	CHECK(c != NULL);
	if (!c)
		return;
	feed(c, 0, "Throughput 7.0");
	CHECK_INT(capture_result_at(c, 0)->state, CAPTURE_NONE);
	feed(c, 0, "5841 MB/sec  4 procs\n");
	CHECK_INT(capture_result_at(c, 0)->state, CAPTURE_VALUE);
	CHECK_NEAR(capture_result_at(c, 0)->value, 7.05841, 0);
	capture_text(c, 0, text, sizeof(text));
	CHECK_STR(text, "7.05841");
	capture_text(c, 1, text, sizeof(text));
	CHECK_STR(text, "no value: no line matched");
	/* byte by byte, the last line without its newline until the end */
	capture_reset(c);
	const char *s = "x\nThroughput 6.11383 MB/sec";
	for (size_t i = 0; s[i]; i++)
		capture_feed(c, 0, &s[i], 1);
	CHECK_INT(capture_result_at(c, 0)->state, CAPTURE_NONE);
	capture_flush(c);
	CHECK_NEAR(capture_result_at(c, 0)->value, 6.11383, 0);
	capture_free(c);
}

/* The last match wins, within a line too; a line's \r is not its. */
TEST(capture_last_match_wins)
{
	struct capture *c = tput();

	if (!c)
		return;
	feed(c, 0, "Throughput 1 MB/sec\nnoise\nThroughput 2 MB/sec Throughput 3 MB/sec\r\n");
	CHECK_NEAR(capture_result_at(c, 0)->value, 3, 0);
	feed(c, 0, "Throughput 4.5 MB/sec\n");
	CHECK_NEAR(capture_result_at(c, 0)->value, 4.5, 0);
	/* a regex without a group takes its whole match */
	struct capture_spec sp;
	char err[128];
	capture_free(c);
	CHECK_INT(capture_parse("secs=[0-9]+\\.[0-9]+$", &sp, err, sizeof(err)), 0);
	c = capture_new(&sp, 1, err, sizeof(err));
	if (!c)
		return;
	feed(c, 0, "real 12.50\r\nreal 3.25\n");
	CHECK_NEAR(capture_result_at(c, 0)->value, 3.25, 0);
	capture_free(c);
}

/* The last match not a number: no value, said with what it took; a
 * number after it is a value again. */
TEST(capture_not_a_number)
{
	struct capture *c = tput();
	char text[96];

	if (!c)
		return;
	feed(c, 0, "Throughput 7.1 MB/sec\nThroughput 7.0.1 MB/sec\n");
	CHECK_INT(capture_result_at(c, 0)->state, CAPTURE_NAN);
	CHECK(isnan(capture_result_at(c, 0)->value));
	capture_text(c, 0, text, sizeof(text));
	CHECK_STR(text, "no value: '7.0.1' is not a number");
	feed(c, 1, "latency 12,5 ms\n");
	capture_text(c, 1, text, sizeof(text));
	CHECK_STR(text, "no value: '12,5' is not a number");
	feed(c, 0, "Throughput 8 MB/sec\n");
	CHECK_INT(capture_result_at(c, 0)->state, CAPTURE_VALUE);
	capture_reset(c);
	CHECK_INT(capture_result_at(c, 0)->state, CAPTURE_NONE);
	capture_free(c);
}

/* Each stream keeps its own unfinished line; a line past the limit is
 * matched on its first bytes. */
TEST(capture_streams_apart_and_long_lines)
{
	struct capture *c = tput();
	static char big[CAPTURE_LINE_MAX + 100];

	if (!c)
		return;
	feed(c, 0, "Throughput ");
	feed(c, 1, "latency 9 ms\n");
	feed(c, 0, "5 MB/sec\n");
	CHECK_NEAR(capture_result_at(c, 0)->value, 5, 0);
	CHECK_NEAR(capture_result_at(c, 1)->value, 9, 0);
	memset(big, 'x', sizeof(big));
	memcpy(big, "Throughput 6 MB/sec", 19);
	memcpy(big + CAPTURE_LINE_MAX + 10, "Throughput 7 MB/sec", 19);
	big[sizeof(big) - 1] = '\n';
	capture_feed(c, 0, big, sizeof(big));
	CHECK_NEAR(capture_result_at(c, 0)->value, 6, 0);
	capture_free(c);
}
