#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "confdiff.h"
#include "fmt.h"

#define MAX_KEYS 256

struct kv {
	char key[64];
	char val[256];
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

static void put(struct kvs *s, const char *key, const char *val, bool append)
{
	struct kv *e = find(s, key);

	if (e && append) {
		size_t k = strlen(e->val);
		snprintf(e->val + k, sizeof(e->val) - k, ", %s", val);
		return;
	}
	if (!e) {
		if (s->n == MAX_KEYS)
			return;
		e = &s->v[s->n++];
		snprintf(e->key, sizeof(e->key), "%s", key);
	}
	snprintf(e->val, sizeof(e->val), "%s", val);
}

static void add_line(struct kvs *s, const char *line, size_t len)
{
	char key[64], val[256];
	const char *eq = memchr(line, '=', len);
	size_t k;
	bool kib = false, append = false;

	if (!eq)
		return;
	k = (size_t)(eq - line);
	snprintf(key, sizeof(key), "%.*s", (int)k, line);
	snprintf(val, sizeof(val), "%.*s", (int)(len - k - 1), eq + 1);
	if (!strcmp(key, "sysctl")) {
		/* vm.NAME=VALUE set by the session: a key of its own */
		char *e = strchr(val, '=');

		if (!e)
			return;
		*e = '\0';
		put(s, val, e + 1, false);
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i].key)) {
			snprintf(key, sizeof(key), "%s", names[i].name);
			kib = names[i].kib;
			append = !strcmp(names[i].key, "change");
		}
	if (kib && !strcmp(val, "n/a")) {
		if (strstr(key, "limit"))	/* NA: no limit, as show says */
			snprintf(val, sizeof(val), "none");
	} else if (kib) {
		char *end;
		long long v = strtoll(val, &end, 10);

		if (end != val && !*end)
			fmt_kib(val, sizeof(val), v);
	} else if (!strcmp(val, "-1")) {
		snprintf(val, sizeof(val), "n/a");
	} else if (!strcmp(key, "zswap")) {
		snprintf(val, sizeof(val), "%s", !strcmp(val, "1") ? "on" : "off");
	}
	put(s, key, val, append);
}

/* The kinds of the swap areas in use, from /proc/swaps' body. */
static void swap_kinds(struct kvs *s, const char *body)
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
	put(s, "swap areas", kinds[0] ? kinds : "none", false);
}

static int collect(const struct run_record *r, struct kvs *s)
{
	struct run_record tmp;
	const char *config = r->config;
	char *own = NULL;

	s->n = 0;
	s->v = calloc(MAX_KEYS, sizeof(*s->v));
	if (!s->v)
		return -1;
	if (!config) {
		tmp = *r;
		tmp.config = NULL;
		if (run_record_config(&tmp))
			return -1;
		config = own = tmp.config;
	}
	for (const char *p = config; *p;) {
		size_t len = strcspn(p, "\n");

		add_line(s, p, len);
		if (!strncmp(p, "kernel_version=", 15) && !find(s, "cmdline"))
			put(s, "cmdline", r->proc_cmdline ? r->proc_cmdline : "n/a", false);
		p += len + (p[len] == '\n');
	}
	free(own);
	swap_kinds(s, r->swap_devices);
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

int conf_diff(const struct run_record *a, const struct run_record *b,
	      struct conf_diff *d, size_t max)
{
	struct kvs x, y;
	int n = 0;

	if (collect(a, &x) || collect(b, &y)) {
		free(x.v);
		free(y.v);
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
				snprintf(c->from, sizeof(c->from), "%s", pass ? "-" : shown(s->v[i].val));
				snprintf(c->to, sizeof(c->to), "%s",
					 pass ? shown(s->v[i].val) : e ? shown(e->val) : "-");
			}
			n++;
		}
	}
	free(x.v);
	free(y.v);
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
