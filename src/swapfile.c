/* The swap header is written here rather than by running mkswap: its
 * layout is kernel ABI (union swap_header, include/linux/swap.h), filling
 * one page needs no child process, no PATH lookup (mkswap lives in /sbin,
 * which is not on every root PATH) and no output to parse, and a failure
 * is an errno of our own write. The unit test checks it byte for byte
 * against mkswap's. */
#include "swapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/swap.h>
#include <unistd.h>

#include "undo.h"
#include "fmt.h"

#define PREFIX "thrashtop-swap-"

/* offsets in page 0 (struct swap_header.info follows 1024 boot bytes) */
#define HDR_VERSION 1024
#define HDR_LAST_PAGE 1028
#define HDR_NR_BAD 1032
#define HDR_UUID 1036
#define HDR_LABEL 1052
#define SIGNATURE "SWAPSPACE2"

/* statfs f_type values (linux/magic.h) */
#define FS_TMPFS 0x01021994L
#define FS_RAMFS 0x858458f6L
#define FS_OVERLAY 0x794c7630L
#define FS_BTRFS 0x9123683eL

static const char *fs_name(long type, char *buf, size_t len)
{
	static const struct { long type; const char *name; } fs[] = {
		{ FS_TMPFS, "tmpfs" }, { FS_RAMFS, "ramfs" }, { FS_OVERLAY, "overlay" },
		{ FS_BTRFS, "btrfs" }, { 0xef53L, "ext2/3/4" }, { 0x58465342L, "xfs" },
		{ 0xf2f52010L, "f2fs" }, { 0x6969L, "nfs" }, { 0x65735546L, "fuse" },
		{ 0x01021997L, "9p" }, { 0x2fc12fc1L, "zfs" }, { 0x4d44L, "vfat" },
	};

	for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
		if ((type & 0xffffffffL) == fs[i].type)
			return fs[i].name;
	snprintf(buf, len, "type 0x%lx", type & 0xffffffffL);
	return buf;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);	/* the kernel reads it in native byte order */
}

