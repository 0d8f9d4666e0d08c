/* A command's own figures (--metric NAME[:higher|:lower]=REGEX): the specs
 * parsed and their POSIX extended regexes compiled, the command's output
 * matched line by line as it passes (each stream's unfinished line kept
 * across reads), and each figure taken from its last match: the regex's
 * first group, or the whole match without one, read as a strict decimal
 * number. Pure: no I/O. */
#ifndef THRASHTOP_CAPTURE_H
#define THRASHTOP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#define CAPTURE_MAX 8		/* --metric options a session takes */
#define CAPTURE_NAME_MAX 8	/* a name's characters: compare's column */
#define CAPTURE_LINE_MAX 4096	/* a longer line is matched on its first bytes */
#define CAPTURE_STREAMS 2	/* a command's standard output and error */

struct capture_spec {
	char name[CAPTURE_NAME_MAX + 1];
	bool higher;		/* higher is better; else lower, as for times */
	const char *regex;	/* into the argument parsed */
};

/* Parses "NAME[:higher|:lower]=REGEX": NAME a lower-case letter, then up
 * to 7 more letters, digits or _, none of the figures every run has
 * (capture_reserved); the regex compiled to check it. 0, or -1 with err,
 * one line naming the argument. */
int capture_parse(const char *arg, struct capture_spec *sp, char *err, size_t errlen);

/* Whether name is one a command's figure may have, as capture_parse
 * takes it. */
bool capture_name_ok(const char *name);

/* Whether name is a figure every run has (wall, user, sys, majflt,
 * kswapd, the stall shares as compare names them, oom): not a command's. */
bool capture_reserved(const char *name);

/* s[0..n) as a strict decimal: an optional sign, digits with an optional
 * fraction (or a fraction alone), an optional exponent; nothing else, no
 * blank. 0 with *v (finite), or -1. */
int capture_number(const char *s, size_t n, double *v);

enum capture_state {
	CAPTURE_NONE,		/* no line matched */
	CAPTURE_VALUE,		/* the last match was a number */
	CAPTURE_NAN,		/* the last match was not a number */
};

struct capture_result {
	enum capture_state state;
	double value;		/* CAPTURE_VALUE's, else NAN */
	char text[40];		/* CAPTURE_NAN: what the last match took, cut */
};

struct capture;

/* A capture of sp[0..n), n at most CAPTURE_MAX. NULL with err. */
struct capture *capture_new(const struct capture_spec *sp, int n, char *err, size_t errlen);
void capture_free(struct capture *c);

/* Every result and unfinished line forgotten: a new run. */
void capture_reset(struct capture *c);

/* n more bytes of stream s (0 to CAPTURE_STREAMS - 1): each line they
 * finish matched, a line cut across reads as a whole. */
void capture_feed(struct capture *c, int s, const char *buf, size_t n);

/* The streams' last lines, those without a newline, matched: the output
 * has ended. */
void capture_flush(struct capture *c);

int capture_count(const struct capture *c);
const struct capture_spec *capture_spec_at(const struct capture *c, int i);
const struct capture_result *capture_result_at(const struct capture *c, int i);

/* Figure i's result as said after a run: "7.05841", "no value: no line
 * matched", "no value: '1.2.3' is not a number". len >= 64. */
void capture_text(const struct capture *c, int i, char *buf, size_t len);

#endif
