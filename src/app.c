#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "fmt.h"
#include "prof.h"
#include "cast.h"
#include "chooser.h"
#include "histui.h"
#include "loop.h"
#include "monscreen.h"
#include "monview.h"
#include "replay.h"
#include "session.h"
#include "sweep.h"
#include "tui.h"

#define MAX_VIEWS 8
#define FORK_SLICE_S 0.01	/* forking between two turns of the loop */

/* The session, the views stacked on the terminal (the monitor at the
 * bottom, or a replay alone), and why the loop ended. */
static struct app {
	struct session s;
	bool live;			/* a session runs beneath the views */
	struct monview mon;
	struct view *views[MAX_VIEWS];
	int nviews;
	double wake;			/* when the top view plays on, 0 never */
	struct cast *cast;		/* --cast, NULL: none */
	bool all_started;		/* the session has no run left to start */
	bool quit_early;		/* q before every run completed */
	char err[512];
} the_app;	/* big: series, rows and texts */

/* --cast: the recording starts with the terminal, before the first run. */
static int start_cast(struct app *a, const char *path)
{
	char title[1024];
	const char *term = getenv("TERM");

	snprintf(title, sizeof(title), "thrashtop: %s on Linux %s", a->s.workload_desc,
		 a->s.sys.release[0] ? a->s.sys.release : "?");
	a->cast = cast_open(path, COLS, LINES, term ? term : "", title, (long long)time(NULL),
			    a->err, sizeof(a->err));
	if (!a->cast)
		return -1;
	if (tui_record(a->cast, a->err, sizeof(a->err)) == 0)
		return 0;
	cast_remove(a->cast);
	a->cast = NULL;
	return -1;
}

static struct view *top(struct app *a)
{
	return a->nviews ? a->views[a->nviews - 1] : NULL;
}

static void draw_top(struct app *a)
{
	struct view *v = top(a);

	if (v)
		v->ops->draw(v);
}

static void push(struct app *a, struct view *v)
{
	if (a->nviews == MAX_VIEWS) {
		v->ops->close(v);
		return;
	}
	a->views[a->nviews++] = v;
	ms_touch();
}

/* Closes the top view; the one below is laid out and drawn again, the
 * terminal may have changed size meanwhile. The last one ends the loop. */
static int pop(struct app *a)
{
	struct view *v = top(a);

	if (a->nviews <= 1)
		return LOOP_END;
	a->nviews--;
	v->ops->close(v);
	top(a)->ops->key(top(a), KEY_RESIZE);
	return LOOP_GO;
}

/* "Linux-6.1 swappiness=70 page_cluster=2", each vm setting some run of
 * the session began with other than the first did, by its report key. */
static void vm_header(const struct session *s, int r, const bool *varies, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "Linux-%s", s->sys.release);
	char key[64];

	for (int i = 0; i < SYSSTATE_NVM && used < len; i++)
		if (varies[i] && sweep_table_key(s->sys.vm[i].name, key, sizeof(key)) == 0)
			used += (size_t)snprintf(buf + used, len - used, " %s=%s", key,
						 s->posted[r].vm[i]);
}

/* The session's completed runs as the batch mode prints them, for the
 * monitor's exit (the alternate screen took them away), a sweep's "cell
 * 2/4: ..." line above each cell's; where the keys or the cells changed a
 * vm setting between runs, a header before the runs that began alike names
 * the vm settings that differ ("Linux-6.1 swappiness=70:"), as an export's
 * does, so that history import gives them back apart. */
static void print_posted(const struct session *s)
{
	bool varies[SYSSTATE_NVM] = { false }, any = false;
	char head[1024], last[1024] = "";

	for (int r = 1; r < s->nposted; r++)
		for (int i = 0; i < SYSSTATE_NVM; i++)
			if (strcmp(s->posted[r].vm[i], s->posted[0].vm[i]))
				any = varies[i] = true;
	for (int r = 0; r < s->nposted; r++) {
		fflush(stdout);
		fputs(s->posted[r].err, stderr);
		/* a sweep's cell named above its runs, as in batch mode */
		if (s->posted[r].cell[0] && (!r || strcmp(s->posted[r].cell, s->posted[r - 1].cell)))
			printf("%s\n", s->posted[r].cell);
		/* runs the keys retuned: a header as an export prints one */
		if (any) {
			vm_header(s, r, varies, head, sizeof(head));
			if (strcmp(head, last))
				printf("%s:\n", head);
			snprintf(last, sizeof(last), "%s", head);
		}
		fputs(s->posted[r].out, stdout);
	}
	fflush(stdout);
}

