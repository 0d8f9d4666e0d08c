#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "confdiff.h"
#include "fmt.h"

#define MAX_KEYS 256

struct kv {
	char key[64];
	char *val;		/* whole: a command line or a label is compared to its end */
};

struct kvs {
	struct kv *v;
	size_t n;
};

/* The canonical keys as a reply names them; kib: a size in KiB. */
static const struct {
	const char *key, *name;
	bool kib;
} names[] = {
	{ "ram_kib", "ram", true },
	{ "kernel_version", "kernel version", false },
	{ "swappiness", "vm.swappiness", false },
	{ "vfs_cache_pressure", "vm.vfs_cache_pressure", false },
	{ "min_free_kbytes", "vm.min_free_kbytes", false },
	{ "watermark_scale_factor", "vm.watermark_scale_factor", false },
	{ "page_cluster", "vm.page-cluster", false },
	{ "overcommit_memory", "vm.overcommit_memory", false },
	{ "dirty_ratio", "vm.dirty_ratio", false },
	{ "dirty_background_ratio", "vm.dirty_background_ratio", false },
	{ "mem_limit_kib", "mem limit", true },
	{ "global_limit_kib", "global limit", true },
	{ "global_by", "global limit by", false },
	{ "shared_cores", "places on one machine's cores", false },
	{ "swap_total_kib", "swap", true },
	{ "tmp_swap_kib", "temporary swap", true },
	{ "hugetlb_kib", "hugetlb pool", true },
	{ "mlocked_256m", "mlocked (256M steps)", false },
	{ "change", "changes during the run", false },
};

static struct kv *find(struct kvs *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	return NULL;
}

/* 0, or -1 out of memory. */
static int put(struct kvs *s, const char *key, const char *val, bool append)
{
	struct kv *e = find(s, key);
	char *v;

	if (e && append) {
		size_t k = strlen(e->val), n = strlen(val);

		if (!(v = realloc(e->val, k + 2 + n + 1)))
			return -1;
		memcpy(v + k, ", ", 2);
		memcpy(v + k + 2, val, n + 1);
		e->val = v;
		return 0;
	}
	if (!(v = strdup(val)))
		return -1;
	if (!e) {
		if (s->n == MAX_KEYS) {
			free(v);
			return 0;
		}
		e = &s->v[s->n++];
		snprintf(e->key, sizeof(e->key), "%s", key);
	}
	free(e->val);
	e->val = v;
	return 0;
}

static void kvs_free(struct kvs *s)
{
	for (size_t i = 0; s->v && i < s->n; i++)
		free(s->v[i].val);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* 0, or -1 out of memory. */
static int add_line(struct kvs *s, const char *line, size_t len)
{
	char key[64], small[64];
	const char *eq = memchr(line, '=', len), *put_val;
	char *val;
	size_t k;
	bool kib = false, append = false;
	int rc;

	if (!eq)
		return 0;
	k = (size_t)(eq - line);
	snprintf(key, sizeof(key), "%.*s", (int)k, line);
	if (!(val = strndup(eq + 1, len - k - 1)))
		return -1;
	put_val = val;
	if (!strcmp(key, "sysctl")) {
		/* vm.NAME=VALUE set by the session: a key of its own */
		char *e = strchr(val, '=');

		rc = 0;
		if (e) {
			*e = '\0';
			rc = put(s, val, e + 1, false);
		}
		free(val);
		return rc;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i].key)) {
			snprintf(key, sizeof(key), "%s", names[i].name);
			kib = names[i].kib;
			append = !strcmp(names[i].key, "change");
		}
	if (kib && !strcmp(val, "n/a")) {
		if (strstr(key, "limit"))	/* NA: no limit, as show says */
			put_val = "none";
	} else if (kib) {
		char *end;
		long long v = strtoll(val, &end, 10);

		if (end != val && !*end) {
			fmt_kib(small, sizeof(small), v);
			put_val = small;
		}
	} else if (!strcmp(val, "-1")) {
		put_val = "n/a";
	} else if (!strcmp(key, "zswap")) {
		put_val = !strcmp(val, "1") ? "on" : "off";
	}
	rc = put(s, key, put_val, append);
	free(val);
	return rc;
}

/* The kinds of the swap areas in use, from /proc/swaps' body. */
static int swap_kinds(struct kvs *s, const char *body)
{
	char kinds[256] = "";
	size_t n = 0;

	for (const char *p = body ? body : ""; *p;) {
		size_t len = strcspn(p, "\n");
		char name[128], type[32];

		if (sscanf(p, "%127s %31s", name, type) == 2 && strcmp(name, "Filename") &&
		    !strstr(kinds, type))
			n += (size_t)snprintf(kinds + n, n < sizeof(kinds) ? sizeof(kinds) - n : 0,
					      "%s%s", n ? ", " : "", type);
		p += len + (p[len] == '\n');
	}
	if (n >= sizeof(kinds))
		kinds[sizeof(kinds) - 1] = '\0';
	return put(s, "swap areas", kinds[0] ? kinds : "none", false);
}

