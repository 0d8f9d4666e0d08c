/* thrashtop check: the baseline read, the runs made a look at a time
 * (verdict.h's looks, each a session of its own under one session id), each
 * metric judged at every look until all are decided or the run limit is
 * reached, and the verdicts printed as history compare gives the figures. */
#include "checkcli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "capture.h"
#include "cli.h"
#include "cmdfig.h"
#include "compare.h"
#include "fmt.h"
#include "histfile.h"
#include "history.h"
#include "import.h"
#include "loop.h"
#include "posted.h"
#include "report.h"
#include "stats.h"
#include "sysio.h"
#include "verdict.h"

#define CHECK_MAX_METRICS 16
#define CHECK_MAX_RUNS_LIMIT 100
#define CHECK_POSTED_MAX (64 << 20)
#define M_OOM (-1)
#define M_OWN (-3)		/* the command's own figure (--metric NAME=REGEX) */
/* bad input: beyond 127, so that git bisect run stops rather than skips */
#define CHECK_BAD_INPUT 255

struct check_metric {
	char name[32];
	int rm;			/* enum report_metric, M_OOM or M_OWN */
	bool lower_better;
	enum verdict v;
	struct verdict_result r;
	size_t nb, nc;		/* runs the figures are over */
	size_t kb, kc;		/* OOM: runs killed */
};

struct check {
	const char *ref;
	double threshold, alpha;
	int max_runs;
	bool json;
	int nm;
	struct check_metric m[CHECK_MAX_METRICS];
	char label[256], id[64], history[4096];
	struct run_record *base, *cur;
	size_t nbase, ncur;
	char broke[512];	/* why the workload is taken as broken */
};

static void usage(void)
{
	fprintf(stdout, "usage: thrashtop check [SESSION OPTIONS] --against REF [--metric M]...\n"
		"         [--threshold PCT] [--max-runs N] [--alpha A] [--json] [-- COMMAND]\n"
		"REF: a label, g:ID (a group), IDS (12,13,14) or a file of posted time lines\n"
		"M: wall (the default), user, sys, majflt, kswapd, a stall (swapin ...), oom,\n"
		"   or the command's own figure, NAME[:higher]=REGEX as the session's --metric\n");
}

/* "thrashtop: check: BEFORE WHAT AFTER", what escaped as typed. */
static int bad(const char *before, const char *what, const char *after)
{
	char e[256];

	fprintf(stderr, "thrashtop: check: %s%s%s\n", before, fmt_escape(e, sizeof(e), what),
		after);
	return -1;
}

static int say(const char *msg)
{
	fprintf(stderr, "thrashtop: check: %s\n", msg);
	return -1;
}

static int add_metric(struct check *c, const char *arg)
{
	struct check_metric *m = &c->m[c->nm];
	struct capture_spec sp;

	if (c->nm == CHECK_MAX_METRICS)
		return bad("--metric ", arg, ": at most 16 metrics");
	memset(m, 0, sizeof(*m));
	m->lower_better = true;
	if (strchr(arg, '=')) {
		char err[512];

		if (capture_parse(arg, &sp, err, sizeof(err)))
			return say(err);
		for (int i = 0; i < c->nm; i++)
			if (!strcmp(c->m[i].name, sp.name))
				return bad("--metric ", sp.name, " given twice: give each name once");
		m->rm = M_OWN;
		m->lower_better = !sp.higher;
		arg = sp.name;
	} else if (!strcmp(arg, "oom")) {
		m->rm = M_OOM;
	} else {
		m->rm = -2;
		for (int i = 0; i < RM_N; i++)
			if (!strcmp(arg, report_metric_name((enum report_metric)i)))
				m->rm = i;
		if (m->rm == -2)
			return bad("--metric ", arg, ": not a metric (wall, user, sys, majflt, "
				   "kswapd, a stall such as swapin, oom, or the command's own: "
				   "NAME[:higher]=REGEX)");
	}
	snprintf(m->name, sizeof(m->name), "%s", arg);
	c->nm++;
	return 0;
}

