/* The run history store: round trips, filters, and the failure modes the
 * issue names (read-only, corrupt, full disk, two writers). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "export.h"
#include "histfile.h"
#include "history.h"
#include "history_fixture.h"
#include "import.h"
#include "report.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;

	*len = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n >= 0 && (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

/* A stored double is shown as fmt_exact gives it. */
TEST(history_double_text)
{
	const struct hist_field *f = hist_field_find("stall_wpcopy_s");
	static const struct { double v; const char *text; } cases[] = {
		{ 5.7334e-05, "0.000057334" }, { 141.7, "141.7" }, { 1e30, "1e+30" },
	};
	struct run_record *r = calloc(1, sizeof(*r));
	char buf[64];

	CHECK(f && r);
	if (!f || !r) {
		free(r);
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r->stalls.s[DL_WPCOPY] = cases[i].v;
		hist_field_get(r, f, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].text);
	}
	free(r);
}

static char *pieces(double v, const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	export_num(f, v, true);
	fputc('|', f);
	export_num(f, v, false);
	fputc('|', f);
	fmt_json_str(f, s);
	fputc('|', f);
	fmt_csv_cell(f, s);
	fclose(f);
	return text;
}

/* The pieces stats --format=json/csv print with: exact numbers, unknown
 * as null or an empty field, strings valid in each format. */
TEST(export_pieces)
{
	static const struct { double v; const char *s, *want; } cases[] = {
		{ 5.7334e-05, "a,b", "0.000057334|0.000057334|\"a,b\"|\"a,b\"" },
		{ 1.0 / 3, "say \"hi\"", "0.3333333333333333|0.3333333333333333|"
					  "\"say \\\"hi\\\"\"|\"say \"\"hi\"\"\"" },
		{ NAN, "tab\there\n\x80", "null||\"tab\\there\\n\\ufffd\"|\"tab\there\n\x80\"" },
		{ INFINITY, "", "null||\"\"|" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = pieces(cases[i].v, cases[i].s);

		CHECK_STR(got, cases[i].want);
		free(got);
	}
}

/* A stored swap device line with its units, the path's blanks kept. */
TEST(history_swap_line_text)
{
	char buf[256];

	run_record_swap_line("/swapfile file 195512 0 -2\n/next x 1 2 3\n", buf, sizeof(buf));
	CHECK_STR(buf, "/swapfile file, 191M, 0K used, priority -2");
	run_record_swap_line("/var/my\\040swap file 1048576 524288 5", buf, sizeof(buf));
	CHECK_STR(buf, "/var/my\\040swap file, 1.0G, 512M used, priority 5");
	run_record_swap_line("/my swap file file 2048 0 -3", buf, sizeof(buf));
	CHECK_STR(buf, "/my swap file file, 2.0M, 0K used, priority -3");
	run_record_swap_line("/swapfile file 195512 0", buf, sizeof(buf));
	CHECK_STR(buf, "/swapfile file 195512 0");
	run_record_swap_line("/swapfile file -1 0 -2 x", buf, sizeof(buf));
	CHECK_STR(buf, "/swapfile file -1 0 -2 x");
	run_record_swap_line("", buf, sizeof(buf));
	CHECK_STR(buf, "");
}

TEST(history_roundtrip_every_field)
{
	char path[256], err[256];
	struct run_record r, got;

	tpath(path, sizeof(path), "rt.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	CHECK_INT(history_schema_version(h), HISTORY_SCHEMA_VERSION);
	fixture(&r, 7);
	snprintf(r.session, sizeof(r.session), "sweep-1");
	snprintf(r.cell, sizeof(r.cell), "swappiness=100 mem=128M");
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK(r.id > 0);
	CHECK_INT(strlen(r.uuid), 32);
	CHECK_INT(strlen(r.config_hash), 16);
	CHECK(r.config && strstr(r.config, "swappiness=60\n"));
	CHECK(r.config && strstr(r.config, "workload=qsbench -n 90000000 -p 1 -s 140175100\n"));
	CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
	CHECK_INT(got.id, r.id);
	check_same(&r, &got);
	CHECK(isnan(got.kswapd_s) == isnan(r.kswapd_s));
	CHECK_INT(got.global_limit_kib, NA);
	CHECK_INT(got.workers[0].first_bad, NA);
	/* delay totals: the run's sum and each worker's, NULL kept apart from 0 */
	CHECK(got.stalls.s[DL_SWAPIN] == 27.123456789 && got.stalls.s[DL_IRQ] == 0);
	CHECK(isnan(got.stalls.s[DL_RECLAIM]));
	CHECK(got.workers[0].delays.s[DL_SWAPIN] == 27.123456789);
	CHECK(got.workers[0].delays.s[DL_CPU] == 0.5 && got.workers[0].delays.s[DL_IRQ] == 0);
	CHECK(isnan(got.workers[0].delays.s[DL_IO]));
	CHECK(!delays_known(&got.workers[1].delays));
	CHECK(isnan(got.series[M_KSWAPD_CPU][2]));
	CHECK(got.series[M_PSI_FULL] == NULL);
	CHECK_STR(got.sysctls, "vm.nr_hugepages=11000\nvm.page-cluster=0\n");
	CHECK_INT(got.hugetlb_kib, 22528000);
	/* The same content again is the same run. */
	struct run_record again;
	fixture(&again, 7);
	snprintf(again.session, sizeof(again.session), "sweep-1");
	snprintf(again.cell, sizeof(again.cell), "swappiness=100 mem=128M");
	CHECK_INT(history_add(h, &again, err, sizeof(err)), 1);
	CHECK_INT(again.id, r.id);
	CHECK_STR(again.uuid, r.uuid);
	CHECK_INT(history_count(h, NULL, err, sizeof(err)), 1);
	run_record_clear(&again);
	CHECK_INT(history_get(h, 99999, &again, err, sizeof(err)), 1);
	CHECK(strstr(err, "no run 99999"));
	run_record_clear(&again);
	run_record_clear(&got);
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}

TEST(history_config_groups_equal_configs)
{
	struct run_record a, b;

	fixture(&a, 0);
	fixture(&b, 6);		/* other results, same configuration */
	CHECK_INT(run_record_config(&a), 0);
	CHECK_INT(run_record_config(&b), 0);
	CHECK_STR(a.config_hash, b.config_hash);
	b.swappiness = 100;
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strcmp(a.config_hash, b.config_hash) != 0);
	b.swappiness = 60;
	/* A hugetlb pool, a balloon's locked memory and a session's sysctls
	 * are configuration; the monitor's own few locked MiB are not. */
	b.hugetlb_kib = 22528000;
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strcmp(a.config_hash, b.config_hash) != 0);
	CHECK(strstr(b.config, "hugetlb_kib=22528000\n") != NULL);
	b.hugetlb_kib = 0;
	b.mlocked_kib = 10576 + 40000;
	CHECK_INT(run_record_config(&b), 0);
	CHECK_STR(a.config_hash, b.config_hash);
	b.mlocked_kib = 21 * 1024 * 1024;
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strstr(b.config, "mlocked_256m=84\n") != NULL);
	b.mlocked_kib = 10576;
	b.sysctls = strdup("vm.nr_hugepages=11000\n");
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strstr(b.config, "sysctl=vm.nr_hugepages=11000\n") != NULL);
	free(b.sysctls);
	b.sysctls = NULL;
	CHECK_INT(run_record_config(&b), 0);
	CHECK_STR(a.config_hash, b.config_hash);
	/* a guest's runs group apart from this machine's, and TCG's from
	 * KVM's; this machine's keep the hash they had */
	snprintf(b.place, sizeof(b.place), "vm");
	snprintf(b.accel, sizeof(b.accel), "tcg");
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strstr(b.config, "place=vm\naccel=tcg\n") != NULL);
	{
		char h1[17], host[128];

		snprintf(h1, sizeof(h1), "%s", b.config_hash);
		snprintf(b.accel, sizeof(b.accel), "kvm");
		CHECK_INT(run_record_config(&b), 0);
		CHECK(strcmp(h1, b.config_hash) != 0);
		CHECK(strcmp(a.config_hash, b.config_hash) != 0);
		CHECK_STR(run_record_host(&b, host, sizeof(host)), "lenstra (vm kvm)");
		CHECK_STR(run_record_host(&a, host, sizeof(host)), "lenstra");
	}
	b.place[0] = b.accel[0] = '\0';
	CHECK_INT(run_record_config(&b), 0);
	CHECK_STR(a.config_hash, b.config_hash);
	free(b.kernel_version);
	b.kernel_version = strdup("#2 SMP");
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strcmp(a.config_hash, b.config_hash) != 0);
	/* A value with a newline cannot forge another key. */
	b.kind = a.kind = RUN_COMMAND;
	free(b.kernel_version);
	b.kernel_version = strdup(a.kernel_version);
	a.command = strdup("sh -c x\nswappiness=60");
	b.command = strdup("sh -c x");
	CHECK_INT(run_record_config(&a), 0);
	CHECK_INT(run_record_config(&b), 0);
	CHECK(strstr(a.config, "workload=sh -c x\\nswappiness=60\n") != NULL);
	CHECK(strcmp(a.config_hash, b.config_hash) != 0);
	/* a backslash is escaped too; numbers below zero keep their sign */
	free(a.command);
	a.command = strdup("a\\b\n\\");
	a.swappiness = -7;
	CHECK_INT(run_record_config(&a), 0);
	CHECK(strstr(a.config, "\nworkload=a\\\\b\\n\\\\\nswappiness=-7\n") != NULL);
	run_record_clear(&a);
	run_record_clear(&b);
}

