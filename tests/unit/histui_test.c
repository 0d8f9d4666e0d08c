#include <curses.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "histui.h"
#include "history.h"
#include "monview.h"
#include "tui.h"

static int cols_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* The seed's first csh line: 70.270u 7.330s 2:33.29 50.6% ... 19670pf+0w */
static void seed_run(struct run_record *r, int64_t id)
{
	run_record_init(r);
	r->id = id;
	snprintf(r->started_at, sizeof(r->started_at), "2025-03-04T09:05:00Z");
	snprintf(r->label, sizeof(r->label), "swap100");
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0-18-amd64");
	r->kind = RUN_QSBENCH;
	r->nelems = 90000000;
	r->procs = 2;
	r->seed = 140175100;
	r->repeat_k = 2;
	r->repeat_n = 3;
	r->status = RUN_OK;
	r->wall_us = 153290000;
	r->user_us = 70270000;
	r->sys_us = 7330000;
	r->majflt = 19670;
	r->minflt = 12;
	r->inblock = r->oublock = 0;
	r->kswapd_s = 1.25;
	r->ram_kib = 262144;
	r->swap_total_kib = 100000;
}

static struct histui_cols cols_for(const struct run_record *r, int width)
{
	struct histui_want want = { 0 };
	struct histui_cols c;

	histui_want_run(&want, r);
	histui_columns(width, &want, &c);
	return c;
}

TEST(histui_row_80_columns)
{
	struct run_record r;
	struct histui_cols c;
	char buf[1024], want[128];

	seed_run(&r, 12345);
	c = cols_for(&r, 80);
	histui_format_run(&r, true, &c, 80, false, buf, sizeof(buf));
	CHECK_INT(cols_of(buf), 80);
	CHECK_INT(c.started, 11);
	CHECK(buf[0] == '*');
	CHECK(!strncmp(buf + 1, "12345 03-04 09:05 ", 18));
	CHECK(strstr(buf, "2:33.29") != NULL);
	CHECK(strstr(buf, "19670") != NULL);
	CHECK(strstr(buf, "1.25s") != NULL);
	CHECK(strstr(buf, " ok") != NULL);
	/* the parameters are cut on a blank: a number is whole or absent */
	CHECK(strstr(buf, "-n 90000000") != NULL);
	CHECK(strstr(buf, "-n 9000000 ") == NULL);
	/* every column is where the header says */
	histui_format_run(NULL, false, &c, 80, false, want, sizeof(want));
	CHECK_INT(cols_of(want), 80);
	CHECK(strstr(want, "STATUS") == want + 80 - 6);
	CHECK(strstr(buf, "ok    ") == buf + 80 - 6);
	CHECK(strstr(want, "WORKLOAD") - want == strstr(buf, "-n 9") - buf);
	run_record_clear(&r);
}

TEST(histui_row_200_columns_whole)
{
	struct run_record r;
	struct histui_cols c;
	const char *whole = "  7 2025-03-04 09:05 swap100 6.1.0-18-amd64 "
			    "-n 90000000 -p 2 -s 140175100 2:33.29    1.23G    n/a OOM ";
	char buf[2048];

	seed_run(&r, 7);
	r.status = RUN_OOM;
	r.kswapd_s = NAN;
	r.majflt = 1234567890;
	c = cols_for(&r, 200);
	histui_format_run(&r, false, &c, 200, true, buf, sizeof(buf));
	CHECK_INT(cols_of(buf), 200);
	CHECK_INT(c.started, 16);
	CHECK(!strncmp(buf, whole, strlen(whole)));
	CHECK(strstr(buf, "1.23G") != NULL);	/* 10 digits in an 8-column field */
	CHECK(strstr(buf, "n/a") != NULL);
	CHECK(strstr(buf, "OOM") != NULL);
	CHECK(strstr(buf, "\u2026") == NULL);	/* nothing cut */
	run_record_clear(&r);
}

