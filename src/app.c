#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "fmt.h"
#include "histui.h"
#include "history.h"
#include "record.h"
#include "result.h"
#include "sampler.h"
#include "series.h"
#include "sorter.h"
#include "sweep.h"
#include "sysctl.h"
#include "sysstate.h"
#include "timefmt.h"
#include "tuning.h"
#include "undo.h"
#include "ui.h"
#include "workload.h"

#define VIEW_CAP 2048		/* display history: wider than any screen */
#define RUN_CAP 65536		/* one run's samples for the history: 18 h at 1 s */
#define DEFAULT_SECONDS 60.0	/* the default workload's target length */
#define TREE_MAX 255		/* a command's descendants shown as rows */
#define NOTE_S 10.0		/* how long a notice holds the status line */
/* `make run` as root: the sort is sized PRESSURE_RATIO x the cgroup limit,
 * with swap twice the limit. Measured here with 2 workers: a sort that
 * takes 14.5 s unlimited took 48 s in such a cgroup (3.3x), so the
 * default size is divided by PRESSURE_SLOWDOWN to stay near a minute. */
#define PRESSURE_RATIO 1.5
#define PRESSURE_SLOWDOWN 3.0

static volatile sig_atomic_t got_signal, got_child;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

enum { S_SWAP, S_FREE, S_AVAIL, S_MAJ, S_MIN, S_KSWAPD, NSERIES };
/* the workload's cgroup, for the monitor only */
enum { C_MEM, C_SWAP, C_MAJ, NCG };

struct session {
	struct options *o;
	struct sampler *smp;
	struct sysstate sys;
	char workload_desc[512];
	char swapdevs[256];

	struct workload wl;
	bool running;
	struct run_result res;
	int run_no;		/* 1-based, counts every run this session */
	int batch_left;		/* runs still to start in this batch of repeats */
	int nfailed_runs;

	struct sys_sample prev, cur;
	bool have_prev;
	struct sys_rates rates;
	struct series view[NSERIES];
	struct series run[NSERIES];	/* this run's samples, for the history */
	struct series cgview[NCG];
	char cg_extra[2][128];		/* cgroup plot titles' extra text */
	time_t started;			/* wall clock at this run's start */
	int repeat_k, repeat_n;		/* run k of n in the current batch of repeats */

	struct history *hist;		/* NULL: --no-history, or it could not be opened */

	struct proc_sample *ps;	/* per worker, last sample */

	bool tui;
	int out_fd;		/* where a command's output goes under the TUI */
	char out_path[256];
	struct ui_model m;
	struct ui_worker *rows;
	int nrows_cap;
	char **done;
	int ndone;
	char status[256];

	/* a notice (set_status) holds the status line for NOTE_S seconds;
	 * otherwise it shows the cgroup's figures and the reclaim at work */
	char note[256];
	bool note_error;
	double note_until;
	char wl_line[1024];		/* header: sweep cell and ETA, workload */

	struct tuning tun;
	char tune_desc[256];
	char session_id[64];		/* "" unless the machine is tuned or swept */
	char knob[64];			/* the k/K sysctl */
	char swappiness[SYSCTL_VALUE_MAX];	/* as now, for the header */
	struct run_sysctl_change *changes;	/* this run's live changes */
	int nchanges;
	double *marks;			/* every live change, series clock */
	int nmarks;

	struct sweep sw;
	int cell;			/* running cell, -1 without a sweep */
	char cell_text[256];
	double sweep_t0, sweep_t_last;	/* start, and end of the last finished run */
	int sweep_done;			/* runs finished */
	struct run_record *sweep_runs;	/* kept for the table */
	size_t nsweep_runs;

	/* a command's descendants, sampled each tick */
	int ntree;
	pid_t tree[TREE_MAX];
	struct proc_sample tps[TREE_MAX];
	double tseen[TREE_MAX];
};

static void set_status(struct session *s, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_status(struct session *s, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->note, sizeof(s->note), fmt, ap);
	va_end(ap);
	s->note_error = error;
	s->note_until = now_monotonic() + (error ? 2 * NOTE_S : NOTE_S);
}

/* The status line: a fresh notice, else the cgroup's figures and which
 * reclaim is at work. */
static void update_status(struct session *s)
{
	struct tuning_rates tr;
	char rec[128], cg[160];

	if (s->note[0] && now_monotonic() < s->note_until) {
		s->m.status = s->note;
		s->m.status_error = s->note_error;
		return;
	}
	tuning_rates(&s->tun, &tr);
	tuning_reclaim_text(rec, sizeof(rec), &s->rates, s->tun.have_cg, tr.failcnt);
	if (s->tun.have_cg && s->tun.t_cur > 0) {
		tuning_cgroup_text(cg, sizeof(cg), &s->tun.cur, &tr);
		snprintf(s->status, sizeof(s->status), "%.150s  %.100s", cg, rec);
	} else {
		snprintf(s->status, sizeof(s->status), "%s", rec);
	}
	s->m.status = s->status;
	s->m.status_error = false;
}

/* Sizes the default workload to last about DEFAULT_SECONDS on this machine:
 * one short calibration sort, scaled by n log n, capped so all workers
 * together take at most half of what is available. */
static long default_nelems(int procs, int64_t avail_kib)
{
	const long n1 = 1L << 20;
	struct sort_progress p = { 0 };
	double t0 = now_monotonic(), t1, target, n;
	long cap;

	if (sorter_run(n1, 1, &p))
		return 10000000;
	t1 = now_monotonic() - t0;
	if (t1 <= 0)
		t1 = 1e-3;
	target = DEFAULT_SECONDS / t1 * (double)n1 * log((double)n1);
	n = (double)n1;
	for (int i = 0; i < 50; i++)	/* solve n log n = target */
		n = target / log(n);
	cap = avail_kib > 0 ? (long)(avail_kib * 1024 / 2 / procs / (long)sizeof(int)) : 50000000L;
	if (n > cap)
		n = cap;
	if (n >= 2000000)
		n = floor(n / 1000000) * 1000000;
	return n < 1000 ? 1000 : (long)n;
}

