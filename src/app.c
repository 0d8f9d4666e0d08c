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
#include <strings.h>

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
#include "sides.h"
#include "sweep.h"
#include "tui.h"

#define MAX_VIEWS 8
#define FORK_SLICE_S 0.01	/* forking between two turns of the loop */

/* The places' sessions, the views stacked on the terminal (the monitor
 * at the bottom, or a replay alone), and why the loop ended. */
static struct app {
	struct sides sd;
	bool live;			/* sessions run beneath the views */
	struct monview mon;
	struct view *views[MAX_VIEWS];
	int nviews;
	double wake;			/* when the top view plays on, 0 never */
	struct cast *cast;		/* --cast, NULL: none */
	bool quit_early;		/* q before every run completed */
	char err[512];
} the_app;	/* big: rows and texts */

/* The first place's session: the plain session's, the one whose history,
 * plots and texts stand for all; NULL under a replay alone. */
static struct session *first(struct app *a)
{
	return a->sd.n ? &a->sd.side[0]->s : NULL;
}

/* --cast: the recording starts with the terminal, before the first run. */
static int start_cast(struct app *a, const char *path)
{
	char title[1024];
	const char *term = getenv("TERM");

	snprintf(title, sizeof(title), "thrashtop: %s on Linux %s", first(a)->workload_desc,
		 first(a)->sys.release[0] ? first(a)->sys.release : "?");
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

	if (s->side_name && s->nposted)
		session_print_place(s, stdout);
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

/* Place i failed (why): alone, the session's failure; beside others, its
 * own, the loop going on while any other lives. */
static int failed(struct app *a, int i, const char *why)
{
	if (!a->sd.several) {
		snprintf(a->err, sizeof(a->err), "%s", why);
		return LOOP_FAIL;
	}
	sides_lose(&a->sd, i, why);
	return sides_dead(&a->sd) || (!a->sd.tui && sides_over(&a->sd)) ? LOOP_END : LOOP_GO;
}

static int next_run(struct app *a, int i)
{
	struct side *d = a->sd.side[i];
	char e[512];
	int rc = session_next_run(&d->s, e, sizeof(e));

	if (rc < 0)
		return failed(a, i, e);
	if (rc == 0)
		d->all_started = true;
	if (rc == 0 && !a->sd.tui)
		return sides_over(&a->sd) ? LOOP_END : LOOP_GO;
	if (rc == 0 && d->s.sweep.cell >= 0)
		session_note(&d->s, false, "sweep done: %d runs; q prints the table",
			     d->s.sweep.done);
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
		sides_note(&a->sd, true, "cannot write the screen to %s.txt: %s", name, strerror(err));
		return;
	}
	if ((ms_dump(&a->mon.m, f) | fclose(f)) != 0)
		sides_note(&a->sd, true, "cannot write the screen to %s: %s", path, strerror(errno));
	else
		sides_note(&a->sd, false, "screen written to %s", path);
}

static void chooser_note(void *arg, bool error, const char *msg)
{
	sides_note(arg, error, "%s", msg);
}

/* p in the history view: the run played in the monitor's view, above
 * the history; the live session goes on measuring beneath. */
static void replay_run(struct app *a, int64_t id)
{
	struct run_record r;
	struct view *v;
	char e[512];

	run_record_init(&r);
	if (!first(a)->hist || history_get(first(a)->hist, id, &r, e, sizeof(e)) != 0) {
		if (first(a)->hist)
			sides_note(&a->sd, true, "replay: %s", e);
		return;
	}
	v = replay_open(&r, a->mon.nchosen >= 0 ? a->mon.chosen : NULL, a->mon.nchosen, 1,
			e, sizeof(e));
	run_record_clear(&r);
	if (!v) {
		sides_note(&a->sd, true, "%s", e);
		return;
	}
	push(a, v);
}

/* The r key at every place: a run begun where none is in progress. */
static int rerun(struct app *a)
{
	char e[512];

	for (int i = 0; i < a->sd.n; i++) {
		struct session *s = &a->sd.side[i]->s;
		int rc;

		if (a->sd.side[i]->dead)
			continue;
		switch (session_rerun(s, e, sizeof(e))) {
		case 0: session_note(s, false, "a run is in progress"); break;
		case 1: session_note(s, false, "run %d started", s->run_no); break;
		default:
			if ((rc = failed(a, i, e)) != LOOP_GO)
				return rc;
		}
	}
	return LOOP_GO;
}

