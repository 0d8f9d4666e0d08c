#include "sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libproc2/meminfo.h>
#include <libproc2/stat.h>

#include "procparse.h"
#include "sysio.h"

#define MAX_KSWAPD 64		/* one per NUMA node */

static enum meminfo_item mem_items[] = {
	[MI_TOTAL] = MEMINFO_MEM_TOTAL,
	[MI_FREE] = MEMINFO_MEM_FREE,
	[MI_AVAIL] = MEMINFO_MEM_AVAILABLE,
	[MI_CACHED] = MEMINFO_MEM_CACHED,
	[MI_BUFFERS] = MEMINFO_MEM_BUFFERS,
	[MI_SHARED] = MEMINFO_MEM_SHARED,
	[MI_SWAP_TOTAL] = MEMINFO_SWAP_TOTAL,
	[MI_SWAP_FREE] = MEMINFO_SWAP_FREE,
	[MI_SWAP_USED] = MEMINFO_SWAP_USED,
	[MI_SWAP_CACHED] = MEMINFO_SWAP_CACHED,
	[MI_HUGETLB] = MEMINFO_MEM_HUGETBL,
	[MI_MLOCKED] = MEMINFO_MEM_LOCKED,
	[MI_N] = MEMINFO_MEM_CACHED_ALL,
};
#define N_MEM_ITEMS ((int)(sizeof(mem_items) / sizeof(mem_items[0])))

/* The /proc/meminfo keys behind each item: all must be present. */
static const char *const mem_keys[][2] = {
	[MI_TOTAL] = { "MemTotal" },
	[MI_FREE] = { "MemFree" },
	[MI_AVAIL] = { "MemAvailable" },
	[MI_CACHED] = { "Cached" },
	[MI_BUFFERS] = { "Buffers" },
	[MI_SHARED] = { "Shmem" },
	[MI_SWAP_TOTAL] = { "SwapTotal" },
	[MI_SWAP_FREE] = { "SwapFree" },
	[MI_SWAP_USED] = { "SwapTotal", "SwapFree" },
	[MI_SWAP_CACHED] = { "SwapCached" },
	[MI_HUGETLB] = { "Hugetlb" },
	[MI_MLOCKED] = { "Mlocked" },
	[MI_N] = { "Cached", "SReclaimable" },
};

/* The /proc/vmstat counters, read by hand in one pass over one read a
 * tick: libproc2's select read the file (the kernel sums every counter
 * over the CPUs to print it: 29 us here, most of the read) and a second
 * read was needed anyway for what libproc2 4.0.2 does not know, the
 * split workingset_refault_anon/_file (kernel 5.9) and zswap's counters.
 * VM_ALLOCSTALL is the sum of the allocstall_* present. */
enum { RV_PGFAULT, RV_PGMAJFAULT, RV_PSWPIN, RV_PSWPOUT, RV_PGSCAN_KSWAPD,
       RV_PGSTEAL_KSWAPD, RV_PGSCAN_DIRECT, RV_PGSTEAL_DIRECT, RV_OOM_KILL,
       RV_REFAULT_ANON, RV_REFAULT_FILE, RV_ZSWPIN, RV_ZSWPOUT, RV_ZSWPWB,
       RV_STALL_DMA, RV_STALL_DMA32, RV_STALL_NORMAL, RV_STALL_MOVABLE, RV_STALL_DEVICE,
       RV_N };

