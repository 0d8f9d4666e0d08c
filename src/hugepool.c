#include "hugepool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "balloon.h"
#include "fmt.h"
#include "sysctl.h"
#include "sysio.h"

static void human(long long b, char *buf, size_t len)
{
	if (b >= (1LL << 30) || b <= -(1LL << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1 << 30));
	else
		snprintf(buf, len, "%lld MiB", b / (1 << 20));
}

/* MemTotal, MemAvailable and Hugepagesize in bytes, -1 where missing. */
static int meminfo(long long *total, long long *avail, long long *page)
{
	static const char *const keys[] = { "MemTotal", "MemAvailable", "Hugepagesize" };
	int64_t kib[3];
	long long *out[] = { total, avail, page };

	if (sysio_meminfo(keys, kib, 3) < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		*out[i] = kib[i] < 0 ? -1 : kib[i] * 1024;
	return 0;
}

static int read_nr(long *nr, char *err, size_t errlen)
{
	char val[SYSCTL_VALUE_MAX], *end;

	if (sysctl_get(HUGEPOOL_SYSCTL, val, sizeof val, err, errlen) < 0)
		return -1;
	errno = 0;
	*nr = strtol(val, &end, 10);
	if (errno || end == val || *nr < 0) {
		fmt_err(err, errlen, "%s reads \"%s\": not a page count", HUGEPOOL_SYSCTL, val);
		return -1;
	}
	return 0;
}

long hugepool_target(long long total, long long page, long long leave)
{
	if (page <= 0 || leave >= total)
		return 0;
	return (long)((total - leave) / page);
}

bool hugepool_usable(void)
{
	long long total, avail, page;
	char path[128];

	if (meminfo(&total, &avail, &page) < 0 || page <= 0)
		return false;
	if (sysctl_path(HUGEPOOL_SYSCTL, path, sizeof path, NULL, 0) < 0)
		return false;
	return access(path, W_OK) == 0;
}

int hugepool_start(struct hugepool *p, long long leave, char *err, size_t errlen)
{
	long long total, avail, page, grow;
	char h1[32], h2[32], h3[32], num[32];

	memset(p, 0, sizeof *p);
	if (meminfo(&total, &avail, &page) < 0 || total < 0 || avail < 0 || page <= 0) {
		fmt_err(err, errlen, "/proc/meminfo lacks MemTotal, MemAvailable or Hugepagesize");
		return -1;
	}
	human(leave, h1, sizeof h1);
	if (leave < BALLOON_MIN_LEAVE) {
		fmt_err(err, errlen, "--global %s leaves too little: the machine needs at "
		       "least %lld MiB", h1, BALLOON_MIN_LEAVE >> 20);
		return -1;
	}
	if (read_nr(&p->nr0, err, errlen) < 0)
		return -1;
	p->page = page;
	p->want = hugepool_target(total, page, leave);
	if (p->want <= p->nr0) {
		human(total, h2, sizeof h2);
		human(total - p->nr0 * page, h3, sizeof h3);
		fmt_err(err, errlen, "--global %s takes nothing: %s of MemTotal (%s) is outside "
		       "the hugetlb pool already", h1, h3, h2);
		return -1;
	}
	grow = (p->want - p->nr0) * page;
	if (grow > avail - BALLOON_AVAIL_KEEP) {
		human(grow, h2, sizeof h2);
		human(avail, h3, sizeof h3);
		fmt_err(err, errlen, "--global %s would take %s, but MemAvailable is %s and "
		       "%lld MiB of it must stay available", h1, h2, h3, BALLOON_AVAIL_KEEP >> 20);
		return -1;
	}
	snprintf(num, sizeof num, "%ld", p->want);
	p->nr = p->nr0;
	/* The kernel stops at the first page it cannot allocate, or at a
	 * signal; a write again goes on from there. */
	for (int tries = 0; tries < HUGEPOOL_TRIES && p->nr < p->want; tries++) {
		long before = p->nr;

		if (sysctl_set(HUGEPOOL_SYSCTL, num, err, errlen) < 0) {
			if (p->active)
				hugepool_stop(p, NULL, 0);
			return -1;
		}
		p->active = true;
		if (read_nr(&p->nr, err, errlen) < 0) {
			hugepool_stop(p, NULL, 0);
			return -1;
		}
		if (tries && p->nr == before)
			break;
	}
	return 0;
}

long long hugepool_short(const struct hugepool *p)
{
	return p->active && p->nr < p->want ? (p->want - p->nr) * p->page : 0;
}

int hugepool_stop(struct hugepool *p, char *err, size_t errlen)
{
	if (!p->active)
		return 0;
	if (sysctl_restore(HUGEPOOL_SYSCTL, err, errlen) < 0)
		return -1;
	p->active = false;
	return 0;
}
