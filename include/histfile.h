/* Stage: the history's file, before SQLite opens it: where it lives by
 * default, and whether a path given can hold it. */
#ifndef THRASHTOP_HISTFILE_H
#define THRASHTOP_HISTFILE_H

#include <stddef.h>

/* $XDG_DATA_HOME/thrashtop/history.db, else ~/.local/share/thrashtop/history.db.
 * Returns buf, or NULL (err filled) when neither variable is usable. */
char *history_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Whether --history PATH can hold a history, before anything starts: an
 * existing regular file, or a name whose nearest existing directory takes
 * files and may be written (its missing directories are made on open).
 * Refuses directories, devices, /proc and /sys. Returns 0, or -1 with err. */
int history_check_path(const char *path, char *err, size_t errlen);

#endif