static int next_run(struct app *a)
{
	int rc = session_next_run(&a->s, a->err, sizeof(a->err));

	if (rc < 0)
		return LOOP_FAIL;
	if (rc == 0)
		a->all_started = true;
	if (rc == 0 && !a->s.tui)
		return LOOP_END;
	if (rc == 0 && a->s.sweep.cell >= 0)
		session_note(&a->s, false, "sweep done: %d runs; q prints the table",
			     a->s.sweep.done);
	return LOOP_GO;
}

/* w: the screen as text, plots in ASCII, for a mail or a bug report:
 * thrashtop-YYYYMMDD-HHMMSS.txt (-2, -3... when taken) here, else in
 * $TMPDIR or /tmp. */
static void dump_screen(struct app *a)
{
	const char *tmp = getenv("TMPDIR");
	const char *dirs[] = { ".", tmp && *tmp ? tmp : "/tmp" };
	char name[64], path[4096];
	time_t now = time(NULL);
	struct tm tm;
	int fd = -1, err = 0;
	FILE *f;

	localtime_r(&now, &tm);
	strftime(name, sizeof(name), "thrashtop-%Y%m%d-%H%M%S", &tm);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && fd < 0; i++) {
		/* never over a file or through a link: the next free name */
		for (int k = 1; fd < 0 && k <= 100; k++) {
			if (k == 1)
				snprintf(path, sizeof(path), "%s/%s.txt", dirs[i], name);
			else
				snprintf(path, sizeof(path), "%s/%s-%d.txt", dirs[i], name, k);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (fd < 0 && errno != EEXIST)
				break;
		}
		if (fd < 0 && !err)
			err = errno;
	}
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		session_note(&a->s, true, "cannot write the screen to %s.txt: %s", name, strerror(err));
		return;
	}
	if ((ms_dump(&a->mon.m, f) | fclose(f)) != 0)
		session_note(&a->s, true, "cannot write the screen to %s: %s", path, strerror(errno));
	else
		session_note(&a->s, false, "screen written to %s", path);
}

static void chooser_note(void *arg, bool error, const char *msg)
{
	session_note(arg, error, "%s", msg);
}

/* p in the history view: the run played in the monitor's view, above
 * the history; the live session goes on measuring beneath. */
static void replay_run(struct app *a, int64_t id)
{
	struct run_record r;
	struct view *v;
	char e[512];

	run_record_init(&r);
	if (!a->s.hist || history_get(a->s.hist, id, &r, e, sizeof(e)) != 0) {
		if (a->s.hist)
			session_note(&a->s, true, "replay: %s", e);
		return;
	}
	v = replay_open(&r, a->mon.nchosen >= 0 ? a->mon.chosen : NULL, a->mon.nchosen, 1,
			e, sizeof(e));
	run_record_clear(&r);
	if (!v) {
		session_note(&a->s, true, "%s", e);
		return;
	}
	push(a, v);
}