static const char *const vm_key[RV_N] = {
	[RV_PGFAULT] = "pgfault", [RV_PGMAJFAULT] = "pgmajfault",
	[RV_PSWPIN] = "pswpin", [RV_PSWPOUT] = "pswpout",
	[RV_PGSCAN_KSWAPD] = "pgscan_kswapd", [RV_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[RV_PGSCAN_DIRECT] = "pgscan_direct", [RV_PGSTEAL_DIRECT] = "pgsteal_direct",
	[RV_OOM_KILL] = "oom_kill",
	[RV_REFAULT_ANON] = "workingset_refault_anon",
	[RV_REFAULT_FILE] = "workingset_refault_file",
	[RV_ZSWPIN] = "zswpin", [RV_ZSWPOUT] = "zswpout", [RV_ZSWPWB] = "zswpwb",
	[RV_STALL_DMA] = "allocstall_dma", [RV_STALL_DMA32] = "allocstall_dma32",
	[RV_STALL_NORMAL] = "allocstall_normal", [RV_STALL_MOVABLE] = "allocstall_movable",
	[RV_STALL_DEVICE] = "allocstall_device",
};

static const int vm_from_raw[] = {
	[VM_PGFAULT] = RV_PGFAULT, [VM_PGMAJFAULT] = RV_PGMAJFAULT,
	[VM_PSWPIN] = RV_PSWPIN, [VM_PSWPOUT] = RV_PSWPOUT,
	[VM_PGSCAN_KSWAPD] = RV_PGSCAN_KSWAPD, [VM_PGSTEAL_KSWAPD] = RV_PGSTEAL_KSWAPD,
	[VM_PGSCAN_DIRECT] = RV_PGSCAN_DIRECT, [VM_PGSTEAL_DIRECT] = RV_PGSTEAL_DIRECT,
	[VM_ALLOCSTALL] = -1, [VM_OOM_KILL] = RV_OOM_KILL,
	[VM_REFAULT_ANON] = RV_REFAULT_ANON, [VM_REFAULT_FILE] = RV_REFAULT_FILE,
	[VM_ZSWPIN] = RV_ZSWPIN, [VM_ZSWPOUT] = RV_ZSWPOUT, [VM_ZSWPWB] = RV_ZSWPWB,
};

struct watch {
	pid_t pid;
	int stat_fd, status_fd;		/* status: -1 until first read */
	int children_fd;		/* its main thread's; -1 until first read */
	int threads;			/* as its last stat read said; 0 before */
};

#define CHILDREN_BUF 8192

struct sampler {
	struct meminfo_info *mi;
	struct stat_info *si;
	bool mem_ok[N_MEM_ITEMS];
	bool raw_ok[RV_N];	/* the kernel prints it */
	int vmstat_fd;
	int vm_last;		/* of those printed, the key printed last */
	int meminfo_fd;		/* Zswap, Zswapped; -1 when the kernel lacks them */
	/* the zswap pool as this sampler last read it, and zswpout then:
	 * an empty pool stays empty until a page is stored (zswpout moves) */
	bool zswap_read;
	int64_t zswap_last, zswapped_last, zswpout_last;
	int zram_fd;		/* the watched zram device's mm_stat, -1 none */
	int psi_fd;
	bool psi_full;
	int nkswapd;
	pid_t kswapd_pid[MAX_KSWAPD];
	int kswapd_fd[MAX_KSWAPD];
	bool kswapd_ok;
	int64_t page_kib;
	struct watch *w;
	int nw, capw;
	int hint;		/* where the next lookup looks first */
};

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The first line that starts with key followed by sep, or NULL. */
static const char *key_line(const char *buf, size_t len, const char *key, char sep)
{
	size_t k = strlen(key);

	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > k && !memcmp(p, key, k) && p[k] == sep)
			return p;
		p = eol + 1;
	}
	return NULL;
}

/* libproc2 reports a key the kernel does not print as 0, forever: find out
 * once which keys exist so that those items read NA instead. */
