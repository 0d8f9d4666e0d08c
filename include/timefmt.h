/* The result lines people post: csh/tcsh `time`, GNU time, the kswapd line.
 * Formatting follows tcsh's and GNU time's own arithmetic (truncation, not
 * rounding) so a figure reads the same as theirs; parsing reads posted lines
 * back. */
#ifndef THRASHTOP_TIMEFMT_H
#define THRASHTOP_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

struct timeline {
	int64_t user_us, sys_us, wall_us;	/* microseconds */
	int64_t majflt, minflt;			/* ru_majflt, ru_minflt */
	int64_t inblock, oublock;		/* ru_inblock, ru_oublock */
	int64_t nswap;				/* ru_nswap (0 on Linux) */
	int64_t ixrss, idrss;			/* avg shared/unshared KiB (0 on Linux) */
};

#endif
