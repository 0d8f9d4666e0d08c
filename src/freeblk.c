/* free(1) blocks: parsed back with their arithmetic checked, and printed. */
#include "freeblk.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fmt.h"

static const char *next_token(const char *p, const char **end)
{
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	*end = p;
	while (**end && !isspace((unsigned char)**end))
		(*end)++;
	return p;
}

static bool tok_is(const char **p, const char *word)
{
	const char *b, *e;
	size_t n = strlen(word);

	b = next_token(*p, &e);
	if (!b || (size_t)(e - b) != n || strncmp(b, word, n))
		return false;
	*p = e;
	return true;
}

/* A KiB integer, or free -h's value with a unit ("8.7Mi", "23Gi", "0B",
 * procps 3.3's "1.9G"), converted to KiB rounded to nearest. */
static bool tok_kib(const char **p, int64_t *kib, bool *human)
{
	const char *b, *e, *s;
	int64_t whole, frac = 0, scale = 1;
	int shift = -1;

	b = next_token(*p, &e);
	if (!b)
		return false;
	s = b;
	if (!fmt_scan_num(&s, &whole))
		return false;
	if (s == e) {
		*kib = whole;
		*p = e;
		return true;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s) && scale < 1000000) {
			frac = frac * 10 + (*s++ - '0');
			scale *= 10;
		}
		if (scale == 1)
			return false;
	}
	switch (*s) {
	case 'B': shift = -10; break;
	case 'K': shift = 0; break;
	case 'M': shift = 10; break;
	case 'G': shift = 20; break;
	case 'T': shift = 30; break;
	case 'P': shift = 40; break;
	default: return false;
	}
	s++;
	if (*s == 'i' && shift >= 0)
		s++;
	if (s != e || whole > (INT64_C(1) << 20))
		return false;
	{
		/* (whole + frac / scale) * 2^shift KiB, in long double: exact
		 * enough for the 2 or 3 digits free prints */
		long double v = (long double)whole + (long double)frac / scale;

		v = ldexpl(v, shift);
		*kib = (int64_t)llroundl(v);
	}
	*human = true;
	*p = e;
	return true;
}

static bool tok_nums(const char **p, int n, int64_t *v, bool *human)
{
	for (int i = 0; i < n; i++)
		if (!tok_kib(p, &v[i], human))
			return false;
	return true;
}

int freeblk_parse_at(const char *text, const char *p, struct free_parsed *f)
{
	int64_t v[7], tot[3] = { 0, 0, 0 };
	bool human = false;

	memset(f, 0, sizeof(*f));
	f->buffers = f->cached = f->buff_cache = f->available = -1;
	f->bc_used = f->bc_free = -1;
	if (!tok_is(&p, "total") || !tok_is(&p, "used") || !tok_is(&p, "free") ||
	    !tok_is(&p, "shared"))
		return -1;
	if (tok_is(&p, "buff/cache")) {
		if (!tok_is(&p, "available"))
			return -1;
		f->layout = FREE_NG;
	} else if (tok_is(&p, "buffers")) {
		if (tok_is(&p, "cached"))
			f->layout = FREE_OLD;
		else if (tok_is(&p, "cache") && tok_is(&p, "available"))
			f->layout = FREE_NG_WIDE;
		else
			return -1;
	} else {
		return -1;
	}
	if (!tok_is(&p, "Mem:") ||
	    !tok_nums(&p, f->layout == FREE_NG_WIDE ? 7 : 6, v, &human))
		return -1;
	f->total = v[0];
	f->used = v[1];
	f->free = v[2];
	f->shared = v[3];
	switch (f->layout) {
	case FREE_OLD:
		f->buffers = v[4];
		f->cached = v[5];
		f->buff_cache = v[4] + v[5];
		if (tok_is(&p, "-/+")) {
			if (!tok_is(&p, "buffers/cache:") ||
			    !tok_nums(&p, 2, v, &human))
				return -1;
			f->bc_used = v[0];
			f->bc_free = v[1];
		}
		break;
	case FREE_NG:
		f->buff_cache = v[4];
		f->available = v[5];
		break;
	case FREE_NG_WIDE:
		f->buffers = v[4];
		f->cached = v[5];
		f->buff_cache = v[4] + v[5];
		f->available = v[6];
		break;
	}
	if (!tok_is(&p, "Swap:") || !tok_nums(&p, 3, v, &human))
		return -1;
	f->swap_total = v[0];
	f->swap_used = v[1];
	f->swap_free = v[2];
	{
		const char *q = p;

		if (tok_is(&q, "Total:")) {
			if (!tok_nums(&q, 3, tot, &human))
				return -1;
			f->has_total_line = true;
			p = q;
		}
	}
	f->human = human;
	if (!human) {
		if (f->swap_total != f->swap_used + f->swap_free)
			return -1;
		if (f->layout == FREE_OLD &&
		    (f->used != f->total - f->free ||
		     (f->bc_used >= 0 &&
		      (f->bc_used != f->used - f->buff_cache ||
		       f->bc_free != f->free + f->buff_cache))))
			return -1;
		/* procps-ng 4 counts used as total - available, 3.3.10 to
		 * 3.3.17 as total - free - buff/cache */
		if (f->layout != FREE_OLD &&
		    f->used != f->total - f->available &&
		    f->used != f->total - f->free - f->buff_cache)
			return -1;
		if (f->has_total_line &&
		    (tot[0] != f->total + f->swap_total ||
		     tot[1] != f->used + f->swap_used ||
		     tot[2] != f->free + f->swap_free))
			return -1;
	}
	return (int)(p - text);
}

