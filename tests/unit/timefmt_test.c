#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fmt.h"
#include "timefmt.h"

/* Every distinct tcsh line in seed 000 (lkml, Nov 2001). */
static const char *const seed_csh[] = {
	"70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w",
	"70.090u 6.890s 2:32.29 50.5% 0+0k 0+0io 18337pf+0w",
	"70.510u 6.660s 2:29.29 51.6% 0+0k 0+0io 18463pf+0w",
	"70.510u 6.390s 2:24.39 53.2% 0+0k 0+0io 17902pf+0w",
	"70.600u 7.600s 2:56.97 44.1% 0+0k 0+0io 23599pf+0w",
	"70.370u 7.340s 2:50.26 45.6% 0+0k 0+0io 22295pf+0w",
	"17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w",
	"26.030u 15.530s 1:39.39 41.8% 0+0k 0+0io 13283pf+0w",
	"29.350u 41.360s 2:27.63 47.8% 0+0k 0+0io 15214pf+0w",
	"70.530u 2.920s 2:16.35 53.8% 0+0k 0+0io 17575pf+0w",
	"70.510u 3.160s 2:19.79 52.7% 0+0k 0+0io 17639pf+0w",
	"70.540u 3.270s 2:17.39 53.7% 0+0k 0+0io 17544pf+0w",
	"69.890u 3.430s 2:12.48 55.3% 0+0k 0+0io 16374pf+0w",
	"69.550u 2.990s 2:11.31 55.2% 0+0k 0+0io 15374pf+0w",
	"69.480u 3.100s 2:13.33 54.4% 0+0k 0+0io 15950pf+0w",
	"70.340u 3.450s 2:13.62 55.2% 0+0k 0+0io 16829pf+0w",
	"70.590u 2.940s 2:15.48 54.2% 0+0k 0+0io 17182pf+0w",
	"70.140u 3.480s 2:14.66 54.6% 0+0k 0+0io 17122pf+0w",
	"71.260u 2.150s 2:20.68 52.1% 0+0k 0+0io 20173pf+0w",
	"71.020u 2.050s 2:18.78 52.6% 0+0k 0+0io 20353pf+0w",
	"70.810u 2.080s 2:19.50 52.2% 0+0k 0+0io 20413pf+0w",
	"71.020u 1.650s 2:20.74 51.6% 0+0k 0+0io 10652pf+0w",
	"71.070u 1.650s 2:21.51 51.3% 0+0k 0+0io 10499pf+0w",
	"70.790u 1.670s 2:21.01 51.3% 0+0k 0+0io 10641pf+0w",
	"70.410u 1.870s 2:45.25 43.7% 0+0k 0+0io 16088pf+0w",
	"70.910u 1.840s 2:45.16 44.0% 0+0k 0+0io 16338pf+0w",
	"71.310u 1.910s 2:45.20 44.3% 0+0k 0+0io 16211pf+0w",
	"70.800u 3.470s 3:04.15 40.3% 0+0k 0+0io 13916pf+0w",
	"71.530u 3.930s 3:13.90 38.9% 0+0k 0+0io 14101pf+0w",
	"71.260u 3.640s 3:03.54 40.8% 0+0k 0+0io 13047pf+0w",
	"70.590u 7.640s 2:31.06 51.7% 0+0k 0+0io 19036pf+0w",
	"70.180u 7.650s 2:43.22 47.6% 0+0k 0+0io 21019pf+0w",
	"71.030u 7.040s 2:49.45 46.0% 0+0k 0+0io 22734pf+0w",
	"70.530u 7.290s 2:33.26 50.7% 0+0k 0+0io 19689pf+0w",
	"70.830u 7.100s 2:29.52 52.1% 0+0k 0+0io 18488pf+0w",
	"70.560u 6.840s 2:28.66 52.0% 0+0k 0+0io 18203pf+0w",
	"70.480u 7.440s 2:35.74 50.0% 0+0k 0+0io 19897pf+0w",
	"70.640u 7.280s 2:28.87 52.3% 0+0k 0+0io 18453pf+0w",
	"70.750u 7.170s 2:36.26 49.8% 0+0k 0+0io 19719pf+0w",
	"70.120u 6.940s 2:29.55 51.5% 0+0k 0+0io 18598pf+0w",
	"70.160u 7.320s 2:37.34 49.2% 0+0k 0+0io 19720pf+0w",
	"70.020u 11.310s 3:15.09 41.6% 0+0k 0+0io 28330pf+0w",
	"69.610u 7.830s 2:33.47 50.4% 0+0k 0+0io 19630pf+0w",
	"70.260u 7.810s 2:54.06 44.8% 0+0k 0+0io 22816pf+0w",
	"70.420u 7.420s 2:42.71 47.8% 0+0k 0+0io 20655pf+0w",
	"70.240u 6.980s 2:40.37 48.1% 0+0k 0+0io 20437pf+0w",
	"70.430u 6.450s 2:25.36 52.8% 0+0k 0+0io 18400pf+0w",
	"70.270u 6.420s 2:25.52 52.7% 0+0k 0+0io 18267pf+0w",
	"70.850u 6.530s 2:35.82 49.6% 0+0k 0+0io 19481pf+0w",
	"70.510u 7.510s 2:33.91 50.6% 0+0k 0+0io 19584pf+0w",
	"70.100u 7.620s 2:42.20 47.9% 0+0k 0+0io 20562pf+0w",
	"69.840u 7.910s 2:51.61 45.3% 0+0k 0+0io 22541pf+0w",
	"70.370u 7.910s 2:52.06 45.4% 0+0k 0+0io 22793pf+0w",
	"70.560u 7.580s 2:37.38 49.6% 0+0k 0+0io 19962pf+0w",
	"70.120u 7.560s 2:45.04 47.0% 0+0k 0+0io 20403pf+0w",
	"70.390u 7.130s 2:29.82 51.7% 0+0k 0+0io 18159pf+0w",
	"70.080u 7.190s 2:29.63 51.6% 0+0k 0+0io 18580pf+0w",
	"70.300u 6.810s 2:29.70 51.5% 0+0k 0+0io 18267pf+0w",
	"69.770u 7.670s 2:49.68 45.6% 0+0k 0+0io 20980pf+0w",
};
/* GNU time one-liners in seed 002 (lkml, Jan 2001), trimmed elapsed and
 * quoting as posted, and how timefmt_gnu prints them back. */
