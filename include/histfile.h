/* Stage: the history's file, beside SQLite: where it lives by default,
 * whether a path given can hold it, and the lock held while its schema is
 * rebuilt. */
#ifndef THRASHTOP_HISTFILE_H
#define THRASHTOP_HISTFILE_H

#include <stdbool.h>
#include <stddef.h>

/* $XDG_DATA_HOME/thrashtop/history.db, else ~/.local/share/thrashtop/history.db.
 * Returns buf, or NULL (err filled) when neither variable is usable. */
char *history_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Whether --history PATH can hold a history, before anything starts: an
 * existing regular file, or a name whose nearest existing directory takes
 * files and may be written (its missing directories are made on open).
 * Refuses directories, devices, /proc and /sys. Returns 0, or -1 with err. */
int history_check_path(const char *path, char *err, size_t errlen);

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

#endif
