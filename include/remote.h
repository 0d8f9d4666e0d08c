/* A place on the other end of a stream (stream.h, wire.h): the agent
 * (agent.h) of a guest or another host, which sets its machine up from
 * the session's options, samples it and runs the workload there. The
 * place's operations (place.h) are served from what the agent sends, never
 * by a blocking round trip but at a run's abort: its samples queue as
 * they arrive on the stream's descriptor, the tick_fd; the workers' ends
 * arrive with them (ends_waiting). Every time the agent sends is moved
 * onto this machine's monotonic clock by the offset seen at its ready. */
#ifndef THRASHTOP_REMOTE_H
#define THRASHTOP_REMOTE_H

#include <stddef.h>
#include <sys/types.h>

#include "cli.h"
#include "place.h"

#define REMOTE_READY_S 120.0	/* a guest under TCG may be that slow to be ready */

/* Over fd, both ways (a socket, a virtio-serial port): hello, then the
 * options o was parsed from (o->args, without the ones of this side
 * alone: --agent), then waits up to timeout seconds for the agent's
 * ready, which brings its state, tuning and workload size. The place owns
 * fd from here, failing or not. NULL with err: the agent's own reason
 * when it gave one ("agent: --mem 64M: ..."), a protocol refused, the
 * time up. */
struct place *remote_open(int fd, const struct options *o, double timeout, char *err,
			  size_t errlen);

/* argv (argv[0] looked up in PATH) started with a socket as its standard
 * input and output, then remote_open on it: `thrashtop agent`, `ssh HOST
 * thrashtop agent`. The command is killed and reaped when the place
 * closes. NULL with err. */
struct place *remote_spawn(char *const argv[], const struct options *o, double timeout,
			   char *err, size_t errlen);

/* remote_spawn of cmd's words, split and unquoted as a shell would
 * (wordexp, with no command substitution) (--agent). */
struct place *remote_command(const char *cmd, const struct options *o, double timeout,
			     char *err, size_t errlen);

/* fn(arg, why, len, last) when the stream ends under a ready place, on
 * each of the loop's beats until it returns true: it may put its own one
 * line in why (a guest: how qemu ended, where its console is kept), and
 * returns false while it cannot say yet (its process still ending) and
 * last is false; the place's ended says it. */
void remote_on_end(struct place *p, bool (*fn)(void *, char *, size_t, bool), void *arg);

/* fn(arg) once the place has closed its stream: what goes with it (a
 * guest's qemu). */
void remote_on_close(struct place *p, void (*fn)(void *), void *arg);

#endif
