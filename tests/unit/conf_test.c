#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "conf.h"

static int parse(const char *text, struct conf *c, char *err, size_t errlen)
{
	return conf_parse(text, strlen(text), "cfg", c, err, errlen);
}

TEST(conf_parse_keys_comments_blanks)
{
	struct conf c;
	char err[256] = "";

	CHECK_INT(parse("# my settings\n\n\tdelay=0.25  \r\n   # indented comment\n",
			&c, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK(c.has_delay);
	CHECK_NEAR(c.delay, 0.25, 1e-12);
	CHECK_INT(parse("", &c, err, sizeof(err)), 0);
	CHECK(!c.has_delay);
	CHECK_INT(parse("delay = 2", &c, err, sizeof(err)), 0);	/* no final newline */
	CHECK_NEAR(c.delay, 2, 0);
}

TEST(conf_parse_errors_name_the_line)
{
	struct conf c = { .has_delay = true, .delay = 9 };
	char err[256];

	CHECK_INT(parse("delay = 1\nthis is not a setting\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:2: want key = value");
	CHECK(c.has_delay && c.delay == 9);	/* untouched */
	CHECK_INT(parse("\n\ncolour = on\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:3: unknown key 'colour' (keys: delay, plots)");
	CHECK_INT(parse("plots = free,bogus\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:1: no plot named \"bogus\" (thrashtop --list-plots lists them)");
	CHECK_INT(parse("plots = free\nplots = majflt\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:2: plots given twice");
	CHECK_INT(parse("delay = 0.001\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:1: delay '0.001': want seconds from 0.01 to 3600");
	CHECK_INT(parse("delay = 1\ndelay = 2\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:2: delay given twice");
	CHECK_INT(parse(" = 1\n", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:1: want key = value");
	CHECK_INT(conf_parse("delay = 1\n\0x\n", 13, "cfg", &c, err, sizeof(err)), -1);
	CHECK_STR(err, "cfg:2: not a text line");
}

TEST(conf_plots_read_and_set)
{
	char dir[] = "/tmp/thrashtop-conf-XXXXXX", path[256], err[256] = "", text[512];
	struct conf c;
	FILE *f;
	size_t n;

	CHECK_INT(parse("plots = psi-some, free\n", &c, err, sizeof(err)), 0);
	CHECK_INT(c.nplots, 2);
	CHECK_INT(c.plots[0], M_PSI_SOME);
	CHECK_INT(c.plots[1], M_FREE);
	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* the directories are made; a new file gets the one line */
	snprintf(path, sizeof(path), "%s/sub/config", dir);
	CHECK_INT(conf_set(path, "plots", "free,majflt", err, sizeof(err)), 0);
	{
		struct stat st;
		mode_t um = umask(022);

		CHECK_INT(stat(path, &st), 0);
		CHECK_INT(st.st_mode & 0777, 0644 & ~um);	/* not mkstemp's 0600 */
		umask(um);
	}
	CHECK_INT(conf_load(path, &c, err, sizeof(err)), 0);
	CHECK_INT(c.nplots, 2);
	/* other lines and comments stay, the key's line is replaced in place */
	f = fopen(path, "w");
	fputs("# mine\ndelay = 0.5\nplots = free\n\n# end\n", f);
	fclose(f);
	CHECK_INT(conf_set(path, "plots", "swap-used,psi-full", err, sizeof(err)), 0);
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	CHECK_STR(text, "# mine\ndelay = 0.5\nplots = swap-used,psi-full\n\n# end\n");
	/* a directory in the way: refused with the reason */
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK_INT(conf_set(path, "plots", "free", err, sizeof(err)), -1);
	CHECK(strstr(err, "cannot") != NULL);
	snprintf(path, sizeof(path), "%s/sub/config", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

TEST(conf_load_missing_and_directory)
{
	char dir[] = "/tmp/thrashtop-conf-XXXXXX", path[256], err[256] = "";
	struct conf c;

	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	CHECK_INT(conf_load(path, &c, err, sizeof(err)), 0);	/* none: empty */
	CHECK(!c.has_delay);
	/* a directory where the file should be */
	CHECK_INT(conf_load(dir, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "Is a directory") != NULL);
	rmdir(dir);
}

TEST(conf_default_path_xdg)
{
	char buf[256], err[256];
	char *old_xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;

	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	CHECK_STR(conf_default_path(buf, sizeof(buf), err, sizeof(err)), "/x/conf/thrashtop/config");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	setenv("HOME", getenv("HOME") ? getenv("HOME") : "/root", 1);
	char want[256];
	snprintf(want, sizeof(want), "%s/.config/thrashtop/config", getenv("HOME"));
	if (getenv("HOME")[0] == '/')
		CHECK_STR(conf_default_path(buf, sizeof(buf), err, sizeof(err)), want);
	if (old_xdg)
		setenv("XDG_CONFIG_HOME", old_xdg, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(old_xdg);
}
