/* A command's own figures: specs, line matching, strict numbers. */
#include "capture.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

struct line {
	char buf[CAPTURE_LINE_MAX + 1];
	size_t len;
};

struct capture {
	int n;
	struct capture_spec sp[CAPTURE_MAX];
	regex_t re[CAPTURE_MAX];
	struct capture_result res[CAPTURE_MAX];
	struct line line[CAPTURE_STREAMS];
};

/* report.c's figures and check's oom, which every run has */
static const char *const reserved[] = { "wall", "user", "sys", "majflt", "kswapd", "swapin",
	"reclaim", "thrash", "compact", "io", "cpuwait", "wpcopy", "irq", "oom" };

bool capture_reserved(const char *name)
{
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(name, reserved[i]))
			return true;
	return false;
}

static bool name_ok(const char *s, size_t n)
{
	if (n < 1 || n > CAPTURE_NAME_MAX || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || isdigit((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

bool capture_name_ok(const char *name)
{
	return name_ok(name, strlen(name)) && !capture_reserved(name);
}

int capture_parse(const char *arg, struct capture_spec *sp, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '='), *colon;
	size_t n;
	regex_t re;
	int rc;

	memset(sp, 0, sizeof(*sp));
	if (!eq)
		return fmt_err(err, errlen, "--metric '%s': want NAME=REGEX (NAME:higher=REGEX "
			       "where higher is better)", arg);
	colon = memchr(arg, ':', (size_t)(eq - arg));
	n = (size_t)((colon ? colon : eq) - arg);
	if (!name_ok(arg, n))
		return fmt_err(err, errlen, "--metric '%s': NAME: a lower-case letter, then up to "
			       "%d letters, digits or _", arg, CAPTURE_NAME_MAX - 1);
	memcpy(sp->name, arg, n);
	if (capture_reserved(sp->name))
		return fmt_err(err, errlen, "--metric '%s': %s names a figure every run has: "
			       "give another NAME", arg, sp->name);
	if (colon && !strncmp(colon, ":higher=", 8))
		sp->higher = true;
	else if (colon && strncmp(colon, ":lower=", 7))
		return fmt_err(err, errlen, "--metric '%s': '%.*s': want :higher or :lower", arg,
			       (int)(eq - colon), colon);
	if (!eq[1])
		return fmt_err(err, errlen, "--metric '%s': no regex after the =", arg);
	if ((rc = regcomp(&re, eq + 1, REG_EXTENDED))) {
		char why[160];

		regerror(rc, &re, why, sizeof(why));
		return fmt_err(err, errlen, "--metric '%s': the regex: %s", arg, why);
	}
	regfree(&re);
	sp->regex = eq + 1;
	return 0;
}

static size_t digits(const char *s, size_t i, size_t n)
{
	size_t j = i;

	while (j < n && isdigit((unsigned char)s[j]))
		j++;
	return j - i;
}

int capture_number(const char *s, size_t n, double *v)
{
	size_t i = 0, d;
	char buf[128];

	if (n && (s[0] == '+' || s[0] == '-'))
		i++;
	d = digits(s, i, n);
	i += d;
	if (i < n && s[i] == '.') {
		size_t f = digits(s, i + 1, n);
		if (!d && !f)
			return -1;
		i += 1 + f;
	} else if (!d) {
		return -1;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;

		j += j < n && (s[j] == '+' || s[j] == '-');
		if (!(d = digits(s, j, n)))
			return -1;
		i = j + d;
	}
	if (i != n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return isfinite(*v) ? 0 : -1;
}

struct capture *capture_new(const struct capture_spec *sp, int n, char *err, size_t errlen)
{
	struct capture *c;

	if (n < 0 || n > CAPTURE_MAX) {
		fmt_err(err, errlen, "--metric: at most %d", CAPTURE_MAX);
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		fmt_err(err, errlen, "out of memory");
		return NULL;
	}
	for (; c->n < n; c->n++) {
		c->sp[c->n] = sp[c->n];
		if (regcomp(&c->re[c->n], sp[c->n].regex, REG_EXTENDED)) {
			fmt_err(err, errlen, "--metric %s: the regex does not compile", sp[c->n].name);
			capture_free(c);
			return NULL;
		}
		c->sp[c->n].regex = NULL;
	}
	capture_reset(c);
	return c;
}

void capture_free(struct capture *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		regfree(&c->re[i]);
	free(c);
}

void capture_reset(struct capture *c)
{
	for (int i = 0; i < c->n; i++)
		c->res[i] = (struct capture_result){ .state = CAPTURE_NONE, .value = NAN };
	for (int s = 0; s < CAPTURE_STREAMS; s++)
		c->line[s].len = 0;
}

/* Figure i from its match m of line s: the first group, else the match. */
static void take(struct capture *c, int i, const char *s, const regmatch_t *m)
{
	struct capture_result *r = &c->res[i];
	const regmatch_t *g = c->re[i].re_nsub ? &m[1] : &m[0];
	size_t len = g->rm_so < 0 ? 0 : (size_t)(g->rm_eo - g->rm_so);
	const char *t = g->rm_so < 0 ? "" : s + g->rm_so;

	if (capture_number(t, len, &r->value) == 0) {
		r->state = CAPTURE_VALUE;
		r->text[0] = '\0';
		return;
	}
	r->state = CAPTURE_NAN;
	r->value = NAN;
	snprintf(r->text, sizeof(r->text), "%.*s", (int)(len < sizeof(r->text) ? len
							  : sizeof(r->text) - 1), t);
}

/* Every match of each figure in the line, the last one taken. */
static void match_line(struct capture *c, char *s, size_t len)
{
	if (len && s[len - 1] == '\r')
		s[--len] = '\0';
	for (int i = 0; i < c->n; i++) {
		regmatch_t m[2], last[2];
		size_t at = 0;
		bool any = false;

		while (at <= len && regexec(&c->re[i], s + at, 2, m, at ? REG_NOTBOL : 0) == 0) {
			for (int k = 0; k < 2; k++) {
				last[k] = m[k];
				if (m[k].rm_so >= 0) {
					last[k].rm_so += (regoff_t)at;
					last[k].rm_eo += (regoff_t)at;
				}
			}
			any = true;
			at += (size_t)(m[0].rm_eo > 0 ? m[0].rm_eo : 1);
		}
		if (any)
			take(c, i, s, last);
	}
}

void capture_feed(struct capture *c, int s, const char *buf, size_t n)
{
	struct line *l = &c->line[s];

	for (size_t i = 0; i < n;) {
		const char *nl = memchr(buf + i, '\n', n - i);
		size_t k = (nl ? (size_t)(nl - buf) : n) - i;
		size_t room = CAPTURE_LINE_MAX - l->len;

		memcpy(l->buf + l->len, buf + i, k < room ? k : room);
		l->len += k < room ? k : room;
		i += k;
		if (!nl)
			break;
		l->buf[l->len] = '\0';
		match_line(c, l->buf, l->len);
		l->len = 0;
		i++;
	}
}

void capture_flush(struct capture *c)
{
	for (int s = 0; s < CAPTURE_STREAMS; s++) {
		struct line *l = &c->line[s];

		if (!l->len)
			continue;
		l->buf[l->len] = '\0';
		match_line(c, l->buf, l->len);
		l->len = 0;
	}
}

int capture_count(const struct capture *c)
{
	return c ? c->n : 0;
}

const struct capture_spec *capture_spec_at(const struct capture *c, int i)
{
	return &c->sp[i];
}

const struct capture_result *capture_result_at(const struct capture *c, int i)
{
	return &c->res[i];
}

void capture_text(const struct capture *c, int i, char *buf, size_t len)
{
	const struct capture_result *r = &c->res[i];
	char e[sizeof(r->text) * 4];

	if (r->state == CAPTURE_VALUE)
		fmt_exact(buf, len, r->value);
	else if (r->state == CAPTURE_NONE)
		snprintf(buf, len, "no value: no line matched");
	else
		snprintf(buf, len, "no value: '%s' is not a number",
			 fmt_escape(e, sizeof(e), r->text));
}
