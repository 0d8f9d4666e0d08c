/* A process of its own that outlives the monitor. A command's
 * children are not told when the monitor dies (the death signal armed in
 * each worker reaches the command's own process only), so after a SIGKILL
 * they would run on: the watchdog waits for the monitor's end, and kills
 * the process groups it was given that were not taken back. It is no child
 * of the monitor (nor counted with its workers), sits in a process group
 * of its own (a Ctrl-C or a hang-up of the terminal reaches the monitor
 * alone) and costs nothing while it waits in a read. */
#ifndef THRASHTOP_WATCHDOG_H
#define THRASHTOP_WATCHDOG_H

#include <stddef.h>
#include <sys/types.h>

#define WATCHDOG_GROUPS 64	/* groups watched at once: a command has one */

/* Starts it, once. 0, or -1 with err. */
int watchdog_start(char *err, size_t errlen);

/* Process group pgid is to be killed should the monitor die; taken back
 * once the monitor has killed it itself. No-ops without a watchdog. */
void watchdog_watch(pid_t pgid);
void watchdog_forget(pid_t pgid);

/* The monitor ends: the watchdog is told and waited for (a second at
 * most), so that no process of the session outlives it. */
void watchdog_end(void);

#endif