static int act(struct app *a, int action)
{
	struct session *s = &a->s;
	char e[256];
	struct view *v;

	switch (action) {
	case MV_QUIT:
		a->quit_early = a->s.run.active || !a->all_started;
		return LOOP_END;
	case MV_RERUN:
		switch (session_rerun(s, a->err, sizeof(a->err))) {
		case 0: session_note(s, false, "a run is in progress"); break;
		case 1: session_note(s, false, "run %d started", s->run_no); break;
		default: return LOOP_FAIL;
		}
		break;
	case MV_FASTER:
	case MV_SLOWER:
		session_step_interval(s, action == MV_FASTER ? -1 : 1);
		break;
	case MV_SWAPPINESS_DOWN:
	case MV_SWAPPINESS_UP:
		session_step_knob(s, "vm.swappiness", action == MV_SWAPPINESS_DOWN ? -1 : 1);
		break;
	case MV_KNOB_DOWN:
	case MV_KNOB_UP:
		session_step_knob(s, s->knob, action == MV_KNOB_DOWN ? -1 : 1);
		break;
	case MV_HISTORY:
		session_open_history(s);
		/* why there is none, said where the view would have been */
		if (!s->hist && s->o->no_history)
			session_note(s, true, "no history view: this session runs with --no-history");
		else if (!s->hist)
			session_note(s, true, "no history view: %s",
				     s->hist_err[0] ? s->hist_err : "the history could not be opened");
		else if ((v = histui_open(s->hist, e, sizeof(e))))
			push(a, v);
		else
			session_note(s, true, "%s", e);
		break;
	case MV_DUMP:
		dump_screen(a);
		break;
	case MV_CHOOSE:
		if ((v = chooser_open(&a->mon, &s->avail, s->o->config,
				      "no config file: neither XDG_CONFIG_HOME nor HOME is an "
				      "absolute path", chooser_note, s, e, sizeof(e))))
			push(a, v);
		else
			session_note(s, true, "%s", e);
		break;
	case HISTUI_REPLAY:
		replay_run(a, histui_replay_id(top(a)));
		break;
	case VIEW_CLOSE:
		return pop(a);
	}
	return LOOP_GO;
}

static int input_fd(void *arg)
{
	(void)arg;
	return tui_fd();
}

static int on_input(void *arg)
{
	struct app *a = arg;
	int ch, rc, n = 0;

	for (; (ch = tui_next_key()) != ERR; n++)
		if ((rc = act(a, top(a)->ops->key(top(a), ch))) != LOOP_GO)
			return rc;
	a->s.want_procs = a->live && (top(a) == &a->mon.v || top(a)->ops->live);
	if (n)
		draw_top(a);
	a->wake = top(a)->ops->wake ? top(a)->ops->wake(top(a), now_monotonic()) : 0;
	/* a scroll or a resize brought rows on screen that no tick has read */
	if (a->s.want_procs && (ms_scroll() != a->s.rows_first ||
				ms_rows_shown() != a->s.rows_shown)) {
		a->s.rows_first = ms_scroll();
		a->s.rows_shown = ms_rows_shown();
		session_sample_rows(&a->s);
		draw_top(a);
	}
	return LOOP_GO;
}

static int on_child(void *arg)
{
	struct app *a = arg;
	int rc;

	if (!a->live || !session_reap(&a->s))
		return LOOP_GO;
	for (int i = 1; i < a->nviews && a->s.last_id > 0; i++)
		histui_added(a->views[i], a->s.last_id);
	rc = next_run(a);
	if (rc == LOOP_GO && a->nviews > 1)
		draw_top(a);
	return rc;
}

static int on_tick(void *arg)
{
	struct app *a = arg;
	struct prof_mark pm;
	int rc;

	/* per-worker files only for the rows the last frame showed */
	a->s.rows_first = ms_scroll();
	a->s.rows_shown = ms_rows_shown();
	prof_begin(&pm);
	rc = session_sample(&a->s, a->err, sizeof(a->err));
	prof_end(PROF_MODEL, &pm);
	if (rc)
		return LOOP_FAIL;
	/* a place whose workers' ends come with its samples */
	if (session_ends_waiting(&a->s) && (rc = on_child(a)) != LOOP_GO)
		return rc;
	/* Only the monitor and live views change with time; another view is
	 * drawn when a key, a resize or a new run changes it (a SIGWINCH
	 * that came outside the loop's wait is a key only once curses is
	 * asked). */
	if (a->nviews == 1 || (a->nviews > 1 && top(a)->ops->live))
		draw_top(a);
	else if (a->s.tui)
		return on_input(a);
	return LOOP_GO;
}

static int on_work(void *arg, bool *more)
{
	struct app *a = arg;
	bool forking = a->s.run.active && a->s.run.forking;
	int rc;

	if (!a->live)
		return LOOP_GO;
	rc = session_fork(&a->s, now_monotonic() + FORK_SLICE_S, a->err, sizeof(a->err));
	if (rc < 0)
		return LOOP_FAIL;
	*more = rc > 0;
	/* drawn once when the last worker is forked, not at every turn */
	if (forking && !*more && a->nviews == 1)
		draw_top(a);
	/* the first frames are out: now the history */
	if (!*more)
		session_open_history(&a->s);
	return LOOP_GO;
}

