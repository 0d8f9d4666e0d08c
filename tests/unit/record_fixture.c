#include "record_fixture.h"

#include <stdio.h>

void fixture_record(struct run_record *r)
{
	run_record_init(r);
	r->kind = RUN_QSBENCH;
	r->nelems = 90000000;
	r->procs = 1;
	r->seed = 140175100;
	r->repeat_k = 1;
	r->repeat_n = 3;
	r->status = RUN_OK;
	r->wall_us = 153290000;
	r->user_us = 70270000;
	r->sys_us = 7330000;
	r->cpu_pct = 50.6;
	r->majflt = 19670;
	r->minflt = 12;
	r->inblock = 0;
	r->oublock = 8;
	r->kswapd_s = 1.25;
	r->swap_peak_kib = 180000;
	r->mem_free_min_kib = 2048;
	r->swap_before_kib = 0;
	r->swap_after_kib = 5080;
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0-18-amd64");
	snprintf(r->hostname, sizeof(r->hostname), "lenstra");
	r->ncpus = 2;
	r->ram_kib = 255984;
	r->swap_total_kib = 195512;
	r->swappiness = 60;
	r->vfs_cache_pressure = 100;
	r->min_free_kbytes = 67584;
	r->watermark_scale_factor = 10;
	r->page_cluster = 3;
	r->overcommit_memory = 0;
	r->dirty_ratio = 20;
	r->dirty_background_ratio = 10;
	r->zswap = 0;
	r->mem_limit_kib = 131072;
	r->global_limit_kib = NA;
	r->tmp_swap_kib = 0;
	snprintf(r->version, sizeof(r->version), "0.1.0");
	r->free_before = (struct mem_snapshot){ 255984, 16760, 239224, 0, 1092, 8008, 248324,
						195512, 0, 195512 };
	r->free_after = (struct mem_snapshot){ 255984, 6008, 249976, 0, 100, 1096, 251172,
					       195512, 5080, 190432 };
}
