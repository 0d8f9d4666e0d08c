#include "cells.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "sysio.h"
#include "zswap.h"

/* What a sweep sets must not also be set by an option. */
static int check_sweep(struct session *s, char *err, size_t errlen)
{
	const struct options *o = s->o;

	if (sweep_init(&s->sweep.sw, o->sweep, o->nsweep, err, errlen))
		return -1;
	for (int d = 0; d < s->sweep.sw.ndims; d++) {
		const struct sweep_dim *dim = &s->sweep.sw.dim[d];
		const char *clash = NULL;

		switch (dim->kind) {
		case SWEEP_MEM: clash = o->mem_limit ? "--mem" : NULL; break;
		case SWEEP_SWAP: clash = o->swap_size ? "--swap" : NULL; break;
		case SWEEP_ZSWAP: clash = o->zswap_set ? "--zswap" : NULL; break;
		case SWEEP_PROCS: clash = o->procs_set ? "-p" : o->argv ? "a command" : NULL; break;
		case SWEEP_ELEMS: clash = o->nelems_set ? "-n/-m" : o->argv ? "a command" : NULL; break;
		case SWEEP_SYSCTL:
			for (int i = 0; i < o->nsysctl; i++) {
				size_t n = strlen(dim->sysctl);
				if (!strncmp(o->sysctl[i], dim->sysctl, n) && o->sysctl[i][n] == '=')
					clash = "--sysctl";
			}
			break;
		}
		if (clash) {
			snprintf(err, errlen, "--sweep %s and %s both set %s", dim->key, clash,
				 dim->kind == SWEEP_SYSCTL ? dim->sysctl : dim->key);
			return -1;
		}
	}
	return 0;
}

/* A compressor zswap lacks is bad input, refused before anything is set
 * up: --zswap's and each of a sweep's. */
static int check_zswap(struct session *s, char *err, size_t errlen)
{
	int d = s->o->nsweep ? sweep_find(&s->sweep.sw, SWEEP_ZSWAP, NULL) : -1;

	if (s->o->zswap_set && zswap_check(s->o->zswap_algo, err, errlen))
		return -1;
	for (int i = 0; d >= 0 && i < s->sweep.sw.dim[d].nvals; i++)
		if (zswap_check(s->sweep.sw.dim[d].vals[i].algo, err, errlen))
			return -1;
	return 0;
}

/* A memory limit not below MemTotal, or below what --global leaves,
 * limits nothing: bad input, refused before anything is set up, --mem's
 * and each of a sweep's. */
static int check_mem(struct session *s, char *err, size_t errlen)
{
	static const char *const key[] = { "MemTotal" };
	int d = s->o->nsweep ? sweep_find(&s->sweep.sw, SWEEP_MEM, NULL) : -1;
	int64_t total, top;
	char m[32], what[64];

	if ((!s->o->mem_limit && d < 0) || sysio_meminfo(key, &total, 1) < 0 || total <= 0)
		return 0;
	top = total * 1024;
	snprintf(what, sizeof(what), "MemTotal (%" PRId64 " kB)", total);
	if (s->o->global_limit && s->o->global_limit < top) {
		top = s->o->global_limit;
		fmt_kib(m, sizeof(m), top / 1024);
		snprintf(what, sizeof(what), "what --global leaves (%s)", m);
	}
	fmt_kib(m, sizeof(m), s->o->mem_limit / 1024);
	if (s->o->mem_limit >= top)
		return fmt_err(err, errlen, "--mem %s is not below %s: it would limit nothing", m,
			       what);
	for (int i = 0; d >= 0 && i < s->sweep.sw.dim[d].nvals; i++)
		if (s->sweep.sw.dim[d].vals[i].num >= top)
			return fmt_err(err, errlen, "--sweep %s=%s is not below %s: it would limit "
				       "nothing (none runs without a limit)", s->sweep.sw.dim[d].key,
				       s->sweep.sw.dim[d].vals[i].text, what);
	return 0;
}

int cells_check(struct session *s, bool here, char *err, size_t errlen)
{
	if (s->o->nsweep && check_sweep(s, err, errlen))
		return -1;
	return here && (check_zswap(s, err, errlen) || check_mem(s, err, errlen)) ? -1 : 0;
}

int cells_set_swap(struct session *s, long long bytes, bool zram, const char *algo, char *err,
		   size_t errlen)
{
	int rc = zram ? tuning_set_swap(&s->tun, 0, err, errlen) ||
			tuning_set_zram(&s->tun, bytes, algo, err, errlen) :
			tuning_set_zram(&s->tun, 0, NULL, err, errlen) ||
			tuning_set_swap(&s->tun, bytes, err, errlen);

	session_refresh(s);
	return rc ? -1 : 0;
}

int cells_apply(struct session *s, int c, char *err, size_t errlen)
{
	struct session_sweep *sw = &s->sweep;
	int idx[CLI_MAX_SWEEP];
	char e[512], old[SYSCTL_VALUE_MAX];

	sweep_cell(&sw->sw, c, idx);
	for (int k = 0; k < sw->sw.ndims; k++) {
		const struct sweep_dim *d = &sw->sw.dim[sw->sw.order[k]];
		const struct sweep_value *v = &d->vals[idx[sw->sw.order[k]]];
		int rc = 0;

		if (s->tuned_there && d->kind != SWEEP_PROCS && d->kind != SWEEP_ELEMS)
			continue;	/* the place's to set */
		switch (d->kind) {
		case SWEEP_SWAP: rc = cells_set_swap(s, v->num, v->zram, v->algo, e, sizeof(e)); break;
		case SWEEP_ZSWAP:
			rc = tuning_set_zswap(&s->tun, v->algo, v->pool, e, sizeof(e));
			break;
		case SWEEP_MEM: rc = tuning_set_mem(&s->tun, v->num, e, sizeof(e)); break;
		case SWEEP_SYSCTL:
			rc = tuning_sysctl(&s->tun, d->sysctl, v->text, old, sizeof(old), e, sizeof(e));
			break;
		case SWEEP_PROCS: s->plan.procs = (int)v->num; break;
		case SWEEP_ELEMS: s->plan.nelems = v->num; break;
		}
		if (rc) {
			snprintf(err, errlen, "sweep %s=%s: %.400s", d->key, v->text, e);
			return -1;
		}
	}
	if (s->tuned_there && s->place->ops->cell(s->place, c, err, errlen))
		return -1;
	sw->cell = c;
	sweep_cell_text(&sw->sw, c, sw->cell_text, sizeof(sw->cell_text));
	s->batch_left = s->repeat_n = s->o->repeat;
	s->repeat_k = 0;
	session_describe(s);
	if (!s->tui) {
		printf("cell %d/%d: %s\n", c + 1, sw->sw.ncells, sw->cell_text);
		fflush(stdout);
	}
	return 0;
}
