/* The result lines people post: csh/tcsh `time`, GNU time, the kswapd line.
 * Formatting follows tcsh's and GNU time's own arithmetic (truncation, not
 * rounding) so a figure reads the same as theirs; parsing reads posted lines
 * back. */
#ifndef THRASHTOP_TIMEFMT_H
#define THRASHTOP_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taskstats.h"

struct timeline {
	int64_t user_us, sys_us, wall_us;	/* microseconds */
	int64_t majflt, minflt;			/* ru_majflt, ru_minflt */
	int64_t inblock, oublock;		/* ru_inblock, ru_oublock */
	int64_t nswap;				/* ru_nswap (0 on Linux) */
	int64_t ixrss, idrss;			/* avg shared/unshared KiB (0 on Linux) */
	int64_t maxrss_kib;			/* ru_maxrss, KiB */
	int exit_code;				/* exit status when not killed */
	int term_signal;			/* signal that killed it, 0 if none */
	/* A parsed line's %P as posted, which its printed times cannot always
	 * reproduce (GNU time hides up to 18 ms of CPU behind the hundredths):
	 * the formatter of the same family prints it back. Measured: 0. */
	int pct_src;				/* 0, TIMEFMT_CSH or TIMEFMT_GNU */
	int pct_posted;				/* csh: tenths of a percent;
						 * GNU: percent, -1 for "?%" */
	bool pct_off;				/* parsed: pct_posted is off what
						 * the times give, by at most the
						 * slack below */
	/* A stored run read from a GNU line: its posted percent, which the
	 * GNU formatter prints back (pct_src is then the csh figure kept). */
	bool has_pct_gnu;
	int pct_gnu;
};

enum { TIMEFMT_CSH = 1, TIMEFMT_GNU = 2 };

/* How far a posted %P may be from what its line's times give and still be
 * read (pct_off set): a hand-edited post or another shell's arithmetic is
 * off by a tenth or a unit; further off, the line is not one run's. */
#define TIMEFMT_CSH_SLACK 10	/* tenths of a percent: 1.0 point */
#define TIMEFMT_GNU_SLACK 1	/* percent */

/* The time line a run prints (--format): csh, gnu or gnu-full. */
enum out_format { OUT_CSH, OUT_GNU, OUT_GNU_FULL };

/* All formatters write like snprintf: at most len bytes including the NUL,
 * and return the length the full text needs. No trailing newline. A count
 * below zero (NA) prints as "?", GNU time's own mark for an unknown. */

/* tcsh's default `time` line, "%Uu %Ss %E %P\t%X+%Dk %I+%Oio %Fpf+%Ww"
 * with a space for the tab after the percent, as the archives show it:
 * 70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w */
size_t timefmt_csh(char *buf, size_t len, const struct timeline *t);

/* tcsh's %P in tenths of a percent (506 for 50.6%); 0 when elapsed is 0.
 * The posted figure for a line parsed by timefmt_parse_csh. */
long timefmt_csh_permille(const struct timeline *t);

/* GNU time "%Uuser %Ssystem %E %PCPU (%Fmajor+%Rminor)":
 * 548.27user 94.18system 10:50.12 98%CPU (450479major+696869minor)
 * (no "Command exited..." line: that comes with the default form only) */
size_t timefmt_gnu(char *buf, size_t len, const struct timeline *t);

/* GNU time's default two lines, preceded by "Command exited with non-zero
 * status N" or "Command terminated by signal N" as GNU time prints them. */
size_t timefmt_gnu_default(char *buf, size_t len, const struct timeline *t);

/* GNU time's %P as an integer percent, -1 where GNU prints "?%". The
 * posted figure for a line parsed by timefmt_parse_gnu. */
long timefmt_gnu_percent(const struct timeline *t);

/* "0:01 kswapd": minutes:seconds of CPU, truncated as ps's TIME column;
 * "n/a kswapd" for NAN or a negative time. */
size_t timefmt_kswapd(char *buf, size_t len, double cpu_s);

/* "stalls: 41.2s swapin 3.1s reclaim 12.0s thrashing 0.4s io 1.9s cpu":
 * the workers' summed delay totals, each in seconds truncated to tenths,
 * in delay_kind order; a field the kernel does not give is left out, and
 * "n/a stalls" when none is known. */
size_t timefmt_stalls(char *buf, size_t len, const struct delays *d);

/* The same as result lines for a mail: cut between fields into lines of at
 * most TIMEFMT_WIDTH columns, each after the first indented two ("stalls:
 * ... 1.0s io\n  5.2s cpu 0.0s wpcopy 0.0s irq"). timefmt_parse_stalls
 * reads it back, line breaks and all. */
#define TIMEFMT_WIDTH 76
size_t timefmt_stalls_lines(char *buf, size_t len, const struct delays *d);

/* Reads a stall line back (leading and trailing blanks, and line breaks
 * between its fields, allowed): each
 * named field gets its value, the others NAN; "n/a stalls" is all NAN.
 * 0, or -1 (errno EINVAL) leaving out untouched. */
int timefmt_parse_stalls(const char *line, struct delays *out);

/* Parsing. Leading junk is skipped (a prompt "host:~/dir> ", mail quoting
 * "> > ", "Out of Memory: Killed process 224 (qsbench). "): the line is read
 * from the first place, at the start or after a blank or '>', where the whole
 * format matches; after the last field only blanks may follow. Values are
 * stored exactly as printed (elapsed "10:50" is 650 s, its hundredths
 * unknown). A line whose CPU % cannot come from its own times by the tool's
 * arithmetic is read with pct_off set when it is at most the slack away,
 * else rejected; the posted % is kept (pct_src, pct_posted). A count
 * printed "?" (unknown, as the formatters print NA) reads as NA. All
 * return 0, or -1: errno ERANGE for a line that reads but for its CPU %,
 * further off its times than the slack (out then holds its fields, to say
 * so), else EINVAL with out untouched. */

/* One tcsh or BSD csh default line: fields separated by spaces or tabs, elapsed
 * [h:]mm:ss.cc, user and system with 1 to 3 decimals. */
int timefmt_parse_csh(const char *line, struct timeline *out);

/* GNU time, either
 *   %Uuser %Ssystem %E[elapsed] %PCPU (%Fmajor+%Rminor)
 * with any blanks between fields and %E as m:ss.cc, m:ss or h:mm:ss, or the
 * default two lines (blanks between fields may include line breaks, as when
 * a mailer rewraps them), optionally after the "Command exited with non-zero
 * status N" / "Command terminated by signal N" line. */
int timefmt_parse_gnu(const char *text, struct timeline *out);

#endif