/* What held --global's memory lives in the config text: it groups apart
 * and comes back with the run. */
TEST(history_global_by_in_config)
{
	char path[256], err[256];
	struct run_record a, b, got;

	tpath(path, sizeof(path), "gb.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	fixture(&a, 0);
	fixture(&b, 1);
	a.global_limit_kib = b.global_limit_kib = 2097152;
	snprintf(a.global_by, sizeof(a.global_by), "hugetlb");
	snprintf(b.global_by, sizeof(b.global_by), "balloon");
	CHECK_INT(history_add(h, &a, err, sizeof(err)), 0);
	CHECK_INT(history_add(h, &b, err, sizeof(err)), 0);
	CHECK(strcmp(a.config_hash, b.config_hash) != 0);
	CHECK(a.config && strstr(a.config, "\nglobal_by=hugetlb\n"));
	CHECK_INT(history_get(h, a.id, &got, err, sizeof(err)), 0);
	CHECK_STR(got.global_by, "hugetlb");
	CHECK_STR(got.config_hash, a.config_hash);
	run_record_clear(&got);
	CHECK_INT(history_get(h, b.id, &got, err, sizeof(err)), 0);
	CHECK_STR(got.global_by, "balloon");
	run_record_clear(&got);
	/* an export's run, read field by field (json, csv), keeps it too:
	 * the same group as the run it was exported from */
	struct run_record c;
	fixture(&c, 2);
	for (size_t i = 0; i < history_nfields; i++) {
		char v[8192];

		hist_field_get(&a, &history_fields[i], v, sizeof(v));
		CHECK_INT(hist_field_set(&c, &history_fields[i], v), 0);
	}
	CHECK_STR(c.global_by, "hugetlb");
	snprintf(c.uuid, sizeof(c.uuid), "%s", "copy-of-a");
	CHECK_INT(history_add(h, &c, err, sizeof(err)), 0);
	CHECK_STR(c.config_hash, a.config_hash);
	run_record_clear(&c);
	run_record_clear(&a);
	run_record_clear(&b);
	history_close(h);
	rm_db(path);
}

TEST(history_list_filters_and_order)
{
	char path[256], err[256];
	struct run_record r, *v = NULL;
	size_t n = 0;

	tpath(path, sizeof(path), "list.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	for (int i = 0; i < 12; i++) {
		fixture(&r, i);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
		run_record_clear(&r);
	}
	CHECK_INT(history_list(h, NULL, 0, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 12);
	for (size_t i = 1; i < n; i++)
		CHECK(strcmp(v[i - 1].started_at, v[i].started_at) >= 0);
	CHECK_INT(n ? v[0].majflt : 0, 19670 + 11);	/* newest first */
	CHECK_INT(n ? v[0].nworkers : 1, 0);		/* no details unless asked */
	run_records_free(v, n);

	struct history_filter f = { .label = "odd" };
	CHECK_INT(history_list(h, &f, HISTORY_DETAIL, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 6);
	for (size_t i = 0; i < n; i++) {
		CHECK_STR(v[i].label, "odd");
		CHECK_INT(v[i].nworkers, 2);
		CHECK_INT(v[i].nsamples, 5);
	}
	run_records_free(v, n);

	f = (struct history_filter){ .label = "o*" };
	CHECK_INT(history_count(h, &f, err, sizeof(err)), 6);
	f = (struct history_filter){ .kernel = "pre8" };
	CHECK_INT(history_count(h, &f, err, sizeof(err)), 4);	/* i = 0, 3, 6, 9 */
	f = (struct history_filter){ .kernel = "PREEMPT_DYN" };	/* the version string */
	CHECK_INT(history_count(h, &f, err, sizeof(err)), 12);
	f = (struct history_filter){ .kernel = "pre8", .label = "odd" };
	CHECK_INT(history_count(h, &f, err, sizeof(err)), 2);	/* 3, 9 */

	f = (struct history_filter){ .limit = 5, .offset = 10 };
	CHECK_INT(history_list(h, &f, 0, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 2);
	CHECK_INT(n == 2 ? v[1].majflt : 0, 19670);
	run_records_free(v, n);

	CHECK_INT(history_rm(h, 3, err, sizeof(err)), 0);
	CHECK_INT(history_rm(h, 3, err, sizeof(err)), 1);
	CHECK_INT(history_count(h, NULL, err, sizeof(err)), 11);
	history_close(h);
	/* Details go with their run (ON DELETE CASCADE). */
	CHECK_INT(raw_int(path, "SELECT count(*) FROM workers WHERE run_id = 3"), 0);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM samples WHERE run_id = 3"), 0);
	CHECK(raw_int(path, "SELECT count(*) FROM samples") > 11 * M_N / 2);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM workers"), 22);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM free_snaps"), 22);
	rm_db(path);
}

TEST(history_10000_runs_use_indexes)
{
	char path[256], err[256], plan[1024];
	struct run_record r;

	tpath(path, sizeof(path), "big.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	CHECK_INT(history_begin(h, err, sizeof(err)), 0);
	int bad = 0;
	for (int i = 0; i < 10000; i++) {
		fixture(&r, i);
		run_record_alloc_series(&r, 0);
		bad += history_add(h, &r, err, sizeof(err)) != 0;
		run_record_clear(&r);
	}
	CHECK_INT(bad, 0);
	CHECK_INT(history_commit(h, err, sizeof(err)), 0);
	CHECK_INT(history_count(h, NULL, err, sizeof(err)), 10000);

	struct history_filter f = { .limit = 50 };
	CHECK_INT(history_list_plan(h, &f, plan, sizeof(plan), err, sizeof(err)), 0);
	CHECK(strstr(plan, "USING INDEX runs_started") != NULL);
	CHECK(strstr(plan, "TEMP B-TREE") == NULL);
	f.label = "odd";
	CHECK_INT(history_list_plan(h, &f, plan, sizeof(plan), err, sizeof(err)), 0);
	CHECK(strstr(plan, "USING INDEX runs_label (label=?)") != NULL);
	CHECK(strstr(plan, "TEMP B-TREE") == NULL);
	f = (struct history_filter){ .config_hash = "0123456789abcdef" };
	CHECK_INT(history_list_plan(h, &f, plan, sizeof(plan), err, sizeof(err)), 0);
	CHECK(strstr(plan, "USING INDEX runs_config (config_hash=?)") != NULL);

	struct run_record *v;
	size_t n;
	f = (struct history_filter){ .label = "odd", .limit = 20 };
	CHECK_INT(history_list(h, &f, 0, &v, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 20);
	run_records_free(v, n);
	history_close(h);
	rm_db(path);
}

TEST(history_refuses_newer_schema_and_garbage)
{
	char path[256], err[256];
	size_t n1, n2;

	tpath(path, sizeof(path), "new.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	history_close(h);
	CHECK_INT(raw_exec(path, "PRAGMA user_version = 99"), 0);
	char *before = slurp(path, &n1);
	err[0] = 0;
	CHECK(history_open(path, 0, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "schema version 99 is newer") != NULL);
	char *after = slurp(path, &n2);
	CHECK(before && after && n1 == n2 && !memcmp(before, after, n1));
	free(before);
	free(after);
	rm_db(path);

	/* Random bytes: refused with SQLite's reason, the file untouched, no
	 * WAL or shm file left beside it. */
	tpath(path, sizeof(path), "garbage.db");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	unsigned seed = 12345;
	char junk[8192];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(rand_r(&seed) & 0xff);
	CHECK(write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
	close(fd);
	err[0] = 0;
	CHECK(history_open(path, 0, err, sizeof(err)) == NULL);
	CHECK(strstr(err, path) != NULL);
	CHECK(strstr(err, "not a database") != NULL);
	CHECK(history_open(path, HISTORY_RDONLY, err, sizeof(err)) == NULL);
	after = slurp(path, &n2);
	CHECK(after && n2 == sizeof(junk) && !memcmp(after, junk, n2));
	free(after);
	char side[300];
	snprintf(side, sizeof(side), "%s-wal", path);
	CHECK(access(side, F_OK) != 0);
	rm_db(path);
}

TEST(history_missing_file_and_directories)
{
	char path[256], err[1024], dir[256];

	/* A read-only open never creates anything. */
	tpath(path, sizeof(path), "absent.db");
	CHECK(history_open(path, HISTORY_RDONLY, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "no history yet") != NULL);
	CHECK(access(path, F_OK) != 0);

	snprintf(dir, sizeof(dir), "%s/x", tdir());
	snprintf(path, sizeof(path), "%s/x/y/history.db", tdir());
	/* a path given: no directory is made for it */
	CHECK(history_open(path, 0, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "No such file or directory") != NULL);
	CHECK(access(dir, F_OK) != 0);
	/* the default path's are */
	struct history *h = history_open(path, HISTORY_PARENTS, err, sizeof(err));
	CHECK(h);
	history_close(h);
	CHECK(access(path, F_OK) == 0);
	rm_db(path);
	snprintf(path, sizeof(path), "%s/x/y", tdir());
	rmdir(path);
	rmdir(dir);

	/* Directories made for a file that then cannot be created go again. */
	char longname[300];
	memset(longname, 'n', 299);
	longname[299] = 0;
	snprintf(dir, sizeof(dir), "%s/made", tdir());
	char lpath[700];
	snprintf(lpath, sizeof(lpath), "%s/%s/history.db", dir, longname);
	err[0] = 0;
	CHECK(history_open(lpath, HISTORY_PARENTS, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "File name too long") != NULL);
	CHECK(access(dir, F_OK) != 0);

	char buf[512];
	setenv("XDG_DATA_HOME", "/srv/data", 1);
	CHECK_STR(history_default_path(buf, sizeof(buf), err, sizeof(err)),
		  "/srv/data/thrashtop/history.db");
	setenv("XDG_DATA_HOME", "relative/ignored", 1);
	setenv("HOME", "/home/u", 1);
	CHECK_STR(history_default_path(buf, sizeof(buf), err, sizeof(err)),
		  "/home/u/.local/share/thrashtop/history.db");
	unsetenv("XDG_DATA_HOME");
	unsetenv("HOME");
	CHECK(history_default_path(buf, sizeof(buf), err, sizeof(err)) == NULL);
	CHECK(strstr(err, "--history") != NULL);
}

/* A real read-only file even for root: a tmpfs remounted read-only. Without
 * root, a chmod 444 file (which root would bypass). */
TEST(history_read_only_file)
{
	char mnt[256], path[300], err[256];
	struct run_record r;
	bool mounted = false;

	snprintf(mnt, sizeof(mnt), "%s/ro", tdir());
	mkdir(mnt, 0700);
	if (geteuid() == 0) {
		mounted = mount("tmpfs", mnt, "tmpfs", 0, "size=1m,mode=0700") == 0;
		CHECK(mounted);
		if (!mounted)
			return;
	}
	snprintf(path, sizeof(path), "%s/history.db", mnt);
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (h) {
		fixture(&r, 1);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
		run_record_clear(&r);
		history_close(h);
	}
	if (mounted)
		CHECK_INT(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, "size=1m"), 0);
	else
		CHECK_INT(chmod(path, 0444), 0);

	err[0] = 0;
	CHECK(history_open(path, 0, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "cannot record runs") != NULL);
	CHECK(strstr(err, mounted ? "Read-only file system" : "Permission denied") != NULL);
	/* Reading still works. */
	h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	CHECK(h);
	if (h) {
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), 1);
		fixture(&r, 2);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), -1);
		CHECK(strstr(err, "read-only") != NULL);
		run_record_clear(&r);
		history_close(h);
	}
	if (mounted)
		CHECK_INT(umount(mnt), 0);
	else
		rm_db(path);
	rmdir(mnt);
}

/* A removed run's id is not given again. */
TEST(history_ids_not_reused)
{
	char path[256], err[256];
	struct run_record r;
	struct history *h;
	int64_t ids[4] = { 0 };

	tpath(path, sizeof(path), "ids.db");
	h = history_open_version(path, 0, 8, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	for (int i = 0; i < 3; i++) {
		fixture(&r, i);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
		ids[i] = r.id;
		run_record_clear(&r);
	}
	CHECK_INT(history_rm(h, ids[2], err, sizeof(err)), 0);
	history_close(h);
	/* a reader takes v8 as it is: nothing it reads came later */
	h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	CHECK(h && history_schema_version(h) == 8);
	if (h)
		history_close(h);
	h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	CHECK_INT(raw_int(path, "SELECT last FROM run_ids"), ids[1]);
	CHECK_INT(history_rm(h, ids[1], err, sizeof(err)), 0);
	fixture(&r, 3);
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	ids[3] = r.id;
	run_record_clear(&r);
	/* ids[2], removed under v8, left no trace and comes again; ids[1],
	 * removed since, does not */
	CHECK_INT(ids[3], ids[1] + 1);
	CHECK_INT(history_rm(h, ids[3], err, sizeof(err)), 0);
	fixture(&r, 4);
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK_INT(r.id, ids[3] + 1);
	run_record_clear(&r);
	/* no run 999, none to keep the id of */
	CHECK_INT(history_rm(h, 999, err, sizeof(err)), 1);
	CHECK_INT(raw_int(path, "SELECT last FROM run_ids"), ids[3]);
	/* a run another program put in, past the last id kept */
	CHECK_INT(raw_exec(path, "INSERT INTO runs(id, uuid, started_at, kind, status, config,"
			   " config_hash) VALUES(100, 'x', '', 'qsbench', 'ok', '', '')"), 0);
	fixture(&r, 5);
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK_INT(r.id, 101);
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}

TEST(history_full_disk_keeps_previous_rows)
{
	char mnt[256], path[300], fill[300], err[256];
	struct run_record r;

	if (geteuid() != 0) {
		/* Needs a small tmpfs mount; every e2e run is as root. */
		printf("  (history_full_disk: not root, mount skipped)\n");
		return;
	}
	snprintf(mnt, sizeof(mnt), "%s/full", tdir());
	mkdir(mnt, 0700);
	bool mounted = mount("tmpfs", mnt, "tmpfs", 0, "size=384k,mode=0700") == 0;
	CHECK(mounted);
	if (!mounted)
		return;
	snprintf(path, sizeof(path), "%s/history.db", mnt);
	snprintf(fill, sizeof(fill), "%s/filler", mnt);
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (h) {
		for (int i = 0; i < 3; i++) {
			fixture(&r, i);
			CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
			run_record_clear(&r);
		}
		/* Fill what is left of the file system. */
		int fd = open(fill, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		char block[4096];
		memset(block, 'x', sizeof(block));
		while (fd >= 0 && write(fd, block, sizeof(block)) > 0)
			;
		CHECK(errno == ENOSPC);
		if (fd >= 0)
			close(fd);

		fixture(&r, 9);
		free(r.proc_cmdline);
		r.proc_cmdline = malloc(64 * 1024);
		memset(r.proc_cmdline, 'm', 64 * 1024 - 1);
		r.proc_cmdline[64 * 1024 - 1] = 0;
		err[0] = 0;
		CHECK_INT(history_add(h, &r, err, sizeof(err)), -1);
		CHECK(strstr(err, "full") != NULL);
		CHECK_INT(r.id, 0);
		run_record_clear(&r);
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), 3);
		history_close(h);
	}
	unlink(fill);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM runs"), 3);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM workers"), 6);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM runs WHERE proc_cmdline LIKE 'mmm%'"), 0);
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *ok = NULL;
	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			ok = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	CHECK_STR(ok, "ok");
	free((void *)ok);
	CHECK_INT(umount(mnt), 0);
	rmdir(mnt);
}

