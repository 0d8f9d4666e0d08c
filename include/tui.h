/* The terminal toolkit every view draws with. It owns the terminal: opens
 * and restores it, reads its keys, and picks its glyphs (braille or ASCII
 * plots, UTF-8 or not) and colours, the one table of colour pairs. It
 * places text in a width, cut with a number-safe ellipsis (fmt_field),
 * left/right pairs and centred notices, and looks keys up in a view's key
 * table. ncursesw only; it knows nothing of what a view shows.
 * setlocale(LC_ALL, "") must have been called before tui_init. */
#ifndef THRASHTOP_TUI_H
#define THRASHTOP_TUI_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "plot.h"

/* Opens the terminal (/dev/tty, else stdin/stdout if they are a terminal),
 * sets it up and picks braille (UTF-8 locale) or ASCII plots. Returns 0, or
 * -1 with a one-line message in err; nothing is left changed on failure. */
int tui_init(char *err, size_t errlen);

struct cast;

/* Records everything the terminal opened by tui_init is sent from now on
 * into c (cast.h). 0, or -1 with err. */
int tui_record(struct cast *c, char *err, size_t errlen);

/* Sets the screen up without a terminal, cols x rows of terminal type
 * term, its frames going into c only (an export). SIGWINCH is ignored
 * from then on. 0, or -1 with err. */
int tui_init_headless(struct cast *c, int cols, int rows, const char *term,
		      char *err, size_t errlen);

/* Restores the terminal. Safe to call more than once, and before tui_init. */
void tui_end(void);

/* Whether the terminal is open. */
bool tui_active(void);

/* The descriptor keys arrive on, for poll(); -1 before tui_init. */
int tui_fd(void);

/* The next pending key without waiting (a getch() value), ERR when none
 * is left or the terminal is not open. For whichever view is on top. */
int tui_next_key(void);

/* The plot glyphs every screen draws with: those tui_init picked, or
 * another (an ASCII copy of the screen). */
void tui_set_mode(enum plot_mode mode);
enum plot_mode tui_mode(void);

/* The smallest terminal a view is drawn on. */
#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 16

/* Whether the terminal is smaller than that. */
bool tui_too_small(void);
/* Says so, centred in win. */
void tui_draw_too_small(WINDOW *win);

/* A view's keys, a row for each line of its ? help: the line, and the
 * keys it tells of with what each does. The bindings and the help are one
 * table, so they cannot disagree. */
#define TUI_KEYS_PER_LINE 4
struct tui_key {
	const char *keys;	/* the help's key column, "s / S"; NULL: no line */
	const char *help;
	struct {
		int ch;		/* a getch() value; 0 ends the row's keys */
		int action;	/* the view's own number, never 0 */
	} k[TUI_KEYS_PER_LINE];
};

/* The action of key ch in the n rows of t, 0 when no row has it. */
int tui_key_action(const struct tui_key *t, int n, int ch);

/* Row k's help line, its keys in a column of their own, into buf; "" for
 * a row without one. Returns buf. */
char *tui_key_line(const struct tui_key *k, char *buf, size_t len);

/* Colour pairs; 0 is the terminal default. */
enum tui_pair {
	TP_MARK = 1,	/* sysctl change markers */
	TP_BAD,		/* errors, D state, failed workers */
	TP_GOOD,	/* workers that ended well */
	TP_DIM,		/* notes, hints, axis texts */
	TP_TITLE,	/* a view's title bar */
	TP_FAINT,	/* a stored run's trace behind a live plot */
	TP_PLOT,	/* TP_PLOT + k: the series colours (tui_series_pair) */
};

/* Whether the terminal takes UTF-8 (braille, blocks, "…"). */
bool tui_utf8(void);
/* Overrides it, e.g. to write a screen out in ASCII. */
void tui_set_utf8(bool on);
/* Whether colours are in use. */
bool tui_colour(void);

/* The attribute of pair p: COLOR_PAIR(p), or 0 without colours. */
int tui_attr(int p);

/* The colour pair of registry series id (metrics.h): a cgroup series has
 * the colour of its system counterpart. */
int tui_series_pair(int id);

/* The colour pair of place k of several side by side: a colour each. */
int tui_place_pair(int k);

/* The attribute a stored run's trace is drawn with. */
int tui_faint(void);

/* s at (y, x) of win in at most w columns, cut as fmt_field cuts it; tabs
 * expand to the next multiple of 8 as a terminal would, control bytes show
 * as blanks. */
void tui_put(WINDOW *win, int y, int x, int w, const char *s);

/* s, printable UTF-8, at (y, x) of win as mvwaddstr puts it (the window's
 * attributes), but a cell at a time when every character is ASCII or a
 * glyph of the plots, bars or ellipsis, without ncurses' conversions of
 * each byte; stops at the right edge instead of wrapping. */
void tui_add(WINDOW *win, int y, int x, const char *s);
/* The same with the first nbytes bytes of s (< 0: all). */
void tui_addn(WINDOW *win, int y, int x, const char *s, int nbytes);

/* n one-column code points as cells at (y, x) of win, with the window's
 * attributes; stops at the right edge. */
void tui_put_cells(WINDOW *win, int y, int x, const unsigned *cp, int n);

/* left at x, right flush with x + w; left gives way when both do not fit. */
void tui_put_lr(WINDOW *win, int y, int x, int w, const char *left, const char *right);

/* s centred in columns x .. x + w - 1 of row y, drawn with attr. */
void tui_centre(WINDOW *win, int y, int x, int w, const char *s, int attr);

#endif
