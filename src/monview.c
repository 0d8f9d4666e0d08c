#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "monview.h"
#include "prof.h"
#include "tui.h"

static const struct tui_key keys[] = {
	{ "q", "quit (stops the workload)", { { 'q', MV_QUIT }, { 'Q', MV_QUIT } } },
	{ "r", "run the workload again", { { 'r', MV_RERUN }, { 'R', MV_RERUN } } },
	{ "space", "pause drawing (sampling goes on)", { { ' ', MS_PAUSE } } },
	{ "+ / -", "longer / shorter interval", { { '+', MV_SLOWER }, { '-', MV_FASTER } } },
	{ "s / S", "swappiness -10 / +10 (root)",
	  { { 's', MV_SWAPPINESS_DOWN }, { 'S', MV_SWAPPINESS_UP } } },
	{ "k / K", "other vm knob down / up (root)", { { 'k', MV_KNOB_DOWN }, { 'K', MV_KNOB_UP } } },
	{ "h", "history of runs (sampling goes on)", { { 'h', MV_HISTORY } } },
	{ "w", "write the screen to a text file", { { 'w', MV_DUMP } } },
	{ "c", "choose the plots", { { 'c', MV_CHOOSE } } },
	{ "d", "stall / fault columns of the workers", { { 'd', MS_STALLS } } },
	{ "t", "trade plots for worker rows, and back", { { 't', MS_WORKERS } } },
	{ "Up/Down", "scroll the workers", { { KEY_UP, MS_UP }, { KEY_DOWN, MS_DOWN } } },
	{ "PgUp/PgDn", "scroll a page of workers", { { KEY_PPAGE, MS_PGUP }, { KEY_NPAGE, MS_PGDN } } },
	{ "Home/End", "the first / last workers", { { KEY_HOME, MS_HOME }, { KEY_END, MS_END } } },
	{ "Ctrl-L", "redraw the screen", { { 12, MS_REDRAW } } },
	{ "? q Esc", "close this help", { { '?', MS_HELP }, { 27, MS_HELP_CLOSE } } },
	{ NULL, NULL, { { KEY_RESIZE, MS_RESIZE } } },
};
const struct tui_key *const monview_keys = keys;
const int monview_nkeys = (int)(sizeof(keys) / sizeof(keys[0]));

static int mv_key(struct view *v, int ch)
{
	struct monview *mv = (struct monview *)v;
	int act;

	/* A key may redraw at once: the model must not point at what the
	 * session has since freed (its run lines grow while a view is over
	 * the monitor). */
	if (monview_fill(mv))
		return VIEW_STAY;
	/* q over the help closes it, as Esc does: a run is not ended by a
	 * key meant for the overlay */
	if (ms_help_shown() && (ch == 'q' || ch == 'Q'))
		ch = 27;
	act = tui_key_action(monview_keys, monview_nkeys, ch);
	if (act >= 0)
		return act;
	ms_do(&mv->m, act);
	return VIEW_STAY;
}

static void mv_draw(struct view *v)
{
	struct monview *mv = (struct monview *)v;
	struct prof_mark pm;
	int rc;

	prof_begin(&pm);
	rc = monview_fill(mv);
	prof_end(PROF_MODEL, &pm);
	if (rc == 0)
		ms_draw(&mv->m);
}

static void mv_close(struct view *v)
{
	monview_free((struct monview *)v);
}

static const struct view_ops monview_ops = {
	.name = "monitor", .key = mv_key, .draw = mv_draw, .close = mv_close,
};

/* The status line: a fresh notice, else the cgroup's figures and which
 * reclaim is at work. */
static void fill_status(struct monview *mv)
{
	const struct session *s = mv->s;
	struct tuning_rates tr;
	double now[M_N];
	char rec[128], cg[160];

	if (session_note_shown(s)) {
		mv->m.status = s->note;
		mv->m.status_error = s->note_error;
		return;
	}
	/* the figures the plots beside it show last */
	for (int i = 0; i < M_N; i++)
		now[i] = series_last(&s->view[i]);
	tuning_rates(&s->tun, &tr);
	tuning_reclaim_text(rec, sizeof(rec), now, s->tun.have_cg, tr.failcnt);
	if (s->tun.have_cg && s->tun.t_cur > 0) {
		tuning_cgroup_text(cg, sizeof(cg), &s->tun.cur, &tr);
		snprintf(mv->status, sizeof(mv->status), "%.150s  %.100s", cg, rec);
	} else {
		snprintf(mv->status, sizeof(mv->status), "%s", rec);
	}
	mv->m.status = mv->status;
	mv->m.status_error = false;
}

