#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "sampler.h"
#include "run.h"
#include "sysstate.h"

/* First line of a command's output, newline removed; "" on failure. */
static void run(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (!p)
		return;
	if (!fgets(out, (int)size, p))
		out[0] = '\0';
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

static void file_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (f) {
		if (!fgets(out, (int)size, f))
			out[0] = '\0';
		fclose(f);
	}
	out[strcspn(out, "\n")] = '\0';
}

TEST(sysstate_matches_tools)
{
	static struct sysstate st;
	char err[256] = "", want[4096];

	CHECK_INT(sysstate_read(&st, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	run("uname -r", want, sizeof(want));
	CHECK_STR(st.release, want);
	run("uname -v", want, sizeof(want));
	CHECK_STR(st.version, want);
	run("uname -n", want, sizeof(want));
	CHECK_STR(st.hostname, want);
	run("nproc", want, sizeof(want));	/* no affinity mask in the tests */
	CHECK_INT(st.cpus_online, atoi(want));
	run("awk '/^MemTotal:/ {print $2}' /proc/meminfo", want, sizeof(want));
	CHECK_INT(st.mem_total_kib, atoll(want));
	file_line("/proc/cmdline", want, sizeof(want));
	CHECK_STR(st.cmdline, want);

	file_line("/proc/sys/vm/swappiness", want, sizeof(want));
	CHECK_STR(sysstate_vm(&st, "vm.swappiness"), want);
	file_line("/proc/sys/vm/page-cluster", want, sizeof(want));
	CHECK_STR(sysstate_vm(&st, "vm.page-cluster"), want);
	file_line("/proc/sys/vm/min_free_kbytes", want, sizeof(want));
	CHECK_STR(sysstate_vm(&st, "vm.min_free_kbytes"), want);
	CHECK(sysstate_vm(&st, "vm.nonexistent") == NULL);
	for (int i = 0; i < SYSSTATE_NVM; i++) {
		CHECK(st.vm[i].name != NULL);
		CHECK(strcmp(st.vm[i].value, "") != 0);
	}

	file_line("/sys/module/zswap/parameters/enabled", want, sizeof(want));
	CHECK_STR(st.zswap_enabled, want[0] ? want : "n/a");

	run("awk 'NR > 1' /proc/swaps | wc -l", want, sizeof(want));
	CHECK_INT(st.nswaps, atoi(want));
	run("awk 'NR > 1 {s += $3} END {print s + 0}' /proc/swaps", want, sizeof(want));
	CHECK_INT(st.swap_total_kib, atoll(want));
}

/* `free -wk` columns: total used free shared buffers cache available. */
static int free_wk(long long mem[7], long long swap[3])
{
	FILE *p = popen("LC_ALL=C free -wk", "r");
	char line[512];
	int got = 0;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "Mem: %lld %lld %lld %lld %lld %lld %lld", &mem[0], &mem[1],
			   &mem[2], &mem[3], &mem[4], &mem[5], &mem[6]) == 7)
			got |= 1;
		if (sscanf(line, "Swap: %lld %lld %lld", &swap[0], &swap[1], &swap[2]) == 3)
			got |= 2;
	}
	pclose(p);
	return got == 3 ? 0 : -1;
}

/* Between two of our samples memory moves a little: each free figure must
 * lie within the range spanned by the samples, widened by a tolerance. */
static void check_between(const char *what, long long v, int64_t a, int64_t b, long long tol)
{
	long long lo = a < b ? a : b, hi = a < b ? b : a;

	if (v < lo - tol || v > hi + tol)
		t_fail(__FILE__, __LINE__, "free %s %lld not in [%lld, %lld] +- %lld",
		       what, v, lo, hi, tol);
}

TEST(sysstate_mem_snapshot_vs_free)
{
	char err[256];
	struct sampler *s = sampler_new(err, sizeof(err));
	struct sys_sample ss;
	struct mem_snapshot a, b;
	long long mem[7], swap[3];
	const long long tol = 2048;	/* KiB: free itself starting up */

	if (!s) {
		t_fail(__FILE__, __LINE__, "sampler_new: %s", err);
		return;
	}
	CHECK_INT(sampler_sys(s, &ss), 0);
	mem_snapshot_from(&ss, &a);
	CHECK_INT(free_wk(mem, swap), 0);
	CHECK_INT(sampler_sys(s, &ss), 0);
	mem_snapshot_from(&ss, &b);
	sampler_free(s);

	CHECK_INT(a.total, mem[0]);
	check_between("used", mem[1], a.used, b.used, tol);
	check_between("free", mem[2], a.free, b.free, tol);
	check_between("shared", mem[3], a.shared, b.shared, tol);
	check_between("buffers", mem[4], a.buffers, b.buffers, tol);
	check_between("cache", mem[5], a.cache, b.cache, tol);
	check_between("available", mem[6], a.avail, b.avail, tol);
	CHECK_INT(a.swap_total, swap[0]);
	check_between("swap used", swap[1], a.swap_used, b.swap_used, tol);
	check_between("swap free", swap[2], a.swap_free, b.swap_free, tol);
	CHECK_INT(a.used, a.total - a.avail);
}

TEST(sysstate_mem_snapshot_na)
{
	struct sys_sample ss = { .mem_cache_all = NA };
	struct mem_snapshot m;

	for (int i = 0; i < MI_N; i++)
		ss.mem[i] = 1000 * (i + 1);
	ss.mem[MI_AVAIL] = NA;
	ss.mem[MI_SWAP_FREE] = NA;
	mem_snapshot_from(&ss, &m);
	CHECK_INT(m.total, 1000 * (MI_TOTAL + 1));
	CHECK_INT(m.used, NA);		/* total - NA */
	CHECK_INT(m.avail, NA);
	CHECK_INT(m.cache, NA);
	CHECK_INT(m.swap_used, NA);
	CHECK_INT(m.swap_total, 1000 * (MI_SWAP_TOTAL + 1));
	CHECK_INT(m.buffers, 1000 * (MI_BUFFERS + 1));
}