TEST(histui_row_kernel_keeps_its_version)
{
	struct run_record r[2];
	struct histui_want want = { 0 };
	struct histui_cols c;
	char buf[1024];

	seed_run(&r[0], 1441);
	seed_run(&r[1], 2);
	snprintf(r[0].label, sizeof(r[0].label), "pressure");
	snprintf(r[0].kernel_release, sizeof(r[0].kernel_release), "6.18.44-fc-v782");
	r[0].nelems = 25000000;
	histui_want_run(&want, &r[0]);
	histui_want_run(&want, &r[1]);
	CHECK_INT(want.kernel_min, 9);
	histui_columns(80, &want, &c);
	CHECK(c.kernel >= 9);
	histui_format_run(&r[0], false, &c, 80, true, buf, sizeof(buf));
	CHECK_INT(cols_of(buf), 80);
	CHECK(strstr(buf, " 6.18.44-\u2026") != NULL);
	CHECK(strstr(buf, " -n 25000000 ") != NULL);
	run_record_clear(&r[0]);
	run_record_clear(&r[1]);
}

TEST(histui_row_command_cut_with_ellipsis)
{
	struct run_record r;
	struct histui_cols c;
	char buf[1024];

	seed_run(&r, 3);
	r.kind = RUN_COMMAND;
	r.command = strdup("make -j2 -C linux\tbzImage modules and a very long tail of arguments");
	c = cols_for(&r, 80);
	histui_format_run(&r, false, &c, 80, true, buf, sizeof(buf));
	CHECK_INT(cols_of(buf), 80);
	CHECK(strstr(buf, "make -j2") != NULL);
	CHECK(strstr(buf, "\u2026") != NULL);
	CHECK(strchr(buf, '\t') == NULL);
	run_record_clear(&r);
}

/* The reports' workload text and the history view's are one line alike. */
TEST(histui_workload_one_line_as_reports)
{
	struct run_record r;
	char view[256], report[256];

	seed_run(&r, 3);
	r.kind = RUN_COMMAND;
	r.command = strdup("python3 -c a=1\nb=2\t\033x");
	run_record_workload(&r, report, sizeof(report));
	CHECK_STR(report, "python3 -c a=1 b=2  x");
	CHECK_STR(histui_params(&r, view, sizeof(view)), report);
	run_record_clear(&r);
}

TEST(histui_columns_give_way_widest_first)
{
	struct histui_want want = { .id = 5, .label = 1, .kernel = 15, .params = 28,
				    .wall = 7, .majflt = 5, .kswapd = 5, .status = 2 };
	struct histui_cols c;

	/* 80: the fixed columns take 50, 30 are left; the parameters keep
	 * 8 more than the kernel while both shrink */
	histui_columns(80, &want, &c);
	CHECK_INT(c.started, 11);
	CHECK_INT(c.wall, 7);
	CHECK_INT(c.majflt, 6);		/* the header's width */
	CHECK_INT(c.status, 6);
	CHECK_INT(c.label, 5);
	CHECK_INT(c.kernel, 9);
	CHECK_INT(c.params, 16);
	/* 200: every column as wide as it wants */
	histui_columns(200, &want, &c);
	CHECK_INT(c.started, 16);
	CHECK_INT(c.label, 5);
	CHECK_INT(c.kernel, 15);
	CHECK_INT(c.params, 28);
	/* 60: the start time goes first */
	histui_columns(60, &want, &c);
	CHECK_INT(c.started, 0);
	CHECK_INT(c.label + c.kernel + c.params, 60 - 38);
	/* too narrow even for the minimums: 5 each, the row is cut */
	want.id = 12;
	histui_columns(60, &want, &c);
	CHECK_INT(c.label, 5);
	CHECK_INT(c.kernel, 5);
	CHECK_INT(c.params, 5);
}

