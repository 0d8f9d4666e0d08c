#include "compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmdfig.h"
#include "confdiff.h"
#include "fmt.h"
#include "report.h"
#include "stats.h"

const char *const compare_fields[] = {
	"started_at", "config_hash", "label", "kind", "procs", "status", "wall_us", "user_us",
	"sys_us", "majflt", "kswapd_s", "config", "proc_cmdline", "swap_devices",
	"stall_swapin_s", "stall_reclaim_s", "stall_thrashing_s", "stall_compact_s",
	"stall_io_s", "stall_cpu_s", "stall_wpcopy_s", "stall_irq_s", "session", "cell", NULL,
};

/* Each set's OOM kills, "3 of 8", and Fisher's p against the first. */
static void oom_line(FILE *f, const struct run_record *runs, size_t n, const int *set,
		     size_t nsets)
{
	size_t k0 = 0, n0 = 0;

	fprintf(f, "%-6s %-8s", "OOM", "killed");
	for (size_t s = 0; s < nsets; s++) {
		size_t k = 0, ran = 0;
		char val[48], mark[32] = "";

		for (size_t i = 0; i < n; i++)
			if (set[i] == (int)s && runs[i].status != RUN_ABORTED) {
				ran++;
				k += runs[i].status == RUN_OOM;
			}
		if (s == 0) {
			k0 = k;
			n0 = ran;
		} else if (ran && n0) {
			double p = stats_fisher(k0, n0, k, ran);
			snprintf(mark, sizeof(mark), p < 0.05 ? "*p=%.3f*" : "(p=%.3f)", p);
		}
		snprintf(val, sizeof(val), "%zu of %zu", k, ran);
		fprintf(f, " %10s %10s", val, mark);
	}
	fputc('\n', f);
}

/* A set whose runs are not of one configuration (a label given to runs
 * at two swappiness values) is said to be, with what differs from its
 * first run's, for up to three other configurations: its figures are
 * summed over all of them. */
static int mixed_sets(FILE *f, const struct run_record *runs, size_t n, const int *set,
		      size_t nsets, const char *const *names, struct conf_diff *d, size_t max)
{
	for (size_t s = 0; s < nsets; s++) {
		const struct run_record *first = NULL, *seen[64];
		size_t nseen = 0;

		for (size_t i = 0; i < n; i++) {
			const struct run_record *r = &runs[i];
			bool known = false;

			if (set[i] != (int)s)
				continue;
			if (!first) {
				first = r;
				continue;
			}
			known = !strcmp(r->config_hash, first->config_hash);
			for (size_t j = 0; j < nseen && !known; j++)
				known = !strcmp(r->config_hash, seen[j]->config_hash);
			if (known || nseen == sizeof(seen) / sizeof(seen[0]))
				continue;
			seen[nseen++] = r;
			if (nseen > 3)
				continue;
			int k = conf_diff(first, r, d, max);
			if (k < 0)
				return -1;
			fprintf(f, "%s mixes configurations: run %" PRId64 " against its run %" PRId64 ":\n",
				names[s], r->id, first->id);
			conf_diff_text(f, "  ", d, (size_t)k > max ? max : (size_t)k);
		}
		if (nseen > 3)
			fprintf(f, "%s mixes %s%zu configurations more\n", names[s],
				nseen == sizeof(seen) / sizeof(seen[0]) ? "at least " : "", nseen - 3);
	}
	return 0;
}

/* What differs in the configuration of each set against the first's
 * (vm.swappiness 70 -> 60, ...), as text, or as JSON ("configuration").
 * 0, or -1 with errno. */
static int config_diffs(FILE *f, const struct run_record *runs, size_t n, const int *set,
			size_t nsets, const char *const *names, bool json)
{
	struct conf_diff d[64];
	const struct run_record *base = NULL;

	for (size_t i = 0; i < n && !base; i++)
		if (set[i] == 0)
			base = &runs[i];
	if (json)
		fprintf(f, "{\"configuration\": [");
	for (size_t s = 1; s < nsets; s++) {
		const struct run_record *r = NULL;

		for (size_t i = 0; i < n && !r; i++)
			if (set[i] == (int)s)
				r = &runs[i];
		int k = conf_diff(base, r, d, sizeof(d) / sizeof(d[0]));
		if (k < 0)
			return -1;
		if (k > (int)(sizeof(d) / sizeof(d[0])))
			k = (int)(sizeof(d) / sizeof(d[0]));
		if (json) {
			fprintf(f, "%s", s > 1 ? ", " : "");
			conf_diff_json(f, names[s], names[0], d, (size_t)k);
		} else {
			if (nsets > 2)
				fprintf(f, "%s against %s:\n", names[s], names[0]);
			conf_diff_text(f, "", d, (size_t)k);
		}
	}
	if (!json && mixed_sets(f, runs, n, set, nsets, names, d, sizeof(d) / sizeof(d[0])))
		return -1;
	fprintf(f, json ? "]}\n" : "\n");
	return ferror(f) ? -1 : 0;
}

