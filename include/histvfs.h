/* Stage: the SQLite VFS of a history in a directory others can write
 * (sysio_dir_shared). SQLite's unix VFS creates a history's journal
 * and WAL with O_CREAT but not O_EXCL, so a file another user planted
 * under the name would be used. Through this VFS, the history, its
 * journal and its WAL are created only with O_EXCL (and O_NOFOLLOW), and
 * one already there is used only when history_side_ok takes it, opened
 * without O_CREAT: a journal left by a crash is still rolled back. The
 * shared memory file of WAL is opened by the unix VFS itself, past any
 * xOpen, so such a history must never be opened in WAL mode with shared
 * memory. */
#ifndef THRASHTOP_HISTVFS_H
#define THRASHTOP_HISTVFS_H

#include <stdbool.h>
#include <stddef.h>

#define HISTVFS_NAME "thrashtop-shared"

/* Registers the VFS (not as the default), once. 0, or -1 when SQLite has
 * no unix VFS. */
int histvfs_register(void);

/* The line that says which file was refused and why, if one was since
 * the last call (SQLite reports it only as "unable to open database
 * file"): copied into buf and forgotten. */
bool histvfs_refusal(char *buf, size_t len);

#endif
