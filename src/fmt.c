#include "fmt.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>


static size_t na(char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "n/a");
}

size_t fmt_kib(char *buf, size_t len, int64_t kib)
{
	static const char unit[] = "KMGTPE";
	double x = (double)kib;
	int u = 0;

	if (kib < 0)
		return na(buf, len);
	if (kib < 1000)
		return (size_t)snprintf(buf, len, "%lldK", (long long)kib);
	for (;;) {
		x /= 1024.0;
		u++;
		/* move up a unit when the shown value would reach 1000 */
		if (x < 999.5 || u == 5)
			break;
	}
	if (x < 9.95)
		return (size_t)snprintf(buf, len, "%.1f%c", x, unit[u]);
	return (size_t)snprintf(buf, len, "%.0f%c", x, unit[u]);
}

size_t fmt_kib_w(char *buf, size_t len, int64_t kib, int width)
{
	char tmp[32];

	fmt_kib(tmp, sizeof(tmp), kib);
	return (size_t)snprintf(buf, len, "%*s", width, tmp);
}

/* Whole microseconds, or -1 for n/a. */
static long long to_us(double seconds)
{
	if (isnan(seconds) || seconds < 0 || seconds > 9e12)
		return -1;
	return llround(seconds * 1e6);
}

size_t fmt_duration(char *buf, size_t len, double seconds)
{
	long long us = to_us(seconds), s;

	if (us < 0)
		return na(buf, len);
	s = us / 1000000;
	if (s >= 3600)
		return (size_t)snprintf(buf, len, "%lld:%02lld:%02lld", s / 3600,
					s % 3600 / 60, s % 60);
	return (size_t)snprintf(buf, len, "%lld:%02lld.%02lld", s / 60, s % 60,
				us % 1000000 / 10000);
}

size_t fmt_hms(char *buf, size_t len, double seconds)
{
	long long us = to_us(seconds), cs;

	if (us < 0)
		return na(buf, len);
	cs = us / 10000;
	return (size_t)snprintf(buf, len, "%lld:%02lld:%02lld.%02lld",
				cs / 360000, cs / 6000 % 60, cs / 100 % 60,
				cs % 100);
}

size_t fmt_seconds_long(char *buf, size_t len, double seconds)
{
	long long us = to_us(seconds), cs;
	char hms[48];

	if (us < 0)
		return na(buf, len);
	cs = us / 10000;
	fmt_hms(hms, sizeof(hms), seconds);
	return (size_t)snprintf(buf, len, "%lld.%02lld seconds (%s)", cs / 100,
				cs % 100, hms);
}

size_t fmt_rate(char *buf, size_t len, double per_s)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	double x = fabs(per_s);
	const char *sign = per_s < 0 ? "-" : "";
	int u = 0;

	if (isnan(per_s) || isinf(per_s))
		return na(buf, len);
	while (x >= 999.5 && u < 4) {
		x /= 1000.0;
		u++;
	}
	if (x < 0.05)
		sign = "";
	if (x < 99.95)
		return (size_t)snprintf(buf, len, "%s%.1f%s/s", sign, x, unit[u]);
	return (size_t)snprintf(buf, len, "%s%.0f%s/s", sign, x, unit[u]);
}