/* A figure's Amean and Median rows, x[s * n ...] holding set s's cnt[s]
 * values: report metric m's, or a command's own figure (own, with its
 * direction). Whether a gain was left untested. */
static bool centre_rows(FILE *f, const char *name, int m, const struct cmdfig *own,
			const double *x, const size_t *cnt, size_t n, size_t nsets)
{
	static const char *const centre_name[2] = { "Amean", "Median" };
	bool untested = false;
	char val[32], mark[32];

	for (int c = 0; c < 2; c++) {
		struct stats_summary a;
		double pb;

		stats_summarize(&x[0], cnt[0], &a);
		pb = own ? cmdfig_text(val, sizeof(val), c ? a.median : a.mean)
			 : report_cut(c ? a.median : a.mean, 100);
		fprintf(f, "%-6s %-8s", centre_name[c], name);
		for (size_t s = 0; s < nsets; s++) {
			struct stats_summary b;
			struct stats_cmp cmp;

			stats_summarize(&x[s * n], cnt[s], &b);
			/* from the figures as printed (cut to hundredths), so
			 * that equal ones differ by 0%; n/a where the first
			 * prints as 0; a figure where higher is better gains
			 * when higher */
			double pc = own ? cmdfig_text(val, sizeof(val), c ? b.median : b.mean)
					: report_cut(c ? b.median : b.mean, 100);
			double gain = isnan(pb) || pb == 0 || isnan(pc) ? NAN : 100.0 * (pb - pc) / pb;

			if (own && own->higher)
				gain = -gain;
			if (!own)
				report_figure(val, sizeof(val), pc, m == RM_MAJFLT ? RM_WALL : m);
			/* stats_compare refuses a side of fewer than 2 runs */
			bool tested = s > 0 && stats_compare(&x[0], cnt[0], &x[s * n], cnt[s],
							      c ? STATS_MEDIAN : STATS_MEAN,
							      true, &cmp) == 0;
			char open = '(', close = ')';

			if (s > 0 && !tested && !isnan(gain)) {
				open = '[';
				close = ']';
				untested = true;
			} else if (tested && cmp.significant) {
				open = close = '*';
			}
			if (isnan(gain))
				snprintf(mark, sizeof(mark), "%c%7s%c", open, "n/a", close);
			else
				snprintf(mark, sizeof(mark), "%c%6.2f%%%c", open, gain + 0.0, close);
			fprintf(f, " %10s %10s", val, mark);
		}
		fputc('\n', f);
	}
	return untested;
}

/* The rows of the command's own figures (--metric) any run of a set has,
 * by name. Whether a gain was left untested. */
static bool own_rows(FILE *f, const struct run_record *runs, size_t n, const int *set,
		     size_t nsets, double *x, size_t *cnt, struct cmdfigs *own)
{
	bool untested = false;

	for (size_t i = 0; i < n; i++)
		for (int k = 0; set[i] >= 0 && k < runs[i].nmetrics; k++)
			if (cmdfigs_add(own, runs[i].metrics[k].name, runs[i].metrics[k].higher, NAN))
				return untested;
	for (size_t k = 0; k < own->n; k++) {
		for (size_t s = 0; s < nsets; s++) {
			cnt[s] = 0;
			for (size_t i = 0; i < n; i++) {
				const struct run_metric *m = run_record_metric(&runs[i], own->v[k].name);

				if (set[i] == (int)s && runs[i].status == RUN_OK && m &&
				    isfinite(m->value))
					x[s * n + cnt[s]++] = m->value;
			}
		}
		untested |= centre_rows(f, own->v[k].name, -1, &own->v[k], x, cnt, n, nsets);
	}
	return untested;
}

