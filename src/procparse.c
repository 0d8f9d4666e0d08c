#include "procparse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A cursor over [p, end): buffers from pread are not NUL-terminated. */
struct cur {
	const char *p, *end;
};

static int fail(int e)
{
	errno = e;
	return -1;
}

static void skip_blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static void skip_space(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n'))
		c->p++;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A field must end at whitespace or the end of the buffer. */
static bool at_field_end(const struct cur *c)
{
	return c->p == c->end || *c->p == ' ' || *c->p == '\t' || *c->p == '\n';
}

static int get_u64(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	const char *start;

	skip_blanks(c);
	start = c->p;
	while (c->p < c->end && is_digit(*c->p)) {
		unsigned d = (unsigned)(*c->p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return fail(EINVAL);
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == start || !at_field_end(c))
		return fail(EINVAL);
	*v = x;
	return 0;
}

static int get_i64(struct cur *c, int64_t *v)
{
	uint64_t u;
	bool neg = false;

	skip_blanks(c);
	if (c->p < c->end && *c->p == '-') {
		neg = true;
		c->p++;
		if (c->p == c->end || !is_digit(*c->p))
			return fail(EINVAL);
	}
	if (get_u64(c, &u) < 0)
		return -1;
	if (u > (uint64_t)INT64_MAX)
		return fail(EINVAL);
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* Skips one whitespace-delimited field on the current line. */
static int skip_field(struct cur *c)
{
	const char *start;

	skip_blanks(c);
	start = c->p;
	while (c->p < c->end && !at_field_end(c))
		c->p++;
	return c->p == start ? fail(EINVAL) : 0;
}

int procparse_stat(const char *buf, size_t len, struct pstat *out)
{
	struct cur c = { buf, buf + len };
	const char *open, *close = NULL;
	int64_t v;
	uint64_t u;

	memset(out, 0, sizeof(*out));
	if (get_i64(&c, &v) < 0 || v <= 0)
		return fail(EINVAL);
	out->pid = (pid_t)v;
	skip_blanks(&c);
	if (c.p == c.end || *c.p != '(')
		return fail(EINVAL);
	open = c.p;
	/* comm may itself hold ')' and spaces: it ends at the last ')'. */
	for (const char *q = c.end; q > open + 1; q--)
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	if (!close)
		return fail(EINVAL);
	if ((size_t)(close - open - 1) >= sizeof(out->comm))
		return fail(ENAMETOOLONG);
	memcpy(out->comm, open + 1, (size_t)(close - open - 1));
	c.p = close + 1;

	skip_blanks(&c);				/* 3 state */
	if (c.p == c.end || *c.p == '\n')
		return fail(EINVAL);
	out->state = *c.p++;
	if (!at_field_end(&c))
		return fail(EINVAL);
	if (get_i64(&c, &v) < 0)			/* 4 ppid */
		return -1;
	out->ppid = (pid_t)v;
	if (get_i64(&c, &v) < 0)			/* 5 pgrp */
		return -1;
	out->pgrp = (pid_t)v;
	for (int f = 6; f <= 8; f++)			/* session tty_nr tpgid */
		if (skip_field(&c) < 0)
			return -1;
	if (get_u64(&c, &u) < 0)			/* 9 flags */
		return -1;
	out->flags = u;
	if (get_i64(&c, &out->minflt) < 0 ||		/* 10 */
	    skip_field(&c) < 0 ||			/* 11 cminflt */
	    get_i64(&c, &out->majflt) < 0 ||		/* 12 */
	    skip_field(&c) < 0 ||			/* 13 cmajflt */
	    get_i64(&c, &out->utime) < 0 ||		/* 14 */
	    get_i64(&c, &out->stime) < 0)		/* 15 */
		return -1;
	for (int f = 16; f <= 19; f++)			/* cutime cstime prio nice */
		if (skip_field(&c) < 0)
			return -1;
	if (get_i64(&c, &out->num_threads) < 0 ||	/* 20 */
	    skip_field(&c) < 0 ||			/* 21 itrealvalue */
	    get_i64(&c, &out->starttime) < 0 ||		/* 22 */
	    skip_field(&c) < 0 ||			/* 23 vsize */
	    get_i64(&c, &out->rss_pages) < 0 ||		/* 24 */
	    skip_field(&c) < 0)		/* 25 rsslim: proves rss was not cut short */
		return -1;
	return 0;
}

bool pstat_is_kthread(const struct pstat *ps)
{
	return (ps->flags & PROCPARSE_PF_KTHREAD) != 0;
}

int procparse_schedstat(const char *buf, size_t len, int64_t *ns)
{
	struct cur c = { buf, buf + len };

	return get_i64(&c, ns) < 0 || *ns < 0 ? fail(EINVAL) : 0;
}

/* "avg10=1.23": a non-negative decimal. */
static int get_decimal(struct cur *c, double *v)
{
	double x = 0, scale = 1;
	const char *start = c->p;

	while (c->p < c->end && is_digit(*c->p))
		x = x * 10 + (*c->p++ - '0');
	if (c->p == start)
		return fail(EINVAL);
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		while (c->p < c->end && is_digit(*c->p)) {
			scale /= 10;
			x += (*c->p++ - '0') * scale;
		}
	}
	if (!at_field_end(c))
		return fail(EINVAL);
	*v = x;
	return 0;
}

static int expect(struct cur *c, const char *word)
{
	size_t n = strlen(word);

	skip_blanks(c);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return fail(EINVAL);
	c->p += n;
	return 0;
}

static int psi_line(struct cur *c, struct psi_line *l)
{
	if (expect(c, "avg10=") < 0 || get_decimal(c, &l->avg10) < 0 ||
	    expect(c, "avg60=") < 0 || get_decimal(c, &l->avg60) < 0 ||
	    expect(c, "avg300=") < 0 || get_decimal(c, &l->avg300) < 0 ||
	    expect(c, "total=") < 0 || get_i64(c, &l->total_us) < 0)
		return -1;
	return 0;
}

int procparse_psi(const char *buf, size_t len, struct psi *out)
{
	struct cur c = { buf, buf + len };

	memset(out, 0, sizeof(*out));
	skip_space(&c);
	while (c.p < c.end) {
		if (expect(&c, "some") == 0) {
			if (out->has_some || psi_line(&c, &out->some) < 0)
				return fail(EINVAL);
			out->has_some = true;
		} else if (expect(&c, "full") == 0) {
			if (out->has_full || psi_line(&c, &out->full) < 0)
				return fail(EINVAL);
			out->has_full = true;
		} else {
			return fail(EINVAL);
		}
		skip_blanks(&c);
		if (c.p < c.end && *c.p != '\n')
			return fail(EINVAL);
		skip_space(&c);
	}
	return out->has_some ? 0 : fail(EINVAL);
}

int procparse_kib(const char *buf, size_t len, const char *key, int64_t *kib)
{
	size_t klen = strlen(key);
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > klen && !memcmp(p, key, klen) && p[klen] == ':') {
			struct cur c = { p + klen + 1, eol };
			if (get_i64(&c, kib) < 0 || expect(&c, "kB") < 0)
				return fail(EINVAL);
			skip_blanks(&c);
			return c.p == c.end ? 0 : fail(EINVAL);
		}
		p = eol + 1;
	}
	return fail(ENOENT);
}

