#include "stream.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"



static int grow(char **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 256;
	char *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(p = realloc(*buf, c)))
		return -1;
	*buf = p;
	*cap = c;
	return 0;
}

static void add(struct stream_msg *m, const char *s, size_t n)
{
	if (m->bad || grow(&m->buf, &m->cap, m->len + n + 2)) {
		m->bad = true;
		return;
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
}

static bool plain(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '%' && c != '=';
}

static void add_escaped(struct stream_msg *m, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[3] = { '%', hex[c >> 4], hex[c & 15] };

		if (plain(c))
			add(m, (const char *)&c, 1);
		else
			add(m, e, 3);
	}
}

void stream_msg_begin(struct stream_msg *m, const char *tag)
{
	m->len = 0;
	m->bad = false;
	add(m, tag, strlen(tag));
}

static void add_key(struct stream_msg *m, const char *prefix, const char *key, int idx)
{
	char k[160];
	int n = idx < 0 ? snprintf(k, sizeof(k), " %s%s=", prefix, key)
			: snprintf(k, sizeof(k), " %s%s.%d=", prefix, key, idx);

	add(m, k, (size_t)n < sizeof(k) ? (size_t)n : sizeof(k) - 1);
}

static void add_i64(struct stream_msg *m, int64_t v)
{
	char b[32];

	add(m, b, (size_t)snprintf(b, sizeof(b), "%" PRId64, v));
}

static void add_dbl(struct stream_msg *m, double v)
{
	char b[40];

	if (isnan(v))
		add(m, "nan", 3);
	else
		add(m, b, (size_t)snprintf(b, sizeof(b), "%.17g", v));
}

void stream_put_i64(struct stream_msg *m, const char *key, int64_t v)
{
	add_key(m, "", key, -1);
	add_i64(m, v);
}

void stream_put_dbl(struct stream_msg *m, const char *key, double v)
{
	add_key(m, "", key, -1);
	add_dbl(m, v);
}

void stream_put_mem(struct stream_msg *m, const char *key, const void *v, size_t n)
{
	add_key(m, "", key, -1);
	add_escaped(m, v, n);
}

void stream_put_str(struct stream_msg *m, const char *key, const char *v)
{
	stream_put_mem(m, key, v, strlen(v));
}

static size_t stride(const struct stream_field *f)
{
	switch (f->type) {
	case ST_I64: return sizeof(int64_t);
	case ST_U64: return sizeof(uint64_t);
	case ST_LL: return sizeof(long long);
	case ST_LONG: return sizeof(long);
	case ST_INT: return sizeof(int);
	case ST_DBL: return sizeof(double);
	case ST_BOOL: return sizeof(bool);
	case ST_CHAR: return sizeof(char);
	case ST_STR: return f->size;
	}
	return 0;
}

static void put_one(struct stream_msg *m, const struct stream_field *f, const char *p)
{
	switch (f->type) {
	case ST_I64: { int64_t v; memcpy(&v, p, sizeof(v)); add_i64(m, v); break; }
	case ST_U64: {
		uint64_t v;
		char b[32];

		memcpy(&v, p, sizeof(v));
		add(m, b, (size_t)snprintf(b, sizeof(b), "%" PRIu64, v));
		break;
	}
	case ST_LL: { long long v; memcpy(&v, p, sizeof(v)); add_i64(m, v); break; }
	case ST_LONG: { long v; memcpy(&v, p, sizeof(v)); add_i64(m, v); break; }
	case ST_INT: { int v; memcpy(&v, p, sizeof(v)); add_i64(m, v); break; }
	case ST_DBL: { double v; memcpy(&v, p, sizeof(v)); add_dbl(m, v); break; }
	case ST_BOOL: { bool v; memcpy(&v, p, sizeof(v)); add_i64(m, v); break; }
	case ST_CHAR: add_i64(m, (unsigned char)*p); break;
	case ST_STR: add_escaped(m, p, strnlen(p, f->size)); break;
	}
}

void stream_put_fields(struct stream_msg *m, const char *prefix, const struct stream_field *t,
		       int nt, const void *obj)
{
	const char *base = obj;

	for (int i = 0; i < nt; i++) {
		const struct stream_field *f = &t[i];

		if (f->n <= 1) {
			add_key(m, prefix, f->name, -1);
			put_one(m, f, base + f->off);
			continue;
		}
		for (int k = 0; k < f->n; k++) {
			add_key(m, prefix, f->name, k);
			put_one(m, f, base + f->off + (size_t)k * stride(f));
		}
	}
}

int stream_msg_end(struct stream_msg *m)
{
	add(m, "\n", 1);
	if (!m->bad && m->len > STREAM_LINE_MAX)
		errno = EMSGSIZE, m->bad = true;
	else if (m->bad)
		errno = ENOMEM;
	if (m->buf)
		m->buf[m->len] = '\0';
	return m->bad ? -1 : 0;
}

void stream_msg_cat(struct stream_msg *dst, const struct stream_msg *src)
{
	add(dst, src->buf, src->len);
	if (dst->buf)
		dst->buf[dst->len] = '\0';
}

