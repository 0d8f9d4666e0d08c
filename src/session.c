#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "cells.h"
#include "cmdlog.h"
#include "guest.h"
#include "histfile.h"
#include "local.h"
#include "loop.h"
#include "prof.h"
#include "remote.h"
#include "sshhost.h"
#include "run.h"
#include "session.h"
#include "sorter.h"
#include "sysio.h"
#include "timefmt.h"
#include "undo.h"
#include "watchdog.h"

#define VIEW_CAP 2048		/* the plots' window: wider than any screen */
#define DEFAULT_SECONDS 60.0	/* the default workload's target length */
#define NOTE_S 10.0		/* how long a notice holds the status line */
#define LOG_TAIL_LINES 10	/* a command's output said at exit */
/* `make run` as root: the sort is sized PRESSURE_RATIO x the cgroup limit,
 * with swap twice the limit. Measured here with 2 workers, quiet machine:
 * such a cgroup slows a sort more the larger it is (136M elements a worker
 * took 37.9 s, 167M 43.9 s, 229M 69.8 s, for a minute's unlimited sort
 * of about 420M), so the default size is divided by PRESSURE_SLOWDOWN to
 * stay near a minute. */
#define PRESSURE_RATIO 1.5
#define PRESSURE_SLOWDOWN 2.2

void session_note(struct session *s, bool error, const char *fmt, ...)
{
	size_t at = s->side_name ? (size_t)snprintf(s->note, sizeof(s->note), "%s: ", s->side_name) : 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->note + at, sizeof(s->note) - at, fmt, ap);
	va_end(ap);
	if (s->note_again[0] && strcmp(s->note + at, s->note_again))
		s->note_again_due = true;
	if (!s->tui) {
		fprintf(stderr, "thrashtop: %s\n", s->note);
		s->note[0] = '\0';
		return;
	}
	s->note_error = error;
	s->note_until = now_monotonic() + (error ? 2 * NOTE_S : NOTE_S);
}

/* A note kept, in the monitor, for the stderr printed with the next
 * run's result lines once the screen is gone: batch printed it already. */
__attribute__((format(printf, 3, 4)))
static void kept_note(struct session *s, bool error, const char *fmt, ...)
{
	size_t len = strlen(s->kept_notes);
	char text[sizeof(s->note)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (s->tui && len + strlen(text) + 40 < sizeof(s->kept_notes))
		snprintf(s->kept_notes + len, sizeof(s->kept_notes) - len, "thrashtop: %.20s%s%s\n",
			 s->side_name ? s->side_name : "", s->side_name ? ": " : "", text);
	session_note(s, error, "%s", text);
}

bool session_note_shown(const struct session *s)
{
	return s->note[0] && now_monotonic() < s->note_until;
}

/* Sizes the default workload to last about DEFAULT_SECONDS on this machine:
 * one short calibration sort, scaled by n log n, capped so all workers
 * together take at most half of what is available. 2^17 elements take
 * 14 ms before the first frame, 2^20 took 125; per n ln n they cost 9.2
 * ns against 8.6 at 2^20 and 7.8 at 2^25, so the run comes out about 15%
 * short of the target rather than 10%. */
static long default_nelems(int procs, int64_t avail_kib)
{
	const long n1 = 1L << 17;
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
	const struct options *o = s->o;
	size_t off = 0;

	if (!o->argv) {
		snprintf(s->workload_desc, sizeof(s->workload_desc),
			 "qsbench -n %ld -p %d -s %u", s->plan.nelems, s->plan.procs, o->seed);
		return;
	}
	for (char **a = o->argv; *a && off < sizeof(s->workload_desc) - 1; a++) {
		if (a != o->argv)
			off += (size_t)snprintf(s->workload_desc + off,
						sizeof(s->workload_desc) - off, " ");
		fmt_shell_word(s->workload_desc, sizeof(s->workload_desc), &off, *a);
	}
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
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%sswap +%s%s%s",
					off ? ", " : "", a, *s->tun.sw.disk ? " on " : "",
					s->tun.sw.disk);
	}
	if (s->tun.have_zram && off < len) {
		fmt_kib(a, sizeof(a), s->tun.zr.bytes / 1024);
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%sswap %s %s %s prio %d",
					off ? ", " : "", s->tun.zr.name, a, s->tun.zr.algo,
					s->tun.zr.prio);
		if (s->cur.zram_compr_kib > 0 && off < len)
			off += (size_t)snprintf(s->tune_desc + off, len - off, " (ratio %.1f)",
						(double)s->cur.zram_orig_kib /
						(double)s->cur.zram_compr_kib);
	}
	if (s->comp == MC_ZSWAP && off < len) {
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%szswap %s pool %s%%",
					off ? ", " : "", s->sys.zswap_compressor, s->sys.zswap_pool);
		if (s->cur.zswap_kib > 0 && s->cur.zswapped_kib != NA && off < len)
			off += (size_t)snprintf(s->tune_desc + off, len - off, " (ratio %.1f)",
						(double)s->cur.zswapped_kib / (double)s->cur.zswap_kib);
	} else if (s->tun.have_zswap && off < len) {
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%szswap off",
					off ? ", " : "");
	}
	if (tuning_global_by(&s->tun)[0] && off < len) {
		fmt_kib(a, sizeof(a), s->tun.global_leave / 1024);
		off += (size_t)snprintf(s->tune_desc + off, len - off, "%sglobal %s (%s)",
					off ? ", " : "", a, tuning_global_by(&s->tun));
	}
	for (int i = 0; i < s->o->nsysctl && off < len; i++) {
		const char *arg = s->o->sysctl[i], *eq = strchr(arg, '=');
		char name[128], now[SYSCTL_VALUE_MAX], e[256];

		/* what the kernel holds: vm.nr_hugepages is the pages it found */
		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : 0, arg);
		if (eq && !s->tuned_there && sysctl_get(name, now, sizeof(now), e, sizeof(e)) == 0 &&
		    !sysctl_same(now, eq + 1))
			off += (size_t)snprintf(s->tune_desc + off, len - off, "%s%s=%s (asked %s)",
						off ? ", " : "", name, now, eq + 1);
		else
			off += (size_t)snprintf(s->tune_desc + off, len - off, "%s%s",
						off ? ", " : "", arg);
	}
}

/* Every registry series' value at the sample just taken (s->prev still
 * the one before); for the plots, rates from the last sample they took. */