static int check_keys(struct sampler *s, char *err, size_t errlen)
{
	const char *keys[2 * N_MEM_ITEMS];
	int64_t kib[2 * N_MEM_ITEMS];
	size_t len;
	char *buf;

	for (int i = 0; i < N_MEM_ITEMS; i++)
		for (int k = 0; k < 2; k++)
			keys[2 * i + k] = mem_keys[i][k] ? mem_keys[i][k] : mem_keys[i][0];
	if (sysio_meminfo(keys, kib, 2 * N_MEM_ITEMS) < 0) {
		snprintf(err, errlen, "/proc/meminfo: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < N_MEM_ITEMS; i++)
		s->mem_ok[i] = kib[2 * i] >= 0 && kib[2 * i + 1] >= 0;
	{
		const char *zk[2] = { "Zswap", "Zswapped" };
		int64_t zv[2];

		if (sysio_meminfo(zk, zv, 2) == 0 && zv[0] >= 0 && zv[1] >= 0)
			s->meminfo_fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	}
	buf = sysio_read_alloc("/proc/vmstat", SIZE_MAX, &len);
	if (!buf || (s->vmstat_fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/proc/vmstat: %s", strerror(errno));
		free(buf);
		return -1;
	}
	s->vm_last = -1;
	for (int i = 0, at = -1; i < RV_N; i++) {
		const char *p = key_line(buf, len, vm_key[i], ' ');

		s->raw_ok[i] = p != NULL;
		if (p && p - buf > at) {
			at = (int)(p - buf);
			s->vm_last = i;
		}
	}
	free(buf);
	return 0;
}

static int open_proc(pid_t pid, const char *file)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		errno = ESRCH;
	return fd;
}

/* kswapd threads are children of kthreadd, pid 2: reading its children
 * and their stat costs well under a millisecond where walking every task
 * of the machine through libproc2 took 20-40 ms at start. In a pid
 * namespace there is no kthreadd and kswapd is simply not visible. */
static int find_kswapd(struct sampler *s, char *err, size_t errlen)
{
	size_t len = 0;
	char *buf;
	int fd, n;
	pid_t *kids;

	/* as libproc2 does, LIBPROC_HIDE_KERNEL hides kernel threads */
	if (getenv("LIBPROC_HIDE_KERNEL"))
		return 0;
	buf = sysio_read_alloc("/proc/2/task/2/children", SIZE_MAX, &len);
	if (!buf && errno != ENOMEM)
		return 0;
	n = buf ? procparse_children(buf, len, NULL, 0) : -1;
	kids = n > 0 ? malloc((size_t)n * sizeof(*kids)) : NULL;
	if (!buf || (n > 0 && !kids)) {
		free(buf);
		snprintf(err, errlen, "sampler: out of memory finding kswapd");
		return -1;
	}
	if (n > 0)
		procparse_children(buf, len, kids, n);
	free(buf);
	for (int i = 0; i < n && s->nkswapd < MAX_KSWAPD; i++) {
		char path[64], st[1024];
		struct pstat ps;
		ssize_t r;

		fd = open_proc(kids[i], "stat");
		if (fd < 0)
			continue;
		r = read(fd, st, sizeof(st) - 1);
		close(fd);
		if (r <= 0 || procparse_stat(st, (size_t)r, &ps) < 0 ||
		    strncmp(ps.comm, "kswapd", 6) || !pstat_is_kthread(&ps))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)kids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			s->kswapd_ok = false;
		s->kswapd_pid[s->nkswapd] = kids[i];
		s->kswapd_fd[s->nkswapd++] = fd;
	}
	free(kids);
	return 0;
}

struct sampler *sampler_new(char *err, size_t errlen)
{
	struct sampler *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		snprintf(err, errlen, "sampler: out of memory");
		return NULL;
	}
	s->psi_fd = s->vmstat_fd = s->meminfo_fd = s->zram_fd = -1;
	s->kswapd_ok = true;
	s->page_kib = sysconf(_SC_PAGESIZE) / 1024;
	if ((rc = procps_meminfo_new(&s->mi)) < 0 || (rc = procps_stat_new(&s->si)) < 0) {
		snprintf(err, errlen, "libproc2: cannot open meminfo/stat: %s",
			 strerror(-rc));
		sampler_free(s);
		return NULL;
	}
	if (check_keys(s, err, errlen) < 0 || find_kswapd(s, err, errlen) < 0) {
		sampler_free(s);
		return NULL;
	}
	/* Absent without CONFIG_PSI or with psi=0: the figures are then NA. */
	s->psi_fd = open("/proc/pressure/memory", O_RDONLY | O_CLOEXEC);
	if (s->psi_fd >= 0) {
		char buf[512];
		struct psi p;
		ssize_t r = pread(s->psi_fd, buf, sizeof(buf) - 1, 0);

		/* A "full" line the kernel does not print is n/a, never 0. */
		s->psi_full = r > 0 && procparse_psi(buf, (size_t)r, &p) == 0 && p.has_full;
	}
	return s;
}

