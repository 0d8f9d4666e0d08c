/* Result lines as tcsh, GNU time, ps and free print them, and back.
 *
 * tcsh rules (tcsh sh.time.c prusage/pdeltat, sh.print.c pcsecs, 6.x as in
 * FreeBSD contrib/tcsh; checked against tcsh 6.24.07's output):
 *  format "%Uu %Ss %E %P\t%X+%Dk %I+%Oio %Fpf+%Ww": tcsh puts a tab after
 *         %P; we print the space that the posted lines (and mail archives)
 *         show, so our lines paste the same as the seeds'. Parsing takes
 *         either.
 *  %U %S  pdeltat: "%ld.%03ld" of the rusage delta, usec / 1000 truncated.
 *  %E     pcsecs(ms), ms = sec * 100 + usec / 10000 (centiseconds,
 *         truncated): "m:ss.cc" below an hour, "h:mm:ss.cc" from an hour.
 *  %P     t = user and system each as sec * 100 + usec / 10000, summed;
 *         i = ms == 0 ? 0 : (long)(t * 1000.0 / ms); printed "i/10.i%10%",
 *         so elapsed 0 prints "0.0%".
 *  %X %D  ru_ixrss / t and (ru_idrss + ru_isrss) / t, 0 when t is 0; the
 *         timeline already holds these averages.
 * GNU time rules (GNU time 1.9 src/time.c summarize()):
 *  %U %S  "%ld.%02ld", (usec / 1000) / 10: centiseconds truncated.
 *  %E     from 3600 s "%ld:%02ld:%02ld" (h:mm:ss, no hundredths), else
 *         "%ld:%02ld.%02ld" (m:ss.cc), hundredths = usec / 10000.
 *  %P     r = elapsed ms, v = user + system ms (each usec / 1000):
 *         r > 0: v * 100 / r; else elapsed usec > 0: (user usec + system
 *         usec) * 100 / elapsed usec; else "?%".
 * ps (procps pr_bsdtime): cumulative CPU seconds = ticks / Hertz truncated,
 * printed minutes:seconds. */
#include "timefmt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

static void put_count(struct fmt_buf *o, int64_t v)
{
	if (v < 0)
		fmt_buf_str(o, "?");
	else
		fmt_buf_uint(o, (uint64_t)v, 1);
}

/* tcsh pdeltat: seconds and milliseconds, truncated. */
static void put_csh_secs(struct fmt_buf *o, int64_t us)
{
	if (us < 0) {
		fmt_buf_str(o, "?");
		return;
	}
	fmt_buf_uint(o, (uint64_t)(us / 1000000), 1);
	fmt_buf_str(o, ".");
	fmt_buf_uint(o, (uint64_t)(us % 1000000 / 1000), 3);
}

/* tcsh pcsecs: l in centiseconds. */
static void put_pcsecs(struct fmt_buf *o, int64_t l)
{
	if (l < 0) {
		fmt_buf_str(o, "?");
		return;
	}
	if (l / 360000) {
		fmt_buf_uint(o, (uint64_t)(l / 360000), 1);
		fmt_buf_str(o, ":");
		fmt_buf_uint(o, (uint64_t)(l % 360000 / 100 / 60), 2);
	} else {
		fmt_buf_uint(o, (uint64_t)(l / 100 / 60), 1);
	}
	fmt_buf_str(o, ":");
	fmt_buf_uint(o, (uint64_t)(l % 360000 / 100 % 60), 2);
	fmt_buf_str(o, ".");
	fmt_buf_uint(o, (uint64_t)(l % 100), 2);
}

long timefmt_csh_permille(const struct timeline *t)
{
	int64_t ms = t->wall_us / 10000;
	int64_t cpu = t->user_us / 10000 + t->sys_us / 10000;

	if (t->pct_src == TIMEFMT_CSH)
		return t->pct_posted;
	if (ms <= 0)
		return 0;
	return (long)((double)cpu * 1000.0 / (double)ms);
}