static void sample_values(const struct session *s, double *v, bool plots)
{
	const struct tuning *t = &s->tun;
	bool cg = t->have_cg && s->cg_ok;
	struct metric_input in = {
		.prev = s->have_prev ? &s->prev : NULL,
		.cur = &s->cur,
		.cg_cur = cg ? &t->cur : NULL,
		.cg_prev = cg && t->t_prev > 0 ? &t->prev : NULL,
		.cg_dt = t->t_cur - t->t_prev,
	};

	if (plots) {
		in.prev = s->have_plot_prev ? &s->plot_prev : NULL;
		in.cg_prev = cg && s->plot_cg_t > 0 ? &s->plot_cg : NULL;
		in.cg_dt = t->t_cur - s->plot_cg_t;
	}

	if (s->stall_fresh && s->stall_t_prev > 0) {
		in.stall_prev = &s->stall_prev;
		in.stall_cur = &s->stall_cur;
		in.stall_dt = s->stall_t_cur - s->stall_t_prev;
	}
	metrics_values(&in, v);
}

/* Every worker's delay totals summed now, for the stall series. */
static void sample_stalls(struct session *s)
{
	struct delays sum;
	int rc;

	s->stall_fresh = false;
	if (!s->run.active || s->run.forking ||
	    (rc = s->place->ops->stalls(s->place, &s->run, &sum)) < 0) {
		s->stall_t_prev = s->stall_t_cur = 0;
		return;
	}
	if (rc == 0)
		return;
	s->stall_prev = s->stall_cur;
	s->stall_t_prev = s->stall_t_cur;
	s->stall_cur = sum;
	s->stall_t_cur = s->cur.t;
	s->stall_fresh = true;
}

/* Which series this machine gives now: the cgroup comes and goes with
 * --mem and sweeps. */
static void update_avail(struct session *s)
{
	struct sampler_caps caps;
	struct metric_cgroup_info cg = {
		.present = s->tun.have_cg,
		.version = s->tun.cg.version,
		.swap_accounted = s->tun.cg.version == 2 || s->tun.cg.memsw,
	};

	const struct place *p = s->place;

	p->ops->caps(p, &caps);
	metrics_availability(&caps, &cg, &s->avail);
	if (!p->stalls_on)
		metrics_no_stalls(&s->avail, p->stalls_why[0] ? p->stalls_why
				  : "no delay accounting");
	metrics_reclaim_availability(&s->avail, p->events_on,
				     p->events_why[0] ? p->events_why : "not started yet");
}

/* The newest OOM kill since the sample before, for the lane: the kills
 * between two samples share the column of the second. */
static void note_kill(struct session *s)
{
	if (!s->have_prev || !s->cur.rc_ok || !s->prev.rc_ok || s->cur.rc.oom <= s->prev.rc.oom)
		return;
	if (s->nkills == SESSION_KILLS_MAX) {
		memmove(s->kills, s->kills + 1, sizeof(s->kills[0]) * (SESSION_KILLS_MAX - 1));
		s->nkills--;
	}
	s->kills[s->nkills++] = (double)s->cur.rc.oom_last_ns / 1e9;
}

/* A system sample and its rates, and with plot the plots' series. The
 * cgroup and the balloon are read now, for the newest sample only: older
 * ones waited while the loop was held up, and keep the figures read
 * before them. The samples at a run's start and end are the run's, not
 * the plots': drawn, they put two points off the interval's beat at each
 * boundary of a -r series. */
static void sample_sys(struct session *s, const struct sys_sample *x, bool newest, bool plot,
		       double *v)
{
	double pv[M_N];
	char err[256];

	s->cur = *x;
	note_kill(s);
	if (newest && s->tuned_there) {
		struct cgroup_stat st;

		s->cg_ok = !s->tun.have_cg || s->place->ops->cgroup(s->place, &st) == 0;
		if (s->tun.have_cg && s->cg_ok)
			tuning_take(&s->tun, &st, s->cur.t);
	} else if (newest) {
		s->cg_ok = tuning_sample(&s->tun, s->cur.t) == 0;
		if (!s->cg_ok && s->tun.have_cg && s->tui)
			session_note(s, true, "cannot read cgroup %s: %s", s->tun.cg.path,
				     strerror(errno));
		if (!tuning_balloon_alive(&s->tun, err, sizeof(err))) {
			session_note(s, true, "--global no longer holds: %s", err);
			describe_tuning(s);
		}
	}
	if (newest)
		sample_stalls(s);
	sample_values(s, v, false);
	if (plot && s->unplotted)
		sample_values(s, pv, true);
	s->stall_fresh = false;
	s->have_prev = true;
	s->prev = s->cur;
	if (!plot) {
		s->unplotted = true;
		return;
	}
	for (int i = 0; i < M_N; i++)
		series_push(&s->view[i], s->cur.t, s->unplotted ? pv[i] : v[i]);
	against_push(&s->against, s->cur.t, s->run.active && !s->run.forking ?
		     s->run.wl.t_start : NAN);
	s->unplotted = false;
	s->have_plot_prev = true;
	s->plot_prev = s->cur;
	if (s->tun.have_cg && s->cg_ok && s->tun.t_cur > 0) {
		s->plot_cg = s->tun.cur;
		s->plot_cg_t = s->tun.t_cur;
	}
}

int session_tick_fd(const struct session *s)
{
	return s->place->ops->tick_fd(s->place);
}

/* Every waiting sample, in order: 1, 0 when none waited, -1 with errno. A
 * sample older than the last one taken (the end of a run, sampled here
 * while the thread sampled too) is dropped. */
static int take_samples(struct session *s)
{
	struct sys_sample x, next;
	double v[M_N];
	struct place *p = s->place;
	int rc = p->ops->take(p, &x), e = errno, got = rc;

	while (rc > 0) {
		rc = p->ops->take(p, &next);
		e = errno;
		if (x.t > s->cur.t) {
			sample_sys(s, &x, rc <= 0, true, v);
			run_observe(&s->run, &s->cur, v);
		}
		x = next;
	}
	errno = e;
	return rc < 0 ? -1 : got;
}

/* The samples waiting, then the system as it is now, read here: for the
 * start and the end of a run. 0, or -1 with errno. */
static int sample_now(struct session *s, double *v)
{
	struct sys_sample x;

	if (take_samples(s) < 0 || s->place->ops->now(s->place, &x))
		return -1;
	sample_sys(s, &x, true, false, v);
	return 0;
}

/* The run's processes read at the newest sample: with tick, a tick's
 * whole reading, else the rows on screen only (they scrolled). */
static void watch(struct session *s, bool tick)
{
	struct place_want w = {
		.tick = tick,
		.rows = s->want_procs,
		.lo = s->rows_shown < 0 ? 0 : s->rows_first,
		.hi = s->rows_shown < 0 ? s->run.wl.n : s->rows_first + s->rows_shown,
	};

	s->place->ops->watch(s->place, &s->run, &w, &s->cur);
}

static void knob_answered(struct session *s);

