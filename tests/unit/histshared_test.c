/* A history in a directory others can write: who else may write there,
 * which planted files are refused and how, a rollback journal that two
 * writers share, a cut-off write rolled back, and a WAL file turned to a
 * rollback journal without a -shm. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "histfile.h"
#include "history_fixture.h"
#include "history.h"
#include "histvfs.h"
#include "record_fixture.h"

static char topdir[64], shdir[96];

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

__attribute__((destructor)) static void rm_topdir(void)
{
	if (topdir[0])
		nftw(topdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* A private directory, for victims and WAL histories. */
static const char *top(void)
{
	if (!topdir[0]) {
		snprintf(topdir, sizeof(topdir), "%s/thrashtop-vfstest.XXXXXX", tbase());
		if (!mkdtemp(topdir))
			topdir[0] = 0;
	}
	return topdir;
}

/* A fresh 1777 directory in it, as /tmp. */
static const char *shared_dir(void)
{
	static int n;

	snprintf(shdir, sizeof(shdir), "%s/shared%d", top(), n++);
	if (mkdir(shdir, 0700) || chmod(shdir, 01777))
		shdir[0] = 0;
	return shdir;
}

static bool exists(const char *path, const char *suffix)
{
	char p[300];
	struct stat sb;

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return lstat(p, &sb) == 0;
}

/* Files made in dir from now on, seen by made(): SQLite may make a file
 * and remove it again before the test could look. */
static int watch(const char *dir)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd >= 0 && inotify_add_watch(fd, dir, IN_CREATE) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether a file whose name ends in suffix was made since watch();
 * closes fd. */
static bool made(int fd, const char *suffix)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool seen = fd < 0;
	ssize_t n;

	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			size_t l = strlen(ev->name), sl = strlen(suffix);
			if (ev->len && l >= sl && !strcmp(ev->name + l - sl, suffix))
				seen = true;
			p += sizeof(*ev) + ev->len;
		}
	if (fd >= 0)
		close(fd);
	return seen;
}

