#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sysio.h"

static int fill_ok(FILE *f, const void *arg)
{
	return fputs(arg, f) < 0 ? -1 : 0;
}

static int fill_fails(FILE *f, const void *arg)
{
	(void)f;
	(void)arg;
	errno = ENOSPC;
	return -1;
}

/* A path no file can be made at is -2 before fill runs; fill's own
 * failure is -1; either leaves nothing behind. */
TEST(sysio_replace_bad_path_apart)
{
	char dir[] = "/tmp/thrashtop-sysio-test-XXXXXX", path[128], buf[16];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/no/such/x.svg", dir);
	CHECK_INT(sysio_replace(path, 0644, fill_ok, "x"), -2);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(sysio_replace(dir, 0644, fill_ok, "x"), -2);
	CHECK_INT(errno, EISDIR);
	snprintf(path, sizeof(path), "%s/x.svg", dir);
	CHECK_INT(sysio_replace(path, 0644, fill_fails, NULL), -1);
	CHECK_INT(errno, ENOSPC);
	CHECK(access(path, F_OK) != 0);
	CHECK_INT(sysio_replace(path, 0644, fill_ok, "chart"), 0);
	CHECK_INT(sysio_read(path, buf, sizeof(buf)), 5);
	CHECK_STR(buf, "chart");
	unlink(path);
	CHECK_INT(rmdir(dir), 0);
}

TEST(sysio_dir_shared_says_who_else_may_write)
{
	static const struct {
		mode_t mode;
		uid_t uid, runner;
		gid_t gid;
		bool shared;
	} c[] = {
		{ 0755, 0, 0, 0, false },		/* /var/lib */
		{ 01777, 0, 0, 0, true },		/* /tmp: sticky or not */
		{ 0777, 0, 0, 0, true },
		{ 0775, 0, 0, 0, false },		/* root's group */
		{ 0775, 0, 0, 50, true },		/* staff */
		{ 0755, 65534, 0, 65534, true },	/* nobody's: it may chmod */
		{ 0500, 1000, 0, 1000, true },
		{ 0700, 1000, 1000, 1000, false },	/* the runner's own */
		{ 0755, 0, 1000, 0, false },
		{ 0775, 1000, 1000, 1000, true },	/* a group, whoever is in it */
		{ 01777, 1000, 1000, 1000, true },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct stat d = { .st_mode = S_IFDIR | c[i].mode, .st_uid = c[i].uid,
				  .st_gid = c[i].gid };
		if (sysio_dir_shared(&d, c[i].runner) != c[i].shared)
			t_fail(__FILE__, __LINE__, "mode %04o uid %u gid %u for uid %u: want %s",
			       (unsigned)c[i].mode, (unsigned)c[i].uid, (unsigned)c[i].gid,
			       (unsigned)c[i].runner, c[i].shared ? "shared" : "not shared");
	}
}

/* A file the user names is never written through a link, and in a
 * directory others can write never over a name already there. */
TEST(sysio_create_refuses_links_and_planted_names)
{
	char dir[] = "/tmp/thrashtop-sysio-test-XXXXXX", path[128], link[128], victim[128];
	char buf[16];
	bool made;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/evil.cast", dir);
	snprintf(path, sizeof(path), "%s/x.cast", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "root", 4) == 4);
	close(fd);
	CHECK_INT(symlink(victim, link), 0);

	/* the user's own directory: a link refused, a file replaced */
	CHECK_INT(chmod(dir, 0700), 0);
	CHECK_INT(sysio_create(link, 0644, &made), -1);
	CHECK_INT(errno, ELOOP);
	CHECK_INT((fd = sysio_create(path, 0644, &made)) >= 0, 1);
	CHECK(made);
	CHECK_INT((int)write(fd, "old!", 4), 4);
	close(fd);
	CHECK_INT((fd = sysio_create(path, 0644, &made)) >= 0, 1);
	CHECK(!made);
	CHECK_INT((int)write(fd, "new", 3), 3);
	close(fd);
	CHECK_INT(sysio_read(path, buf, sizeof(buf)), 3);
	CHECK_INT(sysio_create(dir, 0644, &made), -1);

	/* one others can write, as /tmp: nothing already there is opened */
	CHECK_INT(chmod(dir, 01777), 0);
	CHECK_INT(sysio_create(link, 0644, &made), -1);
	CHECK_INT(errno, ELOOP);
	CHECK_INT(sysio_create(path, 0644, &made), -1);
	CHECK_INT(errno, EEXIST);
	CHECK_INT(sysio_read(victim, buf, sizeof(buf)), 4);
	CHECK_STR(buf, "root");
	unlink(path);
	CHECK_INT((fd = sysio_create(path, 0644, &made)) >= 0, 1);
	CHECK(made);
	close(fd);
	unlink(path);
	unlink(link);
	unlink(victim);
	CHECK_INT(rmdir(dir), 0);
}
