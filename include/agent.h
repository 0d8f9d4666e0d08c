/* `thrashtop agent [--fd N]`: the place a session on another machine runs
 * its workload at (a guest, an ssh host). It speaks the stream (stream.h,
 * wire.h) on descriptor N, or on standard input and output: after the
 * hello, the session's options arrive; the agent sets this machine up as
 * a local session with those options would (session.h: the same code,
 * its tuning, delay accounting and sampling) and serves the local place
 * (local.h) to the session: its samples on its own beat, each with the
 * cgroup's figures, the stall sums, the rows asked for and the sorters'
 * progress; the workload begun, forked, reaped and stopped on request; a
 * command's output; each run's end. When the stream ends (the session
 * gone) or a signal ends it, it stops the workload, undoes its tuning and
 * exits: nothing is left at the place. */
#ifndef THRASHTOP_AGENT_H
#define THRASHTOP_AGENT_H

/* argv[0] is "agent". Returns the exit status: 0 when the session said
 * bye or the stream ended, 2 on bad input or a set-up that failed (said on
 * the stream and stderr), 128+N after signal N. */
int agent_main(int argc, char **argv);

#endif
