/* The monitor's drawing alone, on the terminal it runs in: the default
 * plots scrolling with figures that move as in the workers' fill (swap
 * and reclaim idle, free memory falling, faults noisy, pressure
 * drifting) and 64 worker rows counting, one sample a frame, no /proc
 * read. Run it in a 200x60 terminal, bench/monitor.sh's size:
 *   THRASHTOP_PROFILE=FILE build/draw_cost [-a] [-s SECONDS] [FRAMES]
 * Frames are drawn for 5 s (prof.h's start-up), then FRAMES more (2000)
 * are summed into the profile's draw and output lines. -s sleeps between
 * frames, as the monitor does between ticks: what the workers run then
 * empties the caches. -a adds a stored run's trace behind each plot
 * (--against) and a sysctl change marked every 7 s. Without
 * THRASHTOP_PROFILE it draws FRAMES frames, the same ones each time, so
 * that what two builds send the terminal can be compared byte by byte. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monscreen.h"
#include "prof.h"
#include "sorter.h"
#include "tui.h"

#define NW 64

static unsigned rnd_state = 12345;

static double rnd(void)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return (double)(rnd_state >> 8 & 0xFFFF) / 65536.0;
}

/* The next value of plot id's figure after prev, at time t s. */
static double next_value(int id, double prev, double t)
{
	switch (id) {
	case M_SWAP_USED:
		return 200 << 10;
	case M_FREE:
	case M_AVAIL:
		return fmax(19e6 - t * 60e3 + rnd() * 20e3, 1e6);
	case M_MAJFLT:
		return rnd() < 0.03 ? rnd() * 400 : 0;
	case M_MINFLT:
		return 50e3 + rnd() * 20e3;
	case M_PSI_SOME:
	case M_PSI_FULL:
		return fmin(fmax(prev + (rnd() - 0.5) * 0.8, 0), 100);
	}
	return 0;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct series s[M_N], a[M_N];
	static double marks[4096];
	static struct ms_worker w[NW];
	struct ms_model m = { .host = "bench", .kernel = "6.1", .ram_kib = 24 << 20,
			      .swap_kib = 512 << 10, .swappiness = "60",
			      .workload = "qsbench -n 30000000 -p 64 -s 1", .interval = 0.1,
			      .status = "reclaim: none" };
	int ids[M_N], n = metrics_default_plots(false, MC_NONE, ids);
	long frames = 2000;
	double level[M_N] = { 0 }, alevel[M_N] = { 0 }, t0, t = 0, pause = 0;
	bool against = false;
	char err[256], *end;
	int opt;

	opterr = 0;
	while ((opt = getopt(argc, argv, "as:")) != -1) {
		if (opt == 'a')
			against = true;
		else if (opt != 's' || (pause = strtod(optarg, &end)) < 0 || pause > 10 ||
			 end == optarg || *end)
			return fprintf(stderr, "usage: draw_cost [-a] [-s SECONDS] [FRAMES]\n"), 2;
	}
	if (optind < argc && ((frames = strtol(argv[optind], &end, 10)) < 1 || *end)) {
		fprintf(stderr, "draw_cost: FRAMES: a count of frames, not \"%s\"\n", argv[optind]);
		return 2;
	}
	setlocale(LC_ALL, "");
	prof_init();
	for (int i = 0; i < M_N; i++)
		if (series_init(&s[i], 2048) || series_init(&a[i], 2048))
			return 1;
	for (int i = 0; i < n; i++)
		m.plot[i] = (struct ms_plot){ .id = ids[i], .s = &s[ids[i]],
					      .against = against ? &a[ids[i]] : NULL,
					      .scale = ids[i] == M_SWAP_USED ? 512 << 10 : 0 };
	m.marks = marks;
	m.nplots = n;
	for (int i = 0; i < NW; i++)
		w[i] = (struct ms_worker){ .pid = 1000 + i, .phase = sort_phase_name(2),
					   .state = 'R', .end = END_RUNNING };
	m.workers = w;
	m.nworkers = NW;
	if (tui_init(err, sizeof(err))) {
		fprintf(stderr, "draw_cost: %s\n", err);
		return 1;
	}
	t0 = mono();
	for (long f = 0; f < frames; f += !prof_on() || mono() - t0 >= 5) {
		t += m.interval;
		for (int i = 0; i < n; i++) {
			level[i] = next_value(ids[i], level[i], t);
			alevel[i] = next_value(ids[i], alevel[i], t + 30);
			series_push(&s[ids[i]], t, level[i]);
			series_push(&a[ids[i]], t, alevel[i]);
		}
		if (against && fmod(t, 7) < m.interval / 2 && m.nmarks < 4096)
			marks[m.nmarks++] = t - m.interval / 2;
		for (int i = 0; i < NW; i++) {
			w[i].frac = fmin(t / 600 + i / 1000.0, 1);
			w[i].cpu_s = t * 0.9;
			w[i].minflt = (int64_t)(t * 700 + i);
			w[i].rss_kib = (int64_t)(t * 2800);
			w[i].majflt = w[i].swap_kib = 0;
		}
		m.elapsed = t;
		ms_draw(&m);
		if (pause > 0)
			usleep((useconds_t)(pause * 1e6));
	}
	ms_end();
	tui_end();
	for (int i = 0; i < M_N; i++) {
		series_free(&s[i]);
		series_free(&a[i]);
	}
	return 0;
}