void swapfile_header(unsigned char *buf, long pagesz, unsigned long npages)
{
	unsigned char uuid[16];

	memset(buf, 0, (size_t)pagesz);
	put32(buf + HDR_VERSION, 1);
	/* the header page counts: last_page is the index of the last page */
	put32(buf + HDR_LAST_PAGE, (uint32_t)(npages - 1));
	put32(buf + HDR_NR_BAD, 0);
	if (getrandom(uuid, sizeof uuid, 0) != (ssize_t)sizeof uuid) {
		for (size_t i = 0; i < sizeof uuid; i++)
			uuid[i] = (unsigned char)(rand() >> 7);
	}
	uuid[6] = (unsigned char)((uuid[6] & 0x0f) | 0x40);	/* version 4 */
	uuid[8] = (unsigned char)((uuid[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
	memcpy(buf + HDR_UUID, uuid, sizeof uuid);
	memcpy(buf + HDR_LABEL, "thrashtop", 9);
	memcpy(buf + pagesz - 10, SIGNATURE, 10);
}

static void human(long long b, char *buf, size_t len)
{
	if (b >= (1LL << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1 << 30));
	else
		snprintf(buf, len, "%lld MiB", b >> 20);
}

/* Everything up to swapon; on failure the file is gone. -2: the name is
 * taken (nothing said, nothing made). */
static int make_file(const struct swapfile *sw, long fstype, const char *fsname,
		     const char *dir, char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	unsigned char *hdr;
	int fd, e;

	fd = open(sw->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == EEXIST)
			return -2;
		fmt_err(err, errlen, "cannot create swap file %s: %s", sw->path, strerror(errno));
		return -1;
	}
	if (fstype == FS_BTRFS) {
		int flags = 0;

		/* btrfs swaps only to nocow files; the flag sticks only while empty */
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0 ||
		    (flags |= FS_NOCOW_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)) {
			fmt_err(err, errlen,
			       "btrfs at %s cannot hold a swap file: cannot make %s nocow: %s",
			       dir, sw->path, strerror(errno));
			goto fail;
		}
	}
	if (fallocate(fd, 0, 0, sw->bytes) < 0) {
		e = errno;
		if (e == EOPNOTSUPP)
			fmt_err(err, errlen,
			       "the %s file system at %s cannot hold a swap file "
			       "(fallocate: %s)", fsname, dir, strerror(e));
		else
			fmt_err(err, errlen, "cannot allocate %lld bytes for %s: %s", sw->bytes,
			       sw->path, strerror(e));
		goto fail;
	}
	if (fchmod(fd, 0600) < 0) {
		fmt_err(err, errlen, "cannot chmod 600 %s: %s", sw->path, strerror(errno));
		goto fail;
	}
	hdr = malloc((size_t)pagesz);
	if (!hdr) {
		fmt_err(err, errlen, "cannot write the swap header of %s: %s", sw->path,
		       strerror(ENOMEM));
		goto fail;
	}
	swapfile_header(hdr, pagesz, (unsigned long)(sw->bytes / pagesz));
	if (pwrite(fd, hdr, (size_t)pagesz, 0) != (ssize_t)pagesz || fsync(fd) < 0) {
		e = errno;
		free(hdr);
		fmt_err(err, errlen, "cannot write the swap header of %s: %s", sw->path,
		       strerror(e));
		goto fail;
	}
	free(hdr);
	if (close(fd) < 0) {
		fd = -1;
		fmt_err(err, errlen, "cannot write %s: %s", sw->path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(sw->path);
	return -1;
}

static int swap_flags(int prio)
{
	if (prio < 0)
		return 0;
	return SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
}

/* DIR/thrashtop-swap-PID-XXXXXXXX, the tail random. */
static void random_name(char *buf, size_t len, const char *dir)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[8];
	char tail[sizeof r + 1];

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		for (size_t i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)(rand() >> 7);
	for (size_t i = 0; i < sizeof r; i++)
		tail[i] = set[r[i] % (sizeof set - 1)];
	tail[sizeof r] = '\0';
	snprintf(buf, len, "%s/" PREFIX "%d-%s", dir, (int)getpid(), tail);
}

int swapfile_create(struct swapfile *sw, const char *dir, long long bytes, int prio,
		    char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	char fsbuf[32], h1[32], h2[32];
	const char *fsname;
	struct statfs sfs;
	struct statvfs vfs;
	struct stat sb;

	memset(sw, 0, sizeof *sw);
	sw->prio = prio;
	if (!dir)
		dir = SWAPFILE_DIR;
	if (bytes < SWAPFILE_MIN_BYTES) {
		fmt_err(err, errlen, "--swap %lld bytes is too small (at least 1 MiB)", bytes);
		return -1;
	}
	if (prio < -1 || prio > 32767) {
		fmt_err(err, errlen, "swap priority %d out of range (0..32767, or -1)", prio);
		return -1;
	}
	if (geteuid() != 0) {
		fmt_err(err, errlen, "--swap needs root: swapon(2) requires CAP_SYS_ADMIN");
		return -1;
	}
	if (stat(dir, &sb) < 0) {
		fmt_err(err, errlen, "swap directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		fmt_err(err, errlen, "swap directory %s: not a directory", dir);
		return -1;
	}
	if (statfs(dir, &sfs) < 0 || statvfs(dir, &vfs) < 0) {
		fmt_err(err, errlen, "cannot check the file system of %s: %s", dir,
		       strerror(errno));
		return -1;
	}
	fsname = fs_name((long)sfs.f_type, fsbuf, sizeof fsbuf);
	if (sfs.f_type == FS_TMPFS || sfs.f_type == FS_RAMFS || sfs.f_type == FS_OVERLAY) {
		fmt_err(err, errlen,
		       "%s is on %s, which cannot hold a swap file: choose a directory on "
		       "a disk file system (e.g. ext4, xfs)", dir, fsname);
		return -1;
	}
	sw->bytes = bytes / pagesz * pagesz;
	if ((long long)vfs.f_bavail * (long long)vfs.f_frsize - sw->bytes <
	    SWAPFILE_KEEP_FREE) {
		human(sw->bytes, h1, sizeof h1);
		human((long long)vfs.f_bavail * (long long)vfs.f_frsize, h2, sizeof h2);
		fmt_err(err, errlen, "no room for a %s swap file in %s: %s free, and %d MiB "
		       "must stay free", h1, dir, h2, (int)(SWAPFILE_KEEP_FREE >> 20));
		return -1;
	}
	/* Recorded before it is made, so the name is chosen first: one no
	 * one can guess and plant a file at, and another if one did. */
	for (int tries = 0;; tries++) {
		int rc;

		if (tries == 16) {
			fmt_err(err, errlen, "cannot create a swap file in %s: every name tried "
			       "was taken", dir);
			return -1;
		}
		random_name(sw->path, sizeof sw->path, dir);
		if (undo_add(UNDO_SWAP, sw->path, "", err, errlen) < 0)
			return -1;
		rc = make_file(sw, (long)sfs.f_type, fsname, dir, err, errlen);
		if (rc == 0)
			break;
		if (rc == -1)
			goto forget;
		undo_forget(UNDO_SWAP, sw->path, NULL, 0);
	}
	if (swapon(sw->path, swap_flags(prio)) < 0) {
		int e = errno;

		if (e == EINVAL)
			fmt_err(err, errlen, "swapon %s: %s: the %s file system at %s cannot "
			       "hold a swap file", sw->path, strerror(e), fsname, dir);
		else if (e == EPERM)
			fmt_err(err, errlen, "swapon %s: %s (needs CAP_SYS_ADMIN, or all swap "
			       "areas the kernel allows are in use)", sw->path, strerror(e));
		else
			fmt_err(err, errlen, "swapon %s: %s", sw->path, strerror(e));
		unlink(sw->path);
		goto forget;
	}
	sw->active = true;
	return 0;
forget:
	undo_forget(UNDO_SWAP, sw->path, NULL, 0);
	sw->path[0] = '\0';
	return -1;
}

/* The header for bytes at the start of the open device fd. */
static int write_disk_header(int fd, const char *dev, long long bytes, char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	unsigned char *hdr = malloc((size_t)pagesz);
	uint64_t size = 0;
	char h1[32], h2[32];
	int e = 0;

	if (!hdr)
		return fmt_err(err, errlen, "cannot write the swap header of %s: %s", dev,
			       strerror(ENOMEM));
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		free(hdr);
		return fmt_err(err, errlen, "%s: not a disk: %s", dev, strerror(errno));
	}
	if ((uint64_t)bytes > size) {
		free(hdr);
		human(bytes, h1, sizeof h1);
		human((long long)size, h2, sizeof h2);
		return fmt_err(err, errlen, "a %s swap area does not fit %s, a disk of %s", h1, dev,
			       h2);
	}
	swapfile_header(hdr, pagesz, (unsigned long)(bytes / pagesz));
	if (pwrite(fd, hdr, (size_t)pagesz, 0) != (ssize_t)pagesz || fsync(fd) < 0)
		e = errno ? errno : EIO;
	free(hdr);
	if (e)
		return fmt_err(err, errlen, "cannot write the swap header of %s: %s", dev,
			       strerror(e));
	return 0;
}

int swapfile_on_disk(struct swapfile *sw, const char *dev, const char *kind, long long bytes,
		     int prio, char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	int fd, rc;

	memset(sw, 0, sizeof *sw);
	sw->prio = prio;
	if (bytes < SWAPFILE_MIN_BYTES)
		return fmt_err(err, errlen, "--swap %lld bytes is too small (at least 1 MiB)", bytes);
	sw->bytes = bytes / pagesz * pagesz;
	snprintf(sw->path, sizeof sw->path, "%s", dev);
	snprintf(sw->disk, sizeof sw->disk, "%s", kind);
	if (undo_add(UNDO_SWAP, sw->path, "", err, errlen) < 0)
		goto forget;
	/* O_EXCL: a disk something has mounted or swaps on is refused */
	if ((fd = open(dev, O_WRONLY | O_EXCL | O_CLOEXEC)) < 0) {
		fmt_err(err, errlen, "cannot open the swap disk %s: %s", dev, strerror(errno));
		goto forget;
	}
	rc = write_disk_header(fd, dev, sw->bytes, err, errlen);
	close(fd);
	if (rc)
		goto forget;
	if (swapon(sw->path, swap_flags(prio)) < 0) {
		fmt_err(err, errlen, "swapon %s: %s", sw->path, strerror(errno));
		goto forget;
	}
	sw->active = true;
	return 0;
forget:
	undo_forget(UNDO_SWAP, sw->path, NULL, 0);
	sw->path[0] = '\0';
	return -1;
}

int swapfile_disk_off(const char *dev, char *err, size_t errlen)
{
	struct stat sb;

	if (strncmp(dev, "/dev/", 5) || strstr(dev, "/../") || lstat(dev, &sb) < 0 ||
	    !S_ISBLK(sb.st_mode))
		return fmt_err(err, errlen, "refusing to swapoff %s: not a disk under /dev", dev);
	if (swapoff(dev) < 0 && errno != EINVAL)
		return fmt_err(err, errlen, "swapoff %s: %s%s", dev, strerror(errno),
			       errno == ENOMEM ? " (RAM cannot take back the pages swapped there)" :
			       "");
	return 0;
}

int swapfile_remove_path(const char *path, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct stat sb;

	if (path[0] != '/' || !base || strncmp(base + 1, PREFIX, strlen(PREFIX)) != 0 ||
	    strstr(path, "/../")) {
		fmt_err(err, errlen, "refusing to remove %s: not a thrashtop swap file", path);
		return -1;
	}
	/* a name someone else made (a link, their file) is not ours to touch */
	if (lstat(path, &sb) == 0 && (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid()))
		return 0;
	if (swapoff(path) < 0 && errno != EINVAL && errno != ENOENT) {
		int e = errno;

		if (e == ENOMEM)
			fmt_err(err, errlen, "swapoff %s: %s (RAM cannot take back the pages "
			       "swapped there; free memory and try again)", path, strerror(e));
		else
			fmt_err(err, errlen, "swapoff %s: %s%s", path, strerror(e),
			       e == EPERM ? " (needs root)" : "");
		return -1;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		fmt_err(err, errlen, "cannot remove swap file %s (now off): %s", path,
		       strerror(errno));
		return -1;
	}
	return 0;
}

int swapfile_remove(struct swapfile *sw, char *err, size_t errlen)
{
	if (!sw->path[0])
		return 0;
	if ((sw->disk[0] ? swapfile_disk_off : swapfile_remove_path)(sw->path, err, errlen) < 0)
		return -1;
	sw->active = false;
	if (undo_forget(UNDO_SWAP, sw->path, err, errlen) < 0)
		return -1;
	sw->path[0] = '\0';
	return 0;
}
