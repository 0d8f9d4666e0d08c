/* Stage: the history's file, beside SQLite: where it lives by default,
 * whether a path given can hold it, whether others may plant files beside
 * it, the lock held while its schema is rebuilt, and a waiting writer's
 * word. */
#ifndef THRASHTOP_HISTFILE_H
#define THRASHTOP_HISTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* $XDG_DATA_HOME/thrashtop/history.db, else ~/.local/share/thrashtop/history.db.
 * Returns buf, or NULL (err filled) when neither variable is usable. */
char *history_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Whether --history PATH can hold a history, before anything starts: an
 * existing regular file, or a name whose nearest existing directory takes
 * files and may be written (its missing directories are made on open).
 * Refuses directories, devices, /proc and /sys. Returns 0, or -1 with err. */
int history_check_path(const char *path, char *err, size_t errlen);

/* Whether the directory of the file path names (a link's target) is
 * shared for the effective user; a directory not there yet is not: it is
 * made 0700 on open. */
bool history_in_shared_dir(const char *path);

/* Whether a file SQLite would use beside a history in a shared directory
 * (name, as lstat saw it) may be used: a regular file of one link (no
 * symbolic link, no hard link to another file), owned by owner, the
 * history's owner. Returns 0, or -1 with err naming the file. */
int history_side_ok(const char *name, const struct stat *sb, uid_t owner, char *err,
		    size_t errlen);

/* history_side_ok for each of PATH-journal, PATH-wal, PATH-shm and
 * PATH-build that is there in a shared directory, the owner being the
 * history's, or for a history not made yet the effective user. Returns 0,
 * or -1 with err. */
int history_check_sides(const char *path, char *err, size_t errlen);

/* A schema change that may take long (a migration, or an index made over
 * an old history's runs: about 17 s at 1,000,000) holds SQLite's write
 * lock throughout, and meanwhile an flock on PATH-build. A writer waiting
 * for the lock waits as long as that is held and HISTORY_BUSY_MS more, so
 * a run that ends beside it is kept, not refused. */

/* Whether another handle holds PATH's build lock. */
bool history_building(const char *path);

/* Takes PATH's build lock: the descriptor, or -1 with err. Another builder
 * is waited for, or if !wait, -2 is returned at once. */
int history_build_begin(const char *path, bool wait, char *err, size_t errlen);

/* Releases the lock and removes its file. */
void history_build_end(const char *path, int fd);

/* A writer waiting for the lock says so while it sleeps between tries,
 * with a shared flock on the directory that holds the history; the writer
 * holding the lock asks with an exclusive one, not waited for. The
 * directory, since closing another descriptor of the file or of SQLite's
 * beside it would drop the locks SQLite holds on it. */

/* The directory of the file path names (a link's target): a descriptor
 * for the two below, or -1. */
int history_dir_open(const char *path);

/* Says (on) or stops saying that a writer waits. */
void history_dir_waiting(int fd, bool on);

/* Whether a writer says it waits. */
bool history_dir_waited(int fd);

/* Removes a history this process made and kept no run in, once closed:
 * unless a file beside it (PATH-wal, -shm, -journal, -build) says another
 * handle has it open, whose runs would go with it. Whether it did. */
bool history_remove_unused(const char *path);

#endif