int compare_figures(FILE *f, const struct run_record *runs, size_t n, const int *set,
		    size_t nsets, const char *const *names, char *err, size_t errlen)
{
	double *x = malloc(sizeof(double) * (n ? n : 1) * (nsets ? nsets : 1));
	size_t *cnt = calloc(nsets ? nsets : 1, sizeof(size_t));

	if (!x || !cnt) {
		free(x);
		free(cnt);
		fmt_err(err, errlen, "compare: out of memory");
		return -1;
	}
	if (nsets < 2) {
		free(x);
		free(cnt);
		fmt_err(err, errlen, "compare: need at least two runs or groups");
		return -1;
	}
	fprintf(f, "%-15s", "");
	for (size_t s = 0; s < nsets; s++) {
		char name[128];

		/* a long name ends in "...", never cut inside a character */
		fmt_field(name, sizeof(name), 0, names[s], 21, true, false);
		fprintf(f, " %s", name);
	}
	fputc('\n', f);
	bool stalls = false, untested = false;
	struct cmdfigs own = { 0 };

	for (int m = 0; m < RM_N; m++) {
		size_t any = 0;

		for (size_t s = 0; s < nsets; s++) {
			cnt[s] = 0;
			for (size_t i = 0; i < n; i++) {
				double v = report_metric(&runs[i], (enum report_metric)m);
				if (set[i] == (int)s && runs[i].status == RUN_OK && isfinite(v))
					x[s * n + cnt[s]++] = v;
			}
			any += cnt[s];
		}
		/* a stall no run has a figure for has no row */
		if (m >= RM_STALL && !any)
			continue;
		stalls |= m >= RM_STALL;
		untested |= centre_rows(f, report_metric_name((enum report_metric)m), m, NULL, x, cnt,
					n, nsets);
	}
	untested |= own_rows(f, runs, n, set, nsets, x, cnt, &own);
	bool oom = false;
	for (size_t i = 0; i < n; i++)
		oom |= set[i] >= 0 && runs[i].status == RUN_OOM;
	if (oom)
		oom_line(f, runs, n, set, nsets);
	if (stalls)
		fprintf(f, "\nswapin to irq: a worker's stall in %% of wall time, the workers' sum\n"
			"over their number.");
	fprintf(f, "\nseconds and faults over completed runs, truncated as time lines and\n"
		"stats truncate; (gain%%) is positive when lower than the first column,\n"
		"from the figures as printed (n/a where the first is 0); *gain%%* marks\n"
		"a difference beyond the noise (Welch's t-test on the means, 5%%), as\n"
		"mmtests marks it.\n");
	report_own_note(f, &own, "", 1);
	for (size_t k = 0; k < own.n; k++)
		if (own.v[k].higher) {
			fprintf(f, "The gain of a figure where higher is better is positive when higher.\n");
			break;
		}
	if (untested)
		fprintf(f, "[gain%%]: not tested, a side has fewer than 2 runs: it may be noise.\n");
	if (oom)
		fprintf(f, "OOM: runs killed of those that went to their end; (p=) is Fisher's\n"
			"exact test (two-sided) against the first column, *p=* below 5%%.\n");
	cmdfigs_free(&own);
	free(x);
	free(cnt);
	return ferror(f) ? -1 : 0;
}

int compare_print(FILE *f, const struct run_record *runs, size_t n, const int *set,
		  size_t nsets, const char *const *names, bool json, char *err, size_t errlen)
{
	if (config_diffs(f, runs, n, set, nsets, names, json))
		return fmt_err(err, errlen, "compare: %s", strerror(errno));
	return json ? 0 : compare_figures(f, runs, n, set, nsets, names, err, errlen);
}

/* ---- the runs each set names ---- */

/* Newest first, as history_list gives them. */
static int cmp_newest(const void *x, const void *y)
{
	const struct run_record *a = x, *b = y;
	int c = strcmp(b->started_at, a->started_at);
	return c ? c : (b->id > a->id) - (b->id < a->id);
}

static int cmp_id(const void *x, const void *y)
{
	const struct run_record *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/* Adds the runs f selects to c (duplicates are dropped at the end). */
static int add_runs(struct history *h, const struct history_filter *f, struct compare_sets *c,
		    char *err, size_t errlen)
{
	struct run_record *v, *all;
	size_t k;

	if (history_list(h, f, HISTORY_METRICS, &v, &k, err, errlen))
		return -1;
	if (!(all = realloc(c->runs, sizeof(*all) * (c->n + k + 1)))) {
		run_records_free(v, k);
		return fmt_err(err, errlen, "history: out of memory");
	}
	c->runs = all;
	if (k)
		memcpy(all + c->n, v, sizeof(*v) * k);
	c->n += k;
	free(v);
	return 0;
}

/* Adds at least the runs a names: a group's are found by its run's
 * config_hash, and a label with glob characters, which the history would
 * match as a pattern, takes every run to be matched exactly. */
static int add_named(struct history *h, const struct compare_arg *a, const char *const *fields,
		     struct compare_sets *c, char *err, size_t errlen)
{
	static const char *const hash_field[] = { "config_hash", NULL };
	struct history_filter f = { .fields = fields };
	struct run_record *v;
	size_t k;

	if (a->by == COMPARE_LABEL) {
		f.label = strpbrk(a->label, "*?[") ? NULL : a->label;
		return add_runs(h, &f, c, err, errlen);
	}
	if (a->by == COMPARE_SESSION) {
		f.session = a->session;
		return add_runs(h, &f, c, err, errlen);
	}
	f.id = a->id;
	if (a->by == COMPARE_RUN)
		return add_runs(h, &f, c, err, errlen);
	f.fields = hash_field;
	if (history_list(h, &f, 0, &v, &k, err, errlen))
		return -1;
	f = (struct history_filter){ .fields = fields, .config_hash = k ? v[0].config_hash : NULL };
	int rc = k ? add_runs(h, &f, c, err, errlen) : 0;
	run_records_free(v, k);
	return rc;
}

/* Whether a takes run r; hash is a group's, its run's config_hash (NULL:
 * no such run). */
static bool takes(const struct compare_arg *a, const char *hash, const struct run_record *r)
{
	switch (a->by) {
	case COMPARE_LABEL: return !strcmp(r->label, a->label);
	case COMPARE_RUN: return r->id == a->id;
	default: return hash && !strcmp(r->config_hash, hash);
	}
}

static const char *hash_of(const struct compare_sets *c, int64_t id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->runs[i].id == id)
			return c->runs[i].config_hash;
	return NULL;
}

