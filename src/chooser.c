#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chooser.h"
#include "conf.h"
#include "fmt.h"
#include "monscreen.h"
#include "tui.h"

#define WIN_W 50

struct chooser {
	struct view v;			/* first: the loop's handle */
	struct monview *mv;
	struct metric_avail av;
	char conf_path[4096];		/* "" none */
	char why_no_conf[256];
	chooser_note_fn note;
	void *note_arg;
	int ids[M_N], n;		/* the plots, in screen order */
	bool is_default;		/* no choice made: the default layout */
	int was_ids[M_N], was_n;	/* as at the opening: Esc goes back to it */
	bool was_default;
	int cur, top;			/* cursor and first row, in the list */
	WINDOW *w;
};

int chooser_order(const int *plotted, int n, int out[M_N])
{
	bool in[M_N] = { false };
	int k = 0;

	for (int i = 0; i < n; i++) {
		out[k++] = plotted[i];
		in[plotted[i]] = true;
	}
	for (int id = 0; id < M_N; id++)
		if (!in[id])
			out[k++] = id;
	return k;
}

char *chooser_row(int id, int place, const struct metric_avail *av, int width,
		  char *buf, size_t len)
{
	const struct metric_def *d = metric_def(id);
	char head[48], tail[160];
	size_t o;

	if (!d || !len)
		return len ? (buf[0] = '\0', buf) : buf;
	if (place > 0)
		snprintf(head, sizeof(head), "%2d [x] %-14s ", place, d->name);
	else
		snprintf(head, sizeof(head), "   [ ] %-14s ", d->name);
	if (av->ok[id])
		snprintf(tail, sizeof(tail), "%s, %s", d->title, d->unit);
	else
		snprintf(tail, sizeof(tail), "n/a: %s", av->why[id]);
	o = fmt_field(buf, len, 0, head, (int)strlen(head) < width ? (int)strlen(head) : width,
		      false, tui_utf8());
	if ((int)strlen(head) < width)
		fmt_field(buf, len, o, tail, width - (int)strlen(head), false, tui_utf8());
	return buf;
}

/* The plotted place of id (1-based), 0 when it is not plotted. */
static int place_of(const struct chooser *c, int id)
{
	for (int i = 0; i < c->n; i++)
		if (c->ids[i] == id)
			return i + 1;
	return 0;
}

static void apply(struct chooser *c)
{
	monview_set_plots(c->mv, c->is_default ? NULL : c->ids, c->n);
}

/* Shows or hides id; the cursor stays on it, wherever it goes. */
static void toggle(struct chooser *c, int id)
{
	int p = place_of(c, id), order[M_N];

	if (p && c->n == 1)
		return;		/* the last plot stays: the screen needs one */
	if (p) {
		memmove(c->ids + p - 1, c->ids + p, sizeof(c->ids[0]) * (size_t)(c->n - p));
		c->n--;
	} else {
		c->ids[c->n++] = id;
	}
	c->is_default = false;
	apply(c);
	chooser_order(c->ids, c->n, order);
	for (int k = 0; k < M_N; k++)
		if (order[k] == id)
			c->cur = k;
}

/* Moves the plotted id one place up (dir -1) or down; the cursor follows. */
static void shift(struct chooser *c, int id, int dir)
{
	int p = place_of(c, id) - 1, q = p + dir, t;

	if (p < 0 || q < 0 || q >= c->n)
		return;
	t = c->ids[p];
	c->ids[p] = c->ids[q];
	c->ids[q] = t;
	c->cur = q;
	c->is_default = false;
	apply(c);
}

static int list_rows(void)
{
	return (LINES < M_N + 6 ? LINES : M_N + 6) - 6;
}

static void draw(void *arg)
{
	struct chooser *c = arg;
	int order[M_N], rows = list_rows(), h = rows + 6, w = COLS < WIN_W ? COLS : WIN_W;
	char line[512];

	if (c->w)
		delwin(c->w);
	c->w = newwin(h, w, LINES - h, COLS - w);
	if (!c->w || rows < 1)
		return;
	chooser_order(c->ids, c->n, order);
	if (c->cur < c->top)
		c->top = c->cur;
	if (c->cur >= c->top + rows)
		c->top = c->cur - rows + 1;
	werase(c->w);
	box(c->w, 0, 0);
	wattron(c->w, A_BOLD);
	snprintf(line, sizeof(line), "plots: %d shown%s", c->n,
		 c->is_default ? " (the default layout)" : "");
	tui_put(c->w, 1, 2, w - 4, line);
	wattroff(c->w, A_BOLD);
	for (int r = 0; r < rows && c->top + r < M_N; r++) {
		int id = order[c->top + r], attr = 0;

		chooser_row(id, place_of(c, id), &c->av, w - 4, line, sizeof(line));
		if (c->top + r == c->cur)
			attr = A_REVERSE;
		else if (!c->av.ok[id])
			attr = tui_attr(TP_DIM);
		else if (place_of(c, id))
			attr = A_BOLD;
		wattron(c->w, attr);
		tui_put(c->w, 3 + r, 2, w - 4, line);
		wattroff(c->w, attr);
	}
	/* where the cursor's series is read */
	snprintf(line, sizeof(line), "from %s", metric_def(order[c->cur])->source);
	tui_put(c->w, h - 3, 2, w - 4, line);
	wattron(c->w, tui_attr(TP_DIM));
	tui_put(c->w, h - 2, 2, w - 4,
		"space show/hide  [ ] move  d default  q save  Esc cancel");
	wattroff(c->w, tui_attr(TP_DIM));
	wnoutrefresh(c->w);
}

