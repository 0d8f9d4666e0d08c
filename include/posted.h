/* Posted text read back into runs: csh and GNU time lines, free(1) blocks,
 * "0:01 kswapd" lines, OOM lines and shell prompts, as the 2001 VM threads
 * posted them; and free(1) blocks parsed and printed on their own. Pure:
 * no I/O, never exits; failures fill err with one line naming the line. */
#ifndef THRASHTOP_POSTED_H
#define THRASHTOP_POSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * up, unless skip_bad: then it is left out and named to sink->note. A time line whose CPU % is off its times by at most
 * timefmt.h's slack is read, its posted % kept, and named to sink->note. As import.h's readers: the text is read once to check it,
 * then again to give each run to sink, so a bad line means no run reached
 * the sink; memory is one run, a count per group and a kswapd share per run
 * beside the text. Returns 0, or -1 with err. */
int posted_read(const char *text, const char *label, bool skip_bad,
		const struct import_sink *sink, char *err, size_t errlen);

enum free_layout {
	FREE_OLD,	/* procps 2/3.3.9: total used free shared buffers cached,
			 * "-/+ buffers/cache:" line */
	FREE_NG,	/* procps-ng 3.3.10+: ... shared buff/cache available */
	FREE_NG_WIDE,	/* free -w: ... shared buffers cache available */
};

/* One free(1) block, KiB. A column the layout lacks is -1 (NA). */
struct free_parsed {
	enum free_layout layout;
	int64_t total, used, free, shared;
	int64_t buffers, cached;	/* OLD and NG_WIDE */
	int64_t buff_cache;		/* NG; buffers + cached for the others */
	int64_t available;		/* NG and NG_WIDE */
	int64_t bc_used, bc_free;	/* OLD's "-/+ buffers/cache:" line, or NA */
	int64_t swap_total, swap_used, swap_free;
	bool has_total_line;		/* free -t's "Total:" line was present */
	bool human;			/* free -h units: values are rounded */
};

/* Reads the first free(1) block in text: the header row, "Mem:", OLD's
 * "-/+ buffers/cache:" when the header is OLD's, "Swap:", and an optional
 * "Total:". Whitespace of any kind separates tokens, so a block flattened
 * onto one line by a web archive reads too; text before the header is
 * skipped. Numbers are KiB (free's default, -k) or free -h's "23Gi", "8.7Mi",
 * "0B" (converted, human set). -b/-m/-g output cannot be told from KiB and
 * must not be passed. Rejects a block whose own arithmetic does not add up
 * (OLD: used = total - free, the -/+ line; swap: total = used + free), except
 * for -h values. Returns how many characters of text the block used (> 0),
 * or -1 (errno EINVAL). */
int posted_parse_free(const char *text, struct free_parsed *out);

/* Prints a block in its layout with procps's column widths, KiB. */
size_t posted_print_free(char *buf, size_t len, const struct free_parsed *f);

#endif
