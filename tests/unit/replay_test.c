#include <math.h>
#include <stdlib.h>
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

/* The header as the run went: s/S at 2 s and 5 s, k/K at 3 s; a sysctl
 * changed that the run did not start with is left as it was listed. */
TEST(replay_header_follows_the_changes)
{
	struct run_record r;
	char buf[256];

	run_record_init(&r);
	r.mem_limit_kib = 98304;
	r.sysctls = strdup("vm.page-cluster=3\nvm.swappiness=60\n");
	r.changes = calloc(3, sizeof(*r.changes));
	CHECK(r.sysctls && r.changes);
	if (!r.sysctls || !r.changes) {
		run_record_clear(&r);
		return;
	}
	r.nchanges = 3;
	r.changes[0] = (struct run_sysctl_change){ 2.0, "vm.swappiness", "60", "70" };
	r.changes[1] = (struct run_sysctl_change){ 3.0, "vm.page-cluster", "3", "4" };
	r.changes[2] = (struct run_sysctl_change){ 5.0, "vm.swappiness", "70", "80" };
	CHECK(replay_sysctl_at(&r, "vm.swappiness", 1.9) == NULL);
	CHECK_STR(replay_sysctl_at(&r, "vm.swappiness", 2.0), "70");
	CHECK_STR(replay_sysctl_at(&r, "vm.swappiness", 9), "80");
	CHECK(replay_sysctl_at(&r, "vm.swappines", 9) == NULL);
	replay_tuning_at(&r, 0, buf, sizeof(buf));
	CHECK_STR(buf, "mem 96M, vm.page-cluster=3, vm.swappiness=60");
	replay_tuning_at(&r, 3.5, buf, sizeof(buf));
	CHECK_STR(buf, "mem 96M, vm.page-cluster=4, vm.swappiness=70");
	replay_tuning_at(&r, 6, buf, sizeof(buf));
	CHECK_STR(buf, "mem 96M, vm.page-cluster=4, vm.swappiness=80");
	/* a zram device and zswap named as the live header names them */
	free(r.sysctls);
	r.sysctls = NULL;
	r.mem_limit_kib = NA;
	r.tmp_swap_kib = 512 * 1024;
	snprintf(r.swap_backend, sizeof(r.swap_backend), "zram 512M lzo-rle prio 32767");
	r.zswap = 1;
	snprintf(r.zswap_with, sizeof(r.zswap_with), "zstd 20%%");
	replay_tuning_at(&r, 0, buf, sizeof(buf));
	CHECK_STR(buf, "swap zram 512M lzo-rle prio 32767, zswap zstd pool 20%");
	r.swap_backend[0] = '\0';
	r.zswap = 0;
	replay_tuning_at(&r, 0, buf, sizeof(buf));
	CHECK_STR(buf, "swap +512M");
	run_record_clear(&r);
}
