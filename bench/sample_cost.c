/* The monitor's sampling cost per tick, through the real sampler, at
 * several worker counts: one system sample plus what the monitor reads,
 * /proc/PID/stat of the rows a 200x60 screen shows (the layout's own
 * count), and while swap is in use status too, of each row once a second
 * as the session reads it (a tenth of the rows each tick at 0.1 s); and,
 * for scale, stat of
 * every worker. The workers
 * are sleeping children (the kernel formats their /proc files the same
 * way whatever they run). Cost is this thread's CPU time (user + kernel),
 * median over the rounds, so other load on the machine does not count.
 * Also prints the kernel's own cost of each per-process file, the floor
 * under any reader, and what each read of the system sample costs:
 * libproc2's select of the items the sampler takes, and a bare pread of
 * the same file (the kernel's formatting, the floor under any reader). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libproc2/meminfo.h>
#include <libproc2/stat.h>
#include <libproc2/vmstat.h>

#include "monscreen.h"
#include "procparse.h"
#include "sampler.h"

#define MAXW 1024

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median CPU us of one kept-open pread of FILE over the first n pids. */
static double file_cost(const pid_t *pids, int n, const char *file, int rounds)
{
	static int fds[MAXW];
	double *t = calloc((size_t)rounds, sizeof(*t)), m;
	char buf[8192], path[64];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pids[i], file);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	for (int r = 0; r < rounds; r++) {
		double t0 = cpu_us();
		for (int i = 0; i < n; i++)
			if (pread(fds[i], buf, sizeof(buf), 0) < 0)
				perror(path);
		t[r] = (cpu_us() - t0) / n;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	m = median(t, rounds);
	free(t);
	return m;
}

/* Median CPU us of one pread of a whole /proc file through a kept-open fd. */
/* A /proc file whole into buf, from its start: its length. */
static size_t read_whole(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t k;

	while ((k = pread(fd, buf + n, size - n, (off_t)n)) > 0)
		n += (size_t)k;
	return n;
}

static double pread_cost(const char *path, int rounds, double *t)
{
	static char buf[16384];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (int r = 0; r < rounds; r++) {
		double t0 = cpu_us();

		read_whole(fd, buf, sizeof(buf));
		t[r] = cpu_us() - t0;
	}
	close(fd);
	return median(t, rounds);
}

/* /proc/vmstat as the sampler reads it: one read, one pass for its 19
 * counters. */
static double vmstat_hand_cost(int rounds, double *t)
{
	static const char *const keys[19] = { "pgfault", "pgmajfault", "pswpin", "pswpout",
		"pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct", "oom_kill",
		"workingset_refault_anon", "workingset_refault_file", "zswpin", "zswpout",
		"zswpwb", "allocstall_dma", "allocstall_dma32", "allocstall_normal",
		"allocstall_movable", "allocstall_device" };
	static char buf[16384];
	int64_t v[19];
	int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (int r = 0; r < rounds; r++) {
		double t0 = cpu_us();

		procparse_vmstat(buf, read_whole(fd, buf, sizeof(buf)), keys, 19, v);
		t[r] = cpu_us() - t0;
	}
	close(fd);
	return median(t, rounds);
}

/* The parts of a system sample: each libproc2 select with as many items
 * as the sampler asks for, beside a bare read of its file. The sampler
 * reads /proc/vmstat by hand (see src/sampler.c): the third figure. */
static void sys_parts(int rounds, double *t)
{
	enum meminfo_item mi[13] = { MEMINFO_MEM_TOTAL, MEMINFO_MEM_FREE,
		MEMINFO_MEM_AVAILABLE, MEMINFO_MEM_CACHED, MEMINFO_MEM_BUFFERS,
		MEMINFO_MEM_SHARED, MEMINFO_SWAP_TOTAL, MEMINFO_SWAP_FREE, MEMINFO_SWAP_USED,
		MEMINFO_SWAP_CACHED, MEMINFO_MEM_HUGETBL, MEMINFO_MEM_LOCKED,
		MEMINFO_MEM_CACHED_ALL };
	enum vmstat_item vi[13] = { VMSTAT_PGFAULT, VMSTAT_PGMAJFAULT, VMSTAT_PSWPIN,
		VMSTAT_PSWPOUT, VMSTAT_PGSCAN_KSWAPD, VMSTAT_PGSTEAL_KSWAPD,
		VMSTAT_PGSCAN_DIRECT, VMSTAT_PGSTEAL_DIRECT, VMSTAT_OOM_KILL,
		VMSTAT_ALLOCSTALL_DMA, VMSTAT_ALLOCSTALL_DMA32, VMSTAT_ALLOCSTALL_NORMAL,
		VMSTAT_ALLOCSTALL_MOVABLE };
	enum stat_item si[2] = { STAT_SYS_PROC_RUNNING, STAT_SYS_PROC_BLOCKED };
	struct meminfo_info *m = NULL;
	struct vmstat_info *v = NULL;
	struct stat_info *st = NULL;
	double lib[3];

	if (procps_meminfo_new(&m) < 0 || procps_vmstat_new(&v) < 0 || procps_stat_new(&st) < 0) {
		fprintf(stderr, "sample_cost: libproc2 cannot open its files\n");
		return;
	}
	for (int k = 0; k < 3; k++) {
		for (int r = 0; r < rounds; r++) {
			double t0 = cpu_us();

			if (k == 0)
				procps_meminfo_select(m, mi, 13);
			else if (k == 1)
				procps_vmstat_select(v, vi, 13);
			else
				procps_stat_select(st, si, 2);
			t[r] = cpu_us() - t0;
		}
		lib[k] = median(t, rounds);
	}
	printf("one system sample by part (us, median of %d): libproc2 select / bare pread"
	       " / the sampler's read\n", rounds);
	printf("  /proc/meminfo (13 items) %7.1f / %6.1f\n", lib[0], pread_cost("/proc/meminfo", rounds, t));
	printf("  /proc/vmstat  (13 items) %7.1f / %6.1f / %6.1f (19 counters, one pass)\n", lib[1],
	       pread_cost("/proc/vmstat", rounds, t), vmstat_hand_cost(rounds, t));
	printf("  /proc/stat    (2 items)  %7.1f / %6.1f   /proc/loadavg %.1f\n", lib[2],
	       pread_cost("/proc/stat", rounds, t), pread_cost("/proc/loadavg", rounds, t));
	printf("  /proc/pressure/memory            %6.1f\n", pread_cost("/proc/pressure/memory", rounds, t));
	procps_meminfo_unref(&m);
	procps_vmstat_unref(&v);
	procps_stat_unref(&st);
}

