#include <dirent.h>
#include <errno.h>
#include <linux/loop.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "statedir.h"
#include "swapfile.h"
#include "undo.h"

/* The /proc/swaps line of path: size and priority; 0 if found. */
static int proc_swaps(const char *path, long long *kib, int *prio)
{
	char line[512], name[400];
	FILE *f = fopen("/proc/swaps", "r");
	int found = -1, p;
	long long k;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%399s %*s %lld %*d %d", name, &k, &p) == 3 &&
		    !strcmp(name, path)) {
			*kib = k;
			*prio = p;
			found = 0;
		}
	fclose(f);
	return found;
}

static int run_mkswap(const char *file)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { "mkswap", "-U", "01234567-89ab-4cde-8f01-23456789abcd", "-L",
				 "thrashtop", (char *)file, NULL };
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp("/sbin/mkswap", argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Our header equals mkswap's, but for the uuid (which we copy over). */
TEST(swapfile_header_matches_mkswap)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	const unsigned long pages = 300;
	char file[] = "/tmp/thrashtop-mkswap-XXXXXX";
	unsigned char *ours = calloc(1, (size_t)pagesz), *theirs = calloc(1, (size_t)pagesz);
	int fd = mkstemp(file);

	CHECK(fd >= 0 && ours && theirs);
	if (fd < 0 || !ours || !theirs)
		goto out;
	CHECK(ftruncate(fd, (off_t)(pages * (unsigned long)pagesz)) == 0);
	CHECK_INT(run_mkswap(file), 0);
	CHECK(pread(fd, theirs, (size_t)pagesz, 0) == pagesz);
	swapfile_header(ours, pagesz, pages);
	CHECK(!memcmp(ours + pagesz - 10, "SWAPSPACE2", 10));
	CHECK_INT(ours[1024], 1);				/* version */
	CHECK_INT(*(unsigned *)(void *)(ours + 1028), pages - 1);	/* last_page */
	CHECK_INT(ours[1036 + 6] >> 4, 4);			/* uuid version */
	memcpy(ours + 1036, theirs + 1036, 16);
	CHECK(!memcmp(ours, theirs, (size_t)pagesz));
	for (long i = 0; i < pagesz; i++)
		if (ours[i] != theirs[i]) {
			printf("  first difference at byte %ld: %u vs mkswap %u\n", i, ours[i],
			       theirs[i]);
			break;
		}
out:
	if (fd >= 0)
		close(fd);
	unlink(file);
	free(ours);
	free(theirs);
}

TEST(swapfile_create_remove)
{
	char err[256] = "", val[8];
	struct swapfile sw;
	struct stat sb;
	long long kib = 0;
	int prio = 0, rc;

	statedir_begin("swapfile");
	rc = swapfile_create(&sw, NULL, (64LL << 20) + 100, 7, err, sizeof err);
	CHECK_INT(rc, 0);
	if (rc)
		printf("  %s\n", err);
	CHECK_INT(sw.bytes, 64LL << 20);
	CHECK(!strncmp(sw.path, "/var/tmp/thrashtop-swap-", 24));
	CHECK(sw.active);
	CHECK_INT(proc_swaps(sw.path, &kib, &prio), 0);
	/* the kernel counts every page but the header */
	CHECK_INT(kib, (64 << 10) - sysconf(_SC_PAGESIZE) / 1024);
	CHECK_INT(prio, 7);
	CHECK(stat(sw.path, &sb) == 0 && (sb.st_mode & 07777) == 0600);
	CHECK_INT(undo_lookup(UNDO_SWAP, sw.path, val, sizeof val, err, sizeof err), 0);
	CHECK_INT(swapfile_remove(&sw, err, sizeof err), 0);
	CHECK(proc_swaps(sw.path, &kib, &prio) < 0);
	CHECK(access(sw.path, F_OK) < 0);
	CHECK_INT(undo_lookup(UNDO_SWAP, sw.path, val, sizeof val, err, sizeof err), 1);
	CHECK_STR(sw.path, "");
	if (sw.path[0]) {
		swapoff(sw.path);
		unlink(sw.path);
	}
	statedir_end();
}

static int leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "thrashtop-swap-", 15);
	closedir(d);
	return n;
}

/* Refusals are one clear line and leave no file and no record. */
TEST(swapfile_refusals)
{
	char err[256] = "";
	struct swapfile sw;
	int before = leftovers("/dev/shm");

	statedir_begin("swapfile");
	CHECK_INT(swapfile_create(&sw, "/dev/shm", 64LL << 20, -1, err, sizeof err), -1);
	CHECK_STR(err, "/dev/shm is on tmpfs, which cannot hold a swap file: choose a "
		  "directory on a disk file system (e.g. ext4, xfs)");
	CHECK_INT(leftovers("/dev/shm"), before);
	CHECK(access(undo_state_file(), F_OK) < 0);
	CHECK_INT(swapfile_create(&sw, "/nonexistent-dir", 64LL << 20, -1, err, sizeof err),
		  -1);
	CHECK_STR(err, "swap directory /nonexistent-dir: No such file or directory");
	CHECK_INT(swapfile_create(&sw, NULL, 4096, -1, err, sizeof err), -1);
	CHECK_STR(err, "--swap 4096 bytes is too small (at least 1 MiB)");
	CHECK_INT(swapfile_create(&sw, NULL, 64LL << 20, 40000, err, sizeof err), -1);
	CHECK_STR(err, "swap priority 40000 out of range (0..32767, or -1)");
	CHECK_INT(swapfile_create(&sw, NULL, 1LL << 60, -1, err, sizeof err), -1);
	CHECK(!strncmp(err, "no room for a 1073741824.0 GiB swap file in /var/tmp: ", 54));
	CHECK(strchr(err, '\n') == NULL);
	CHECK_INT(swapfile_remove_path("/etc/passwd", err, sizeof err), -1);
	CHECK_STR(err, "refusing to remove /etc/passwd: not a thrashtop swap file");
	CHECK(access("/etc/passwd", F_OK) == 0);
	/* nothing there: nothing to do */
	CHECK_INT(swapfile_remove_path("/var/tmp/thrashtop-swap-none", err, sizeof err), 0);
	CHECK(access(undo_state_file(), F_OK) < 0);
	statedir_end();
}

