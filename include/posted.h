/* Posted text read back into runs: csh and GNU time lines, free(1) blocks
 * (freeblk.h), "0:01 kswapd" lines, OOM lines and shell prompts, as the
 * 2001 VM threads posted them. Pure: no I/O, never exits; failures fill
 * err with one line naming the line. */
#ifndef THRASHTOP_POSTED_H
#define THRASHTOP_POSTED_H

#include <stdbool.h>
#include <stddef.h>

#include "import.h"
#include "runrec.h"

/* Posted text: csh and GNU time lines, free(1) blocks, "0:01 kswapd" lines,
 * "Out of Memory: Killed process" lines (the next run is an OOM), a
 * "time ./qsbench -n N -p P -s S" prompt (the workload), and any other
 * non-blank line as the header naming the runs below it (a group, as the
 * seeds post them; it groups, it is no label). Lines quoted with '>' repeat
 * other posts and are skipped. A line holding more than one of those (a
 * message a web archive flattened) is cut back into them and read as a
 * message of its own: quotes skipped, prose only as the header of the runs
 * right after it. A free block before a run is its "before",
 * one after it its "after". A kswapd line is the CPU time of kswapd over the
 * runs above it since the header or the last kswapd line: one run's own, or
 * N runs' total, 1/N to each. label, if given, is each run's label; none
 * without. A line that looks like a time line and does not parse is an
 * error naming its line, as is a free(1) header whose block does not add
 * up, unless skip_bad: then it is left out and named to sink->note. A time
 * line whose CPU % is off its times by at most timefmt.h's slack is read,
 * its posted % kept, and named to sink->note. Of each kind of note (a line
 * skipped, a kswapd line that is several runs' total, a CPU % kept) the
 * first 10 are given, then one line counting the rest ("... and N more
 * like line L's"). As import.h's readers: the text is read once to check
 * it, then again to give each run to sink, so a bad line means no run
 * reached the sink; memory is one run, a count per group and a kswapd
 * share per run beside the text. Returns 0, or -1 with err. */
int posted_read(const char *text, const char *label, bool skip_bad,
		const struct import_sink *sink, char *err, size_t errlen);

#endif