static const struct { const char *in, *out; } seed_gnu[] = {
	{ "548.27user 94.18system     10:50  98%CPU (450479major+696869minor)",
	  "548.27user 94.18system 10:50.00 98%CPU (450479major+696869minor)" },
	{ "548.94user 153.85system    11:51  98%CPU (487111major+704948minor)",
	  "548.94user 153.85system 11:51.00 98%CPU (487111major+704948minor)" },
	{ "599.44user 2018.66system   51:47  84%CPU (2295045major+1182819minor)",
	  "599.44user 2018.66system 51:47.00 84%CPU (2295045major+1182819minor)" },
	{ "557.18user 121.57system    11:25  99%CPU (442434major+705429minor)",
	  "557.18user 121.57system 11:25.00 99%CPU (442434major+705429minor)" },
	{ "551.76user 158.78system    12:11  97%CPU (446183major+711572minor)",
	  "551.76user 158.78system 12:11.00 97%CPU (446183major+711572minor)" },
	{ "579.65user 2860.53system 1:05:45  87%CPU (650964major+1209969minor)",
	  "579.65user 2860.53system 1:05:45 87%CPU (650964major+1209969minor)" },
	{ "546.89user 140.35system    11:33  99%CPU (442435major+705424minor)",
	  "546.89user 140.35system 11:33.00 99%CPU (442435major+705424minor)" },
	{ "570.73user 188.51system    12:56  97%CPU (445171major+712791minor)",
	  "570.73user 188.51system 12:56.00 97%CPU (445171major+712791minor)" },
	{ "566.33user 2681.20system 1:02:26  86%CPU (654402major+1225784minor)",
	  "566.33user 2681.20system 1:02:26 86%CPU (654402major+1225784minor)" },
	{ "546.23user 118.81system    11:09  99%CPU (442434major+705424minor)",
	  "546.23user 118.81system 11:09.00 99%CPU (442434major+705424minor)" },
	{ "569.12user 161.25system    12:22  98%CPU (446667major+712457minor)",
	  "569.12user 161.25system 12:22.00 98%CPU (446667major+712457minor)" },
	{ "727.58user 2489.96system 1:25:34  62%CPU (616240major+1375321minor)",
	  "727.58user 2489.96system 1:25:34 62%CPU (616240major+1375321minor)" },
	{ "548.81user 128.97system    11:22  99%CPU (442433major+705419minor)",
	  "548.81user 128.97system 11:22.00 99%CPU (442433major+705419minor)" },
	{ "561.12user 171.06system    12:29  97%CPU (446949major+712525minor)",
	  "561.12user 171.06system 12:29.00 97%CPU (446949major+712525minor)" },
	{ "625.68user 2833.29system 1:12:38  79%CPU (638957major+1463974minor)",
	  "625.68user 2833.29system 1:12:38 79%CPU (638957major+1463974minor)" },
	{ "548.71user 117.93system    11:09  99%CPU (442434major+705420minor)",
	  "548.71user 117.93system 11:09.00 99%CPU (442434major+705420minor)" },
	{ "558.93user 166.82system    12:20  98%CPU (446941major+712662minor)",
	  "558.93user 166.82system 12:20.00 98%CPU (446941major+712662minor)" },
	{ "621.37user 2592.54system 1:07:33  79%CPU (592679major+1311442minor)",
	  "621.37user 2592.54system 1:07:33 79%CPU (592679major+1311442minor)" },
	{ "> 548.27user 94.18system     10:50  98%CPU (450479major+696869minor)",
	  "548.27user 94.18system 10:50.00 98%CPU (450479major+696869minor)" },
	{ "> 548.94user 153.85system    11:51  98%CPU (487111major+704948minor)",
	  "548.94user 153.85system 11:51.00 98%CPU (487111major+704948minor)" },
	{ "> 599.44user 2018.66system   51:47  84%CPU (2295045major+1182819minor)",
	  "599.44user 2018.66system 51:47.00 84%CPU (2295045major+1182819minor)" },
	{ "> 557.18user 121.57system    11:25  99%CPU (442434major+705429minor)",
	  "557.18user 121.57system 11:25.00 99%CPU (442434major+705429minor)" },
	{ "> 551.76user 158.78system    12:11  97%CPU (446183major+711572minor)",
	  "551.76user 158.78system 12:11.00 97%CPU (446183major+711572minor)" },
	{ "> 579.65user 2860.53system 1:05:45  87%CPU (650964major+1209969minor)",
	  "579.65user 2860.53system 1:05:45 87%CPU (650964major+1209969minor)" },
	{ "> 546.89user 140.35system    11:33  99%CPU (442435major+705424minor)",
	  "546.89user 140.35system 11:33.00 99%CPU (442435major+705424minor)" },
	{ "> 570.73user 188.51system    12:56  97%CPU (445171major+712791minor)",
	  "570.73user 188.51system 12:56.00 97%CPU (445171major+712791minor)" },
	{ "> 566.33user 2681.20system 1:02:26  86%CPU (654402major+1225784minor)",
	  "566.33user 2681.20system 1:02:26 86%CPU (654402major+1225784minor)" },
	{ "> 546.23user 118.81system    11:09  99%CPU (442434major+705424minor)",
	  "546.23user 118.81system 11:09.00 99%CPU (442434major+705424minor)" },
	{ "> 569.12user 161.25system    12:22  98%CPU (446667major+712457minor)",
	  "569.12user 161.25system 12:22.00 98%CPU (446667major+712457minor)" },
	{ "> 727.58user 2489.96system 1:25:34  62%CPU (616240major+1375321minor)",
	  "727.58user 2489.96system 1:25:34 62%CPU (616240major+1375321minor)" },
	{ "> 548.81user 128.97system    11:22  99%CPU (442433major+705419minor)",
	  "548.81user 128.97system 11:22.00 99%CPU (442433major+705419minor)" },
	{ "> 561.12user 171.06system    12:29  97%CPU (446949major+712525minor)",
	  "561.12user 171.06system 12:29.00 97%CPU (446949major+712525minor)" },
	{ "> 625.68user 2833.29system 1:12:38  79%CPU (638957major+1463974minor)",
	  "625.68user 2833.29system 1:12:38 79%CPU (638957major+1463974minor)" },
	{ "> 548.71user 117.93system    11:09  99%CPU (442434major+705420minor)",
	  "548.71user 117.93system 11:09.00 99%CPU (442434major+705420minor)" },
	{ "> 558.93user 166.82system    12:20  98%CPU (446941major+712662minor)",
	  "558.93user 166.82system 12:20.00 98%CPU (446941major+712662minor)" },
	{ "> 621.37user 2592.54system 1:07:33  79%CPU (592679major+1311442minor)",
	  "621.37user 2592.54system 1:07:33 79%CPU (592679major+1311442minor)" },
	{ "> > 548.81user 128.97system    11:22  99%CPU (442433major+705419minor)",
	  "548.81user 128.97system 11:22.00 99%CPU (442433major+705419minor)" },
	{ "> > 561.12user 171.06system    12:29  97%CPU (446949major+712525minor)",
	  "561.12user 171.06system 12:29.00 97%CPU (446949major+712525minor)" },
	{ "> > 625.68user 2833.29system 1:12:38  79%CPU (638957major+1463974minor)",
	  "625.68user 2833.29system 1:12:38 79%CPU (638957major+1463974minor)" },
	{ "> > 548.71user 117.93system    11:09  99%CPU (442434major+705420minor)",
	  "548.71user 117.93system 11:09.00 99%CPU (442434major+705420minor)" },
	{ "> > 558.93user 166.82system    12:20  98%CPU (446941major+712662minor)",
	  "558.93user 166.82system 12:20.00 98%CPU (446941major+712662minor)" },
	{ "> > 621.37user 2592.54system 1:07:33  79%CPU (592679major+1311442minor)",
	  "621.37user 2592.54system 1:07:33 79%CPU (592679major+1311442minor)" },
	{ "544.19user 141.25system    11:31  99%CPU (442419major+705411minor)",
	  "544.19user 141.25system 11:31.00 99%CPU (442419major+705411minor)" },
	{ "554.83user 191.57system    12:41  98%CPU (445762major+710409minor)",
	  "554.83user 191.57system 12:41.00 98%CPU (445762major+710409minor)" },
	{ "612.05user 2551.37system 1:07:21  78%CPU (589623major+1313665minor)",
	  "612.05user 2551.37system 1:07:21 78%CPU (589623major+1313665minor)" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Collapses every run of whitespace to one space, trims both ends. */
static void squash(const char *in, char *out, size_t len)
{
	size_t n = 0;
	bool gap = false;

	for (; *in && n + 2 < len; in++) {
		if (*in == ' ' || *in == '\t' || *in == '\n') {
			gap = n > 0;
			continue;
		}
		if (gap)
			out[n++] = ' ';
		gap = false;
		out[n++] = *in;
	}
	out[n] = '\0';
}

/* tcsh prints a tab after the percent; we print the posted lines' space. */
static void csh_space(const char *in, char *out, size_t len)
{
	snprintf(out, len, "%s", in);
	char *p = strstr(out, "%\t");

	if (p)
		p[1] = ' ';
}

TEST(timefmt_csh_seed_roundtrip)
{
	char buf[128];

	for (size_t i = 0; i < N(seed_csh); i++) {
		struct timeline t;

		CHECK_INT(timefmt_parse_csh(seed_csh[i], &t), 0);
		timefmt_csh(buf, sizeof(buf), &t);
		CHECK_STR(buf, seed_csh[i]);
		/* and the posted % is what tcsh's arithmetic gives */
		t.pct_src = 0;
		CHECK_INT(timefmt_csh_permille(&t), t.pct_posted);
	}
}

TEST(timefmt_csh_real_tcsh)
{
	/* tcsh 6.24.07 on Linux, `time` on short commands, verbatim */
	static const char *const real[] = {
		"0.000u 0.014s 0:00.01 100.0%\t0+0k 200+8io 1pf+0w",
		"0.159u 0.191s 0:00.33 103.0%\t0+0k 0+0io 0pf+0w",
		"0.213u 0.168s 0:00.36 102.7%\t0+0k 0+0io 0pf+0w",
		"0.249u 0.286s 0:00.54 96.2%\t0+0k 8+0io 0pf+0w",
		"0.479u 0.620s 0:01.11 98.1%\t0+0k 0+0io 0pf+0w",
		"0.001u 0.005s 0:00.00 0.0%\t0+0k 0+0io 0pf+0w",
	};
	char buf[128], want[128];

	for (size_t i = 0; i < N(real); i++) {
		struct timeline t;

		CHECK_INT(timefmt_parse_csh(real[i], &t), 0);
		t.pct_src = 0;	/* recompute, not echo */
		timefmt_csh(buf, sizeof(buf), &t);
		csh_space(real[i], want, sizeof(want));
		CHECK_STR(buf, want);
	}
}

TEST(timefmt_csh_fields)
{
	struct timeline t;

	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK_INT(t.user_us, 70270000);
	CHECK_INT(t.sys_us, 7330000);
	CHECK_INT(t.wall_us, 153290000);
	CHECK_INT(t.majflt, 19670);
	CHECK_INT(t.nswap, 0);
	/* (7027 + 733) * 1000 / 15329 = 506.2 -> 50.6% */
	CHECK_INT(timefmt_csh_permille(&t), 506);
}

TEST(timefmt_csh_arithmetic)
{
	struct timeline t = { 0 };
	char buf[128];

	/* truncation everywhere: 70.270999 s shows 70.270, 2:33.299 shows
	 * 2:33.29; t = 7027 + 733 cs, ms = 15329 cs */
	t.user_us = 70270999;
	t.sys_us = 7330999;
	t.wall_us = 153299999;
	t.majflt = 19670;
	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w");

	/* from an hour pcsecs prints h:mm:ss.cc */
	t.wall_us = 3945120000;
	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "70.270u 7.330s 1:05:45.12 1.9% 0+0k 0+0io 19670pf+0w");

	/* elapsed 0: tcsh prints 0.0% */
	t.wall_us = 9999;
	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "70.270u 7.330s 0:00.00 0.0% 0+0k 0+0io 19670pf+0w");

	/* over 100% with two CPUs busy: 20 s of CPU in 10 s */
	memset(&t, 0, sizeof(t));
	t.user_us = 19000000;
	t.sys_us = 1000000;
	t.wall_us = 10000000;
	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "19.000u 1.000s 0:10.00 200.0% 0+0k 0+0io 0pf+0w");

	/* an unknown count prints as ? */
	t.majflt = -1;
	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "19.000u 1.000s 0:10.00 200.0% 0+0k 0+0io ?pf+0w");
}