/* Each run once, newest first. */
static void unique_newest(struct compare_sets *c)
{
	size_t k = 0;

	if (!c->n)
		return;
	qsort(c->runs, c->n, sizeof(*c->runs), cmp_id);
	for (size_t i = 0; i < c->n; i++) {
		if (k && c->runs[k - 1].id == c->runs[i].id)
			run_record_clear(&c->runs[i]);
		else
			c->runs[k++] = c->runs[i];
	}
	c->n = k;
	qsort(c->runs, c->n, sizeof(*c->runs), cmp_newest);
}

/* Set s named name; -1 out of memory. */
static int name_set(struct compare_sets *c, size_t s, const char *name)
{
	char **v = realloc(c->names, sizeof(*v) * (s + 1));

	if (!v)
		return -1;
	c->names = v;
	return (v[s] = strdup(name)) ? 0 : -1;
}

/* A session's runs no earlier arg took, a set for each cell, the oldest
 * cell first (runs are newest first). 0, or -1 out of memory. */
static int assign_session(struct compare_arg *a, struct compare_sets *c)
{
	size_t first = c->nsets;

	a->set = -1;
	for (size_t i = c->n; i-- > 0;) {
		const struct run_record *r = &c->runs[i];
		const char *name = r->cell[0] ? r->cell : a->text ? a->text : "";
		size_t s = first;

		if (c->set[i] >= 0 || strcmp(r->session, a->session))
			continue;
		while (s < c->nsets && strcmp(c->names[s], name))
			s++;
		if (s == c->nsets && name_set(c, c->nsets, name))
			return -1;
		c->nsets += s == c->nsets;
		c->set[i] = (int)s;
		a->set = (int)first;
	}
	return 0;
}

/* Each arg's set, in order; the runs no arg took are dropped. 0, or -1
 * out of memory. */
static int assign(struct compare_arg *args, size_t nargs, struct compare_sets *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++)
		c->set[i] = -1;
	for (size_t a = 0; a < nargs; a++) {
		const char *hash = args[a].by == COMPARE_GROUP ? hash_of(c, args[a].id) : NULL;
		bool took = false;

		if (args[a].by == COMPARE_SESSION) {
			if (assign_session(&args[a], c))
				return -1;
			continue;
		}
		for (size_t i = 0; i < c->n; i++)
			if (c->set[i] < 0 && takes(&args[a], hash, &c->runs[i])) {
				c->set[i] = (int)c->nsets;
				took = true;
			}
		if (took && name_set(c, c->nsets, args[a].text ? args[a].text : ""))
			return -1;
		args[a].set = took ? (int)c->nsets++ : -1;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (c->set[i] < 0) {
			run_record_clear(&c->runs[i]);
			continue;
		}
		c->runs[k] = c->runs[i];
		c->set[k++] = c->set[i];
	}
	c->n = k;
	return 0;
}

int compare_collect(struct history *h, struct compare_arg *args, size_t nargs,
		    const char *const *fields, struct compare_sets *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	for (size_t a = 0; a < nargs; a++)
		if (add_named(h, &args[a], fields, c, err, errlen)) {
			compare_sets_free(c);
			return -1;
		}
	unique_newest(c);
	if (!(c->set = malloc(sizeof(*c->set) * (c->n + 1)))) {
		compare_sets_free(c);
		return fmt_err(err, errlen, "history: out of memory");
	}
	if (assign(args, nargs, c)) {
		compare_sets_free(c);
		return fmt_err(err, errlen, "history: out of memory");
	}
	return 0;
}

void compare_sets_free(struct compare_sets *c)
{
	for (size_t s = 0; c->names && s < c->nsets; s++)
		free(c->names[s]);
	free(c->names);
	run_records_free(c->runs, c->n);
	free(c->set);
	memset(c, 0, sizeof(*c));
}