static int create_64m(char *err, size_t errlen)
{
	struct swapfile sw;

	return swapfile_create(&sw, "/tmp", 64LL << 20, -1, err, errlen);
}

TEST(swapfile_not_root_one_line)
{
	char err[256];

	CHECK_INT(as_nobody(create_64m, err, sizeof err), 0);
	CHECK_STR(err, "--swap needs root: swapon(2) requires CAP_SYS_ADMIN");
}

/* A loop device over a sparse file of bytes, as a guest's swap disk
 * stands in the guest: its path into dev, the loop's fd (-1: none here). */
static int loop_disk(const char *file, long long bytes, char *dev, size_t len)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), n, fd = -1, lfd = -1;

	if (ctl < 0 || (n = ioctl(ctl, LOOP_CTL_GET_FREE)) < 0)
		goto out;
	snprintf(dev, len, "/dev/loop%d", n);
	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, bytes) < 0 || (lfd = open(dev, O_RDWR | O_CLOEXEC)) < 0)
		goto out;
	if (ioctl(lfd, LOOP_SET_FD, fd) < 0) {
		close(lfd);
		lfd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (ctl >= 0)
		close(ctl);
	return lfd;
}

/* A swap area on a disk: the header at its start, swapon, the record;
 * one larger than the disk refused; swapoff by the undo state's revert. */
TEST(swapfile_on_disk_and_off)
{
	char file[] = "/tmp/thrashtop-disk-test-XXXXXX", dev[64], err[256] = "", val[8], msg[512];
	long pagesz = sysconf(_SC_PAGESIZE);
	unsigned char hdr[16];
	struct swapfile sw;
	long long kib = 0;
	int prio = 0, lfd, rc;

	close(mkstemp(file));
	unlink(file);
	if ((lfd = loop_disk(file, 16LL << 20, dev, sizeof dev)) < 0) {
		printf("  (skipped: no loop device here: %s)\n", strerror(errno));
		unlink(file);
		return;
	}
	statedir_begin("swapdisk");
	CHECK_INT(swapfile_on_disk(&sw, dev, "loop test", 32LL << 20, -1, err, sizeof err), -1);
	CHECK(strstr(err, "a 32 MiB swap area does not fit /dev/loop") == err);
	CHECK(strstr(err, "a disk of 16 MiB") != NULL);
	CHECK_INT(undo_lookup(UNDO_SWAP, dev, val, sizeof val, err, sizeof err), 1);
	rc = swapfile_on_disk(&sw, dev, "loop test", (8LL << 20) + 100, 5, err, sizeof err);
	CHECK_INT(rc, 0);
	if (rc)
		printf("  %s\n", err);
	CHECK_STR(sw.disk, "loop test");
	CHECK_INT(proc_swaps(dev, &kib, &prio), 0);
	printf("  %s: %lld KiB of swap at priority %d\n", dev, kib, prio);
	CHECK_INT(kib, (8 << 10) - pagesz / 1024);
	CHECK_INT(prio, 5);
	CHECK(pread(lfd, hdr, 10, pagesz - 10) == 10 && !memcmp(hdr, "SWAPSPACE2", 10));
	CHECK_INT(undo_lookup(UNDO_SWAP, dev, val, sizeof val, err, sizeof err), 0);
	CHECK_INT(swapfile_remove(&sw, err, sizeof err), 0);
	CHECK(proc_swaps(dev, &kib, &prio) < 0);
	CHECK_INT(undo_lookup(UNDO_SWAP, dev, val, sizeof val, err, sizeof err), 1);
	CHECK(access(dev, F_OK) == 0);
	CHECK_INT(swapfile_on_disk(&sw, dev, "loop test", 8LL << 20, -1, err, sizeof err), 0);
	/* what a dead session left: undone as a disk, kept (it is not a file) */
	CHECK(undo_all(msg, sizeof msg) >= 0);
	CHECK(proc_swaps(dev, &kib, &prio) < 0);
	CHECK_INT(undo_lookup(UNDO_SWAP, dev, val, sizeof val, err, sizeof err), 1);
	CHECK(access(dev, F_OK) == 0);
	CHECK_INT(swapfile_disk_off("/etc/passwd", err, sizeof err), -1);
	CHECK_STR(err, "refusing to swapoff /etc/passwd: not a disk under /dev");
	CHECK_INT(swapfile_disk_off("/dev/null", err, sizeof err), -1);
	swapoff(dev);
	statedir_end();
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
	unlink(file);
}
