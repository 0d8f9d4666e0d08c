#include <math.h>
#include <string.h>

#include "check.h"
#include "replay.h"

TEST(replay_index_counts_samples_shown)
{
	struct run_record r;

	run_record_init(&r);
	CHECK_INT(run_record_alloc_series(&r, 3), 0);
	r.t[0] = 0.1;
	r.t[1] = 0.2;
	r.t[2] = 0.3;
	CHECK_INT(replay_index(&r, 0), 0);
	CHECK_INT(replay_index(&r, 0.1), 1);
	CHECK_INT(replay_index(&r, 0.15), 1);
	CHECK_INT(replay_index(&r, 0.3), 3);
	CHECK_INT(replay_index(&r, 99), 3);
	run_record_clear(&r);
}

/* The line the monitor shows for a finished run, from the record alone. */
TEST(replay_result_line_as_the_monitor)
{
	struct run_record r;
	char buf[256];

	run_record_init(&r);
	r.id = 12;
	r.status = RUN_OK;
	r.wall_us = 153290000;
	r.user_us = 70270000;
	r.sys_us = 7330000;
	r.majflt = 19670;
	r.minflt = 100;
	r.inblock = r.oublock = 0;
	r.kswapd_s = 1.2;
	replay_result_line(&r, buf, sizeof(buf));
	CHECK_STR(buf, "#12 70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w  0:01 kswapd  ok");
	run_record_clear(&r);
}
