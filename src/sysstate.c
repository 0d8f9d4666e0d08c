#include "sysstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fmt.h"

/* Reads a small file whole; its length, or -1 with errno (EFBIG if it does
 * not fit, so a cut value is never taken for the real one). */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t r = read(fd, buf + n, size - 1 - n);
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == size - 1) {
			char extra;
			if (read(fd, &extra, 1) != 0) {
				close(fd);
				errno = EFBIG;
				return -1;
			}
			break;
		}
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* A one-line /proc/sys or /sys value, "n/a" if absent or unreadable. */
static void read_value(const char *path, char *out, size_t size)
{
	if (read_small(path, out, size) < 0)
		snprintf(out, size, "n/a");
	chomp(out);
}

static const char *const vm_names[SYSSTATE_NVM] = {
#define X(name) name,
	SYSSTATE_VM_SYSCTLS
#undef X
};

int sysstate_read(struct sysstate *st, char *err, size_t errlen)
{
	char buf[32768];
	struct utsname u;
	ssize_t n;
	int k;
	long cpus;

	memset(st, 0, sizeof(*st));
	if (uname(&u) < 0) {
		snprintf(err, errlen, "uname: %s", strerror(errno));
		return -1;
	}
	snprintf(st->hostname, sizeof(st->hostname), "%s", u.nodename);
	snprintf(st->release, sizeof(st->release), "%s", u.release);
	snprintf(st->version, sizeof(st->version), "%s", u.version);

	if (read_small("/proc/cmdline", st->cmdline, sizeof(st->cmdline)) < 0) {
		snprintf(err, errlen, "/proc/cmdline: %s", strerror(errno));
		return -1;
	}
	chomp(st->cmdline);

	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1) {
		snprintf(err, errlen, "cannot count online CPUs: %s", strerror(errno));
		return -1;
	}
	st->cpus_online = (int)cpus;

	if ((n = read_small("/proc/meminfo", buf, sizeof(buf))) < 0 ||
	    procparse_kib(buf, (size_t)n, "MemTotal", &st->mem_total_kib) < 0) {
		snprintf(err, errlen, "/proc/meminfo MemTotal: %s", strerror(errno));
		return -1;
	}
	if (procparse_kib(buf, (size_t)n, "Hugetlb", &st->hugetlb_kib) < 0)
		st->hugetlb_kib = NA;
	if (procparse_kib(buf, (size_t)n, "Mlocked", &st->mlocked_kib) < 0)
		st->mlocked_kib = NA;

	if ((n = read_small("/proc/swaps", buf, sizeof(buf))) < 0 ||
	    (k = procparse_swaps(buf, (size_t)n, st->swaps, SYSSTATE_MAX_SWAPS)) < 0) {
		snprintf(err, errlen, "/proc/swaps: %s", strerror(errno));
		return -1;
	}
	if (k > SYSSTATE_MAX_SWAPS) {
		snprintf(err, errlen, "/proc/swaps: %d devices, more than the %d kept",
			 k, SYSSTATE_MAX_SWAPS);
		return -1;
	}
	st->nswaps = k;
	for (int i = 0; i < k; i++) {
		st->swap_total_kib += st->swaps[i].size_kib;
		st->swap_used_kib += st->swaps[i].used_kib;
	}

	for (int i = 0; i < SYSSTATE_NVM; i++) {
		char path[128];
		/* vm.page-cluster -> /proc/sys/vm/page-cluster */
		snprintf(path, sizeof(path), "/proc/sys/%s", vm_names[i]);
		path[strlen("/proc/sys/vm")] = '/';
		st->vm[i].name = vm_names[i];
		read_value(path, st->vm[i].value, sizeof(st->vm[i].value));
	}
	read_value("/sys/module/zswap/parameters/enabled", st->zswap_enabled,
		   sizeof(st->zswap_enabled));
	return 0;
}

const char *sysstate_vm(const struct sysstate *st, const char *name)
{
	for (int i = 0; i < SYSSTATE_NVM; i++)
		if (st->vm[i].name && !strcmp(st->vm[i].name, name))
			return st->vm[i].value;
	return NULL;
}
