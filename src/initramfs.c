#include "initramfs.h"

#include <archive.h>
#include <archive_entry.h>
#include <elf.h>
#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "sysio.h"

#define BUSYBOX "/bin/busybox"

/* The applets /init runs, linked to busybox. */
static const char *const applets[] = { "sh", "mount", "insmod", "cat", "chroot", "poweroff",
				       "hostname", "mkdir" };

static const char script_head[] =
	"#!/bin/sh\n"
	"export PATH=/bin\n"
	"say() { echo \"" INITRAMFS_SAYS "$*\"; }\n"
	"fail() { say \"$*\"; poweroff -f; }\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null\n"
	"mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail \"cannot mount cgroup2\"\n";

static const char script_root[] =
	"mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288 " INITRAMFS_TAG " /newroot"
	" || fail \"cannot mount the host's root over 9p\"\n"
	"mount -t tmpfs tmpfs /newroot/run || fail \"cannot mount a tmpfs on /run\"\n"
	"mkdir /newroot/run/host && mount -o bind /newroot /newroot/run/host"
	" || fail \"cannot bind the host's root\"\n"
	"for d in tmp var/tmp root; do\n"
	"\tmount -t tmpfs tmpfs /newroot/$d || fail \"cannot mount a tmpfs on /$d\"\n"
	"done\n"
	"mount -t devtmpfs devtmpfs /newroot/dev || fail \"cannot mount /dev\"\n"
	"mount -t proc proc /newroot/proc || fail \"cannot mount /proc\"\n"
	"mount -t sysfs sysfs /newroot/sys || fail \"cannot mount /sys\"\n"
	"mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup || fail \"cannot mount cgroup2\"\n"
	"mount -t tracefs tracefs /newroot/sys/kernel/tracing 2>/dev/null\n"
	"port=\n"
	"for n in /sys/class/virtio-ports/*/name; do\n"
	"\tif [ \"$(cat \"$n\")\" = " INITRAMFS_PORT " ]; then\n"
	"\t\tp=${n%/name}; port=/dev/${p##*/}\n"
	"\tfi\n"
	"done\n"
	"[ -n \"$port\" ] && [ -e \"$port\" ] || fail \"no virtio-serial port named "
	INITRAMFS_PORT "\"\n"
	"export HOME=/root TERM=linux PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
	"/sbin:/bin\n"
	"say \"running the command\"\n";

static bool put(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *at)
		return false;
	*at += (size_t)n;
	return true;
}

/* s in single quotes for sh, a quote in it as '\''. */
static bool put_quoted(char *buf, size_t len, size_t *at, const char *s)
{
	bool ok = put(buf, len, at, " '");

	for (; ok && *s; s++)
		ok = *s == '\'' ? put(buf, len, at, "'\\''") : put(buf, len, at, "%c", *s);
	return ok && put(buf, len, at, "'");
}

/* The command as the guest sees it: one under a directory the guest
 * covers with a tmpfs is reached through the host's root bound at
 * /run/host. */
static const char *guest_path(const char *cmd, char *buf, size_t len)
{
	static const char *const covered[] = { "/tmp", "/run", "/var/tmp", "/root" };

	for (size_t i = 0; i < sizeof(covered) / sizeof(covered[0]); i++) {
		size_t n = strlen(covered[i]);

		if (!strncmp(cmd, covered[i], n) && (cmd[n] == '/' || !cmd[n])) {
			snprintf(buf, len, "/run/host%s", cmd);
			return buf;
		}
	}
	return cmd;
}

int initramfs_script(const struct kernel *k, char *const argv[], char *buf, size_t len)
{
	char path[PATH_MAX + 16];
	struct utsname u;
	size_t at = 0;
	bool ok = put(buf, len, &at, "%s", script_head);

	for (int i = 0; ok && i < k->nmods; i++)
		ok = put(buf, len, &at, "insmod /lib/modules/%s.ko || fail \"insmod %s failed\"\n",
			 k->mods[i].name, k->mods[i].name);
	/* the guest is named for the machine it runs on: its runs say
	 * "box (vm tcg)" */
	ok = ok && uname(&u) == 0 && put(buf, len, &at, "hostname") &&
	     put_quoted(buf, len, &at, u.nodename) && put(buf, len, &at, "\n");
	ok = ok && put(buf, len, &at, "%s", script_root) && put(buf, len, &at, "chroot /newroot");
	for (int i = 0; ok && argv[i]; i++)
		ok = put_quoted(buf, len, &at, i ? argv[i] : guest_path(argv[0], path, sizeof(path)));
	ok = ok && put(buf, len, &at, " 3<>\"$port\"\n"
		       "say \"the command exited with status $?\"\n"
		       "poweroff -f\n");
	return ok ? (int)at : -1;
}