static bool changed(const struct chooser *c)
{
	return c->is_default != c->was_default || c->n != c->was_n ||
	       memcmp(c->ids, c->was_ids, sizeof(c->ids[0]) * (size_t)c->n);
}

/* The plots chosen into the config file, when they changed. */
static void save(struct chooser *c)
{
	char text[1024], err[512], msg[4200];

	if (!changed(c)) {
		c->note(c->note_arg, false, "plots unchanged: nothing saved");
		return;
	}
	if (!c->conf_path[0]) {
		snprintf(msg, sizeof(msg), "plots not saved: %s", c->why_no_conf);
		c->note(c->note_arg, true, msg);
		return;
	}
	if (c->is_default)
		snprintf(text, sizeof(text), "default");
	else
		metrics_list_text(c->ids, c->n, text, sizeof(text));
	if (conf_set(c->conf_path, "plots", text, err, sizeof(err))) {
		c->note(c->note_arg, true, err);
		return;
	}
	snprintf(msg, sizeof(msg), "plots saved to %s", c->conf_path);
	c->note(c->note_arg, false, msg);
}

static int ch_key(struct view *v, int ch)
{
	struct chooser *c = (struct chooser *)v;
	int order[M_N];

	chooser_order(c->ids, c->n, order);
	switch (ch) {
	case 'q':
	case 'Q':
	case 'c':
		save(c);
		return VIEW_CLOSE;
	case 27:	/* Esc: the plots as they were, nothing saved */
		if (changed(c)) {
			c->n = c->was_n;
			memcpy(c->ids, c->was_ids, sizeof(c->ids[0]) * (size_t)c->n);
			c->is_default = c->was_default;
			apply(c);
		}
		c->note(c->note_arg, false, "plots as they were: nothing saved");
		return VIEW_CLOSE;
	case KEY_UP:
	case 'k':
		if (c->cur > 0)
			c->cur--;
		break;
	case KEY_DOWN:
	case 'j':
		if (c->cur < M_N - 1)
			c->cur++;
		break;
	case KEY_PPAGE:
		c->cur = c->cur > list_rows() ? c->cur - list_rows() : 0;
		break;
	case KEY_NPAGE:
		c->cur = c->cur + list_rows() < M_N ? c->cur + list_rows() : M_N - 1;
		break;
	case KEY_HOME:
		c->cur = 0;
		break;
	case KEY_END:
		c->cur = M_N - 1;
		break;
	case ' ':
	case '\n':
	case '\r':
	case KEY_ENTER:
		toggle(c, order[c->cur]);
		break;
	case '[':
	case '-':
	case KEY_F(7):
		shift(c, order[c->cur], -1);
		break;
	case ']':
	case '+':
	case KEY_F(8):
		shift(c, order[c->cur], 1);
		break;
	case 'd':
		c->n = metrics_default_plots(c->mv->s->tun.have_cg, c->mv->s->comp, c->ids);
		c->is_default = true;
		apply(c);
		break;
	default:
		break;
	}
	return VIEW_STAY;
}

/* The monitor beneath, then the chooser over it (the monitor screen's overlay). */
static void ch_draw(struct view *v)
{
	struct chooser *c = (struct chooser *)v;

	c->mv->v.ops->draw(&c->mv->v);
}

static void ch_close(struct view *v)
{
	struct chooser *c = (struct chooser *)v;

	ms_set_overlay(NULL, NULL);
	if (c->w)
		delwin(c->w);
	free(c);
}

static const struct view_ops chooser_ops = {
	.name = "plots", .key = ch_key, .draw = ch_draw, .close = ch_close, .live = true,
};

struct view *chooser_open(struct monview *mv, const struct metric_avail *av,
			  const char *conf_path, const char *why_no_conf, chooser_note_fn note,
			  void *note_arg, char *err, size_t errlen)
{
	struct chooser *c = calloc(1, sizeof(*c));

	if (!c) {
		fmt_err(err, errlen, "plot chooser: out of memory");
		return NULL;
	}
	c->v.ops = &chooser_ops;
	c->mv = mv;
	c->av = *av;
	c->note = note;
	c->note_arg = note_arg;
	snprintf(c->conf_path, sizeof(c->conf_path), "%s", conf_path ? conf_path : "");
	snprintf(c->why_no_conf, sizeof(c->why_no_conf), "%s", why_no_conf ? why_no_conf : "");
	c->is_default = mv->nchosen < 0;
	if (c->is_default) {
		c->n = metrics_default_plots(mv->s->tun.have_cg, mv->s->comp, c->ids);
	} else {
		c->n = mv->nchosen;
		memcpy(c->ids, mv->chosen, sizeof(c->ids[0]) * (size_t)c->n);
	}
	c->was_n = c->n;
	c->was_default = c->is_default;
	memcpy(c->was_ids, c->ids, sizeof(c->ids));
	ms_set_overlay(draw, c);
	return &c->v;
}
