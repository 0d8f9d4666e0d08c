#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "guard.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

#ifndef UNDER_SANITIZER
/* The limit of the memory cgroup the monitor is in, bytes; 0 for none.
 * Hybrid (v1 memory controller) and unified layouts. */
static unsigned long long own_memcg_limit(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024], path[1200];
	unsigned long long lim = 0;

	if (!f)
		return 0;
	while (!lim && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *cg = ctl ? strchr(ctl + 1, ':') : NULL;
		const char *const (*files)[2];
		static const char *const v1[][2] = {
			{ "/sys/fs/cgroup/memory", "/memory.limit_in_bytes" }, { NULL, NULL } };
		static const char *const v2[][2] = {
			{ "/sys/fs/cgroup", "/memory.max" },
			{ "/sys/fs/cgroup/unified", "/memory.max" }, { NULL, NULL } };

		if (!cg)
			continue;
		*cg++ = '\0';
		cg[strcspn(cg, "\n")] = '\0';
		if (!strcmp(ctl + 1, ""))
			files = v2;
		else if (strstr(ctl + 1, "memory"))
			files = v1;
		else
			continue;
		for (; (*files)[0] && !lim; files++) {
			FILE *m;
			char v[32];

			snprintf(path, sizeof(path), "%s%s%s", (*files)[0], !strcmp(cg, "/") ? "" : cg,
				 (*files)[1]);
			if (!(m = fopen(path, "re")))
				continue;
			/* v1 writes "unlimited" as a huge page-rounded number */
			if (fgets(v, sizeof(v), m) && strncmp(v, "max", 3))
				lim = strtoull(v, NULL, 10);
			if (lim >= 1ULL << 62)
				lim = 0;
			fclose(m);
		}
	}
	fclose(f);
	return lim;
}
#endif

void guard_apply(struct guard *g)
{
	int was;
#ifndef UNDER_SANITIZER
	unsigned long long lim;
#endif

	memset(g, 0, sizeof(*g));
	errno = 0;
	was = getpriority(PRIO_PROCESS, 0);
	if (was == -1 && errno)
		was = 0;
	g->nice_was = g->nice_now = was;
	if (was > GUARD_NICE && setpriority(PRIO_PROCESS, 0, GUARD_NICE) == 0)
		g->nice_now = GUARD_NICE;
	/* Nice -20 alone left the loop runnable but waiting up to 5 s among
	 * 1024 running sorters on 2 CPUs, a q or SIGTERM unread all that
	 * time. The lowest real-time priority runs it first; its children
	 * start back under the fair scheduler. */
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK,
			   &(struct sched_param){ .sched_priority = 1 });
#ifdef UNDER_SANITIZER
	snprintf(g->why, sizeof(g->why), "memory not locked: sanitizer build");
#else
	/* Locked pages in a limited cgroup come out of the limit: the reclaim
	 * under test could not take them, and would OOM-kill sooner. */
	if ((lim = own_memcg_limit()) > 0)
		snprintf(g->why, sizeof(g->why), "memory not locked: in a memory cgroup limited "
			 "to %lluM", lim >> 20);
	else if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0) {
		g->locked = true;
	} else {
		struct rlimit rl;
		int err = errno;

		if ((err == ENOMEM || err == EPERM) && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY)
			snprintf(g->why, sizeof(g->why),
				 "memory not locked: RLIMIT_MEMLOCK %lluK",
				 (unsigned long long)rl.rlim_cur / 1024);
		else
			snprintf(g->why, sizeof(g->why), "memory not locked: %s", strerror(err));
	}
#endif
}