int main(int argc, char **argv)
{
	static pid_t pids[MAXW];
	static struct proc_sample ps[MAXW];
	const int counts[] = { 64, 256, 1024 };
	int rounds = argc > 1 ? atoi(argv[1]) : 200, rc = 0;
	double *t, sys_us;
	struct sys_sample ss;
	char err[256];
	struct sampler *s;

	if (rounds < 1) {
		fprintf(stderr, "usage: sample_cost [ROUNDS]\n");
		return 2;
	}
	t = calloc((size_t)rounds, sizeof(*t));
	for (int i = 0; i < MAXW; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
		pids[i] = p;
	}
	s = sampler_new(err, sizeof(err));
	if (!s) {
		fprintf(stderr, "sample_cost: %s\n", err);
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		double t0 = cpu_us();
		sampler_sys(s, &ss);
		t[r] = cpu_us() - t0;
	}
	sys_us = median(t, rounds);
	sys_parts(rounds, t);
	printf("%-8s %5s %10s %14s %10s %8s %16s %10s\n", "workers", "rows", "tick us",
	       "swapping us", "budget us", "verdict", "all stat us/tick", "us/worker");
	printf("%-8d %5d %10.1f %14s %10d %8s\n", 0, 0, sys_us, "", 100,
	       sys_us <= 100 ? "ok" : "OVER");
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		int n = counts[c], rows;
		double tick = 0, swapping = 0, all, budget = 100 + 5.0 * n;
		struct ms_model m = { .nworkers = n };
		struct ms_layout l;

		ms_layout(200, 60, &m, &l);
		rows = l.worker_rows;
		for (int i = 0; i < n; i++)
			if (sampler_watch(s, pids[i]) < 0) {
				perror("sampler_watch");
				return 1;
			}
		for (int sw = 0; sw < 2; sw++) {
			for (int r = 0; r < rounds; r++) {
				double t0 = cpu_us();
				sampler_sys(s, &ss);
				for (int i = 0; i < rows; i++)
					sampler_proc(s, pids[i], sw && (i + r) % 10 == 0, &ps[i]);
				t[r] = cpu_us() - t0;
			}
			*(sw ? &swapping : &tick) = median(t, rounds);
		}
		for (int r = 0; r < rounds; r++) {
			double t0 = cpu_us();
			sampler_sys(s, &ss);
			for (int i = 0; i < n; i++)
				sampler_proc(s, pids[i], false, &ps[i]);
			t[r] = cpu_us() - t0;
		}
		all = median(t, rounds);
		for (int i = 0; i < n; i++)
			if (!ps[i].alive || ps[i].rss_kib == NA) {
				fprintf(stderr, "sample_cost: worker %d not read\n", (int)pids[i]);
				rc = 1;
			}
		printf("%-8d %5d %10.1f %14.1f %10.0f %8s %16.1f %10.2f\n", n, rows, tick, swapping,
		       budget, swapping <= budget ? "ok" : tick <= budget ? "swapping OVER" : "OVER", all,
		       (all - sys_us) / n);
	}
	sampler_free(s);
	printf("kernel cost of one kept-open pread per worker (us, %d workers):", MAXW);
	for (const char *const *f = (const char *const[]){ "stat", "statm", "status", NULL }; *f; f++)
		printf(" %s %.2f", *f, file_cost(pids, MAXW, *f, rounds / 4 + 1));
	printf("\n");
	for (int i = 0; i < MAXW; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	free(t);
	return rc;
}
