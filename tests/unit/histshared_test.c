/* A history in a directory others can write: who else may write there,
 * and which files planted beside it are refused, and how. */
#include <stdio.h>
#include <sys/stat.h>

#include "check.h"
#include "histfile.h"

TEST(history_dir_shared_says_who_else_may_write)
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
		if (history_dir_shared(&d, c[i].runner) != c[i].shared)
			t_fail(__FILE__, __LINE__, "mode %04o uid %u gid %u for uid %u: want %s",
			       (unsigned)c[i].mode, (unsigned)c[i].uid, (unsigned)c[i].gid,
			       (unsigned)c[i].runner, c[i].shared ? "shared" : "not shared");
	}
}

TEST(history_side_ok_takes_only_the_owners_plain_file)
{
	char err[256];
	struct stat sb = { .st_mode = S_IFREG | 0644, .st_nlink = 1, .st_uid = 0 };

	CHECK_INT(history_side_ok("/tmp/d/h.db-journal", &sb, 0, err, sizeof(err)), 0);
	sb.st_uid = 65534;
	CHECK_INT(history_side_ok("/tmp/d/h.db-wal", &sb, 0, err, sizeof(err)), -1);
	CHECK_STR(err, "/tmp/d/h.db-wal: owned by uid 65534, not by the history's owner (uid 0), "
		  "in a directory others can write: refused");
	CHECK_INT(history_side_ok("/tmp/d/h.db-wal", &sb, 65534, err, sizeof(err)), 0);
	sb.st_nlink = 2;
	CHECK_INT(history_side_ok("/tmp/d/h.db-wal", &sb, 65534, err, sizeof(err)), -1);
	CHECK_STR(err, "/tmp/d/h.db-wal: 2 hard links in a directory others can write: refused");
	sb.st_nlink = 1;
	sb.st_mode = S_IFLNK | 0777;
	CHECK_INT(history_side_ok("/tmp/d/h.db-journal", &sb, 65534, err, sizeof(err)), -1);
	CHECK_STR(err, "/tmp/d/h.db-journal: a symbolic link in a directory others can write: "
		  "refused");
	sb.st_mode = S_IFIFO | 0666;
	CHECK_INT(history_side_ok("/tmp/d/h.db-shm", &sb, 65534, err, sizeof(err)), -1);
	CHECK_STR(err, "/tmp/d/h.db-shm: not a regular file, in a directory others can write: "
		  "refused");
}