TEST(history_two_writers_at_once)
{
	char path[256], err[256];
	pid_t pid[2];

	tpath(path, sizeof(path), "two.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	history_close(h);
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		if (pid[w] == 0) {
			char e[256];
			struct history *hh = history_open(path, 0, e, sizeof(e));
			int bad = !hh;
			for (int i = 0; hh && i < 200; i++) {
				struct run_record r;
				fixture(&r, w * 1000 + i);
				if (history_add(hh, &r, e, sizeof(e)) != 0) {
					fprintf(stderr, "writer %d: %s\n", w, e);
					bad++;
				}
				run_record_clear(&r);
			}
			history_close(hh);
			_exit(bad ? 1 : 0);
		}
	}
	for (int w = 0; w < 2; w++) {
		int st = -1;
		CHECK(waitpid(pid[w], &st, 0) == pid[w]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_INT(raw_int(path, "SELECT count(*) FROM runs"), 400);
	CHECK_INT(raw_int(path, "SELECT count(DISTINCT uuid) FROM runs"), 400);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM workers"), 800);
	CHECK_INT(raw_int(path, "PRAGMA journal_mode") == -1, 0);
	rm_db(path);
}

/* An import: many runs in one transaction, all or nothing. */
TEST(history_transaction_all_or_nothing)
{
	char path[256], err[256];
	struct run_record r;

	tpath(path, sizeof(path), "txn.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	CHECK_INT(history_begin(h, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++) {
		fixture(&r, i);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
		run_record_clear(&r);
	}
	/* A bad record fails alone (its savepoint), the others stay pending. */
	fixture(&r, 5);
	r.nsamples = RUN_SAMPLES_MAX + 1;
	CHECK_INT(history_add(h, &r, err, sizeof(err)), -1);
	CHECK(strstr(err, "samples (at most") != NULL);
	r.nsamples = 5;
	run_record_clear(&r);
	history_rollback(h);
	CHECK_INT(history_count(h, NULL, err, sizeof(err)), 0);

	/* In bulk, without savepoints, a batch commits or rolls back whole;
	 * a run already there is still found by its uuid, and what the
	 * schema's checks would refuse is refused before it is written. */
	history_bulk(h);
	for (int pass = 0; pass < 2; pass++) {
		CHECK_INT(history_begin(h, err, sizeof(err)), 0);
		for (int i = 2; i < 5; i++) {
			fixture(&r, i);
			CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
			run_record_clear(&r);
		}
		fixture(&r, 3);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 1);
		r.status = (enum run_status)(RUN_ABORTED + 1);
		r.uuid[0] = 0;
		CHECK_INT(history_add(h, &r, err, sizeof(err)), -1);
		CHECK(strstr(err, "bad run status") != NULL);
		run_record_clear(&r);
		if (pass == 0)
			history_rollback(h);
		else
			CHECK_INT(history_commit(h, err, sizeof(err)), 0);
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), pass ? 3 : 0);
	}
	CHECK_INT(history_get(h, 3, &r, err, sizeof(err)), 0);
	CHECK_INT(r.status, RUN_OOM);	/* fixture 4's, stored by name */
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}

