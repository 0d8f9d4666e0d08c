#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sysio.h"

static int fill_ok(FILE *f, const void *arg)
{
	return fputs(arg, f) < 0 ? -1 : 0;
}

static int fill_fails(FILE *f, const void *arg)
{
	(void)f;
	(void)arg;
	errno = ENOSPC;
	return -1;
}

/* A path no file can be made at is -2 before fill runs; fill's own
 * failure is -1; either leaves nothing behind. */
TEST(sysio_replace_bad_path_apart)
{
	char dir[] = "/tmp/thrashtop-sysio-test-XXXXXX", path[128], buf[16];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/no/such/x.svg", dir);
	CHECK_INT(sysio_replace(path, 0644, fill_ok, "x"), -2);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(sysio_replace(dir, 0644, fill_ok, "x"), -2);
	CHECK_INT(errno, EISDIR);
	snprintf(path, sizeof(path), "%s/x.svg", dir);
	CHECK_INT(sysio_replace(path, 0644, fill_fails, NULL), -1);
	CHECK_INT(errno, ENOSPC);
	CHECK(access(path, F_OK) != 0);
	CHECK_INT(sysio_replace(path, 0644, fill_ok, "chart"), 0);
	CHECK_INT(sysio_read(path, buf, sizeof(buf)), 5);
	CHECK_STR(buf, "chart");
	unlink(path);
	CHECK_INT(rmdir(dir), 0);
}