size_t timefmt_csh(char *buf, size_t len, const struct timeline *t)
{
	struct fmt_buf o = { buf, len, 0 };
	long i = timefmt_csh_permille(t);

	put_csh_secs(&o, t->user_us);
	fmt_buf_str(&o, "u ");
	put_csh_secs(&o, t->sys_us);
	fmt_buf_str(&o, "s ");
	put_pcsecs(&o, t->wall_us < 0 ? -1 : t->wall_us / 10000);
	if (t->pct_src != TIMEFMT_CSH &&
	    (t->user_us < 0 || t->sys_us < 0 || t->wall_us < 0)) {
		fmt_buf_str(&o, " ?% ");
	} else if (i < 0) {
		fmt_buf_put(&o, " %ld.%01ld%% ", i / 10, i % 10);
	} else {
		fmt_buf_str(&o, " ");
		fmt_buf_uint(&o, (uint64_t)(i / 10), 1);
		fmt_buf_str(&o, ".");
		fmt_buf_uint(&o, (uint64_t)(i % 10), 1);
		fmt_buf_str(&o, "% ");
	}
	put_count(&o, t->ixrss);
	fmt_buf_str(&o, "+");
	put_count(&o, t->idrss);
	fmt_buf_str(&o, "k ");
	put_count(&o, t->inblock);
	fmt_buf_str(&o, "+");
	put_count(&o, t->oublock);
	fmt_buf_str(&o, "io ");
	put_count(&o, t->majflt);
	fmt_buf_str(&o, "pf+");
	put_count(&o, t->nswap);
	fmt_buf_str(&o, "w");
	return fmt_buf_done(&o);
}

/* GNU %U/%S: seconds and hundredths via milliseconds, truncated. */
static void put_gnu_secs(struct fmt_buf *o, int64_t us)
{
	if (us < 0)
		fmt_buf_put(o, "?");
	else
		fmt_buf_put(o, "%lld.%02lld", (long long)(us / 1000000),
		    (long long)(us % 1000000 / 1000 / 10));
}

static void put_gnu_elapsed(struct fmt_buf *o, int64_t us)
{
	int64_t s = us / 1000000;

	if (us < 0)
		fmt_buf_put(o, "?");
	else if (s >= 3600)
		fmt_buf_put(o, "%lld:%02lld:%02lld", (long long)(s / 3600),
		    (long long)(s % 3600 / 60), (long long)(s % 60));
	else
		fmt_buf_put(o, "%lld:%02lld.%02lld", (long long)(s / 60),
		    (long long)(s % 60), (long long)(us % 1000000 / 10000));
}

long timefmt_gnu_percent(const struct timeline *t)
{
	int64_t r, v, us_r, us_v;

	if (t->pct_src == TIMEFMT_GNU)
		return t->pct_posted;
	if (t->has_pct_gnu)
		return t->pct_gnu;
	if (t->user_us < 0 || t->sys_us < 0 || t->wall_us < 0)
		return -1;
	r = t->wall_us / 1000000 * 1000 + t->wall_us % 1000000 / 1000;
	v = t->user_us / 1000000 * 1000 + t->user_us % 1000000 / 1000 +
	    t->sys_us / 1000000 * 1000 + t->sys_us % 1000000 / 1000;
	us_r = t->wall_us % 1000000;
	us_v = t->user_us % 1000000 + t->sys_us % 1000000;
	if (r > 0)
		return (long)(v * 100 / r);
	if (us_r > 0)
		return (long)(us_v * 100 / us_r);
	return -1;
}

static void put_gnu_percent(struct fmt_buf *o, const struct timeline *t)
{
	long p = timefmt_gnu_percent(t);

	if (p < 0)
		fmt_buf_put(o, "?%%");
	else
		fmt_buf_put(o, "%ld%%", p);
}

size_t timefmt_gnu(char *buf, size_t len, const struct timeline *t)
{
	struct fmt_buf o = { buf, len, 0 };

	put_gnu_secs(&o, t->user_us);
	fmt_buf_put(&o, "user ");
	put_gnu_secs(&o, t->sys_us);
	fmt_buf_put(&o, "system ");
	put_gnu_elapsed(&o, t->wall_us);
	fmt_buf_put(&o, " ");
	put_gnu_percent(&o, t);
	fmt_buf_put(&o, "CPU (");
	put_count(&o, t->majflt);
	fmt_buf_put(&o, "major+");
	put_count(&o, t->minflt);
	fmt_buf_put(&o, "minor)");
	return fmt_buf_done(&o);
}

