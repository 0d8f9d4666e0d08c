#include "sides.h"

#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "guest.h"
#include "loop.h"
#include "sshhost.h"
#include "sweep.h"
#include "sysstate.h"

#define NOTE_S 10.0	/* how long a note holds the status line */

/* A place being started: its guest booting or its ssh connecting. */
struct pending {
	struct guest *g;
	struct ssh *h;
};

/* The name side d goes by at level 0 (shortest) to 2: a box without its
 * user and domain, whole, then as given; a kernel's major.minor, its
 * release, then as given. */
static void name_at(const struct cli_place *pl, const char *release, int level, char *buf,
		    size_t len)
{
	const char *box = strchr(pl->what, '@') ? strchr(pl->what, '@') + 1 : pl->what;
	size_t n;

	if (level >= 2 || (pl->kernel && !release[0])) {
		snprintf(buf, len, "%s", pl->what);
	} else if (!pl->kernel) {
		n = level == 0 && !isdigit((unsigned char)box[0]) ? strcspn(box, ".") : strlen(box);
		snprintf(buf, len, "%.*s", (int)n, box);
	} else {
		/* "6.12.118+deb12-amd64": "6.12" */
		n = strspn(release, "0123456789");
		if (release[n] == '.')
			n += 1 + strspn(release + n + 1, "0123456789");
		snprintf(buf, len, "%.*s", level == 0 ? (int)n : (int)strlen(release), release);
	}
}

/* The shortest names that tell the places apart, else numbered. */
static void name_sides(struct side **d, const struct sysstate *st, int n)
{
	for (int level = 0; level <= 3; level++) {
		bool same = false;

		for (int i = 0; i < n; i++) {
			char name[sizeof(d[i]->name)];

			name_at(&d[i]->o.places[0], st[i].release, level < 3 ? level : 2, name,
				sizeof(name));
			if (level < 3)
				snprintf(d[i]->name, sizeof(d[i]->name), "%s", name);
			else
				snprintf(d[i]->name, sizeof(d[i]->name), "%.18s#%d", name, (i + 1) % 10);
		}
		for (int i = 0; i < n; i++)
			for (int j = 0; j < i; j++)
				same = same || !strcmp(d[i]->name, d[j]->name);
		if (!same)
			return;
	}
}

/* The places on this machine's cores: its guests, and places whose kernel
 * has this one's boot id (an agent here, an ssh host that is this box). */
static void find_shared(struct sides *sd, struct place **p, const struct sysstate *st)
{
	struct sysstate here;
	char e[256];
	bool on[SIDES_MAX] = { false };
	size_t off = 0;
	int k = 0;

	if (sysstate_read(&here, e, sizeof(e)))
		return;
	for (int i = 0; i < sd->n; i++) {
		on[i] = !strcmp(p[i]->kind, "vm") ||
			(strcmp(here.boot_id, "n/a") && !strcmp(st[i].boot_id, here.boot_id));
		sd->shared += on[i];
	}
	if (sd->shared < 2) {
		sd->shared = 0;
		return;
	}
	for (int i = 0; i < sd->n && off < sizeof(sd->shared_text); i++) {
		if (!on[i])
			continue;
		sd->side[i]->s.shared_cores = sd->shared;
		k++;
		off += (size_t)snprintf(sd->shared_text + off, sizeof(sd->shared_text) - off, "%s%s",
					k == 1 ? "" : k == sd->shared ? " and " : ", ", sd->side[i]->name);
	}
	if (off < sizeof(sd->shared_text))
		snprintf(sd->shared_text + off, sizeof(sd->shared_text) - off,
			 " share this machine's %d CPU%s", here.cpus_online,
			 here.cpus_online > 1 ? "s" : "");
}

/* Side i's options: o with its place alone, as a sweep's place is. */
static struct side *new_side(struct sides *sd, const struct options *o, int i)
{
	struct side *d = calloc(1, sizeof(*d));
	const struct cli_place *pl = &o->places[i];

	if (!d)
		return NULL;
	d->o = *o;
	d->o.places[0] = *pl;
	d->o.nplaces = 1;
	d->o.kernel = pl->kernel ? pl->what : NULL;
	d->o.host = pl->kernel ? NULL : pl->what;
	d->o.session_id = sd->id;
	snprintf(d->cell, sizeof(d->cell), "%s=%.200s", pl->kernel ? "kernel" : "host", pl->what);
	d->o.place_cell = d->cell;
	d->o.place_name = d->name;
	return d;
}