/* An action of the monitor's that every live place takes. */
static void each(struct app *a, int action)
{
	for (int i = 0; i < a->sd.n; i++) {
		struct session *s = &a->sd.side[i]->s;

		if (a->sd.side[i]->dead)
			continue;
		if (action == MV_FASTER || action == MV_SLOWER)
			session_step_interval(s, action == MV_FASTER ? -1 : 1);
		else if (action == MV_SWAPPINESS_DOWN || action == MV_SWAPPINESS_UP)
			session_step_knob(s, "vm.swappiness", action == MV_SWAPPINESS_DOWN ? -1 : 1);
		else
			session_step_knob(s, s->knob, action == MV_KNOB_DOWN ? -1 : 1);
	}
}

static bool quit_early(const struct sides *sd)
{
	for (int i = 0; i < sd->n; i++)
		if (!sd->side[i]->dead && (sd->side[i]->s.run.active || !sd->side[i]->all_started))
			return true;
	return false;
}

static int act(struct app *a, int action)
{
	struct session *s = first(a);
	char e[256];
	struct view *v;

	switch (action) {
	case MV_QUIT:
		a->quit_early = quit_early(&a->sd);
		return LOOP_END;
	case MV_RERUN:
		return rerun(a);
	case MV_FASTER:
	case MV_SLOWER:
	case MV_SWAPPINESS_DOWN:
	case MV_SWAPPINESS_UP:
	case MV_KNOB_DOWN:
	case MV_KNOB_UP:
		each(a, action);
		break;
	case MV_HISTORY:
		if (!s)
			break;
		session_open_history(s);
		/* why there is none, said where the view would have been */
		if (!s->hist && s->o->no_history)
			sides_note(&a->sd, true, "no history view: this session runs with --no-history");
		else if (!s->hist)
			sides_note(&a->sd, true, "no history view: %s",
				   s->hist_err[0] ? s->hist_err : "the history could not be opened");
		else if ((v = histui_open(s->hist, e, sizeof(e))))
			push(a, v);
		else
			sides_note(&a->sd, true, "%s", e);
		break;
	case MV_DUMP:
		dump_screen(a);
		break;
	case MV_CHOOSE:
		if (!s)
			break;
		if ((v = chooser_open(&a->mon, &s->avail, s->o->config,
				      "no config file: neither XDG_CONFIG_HOME nor HOME is an "
				      "absolute path", chooser_note, &a->sd, e, sizeof(e))))
			push(a, v);
		else
			sides_note(&a->sd, true, "%s", e);
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

/* Each place's worker rows the last frame showed, the only ones read;
 * true when a scroll or a resize changed them. */
static bool rows_shown(struct app *a)
{
	bool moved = false;

	for (int i = 0; i < a->sd.n; i++) {
		struct session *s = &a->sd.side[i]->s;
		int lo, n;

		monview_rows(&a->mon, i, &lo, &n);
		moved = moved || lo != s->rows_first || n != s->rows_shown;
		s->rows_first = lo;
		s->rows_shown = n;
	}
	return moved;
}

static int on_input(void *arg)
{
	struct app *a = arg;
	int ch, rc, n = 0;
	bool want;

	for (; (ch = tui_next_key()) != ERR; n++)
		if ((rc = act(a, top(a)->ops->key(top(a), ch))) != LOOP_GO)
			return rc;
	want = a->live && (top(a) == &a->mon.v || top(a)->ops->live);
	for (int i = 0; i < a->sd.n; i++)
		a->sd.side[i]->s.want_procs = want;
	if (n)
		draw_top(a);
	a->wake = top(a)->ops->wake ? top(a)->ops->wake(top(a), now_monotonic()) : 0;
	/* a scroll or a resize brought rows on screen that no tick has read */
	if (want && rows_shown(a)) {
		for (int i = 0; i < a->sd.n; i++)
			if (!a->sd.side[i]->dead)
				session_sample_rows(&a->sd.side[i]->s);
		draw_top(a);
	}
	return LOOP_GO;
}

/* Place i's run, if it ended: finished, recorded, the next begun. */
static int reap(struct app *a, int i)
{
	struct session *s = &a->sd.side[i]->s;
	int rc;

	if (!session_reap(s))
		return LOOP_GO;
	for (int k = 1; k < a->nviews && s->last_id > 0; k++)
		histui_added(a->views[k], s->last_id);
	rc = next_run(a, i);
	if (rc == LOOP_GO && a->nviews > 1)
		draw_top(a);
	return rc;
}

static int on_child(void *arg)
{
	struct app *a = arg;
	int rc;

	for (int i = 0; a->live && i < a->sd.n; i++)
		if (!a->sd.side[i]->dead && (rc = reap(a, i)) != LOOP_GO)
			return rc;
	return LOOP_GO;
}

static int on_tick(void *arg)
{
	struct app *a = arg;
	struct prof_mark pm;
	char e[512];
	int rc;

	/* per-worker files only for the rows the last frame showed */
	rows_shown(a);
	for (int i = 0; i < a->sd.n; i++) {
		struct session *s = &a->sd.side[i]->s;

		if (a->sd.side[i]->dead)
			continue;
		prof_begin(&pm);
		rc = session_sample(s, e, sizeof(e));
		prof_end(PROF_MODEL, &pm);
		if (rc && (rc = failed(a, i, e)) != LOOP_GO)
			return rc;
		/* a place whose workers' ends come with its samples */
		if (!a->sd.side[i]->dead && session_ends_waiting(s) && (rc = reap(a, i)) != LOOP_GO)
			return rc;
	}
	/* Only the monitor and live views change with time; another view is
	 * drawn when a key, a resize or a new run changes it (a SIGWINCH
	 * that came outside the loop's wait is a key only once curses is
	 * asked). */
	if (a->nviews == 1 || (a->nviews > 1 && top(a)->ops->live))
		draw_top(a);
	else if (a->sd.tui)
		return on_input(a);
	return LOOP_GO;
}

static int on_work(void *arg, bool *more)
{
	struct app *a = arg;
	bool drawn = false;
	char e[512];
	int rc;

	for (int i = 0; a->live && i < a->sd.n; i++) {
		struct session *s = &a->sd.side[i]->s;
		bool forking = s->run.active && s->run.forking;

		if (a->sd.side[i]->dead)
			continue;
		rc = session_fork(s, now_monotonic() + FORK_SLICE_S, e, sizeof(e));
		if (rc < 0 && (rc = failed(a, i, e)) != LOOP_GO)
			return rc;
		if (rc < 0)
			continue;
		*more = *more || rc > 0;
		/* drawn once when the last worker is forked, not at every turn */
		drawn = drawn || (forking && !rc);
		/* the first frames are out: now the history */
		if (!rc)
			session_open_history(s);
	}
	if (drawn && a->nviews == 1)
		draw_top(a);
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

	return a->live ? sides_tick_fds(&a->sd, fds) : 0;
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

/* The one loop, over the sessions (if any) and the views. */
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

/* The screen over the places' sessions, and their first runs begun. */
static int start(struct app *a, const struct options *o)
{
	int rc;

	if (a->sd.tui) {
		if (tui_init(a->err, sizeof(a->err)))
			return LOOP_FAIL;
		if (o->cast && start_cast(a, o->cast))
			return LOOP_FAIL;
		if (monview_init(&a->mon, &a->sd, o->nplots ? o->plots : NULL, o->nplots)) {
			snprintf(a->err, sizeof(a->err), "out of memory");
			return LOOP_FAIL;
		}
		push(a, &a->mon.v);
		for (int i = 0; i < a->sd.n; i++)
			a->sd.side[i]->s.want_procs = true;
	}
	for (int i = 0; i < a->sd.n; i++)
		if (!a->sd.side[i]->dead && (rc = next_run(a, i)) != LOOP_GO)
			return rc;
	return LOOP_GO;
}

/* A session from its start to its end, at one place or several side by
 * side; a sweep over places hands its runs to runs (NULL: none kept). */
static int run_session(struct options *o, struct run_record **runs, size_t *nruns)
{
	struct app *a = &the_app;
	int rc = LOOP_FAIL, status;

	memset(a, 0, sizeof(*a));
	if (sides_open(&a->sd, o, a->err, sizeof(a->err)) == 0) {
		a->live = true;
		rc = start(a, o);
		if (rc == LOOP_GO)
			rc = run_loop(a);
	}
	for (int i = 0; i < a->sd.n; i++)
		session_abort_run(&a->sd.side[i]->s);
	close_views(a);
	cast_close(a->cast);
	a->cast = NULL;
	/* The alternate screen took the runs away: they are what goes into a
	 * reply, so they are printed as the batch mode prints them. */
	for (int i = 0; a->sd.tui && i < a->sd.n; i++)
		print_posted(&a->sd.side[i]->s);
	for (int i = 0; a->sd.tui && i < a->sd.n; i++)
		if (a->sd.side[i]->dead)
			fprintf(stderr, "thrashtop: %s\n", a->sd.side[i]->why);
	status = sides_status(&a->sd, a->quit_early);
	sides_close(&a->sd, runs, nruns);
	if (rc == LOOP_FAIL) {
		fprintf(stderr, "thrashtop: %s\n", a->err);
		return loop_signal() ? 128 + loop_signal() : 2;	/* a signal ended a --wait */
	}
	if (loop_signal())
		return 128 + loop_signal();
	return status;
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

/* Whether two boxes are one machine: the same name but for the user. */
static bool same_box(const char *a, const char *b)
{
	const char *x = strchr(a, '@'), *y = strchr(b, '@');

	return !strcasecmp(x ? x + 1 : a, y ? y + 1 : b);
}

/* The boxes of a sweep in waves run side by side: each box in the first
 * wave that has none of its machine, nor SIDES_MAX boxes already. How
 * many waves; wave[c] is box c's. */
static int host_waves(const struct sweep_axis *host, int *wave)
{
	int nw = 0;

	for (int c = 0; c < host->nvals; c++) {
		for (wave[c] = 0;; wave[c]++) {
			int n = 0;
			bool taken = false;

			for (int d = 0; d < c; d++)
				if (wave[d] == wave[c]) {
					n++;
					taken = taken || same_box(host->vals[d], host->vals[c]);
				}
			if (!taken && n < SIDES_MAX)
				break;
		}
		nw = wave[c] + 1 > nw ? wave[c] + 1 : nw;
	}
	return nw;
}

/* The session of one step of a sweep over places, its runs added to
 * all: a guest (cell c), or the boxes of a wave side by side. */
static int sweep_step(struct options *sub, const struct sweep_axis *kern,
		      const struct sweep_axis *mem, const struct sweep_axis *host, const int *wave,
		      int step, const int64_t *bytes, char *cell, struct run_record **all,
		      size_t *nall)
{
	struct run_record *runs = NULL, *v;
	int nk = kern ? kern->nvals : host ? host->nvals : 1, nm = mem ? mem->nvals : 1, rc;
	size_t n = 0;

	sub->nplaces = 0;
	for (int c = 0; c < nk * nm; c++) {
		if (host ? wave[c] != step : c != step)
			continue;
		sub->kernel = kern ? kern->vals[c / nm] : sub->kernel;
		sub->boot_mem = mem ? bytes[c % nm] : sub->boot_mem;
		sub->host = host ? host->vals[c] : sub->host;
		if (host)
			sub->places[sub->nplaces++] = (struct cli_place){ false, host->vals[c] };
		place_cell(cell, 512, kern, host, mem, c, nm);
		printf("place %d/%d: %s\n", c + 1, nk * nm, cell);
	}
	fflush(stdout);
	if (sub->nplaces > 1)
		sub->place_cell = NULL;
	rc = run_session(sub, &runs, &n);
	sub->place_cell = cell;
	if (n && (v = realloc(*all, sizeof(*v) * (*nall + n)))) {
		*all = v;
		memcpy(*all + *nall, runs, sizeof(*runs) * n);
		*nall += n;
		free(runs);
	} else {
		run_records_free(runs, n);
	}
	return rc;
}

/* --sweep kernel=A,B (and boot-mem=M,N), or host=A,B: a guest or a box a
 * place, each running the session's other cells and repeats, their runs
 * under one session id and in one table at the end; the guests one after
 * another (they would share this machine's cores), the boxes side by side
 * where they are different machines. A place that fails or drops costs
 * its own runs only. */
static int sweep_places(struct options *o, const struct sweep_axis *kern,
			const struct sweep_axis *mem, const struct sweep_axis *host)
{
	int64_t *bytes = calloc((size_t)(mem ? mem->nvals : 1), sizeof(*bytes));
	struct options sub = *o;
	struct run_record *all = NULL;
	size_t nall = 0;
	char id[64], cell[512], e[64];
	int nk = kern ? kern->nvals : host ? host->nvals : 1, nm = mem ? mem->nvals : 1, rc = 0;
	int *wave = calloc((size_t)nk, sizeof(*wave)), nsteps = host ? 0 : nk * nm;
	time_t now = time(NULL);
	struct tm tm;

	if (!bytes || !wave) {
		free(bytes);
		free(wave);
		return fprintf(stderr, "thrashtop: out of memory\n"), 2;
	}
	for (int m = 0; mem && m < nm; m++)
		if (fmt_parse_size(mem->vals[m], &bytes[m]) || bytes[m] < CLI_BOOT_MEM_MIN) {
			fprintf(stderr, "thrashtop: --sweep boot-mem=%s: want a size of at least "
				"32M, such as 512M\n", fmt_escape(e, sizeof(e), mem->vals[m]));
			free(bytes);
			free(wave);
			return 2;
		}
	for (int h = 0; host && h < nk; h++)
		if (cli_check_host(host->vals[h], cell, sizeof(cell))) {
			fprintf(stderr, "thrashtop: --sweep host=: %s\n", cell + strlen("--host "));
			free(bytes);
			free(wave);
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
	if (host)
		nsteps = host_waves(host, wave);
	for (int step = 0; step < nsteps && !loop_signal(); step++) {
		int r = sweep_step(&sub, kern, mem, host, wave, step, bytes, cell, &all, &nall);

		rc = r > rc ? r : rc;
	}
	sweep_print(all, nall, id, !o->no_history, o->history);
	run_records_free(all, nall);
	free(bytes);
	free(wave);
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
		fprintf(stderr, "thrashtop: --sweep host= runs in batch mode (-b); --host A --host B "
			"draws boxes side by side\n");
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