/* 0, or -1 out of memory with s freed. */
static int collect(const struct run_record *r, struct kvs *s)
{
	struct run_record tmp;
	const char *config = r->config;
	char *own = NULL;
	int rc = 0;

	s->n = 0;
	s->v = calloc(MAX_KEYS, sizeof(*s->v));
	if (!s->v)
		return -1;
	if (!config) {
		tmp = *r;
		tmp.config = NULL;
		if (run_record_config(&tmp)) {
			kvs_free(s);
			return -1;
		}
		config = own = tmp.config;
	}
	for (const char *p = config; *p && !rc;) {
		size_t len = strcspn(p, "\n");

		rc = add_line(s, p, len);
		if (!rc && !strncmp(p, "kernel_version=", 15) && !find(s, "cmdline"))
			rc = put(s, "cmdline", r->proc_cmdline ? r->proc_cmdline : "n/a", false);
		p += len + (p[len] == '\n');
	}
	free(own);
	if (!rc)
		rc = swap_kinds(s, r->swap_devices);
	if (rc) {
		kvs_free(s);
		return -1;
	}
	/* /proc/cmdline ends with a newline */
	struct kv *c = find(s, "cmdline");
	if (c)
		c->val[strcspn(c->val, "\n")] = '\0';
	return 0;
}

/* An empty value (no label, say) as show and list print it. */
static const char *shown(const char *val)
{
	return val[0] ? val : "-";
}

/* Bytes of context shown before where two long values first differ. */
#define CONTEXT 24

/* One side of a pair that does not fit: from byte at of v (a character's
 * start), "..." before when that is not v's start, cut with "..." where
 * it does not fit. */
static void window(char *buf, size_t len, const char *v, size_t at)
{
	size_t o = 0;

	if (at) {
		memcpy(buf, "...", 3);
		o = 3;
	}
	fmt_copy(buf + o, len - o, v + at);
}

/* from and to into c: whole where both fit; else each from a little
 * before where they first differ, so that the difference shows. */
static void shown_pair(struct conf_diff *c, const char *from, const char *to)
{
	size_t at = 0, start;

	if (strlen(from) < sizeof(c->from) && strlen(to) < sizeof(c->to)) {
		snprintf(c->from, sizeof(c->from), "%s", from);
		snprintf(c->to, sizeof(c->to), "%s", to);
		return;
	}
	while (from[at] && from[at] == to[at])
		at++;
	start = at > CONTEXT ? at - CONTEXT : 0;
	/* from a blank in the context if there is one, else a character */
	for (size_t i = start; i < at && start; i++)
		if (from[i] == ' ') {
			start = i + 1;
			break;
		}
	while (start && ((unsigned char)from[start] & 0xC0) == 0x80)
		start--;
	window(c->from, sizeof(c->from), from, start);
	window(c->to, sizeof(c->to), to, start);
}

int conf_diff(const struct run_record *a, const struct run_record *b,
	      struct conf_diff *d, size_t max)
{
	struct kvs x, y;
	int n = 0;

	if (collect(a, &x))
		return -1;
	if (collect(b, &y)) {
		kvs_free(&x);
		return -1;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct kvs *s = pass ? &y : &x, *o = pass ? &x : &y;

		for (size_t i = 0; i < s->n; i++) {
			struct kv *e = find(o, s->v[i].key);

			if (pass && e)
				continue;
			if (e && !strcmp(e->val, s->v[i].val))
				continue;
			if ((size_t)n < max) {
				struct conf_diff *c = &d[n];

				snprintf(c->key, sizeof(c->key), "%s", s->v[i].key);
				shown_pair(c, pass ? "-" : shown(s->v[i].val),
					   pass ? shown(s->v[i].val) : e ? shown(e->val) : "-");
			}
			n++;
		}
	}
	kvs_free(&x);
	kvs_free(&y);
	return n;
}

void conf_diff_text(FILE *f, const char *indent, const struct conf_diff *d, size_t n)
{
	int w = 0;

	if (n == 0) {
		fprintf(f, "%ssame configuration\n", indent);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(d[i].key) > w)
			w = (int)strlen(d[i].key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%-*s  %s -> %s\n", indent, w, d[i].key, d[i].from, d[i].to);
}

void conf_diff_json(FILE *f, const char *set, const char *against,
		    const struct conf_diff *d, size_t n)
{
	fprintf(f, "{\"set\": ");
	fmt_json_str(f, set);
	fprintf(f, ", \"against\": ");
	fmt_json_str(f, against);
	fprintf(f, ", \"same\": %s, \"differs\": [", n ? "false" : "true");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"key\": ", i ? ", " : "");
		fmt_json_str(f, d[i].key);
		fprintf(f, ", \"from\": ");
		fmt_json_str(f, d[i].from);
		fprintf(f, ", \"to\": ");
		fmt_json_str(f, d[i].to);
		fputc('}', f);
	}
	fprintf(f, "]}");
}
