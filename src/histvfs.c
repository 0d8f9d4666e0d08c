/* The unix VFS with exclusive creates and checked reuse, for histories in
 * directories others can write. */
#include "histvfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "fmt.h"
#include "histfile.h"

static sqlite3_vfs vfs;
static char refused[600];

static int refuse(sqlite3_file *f)
{
	f->pMethods = NULL;	/* nothing for SQLite to close */
	return SQLITE_CANTOPEN;
}

static int shared_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags,
		       int *out)
{
	sqlite3_vfs *unix_vfs = v->pAppData;
	bool db = flags & SQLITE_OPEN_MAIN_DB;
	struct stat sb, dsb;

	if (!name || !(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL)))
		return unix_vfs->xOpen(unix_vfs, name, f, flags, out);
	if (lstat(name, &sb) != 0) {
		if (!(flags & SQLITE_OPEN_CREATE))
			return unix_vfs->xOpen(unix_vfs, name, f, flags, out);
		/* O_EXCL | O_NOFOLLOW */
		int rc = unix_vfs->xOpen(unix_vfs, name, f, flags | SQLITE_OPEN_EXCLUSIVE, out);
		if (rc != SQLITE_OK && lstat(name, &sb) == 0)
			fmt_err(refused, sizeof(refused), "%s: appeared just before it was made, "
				"in a directory others can write: refused", name);
		return rc;
	}
	/* there already: the history's own (a hot journal, a WAL being
	 * recovered), or refused */
	const char *dbname = db ? name : sqlite3_filename_database(name);
	if (stat(dbname, &dsb) != 0) {
		fmt_err(refused, sizeof(refused), "%s: %s", dbname, strerror(errno));
		return refuse(f);
	}
	if (history_side_ok(name, &sb, dsb.st_uid, refused, sizeof(refused)))
		return refuse(f);
	return unix_vfs->xOpen(unix_vfs, name, f, flags & ~SQLITE_OPEN_CREATE, out);
}

int histvfs_register(void)
{
	sqlite3_vfs *unix_vfs;

	if (vfs.zName)
		return 0;
	if (!(unix_vfs = sqlite3_vfs_find("unix")))
		return -1;
	/* the unix methods but xOpen take their VFS argument as unused */
	vfs = *unix_vfs;
	vfs.pNext = NULL;
	vfs.zName = HISTVFS_NAME;
	vfs.pAppData = unix_vfs;
	vfs.xOpen = shared_open;
	if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK) {
		vfs.zName = NULL;
		return -1;
	}
	return 0;
}

bool histvfs_refusal(char *buf, size_t len)
{
	if (!refused[0])
		return false;
	snprintf(buf, len, "%s", refused);
	refused[0] = 0;
	return true;
}