static void close_watch(struct watch *w)
{
	close(w->stat_fd);
	if (w->status_fd >= 0)
		close(w->status_fd);
	if (w->children_fd >= 0)
		close(w->children_fd);
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	procps_meminfo_unref(&s->mi);
	procps_stat_unref(&s->si);
	if (s->psi_fd >= 0)
		close(s->psi_fd);
	if (s->vmstat_fd >= 0)
		close(s->vmstat_fd);
	if (s->meminfo_fd >= 0)
		close(s->meminfo_fd);
	if (s->zram_fd >= 0)
		close(s->zram_fd);
	for (int i = 0; i < s->nkswapd; i++)
		if (s->kswapd_fd[i] >= 0)
			close(s->kswapd_fd[i]);
	for (int i = 0; i < s->nw; i++)
		close_watch(&s->w[i]);
	free(s->w);
	free(s);
}

void sampler_caps(const struct sampler *s, struct sampler_caps *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < MI_N; i++)
		out->mem[i] = s->mem_ok[i];
	for (int i = 0; i < VM_N; i++)
		out->vm[i] = vm_from_raw[i] >= 0 && s->raw_ok[vm_from_raw[i]];
	for (int i = RV_STALL_DMA; i <= RV_STALL_DEVICE; i++)
		out->vm[VM_ALLOCSTALL] |= s->raw_ok[i];
	out->psi = s->psi_fd >= 0;
	out->psi_full = s->psi_full;
	out->nkswapd = s->nkswapd;
	out->kswapd_ok = s->nkswapd > 0 && s->kswapd_ok;
	out->zswap_mem = s->meminfo_fd >= 0;
	out->zram = s->zram_fd >= 0;
}

int sampler_zram(struct sampler *s, const char *name)
{
	char path[128];

	if (s->zram_fd >= 0)
		close(s->zram_fd);
	s->zram_fd = -1;
	if (!name)
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/mm_stat", name);
	s->zram_fd = open(path, O_RDONLY | O_CLOEXEC);
	return s->zram_fd < 0 ? -1 : 0;
}

const char *sampler_vm_key(enum vm_item i)
{
	if (i == VM_ALLOCSTALL)
		return "allocstall_*";
	return (unsigned)i < VM_N && vm_from_raw[i] >= 0 ? vm_key[vm_from_raw[i]] : "?";
}

int sampler_kswapd_pids(const struct sampler *s, pid_t *out, int max)
{
	int n = s->nkswapd < max ? s->nkswapd : max;

	memcpy(out, s->kswapd_pid, (size_t)n * sizeof(*out));
	return n;
}

/* pread of a kept-open /proc file; NUL-terminated, -1 with errno. */
static ssize_t pread_all(int fd, char *buf, size_t size)
{
	ssize_t r = pread(fd, buf, size - 1, 0);

	if (r < 0)
		return -1;
	buf[r] = '\0';
	return r;
}

/* /proc/vmstat is longer than the page /proc hands out a read (zswpwb
 * sits past the first 4 KiB), and each read sums every counter over all
 * CPUs again: stop once the last counter wanted has come whole rather
 * than read on to find the end. */
