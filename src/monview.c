#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "monview.h"

static int mv_key(struct view *v, int ch)
{
	struct monview *mv = (struct monview *)v;

	switch (ui_key(&mv->m, ch)) {
	case UI_QUIT: return MV_QUIT;
	case UI_RERUN: return MV_RERUN;
	case UI_FASTER: return MV_FASTER;
	case UI_SLOWER: return MV_SLOWER;
	case UI_SWAPPINESS_DOWN: return MV_SWAPPINESS_DOWN;
	case UI_SWAPPINESS_UP: return MV_SWAPPINESS_UP;
	case UI_KNOB_DOWN: return MV_KNOB_DOWN;
	case UI_KNOB_UP: return MV_KNOB_UP;
	case UI_HISTORY: return MV_HISTORY;
	case UI_DUMP: return MV_DUMP;
	default: return VIEW_STAY;
	}
}

static void mv_draw(struct view *v)
{
	struct monview *mv = (struct monview *)v;

	if (monview_fill(mv) == 0)
		ui_draw(&mv->m);
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
	char rec[128], cg[160];

	if (session_note_shown(s)) {
		mv->m.status = s->note;
		mv->m.status_error = s->note_error;
		return;
	}
	tuning_rates(&s->tun, &tr);
	tuning_reclaim_text(rec, sizeof(rec), &s->rates, s->tun.have_cg, tr.failcnt);
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

static bool cg_limited(long long v)
{
	return v != CGROUP_NA && v != CGROUP_UNLIMITED;
}

/* The cgroup's plots beside the system's: usage against the limit with the
 * limit hits, OOM kills and pressure; swap on the system swap's scale
 * (or the cgroup's swap limit if lower); major faults with refaults. */
static void fill_cgroup_plots(struct monview *mv)
{
	const struct session *s = mv->s;
	struct ui_model *m = &mv->m;
	struct ui_plot *mem = &m->plot[UI_PLOT_CG_MEM], *sw = &m->plot[UI_PLOT_CG_SWAP];
	const struct cgroup_stat *c = &s->tun.cur;
	bool on = s->tun.have_cg, seen = on && s->tun.t_cur > 0;
	double swap_total = (double)s->cur.mem[MI_SWAP_TOTAL];
	struct tuning_rates tr;
	int64_t oom = tuning_run_oom(&s->tun);
	char a[32];
	size_t off;

	mem->s = on ? &s->cgview[CG_MEM] : NULL;
	sw->s = on ? &s->cgview[CG_SWAP] : NULL;
	m->plot[UI_PLOT_CG_MAJFLT].s = on ? &s->cgview[CG_MAJ] : NULL;
	mem->extra = sw->extra = m->plot[UI_PLOT_CG_MAJFLT].extra = NULL;
	if (!on)
		return;
	mem->scale = cg_limited(c->limit) ? (double)c->limit / 1024 : 0;
	sw->scale = swap_total > 0 ? swap_total : 0;
	if (cg_limited(c->swap_limit) && (double)c->swap_limit / 1024 < sw->scale)
		sw->scale = (double)c->swap_limit / 1024;
	sw->na = s->cur.mem[MI_SWAP_TOTAL] == 0 ? "no swap" :
		 seen && c->swap_usage == CGROUP_NA ? "swap not accounted (n/a)" : NULL;

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
	if (seen) {
		mem->extra = mv->cg_extra[0];
		m->plot[UI_PLOT_CG_MAJFLT].extra = mv->cg_extra[1];
	}
}

static void fill_row_proc(struct ui_worker *r, const struct proc_sample *p, long tck)
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
	struct ui_worker *r;

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

static void fill_worker(struct ui_worker *r, const struct run *rn, int i,
			const struct proc_sample *p, double now, long tck)
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
}

int monview_fill(struct monview *mv)
{
	const struct session *s = mv->s;
	const struct run *rn = &s->run;
	struct ui_model *m = &mv->m;
	double now = now_monotonic();
	long tck = sysconf(_SC_CLK_TCK);
	int nw = rn->wl.n;

	if (ensure_rows(mv, nw + s->tree.n))
		return -1;
	m->ram_kib = s->sys.mem_total_kib;
	m->swap_kib = s->sys.swap_total_kib;
	m->elapsed = rn->active && !rn->forking ? now - rn->wl.t_start :
		     !rn->active && nw ? rn->wl.t_end - rn->wl.t_start : 0;
	m->interval = s->plan.interval;
	/* run k of this batch of repeats (of this sweep cell) */
	m->run = s->repeat_k;
	m->nruns = s->repeat_n > 1 ? s->repeat_n : 0;
	m->plot[UI_PLOT_SWAP].scale = (double)s->cur.mem[MI_SWAP_TOTAL];
	m->plot[UI_PLOT_SWAP].na = s->cur.mem[MI_SWAP_TOTAL] == NA ? "swap n/a" :
				   s->cur.mem[MI_SWAP_TOTAL] == 0 ? "no swap" : NULL;
	/* the RAM the kernel can use: a hugetlb pool or a balloon is not */
	m->plot[UI_PLOT_FREE].scale = metrics_scale(M_FREE, &s->cur, NULL);
	m->plot[UI_PLOT_AVAIL].scale = metrics_scale(M_AVAIL, &s->cur, NULL);
	m->plot[UI_PLOT_KSWAPD].na = s->cur.nkswapd > 0 ? NULL : "kswapd not visible (n/a)";
	m->marks = s->marks;
	m->nmarks = s->nmarks;
	fill_workload_line(mv, now);
	fill_cgroup_plots(mv);
	fill_status(mv);

	for (int i = 0; i < nw; i++)
		fill_worker(&mv->rows[i], rn, i, &s->ps[i], now, tck);
	for (int i = 0; i < s->tree.n; i++) {
		struct ui_worker *r = &mv->rows[nw + i];

		memset(r, 0, sizeof(*r));
		r->pid = s->tree.pid[i];
		r->end = END_RUNNING;
		r->frac = NAN;
		r->elapsed = now - s->tree.seen[i];
		fill_row_proc(r, &s->tree.ps[i], tck);
	}
	m->workers = mv->rows;
	m->nworkers = nw + s->tree.n;
	m->done = (const char *const *)s->done;
	m->ndone = s->ndone;
	return 0;
}

int monview_init(struct monview *mv, const struct session *s)
{
	struct ui_model *m = &mv->m;

	memset(mv, 0, sizeof(*mv));
	mv->v.ops = &monview_ops;
	mv->s = s;
	m->host = s->sys.hostname;
	m->kernel = s->sys.release;
	m->swapdevs = s->swapdevs;
	m->swappiness = s->swappiness;
	m->warning = s->guard.why[0] ? s->guard.why : NULL;
	m->plot[UI_PLOT_SWAP].s = &s->view[M_SWAP_USED];
	m->plot[UI_PLOT_FREE].s = &s->view[M_FREE];
	m->plot[UI_PLOT_AVAIL].s = &s->view[M_AVAIL];
	m->plot[UI_PLOT_MAJFLT].s = &s->view[M_MAJFLT];
	m->plot[UI_PLOT_MINFLT].s = &s->view[M_MINFLT];
	m->plot[UI_PLOT_KSWAPD].s = &s->view[M_KSWAPD_CPU];
	m->plot[UI_PLOT_KSWAPD].scale = 100;
	return monview_fill(mv);
}

void monview_free(struct monview *mv)
{
	free(mv->rows);
	mv->rows = NULL;
	mv->nrows_cap = 0;
}