/* Whether an ELF file asks for a program interpreter: a dynamic one. */
static int dynamic(const unsigned char *b, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (len < sizeof(eh) || memcmp(b, ELFMAG, SELFMAG) || b[EI_CLASS] != ELFCLASS64)
		return -1;
	memcpy(&eh, b, sizeof(eh));
	if (eh.e_phoff > len || eh.e_phentsize != sizeof(ph) ||
	    (len - eh.e_phoff) / sizeof(ph) < eh.e_phnum)
		return -1;
	for (int i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, b + eh.e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

/* One entry: a directory (data NULL, target NULL), a symbolic link
 * (target) or a file of len bytes. */
static int add(struct archive *a, const char *path, mode_t mode, const char *target,
	       const void *data, size_t len)
{
	struct archive_entry *e = archive_entry_new();
	int rc;

	archive_entry_set_pathname(e, path);
	archive_entry_set_perm(e, mode);
	archive_entry_set_filetype(e, target ? AE_IFLNK : data ? AE_IFREG : AE_IFDIR);
	if (target)
		archive_entry_set_symlink(e, target);
	archive_entry_set_size(e, data ? (la_int64_t)len : 0);
	rc = archive_write_header(a, e);
	if (rc == ARCHIVE_OK && data && archive_write_data(a, data, len) != (la_ssize_t)len)
		rc = ARCHIVE_FATAL;
	archive_entry_free(e);
	return rc == ARCHIVE_OK ? 0 : -1;
}

static int add_busybox(struct archive *a, char *err, size_t errlen)
{
	size_t len;
	unsigned char *bb = (unsigned char *)sysio_read_alloc(BUSYBOX, 64u << 20, &len);
	char link[64];
	int rc;

	if (!bb) {
		snprintf(err, errlen, "no %s: install busybox-static", BUSYBOX);
		return -1;
	}
	if (dynamic(bb, len) != 0) {
		snprintf(err, errlen, "%s is not a static x86-64 busybox: install busybox-static",
			 BUSYBOX);
		free(bb);
		return -1;
	}
	rc = add(a, "bin/busybox", 0755, NULL, bb, len);
	free(bb);
	for (size_t i = 0; !rc && i < sizeof(applets) / sizeof(applets[0]); i++) {
		snprintf(link, sizeof(link), "bin/%s", applets[i]);
		rc = add(a, link, 0777, "busybox", NULL, 0);
	}
	if (rc)
		snprintf(err, errlen, "cannot write the initramfs: %s", archive_error_string(a));
	return rc;
}

static int add_modules(struct archive *a, const struct kernel *k, char *err, size_t errlen)
{
	char path[128];

	for (int i = 0; i < k->nmods; i++) {
		size_t len;
		unsigned char *ko = kernel_module_read(k->mods[i].path, &len, err, errlen);
		int rc;

		if (!ko)
			return -1;
		snprintf(path, sizeof(path), "lib/modules/%s.ko", k->mods[i].name);
		rc = add(a, path, 0644, NULL, ko, len);
		free(ko);
		if (rc) {
			snprintf(err, errlen, "cannot write the initramfs: %s", archive_error_string(a));
			return -1;
		}
	}
	return 0;
}

int initramfs_build(const struct kernel *k, char *const argv[], int fd, char *err, size_t errlen)
{
	static const char *const dirs[] = { "bin", "dev", "proc", "sys", "newroot", "lib",
					    "lib/modules" };
	struct archive *a = archive_write_new();
	size_t cap = 16384 + (size_t)k->nmods * 128;
	char *script;
	int n, rc = -1;

	for (int i = 0; argv[i]; i++)
		cap += strlen(argv[i]) * 4 + 4;
	if (!(script = malloc(cap)) || (n = initramfs_script(k, argv, script, cap)) < 0) {
		snprintf(err, errlen, "cannot write the guest's /init: out of memory");
		goto out;
	}
	if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK || archive_write_open_fd(a, fd) != ARCHIVE_OK)
		goto bad;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (add(a, dirs[i], 0755, NULL, NULL, 0))
			goto bad;
	if (add(a, "init", 0755, NULL, script, (size_t)n))
		goto bad;
	if (add_busybox(a, err, errlen) || add_modules(a, k, err, errlen))
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK)
		goto bad;
	rc = 0;
	goto out;
bad:
	snprintf(err, errlen, "cannot write the initramfs: %s", archive_error_string(a));
out:
	archive_write_free(a);
	free(script);
	return rc;
}