static void describe_workload(struct session *s)
{
	struct options *o = s->o;
	size_t off = 0;

	if (!o->argv) {
		snprintf(s->workload_desc, sizeof(s->workload_desc),
			 "qsbench -n %ld -p %d -s %u", o->nelems, o->procs, o->seed);
		return;
	}
	for (char **a = o->argv; *a && off < sizeof(s->workload_desc) - 1; a++)
		off += (size_t)snprintf(s->workload_desc + off, sizeof(s->workload_desc) - off,
					"%s%s", a == o->argv ? "" : " ", *a);
}

static void describe_swaps(struct session *s)
{
	size_t off = 0;
	char size[32];

	s->swapdevs[0] = '\0';
	for (int i = 0; i < s->sys.nswaps && off < sizeof(s->swapdevs) - 1; i++) {
		fmt_kib(size, sizeof(size), s->sys.swaps[i].size_kib);
		off += (size_t)snprintf(s->swapdevs + off, sizeof(s->swapdevs) - off, "%s%s %s",
					i ? ", " : "", s->sys.swaps[i].path, size);
	}
}

/* "mem 128M, swap +256M, global 4G, vm.page-cluster=0" */
static void describe_tuning(struct session *s)
{
	char a[32];
	size_t off = 0, len = sizeof(s->tune_desc);

	s->tune_desc[0] = '\0';
	if (s->tun.have_cg && s->tun.mem_limit) {
		fmt_kib(a, sizeof(a), s->tun.mem_limit / 1024);
		off += (size_t)snprintf(s->tune_desc + off, len - off, "mem %s", a);
	}
	if (s->tun.have_swap && off < len) {
		fmt_kib(a, sizeof(a), s->tun.sw.bytes / 1024);
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%sswap +%s",
					off ? ", " : "", a);
	}
	if (tuning_global_by(&s->tun)[0] && off < len) {
		fmt_kib(a, sizeof(a), s->tun.global_leave / 1024);
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%sglobal %s (%s)",
					off ? ", " : "", a, tuning_global_by(&s->tun));
	}
	for (int i = 0; i < s->o->nsysctl && off < len; i++)
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%s%s", off ? ", " : "",
					s->o->sysctl[i]);
}

static void untrack_tree(struct session *s)
{
	for (int i = 0; i < s->ntree; i++)
		sampler_unwatch(s->smp, s->tree[i]);
	s->ntree = 0;
}

/* When pid started, on the monotonic clock: its /proc start time counts
 * clock ticks since boot, as CLOCK_BOOTTIME does. fallback if unreadable. */
static double proc_started(pid_t pid, double fallback)
{
	unsigned long long start;
	struct timespec bt;
	double t;

	if (undo_proc_start(pid, &start, NULL) < 0 || clock_gettime(CLOCK_BOOTTIME, &bt) < 0)
		return fallback;
	t = now_monotonic() - ((double)bt.tv_sec + (double)bt.tv_nsec / 1e9 -
			       (double)start / (double)sysconf(_SC_CLK_TCK));
	return t < fallback ? t : fallback;
}

/* A command's whole process tree: every live descendant of the command
 * gets a row of its own. */
static void sample_tree(struct session *s)
{
	pid_t now[TREE_MAX];
	struct proc_sample ps[TREE_MAX];
	double seen[TREE_MAX];
	int n, k = 0;

	if (!s->o->argv || !s->running || s->wl.w[0].end != END_RUNNING) {
		untrack_tree(s);
		return;
	}
	n = sampler_descendants(s->wl.w[0].pid, now, TREE_MAX);
	if (n < 0)
		n = 0;
	if (n > TREE_MAX)
		n = TREE_MAX;
	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < s->ntree && s->tree[j] != now[i])
			j++;
		if (sampler_proc(s->smp, now[i], true, &ps[k]) < 0 || !ps[k].alive) {
			sampler_unwatch(s->smp, now[i]);
			continue;
		}
		seen[k] = j < s->ntree ? s->tseen[j] : proc_started(now[i], s->cur.t);
		now[k++] = now[i];
	}
	for (int j = 0; j < s->ntree; j++) {
		int i = 0;

		while (i < k && now[i] != s->tree[j])
			i++;
		if (i == k)
			sampler_unwatch(s->smp, s->tree[j]);
	}
	memcpy(s->tree, now, sizeof(pid_t) * (size_t)k);
	memcpy(s->tps, ps, sizeof(ps[0]) * (size_t)k);
	memcpy(s->tseen, seen, sizeof(double) * (size_t)k);
	s->ntree = k;
}

static int sample(struct session *s)
{
	char err[256];
	bool cg_ok;

	if (sampler_sys(s->smp, &s->cur))
		return -1;
	cg_ok = tuning_sample(&s->tun, s->cur.t) == 0;
	if (!cg_ok && s->tun.have_cg)
		set_status(s, true, "cannot read cgroup %s: %s", s->tun.cg.path, strerror(errno));
	if (!tuning_balloon_alive(&s->tun, err, sizeof(err))) {
		if (s->tui)
			set_status(s, true, "--global no longer holds: %s", err);
		else
			fprintf(stderr, "thrashtop: --global no longer holds: %s\n", err);
		describe_tuning(s);
	}
	if (s->have_prev)
		sys_rates_compute(&s->prev, &s->cur, &s->rates);
	else
		sys_rates_compute(&s->cur, &s->cur, &s->rates);
	s->have_prev = true;
	s->prev = s->cur;

	double t = s->cur.t;
	const int64_t *mem = s->cur.mem;
	double v[NSERIES] = {
		[S_SWAP] = mem[MI_SWAP_TOTAL] > 0 && mem[MI_SWAP_USED] != NA ?
			   (double)mem[MI_SWAP_USED] : NAN,
		[S_FREE] = mem[MI_FREE] == NA ? NAN : (double)mem[MI_FREE],
		[S_AVAIL] = mem[MI_AVAIL] == NA ? NAN : (double)mem[MI_AVAIL],
		[S_MAJ] = s->rates.majflt,
		[S_MIN] = s->rates.minflt,
		[S_KSWAPD] = s->rates.kswapd_pct,
	};
	for (int i = 0; i < NSERIES; i++) {
		series_push(&s->view[i], t, v[i]);
		if (s->running)
			series_push(&s->run[i], t, v[i]);
	}
	if (s->tun.have_cg) {
		const struct cgroup_stat *c = &s->tun.cur;
		struct tuning_rates tr;

		tuning_rates(&s->tun, &tr);
		series_push(&s->cgview[C_MEM], t, cg_ok && c->usage != CGROUP_NA ?
			    (double)c->usage / 1024 : NAN);
		series_push(&s->cgview[C_SWAP], t, cg_ok && c->swap_usage != CGROUP_NA ?
			    (double)c->swap_usage / 1024 : NAN);
		series_push(&s->cgview[C_MAJ], t, cg_ok ? tr.majflt : NAN);
	}

	if (s->running)
		result_observe(&s->res, &s->cur);
	/* Per-process figures only feed the screen; batch runs skip the reads. */
	if (s->tui) {
		for (int i = 0; s->running && i < s->wl.n; i++)
			if (s->wl.w[i].end == END_RUNNING)
				sampler_proc(s->smp, s->wl.w[i].pid, true, &s->ps[i]);
		sample_tree(s);
	}
	return 0;
}