static int parse_number(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || (*end && strcmp(end, "%")) || !(v >= lo && v <= hi)) {
		char e[160];

		fprintf(stderr, "thrashtop: check: %s %s: want a number from %g to %g\n", opt,
			fmt_escape(e, sizeof(e), arg), lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* The check's own options out of argv; the rest, with -b, into rest for
 * the session's parser. */
static int parse_args(struct check *c, int argc, char **argv, char **rest, int *nrest)
{
	int n = 0;
	bool after = false;

	rest[n++] = "thrashtop";
	rest[n++] = "-b";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		double d;

		after |= !strcmp(a, "--");
		if (after) {
			rest[n++] = argv[i];
			continue;
		}
		bool val = !strcmp(a, "--against") || !strcmp(a, "--metric") ||
			   !strcmp(a, "--threshold") || !strcmp(a, "--max-runs") ||
			   !strcmp(a, "--alpha");
		if (val && !v)
			return bad("", a, ": wants a value");
		if (!strcmp(a, "--json")) {
			c->json = true;
		} else if (!strcmp(a, "--against")) {
			c->ref = v;
		} else if (!strcmp(a, "--metric")) {
			if (add_metric(c, v))
				return -1;
			/* the command's own: the session reads it too */
			if (c->m[c->nm - 1].rm == M_OWN) {
				rest[n++] = argv[i];
				rest[n++] = argv[i + 1];
			}
		} else if (!strcmp(a, "--threshold")) {
			if (parse_number(a, v, 0, 99, &d))
				return -1;
			c->threshold = d / 100;
		} else if (!strcmp(a, "--alpha")) {
			if (parse_number(a, v, 1e-6, 0.5, &d))
				return -1;
			c->alpha = d;
		} else if (!strcmp(a, "--max-runs")) {
			if (parse_number(a, v, 2, CHECK_MAX_RUNS_LIMIT, &d))
				return -1;
			if (d != floor(d))
				return bad("--max-runs ", v, ": want a whole number");
			c->max_runs = (int)d;
		} else {
			rest[n++] = argv[i];
		}
		i += val;
	}
	rest[n] = NULL;
	*nrest = n;
	if (!c->ref)
		return say("--against REF names the baseline");
	if (!c->nm)
		add_metric(c, "wall");
	return 0;
}

/* ---- the baseline ---- */

static bool all_digits_commas(const char *s)
{
	if (!*s || *s == ',')
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s == ',' && s[1] && s[1] != ',')))
			return false;
	return true;
}

/* The runs ref names in the history at path: 0 (maybe none), -1 err. */
static int ref_from_history(struct check *c, char *err, size_t errlen)
{
	struct compare_arg args[64];
	struct compare_sets cs = { 0 };
	size_t n = 0;
	struct history *h;

	if (access(c->history, F_OK))
		return 0;
	if (all_digits_commas(c->ref)) {
		for (const char *p = c->ref; *p && n < 64; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
			args[n++] = (struct compare_arg){ .by = COMPARE_RUN, .id = strtoll(p, NULL, 10) };
	} else if (!strncmp(c->ref, "g:", 2) && all_digits_commas(c->ref + 2) &&
		   !strchr(c->ref, ',')) {
		args[n++] = (struct compare_arg){ .by = COMPARE_GROUP,
						  .id = strtoll(c->ref + 2, NULL, 10) };
	} else {
		args[n++] = (struct compare_arg){ .by = COMPARE_LABEL, .label = c->ref };
	}
	if (!(h = history_open(c->history, HISTORY_RDONLY, err, errlen)))
		return -1;
	int rc = compare_collect(h, args, n, NULL, &cs, err, errlen);
	history_close(h);
	if (rc)
		return -1;
	c->base = cs.runs;
	c->nbase = cs.n;
	cs.runs = NULL;
	cs.n = 0;
	compare_sets_free(&cs);
	return 0;
}

static int ref_from_file(struct check *c, char *err, size_t errlen)
{
	struct import_runs got = { 0 };
	struct import_sink sink = { .run = import_collect, .arg = &got };
	size_t len;
	char *text = sysio_read_alloc(c->ref, CHECK_POSTED_MAX, &len);

	if (!text)
		return fmt_err(err, errlen, "--against %s: %s", c->ref, strerror(errno));
	int rc = posted_read(text, NULL, false, &sink, err, errlen);
	free(text);
	if (rc) {
		run_records_free(got.runs, got.n);
		return -1;
	}
	c->base = got.runs;
	c->nbase = got.n;
	return 0;
}

static int load_ref(struct check *c, char *err, size_t errlen)
{
	if (ref_from_history(c, err, errlen))
		return -1;
	if (!c->nbase && !access(c->ref, R_OK) && ref_from_file(c, err, errlen))
		return -1;
	if (!c->nbase)
		return fmt_err(err, errlen, "--against %s: no such runs in the history%s", c->ref,
			       access(c->ref, F_OK) ? " and no such file" : "");
	return 0;
}

/* ---- judging ---- */

/* Metric m of the completed runs of v into x; their count. */
static size_t figures(const struct run_record *v, size_t n, const struct check_metric *m,
		      double *x)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct run_metric *own = NULL;
		double f;

		if (m->rm == M_OWN)
			f = (own = run_record_metric(&v[i], m->name)) ? own->value : NAN;
		else
			f = report_metric(&v[i], (enum report_metric)m->rm);
		if (v[i].status == RUN_OK && isfinite(f))
			x[k++] = f;
	}
	return k;
}