size_t timefmt_gnu_default(char *buf, size_t len, const struct timeline *t)
{
	struct fmt_buf o = { buf, len, 0 };

	if (t->term_signal)
		fmt_buf_put(&o, "Command terminated by signal %d\n", t->term_signal);
	else if (t->exit_code)
		fmt_buf_put(&o, "Command exited with non-zero status %d\n", t->exit_code);
	put_gnu_secs(&o, t->user_us);
	fmt_buf_put(&o, "user ");
	put_gnu_secs(&o, t->sys_us);
	fmt_buf_put(&o, "system ");
	put_gnu_elapsed(&o, t->wall_us);
	fmt_buf_put(&o, "elapsed ");
	put_gnu_percent(&o, t);
	fmt_buf_put(&o, "CPU (");
	put_count(&o, t->ixrss);
	fmt_buf_put(&o, "avgtext+");
	put_count(&o, t->idrss);
	fmt_buf_put(&o, "avgdata ");
	put_count(&o, t->maxrss_kib);
	fmt_buf_put(&o, "maxresident)k\n");
	put_count(&o, t->inblock);
	fmt_buf_put(&o, "inputs+");
	put_count(&o, t->oublock);
	fmt_buf_put(&o, "outputs (");
	put_count(&o, t->majflt);
	fmt_buf_put(&o, "major+");
	put_count(&o, t->minflt);
	fmt_buf_put(&o, "minor)pagefaults ");
	put_count(&o, t->nswap);
	fmt_buf_put(&o, "swaps");
	return fmt_buf_done(&o);
}

size_t timefmt_kswapd(char *buf, size_t len, double cpu_s)
{
	struct fmt_buf o = { buf, len, 0 };

	if (isnan(cpu_s) || cpu_s < 0 || cpu_s > 9e15)
		fmt_buf_put(&o, "n/a kswapd");
	else {
		/* to whole microseconds first so 61.0 is not 60.9999 */
		long long s = (long long)llround(cpu_s * 1e6) / 1000000;

		fmt_buf_put(&o, "%lld:%02lld kswapd", s / 60, s % 60);
	}
	return fmt_buf_done(&o);
}

size_t timefmt_stalls(char *buf, size_t len, const struct delays *d)
{
	struct fmt_buf o = { buf, len, 0 };

	if (!delays_known(d)) {
		fmt_buf_put(&o, "n/a stalls");
		return fmt_buf_done(&o);
	}
	fmt_buf_put(&o, "stalls:");
	for (int i = 0; i < DL_N; i++) {
		double v = d->s[i];
		long long tenths;

		if (isnan(v))
			continue;
		/* whole microseconds first, as the kswapd line, then truncated */
		tenths = v < 0 || v > 9e12 ? 0 : (long long)llround(v * 1e6) / 100000;
		fmt_buf_put(&o, " %lld.%llds %s", tenths / 10, tenths % 10,
			    delay_name((enum delay_kind)i));
	}
	return fmt_buf_done(&o);
}

size_t timefmt_stalls_lines(char *buf, size_t len, const struct delays *d)
{
	struct fmt_lines l = { { buf, len, 0 }, TIMEFMT_WIDTH, 0 };
	char one[256];
	const char *p = one;

	timefmt_stalls(one, sizeof(one), d);
	/* "stalls:" stays with its first field; each field is "N.Ns name" */
	while (*p) {
		const char *end = p;
		int words = p == one && !strncmp(one, "stalls:", 7) ? 3 : 2;

		for (int w = 0; w < words && *end; w++) {
			end += strcspn(end, " ");
			if (w + 1 < words && *end)
				end++;
		}
		fmt_lines_add(&l, " ", p, (size_t)(end - p), 0);
		p = *end ? end + 1 : end;
	}
	return fmt_buf_done(&l.o);
}

