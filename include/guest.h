/* A guest as the place a session runs (--kernel): the kernel resolved,
 * fetched into the cache when it names a Debian version (kernel.h), booted
 * under qemu with this binary as its agent (vm.h), and the place over its
 * stream (remote.h), called "vm" with its accelerator. Swap files asked
 * for go on a virtio disk made for them (a file cannot be swapped on over
 * 9p or tmpfs). Closing the place stops the guest. */
#ifndef THRASHTOP_GUEST_H
#define THRASHTOP_GUEST_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "place.h"

/* Boots o->kernel with o->boot_mem of RAM and waits (an ending signal
 * stops the wait) until its agent is ready. NULL with one line in err:
 * the kernel, the boot (where its console is kept), the agent's own. */
struct place *guest_open(const struct options *o, char *err, size_t errlen);

/* The size of the guest's swap disk: the largest swap file asked for, by
 * --swap or a sweep's swap= (zram needs none); 0 when none is. */
int64_t guest_swap_bytes(const struct options *o);

#endif
