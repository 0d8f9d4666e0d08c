#include "report_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record_fixture.h"

#define GOLDEN_DIR "tests/golden/"

static const struct {
	int64_t wall_ms, user_ms, sys_ms, majflt;
	double kswapd;
	int swappiness;
	enum run_status st;
} fx[] = {
	{ 153290, 70270, 7330, 19670, 0.61, 60, RUN_OK },
	{ 152290, 70090, 6890, 18337, 0.42, 60, RUN_OK },
	{ 149290, 70510, 6660, 18463, 0.37, 60, RUN_OK },
	{ 144390, 70510, 6390, 17902, 1.10, 100, RUN_OK },
	{ 176970, 70600, 7600, 23599, 1.35, 100, RUN_OK },
	{ 79950, 17770, 3160, 13294, 2.02, 100, RUN_OOM },
};
#define NFX (sizeof(fx) / sizeof(fx[0]))

void fixture_runs(struct run_record *v, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < NFX; i++, k++) {
		struct run_record *r = &v[k];
		fixture_record(r);
		r->id = (int64_t)i + 1;
		snprintf(r->uuid, sizeof(r->uuid), "%032zx", i + 1);
		snprintf(r->started_at, sizeof(r->started_at), "2025-03-0%zuT09:00:00Z", 1 + i);
		snprintf(r->label, sizeof(r->label), "swap%d", fx[i].swappiness);
		r->procs = 2;
		r->repeat_k = (int)(i % 3) + 1;
		r->status = fx[i].st;
		r->wall_us = fx[i].wall_ms * 1000;
		r->user_us = fx[i].user_ms * 1000;
		r->sys_us = fx[i].sys_ms * 1000;
		r->cpu_pct = 100.0 * (double)(r->user_us + r->sys_us) / (double)r->wall_us;
		r->majflt = fx[i].majflt;
		r->minflt = 1000 + (int64_t)i;
		r->oublock = 16;
		r->maxrss_kib = i == 7 ? NA : 352000 + (int64_t)i;
		r->kswapd_s = fx[i].kswapd;
		r->interval_s = 1;
		r->swap_peak_kib = 180000 + 1000 * (int64_t)i;
		r->kernel_version = strdup("#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)");
		r->proc_cmdline = strdup("BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 "
					 "root=UUID=0a1b2c3d-4e5f-6789-abcd-ef0123456789 ro quiet "
					 "mem=256M");
		r->swap_devices = strdup("/swapfile file 195512 0 -2");
		r->swappiness = fx[i].swappiness;
		r->nworkers = 2;
		r->workers = calloc(2, sizeof(*r->workers));
		for (int w = 0; w < 2; w++) {
			struct run_worker *wk = &r->workers[w];
			wk->pid = 4000 + 10 * (int)i + w;
			wk->end = END_OK;
			wk->exit_code = 0;
			wk->user_us = r->user_us / 2;
			wk->sys_us = r->sys_us / 2;
			wk->majflt = r->majflt / 2;
			wk->minflt = r->minflt / 2;
			wk->first_bad = NA;
			/* the first run is from before delay accounting */
			delays_clear(&wk->delays);
			if (i > 0) {
				wk->delays.s[DL_SWAPIN] = (double)fx[i].majflt / 1000 * (w + 1);
				wk->delays.s[DL_RECLAIM] = 0.125 * (double)i;
				wk->delays.s[DL_THRASHING] = 0.5;
				wk->delays.s[DL_IO] = 0.0;
				wk->delays.s[DL_CPU] = 1.5 + 0.25 * w;
			}
			delays_add(&r->stalls, &wk->delays);
		}
		if (fx[i].st == RUN_OOM) {
			r->workers[1].end = END_OOM;
			r->workers[1].exit_code = NA;
			r->workers[1].signal = 9;
		}
		if (fx[i].swappiness == 100) {
			r->nchanges = 1;
			r->changes = calloc(1, sizeof(*r->changes));
			r->changes[0].t_s = 0.25;
			snprintf(r->changes[0].name, sizeof(r->changes[0].name), "vm.swappiness");
			snprintf(r->changes[0].old_val, sizeof(r->changes[0].old_val), "60");
			snprintf(r->changes[0].new_val, sizeof(r->changes[0].new_val), "100");
		}
		/* A ramp of swap and a burst of faults, with one gap. */
		int np = 40;
		run_record_alloc_series(r, np);
		for (int id = 0; id < M_N; id++)
			if (id <= M_MINFLT || id == M_KSWAPD_CPU || id == M_SCAN_KSWAPD)
				run_record_add_series(r, id);
		for (int p = 0; p < np; p++) {
			r->t[p] = (double)p * (double)r->wall_us / 1e6 / (np - 1);
			r->series[M_SWAP_USED][p] = p < 30 ? 6000 * p : 180000;
			r->series[M_FREE][p] = 200000 - 4000 * (p % 20);
			r->series[M_AVAIL][p] = 210000 - 4000 * (p % 20);
			r->series[M_CACHED][p] = 1000;
			r->series[M_SWAP_CACHED][p] = p < 30 ? 2000 * p : 20000;
			r->series[M_MAJFLT][p] = p > 10 && p < 30 ? 250 + 10 * (p % 7) : 0;
			r->series[M_MINFLT][p] = 5000 - 100 * p;
			r->series[M_SCAN_KSWAPD][p] = p * 0.25;
			r->series[M_KSWAPD_CPU][p] = p == 5 ? NAN : p % 4;
		}
		run_record_config(r);
	}
	/* A command run, no kswapd figure, no series. */
	struct run_record *r = &v[k++];
	run_record_init(r);
	r->id = 7;
	snprintf(r->uuid, sizeof(r->uuid), "%032x", 7);
	snprintf(r->started_at, sizeof(r->started_at), "2025-03-08T10:30:00Z");
	r->kind = RUN_COMMAND;
	r->command = strdup("make -j4 \"KCFLAGS=-O2, -g\"");
	r->status = RUN_FAILED;
	r->wall_us = 650000000;
	r->user_us = 548270000;
	r->sys_us = 94180000;
	r->cpu_pct = 98.8;
	r->majflt = 450479;
	r->minflt = 696869;
	r->inblock = 8;
	r->oublock = 1024;
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0-18-amd64");
	snprintf(r->hostname, sizeof(r->hostname), "lenstra");
	r->ncpus = 2;
	r->ram_kib = 255984;
	r->swap_total_kib = 195512;
	r->swappiness = 60;
	r->nworkers = 1;
	r->workers = calloc(1, sizeof(*r->workers));
	r->workers[0] = (struct run_worker){ 5001, END_EXIT, 2, 0, 548270000, 94180000, 450479,
					     696869, 0, NA, DELAYS_NONE };
	run_record_config(r);
	*n = k;
}

