#include "zram.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

#include "fmt.h"
#include "swapfile.h"
#include "sysio.h"
#include "undo.h"

static int sys_read(const char *path, char *buf, size_t len)
{
	if (sysio_read(path, buf, len) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int sys_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(val);
	ssize_t w;
	int e;

	if (fd < 0)
		return -1;
	w = write(fd, val, n);
	e = errno;
	close(fd);
	errno = e;
	return w == (ssize_t)n ? 0 : -1;
}

static int dev_write(const char *name, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/%s", name, file);
	return sys_write(path, val);
}

void zram_current_algo(const char *text, char *buf, size_t len)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	snprintf(buf, len, "%.*s", a && b ? (int)(b - a - 1) : 0, a ? a + 1 : "");
}

int zram_algorithms(const char *name, char *buf, size_t len)
{
	char path[128], text[512];
	size_t o = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/comp_algorithm", name);
	if (sys_read(path, text, sizeof(text)) < 0)
		return -1;
	if (len)
		buf[0] = '\0';
	for (const char *p = text; *p && o + 1 < len; p++)
		if (*p != '[' && *p != ']')
			buf[o++] = *p, buf[o] = '\0';
	while (o && (buf[o - 1] == ' ' || buf[o - 1] == '\n'))
		buf[--o] = '\0';
	return 0;
}

static bool valid_name(const char *name)
{
	if (strncmp(name, "zram", 4) || !name[4])
		return false;
	for (const char *p = name + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* Turns the device off and gives it back; a device already gone is done. */
static int teardown(const char *name, bool swap_on, char *err, size_t errlen)
{
	char dev[32], path[64];

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	if (swap_on && swapoff(dev) < 0 && errno != EINVAL && errno != ENOENT) {
		int e = errno;
		return fmt_err(err, errlen, "swapoff %s: %s%s", dev, strerror(e),
			       e == ENOMEM ? " (RAM cannot take back the pages stored in it)" : "");
	}
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (dev_write(name, "reset", "1") < 0)
		return fmt_err(err, errlen, "%s reset: %s", name, strerror(errno));
	if (sys_write(ZRAM_CONTROL "/hot_remove", name + 4) < 0 && errno != ENODEV)
		return fmt_err(err, errlen, "zram hot_remove %s: %s", name + 4, strerror(errno));
	return 0;
}

/* Whether the device holds no data, or the header zram_create writes. */
static bool is_ours(const char *name)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	char path[64], size[32];
	unsigned char *page;
	bool ours = false;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/disksize", name);
	if (sys_read(path, size, sizeof(size)) == 0 && !strcmp(size, "0"))
		return true;
	snprintf(path, sizeof(path), "/dev/%s", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || !(page = malloc((size_t)pagesz))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (pread(fd, page, (size_t)pagesz, 0) == pagesz)
		ours = !memcmp(page + 1052, "thrashtop", 9) &&
		       !memcmp(page + pagesz - 10, "SWAPSPACE2", 10);
	free(page);
	close(fd);
	return ours;
}

int zram_remove_name(const char *name, char *err, size_t errlen)
{
	char path[64];

	if (!valid_name(name))
		return fmt_err(err, errlen, "%s: not a zram device name", name);
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (!is_ours(name))
		return fmt_err(err, errlen, "%s holds no swap header of thrashtop's: left alone", name);
	return teardown(name, true, err, errlen);
}

static int write_header(const char *name, long long bytes, char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	unsigned char *page = malloc((size_t)pagesz);
	char dev[32];
	int fd, rc = 0;

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	if (!page)
		return fmt_err(err, errlen, "%s: out of memory", dev);
	swapfile_header(page, pagesz, (unsigned long)(bytes / pagesz));
	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || pwrite(fd, page, (size_t)pagesz, 0) != pagesz || fsync(fd) < 0)
		rc = fmt_err(err, errlen, "writing the swap header to %s: %s", dev, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(page);
	return rc;
}

static int setup(struct zram *z, const char *algo, char *err, size_t errlen)
{
	char text[512], dev[64], num[32];

	if (algo && *algo && dev_write(z->name, "comp_algorithm", algo) < 0) {
		int e = errno;
		if (e == EINVAL || e == ENOENT) {
			zram_algorithms(z->name, text, sizeof(text));
			return fmt_err(err, errlen, "zram has no compressor '%s' (it has %s)", algo, text);
		}
		return fmt_err(err, errlen, "%s comp_algorithm %s: %s", z->name, algo, strerror(e));
	}
	snprintf(dev, sizeof(dev), "/sys/block/%s/comp_algorithm", z->name);
	if (sys_read(dev, text, sizeof(text)) < 0)
		return fmt_err(err, errlen, "%s: %s", dev, strerror(errno));
	zram_current_algo(text, z->algo, sizeof(z->algo));
	snprintf(num, sizeof(num), "%lld", z->bytes);
	if (dev_write(z->name, "disksize", num) < 0)
		return fmt_err(err, errlen, "%s disksize %s: %s", z->name, num, strerror(errno));
	if (write_header(z->name, z->bytes, err, errlen) < 0)
		return -1;
	snprintf(dev, sizeof(dev), "/dev/%s", z->name);
	if (swapon(dev, SWAP_FLAG_PREFER |
		   ((z->prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK)) < 0)
		return fmt_err(err, errlen, "swapon %s: %s", dev, strerror(errno));
	z->active = true;
	return 0;
}

int zram_create(struct zram *z, long long bytes, const char *algo, char *err, size_t errlen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	char id[32], e[256];

	memset(z, 0, sizeof(*z));
	z->id = -1;
	z->prio = ZRAM_PRIO;
	z->bytes = bytes - bytes % pagesz;
	if (z->bytes < 16 * pagesz)
		return fmt_err(err, errlen, "--swap zram: %lld bytes is too small", bytes);
	if (geteuid() != 0)
		return fmt_err(err, errlen, "--swap zram needs root: swapon(2) requires CAP_SYS_ADMIN");
	if (access(ZRAM_CONTROL "/hot_add", R_OK) < 0)
		return fmt_err(err, errlen, "--swap zram: no %s/hot_add (%s; modprobe zram)",
			       ZRAM_CONTROL, strerror(errno));
	/* reading hot_add makes a device and says its number */
	if (sys_read(ZRAM_CONTROL "/hot_add", id, sizeof(id)) < 0 || atoi(id) < 0 ||
	    id[strspn(id, "0123456789")] || !id[0])
		return fmt_err(err, errlen, "zram hot_add: %s", id[0] ? id : strerror(errno));
	z->id = atoi(id);
	snprintf(z->name, sizeof(z->name), "zram%d", z->id);
	if (undo_add(UNDO_ZRAM, z->name, "", err, errlen) < 0) {
		teardown(z->name, false, e, sizeof(e));
		z->id = -1;
		return -1;
	}
	if (setup(z, algo, err, errlen) < 0) {
		if (teardown(z->name, z->active, e, sizeof(e)) == 0)
			undo_forget(UNDO_ZRAM, z->name, e, sizeof(e));
		z->id = -1;
		z->active = false;
		return -1;
	}
	return 0;
}

int zram_remove(struct zram *z, char *err, size_t errlen)
{
	if (z->id < 0)
		return 0;
	if (teardown(z->name, z->active, err, errlen) < 0)
		return -1;
	z->active = false;
	z->id = -1;
	return undo_forget(UNDO_ZRAM, z->name, err, errlen);
}
