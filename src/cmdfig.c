/* A command's own figures over runs, gathered by name. */
#include "cmdfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMDFIG_COLS 9

int cmdfigs_find(const struct cmdfigs *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return (int)i;
	return -1;
}

int cmdfigs_add(struct cmdfigs *s, const char *name, bool higher, double v)
{
	int k = cmdfigs_find(s, name);
	struct cmdfig *f;

	if (k < 0) {
		size_t at = 0;

		if (!(f = realloc(s->v, sizeof(*f) * (s->n + 1))))
			return errno = ENOMEM, -1;
		s->v = f;
		while (at < s->n && strcmp(s->v[at].name, name) < 0)
			at++;
		memmove(&s->v[at + 1], &s->v[at], sizeof(*f) * (s->n - at));
		memset(&s->v[at], 0, sizeof(*f));
		snprintf(s->v[at].name, sizeof(s->v[at].name), "%s", name);
		s->v[at].higher = higher;
		s->n++;
		k = (int)at;
	}
	f = &s->v[k];
	if (isnan(v))
		return 0;
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		double *x = realloc(f->x, sizeof(*x) * cap);

		if (!x)
			return errno = ENOMEM, -1;
		f->x = x;
		f->cap = cap;
	}
	f->x[f->n++] = v;
	return 0;
}

void cmdfigs_free(struct cmdfigs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].x);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

double cmdfig_text(char *buf, size_t len, double v)
{
	char t[64];

	if (!isfinite(v)) {
		snprintf(buf, len, "n/a");
		return NAN;
	}
	for (int p = 6; p >= 1; p--) {
		snprintf(t, sizeof(t), "%.*g", p, v);
		if (strlen(t) <= CMDFIG_COLS)
			break;
	}
	snprintf(buf, len, "%s", t);
	return strtod(t, NULL);
}
