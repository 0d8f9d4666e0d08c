/* Stored runs as Performance Co-Pilot archives, written through
 * libpcp_import, for pmrep -a, pmchart, pmdiff and grafana-pcp. Each
 * recorded series goes in as it is stored under thrashtop.NAME (NAME as
 * --list-plots gives it, each '-' a '_'); where the linux agent of PCP
 * (pmcd's PMDA) has the same figure, it goes in again under that agent's
 * name, PMID, type, semantics and units (a rate as the counter it came
 * from, rising by rate x interval from 0 at the run's first sample). The
 * workers' totals are instances of thrashtop.worker.* at the last sample;
 * the run's fields are the archive's labels; its host is the archive's
 * host; times are UTC, the run's start plus each sample's t. Never
 * prints but to the FILE given. */
#ifndef THRASHTOP_PCPEXPORT_H
#define THRASHTOP_PCPEXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "history.h"

/* A run's archive is DIR/thrashtop-run-ID.{0,meta,index}. */
#define PCPEXPORT_PREFIX "thrashtop-run-"

/* The PCP name of registry series id: "thrashtop.swap_used". */
void pcpexport_metric_name(int id, char *buf, size_t len);

/* Writes r as the archive base (base.0, base.meta, base.index), which
 * must not exist: libpcp_import makes them, following a link there, so
 * base should be in a directory of the caller's own. Returns 0; 1 when r
 * cannot be an archive (no series, no start time, sample times that do
 * not rise); -1 when the archive cannot be written, or SIGINT, SIGTERM or
 * SIGHUP is pending (blocked by the caller), err filled, and what was made
 * the caller's to remove. */
int pcpexport_run(const struct run_record *r, const char *base, char *err, size_t errlen);

/* `history export [ID...] --format=pcp DIR`: the runs ids[0..nids) of the
 * history at path, or with none the runs f selects (those without a
 * recorded series or a start time left out and counted in *left), each
 * as an archive in dir named for its run. Every archive is written into a
 * directory of its own made in dir first, then linked into dir name by
 * name, each link made only where the name is free (never over a file or
 * through a link), so that a name taken refuses the export and leaves dir
 * as it was. SIGINT, SIGTERM and SIGHUP wait until what was written is
 * removed. Each archive written is named on out, a line each. Returns 0;
 * 1 for bad input (dir not a directory or not writable, a run missing or
 * not exportable, an archive of that name there); -1 on failure; err
 * filled. */
int pcpexport_history(const char *path, const struct history_filter *f, const int64_t *ids,
		      int nids, const char *dir, FILE *out, size_t *left, char *err,
		      size_t errlen);

#endif