TEST(histui_page_arithmetic)
{
	long off = -7, lim = -7;

	/* nothing loaded: the first page */
	CHECK(histui_page(0, 20, 10000, 0, 0, 200, &off, &lim));
	CHECK_INT(off, 0);
	CHECK_INT(lim, 200);
	/* inside the loaded page: no query */
	CHECK(!histui_page(150, 20, 10000, 0, 200, 200, &off, &lim));
	CHECK(!histui_page(180, 20, 10000, 0, 200, 200, &off, &lim));
	/* one row past it: a page starting a quarter of the spare above */
	CHECK(histui_page(181, 20, 10000, 0, 200, 200, &off, &lim));
	CHECK_INT(off, 181 - 45);
	CHECK_INT(lim, 200);
	/* the end: the page ends at the last row */
	CHECK(histui_page(9980, 20, 10000, 0, 200, 200, &off, &lim));
	CHECK_INT(off, 9800);
	/* a short list: one page holds it */
	CHECK(histui_page(0, 20, 50, 0, 0, 200, &off, &lim));
	CHECK_INT(off, 0);
	CHECK(!histui_page(0, 20, 50, 0, 50, 200, &off, &lim));
	/* a screen taller than half a page gets twice its rows */
	CHECK(histui_page(0, 150, 10000, 0, 0, 200, &off, &lim));
	CHECK_INT(lim, 300);
	/* nothing to show */
	CHECK(!histui_page(0, 20, 0, 0, 0, 200, &off, &lim));
}

TEST(histui_move_keeps_cursor_in_window)
{
	long cur = 0, top = 0;

	histui_move(&cur, &top, 100, 10, 15);
	CHECK_INT(cur, 15);
	CHECK_INT(top, 6);
	histui_move(&cur, &top, 100, 10, -3);
	CHECK_INT(cur, 12);
	CHECK_INT(top, 6);
	histui_move(&cur, &top, 100, 10, -100);
	CHECK_INT(cur, 0);
	CHECK_INT(top, 0);
	histui_move(&cur, &top, 100, 10, LONG_MAX);
	CHECK_INT(cur, 99);
	CHECK_INT(top, 90);
	/* the list shrank under the cursor (a filter) */
	histui_move(&cur, &top, 30, 10, 0);
	CHECK_INT(cur, 29);
	CHECK_INT(top, 20);
	/* the window grew taller than the list */
	histui_move(&cur, &top, 30, 40, 0);
	CHECK_INT(top, 0);
	histui_move(&cur, &top, 0, 10, 1);
	CHECK_INT(cur, 0);
	CHECK_INT(top, 0);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

TEST(histui_cache_pages_10000_runs)
{
	char path[] = "/tmp/histui-test-XXXXXX", db[64], err[512];
	struct histui_cache c = { .total = -1 };
	struct history_filter f = { 0 };
	struct history *h;
	double t0, t1;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	unlink(path);
	snprintf(db, sizeof(db), "%s.db", path);
	h = history_open(db, 0, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_INT(history_begin(h, err, sizeof(err)), 0);
	for (int i = 0; i < 10000; i++) {
		struct run_record r;
		unsigned u = (unsigned)i;

		seed_run(&r, 0);
		snprintf(r.started_at, sizeof(r.started_at), "2025-%02u-%02uT%02u:%02u:00Z",
			 1 + u / 1440 / 28 % 12, 1 + u / 1440 % 28, u / 60 % 24, u % 60);
		snprintf(r.label, sizeof(r.label), "%s", i % 2 ? "odd" : "even");
		r.wall_us += i;
		if (history_add(h, &r, err, sizeof(err)) < 0) {
			CHECK_STR(err, "");
			run_record_clear(&r);
			break;
		}
		run_record_clear(&r);
	}
	CHECK_INT(history_commit(h, err, sizeof(err)), 0);

	t0 = now_ms();
	CHECK_INT(histui_cache_load(&c, h, &f, 0, 20, err, sizeof(err)), 0);
	t1 = now_ms();
	printf("  histui: first page of 10000 runs (count + %zu rows) in %.1f ms\n", c.n, t1 - t0);
	CHECK_INT(c.total, 10000);
	CHECK_INT(c.n, HISTUI_PAGE);
	CHECK_INT(c.off, 0);
	CHECK_INT(c.runs[0].id, 10000);	/* newest first */
	CHECK_INT(c.runs[0].wall_us, 153290000 + 9999);

	/* scrolling inside the page queries nothing: the rows stay put */
	struct run_record *before = c.runs;
	CHECK_INT(histui_cache_load(&c, h, &f, 100, 20, err, sizeof(err)), 0);
	CHECK(c.runs == before);

	/* End: the last page */
	t0 = now_ms();
	CHECK_INT(histui_cache_load(&c, h, &f, 9980, 20, err, sizeof(err)), 0);
	t1 = now_ms();
	printf("  histui: last page of 10000 runs in %.1f ms\n", t1 - t0);
	CHECK_INT(c.off, 9800);
	CHECK_INT(c.n, 200);
	CHECK_INT(c.runs[199].id, 1);

	/* a label filter counts and pages its own rows */
	histui_cache_drop(&c);
	f.label = "odd";
	CHECK_INT(histui_cache_load(&c, h, &f, 0, 20, err, sizeof(err)), 0);
	CHECK_INT(c.total, 5000);
	CHECK_INT(c.runs[0].id, 10000);
	CHECK_STR(c.runs[1].label, "odd");
	CHECK_INT(c.runs[1].id, 9998);
	histui_cache_drop(&c);
	f.label = NULL;
	f.kernel = "no-such-kernel";
	CHECK_INT(histui_cache_load(&c, h, &f, 0, 20, err, sizeof(err)), 0);
	CHECK_INT(c.total, 0);
	CHECK_INT(c.n, 0);
	histui_cache_drop(&c);
	history_close(h);
	unlink(db);
	for (int i = 0; i < 2; i++) {
		char side[80];

		snprintf(side, sizeof(side), "%s-%s", db, i ? "shm" : "wal");
		unlink(side);
	}
}

static int count_attr(const struct detail_lines *t, int attr)
{
	int n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].attr == attr;
	return n;
}

static const struct detail_line *find_line(const struct detail_lines *t, const char *prefix)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->v[i].text, prefix, strlen(prefix)))
			return &t->v[i];
	return NULL;
}

