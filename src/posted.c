/* Posted text read back into runs. */
#include "posted.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt.h"
#include "freeblk.h"
#include "report.h"

/* The word at or after p and before end, or NULL; *e its end. */
static const char *word_in(const char *p, const char *end, const char **e)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end)
		return NULL;
	for (*e = p; *e < end && !isspace((unsigned char)**e); (*e)++)
		;
	return p;
}

static bool blank_line(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

static bool rule_line(const char *s, size_t len)
{
	bool any = false;
	for (size_t i = 0; i < len; i++) {
		if (strchr("=-_*", s[i]))
			any = true;
		else if (!isspace((unsigned char)s[i]))
			return false;
	}
	return any;
}

/* "0:01 kswapd", ps's TIME of kswapd: seconds in *cpu_s; "n/a kswapd" as
 * we print an unknown one: NAN. */
static bool kswapd_line(const char *s, double *cpu_s)
{
	unsigned m, sec;
	int n = 0;

	if (sscanf(s, " n/a kswapd%n", &n) == 0 && n > 0 && (!s[n] || isspace((unsigned char)s[n]))) {
		*cpu_s = NAN;
		return true;
	}
	if (sscanf(s, " %u:%2u kswapd%n", &m, &sec, &n) == 2 && n > 0 &&
	    (!s[n] || isspace((unsigned char)s[n])) && sec < 60) {
		*cpu_s = (double)m * 60 + sec;
		return true;
	}
	return false;
}

/* Whether the line starts with a shell prompt: a first word ending in '>',
 * '$' or '#' that has a letter, a digit, '~' or '/' before it, or is that
 * character alone ("lenstra:~/src/qsort>", "bash-2.05$", "#", not "->"),
 * one ending in '%' after a letter, or '%' alone ("lenstra%", "%", not
 * "50%"), or "[root@box qsort]#"; its length in *n. */
static bool starts_with_prompt(const char *s, size_t *n)
{
	size_t w = strcspn(s, " \t");
	bool named = false, letter = false;

	if (*s == '[') {
		const char *e = strchr(s, ']');

		if (e && e[1] && strchr("#$", e[1]) && (!e[2] || e[2] == ' ')) {
			*n = (size_t)(e + 2 - s);
			return true;
		}
	}
	*n = w;
	if (!w || !strchr(">$#%", s[w - 1]))
		return false;
	for (size_t i = 0; i + 1 < w; i++) {
		letter |= isalpha((unsigned char)s[i]);
		named |= isalnum((unsigned char)s[i]) || s[i] == '~' || s[i] == '/';
	}
	return w == 1 || (s[w - 1] == '%' ? letter : named);
}

/* Words that run the command after them: "sudo time ./qsbench". */
static bool runner_word(const char *b, const char *e)
{
	static const char *const w[] = { "sudo", "nice", "env", "exec", "command" };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if ((size_t)(e - b) == strlen(w[i]) && !strncmp(b, w[i], strlen(w[i])))
			return true;
	return false;
}

/* "lenstra:~/src/qsort> time ./qsbench -n 90000000 -p 1 -s 140175100":
 * "time" first on the line, right after a prompt character or a command
 * separator, after "sudo" and the like, or anywhere after a prompt
 * ("[root@box qsort]# nice time ./qsbench", "$ sync; time ..."); never
 * inside a sentence ("Most of the time 2.4.1pre8 ..."). */
static bool prompt_line(const char *s, size_t len, char *cmd, size_t cmdlen)
{
	char line[1024];
	snprintf(line, sizeof(line), "%.*s", (int)len, s);
	char *l = line, *t, *b;
	size_t pw;
	while (isspace((unsigned char)*l))
		l++;
	bool prompt = starts_with_prompt(l, &pw);
	for (t = strstr(l, "time "); t; t = strstr(t + 1, "time ")) {
		for (b = t; b > l && isspace((unsigned char)b[-1]); b--)
			;
		if (t > l && !isspace((unsigned char)t[-1]) && t[-1] != '>')
			continue;	/* "runtime " */
		const char *wb = b;

		while (wb > l && !isspace((unsigned char)wb[-1]))
			wb--;
		/* first, after a prompt or a command separator ("sync; time",
		 * "make &&"), or after sudo and the like first on the line */
		if (b == l || strchr(">$#;&|", b[-1]) || (prompt && t >= l + pw) ||
		    (wb == l && runner_word(wb, b)))
			break;
	}
	if (!t)
		return false;
	t += 5;
	while (*t == ' ')
		t++;
	if (!*t)
		return false;
	char *e = t + strlen(t);
	while (e > t && isspace((unsigned char)e[-1]))
		*--e = 0;
	snprintf(cmd, cmdlen, "%s", t);
	return true;
}

/* "host:~/dir> free", "$ sync": a shell prompt with some other command. */
static bool shell_prompt(const char *s)
{
	size_t w;
	return starts_with_prompt(s, &w) && s[w] == ' ' && s[w + 1] && s[w + 1] != ' ';
}

static void workload_from_command(struct run_record *r, const char *cmd)
{
	char copy[1024], *save = NULL;
	snprintf(copy, sizeof(copy), "%s", cmd);
	char *prog = strtok_r(copy, " \t", &save);
	const char *base = prog ? strrchr(prog, '/') : NULL;
	base = base ? base + 1 : prog;
	r->kind = RUN_COMMAND;
	free(r->command);
	r->command = strdup(cmd);
	if (!base || (strcmp(base, "qsbench") && strcmp(base, "qs")))
		return;
	/* qsbench's defaults: -n 1000000 -p 1 -s 1 */
	long long nel = 1000000, procs = 1, seed = 1;
	for (char *a = strtok_r(NULL, " \t", &save); a; a = strtok_r(NULL, " \t", &save)) {
		char *v = strtok_r(NULL, " \t", &save), *end;
		long long *dst = !strcmp(a, "-n") ? &nel : !strcmp(a, "-p") ? &procs :
				 !strcmp(a, "-s") ? &seed : NULL;
		if (!dst || !v)
			return;
		*dst = strtoll(v, &end, 10);
		if (*end)
			return;
	}
	if (nel < 1 || procs < 1 || procs > 1024 || seed < 0 || seed > UINT32_MAX)
		return;
	r->kind = RUN_QSBENCH;
	r->nelems = nel;
	r->procs = (int)procs;
	r->seed = (unsigned)seed;
	free(r->command);
	r->command = NULL;
}

/* Whether s starts a kernel release: "2.4.14-pre8", "6.1". */
static bool release_at(const char *s)
{
	return isdigit((unsigned char)s[0]) && s[1] == '.' && isdigit((unsigned char)s[2]);
}

/* Whether s starts a release of three numbers ("2.4.13", not "1.5 GB" or
 * "2.4GHz"). */
static bool release3_at(const char *s)
{
	int parts = 0;

	while (isdigit((unsigned char)*s)) {
		parts++;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	return parts >= 3;
}

/* A header's kernel: a leading "2.4.0+blk-13B,...", or after a word
 * "Linux-" or "Linux " (any case) or "kernel ", or a three-part release
 * after "on " ("Here on 2.4.13"); "" for none. */
static void kernel_from_header(const char *h, char *out, size_t len)
{
	const char *k = release_at(h) ? h : NULL;

	out[0] = 0;
	for (const char *w = h; !k && *w; w++) {
		if (w > h && isalnum((unsigned char)w[-1]))
			continue;
		if (!strncasecmp(w, "linux", 5) && (w[5] == '-' || w[5] == ' ') && release_at(w + 6))
			k = w + 6;
		else if (!strncasecmp(w, "kernel ", 7) && release_at(w + 7))
			k = w + 7;
		else if (!strncmp(w, "on ", 3) && release3_at(w + 3))
			k = w + 3;
	}
	if (!k)
		return;
	size_t n = strcspn(k, " ,:;)\t");
	snprintf(out, len, "%.*s", (int)n, k);
}

/* The field whose header "KEY=" (report_header_keys: "Linux-6.1
 * nelems=30000000 procs=8 mem_limit_kib=none") starts at s, or NULL; the
 * KEY's length in *n. */
static const char *export_key_at(const char *s, size_t *n)
{
	for (size_t k = 0; report_header_keys[k]; k++) {
		const char *key = report_header_key(report_header_keys[k]);

		*n = strlen(key);
		if (!strncmp(s, key, *n) && s[*n] == '=')
			return report_header_keys[k];
	}
	return NULL;
}

/* One key's value as the export prints it, into r's field: sizes as
 * fmt_kib rounds them, a limit "none", zswap on/off. */
static int export_key_set(struct run_record *r, const char *key, const char *val)
{
	const struct hist_field *f = hist_field_find(key);
	size_t n = strlen(key);
	int64_t bytes;
	char num[24];

	if (!f || !*val)
		return -1;
	if (n > 4 && !strcmp(key + n - 4, "_kib")) {
		if (!strcmp(val, "none") && strstr(key, "limit"))
			return hist_field_set(r, f, "");
		if (fmt_parse_size(val, &bytes) || !strpbrk(val, "KMGT"))
			return -1;
		snprintf(num, sizeof(num), "%" PRId64, bytes / 1024);
		val = num;
	} else if (!strcmp(key, "zswap")) {
		if (strcmp(val, "on") && strcmp(val, "off"))
			return -1;
		val = !strcmp(val, "on") ? "1" : "0";
	} else if (f->type != HF_STR && f->type != HF_PSTR && !isdigit((unsigned char)*val)) {
		return -1;
	}
	return hist_field_set(r, f, val);
}

/* A header of our own time export gives back what set its group apart:
 * each " KEY=value" after the lead (the label or "Linux-KERNEL"), a value
 * running to the next key (a command holds blanks). Only a header whose
 * whole tail reads so is taken; any other, as posted, gives its kernel
 * alone. A workload from a prompt line stays. */
static size_t header_export_keys(const char *h, struct run_record *r)
{
	struct run_record t;
	const char *p = NULL;
	bool seed = false;	/* a seed has no unknown value of its own */
	size_t n, lead;

	for (const char *q = strchr(h, ' '); q && !p; q = strchr(q + 1, ' '))
		if (export_key_at(q + 1, &n))
			p = q;
	if (!p)
		return strlen(h);
	lead = (size_t)(p - h);
	run_record_init(&t);
	while (p) {
		const char *key = export_key_at(p + 1, &n), *v = p + 2 + n, *next = NULL;
		char val[1024];

		for (const char *q = strchr(v, ' '); q && !next; q = strchr(q + 1, ' '))
			if (export_key_at(q + 1, &n))
				next = q;
		snprintf(val, sizeof(val), "%.*s", (int)(next ? next - v : (ptrdiff_t)strlen(v)), v);
		if (export_key_set(&t, key, val)) {
			run_record_clear(&t);
			return strlen(h);
		}
		seed |= !strcmp(key, "seed");
		p = next;
	}
	if (t.kernel_release[0])
		memcpy(r->kernel_release, t.kernel_release, sizeof(r->kernel_release));
	if (t.hostname[0])
		memcpy(r->hostname, t.hostname, sizeof(r->hostname));
	if (r->kind == RUN_COMMAND && !r->command) {
		if (t.command) {
			r->command = t.command;
			t.command = NULL;
		} else if (t.nelems != NA && t.procs != NA && seed) {
			r->kind = RUN_QSBENCH;
			r->nelems = t.nelems;
			r->procs = t.procs;
			r->seed = t.seed;
		}
	}
	for (size_t k = REPORT_HEADER_SETTINGS; report_header_keys[k]; k++) {
		const struct hist_field *f = hist_field_find(report_header_keys[k]);
		char v[32];

		hist_field_get(&t, f, v, sizeof(v));
		if (*v)
			hist_field_set(r, f, v);
	}
	run_record_clear(&t);
	return lead;
}

/* Whether a header is one setting, "swap=400M" or "vm.swappiness=100":
 * a name for the runs under it as much as a header ending in ':'. */
static bool setting_line(const char *h)
{
	const char *eq = strchr(h, '=');

	if (!isalpha((unsigned char)*h) || !eq || !eq[1] || strchr(h, ' '))
		return false;
	for (const char *p = h; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
			return false;
	return true;
}

/* The label a header gives its runs: its lead (the text before an
 * export's keys), unless that only names a kernel ("Linux-2.4.14-pre8",
 * "2.2.18") or is the export's "(no label)"; at most -L's 200
 * characters, cut between characters. */
static void label_from_header(const char *h, size_t lead, char *out, size_t len)
{
	char k[128];
	size_t n = 0, chars = 0;

	out[0] = 0;
	kernel_from_header(h, k, sizeof(k));
	if (!lead || (lead == 10 && !strncmp(h, "(no label)", 10)))
		return;
	/* an export names the kernel apart only beside a label ("Linux 6.1
	 * kernel=6.18.44:") */
	if (k[0] && !strstr(h + lead, " kernel=")) {
		size_t kl = strlen(k), at = (size_t)(strstr(h, k) - h);

		/* nothing but the kernel and a "Linux" before it */
		if (at + kl == lead && (at == 0 || (at == 6 && !strncasecmp(h, "linux", 5))))
			return;
	}
	while (n < lead && n + 1 < len && chars < 200) {
		n++;
		while (n < lead && ((unsigned char)h[n] & 0xC0) == 0x80)
			n++;
		chars++;
	}
	if (n >= len)
		return;
	memcpy(out, h, n);
	out[n] = 0;
}

static void snap_from_free(struct mem_snapshot *m, const struct free_parsed *fp)
{
	m->total = fp->total;
	m->used = fp->used;
	m->free = fp->free;
	m->shared = fp->shared;
	m->buffers = fp->buffers;
	m->cache = fp->cached;
	m->avail = fp->available;
	m->swap_total = fp->swap_total;
	m->swap_used = fp->swap_used;
	m->swap_free = fp->swap_free;
}

struct span {
	const char *b, *e;
};

/* Victims kept from the OOM lines above one run: a batch names at most 16. */
#define POSTED_VICTIMS_MAX 16

/* The notes a sink is given, each kind to its first NOTES_SHOWN, then
 * counted in one line: a post of three runs to a kswapd line has a note
 * every five lines. */
enum { NOTE_SKIPPED, NOTE_KSWAPD_TOTAL, NOTE_PCT_OFF, NOTE_KINDS };
#define NOTES_SHOWN 10

struct posted {
	const struct import_sink *emit;	/* NULL on the checking pass */
	const char *label;
	bool skip_bad;
	char header[1200];	/* an export's names a command whole */
	char kernel[65];	/* a line's under a header naming none ("Mine:") */
	struct mem_snapshot pending_free;
	bool have_free;
	bool oom_next;
	/* the OOM lines above the next run that name its victims */
	struct run_victim victims[POSTED_VICTIMS_MAX];
	int nvictims;
	int64_t unnamed;
	enum run_status status_next;
	char command[1024];
	int ordinal;
	bool fresh_header;	/* a header came after the last run */
	bool header_colon;	/* the header ended in ':' */
	/* The newest run, held until it is known whether a free block
	 * follows it (its "after"). */
	struct run_record last;
	bool have_last, last_open;
	size_t nruns;
	/* Runs per group: counted on the checking pass, used on the second
	 * for "run k of N". */
	size_t *sizes, nsizes, cap;
	size_t group_runs, gi;
	/* Runs since the last kswapd or stall line: a stall line after one
	 * run is that run's (batch output); after several, a group's sum
	 * (export --format=time), which no run keeps. */
	size_t block_runs;
	bool after_summary;
	/* Each run's kswapd from the line below it, set on the checking pass:
	 * a line after one run alone; NAN for runs of a total. */
	double *kswapd;
	size_t kcap, kspan;	/* kspan: the first run the next line covers */
	size_t kskipped;	/* time lines skipped since (--skip-bad) */
	size_t notes[NOTE_KINDS];	/* of each kind, given or not */
	int note_line[NOTE_KINDS];	/* the last given's */
	size_t block_skipped;	/* and since the last kswapd or stall line */
	struct span *tok;	/* a line's words, for unflatten */
	size_t ntok;
};

/* "stalls: 41.2s swapin ..." or "n/a stalls": kept with the run it
 * follows when it follows one run alone. */
static bool stall_line(struct posted *ps, const char *s)
{
	struct delays d;

	if (timefmt_parse_stalls(s, &d))
		return false;
	if (ps->have_last && ps->block_runs == 1 && !ps->block_skipped &&
	    !delays_known(&ps->last.stalls))
		ps->last.stalls = d;
	ps->after_summary = true;
	return true;
}

static int flush_last(struct posted *ps, char *err, size_t errlen)
{
	int rc = 0;

	if (ps->have_last && ps->emit)
		rc = ps->emit->run(ps->emit->arg, &ps->last, err, errlen);
	run_record_clear(&ps->last);
	ps->have_last = false;
	return rc;
}

static int close_group(struct posted *ps, char *err, size_t errlen)
{
	if (flush_last(ps, err, errlen))
		return -1;
	ps->last_open = false;
	if (!ps->group_runs)
		return 0;
	if (!ps->emit) {
		if (ps->nsizes == ps->cap) {
			size_t cap = ps->cap ? ps->cap * 2 : 64;
			size_t *nv = realloc(ps->sizes, cap * sizeof(*nv));
			if (!nv)
				return fmt_err(err, errlen, "out of memory");
			ps->sizes = nv;
			ps->cap = cap;
		}
		ps->sizes[ps->nsizes++] = ps->group_runs;
	} else {
		ps->gi++;
	}
	ps->group_runs = 0;
	ps->block_runs = ps->block_skipped = 0;
	ps->after_summary = false;
	ps->kspan = ps->nruns;
	ps->kskipped = 0;
	return 0;
}

/* msg, of line lineno, to the sink's note unless NOTES_SHOWN of its
 * kind came before. */
static void note(struct posted *ps, int kind, int lineno, const char *msg)
{
	if (ps->notes[kind]++ < NOTES_SHOWN) {
		ps->note_line[kind] = lineno;
		ps->emit->note(ps->emit->arg, msg);
	}
}

/* How many notes of each kind were not given, once the pass is over. */
static void notes_left(struct posted *ps)
{
	for (int k = 0; k < NOTE_KINDS; k++) {
		char msg[80];

		if (ps->notes[k] <= NOTES_SHOWN)
			continue;
		snprintf(msg, sizeof(msg), "... and %zu more like line %d's",
			 ps->notes[k] - NOTES_SHOWN, ps->note_line[k]);
		ps->emit->note(ps->emit->arg, msg);
	}
}

/* A kswapd line after one run is that run's; after N, their total, which
 * no run's own can be made of: each stays n/a, said once on the second
 * pass. */
static void kswapd_line_read(struct posted *ps, int lineno, double cpu_s)
{
	/* the time lines --skip-bad left out are runs it was a total of too */
	size_t n = ps->nruns - ps->kspan + ps->kskipped;

	if (!ps->emit && n == 1 && !ps->kskipped)
		ps->kswapd[ps->kspan] = cpu_s;
	if (ps->emit && ps->emit->note && n > 1 && !isnan(cpu_s)) {
		char text[40], msg[200], left[48] = "";

		timefmt_kswapd(text, sizeof(text), cpu_s);
		if (ps->kskipped)
			snprintf(left, sizeof(left), " (%zu of them skipped)", ps->kskipped);
		snprintf(msg, sizeof(msg), "line %d: \"%s\" is the total of the %zu runs above it%s,"
			 " not each one's: their kswapd is n/a", lineno, text, n, left);
		note(ps, NOTE_KSWAPD_TOTAL, lineno, msg);
	}
	ps->kspan = ps->nruns;
	ps->kskipped = 0;
}

/* An OOM line as batch mode prints it, "Out of Memory: Killed process
 * PID (comm)." or its count of unnamed kills, kept for the next run. */
static void victim_line(struct posted *ps, const char *s)
{
	static const char lead[] = "Out of Memory: Killed process ";
	const char *open_p, *close_p;
	char *end;
	long long n;

	if (strncmp(s, lead, sizeof(lead) - 1))
		return;
	s += sizeof(lead) - 1;
	if (!strncmp(s, "(unnamed: ", 10)) {
		n = strtoll(s + 10, &end, 10);
		if (end != s + 10 && n > 0)
			ps->unnamed = n;
		return;
	}
	n = strtoll(s, &end, 10);
	open_p = end;
	close_p = strrchr(s, ')');
	if (end == s || n <= 0 || n > INT32_MAX || *open_p != ' ' || open_p[1] != '(' || !close_p ||
	    close_p < open_p + 2 || ps->nvictims == POSTED_VICTIMS_MAX ||
	    (size_t)(close_p - open_p - 2) >= sizeof(ps->victims[0].comm))
		return;
	struct run_victim *v = &ps->victims[ps->nvictims++];
	v->pid = (int)n;
	snprintf(v->comm, sizeof(v->comm), "%.*s", (int)(close_p - open_p - 2), open_p + 2);
}

/* The victims named above the run onto r (NULL: only forgotten). */
static int take_victims(struct posted *ps, struct run_record *r)
{
	int rc = 0;

	if (r && ps->nvictims > 0 &&
	    !(r->victims = malloc(sizeof(*r->victims) * (size_t)ps->nvictims)))
		rc = -1;
	else if (r && (ps->nvictims > 0 || ps->unnamed > 0)) {
		if (ps->nvictims > 0)
			memcpy(r->victims, ps->victims, sizeof(*r->victims) * (size_t)ps->nvictims);
		r->nvictims = ps->nvictims;
		r->oom_unnamed = ps->unnamed;
	}
	ps->nvictims = 0;
	ps->unnamed = 0;
	return rc;
}

static int posted_run(struct posted *ps, const struct timeline *t, bool csh, const char *raw,
		      size_t rawlen, bool oom_here, char *err, size_t errlen)
{
	if (flush_last(ps, err, errlen))
		return -1;
	struct run_record *r = &ps->last;
	bool oom_next = ps->oom_next, have_free = ps->have_free;
	enum run_status status_next = ps->status_next;
	int ordinal = ps->ordinal;
	size_t k = ps->nruns;
	if (!ps->emit && k == ps->kcap) {
		size_t cap = ps->kcap ? ps->kcap * 2 : 64;
		double *nv = realloc(ps->kswapd, cap * sizeof(*nv));
		if (!nv)
			return fmt_err(err, errlen, "out of memory");
		ps->kswapd = nv;
		ps->kcap = cap;
	}
	if (!ps->emit)
		ps->kswapd[k] = NAN;
	ps->have_last = ps->last_open = true;
	if (ps->after_summary)
		ps->block_runs = ps->block_skipped = 0;
	ps->after_summary = false;
	ps->block_runs++;
	ps->nruns++;
	ps->group_runs++;
	ps->ordinal++;
	ps->oom_next = false;
	ps->status_next = RUN_OK;
	ps->fresh_header = false;
	ps->have_free = false;
	if (take_victims(ps, ps->emit ? r : NULL))
		return fmt_err(err, errlen, "out of memory");
	/* the checking pass needs only the counts */
	if (!ps->emit)
		return 0;
	r->repeat_k = (int)ps->group_runs;
	r->repeat_n = (int)(ps->gi < ps->nsizes ? ps->sizes[ps->gi] : ps->group_runs);
	r->kswapd_s = ps->kswapd[k];
	kernel_from_header(ps->header, r->kernel_release, sizeof(r->kernel_release));
	if (!r->kernel_release[0])
		snprintf(r->kernel_release, sizeof(r->kernel_release), "%s", ps->kernel);
	r->kind = RUN_COMMAND;
	if (ps->command[0])
		workload_from_command(r, ps->command);
	r->wall_us = t->wall_us;
	r->user_us = t->user_us;
	r->sys_us = t->sys_us;
	r->majflt = t->majflt;
	r->minflt = csh ? NA : t->minflt;	/* csh's line has no minor faults */
	r->inblock = t->inblock;	/* NA where GNU's short form has none */
	r->oublock = t->oublock;
	r->maxrss_kib = csh ? NA : t->maxrss_kib;	/* csh's "0+0k" is text+data */
	if (t->pct_src == TIMEFMT_CSH)
		r->cpu_pct = t->pct_posted / 10.0;
	else if (t->pct_src == TIMEFMT_GNU && t->pct_posted >= 0)
		r->cpu_pct = t->pct_posted;
	r->status = oom_here || oom_next ? RUN_OOM : status_next;
	if (t->term_signal) {
		r->status = r->status == RUN_OK ? RUN_FAILED : r->status;
	} else if (t->exit_code && r->status == RUN_OK) {
		r->status = RUN_FAILED;
	}
	if (have_free)
		r->free_before = ps->pending_free;
	const struct mem_snapshot *fs = mem_snapshot_taken(&r->free_before) ? &r->free_before : NULL;
	if (fs) {
		r->ram_kib = fs->total;
		r->swap_total_kib = fs->swap_total;
		r->swap_before_kib = fs->swap_used;
	}
	size_t lead = header_export_keys(ps->header, r);
	/* the label is -L's, else a header's own words where it ended in ':'
	 * (the poster's name for the configuration, or an export's label),
	 * not any line of text that happens to be above the runs */
	if (ps->label)
		snprintf(r->label, sizeof(r->label), "%s", ps->label);
	else if (ps->header_colon || setting_line(ps->header))
		label_from_header(ps->header, lead, r->label, sizeof(r->label));
	/* The content id: the same line under the same header in the same
	 * place is the same run, however often the text is imported. It
	 * hashes at most 1,399 bytes of text, as the bounded buffer it was
	 * first formatted into kept, with the label and header as the label
	 * once held them. */
	char text[1400], idl[128];
	if (ps->label && ps->header[0])
		snprintf(idl, sizeof(idl), "%.63s %.62s", ps->label, ps->header);
	else
		snprintf(idl, sizeof(idl), "%.127s", ps->label ? ps->label : ps->header);
	snprintf(text, sizeof(text), "posted\n%s\n%s\n%d\n%.*s", idl, ps->command, ordinal,
		 (int)rawlen, raw);
	run_uuid_of(text, r->uuid);
	return 0;
}

/* "70.270u 7...": the start of a csh time line, the user time and a
 * number after it, however garbled the rest ("7.3x0s" is a mistyped
 * line, not prose). */
static bool looks_like_csh(const char *s)
{
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s) || *s == '.')
		s++;
	if (*s++ != 'u' || (*s != ' ' && *s != '\t'))
		return false;
	while (*s == ' ' || *s == '\t')
		s++;
	return isdigit((unsigned char)*s);
}

/* t's CPU % as posted and as its times give it, each as its format prints
 * it: "51.7%" for csh, "98%" for GNU. */
static void pct_texts(const struct timeline *t, char *posted, char *calc, size_t len)
{
	struct timeline c = *t;

	c.pct_src = 0;
	if (t->pct_src == TIMEFMT_CSH) {
		long pm = timefmt_csh_permille(&c);

		snprintf(posted, len, "%d.%d%%", t->pct_posted / 10, t->pct_posted % 10);
		snprintf(calc, len, "%ld.%ld%%", pm / 10, pm % 10);
	} else {
		snprintf(posted, len, "%d%%", t->pct_posted);
		snprintf(calc, len, "%ld%%", timefmt_gnu_percent(&c));
	}
}

/* What cannot be read (msg names its line, lineno): an error, or with
 * skip_bad one line to the sink's note on the second pass. -1 with err,
 * or 0. */
static int refuse(struct posted *ps, int lineno, const char *msg, char *err, size_t errlen)
{
	if (!ps->skip_bad)
		return fmt_err(err, errlen, "%s (--skip-bad imports the rest)", msg);
	if (ps->emit && ps->emit->note) {
		char line[300];

		snprintf(line, sizeof(line), "skipped %s", msg);
		note(ps, NOTE_SKIPPED, lineno, line);
	}
	return 0;
}

/* A line that looks like a time line and does not parse: an error, or with
 * skip_bad one line to the sink's note on the second pass. far: the line
 * read but for its CPU % (timefmt.h's ERANGE), which the line then says. */
static int bad_line(struct posted *ps, int lineno, const char *what, const char *s,
		    const struct timeline *far, char *err, size_t errlen)
{
	char text[64], why[96] = "", msg[240], a[24], b[24];

	/* a run too, to what a kswapd or stall line below it sums */
	ps->kskipped++;
	if (ps->after_summary)
		ps->block_runs = ps->block_skipped = 0;
	ps->after_summary = false;
	ps->block_skipped++;
	if (far) {
		pct_texts(far, a, b, sizeof(a));
		snprintf(why, sizeof(why), "CPU %s is not user+sys over wall (%s): ", a, b);
	}
	snprintf(msg, sizeof(msg), "line %d: looks like %s but does not parse: %s%s", lineno, what,
		 why, fmt_escape(text, sizeof(text), s));
	return refuse(ps, lineno, msg, err, errlen);
}

/* A time line whose %P is a little off its times (timefmt.h's slack): read,
 * the posted figure kept, and the line named once, on the second pass. */
static void pct_note(struct posted *ps, int lineno, const struct timeline *t)
{
	char msg[160], a[24], b[24];

	if (!t->pct_off || !ps->emit || !ps->emit->note)
		return;
	pct_texts(t, a, b, sizeof(a));
	snprintf(msg, sizeof(msg), "line %d: CPU %s as posted, %s from its times; kept as posted",
		 lineno, a, b);
	note(ps, NOTE_PCT_OFF, lineno, msg);
}

/* Batch mode's mark after a time line (run_status_mark), cut off buf: the
 * run's status, RUN_OK (buf as it was) without one. */
static enum run_status cut_mark(char *buf)
{
	size_t n = strlen(buf), w;
	enum run_status st;
	char word[16];

	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	for (w = 0; w < n && !isspace((unsigned char)buf[n - w - 1]); w++)
		;
	if (w == n || w >= sizeof(word))
		return RUN_OK;
	memcpy(word, buf + n - w, w);
	word[w] = 0;
	if (run_status_parse(word, &st) || !*run_status_mark(st))
		return RUN_OK;
	buf[n - w] = 0;
	return st;
}

/* GNU time output at LINE (S: past its leading space), perhaps wrapped onto
 * the line at NEXT: GNU's default output is two lines, and mailers wrap it
 * further. Returns where reading goes on, or NULL with err. */
static const char *gnu_run(struct posted *ps, const char *line, const char *s, const char *next,
			   int *lineno, bool oom_here, char *err, size_t errlen)
{
	char one[2048], two[4096];
	struct timeline t;
	const char *eol2 = *next ? strchr(next, '\n') : NULL;
	size_t len2 = eol2 ? (size_t)(eol2 - next) : strlen(next);
	bool wrapped = false;
	enum run_status mark;

	snprintf(one, sizeof(one), "%s", line);
	mark = cut_mark(one);
	if (timefmt_parse_gnu(one, &t) != 0) {
		bool far = errno == ERANGE;

		snprintf(two, sizeof(two), "%s\n%.*s", line, (int)len2, next);
		mark = cut_mark(two);
		if (timefmt_parse_gnu(two, &t) != 0) {
			far |= errno == ERANGE;
			return bad_line(ps, *lineno, "GNU time output", s, far ? &t : NULL, err,
					errlen) ? NULL : next;
		}
		wrapped = true;
	}
	if (mark != RUN_OK)
		ps->status_next = mark;
	if (posted_run(ps, &t, false, line, strlen(line), oom_here, err, errlen))
		return NULL;
	pct_note(ps, *lineno, &t);
	if (!wrapped)
		return next;
	(*lineno)++;
	return eol2 ? eol2 + 1 : next + len2;
}

/* Whether free(1)'s header ("total used free shared ...") starts at the
 * word w, before end. */
static bool free_header_at(const char *w, const char *end)
{
	static const char *const want[] = { "total", "used", "free", "shared" };
	const char *e;

	for (size_t k = 0; k < 4; k++, w = e)
		if (!(w = word_in(w, end, &e)) || (size_t)(e - w) != strlen(want[k]) ||
		    strncmp(w, want[k], (size_t)(e - w)))
			return false;
	return true;
}

/* The free(1) header in the line from p to end, or NULL: a line that only
 * has those words is prose. */
static const char *free_header(const char *p, const char *end)
{
	const char *w, *e;

	for (; (w = word_in(p, end, &e)); p = e)
		if (free_header_at(w, end))
			return w;
	return NULL;
}

/* A free(1) block whose header line starts at P. Returns the start of the
 * line after it, or NULL with err. */
static const char *free_block(struct posted *ps, const char *p, int *lineno, char *err,
			      size_t errlen)
{
	const char *eol = strchr(p, '\n');
	size_t len = eol ? (size_t)(eol - p) : strlen(p);
	const char *hdr = free_header(p, p + len);
	struct free_parsed fp;
	struct mem_snapshot m;
	/* the block under this line's header, never one further down */
	int used = hdr ? freeblk_parse_at(p, hdr, &fp) : -1;

	if (used <= 0) {
		char line[64], text[64], msg[160];

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		snprintf(msg, sizeof(msg), "line %d: a free(1) header without a block that adds up: %s",
			 *lineno, fmt_escape(text, sizeof(text), line));
		if (refuse(ps, *lineno, msg, err, errlen))
			return NULL;
		/* and the rows under the header, which would read as headers */
		for (p = eol ? eol + 1 : p + len; *p; p = eol ? eol + 1 : p + strlen(p)) {
			const char *e, *w;

			eol = strchr(p, '\n');
			w = word_in(p, eol ? eol : p + strlen(p), &e);
			if (!w || !freeblk_row_at(w))
				break;
			(*lineno)++;
		}
		return p;
	}
	snap_from_free(&m, &fp);
	/* After a run it is that run's "after"; it is also the next
	 * run's "before" unless another free comes first. */
	if (ps->have_last && ps->last_open && !mem_snapshot_taken(&ps->last.free_after)) {
		ps->last.free_after = m;
		ps->last.swap_after_kib = m.swap_used;
	}
	ps->pending_free = m;
	ps->have_free = true;
	for (const char *q = p; q < p + used; q++)
		if (*q == '\n')
			(*lineno)++;
	p += used;
	while (*p && *p != '\n')
		p++;
	return *p == '\n' ? p + 1 : p;
}

/* Any other line names the runs below it: one ending in ':' always,
 * another unless a line ending in ':' came since the last run (so
 * "Throughput ..." under "pre4:" stays out), the last of them before the
 * runs (so "2.2.18" right above its runs, not the prose further up) but
 * one naming a kernel over one that names none. H, the line past its
 * leading space, is cut. */
static int header_line(struct posted *ps, char *h, char *err, size_t errlen)
{
	size_t hl = strlen(h);
	char clean[1200];
	bool colon;

	while (hl && isspace((unsigned char)h[hl - 1]))
		h[--hl] = 0;
	colon = hl && h[hl - 1] == ':';
	/* "On Thu, 18 Jan 2001, Marcelo Tosatti wrote:" names a quote */
	if (colon && ((hl >= 6 && !strcmp(h + hl - 6, "wrote:")) ||
		      (hl >= 7 && !strcmp(h + hl - 7, "writes:"))))
		return 0;
	if (!colon && ps->fresh_header && ps->header_colon) {
		char now[sizeof(ps->kernel)], cur[sizeof(ps->kernel)];

		/* "Mine:", then "2.4.13-ac5": the header stays, with that kernel */
		kernel_from_header(h, now, sizeof(now));
		kernel_from_header(ps->header, cur, sizeof(cur));
		if (now[0] && !cur[0])
			memcpy(ps->kernel, now, sizeof(now));
		return 0;
	}
	/* nor does text under a kernel replace it ("2.4.0+blk-13B", then
	 * "make -j4 bzImage, 32MB RAM") */
	if (!colon && ps->fresh_header) {
		char old[sizeof(ps->last.kernel_release)], now[sizeof(old)];

		kernel_from_header(ps->header, old, sizeof(old));
		kernel_from_header(h, now, sizeof(now));
		if (old[0] && !now[0])
			return 0;
	}
	if (close_group(ps, err, errlen))
		return -1;
	while (hl && (isspace((unsigned char)h[hl - 1]) || h[hl - 1] == ':'))
		h[--hl] = 0;
	snprintf(ps->header, sizeof(ps->header), "%s", fmt_escape(clean, sizeof(clean), h));
	ps->kernel[0] = 0;
	ps->fresh_header = true;
	ps->header_colon = colon;
	ps->command[0] = 0;
	return 0;
}

/* Whether p starts a clause of a reclaim line: "(p50 ", "kswapd awake ",
 * or a count then " of them", " direct stall", " memcg stall", "
 * compaction stall", " throttled", " OOM" or " lost". */
static bool rc_clause(const char *p)
{
	static const char *const after[] = { " of them", " direct stall", " memcg stall",
					     " compaction stall", " throttled", " OOM", " lost" };
	size_t d = strspn(p, "0123456789");

	if (!strncmp(p, "(p50 ", 5) || !strncmp(p, "kswapd awake ", 13))
		return true;
	for (size_t i = 0; d && i < sizeof(after) / sizeof(after[0]); i++)
		if (!strncmp(p + d, after[i], strlen(after[i])))
			return true;
	return false;
}

/* Reads the line at P, with the lines it leads (a wrapped GNU line, a free
 * block). Returns where reading goes on, or NULL with err. */
static const char *read_line(struct posted *ps, const char *p, int *lineno, char *err,
			     size_t errlen)
{
	const char *eol = strchr(p, '\n');
	size_t len = eol ? (size_t)(eol - p) : strlen(p);
	const char *next = eol ? eol + 1 : p + len;
	char line[2048], cmd[1024];
	struct timeline t;
	enum run_status st;
	double cpu_s;

	(*lineno)++;
	size_t keep = len < sizeof(line) ? len : sizeof(line) - 1;
	memcpy(line, p, keep);	/* no NUL within a line */
	line[keep] = 0;
	const char *s = line;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '>' || blank_line(line, strlen(line)) || rule_line(line, strlen(line)))
		return next;
	bool oom_here = strstr(line, "Out of Memory") || strstr(line, "Killed process");
	char bare[sizeof(line)];
	memcpy(bare, line, keep + 1);
	enum run_status mark = cut_mark(bare);
	int csh = timefmt_parse_csh(bare, &t);
	bool far = csh && errno == ERANGE;
	if (csh == 0) {
		if (mark != RUN_OK)
			ps->status_next = mark;
		if (posted_run(ps, &t, true, line, strlen(line), oom_here, err, errlen))
			return NULL;
		pct_note(ps, *lineno, &t);
		return next;
	}
	if (looks_like_csh(s))
		return bad_line(ps, *lineno, "a csh time line", s, far ? &t : NULL, err,
				errlen) ? NULL : next;
	if (strstr(line, "user") && strstr(line, "system"))
		return gnu_run(ps, line, s, next, lineno, oom_here, err, errlen);
	if (free_header(line, line + strlen(line)))
		return free_block(ps, p, lineno, err, errlen);
	if (kswapd_line(s, &cpu_s)) {
		kswapd_line_read(ps, *lineno, cpu_s);
		ps->after_summary = true;
		return next;
	}
	if (!strncmp(s, "reclaim: ", 9) || !strcmp(s, "n/a reclaim")) {
		/* thrashtop's own reclaim line and the lines it goes on with,
		 * indented further, each starting a clause of it ("n/a
		 * reclaim" goes on with none): no header, kept with no run */
		size_t ind = (size_t)(s - line), more;

		while (s[0] != 'n' && (more = strspn(next, " ")) > ind && rc_clause(next + more)) {
			(*lineno)++;
			next += strcspn(next, "\n");
			next += *next == '\n';
		}
		ps->after_summary = true;
		return next;
	}
	if (!strncmp(s, "stalls:", 7)) {
		/* a stall line cut for a mail: its indented fields after it */
		char whole[sizeof(line)];
		struct delays d;

		snprintf(whole, sizeof(whole), "%s", s);
		while ((*next == ' ' || *next == '\t') && strlen(whole) + 2 < sizeof(whole)) {
			size_t n = strcspn(next, "\n"), at = strlen(whole);

			snprintf(whole + at, sizeof(whole) - at, "\n%.*s", (int)n, next);
			if (timefmt_parse_stalls(whole, &d)) {
				whole[at] = '\0';
				break;
			}
			(*lineno)++;
			next += n + (next[n] == '\n');
		}
		if (stall_line(ps, whole))
			return next;
	}
	if (stall_line(ps, s))
		return next;
	if (oom_here) {
		ps->oom_next = true;
		victim_line(ps, s);
		return next;
	}
	if (!strncmp(s, "thrashtop: run ", 15)) {
		if (!run_status_parse(s + 15, &st))
			ps->status_next = st;
		return next;
	}
	if (prompt_line(line, strlen(line), cmd, sizeof(cmd))) {
		snprintf(ps->command, sizeof(ps->command), "%s", cmd);
		return next;
	}
	if (shell_prompt(s))
		return next;
	return header_line(ps, line + (s - line), err, errlen) ? NULL : next;
}