int freeblk_parse(const char *text, struct free_parsed *out)
{
	struct free_parsed f;

	if (text) {
		for (const char *p = strstr(text, "total"); p;
		     p = strstr(p + 1, "total")) {
			int n;

			if (p != text && !isspace((unsigned char)p[-1]))
				continue;
			n = freeblk_parse_at(text, p, &f);
			if (n > 0) {
				*out = f;
				return n;
			}
		}
	}
	errno = EINVAL;
	return -1;
}

bool freeblk_row_at(const char *w)
{
	return tok_is(&w, "Mem:") || tok_is(&w, "-/+") || tok_is(&w, "Swap:") || tok_is(&w, "Total:");
}

size_t freeblk_print(char *buf, size_t len, const struct free_parsed *f)
{
	struct fmt_buf o = { buf, len, 0 };

	if (f->layout == FREE_OLD) {
		/* procps 2.0: "%-7s" labels, " %10Lu" columns */
		fmt_buf_put(&o, "%-7s %10s %10s %10s %10s %10s %10s\n", "", "total",
		    "used", "free", "shared", "buffers", "cached");
		fmt_buf_put(&o, "%-7s %10lld %10lld %10lld %10lld %10lld %10lld\n",
		    "Mem:", (long long)f->total, (long long)f->used,
		    (long long)f->free, (long long)f->shared,
		    (long long)f->buffers, (long long)f->cached);
		if (f->bc_used >= 0)
			fmt_buf_put(&o, "-/+ buffers/cache: %10lld %10lld\n",
			    (long long)f->bc_used, (long long)f->bc_free);
		fmt_buf_put(&o, "%-7s %10lld %10lld %10lld", "Swap:",
		    (long long)f->swap_total, (long long)f->swap_used,
		    (long long)f->swap_free);
		if (f->has_total_line)
			fmt_buf_put(&o, "\n%-7s %10lld %10lld %10lld", "Total:",
			    (long long)(f->total + f->swap_total),
			    (long long)(f->used + f->swap_used),
			    (long long)(f->free + f->swap_free));
		return fmt_buf_done(&o);
	}
	/* procps-ng: 8-wide labels, " %11" columns */
	fmt_buf_put(&o, "%-8s %11s %11s %11s %11s", "", "total", "used", "free",
	    "shared");
	if (f->layout == FREE_NG)
		fmt_buf_put(&o, " %11s", "buff/cache");
	else
		fmt_buf_put(&o, " %11s %11s", "buffers", "cache");
	fmt_buf_put(&o, " %11s\n", "available");
	fmt_buf_put(&o, "%-8s %11lld %11lld %11lld %11lld", "Mem:", (long long)f->total,
	    (long long)f->used, (long long)f->free, (long long)f->shared);
	if (f->layout == FREE_NG)
		fmt_buf_put(&o, " %11lld", (long long)f->buff_cache);
	else
		fmt_buf_put(&o, " %11lld %11lld", (long long)f->buffers,
		    (long long)f->cached);
	fmt_buf_put(&o, " %11lld\n", (long long)f->available);
	fmt_buf_put(&o, "%-8s %11lld %11lld %11lld", "Swap:", (long long)f->swap_total,
	    (long long)f->swap_used, (long long)f->swap_free);
	if (f->has_total_line)
		fmt_buf_put(&o, "\n%-8s %11lld %11lld %11lld", "Total:",
		    (long long)(f->total + f->swap_total),
		    (long long)(f->used + f->swap_used),
		    (long long)(f->free + f->swap_free));
	return fmt_buf_done(&o);
}
