#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cast.h"
#include "fmt.h"
#include "metrics.h"
#include "tui.h"

static bool utf8, colour;

/* The terminal, once open. */
static struct {
	bool active;
	SCREEN *scr;
	FILE *tty;		/* /dev/tty when opened by us */
	FILE *out;		/* what ncurses writes to when we opened it */
	FILE *in;
	enum plot_mode mode;
} T = { .mode = PLOT_ASCII };

/* The cells of every glyph the screens draw, built once: ncurses' own
 * path for text (unctrl, wctob, mbrtowc and wcwidth for each character)
 * cost most of a frame. */
static cchar_t g_ascii[0x7f - 0x20], g_braille[256], g_block[16], g_vline, g_ellipsis;
static bool g_wide;	/* the non-ASCII ones are built */

static void glyph_build(cchar_t *c, unsigned cp)
{
	wchar_t w[2] = { (wchar_t)cp, 0 };

	setcchar(c, w, A_NORMAL, 0, NULL);
}

static void glyphs_start(void)
{
	for (unsigned c = 0x20; c < 0x7f; c++)
		glyph_build(&g_ascii[c - 0x20], c);
	g_wide = utf8;
	if (!g_wide)
		return;
	for (unsigned c = 0; c < 256; c++)
		glyph_build(&g_braille[c], 0x2800 + c);
	for (unsigned c = 0; c < 16; c++)
		glyph_build(&g_block[c], 0x2580 + c);
	glyph_build(&g_vline, 0x2502);
	glyph_build(&g_ellipsis, 0x2026);
}

/* The prebuilt cell of code point cp, NULL if there is none. */
static const cchar_t *glyph(unsigned cp)
{
	if (cp >= 0x20 && cp < 0x7f)
		return &g_ascii[cp - 0x20];
	if (!g_wide)
		return NULL;
	if (cp >= 0x2800 && cp <= 0x28ff)
		return &g_braille[cp - 0x2800];
	if (cp >= 0x2580 && cp <= 0x258f)
		return &g_block[cp - 0x2580];
	return cp == 0x2502 ? &g_vline : cp == 0x2026 ? &g_ellipsis : NULL;
}

#define CELLS_CHUNK 256

void tui_put_cells(WINDOW *win, int y, int x, const unsigned *cp, int n)
{
	cchar_t buf[CELLS_CHUNK];

	while (n > 0) {
		int k = n < CELLS_CHUNK ? n : CELLS_CHUNK;

		for (int i = 0; i < k; i++) {
			const cchar_t *g = glyph(cp[i]);

			if (g)
				buf[i] = *g;
			else
				glyph_build(&buf[i], cp[i]);
		}
		mvwadd_wchnstr(win, y, x, buf, k);
		cp += k;
		x += k;
		n -= k;
	}
}

void tui_addn(WINDOW *win, int y, int x, const char *s, int nbytes)
{
	cchar_t buf[CELLS_CHUNK];
	const char *end = nbytes < 0 ? s + strlen(s) : s + nbytes;
	int n = 0;

	for (const char *p = s; p < end && *p; n++) {
		unsigned cp;
		int len = fmt_utf8_len(p, &cp);
		const cchar_t *g = len ? glyph(cp) : NULL;

		if (!g || n == CELLS_CHUNK) {
			mvwaddnstr(win, y, x, s, (int)(end - s));
			return;
		}
		buf[n] = *g;
		p += len;
	}
	if (n)
		mvwadd_wchnstr(win, y, x, buf, n);
}

void tui_add(WINDOW *win, int y, int x, const char *s)
{
	tui_addn(win, y, x, s, -1);
}

/* The series colours, in the order TP_PLOT + k. */
static const short fg[] = {
	COLOR_MAGENTA, COLOR_GREEN, COLOR_CYAN, COLOR_RED, COLOR_YELLOW, COLOR_BLUE,
};
#define NFG ((int)(sizeof(fg) / sizeof(fg[0])))

/* The monitor's first six plots keep the colours users know; the rest
 * cycle. */
static const signed char series_fg[M_N] = {
	[M_SWAP_USED] = 0, [M_FREE] = 1, [M_AVAIL] = 2, [M_CACHED] = 4, [M_SWAP_CACHED] = 5,
	[M_MAJFLT] = 3, [M_MINFLT] = 4, [M_PSWPIN] = 2, [M_PSWPOUT] = 0,
	[M_SCAN_KSWAPD] = 5, [M_SCAN_DIRECT] = 3, [M_STEAL_KSWAPD] = 5,
	[M_STEAL_DIRECT] = 3, [M_ALLOCSTALL] = 3, [M_REFAULT_ANON] = 0,
	[M_REFAULT_FILE] = 1, [M_PSI_SOME] = 4, [M_PSI_FULL] = 3,
	[M_PSI_SOME_RATE] = 4, [M_PSI_FULL_RATE] = 3, [M_KSWAPD_CPU] = 5,
	[M_PROCS_RUNNING] = 1, [M_PROCS_BLOCKED] = 3,
	[M_CG_MEM] = 2, [M_CG_SWAP] = 0, [M_CG_MAJFLT] = 3, [M_CG_REFAULT] = 0,
	[M_CG_PSI_SOME] = 4, [M_CG_PSI_FULL] = 3,
};