static bool exists(const char *path, const char *suffix)
{
	char p[420];
	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return access(p, F_OK) == 0;
}

/* Reading a history creates no -wal or -shm (SQLite's read-only
 * connection makes both with the file's mode, and 0444 ones refuse every
 * later writer), also under a name with URI characters in it; with a
 * writer at work it reads under the writer's locks and sees its commits. */
TEST(history_read_leaves_nothing_behind)
{
	char path[400], err[256];
	struct run_record r;

	snprintf(path, sizeof(path), "%s/odd ?#%%name.db", tdir());
	struct history *w = history_open(path, 0, err, sizeof(err));
	CHECK(w);
	if (!w)
		return;
	fixture(&r, 1);
	CHECK_INT(history_add(w, &r, err, sizeof(err)), 0);
	run_record_clear(&r);
	history_close(w);
	CHECK(!exists(path, "-wal") && !exists(path, "-shm"));

	struct history *h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	CHECK(h);
	if (h) {
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), 1);
		history_close(h);
	}
	CHECK(!exists(path, "-wal"));
	CHECK(!exists(path, "-shm"));

	w = history_open(path, 0, err, sizeof(err));
	CHECK(w);
	fixture(&r, 2);
	CHECK_INT(history_add(w, &r, err, sizeof(err)), 0);
	run_record_clear(&r);
	h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	CHECK(h);
	if (h) {
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), 2);
		history_close(h);
	}
	history_close(w);
	CHECK(!exists(path, "-wal") && !exists(path, "-shm"));
	rm_db(path);
}

