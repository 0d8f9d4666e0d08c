#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"

static int parse(const char *a1, const char *a2, const char *a3, const char *a4,
		 char *err, size_t errlen)
{
	char *argv[6] = { "thrashtop" };
	int argc = 1;
	struct options o;

	for (const char *a[] = { a1, a2, a3, a4 }, **p = a; p < a + 4 && *p; p++)
		argv[argc++] = (char *)*p;
	argv[argc] = NULL;
	err[0] = 0;
	int rc = cli_parse(argc, argv, &o, err, errlen);
	if (rc == 0)
		cli_free(&o);
	return rc;
}

TEST(cli_long_option_given_a_value)
{
	char err[256];

	CHECK_INT(parse("--batch=1", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "option '--batch' takes no value");
	CHECK_INT(parse("--no-history=yes", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "option '--no-history' takes no value");
}

TEST(cli_unknown_options_named_printably)
{
	char err[256];

	CHECK_INT(parse("--bogus", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "unknown option '--bogus' (try --help)");
	CHECK_INT(parse("-x", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "unknown option '-x' (try --help)");
	CHECK_INT(parse("--\033[2J", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "unknown option '--\\x1b[2J' (try --help)");
}

/* One value an option: a second is refused, not the last winning. */
TEST(cli_single_value_options_once)
{
	char err[256];

	CHECK_INT(parse("--swap", "file:1G", "--swap", "zram:1G", err, sizeof(err)), -1);
	CHECK_STR(err, "--swap given twice: give it once");
	CHECK_INT(parse("-p", "2", "--procs=3", NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "-p (--procs) given twice: give it once");
	CHECK_INT(parse("--zswap", "lzo", "--zswap=off", NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--zswap given twice: give it once");
	CHECK_INT(parse("--mem=1G", "--mem=2G", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--mem given twice: give it once");
	CHECK_INT(parse("--swap", "nfs:1G", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--swap 'nfs:1G': unknown kind 'nfs': want SIZE, file:SIZE or zram:SIZE[:ALGO]");
	CHECK_INT(parse("--swap", "file:1G:lz4", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--swap 'file:1G:lz4': only zram takes an algorithm (zram:SIZE:ALGO)");
	CHECK_INT(parse("--zswap", "off:20", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--zswap 'off:20': off takes no pool");
	CHECK_INT(parse("--sysctl", "vm.swappiness= 10", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--sysctl 'vm.swappiness= 10': want vm.NAME=VALUE, no blanks around the = "
		  "or the value");
	CHECK_INT(parse("--sysctl", "vm.swappiness =10", NULL, NULL, err, sizeof(err)), -1);
	CHECK_INT(parse("--sysctl", "vm.swappiness=", NULL, NULL, err, sizeof(err)), -1);
	CHECK_INT(parse("--sysctl", "vm.lowmem_reserve_ratio=256 256 32", NULL, NULL, err,
			sizeof(err)), 0);
	/* flags and the many-valued ones may come again */
	CHECK_INT(parse("-b", "-b", "--no-history", "--no-history", err, sizeof(err)), 0);
	CHECK_INT(parse("--sysctl", "vm.swappiness=10", "--sysctl", "vm.page-cluster=2", err,
			sizeof(err)), 0);
}

/* --wait: its seconds only after an =, a default without. */
TEST(cli_wait_seconds)
{
	char *bare[] = { "thrashtop", "--wait", NULL }, *five[] = { "thrashtop", "--wait=5", NULL };
	char *none[] = { "thrashtop", NULL }, err[256];
	struct options o;

	CHECK_INT(cli_parse(2, bare, &o, err, sizeof(err)), 0);
	CHECK_INT(o.wait, CLI_WAIT_DEFAULT);
	CHECK_INT(cli_parse(2, five, &o, err, sizeof(err)), 0);
	CHECK_INT(o.wait, 5);
	CHECK_INT(cli_parse(1, none, &o, err, sizeof(err)), 0);
	CHECK_INT(o.wait, 0);
	CHECK_INT(parse("--wait=0", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--wait=0: want whole seconds from 1 to 86400");
	CHECK_INT(parse("--wait", "5", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "unexpected argument '5' (--wait takes its seconds after an =: --wait=5)");
	CHECK_INT(parse("--wait=5", "--wait", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--wait given twice: give it once");
}

TEST(cli_one_size_for_the_sorter)
{
	char err[256];

	CHECK_INT(parse("-n", "1000", "-m", "4", err, sizeof(err)), -1);
	CHECK_STR(err, "-n and -m both size the sorter: give one of them");
	CHECK_INT(parse("-m", "4", "-m", "8", err, sizeof(err)), -1);
	CHECK_STR(err, "-m given twice: give the sorter one size");
	CHECK_INT(parse("-n", "1000", "-p", "2", err, sizeof(err)), 0);
}

TEST(cli_label_refuses_control_bytes_and_bad_utf8)
{
	char err[256];

	CHECK_INT(parse("-L", "a\033]0;x\007", NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "without control characters") != NULL);
	CHECK_INT(parse("-L", "bad \xff", NULL, NULL, err, sizeof(err)), -1);
	CHECK_INT(parse("-L", "C1 \xc2\x9b", NULL, NULL, err, sizeof(err)), -1);
	CHECK_INT(parse("-L", "2.4.14-pre8 \xc3\xa9t\xc3\xa9", NULL, NULL, err, sizeof(err)), 0);
}

/* -L counts characters, not bytes, and refuses bidi controls. */
TEST(cli_label_characters_and_bidi)
{
	char err[256], lab[1024] = "";

	for (int i = 0; i < 200; i++)
		strcat(lab, "\xc3\xa9");	/* 200 characters, 400 bytes */
	CHECK_INT(parse("-L", lab, NULL, NULL, err, sizeof(err)), 0);
	strcat(lab, "x");
	CHECK_INT(parse("-L", lab, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "-L: want a label of 1 to 200 characters");
	CHECK_INT(parse("-L", "", NULL, NULL, err, sizeof(err)), -1);
	CHECK_INT(parse("-L", "abc\xe2\x80\xaetxt.exe", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "-L: U+202E is a bidirectional control character, which reorders the text"
		  " around it on a terminal");
	CHECK_INT(parse("-L", "a\xe2\x81\xa6" "b", NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "U+2066") != NULL);
}

TEST(cli_sweep_freed_on_a_later_error)
{
	char err[256];

	/* ASan's leak check fails this test if the sweep values stay. */
	CHECK_INT(parse("--sweep", "swappiness=0,60", "--bogus", NULL, err, sizeof(err)), -1);
}

/* A command is looked for as execvp would, before anything is changed
 * for it: where PATH says, or at the path given. */
TEST(cli_command_found_before_the_session)
{
	static const struct {
		const char *cmd, *why;
	} refused[] = {
		{ "no-such-tool", "cannot run 'no-such-tool': No such file or directory" },
		{ "plain", "cannot run 'plain': Permission denied" },
		{ "sub", "cannot run 'sub': Permission denied" },
		{ "/nonexistent/tool", "cannot run '/nonexistent/tool': No such file or directory" },
		{ "", "-- must be followed by a command" },
		{ "bad\033name", "cannot run 'bad\\x1bname': No such file or directory" },
	};
	/* under build/, not /tmp, which may be mounted noexec */
	char tmpl[] = "build/cli-XXXXXX", dir[PATH_MAX], path[2 * PATH_MAX + 8], err[256], longname[300];
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int fd;

	if (!mkdtemp(tmpl) || !realpath(tmpl, dir)) {
		CHECK(!"mkdtemp");
		free(old);
		return;
	}
	snprintf(path, sizeof(path), "%s/tool", dir);
	CHECK((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755)) >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/plain", dir);
	CHECK((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "/nowhere:%s", dir);
	setenv("PATH", path, 1);

	CHECK_INT(parse("--", "tool", NULL, NULL, err, sizeof(err)), 0);
	/* a file without an x bit is no command, for root either */
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int rc = parse("--", refused[i].cmd, NULL, NULL, err, sizeof(err));

		if (rc != -1 || strcmp(err, refused[i].why))
			t_fail(__FILE__, __LINE__, "-- \"%s\": %d \"%s\", want \"%s\"",
			       refused[i].cmd, rc, err, refused[i].why);
	}
	snprintf(path, sizeof(path), "%s/tool", dir);
	CHECK_INT(parse("--", path, NULL, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK_INT(parse("--", path, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, ": Permission denied") != NULL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	CHECK_INT(parse("--", longname, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, ": File name too long") != NULL);
	/* an error other than "not there" ends the search, as in execvp: a
	 * link loop in the first entry hides the tool in the second */
	snprintf(path, sizeof(path), "%s/loop", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/loop/tool", dir);
	CHECK(symlink("tool", path) == 0);
	snprintf(path, sizeof(path), "%s/loop:%s", dir, dir);
	setenv("PATH", path, 1);
	CHECK_INT(parse("--", "tool", NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "cannot run 'tool': Too many levels of symbolic links");
	/* PATH unset: the C library's default, which holds sh */
	unsetenv("PATH");
	CHECK_INT(parse("--", "sh", NULL, NULL, err, sizeof(err)), 0);

	if (old)
		setenv("PATH", old, 1);
	free(old);
	snprintf(path, sizeof(path), "%s/loop/tool", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/loop", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/tool", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plain", dir);
	unlink(path);
	rmdir(dir);
}

TEST(cli_host_one_place)
{
	char err[256];

	CHECK_INT(parse("--agent", "a", "--kernel", "6.1", err, sizeof(err)), -1);
	CHECK_STR(err, "--agent names the place alone: not with --host or --kernel");
	CHECK_INT(parse("--host", "box", "--sweep", "kernel=6.1", err, sizeof(err)), -1);
	CHECK_STR(err, "--sweep kernel= names every place: not with --host or --sweep host=");
	CHECK_INT(parse("--host-copy", NULL, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "--host-copy copies this thrashtop to --host's box: give --host too");
	CHECK_INT(parse("--host", "box", "--host-copy", NULL, err, sizeof(err)), 0);
	CHECK_INT(parse("--sweep", "host=a,b", "--host-copy", NULL, err, sizeof(err)), 0);
}

TEST(cli_places_side_by_side)
{
	char *argv[] = { "thrashtop", "--host", "a", "--kernel", "6.1", "--host", "root@b", NULL };
	struct options o;
	char err[256];

	CHECK_INT(cli_parse(7, argv, &o, err, sizeof(err)), 0);
	CHECK_INT(o.nplaces, 3);
	CHECK(!o.places[0].kernel && o.places[1].kernel && !o.places[2].kernel);
	CHECK_STR(o.places[2].what, "root@b");
	CHECK_STR(o.host, "a");
	CHECK_STR(o.kernel, "6.1");
	CHECK(o.boot_mem == CLI_BOOT_MEM_DEFAULT);
	cli_free(&o);
	CHECK_INT(parse("--host", "a", "--host", "a", err, sizeof(err)), -1);
	CHECK_STR(err, "--host a given twice: each place once");
	CHECK_INT(parse("--kernel", "6.1", "--kernel", "6.12", err, sizeof(err)), 0);
	CHECK_INT(parse("--kernel", "6.1", "--host", "b", err, sizeof(err)), 0);
}