int session_sample(struct session *s, char *err, size_t errlen)
{
	int rc = take_samples(s);

	knob_answered(s);
	/* a note another replaced at the start, once that one has gone */
	if (s->note_again_due && !session_note_shown(s)) {
		char text[sizeof(s->note_again)];

		memcpy(text, s->note_again, sizeof(text));
		s->note_again[0] = '\0';
		s->note_again_due = false;
		session_note(s, false, "%s", text);
	}
	if (rc < 0) {
		if (s->place->ended[0])
			snprintf(err, errlen, "%s", s->place->ended);
		else
			snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
		return -1;
	}
	if (rc == 0)
		return 0;
	if (s->comp != MC_NONE)
		describe_tuning(s);	/* the ratio it names */
	watch(s, true);
	return 0;
}

void session_sample_rows(struct session *s)
{
	watch(s, false);
}

/* A tuned or swept session's runs share an id: UTC start time and pid. */
static void new_session_id(struct session *s)
{
	time_t now = time(NULL);
	struct tm tm;

	if (s->id[0] || !gmtime_r(&now, &tm))
		return;
	snprintf(s->id, sizeof(s->id), "%04d%02d%02dT%02d%02d%02dZ-%d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (int)getpid());
}

/* Which compressed swap is at work, for the default plots and the header;
 * the sampler reads the session's zram device. */
static void update_comp(struct session *s)
{
	s->comp = !strcmp(s->sys.zswap_enabled, "Y") ? MC_ZSWAP :
		  s->tun.have_zram ? MC_ZRAM : MC_NONE;
	if (s->place)
		s->place->ops->zram(s->place, s->tun.have_zram ? s->tun.zr.name : NULL);
}

/* The system as it is now, for the header and the record: swap devices (a
 * temporary file comes and goes), swappiness. */
static void refresh_sys(struct session *s)
{
	char err[256];
	struct sysstate st;
	const char *sw;

	if (s->place->ops->state(s->place, &st, err, sizeof(err)) == 0)
		s->sys = st;
	describe_swaps(s);
	update_comp(s);
	sw = sysstate_vm(&s->sys, "vm.swappiness");
	snprintf(s->swappiness, sizeof(s->swappiness), "%s", sw ? sw : "n/a");
}

void session_refresh(struct session *s)
{
	refresh_sys(s);
}

void session_print_place(const struct session *s, FILE *f)
{
	fprintf(f, "%s hostname=%s kernel=%s:\n", s->side_name, s->sys.hostname, s->sys.release);
}

void session_describe(struct session *s)
{
	describe_workload(s);
	describe_tuning(s);
}

/* The tuning a place that tunes itself answered with (a cell's, a key's),
 * taken as the run starts, with the state it holds. */
static void adopt_answer(struct session *s)
{
	if (!s->tuned_there || s->place->tuned_n == s->tuned_seen)
		return;
	s->tuned_seen = s->place->tuned_n;
	s->place->ops->tuned(s->place, &s->tun);
	refresh_sys(s);
	for (int i = 0; i < SYSSTATE_NVM; i++)
		snprintf(s->vm_start[i], sizeof(s->vm_start[i]), "%s", s->sys.vm[i].value);
	describe_tuning(s);
}

static int begin_run(struct session *s, char *err, size_t errlen)
{
	struct workload_cfg cfg = {
		.nelems = s->plan.nelems,
		.procs = s->o->argv ? 1 : s->plan.procs,
		.seed = s->o->seed,
		.fill = s->o->fill,
		.argv = s->o->argv,
		.out_fd = s->out.fd,
		.cap = s->o->argv ? s->cap : NULL,
		.set_nice = s->guard.nice_now != s->guard.nice_was,
		.nice = s->guard.nice_was,
	};

	refresh_sys(s);
	for (int i = 0; i < SYSSTATE_NVM; i++)
		snprintf(s->vm_start[i], sizeof(s->vm_start[i]), "%s", s->sys.vm[i].value);
	/* a v1 cgroup keeps the swappiness it was made with: the run reclaims
	 * at the one it records, whatever set vm.swappiness since */
	if (!s->tuned_there && tuning_cg_swappiness(&s->tun, err, errlen) < 0)
		return -1;
	if (!s->tuned_there)
		tuning_workload_cfg(&s->tun, &cfg);
	if (cfg.cap)
		capture_reset(cfg.cap);
	if (s->place->ops->begin(s->place, &s->run, &cfg, s->tun.have_balloon ? s->tun.bl.pid : 0,
				 err, errlen))
		return -1;
	s->run_no++;
	s->batch_left--;
	s->repeat_k++;
	return 0;
}

int session_fork(struct session *s, double until, char *err, size_t errlen)
{
	struct run *r = &s->run;
	double v[M_N];
	int rc;

	if (!r->active || !r->forking)
		return 0;
	rc = s->place->ops->fork(s->place, r, until, err, errlen);
	if (rc <= 0)
		return rc < 0 ? -1 : 1;
	adopt_answer(s);
	/* The record keeps the state the run starts in. */
	if (sample_now(s, v)) {
		snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
		session_abort_run(s);
		return -1;
	}
	tuning_run_begin(&s->tun);
	s->place->ops->started(s->place, r, &s->cur);
	update_avail(s);
	run_started(r, &s->cur, v, s->avail.ok);
	r->interval = s->plan.interval;
	return 0;
}

/* OOM kills inside the cgroup that /proc/vmstat did not count already
 * (the kernel counts a memcg OOM kill in both). */
static int64_t cgroup_extra_oom(struct session *s)
{
	int64_t cg = tuning_run_oom(&s->tun), sys = NA;
	const struct run_result *res = &s->run.res;

	if (res->first.vm[VM_OOM_KILL] != NA && s->cur.vm[VM_OOM_KILL] != NA)
		sys = s->cur.vm[VM_OOM_KILL] - res->first.vm[VM_OOM_KILL];
	if (cg == NA || cg <= 0)
		return 0;
	return sys == NA ? cg : cg > sys ? cg - sys : 0;
}

/* The run's reclaim summary, from the place's copy of its events. */
static void reclaim_finish(struct session *s)
{
	struct rc_summary *sum = &s->rc_last;
	int64_t n;
	double secs;

	memset(sum, 0, sizeof(*sum));
	if (!s->place->events_on || !s->cur.rc_ok)
		return;
	if (!s->rc_run && !(s->rc_run = malloc(sizeof(*s->rc_run))))
		return;
	if (!s->place->ops->events(s->place, &s->run, s->rc_run, &n, &secs))
		return;
	rc_run_summary(s->rc_run, sum);
	sum->workers_n += n;
	sum->workers_s += secs;
}

static bool changes_machine(const struct session *s);

/* The reclaim line after the run's time lines, in a session that changes
 * the machine: "n/a reclaim" where it has no tracing (--no-events, or why
 * said once on stderr at its start); a plain session has none, even once
 * a key retuned the machine (S, K): it traced nothing from its start. */
static void print_reclaim(const struct session *s, FILE *out)
{
	static const struct rc_summary none;
	char line[512];

	if (!s->place->events_on && !s->tracer_wanted)
		return;
	rc_line(line, sizeof(line), s->place->events_on ? &s->rc_last : &none);
	fprintf(out, "%s\n", line);
	fflush(out);
}

static void remember_run(struct session *s)
{
	char buf[700], *text = NULL, *etext = NULL;
	size_t len = 0, elen = 0;
	char **d = realloc(s->done, sizeof(*d) * (size_t)(s->ndone + 1));
	FILE *f, *fe;
	void *p;

	if (!d)
		return;
	s->done = d;
	run_done_line(&s->run, s->run_no, s->sweep.cell >= 0 ? s->sweep.cell_text : NULL,
		      buf, sizeof(buf));
	if ((d[s->ndone] = strdup(buf)))
		s->ndone++;
	if (!s->tui || !(p = realloc(s->posted, sizeof(*s->posted) * (size_t)(s->nposted + 1))))
		return;
	s->posted = p;
	if (!(f = open_memstream(&text, &len)))
		return;
	if (!(fe = open_memstream(&etext, &elen))) {
		fclose(f);
		free(text);
		return;
	}
	fputs(s->kept_notes, fe);
	s->kept_notes[0] = '\0';
	run_print(&s->run, s->o->format, f, fe);
	print_reclaim(s, f);
	int bad = fclose(f);

	if (fclose(fe) == 0 && bad == 0) {
		s->posted[s->nposted].out = text;
		s->posted[s->nposted].err = etext;
		memcpy(s->posted[s->nposted].vm, s->vm_start, sizeof(s->vm_start));
		s->posted[s->nposted].cell[0] = '\0';
		if (s->sweep.cell >= 0)
			snprintf(s->posted[s->nposted].cell, sizeof(s->posted[0].cell),
				 "cell %d/%d: %s", s->sweep.cell + 1, s->sweep.sw.ncells,
				 s->sweep.cell_text);
		s->nposted++;
	} else {
		free(text);
		free(etext);
	}
}

/* "zram 512M lzo-rle prio 32767", "virtio-blk 256M cache=none" (a
 * guest's disk), "file 2G", or "" */
static void swap_backend_text(const struct session *s, char *buf, size_t len)
{
	const char *disk = s->tun.sw.disk;
	char a[32];

	buf[0] = '\0';
	if (s->tun.have_zram) {
		fmt_kib(a, sizeof(a), s->tun.zr.bytes / 1024);
		snprintf(buf, len, "zram %.12s %.24s prio %d", a, s->tun.zr.algo, s->tun.zr.prio);
	} else if (s->tun.have_swap && *disk) {
		fmt_kib(a, sizeof(a), s->tun.sw.bytes / 1024);
		snprintf(buf, len, "%.*s %s%s", (int)strcspn(disk, " "), disk, a,
			 disk + strcspn(disk, " "));
	} else if (s->tun.have_swap) {
		fmt_kib(a, sizeof(a), s->tun.sw.bytes / 1024);
		snprintf(buf, len, "file %s", a);
	}
}

/* Keeps the run in the history, and a sweep's runs for its table. A
 * failure is said in one line; the result itself has been printed or
 * shown already. */
static void store_run(struct session *s)
{
	char sysctls[TUNING_MAX_SYSCTL * 128], backend[64], cell[600];
	const struct run *rn = &s->run;
	struct session_sweep *sw = &s->sweep;
	const char *place_cell = s->o->place_cell;
	struct run_record r;
	struct record_input in = {
		.res = &rn->res,
		.wl = &rn->wl,
		.sys = &s->sys,
		.started = rn->started,
		.label = s->o->label,
		.place = s->place->kind,
		.accel = s->place->accel,
		.command = s->o->argv ? s->workload_desc : NULL,
		.repeat_k = s->repeat_k,
		.repeat_n = s->repeat_n,
		.session = s->id[0] ? s->id : NULL,
		.cell = place_cell || sw->cell >= 0 ? cell : NULL,
		.mem_limit_kib = s->tun.have_cg && s->tun.mem_limit ? s->tun.mem_limit / 1024 : NA,
		.cgroup_new = s->tun.have_cg && s->tun.mem_limit ? s->tun.cg_runs == 1 : NA,
		.interval_s = rn->interval,
		.global_limit_kib = tuning_global_by(&s->tun)[0] ? s->tun.global_leave / 1024 : NA,
		.global_by = tuning_global_by(&s->tun),
		.shared_cores = s->shared_cores,
		.tmp_swap_kib = s->tun.have_swap ? s->tun.sw.bytes / 1024 :
				s->tun.have_zram ? s->tun.zr.bytes / 1024 : 0,
		.swap_backend = backend,
		.log = &rn->log,
		.changes = rn->changes,
		.nchanges = rn->nchanges,
		.sysctls = sysctls,
		.reclaim = s->place->events_on ? &s->rc_last : NULL,
		.reclaim_run = s->place->events_on && s->rc_last.ok ? s->rc_run : NULL,
	};
	char err[512] = "";

	if (s->tuned_there)
		s->place->ops->sysctls(s->place, sysctls, sizeof(sysctls));
	else
		tuning_sysctls_text(&s->tun, sysctls, sizeof(sysctls));
	swap_backend_text(s, backend, sizeof(backend));
	/* a sweep over places: its cell first ("kernel=6.1 swappiness=60") */
	snprintf(cell, sizeof(cell), "%s%s%s", place_cell ? place_cell : "",
		 place_cell && sw->cell >= 0 ? " " : "", sw->cell >= 0 ? sw->cell_text : "");

	session_open_history(s);
	if (!s->hist && sw->cell < 0 && !place_cell)
		return;
	run_record_init(&r);
	if (record_build(&r, &in))
		snprintf(err, sizeof(err), "out of memory");
	else if (s->hist) {
		/* A signal during a wait for another writer's lock ends the
		 * wait within HISTORY_STOP_GRACE_MS. */
		loop_let_end(true);
		if (history_add(s->hist, &r, err, sizeof(err)) >= 0)
			err[0] = '\0';
		loop_let_end(false);
	}
	if (s->hist && !err[0])
		s->last_id = r.id;
	if (!err[0] && (sw->cell >= 0 || place_cell)) {
		struct run_record *v = realloc(sw->runs, sizeof(*v) * (sw->nruns + 1));
		if (v) {
			sw->runs = v;
			if (run_record_copy(&v[sw->nruns], &r) == 0)
				sw->nruns++;
		}
	}
	run_record_clear(&r);
	if (err[0])
		session_note(s, true, "history: %s (run %d not kept)", err, s->run_no);
}

/* The command's own figures taken, the output all read; on the screen,
 * one that has no value is said (batch mode's result lines say it). */
static void own_figures(struct session *s)
{
	struct capture *c = s->run.wl.cfg.cap;
	char text[96];

	if (!c)
		return;
	capture_flush(c);
	for (int i = 0; s->tui && i < capture_count(c); i++)
		if (capture_result_at(c, i)->state != CAPTURE_VALUE) {
			capture_text(c, i, text, sizeof(text));
			session_note(s, true, "--metric %s: %s", capture_spec_at(c, i)->name, text);
		}
}

static void finish_run(struct session *s, bool aborted)
{
	struct run *r = &s->run;
	double v[M_N];

	if (aborted)
		s->place->ops->stop(s->place, r);
	if (sample_now(s, v) == 0)
		run_observe(r, &s->cur, v);
	else if (!s->place->ended[0])	/* said once, as the session ends */
		session_note(s, true, "cannot sample the system: %s", strerror(errno));
	struct place_end end;
	int64_t cg = tuning_run_oom(&s->tun);

	s->place->ops->end(s->place, r, s->tun.have_cg ? s->tun.cg.path : NULL, &end);
	own_figures(s);
	struct oom_seen seen = {
		.extra = cgroup_extra_oom(s),
		.cgroup = cg > 0 ? cg : 0,
		.kills = end.kills,
		.nkills = end.nkills,
	};
	if (end.tree_lost)
		kept_note(s, true, "n/a stalls: exit records of the command's processes were lost "
			  "(a full socket buffer, or memory)");
	for (int k = 0; k < DL_N; k++)
		if (end.tree_past[k])
			session_note(s, true, "stalls: %s n/a: an exit record of the command's held "
				     "more of it than its thread lived (the kernel added its uptime)",
				     delay_name((enum delay_kind)k));
	/* Delay accounting turned off meanwhile (by a session that turned it
	 * on, then ended): the totals then miss part of the run, and none is
	 * better than a short one. */
	if (end.acct_off) {
		for (int i = 0; i < r->wl.n; i++)
			delays_clear(&r->wl.w[i].delays);
		kept_note(s, true, "n/a stalls: %s was off during the run", DELAYACCT_SYSCTL);
	}
	for (int k = 0; k < DL_N; k++) {	/* the kernel's uptime in a total: said, not dropped */
		char pids[120] = "";
		int npast = 0;
		size_t o = 0;

		for (int i = 0; i < r->wl.n; i++) {
			if (!r->wl.w[i].delays_past[k])
				continue;
			if (npast++ < 6 && o < sizeof(pids))
				o += (size_t)snprintf(pids + o, sizeof(pids) - o, "%s%d",
						      npast > 1 ? ", " : "", (int)r->wl.w[i].pid);
		}
		if (npast > 6 && o < sizeof(pids))
			snprintf(pids + o, sizeof(pids) - o, " and %d more", npast - 6);
		if (npast)
			kept_note(s, true, "stalls: %s n/a: the exit record%s of %s held more of it "
				  "than %s lived (the kernel added its uptime)",
				  delay_name((enum delay_kind)k), npast > 1 ? "s" : "", pids,
				  npast > 1 ? "their processes" : "its process");
	}
	if (s->place->drops > s->drops_said) {
		kept_note(s, true, "%" PRId64 " samples of the place were dropped on the way: the "
			  "stream fell behind", s->place->drops - s->drops_said);
		s->drops_said = s->place->drops;
	}
	run_finish(r, &s->cur, &seen, aborted);
	if (r->wl.left > 0)	/* not in the time line: time(1) would not wait for them */
		session_note(s, false, "the command left %d process%s running as it ended: killed, "
			     "as a run ends with its command", r->wl.left, r->wl.left > 1 ? "es" : "");
	s->place->ops->done(s->place, r);
	if (r->res.status != RUN_OK && r->res.status != RUN_ABORTED)
		s->nfailed_runs++;
	reclaim_finish(s);
	remember_run(s);
	if (!s->tui) {
		/* several places' runs end in any order: each under its place */
		if (s->side_name && *s->side_printed != s) {
			session_print_place(s, stdout);
			*s->side_printed = s;
		}
		run_print(r, s->o->format, stdout, stderr);
		print_reclaim(s, stdout);
	}
	store_run(s);
	if (s->sweep.cell >= 0) {
		s->sweep.done++;
		s->sweep.t_last = now_monotonic();
	}
}

void session_abort_run(struct session *s)
{
	if (s->run.active)
		finish_run(s, true);
}

bool session_reap(struct session *s)
{
	if (!s->run.active || s->run.forking || s->place->ops->reap(s->place, &s->run) > 0)
		return false;
	finish_run(s, false);
	return true;
}

int session_next_run(struct session *s, char *err, size_t errlen)
{
	if (s->batch_left <= 0) {
		if (s->sweep.cell < 0 || s->sweep.cell + 1 >= s->sweep.sw.ncells)
			return 0;
		if (cells_apply(s, s->sweep.cell + 1, err, errlen))
			return -1;
	}
	return begin_run(s, err, errlen) ? -1 : 1;
}

int session_rerun(struct session *s, char *err, size_t errlen)
{
	if (s->run.active)
		return 0;
	s->batch_left = s->repeat_n = 1;
	s->repeat_k = 0;
	return begin_run(s, err, errlen) ? -1 : 1;
}

/* A k/K step's answer, taken as the place gave it: rc as tuning_knob's. */
static void knob_stepped(struct session *s, const char *name, int rc, const char *old,
			 const char *next, const char *err)
{
	char cur[SYSCTL_VALUE_MAX], e[512];
	double t = now_monotonic(), *mk;

	if (rc < 0) {
		session_note(s, true, "%s", err);
		return;
	}
	if (rc > 0) {
		session_note(s, false, "%s is already %s, the end of its range", name, next);
		return;
	}
	new_session_id(s);
	mk = realloc(s->marks, sizeof(*mk) * (size_t)(s->nmarks + 1));
	if (mk) {
		s->marks = mk;
		mk[s->nmarks++] = t;
	}
	run_change(&s->run, t, name, old, next);
	if (s->tuned_there && !strcmp(name, "vm.swappiness"))
		snprintf(s->swappiness, sizeof(s->swappiness), "%s", next);
	else if (!s->tuned_there && sysctl_get("vm.swappiness", cur, sizeof(cur), e, sizeof(e)) == 0)
		snprintf(s->swappiness, sizeof(s->swappiness), "%s", cur);
	session_note(s, false, "%s %s -> %s (restored at exit)", name, old, next);
}

void session_step_knob(struct session *s, const char *name, int dir)
{
	char next[SYSCTL_VALUE_MAX], old[SYSCTL_VALUE_MAX], err[512];
	int rc;

	if (s->knob_asked[0]) {
		session_note(s, false, "%s: waiting for the place's answer", s->knob_asked);
		return;
	}
	rc = s->tuned_there ? s->place->ops->sysctl(s->place, name, dir, old, next, sizeof(next),
						     err, sizeof(err)) :
	     tuning_knob(&s->tun, name, dir, old, next, sizeof(next), err, sizeof(err));
	if (rc == 2) {
		snprintf(s->knob_asked, sizeof(s->knob_asked), "%s", name);
		return;
	}
	knob_stepped(s, name, rc, old, next, err);
}

/* The answer to a step the place was asked for, once it came. */
static void knob_answered(struct session *s)
{
	char next[SYSCTL_VALUE_MAX], old[SYSCTL_VALUE_MAX], err[512], name[sizeof(s->knob_asked)];
	int rc;

	if (!s->knob_asked[0])
		return;
	rc = s->place->ops->answer(s->place, old, next, sizeof(next), err, sizeof(err));
	if (rc == 2)
		return;
	memcpy(name, s->knob_asked, sizeof(name));
	s->knob_asked[0] = '\0';
	knob_stepped(s, name, rc, old, next, err);
}

void session_step_interval(struct session *s, int dir)
{
	static const double steps[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
	const int n = (int)(sizeof(steps) / sizeof(steps[0]));
	double cur = s->plan.interval;
	int i;

	/* the next step past the interval, which -d may have put between
	 * two steps or beyond the last: none there, it stays */
	if (dir > 0)
		for (i = 0; i < n && steps[i] <= cur + 1e-9; i++)
			;
	else
		for (i = n - 1; i >= 0 && steps[i] >= cur - 1e-9; i--)
			;
	if (i >= 0 && i < n)
		s->plan.interval = steps[i];
	s->place->ops->set_interval(s->place, s->plan.interval);
	session_note(s, false, "interval %.2f s", s->plan.interval);
}

void session_open_history(struct session *s)
{
	char path[4096], err[512];
	const char *p = s->o->history;

	if (s->hist || s->hist_tried || s->o->no_history)
		return;
	s->hist_tried = true;
	if (!p)
		p = history_default_path(path, sizeof(path), err, sizeof(err));
	if (p)
		s->hist = history_open(p, s->o->history ? 0 : HISTORY_PARENTS, err, sizeof(err));
	if (s->hist) {
		history_set_stop(s->hist, loop_stop_flag());
		return;
	}
	if (!s->tui) {
		if (s->o->history)	/* refused by setup */
			snprintf(s->hist_err, sizeof(s->hist_err), "%s", err);
		else
			fprintf(stderr, "thrashtop: history: %s (runs will not be kept)\n", err);
		return;
	}
	/* the screen is up: said on it, and on stderr once it is gone */
	snprintf(s->hist_err, sizeof(s->hist_err), "%s", err);
	session_note(s, true, "history: %s (runs will not be kept)", err);
}

/* A session that changes the machine holds the one-session lock. */
static bool changes_machine(const struct session *s)
{
	return s->tun.touched || s->o->nsweep;
}

static int setup(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->o;

	if (!s->place && !(s->place = local_open(o->argv != NULL, err, errlen)))
		return -1;
	if (s->place->ops->state(s->place, &s->sys, err, errlen))
		return -1;
	if (!s->plan.procs)
		s->plan.procs = s->sys.cpus_online > 0 ? s->sys.cpus_online : 1;
	if (!o->argv && !s->plan.nelems) {
		struct sys_sample now;
		if (s->place->ops->now(s->place, &now))
			return snprintf(err, errlen, "cannot read memory figures"), -1;
		s->plan.nelems = default_nelems(s->plan.procs, now.mem[MI_AVAIL]);
	}
	update_avail(s);
	for (int i = 0; i < M_N; i++)
		if (series_init(&s->view[i], VIEW_CAP))
			return snprintf(err, errlen, "out of memory"), -1;
	run_init(&s->run);
	/* The monitor opens it after its first frame (a new database takes
	 * tens of milliseconds); --against reads it now. */
	if (!s->tui || o->against)
		session_open_history(s);
	/* a history given that cannot keep the runs is bad input in batch
	 * mode, where nothing would show it until the runs are done */
	if (!s->tui && o->history && !o->no_history && !s->hist) {
		snprintf(err, errlen, "--history: %s", s->hist_err);
		s->hist_err[0] = '\0';
		return -1;
	}
	describe_workload(s);
	describe_swaps(s);
	if (o->nmetric && !(s->cap = capture_new(o->metric, o->nmetric, err, errlen)))
		return -1;
	if (s->tui && o->argv) {
		/* The command's own output would tear the screen: keep it in a
		 * file the user is told about. */
		if (cmdlog_open(&s->out, err, errlen))
			return -1;
		snprintf(s->note_again, sizeof(s->note_again), "command output: %s", s->out.path);
		session_note(s, false, "%s", s->note_again);
	}
	snprintf(s->swappiness, sizeof(s->swappiness), "%s",
		 sysstate_vm(&s->sys, "vm.swappiness") ? sysstate_vm(&s->sys, "vm.swappiness") : "n/a");
	return 0;
}

/* `make run` as root: the default sort in a cgroup it does not fit, with a
 * temporary swap file, so the first screen shows the VM at work. Anything
 * that cannot be set up leaves the plain default and a notice. */
static void pressure_default(struct session *s)
{
	long n = (long)((double)s->plan.nelems / PRESSURE_SLOWDOWN);
	long long total, limit;
	char err[512], a[32], b[32], c[32];

	if (n >= 2000000)
		n = n / 1000000 * 1000000;
	total = (long long)n * s->plan.procs * (long long)sizeof(int);
	limit = (long long)((double)total / PRESSURE_RATIO) & ~((1LL << 20) - 1);
	if (limit < (16LL << 20))
		return;
	if (tuning_set_swap(&s->tun, 2 * limit, err, sizeof(err)) ||
	    tuning_set_mem(&s->tun, limit, err, sizeof(err))) {
		char msg[512];
		tuning_end(&s->tun, msg, sizeof(msg));
		tuning_init(&s->tun);
		session_note(s, true, "no pressure set-up: %s", err);
		return;
	}
	s->plan.nelems = n;
	fmt_kib(a, sizeof(a), total / 1024);
	fmt_kib(b, sizeof(b), limit / 1024);
	fmt_kib(c, sizeof(c), 2 * limit / 1024);
	session_note(s, false, "root default: %s of sort in a %s cgroup, %s temporary swap (q undoes it)",
		     a, b, c);
}

/* The options' machine changes, before the first run: swap first (room
 * for what the limit pushes out), the balloon, the limit, the sysctls. */
static int apply_tuning(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->o;
	char e[512], old[SYSCTL_VALUE_MAX];

	if (o->swap_size && cells_set_swap(s, o->swap.bytes, o->swap.zram, o->swap.algo, err, errlen))
		return -1;
	if (o->zswap_set && tuning_set_zswap(&s->tun, o->zswap_algo, o->zswap_pool, err, errlen))
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
	if (o->nsweep && cells_apply(s, 0, err, errlen))
		return -1;
	refresh_sys(s);
	if (changes_machine(s)) {
		new_session_id(s);
		s->sweep.t0 = s->sweep.t_last = now_monotonic();
	}
	describe_workload(s);
	describe_tuning(s);
	/* what this session set up: a plain one changed nothing (zswap the
	 * machine had on is in the run's record) */
	if (!s->tui && s->tune_desc[0] && changes_machine(s))
		fprintf(stderr, "thrashtop: %s%s%s\n", s->tune_desc,
			s->tun.have_cg ? " in " : "", s->tun.have_cg ? s->tun.cg.path : "");
	return 0;
}

/* Delay accounting for the workers, before the first is forked: as root,
 * a taskstats connection, kernel.task_delayacct on, and for a command the
 * exit records of the processes it starts. A session that changes the
 * machine turns the switch on (it holds the one-session lock); a plain
 * one uses it only where it is on already, so that it never takes the
 * lock from a tuning session beside it. Without, each stall figure is n/a
 * and stderr (the monitor's status line) says why, once. */
static void open_delays(struct session *s)
{
	struct place *p = s->place;
	char err[512], *why = p->stalls_why;
	size_t whylen = sizeof(p->stalls_why);
	int on = -1;

	if (s->o->no_stalls) {
		snprintf(why, whylen, "--no-stalls");
		return;
	}
	if (geteuid() != 0)
		snprintf(why, whylen, "delay accounting needs root (taskstats asks for CAP_NET_ADMIN)");
	else if ((on = delayacct_get(err, sizeof(err))) < 0 ||
		 (on == 0 && changes_machine(s) && tuning_delayacct(&s->tun, err, sizeof(err)) < 0))
		snprintf(why, whylen, "%s: %.200s", DELAYACCT_SYSCTL, err);
	else if (on == 0 && !changes_machine(s))
		snprintf(why, whylen, "%s is 0 (set it to 1, or tune: --mem, --swap ...)",
			 DELAYACCT_SYSCTL);
	else if (local_delays(p, s->o->argv != NULL, err, sizeof(err)) > 0)
		session_note(s, false, "stalls: the command's own process only: %s", err);
	/* in the monitor on the status line, and again at its exit: stderr
	 * is hidden under its screen */
	if (why[0])
		kept_note(s, false, "n/a stalls: %s", why);
}

/* Reclaim events in a session that changes the machine anyway (it holds
 * the one-session lock): the tracefs instance and mount are changes too,
 * and a plain session beside a tuning one must not take that lock. The
 * samples start with them. */
static int start_sampling(struct session *s, char *err, size_t errlen)
{
	struct place *p = s->place;
	bool events = false;

	s->tracer_wanted = changes_machine(s);
	if (s->o->no_events)
		snprintf(p->events_why, sizeof(p->events_why), "--no-events");
	else if (!changes_machine(s))
		snprintf(p->events_why, sizeof(p->events_why), "only in a session that changes "
			 "the machine (--mem, --global, --swap, --sysctl ...)");
	else
		events = true;
	if (local_start(p, s->plan.interval, s->tun.have_zram ? s->tun.zr.name : NULL, events,
			err, errlen))
		return -1;
	update_avail(s);
	if (!p->events_on && changes_machine(s) && !s->o->no_events)
		session_note(s, false, "reclaim events n/a: %s", p->events_why);
	return 0;
}

static bool dangling(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && stat(path, &sb) < 0;
}

/* What an earlier session left: one line for all that was undone, one
 * more for each change that could not be. */
static void recover(void)
{
	char msg[4096], done[4096] = "";
	int rc = tuning_recover(msg, sizeof(msg)), n = 0;
	size_t off = 0;

	for (char *line = strtok(msg, "\n"); line; line = strtok(NULL, "\n")) {
		char *what = strstr(line, "): ");

		if (strstr(line, "could not undo") || !what) {
			fprintf(stderr, "thrashtop: %s\n", line);
			continue;
		}
		if (off < sizeof(done))
			off += (size_t)snprintf(done + off, sizeof(done) - off, "%s%s",
						n++ ? "; " : "", what + 3);
	}
	int logs = cmdlog_sweep();
	if (logs && off < sizeof(done))
		snprintf(done + off, sizeof(done) - off, "%sremoved %d command output file%s",
			 n++ ? "; " : "", logs, logs > 1 ? "s" : "");
	if (n)
		fprintf(stderr, "thrashtop: undid what an earlier session left: %s\n", done);
	if (rc < 0 && !msg[0])
		fprintf(stderr, "thrashtop: cannot use %s to undo an earlier run's changes\n",
			undo_state_file());
}

/* --wait: a session that will change the machine queues for the tuning
 * lock (undo_claim) behind another's, before it sets anything up; what
 * that one left, were it killed, is undone as at start. An ending signal
 * meanwhile stops the wait with nothing changed. A lock that cannot be
 * taken at all is left to the first change to report. */
static int wait_turn(struct session *s, char *err, size_t errlen)
{
	const struct timespec step = { 0, 100000000 };
	const volatile sig_atomic_t *stop = loop_stop_flag();
	double end = now_monotonic() + s->o->wait;
	bool said = false;
	pid_t pid;
	int rc;

	if (!s->o->wait ||
	    !(cli_tunes(s->o) || (s->tui && s->o->pressure_default && geteuid() == 0)))
		return 0;
	loop_let_end(true);
	while ((rc = undo_try_claim(&pid, err, errlen)) > 0 && !*stop && now_monotonic() < end) {
		if (!said)
			fprintf(stderr, "thrashtop: waiting for thrashtop pid %d, which is tuning "
				"this machine\n", (int)pid);
		said = true;
		nanosleep(&step, NULL);
	}
	loop_let_end(false);
	if (rc > 0 && *stop)
		snprintf(err, errlen, "stopped waiting for thrashtop pid %d: nothing was changed",
			 (int)pid);
	else if (rc == 0 && said)
		recover();
	return rc > 0 ? -1 : 0;
}

static void init(struct session *s, const struct options *o)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->tui = !o->batch;
	s->out.fd = -1;
	s->sweep.cell = -1;
	s->plan.nelems = o->nelems;
	s->plan.procs = o->procs;
	s->plan.interval = o->interval;
	tuning_init(&s->tun);
	s->tun.swap_disk = o->swap_disk;
	s->tun.swap_disk_kind = o->swap_disk_kind;
	snprintf(s->knob, sizeof(s->knob), "%s", o->knob ? o->knob : TUNING_DEFAULT_KNOB);
	if (o->session_id)
		snprintf(s->id, sizeof(s->id), "%s", o->session_id);
	s->side_name = o->place_name;
}

/* What a session keeps here whatever its place: a history that is a
 * link to nothing refused, --against's run read, the monitor guarded. */
static int open_here(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->o;

	if (o->history && !o->no_history && dangling(o->history)) {
		snprintf(err, errlen, "--history %s: a symbolic link to nothing", o->history);
		return -1;
	}
	if (setup(s, err, errlen))
		return -1;
	/* before anything is changed: a wrong ID is bad input */
	return o->against ? against_load(&s->against, s->hist, o->against, VIEW_CAP, err, errlen) : 0;
}

/* The place's own tuning as the session's, said as a local one is. */
static void adopt_tuning(struct session *s)
{
	s->place->ops->tuned(s->place, &s->tun);
	s->tuned_seen = s->place->tuned_n;
	refresh_sys(s);
	s->tracer_wanted = changes_machine(s);
	if (changes_machine(s))
		new_session_id(s);
	if (s->tracer_wanted && !s->place->events_on && !s->o->no_events)
		session_note(s, false, "reclaim events n/a: %s", s->place->events_why);
	describe_workload(s);
	describe_tuning(s);
	if (!s->tui && s->tune_desc[0] && changes_machine(s))
		fprintf(stderr, "thrashtop: at %s: %s%s%s\n", s->side_name ? s->side_name :
			"the agent's place", s->tune_desc, s->tun.have_cg ? " in " : "",
			s->tun.have_cg ? s->tun.cg.path : "");
}

int session_open_place(struct session *s, const struct options *o, struct place *p, char *err,
		       size_t errlen)
{
	init(s, o);
	s->place = p;
	s->tuned_there = p->ops->tuned != NULL;
	if (s->tuned_there && cells_check(s, false, err, errlen))
		return -1;
	if (s->tuned_there && p->procs > 0 && !o->argv)
		s->plan.procs = p->procs;
	if (s->tuned_there && p->nelems > 0 && !o->argv)
		s->plan.nelems = p->nelems;
	if (open_here(s, err, errlen))
		return -1;
	if (s->tuned_there)
		adopt_tuning(s);
	if (s->tuned_there && o->nsweep && cells_apply(s, 0, err, errlen))
		return -1;
	if (s->sweep.cell < 0)
		s->batch_left = s->repeat_n = o->repeat;
	s->sweep.t0 = s->sweep.t_last = now_monotonic();
	update_avail(s);
	guard_apply(&s->guard);
	return 0;
}

bool session_ends_waiting(const struct session *s)
{
	return s->place && s->place->ends_waiting;
}

int session_open(struct session *s, const struct options *o, char *err, size_t errlen)
{
	if (o->agent || o->kernel || o->host) {
		struct place *p;

		init(s, o);
		p = o->kernel ? guest_open(o, err, errlen) :
		    o->host ? sshhost_open(o, err, errlen) :
			      remote_command(o->agent, o, REMOTE_READY_S, err, errlen);
		return p ? session_open_place(s, o, p, err, errlen) : -1;
	}
	init(s, o);
	/* Before we are a subreaper, so that it is no child of ours. */
	if (o->argv && watchdog_start(err, errlen))
		return -1;
	/* What a command leaves behind outside its process group comes to us
	 * when its parent dies, to be killed with the rest of the run. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	recover();
	if (cells_check(s, true, err, errlen) || wait_turn(s, err, errlen))
		return -1;
	if (open_here(s, err, errlen) || apply_tuning(s, err, errlen))
		return -1;
	open_delays(s);
	if (s->sweep.cell < 0)
		s->batch_left = s->repeat_n = o->repeat;
	/* Last, so the calibration sort and the set-up are not locked in. */
	guard_apply(&s->guard);
	return start_sampling(s, err, errlen);
}

/* Puts the machine back; says in one line each what could not be. */
static void untune(struct session *s)
{
	char msg[2048];

	if (s->tuned_there || tuning_end(&s->tun, msg, sizeof(msg)) == 0)
		return;
	for (char *line = strtok(msg, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(stderr, "thrashtop: could not undo: %s\n", line);
	fprintf(stderr, "thrashtop: what is left is recorded in %s; the next start undoes it\n",
		undo_state_file());
}

void session_take_runs(struct session *s, struct run_record **runs, size_t *n)
{
	*runs = s->sweep.runs;
	*n = s->sweep.nruns;
	s->sweep.runs = NULL;
	s->sweep.nruns = 0;
}

void session_close(struct session *s)
{
	if (s->place)
		s->place->ops->stop(s->place, &s->run);
	watchdog_end();
	if (s->place)
		s->place->ops->close(s->place);
	s->place = NULL;
	free(s->rc_run);
	s->rc_run = NULL;
	run_free(&s->run);
	untune(s);
	/* a sweep over places prints one table for them all */
	if (!s->o->place_cell)
		sweep_print(s->sweep.runs, s->sweep.nruns, s->id, s->hist != NULL, s->o->history);
	run_records_free(s->sweep.runs, s->sweep.nruns);
	sweep_free(&s->sweep.sw);
	for (int i = 0; i < M_N; i++)
		series_free(&s->view[i]);
	against_free(&s->against);
	/* one this session made and kept nothing in (a start refused, a
	 * session quit before a run ended): as if never made */
	history_close_unused(s->hist);
	if (s->hist_err[0])
		fprintf(stderr, "thrashtop: history: %s (runs will not be kept)\n", s->hist_err);
	for (int i = 0; i < s->ndone; i++)
		free(s->done[i]);
	free(s->done);
	for (int i = 0; i < s->nposted; i++) {
		free(s->posted[i].out);
		free(s->posted[i].err);
	}
	free(s->posted);
	free(s->marks);
	if (s->out.fd >= 0)
		cmdlog_close(&s->out, LOG_TAIL_LINES, stderr);
	capture_free(s->cap);
	s->cap = NULL;
}
