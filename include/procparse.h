/* Pure parsers for /proc text: no I/O, every function takes a buffer and
 * its length (the buffer need not be NUL-terminated). Unless one says
 * otherwise, each returns 0 or a count on success and -1 with errno set
 * (EINVAL malformed or truncated, ENOENT key absent, ENAMETOOLONG) on
 * failure, leaving *out unspecified. */
#ifndef THRASHTOP_PROCPARSE_H
#define THRASHTOP_PROCPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCPARSE_PF_KTHREAD 0x00200000u	/* include/linux/sched.h */

/* /proc/PID/stat; times in clock ticks, rss in pages. */
struct pstat {
	pid_t pid;
	char comm[64];		/* between the first '(' and the last ')' */
	char state;
	pid_t ppid, pgrp;
	uint64_t flags;
	int64_t minflt, majflt;
	int64_t utime, stime;
	int64_t num_threads;
	int64_t starttime;
	int64_t rss_pages;
};
int procparse_stat(const char *buf, size_t len, struct pstat *out);
bool pstat_is_kthread(const struct pstat *ps);

/* First field of /proc/PID/schedstat: time spent on a CPU, ns. */
int procparse_schedstat(const char *buf, size_t len, int64_t *ns);

/* /proc/pressure/memory. A line the kernel did not print leaves has_* false. */
struct psi_line {
	double avg10, avg60, avg300;	/* % */
	int64_t total_us;
};
struct psi {
	bool has_some, has_full;
	struct psi_line some, full;
};
int procparse_psi(const char *buf, size_t len, struct psi *out);

/* "Key:   1234 kB" lines of /proc/PID/status and /proc/meminfo.
 * key is given without the colon; ENOENT if no such line. */
int procparse_kib(const char *buf, size_t len, const char *key, int64_t *kib);

/* "key value" lines of /proc/vmstat, in one pass: out[i] is the value
 * of keys[i], -1 when no line has it (or its value is no count).
 * Returns how many were found, never -1; past 64 keys the rest are not
 * looked for. */
int procparse_vmstat(const char *buf, size_t len, const char *const *keys, int n,
		     int64_t *out);

/* /proc/swaps. Returns the number of devices listed (may exceed max; only
 * the first max are stored). Paths have the kernel's \ooo escapes decoded. */
struct swap_dev {
	char path[512];
	char type[16];
	int64_t size_kib, used_kib;
	int prio;
};
int procparse_swaps(const char *buf, size_t len, struct swap_dev *out, int max);

/* /proc/PID/task/TID/children: space-separated pids. Returns how many there
 * are (may exceed max; only the first max are stored). */
int procparse_children(const char *buf, size_t len, pid_t *out, int max);

#endif