/* v as history compare prints metric m's figures: the value printed. */
static double as_printed(char *buf, size_t len, double v, const struct check_metric *m)
{
	if (m->rm == M_OWN)
		return cmdfig_text(buf, len, v);
	v = report_cut(v, 100);
	report_figure(buf, len, v, m->rm == RM_MAJFLT ? RM_WALL : (enum report_metric)m->rm);
	return v;
}

static void oom_counts(const struct run_record *v, size_t n, size_t *k, size_t *ran)
{
	*k = *ran = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].status != RUN_ABORTED) {
			++*ran;
			*k += v[i].status == RUN_OOM;
		}
}

/* Judges every metric at level a; the worst verdict. */
static enum verdict judge(struct check *c, double a)
{
	size_t cap = c->nbase > c->ncur ? c->nbase : c->ncur;
	double *xb = malloc(sizeof(double) * (cap + 1)), *xc = malloc(sizeof(double) * (cap + 1));
	enum verdict worst = VERDICT_SAME;

	for (int i = 0; i < c->nm; i++) {
		struct check_metric *m = &c->m[i];

		m->v = VERDICT_UNSURE;
		if (m->rm == M_OOM) {
			oom_counts(c->base, c->nbase, &m->kb, &m->nb);
			oom_counts(c->cur, c->ncur, &m->kc, &m->nc);
			if (m->nb && m->nc)
				m->v = verdict_counts(m->kb, m->nb, m->kc, m->nc, a, &m->r.p);
		} else if (xb && xc) {
			m->nb = figures(c->base, c->nbase, m, xb);
			m->nc = figures(c->cur, c->ncur, m, xc);
			if (verdict_judge(xb, m->nb, xc, m->nc, c->threshold, m->lower_better, a,
					  &m->r))
				m->r = (struct verdict_result){ .v = VERDICT_UNSURE, .p = NAN };
			m->v = m->r.v;
		}
		worst = verdict_worst(worst, m->v);
	}
	free(xb);
	free(xc);
	return worst;
}

/* ---- the runs ---- */

/* The runs of this check so far, oldest first. */
static int read_runs(struct check *c, char *err, size_t errlen)
{
	struct history_filter f = { .session = c->id };
	struct history *h = history_open(c->history, HISTORY_RDONLY, err, errlen);

	run_records_free(c->cur, c->ncur);
	c->cur = NULL;
	c->ncur = 0;
	if (!h)
		return -1;
	int rc = history_list(h, &f, HISTORY_OLDEST_FIRST | HISTORY_METRICS, &c->cur, &c->ncur,
			      err, errlen);
	history_close(h);
	return rc;
}

/* Another session of want runs; with --json its output goes to stderr,
 * standard output holding the verdict only. Its exit status. */
