/* Run keys: the names a table or sweep takes, and the values as read. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record_fixture.h"
#include "runkey.h"

static const char *text(const struct run_record *r, const char *key, char *buf, size_t len)
{
	const struct hist_field *f = run_key(key);

	CHECK(f != NULL);
	if (!f)
		return "";
	run_key_text(r, f, buf, len);
	return buf;
}

TEST(runkey_aliases_and_sysctl_names)
{
	CHECK_STR(run_key("kernel")->name, "kernel_release");
	CHECK_STR(run_key("mem")->name, "mem_limit_kib");
	CHECK_STR(run_key("memory")->name, "mem_limit_kib");
	CHECK_STR(run_key("global")->name, "global_limit_kib");
	CHECK_STR(run_key("swap")->name, "swap_total_kib");
	CHECK_STR(run_key("host")->name, "hostname");
	CHECK_STR(run_key("ram")->name, "ram_kib");
	CHECK_STR(run_key("page-cluster")->name, "page_cluster");
	CHECK_STR(run_key("vm.page_cluster")->name, "page_cluster");
	CHECK_STR(run_key("vm.swappiness")->name, "swappiness");
	CHECK_STR(run_key("nelems")->name, "nelems");
	CHECK(run_key("no_such_key") == NULL);
}

/* Sizes in K/M/G, a limit not set "none", a sorter's figure of a command
 * "-", zswap on or off, and what is not known "n/a". */
TEST(runkey_values_as_read)
{
	struct run_record r;
	char buf[128];

	fixture_record(&r);
	r.zswap = 1;
	r.dirty_ratio = NA;
	CHECK_STR(text(&r, "kernel", buf, sizeof(buf)), "6.1.0-18-amd64");
	CHECK_STR(text(&r, "swap", buf, sizeof(buf)), "191M");
	CHECK_STR(text(&r, "mem", buf, sizeof(buf)), "128M");
	CHECK_STR(text(&r, "global", buf, sizeof(buf)), "none");
	CHECK_STR(text(&r, "nelems", buf, sizeof(buf)), "90000000");
	CHECK_STR(text(&r, "zswap", buf, sizeof(buf)), "on");
	CHECK_STR(text(&r, "vm.dirty_ratio", buf, sizeof(buf)), "n/a");
	CHECK_STR(text(&r, "label", buf, sizeof(buf)), "-");
	CHECK(run_key_kib(run_key("mem")) && !run_key_kib(run_key("swappiness")));
	r.kind = RUN_COMMAND;
	r.command = strdup("make -j4");
	CHECK_STR(text(&r, "nelems", buf, sizeof(buf)), "-");
	CHECK_STR(text(&r, "command", buf, sizeof(buf)), "make -j4");
	CHECK_STR(run_key_whole(&r, run_key("command")), "make -j4");
	CHECK(run_key_whole(&r, run_key("swappiness")) == NULL);
	run_record_clear(&r);
}
