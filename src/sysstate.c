#include "sysstate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fmt.h"
#include "sysio.h"

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* A one-line /proc/sys or /sys value, "n/a" if absent or unreadable. */
static void read_value(const char *path, char *out, size_t size)
{
	if (sysio_read(path, out, size) < 0)
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
	static const char *const mem_keys[] = { "MemTotal", "Hugetlb", "Mlocked" };
	int64_t mem[3];
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

	if (sysio_read("/proc/cmdline", st->cmdline, sizeof(st->cmdline)) < 0) {
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

	if ((k = sysio_meminfo(mem_keys, mem, 3)) < 0 || mem[0] < 0) {
		snprintf(err, errlen, "/proc/meminfo MemTotal: %s", strerror(k < 0 ? errno : ENOENT));
		return -1;
	}
	st->mem_total_kib = mem[0];
	st->hugetlb_kib = mem[1];
	st->mlocked_kib = mem[2];

	if ((n = sysio_read("/proc/swaps", buf, sizeof(buf))) < 0 ||
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
	read_value("/proc/sys/kernel/random/boot_id", st->boot_id, sizeof(st->boot_id));
	read_value("/sys/module/zswap/parameters/enabled", st->zswap_enabled,
		   sizeof(st->zswap_enabled));
	read_value("/sys/module/zswap/parameters/compressor", st->zswap_compressor,
		   sizeof(st->zswap_compressor));
	read_value("/sys/module/zswap/parameters/max_pool_percent", st->zswap_pool,
		   sizeof(st->zswap_pool));
	return 0;
}

const char *sysstate_vm(const struct sysstate *st, const char *name)
{
	for (int i = 0; i < SYSSTATE_NVM; i++)
		if (st->vm[i].name && !strcmp(st->vm[i].name, name))
			return st->vm[i].value;
	return NULL;
}
