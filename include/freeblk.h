/* free(1) blocks as people post them: the header row, "Mem:", procps 2's
 * "-/+ buffers/cache:", "Swap:" and free -t's "Total:", in the layouts of
 * procps 2 to procps-ng 4 (and free -w, free -h), parsed back with their
 * own arithmetic checked, and printed again. Pure: no I/O. */
#ifndef THRASHTOP_FREEBLK_H
#define THRASHTOP_FREEBLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
int freeblk_parse(const char *text, struct free_parsed *out);

/* As freeblk_parse for the block whose header starts at p, in text: how
 * many characters from text to the block's end, or -1 (errno untouched). */
int freeblk_parse_at(const char *text, const char *p, struct free_parsed *out);

/* Whether the word at w names one of a block's rows under its header:
 * "Mem:", "-/+", "Swap:" or "Total:". */
bool freeblk_row_at(const char *w);

/* Prints a block in its layout with procps's column widths, KiB. */
size_t freeblk_print(char *buf, size_t len, const struct free_parsed *f);

#endif