TEST(timefmt_csh_parse_prefixes)
{
	struct timeline t;

	CHECK_INT(timefmt_parse_csh("lenstra:~/src/qsort> 70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK_INT(t.majflt, 19670);
	CHECK_INT(timefmt_parse_csh("Out of Memory: Killed process 224 (qsbench). 17.770u 3.160s 1:19.95 26.1% 0+0k 0+0io 13294pf+0w\n", &t), 0);
	CHECK_INT(t.user_us, 17770000);
	CHECK_INT(timefmt_parse_csh("> >\t69.770u 7.670s 2:49.68 45.6% 0+0k 0+0io 20980pf+0w  ", &t), 0);
	CHECK_INT(t.wall_us, 169680000);
	/* BSD csh prints one decimal */
	CHECK_INT(timefmt_parse_csh("70.2u 7.3s 2:33.29 50.5% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK_INT(t.user_us, 70200000);
}

/* A %P a little off its times (a hand-edited post, another shell) is
 * read, marked and kept as posted; the one the times give is not marked. */
TEST(timefmt_parse_pct_slack)
{
	struct timeline t;

	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK(!t.pct_off);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 50.7% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK(t.pct_off);
	CHECK_INT(timefmt_csh_permille(&t), 507);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 51.6% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK(t.pct_off);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 49.6% 0+0k 0+0io 19670pf+0w", &t), 0);
	CHECK(t.pct_off);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50.12 98%CPU (450479major+696869minor)", &t), 0);
	CHECK(!t.pct_off);
	/* the short form says nothing of I/O or RSS: unknown, not 0 */
	CHECK_INT(t.inblock, NA);
	CHECK_INT(t.oublock, NA);
	CHECK_INT(t.maxrss_kib, NA);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50.12 99%CPU (450479major+696869minor)", &t), 0);
	CHECK(t.pct_off);
	CHECK_INT(timefmt_gnu_percent(&t), 99);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50.12 100%CPU (450479major+696869minor)", &t), -1);
}

TEST(timefmt_csh_parse_rejects)
{
	struct timeline t, keep = { .majflt = 42 };

	/* 50.6% from the times: more than 1.0 point off is no such run, said
	 * apart from a line that is no time line, its fields read to say so */
	errno = 0;
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 51.7% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(errno, ERANGE);
	CHECK_INT(t.pct_posted, 517);
	CHECK_INT(t.wall_us, 153290000);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 49.5% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(errno, ERANGE);
	t = keep;
	errno = 0;
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w junk", &t), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(t.majflt, 42);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io", &t), -1);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 61:33.29 50.6% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:73.29 50.6% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(timefmt_parse_csh("70.270u 7.330s 2:33 50.6% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(timefmt_parse_csh("70.2701u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(timefmt_parse_csh("x70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w", &t), -1);
	CHECK_INT(timefmt_parse_csh("", &t), -1);
	CHECK_INT(timefmt_parse_csh(NULL, &t), -1);
	CHECK_INT(t.majflt, 42);
	/* times past 10^12 s would overflow their microseconds */
	CHECK_INT(timefmt_parse_csh("0.0u 0.0s 277777777:00:00.00 0.0% 0+0k 0+0io 0pf+0w", &t), 0);
	CHECK_INT(t.wall_us, 999999997200000000);
	CHECK_INT(timefmt_parse_csh("0.0u 0.0s 277777778:00:00.00 0.0% 0+0k 0+0io 0pf+0w", &t), -1);
	CHECK_INT(timefmt_parse_csh("1000000000001.0u 0.0s 0:00.00 0.0% 0+0k 0+0io 0pf+0w", &t), -1);
}

TEST(timefmt_gnu_seed_roundtrip)
{
	char buf[160];

	for (size_t i = 0; i < N(seed_gnu); i++) {
		struct timeline t;

		CHECK_INT(timefmt_parse_gnu(seed_gnu[i].in, &t), 0);
		timefmt_gnu(buf, sizeof(buf), &t);
		CHECK_STR(buf, seed_gnu[i].out);
	}
}

TEST(timefmt_gnu_fields)
{
	struct timeline t;

	CHECK_INT(timefmt_parse_gnu("579.65user 2860.53system 1:05:45  87%CPU (650964major+1209969minor)", &t), 0);
	CHECK_INT(t.user_us, 579650000);
	CHECK_INT(t.sys_us, 2860530000);
	CHECK_INT(t.wall_us, INT64_C(3945000000));
	CHECK_INT(t.majflt, 650964);
	CHECK_INT(t.minflt, 1209969);
	CHECK_INT(timefmt_gnu_percent(&t), 87);
}

TEST(timefmt_gnu_arithmetic)
{
	struct timeline t = { 0 };
	char buf[200];

	/* %U/%S truncate to hundredths, %E m:ss.cc under an hour;
	 * v = 548279 + 94189 ms, r = 650129 ms: 64246800 / 650129 = 98 */
	t.user_us = 548279999;
	t.sys_us = 94189999;
	t.wall_us = 650129999;
	t.majflt = 450479;
	t.minflt = 696869;
	timefmt_gnu(buf, sizeof(buf), &t);
	CHECK_STR(buf, "548.27user 94.18system 10:50.12 98%CPU (450479major+696869minor)");

	/* from an hour: h:mm:ss, no hundredths */
	t.wall_us = 3945999999;
	timefmt_gnu(buf, sizeof(buf), &t);
	CHECK_STR(buf, "548.27user 94.18system 1:05:45 16%CPU (450479major+696869minor)");

	/* elapsed below 1 ms: GNU divides the microsecond parts */
	t.user_us = 300;
	t.sys_us = 100;
	t.wall_us = 500;
	CHECK_INT(timefmt_gnu_percent(&t), 80);

	/* elapsed exactly 0: "?%" */
	t.wall_us = 0;
	CHECK_INT(timefmt_gnu_percent(&t), -1);
	timefmt_gnu(buf, sizeof(buf), &t);
	CHECK_STR(buf, "0.00user 0.00system 0:00.00 ?%CPU (450479major+696869minor)");
}

TEST(timefmt_gnu_default_seed)
{
	/* seed 002 as posted: the mailer rewrapped GNU time's two lines */
	static const char *const in[] = {
		"70.94user 232.54system 15:17.39elapsed 33%CPU (0avgtext+0avgdata\n"
		"0maxresident)k 0inputs+0outputs (1277major+1586minor)pagefaults 0swaps",
		"70.67user 184.18system 17:38.98elapsed 24%CPU (0avgtext+0avgdata\n"
		"0maxresident)k 0inputs+0outputs (1277major+1586minor)pagefaults 0swaps",
	};
	static const char *const out[] = {
		"70.94user 232.54system 15:17.39elapsed 33%CPU (0avgtext+0avgdata 0maxresident)k\n"
		"0inputs+0outputs (1277major+1586minor)pagefaults 0swaps",
		"70.67user 184.18system 17:38.98elapsed 24%CPU (0avgtext+0avgdata 0maxresident)k\n"
		"0inputs+0outputs (1277major+1586minor)pagefaults 0swaps",
	};
	char buf[256], a[256], b[256];

	for (size_t i = 0; i < N(in); i++) {
		struct timeline t;

		CHECK_INT(timefmt_parse_gnu(in[i], &t), 0);
		timefmt_gnu_default(buf, sizeof(buf), &t);
		CHECK_STR(buf, out[i]);
		squash(in[i], a, sizeof(a));
		squash(buf, b, sizeof(b));
		CHECK_STR(b, a);
		CHECK_INT(t.majflt, 1277);
		CHECK_INT(t.minflt, 1586);
	}
}

TEST(timefmt_gnu_default_status)
{
	struct timeline t = { 0 }, back;
	char buf[256];

	t.user_us = 1500000;
	t.sys_us = 250000;
	t.wall_us = 2000000;
	t.maxrss_kib = 450000;
	t.minflt = 112600;
	t.term_signal = 9;
	timefmt_gnu_default(buf, sizeof(buf), &t);
	CHECK_STR(buf, "Command terminated by signal 9\n"
		  "1.50user 0.25system 0:02.00elapsed 87%CPU (0avgtext+0avgdata 450000maxresident)k\n"
		  "0inputs+0outputs (0major+112600minor)pagefaults 0swaps");
	CHECK_INT(timefmt_parse_gnu(buf, &back), 0);
	CHECK_INT(back.term_signal, 9);
	CHECK_INT(back.maxrss_kib, 450000);
	CHECK_INT(back.minflt, 112600);

	t.term_signal = 0;
	t.exit_code = 1;
	timefmt_gnu_default(buf, sizeof(buf), &t);
	CHECK(strncmp(buf, "Command exited with non-zero status 1\n1.50user", 46) == 0);
	CHECK_INT(timefmt_parse_gnu(buf, &back), 0);
	CHECK_INT(back.exit_code, 1);
	CHECK_INT(back.term_signal, 0);
}

TEST(timefmt_gnu_posted_percent)
{
	/* GNU time 1.9 verbatim: 0.00 s of CPU shown, yet 1%, because the
	 * hundredths hide up to 18 ms; the posted figure is printed back */
	static const char *const real =
		"0.00user 0.00system 0:00.31elapsed 1%CPU (0avgtext+0avgdata 1560maxresident)k\n"
		"0inputs+0outputs (0major+97minor)pagefaults 0swaps";
	struct timeline t;
	char buf[256];

	CHECK_INT(timefmt_parse_gnu(real, &t), 0);
	CHECK_INT(t.pct_src, TIMEFMT_GNU);
	CHECK_INT(t.pct_posted, 1);
	CHECK_INT(t.inblock, 0);
	CHECK_INT(t.maxrss_kib, 1560);
	timefmt_gnu_default(buf, sizeof(buf), &t);
	CHECK_STR(buf, real);
	/* recomputed from the printed times it would be 0% */
	t.pct_src = 0;
	CHECK_INT(timefmt_gnu_percent(&t), 0);
	/* a csh formatter does not borrow GNU's figure */
	t.pct_src = TIMEFMT_GNU;
	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "0.000u 0.000s 0:00.31 0.0% 0+0k 0+0io 0pf+0w");
}

TEST(timefmt_gnu_parse_rejects)
{
	struct timeline t;

	/* 98% cannot come from these times */
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50 90%CPU (450479major+696869minor)", &t), -1);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50 98%CPU (450479major+696869minor", &t), -1);
	CHECK_INT(timefmt_parse_gnu("548.2user 94.18system 10:50 98%CPU (450479major+696869minor)", &t), -1);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 60:50 98%CPU (450479major+696869minor)", &t), -1);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 0:10:50 98%CPU (450479major+696869minor)", &t), -1);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50 ?%CPU (450479major+696869minor)", &t), -1);
	/* the default form with a trimmed elapsed is not GNU's output */
	CHECK_INT(timefmt_parse_gnu("70.94user 232.54system 15:17elapsed 33%CPU (0avgtext+0avgdata "
				    "0maxresident)k 0inputs+0outputs (1277major+1586minor)pagefaults 0swaps", &t), -1);
	CHECK_INT(timefmt_parse_gnu("hello", &t), -1);
	/* times past 10^12 s would overflow their microseconds */
	CHECK_INT(timefmt_parse_gnu("999999999999.99user 0.00system 0:00.00elapsed ?%CPU (0major+0minor)", &t), 0);
	CHECK_INT(t.user_us, 999999999999990000);
	CHECK_INT(timefmt_parse_gnu("54888888888888.27user 0.00system 0:00.00elapsed ?%CPU (0major+0minor)", &t), -1);
	CHECK_INT(timefmt_parse_gnu("0.00user 0.00system 277777778:00:00elapsed 0%CPU (0major+0minor)", &t), -1);
}

