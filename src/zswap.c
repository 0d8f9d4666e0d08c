#include "zswap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "sysio.h"
#include "undo.h"

/* restore order: enabled first, so the others change on an idle zswap */
static const char *const params[] = { "enabled", "compressor", "max_pool_percent" };
#define NPARAMS (sizeof(params) / sizeof(params[0]))

/* What the crypto API may offer zswap, in the order a refusal lists them. */
static const char *const candidates[] = { "lzo", "lzo-rle", "lz4", "lz4hc", "zstd", "deflate", "842" };

static int get(const char *name, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
	if (sysio_read(path, buf, len) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int zswap_param_write(const char *path, const char *val, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(val);
	ssize_t w;
	int e;

	if (strncmp(path, ZSWAP_PARAMS "/", sizeof(ZSWAP_PARAMS)) || strstr(path, ".."))
		return fmt_err(err, errlen, "%s: not a zswap parameter", path);
	if (fd < 0)
		return fmt_err(err, errlen, "%s: %s", path, strerror(errno));
	w = write(fd, val, n);
	e = errno;
	close(fd);
	if (w != (ssize_t)n)
		return fmt_err(err, errlen, "%s = %s: %s", path, val, strerror(e));
	return 0;
}

static int put(const char *name, const char *val)
{
	char path[128], e[256];

	snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
	if (zswap_param_write(path, val, e, sizeof(e)) == 0)
		return 0;
	return -1;
}

void zswap_read(struct zswap_params *p)
{
	char v[32];

	memset(p, 0, sizeof(*p));
	p->pool_pct = -1;
	p->present = access(ZSWAP_PARAMS, F_OK) == 0;
	if (!p->present)
		return;
	if (get("enabled", p->enabled, sizeof(p->enabled)) < 0)
		snprintf(p->enabled, sizeof(p->enabled), "n/a");
	if (get("compressor", p->compressor, sizeof(p->compressor)) < 0)
		p->compressor[0] = '\0';
	if (get("max_pool_percent", v, sizeof(v)) == 0)
		p->pool_pct = atoi(v);
}

int zswap_parse(const char *arg, char *algo, size_t len, int *pool, char *err, size_t errlen)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	char *end;
	long v;

	*pool = -1;
	if (!strcmp(arg, "off")) {
		snprintf(algo, len, "%s", "");
		return 0;
	}
	if (n == 3 && !strncmp(arg, "off", 3))
		return fmt_err(err, errlen, "--zswap '%s': off takes no pool", arg);
	if (!n || n >= len || n >= 32 || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-_") != n)
		return fmt_err(err, errlen, "--zswap '%s': want off, or a compressor such as "
			       "lzo-rle with an optional :POOL%% (lzo-rle:20)", arg);
	snprintf(algo, len, "%.*s", (int)n, arg);
	if (colon) {
		errno = 0;
		v = strtol(colon + 1, &end, 10);
		if (errno || end == colon + 1 || (*end && strcmp(end, "%")) || v < 1 || v > 100 ||
		    colon[1] == '0')
			return fmt_err(err, errlen, "--zswap '%s': the pool is 1 to 100 (%% of RAM)", arg);
		*pool = (int)v;
	}
	return 0;
}

static int record(const char *name, char *err, size_t errlen)
{
	char path[128], old[64];

	snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
	if (get(name, old, sizeof(old)) < 0)
		return fmt_err(err, errlen, "%s: %s", path, strerror(errno));
	return undo_add(UNDO_PARAM, path, old, err, errlen);
}

static int forget(const char *name, char *err, size_t errlen)
{
	char path[128];

	snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", name);
	return undo_forget(UNDO_PARAM, path, err, errlen);
}

int zswap_check(const char *algo, char *err, size_t errlen)
{
	char old[32], e[256], took[256] = "";
	bool was_recorded;
	int rc = 0;

	if (geteuid() != 0)
		return fmt_err(err, errlen, "--zswap needs root: its parameters are root's to write");
	if (access(ZSWAP_PARAMS, F_OK) < 0)
		return fmt_err(err, errlen, "--zswap: this kernel has no zswap (no %s)", ZSWAP_PARAMS);
	if (!*algo)
		return 0;
	if (get("compressor", old, sizeof(old)) < 0)
		return fmt_err(err, errlen, "%s/compressor: %s", ZSWAP_PARAMS, strerror(errno));
	if (!strcmp(old, algo))
		return 0;
	/* a crash while trying leaves the old compressor to restore */
	was_recorded = zswap_touched();
	if (record("compressor", err, errlen) < 0)
		return -1;
	if (put("compressor", algo) == 0) {
		put("compressor", old);
	} else {
		for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
			if (put("compressor", candidates[i]) == 0) {
				size_t o = strlen(took);
				snprintf(took + o, sizeof(took) - o, "%s%s", o ? " " : "", candidates[i]);
			}
		put("compressor", old);
		rc = fmt_err(err, errlen, "--zswap %s: the kernel's zswap has no such compressor "
			"(it takes %s)", algo, took[0] ? took : "none of lzo lz4 zstd deflate");
	}
	if (!was_recorded)
		forget("compressor", e, sizeof(e));
	return rc;
}

int zswap_set(const char *algo, int pool, char *err, size_t errlen)
{
	char num[16];

	for (size_t i = 0; i < NPARAMS; i++)
		if (record(params[i], err, errlen) < 0)
			return -1;
	if (!*algo) {
		if (put("enabled", "N") < 0)
			return fmt_err(err, errlen, "zswap enabled = N: %s", strerror(errno));
		return 0;
	}
	if (put("compressor", algo) < 0)
		return fmt_err(err, errlen, "zswap compressor = %s: %s", algo, strerror(errno));
	snprintf(num, sizeof(num), "%d", pool);
	if (pool > 0 && put("max_pool_percent", num) < 0)
		return fmt_err(err, errlen, "zswap max_pool_percent = %d: %s", pool, strerror(errno));
	if (put("enabled", "Y") < 0)
		return fmt_err(err, errlen, "zswap enabled = Y: %s", strerror(errno));
	return 0;
}

bool zswap_touched(void)
{
	char path[128], val[64], e[256];

	for (size_t i = 0; i < NPARAMS; i++) {
		snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", params[i]);
		if (undo_lookup(UNDO_PARAM, path, val, sizeof(val), e, sizeof(e)) == 0)
			return true;
	}
	return false;
}

int zswap_restore(char *err, size_t errlen)
{
	char path[128], val[64];

	for (size_t i = 0; i < NPARAMS; i++) {
		snprintf(path, sizeof(path), ZSWAP_PARAMS "/%s", params[i]);
		int rc = undo_lookup(UNDO_PARAM, path, val, sizeof(val), err, errlen);
		if (rc < 0)
			return -1;
		if (rc == 1)
			continue;
		if (zswap_param_write(path, val, err, errlen) < 0 ||
		    undo_forget(UNDO_PARAM, path, err, errlen) < 0)
			return -1;
	}
	return 0;
}
