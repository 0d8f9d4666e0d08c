/* A kernel for a guest: a KERNEL argument resolved into a bootable image,
 * its version and the modules the guest's init loads, in load order. The
 * argument is an installed kernel (/boot/vmlinuz-VER or VER), a Debian
 * linux-image .deb, a version or pattern of one (6.1, 6.12.*, fetched with
 * apt-get download when not cached) or a kernel build tree. Debian
 * kernels are unpacked into a cache, each one whole or not at all. */
#ifndef THRASHTOP_KERNEL_H
#define THRASHTOP_KERNEL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_MODS_MAX 64

struct kernel_mod {
	char name[64];		/* as the kernel names it: '-' made '_' */
	char path[PATH_MAX];	/* .ko, .ko.xz or .ko.zst */
};

struct kernel {
	char version[256];	/* its uname -r */
	char image[PATH_MAX];
	char moddir[PATH_MAX];	/* where its modules are; "" when none */
	char source[PATH_MAX + 16];	/* where it came from, in words */
	int nmods;
	struct kernel_mod mods[KERNEL_MODS_MAX];	/* in load order */
};

/* A kernel in the cache, as `thrashtop kernel list` shows it. */
struct kernel_entry {
	char version[256];
	char source[PATH_MAX + 16];
	uint64_t bytes;
};

/* kernel_resolve's flags. */
#define KERNEL_NO_FETCH 1u	/* a version not in the cache is an error */
#define KERNEL_SWAP_DISK 2u	/* the guest gets a swap disk: virtio_blk is required */

/* Resolves arg into k, modules and all: 0, or -1 with one line in err
 * (no such kernel, a download or unpack that failed, modules the guest
 * needs that the kernel has neither built in nor as modules). */
int kernel_resolve(const char *arg, unsigned flags, struct kernel *k, char *err, size_t errlen);

/* The newest linux-image-*-amd64 package matching pattern, downloaded and
 * unpacked into the cache unless already there. Its version goes to
 * version. 0, 1 when it was there already, or -1 with err. */
int kernel_fetch(const char *pattern, char *version, size_t vlen, char *err, size_t errlen);

/* The cache's kernels, newest first, in a malloc'ed array: how many, or
 * -1 with err. */
int kernel_cached(struct kernel_entry **list, char *err, size_t errlen);

/* The cache directory: /var/cache/thrashtop/kernels for root, else under
 * $XDG_CACHE_HOME or ~/.cache. NULL with err. */
char *kernel_cache_dir(char *buf, size_t len, char *err, size_t errlen);

/* Removes half-unpacked kernels whose unpacking process is gone. How many. */
int kernel_sweep(void);

/* A module file's bytes, decompressed, malloc'ed; *len their count. NULL
 * with err. */
unsigned char *kernel_module_read(const char *path, size_t *len, char *err, size_t errlen);

/* The value of key (e.g. "depends") in an ELF module's .modinfo section,
 * copied into val: 1, 0 when the module has none, -1 when it is not an
 * ELF64 module. */
int kernel_modinfo(const unsigned char *ko, size_t len, const char *key, char *val, size_t vlen);

#endif