void fmt_json_str(FILE *f, const char *s)
{
	unsigned cp;

	fputc('"', f);
	while (s && *s) {
		int n = fmt_utf8_len(s, &cp);
		if (!n) {
			fputs("\\ufffd", f);
			s++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", cp);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
			fprintf(f, "\\u%04x", cp);
		else
			fwrite(s, 1, (size_t)n, f);
		s += n;
	}
	fputc('"', f);
}

void fmt_csv_cell_n(FILE *f, const char *s, size_t len)
{
	const char *end = s + len, *q;

	if (!memchr(s, ',', len) && !memchr(s, '"', len) && !memchr(s, '\n', len) &&
	    !memchr(s, '\r', len)) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (; (q = memchr(s, '"', (size_t)(end - s))); s = q + 1) {
		fwrite(s, 1, (size_t)(q - s + 1), f);
		fputc('"', f);
	}
	fwrite(s, 1, (size_t)(end - s), f);
	fputc('"', f);
}

void fmt_csv_cell(FILE *f, const char *s)
{
	fmt_csv_cell_n(f, s, strlen(s));
}

size_t fmt_exact(char *buf, size_t len, double v)
{
	for (int dec = 0; dec <= 20; dec++) {
		snprintf(buf, len, "%.*f", dec, v);
		if (strtod(buf, NULL) == v && strlen(buf) <= 24)
			return strlen(buf);
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return strlen(buf);
}

size_t fmt_pct(char *buf, size_t len, double pct)
{
	if (isnan(pct) || isinf(pct))
		return na(buf, len);
	if (fabs(pct) < 0.05)
		pct = 0.0;	/* no "-0.0%" */
	return (size_t)snprintf(buf, len, "%.1f%%", pct);
}

int fmt_parse_size(const char *s, int64_t *bytes)
{
	unsigned __int128 whole = 0, frac = 0, pow10 = 1, mult = 1, v;
	bool any = false, dot = false;

	if (!s)
		goto inval;
	for (; isdigit((unsigned char)*s); s++) {
		whole = whole * 10 + (unsigned)(*s - '0');
		any = true;
		if (whole > (unsigned __int128)INT64_MAX)
			goto range;
	}
	if (*s == '.') {
		dot = true;
		for (s++; isdigit((unsigned char)*s); s++) {
			if (pow10 > (unsigned __int128)1000000000000000000ULL)
				goto inval;
			frac = frac * 10 + (unsigned)(*s - '0');
			pow10 *= 10;
			any = true;
		}
	}
	if (!any)
		goto inval;
	switch (*s) {
	case 'k': case 'K': mult = 1ULL << 10; break;
	case 'm': case 'M': mult = 1ULL << 20; break;
	case 'g': case 'G': mult = 1ULL << 30; break;
	case 't': case 'T': mult = 1ULL << 40; break;
	case '\0': break;
	default: goto inval;
	}
	if (*s) {
		s++;
		if (s[0] == 'i' && s[1] == 'B')
			s += 2;
	}
	if (*s || (dot && mult == 1 && frac))
		goto inval;
	v = whole * mult + (frac * mult * 2 + pow10) / (pow10 * 2);
	if (v > (unsigned __int128)INT64_MAX)
		goto range;
	*bytes = (int64_t)v;
	return 0;
inval:
	errno = EINVAL;
	return -1;
range:
	errno = ERANGE;
	return -1;
}

int fmt_parse_whole(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)s[*s == '-']))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int fmt_parse_seconds(const char *s, double *seconds)
{
	const char *p = s;
	int ndig = 0, nint = 0;
	char *end;
	double v;

	if (!s)
		goto inval;
	for (; isdigit((unsigned char)*p); p++)
		nint++;
	ndig = nint;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			ndig++;
	if (*p || ndig == 0)
		goto inval;
	if (nint > 12) {
		errno = ERANGE;
		return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno)
		goto inval;
	if (v > 1e9) {
		errno = ERANGE;
		return -1;
	}
	*seconds = v;
	return 0;
inval:
	errno = EINVAL;
	return -1;
}

int fmt_utf8_len(const char *s, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0], min;
	int n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2, c &= 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3, c &= 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

/* Unicode's Bidi_Control: marks, embeddings, overrides and isolates that
 * reorder the text around them on a terminal. */
static bool bidi_control(unsigned cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* C0, DEL, C1 (NEL among them), the line and paragraph separators, and
 * the bidirectional controls: none belongs in a one-line label. */
static bool control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
	       bidi_control(cp);
}

static int cp_cols(unsigned cp);

