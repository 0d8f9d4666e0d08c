#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "guest.h"
#include "vm.h"

/* The options of a command line, parsed; their swap disk's size. */
static long long disk_for(char *const *args)
{
	char *argv[16] = { "thrashtop" }, err[256];
	struct options o;
	int argc = 1;
	long long bytes;

	while (*args)
		argv[argc++] = *args++;
	argv[argc] = NULL;
	if (cli_parse(argc, argv, &o, err, sizeof(err))) {
		printf("  %s\n", err);
		return -1;
	}
	bytes = guest_swap_bytes(&o);
	cli_free(&o);
	return bytes;
}

/* The disk holds the largest swap file asked for; zram asks for none. */
TEST(guest_swap_disk_is_the_largest_file)
{
	CHECK_INT(disk_for((char *[]){ "--kernel", "6.1", NULL }), 0);
	CHECK_INT(disk_for((char *[]){ "--kernel", "6.1", "--swap", "zram:256M", NULL }), 0);
	CHECK_INT(disk_for((char *[]){ "--kernel", "6.1", "--swap", "64M", NULL }), 64LL << 20);
	CHECK_INT(disk_for((char *[]){ "--kernel", "6.1", "--swap", "file:96M", NULL }), 96LL << 20);
	CHECK_INT(disk_for((char *[]){ "--kernel", "6.1", "--sweep",
				       "swap=file:32M,zram:1G,128M,none", NULL }), 128LL << 20);
	CHECK_INT(disk_for((char *[]){ "--kernel", "6.1", "--sweep", "swap=zram:64M,none", NULL }),
		  0);
}

/* A disk on a disk file system opens with O_DIRECT and is sparse; tmpfs
 * (this machine's memory) and a disk without room are refused, leaving
 * nothing. */
TEST(guest_swap_disk_place)
{
	char dir[] = "/tmp/thrashtop-disk-XXXXXX", path[64], shm[] = "/dev/shm/thrashtop-disk-XXXXXX";
	char why[256] = "";
	struct stat sb;
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/swap.img", dir);
	rc = vm_disk_make(path, 64ull << 20, why, sizeof(why));
	printf("  %s: %d %s\n", dir, rc, why);
	CHECK_INT(rc, 1);
	CHECK(stat(path, &sb) == 0 && sb.st_size == 64ll << 20 && sb.st_blocks < 1024);
	CHECK((sb.st_mode & 0777) == 0600);
	/* made only where nothing is */
	CHECK_INT(vm_disk_make(path, 64ull << 20, why, sizeof(why)), -1);
	CHECK(strstr(why, "cannot make ") == why);
	unlink(path);
	CHECK_INT(vm_disk_make(path, 1ull << 60, why, sizeof(why)), -1);
	printf("  %s\n", why);
	CHECK(strstr(why, "no room for a ") == why);
	CHECK(access(path, F_OK) < 0);
	rmdir(dir);
	if (mkdtemp(shm)) {
		snprintf(path, sizeof(path), "%s/swap.img", shm);
		CHECK_INT(vm_disk_make(path, 64ull << 20, why, sizeof(why)), -1);
		printf("  %s\n", why);
		CHECK(strstr(why, "is on tmpfs, this machine's memory") != NULL);
		CHECK(access(path, F_OK) < 0);
		rmdir(shm);
	}
}
