#include "sweep.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crosstab.h"
#include "fmt.h"
#include "report.h"
#include "runkey.h"
#include "sysctl.h"
#include "workload.h"
#include "zswap.h"

/* Past this a single worker's array would not fit any machine this runs on
 * (the same bound as -n). */
#define MAX_ELEMS (1LL << 36)

/* A size, or "none"/"0" for none (0). */
static int parse_size_or_none(const char *s, long long *out)
{
	int64_t b;

	if (!strcmp(s, "none") || !strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (fmt_parse_size(s, &b) || b < 4096)
		return -1;
	*out = b;
	return 0;
}

static int set_kind(struct sweep_dim *d, const char *key, char *err, size_t errlen)
{
	char path[256];

	if (!strcmp(key, "swappiness") || !strcmp(key, "vm.swappiness")) {
		d->kind = SWEEP_SYSCTL;
		snprintf(d->sysctl, sizeof(d->sysctl), "vm.swappiness");
	} else if (!strcmp(key, "mem") || !strcmp(key, "memory")) {
		d->kind = SWEEP_MEM;
	} else if (!strcmp(key, "swap")) {
		d->kind = SWEEP_SWAP;
	} else if (!strcmp(key, "zswap")) {
		d->kind = SWEEP_ZSWAP;
	} else if (!strcmp(key, "procs")) {
		d->kind = SWEEP_PROCS;
	} else if (!strcmp(key, "elems") || !strcmp(key, "nelems")) {
		d->kind = SWEEP_ELEMS;
	} else if (!strncmp(key, "vm.", 3)) {
		char e[256];
		if (sysctl_path(key, path, sizeof(path), e, sizeof(e)) < 0)
			return fmt_err(err, errlen, "--sweep %s: %s", key, e);
		d->kind = SWEEP_SYSCTL;
		snprintf(d->sysctl, sizeof(d->sysctl), "%s", key);
	} else {
		return fmt_err(err, errlen, "--sweep: unknown key '%s' (swappiness, mem, swap, zswap, "
			    "procs, elems, or vm.NAME)", key);
	}
	snprintf(d->key, sizeof(d->key), "%s", key);
	return 0;
}

static int parse_value(struct sweep_dim *d, const char *s, struct sweep_value *v,
		       char *err, size_t errlen)
{
	if (strlen(s) >= sizeof(v->text) || strpbrk(s, " \t\n=") || !*s)
		return fmt_err(err, errlen, "--sweep %s: bad value '%s'", d->key, s);
	snprintf(v->text, sizeof(v->text), "%s", s);
	v->num = 0;
	v->zram = false;
	v->algo[0] = '\0';
	v->pool = -1;
	switch (d->kind) {
	case SWEEP_SYSCTL: {
		char e[256];

		if (sysctl_value_check(s, e, sizeof(e)))
			return fmt_err(err, errlen, "--sweep %s: %s", d->key, e);
		if (!strcmp(d->sysctl, "vm.swappiness") && fmt_parse_whole(s, 0, 200, &v->num))
			return fmt_err(err, errlen, "--sweep %s: '%s' is not 0 to 200", d->key, s);
		v->num = 0;
		return 0;
	}
	case SWEEP_SWAP:
		if (parse_size_or_none(s, &v->num) == 0)
			return 0;
		{
			struct swap_spec sp;
			char e[256];

			if (cli_parse_swap(s, &sp, e, sizeof(e)))
				return fmt_err(err, errlen, "--sweep swap: '%s' is not SIZE, file:SIZE or "
					       "zram:SIZE[:ALGO] (or none)", s);
			v->num = sp.bytes;
			v->zram = sp.zram;
			snprintf(v->algo, sizeof(v->algo), "%s", sp.algo);
		}
		return 0;
	case SWEEP_ZSWAP: {
		char e[256];

		if (zswap_parse(s, v->algo, sizeof(v->algo), &v->pool, e, sizeof(e)))
			return fmt_err(err, errlen, "--sweep zswap: '%s' is not off or a compressor "
				       "(lzo-rle, or lzo-rle:20 with a pool %%)", s);
		return 0;
	}
	case SWEEP_MEM:
		if (parse_size_or_none(s, &v->num))
			return fmt_err(err, errlen, "--sweep %s: '%s' is not a size such as 128M "
				    "(or none)", d->key, s);
		return 0;
	case SWEEP_PROCS:
		if (fmt_parse_whole(s, 1, WORKLOAD_MAX_PROCS, &v->num))
			return fmt_err(err, errlen, "--sweep procs: '%s' is not 1 to %d", s,
				    WORKLOAD_MAX_PROCS);
		return 0;
	case SWEEP_ELEMS:
		if (fmt_parse_whole(s, 1, MAX_ELEMS, &v->num))
			return fmt_err(err, errlen, "--sweep %s: '%s' is not a whole number of "
				    "elements from 1 to %lld", d->key, s, MAX_ELEMS);
		return 0;
	}
	return -1;
}

void sweep_free(struct sweep *sw)
{
	for (int i = 0; i < sw->ndims; i++)
		free(sw->dim[i].vals);
	memset(sw, 0, sizeof(*sw));
}

int sweep_init(struct sweep *sw, const struct sweep_axis *axes, int naxes,
	       char *err, size_t errlen)
{
	long long cells = 1;
	int k = 0;

	memset(sw, 0, sizeof(*sw));
	if (naxes > CLI_MAX_SWEEP)
		return fmt_err(err, errlen, "--sweep: at most %d keys", CLI_MAX_SWEEP);
	for (int i = 0; i < naxes; i++) {
		struct sweep_dim *d = &sw->dim[i];

		if (set_kind(d, axes[i].key, err, errlen) < 0)
			goto bad;
		for (int j = 0; j < i; j++)
			if (sw->dim[j].kind == d->kind &&
			    (d->kind != SWEEP_SYSCTL || !strcmp(sw->dim[j].sysctl, d->sysctl))) {
				fmt_err(err, errlen, "--sweep: '%s' and '%s' set the same thing",
				     sw->dim[j].key, d->key);
				goto bad;
			}
		d->vals = calloc((size_t)(axes[i].nvals ? axes[i].nvals : 1), sizeof(*d->vals));
		sw->ndims = i + 1;
		if (!d->vals) {
			fmt_err(err, errlen, "--sweep: out of memory");
			goto bad;
		}
		for (int j = 0; j < axes[i].nvals; j++) {
			if (parse_value(d, axes[i].vals[j], &d->vals[j], err, errlen) < 0)
				goto bad;
			for (int m = 0; m < j; m++)
				if (!strcmp(d->vals[m].text, d->vals[j].text) ||
				    (d->kind != SWEEP_SYSCTL && d->vals[m].num == d->vals[j].num &&
				     d->vals[m].zram == d->vals[j].zram &&
				     !strcmp(d->vals[m].algo, d->vals[j].algo) &&
				     d->vals[m].pool == d->vals[j].pool)) {
					fmt_err(err, errlen, "--sweep %s: value '%s' given twice", d->key,
					     axes[i].vals[j]);
					goto bad;
				}
			d->nvals = j + 1;
		}
		if (d->nvals == 0) {
			fmt_err(err, errlen, "--sweep %s: no values", d->key);
			goto bad;
		}
		cells *= d->nvals;
		if (cells > SWEEP_MAX_CELLS) {
			fmt_err(err, errlen, "--sweep: more than %d combinations", SWEEP_MAX_CELLS);
			goto bad;
		}
	}
	for (int i = 0; i < sw->ndims; i++)
		if (sw->dim[i].kind == SWEEP_SWAP)
			sw->order[k++] = i;
	for (int i = 0; i < sw->ndims; i++)
		if (sw->dim[i].kind != SWEEP_SWAP)
			sw->order[k++] = i;
	sw->ncells = sw->ndims ? (int)cells : 0;
	return 0;
bad:
	sweep_free(sw);
	return -1;
}

int sweep_find(const struct sweep *sw, enum sweep_kind kind, const char *sysctl)
{
	for (int i = 0; i < sw->ndims; i++)
		if (sw->dim[i].kind == kind &&
		    (kind != SWEEP_SYSCTL || !sysctl || !strcmp(sw->dim[i].sysctl, sysctl)))
			return i;
	return -1;
}

void sweep_cell(const struct sweep *sw, int c, int *idx)
{
	for (int k = sw->ndims - 1; k >= 0; k--) {
		int d = sw->order[k];
		idx[d] = c % sw->dim[d].nvals;
		c /= sw->dim[d].nvals;
	}
}

size_t sweep_cell_text(const struct sweep *sw, int c, char *buf, size_t len)
{
	int idx[CLI_MAX_SWEEP];
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	sweep_cell(sw, c, idx);
	for (int d = 0; d < sw->ndims; d++)
		off += (size_t)snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,
					"%s%s=%s", d ? " " : "", sw->dim[d].key,
					sw->dim[d].vals[idx[d]].text);
	return off;
}