/* ---- a message flattened onto one line ---- */

/* A web archive's page saved as text, or a paste whose line breaks were
 * lost, holds a whole message on one line: prompts, time lines, free
 * blocks and quoted text one after another. Such a line is cut back into
 * the lines a post has, where those things start. */

#define FLAT_MIN 200		/* bytes: a mail's own lines are shorter */
#define FLAT_MAX (1 << 20)	/* bytes: the most of one message read */

static size_t span_len(struct span t)
{
	return (size_t)(t.e - t.b);
}

static bool span_is(struct span t, const char *w)
{
	return span_len(t) == strlen(w) && !strncasecmp(t.b, w, span_len(t));
}

static bool span_ends(struct span t, const char *w)
{
	size_t n = strlen(w);

	return span_len(t) >= n && !strncmp(t.e - n, w, n);
}

/* Digits and dots, a digit first, then suffix: "70.270u", "1.00user". */
static bool span_num_then(struct span t, const char *suffix)
{
	size_t n = strlen(suffix);

	if (span_len(t) <= n || !isdigit((unsigned char)*t.b) || !span_ends(t, suffix))
		return false;
	for (const char *p = t.b; p < t.e - n; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	return true;
}

/* "19670pf+0w": where a csh time line ends. */
static bool csh_last(struct span t)
{
	const char *p = t.b;

	while (p < t.e && isdigit((unsigned char)*p))
		p++;
	if (p == t.b || t.e - p < 5 || strncmp(p, "pf+", 3) || t.e[-1] != 'w')
		return false;
	for (p += 3; p < t.e - 1; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return isdigit((unsigned char)p[-1]);
}

/* A word ending in '.', '?' or '!' ends a sentence, but "i.e." and
 * "e.g." (a letter and a dot, twice or more) do not. */
static bool sentence_end(struct span t)
{
	const char *b = t.b;
	bool abbr = true;

	if (!span_len(t) || !strchr(".?!", t.e[-1]))
		return false;
	while (b < t.e && strchr("(\"'", *b))
		b++;
	if (t.e - b < 4)
		return true;
	for (const char *p = b; p < t.e && abbr; p += 2)
		abbr = p + 1 < t.e && isalpha((unsigned char)*p) && p[1] == '.';
	return !abbr;
}

/* "lenstra:~/src/qsort>", "user@box:~$", "[root@box:~]#", and a bare
 * word before "time" ("$ time", "lenstra% time", "root# time"): a shell
 * prompt; not a redirection ("2>"), an arrow ("->"), a tag
 * ("<linux/swap.h>") or a word that ends like one ("C#"). */
static bool prompt_word(struct span t, struct span next)
{
	size_t n = span_len(t);
	bool host = false;

	if (!n || !strchr(">$#%", t.e[-1]))
		return false;
	if (*t.b == '[')
		return n > 3 && t.e[-2] == ']' && t.e[-1] != '>' && memchr(t.b, '@', n);
	if (n == 1)
		return *t.b != '>' && span_is(next, "time");
	if (!isalpha((unsigned char)*t.b))
		return false;
	for (const char *p = t.b; p < t.e - 1; p++) {
		if (!isalnum((unsigned char)*p) && !strchr(":@~/._-", *p))
			return false;
		host |= strchr(":@~", *p) != NULL;
	}
	return (host && t.e[-1] != '%') || span_is(next, "time");
}

/* Does one of a post's lines start at token i of n? */
static bool line_starts(const struct span *t, size_t i, size_t n)
{
	struct span a = t[i];
	bool b = i + 1 < n;

	/* the whole of a csh or GNU time line's shape, not prose's "70.27u" */
	if (span_num_then(a, "u"))
		return i + 6 < n && span_num_then(t[i + 1], "s") && csh_last(t[i + 6]);
	if (span_num_then(a, "user"))
		return i + 2 < n && span_num_then(t[i + 1], "system") &&
		       span_ends(t[i + 2], "elapsed");
	if (b && span_is(t[i + 1], "kswapd")) {	/* "0:01 kswapd" */
		char two[40];
		double cpu_s;

		if ((size_t)(t[i + 1].e - a.b) >= sizeof(two))
			return false;
		snprintf(two, sizeof(two), "%.*s", (int)(t[i + 1].e - a.b), a.b);
		return kswapd_line(two, &cpu_s);
	}
	if (span_is(a, "out"))
		return i + 2 < n && span_is(t[i + 1], "of") && span_is(t[i + 2], "memory:");
	if (span_is(a, "killed"))
		return b && span_is(t[i + 1], "process") && !(i && span_is(t[i - 1], "memory:"));
	if (span_is(a, "total"))
		return free_header_at(a.b, t[n - 1].e);
	/* "[root@box qsort]#" */
	if (b && *a.b == '[' && memchr(a.b, '@', span_len(a)) && !memchr(a.b, ']', span_len(a)))
		return span_ends(t[i + 1], "]#") || span_ends(t[i + 1], "]$");
	return b && prompt_word(a, t[i + 1]);
}

/* The last word of a csh or GNU time line. */
static bool time_last(struct span t)
{
	return csh_last(t) || span_num_then(t, "swaps");
}

/* Batch mode's mark after a time line ("aborted"). */
static bool status_mark(struct span t)
{
	enum run_status st;
	char word[16];

	if (span_len(t) >= sizeof(word))
		return false;
	snprintf(word, sizeof(word), "%.*s", (int)span_len(t), t.b);
	return !run_status_parse(word, &st) && *run_status_mark(st);
}

/* Does a post's line end after token i: a time line, or its mark, or a
 * kswapd line? */
static bool line_ends(const struct span *t, size_t i, size_t n)
{
	if (time_last(t[i]))
		return !(i + 1 < n && status_mark(t[i + 1]));
	if (i && time_last(t[i - 1]))
		return status_mark(t[i]);
	return i && span_is(t[i], "kswapd") && line_starts(t, i - 1, n);
}

/* Where the free(1) block whose header is token i ends, or NULL. */
static const char *free_block_end(const struct span *t, size_t i, size_t n)
{
	struct free_parsed f;
	int used;

	if (!span_is(t[i], "total") || !line_starts(t, i, n))
		return NULL;
	used = freeblk_parse_at(t[i].b, t[i].b, &f);
	return used > 0 ? t[i].b + used : NULL;
}

/* A run's first line starts at token i: its time line, the prompt that
 * ran it, the OOM line before it, the free(1) block before it. */
static bool run_starts(const struct span *t, size_t i, size_t n)
{
	return i < n && line_starts(t, i, n) && !(i + 1 < n && span_is(t[i + 1], "kswapd"));
}

enum piece { PIECE_LINE, PIECE_PROSE, PIECE_QUOTE };

/* Appends the text from b to e as a line. Prose is kept only before a
 * run, and only its last sentence, the header that may name the run
 * ("... comparisons. Linux-2.4.14-pre7:"), from the first kernel in it if
 * it names one ("... for qsbench :) Linux-2.4.13:"); of a quote, only what
 * follows its last sentence, which the quote no longer covers ("> >unstable
 * numbers? swap=200M"). Neither is kept without a letter or digit. */
static void put_piece(struct sbuf *o, const struct span *t, size_t from, size_t to,
		      enum piece kind, bool before_run)
{
	const char *b = t[from].b, *e = t[to - 1].e;
	bool named = false, cut = false;

	if (kind != PIECE_LINE) {
		if (!before_run)
			return;
		for (size_t k = from; k + 1 < to; k++)
			if (sentence_end(t[k])) {
				b = t[k + 1].b;
				cut = true;
			}
		if (kind == PIECE_QUOTE && !cut)
			return;
		for (const char *p = b; p + 6 < e; p++)
			if ((p == b || p[-1] == ' ') && !strncasecmp(p, "linux-", 6) &&
			    isdigit((unsigned char)p[6])) {
				b = p;
				break;
			}
		for (const char *p = b; p < e && !named; p++)
			named = isalnum((unsigned char)*p);
		if (!named)
			return;
	}
	sb_putn(o, b, (size_t)(e - b));
	sb_putc(o, '\n');
}

/* The line from p, len bytes, cut into the lines it was, in *out (for
 * free()); 0 if it is shorter than FLAT_MIN, quoted, or holds at most one
 * of a post's lines and that one unquoted, and is read as it is; -1 out
 * of memory. */
static int unflatten(struct posted *ps, const char *p, size_t len, char **out)
{
	size_t n = 0, starts = 0;
	const char *end = p + len, *e, *w;
	struct sbuf o = { 0 };
	bool quote = false;

	*out = NULL;
	w = word_in(p, end, &e);
	if (len < FLAT_MIN || !w || *w == '>')
		return 0;
	for (; w; w = word_in(e, end, &e)) {
		if (n == ps->ntok) {
			size_t cap = ps->ntok ? ps->ntok * 2 : 256;
			struct span *nt = realloc(ps->tok, cap * sizeof(*nt));

			if (!nt)
				return -1;
			ps->tok = nt;
			ps->ntok = cap;
		}
		ps->tok[n++] = (struct span){ w, e };
	}
	/* two of a post's lines, or one behind a quote mark, which a line
	 * read as it is would take as the poster's */
	for (size_t i = 0; i < n && starts < 2; i++) {
		quote |= *ps->tok[i].b == '>';
		if (line_starts(ps->tok, i, n))
			starts += quote ? 2 : 1;
	}
	if (starts < 2)
		return 0;
	const struct span *t = ps->tok;
	size_t from = 0;
	/* quoted: inside a quote whose sentence goes on, where a time line
	 * or a prompt is still the quoted post's */
	bool quoted = false;
	enum piece kind = PIECE_PROSE;
	const char *block = NULL;	/* where a free block's piece ends */

	for (size_t i = 0; i < n; i++) {
		if (i) {
			if (quoted && sentence_end(t[i - 1]))
				quoted = false;
			if (!(*t[i].b == '>' || (block && t[i].b >= block) ||
			      line_ends(t, i - 1, n) || (!quoted && line_starts(t, i, n))))
				continue;
			put_piece(&o, t, from, i, kind, run_starts(t, i, n));
		}
		from = i;
		quoted |= *t[i].b == '>';
		kind = quoted ? PIECE_QUOTE : line_starts(t, i, n) ? PIECE_LINE : PIECE_PROSE;
		block = kind == PIECE_LINE ? free_block_end(t, i, n) : NULL;
	}
	put_piece(&o, t, from, n, kind, false);
	if (!o.s && !o.oom && !(o.s = strdup("")))	/* all of it quoted or prose */
		o.oom = true;
	if (o.oom) {
		free(o.s);
		return -1;
	}
	*out = o.s;
	return 0;
}

/* What a message says of the runs below it: its header, command, free
 * block, OOM line and batch mark, none yet. */
static void forget_message(struct posted *ps)
{
	ps->header[0] = ps->command[0] = ps->kernel[0] = 0;
	ps->header_colon = false;
	ps->fresh_header = ps->have_free = ps->oom_next = false;
	ps->status_next = RUN_OK;
	take_victims(ps, NULL);
}

static int read_pass(struct posted *ps, const char *text, char *err, size_t errlen)
{
	int lineno = 0;

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *flat;

		if (len > FLAT_MAX) {
			char msg[120];

			snprintf(msg, sizeof(msg), "line %d: %zu bytes on one line, more than a message"
				 " (%d) holds", lineno + 1, len, FLAT_MAX);
			if (refuse(ps, lineno + 1, msg, err, errlen))
				return -1;
			lineno++;
			p = eol ? eol + 1 : p + len;
			continue;
		}
		if (unflatten(ps, p, len, &flat) < 0)
			return fmt_err(err, errlen, "out of memory");
		if (!flat) {
			if (!(p = read_line(ps, p, &lineno, err, errlen)))
				return -1;
			continue;
		}
		/* a message of its own: what named the runs above does not
		 * name its runs */
		if (close_group(ps, err, errlen)) {
			free(flat);
			return -1;
		}
		forget_message(ps);
		/* each of its lines is named by the line it came from */
		for (const char *q = flat; q && *q;) {
			int l = lineno;

			q = read_line(ps, q, &l, err, errlen);
			if (!q) {
				free(flat);
				return -1;
			}
		}
		free(flat);
		lineno++;
		p = eol ? eol + 1 : p + len;
	}
	return close_group(ps, err, errlen);
}

static void pass_init(struct posted *ps, const char *label, bool skip_bad)
{
	ps->label = label && *label ? label : NULL;
	ps->skip_bad = skip_bad;
	forget_message(ps);
	ps->ordinal = 0;
	run_record_init(&ps->last);
	ps->have_last = ps->last_open = false;
	ps->nruns = ps->group_runs = ps->gi = ps->block_runs = ps->kspan = ps->kskipped = ps->block_skipped = 0;
	ps->after_summary = false;
}

int posted_read(const char *text, const char *label, bool skip_bad,
		const struct import_sink *sink, char *err, size_t errlen)
{
	struct posted ps = { 0 };
	int rc;

	pass_init(&ps, label, skip_bad);
	rc = read_pass(&ps, text, err, errlen);
	run_record_clear(&ps.last);
	if (rc == 0 && !ps.nruns)
		rc = fmt_err(err, errlen, "no csh or GNU time lines found");
	if (rc == 0) {
		pass_init(&ps, label, skip_bad);
		ps.emit = sink;
		rc = read_pass(&ps, text, err, errlen);
		run_record_clear(&ps.last);
		if (sink->note)
			notes_left(&ps);
	}
	free(ps.sizes);
	free(ps.kswapd);
	free(ps.tok);
	return rc;
}
