/* Process forks as the kernel reports them (the proc connector, root):
 * each new process with its parent, however short its life, so that a
 * command's descendants are known though no tick saw them. Reads only;
 * never blocks. */
#ifndef THRASHTOP_PROCEV_H
#define THRASHTOP_PROCEV_H

#include <stddef.h>
#include <sys/types.h>

struct procev;

/* Subscribed to fork events; NULL with err (not root, or a kernel without
 * the connector). */
struct procev *procev_open(char *err, size_t errlen);
void procev_close(struct procev *p);

/* Calls fork(parent, child, arg) for each new process (not thread) the
 * kernel reported since the last call, in order. Events the kernel
 * dropped, not read in time, are gone: a tick's scan of a tree still
 * finds its living processes. */
void procev_drain(struct procev *p, void (*fork)(pid_t parent, pid_t child, void *arg), void *arg);

#endif
