/* Asciicast v2 recordings of what the terminal is sent: a JSON header line
 * (width, height, TERM in "env", a title), then one [t, "o", "bytes"] line
 * per frame and [t, "r", "WxH"] when the screen is resized. Every line is
 * written whole with one write(2), so a recording cut short by a crash or
 * SIGKILL is valid up to its last frame.
 *
 * ncurses 6 writes to the file descriptor of its output stream with
 * write(2), and sets the terminal's modes and reads its size through the
 * same descriptor, so a stream of our own cannot stand in for the
 * terminal. The recording swaps a memfd onto that descriptor for the
 * length of each doupdate() only, then sends the frame's bytes on to the
 * terminal and into the recording. Without a terminal (an export) the
 * memfd is the output for good and the screen has a fixed size. */
#ifndef THRASHTOP_CAST_H
#define THRASHTOP_CAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cast;

/* Creates path ("-": standard output) and writes the header, never
 * through a link and never over a name in a directory others can write
 * (sysio_create); timestamp is the
 * start's Unix time, 0 for none (a recording that must come out the same
 * every time). NULL with a one-line message in err. */
struct cast *cast_open(const char *path, int cols, int rows, const char *term,
		       const char *title, long long timestamp, char *err, size_t errlen);

/* An "o" event of the n bytes at t seconds; nothing for n 0. 0, or -1. */
int cast_output(struct cast *c, double t, const char *bytes, size_t n);
/* An "r" event: the screen is cols x rows from t on. 0, or -1. */
int cast_resize(struct cast *c, double t, int cols, int rows);

/* Closes the file (and ends the recording of the screen if it was c). */
void cast_close(struct cast *c);
/* cast_close, and removes the file if cast_open created it: a recording
 * that never started. */
void cast_remove(struct cast *c);

/* Pure: the n bytes of src as the inside of a JSON string into dst, which
 * holds 6 * n + 1 bytes: '"' and '\\' escaped, control bytes as \u00XX,
 * valid UTF-8 kept as it is, each byte of an invalid sequence as U+FFFD.
 * Returns the length written (dst is NUL-terminated). */
size_t cast_escape(char *dst, const char *src, size_t n);

/* Records the terminal: from now on each cast_doupdate() goes into c as
 * well, timed from c's opening. outfd is the descriptor ncurses writes
 * to (a terminal). 0, or -1 with err. */
int cast_tee(struct cast *c, int outfd, char *err, size_t errlen);

/* A FILE for newterm() to write to when there is no terminal (a screen
 * of cols x rows), read back by cast_doupdate() into c at the times
 * cast_set_time() gives. */
FILE *cast_headless(struct cast *c, int cols, int rows, char *err, size_t errlen);
void cast_set_time(double t);

/* doupdate(), with its bytes recorded as one event when a recording is
 * on (and a resize since the last frame as an "r" event before them). */
void cast_doupdate(void);

/* Ends the recording of the screen without closing the file. */
void cast_detach(void);

#endif