TEST(history_check_path_refuses_what_cannot_hold_a_history)
{
	char err[256], path[400];

	CHECK_INT(history_check_path("/tmp", err, sizeof(err)), -1);
	CHECK_STR(err, "--history /tmp: a directory, not a file");
	CHECK_INT(history_check_path("/dev/null", err, sizeof(err)), -1);
	CHECK_STR(err, "--history /dev/null: not a regular file");
	CHECK_INT(history_check_path("/proc/x", err, sizeof(err)), -1);
	CHECK_STR(err, "--history /proc/x: /proc takes no files");
	CHECK_INT(history_check_path("/proc/self/stat", err, sizeof(err)), -1);
	CHECK_INT(history_check_path("/dev/null/x.db", err, sizeof(err)), -1);
	CHECK_STR(err, "--history /dev/null/x.db: Not a directory");
	/* a path given gets no directories made: a typo makes none */
	snprintf(path, sizeof(path), "%s/new/dirs/h.db", tdir());
	CHECK_INT(history_check_path(path, err, sizeof(err)), -1);
	CHECK(strstr(err, "/new/dirs: No such file or directory") != NULL);
	snprintf(path, sizeof(path), "%s/h-new.db", tdir());
	CHECK_INT(history_check_path(path, err, sizeof(err)), 0);
	CHECK_INT(history_check_path("relative.db", err, sizeof(err)), 0);
}