/* The text of the first column of sql's first row, with the unix VFS. */
static void raw_text(const char *path, const char *sql, char *buf, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	snprintf(buf, len, "(none)");
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

/* The seed's run, its start time (and so its uuid) new each call, also
 * across processes. */
static void new_run(struct run_record *r, const char *label)
{
	static unsigned seq;
	unsigned i = seq++ + (unsigned)getpid() % 1000 * 1000;

	fixture_record(r);
	snprintf(r->started_at, sizeof(r->started_at), "2025-02-%02uT%02u:%02u:%02uZ",
		 1 + i / 86400 % 28, i / 3600 % 24, i / 60 % 60, i % 60);
	snprintf(r->label, sizeof(r->label), "%s", label);
}

#define LABELS "SELECT group_concat(label) FROM (SELECT label FROM runs ORDER BY id)"

static int add_runs(const char *path, int n, const char *label, char *err, size_t errlen)
{
	struct history *h = history_open(path, 0, err, errlen);
	int bad = !h;

	for (int i = 0; h && i < n; i++) {
		struct run_record r;
		new_run(&r, label);
		if (history_add(h, &r, err, errlen) != 0)
			bad++;
		run_record_clear(&r);
	}
	history_close(h);
	return bad;
}

static long count_runs(const char *path, int flags)
{
	char err[512];
	struct history *h = history_open(path, flags, err, sizeof(err));
	long n = h ? (long)history_count(h, NULL, err, sizeof(err)) : -1;

	if (!h)
		fprintf(stderr, "  %s\n", err);
	history_close(h);
	return n;
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

/* Two writers at once, each waiting for the other's lock: every run kept,
 * under a rollback journal that is gone after each commit. */
TEST(history_shared_dir_two_writers_rollback_journal)
{
	char path[200], mode[32], err[512];
	pid_t pid[2];

	snprintf(path, sizeof(path), "%s/h.db", shared_dir());
	int w_wal = watch(shdir), w_shm = watch(shdir);
	CHECK_INT(add_runs(path, 1, "first", err, sizeof(err)), 0);
	for (int w = 0; w < 2; w++) {
		if ((pid[w] = fork()) == 0) {
			char e[512];
			int bad = add_runs(path, 100, w ? "b" : "a", e, sizeof(e));
			if (bad)
				fprintf(stderr, "writer %d: %s\n", w, e);
			_exit(bad ? 1 : 0);
		}
	}
	for (int w = 0; w < 2; w++) {
		int st = -1;
		CHECK(waitpid(pid[w], &st, 0) == pid[w]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_INT(count_runs(path, HISTORY_RDONLY), 201);
	raw_text(path, "PRAGMA journal_mode", mode, sizeof(mode));
	CHECK_STR(mode, "delete");
	CHECK(!exists(path, "-journal"));
	CHECK(!made(w_wal, "-wal"));
	CHECK(!made(w_shm, "-shm"));
}

/* A write cut off after it changed the file leaves a hot journal: a reader
 * says so, the next writer rolls it back. */
TEST(history_shared_dir_rolls_back_a_cut_off_write)
{
	char path[200], label[32], err[512];

	snprintf(path, sizeof(path), "%s/h.db", shared_dir());
	CHECK_INT(add_runs(path, 3, "kept", err, sizeof(err)), 0);
	pid_t pid = fork();
	if (pid == 0) {
		sqlite3 *db;
		/* a cache of 2 pages: the change reaches the file before COMMIT */
		_exit(sqlite3_open(path, &db) == SQLITE_OK &&
		      sqlite3_exec(db, "PRAGMA cache_size = 2; BEGIN IMMEDIATE;"
				   " UPDATE runs SET label = hex(randomblob(300000))",
				   NULL, NULL, NULL) == SQLITE_OK ? 0 : 1);
	}
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(exists(path, "-journal"));

	CHECK(history_open(path, HISTORY_RDONLY, err, sizeof(err)) == NULL);
	CHECK(strstr(err, ": a write was cut off and its journal is to be rolled back: open it "
		      "once for writing") != NULL);
	CHECK_INT(add_runs(path, 1, "after", err, sizeof(err)), 0);
	CHECK(!exists(path, "-journal"));
	CHECK_INT(count_runs(path, HISTORY_RDONLY), 4);
	raw_text(path, LABELS, label, sizeof(label));
	CHECK_STR(label, "kept,kept,kept,after");
	raw_text(path, "PRAGMA integrity_check", label, sizeof(label));
	CHECK_STR(label, "ok");
}

/* A link planted as the journal: refused before the open, and by the VFS
 * when it appears later, whether SQLite would read it as a hot journal or
 * create it for a write; its target is never opened. */
TEST(history_shared_dir_refuses_a_planted_journal)
{
	char path[200], side[220], victim[220], err[512];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/h.db", shared_dir());
	CHECK_INT(add_runs(path, 1, "kept", err, sizeof(err)), 0);
	snprintf(victim, sizeof(victim), "%s/victim", top());
	FILE *f = fopen(victim, "w");
	CHECK(f && fputs("root only\n", f) >= 0 && fclose(f) == 0);
	snprintf(side, sizeof(side), "%s-journal", path);
	CHECK_INT(symlink(victim, side), 0);

	CHECK(history_open(path, 0, err, sizeof(err)) == NULL);
	char want[400];
	snprintf(want, sizeof(want), "%s: a symbolic link in a directory others can write: refused",
		 side);
	CHECK_STR(err, want);
	CHECK_INT(history_check_path(path, err, sizeof(err)), -1);
	CHECK_STR(err, want);

	CHECK_INT(histvfs_register(), 0);
	CHECK_INT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, HISTVFS_NAME), SQLITE_OK);
	CHECK(sqlite3_exec(db, "SELECT count(*) FROM runs", NULL, NULL, NULL) != SQLITE_OK);
	CHECK(histvfs_refusal(err, sizeof(err)) && !strcmp(err, want));
	/* a link to nothing: no hot journal, so the write's create meets it */
	CHECK_INT(unlink(side), 0);
	CHECK_INT(symlink("/nonexistent/x", side), 0);
	CHECK(sqlite3_exec(db, "UPDATE runs SET label = 'changed'", NULL, NULL, NULL) != SQLITE_OK);
	CHECK(histvfs_refusal(err, sizeof(err)) && !strcmp(err, want));
	CHECK(!histvfs_refusal(err, sizeof(err)));
	sqlite3_close(db);

	struct stat sb;
	CHECK(stat(victim, &sb) == 0 && sb.st_size == 10);
	CHECK_INT(unlink(side), 0);
	CHECK_INT(count_runs(path, HISTORY_RDONLY), 1);
}

/* A WAL history (written before, or moved here) with a commit only in its
 * -wal, as a writer that died leaves it: the first write turns it to a
 * rollback journal, the commit kept, and no -shm is ever made. */
TEST(history_shared_dir_turns_wal_to_a_rollback_journal)
{
	char priv[200], path[200], a[220], b[220], mode[32], err[512];

	snprintf(priv, sizeof(priv), "%s/private.db", top());
	CHECK_INT(add_runs(priv, 1, "checkpointed", err, sizeof(err)), 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct history *h = history_open(priv, 0, err, sizeof(err));
		struct run_record r;
		new_run(&r, "in-wal");
		_exit(h && history_add(h, &r, err, sizeof(err)) == 0 ? 0 : 1);	/* no close */
	}
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(exists(priv, "-wal"));
	snprintf(path, sizeof(path), "%s/h.db", shared_dir());
	CHECK_INT(rename(priv, path), 0);
	snprintf(a, sizeof(a), "%s-wal", priv);
	snprintf(b, sizeof(b), "%s-wal", path);
	CHECK_INT(rename(a, b), 0);
	snprintf(a, sizeof(a), "%s-shm", priv);
	unlink(a);

	int w = watch(shdir);
	CHECK_INT(add_runs(path, 1, "after", err, sizeof(err)), 0);
	CHECK(!made(w, "-shm"));
	CHECK(!exists(path, "-shm") && !exists(path, "-wal") && !exists(path, "-journal"));
	raw_text(path, "PRAGMA journal_mode", mode, sizeof(mode));
	CHECK_STR(mode, "delete");
	raw_text(path, LABELS, mode, sizeof(mode));
	CHECK_STR(mode, "checkpointed,in-wal,after");
}
