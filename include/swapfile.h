/* A temporary swap file: recorded in the undo state, then created
 * (fallocate, mode 0600, a swap header written here), then swapon(2).
 * Removal is swapoff(2) + unlink. Or a swap area on a disk of the
 * session's own (a guest's virtio disk): the same header written at its
 * start, swapon(2), and swapoff(2) at the end. */
#ifndef THRASHTOP_SWAPFILE_H
#define THRASHTOP_SWAPFILE_H

#include <stdbool.h>
#include <stddef.h>

#define SWAPFILE_DIR "/var/tmp"
#define SWAPFILE_MIN_BYTES (1LL << 20)
/* Free space the file system must keep after the file is allocated. */
#define SWAPFILE_KEEP_FREE (256LL << 20)

struct swapfile {
	char path[256];
	long long bytes;	/* file size: a whole number of pages */
	int prio;		/* swap priority, -1 = the kernel's default */
	bool active;		/* swapon done */
	char disk[48];		/* on a disk: what backs it ("virtio-blk cache=none");
				   "" for a file */
};

/* Creates DIR/thrashtop-swap-PID-XXXXXXXX (the tail random, so no one can
 * plant a file at the name beforehand) exclusively, of bytes rounded down
 * to whole pages, and turns it on with
 * priority prio (0..32767, -1 for the kernel's default). dir NULL means
 * SWAPFILE_DIR. A file system that cannot hold a swap file (tmpfs, ramfs,
 * overlay, btrfs that refuses nocow) fails with a message naming it.
 * Returns 0, or -1 with err filled and nothing left behind. */
int swapfile_create(struct swapfile *sw, const char *dir, long long bytes, int prio,
		    char *err, size_t errlen);

/* A swap area of bytes (rounded down to whole pages) at the start of the
 * block device dev, which must be at least that large: recorded in the
 * undo state, the header written, swapon with prio as
 * swapfile_create's. kind says what backs the disk, for the record.
 * Returns 0, or -1 with err filled and nothing left on. */
int swapfile_on_disk(struct swapfile *sw, const char *dev, const char *kind, long long bytes,
		     int prio, char *err, size_t errlen);

/* swapoff of a block device under /dev, as the undo state names it (one
 * not on swap: 0). Returns 0, or -1 with err filled. */
int swapfile_disk_off(const char *dev, char *err, size_t errlen);

/* swapoff + unlink (a disk: swapoff only) + drop the undo record. On failure (swapoff ENOMEM when
 * RAM cannot take the swapped pages back) the file stays on and recorded.
 * Returns 0, or -1 with err filled. */
int swapfile_remove(struct swapfile *sw, char *err, size_t errlen);

/* The same for a path from the undo state: swapoff if it is on, unlink if
 * it exists; the last component must start with "thrashtop-swap-". A link
 * or another user's file under the name is left alone (0). */
int swapfile_remove_path(const char *path, char *err, size_t errlen);

/* Fills page 0 of a swap area of npages pages (page size pagesz): the v1
 * header with last_page, a random uuid, label "thrashtop" and the
 * SWAPSPACE2 signature. buf must hold pagesz bytes. */
void swapfile_header(unsigned char *buf, long pagesz, unsigned long npages);

#endif
