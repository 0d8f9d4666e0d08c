/* The history tests' fixtures: a private directory, records with every
 * part filled, their comparison, and the file read and written past the
 * history. */
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "history_fixture.h"
#include "record_fixture.h"

static char tmpdir[64];

const char *tbase(void)
{
	struct stat sb;

	return stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp";
}

const char *tdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/thrashtop-histtest.XXXXXX", tbase());
		if (!mkdtemp(tmpdir))
			tmpdir[0] = 0;
	}
	return tmpdir;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

__attribute__((destructor)) static void rm_tdir(void)
{
	if (tmpdir[0])
		nftw(tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void tpath(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tdir(), name);
	unlink(buf);
}

void rm_db(const char *path)
{
	char side[512];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

void fixture(struct run_record *r, int i)
{
	fixture_record(r);
	snprintf(r->started_at, sizeof(r->started_at), "2025-01-%02dT10:%02d:%02dZ",
		 1 + i / 3600 % 28, i / 60 % 60, i % 60);
	snprintf(r->label, sizeof(r->label), "%s", i % 2 ? "odd" : "even");
	r->repeat_k = i % 3 + 1;
	r->status = i % 5 == 4 ? RUN_OOM : RUN_OK;
	r->wall_us = 153290000 + i;
	r->majflt = 19670 + i;
	r->maxrss_kib = 352000 + i;
	r->kswapd_s = i % 4 ? 1.25 : NAN;
	snprintf(r->kernel_release, sizeof(r->kernel_release), "%s",
		 i % 3 ? "6.1.0-18-amd64" : "2.4.14-pre8");
	r->kernel_version = strdup("#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)");
	r->proc_cmdline = strdup("BOOT_IMAGE=/vmlinuz root=/dev/sda1 mem=256M");
	r->swap_devices = strdup("/dev/sda2 partition 195512 0 -2\n");
	r->nworkers = 2;
	r->workers = calloc(2, sizeof(*r->workers));
	r->workers[0] = (struct run_worker){ 224, END_OK, 0, 0, 35000000, 3000000, 9000, 6,
					     0, NA, DELAYS_NONE };
	r->workers[1] = (struct run_worker){ 225 + i, END_VERIFY, 1, 0, 35270000, 4330000,
					     10670, 6, 3, 1234, DELAYS_NONE };
	r->workers[0].delays.s[DL_SWAPIN] = 27.123456789;
	r->workers[0].delays.s[DL_CPU] = 0.5;
	r->workers[0].delays.s[DL_IRQ] = 0;
	r->stalls = r->workers[0].delays;
	r->nchanges = 1;
	r->changes = calloc(1, sizeof(*r->changes));
	r->changes[0].t_s = 12.5;
	snprintf(r->changes[0].name, sizeof(r->changes[0].name), "vm.swappiness");
	snprintf(r->changes[0].old_val, sizeof(r->changes[0].old_val), "60");
	snprintf(r->changes[0].new_val, sizeof(r->changes[0].new_val), "100");
	r->hugetlb_kib = i % 2 ? 22528000 : 0;
	r->mlocked_kib = 10576;
	r->cgroup_new = 1;
	r->sysctls = i % 2 == 0 ? NULL : strdup("vm.nr_hugepages=11000\nvm.page-cluster=0\n");
	run_record_alloc_series(r, 5);
	for (int id = 0; id < M_N; id++)
		if (id != M_PSI_FULL)	/* one series not recorded */
			run_record_add_series(r, id);
	for (int k = 0; k < 5; k++) {
		r->t[k] = k * 1.5;
		for (int id = 0; id < M_N; id++)
			if (r->series[id])
				r->series[id][k] = 1000.0 * id + 17 * k;
		r->series[M_FREE][k] = 200000 - 3 * k;
		r->series[M_MAJFLT][k] = 0.125 * k;
		r->series[M_KSWAPD_CPU][k] = k == 2 ? NAN : 3.5;
	}
	/* the command's own figures: one with a value, one without */
	run_record_add_metric(r, "tput", 7.05841 + i, true);
	run_record_add_metric(r, "lat", NAN, false);
}

void check_series(const struct run_record *a, const struct run_record *b)
{
	CHECK_INT(a->nsamples, b->nsamples);
	if (a->nsamples != b->nsamples)
		return;
	for (int k = 0; k < a->nsamples; k++)
		CHECK_NEAR(a->t[k], b->t[k], 0.0005);
	for (int s = 0; s < M_N; s++) {
		double q = metric_def(s)->quantum / 2 + 1e-9;

		if (!a->series[s] != !b->series[s]) {
			t_fail(__FILE__, __LINE__, "series %s: recorded %d, read back %d",
			       metric_def(s)->name, !!a->series[s], !!b->series[s]);
			continue;
		}
		for (int k = 0; a->series[s] && k < a->nsamples; k++) {
			double x = a->series[s][k], y = b->series[s][k];
			if (isnan(x) != isnan(y) || (!isnan(x) && fabs(x - y) > q))
				t_fail(__FILE__, __LINE__, "series %s[%d]: %g != %g",
				       metric_def(s)->name, k, x, y);
		}
	}
}

void check_same(const struct run_record *a, const struct run_record *b)
{
	char va[256], vb[256];

	for (size_t i = 0; i < history_nfields; i++) {
		hist_field_get(a, &history_fields[i], va, sizeof(va));
		hist_field_get(b, &history_fields[i], vb, sizeof(vb));
		if (strcmp(va, vb))
			t_fail(__FILE__, __LINE__, "field %s: \"%s\" != \"%s\"",
			       history_fields[i].name, va, vb);
	}
	CHECK(!memcmp(&a->free_before, &b->free_before, sizeof(a->free_before)));
	CHECK(!memcmp(&a->free_after, &b->free_after, sizeof(a->free_after)));
	CHECK_INT(a->nworkers, b->nworkers);
	for (int i = 0; i < a->nworkers && i < b->nworkers; i++) {
		CHECK_INT(a->workers[i].pid, b->workers[i].pid);
		CHECK_INT(a->workers[i].end, b->workers[i].end);
		CHECK_INT(a->workers[i].exit_code, b->workers[i].exit_code);
		CHECK_INT(a->workers[i].signal, b->workers[i].signal);
		CHECK_INT(a->workers[i].user_us, b->workers[i].user_us);
		CHECK_INT(a->workers[i].sys_us, b->workers[i].sys_us);
		CHECK_INT(a->workers[i].majflt, b->workers[i].majflt);
		CHECK_INT(a->workers[i].minflt, b->workers[i].minflt);
		CHECK_INT(a->workers[i].verify_errors, b->workers[i].verify_errors);
		CHECK_INT(a->workers[i].first_bad, b->workers[i].first_bad);
	}
	CHECK_INT(a->nvictims, b->nvictims);
	for (int i = 0; i < a->nvictims && i < b->nvictims; i++) {
		CHECK_INT(a->victims[i].pid, b->victims[i].pid);
		CHECK_STR(a->victims[i].comm, b->victims[i].comm);
	}
	CHECK_INT(a->nchanges, b->nchanges);
	for (int i = 0; i < a->nchanges && i < b->nchanges; i++) {
		CHECK(a->changes[i].t_s == b->changes[i].t_s);
		CHECK_STR(a->changes[i].name, b->changes[i].name);
		CHECK_STR(a->changes[i].old_val, b->changes[i].old_val);
		CHECK_STR(a->changes[i].new_val, b->changes[i].new_val);
	}
	CHECK_INT(a->nmetrics, b->nmetrics);
	for (int i = 0; i < a->nmetrics && i < b->nmetrics; i++) {
		CHECK_STR(a->metrics[i].name, b->metrics[i].name);
		CHECK(isnan(a->metrics[i].value) ? isnan(b->metrics[i].value)
						 : a->metrics[i].value == b->metrics[i].value);
		CHECK_INT(a->metrics[i].higher, b->metrics[i].higher);
	}
	check_series(a, b);
}

int raw_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

int raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc = -1;

	if (sqlite3_open(path, &db) == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	sqlite3_close(db);
	return rc;
}