int sweep_cell_value(const char *cell, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = cell; *p;) {
		const char *end = strchr(p, ' ');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(val, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
			return 0;
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	return -1;
}

double sweep_eta(double done_s, int runs_done, int runs_total, bool running,
		 double running_s)
{
	double mean, left;
	int after;

	if (runs_done <= 0 || !(done_s >= 0))
		return NAN;
	mean = done_s / runs_done;
	after = runs_total - runs_done - (running ? 1 : 0);
	left = (after > 0 ? after : 0) * mean;
	if (running && mean > running_s)
		left += mean - running_s;
	return left;
}

int sweep_table_key(const char *key, char *buf, size_t len)
{
	static const struct { const char *key, *field; } names[] = {
		{ "swappiness", "swappiness" }, { "mem", "mem" }, { "memory", "mem" },
		{ "swap", "swap" }, { "zswap", "zswap_with" }, { "procs", "procs" },
		{ "elems", "nelems" },
		{ "nelems", "nelems" }, { "kernel", "kernel" }, { "boot-mem", "ram" },
		{ "host", "hostname" },
	};
	char name[64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i].key)) {
			snprintf(buf, len, "%s", names[i].field);
			return 0;
		}
	if (strncmp(key, "vm.", 3) || strlen(key) >= sizeof(name) + 3)
		return -1;
	snprintf(name, sizeof(name), "%s", key + 3);
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	/* Only the sysctls a run records: not any field that shares a name. */
	static const char *const recorded[] = {
		"swappiness", "vfs_cache_pressure", "min_free_kbytes", "watermark_scale_factor",
		"page_cluster", "overcommit_memory", "dirty_ratio", "dirty_background_ratio",
	};
	for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		if (!strcmp(name, recorded[i]) && run_key(name)) {
			snprintf(buf, len, "%s", name);
			return 0;
		}
	return -1;
}

