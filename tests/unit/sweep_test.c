#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "history.h"
#include "sweep.h"

static struct sweep_axis axis(const char *key, char **vals, int n)
{
	struct sweep_axis a = { .nvals = n, .vals = vals };
	snprintf(a.key, sizeof(a.key), "%s", key);
	return a;
}

TEST(sweep_cells_in_order_swap_slowest)
{
	char *sw[] = { "60", "100" }, *mem[] = { "64M", "128M", "none" }, *swp[] = { "256M", "0" };
	struct sweep_axis ax[3] = { axis("swappiness", sw, 2), axis("mem", mem, 3),
				    axis("swap", swp, 2) };
	struct sweep s;
	char err[256], buf[128];
	int idx[CLI_MAX_SWEEP];

	CHECK_INT(sweep_init(&s, ax, 3, err, sizeof(err)), 0);
	CHECK_INT(s.ncells, 12);
	CHECK_INT(s.order[0], 2);	/* swap changes least often */
	CHECK_INT(s.order[1], 0);
	CHECK_INT(s.order[2], 1);
	CHECK_INT(s.dim[0].kind, SWEEP_SYSCTL);
	CHECK_STR(s.dim[0].sysctl, "vm.swappiness");
	CHECK_INT(s.dim[1].vals[1].num, 128LL << 20);
	CHECK_INT(s.dim[1].vals[2].num, 0);
	CHECK_INT(s.dim[2].vals[1].num, 0);
	sweep_cell_text(&s, 0, buf, sizeof(buf));
	CHECK_STR(buf, "swappiness=60 mem=64M swap=256M");
	sweep_cell_text(&s, 1, buf, sizeof(buf));
	CHECK_STR(buf, "swappiness=60 mem=128M swap=256M");
	sweep_cell_text(&s, 3, buf, sizeof(buf));
	CHECK_STR(buf, "swappiness=100 mem=64M swap=256M");
	sweep_cell_text(&s, 6, buf, sizeof(buf));
	CHECK_STR(buf, "swappiness=60 mem=64M swap=0");
	/* Every combination exactly once. */
	int seen[2][3][2] = { { { 0 } } };
	for (int c = 0; c < s.ncells; c++) {
		sweep_cell(&s, c, idx);
		seen[idx[0]][idx[1]][idx[2]]++;
	}
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 2; c++)
				CHECK_INT(seen[a][b][c], 1);
	CHECK_INT(sweep_find(&s, SWEEP_MEM, NULL), 1);
	CHECK_INT(sweep_find(&s, SWEEP_SYSCTL, "vm.swappiness"), 0);
	CHECK_INT(sweep_find(&s, SWEEP_PROCS, NULL), -1);
	sweep_free(&s);
}

