/* Replay of a stored run in the monitor view: its header, plots, sysctl
 * markers and result line, played from the history at real speed or
 * faster, with pause, step and seek. Nothing is sampled from the live
 * system: every figure is the run's own. A view of the one loop (it
 * plays through view_ops.wake), opened from the history view or by
 * `thrashtop history replay ID` (app_replay). */
#ifndef THRASHTOP_REPLAY_H
#define THRASHTOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "runrec.h"
#include "view.h"

struct history;

#define REPLAY_SPEED_MIN 0.25
#define REPLAY_SPEED_MAX 64

struct tui_key;

/* The replay's keys and its ? help (tui.h). */
extern const struct tui_key *const replay_keys;
extern const int replay_nkeys;

/* Opens a replay of r, taken over (left run_record_init'ed), with the
 * plots ids (NULL: the default layout for the run: its cgroup's plots
 * when it had one) at speed (times real time). The terminal must be open
 * (tui_init). NULL with err: a run without series, out of memory. */
struct view *replay_open(struct run_record *r, const int *plots, int nplots, double speed,
			 char *err, size_t errlen);

/* Pure: the result line shown when the replay reaches the end, as the
 * monitor shows a finished run: "#ID csh-line  kswapd-line  status". */
char *replay_result_line(const struct run_record *r, char *buf, size_t len);

/* Pure: the index of the first sample after rel seconds into r (so the
 * samples before it are those shown at rel): 0..r->nsamples. */
int replay_index(const struct run_record *r, double rel);

/* A sysctl's value t seconds into the run: its last change by then
 * (s/S, k/K), or NULL where it kept the value it started with. */
const char *replay_sysctl_at(const struct run_record *r, const char *name, double t);
/* The header's tuning then: the limits, and each sysctl at its value. */
void replay_tuning_at(const struct run_record *r, double t, char *buf, size_t len);

/* The terminal type a recording of a replay is made for. */
#define REPLAY_CAST_TERM "xterm-256color"

/* Plays replay v from its start to its end at once, each frame drawn
 * into the recording on the screen (cast.h) at the time into the replay
 * it would be drawn: the same frames, the same times, every time. */
void replay_record(struct view *v);

#endif