char *render(int (*fn)(FILE *, const struct run_record *, size_t, void *),
	     const struct run_record *v, size_t n, void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_INT(fn(f, v, n, arg), 0);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&buf, &len);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

void golden(const char *name, const char *got)
{
	char path[256];

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", name);
	if (getenv("THRASHTOP_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs(got ? got : "", f);
			fclose(f);
		}
		return;
	}
	char *want = slurp(path);
	if (!want || !got || strcmp(want, got)) {
		size_t i = 0, line = 1;
		while (want && got && want[i] && want[i] == got[i])
			line += want[i++] == '\n';
		t_fail(__FILE__, __LINE__, "%s differs from the golden file at line %zu%s", path, line,
		       want ? "" : " (golden file missing)");
	}
	free(want);
}

void timed_runs(struct run_record *v, int n, const int64_t *wall, const int64_t *usr,
		const int64_t *sys)
{
	for (int i = 0; i < n; i++) {
		fixture_record(&v[i]);
		v[i].id = i + 1;
		snprintf(v[i].started_at, sizeof(v[i].started_at), "2025-05-%02dT00:00:00Z",
			 (i + 1) % 100);
		v[i].wall_us = wall[i];
		v[i].user_us = usr[i];
		v[i].sys_us = sys[i];
		v[i].cpu_pct = 100.0 * (double)(usr[i] + sys[i]) / (double)wall[i];
		run_record_config(&v[i]);
	}
}