/* A place that did not start, said unless the one before said the same
 * (a signal stops every boot alike); kept in last. */
static void failed(struct sides *sd, struct side *d, const char *why, char *last, size_t len)
{
	if (last[0] && strcmp(last, why))
		fprintf(stderr, "thrashtop: %s\n", last);
	snprintf(last, len, "%s", why);
	sd->nfailed++;
	free(d);
}

/* Until no guest boots any more, or an ending signal comes: each one's
 * qemu watched all along. */
static void boot_all(const struct pending *pend, int n)
{
	const volatile sig_atomic_t *stop = loop_stop_flag();
	const struct timespec beat = { 0, 50000000 };
	bool booting = true;

	loop_let_end(true);
	while (booting && !*stop) {
		booting = false;
		for (int i = 0; i < n; i++)
			booting = (pend[i].g && guest_booting(pend[i].g)) || booting;
		if (booting)
			nanosleep(&beat, NULL);
	}
	loop_let_end(false);
}

/* Every place started at once, then readied in turn: a guest boots while
 * the one before it does, an ssh connects while another's agent sets up. */
static void ready_all(const struct options *o, struct side **d, struct place **p, char *last,
		      size_t len, struct sides *sd)
{
	struct pending pend[SIDES_MAX] = { { 0 } };
	char why[512];

	for (int i = 0; i < o->nplaces; i++) {
		p[i] = NULL;
		if (!d[i])
			continue;
		if (d[i]->o.kernel)
			pend[i].g = guest_start(&d[i]->o, d[i]->why, sizeof(d[i]->why));
		else
			pend[i].h = sshhost_start(&d[i]->o, d[i]->why, sizeof(d[i]->why));
	}
	boot_all(pend, o->nplaces);
	for (int i = 0; i < o->nplaces; i++) {
		if (pend[i].g)
			p[i] = guest_ready(pend[i].g, &d[i]->o, d[i]->why, sizeof(d[i]->why));
		else if (pend[i].h)
			p[i] = sshhost_ready(pend[i].h, &d[i]->o, d[i]->why, sizeof(d[i]->why));
		if (d[i] && !p[i]) {
			snprintf(why, sizeof(why), "%s", d[i]->why[0] ? d[i]->why : "out of memory");
			failed(sd, d[i], why, last, len);
			d[i] = NULL;
		}
	}
}

