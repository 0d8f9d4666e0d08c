/* The terminal toolkit every view draws with: text placed in a width and
 * cut with a number-safe ellipsis (fmt_field), left/right pairs, centred
 * notices, and the one table of colour pairs. ncursesw only; it knows
 * nothing of what a view shows. ui_init calls tui_start once the screen is
 * up. */
#ifndef THRASHTOP_TUI_H
#define THRASHTOP_TUI_H

#include <curses.h>
#include <stdbool.h>

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

/* Sets up colours (when the terminal has them) and the ellipsis glyph. */
void tui_start(void);

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