TEST(sweep_rejects_bad_input)
{
	char *ok[] = { "1", "2" }, *dup[] = { "128M", "131072K" }, *badsw[] = { "60", "201" };
	char *badsize[] = { "12Q" }, *sp[] = { "1 2" }, *bigp[] = { "1025" };
	char err[256];
	struct sweep s;
	struct sweep_axis a1[] = { axis("colour", ok, 2) };
	struct sweep_axis a2[] = { axis("mem", dup, 2) };
	struct sweep_axis a3[] = { axis("swappiness", badsw, 2) };
	struct sweep_axis a4[] = { axis("swap", badsize, 1) };
	struct sweep_axis a5[] = { axis("vm.page-cluster", sp, 1) };
	struct sweep_axis a6[] = { axis("procs", bigp, 1) };
	struct sweep_axis a7[] = { axis("swappiness", ok, 2), axis("vm.swappiness", ok, 2) };
	struct sweep_axis a8[] = { axis("vm.no_such_knob", ok, 2) };

	CHECK_INT(sweep_init(&s, a1, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown key 'colour'") != NULL);
	CHECK_INT(sweep_init(&s, a2, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "given twice") != NULL);
	CHECK_INT(sweep_init(&s, a3, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "'201' is not 0 to 200") != NULL);
	CHECK_INT(sweep_init(&s, a4, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "'12Q'") != NULL);
	CHECK_INT(sweep_init(&s, a5, 1, err, sizeof(err)), -1);
	CHECK_INT(sweep_init(&s, a6, 1, err, sizeof(err)), -1);
	CHECK_INT(sweep_init(&s, a7, 2, err, sizeof(err)), -1);
	CHECK(strstr(err, "set the same thing") != NULL);
	CHECK_INT(sweep_init(&s, a8, 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "vm.no_such_knob") != NULL);
	for (const char *p = err; *p; p++)
		CHECK(*p != '\n');
}

TEST(sweep_cell_value_and_keys)
{
	char v[64];

	CHECK_INT(sweep_cell_value("mem=128M swappiness=60", "swappiness", v, sizeof(v)), 0);
	CHECK_STR(v, "60");
	CHECK_INT(sweep_cell_value("mem=128M swappiness=60", "mem", v, sizeof(v)), 0);
	CHECK_STR(v, "128M");
	CHECK_INT(sweep_cell_value("memory=1G mem=2G", "mem", v, sizeof(v)), 0);
	CHECK_STR(v, "2G");
	CHECK_INT(sweep_cell_value("mem=128M", "swap", v, sizeof(v)), -1);
	CHECK_INT(sweep_table_key("elems", v, sizeof(v)), 0);
	CHECK_STR(v, "nelems");
	CHECK_INT(sweep_table_key("vm.page-cluster", v, sizeof(v)), 0);
	CHECK_STR(v, "page_cluster");
	CHECK_INT(sweep_table_key("vm.swappiness", v, sizeof(v)), 0);
	CHECK_STR(v, "swappiness");
	CHECK_INT(sweep_table_key("vm.zone_reclaim_mode", v, sizeof(v)), -1);
	CHECK_INT(sweep_table_key("vm.label", v, sizeof(v)), -1);
}

TEST(sweep_eta_from_finished_runs)
{
	CHECK(isnan(sweep_eta(0, 0, 12, true, 5)));
	/* 2 runs in 100 s: 50 s each; 12 runs, one 20 s in, 9 still to start. */
	CHECK_NEAR(sweep_eta(100, 2, 12, true, 20), 9 * 50 + 30, 1e-9);
	/* The running one past the mean has nothing left by it. */
	CHECK_NEAR(sweep_eta(100, 2, 12, true, 80), 9 * 50, 1e-9);
	CHECK_NEAR(sweep_eta(100, 2, 12, false, 0), 10 * 50, 1e-9);
	CHECK_NEAR(sweep_eta(600, 12, 12, false, 0), 0, 1e-9);
}

static void run(struct run_record *r, const char *cell, int64_t mem_kib, int64_t swappiness,
		int64_t pc, double wall_s, enum run_status st)
{
	run_record_init(r);
	snprintf(r->cell, sizeof(r->cell), "%s", cell);
	snprintf(r->session, sizeof(r->session), "s1");
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0");
	r->mem_limit_kib = mem_kib;
	r->swappiness = swappiness;
	r->page_cluster = pc;
	r->wall_us = (int64_t)(wall_s * 1e6);
	r->status = st;
}

static char *table_of(const struct run_record *runs, size_t n, int *rc)
{
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = sweep_table(f, runs, n, err, sizeof(err));
	fclose(f);
	return buf;
}

TEST(sweep_table_memory_by_swappiness)
{
	struct run_record r[6];
	int rc;

	run(&r[0], "mem=64M swappiness=60", 65536, 60, 3, 10, RUN_OK);
	run(&r[1], "mem=64M swappiness=60", 65536, 60, 3, 12, RUN_OK);
	run(&r[2], "mem=64M swappiness=100", 65536, 100, 3, 9, RUN_OK);
	run(&r[3], "mem=64M swappiness=100", 65536, 100, 3, 0, RUN_OOM);
	run(&r[4], "mem=128M swappiness=60", 131072, 60, 3, 5, RUN_OK);
	run(&r[5], "", NA, 60, 3, 99, RUN_OK);	/* not of the sweep */
	char *t = table_of(r, 6, &rc);
	CHECK_INT(rc, 0);
	CHECK(strstr(t, "Wall time by mem (rows) and swappiness (columns)") != NULL);
	/* median of 10 and 12 s, CoV of {10, 12} = 1.414/11 = 12.9% */
	CHECK(strstr(t, "\n64M   0:11.00 +-12.9% n=2  0:09.00 n=1 1 of 2 runs killed\n") != NULL);
	CHECK(strstr(t, "\n128M  0:05.00 n=1") != NULL);
	CHECK(strstr(t, "1:39") == NULL);
	free(t);
}

TEST(sweep_table_splits_third_key_and_unknown_knob)
{
	struct run_record r[4];
	int rc;

	run(&r[0], "mem=64M swappiness=60 vm.page-cluster=0", 65536, 60, 0, 10, RUN_OK);
	run(&r[1], "mem=64M swappiness=60 vm.page-cluster=3", 65536, 60, 3, 20, RUN_OK);
	run(&r[2], "mem=128M swappiness=60 vm.page-cluster=0", 131072, 60, 0, 5, RUN_OK);
	run(&r[3], "mem=128M swappiness=60 vm.page-cluster=3", 131072, 60, 3, 6, RUN_OK);
	char *t = table_of(r, 4, &rc);
	CHECK_INT(rc, 0);
	char *a = strstr(t, "vm.page-cluster=0:\n"), *b = strstr(t, "vm.page-cluster=3:\n");
	CHECK(a && b && a < b);
	CHECK(a && b && strstr(a, "0:10.00") && strstr(a, "0:10.00") < b);
	CHECK(b && strstr(b, "0:20.00") && strstr(b, "0:06.00"));
	free(t);

	run(&r[0], "vm.zone_reclaim_mode=0", NA, 60, 3, 10, RUN_OK);
	run(&r[1], "vm.zone_reclaim_mode=1", NA, 60, 3, 20, RUN_OK);
	t = table_of(r, 2, &rc);
	CHECK_INT(rc, 0);
	CHECK(strstr(t, "by cell (rows)") != NULL);
	CHECK(strstr(t, "\nvm.zone_reclaim_mode=1  0:20.00 n=1\n") != NULL);
	free(t);
	t = table_of(r, 0, &rc);
	CHECK_INT(rc, -1);
	free(t);
}
