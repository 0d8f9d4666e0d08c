#include "crosstab.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "runkey.h"
#include "stats.h"

struct tval {
	char text[128];		/* as shown: cut with "..." where longer */
	const char *whole;	/* a text field's own value, compared whole */
	double num;
	bool is_num;
};

/* What tells two values apart: a command or label to its end. */
static const char *tval_key(const struct tval *t)
{
	return t->whole ? t->whole : t->text;
}

static int cmp_tval(const void *a, const void *b)
{
	const struct tval *x = a, *y = b;
	if (x->is_num && y->is_num)
		return (x->num > y->num) - (x->num < y->num);
	if (x->is_num != y->is_num)
		return x->is_num ? -1 : 1;
	return strcmp(tval_key(x), tval_key(y));
}

static void tval_of(const struct run_record *r, const struct hist_field *f, struct tval *t)
{
	char raw[128], *end;

	run_key_text(r, f, t->text, sizeof(t->text));
	t->whole = run_key_whole(r, f);
	fmt_blank_controls(t->text);	/* a command's newlines: one row */
	hist_field_get(r, f, raw, sizeof(raw));
	t->num = strtod(raw, &end);
	t->is_num = raw[0] && !*end && f->type != HF_STR && f->type != HF_PSTR;
}

static size_t distinct(const struct run_record *runs, size_t n, const struct hist_field *f,
		       struct tval *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct tval t;
		size_t j;
		tval_of(&runs[i], f, &t);
		for (j = 0; j < k; j++)
			if (!strcmp(tval_key(&out[j]), tval_key(&t)))
				break;
		if (j == k)
			out[k++] = t;
	}
	qsort(out, k, sizeof(*out), cmp_tval);
	return k;
}

/* Where each run falls among the distinct values v[0..k). */
static void index_of(const struct run_record *runs, size_t n, const struct hist_field *f,
		     const struct tval *v, size_t k, size_t *idx)
{
	for (size_t i = 0; i < n; i++) {
		struct tval t;
		tval_of(&runs[i], f, &t);
		for (idx[i] = 0; idx[i] < k && strcmp(tval_key(&v[idx[i]]), tval_key(&t)); idx[i]++)
			;
	}
}

/* before, then s padded with blanks to w terminal columns. */
static void padded(FILE *f, const char *before, const char *s, int w)
{
	int n = fmt_text_cols(s);

	fprintf(f, "%s%s%*s", before, s, w > n ? w - n : 0, "");
}