int fmt_label_check(const char *s, unsigned *bad)
{
	unsigned cp;
	int n = 0, cols = 0;

	*bad = 0;
	for (; *s; n++) {
		int k = fmt_utf8_len(s, &cp);

		if (!k || control(cp)) {
			*bad = k ? cp : 0;
			return k && bidi_control(cp) ? -2 : -1;
		}
		cols += cp_cols(cp);
		s += k;
	}
	if (n < 1 || n > FMT_LABEL_MAX)
		return -3;
	return cols ? 0 : -4;
}

int fmt_label_arg(const char *opt, const char *s, char *err, size_t errlen)
{
	unsigned bad;

	switch (fmt_label_check(s, &bad)) {
	case 0:
		return 0;
	case -2:
		return fmt_err(err, errlen, "%s: U+%04X is a bidirectional control character, which"
			       " reorders the text around it on a terminal", opt, bad);
	case -3:
		return fmt_err(err, errlen, "%s: want a label of 1 to %d characters", opt,
			       FMT_LABEL_MAX);
	case -4:
		return fmt_err(err, errlen, "%s: want a label that shows: it has only combining or"
			       " zero-width characters", opt);
	default:
		return fmt_err(err, errlen, "%s: want a one-line label of UTF-8 without control"
			       " characters", opt);
	}
}

/* Columns a UTF-8 terminal gives cp: wcwidth under C.UTF-8 whatever the
 * locale, 2 for wide (CJK, emoji), 0 for combining and zero-width. */
static int cp_cols(unsigned cp)
{
	static locale_t utf8;
	locale_t old;
	int w;

	/* ASCII, the plots' glyphs and "…" without wcwidth's cost */
	if ((cp >= 0x20 && cp < 0x7F) || (cp >= 0x2500 && cp <= 0x259F) ||
	    (cp >= 0x2800 && cp <= 0x28FF) || cp == 0x2026)
		return 1;
	if (!utf8 && !(utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0)))
		return 1;
	old = uselocale(utf8);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : w;
}

/* The character at s: its bytes (a byte not starting one is one byte of
 * one column) and *cols its columns. */
static int char_at(const char *s, int *cols)
{
	unsigned cp;
	int k;

	if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7F) {	/* most text */
		*cols = 1;
		return 1;
	}
	k = fmt_utf8_len(s, &cp);

	*cols = k ? cp_cols(cp) : 1;
	return k ? k : 1;
}

int fmt_text_cols_n(const char *s, size_t nb)
{
	size_t i = 0;
	int n = 0, c;

	while (i < nb && s[i]) {
		i += (size_t)char_at(s + i, &c);
		n += c;
	}
	return n;
}

int fmt_text_cols(const char *s)
{
	return fmt_text_cols_n(s, SIZE_MAX);
}

int fmt_cut_bytes(const char *s, int cols)
{
	int i = 0, n = 0, k, c;

	/* whole characters, and the zero-width ones that go with the last */
	while (s[i]) {
		k = char_at(s + i, &c);
		if (n + c > cols)
			break;
		n += c;
		i += k;
	}
	return i;
}

int fmt_skip_cols(const char *s, int cols, int *blank)
{
	int i = fmt_cut_bytes(s, cols), n = fmt_text_cols_n(s, (size_t)i);

	*blank = 0;
	if (n < cols && s[i]) {
		int k = fmt_cut_bytes(s + i, cols - n + 1);

		*blank = n + fmt_text_cols_n(s + i, (size_t)k) - cols;
		i += k;
	}
	return i;
}

size_t fmt_cell(char *buf, size_t len, const char *s, int w)
{
	size_t o = 0;
	int n = 0;

	if (!len)
		return 0;
	while (*s) {
		int c, k = char_at(s, &c);

		if (n + c > w || o + (size_t)k >= len)
			break;
		memcpy(buf + o, s, (size_t)k);
		o += (size_t)k;
		s += k;
		n += c;
	}
	for (; n < w && o + 1 < len; n++)
		buf[o++] = ' ';
	buf[o] = 0;
	return o;
}

