#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cast.h"
#include "fmt.h"
#include "histui.h"
#include "history.h"
#include "monscreen.h"
#include "reclaim.h"
#include "replay.h"
#include "report.h"
#include "series.h"
#include "timefmt.h"
#include "tui.h"

#define WINDOW_CAP 2048		/* samples per plot: wider than any screen */
#define SEEK_S 10.0

struct replay {
	struct view v;			/* first: the loop's handle */
	struct run_record r;
	struct ms_model m;
	char place[32];			/* the header's "vm tcg" */
	struct series view[M_N];
	int shown;			/* samples shown: r.t[0 .. shown - 1] */
	double clock;			/* seconds into the run */
	double speed;
	bool paused, ended;
	double last;			/* monotonic time of the last advance */
	double *marks;
	double *kills;			/* the OOM kills' times, on r.t's clock */
	struct ms_worker *rows;
	const char *done[1];
	char result[320], status[1152], workload[1024], tuning[512], swappiness[24];
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int replay_index(const struct run_record *r, double rel)
{
	int lo = 0, hi = r->nsamples;

	/* the first t > rel */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (r->t[mid] <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

char *replay_result_line(const struct run_record *r, char *buf, size_t len)
{
	struct timeline tl;
	char line[256], ksw[64];

	run_record_timeline(r, &tl);
	timefmt_csh(line, sizeof(line), &tl);
	timefmt_kswapd(ksw, sizeof(ksw), r->kswapd_s);
	snprintf(buf, len, "#%" PRId64 " %s  %s  %s", r->id, line, ksw, run_status_name(r->status));
	return buf;
}

static double end_time(const struct replay *p)
{
	return p->r.t[p->r.nsamples - 1];
}

/* The plots' windows hold the samples before index k. */
static void show_until(struct replay *p, int k)
{
	int from;

	if (k < p->shown) {
		for (int id = 0; id < M_N; id++)
			series_clear(&p->view[id]);
		p->shown = 0;
	}
	from = k - WINDOW_CAP > p->shown ? k - WINDOW_CAP : p->shown;
	for (int i = from; i < k; i++)
		for (int id = 0; id < M_N; id++)
			series_push(&p->view[id], p->r.t[i],
				    p->r.series[id] ? p->r.series[id][i] : NAN);
	p->shown = k;
}

static void seek(struct replay *p, double rel)
{
	double end = end_time(p);

	p->clock = rel < 0 ? 0 : rel > end ? end : rel;
	p->ended = p->clock >= end;
	if (p->ended)
		p->paused = true;
	show_until(p, replay_index(&p->r, p->clock));
}

/* replay_sysctl_at for name's first n bytes, as a line of r->sysctls has it */
static const char *changed(const struct run_record *r, const char *name, size_t n, double t)
{
	const char *v = NULL;

	for (int i = 0; i < r->nchanges; i++)
		if (r->changes[i].t_s <= t && strlen(r->changes[i].name) == n &&
		    !strncmp(r->changes[i].name, name, n))
			v = r->changes[i].new_val;
	return v;
}

const char *replay_sysctl_at(const struct run_record *r, const char *name, double t)
{
	return changed(r, name, strlen(name), t);
}

void replay_tuning_at(const struct run_record *r, double t, char *buf, size_t len)
{
	struct fmt_buf b = { buf, len, 0 };
	char a[32];

	char comp[32], pool[8];

	/* in the live header's words and order (session.c) */
	if (r->mem_limit_kib != NA) {
		fmt_kib(a, sizeof(a), r->mem_limit_kib);
		fmt_buf_put(&b, "mem %s", a);
	}
	if (!strncmp(r->swap_backend, "zram ", 5) || !strncmp(r->swap_backend, "virtio-blk ", 11)) {
		fmt_buf_put(&b, "%sswap %s", b.n ? ", " : "", r->swap_backend);
	} else if (r->tmp_swap_kib > 0) {
		fmt_kib(a, sizeof(a), r->tmp_swap_kib);
		fmt_buf_put(&b, "%sswap +%s", b.n ? ", " : "", a);
	}
	if (r->zswap == 1 && sscanf(r->zswap_with, "%31s %7s", comp, pool) == 2)
		fmt_buf_put(&b, "%szswap %s pool %s", b.n ? ", " : "", comp, pool);
	if (r->global_limit_kib != NA) {
		fmt_kib(a, sizeof(a), r->global_limit_kib);
		fmt_buf_put(&b, "%sglobal %s", b.n ? ", " : "", a);
	}
	for (const char *s = r->sysctls; s && *s;) {
		size_t k = strcspn(s, "\n"), eq = strcspn(s, "=");
		const char *now = eq < k ? changed(r, s, eq, t) : NULL;

		if (now)
			fmt_buf_put(&b, "%s%.*s=%s", b.n ? ", " : "", (int)eq, s, now);
		else
			fmt_buf_put(&b, "%s%.*s", b.n ? ", " : "", (int)k, s);
		s += k + (s[k] == '\n');
	}
	fmt_buf_done(&b);
}

static void fill(struct replay *p)
{
	struct ms_model *m = &p->m;
	char a[32], b[32];

	m->elapsed = p->clock;
	fmt_minsec(a, sizeof(a), p->clock);
	fmt_minsec(b, sizeof(b), end_time(p));
	snprintf(p->status, sizeof(p->status),
		 "replay run %" PRId64 "%s%s%s  %s %gx  %s/%s  space %s ,. step "
		 "<-> %.0fs +- speed q close", p->r.id, p->r.label[0] ? " \"" : "",
		 p->r.label, p->r.label[0] ? "\"" : "", p->ended ? "END" : p->paused ? "PAUSED" : "playing",
		 p->speed, a, b, p->ended ? "again" : p->paused ? "play" : "pause", SEEK_S);
	m->status = p->status;
	const char *sw = replay_sysctl_at(&p->r, "vm.swappiness", p->clock);

	if (sw)
		snprintf(p->swappiness, sizeof(p->swappiness), "%s", sw);
	else
		snprintf(p->swappiness, sizeof(p->swappiness), "%" PRId64, p->r.swappiness);
	m->swappiness = !sw && p->r.swappiness == NA ? "n/a" : p->swappiness;
	replay_tuning_at(&p->r, p->clock, p->tuning, sizeof(p->tuning));
	m->tuning = p->tuning[0] ? p->tuning : NULL;
	/* the run's workers and result, once it is over */
	m->nworkers = p->ended ? p->r.nworkers : 0;
	m->ndone = p->ended ? 1 : 0;
}

static void draw(struct replay *p)
{
	fill(p);
	ms_draw(&p->m);
}

/* The replay's own actions (its key table's), past VIEW_CLOSE. */
enum {
	RP_PLAY = VIEW_ACTION, RP_BACK, RP_STEP, RP_REWIND, RP_FORWARD, RP_START, RP_END,
	RP_FASTER, RP_SLOWER,
};

static const struct tui_key keys[] = {
	{ "space", "play / pause; at the end, again", { { ' ', RP_PLAY } } },
	{ ", and .", "one sample back / on (pauses)", { { ',', RP_BACK }, { '.', RP_STEP } } },
	{ "Left/Right", "10 s back / on", { { KEY_LEFT, RP_REWIND }, { KEY_RIGHT, RP_FORWARD } } },
	{ "Home/End", "the start / the end", { { KEY_HOME, RP_START }, { KEY_END, RP_END } } },
	{ "+ / -", "twice / half the speed", { { '+', RP_FASTER }, { '-', RP_SLOWER } } },
	{ "Up/Down", "scroll the workers", { { KEY_UP, MS_UP }, { KEY_DOWN, MS_DOWN } } },
	{ "d", "stall / fault columns of the workers", { { 'd', MS_STALLS } } },
	{ "t", "trade plots for worker rows, and back", { { 't', MS_WORKERS } } },
	{ "Ctrl-L", "redraw the screen", { { 12, MS_REDRAW } } },
	{ "q Esc", "close the replay", { { 'q', VIEW_CLOSE }, { 'Q', VIEW_CLOSE }, { 27, VIEW_CLOSE } } },
	{ "?", "close this help", { { '?', MS_HELP } } },
	{ NULL, NULL, { { KEY_PPAGE, MS_PGUP }, { KEY_NPAGE, MS_PGDN }, { KEY_RESIZE, MS_RESIZE } } },
};
const struct tui_key *const replay_keys = keys;
const int replay_nkeys = (int)(sizeof(keys) / sizeof(keys[0]));

static void act(struct replay *p, int action)
{
	switch (action) {
	case RP_PLAY:
		if (p->ended)
			seek(p, 0);
		p->paused = !p->paused;
		break;
	case RP_STEP:	/* the next sample */
		p->paused = true;
		if (p->shown < p->r.nsamples)
			seek(p, p->r.t[p->shown]);
		break;
	case RP_BACK:	/* back one sample */
		p->paused = true;
		seek(p, p->shown >= 2 ? p->r.t[p->shown - 2] : 0);
		p->ended = false;
		break;
	case RP_FORWARD: seek(p, p->clock + SEEK_S); break;
	case RP_REWIND: seek(p, p->clock - SEEK_S); p->ended = false; break;
	case RP_START: seek(p, 0); break;
	case RP_END: seek(p, end_time(p)); break;
	case RP_FASTER:
		if (p->speed < REPLAY_SPEED_MAX)
			p->speed *= 2;
		break;
	case RP_SLOWER:
		if (p->speed > REPLAY_SPEED_MIN)
			p->speed /= 2;
		break;
	default:
		ms_do(&p->m, action);
		break;
	}
}

static int rp_key(struct view *v, int ch)
{
	struct replay *p = (struct replay *)v;
	int action;

	if (ms_help_shown() && (ch == 'q' || ch == 'Q' || ch == 27))
		ch = '?';
	action = tui_key_action(replay_keys, replay_nkeys, ch);
	if (action == VIEW_STAY || action == VIEW_CLOSE)
		return action;
	act(p, action);
	p->last = mono();
	return VIEW_STAY;
}

static void rp_draw(struct view *v)
{
	draw((struct replay *)v);
}

static double rp_wake(struct view *v, double now)
{
	struct replay *p = (struct replay *)v;
	double step;

	if (p->paused)
		return 0;
	seek(p, p->clock + (now - p->last) * p->speed);
	p->last = now;
	draw(p);
	if (p->ended)
		return 0;
	/* a frame per stored sample, 20 a second at most */
	step = p->r.nsamples > 1 ? end_time(p) / (p->r.nsamples - 1) : 0.1;
	return now + fmax(step / p->speed, 0.05);
}

static void rp_close(struct view *v)
{
	struct replay *p = (struct replay *)v;

	for (int id = 0; id < M_N; id++)
		series_free(&p->view[id]);
	run_record_clear(&p->r);
	free(p->marks);
	free(p->kills);
	free(p->rows);
	free(p);
}

static const struct view_ops replay_ops = {
	.name = "replay", .key = rp_key, .draw = rp_draw, .close = rp_close, .wake = rp_wake,
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void fill_fixed(struct replay *p, const int *plots, int nplots)
{
	struct ms_model *m = &p->m;
	const struct run_record *r = &p->r;
	int ids[M_N], n;
	char params[256];

	m->host = r->hostname;
	m->kernel = r->kernel_release;
	m->place = run_place_text(r->place, r->accel, p->place, sizeof(p->place));
	m->ram_kib = r->ram_kib;
	m->swap_kib = r->swap_total_kib;
	histui_params(r, params, sizeof(params));
	snprintf(p->workload, sizeof(p->workload), "%s%s", r->kind == RUN_QSBENCH ? "qsbench " : "",
		 params);
	m->workload = p->workload;
	/* the reclaim lane, where the run kept reclaim events */
	if (r->series[M_KSWAPD_AWAKE]) {
		m->lane_awake = &p->view[M_KSWAPD_AWAKE];
		m->lane_throttled = r->series[M_THROTTLED] ? &p->view[M_THROTTLED] : NULL;
		/* an event's time counts from the run's first sample */
		for (int i = 0; i < r->nevents; i++)
			if (!strcmp(r->events[i].kind, rc_event_name(RE_OOM)))
				p->kills[m->nlane_kills++] = r->t[0] + r->events[i].t_s;
		qsort(p->kills, (size_t)m->nlane_kills, sizeof(*p->kills), cmp_double);
		m->lane_kills = p->kills;
	}
	/* the interval recorded; for a run stored before it was, the mean
	 * step to two figures: a run at -d 0.1 shows 0.1, not 0.0992 (its
	 * first sample comes a step in, late ticks add up) */
	m->interval = r->nsamples > 1 ? (r->t[r->nsamples - 1] - r->t[0]) / (r->nsamples - 1) : 0;
	if (r->interval_s > 0) {
		m->interval = r->interval_s;
	} else if (m->interval > 0) {
		double k = pow(10, floor(log10(m->interval)) - 1);

		m->interval = round(m->interval / k) * k;
	}
	n = plots ? nplots : metrics_default_plots(r->series[M_CG_MEM] != NULL,
						       r->series[M_ZSWAP_STORED] && r->zswap == 1 ? MC_ZSWAP :
						       r->series[M_ZRAM_ORIG] ? MC_ZRAM : MC_NONE, ids);
	if (plots)
		memcpy(ids, plots, sizeof(ids[0]) * (size_t)n);
	for (int i = 0; i < n; i++) {
		int id = ids[i];
		double sc = metrics_scale_kept(id, r->ram_kib, r->hugetlb_kib, r->mlocked_kib,
					       r->mem_limit_kib, r->swap_total_kib);

		m->plot[i] = (struct ms_plot){
			.id = id, .s = &p->view[id], .scale = sc,
			.na = !r->series[id] ? "not recorded with this run" :
			      (id == M_SWAP_USED || id == M_SWAP_CACHED || id == M_CG_SWAP) &&
			      r->swap_total_kib == 0 ?
			      "no swap" : NULL,
		};
	}
	m->nplots = n;
	for (int i = 0; i < r->nchanges; i++)
		p->marks[i] = r->changes[i].t_s;
	m->marks = p->marks;
	m->nmarks = r->nchanges;
	for (int i = 0; i < r->nworkers; i++) {
		const struct run_worker *w = &r->workers[i];
		struct ms_worker *u = &p->rows[i];

		u->pid = w->pid;
		u->phase = r->kind == RUN_QSBENCH ? "done" : NULL;
		u->frac = NAN;
		u->cpu_s = (double)(w->user_us + w->sys_us) / 1e6;
		u->majflt = w->majflt;
		u->minflt = w->minflt;
		u->rss_kib = u->swap_kib = NA;
		u->end = w->end == END_OK || w->end == END_VERIFY || w->end == END_OOM ? w->end :
			 w->signal ? END_SIGNAL : END_EXIT;
		u->code = w->signal ? w->signal : w->exit_code;
		/* in % of the run's wall time, as the monitor's rows and show */
		for (int k = 0; k < DL_N; k++)
			u->stall_pct[k] = r->wall_us > 0 ? 100.0 * w->delays.s[k] /
							   ((double)r->wall_us / 1e6) : NAN;
	}
	m->workers = p->rows;
	replay_result_line(r, p->result, sizeof(p->result));
	p->done[0] = p->result;
	m->done = p->done;
}

struct view *replay_open(struct run_record *r, const int *plots, int nplots, double speed,
			 char *err, size_t errlen)
{
	struct replay *p;

	if (r->nsamples < 1) {
		fmt_err(err, errlen, "run %" PRId64 " was kept without its series: nothing to replay",
			r->id);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	p->v.ops = &replay_ops;
	p->r = *r;
	run_record_init(r);
	p->marks = calloc((size_t)p->r.nchanges + 1, sizeof(*p->marks));
	p->kills = calloc((size_t)p->r.nevents + 1, sizeof(*p->kills));
	p->rows = calloc((size_t)p->r.nworkers + 1, sizeof(*p->rows));
	if (!p->marks || !p->kills || !p->rows)
		goto oom;
	for (int id = 0; id < M_N; id++)
		if (series_init(&p->view[id], WINDOW_CAP))
			goto oom;
	fill_fixed(p, plots, nplots);
	p->m.keys = replay_keys;
	p->m.nkeys = replay_nkeys;
	p->speed = speed;
	p->last = mono();
	seek(p, 0);
	return &p->v;
oom:
	if (p)
		rp_close(&p->v);
	fmt_err(err, errlen, "replay: out of memory");
	return NULL;
}

void replay_record(struct view *v)
{
	struct replay *p = (struct replay *)v;
	double t = 0;

	p->last = 0;
	cast_set_time(0);
	rp_draw(v);
	/* each frame the replay would draw, at the time it would */
	while ((t = rp_wake(v, t)) > 0)
		cast_set_time(t);
}