static double wake_at(void *arg)
{
	return ((struct app *)arg)->wake;
}

static int on_wake(void *arg)
{
	struct app *a = arg;

	a->wake = top(a)->ops->wake ? top(a)->ops->wake(top(a), now_monotonic()) : 0;
	return LOOP_GO;
}

static int tick_fds(void *arg, int *fds)
{
	struct app *a = arg;

	if (!a->live)
		return 0;
	fds[0] = session_tick_fd(&a->s);
	return 1;
}

/* Closes every view, then the terminal. */
static void close_views(struct app *a)
{
	while (a->nviews > 0) {
		struct view *v = a->views[--a->nviews];

		v->ops->close(v);
	}
	ms_end();
	tui_end();
}

static const struct loop_ops app_ops = {
	.input_fd = input_fd, .on_input = on_input, .on_child = on_child, .on_tick = on_tick,
	.on_work = on_work, .tick_fds = tick_fds, .wake_at = wake_at, .on_wake = on_wake,
};

/* The one loop, over the session (if any) and the views. */
static int run_loop(struct app *a)
{
	struct loop_ops ops = app_ops;
	int rc;

	ops.arg = a;
	rc = loop_run(&ops);
	if (rc == LOOP_FAIL && !a->err[0])
		snprintf(a->err, sizeof(a->err), "poll: %m");
	return rc;
}

/* One session from its start to its end; a sweep over places hands its
 * runs to runs (NULL: none kept). */
static int run_session(struct options *o, struct run_record **runs, size_t *nruns)
{
	struct app *a = &the_app;
	int rc = LOOP_FAIL;

	memset(a, 0, sizeof(*a));
	if (session_open(&a->s, o, a->err, sizeof(a->err)))
		goto out;
	a->live = true;
	if (a->s.tui) {
		if (tui_init(a->err, sizeof(a->err)))
			goto out;
		if (o->cast && start_cast(a, o->cast))
			goto out;
		if (monview_init(&a->mon, &a->s, o->nplots ? o->plots : NULL, o->nplots)) {
			snprintf(a->err, sizeof(a->err), "out of memory");
			goto out;
		}
		push(a, &a->mon.v);
		a->s.want_procs = true;
	}
	if (next_run(a) != LOOP_GO)
		goto out;
	rc = run_loop(a);
out:
	session_abort_run(&a->s);
	close_views(a);
	cast_close(a->cast);
	a->cast = NULL;
	/* The alternate screen took the runs away: they are what goes into a
	 * reply, so they are printed as the batch mode prints them. */
	if (a->s.tui)
		print_posted(&a->s);
	if (runs)
		session_take_runs(&a->s, runs, nruns);
	session_close(&a->s);
	if (rc == LOOP_FAIL) {
		fprintf(stderr, "thrashtop: %s\n", a->err);
		return loop_signal() ? 128 + loop_signal() : 2;	/* a signal ended a --wait */
	}
	if (loop_signal())
		return 128 + loop_signal();
	return a->s.nfailed_runs || a->quit_early ? 1 : 0;
}

/* The cell of a sweep over places: "kernel=6.1 boot-mem=512M", "host=box". */
static void place_cell(char *cell, size_t len, const struct sweep_axis *kern,
		       const struct sweep_axis *host, const struct sweep_axis *mem, int c, int nm)
{
	const struct sweep_axis *where = kern ? kern : host;

	snprintf(cell, len, "%s%s%.200s%s%s%.40s", where ? where->key : "", where ? "=" : "",
		 where ? where->vals[c / nm] : "", where && mem ? " " : "", mem ? "boot-mem=" : "",
		 mem ? mem->vals[c % nm] : "");
}

/* --sweep kernel=A,B (and boot-mem=M,N), or host=A,B: a guest or a box a
 * place, one after another, each running the session's other cells and
 * repeats, their runs under one session id and in one table at the end.
 * A place that fails costs its own runs only. */