void stream_msg_free(struct stream_msg *m)
{
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Unescapes s in place; its length, or -1 on a bad escape. */
static long unescape(char *s)
{
	char *o = s, *start = s;

	for (; *s; s++) {
		int hi, lo;

		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		if ((hi = hexval(s[1])) < 0 || (lo = hexval(s[2])) < 0)
			return -1;
		*o++ = (char)(hi << 4 | lo);
		s += 2;
	}
	*o = '\0';
	return o - start;
}

int stream_parse(char *line, struct stream_line *l)
{
	char *save = NULL, *tok;

	l->n = 0;
	l->tag = strtok_r(line, " ", &save);
	if (!l->tag) {
		errno = EINVAL;
		return -1;
	}
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(tok, '=');
		char *v;
		long n;

		if (!eq || eq == tok) {
			errno = EINVAL;
			return -1;
		}
		*eq = '\0';
		v = eq + 1;
		if (l->n == l->cap) {
			int c = l->cap ? 2 * l->cap : 64;
			struct stream_kv *kv = realloc(l->kv, sizeof(*kv) * (size_t)c);

			if (!kv) {
				errno = ENOMEM;
				return -1;
			}
			l->kv = kv;
			l->cap = c;
		}
		if ((n = unescape(v)) < 0) {
			errno = EINVAL;
			return -1;
		}
		l->kv[l->n++] = (struct stream_kv){ tok, v, (size_t)n };
	}
	return 0;
}

void stream_line_free(struct stream_line *l)
{
	free(l->kv);
	memset(l, 0, sizeof(*l));
}

const char *stream_get(const struct stream_line *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->kv[i].key, key))
			return l->kv[i].val;
	return NULL;
}

int64_t stream_get_i64(const struct stream_line *l, const char *key, int64_t def)
{
	const char *v = stream_get(l, key);
	char *end;
	long long x;

	if (!v || !*v)
		return def;
	errno = 0;
	x = strtoll(v, &end, 10);
	return *end || errno ? def : (int64_t)x;
}

double stream_get_dbl(const struct stream_line *l, const char *key)
{
	const char *v = stream_get(l, key);
	char *end;
	double x;

	if (!v || !*v)
		return NAN;
	x = strtod(v, &end);
	return *end ? NAN : x;
}

static void clear_one(const struct stream_field *f, char *p)
{
	switch (f->type) {
	case ST_I64: { int64_t v = NA; memcpy(p, &v, sizeof(v)); break; }
	case ST_U64: memset(p, 0, sizeof(uint64_t)); break;
	case ST_LL: { long long v = NA; memcpy(p, &v, sizeof(v)); break; }
	case ST_LONG: { long v = NA; memcpy(p, &v, sizeof(v)); break; }
	case ST_INT: { int v = NA; memcpy(p, &v, sizeof(v)); break; }
	case ST_DBL: { double v = NAN; memcpy(p, &v, sizeof(v)); break; }
	case ST_BOOL: { bool v = false; memcpy(p, &v, sizeof(v)); break; }
	case ST_CHAR: *p = 0; break;
	case ST_STR: *p = '\0'; break;
	}
}

/* A number that does not parse leaves the field as cleared. */
static void get_one(const struct stream_field *f, char *p, const struct stream_kv *kv)
{
	char *end;
	long long x = 0;
	unsigned long long u = 0;
	double d = NAN;

	errno = 0;
	if (f->type == ST_DBL)
		d = strtod(kv->val, &end);
	else if (f->type == ST_U64)
		u = strtoull(kv->val, &end, 10);
	else if (f->type != ST_STR)
		x = strtoll(kv->val, &end, 10);
	if (f->type != ST_STR && (!*kv->val || *end || errno))
		return;
	switch (f->type) {
	case ST_I64: { int64_t v = x; memcpy(p, &v, sizeof(v)); break; }
	case ST_U64: { uint64_t v = u; memcpy(p, &v, sizeof(v)); break; }
	case ST_LL: memcpy(p, &x, sizeof(x)); break;
	case ST_LONG: { long v = (long)x; memcpy(p, &v, sizeof(v)); break; }
	case ST_INT: { int v = (int)x; memcpy(p, &v, sizeof(v)); break; }
	case ST_DBL: memcpy(p, &d, sizeof(d)); break;
	case ST_BOOL: { bool v = x != 0; memcpy(p, &v, sizeof(v)); break; }
	case ST_CHAR: *p = (char)x; break;
	case ST_STR: {
		size_t n = kv->len < f->size - 1 ? kv->len : f->size - 1;

		memcpy(p, kv->val, n);
		p[n] = '\0';
		break;
	}
	}
}

/* The field key names, and which element of it: -1 for none. */
static int match(const struct stream_field *t, int nt, const char *key, int *idx)
{
	for (int i = 0; i < nt; i++) {
		size_t n = strlen(t[i].name);
		char *end;
		long k;

		if (strncmp(key, t[i].name, n))
			continue;
		if (t[i].n <= 1 && !key[n]) {
			*idx = 0;
			return i;
		}
		if (t[i].n <= 1 || key[n] != '.' || !key[n + 1])
			continue;
		k = strtol(key + n + 1, &end, 10);
		if (*end || k < 0 || k >= t[i].n)
			continue;
		*idx = (int)k;
		return i;
	}
	return -1;
}

