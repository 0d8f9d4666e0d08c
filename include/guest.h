/* A guest as the place a session runs (--kernel): the kernel resolved,
 * fetched into the cache when it names a Debian version (kernel.h), booted
 * under qemu with this binary as its agent (vm.h), and the place over its
 * stream (remote.h), called "vm" with its accelerator. Swap files asked
 * for go on a virtio disk made for them (a file cannot be swapped on over
 * 9p or tmpfs). Closing the place stops the guest. */
#ifndef THRASHTOP_GUEST_H
#define THRASHTOP_GUEST_H

#include <stdbool.h>
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

/* guest_open in two halves, so that several guests boot at once: start
 * resolves the kernel and starts qemu (NULL with err); ready waits for
 * the boot and the agent, the guest then the place's, else stopped
 * (NULL with err). booting: whether it still boots, its qemu watched
 * (a KVM try that fails is seen within seconds, to start it under TCG):
 * several guests' boots are waited for together. */
struct guest;
struct guest *guest_start(const struct options *o, char *err, size_t errlen);
bool guest_booting(struct guest *g);
struct place *guest_ready(struct guest *g, const struct options *o, char *err, size_t errlen);

#endif