/* [h:]m:ss, or n/a */
static void eta_text(char *buf, size_t len, double sec)
{
	long long t;

	if (!(sec >= 0) || sec > 9e12) {
		snprintf(buf, len, "n/a");
		return;
	}
	t = llround(sec);
	if (t >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lld:%02lld", t / 60, t % 60);
}

static void fill_workload_line(struct monview *mv, double now)
{
	const struct session *s = mv->s;
	const struct session_sweep *sw = &s->sweep;
	bool running = s->run.active && !s->run.forking;
	size_t off = 0, len = sizeof(mv->wl_line);

	if (sw->cell >= 0) {
		char eta[32];
		int total = sw->sw.ncells * s->o->repeat;
		double left = sweep_eta(sw->t_last - sw->t0, sw->done, total, running,
					running ? now - s->run.wl.t_start : 0);

		if (sw->done >= total && !s->run.active)
			snprintf(eta, sizeof(eta), "done");
		else
			eta_text(eta, sizeof(eta), left);
		off += (size_t)snprintf(mv->wl_line, len, "cell %d/%d %s ETA %s | ", sw->cell + 1,
					sw->sw.ncells, sw->cell_text, eta);
	}
	if (off < len)
		snprintf(mv->wl_line + off, len - off, "%s", s->workload_desc);
	mv->m.workload = mv->wl_line;
	mv->m.tuning = s->tune_desc[0] ? s->tune_desc : NULL;
}

/* The extra texts of the cgroup's plots: its limit hits, OOM kills and
 * pressure beside its memory, refaults beside its major faults. */
static void fill_cgroup_extra(struct monview *mv)
{
	const struct session *s = mv->s;
	const struct cgroup_stat *c = &s->tun.cur;
	struct tuning_rates tr;
	int64_t oom = tuning_run_oom(&s->tun);
	char a[32];
	size_t off;

	mv->cg_extra[0][0] = mv->cg_extra[1][0] = '\0';
	if (!s->tun.have_cg || !(s->tun.t_cur > 0))
		return;
	tuning_rates(&s->tun, &tr);
	fmt_rate(a, sizeof(a), tr.failcnt);
	/* v1 memory.failcnt (+ memsw), v2 memory.events "max" */
	off = (size_t)snprintf(mv->cg_extra[0], sizeof(mv->cg_extra[0]), "%s %s",
			       s->tun.cg.version == 2 ? "max events" : "failcnt", a);
	if (oom > 0 && off < sizeof(mv->cg_extra[0]))
		off += (size_t)snprintf(mv->cg_extra[0] + off, sizeof(mv->cg_extra[0]) - off,
					"  OOM kills %lld", (long long)oom);
	if (!isnan(c->psi_some10) && off < sizeof(mv->cg_extra[0]))
		snprintf(mv->cg_extra[0] + off, sizeof(mv->cg_extra[0]) - off,
			 "  psi some %.0f%%", c->psi_some10);
	fmt_rate(a, sizeof(a), tr.refault);
	snprintf(mv->cg_extra[1], sizeof(mv->cg_extra[1]), "refaults %s", a);
}

/* Why plot id cannot be drawn now, NULL when it can. */
static const char *plot_na(const struct session *s, int id)
{
	if (!s->avail.ok[id])
		return s->avail.why[id];
	if (id == M_SWAP_USED && s->cur.mem[MI_SWAP_TOTAL] == NA)
		return "swap n/a";
	if ((id == M_SWAP_USED || id == M_SWAP_CACHED || id == M_CG_SWAP) &&
	    s->cur.mem[MI_SWAP_TOTAL] == 0)
		return "no swap";
	if (id == M_KSWAPD_CPU && s->cur.nkswapd == 0)
		return "kswapd not visible (n/a)";
	return NULL;
}

/* The chosen plots, else the default layout for the session as it is now
 * (a sweep or --mem brings the cgroup's plots). */
static void fill_plots(struct monview *mv)
{
	const struct session *s = mv->s;
	struct ms_model *m = &mv->m;
	const struct cgroup_stat *cg = s->tun.have_cg ? &s->tun.cur : NULL;
	int ids[M_N], n = mv->nchosen >= 0 ? mv->nchosen :
			  metrics_default_plots(s->tun.have_cg, s->comp, ids);

	if (mv->nchosen >= 0)
		memcpy(ids, mv->chosen, sizeof(ids[0]) * (size_t)n);
	fill_cgroup_extra(mv);
	for (int i = 0; i < n; i++) {
		int id = ids[i];

		m->plot[i] = (struct ms_plot){
			.id = id, .s = &s->view[id], .na = plot_na(s, id),
			.scale = metrics_scale(id, &s->cur, cg),
			.against = s->against.have ? &s->against.view[id] : NULL,
			.extra = id == M_CG_MEM && mv->cg_extra[0][0] ? mv->cg_extra[0] :
				 id == M_CG_MAJFLT && mv->cg_extra[1][0] ? mv->cg_extra[1] : NULL,
		};
	}
	m->nplots = n;
	m->against = s->against.have ? s->against.legend : NULL;
}

static void fill_row_proc(struct ms_worker *r, const struct proc_sample *p, long tck)
{
	r->state = p->alive ? p->state : 0;
	r->cpu_s = p->alive ? (double)(p->utime_ticks + p->stime_ticks) / (double)tck : NAN;
	r->majflt = p->alive ? p->majflt : NA;
	r->minflt = p->alive ? p->minflt : NA;
	r->rss_kib = p->alive ? p->rss_kib : NA;
	r->swap_kib = p->alive ? p->swap_kib : NA;
}

static int ensure_rows(struct monview *mv, int n)
{
	struct ms_worker *r;

	if (n <= mv->nrows_cap)
		return 0;
	r = realloc(mv->rows, sizeof(*r) * (size_t)n);
	if (!r)
		return -1;
	memset(r + mv->nrows_cap, 0, sizeof(*r) * (size_t)(n - mv->nrows_cap));
	mv->rows = r;
	mv->nrows_cap = n;
	return 0;
}

/* Each delay in % of the run's wall time so far: at the run's end what
 * history show gives, for a worker that ended early too. */
static void fill_stalls(struct ms_worker *r, const struct delays *d, double wall)
{
	for (int k = 0; k < DL_N; k++)
		r->stall_pct[k] = d && wall > 0 ? 100.0 * d->s[k] / wall : NAN;
}

static void fill_worker(struct ms_worker *r, const struct run *rn, int i,
			const struct proc_sample *p, const struct delays *d, double now,
			long tck)
{
	const struct worker *w = &rn->wl.w[i];
	bool started = !rn->forking;

	r->pid = w->pid;
	r->end = w->end;
	r->code = w->end == END_SIGNAL || w->end == END_OOM ? WTERMSIG(w->status) :
		  w->end != END_RUNNING && WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 0;
	r->elapsed = !started ? 0 : (w->end == END_RUNNING ? now : w->t_end) - rn->wl.t_start;
	if (rn->wl.prog) {
		r->phase = sort_phase_name(atomic_load(&rn->wl.prog[i].phase));
		r->frac = sort_progress_fraction(&rn->wl.prog[i]);
	} else {
		r->phase = NULL;
		r->frac = NAN;
	}
	if (w->end == END_RUNNING) {
		fill_row_proc(r, p, tck);
	} else {
		r->state = 0;
		r->cpu_s = (double)(w->ru.ru_utime.tv_sec + w->ru.ru_stime.tv_sec) +
			   (double)(w->ru.ru_utime.tv_usec + w->ru.ru_stime.tv_usec) / 1e6;
		r->majflt = w->ru.ru_majflt;
		r->minflt = w->ru.ru_minflt;
		r->rss_kib = r->swap_kib = NA;
	}
	fill_stalls(r, w->end == END_RUNNING ? d : &w->delays,
		    !started ? 0 : rn->active ? now - rn->wl.t_start : rn->res.tl.wall_us / 1e6);
}

/* Session s's worker rows, then a command's tree, into rows: how many. */
static int fill_rows(struct ms_worker *rows, const struct session *s, double now, long tck)
{
	const struct run *rn = &s->run;
	const struct place_rows *pr = &s->place->rows;
	int nw = rn->wl.n;

	for (int i = 0; i < nw; i++) {
		memset(&rows[i], 0, sizeof(rows[i]));
		fill_worker(&rows[i], rn, i, &pr->ps[i], pr->dl ? &pr->dl[i] : NULL, now, tck);
	}
	for (int i = 0; i < pr->tree.n; i++) {
		struct ms_worker *r = &rows[nw + i];

		memset(r, 0, sizeof(*r));
		r->pid = pr->tree.pid[i];
		r->end = END_RUNNING;
		r->frac = NAN;
		r->elapsed = now - pr->tree.seen[i];
		fill_row_proc(r, &pr->tree.ps[i], tck);
		fill_stalls(r, NULL, 0);
	}
	return nw + pr->tree.n;
}

/* The reclaim lane, when the session has reclaim events. */
static void fill_lane(struct monview *mv)
{
	const struct session *s = mv->s;
	bool on = s->avail.ok[M_KSWAPD_AWAKE];

	mv->m.lane_awake = on ? &s->view[M_KSWAPD_AWAKE] : NULL;
	mv->m.lane_throttled = on ? &s->view[M_THROTTLED] : NULL;
	mv->m.lane_kills = s->kills;
	mv->m.nlane_kills = on ? s->nkills : 0;
}

/* ---- several places side by side ------------------------------------ */

/* Place j's head row: its name and machine, its figures as the plain
 * header gives them, its run and time, or why it ended. */
static void side_head(struct monview *mv, int j, double now, bool own_workload)
{
	const struct side *d = mv->sd->side[j];
	const struct session *s = &d->s;
	const struct run *rn = &s->run;
	char where[32], ram[32], swap[32], el[32], run[32] = "";
	size_t o;

	run_place_text(s->place->kind, s->place->accel, where, sizeof(where));
	fmt_kib(ram, sizeof(ram), s->sys.mem_total_kib);
	fmt_kib(swap, sizeof(swap), s->cur.t > 0 && s->cur.mem[MI_SWAP_TOTAL] != NA ?
		s->cur.mem[MI_SWAP_TOTAL] : s->sys.swap_total_kib);
	fmt_minsec(el, sizeof(el), rn->active && !rn->forking ? now - rn->wl.t_start :
		   !rn->active && rn->wl.n ? rn->wl.t_end - rn->wl.t_start : 0);
	if (s->repeat_n > 1)
		snprintf(run, sizeof(run), "run %d/%d ", s->repeat_k, s->repeat_n);
	o = (size_t)snprintf(mv->heads[j], sizeof(mv->heads[j]), "%s: %s  Linux %s  %s  RAM %s  "
			     "swap %s  swappiness %s  %s%s", d->name, s->sys.hostname, s->sys.release,
			     where, ram, swap, s->swappiness, run, el);
	if (own_workload && o < sizeof(mv->heads[j]))
		o += (size_t)snprintf(mv->heads[j] + o, sizeof(mv->heads[j]) - o, "  %s",
				      s->workload_desc);
	if (d->dead && o < sizeof(mv->heads[j]))
		snprintf(mv->heads[j] + o, sizeof(mv->heads[j]) - o, "  ended: %s", d->why);
}

/* The places' plots: each place's series of the first's plots (a place
 * without the figure: none), on one scale where each has its own fixed
 * one (the larger), else shared by their lines. */
static void fill_side_plots(struct monview *mv)
{
	const struct sides *sd = mv->sd;
	const struct session *s = mv->s;
	struct ms_model *m = &mv->m;
	int ids[M_N], n = mv->nchosen >= 0 ? mv->nchosen :
			  metrics_default_plots(s->tun.have_cg, s->comp, ids);

	if (mv->nchosen >= 0)
		memcpy(ids, mv->chosen, sizeof(ids[0]) * (size_t)n);
	for (int i = 0; i < n; i++) {
		struct ms_plot *pl = &m->plot[i];
		const char *na = NULL;
		bool any = false;

		*pl = (struct ms_plot){ .id = ids[i], .s = &s->view[ids[i]], .scale = 0 };
		for (int j = 0; j < sd->n; j++) {
			const struct session *sj = &sd->side[j]->s;
			const char *why = plot_na(sj, ids[i]);
			double sc = metrics_scale(ids[i], &sj->cur, sj->tun.have_cg ? &sj->tun.cur : NULL);

			pl->side[j] = why ? NULL : &sj->view[ids[i]];
			na = na ? na : why;
			any = any || !why;
			pl->scale = j == 0 || (pl->scale > 0 && sc > 0) ? fmax(pl->scale, sc) : 0;
		}
		pl->na = any ? NULL : na;
	}
	m->nplots = n;
	m->against = NULL;
}

/* The freshest note of any place or of the whole, else each place's
 * reclaim at work. */
static void fill_side_status(struct monview *mv)
{
	const struct sides *sd = mv->sd;
	double until = sd->note[0] && now_monotonic() < sd->note_until ? sd->note_until : 0;
	size_t o = 0;

	mv->m.status = until > 0 ? sd->note : NULL;
	mv->m.status_error = until > 0 && sd->note_error;
	for (int j = 0; j < sd->n; j++) {
		const struct session *s = &sd->side[j]->s;

		if (session_note_shown(s) && s->note_until > until) {
			until = s->note_until;
			mv->m.status = s->note;
			mv->m.status_error = s->note_error;
		}
	}
	if (mv->m.status)
		return;
	for (int j = 0; j < sd->n && o < sizeof(mv->status); j++) {
		const struct session *s = &sd->side[j]->s;
		struct tuning_rates tr;
		double now[M_N];
		char rec[128];

		for (int i = 0; i < M_N; i++)
			now[i] = series_last(&s->view[i]);
		tuning_rates(&s->tun, &tr);
		tuning_reclaim_text(rec, sizeof(rec), now, s->tun.have_cg, tr.failcnt);
		o += (size_t)snprintf(mv->status + o, sizeof(mv->status) - o, "%s%s: %s",
				      j ? "  " : "", sd->side[j]->name, rec);
	}
	mv->m.status = mv->status;
	mv->m.status_error = false;
}

/* Each place's ended runs as they end, named. */
static void fill_side_done(struct monview *mv)
{
	const struct sides *sd = mv->sd;

	for (int j = 0; j < sd->n; j++) {
		const struct session *s = &sd->side[j]->s;

		while (mv->done_seen[j] < s->ndone) {
			char **d = realloc(mv->done, sizeof(*d) * (size_t)(mv->ndone + 1));
			size_t len = strlen(sd->side[j]->name) + strlen(s->done[mv->done_seen[j]]) + 2;

			if (!d || !(d[mv->ndone] = malloc(len))) {
				if (d)
					mv->done = d;
				return;
			}
			mv->done = d;
			snprintf(d[mv->ndone++], len, "%s %s", sd->side[j]->name,
				 s->done[mv->done_seen[j]++]);
		}
	}
	mv->m.done = (const char *const *)mv->done;
	mv->m.ndone = mv->ndone;
}

/* Every place's head row and its worker rows, one place after another. */
static int fill_side_rows(struct monview *mv, double now, bool own_workload)
{
	const struct sides *sd = mv->sd;
	long tck = sysconf(_SC_CLK_TCK);
	int n = 0;

	for (int j = 0; j < sd->n; j++) {
		const struct session *s = &sd->side[j]->s;

		n += 1 + s->run.wl.n + s->place->rows.tree.n;
	}
	if (ensure_rows(mv, n))
		return -1;
	n = 0;
	for (int j = 0; j < sd->n; j++) {
		struct ms_worker *h = &mv->rows[n];

		side_head(mv, j, now, own_workload);
		*h = (struct ms_worker){ .head = mv->heads[j], .side = j,
					 .head_bad = sd->side[j]->dead, .frac = NAN };
		mv->row_at[j] = n++;
		mv->nrows[j] = fill_rows(mv->rows + n, &sd->side[j]->s, now, tck);
		n += mv->nrows[j];
	}
	mv->m.workers = mv->rows;
	mv->m.nworkers = n;
	return 0;
}

static int fill_sides(struct monview *mv)
{
	const struct sides *sd = mv->sd;
	const struct session *s = mv->s;
	struct ms_model *m = &mv->m;
	double now = now_monotonic();
	bool same = true;
	size_t o;

	m->nsides = sd->n;
	m->axis = (struct plot_axis){ 0, s->plan.interval };
	o = (size_t)snprintf(mv->title, sizeof(mv->title), "%d places:", sd->n);
	for (int j = 0; j < sd->n; j++) {
		const struct session *sj = &sd->side[j]->s;

		m->side[j].name = sd->side[j]->name;
		m->side[j].ended = sd->side[j]->dead;
		if (sj->have_plot_prev && sj->plot_prev.t > m->axis.t)
			m->axis.t = sj->plot_prev.t;
		same = same && !strcmp(sj->workload_desc, s->workload_desc);
		if (o < sizeof(mv->title))
			o += (size_t)snprintf(mv->title + o, sizeof(mv->title) - o, "%s %s",
					      j ? "," : "", sd->side[j]->name);
	}
	if (!(m->axis.t > 0))
		m->axis.t = now;
	m->sides_title = mv->title;
	m->shared = sd->shared ? sd->shared_text : NULL;
	m->interval = s->plan.interval;
	m->nruns = 0;
	m->marks = s->marks;
	m->nmarks = s->nmarks;
	m->lane_awake = m->lane_throttled = NULL;
	m->nlane_kills = 0;
	fill_workload_line(mv, now);
	if (!same)
		m->workload = "each place's workload on its row";
	fill_side_plots(mv);
	fill_side_status(mv);
	fill_side_done(mv);
	return fill_side_rows(mv, now, !same);
}

int monview_fill(struct monview *mv)
{
	const struct session *s = mv->s;
	const struct run *rn = &s->run;
	const struct place_rows *pr = &s->place->rows;
	struct ms_model *m = &mv->m;
	double now = now_monotonic();
	long tck = sysconf(_SC_CLK_TCK);
	int nw = rn->wl.n;

	if (mv->sd && mv->sd->n > 1)
		return fill_sides(mv);
	if (ensure_rows(mv, nw + pr->tree.n))
		return -1;
	m->ram_kib = s->sys.mem_total_kib;
	/* the latest sample's: swap added or removed since the run began
	 * shows at once, as in the swap plot's scale */
	m->swap_kib = s->cur.t > 0 && s->cur.mem[MI_SWAP_TOTAL] != NA ?
		      s->cur.mem[MI_SWAP_TOTAL] : s->sys.swap_total_kib;
	m->elapsed = rn->active && !rn->forking ? now - rn->wl.t_start :
		     !rn->active && nw ? rn->wl.t_end - rn->wl.t_start : 0;
	m->interval = s->plan.interval;
	/* run k of this batch of repeats (of this sweep cell) */
	m->run = s->repeat_k;
	m->nruns = s->repeat_n > 1 ? s->repeat_n : 0;
	m->marks = s->marks;
	m->nmarks = s->nmarks;
	fill_lane(mv);
	fill_workload_line(mv, now);
	fill_plots(mv);
	fill_status(mv);
	fill_rows(mv->rows, s, now, tck);
	m->workers = mv->rows;
	m->nworkers = nw + pr->tree.n;
	m->done = (const char *const *)s->done;
	m->ndone = s->ndone;
	return 0;
}

int monview_init(struct monview *mv, const struct sides *sd, const int *plots, int nplots)
{
	struct ms_model *m = &mv->m;
	const struct session *s = &sd->side[0]->s;

	memset(mv, 0, sizeof(*mv));
	monview_set_plots(mv, plots, nplots);
	mv->v.ops = &monview_ops;
	mv->sd = sd;
	mv->s = s;
	m->host = s->sys.hostname;
	m->kernel = s->sys.release;
	m->place = run_place_text(s->place->kind, s->place->accel, mv->place, sizeof(mv->place));
	m->swapdevs = s->swapdevs;
	m->swappiness = s->swappiness;
	m->warning = s->guard.why[0] ? s->guard.why : NULL;
	m->keys = monview_keys;
	m->nkeys = monview_nkeys;
	return monview_fill(mv);
}

void monview_set_plots(struct monview *mv, const int *plots, int nplots)
{
	mv->nchosen = plots ? nplots : -1;
	if (plots)
		memcpy(mv->chosen, plots, sizeof(plots[0]) * (size_t)nplots);
}

void monview_rows(const struct monview *mv, int i, int *first, int *shown)
{
	int top = ms_scroll(), n = ms_rows_shown(), lo, hi;

	if (!mv->sd || mv->sd->n < 2) {
		*first = top;
		*shown = n;
		return;
	}
	/* the rows on screen that are place i's, counted from its first */
	lo = mv->row_at[i] + 1;
	hi = lo + mv->nrows[i];
	*first = top > lo ? top - lo : 0;
	*shown = n < 0 ? -1 : top + n < hi ? top + n - lo - *first : hi - lo - *first;
	if (*shown < 0 && n >= 0)
		*shown = 0;
}

void monview_free(struct monview *mv)
{
	free(mv->rows);
	mv->rows = NULL;
	mv->nrows_cap = 0;
	for (int i = 0; i < mv->ndone; i++)
		free(mv->done[i]);
	free(mv->done);
	mv->done = NULL;
	mv->ndone = 0;
}