/* The keys of a cell text, in order. Returns how many (at most max). */
static int cell_keys(const char *cell, char keys[][64], int max)
{
	int n = 0;

	for (const char *p = cell; *p && n < max;) {
		const char *eq = strchr(p, '='), *end = strchr(p, ' ');
		size_t kl;

		if (!eq || (end && end < eq))
			break;
		kl = (size_t)(eq - p);
		snprintf(keys[n++], 64, "%.*s", (int)(kl < 63 ? kl : 63), p);
		p = end ? end : p + strlen(p);
		while (*p == ' ')
			p++;
	}
	return n;
}

/* "k=v k=v" of keys from..nkeys-1 in a run's cell. */
static void rest_text(const char *cell, char keys[][64], int from, int nkeys,
		      char *buf, size_t len)
{
	size_t off = 0;
	char v[64];

	buf[0] = '\0';
	for (int k = from; k < nkeys && off < len; k++) {
		if (sweep_cell_value(cell, keys[k], v, sizeof(v)) < 0)
			snprintf(v, sizeof(v), "?");
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", k > from ? " " : "",
					keys[k], v);
	}
}

int sweep_table(FILE *f, const struct run_record *runs, size_t n, char *err, size_t errlen)
{
	struct run_record *sub = malloc(sizeof(*sub) * (n ? n : 1));
	char keys[CLI_MAX_SWEEP][64], rows[64], cols[64], rest[256], other[256];
	struct report_opts o;
	size_t k = 0, ns;
	int nkeys = 0, rc = 0, split;
	bool *shown;

	if (!sub)
		return fmt_err(err, errlen, "table: out of memory");
	for (size_t i = 0; i < n; i++)
		if (runs[i].cell[0]) {
			if (!nkeys)
				nkeys = cell_keys(runs[i].cell, keys, CLI_MAX_SWEEP);
			sub[k++] = runs[i];	/* shallow: only read */
		}
	if (!k || !nkeys) {
		free(sub);
		return fmt_err(err, errlen, "table: no runs of a sweep among these");
	}
	report_opts_default(&o);
	split = nkeys > 2 ? 2 : nkeys;
	if (sweep_table_key(keys[0], rows, sizeof(rows)) < 0 ||
	    (nkeys > 1 && sweep_table_key(keys[1], cols, sizeof(cols)) < 0)) {
		/* A knob no recorded field holds: one row per cell. */
		snprintf(rows, sizeof(rows), "cell");
		snprintf(cols, sizeof(cols), "kernel");
		split = nkeys;
	} else if (nkeys == 1) {
		/* kernels down: across, what ran them (a guest's accelerator) */
		snprintf(cols, sizeof(cols), "%s", strcmp(rows, "kernel") ? "kernel" : "accel");
	}
	/* swap=file:2G,zram:2G: the same total, told apart by the backend */
	for (size_t i = 0; i < k; i++) {
		char v[64];

		for (int c = 0; c < (nkeys > 1 ? 2 : 1); c++)
			if (!strcmp(keys[c], "swap") &&
			    sweep_cell_value(sub[i].cell, "swap", v, sizeof(v)) == 0 && strchr(v, ':'))
				snprintf(c ? cols : rows, 64, "swap_backend");
	}
	o.rows = rows;
	o.cols = cols;
	if (split >= nkeys) {
		rc = crosstab_print(f, sub, k, &o, err, errlen);
		free(sub);
		return rc;
	}
	shown = calloc(k, sizeof(*shown));
	struct run_record *part = malloc(sizeof(*part) * k);
	if (!shown || !part) {
		free(shown);
		free(part);
		free(sub);
		return fmt_err(err, errlen, "table: out of memory");
	}
	for (size_t i = 0; i < k && rc == 0; i++) {
		if (shown[i])
			continue;
		rest_text(sub[i].cell, keys, split, nkeys, rest, sizeof(rest));
		ns = 0;
		for (size_t j = i; j < k; j++) {
			rest_text(sub[j].cell, keys, split, nkeys, other, sizeof(other));
			if (!strcmp(rest, other)) {
				shown[j] = true;
				part[ns++] = sub[j];
			}
		}
		fprintf(f, "%s%s:\n", i ? "\n" : "", rest);
		rc = crosstab_print(f, part, ns, &o, err, errlen);
	}
	free(shown);
	free(part);
	free(sub);
	return rc;
}

void sweep_print(const struct run_record *runs, size_t n, const char *id, bool kept,
		 const char *history)
{
	char err[256];

	if (!n)
		return;
	printf("\n");
	if (sweep_table(stdout, runs, n, err, sizeof(err)))
		fprintf(stderr, "thrashtop: %s\n", err);
	if (kept) {
		/* the database named, so that the line can be pasted as it is */
		char db[PATH_MAX * 4 + 2] = "";
		size_t off = 0;

		if (history)
			fmt_shell_word(db, sizeof(db), &off, history);
		printf("\nsession %s: thrashtop history export --format=table %s%s%s--session %s\n",
		       id, *db ? "--history " : "", db, *db ? " " : "", id);
	}
	fflush(stdout);
}