static int more_runs(struct check *c, struct options *o, int want)
{
	int saved = -1, rc;

	o->repeat = want;
	fflush(stdout);
	if (c->json && (saved = dup(STDOUT_FILENO)) >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	rc = app_run(o);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	return rc;
}

/* Whether a run of the check broke: c->broke says which and how. */
static bool workload_broke(struct check *c)
{
	for (size_t i = 0; i < c->ncur; i++) {
		const struct run_record *r = &c->cur[i];

		if (r->status != RUN_FAILED && r->status != RUN_ABORTED)
			continue;
		snprintf(c->broke, sizeof(c->broke), "the workload itself %s: run %" PRId64 " %s",
			 r->status == RUN_FAILED ? "failed" : "was aborted", r->id,
			 r->status == RUN_FAILED ? "ended in failure (a non-zero exit or a signal)"
			 : "did not run to its end");
		return true;
	}
	return false;
}

/* Runs look after look until every metric is decided; the verdict, or
 * -1 with c->broke set, or 128+N after signal N. */
static int run_looks(struct check *c, struct options *o)
{
	double a = verdict_look_alpha(c->alpha, c->max_runs);
	enum verdict v = VERDICT_UNSURE;
	char err[400];

	for (int k = 0; k < verdict_nlooks(c->max_runs); k++) {
		size_t had = c->ncur;
		int want = verdict_look_at(k, c->max_runs) - (int)c->ncur;
		int rc = want > 0 ? more_runs(c, o, want) : 0;

		if (loop_signal())
			return 128 + loop_signal();
		if (read_runs(c, err, sizeof(err))) {
			snprintf(c->broke, sizeof(c->broke), "could not read its runs: %s", err);
			return -1;
		}
		if (workload_broke(c))
			return -1;
		/* 1: a run the OOM killer ended, a figure as the others are */
		if (rc && (rc != 1 || c->ncur < had + (size_t)want)) {
			snprintf(c->broke, sizeof(c->broke), "could not run the workload (exit "
				 "status %d)", rc);
			return -1;
		}
		if ((v = judge(c, a)) != VERDICT_UNSURE)
			break;
	}
	return v;
}

/* ---- the verdict ---- */

static void print_metric(const struct check *c, const struct check_metric *m, double *xb,
			 double *xc)
{
	char mb[32], mc[32];

	if (m->rm == M_OOM) {
		printf("%s: %s  killed %zu of %zu -> %zu of %zu  p=%.3f  runs %zu+%zu\n", m->name,
		       verdict_name(m->v), m->kb, m->nb, m->kc, m->nc, m->r.p, m->nb, m->nc);
		return;
	}
	size_t nb = figures(c->base, c->nbase, m, xb), nc = figures(c->cur, c->ncur, m, xc);

	as_printed(mb, sizeof(mb), stats_median(xb, nb), m);
	as_printed(mc, sizeof(mc), stats_median(xc, nc), m);
	printf("%s: %s  median %s -> %s", m->name, verdict_name(m->v), mb, mc);
	/* the means as history compare's Amean row prints them, with its
	 * change from those figures; then the change of the unrounded means
	 * that the interval and the verdict are about */
	double pb = as_printed(mb, sizeof(mb), m->r.base_mean, m);
	double pc = as_printed(mc, sizeof(mc), m->r.cur_mean, m);

	if (isnan(m->r.p) || pb == 0)
		printf("  change n/a");
	else
		printf("  mean %s -> %s (%+.2f%%)  change %+.2f%% (95%% CI %+.2f%% to %+.2f%%)"
		       "  p=%.3g", mb, mc, 100.0 * (pc - pb) / pb + 0.0, m->r.change_pct + 0.0,
		       m->r.ci_lo_pct + 0.0, m->r.ci_hi_pct + 0.0, m->r.p);
	printf("  runs %zu+%zu\n", nb, nc);
}

/* key: v, a percentage to the hundredths printed */
static void json_num(const char *key, double v, bool comma)
{
	char b[64];

	if (isfinite(v) && strstr(key, "_pct"))
		v = round(v * 100) / 100 + 0.0;
	if (isfinite(v))
		fmt_exact(b, sizeof(b), v);
	printf("\"%s\":%s%s", key, isfinite(v) ? b : "null", comma ? "," : "");
}

static void json_metric(const struct check *c, const struct check_metric *m, double *xb,
			double *xc)
{
	printf("{\"name\":");
	fmt_json_str(stdout, m->name);
	printf(",\"verdict\":\"%s\",\"runs_base\":%zu,\"runs_new\":%zu,", verdict_name(m->v),
	       m->nb, m->nc);
	if (m->rm == M_OOM) {
		printf("\"oom_base\":%zu,\"oom_new\":%zu,", m->kb, m->kc);
		json_num("p", m->r.p, false);
		printf("}");
		return;
	}
	size_t nb = figures(c->base, c->nbase, m, xb), nc = figures(c->cur, c->ncur, m, xc);
	char t[32];
	double pb = as_printed(t, sizeof(t), m->r.base_mean, m);
	double pc = as_printed(t, sizeof(t), m->r.cur_mean, m);

	printf("\"better\":\"%s\",", m->lower_better ? "lower" : "higher");
	json_num("median_base", as_printed(t, sizeof(t), stats_median(xb, nb), m), true);
	json_num("median_new", as_printed(t, sizeof(t), stats_median(xc, nc), m), true);
	json_num("mean_base", pb, true);
	json_num("mean_new", pc, true);
	json_num("mean_change_pct", pb ? 100.0 * (pc - pb) / pb : NAN, true);
	json_num("change_pct", m->r.change_pct, true);
	json_num("ci95_lo_pct", m->r.ci_lo_pct, true);
	json_num("ci95_hi_pct", m->r.ci_hi_pct, true);
	json_num("p", m->r.p, false);
	printf("}");
}

static int report(const struct check *c, int v)
{
	int status = v < 0 ? VERDICT_UNSURE : v;
	size_t cap = c->nbase > c->ncur ? c->nbase : c->ncur;
	double *xb = malloc(sizeof(double) * (cap + 1)), *xc = malloc(sizeof(double) * (cap + 1));

	if (!xb || !xc) {
		free(xb);
		free(xc);
		fprintf(stderr, "thrashtop: check: out of memory\n");
		return VERDICT_UNSURE;
	}
	if (c->broke[0])
		fprintf(stderr, "thrashtop: check: %s\n", c->broke);
	if (c->json) {
		printf("{\"against\":");
		fmt_json_str(stdout, c->ref);
		printf(",\"label\":");
		fmt_json_str(stdout, c->label);
		printf(",\"session\":\"%s\",\"verdict\":\"%s\",\"exit\":%d,\"broke\":", c->id,
		       v < 0 ? "could not judge" : verdict_name((enum verdict)v), status);
		if (c->broke[0])
			fmt_json_str(stdout, c->broke);
		else
			printf("null");
		printf(",");
		json_num("threshold_pct", c->threshold * 100, true);
		json_num("alpha", c->alpha, true);
		printf("\"max_runs\":%d,\"metrics\":[", c->max_runs);
		for (int i = 0; v >= 0 && i < c->nm; i++) {
			printf(i ? "," : "");
			json_metric(c, &c->m[i], xb, xc);
		}
		printf("]}\n");
	} else {
		for (int i = 0; v >= 0 && i < c->nm; i++)
			print_metric(c, &c->m[i], xb, xc);
		printf("check: %s against %s (exit %d): %zu runs labelled %s, session %s\n",
		       v < 0 ? "could not judge" : verdict_name((enum verdict)v), c->ref, status,
		       c->ncur, c->label, c->id);
	}
	free(xb);
	free(xc);
	return fflush(stdout) ? VERDICT_UNSURE : status;
}

static int setup(struct check *c, struct options *o)
{
	char err[512];
	time_t now = time(NULL);
	struct tm tm;

	if (o->no_history)
		return say("--no-history: a check keeps its runs in the history");
	if (o->against || o->cast)
		return say("--cast is not for a check");
	if (o->nsweep)
		return say("--sweep: a check runs one configuration");
	if (o->history)
		snprintf(c->history, sizeof(c->history), "%s", o->history);
	else if (!history_default_path(c->history, sizeof(c->history), err, sizeof(err)))
		return say(err);
	if (load_ref(c, err, sizeof(err)))
		return say(err);
	snprintf(c->label, sizeof(c->label), "%s%.190s", o->label ? "" : "check:",
		 o->label ? o->label : c->ref);
	o->label = c->label;
	gmtime_r(&now, &tm);
	snprintf(c->id, sizeof(c->id), "check-%04d%02d%02dT%02d%02d%02dZ-%d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
	o->session_id = c->id;
	return 0;
}

int checkcli_main(int argc, char **argv)
{
	static struct check c;
	struct options o;
	char **rest = calloc((size_t)argc + 3, sizeof(*rest)), err[512];
	int nrest = 0, rc;

	c = (struct check){ .threshold = 0.05, .alpha = 0.05, .max_runs = 10 };
	if (!rest)
		return fprintf(stderr, "thrashtop: out of memory\n"), VERDICT_UNSURE;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		free(rest);
		usage();
		return 0;
	}
	if (parse_args(&c, argc, argv, rest, &nrest)) {
		free(rest);
		return CHECK_BAD_INPUT;
	}
	rc = cli_parse(nrest, rest, &o, err, sizeof(err));
	if (rc) {
		cli_free(&o);
		free(rest);
		if (rc < 0)
			fprintf(stderr, "thrashtop: %s\n", err);
		return rc > 0 ? 0 : CHECK_BAD_INPUT;
	}
	rc = setup(&c, &o) ? CHECK_BAD_INPUT : run_looks(&c, &o);
	if (rc < 128)
		rc = report(&c, rc);
	cli_free(&o);
	free(rest);
	run_records_free(c.base, c.nbase);
	run_records_free(c.cur, c.ncur);
	return rc;
}