TEST(timefmt_gnu_parse_far_percent)
{
	struct timeline t;

	/* 98% from the times: 90% is said apart from a line that is none */
	errno = 0;
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50.12 90%CPU (450479major+696869minor)", &t), -1);
	CHECK_INT(errno, ERANGE);
	CHECK_INT(t.pct_posted, 90);
	CHECK_INT(t.wall_us, 650120000);
	CHECK_INT(timefmt_parse_gnu("548.27user 94.18system 10:50.12 98%CPU (450479major+696869minor", &t), -1);
	CHECK_INT(errno, EINVAL);
}

/* A count we print "?" (unknown) reads back unknown, not 0, in every form. */
TEST(timefmt_unknown_counts_round_trip)
{
	struct timeline t = { .user_us = 70270000, .sys_us = 7330000, .wall_us = 153290000,
			      .majflt = 19670, .minflt = NA, .inblock = NA, .oublock = NA,
			      .ixrss = 0, .idrss = 0, .maxrss_kib = NA, .nswap = 0 };
	struct timeline back;
	char buf[256], again[256];

	timefmt_gnu(buf, sizeof(buf), &t);
	CHECK_STR(buf, "70.27user 7.33system 2:33.29 50%CPU (19670major+?minor)");
	CHECK_INT(timefmt_parse_gnu(buf, &back), 0);
	CHECK_INT(back.majflt, 19670);
	CHECK_INT(back.minflt, NA);
	timefmt_gnu(again, sizeof(again), &back);
	CHECK_STR(again, buf);

	timefmt_gnu_default(buf, sizeof(buf), &t);
	CHECK_INT(timefmt_parse_gnu(buf, &back), 0);
	CHECK_INT(back.minflt, NA);
	CHECK_INT(back.inblock, NA);
	CHECK_INT(back.maxrss_kib, NA);
	timefmt_gnu_default(again, sizeof(again), &back);
	CHECK_STR(again, buf);

	timefmt_csh(buf, sizeof(buf), &t);
	CHECK_STR(buf, "70.270u 7.330s 2:33.29 50.6% 0+0k ?+?io 19670pf+0w");
	CHECK_INT(timefmt_parse_csh(buf, &back), 0);
	CHECK_INT(back.inblock, NA);
	CHECK_INT(back.oublock, NA);
	CHECK_INT(back.majflt, 19670);
	timefmt_csh(again, sizeof(again), &back);
	CHECK_STR(again, buf);
}

