/* Numbers as the monitor and reports show them, and user input back to
 * numbers. Formatters write like snprintf (at most len bytes with the NUL,
 * return the length the full text needs) and print "n/a" for NA or NAN:
 * never a made-up 0. */
#ifndef THRASHTOP_FMT_H
#define THRASHTOP_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The one "unknown" integer figure, everywhere: a count, size or code that
 * could not be read or was not recorded. Unknown doubles are NAN. */
#define NA (-1)

/* KiB as "980K", "512M", "1.5G", "2.0T": binary units, one decimal below 10
 * of a unit, rounded to nearest (1023.6M is "1.0G", never "1024M"). Any
 * negative kib is n/a. */
size_t fmt_kib(char *buf, size_t len, int64_t kib);

/* The same, right-aligned in width columns (wider if it does not fit). */
size_t fmt_kib_w(char *buf, size_t len, int64_t kib, int width);

/* Elapsed time as GNU time's %E: "2:33.29" (m:ss.cc) under an hour,
 * "1:05:45" (h:mm:ss) from an hour. Seconds are taken to the nearest
 * microsecond, then truncated as GNU time does. */
size_t fmt_duration(char *buf, size_t len, double seconds);

/* "0:56:11.98": h:mm:ss.cc always with hours, truncated to hundredths. */
size_t fmt_hms(char *buf, size_t len, double seconds);

/* "3371.98 seconds (0:56:11.98)", both parts from the same truncated
 * hundredths. */
size_t fmt_seconds_long(char *buf, size_t len, double seconds);

/* Events per second as "0.5/s", "950/s", "12.3k/s", "1.2M/s": decimal
 * units, one decimal below 100 of a unit, rounded to nearest. */
size_t fmt_rate(char *buf, size_t len, double per_s);

/* A float exactly as printf's "%.9g" prints it (which reads back to the
 * same float), several times faster: the exports print millions. buf
 * must hold FMT_G9_LEN bytes; returns the length. */
#define FMT_G9_LEN 24
size_t fmt_g9(char *buf, float v);

/* v exactly as printf's "%.*f" prints it with dec (0..3) decimals, several
 * times faster for the values a history keeps (multiples of its quanta).
 * buf must hold FMT_FIXED_LEN bytes; returns the length. */
#define FMT_FIXED_LEN 352
size_t fmt_fixed(char *buf, double v, int dec);

/* s as a JSON string, valid UTF-8: a byte that begins no UTF-8 sequence
 * becomes U+FFFD; controls, DEL and C1 are escaped. */
void fmt_json_str(FILE *f, const char *s);
/* s (len bytes) as a CSV field, quoted where it holds a comma, quote or
 * line break. */
void fmt_csv_cell_n(FILE *f, const char *s, size_t len);
void fmt_csv_cell(FILE *f, const char *s);

/* v in the fewest decimals that read back to the same double, without an
 * exponent where that takes at most 24 characters ("0.000057334", not
 * "5.7334e-05"); NaN and infinities as printf has them. len >= 32. */
size_t fmt_exact(char *buf, size_t len, double v);

/* "50.6%": one decimal, rounded to nearest. */
size_t fmt_pct(char *buf, size_t len, double pct);

/* A size the user typed, to bytes: "4096" (bytes), "64K", "512M", "200m",
 * "1G", "1.5G", "2T", "512MiB"; K/M/G/T are 1024-based in either case. A
 * fraction needs a unit and is rounded to the nearest byte. Rejects
 * (errno EINVAL) empty input, blanks, signs, junk, a bare "." and a
 * fraction of a byte; (errno ERANGE) anything beyond INT64_MAX bytes.
 * Returns 0 or -1. */
int fmt_parse_size(const char *s, int64_t *bytes);

/* Seconds the user typed: "1", "0.05", "2.5", ".5". No sign, exponent,
 * blanks, "inf" or "nan"; at most 1e9. 0 is accepted: the caller sets its
 * own minimum. Returns 0 or -1 (errno EINVAL, ERANGE above 1e9). */
int fmt_parse_seconds(const char *s, double *seconds);

/* A whole decimal number the user typed, in [lo, hi]: digits after an
 * optional '-', nothing else (no blanks, '+' or junk). Returns 0 or -1. */
int fmt_parse_whole(const char *s, long long lo, long long hi, long long *out);

/* An unsigned decimal of 1 to 15 digits (far below overflow, and more
 * than any KiB or count a posted line holds) at *p, which is moved past
 * it. False, *p unmoved, for no digit or a 16th one. */
bool fmt_scan_num(const char **p, int64_t *v);

/* Display columns of a UTF-8 string on a UTF-8 terminal: a wide
 * character (CJK, emoji) two, a combining or zero-width one none, as
 * fmt_cell counts them; of its first nb bytes. */
int fmt_text_cols(const char *s);
int fmt_text_cols_n(const char *s, size_t nb);

/* Bytes of s's whole characters that fill at most cols display columns
 * (a wide one that would pass cols is left out, so they may fill one
 * less). */
