#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "statedir.h"
#include "sysctl.h"
#include "undo.h"

/* The file's text up to its first newline, read here apart from sysctl_get. */
static void read_proc(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

TEST(sysctl_name_validation)
{
	char path[128], err[256];
	static const struct { const char *name, *msg; } bad[] = {
		{ "kernel.pid_max", "sysctl kernel.pid_max is not a vm.* sysctl (only vm.NAME "
				    "is allowed)" },
		{ "swappiness", "sysctl swappiness is not a vm.* sysctl (only vm.NAME is "
				"allowed)" },
		{ "vm./etc/passwd", "sysctl name vm./etc/passwd must not hold '/' or '..'" },
		{ "vm..swappiness", "sysctl name vm..swappiness must not hold '/' or '..'" },
		{ "vm.", "sysctl name vm. lacks a NAME (e.g. vm.swappiness)" },
		{ "", "empty sysctl name (want vm.NAME, e.g. vm.swappiness)" },
		{ "vm.swap piness", "sysctl name vm.swap piness holds ' ' (letters, digits, "
				    "'_' and '-' only)" },
		{ "vm.no_such_knob", "unknown sysctl vm.no_such_knob (no "
				     "/proc/sys/vm/no_such_knob on this kernel)" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		CHECK_INT(sysctl_path(bad[i].name, path, sizeof path, err, sizeof err), -1);
		CHECK_STR(err, bad[i].msg);
	}
	CHECK_INT(sysctl_path("vm.swappiness", path, sizeof path, err, sizeof err), 0);
	CHECK_STR(path, "/proc/sys/vm/swappiness");
	CHECK_INT(sysctl_path("vm.page-cluster", path, sizeof path, err, sizeof err), 0);
	CHECK_STR(path, "/proc/sys/vm/page-cluster");
}

TEST(sysctl_get_matches_proc)
{
	static const char *const names[] = {
		"vm.swappiness", "vm.vfs_cache_pressure", "vm.min_free_kbytes",
		"vm.watermark_scale_factor", "vm.page-cluster", "vm.overcommit_memory",
		"vm.dirty_ratio", "vm.dirty_background_ratio",
	};
	char val[SYSCTL_VALUE_MAX], want[SYSCTL_VALUE_MAX], path[128], err[256];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "/proc/sys/vm/%s", names[i] + 3);
		read_proc(path, want, sizeof want);
		CHECK_INT(sysctl_get(names[i], val, sizeof val, err, sizeof err), 0);
		CHECK_STR(val, want);
	}
	/* multi-value: kept with its separators */
	read_proc("/proc/sys/vm/lowmem_reserve_ratio", want, sizeof want);
	CHECK_INT(sysctl_get("vm.lowmem_reserve_ratio", val, sizeof val, err, sizeof err), 0);
	CHECK_STR(val, want);
	CHECK(strchr(val, '\t') != NULL);
	/* write-only */
	CHECK_INT(sysctl_get("vm.drop_caches", val, sizeof val, err, sizeof err), -1);
	CHECK_STR(err, "cannot read vm.drop_caches: /proc/sys/vm/drop_caches: Permission "
		  "denied (it is write-only)");
}

/* A leading 0 is octal to the kernel: refused, with the number meant. */
TEST(sysctl_value_octal_refused)
{
	char err[256];

	CHECK_INT(sysctl_value_check("60", err, sizeof(err)), 0);
	CHECK_INT(sysctl_value_check("0", err, sizeof(err)), 0);
	CHECK_INT(sysctl_value_check("256 256 32 0 0", err, sizeof(err)), 0);
	CHECK_INT(sysctl_value_check("-10", err, sizeof(err)), 0);
	CHECK_INT(sysctl_value_check("060", err, sizeof(err)), -1);
	CHECK_STR(err, "'060': the kernel reads a number with a leading 0 as octal: write 60");
	CHECK_INT(sysctl_value_check("256\t032", err, sizeof(err)), -1);
	CHECK_INT(sysctl_value_check("-07", err, sizeof(err)), -1);
	CHECK_INT(sysctl_value_check("100", err, sizeof(err)), 0);
}