size_t fmt_copy(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s), i = 0;
	unsigned cp;

	if (!len)
		return 0;
	if (n < len) {
		memcpy(buf, s, n + 1);
		return n;
	}
	if (len < 4) {
		buf[0] = '\0';
		return 0;
	}
	while (s[i]) {
		size_t k = (size_t)fmt_utf8_len(s + i, &cp);

		k = k ? k : 1;
		if (i + k > len - 4)
			break;
		i += k;
	}
	memcpy(buf, s, i);
	memcpy(buf + i, "...", 4);
	return i + 3;
}

bool fmt_text_clean(const char *s)
{
	unsigned cp;

	while (*s) {
		int n = fmt_utf8_len(s, &cp);
		if (!n || control(cp))
			return false;
		s += n;
	}
	return true;
}

void fmt_blank_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

char *fmt_escape(char *buf, size_t len, const char *s)
{
	size_t o = 0;
	unsigned cp;

	if (!len)
		return buf;
	while (*s) {
		int n = fmt_utf8_len(s, &cp);
		if (n && !control(cp)) {
			if (o + (size_t)n >= len)
				break;
			memcpy(buf + o, s, (size_t)n);
			o += (size_t)n;
			s += n;
			continue;
		}
		if (!n)
			n = 1;
		if (o + 4 * (size_t)n >= len)
			break;
		for (int i = 0; i < n; i++)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", (unsigned char)s[i]);
		s += n;
	}
	buf[o] = 0;
	return buf;
}

/* An error is one line a terminal shows as it is: a value quoted in it
 * with a newline or an escape sequence is escaped (fmt_escape). */
static void escape_in_place(char *s, size_t len)
{
	const char *p = s;
	unsigned cp;
	char *copy;
	int k;

	while (*p && (k = fmt_utf8_len(p, &cp)) && !control(cp))
		p += k;
	if (!*p || !(copy = strdup(s)))
		return;
	fmt_escape(s, len, copy);
	free(copy);
}

int fmt_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		escape_in_place(err, errlen);
	}
	return -1;
}

size_t fmt_fixed(char *buf, double v, int dec)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	double r = dec >= 0 && dec <= 3 ? v * scale[dec] : NAN, x = nearbyint(r);

	/* Away from a tie, the product's rounding cannot move the nearest
	 * integer; elsewhere, and for a negative zero, printf decides. */
	if (!(fabs(x) < 1e15) || fabs(r - x) > 0.25 || (x == 0 && signbit(v)))
		return (size_t)snprintf(buf, FMT_FIXED_LEN, "%.*f", dec, v);
	char dig[24];
	uint64_t u = (uint64_t)fabs(x);
	int nd = 0;
	size_t o = 0;
	do {
		dig[nd++] = (char)('0' + u % 10);
		u /= 10;
	} while (u || nd <= dec);
	if (x < 0)
		buf[o++] = '-';
	while (nd > dec)
		buf[o++] = dig[--nd];
	if (dec)
		buf[o++] = '.';
	while (nd)
		buf[o++] = dig[--nd];
	buf[o] = 0;
	return o;
}

