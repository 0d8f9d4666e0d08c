#include "runkey.h"

#include <stdio.h>
#include <string.h>

#include "fmt.h"

static const struct { const char *alias, *name; } key_alias[] = {
	{ "kernel", "kernel_release" }, { "mem", "mem_limit_kib" },
	{ "memory", "mem_limit_kib" }, { "global", "global_limit_kib" },
	{ "swap", "swap_total_kib" }, { "host", "hostname" }, { "ram", "ram_kib" },
	{ "page-cluster", "page_cluster" },
};

const struct hist_field *run_key(const char *name)
{
	for (size_t i = 0; i < sizeof(key_alias) / sizeof(key_alias[0]); i++)
		if (!strcmp(name, key_alias[i].alias))
			name = key_alias[i].name;
	if (!strncmp(name, "vm.", 3))
		name += 3;
	return hist_field_find(name);
}

bool run_key_kib(const struct hist_field *f)
{
	size_t a = strlen(f->name), b = strlen("_kib");

	return f->type == HF_I64 && a >= b && !strcmp(f->name + a - b, "_kib");
}

const char *run_key_whole(const struct run_record *r, const struct hist_field *f)
{
	const char *w;

	if (f->type != HF_STR && f->type != HF_PSTR)
		return NULL;
	w = f->type == HF_STR ? (const char *)r + f->off : *(char *const *)((const char *)r + f->off);
	return w ? w : "";
}

void run_key_text(const struct run_record *r, const struct hist_field *f, char *buf, size_t len)
{
	const char *whole = run_key_whole(r, f);

	if (whole) {
		fmt_copy(buf, len, whole[0] ? whole : "-");
		return;
	}
	if (run_key_kib(f)) {
		int64_t v = *(const int64_t *)((const char *)r + f->off);
		if (v == NA && strstr(f->name, "limit"))
			snprintf(buf, len, "none");
		else
			fmt_kib(buf, len, v);
		return;
	}
	if (r->kind != RUN_QSBENCH && (!strcmp(f->name, "nelems") || !strcmp(f->name, "procs") ||
					!strcmp(f->name, "seed"))) {
		snprintf(buf, len, "-");
		return;
	}
	if (!strcmp(f->name, "zswap")) {
		snprintf(buf, len, "%s", r->zswap == NA ? "n/a" : r->zswap ? "on" : "off");
		return;
	}
	hist_field_get(r, f, buf, len);
	if (!buf[0])
		snprintf(buf, len, "n/a");
}