int timefmt_parse_stalls(const char *line, struct delays *out)
{
	struct delays d;
	const char *p = line;
	int n = 0;

	delays_clear(&d);
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "n/a stalls", 10)) {
		p += 10;
	} else if (!strncmp(p, "stalls:", 7)) {
		p += 7;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			char name[16];
			long long whole, frac;
			int k, used = 0;

			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (!*p)
				break;
			if (sscanf(p, "%lld.%1llds %15[a-z]%n", &whole, &frac, name, &used) != 3 ||
			    whole < 0 || frac < 0 || !isdigit((unsigned char)*p))
				goto bad;
			for (k = 0; k < DL_N && strcmp(name, delay_name((enum delay_kind)k)); k++)
				;
			if (k == DL_N || !isnan(d.s[k]))
				goto bad;
			d.s[k] = (double)whole + (double)frac / 10;
			p += used;
			n++;
		}
		if (!n)
			goto bad;
	} else {
		goto bad;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p)
		goto bad;
	*out = d;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* ---- parsing ---- */

static bool is_blank(char c, bool nl)
{
	return c == ' ' || c == '\t' || (nl && (c == '\n' || c == '\r'));
}

static bool skip_blanks(const char **p, bool nl)
{
	const char *s = *p;

	while (is_blank(*s, nl))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

static bool lit(const char **p, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/* Exactly n digits. */
static bool digits(const char **p, int n, int64_t *v)
{
	int64_t x = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		x = x * 10 + ((*p)[i] - '0');
	}
	if (isdigit((unsigned char)(*p)[n]))
		return false;
	*v = x;
	*p += n;
	return true;
}

/* A count, or the "?" our own lines print for an unknown one: NA. */
static bool count(const char **p, int64_t *v)
{
	if (lit(p, "?")) {
		*v = NA;
		return true;
	}
	return fmt_scan_num(p, v);
}

/* Longest time a line may give, in seconds (31,700 years): every figure
 * read below fits in microseconds, and sums of three, in int64_t. */
#define MAX_S 1000000000000LL

/* "S.f" with 1 to maxdec decimals: value in ms, the ms a unit of the last
 * printed digit spans in *step. */
static bool secs_ms(const char **p, int mindec, int maxdec, int64_t *ms,
		    int64_t *step)
{
	const char *s = *p;
	int64_t whole, frac = 0;
	int nd = 0;

	if (!fmt_scan_num(&s, &whole) || whole > MAX_S || *s++ != '.')
		return false;
	while (isdigit((unsigned char)*s) && nd < maxdec) {
		frac = frac * 10 + (*s++ - '0');
		nd++;
	}
	if (nd < mindec || isdigit((unsigned char)*s))
		return false;
	*step = 1;
	for (int i = nd; i < 3; i++) {
		frac *= 10;
		*step *= 10;
	}
	*ms = whole * 1000 + frac;
	*p = s;
	return true;
}

static bool at_end(const char *s)
{
	while (is_blank(*s, true))
		s++;
	return *s == '\0';
}

static bool may_start(const char *text, const char *p)
{
	return p == text || is_blank(p[-1], true) || p[-1] == '>';
}

/* 0: read; 1: read, but its CPU % is further off its times than the
 * slack; -1: not the format. */
static int parse_csh_at(const char *p, struct timeline *t)
{
	int64_t u, ustep, s, sstep, h = 0, m, sec, cs, pi, pf;
	int64_t ms, tlo, thi;
	long plo, phi, posted;

	memset(t, 0, sizeof(*t));
	if (!secs_ms(&p, 1, 3, &u, &ustep) || !lit(&p, "u") ||
	    !skip_blanks(&p, false) ||
	    !secs_ms(&p, 1, 3, &s, &sstep) || !lit(&p, "s") ||
	    !skip_blanks(&p, false))
		return -1;
	/* [h:]mm:ss.cc; minutes have two digits only after hours */
	if (!fmt_scan_num(&p, &m) || !lit(&p, ":"))
		return -1;
	if (!digits(&p, 2, &sec))
		return -1;
	if (lit(&p, ":")) {
		h = m;
		m = sec;
		if (h < 1 || h > MAX_S / 3600 || !digits(&p, 2, &sec))
			return -1;
	}
	if (m > 59 || sec > 59 || !lit(&p, ".") || !digits(&p, 2, &cs) ||
	    !skip_blanks(&p, false))
		return -1;
	if (!fmt_scan_num(&p, &pi) || pi > 1000000 || !lit(&p, ".") ||
	    !digits(&p, 1, &pf) ||
	    !lit(&p, "%") || !skip_blanks(&p, false))
		return -1;
	if (!count(&p, &t->ixrss) || !lit(&p, "+") || !count(&p, &t->idrss) ||
	    !lit(&p, "k") || !skip_blanks(&p, false) ||
	    !count(&p, &t->inblock) || !lit(&p, "+") || !count(&p, &t->oublock) ||
	    !lit(&p, "io") || !skip_blanks(&p, false) ||
	    !count(&p, &t->majflt) || !lit(&p, "pf+") || !count(&p, &t->nswap) ||
	    !lit(&p, "w") || !at_end(p))
		return -1;

	ms = ((h * 60 + m) * 60 + sec) * 100 + cs;
	/* tcsh truncates each rusage delta to centiseconds; with a nonzero
	 * start snapshot a delta's usec part can be negative and round up
	 * instead, so each term is floor or ceil of the true value. */
	tlo = u / 10 + s / 10;
	thi = (u + ustep + 9) / 10 + (s + sstep + 9) / 10;
	posted = (long)(pi * 10 + pf);
	plo = phi = 0;
	if (ms != 0) {
		plo = (long)((double)tlo * 1000.0 / (double)ms);
		phi = (long)((double)thi * 1000.0 / (double)ms);
	}
	t->pct_off = posted < plo || posted > phi;
	t->user_us = u * 1000;
	t->sys_us = s * 1000;
	t->wall_us = ms * 10000;
	t->pct_src = TIMEFMT_CSH;
	t->pct_posted = (int)posted;
	return posted < plo - TIMEFMT_CSH_SLACK || posted > phi + TIMEFMT_CSH_SLACK ? 1 : 0;
}

/* The first start in text (within its first line if one_line) where at
 * reads a time line, into out: 0; else -1 with errno EINVAL, or ERANGE
 * when one read but for its CPU %, which is then out's. A line starts at
 * a digit, or at GNU's "Command ..." status. */
static int parse_first(const char *text, bool one_line,
		       int (*at)(const char *, struct timeline *), struct timeline *out)
{
	struct timeline t, first;
	bool off = false;

	for (const char *p = text; p && *p && !(one_line && *p == '\n'); p++) {
		if (!(isdigit((unsigned char)*p) || *p == 'C') || !may_start(text, p))
			continue;
		int rc = at(p, &t);

		if (rc == 0) {
			*out = t;
			return 0;
		}
		if (rc == 1 && !off) {
			first = t;
			off = true;
		}
	}
	if (off)
		*out = first;
	errno = off ? ERANGE : EINVAL;
	return -1;
}

int timefmt_parse_csh(const char *line, struct timeline *out)
{
	return parse_first(line, true, parse_csh_at, out);
}

/* GNU %E: m:ss.cc, m:ss (trimmed by hand) or h:mm:ss. Milliseconds, and
 * the span the last printed digit covers. */
static bool gnu_elapsed(const char **p, int64_t *ms, int64_t *step)
{
	const char *s = *p;
	int64_t a, b, c;

	if (!fmt_scan_num(&s, &a) || !lit(&s, ":") || !digits(&s, 2, &b) || b > 59)
		return false;
	if (lit(&s, ":")) {
		if (a < 1 || a > MAX_S / 3600 || !digits(&s, 2, &c) || c > 59)
			return false;
		*ms = ((a * 60 + b) * 60 + c) * 1000;
		*step = 1000;
	} else if (a > 59) {
		return false;
	} else if (lit(&s, ".")) {
		if (!digits(&s, 2, &c))
			return false;
		*ms = (a * 60 + b) * 1000 + c * 10;
		*step = 10;
	} else {
		*ms = (a * 60 + b) * 1000;
		*step = 1000;
	}
	*p = s;
	return true;
}

/* As parse_csh_at. */
static int parse_gnu_at(const char *p, struct timeline *t)
{
	int64_t u, s, step, wall, wstep, v, pct = -1, vlo, vhi;
	bool elapsed_word, far = false;

	memset(t, 0, sizeof(*t));
	if (lit(&p, "Command exited with non-zero status ")) {
		int64_t c;

		if (!fmt_scan_num(&p, &c) || c < 1 || c > 255 || !skip_blanks(&p, true))
			return -1;
		t->exit_code = (int)c;
	} else if (lit(&p, "Command terminated by signal ")) {
		int64_t c;

		if (!fmt_scan_num(&p, &c) || c < 1 || c > 64 || !skip_blanks(&p, true))
			return -1;
		t->term_signal = (int)c;
	}
	if (!secs_ms(&p, 2, 2, &u, &step) || !lit(&p, "user") ||
	    !skip_blanks(&p, true) ||
	    !secs_ms(&p, 2, 2, &s, &step) || !lit(&p, "system") ||
	    !skip_blanks(&p, true) || !gnu_elapsed(&p, &wall, &wstep))
		return -1;
	elapsed_word = lit(&p, "elapsed");
	if (!skip_blanks(&p, true))
		return -1;
	if (!lit(&p, "?%") &&
	    (!fmt_scan_num(&p, &pct) || pct > 1000000 || !lit(&p, "%")))
		return -1;
	if (!lit(&p, "CPU") || !skip_blanks(&p, true) || !lit(&p, "("))
		return -1;
	if (!count(&p, &v))
		return -1;
	if (lit(&p, "major+")) {
		t->majflt = v;
		if (!count(&p, &t->minflt) || !lit(&p, "minor)"))
			return -1;
		/* the short form gives none of these */
		t->inblock = t->oublock = t->nswap = NA;
		t->ixrss = t->idrss = t->maxrss_kib = NA;
	} else {
		t->ixrss = v;
		/* the default form is GNU's own output: %E untrimmed */
		if (!elapsed_word || (wstep == 1000 && wall < 3600000) ||
		    !lit(&p, "avgtext+") || !count(&p, &t->idrss) ||
		    !lit(&p, "avgdata") || !skip_blanks(&p, true) ||
		    !count(&p, &t->maxrss_kib) || !lit(&p, "maxresident)k") ||
		    !skip_blanks(&p, true) ||
		    !count(&p, &t->inblock) || !lit(&p, "inputs+") ||
		    !count(&p, &t->oublock) || !lit(&p, "outputs") ||
		    !skip_blanks(&p, true) || !lit(&p, "(") ||
		    !count(&p, &t->majflt) || !lit(&p, "major+") ||
		    !count(&p, &t->minflt) || !lit(&p, "minor)pagefaults") ||
		    !skip_blanks(&p, true) ||
		    !count(&p, &t->nswap) || !lit(&p, "swaps"))
			return -1;
	}
	if (!at_end(p))
		return -1;

	/* The printed hundredths hide up to 9 ms of each CPU time and of a
	 * m:ss.cc elapsed; a trimmed or h:mm:ss elapsed hides up to 999 ms. */
	vlo = u + s;
	vhi = u + 9 + s + 9;
	if (pct < 0) {
		if (wall != 0 || wstep != 10)
			return -1;
	} else if (wall > 0) {
		int64_t lo = vlo * 100 / (wall + wstep - 1), hi = vhi * 100 / wall;

		far = pct < lo - TIMEFMT_GNU_SLACK || pct > hi + TIMEFMT_GNU_SLACK;
		t->pct_off = pct < lo || pct > hi;
	}
	t->user_us = u * 1000;
	t->sys_us = s * 1000;
	t->wall_us = wall * 1000;
	t->pct_src = TIMEFMT_GNU;
	t->pct_posted = (int)pct;
	return far ? 1 : 0;
}

int timefmt_parse_gnu(const char *text, struct timeline *out)
{
	return parse_first(text, false, parse_gnu_at, out);
}