TEST(timefmt_snprintf_semantics)
{
	struct timeline t = { .user_us = 70270000, .sys_us = 7330000,
			      .wall_us = 153290000, .majflt = 19670 };
	char small[10];
	size_t n;

	memset(small, 'x', sizeof(small));
	n = timefmt_csh(small, sizeof(small), &t);
	CHECK_INT(n, strlen("70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w"));
	CHECK_STR(small, "70.270u 7");
	CHECK_INT(timefmt_gnu(NULL, 0, &t), strlen("70.27user 7.33system 2:33.29 50%CPU (19670major+0minor)"));
}

TEST(timefmt_kswapd_line)
{
	char buf[32];

	timefmt_kswapd(buf, sizeof(buf), 1.0);
	CHECK_STR(buf, "0:01 kswapd");
	timefmt_kswapd(buf, sizeof(buf), 1.99);
	CHECK_STR(buf, "0:01 kswapd");	/* ps truncates */
	timefmt_kswapd(buf, sizeof(buf), 12.0);
	CHECK_STR(buf, "0:12 kswapd");
	timefmt_kswapd(buf, sizeof(buf), 61.0);
	CHECK_STR(buf, "1:01 kswapd");
	timefmt_kswapd(buf, sizeof(buf), 0.0);
	CHECK_STR(buf, "0:00 kswapd");
	timefmt_kswapd(buf, sizeof(buf), 3725.5);
	CHECK_STR(buf, "62:05 kswapd");
	timefmt_kswapd(buf, sizeof(buf), NAN);
	CHECK_STR(buf, "n/a kswapd");
	timefmt_kswapd(buf, sizeof(buf), -1.0);
	CHECK_STR(buf, "n/a kswapd");
}