size_t fmt_g9(char *buf, float f)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	double v = f, a = fabs(v), x, frac;
	char dig[10], *o = buf;
	int d, k, s;
	long n;

	if (!isfinite(v) || (a != 0 && a < 1e-13) || a >= 1e30)
		return (size_t)snprintf(buf, FMT_G9_LEN, "%.9g", v);
	if (a < 1e9 && a == (double)(long)a) {	/* whole numbers print as such */
		n = (long)a;
		if (signbit(v))
			*o++ = '-';
		k = 0;
		do
			dig[k++] = (char)('0' + n % 10);
		while ((n /= 10));
		while (k)
			*o++ = dig[--k];
		*o = '\0';
		return (size_t)(o - buf);
	}
	/* log10(2) times the binary exponent: off by at most one, fixed below */
	d = (int)floor(ilogb(a) * 0.30102999566398120);
	for (int tries = 0;; tries++) {
		k = 8 - d;
		/* 10^k is exact for |k| <= 22: one rounding, relative error
		 * below 2^-52, so x is within 2e-7 of the exact scaled value */
		x = k >= 0 ? a * p10[k] : a / p10[-k];
		if (x >= 1e9 && tries < 2)
			d++;
		else if (x < 1e8 && tries < 2)
			d--;
		else
			break;
	}
	n = (long)x;
	frac = x - (double)n;
	/* A float times 10^k, k <= 8, fits a double's 53 bits: x is exact and
	 * a tie is a tie, rounded to even as printf does. Otherwise too near a
	 * tie to round by hand (or log10 off twice): printf decides. */
	if (k >= 0 && k <= 8 && frac == 0.5)
		frac = n & 1 ? 1 : 0;
	else if (fabs(frac - 0.5) < 1e-6 || n < 100000000L || n > 999999999L)
		return (size_t)snprintf(buf, FMT_G9_LEN, "%.9g", v);
	if (frac > 0.5 && ++n == 1000000000L) {
		n = 100000000L;
		d++;
	}
	for (int i = 8; i >= 0; i--, n /= 10)
		dig[i] = (char)('0' + n % 10);
	for (s = 9; s > 1 && dig[s - 1] == '0'; s--)
		;
	if (v < 0)
		*o++ = '-';
	if (d < -4 || d >= 9) {
		*o++ = dig[0];
		if (s > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)s - 1);
			o += s - 1;
		}
		o += sprintf(o, "e%c%02d", d < 0 ? '-' : '+', d < 0 ? -d : d);
	} else if (d >= 0) {
		memcpy(o, dig, (size_t)d + 1);
		o += d + 1;
		if (s > d + 1) {
			*o++ = '.';
			memcpy(o, dig + d + 1, (size_t)(s - d - 1));
			o += s - d - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -d - 1; i++)
			*o++ = '0';
		memcpy(o, dig, (size_t)s);
		o += s;
	}
	*o = '\0';
	return (size_t)(o - buf);
}

/* A UTF-8 sequence may arrive cut between two writes: its start waits in
 * held until the rest comes. */
struct escaping {
	FILE *out;
	char held[4];
	size_t nheld;
};

/* Whether all 8 bytes at s are printable ASCII (0x20..0x7E). */
static bool plain8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	/* a byte below 0x20, or 0x7F and above, sets its high bit in one of these */
	uint64_t low = w - ones * 0x20, del = w + ones * 0x01;
	return !((low | w | del) & highs);
}

static void escape_bytes(struct escaping *e, const char *s, size_t n, bool final)
{
	unsigned cp;
	size_t i = 0;

	while (i < n) {
		/* printable ASCII, newlines and tabs go out a stretch at a time */
		size_t end = i;
		while (end + 8 <= n && plain8(s + end))
			end += 8;
		while (end < n && (((unsigned char)s[end] >= 0x20 && (unsigned char)s[end] < 0x7F) ||
				   s[end] == '\n' || s[end] == '\t'))
			end++;
		if (end > i) {
			fwrite(s + i, 1, end - i, e->out);
			i = end;
			continue;
		}
		unsigned char c = (unsigned char)s[i];
		char seq[5] = { 0 };
		size_t k = n - i < 4 ? n - i : 4;
		memcpy(seq, s + i, k);
		int len = fmt_utf8_len(seq, &cp);
		if (!len && !final && c >= 0xC2 && c <= 0xF4 && k < 4) {
			/* possibly a sequence cut by the end of this write */
			bool prefix = true;
			for (size_t j = 1; j < k; j++)
				prefix &= ((unsigned char)seq[j] & 0xC0) == 0x80;
			size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
			if (prefix && k < need) {
				memcpy(e->held, seq, k);
				e->nheld = k;
				return;
			}
		}
		if (len && !control(cp)) {
			fwrite(s + i, 1, (size_t)len, e->out);
			i += (size_t)len;
		} else {
			fprintf(e->out, "\\x%02x", c);
			i++;
		}
	}
}