/* Sets up colours (when the terminal has them) and the glyphs. */
static void start(void)
{
	short bg = COLOR_BLACK;

	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	glyphs_start();
	colour = has_colors() && start_color() == OK && COLOR_PAIRS > TP_PLOT + NFG;
	if (!colour)
		return;
	if (use_default_colors() == OK)
		bg = -1;
	init_pair(TP_MARK, COLOR_YELLOW, bg);
	init_pair(TP_BAD, COLOR_RED, bg);
	init_pair(TP_GOOD, COLOR_GREEN, bg);
	init_pair(TP_DIM, COLOR_CYAN, bg);
	init_pair(TP_TITLE, COLOR_CYAN, bg);
	/* grey where the terminal has 256 colours */
	init_pair(TP_FAINT, COLORS >= 256 ? 242 : COLOR_WHITE, bg);
	for (int k = 0; k < NFG; k++)
		init_pair((short)(TP_PLOT + k), fg[k], bg);
}

bool tui_utf8(void)
{
	return utf8;
}

void tui_set_utf8(bool on)
{
	utf8 = on;
}

bool tui_colour(void)
{
	return colour;
}

int tui_attr(int p)
{
	return colour ? (int)COLOR_PAIR(p) : 0;
}

int tui_series_pair(int id)
{
	return TP_PLOT + (id >= 0 && id < M_N ? series_fg[id] : id % NFG);
}

int tui_place_pair(int k)
{
	/* cyan, magenta, yellow, green, blue; red last, the colour of errors */
	static const signed char order[] = { 2, 0, 4, 1, 5, 3 };

	return TP_PLOT + order[(k < 0 ? 0 : k) % NFG];
}

int tui_faint(void)
{
	return colour ? (int)COLOR_PAIR(TP_FAINT) | A_DIM : A_DIM;
}

void tui_put(WINDOW *win, int y, int x, int w, const char *s)
{
	char exp[2048], out[4096];
	size_t o = 0, counted = 0;	/* col: the columns of exp's first counted bytes */
	int col = 0;

	if (w <= 0)
		return;
	for (; *s && o + 9 < sizeof(exp); s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\t') {	/* to the next multiple of 8 columns */
			exp[o] = '\0';
			col += fmt_text_cols(exp + counted);
			do
				exp[o++] = ' ';
			while (++col % 8);
			counted = o;
			continue;
		}
		exp[o++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	exp[o] = '\0';
	if (fmt_text_cols(exp) <= w) {
		tui_add(win, y, x, exp);
		return;
	}
	fmt_field(out, sizeof(out), 0, exp, w, false, utf8);
	tui_add(win, y, x, out);
}

void tui_put_lr(WINDOW *win, int y, int x, int w, const char *left, const char *right)
{
	int rn = fmt_text_cols(right);

	if (rn > w)
		rn = w;
	tui_put(win, y, x, w - rn - (rn ? 1 : 0), left);
	tui_put(win, y, x + w - rn, rn, right);
}

void tui_centre(WINDOW *win, int y, int x, int w, const char *s, int attr)
{
	int n = fmt_text_cols(s);

	if (n > w)
		n = w;
	wattron(win, attr);
	tui_put(win, y, x + (w - n) / 2, w, s);
	wattroff(win, attr);
}

bool tui_too_small(void)
{
	return COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS;
}

void tui_draw_too_small(WINDOW *win)
{
	char msg[96];

	/* the size it needs is the part that must show */
	snprintf(msg, sizeof(msg), "terminal too small: %dx%d, need at least %dx%d",
		 COLS, LINES, TUI_MIN_COLS, TUI_MIN_ROWS);
	if ((int)strlen(msg) > COLS)
		snprintf(msg, sizeof(msg), "too small: %dx%d, need %dx%d", COLS, LINES,
			 TUI_MIN_COLS, TUI_MIN_ROWS);
	if ((int)strlen(msg) > COLS)
		snprintf(msg, sizeof(msg), "need %dx%d", TUI_MIN_COLS, TUI_MIN_ROWS);
	tui_centre(win, LINES / 2, 0, COLS, msg, A_BOLD);
}

static void setup(FILE *in);

static void close_files(void)
{
	if (T.out)
		fclose(T.out);
	if (T.tty)
		fclose(T.tty);
	T.out = T.tty = NULL;
}

int tui_init(char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	FILE *in, *out;

	if (T.active)
		return 0;
	if (!term || !*term) {
		snprintf(err, errlen, "cannot start the monitor: TERM is not set");
		return -1;
	}
	T.tty = fopen("/dev/tty", "re");
	/* output on a descriptor of its own, which a recording swaps */
	T.out = T.tty ? fopen("/dev/tty", "we") : NULL;
	if (T.tty && T.out) {
		in = T.tty;
		out = T.out;
	} else if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		close_files();
		in = stdin;
		out = stdout;
	} else {
		snprintf(err, errlen,
			 "cannot start the monitor: no terminal (/dev/tty: %s)",
			 strerror(errno));
		close_files();
		return -1;
	}
	T.scr = newterm(NULL, out, in);
	if (!T.scr) {
		snprintf(err, errlen,
			 "cannot start the monitor: terminal type \"%s\" unknown",
			 term);
		close_files();
		return -1;
	}
	setup(in);
	return 0;
}