/* A stop flag ends the wait for another writer's lock well before the
 * full HISTORY_BUSY_MS: a write that cannot get the lock fails, whole. */
TEST(history_stop_bounds_the_lock_wait)
{
	char path[400], err[256];
	struct run_record r;
	volatile sig_atomic_t stop = 1;
	struct timespec t0, t1;

	snprintf(path, sizeof(path), "%s/stop.db", tdir());
	struct history *holder = history_open(path, 0, err, sizeof(err));
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(holder && h);
	if (!holder || !h)
		return;
	CHECK_INT(history_begin(holder, err, sizeof(err)), 0);
	history_set_stop(h, &stop);
	fixture(&r, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(history_add(h, &r, err, sizeof(err)), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(strstr(err, "locked") != NULL);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("  gave up after %.0f ms (grace %d ms, full wait %d ms)\n", ms,
	       HISTORY_STOP_GRACE_MS, HISTORY_BUSY_MS);
	CHECK(ms < HISTORY_BUSY_MS);
	history_rollback(holder);
	/* the lock free: the same handle writes, flag or not */
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK_INT(history_count(h, NULL, err, sizeof(err)), 1);
	run_record_clear(&r);
	history_close(h);
	history_close(holder);
}

/* A writer waiting for the lock says so, and the holder sees it (a long
 * import commits then): no one is seen before it waits, and its run is
 * kept once the holder commits. */
TEST(history_contended_sees_a_waiting_writer)
{
	char path[400], err[256], c;
	struct run_record r;
	int go[2];

	snprintf(path, sizeof(path), "%s/contended.db", tdir());
	CHECK_INT(pipe(go), 0);
	/* forked before any connection: SQLite's must not cross a fork */
	pid_t pid = fork();
	if (pid == 0) {
		int rc = -1;
		close(go[1]);
		if (read(go[0], &c, 1) == 1) {
			struct history *w = history_open(path, 0, err, sizeof(err));
			if (w) {
				fixture(&r, 2);
				rc = history_add(w, &r, err, sizeof(err));
				history_close(w);
			}
		}
		_exit(rc == 0 ? 0 : 1);
	}
	close(go[0]);
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h != NULL);
	if (h && history_begin(h, err, sizeof(err)) == 0) {
		fixture(&r, 1);
		CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
		run_record_clear(&r);
		CHECK(!history_contended(h));
		CHECK_INT((int)write(go[1], "x", 1), 1);
		/* asked as an import asks, every 5 ms, up to 1,000 times */
		int asked = 0;
		bool seen = false;
		while (!seen && asked++ < 1000) {
			usleep(5000);
			seen = history_contended(h);
		}
		printf("  the waiting writer seen at ask %d\n", asked);
		CHECK(seen);
		CHECK_INT(history_commit(h, err, sizeof(err)), 0);
	}
	close(go[1]);
	int ws = -1;
	CHECK(waitpid(pid, &ws, 0) == pid);
	CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	if (h) {
		CHECK(!history_contended(h));
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), 2);
	}
	history_close(h);
}