/* A tuned or swept session's runs share an id: UTC start time and pid. */
static void new_session_id(struct session *s)
{
	time_t now = time(NULL);
	struct tm tm;

	if (s->session_id[0] || !gmtime_r(&now, &tm))
		return;
	snprintf(s->session_id, sizeof(s->session_id), "%04d%02d%02dT%02d%02d%02dZ-%d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (int)getpid());
}

/* The header's view of the system as it is now: swap devices (a temporary
 * file comes and goes), swappiness. */
static void refresh_sys(struct session *s)
{
	char err[256];
	struct sysstate st;

	if (sysstate_read(&st, err, sizeof(err)) == 0)
		s->sys = st;
	describe_swaps(s);
	s->m.swap_kib = s->sys.swap_total_kib;
	if (sysctl_get("vm.swappiness", s->swappiness, sizeof(s->swappiness), err, sizeof(err)))
		snprintf(s->swappiness, sizeof(s->swappiness), "n/a");
	s->m.swappiness = s->swappiness;
}

static int ensure_rows(struct session *s, int n)
{
	struct ui_worker *r;

	if (n <= s->nrows_cap)
		return 0;
	r = realloc(s->rows, sizeof(*r) * (size_t)n);
	if (!r)
		return -1;
	memset(r + s->nrows_cap, 0, sizeof(*r) * (size_t)(n - s->nrows_cap));
	s->rows = r;
	s->nrows_cap = n;
	return 0;
}

static int start_run(struct session *s, char *err, size_t errlen)
{
	struct workload_cfg cfg = {
		.nelems = s->o->nelems,
		.procs = s->o->argv ? 1 : s->o->procs,
		.seed = s->o->seed,
		.argv = s->o->argv,
		.out_fd = s->out_fd,
	};

	/* The record keeps the state the run starts in. */
	refresh_sys(s);
	if (ensure_rows(s, cfg.procs + (s->o->argv ? TREE_MAX : 0))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	tuning_workload_cfg(&s->tun, &cfg);
	if (sample(s)) {
		snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
		return -1;
	}
	result_begin(&s->res, &s->cur);
	tuning_run_begin(&s->tun);
	s->nchanges = 0;
	for (int i = 0; i < NSERIES; i++)
		series_clear(&s->run[i]);
	s->started = time(NULL);
	workload_free(&s->wl);	/* the previous run's, kept until now for display */
	if (workload_start(&s->wl, &cfg)) {
		snprintf(err, errlen, "%s", s->wl.err);
		return -1;
	}
	free(s->ps);
	s->ps = calloc((size_t)s->wl.n, sizeof(*s->ps));
	if (!s->ps) {
		workload_stop(&s->wl);
		workload_free(&s->wl);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < s->wl.n; i++) {
		s->ps[i].pid = s->wl.w[i].pid;
		s->ps[i].rss_kib = s->ps[i].swap_kib = s->ps[i].majflt = s->ps[i].minflt = NA;
		/* Opened now, while the pid is surely the worker's. */
		if (s->tui)
			sampler_watch(s->smp, s->wl.w[i].pid);
	}
	s->running = true;
	s->run_no++;
	s->batch_left--;
	s->repeat_k++;
	/* The first sample of the run's own series. */
	for (int i = 0; i < NSERIES; i++)
		series_push(&s->run[i], s->cur.t, series_last(&s->view[i]));
	return 0;
}

/* Prints a run the way the seeds posted them: any OOM and verify messages,
 * the time line, then the kswapd line. */
static void print_run(struct session *s, FILE *out)
{
	char line[256], ksw[64];
	const struct timeline *tl = &s->res.tl;

	for (int i = 0; i < s->wl.n; i++) {
		const struct worker *w = &s->wl.w[i];

		if (w->end == END_OOM)
			fprintf(out, "Out of Memory: Killed process %d (thrashtop).\n", (int)w->pid);
		else if (w->end == END_VERIFY && s->wl.prog)
			fprintf(stderr, "ERROR: i = %ld\n*** WARNING *** %ld errors.\n",
				atomic_load(&s->wl.prog[i].first_bad),
				atomic_load(&s->wl.prog[i].errors));
	}
	switch (s->o->format) {
	case OUT_CSH: timefmt_csh(line, sizeof(line), tl); break;
	case OUT_GNU: timefmt_gnu(line, sizeof(line), tl); break;
	case OUT_GNU_FULL: timefmt_gnu_default(line, sizeof(line), tl); break;
	}
	timefmt_kswapd(ksw, sizeof(ksw), s->res.kswapd_s);
	fprintf(out, "%s\n%s\n", line, ksw);
	fflush(out);
}

static void remember_run(struct session *s)
{
	char line[256], ksw[64], buf[700];
	char **d;

	timefmt_csh(line, sizeof(line), &s->res.tl);
	timefmt_kswapd(ksw, sizeof(ksw), s->res.kswapd_s);
	snprintf(buf, sizeof(buf), "#%d %s  %s  %s%s%s", s->run_no, line, ksw,
		 run_status_name(s->res.status), s->cell >= 0 ? "  " : "",
		 s->cell >= 0 ? s->cell_text : "");
	d = realloc(s->done, sizeof(*d) * (size_t)(s->ndone + 1));
	if (!d)
		return;
	s->done = d;
	if ((d[s->ndone] = strdup(buf)))
		s->ndone++;
}

/* Keeps the run in the history, and a sweep's runs for its table. A
 * failure is said in one line; the result itself has been printed or
 * shown already. */
static void store_run(struct session *s)
{
	struct run_record r;
	struct record_input in = {
		.res = &s->res,
		.wl = &s->wl,
		.sys = &s->sys,
		.started = s->started,
		.label = s->o->label,
		.command = s->o->argv ? s->workload_desc : NULL,
		.repeat_k = s->repeat_k,
		.repeat_n = s->repeat_n,
		.session = s->session_id[0] ? s->session_id : NULL,
		.cell = s->cell >= 0 ? s->cell_text : NULL,
		.mem_limit_kib = s->tun.have_cg && s->tun.mem_limit ? s->tun.mem_limit / 1024 : HIST_NA,
		.global_limit_kib = tuning_global_by(&s->tun)[0] ? s->tun.global_leave / 1024 : HIST_NA,
		.global_by = tuning_global_by(&s->tun),
		.tmp_swap_kib = s->tun.have_swap ? s->tun.sw.bytes / 1024 : 0,
		.series = {
			[RS_SWAP_USED] = &s->run[S_SWAP],
			[RS_MEM_FREE] = &s->run[S_FREE],
			[RS_MEM_AVAIL] = &s->run[S_AVAIL],
			[RS_MAJFLT] = &s->run[S_MAJ],
			[RS_MINFLT] = &s->run[S_MIN],
			[RS_KSWAPD] = &s->run[S_KSWAPD],
		},
		.changes = s->changes,
		.nchanges = s->nchanges,
	};
	char err[512] = "";

	if (!s->hist && s->cell < 0)
		return;
	run_record_init(&r);
	if (record_build(&r, &in))
		snprintf(err, sizeof(err), "out of memory");
	else if (s->hist && history_add(s->hist, &r, err, sizeof(err)) >= 0)
		err[0] = '\0';
	if (!err[0] && s->cell >= 0) {
		struct run_record *v = realloc(s->sweep_runs, sizeof(*v) * (s->nsweep_runs + 1));
		if (v) {
			s->sweep_runs = v;
			if (run_record_copy(&v[s->nsweep_runs], &r) == 0)
				s->nsweep_runs++;
		}
	}
	run_record_clear(&r);
	if (!err[0])
		return;
	if (s->tui)
		set_status(s, true, "history: %s (run %d not kept)", err, s->run_no);
	else
		fprintf(stderr, "thrashtop: history: %s (run not kept)\n", err);
}

/* OOM kills inside the cgroup that /proc/vmstat did not count already
 * (the kernel counts a memcg OOM kill in both). */
static int64_t cgroup_extra_oom(struct session *s)
{
	int64_t cg = tuning_run_oom(&s->tun), sys = NA;

	if (s->res.first.vm[VM_OOM_KILL] != NA && s->cur.vm[VM_OOM_KILL] != NA)
		sys = s->cur.vm[VM_OOM_KILL] - s->res.first.vm[VM_OOM_KILL];
	if (cg == NA || cg <= 0)
		return 0;
	return sys == NA ? cg : cg > sys ? cg - sys : 0;
}

static void finish_run(struct session *s, bool aborted)
{
	if (aborted)
		workload_stop(&s->wl);
	sample(s);
	result_finish(&s->res, &s->wl, &s->cur, cgroup_extra_oom(s), aborted);
	for (int i = 0; i < s->wl.n; i++)
		sampler_unwatch(s->smp, s->wl.w[i].pid);
	untrack_tree(s);
	if (s->res.status != RUN_OK && s->res.status != RUN_ABORTED)
		s->nfailed_runs++;
	if (s->tui)
		remember_run(s);
	else
		print_run(s, stdout);
	store_run(s);
	s->running = false;
	if (s->cell >= 0) {
		s->sweep_done++;
		s->sweep_t_last = now_monotonic();
	}
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

static void fill_workload_line(struct session *s, double now)
{
	size_t off = 0, len = sizeof(s->wl_line);

	if (s->cell >= 0) {
		char eta[32];
		int total = s->sw.ncells * s->o->repeat;
		double left = sweep_eta(s->sweep_t_last - s->sweep_t0, s->sweep_done, total,
					s->running, s->running ? now - s->wl.t_start : 0);

		if (s->sweep_done >= total && !s->running)
			snprintf(eta, sizeof(eta), "done");
		else
			eta_text(eta, sizeof(eta), left);
		off += (size_t)snprintf(s->wl_line, len, "cell %d/%d %s ETA %s | ", s->cell + 1,
					s->sw.ncells, s->cell_text, eta);
	}
	if (off < len)
		snprintf(s->wl_line + off, len - off, "%s", s->workload_desc);
	s->m.workload = s->wl_line;
	s->m.tuning = s->tune_desc[0] ? s->tune_desc : NULL;
}

static bool cg_limited(long long v)
{
	return v != CGROUP_NA && v != CGROUP_UNLIMITED;
}

/* The cgroup's plots beside the system's: usage against the limit with the
 * limit hits, OOM kills and pressure; swap on the system swap's scale
 * (or the cgroup's swap limit if lower); major faults with refaults. */
static void fill_cgroup_plots(struct session *s)
{
	struct ui_model *m = &s->m;
	struct ui_plot *mem = &m->plot[UI_PLOT_CG_MEM], *sw = &m->plot[UI_PLOT_CG_SWAP];
	const struct cgroup_stat *c = &s->tun.cur;
	bool on = s->tun.have_cg, seen = on && s->tun.t_cur > 0;
	double swap_total = (double)s->cur.mem[MI_SWAP_TOTAL];
	struct tuning_rates tr;
	int64_t oom = tuning_run_oom(&s->tun);
	char a[32];
	size_t off;

	mem->s = on ? &s->cgview[C_MEM] : NULL;
	sw->s = on ? &s->cgview[C_SWAP] : NULL;
	m->plot[UI_PLOT_CG_MAJFLT].s = on ? &s->cgview[C_MAJ] : NULL;
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
	off = (size_t)snprintf(s->cg_extra[0], sizeof(s->cg_extra[0]), "%s %s",
			       s->tun.cg.version == 2 ? "max events" : "failcnt", a);
	if (oom > 0 && off < sizeof(s->cg_extra[0]))
		off += (size_t)snprintf(s->cg_extra[0] + off, sizeof(s->cg_extra[0]) - off,
					"  OOM kills %lld", (long long)oom);
	if (!isnan(c->psi_some10) && off < sizeof(s->cg_extra[0]))
		snprintf(s->cg_extra[0] + off, sizeof(s->cg_extra[0]) - off,
			 "  psi some %.0f%%", c->psi_some10);
	fmt_rate(a, sizeof(a), tr.refault);
	snprintf(s->cg_extra[1], sizeof(s->cg_extra[1]), "refaults %s", a);
	if (seen) {
		mem->extra = s->cg_extra[0];
		m->plot[UI_PLOT_CG_MAJFLT].extra = s->cg_extra[1];
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

static void fill_model(struct session *s)
{
	struct ui_model *m = &s->m;
	double now = now_monotonic();
	long tck = sysconf(_SC_CLK_TCK);

	m->elapsed = s->running ? now - s->wl.t_start :
		     s->wl.n ? s->wl.t_end - s->wl.t_start : 0;
	m->interval = s->o->interval;
	/* run k of this batch of repeats (of this sweep cell) */
	m->run = s->repeat_k;
	m->nruns = s->repeat_n > 1 ? s->repeat_n : 0;
	m->plot[UI_PLOT_SWAP].scale = (double)s->cur.mem[MI_SWAP_TOTAL];
	m->plot[UI_PLOT_SWAP].na = s->cur.mem[MI_SWAP_TOTAL] == NA ? "swap n/a" :
				   s->cur.mem[MI_SWAP_TOTAL] == 0 ? "no swap" : NULL;
	m->plot[UI_PLOT_FREE].scale = m->plot[UI_PLOT_AVAIL].scale = (double)s->cur.mem[MI_TOTAL];
	m->plot[UI_PLOT_KSWAPD].na = s->cur.nkswapd > 0 ? NULL : "kswapd not visible (n/a)";
	m->marks = s->marks;
	m->nmarks = s->nmarks;
	fill_workload_line(s, now);
	fill_cgroup_plots(s);
	update_status(s);

	for (int i = 0; i < s->wl.n; i++) {
		struct ui_worker *r = &s->rows[i];
		const struct worker *w = &s->wl.w[i];
		const struct proc_sample *p = &s->ps[i];

		r->pid = w->pid;
		r->end = w->end;
		r->code = w->end == END_SIGNAL || w->end == END_OOM ? WTERMSIG(w->status) :
			  w->end != END_RUNNING && WIFEXITED(w->status) ? WEXITSTATUS(w->status) : 0;
		r->elapsed = (w->end == END_RUNNING ? now : w->t_end) - s->wl.t_start;
		if (s->wl.prog) {
			r->phase = sort_phase_name(atomic_load(&s->wl.prog[i].phase));
			r->frac = sort_progress_fraction(&s->wl.prog[i]);
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
	/* start_run sized rows for the command plus TREE_MAX descendants */
	for (int i = 0; i < s->ntree; i++) {
		struct ui_worker *r = &s->rows[s->wl.n + i];

		memset(r, 0, sizeof(*r));
		r->pid = s->tree[i];
		r->end = END_RUNNING;
		r->frac = NAN;
		r->elapsed = now - s->tseen[i];
		fill_row_proc(r, &s->tps[i], tck);
	}
	m->workers = s->rows;
	m->nworkers = s->wl.n + s->ntree;
	m->done = (const char *const *)s->done;
	m->ndone = s->ndone;
}

/* s/S and k/K: one step of a vm sysctl, recorded with its time and drawn
 * as a marker on the plots. */
static void step_knob(struct session *s, const char *name, int dir)
{
	char cur[SYSCTL_VALUE_MAX], next[SYSCTL_VALUE_MAX], old[SYSCTL_VALUE_MAX], err[512];
	double t = now_monotonic();
	int rc;

	if (sysctl_get(name, cur, sizeof(cur), err, sizeof(err))) {
		set_status(s, true, "%s", err);
		return;
	}
	rc = tuning_knob_step(name, cur, dir, next, sizeof(next));
	if (rc < 0) {
		set_status(s, true, "%s is %s: not one number to step", name, cur);
		return;
	}
	if (rc > 0) {
		set_status(s, false, "%s is already %s, the end of its range", name, cur);
		return;
	}
	if (tuning_sysctl(&s->tun, name, next, old, sizeof(old), err, sizeof(err))) {
		set_status(s, true, "%s", err);
		return;
	}
	new_session_id(s);
	double *mk = realloc(s->marks, sizeof(*mk) * (size_t)(s->nmarks + 1));
	if (mk) {
		s->marks = mk;
		mk[s->nmarks++] = t;
	}
	if (s->running) {
		struct run_sysctl_change *c = realloc(s->changes, sizeof(*c) * (size_t)(s->nchanges + 1));
		if (c) {
			s->changes = c;
			c += s->nchanges++;
			c->t_s = t - s->wl.t_start;
			snprintf(c->name, sizeof(c->name), "%s", name);
			snprintf(c->old_val, sizeof(c->old_val), "%.63s", old);
			snprintf(c->new_val, sizeof(c->new_val), "%.63s", next);
		}
	}
	if (sysctl_get("vm.swappiness", cur, sizeof(cur), err, sizeof(err)) == 0)
		snprintf(s->swappiness, sizeof(s->swappiness), "%s", cur);
	set_status(s, false, "%s %s -> %s (restored at exit)", name, old, next);
}

static void change_interval(struct session *s, int dir)
{
	static const double steps[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
	const int n = (int)(sizeof(steps) / sizeof(steps[0]));
	int i = 0;

	while (i < n - 1 && steps[i] < s->o->interval - 1e-9)
		i++;
	i += dir;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	s->o->interval = steps[i];
	set_status(s, false, "interval %.2f s", s->o->interval);
}

/* A history that cannot be opened costs the history, not the session. */
static void open_history(struct session *s)
{
	char path[4096], err[512];
	const char *p = s->o->history;

	if (!p && !(p = history_default_path(path, sizeof(path), err, sizeof(err)))) {
		fprintf(stderr, "thrashtop: history: %s (runs will not be kept)\n", err);
		return;
	}
	s->hist = history_open(p, 0, err, sizeof(err));
	if (!s->hist) {
		fprintf(stderr, "thrashtop: history: %s (runs will not be kept)\n", err);
		if (s->tui)
			set_status(s, true, "history: %s (runs will not be kept)", err);
	}
}

static int setup(struct session *s, char *err, size_t errlen)
{
	struct options *o = s->o;

	s->smp = sampler_new(err, errlen);
	if (!s->smp)
		return -1;
	if (sysstate_read(&s->sys, err, errlen))
		return -1;
	if (!o->procs)
		o->procs = s->sys.cpus_online > 0 ? s->sys.cpus_online : 1;
	if (!o->argv && !o->nelems) {
		struct sys_sample now;
		if (sampler_sys(s->smp, &now))
			return snprintf(err, errlen, "cannot read memory figures"), -1;
		o->nelems = default_nelems(o->procs, now.mem[MI_AVAIL]);
	}
	for (int i = 0; i < NSERIES; i++)
		if (series_init(&s->view[i], VIEW_CAP) || series_init(&s->run[i], RUN_CAP))
			return snprintf(err, errlen, "out of memory"), -1;
	for (int i = 0; i < NCG; i++)
		if (series_init(&s->cgview[i], VIEW_CAP))
			return snprintf(err, errlen, "out of memory"), -1;
	if (!o->no_history)
		open_history(s);
	describe_workload(s);
	describe_swaps(s);
	s->out_fd = -1;
	if (s->tui && o->argv) {
		/* The command's own output would tear the screen: keep it in a
		 * file the user is told about. */
		const char *dir = getenv("TMPDIR");
		snprintf(s->out_path, sizeof(s->out_path), "%s/thrashtop-%d.log",
			 dir && *dir ? dir : "/tmp", (int)getpid());
		s->out_fd = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (s->out_fd < 0)
			return snprintf(err, errlen, "cannot create %s: %s", s->out_path,
					strerror(errno)), -1;
		set_status(s, false, "command output: %s", s->out_path);
	}

	struct ui_model *m = &s->m;
	m->host = s->sys.hostname;
	m->kernel = s->sys.release;
	m->ram_kib = s->sys.mem_total_kib;
	m->swap_kib = s->sys.swap_total_kib;
	m->swapdevs = s->swapdevs;
	snprintf(s->swappiness, sizeof(s->swappiness), "%s",
		 sysstate_vm(&s->sys, "vm.swappiness") ? sysstate_vm(&s->sys, "vm.swappiness") : "n/a");
	m->swappiness = s->swappiness;
	m->workload = s->workload_desc;
	m->plot[UI_PLOT_SWAP].s = &s->view[S_SWAP];
	m->plot[UI_PLOT_FREE].s = &s->view[S_FREE];
	m->plot[UI_PLOT_AVAIL].s = &s->view[S_AVAIL];
	m->plot[UI_PLOT_MAJFLT].s = &s->view[S_MAJ];
	m->plot[UI_PLOT_MINFLT].s = &s->view[S_MIN];
	m->plot[UI_PLOT_KSWAPD].s = &s->view[S_KSWAPD];
	m->plot[UI_PLOT_KSWAPD].scale = 100;
	return 0;
}

/* What a sweep sets must not also be set by an option. */
static int check_sweep(struct session *s, char *err, size_t errlen)
{
	struct options *o = s->o;

	if (sweep_init(&s->sw, o->sweep, o->nsweep, err, errlen))
		return -1;
	for (int d = 0; d < s->sw.ndims; d++) {
		const struct sweep_dim *dim = &s->sw.dim[d];
		const char *clash = NULL;

		switch (dim->kind) {
		case SWEEP_MEM: clash = o->mem_limit ? "--mem" : NULL; break;
		case SWEEP_SWAP: clash = o->swap_size ? "--swap" : NULL; break;
		case SWEEP_PROCS: clash = o->procs_set ? "-p" : o->argv ? "a command" : NULL; break;
		case SWEEP_ELEMS: clash = o->nelems_set ? "-n/-m" : o->argv ? "a command" : NULL; break;
		case SWEEP_SYSCTL:
			for (int i = 0; i < o->nsysctl; i++) {
				size_t n = strlen(dim->sysctl);
				if (!strncmp(o->sysctl[i], dim->sysctl, n) && o->sysctl[i][n] == '=')
					clash = "--sysctl";
			}
			break;
		}
		if (clash) {
			snprintf(err, errlen, "--sweep %s and %s both set %s", dim->key, clash,
				 dim->kind == SWEEP_SYSCTL ? dim->sysctl : dim->key);
			return -1;
		}
	}
	return 0;
}

/* Sets cell c up: its swap file, memory limit and sysctls, its workload
 * size. In batch mode a header line names it above its runs. */
static int apply_cell(struct session *s, int c, char *err, size_t errlen)
{
	int idx[CLI_MAX_SWEEP];
	char e[512], old[SYSCTL_VALUE_MAX];

	sweep_cell(&s->sw, c, idx);
	for (int k = 0; k < s->sw.ndims; k++) {
		const struct sweep_dim *d = &s->sw.dim[s->sw.order[k]];
		const struct sweep_value *v = &d->vals[idx[s->sw.order[k]]];
		int rc = 0;

		switch (d->kind) {
		case SWEEP_SWAP: rc = tuning_set_swap(&s->tun, v->num, e, sizeof(e)); break;
		case SWEEP_MEM: rc = tuning_set_mem(&s->tun, v->num, e, sizeof(e)); break;
		case SWEEP_SYSCTL:
			rc = tuning_sysctl(&s->tun, d->sysctl, v->text, old, sizeof(old), e, sizeof(e));
			break;
		case SWEEP_PROCS: s->o->procs = (int)v->num; break;
		case SWEEP_ELEMS: s->o->nelems = v->num; break;
		}
		if (rc) {
			snprintf(err, errlen, "sweep %s=%s: %.400s", d->key, v->text, e);
			return -1;
		}
	}
	s->cell = c;
	sweep_cell_text(&s->sw, c, s->cell_text, sizeof(s->cell_text));
	s->batch_left = s->repeat_n = s->o->repeat;
	s->repeat_k = 0;
	describe_workload(s);
	describe_tuning(s);
	if (!s->tui) {
		printf("cell %d/%d: %s\n", c + 1, s->sw.ncells, s->cell_text);
		fflush(stdout);
	}
	return 0;
}

/* The next run: another repeat, else the next cell of a sweep. Returns 1
 * when one started, 0 when there is none left, -1 on failure. */
static int next_run(struct session *s, char *err, size_t errlen)
{
	if (s->batch_left <= 0) {
		if (s->cell < 0 || s->cell + 1 >= s->sw.ncells)
			return 0;
		if (apply_cell(s, s->cell + 1, err, errlen))
			return -1;
	}
	return start_run(s, err, errlen) ? -1 : 1;
}

/* `make run` as root: the default sort in a cgroup it does not fit, with a
 * temporary swap file, so the first screen shows the VM at work. Anything
 * that cannot be set up leaves the plain default and a notice. */
static void pressure_default(struct session *s)
{
	struct options *o = s->o;
	long n = (long)((double)o->nelems / PRESSURE_SLOWDOWN);
	long long total, limit;
	char err[512], a[32], b[32], c[32];

	if (n >= 2000000)
		n = n / 1000000 * 1000000;
	total = (long long)n * o->procs * (long long)sizeof(int);
	limit = (long long)((double)total / PRESSURE_RATIO) & ~((1LL << 20) - 1);
	if (limit < (16LL << 20))
		return;
	if (tuning_set_swap(&s->tun, 2 * limit, err, sizeof(err)) ||
	    tuning_set_mem(&s->tun, limit, err, sizeof(err))) {
		char msg[512];
		tuning_end(&s->tun, msg, sizeof(msg));
		tuning_init(&s->tun);
		set_status(s, true, "no pressure set-up: %s", err);
		return;
	}
	o->nelems = n;
	fmt_kib(a, sizeof(a), total / 1024);
	fmt_kib(b, sizeof(b), limit / 1024);
	fmt_kib(c, sizeof(c), 2 * limit / 1024);
	set_status(s, false, "root default: %s of sort in a %s cgroup, %s temporary swap (q undoes it)",
		   a, b, c);
}

/* The options' machine changes, before the first run: swap first (room
 * for what the limit pushes out), the balloon, the limit, the sysctls. */
static int apply_tuning(struct session *s, char *err, size_t errlen)
{
	struct options *o = s->o;
	char e[512], old[SYSCTL_VALUE_MAX];

	if (o->swap_size && tuning_set_swap(&s->tun, o->swap_size, err, errlen))
		return -1;
	if (o->global_limit && tuning_set_global(&s->tun, o->global_limit, o->global_with, err, errlen))
		return -1;
	if (o->mem_limit && tuning_set_mem(&s->tun, o->mem_limit, err, errlen))
		return -1;
	for (int i = 0; i < o->nsysctl; i++) {
		char name[128];
		const char *eq = strchr(o->sysctl[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - o->sysctl[i]), o->sysctl[i]);
		if (tuning_sysctl(&s->tun, name, eq + 1, old, sizeof(old), e, sizeof(e))) {
			snprintf(err, errlen, "--sysctl %.80s: %.400s", o->sysctl[i], e);
			return -1;
		}
	}
	if (s->tui && o->pressure_default && geteuid() == 0)
		pressure_default(s);
	if (o->nsweep && apply_cell(s, 0, err, errlen))
		return -1;
	if (s->tun.touched || o->nsweep) {
		new_session_id(s);
		s->sweep_t0 = s->sweep_t_last = now_monotonic();
	}
	describe_workload(s);
	describe_tuning(s);
	if (!s->tui && s->tune_desc[0])
		fprintf(stderr, "thrashtop: %s%s%s\n", s->tune_desc,
			s->tun.have_cg ? " in " : "", s->tun.have_cg ? s->tun.cg.path : "");
	return 0;
}

/* Puts the machine back; says in one line each what could not be. */
static void untune(struct session *s)
{
	char msg[2048];

	if (tuning_end(&s->tun, msg, sizeof(msg)) == 0)
		return;
	for (char *line = strtok(msg, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(stderr, "thrashtop: could not undo: %s\n", line);
	fprintf(stderr, "thrashtop: what is left is recorded in %s; the next start undoes it\n",
		undo_state_file());
}

static void print_sweep_table(struct session *s)
{
	char err[256];

	if (!s->nsweep_runs)
		return;
	printf("\n");
	if (sweep_table(stdout, s->sweep_runs, s->nsweep_runs, err, sizeof(err)))
		fprintf(stderr, "thrashtop: %s\n", err);
	if (s->hist)
		printf("\nsession %s: thrashtop history export --format=table --session %s\n",
		       s->session_id, s->session_id);
	fflush(stdout);
}

static void teardown(struct session *s)
{
	if (s->running) {
		workload_stop(&s->wl);
		s->running = false;
	}
	workload_free(&s->wl);
	ui_end();
	untrack_tree(s);
	untune(s);
	print_sweep_table(s);
	run_records_free(s->sweep_runs, s->nsweep_runs);
	sweep_free(&s->sw);
	for (int i = 0; i < NSERIES; i++) {
		series_free(&s->view[i]);
		series_free(&s->run[i]);
	}
	for (int i = 0; i < NCG; i++)
		series_free(&s->cgview[i]);
	if (s->hist)
		history_close(s->hist);
	for (int i = 0; i < s->ndone; i++)
		free(s->done[i]);
	free(s->done);
	free(s->rows);
	free(s->ps);
	free(s->changes);
	free(s->marks);
	if (s->out_fd >= 0)
		close(s->out_fd);
	if (s->smp)
		sampler_free(s->smp);
}

static void install_signals(sigset_t *wait_mask)
{
	struct sigaction sa = { 0 };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	/* Delivered only inside ppoll, so a flag is never missed between the
	 * check and the wait; during set-up they wait until then. */
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGHUP);
	sigdelset(wait_mask, SIGCHLD);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ppoll delivers the signals it unblocks only when it returns EINTR: one
 * that returns a ready descriptor leaves them pending, so they are taken
 * here. */
static void take_pending(void)
{
	const struct timespec zero = { 0, 0 };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	while ((sig = sigtimedwait(&set, NULL, &zero)) > 0) {
		if (sig == SIGCHLD)
			got_child = 1;
		else
			got_signal = sig;
	}
}

/* The event loop: samples on schedule, reaps on SIGCHLD, reads keys. */
static int loop(struct session *s, const sigset_t *wait_mask, char *err, size_t errlen)
{
	double next = now_monotonic();

	for (;;) {
		struct pollfd pfd = { .fd = s->tui ? ui_fd() : -1, .events = POLLIN };
		double wait = next - now_monotonic();
		struct timespec ts;

		if (wait < 0)
			wait = 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		if (ppoll(&pfd, 1, &ts, wait_mask) < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
		take_pending();
		/* The terminal went away without a SIGHUP reaching us (a
		 * session leader that died first): the same as a SIGHUP. */
		if (s->tui && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
			got_signal = SIGHUP;
		if (got_signal)
			return 0;
		if (got_child) {
			got_child = 0;
			if (s->running && workload_reap(&s->wl) == 0) {
				int rc;

				finish_run(s, false);
				rc = next_run(s, err, errlen);
				if (rc < 0)
					return -1;
				if (rc == 0 && !s->tui)
					return 0;
				if (rc == 0 && s->cell >= 0)
					set_status(s, false, "sweep done: %d runs; q prints the table", s->sweep_done);
			}
		}
		if (s->tui && (pfd.revents & POLLIN)) {
			enum ui_action a;
			while ((a = ui_read_input(&s->m)) != UI_NONE) {
				switch (a) {
				case UI_QUIT:
					return 0;
				case UI_RERUN:
					if (s->running) {
						set_status(s, false, "a run is in progress");
					} else {
						s->batch_left = s->repeat_n = 1;
						s->repeat_k = 0;
						if (start_run(s, err, errlen))
							return -1;
						set_status(s, false, "run %d started", s->run_no);
					}
					break;
				case UI_FASTER:
				case UI_SLOWER:
					change_interval(s, a == UI_FASTER ? -1 : 1);
					next = now_monotonic() + s->o->interval;
					break;
				case UI_SWAPPINESS_DOWN:
				case UI_SWAPPINESS_UP:
					step_knob(s, "vm.swappiness", a == UI_SWAPPINESS_DOWN ? -1 : 1);
					break;
				case UI_KNOB_DOWN:
				case UI_KNOB_UP:
					step_knob(s, s->knob, a == UI_KNOB_DOWN ? -1 : 1);
					break;
				case UI_HISTORY: {
					/* The monitor waits meanwhile; a run that ends or a
					 * signal is taken once the screen closes. */
					char e[256];
					if (histui_run(s->hist, e, sizeof(e)))
						set_status(s, true, "history screen: %s", e);
					next = now_monotonic();
					break;
				}
				default:
					break;
				}
			}
			fill_model(s);
			ui_draw(&s->m);
		}
		if (now_monotonic() >= next) {
			if (sample(s)) {
				snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
				return -1;
			}
			next += s->o->interval;
			if (next < now_monotonic())
				next = now_monotonic() + s->o->interval;
			if (s->tui) {
				fill_model(s);
				ui_draw(&s->m);
			}
		}
	}
}

static void recover(void)
{
	char msg[4096];
	int rc = tuning_recover(msg, sizeof(msg));

	for (char *line = strtok(msg, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(stderr, "thrashtop: %s\n", line);
	if (rc < 0 && !msg[0])
		fprintf(stderr, "thrashtop: cannot use %s to undo an earlier run's changes\n",
			undo_state_file());
}

int app_run(struct options *o)
{
	struct session s = { .o = o, .out_fd = -1, .cell = -1 };
	char err[512] = "";
	sigset_t wait_mask;

	s.tui = !o->batch;
	tuning_init(&s.tun);
	snprintf(s.knob, sizeof(s.knob), "%s", o->knob ? o->knob : TUNING_DEFAULT_KNOB);
	/* A signal during set-up waits in the mask and ends the session once
	 * the loop starts, through the same teardown. */
	install_signals(&wait_mask);
	recover();
	if (o->nsweep && check_sweep(&s, err, sizeof(err)))
		goto fail;
	if (setup(&s, err, sizeof(err)))
		goto fail;
	if (apply_tuning(&s, err, sizeof(err)))
		goto fail;
	if (s.tui && ui_init(err, sizeof(err)))
		goto fail;
	if (s.cell < 0)
		s.batch_left = s.repeat_n = o->repeat;
	if (start_run(&s, err, sizeof(err)))
		goto fail;
	if (loop(&s, &wait_mask, err, sizeof(err)))
		goto fail;
	if (s.running)
		finish_run(&s, true);
	teardown(&s);
	if (got_signal)
		return 128 + got_signal;
	return s.nfailed_runs ? 1 : 0;
fail:
	if (s.running)
		finish_run(&s, true);
	teardown(&s);
	fprintf(stderr, "thrashtop: %s\n", err);
	return 2;
}