static int sweep_places(struct options *o, const struct sweep_axis *kern,
			const struct sweep_axis *mem, const struct sweep_axis *host)
{
	int64_t *bytes = calloc((size_t)(mem ? mem->nvals : 1), sizeof(*bytes));
	struct options sub = *o;
	struct run_record *all = NULL;
	size_t nall = 0;
	char id[64], cell[512], e[64];
	int nk = kern ? kern->nvals : host ? host->nvals : 1, nm = mem ? mem->nvals : 1, rc = 0;
	time_t now = time(NULL);
	struct tm tm;

	if (!bytes)
		return fprintf(stderr, "thrashtop: out of memory\n"), 2;
	for (int m = 0; mem && m < nm; m++)
		if (fmt_parse_size(mem->vals[m], &bytes[m]) || bytes[m] < CLI_BOOT_MEM_MIN) {
			fprintf(stderr, "thrashtop: --sweep boot-mem=%s: want a size of at least "
				"32M, such as 512M\n", fmt_escape(e, sizeof(e), mem->vals[m]));
			free(bytes);
			return 2;
		}
	for (int h = 0; host && h < nk; h++)
		if (cli_check_host(host->vals[h], cell, sizeof(cell))) {
			fprintf(stderr, "thrashtop: --sweep host=: %s\n", cell + strlen("--host "));
			free(bytes);
			return 2;
		}
	gmtime_r(&now, &tm);
	snprintf(id, sizeof(id), "%04d%02d%02dT%02d%02d%02dZ-%d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
	sub.nsweep = 0;
	for (int i = 0; i < o->nsweep; i++)
		if (&o->sweep[i] != kern && &o->sweep[i] != mem && &o->sweep[i] != host)
			sub.sweep[sub.nsweep++] = o->sweep[i];
	sub.session_id = id;
	sub.place_cell = cell;
	for (int c = 0; c < nk * nm && !loop_signal(); c++) {
		struct run_record *runs = NULL, *v;
		size_t n = 0;
		int r;

		sub.kernel = kern ? kern->vals[c / nm] : o->kernel;
		sub.boot_mem = mem ? bytes[c % nm] : o->boot_mem;
		sub.host = host ? host->vals[c] : o->host;
		place_cell(cell, sizeof(cell), kern, host, mem, c, nm);
		printf("place %d/%d: %s\n", c + 1, nk * nm, cell);
		fflush(stdout);
		r = run_session(&sub, &runs, &n);
		rc = r > rc ? r : rc;
		if (n && (v = realloc(all, sizeof(*v) * (nall + n)))) {
			all = v;
			memcpy(all + nall, runs, sizeof(*runs) * n);
			nall += n;
			free(runs);
		} else {
			run_records_free(runs, n);
		}
	}
	sweep_print(all, nall, id, !o->no_history, o->history);
	run_records_free(all, nall);
	free(bytes);
	return rc;
}

/* A sweep over places refused when the places are named twice or the
 * screen is asked for: 0 to go on, else the exit status. */
static int check_places(const struct options *o, const struct sweep_axis *kern,
			const struct sweep_axis *mem, const struct sweep_axis *host)
{
	if (kern && o->kernel) {
		fprintf(stderr, "thrashtop: --kernel and --sweep kernel= both name the kernel\n");
		return 2;
	}
	if (host && o->host) {
		fprintf(stderr, "thrashtop: --host and --sweep host= both name the box\n");
		return 2;
	}
	if (mem && !kern && !o->kernel) {
		fprintf(stderr, "thrashtop: --sweep boot-mem= sizes the guests --kernel boots: give "
			"--kernel or --sweep kernel=\n");
		return 2;
	}
	if (!o->batch && host) {
		fprintf(stderr, "thrashtop: --sweep host= runs in batch mode (-b): one box after "
			"another\n");
		return 2;
	}
	if (!o->batch) {
		fprintf(stderr, "thrashtop: --sweep kernel= and boot-mem= run in batch mode (-b): "
			"each place boots a guest of its own\n");
		return 2;
	}
	return 0;
}

int app_run(struct options *o)
{
	const struct sweep_axis *kern = NULL, *mem = NULL, *host = NULL;
	int rc;

	/* A signal during set-up waits, and ends the session on the loop's
	 * first turn, through the same teardown. */
	loop_signals();
	for (int i = 0; i < o->nsweep; i++) {
		if (!strcmp(o->sweep[i].key, "kernel"))
			kern = &o->sweep[i];
		if (!strcmp(o->sweep[i].key, "boot-mem"))
			mem = &o->sweep[i];
		if (!strcmp(o->sweep[i].key, "host"))
			host = &o->sweep[i];
	}
	if (!kern && !mem && !host)
		return run_session(o, NULL, NULL);
	if ((rc = check_places(o, kern, mem, host)))
		return rc;
	return sweep_places(o, kern, mem, host);
}

int app_replay(struct history *h, int64_t id, const int *plots, int nplots, double speed)
{
	struct app *a = &the_app;
	struct run_record r;
	struct view *v;
	int rc;

	run_record_init(&r);
	rc = history_get(h, id, &r, a->err, sizeof(a->err));
	if (rc > 0)
		snprintf(a->err, sizeof(a->err), "replay: no run %" PRId64 " in the history", id);
	else if (rc == 0 && r.nsamples < 1)
		snprintf(a->err, sizeof(a->err), "replay: run %" PRId64 " was kept without its series",
			 id);
	if (rc != 0 || r.nsamples < 1) {
		run_record_clear(&r);
		fprintf(stderr, "thrashtop: %s\n", a->err);
		return 2;
	}
	loop_signals();
	if (tui_init(a->err, sizeof(a->err)) ||
	    !(v = replay_open(&r, plots, nplots, speed, a->err, sizeof(a->err)))) {
		tui_end();
		run_record_clear(&r);
		fprintf(stderr, "thrashtop: %s\n", a->err);
		return 2;
	}
	run_record_clear(&r);
	push(a, v);
	draw_top(a);
	a->wake = v->ops->wake(v, now_monotonic());
	rc = run_loop(a);
	close_views(a);
	if (rc == LOOP_FAIL) {
		fprintf(stderr, "thrashtop: %s\n", a->err);
		return 2;
	}
	return loop_signal() ? 128 + loop_signal() : 0;
}

int app_replay_cast(struct history *h, int64_t id, const int *plots, int nplots, double speed,
		    int cols, int rows, const char *path)
{
	struct app *a = &the_app;
	struct run_record r;
	struct view *v = NULL;
	char title[1024], workload[512];
	int rc;

	run_record_init(&r);
	rc = history_get(h, id, &r, a->err, sizeof(a->err));
	if (rc > 0)
		snprintf(a->err, sizeof(a->err), "no run %" PRId64 " in the history", id);
	else if (rc == 0 && r.nsamples < 1)
		snprintf(a->err, sizeof(a->err), "run %" PRId64 " was kept without its series: "
			 "nothing to record", id);
	if (rc != 0 || r.nsamples < 1) {
		run_record_clear(&r);
		fprintf(stderr, "thrashtop: history: %s\n", a->err);
		return 2;
	}
	run_record_workload(&r, workload, sizeof(workload));
	snprintf(title, sizeof(title), "thrashtop: run %" PRId64 ", %s on Linux %s", r.id,
		 workload, r.kernel_release);
	/* the same file wherever it is made: UTF-8 glyphs, one terminal type */
	setlocale(LC_CTYPE, "C.UTF-8");
	a->cast = cast_open(path, cols, rows, REPLAY_CAST_TERM, title, 0, a->err, sizeof(a->err));
	if (a->cast && !tui_init_headless(a->cast, cols, rows, REPLAY_CAST_TERM, a->err,
					  sizeof(a->err)))
		v = replay_open(&r, plots, nplots, speed, a->err, sizeof(a->err));
	if (v) {
		replay_record(v);
		v->ops->close(v);
	}
	tui_end();
	if (v)
		cast_close(a->cast);
	else
		cast_remove(a->cast);
	a->cast = NULL;
	run_record_clear(&r);
	if (!v) {
		fprintf(stderr, "thrashtop: %s\n", a->err);
		return 2;
	}
	return 0;
}