/* The cell of row value r and column value c; ri and ci say each run's. */
static void table_cell(const struct run_record *runs, size_t n, const size_t *ri, size_t r,
		       const size_t *ci, size_t c, char *buf, size_t len)
{
	double *x = malloc(sizeof(double) * (n ? n : 1));
	size_t k = 0, oom = 0, failed = 0, aborted = 0, total = 0;

	buf[0] = 0;
	if (!x)
		return;
	for (size_t i = 0; i < n; i++) {
		if (ri[i] != r || ci[i] != c)
			continue;
		total++;
		double w = report_metric(&runs[i], RM_WALL);
		if (runs[i].status == RUN_OK && isfinite(w))
			x[k++] = w;
		else if (runs[i].status == RUN_OOM)
			oom++;
		else if (runs[i].status == RUN_ABORTED)
			aborted++;
		else
			failed++;
	}
	size_t used = 0;
	if (!total) {
		snprintf(buf, len, "-");
	} else if (k) {
		struct stats_summary s;
		char d[32];
		stats_summarize(x, k, &s);
		fmt_duration(d, sizeof(d), s.median);
		used = (size_t)snprintf(buf, len, "%s", d);
		if (k >= 2)
			used += (size_t)snprintf(buf + used, len - used, " +-%.1f%%", s.cv_pct);
		used += (size_t)snprintf(buf + used, len - used, " n=%zu", k);
	}
	if (oom && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s%zu of %zu runs killed",
					 used ? " " : "", oom, total - aborted);
	if (failed && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s%zu failed", used ? " " : "", failed);
	if (aborted && used < len)
		snprintf(buf + used, len - used, "%s%zu aborted", used ? " " : "", aborted);
	free(x);
}

/* A cell whose completed runs (its median's) ran different workloads has
 * a median of unlike runs: said under the table, with the first two
 * workloads found together. */
static void mixed_note(FILE *f, const struct run_record *runs, size_t n, const size_t *ri,
		       const size_t *ci, size_t nr, size_t nc)
{
	size_t m = nr * nc + 1, mixed = 0, cells = 0;
	size_t *first = malloc(sizeof(*first) * m);
	bool *bad = calloc(m, sizeof(*bad));
	char a[160], b[160], eg[400] = "", text[700];

	if (!first || !bad) {
		free(first);
		free(bad);
		return;
	}
	for (size_t k = 0; k < nr * nc; k++)
		first[k] = n;
	for (size_t i = 0; i < n; i++) {
		size_t k = ri[i] * nc + ci[i];

		if (runs[i].status != RUN_OK || !isfinite(report_metric(&runs[i], RM_WALL)))
			continue;
		if (first[k] == n) {
			first[k] = i;
			cells++;
			continue;
		}
		if (bad[k])
			continue;
		if (!run_record_same_workload(&runs[first[k]], &runs[i])) {
			bad[k] = true;
			if (!mixed++) {
				run_record_workload(&runs[first[k]], a, sizeof(a));
				run_record_workload(&runs[i], b, sizeof(b));
				snprintf(eg, sizeof(eg), "%s and %s", a, b);
			}
		}
	}
	if (mixed) {
		snprintf(text, sizeof(text), "Note: %zu of %zu cells mix completed runs of different workloads"
			 " (%s): their medians are of unlike runs. Keep them apart with --rows or"
			 " --cols nelems, procs, seed or command, or choose runs with -L, --kernel or"
			 " --session.", mixed, cells, eg);
		fputc('\n', f);
		report_wrap(f, "", 0, text);
	}
	free(first);
	free(bad);
}

/* What the cells give, and the runs they count apart. */
static void heading(FILE *f, const struct run_record *runs, size_t n, const struct report_opts *o)
{
	size_t noom = 0, nfailed = 0, naborted = 0;
	char head[512];

	for (size_t i = 0; i < n; i++) {
		noom += runs[i].status == RUN_OOM;
		nfailed += runs[i].status == RUN_FAILED;
		naborted += runs[i].status == RUN_ABORTED;
	}
	/* the same three stats keeps out of its figures */
	snprintf(head, sizeof(head), "Wall time by %s (rows) and %s (columns): median of the"
		 " completed runs, +-CoV over them, n= their count; not in it, counted"
		 " apart in the cells:"
		 " %zu OOM-killed, %zu failed, %zu aborted.", o->rows, o->cols, noom,
		 nfailed, naborted);
	report_wrap(f, "", 0, head);
	fputc('\n', f);
}

int crosstab_print(FILE *f, const struct run_record *runs, size_t n, const struct report_opts *o,
		   char *err, size_t errlen)
{
	const struct hist_field *rf = run_key(o->rows), *cf = run_key(o->cols);
	size_t m = n ? n : 1, nr = 0, nc = 0, *ri = NULL, *ci = NULL;
	struct tval *rv = NULL, *cv = NULL;
	int *cw = NULL, w0 = (int)strlen(o->rows), rc = -1;
	char cell[160];

	if (!rf || !cf)
		return fmt_err(err, errlen, "table: unknown key \"%s\" (try kernel, label, swappiness, mem, swap, procs, nelems)",
			       !rf ? o->rows : o->cols);
	rv = malloc(sizeof(*rv) * m);
	cv = malloc(sizeof(*cv) * m);
	ri = malloc(sizeof(*ri) * m);
	ci = malloc(sizeof(*ci) * m);
	if (rv && cv && ri && ci) {
		nr = distinct(runs, n, rf, rv);
		nc = distinct(runs, n, cf, cv);
		cw = calloc(nc ? nc : 1, sizeof(int));
	}
	if (!cw) {
		fmt_err(err, errlen, "table: out of memory");
		goto out;
	}
	/* each run's row and column found once, not once per cell */
	index_of(runs, n, rf, rv, nr, ri);
	index_of(runs, n, cf, cv, nc, ci);
	/* in terminal columns: a label's wide characters take two */
	for (size_t i = 0; i < nr; i++)
		if (fmt_text_cols(rv[i].text) > w0)
			w0 = fmt_text_cols(rv[i].text);
	for (size_t j = 0; j < nc; j++) {
		cw[j] = fmt_text_cols(cv[j].text);
		for (size_t i = 0; i < nr; i++) {
			table_cell(runs, n, ri, i, ci, j, cell, sizeof(cell));
			if (fmt_text_cols(cell) > cw[j])
				cw[j] = fmt_text_cols(cell);
		}
	}
	heading(f, runs, n, o);
	padded(f, "", o->rows, w0);
	for (size_t j = 0; j < nc; j++)
		padded(f, "  ", cv[j].text, j + 1 < nc ? cw[j] : 0);
	fputc('\n', f);
	for (size_t i = 0; i < nr; i++) {
		padded(f, "", rv[i].text, w0);
		for (size_t j = 0; j < nc; j++) {
			table_cell(runs, n, ri, i, ci, j, cell, sizeof(cell));
			padded(f, "  ", cell, j + 1 < nc ? cw[j] : 0);
		}
		fputc('\n', f);
	}
	mixed_note(f, runs, n, ri, ci, nr, nc);
	rc = ferror(f) ? fmt_err(err, errlen, "table: %s", strerror(errno)) : 0;
out:
	free(cw);
	free(ri);
	free(ci);
	free(rv);
	free(cv);
	return rc;
}