static ssize_t escaping_write(void *cookie, const char *buf, size_t n)
{
	struct escaping *e = cookie;
	char joined[4 + 4];
	size_t used = 0;

	if (e->nheld) {
		size_t take = n < 4 ? n : 4;
		size_t k = e->nheld;
		memcpy(joined, e->held, k);
		memcpy(joined + k, buf, take);
		e->nheld = 0;
		/* finish the held sequence (or give its bytes up as bad) */
		unsigned cp;
		char seq[9] = { 0 };
		memcpy(seq, joined, k + take);
		int len = fmt_utf8_len(seq, &cp);
		if (len > (int)k && !control(cp)) {
			fwrite(seq, 1, (size_t)len, e->out);
			used = (size_t)len - k;
		} else if (!len && k + take < 4 && take == n) {
			memcpy(e->held, seq, k + take);
			e->nheld = k + take;
			return (ssize_t)n;
		} else {
			escape_bytes(e, seq, k, true);
		}
	}
	escape_bytes(e, buf + used, n - used, false);
	return ferror(e->out) ? -1 : (ssize_t)n;
}

static int escaping_close(void *cookie)
{
	struct escaping *e = cookie;

	escape_bytes(e, e->held, e->nheld, true);
	int rc = fflush(e->out);
	free(e);
	return rc ? EOF : 0;
}

FILE *fmt_escaping_stream(FILE *out)
{
	struct escaping *e = calloc(1, sizeof(*e));
	cookie_io_functions_t io = { .write = escaping_write, .close = escaping_close };
	FILE *f;

	if (!e)
		return NULL;
	e->out = out;
	if (!(f = fopencookie(e, "w", io)))
		free(e);
	return f;
}