int procparse_vmstat(const char *buf, size_t len, const char *const *keys, int n,
		     int64_t *out)
{
	const char *p = buf, *end = buf + len;
	size_t klen[64];
	int found = 0;

	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++) {
		out[i] = -1;
		klen[i] = strlen(keys[i]);
	}
	while (p < end && found < n) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *sp;

		if (!eol)
			eol = end;
		if ((sp = memchr(p, ' ', (size_t)(eol - p)))) {
			size_t k = (size_t)(sp - p);

			for (int i = 0; i < n; i++) {
				struct cur c = { sp + 1, eol };
				int64_t v;

				if (klen[i] != k || keys[i][0] != *p || memcmp(keys[i], p, k))
					continue;
				if (out[i] < 0 && get_i64(&c, &v) == 0 && v >= 0 && c.p == c.end) {
					out[i] = v;
					found++;
				}
				break;
			}
		}
		p = eol + 1;
	}
	return found;
}

static bool is_odigit(char ch)
{
	return ch >= '0' && ch <= '7';
}

/* Copies a field decoding the \ooo escapes seq_file uses for blanks. */
static int get_path(struct cur *c, char *dst, size_t size)
{
	size_t n = 0;

	skip_blanks(c);
	if (at_field_end(c))
		return fail(EINVAL);
	while (!at_field_end(c)) {
		char ch = *c->p++;
		if (ch == '\\' && c->end - c->p >= 3 && is_odigit(c->p[0]) &&
		    is_odigit(c->p[1]) && is_odigit(c->p[2])) {
			ch = (char)((c->p[0] - '0') * 64 + (c->p[1] - '0') * 8 + (c->p[2] - '0'));
			c->p += 3;
		}
		if (n + 1 >= size)
			return fail(ENAMETOOLONG);
		dst[n++] = ch;
	}
	dst[n] = '\0';
	return 0;
}

int procparse_swaps(const char *buf, size_t len, struct swap_dev *out, int max)
{
	const char *end = buf + len;
	const char *p = memchr(buf, '\n', len);
	int n = 0;

	if (!p || len < 8 || memcmp(buf, "Filename", 8))
		return fail(EINVAL);
	p++;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct cur c = { p, eol ? eol : end };
		struct swap_dev d;
		int64_t prio;

		if (!eol)			/* a last line without '\n' was cut */
			return fail(EINVAL);
		if (get_path(&c, d.path, sizeof(d.path)) < 0)
			return -1;
		if (get_path(&c, d.type, sizeof(d.type)) < 0 ||
		    get_i64(&c, &d.size_kib) < 0 || get_i64(&c, &d.used_kib) < 0 ||
		    get_i64(&c, &prio) < 0)
			return fail(EINVAL);
		skip_blanks(&c);
		if (c.p != c.end)
			return fail(EINVAL);
		d.prio = (int)prio;
		if (n < max)
			out[n] = d;
		n++;
		p = eol + 1;
	}
	return n;
}

int procparse_children(const char *buf, size_t len, pid_t *out, int max)
{
	struct cur c = { buf, buf + len };
	int n = 0;

	skip_space(&c);
	while (c.p < c.end) {
		int64_t v;
		if (get_i64(&c, &v) < 0 || v <= 0 || v > INT32_MAX)
			return fail(EINVAL);
		if (n < max)
			out[n] = (pid_t)v;
		n++;
		skip_space(&c);
	}
	return n;
}