static bool any_line(const struct detail_lines *t, const char *needle)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(t->v[i].text, needle))
			return true;
	return false;
}

TEST(histui_detail_lines_and_plots)
{
	struct run_record r;
	struct detail_lines t;
	const struct detail_line *l;
	const int w = 70, ph = 4, np = 30;

	seed_run(&r, 42);
	r.kernel_version = strdup("#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)");
	r.proc_cmdline = strdup("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet mem=256M");
	r.swappiness = 100;
	r.zswap = 0;
	CHECK_INT(run_record_alloc_series(&r, np), 0);
	for (int id = 0; id < M_N; id++)
		if (id <= M_MINFLT || id == M_KSWAPD_CPU)
			run_record_add_series(&r, id);
	for (int i = 0; i < np; i++) {
		r.t[i] = i * 5;
		/* swap fills linearly up to the swap total at the end */
		r.series[M_SWAP_USED][i] = 100000.0 * i / (np - 1);
		r.series[M_FREE][i] = 5000;
		r.series[M_AVAIL][i] = 9000;
		r.series[M_CACHED][i] = 4000;
		r.series[M_MAJFLT][i] = i * 10;
		r.series[M_MINFLT][i] = 3;
		r.series[M_KSWAPD_CPU][i] = NAN;
	}
	CHECK_INT(histui_detail(&r, w, ph, PLOT_ASCII, &t), 0);
	l = find_line(&t, "time (csh)");
	CHECK(l != NULL);
	if (l)
		CHECK_STR(l->text + 12, "70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w");
	l = find_line(&t, "time (GNU)");
	CHECK(l != NULL);
	if (l)
		CHECK_STR(l->text + 12, "70.27user 7.33system 2:33.29 50%CPU (19670major+12minor)");
	l = find_line(&t, "kswapd ");
	CHECK(l != NULL);
	if (l)
		CHECK_STR(l->text + 12, "0:01 kswapd (1.25 s of CPU)");
	CHECK(find_line(&t, "workload    qsbench -n 90000000 -p 2 -s 140175100") != NULL);
	l = find_line(&t, "vm sysctls");
	CHECK(l && strstr(l->text, "swappiness=100 "));
	CHECK(any_line(&t, "            dirty_background_ratio=n/a zswap=off"));	/* wrapped */
	CHECK(find_line(&t, "kswapd CPU  n/a (kswapd was not visible)") != NULL);
	/* five plots of ph rows, each row exactly the width */
	CHECK_INT(count_attr(&t, DA_PLOT + M_SWAP_USED), ph);
	CHECK_INT(count_attr(&t, DA_PLOT + M_MAJFLT), ph);
	CHECK_INT(count_attr(&t, DA_PLOT + M_KSWAPD_CPU), 0);
	for (size_t i = 0; i < t.n; i++) {
		if (t.v[i].attr >= DA_PLOT)
			CHECK_INT(cols_of(t.v[i].text), w);
		CHECK(cols_of(t.v[i].text) <= w || t.v[i].attr == DA_PLAIN);
	}
	/* the swap plot spans the run: empty top-left, full top-right */
	for (size_t i = 0; i < t.n; i++) {
		if (t.v[i].attr != DA_PLOT + M_SWAP_USED)
			continue;
		CHECK(t.v[i].text[0] == ' ');
		CHECK(t.v[i].text[w - 1] != ' ');
		break;
	}
	l = find_line(&t, "swap used  peak 98M");
	CHECK(l && strstr(l->text, "scale 0..98M"));
	CHECK(find_line(&t, "0.0s") && strstr(find_line(&t, "0.0s")->text, "145s"));
	detail_lines_free(&t);

	/* a run recorded without samples says so */
	run_record_clear(&r);
	seed_run(&r, 43);
	CHECK_INT(histui_detail(&r, 80, 4, PLOT_BRAILLE, &t), 0);
	CHECK(find_line(&t, "no samples recorded") != NULL);
	CHECK_INT(count_attr(&t, DA_PLOT + M_SWAP_USED), 0);
	detail_lines_free(&t);

	/* no peak taken: unknown with swap, none without */
	r.swap_peak_kib = NA;
	r.free_before.swap_total = r.free_after.swap_total = 200 << 10;
	CHECK_INT(histui_detail(&r, 80, 4, PLOT_BRAILLE, &t), 0);
	CHECK(find_line(&t, "memory      swap peak n/a,") != NULL);
	detail_lines_free(&t);
	r.free_before.swap_total = r.free_after.swap_total = 0;
	CHECK_INT(histui_detail(&r, 80, 4, PLOT_BRAILLE, &t), 0);
	CHECK(find_line(&t, "memory      swap peak none (no swap),") != NULL);
	detail_lines_free(&t);

	/* an unknown kswapd: not visible to thrashtop, or not in a post */
	r.kswapd_s = NAN;
	snprintf(r.version, sizeof(r.version), "1.0");
	CHECK_INT(histui_detail(&r, 80, 4, PLOT_BRAILLE, &t), 0);
	CHECK(find_line(&t, "kswapd      n/a kswapd (kswapd was not visible)") != NULL);
	CHECK(find_line(&t, "recorded by thrashtop 1.0, group ") != NULL);
	detail_lines_free(&t);
	r.version[0] = 0;
	CHECK_INT(histui_detail(&r, 80, 4, PLOT_BRAILLE, &t), 0);
	CHECK(find_line(&t, "kswapd      n/a kswapd (not recorded for this run)") != NULL);
	CHECK(find_line(&t, "recorded by posted text, group ") != NULL);
	detail_lines_free(&t);
	run_record_clear(&r);
}

TEST(histui_key_h_and_no_terminal)
{
	char err[256] = "";

	CHECK_INT(tui_key_action(monview_keys, monview_nkeys, 'h'), MV_HISTORY);
	CHECK(histui_open(NULL, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not set up") != NULL);
}