/* An index made over an old history's runs may hold the write lock far
 * longer than HISTORY_BUSY_MS; a run ending meanwhile waits for it and is
 * kept. The index is made on the first write, and nothing is left beside
 * the file. */
TEST(history_write_waits_for_a_long_index_build)
{
	char path[400], build[420], err[256];
	int ready[2];
	struct run_record r;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/build.db", tdir());
	snprintf(build, sizeof(build), "%s-build", path);
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h != NULL);
	history_close(h);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "DROP INDEX runs_figures", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	h = history_open(path, 0, err, sizeof(err));
	CHECK(h != NULL);
	history_close(h);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_figures'",
				     -1, &st, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK(access(build, F_OK) != 0);

	/* a builder: the build lock, and the write lock past the full wait */
	CHECK_INT(pipe(ready), 0);
	pid_t pid = fork();
	if (pid == 0) {
		sqlite3 *b;
		int fd = open(build, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		int bad = fd < 0 || flock(fd, LOCK_EX) != 0 || sqlite3_open(path, &b) != SQLITE_OK ||
			  sqlite3_exec(b, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK;
		if (write(ready[1], "x", 1) != 1)
			bad = 1;
		usleep((HISTORY_BUSY_MS + 1500) * 1000);
		if (!bad)
			sqlite3_exec(b, "COMMIT", NULL, NULL, NULL);
		unlink(build);
		_exit(bad);
	}
	char c;
	CHECK_INT((int)read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	h = history_open(path, 0, err, sizeof(err));
	CHECK(h != NULL);
	if (h) {
		fixture(&r, 1);
		int rc = history_add(h, &r, err, sizeof(err));
		CHECK_INT(rc, 0);
		if (rc)
			printf("  %s\n", err);
		CHECK_INT(history_count(h, NULL, err, sizeof(err)), 1);
		run_record_clear(&r);
		history_close(h);
	}
	int ws = -1;
	CHECK(waitpid(pid, &ws, 0) == pid);
	CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

/* A 60 s run at -d 0.1 keeps all its 600 samples of every series. */
TEST(history_keeps_every_sample)
{
	char path[256], err[256];
	struct run_record r, got;
	const int n = 601;

	tpath(path, sizeof(path), "full.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	fixture(&r, 4);
	CHECK_INT(run_record_alloc_series(&r, n), 0);
	for (int id = 0; id < M_N; id++) {
		double *v = run_record_add_series(&r, id);
		for (int k = 0; v && k < n; k++)
			v[k] = id == M_FREE ? 1000000 - 37 * k : (k * 7919 % 1000) * 0.5;
	}
	for (int k = 0; k < n; k++)
		r.t[k] = k * 0.1;
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
	check_series(&r, &got);
	/* at most three bytes a sample for these, against eight for a double */
	CHECK(raw_int(path, "SELECT max(length(data)) FROM samples") <= 3 * n + 1);
	run_record_clear(&got);
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}

/* A run's reclaim events and summary: stored, read back, and through a
 * json export and its import, and a csv export and its, unchanged. */
TEST(history_reclaim_events_roundtrip)
{
	char path[256], err[256], *text = NULL;
	size_t len = 0;
	struct run_record r, got;
	struct import_runs back = { 0 };
	const struct import_sink sink = { import_collect, NULL, &back };
	FILE *f;

	tpath(path, sizeof(path), "ev.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	fixture(&r, 7);
	r.reclaim_direct_stalls = 2;
	r.reclaim_direct_p99_ms = 12.5;
	r.reclaim_events_past = 3;
	r.events = calloc(2, sizeof(*r.events));
	r.nevents = 2;
	r.events[0] = (struct run_event){ .t_s = 0.25, .dur_s = 0.0125, .pid = 77, .kind = "direct" };
	r.events[1] = (struct run_event){ .t_s = 1.5, .dur_s = 0, .pid = 78, .kind = "oom" };
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
	CHECK_INT(got.nevents, 2);
	CHECK_INT(got.reclaim_direct_stalls, 2);
	CHECK_INT(got.reclaim_events_past, 3);
	CHECK_NEAR(got.reclaim_direct_p99_ms, 12.5, 1e-12);
	if (got.nevents == 2) {
		CHECK_STR(got.events[0].kind, "direct");
		CHECK_NEAR(got.events[0].dur_s, 0.0125, 1e-12);
		CHECK_INT(got.events[1].pid, 78);
	}
	f = open_memstream(&text, &len);
	export_json(f, &got, 1);
	fclose(f);
	CHECK(strstr(text, "\"events\": [{\"kind\": \"direct\", \"t_s\": 0.250000, \"dur_s\": 0.012500, "
		       "\"pid\": 77}, {\"kind\": \"oom\""));
	CHECK_INT(import_json(text, &sink, err, sizeof(err)), 0);
	if (back.n != 1)
		printf("  %s\n", err);
	CHECK_INT(back.n, 1);
	if (back.n == 1) {
		CHECK_INT(back.runs[0].nevents, 2);
		CHECK_INT(back.runs[0].reclaim_events_past, 3);
		CHECK_STR(back.runs[0].events[1].kind, "oom");
	}
	CHECK_INT(import_json("{\"runs\":[{\"kind\":\"qsbench\",\"nelems\":1,\"procs\":1,"
			      "\"events\":[{\"kind\":\"nonsense\"}]}]}", &sink, err, sizeof(err)), -1);
	run_records_free(back.runs, back.n);
	back = (struct import_runs){ 0 };
	free(text);
	/* the csv: the same list in a cell of its own, read back the same */
	text = NULL;
	f = open_memstream(&text, &len);
	export_csv(f, &got, 1);
	fclose(f);
	CHECK(strstr(text, ",events,victims,metrics,series\n"));
	CHECK(strstr(text, ",\"[{\"\"kind\"\": \"\"direct\"\", \"\"t_s\"\": 0.250000, "
		       "\"\"dur_s\"\": 0.012500, \"\"pid\"\": 77}, {\"\"kind\"\": \"\"oom\"\", "
		       "\"\"t_s\"\": 1.500000, \"\"dur_s\"\": 0.000000, \"\"pid\"\": 78}]\","));
	CHECK_INT(import_csv(text, &sink, err, sizeof(err)), 0);
	if (back.n != 1)
		printf("  %s\n", err);
	CHECK_INT(back.n, 1);
	if (back.n == 1) {
		CHECK_INT(back.runs[0].nevents, 2);
		if (back.runs[0].nevents == 2) {
			CHECK_STR(back.runs[0].events[0].kind, "direct");
			CHECK_NEAR(back.runs[0].events[0].t_s, 0.25, 1e-12);
			CHECK_NEAR(back.runs[0].events[0].dur_s, 0.0125, 1e-12);
			CHECK_INT(back.runs[0].events[0].pid, 77);
			CHECK_STR(back.runs[0].events[1].kind, "oom");
			CHECK_INT(back.runs[0].events[1].pid, 78);
		}
	}
	run_records_free(back.runs, back.n);
	free(text);
	run_record_clear(&got);
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}

/* A run's OOM victims: stored, read back, and through a json export and
 * its import, a csv export and its, and history show, unchanged. */
TEST(history_oom_victims_roundtrip)
{
	char path[256], err[256], *text = NULL;
	size_t len = 0;
	struct run_record r, got;
	struct import_runs back = { 0 };
	const struct import_sink sink = { import_collect, NULL, &back };
	FILE *f;

	tpath(path, sizeof(path), "victims.db");
	struct history *h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	fixture(&r, 8);
	r.status = RUN_OOM;
	r.victims = calloc(2, sizeof(*r.victims));
	r.nvictims = 2;
	r.victims[0] = (struct run_victim){ .pid = 27224, .comm = "python3" };
	r.victims[1] = (struct run_victim){ .pid = 27230, .comm = "a \"b\" c" };
	r.oom_unnamed = 1;
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM victims"), 2);
	CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
	check_same(&r, &got);

	f = open_memstream(&text, &len);
	export_json(f, &got, 1);
	fclose(f);
	CHECK(strstr(text, "\"victims\": [{\"pid\": 27224, \"comm\": \"python3\"}, "
		       "{\"pid\": 27230, \"comm\": \"a \\\"b\\\" c\"}]"));
	CHECK(strstr(text, "\"oom_unnamed\": 1,"));
	CHECK_INT(import_json(text, &sink, err, sizeof(err)), 0);
	CHECK_INT(back.n, 1);
	if (back.n == 1) {
		back.runs[0].id = got.id;
		check_same(&got, &back.runs[0]);
	}
	run_records_free(back.runs, back.n);
	back = (struct import_runs){ 0 };
	free(text);
	CHECK_INT(import_json("{\"runs\":[{\"kind\":\"qsbench\",\"nelems\":1,\"procs\":1,"
			      "\"victims\":[{\"comm\":\"x\"}]}]}", &sink, err, sizeof(err)), -1);
	CHECK_INT(import_json("{\"runs\":[{\"kind\":\"qsbench\",\"nelems\":1,\"procs\":1,"
			      "\"victims\":[{\"pid\":1,\"comm\":\"sixteen bytes ab\"}]}]}", &sink,
			      err, sizeof(err)), -1);

	text = NULL;
	f = open_memstream(&text, &len);
	export_csv(f, &got, 1);
	fclose(f);
	CHECK(strstr(text, ",\"[{\"\"pid\"\": 27224, \"\"comm\"\": \"\"python3\"\"}, "));
	CHECK_INT(import_csv(text, &sink, err, sizeof(err)), 0);
	CHECK_INT(back.n, 1);
	if (back.n == 1) {
		back.runs[0].id = got.id;
		check_same(&got, &back.runs[0]);
	}
	run_records_free(back.runs, back.n);
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	report_show(f, &got);
	fclose(f);
	CHECK(strstr(text, "\nvictim      27224 (python3)\n"));
	CHECK(strstr(text, "\nvictim      1 more the run's cgroup counted, unnamed\n"));
	CHECK(!strstr(text, "oom_unnamed"));
	free(text);
	run_record_clear(&got);
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}