int tui_record(struct cast *c, char *err, size_t errlen)
{
	if (!T.active) {
		snprintf(err, errlen, "--cast: the terminal is not set up");
		return -1;
	}
	return cast_tee(c, fileno(T.out ? T.out : stdout), err, errlen);
}

int tui_init_headless(struct cast *c, int cols, int rows, const char *term,
		      char *err, size_t errlen)
{
	if (T.active)
		return 0;
	/* a resize of whatever terminal we run in is not this screen's */
	signal(SIGWINCH, SIG_IGN);
	T.tty = fopen("/dev/null", "re");
	T.out = T.tty ? cast_headless(c, cols, rows, err, errlen) : NULL;
	if (!T.out) {
		if (!T.tty)
			snprintf(err, errlen, "/dev/null: %s", strerror(errno));
		close_files();
		return -1;
	}
	/* The size from the start, as ncurses reads it where no terminal
	 * gives one: a screen set up at terminfo's 24 lines and resized
	 * after keeps the 24-line scroll region it sent first, and a player
	 * of another size then scrolls only those lines. */
	static const char *const var[2] = { "LINES", "COLUMNS" };
	char *was[2], num[2][16];

	snprintf(num[0], sizeof(num[0]), "%d", rows);
	snprintf(num[1], sizeof(num[1]), "%d", cols);
	for (int i = 0; i < 2; i++) {
		was[i] = getenv(var[i]) ? strdup(getenv(var[i])) : NULL;
		setenv(var[i], num[i], 1);
	}
	T.scr = newterm(term, T.out, T.tty);
	for (int i = 0; i < 2; i++) {
		if (was[i])
			setenv(var[i], was[i], 1);
		else
			unsetenv(var[i]);
		free(was[i]);
	}
	if (!T.scr) {
		snprintf(err, errlen, "terminal type \"%s\" unknown", term);
		cast_detach();
		close_files();
		return -1;
	}
	setup(T.tty);
	resizeterm(rows, cols);
	return 0;
}

/* The screen set up on a terminal newterm has opened. */
static void setup(FILE *in)
{
	set_term(T.scr);
	T.in = in;
	T.active = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* No look for typed keys while a frame goes out: ncurses polled the
	 * terminal ten times a frame to cut a frame short, and the loop reads
	 * keys between frames anyway. */
	typeahead(-1);
	set_escdelay(25);
	curs_set(0);
	start();
	/* Until the screen has been suspended and resumed once, ncurses
	 * flushes its output at every cursor jump: some sixty writes a frame.
	 * Once resumed, a frame goes out in one write, or a few. */
	endwin();
	doupdate();
	/* ncurses puts the terminal in keypad mode at the first getch: keys
	 * typed before it (a burst of "c" and Down) come in cursor mode,
	 * ESC [ B, which it does not know, and read as Esc. One read now. */
	getch();
	T.mode = utf8 ? PLOT_BRAILLE : PLOT_ASCII;
}

bool tui_active(void)
{
	return T.active;
}

int tui_fd(void)
{
	return T.active ? fileno(T.in) : -1;
}

int tui_next_key(void)
{
	return T.active ? getch() : ERR;
}

void tui_set_mode(enum plot_mode mode)
{
	T.mode = mode;
}

enum plot_mode tui_mode(void)
{
	return T.mode;
}

void tui_end(void)
{
	if (!T.active)
		return;
	T.active = false;
	cast_detach();
	endwin();
	delscreen(T.scr);
	T.scr = NULL;
	close_files();
}

int tui_key_action(const struct tui_key *t, int n, int ch)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < TUI_KEYS_PER_LINE && t[i].k[j].ch; j++)
			if (t[i].k[j].ch == ch)
				return t[i].k[j].action;
	return 0;
}

char *tui_key_line(const struct tui_key *k, char *buf, size_t len)
{
	if (len && k->keys)
		snprintf(buf, len, "%-9s %s", k->keys, k->help);
	else if (len)
		buf[0] = '\0';
	return buf;
}