void stream_get_fields(const struct stream_line *l, const char *prefix,
		       const struct stream_field *t, int nt, void *obj)
{
	char *base = obj;
	size_t plen = strlen(prefix);

	for (int i = 0; i < nt; i++)
		for (int k = 0; k < (t[i].n > 1 ? t[i].n : 1); k++)
			clear_one(&t[i], base + t[i].off + (size_t)k * stride(&t[i]));
	for (int j = 0; j < l->n; j++) {
		int idx, f;

		if (strncmp(l->kv[j].key, prefix, plen) ||
		    (f = match(t, nt, l->kv[j].key + plen, &idx)) < 0)
			continue;
		get_one(&t[f], base + t[f].off + (size_t)idx * stride(&t[f]), &l->kv[j]);
	}
}

int stream_hello(struct stream_msg *m, const char *version)
{
	stream_msg_begin(m, "hello");
	stream_put_i64(m, "proto", STREAM_PROTO);
	stream_put_str(m, "version", version);
	return stream_msg_end(m);
}

int stream_hello_check(const struct stream_line *l, const char *version, const char *other,
		       char *err, size_t errlen)
{
	const char *v = stream_get(l, "version");
	int64_t proto = stream_get_i64(l, "proto", -1);

	if (strcmp(l->tag, "hello")) {
		snprintf(err, errlen, "the %s did not say hello: it began with '%.40s'", other, l->tag);
		return -1;
	}
	if (proto == STREAM_PROTO)
		return 0;
	snprintf(err, errlen, "the %s is thrashtop %.40s speaking stream protocol %" PRId64
		 ", this is thrashtop %.40s speaking %d: use the same major version on both sides",
		 other, v ? v : "(unknown)", proto, version, STREAM_PROTO);
	return -1;
}

ssize_t stream_in_read(struct stream_in *in, int fd)
{
	ssize_t n;

	if (in->start > 0 && in->start == in->len)
		in->start = in->len = 0;
	if (grow(&in->buf, &in->cap, in->len + 65536 + 1)) {
		errno = ENOMEM;
		return -1;
	}
	n = read(fd, in->buf + in->len, 65536);
	if (n > 0)
		in->len += (size_t)n;
	else if (n == 0)
		in->eof = true;
	return n;
}

int stream_in_feed(struct stream_in *in, const void *data, size_t n)
{
	if (grow(&in->buf, &in->cap, in->len + n + 1))
		return -1;
	memcpy(in->buf + in->len, data, n);
	in->len += n;
	return 0;
}

char *stream_in_next(struct stream_in *in)
{
	char *line = in->buf + in->start, *nl;
	size_t have = in->len - in->start;

	errno = 0;
	if (!have)
		return NULL;
	nl = memchr(line, '\n', have);
	if (!nl || (size_t)(nl - line) + 1 > STREAM_LINE_MAX) {
		if (have >= STREAM_LINE_MAX)
			errno = EMSGSIZE;
		else if (in->start > 0 && in->start * 2 > in->cap) {
			memmove(in->buf, line, have);
			in->start = 0;
			in->len = have;
		}
		return NULL;
	}
	*nl = '\0';
	in->start += (size_t)(nl - line) + 1;
	return line;
}

void stream_in_free(struct stream_in *in)
{
	free(in->buf);
	memset(in, 0, sizeof(*in));
}

static int queue(struct stream_out *o, const char *data, size_t n)
{
	if (o->off > 0 && o->off * 2 > o->len) {
		memmove(o->buf, o->buf + o->off, o->len - o->off);
		o->len -= o->off;
		o->off = 0;
	}
	if (grow(&o->buf, &o->cap, o->len + n + 1))
		return -1;
	memcpy(o->buf + o->len, data, n);
	o->len += n;
	return 0;
}

int stream_out_put(struct stream_out *o, const char *data, size_t n, bool tick)
{
	if (tick && o->len - o->off >= STREAM_OUT_TICKS) {
		o->drops++;
		o->said = false;
		return 0;
	}
	if (tick && o->drops && !o->said) {
		char d[48];

		if (queue(o, d, (size_t)snprintf(d, sizeof(d), "drops n=%" PRId64 "\n", o->drops)))
			return -1;
		o->said = true;
	}
	return queue(o, data, n) ? -1 : 1;
}

int stream_out_flush(struct stream_out *o, int fd)
{
	while (o->off < o->len) {
		ssize_t n = write(fd, o->buf + o->off, o->len - o->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n < 0)
			return -1;
		o->off += (size_t)n;
	}
	o->off = o->len = 0;
	return 0;
}

bool stream_out_pending(const struct stream_out *o)
{
	return o->off < o->len;
}

void stream_out_free(struct stream_out *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}
