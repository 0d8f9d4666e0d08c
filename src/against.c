#include <math.h>
#include <stdio.h>
#include <string.h>

#include "against.h"
#include "fmt.h"
#include "history.h"

int against_load(struct against *a, struct history *h, int64_t id, int cap,
		 char *err, size_t errlen)
{
	char e[256], label[160];
	int rc;

	memset(a, 0, sizeof(*a));
	run_record_init(&a->run);
	if (!h)
		return fmt_err(err, errlen, "--against %lld: the history could not be opened",
			       (long long)id);
	rc = history_get(h, id, &a->run, e, sizeof(e));
	if (rc < 0)
		return fmt_err(err, errlen, "--against %lld: %s", (long long)id, e);
	if (rc > 0)
		return fmt_err(err, errlen, "--against %lld: no run %lld in the history "
			       "(thrashtop history list)", (long long)id, (long long)id);
	if (a->run.nsamples < 1) {
		run_record_clear(&a->run);
		return fmt_err(err, errlen, "--against %lld: the run was kept without its series",
			       (long long)id);
	}
	for (int i = 0; i < M_N; i++)
		if (series_init(&a->view[i], cap)) {
			against_free(a);
			return fmt_err(err, errlen, "--against: out of memory");
		}
	if (a->run.label[0])
		snprintf(a->legend, sizeof(a->legend), "faint: run %lld \"%s\"", (long long)id,
			 fmt_escape(label, sizeof(label), a->run.label));
	else
		snprintf(a->legend, sizeof(a->legend), "faint: run %lld", (long long)id);
	a->have = true;
	return 0;
}

double against_value(const struct run_record *r, int id, double rel)
{
	const double *v = id >= 0 && id < M_N ? r->series[id] : NULL;
	int n = r->nsamples, lo = 0, hi = n - 1;
	double step;

	if (!v || n < 1 || !(rel >= r->t[0]))
		return NAN;
	step = n > 1 ? (r->t[n - 1] - r->t[0]) / (n - 1) : 0;
	if (rel > r->t[n - 1] + step)
		return NAN;
	/* the last t <= rel */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (r->t[mid] <= rel)
			lo = mid;
		else
			hi = mid - 1;
	}
	return v[lo];
}

void against_push(struct against *a, double t, double start)
{
	if (!a->have)
		return;
	for (int i = 0; i < M_N; i++)
		series_push(&a->view[i], t, isnan(start) ? NAN :
			    against_value(&a->run, i, t - start));
}

void against_free(struct against *a)
{
	for (int i = 0; i < M_N; i++)
		series_free(&a->view[i]);
	run_record_clear(&a->run);
	a->have = false;
}