static ssize_t read_vmstat_text(struct sampler *s, char *buf, size_t size)
{
	const char *last = s->vm_last >= 0 ? vm_key[s->vm_last] : NULL;
	size_t n = 0;

	while (n < size - 1) {
		ssize_t r = pread(s->vmstat_fd, buf + n, size - 1 - n, (off_t)n);
		size_t from = n;
		const char *p;

		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
		if (!last)
			continue;
		while (from > 0 && buf[from - 1] != '\n')
			from--;
		p = key_line(buf + from, n - from, last, ' ');
		if (p && memchr(p, '\n', (size_t)(buf + n - p)))
			break;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

static void read_psi(struct sampler *s, struct sys_sample *out)
{
	char buf[512];
	struct psi p;
	ssize_t r;

	out->psi_some10 = out->psi_full10 = NAN;
	out->psi_some_us = out->psi_full_us = NA;
	if (s->psi_fd < 0 || (r = pread_all(s->psi_fd, buf, sizeof(buf))) < 0 ||
	    procparse_psi(buf, (size_t)r, &p) < 0)
		return;
	out->psi_some10 = p.some.avg10;
	out->psi_some_us = p.some.total_us;
	if (p.has_full && s->psi_full) {
		out->psi_full10 = p.full.avg10;
		out->psi_full_us = p.full.total_us;
	}
}

/* The number after "key" and sep at the start of a line of buf, or NA. */
static int64_t key_value(const char *buf, const char *key, char sep)
{
	size_t k = strlen(key);

	for (const char *p = buf; (p = strstr(p, key)); p += k)
		if ((p == buf || p[-1] == '\n') && p[k] == sep) {
			char *end;
			const char *v = p + k + 1;
			long long n;

			while (*v == ' ')
				v++;
			n = strtoll(v, &end, 10);
			return end != v ? n : NA;
		}
	return NA;
}

_Static_assert(NA == -1, "procparse_vmstat marks a missing counter -1");

/* Every counter of vm_key from one read; -1 (NA) where not read. */
static void read_vmstat(struct sampler *s, int64_t *raw)
{
	char buf[16384];
	ssize_t r = read_vmstat_text(s, buf, sizeof(buf));

	if (r < 0) {
		for (int i = 0; i < RV_N; i++)
			raw[i] = -1;
		return;
	}
	procparse_vmstat(buf, (size_t)r, vm_key, RV_N, raw);
}

/* libproc2 does not know Zswap and Zswapped, so they take a second read
 * of /proc/meminfo: made only while the pool can hold anything, that is
 * unless the last read found it empty and zswpout has not moved since. */
static void read_zswap_mem(struct sampler *s, struct sys_sample *out, int64_t zswpout)
{
	char buf[8192];

	out->zswap_kib = out->zswapped_kib = NA;
	if (s->meminfo_fd < 0)
		return;
	if (s->zswap_read && s->zswap_last == 0 && s->zswapped_last == 0 &&
	    zswpout >= 0 && zswpout == s->zswpout_last) {
		out->zswap_kib = out->zswapped_kib = 0;
		return;
	}
	/* one read holds the whole file: /proc makes it in one piece */
	if (pread_all(s->meminfo_fd, buf, sizeof(buf)) < 0) {
		s->zswap_read = false;
		return;
	}
	out->zswap_kib = key_value(buf, "Zswap", ':');
	out->zswapped_kib = key_value(buf, "Zswapped", ':');
	s->zswap_read = out->zswap_kib != NA && out->zswapped_kib != NA;
	s->zswap_last = out->zswap_kib;
	s->zswapped_last = out->zswapped_kib;
	s->zswpout_last = zswpout;
}

/* mm_stat: orig_data_size compr_data_size mem_used_total ... in bytes */
static void read_zram(struct sampler *s, struct sys_sample *out)
{
	char buf[512];
	long long v[3];

	out->zram_orig_kib = out->zram_compr_kib = out->zram_mem_kib = NA;
	if (s->zram_fd < 0 || pread_all(s->zram_fd, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%lld %lld %lld", &v[0], &v[1], &v[2]) != 3)
		return;
	out->zram_orig_kib = v[0] / 1024;
	out->zram_compr_kib = v[1] / 1024;
	out->zram_mem_kib = v[2] / 1024;
}

static int64_t read_kswapd_ns(struct sampler *s)
{
	int64_t sum = 0;

	if (!s->nkswapd || !s->kswapd_ok)
		return NA;
	for (int i = 0; i < s->nkswapd; i++) {
		char buf[128];
		int64_t ns;
		ssize_t r = pread_all(s->kswapd_fd[i], buf, sizeof(buf));

		/* A partial sum would look like a counter going backwards. */
		if (r < 0 || procparse_schedstat(buf, (size_t)r, &ns) < 0)
			return NA;
		sum += ns;
	}
	return sum;
}

int sampler_sys(struct sampler *s, struct sys_sample *out)
{
	enum stat_item st_items[] = { STAT_SYS_PROC_RUNNING, STAT_SYS_PROC_BLOCKED };
	struct meminfo_stack *ms;
	struct stat_stack *ss;
	int64_t raw[RV_N];

	out->t = now_mono();
	/* the tracer's, when there is one, are filled by tracer_fill */
	out->rc_ok = false;
	memset(&out->rc, 0, sizeof(out->rc));
	out->rc_p99_ms = NAN;
	ms = procps_meminfo_select(s->mi, mem_items, N_MEM_ITEMS);
	ss = procps_stat_select(s->si, st_items, 2);
	if (!ms || !ss)
		return -1;
	for (int i = 0; i < MI_N; i++)
		out->mem[i] = s->mem_ok[i] ? (int64_t)ms->head[i].result.ul_int : NA;
	out->mem_cache_all = s->mem_ok[MI_N] ? (int64_t)ms->head[MI_N].result.ul_int : NA;

	read_vmstat(s, raw);
	/* a counter the file lacks reads -1, which is NA */
	for (int i = 0; i < VM_N; i++)
		out->vm[i] = vm_from_raw[i] >= 0 ? raw[vm_from_raw[i]] : NA;
	for (int i = RV_STALL_DMA; i <= RV_STALL_DEVICE; i++)
		if (raw[i] >= 0)
			out->vm[VM_ALLOCSTALL] = (out->vm[VM_ALLOCSTALL] == NA ? 0 :
						  out->vm[VM_ALLOCSTALL]) + raw[i];
	read_zswap_mem(s, out, raw[RV_ZSWPOUT]);
	read_zram(s, out);

	out->procs_running = (int64_t)ss->head[0].result.ul_int;
	out->procs_blocked = (int64_t)ss->head[1].result.ul_int;
	read_psi(s, out);
	out->nkswapd = s->nkswapd;
	out->kswapd_ns = read_kswapd_ns(s);
	return 0;
}

/* Callers sample the same pids in the same order every tick: looking
 * first just after the previous hit makes a tick linear, not quadratic. */
static struct watch *find_watch(struct sampler *s, pid_t pid)
{
	int h = s->hint < s->nw ? s->hint : 0;

	for (int k = 0; k < s->nw; k++) {
		int i = h + k < s->nw ? h + k : h + k - s->nw;

		if (s->w[i].pid == pid) {
			s->hint = i + 1;
			return &s->w[i];
		}
	}
	return NULL;
}

int sampler_watch(struct sampler *s, pid_t pid)
{
	struct watch w = { pid, -1, -1, -1, 0 };

	if (pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	if (find_watch(s, pid))
		return 0;
	if (s->nw == s->capw) {
		int cap = s->capw ? s->capw * 2 : 64;
		struct watch *nw = realloc(s->w, (size_t)cap * sizeof(*nw));
		if (!nw)
			return -1;
		s->w = nw;
		s->capw = cap;
	}
	w.stat_fd = open_proc(pid, "stat");
	if (w.stat_fd < 0)
		return -1;
	s->w[s->nw++] = w;
	return 0;
}

void sampler_unwatch(struct sampler *s, pid_t pid)
{
	struct watch *w = find_watch(s, pid);

	if (!w)
		return;
	close_watch(w);
	*w = s->w[--s->nw];
}

int sampler_proc(struct sampler *s, pid_t pid, bool swap, struct proc_sample *out)
{
	char buf[4096];
	struct watch *w;
	struct pstat ps;
	ssize_t r;
	int64_t kib;

	*out = (struct proc_sample){ .pid = pid, .alive = false, .state = '?',
		.utime_ticks = NA, .stime_ticks = NA, .majflt = NA, .minflt = NA,
		.rss_kib = NA, .swap_kib = NA };
	if (!(w = find_watch(s, pid))) {
		if (sampler_watch(s, pid) < 0)
			return -1;
		w = &s->w[s->nw - 1];
	}
	r = pread_all(w->stat_fd, buf, sizeof(buf));
	if (r < 0)
		return -1;
	if (procparse_stat(buf, (size_t)r, &ps) < 0)
		return -1;
	w->threads = (int)ps.num_threads;
	out->state = ps.state;
	out->alive = ps.state != 'Z' && ps.state != 'X';
	out->utime_ticks = ps.utime;
	out->stime_ticks = ps.stime;
	out->majflt = ps.majflt;
	out->minflt = ps.minflt;
	out->rss_kib = ps.rss_pages * s->page_kib;
	if (!swap)
		return 0;
	/* Opened once the stat fd proved the task alive: a status that
	 * vanished since means it was reaped, and the next stat read says
	 * ESRCH. */
	if (w->status_fd < 0)
		w->status_fd = open_proc(pid, "status");
	if (w->status_fd < 0 || (r = pread_all(w->status_fd, buf, sizeof(buf))) < 0)
		return 0;
	/* Zombies have no VmSwap line. */
	if (procparse_kib(buf, (size_t)r, "VmSwap", &kib) == 0)
		out->swap_kib = kib;
	return 0;
}

/* Appends the pids in a children file's text (r bytes of buf) to *v. */
static int append_children(char *buf, ssize_t r, pid_t **v, int *n, int *cap)
{
	int k;

	if (r <= 0)
		return 0;
	/* A list longer than buf is cut mid-pid: drop the partial one. */
	if ((size_t)r == CHILDREN_BUF)
		while (r > 0 && buf[r - 1] != ' ')
			r--;
	k = procparse_children(buf, (size_t)r, NULL, 0);
	if (k <= 0)
		return 0;
	if (*n + k > *cap) {
		int nc = (*n + k) * 2;
		pid_t *nv = realloc(*v, (size_t)nc * sizeof(**v));

		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	procparse_children(buf, (size_t)r, *v + *n, k);
	*n += k;
	return 0;
}

/* Appends the children of pid to *v: through a watched process's kept-open
 * children file when its last stat said it had one thread (a thread it
 * started since is seen at the next stat), else of each of its threads. */
static int add_children(struct sampler *s, pid_t pid, pid_t **v, int *n, int *cap)
{
	char path[320], buf[CHILDREN_BUF];
	struct watch *w = s ? find_watch(s, pid) : NULL;
	struct dirent *de;
	DIR *d;

	if (w && w->threads == 1) {
		ssize_t r = -1;

		if (w->children_fd < 0) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
			w->children_fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (w->children_fd >= 0)
			r = pread(w->children_fd, buf, sizeof(buf), 0);
		if (r >= 0)
			return append_children(buf, r, v, n, cap);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		int fd;
		ssize_t r;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* the thread exited meanwhile */
		r = read(fd, buf, sizeof(buf));
		close(fd);
		if (append_children(buf, r, v, n, cap) < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

int sampler_descendants(struct sampler *s, pid_t root, pid_t *out, int max)
{
	pid_t *v = NULL;
	int n = 0, cap = 0;

	/* root by its threads: whether its stat was read of late is the
	 * caller's (a view over the rows stops their reads), and a root
	 * reaped is ESRCH, where its kept-open file would read empty */
	if (add_children(NULL, root, &v, &n, &cap) < 0) {
		int e = errno == ENOENT ? ESRCH : errno;
		free(v);
		errno = e;
		return -1;
	}
	/* Breadth first; a child that exits meanwhile is skipped. */
	for (int i = 0; i < n; i++) {
		if (add_children(s, v[i], &v, &n, &cap) < 0 && errno == ENOMEM) {
			free(v);
			return -1;
		}
		if (n > 1 << 22) {	/* pid reuse made a cycle */
			free(v);
			errno = ELOOP;
			return -1;
		}
	}
	if (n > 0)
		memcpy(out, v, (size_t)(n < max ? n : max) * sizeof(*out));
	free(v);
	return n;
}