TEST(timefmt_stalls_line)
{
	struct delays d;
	char buf[256];

	delays_clear(&d);
	timefmt_stalls(buf, sizeof(buf), &d);
	CHECK_STR(buf, "n/a stalls");
	d.s[DL_SWAPIN] = 41.29;
	d.s[DL_RECLAIM] = 3.1;
	d.s[DL_THRASHING] = 12.0;
	d.s[DL_IO] = 0.4;
	d.s[DL_CPU] = 1.99;
	timefmt_stalls(buf, sizeof(buf), &d);
	/* truncated to tenths; what the kernel does not give is left out */
	CHECK_STR(buf, "stalls: 41.2s swapin 3.1s reclaim 12.0s thrashing 0.4s io 1.9s cpu");
	d.s[DL_COMPACT] = 0.0;
	d.s[DL_WPCOPY] = 0.05;
	d.s[DL_IRQ] = 61.0;
	timefmt_stalls(buf, sizeof(buf), &d);
	CHECK_STR(buf, "stalls: 41.2s swapin 3.1s reclaim 12.0s thrashing 0.0s compact "
		  "0.4s io 1.9s cpu 0.0s wpcopy 61.0s irq");
	CHECK_INT(timefmt_stalls(buf, 8, &d), strlen("stalls: 41.2s swapin 3.1s reclaim 12.0s "
		  "thrashing 0.0s compact 0.4s io 1.9s cpu 0.0s wpcopy 61.0s irq"));
}

