/* The guest's initramfs: busybox-static, the kernel's modules in load
 * order and an /init that mounts what a session needs, loads the modules,
 * mounts the host's root read-only over 9p, and runs one command chrooted
 * there with the virtio-serial port named INITRAMFS_PORT open as fd 3,
 * then powers the guest off. A newc cpio, gzipped, written with
 * libarchive. */
#ifndef THRASHTOP_INITRAMFS_H
#define THRASHTOP_INITRAMFS_H

#include <stddef.h>

#include "kernel.h"

#define INITRAMFS_PORT "thrashtop"	/* the virtserialport's name */
#define INITRAMFS_TAG "hostroot"	/* the 9p mount tag of the host's / */
#define INITRAMFS_SAYS "thrashtop-init: "	/* how /init's lines on the console begin */

/* The text of /init for kernel k and the guest command argv (NULL-ended),
 * into buf: its length, or -1 when it does not fit. */
int initramfs_script(const struct kernel *k, char *const argv[], char *buf, size_t len);

/* Writes the initramfs to fd (a file of the caller's own): 0, or -1 with
 * one line in err (no static busybox, a module that cannot be read, a
 * write that failed). */
int initramfs_build(const struct kernel *k, char *const argv[], int fd, char *err, size_t errlen);

#endif