/* What was written against what the kernel holds: separators folded. */
TEST(sysctl_same_values)
{
	CHECK(sysctl_same("60", "60"));
	CHECK(sysctl_same("256\t256\t32\t0\t0", "256 256 32 0 0"));
	CHECK(sysctl_same("3", " 3\n"));
	CHECK(!sysctl_same("9788", "11282"));
	CHECK(!sysctl_same("60", "600"));
	CHECK(!sysctl_same("600", "60"));
	CHECK(!sysctl_same("256 32", "256"));
	CHECK(!sysctl_same("", "0"));
	CHECK(sysctl_same("", ""));
}

TEST(sysctl_set_restore)
{
	char orig[64] = "", now[64], rec[64], err[256] = "", arg[64];
	const char *v1, *v2;

	statedir_begin("sysctl");
	read_proc("/proc/sys/vm/swappiness", orig, sizeof orig);
	CHECK(orig[0] != '\0');
	v1 = strcmp(orig, "63") ? "63" : "64";
	v2 = strcmp(orig, "65") ? "65" : "66";
	CHECK_INT(sysctl_set("vm.swappiness", v1, err, sizeof err), 0);
	read_proc("/proc/sys/vm/swappiness", now, sizeof now);
	CHECK_STR(now, v1);
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.swappiness", rec, sizeof rec, err, sizeof err),
		  0);
	CHECK_STR(rec, orig);
	/* the second set keeps the value from before the first */
	snprintf(arg, sizeof arg, "vm.swappiness=%s", v2);
	CHECK_INT(sysctl_set_arg(arg, err, sizeof err), 0);
	read_proc("/proc/sys/vm/swappiness", now, sizeof now);
	CHECK_STR(now, v2);
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.swappiness", rec, sizeof rec, err, sizeof err),
		  0);
	CHECK_STR(rec, orig);
	CHECK_INT(sysctl_restore("vm.swappiness", err, sizeof err), 0);
	read_proc("/proc/sys/vm/swappiness", now, sizeof now);
	CHECK_STR(now, orig);
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.swappiness", rec, sizeof rec, err, sizeof err),
		  1);
	/* nothing recorded: restoring is a no-op */
	CHECK_INT(sysctl_restore("vm.swappiness", err, sizeof err), 0);

	/* a value the kernel refuses: the reason, the value untouched, no record */
	CHECK_INT(sysctl_set("vm.swappiness", "abc", err, sizeof err), -1);
	CHECK_STR(err, "cannot set vm.swappiness to abc: Invalid argument (the kernel "
		  "refuses this value)");
	read_proc("/proc/sys/vm/swappiness", now, sizeof now);
	CHECK_STR(now, orig);
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.swappiness", rec, sizeof rec, err, sizeof err),
		  1);
	/* write-only: its old value cannot be recorded, so it is not set */
	CHECK_INT(sysctl_set("vm.drop_caches", "1", err, sizeof err), -1);
	CHECK(strstr(err, "write-only") != NULL);
	/* readable but empty: an action, nothing to restore, so not done */
	CHECK_INT(sysctl_set("vm.stat_refresh", "1", err, sizeof err), -1);
	CHECK_STR(err, "cannot set vm.stat_refresh: it reads back empty (an action, not a "
		  "setting), so there is nothing to put back afterwards");
	CHECK_INT(undo_lookup(UNDO_SYSCTL, "vm.stat_refresh", rec, sizeof rec, err, sizeof err),
		  1);
	CHECK_INT(sysctl_set_arg("vm.swappiness", err, sizeof err), -1);
	CHECK_STR(err, "--sysctl vm.swappiness: want vm.NAME=VALUE");
	CHECK_INT(sysctl_set_arg("=5", err, sizeof err), -1);
	CHECK_INT(sysctl_set_arg("kernel.pid_max=5", err, sizeof err), -1);
	CHECK(strstr(err, "not a vm.* sysctl") != NULL);

	if (orig[0])
		sysctl_write("vm.swappiness", orig, err, sizeof err);
	statedir_end();
}

static int set_swappiness(char *err, size_t errlen)
{
	return sysctl_set("vm.swappiness", "10", err, errlen);
}

TEST(sysctl_not_root_one_line)
{
	char err[256];

	CHECK_INT(as_nobody(set_swappiness, err, sizeof err), 0);
	CHECK_STR(err, "cannot set vm.swappiness (needs root): /proc/sys/vm/swappiness: "
		  "Permission denied");
}