/* For a mail: cut between fields into lines of at most 76 columns, each
 * after the first indented two, and read back whole. */
TEST(timefmt_stalls_lines_fit_a_mail)
{
	struct delays d, back;
	char buf[256], copy[256], *line;

	delays_clear(&d);
	timefmt_stalls_lines(buf, sizeof(buf), &d);
	CHECK_STR(buf, "n/a stalls");
	for (int k = 0; k < DL_N; k++)
		d.s[k] = 0;
	d.s[DL_RECLAIM] = 2.44;
	d.s[DL_CPU] = 5.2;
	CHECK_INT(timefmt_stalls_lines(buf, sizeof(buf), &d), strlen(buf));
	CHECK_STR(buf, "stalls: 0.0s swapin 2.4s reclaim 0.0s thrashing 0.0s compact 0.0s io\n"
		  "  5.2s cpu 0.0s wpcopy 0.0s irq");
	CHECK_INT(timefmt_parse_stalls(buf, &back), 0);
	CHECK_NEAR(back.s[DL_CPU], 5.2, 1e-9);
	CHECK_NEAR(back.s[DL_IRQ], 0, 0);
	/* the widest figures */
	for (int k = 0; k < DL_N; k++)
		d.s[k] = 123456789.9;
	timefmt_stalls_lines(buf, sizeof(buf), &d);
	snprintf(copy, sizeof(copy), "%s", buf);
	for (line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
		CHECK(strlen(line) <= TIMEFMT_WIDTH);
	CHECK_INT(timefmt_parse_stalls(buf, &back), 0);
	CHECK_NEAR(back.s[DL_IRQ], 123456789.9, 1e-6);
	/* a short line stays one */
	delays_clear(&d);
	d.s[DL_CPU] = 1;
	timefmt_stalls_lines(buf, sizeof(buf), &d);
	CHECK_STR(buf, "stalls: 1.0s cpu");
}

TEST(timefmt_stalls_parse)
{
	struct delays d;

	CHECK_INT(timefmt_parse_stalls("stalls: 41.2s swapin 3.1s reclaim 12.0s thrashing "
				       "0.4s io 1.9s cpu", &d), 0);
	CHECK_NEAR(d.s[DL_SWAPIN], 41.2, 1e-9);
	CHECK_NEAR(d.s[DL_RECLAIM], 3.1, 1e-9);
	CHECK_NEAR(d.s[DL_THRASHING], 12.0, 1e-9);
	CHECK_NEAR(d.s[DL_IO], 0.4, 1e-9);
	CHECK_NEAR(d.s[DL_CPU], 1.9, 1e-9);
	CHECK(isnan(d.s[DL_COMPACT]) && isnan(d.s[DL_IRQ]));
	CHECK_INT(timefmt_parse_stalls("  stalls: 0.0s irq  \n", &d), 0);
	CHECK_NEAR(d.s[DL_IRQ], 0.0, 0);
	CHECK(isnan(d.s[DL_SWAPIN]));
	CHECK_INT(timefmt_parse_stalls("n/a stalls", &d), 0);
	CHECK(!delays_known(&d));

	d.s[DL_CPU] = 7;
	CHECK_INT(timefmt_parse_stalls("stalls:", &d), -1);
	CHECK_INT(timefmt_parse_stalls("stalls: 1.2s bogus", &d), -1);
	CHECK_INT(timefmt_parse_stalls("stalls: 1.2s cpu 1.3s cpu", &d), -1);
	CHECK_INT(timefmt_parse_stalls("stalls: 1.25s cpu", &d), -1);
	CHECK_INT(timefmt_parse_stalls("stalls: 1s cpu", &d), -1);
	CHECK_INT(timefmt_parse_stalls("stalls: -1.0s cpu", &d), -1);
	CHECK_INT(timefmt_parse_stalls("stalls: 1.0s cpu x", &d), -1);
	CHECK_INT(timefmt_parse_stalls("0:01 kswapd", &d), -1);
	CHECK_NEAR(d.s[DL_CPU], 7, 0);	/* untouched */
}

TEST(timefmt_stalls_round_trip)
{
	struct delays d, back;
	char buf[256];

	delays_clear(&d);
	d.s[DL_SWAPIN] = 27.123456;
	d.s[DL_CPU] = 0.0999;
	d.s[DL_IRQ] = 123456.7;
	timefmt_stalls(buf, sizeof(buf), &d);
	CHECK_STR(buf, "stalls: 27.1s swapin 0.0s cpu 123456.7s irq");
	CHECK_INT(timefmt_parse_stalls(buf, &back), 0);
	CHECK_NEAR(back.s[DL_SWAPIN], 27.1, 1e-9);
	CHECK_NEAR(back.s[DL_CPU], 0.0, 1e-9);
	CHECK_NEAR(back.s[DL_IRQ], 123456.7, 1e-6);
	CHECK(isnan(back.s[DL_RECLAIM]));
}
