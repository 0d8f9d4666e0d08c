#include <errno.h>
#include <stdio.h>
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

void guard_apply(struct guard *g)
{
	int was;

	memset(g, 0, sizeof(*g));
	errno = 0;
	was = getpriority(PRIO_PROCESS, 0);
	if (was == -1 && errno)
		was = 0;
	g->nice_was = g->nice_now = was;
	if (was > GUARD_NICE && setpriority(PRIO_PROCESS, 0, GUARD_NICE) == 0)
		g->nice_now = GUARD_NICE;
#ifdef UNDER_SANITIZER
	snprintf(g->why, sizeof(g->why), "memory not locked: sanitizer build");
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0) {
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
