/* What the stream (stream.h) carries between a session and its place's
 * agent: the field tables of each struct that travels, and its line.
 * Keys are the structs' own field names, an array's elements name.I;
 * a new field is a new key, which an older reader ignores and a newer
 * one reading an older writer finds NA. */
#ifndef THRASHTOP_WIRE_H
#define THRASHTOP_WIRE_H

#include <stdbool.h>

#include "place.h"
#include "sampler.h"
#include "stream.h"
#include "sysstate.h"
#include "tuning.h"
#include "workload.h"

/* A sorter's progress as it travels (sorter.h's is atomic). */
struct wire_prog {
	int phase;
	long done, n, errors, first_bad;
};

/* Each put_ appends the struct's fields to a message begun by the caller,
 * keys prefixed with prefix; each get_ reads them back, a field absent NA. */
void wire_put_sys(struct stream_msg *m, const char *prefix, const struct sys_sample *x);
void wire_get_sys(const struct stream_line *l, const char *prefix, struct sys_sample *x);
void wire_put_proc(struct stream_msg *m, const char *prefix, const struct proc_sample *x);
void wire_get_proc(const struct stream_line *l, const char *prefix, struct proc_sample *x);
void wire_put_delays(struct stream_msg *m, const char *prefix, const struct delays *x);
void wire_get_delays(const struct stream_line *l, const char *prefix, struct delays *x);
void wire_put_cgroup(struct stream_msg *m, const char *prefix, const struct cgroup_stat *x);
void wire_get_cgroup(const struct stream_line *l, const char *prefix, struct cgroup_stat *x);
void wire_put_caps(struct stream_msg *m, const char *prefix, const struct sampler_caps *x);
void wire_get_caps(const struct stream_line *l, const char *prefix, struct sampler_caps *x);
/* The swaps as sw.I.FIELD, the vm sysctls' values as vm.I (the names are
 * sysstate's own list). */
void wire_put_state(struct stream_msg *m, const struct sysstate *x);
void wire_get_state(const struct stream_line *l, struct sysstate *x);
/* A reaped worker: pid, status, rusage, t_end, end, delays, delays_past. */
void wire_put_worker(struct stream_msg *m, const struct worker *x);
void wire_get_worker(const struct stream_line *l, struct worker *x);
void wire_put_kill(struct stream_msg *m, const char *prefix, const struct oom_kill *x);
void wire_get_kill(const struct stream_line *l, const char *prefix, struct oom_kill *x);
/* place_end without its kills, which travel one a line. */
void wire_put_end(struct stream_msg *m, const struct place_end *x);
void wire_get_end(const struct stream_line *l, struct place_end *x);
void wire_put_prog(struct stream_msg *m, const struct wire_prog *x);
void wire_get_prog(const struct stream_line *l, struct wire_prog *x);
void wire_put_counts(struct stream_msg *m, const char *prefix, const struct rc_counts *x);
void wire_get_counts(const struct stream_line *l, const char *prefix, struct rc_counts *x);

/* A run's reclaim events (reclaim.h), as rc_run_end gave them: rcrun
 * carries the totals, the latency histogram (its non-empty buckets as
 * b.I), how many events were kept and past them, the victims (v.I.*) and
 * the stalls of the run's own processes (n, s); rcev carries events from
 * .. from+WIRE_RC_EVENTS-1 (kind, t, dur, pid as k.J, t.J, d.J, p.J for
 * event from+J). get_rcrun starts into over (rc_init); get_rcev adds the
 * line's events, within RC_EVENTS_MAX + RC_OOM_PAST_MAX. */
#define WIRE_RC_EVENTS 200
void wire_put_rcrun(struct stream_msg *m, const struct rc_acc *x, int64_t n, double s);
void wire_get_rcrun(const struct stream_line *l, struct rc_acc *x, int64_t *n, double *s);
void wire_put_rcev(struct stream_msg *m, const struct rc_acc *x, int from);
void wire_get_rcev(const struct stream_line *l, struct rc_acc *x);

/* The workload: its size, seed, fill, nice, and a command's words as
 * repeated arg= (the callbacks and descriptors stay on their side). get
 * allocates cfg->argv (NULL for sorters), freed by wire_free_argv. 0, or
 * -1 when out of memory. */
void wire_put_cfg(struct stream_msg *m, const struct workload_cfg *x);
int wire_get_cfg(const struct stream_line *l, struct workload_cfg *x);
void wire_free_argv(char **argv);

/* Every value of a repeated key, in order, NULL-terminated, allocated
 * (one block); NULL when out of memory. */
char **wire_get_all(const struct stream_line *l, const char *key);

/* The tuning as a session reads it (tuning.h): the cgroup's path,
 * version and swap accounting, the limit, the swap file's and zram
 * device's figures, zswap, --global, whether anything was touched, the
 * runs begun in the cgroup. get fills a mirror (tuning_init'ed first):
 * it holds no descriptor and owns nothing to undo. */
void wire_put_tuning(struct stream_msg *m, const struct tuning *x);
void wire_get_tuning(const struct stream_line *l, struct tuning *x);

#endif
