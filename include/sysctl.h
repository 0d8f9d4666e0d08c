/* Reading and setting vm.* sysctls by name (vm.swappiness is
 * /proc/sys/vm/swappiness). A set records the old value in the undo state
 * first; restore writes it back. */
#ifndef THRASHTOP_SYSCTL_H
#define THRASHTOP_SYSCTL_H

#include <stddef.h>

#define SYSCTL_VALUE_MAX 256

/* Checks name (vm. followed by letters, digits, '_' or '-', naming a file
 * under /proc/sys/vm) and gives its /proc path. Returns 0, or -1 with err
 * filled. */
int sysctl_path(const char *name, char *path, size_t pathlen, char *err, size_t errlen);

/* The current value without its trailing newline (multi-value sysctls
 * keep their tabs). Returns 0, or -1 with err filled. */
int sysctl_get(const char *name, char *val, size_t vallen, char *err, size_t errlen);

/* Records the old value (the first set of a name keeps the oldest), then
 * writes val. A value the kernel refuses is -1 with its reason and no
 * record left. */
int sysctl_set(const char *name, const char *val, char *err, size_t errlen);

/* Pure: refuses a number with a leading 0, which the kernel reads as
 * octal ("060" sets vm.swappiness to 48). 0, or -1 with err. */
int sysctl_value_check(const char *val, char *err, size_t errlen);

/* Pure: whether the kernel's value a is the value b that was written,
 * white space folded ("256\t32" is "256 32"). */
int sysctl_same(const char *a, const char *b);

/* Parses "vm.NAME=VALUE" (as --sysctl takes it) and sets it. */
int sysctl_set_arg(const char *arg, char *err, size_t errlen);

/* Writes back the value recorded before this process's first set of name
 * and drops the record; no record is 0. */
int sysctl_restore(const char *name, char *err, size_t errlen);

/* Writes val without recording anything (what the undo code uses). */
int sysctl_write(const char *name, const char *val, char *err, size_t errlen);

#endif