void fmt_buf_put(struct fmt_buf *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->n < o->len ? o->len - o->n : 0;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(room ? o->buf + o->n : NULL, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += (size_t)k;
}

/* k bytes of s, as vsnprintf would put them. */
static void buf_bytes(struct fmt_buf *o, const char *s, size_t k)
{
	if (o->n < o->len) {
		size_t room = o->len - o->n, c = k < room - 1 ? k : room - 1;
		memcpy(o->buf + o->n, s, c);
		o->buf[o->n + c] = '\0';
	}
	o->n += k;
}

void fmt_buf_str(struct fmt_buf *o, const char *s)
{
	buf_bytes(o, s, strlen(s));
}

void fmt_buf_uint(struct fmt_buf *o, uint64_t v, int width)
{
	char d[24];
	int k = (int)sizeof(d);

	do {
		d[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v || (int)sizeof(d) - k < width);
	buf_bytes(o, d + k, sizeof(d) - (size_t)k);
}

size_t fmt_buf_done(struct fmt_buf *o)
{
	if (o->len && o->n < o->len)
		o->buf[o->n] = '\0';
	else if (o->len)
		o->buf[o->len - 1] = '\0';
	return o->n;
}

void fmt_lines_add(struct fmt_lines *l, const char *sep, const char *piece, size_t plen,
		   size_t reserve)
{
	size_t keep = strcspn(sep, " ");

	if (l->col && l->col + strlen(sep) + plen + reserve > l->width) {
		fmt_buf_put(&l->o, "%.*s\n  %.*s", (int)keep, sep, (int)plen, piece);
		l->col = 2 + plen;
	} else {
		fmt_buf_put(&l->o, "%s%.*s", l->col ? sep : "", (int)plen, piece);
		l->col += (l->col ? strlen(sep) : 0) + plen;
	}
}

size_t fmt_field(char *buf, size_t len, size_t o, const char *s, int w, bool right,
		    bool utf8)
{
	const char *mark = utf8 ? "\u2026" : "...";
	int mw = utf8 ? 1 : 3, nb, n = fmt_text_cols(s);
	bool gap = false;
	size_t mb = 0;

	if (w <= 0)
		return o;
	if (n <= w) {
		nb = (int)strlen(s);
	} else if (w <= mw) {
		nb = fmt_cut_bytes(s, w);
		n = w;
	} else {
		nb = fmt_cut_bytes(s, w - mw);
		if (isdigit((unsigned char)s[nb]))
			while (nb > 0 && (isdigit((unsigned char)s[nb - 1]) || s[nb - 1] == '.'))
				nb--;
		if (s[nb] != ' ') {	/* an option cut short ("-n 5 -…") goes */
			int b = nb;

			while (b > 0 && s[b - 1] != ' ')
				b--;
			if (s[b] == '-')
				nb = b;
		}
		while (nb > 0 && s[nb - 1] == ' ')
			nb--;
		/* "-p 2…" would read as a longer number cut: a blank keeps
		 * them apart, or the number goes */
		if (nb > 0 && isdigit((unsigned char)s[nb - 1])) {
			gap = fmt_text_cols_n(s, (size_t)nb) + 1 + mw <= w;
			if (!gap) {
				while (nb > 0 && (isdigit((unsigned char)s[nb - 1]) || s[nb - 1] == '.'))
					nb--;
				while (nb > 0 && s[nb - 1] == ' ')
					nb--;
			}
		}
		mb = strlen(mark);
		n = fmt_text_cols_n(s, (size_t)nb) + gap + mw;
	}
	if (o + (size_t)nb + gap + mb + (size_t)(w - n) + 1 > len)
		return o;
	if (right) {
		memset(buf + o, ' ', (size_t)(w - n));
		o += (size_t)(w - n);
	}
	memcpy(buf + o, s, (size_t)nb);
	o += (size_t)nb;
	if (gap)
		buf[o++] = ' ';
	memcpy(buf + o, mark, mb);
	o += mb;
	if (!right) {
		memset(buf + o, ' ', (size_t)(w - n));
		o += (size_t)(w - n);
	}
	buf[o] = '\0';
	return o;
}

void fmt_minsec(char *buf, size_t len, double sec)
{
	long long s;

	if (isnan(sec) || sec < 0 || sec > 9e12) {
		snprintf(buf, len, "n/a");
		return;
	}
	s = (long long)sec;
	if (s >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60,
			 s % 60);
	else
		snprintf(buf, len, "%lld:%02lld", s / 60, s % 60);
}

bool fmt_scan_num(const char **p, int64_t *v)
{
	const char *s = *p;
	int64_t x = 0;

	while (isdigit((unsigned char)*s) && s - *p < 15)
		x = x * 10 + (*s++ - '0');
	if (s == *p || isdigit((unsigned char)*s))
		return false;
	*v = x;
	*p = s;
	return true;
}

void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 512;
		while (b->len + n + 1 > cap)
			cap *= 2;
		char *t = realloc(b->s, cap);
		if (!t) {
			b->oom = true;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_putc(struct sbuf *b, char c)
{
	sb_putn(b, &c, 1);
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void put_str(char *buf, size_t len, size_t *o, const char *s)
{
	for (; *s && *o + 1 < len; s++)
		buf[(*o)++] = *s;
	buf[*o] = '\0';
}

void fmt_shell_word(char *buf, size_t len, size_t *off, const char *word)
{
	static const char bare[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	char one[2] = "";

	if (!len || *off >= len)
		return;
	if (*word && strspn(word, bare) == strlen(word)) {
		put_str(buf, len, off, word);
		return;
	}
	put_str(buf, len, off, "'");
	for (const char *w = word; *w; w++) {
		one[0] = *w;
		put_str(buf, len, off, *w == '\'' ? "'\\''" : one);
	}
	put_str(buf, len, off, "'");
}
