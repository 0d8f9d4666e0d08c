#include "check.h"
#include "hugepool.h"

#define MiB (1LL << 20)
#define GiB (1LL << 30)

TEST(hugepool_target_leaves_at_least_size)
{
	/* 24 GiB less 2 GiB in 2 MiB pages */
	CHECK_INT(hugepool_target(24 * GiB, 2 * MiB, 2 * GiB), 11264);
	/* a part page stays outside the pool: more than SIZE is left */
	CHECK_INT(hugepool_target(24 * GiB + MiB, 2 * MiB, 2 * GiB), 11264);
	CHECK_INT(hugepool_target(24 * GiB, 1 * GiB, 2 * GiB + 1), 21);
	CHECK_INT(hugepool_target(24 * GiB, 2 * MiB, 24 * GiB), 0);
	CHECK_INT(hugepool_target(24 * GiB, 2 * MiB, 25 * GiB), 0);
	CHECK_INT(hugepool_target(24 * GiB, 0, 2 * GiB), 0);
}

TEST(hugepool_short_counts_missing_pages)
{
	struct hugepool p = { .page = 2 * MiB, .nr0 = 10, .want = 100, .nr = 90,
			      .active = true };

	CHECK_INT(hugepool_short(&p), 10 * 2 * MiB);
	p.nr = 100;
	CHECK_INT(hugepool_short(&p), 0);
	p.nr = 50;
	p.active = false;
	CHECK_INT(hugepool_short(&p), 0);
}