int fmt_cut_bytes(const char *s, int cols);
/* Bytes of s to skip for it to be shown from display column cols on, as a
 * view panned sideways: a wide character that straddles cols is skipped
 * whole, and *blank is then the 1 column of it that was to show, to be
 * left blank so the rest stays in its columns; else 0. */
int fmt_skip_cols(const char *s, int cols, int *blank);

/* Whole seconds as [h:]m:ss, truncated (1:59.9 is "1:59"); "n/a" for
 * NAN or a negative time. */
void fmt_minsec(char *buf, size_t len, double sec);

/* Appends s to buf at offset o as a field of exactly w display columns,
 * right or left aligned. Text that does not fit ends in an ellipsis ("…",
 * or "..." without utf8) and is never cut inside a number or an option:
 * "-n 90000000" must not read as "-n 9000000", so the whole number goes,
 * and a number before the ellipsis keeps a blank from it. Returns the new
 * offset (o unchanged when buf has no room). */
size_t fmt_field(char *buf, size_t len, size_t o, const char *s, int w, bool right,
		 bool utf8);

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if s starts with a
 * byte that begins none (overlong forms, surrogates, past U+10FFFF, a cut
 * sequence). *cp gets the code point. */
int fmt_utf8_len(const char *s, unsigned *cp);

/* True if s is valid UTF-8 without control characters (C0, DEL, C1, the
 * line and paragraph separators U+2028 and U+2029, and the bidi controls
 * U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069):
 * text that is safe to put on a terminal as it is. */
bool fmt_text_clean(const char *s);

/* A label as -L takes it: fmt_text_clean and 1 to FMT_LABEL_MAX characters
 * (code points), at least one of them taking a column. 0, or -1 bad UTF-8
 * or a control character (*bad its code point, 0 for bad UTF-8), -2 a bidi
 * control (*bad), -3 empty or longer, -4 nothing that shows. */
#define FMT_LABEL_MAX 200
int fmt_label_check(const char *s, unsigned *bad);
/* The same for option opt: 0, or -1 with a one-line err naming it. */
int fmt_label_arg(const char *opt, const char *s, char *err, size_t errlen);

/* s cut to whole characters filling at most w columns of a UTF-8 terminal
 * (wide characters 2, combining and zero-width ones 0) and padded with
 * blanks to w; the bytes written (buf always ends in NUL). */
size_t fmt_cell(char *buf, size_t len, const char *s, int w);

/* s into buf of len bytes: whole, or where it does not fit cut between
 * characters and ended with "..."; the bytes written. */
size_t fmt_copy(char *buf, size_t len, const char *s);

/* s's C0 control characters and DEL (a command line's newlines and tabs)
 * to blanks, in place: text for one line or one cell of a screen. */
void fmt_blank_controls(char *s);
/* Appends word to buf[*off..len) as a POSIX shell reads it back: bare
 * where it holds only [A-Za-z0-9_@%+=:,./-], else in single quotes ('\''
 * for a quote), so "sh -c './a & b'" is not stored as "sh -c ./a & b". */
void fmt_shell_word(char *buf, size_t len, size_t *off, const char *word);

/* s made safe for a terminal: control characters and bytes that are not
 * UTF-8 become \xHH, backslashes stay. Truncated to fit len; returns buf. */
char *fmt_escape(char *buf, size_t len, const char *s);

/* A stream over out that writes what it is given with fmt_escape's rules,
 * newlines and tabs kept: for reports of recorded text bound for a
 * terminal. Closing it flushes it and leaves out open. NULL on failure. */
FILE *fmt_escaping_stream(FILE *out);

/* Fills err (if any) with one formatted line: the one error-setting helper
 * for every "err, errlen" interface. A control character in it (a value
 * quoted with a newline or an escape) is escaped as fmt_escape does, so
 * the line stays one line on a terminal. Returns -1 so callers can return
 * it. */
int fmt_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A bounded text being built: appends past len are counted, not written,
 * so fmt_buf_done returns the length the whole text needs, as snprintf. */
struct fmt_buf {
	char *buf;
	size_t len, n;
};

void fmt_buf_put(struct fmt_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Terminates the text (cut at len - 1) and returns the length it needs. */
/* The same for text taken as it is, and for v in decimal with at least
 * width digits (zeros in front), at a fraction of a format's cost. */
void fmt_buf_str(struct fmt_buf *o, const char *s);
void fmt_buf_uint(struct fmt_buf *o, uint64_t v, int width);
size_t fmt_buf_done(struct fmt_buf *o);

/* Result lines cut for a mail: pieces appended after their separators, a
 * line cut before a piece that would pass width columns with reserve more
 * after it (the comma that follows it); the separator's blanks then become
 * a line break and an indent of two. Zero the rest to start. */
struct fmt_lines {
	struct fmt_buf o;
	size_t width, col;
};

void fmt_lines_add(struct fmt_lines *l, const char *sep, const char *piece, size_t plen,
		   size_t reserve);

/* A growing text, NUL-terminated once anything is in it: start from
 * { 0 }, free s. An allocation that fails sets oom and drops every later
 * append. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
void sb_putn(struct sbuf *b, const char *s, size_t n);
void sb_putc(struct sbuf *b, char c);
void sb_puts(struct sbuf *b, const char *s);

#endif