static int open_several(struct sides *sd, const struct options *o, char *err, size_t errlen)
{
	struct side *d[SIDES_MAX];
	struct place *p[SIDES_MAX], *kept[SIDES_MAX];
	struct sysstate *st = calloc(SIDES_MAX, sizeof(*st));
	char last[512] = "", e[64];
	int n = 0;

	if (o->session_id) {
		snprintf(sd->id, sizeof(sd->id), "%s", o->session_id);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		snprintf(sd->id, sizeof(sd->id), "%04d%02d%02dT%02d%02d%02dZ-%d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
	}
	for (int i = 0; i < o->nplaces; i++)
		d[i] = st ? new_side(sd, o, i) : NULL;
	if (!st)
		return snprintf(err, errlen, "out of memory"), -1;
	ready_all(o, d, p, last, sizeof(last), sd);
	for (int i = 0; i < o->nplaces; i++)
		if (d[i]) {
			p[i]->ops->state(p[i], &st[n], e, sizeof(e));
			kept[n] = p[i];
			d[n++] = d[i];
		}
	name_sides(d, st, n);
	for (int i = 0; i < n; i++) {
		if (session_open_place(&d[i]->s, &d[i]->o, kept[i], d[i]->why, sizeof(d[i]->why))) {
			session_close(&d[i]->s);
			failed(sd, d[i], d[i]->why, last, sizeof(last));
			continue;
		}
		d[i]->s.side_printed = &sd->printed;
		kept[sd->n] = kept[i];
		st[sd->n] = st[i];
		sd->side[sd->n++] = d[i];
	}
	find_shared(sd, kept, st);
	free(st);
	if (!sd->n)
		return snprintf(err, errlen, "%s", last), -1;
	if (last[0])
		fprintf(stderr, "thrashtop: %s\n", last);
	if (sd->shared && !sd->tui)
		fprintf(stderr, "thrashtop: %s: each one's runs compete with the other%s\n",
			sd->shared_text, sd->shared > 2 ? "s'" : "'s");
	return 0;
}

int sides_open(struct sides *sd, const struct options *o, char *err, size_t errlen)
{
	memset(sd, 0, sizeof(*sd));
	sd->tui = !o->batch;
	sd->several = o->nplaces > 1;
	if (sd->several)
		return open_several(sd, o, err, errlen);
	if (!(sd->side[0] = calloc(1, sizeof(*sd->side[0]))))
		return snprintf(err, errlen, "out of memory"), -1;
	sd->n = 1;
	sd->side[0]->o = *o;
	return session_open(&sd->side[0]->s, &sd->side[0]->o, err, errlen);
}

int sides_tick_fds(const struct sides *sd, int *fds)
{
	int k = 0;

	for (int i = 0; i < sd->n; i++)
		if (!sd->side[i]->dead)
			fds[k++] = session_tick_fd(&sd->side[i]->s);
	return k;
}

void sides_lose(struct sides *sd, int i, const char *why)
{
	struct side *d = sd->side[i];

	d->dead = true;
	snprintf(d->why, sizeof(d->why), "%s", why);
	session_abort_run(&d->s);
	if (!sd->tui)
		fprintf(stderr, "thrashtop: %s\n", why);
	else
		session_note(&d->s, true, "%s", why);
}

bool sides_over(const struct sides *sd)
{
	for (int i = 0; i < sd->n; i++)
		if (!sd->side[i]->dead && (!sd->side[i]->all_started || sd->side[i]->s.run.active))
			return false;
	return true;
}

bool sides_dead(const struct sides *sd)
{
	for (int i = 0; i < sd->n; i++)
		if (!sd->side[i]->dead)
			return false;
	return true;
}

void sides_note(struct sides *sd, bool error, const char *fmt, ...)
{
	va_list ap;

	if (sd->n == 1) {
		char text[sizeof(sd->note)];

		va_start(ap, fmt);
		vsnprintf(text, sizeof(text), fmt, ap);
		va_end(ap);
		session_note(&sd->side[0]->s, error, "%s", text);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(sd->note, sizeof(sd->note), fmt, ap);
	va_end(ap);
	if (!sd->tui) {
		fprintf(stderr, "thrashtop: %s\n", sd->note);
		sd->note[0] = '\0';
		return;
	}
	sd->note_error = error;
	sd->note_until = now_monotonic() + (error ? 2 * NOTE_S : NOTE_S);
}

int sides_status(const struct sides *sd, bool quit_early)
{
	int worst = quit_early ? 1 : 0;

	if (sd->nfailed)
		return 2;
	for (int i = 0; i < sd->n; i++) {
		if (sd->side[i]->dead)
			return 2;
		if (sd->side[i]->s.nfailed_runs)
			worst = 1;
	}
	return worst;
}

/* Several places' runs in one table, and the commands that show it again
 * and compare the places. */
static void print_table(const struct sides *sd, const struct run_record *runs, size_t n,
			bool kept, const char *history)
{
	char db[8192] = "";
	size_t off = 0;

	sweep_print(runs, n, sd->id, kept, history);
	if (history)
		fmt_shell_word(db, sizeof(db), &off, history);
	if (kept && n)
		printf("the places compared: thrashtop history compare %s%s%ssession:%s\n",
		       *db ? "--history " : "", db, *db ? " " : "", sd->id);
	fflush(stdout);
}

void sides_close(struct sides *sd, struct run_record **runs, size_t *nruns)
{
	struct run_record *all = NULL, *one, *v;
	size_t nall = 0, n;
	const char *history = sd->n ? sd->side[0]->o.history : NULL;
	bool kept = sd->n && !sd->side[0]->o.no_history;

	for (int i = 0; i < sd->n; i++) {
		/* a plain session prints its sweep's table itself */
		n = 0;
		if (runs || sd->several)
			session_take_runs(&sd->side[i]->s, &one, &n);
		if (n && (v = realloc(all, sizeof(*v) * (nall + n)))) {
			all = v;
			memcpy(all + nall, one, sizeof(*one) * n);
			nall += n;
			free(one);
		} else if (n) {
			run_records_free(one, n);
		}
		session_close(&sd->side[i]->s);
		free(sd->side[i]);
		sd->side[i] = NULL;
	}
	if (runs) {
		*runs = all;
		*nruns = nall;
		return;
	}
	if (sd->several)
		print_table(sd, all, nall, kept, history);
	run_records_free(all, nall);
}
