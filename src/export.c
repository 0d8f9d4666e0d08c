/* The history's runs as JSON and CSV. */
#include "export.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

static void json_field(FILE *f, const struct run_record *r, const struct hist_field *fl)
{
	char buf[64];

	if (fl->type == HF_PSTR) {
		const char *s = *(char *const *)((const char *)r + fl->off);
		if (s)
			fmt_json_str(f, s);
		else
			fputs("null", f);
		return;
	}
	if (fl->type == HF_STR || fl->type == HF_KIND || fl->type == HF_STATUS) {
		char big[512];
		hist_field_get(r, fl, big, sizeof(big));
		fmt_json_str(f, big);
		return;
	}
	hist_field_get(r, fl, buf, sizeof(buf));
	fputs(buf[0] ? buf : "null", f);
}

static void json_i64(FILE *f, int64_t v)
{
	if (v == NA)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, v);
}

/* ", \"key\": " and the value, for a member after an object's first. */
static void json_kv_i64(FILE *f, const char *key, int64_t v)
{
	fprintf(f, ", \"%s\": ", key);
	json_i64(f, v);
}

static void json_kv_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ", \"%s\": ", key);
	fmt_json_str(f, s);
}

static void json_snap(FILE *f, const struct mem_snapshot *m)
{
	if (!mem_snapshot_taken(m)) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++) {
		fprintf(f, "%s\"%s\": ", j ? ", " : "", mem_snapshot_key(j));
		json_i64(f, mem_snapshot_get(m, j));
	}
	fputc('}', f);
}

void export_num(FILE *f, double v, bool json)
{
	char t[32];

	if (isfinite(v)) {
		fmt_exact(t, sizeof(t), v);
		fputs(t, f);
	} else if (json) {
		fputs("null", f);
	}
}

/* Delay totals in seconds by name, the kernel's fields only; null when
 * none was taken. */
static void json_delays(FILE *f, const struct delays *d)
{
	int n = 0;

	if (!delays_known(d)) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (int k = 0; k < DL_N; k++) {
		if (isnan(d->s[k]))
			continue;
		fprintf(f, "%s\"%s\": ", n++ ? ", " : "", delay_name((enum delay_kind)k));
		export_num(f, d->s[k], true);
	}
	fputc('}', f);
}

static void json_workers(FILE *f, const struct run_record *r)
{
	fputc('[', f);
	for (int i = 0; i < r->nworkers; i++) {
		const struct run_worker *w = &r->workers[i];
		fprintf(f, "%s{\"pid\": %d", i ? ", " : "", w->pid);
		json_kv_str(f, "end", worker_end_name(w->end));
		json_kv_i64(f, "exit_code", w->exit_code);
		fprintf(f, ", \"signal\": %d", w->signal);
		json_kv_i64(f, "user_us", w->user_us);
		json_kv_i64(f, "sys_us", w->sys_us);
		json_kv_i64(f, "majflt", w->majflt);
		json_kv_i64(f, "minflt", w->minflt);
		json_kv_i64(f, "verify_errors", w->verify_errors);
		json_kv_i64(f, "first_bad", w->first_bad);
		fputs(", \"delays\": ", f);
		json_delays(f, &w->delays);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The run's reclaim events: seconds from its start, to the microsecond. */
static void json_events(FILE *f, const struct run_record *r)
{
	fputc('[', f);
	for (int i = 0; i < r->nevents; i++) {
		const struct run_event *e = &r->events[i];

		fprintf(f, "%s{\"kind\": \"%s\", \"t_s\": %.6f, \"dur_s\": %.6f, \"pid\": %d}",
			i ? ", " : "", e->kind, e->t_s, e->dur_s, e->pid);
	}
	fputc(']', f);
}

/* The OOM killer's victims: pid and comm as the kernel log named them. */
static void json_victims(FILE *f, const struct run_record *r)
{
	fputc('[', f);
	for (int i = 0; i < r->nvictims; i++) {
		fprintf(f, "%s{\"pid\": %d", i ? ", " : "", r->victims[i].pid);
		json_kv_str(f, "comm", r->victims[i].comm);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The command's own figures (--metric): value null where it gave none. */
static void json_metrics(FILE *f, const struct run_record *r)
{
	fputc('[', f);
	for (int i = 0; i < r->nmetrics; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		fmt_json_str(f, r->metrics[i].name);
		fputs(", \"value\": ", f);
		export_num(f, r->metrics[i].value, true);
		fprintf(f, ", \"better\": \"%s\"}", r->metrics[i].higher ? "higher" : "lower");
	}
	fputc(']', f);
}

static void json_changes(FILE *f, const struct run_record *r)
{
	char t[32];

	fputc('[', f);
	for (int i = 0; i < r->nchanges; i++) {
		const struct run_sysctl_change *c = &r->changes[i];
		/* shortest text that reads back to the same double */
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(t, sizeof(t), "%.*g", prec, c->t_s);
			if (strtod(t, NULL) == c->t_s)
				break;
		}
		fprintf(f, "%s{\"t_s\": %s", i ? ", " : "", t);
		json_kv_str(f, "name", c->name);
		json_kv_str(f, "old", c->old_val);
		json_kv_str(f, "new", c->new_val);
		fputc('}', f);
	}
	fputc(']', f);
}

/* Each value at its quantum's decimals (whole KiB, thousandths of a
 * rate, milliseconds), which reads back to what the history keeps,
 * gathered in a block and written a block at a time: a history holds
 * millions. */
static void json_values(FILE *f, char *buf, size_t size, size_t *o, const char *name,
			const double *v, int n, double quantum)
{
	int dec = quantum >= 1 ? 0 : quantum >= 0.1 ? 1 : quantum >= 0.01 ? 2 : 3;

	*o += (size_t)snprintf(buf + *o, size - *o, ", \"%s\": [", name);
	for (int i = 0; i < n; i++) {
		if (*o > size - FMT_FIXED_LEN) {
			fwrite(buf, 1, *o, f);
			*o = 0;
		}
		if (i)
			buf[(*o)++] = ',';
		if (isnan(v[i])) {
			memcpy(buf + *o, "null", 4);
			*o += 4;
		} else {
			*o += fmt_fixed(buf + *o, fabs(v[i]) < 1e15 ? v[i] : copysign(1e15, v[i]), dec);
		}
	}
	buf[(*o)++] = ']';
}

/* Each recorded series under its registry name, aligned with t. */
static void json_series(FILE *f, const struct run_record *r)
{
	char buf[8192];
	size_t o;

	o = (size_t)snprintf(buf, sizeof(buf), "{\"nsamples\": %d", r->nsamples);
	if (r->nsamples > 0)
		json_values(f, buf, sizeof(buf), &o, "t", r->t, r->nsamples, 0.001);
	for (int s = 0; s < M_N && r->nsamples > 0; s++)
		if (r->series[s])
			json_values(f, buf, sizeof(buf), &o, metric_def(s)->name, r->series[s],
				    r->nsamples, metric_def(s)->quantum);
	buf[o++] = '}';
	fwrite(buf, 1, o, f);
}

void export_json_begin(FILE *f)
{
	fputs("{\"thrashtop_history\": 1, \"runs\": [", f);
}

void export_json_run(FILE *f, const struct run_record *r, bool first)
{
	fprintf(f, "%s\n  {\"id\": %" PRId64, first ? "" : ",", r->id);
	for (size_t k = 0; k < history_nfields; k++) {
		/* the stall fields go together, as "stalls" */
		if (!strncmp(history_fields[k].name, "stall_", 6))
			continue;
		fprintf(f, ",\n   \"%s\": ", history_fields[k].name);
		json_field(f, r, &history_fields[k]);
	}
	fputs(",\n   \"stalls\": ", f);
	json_delays(f, &r->stalls);
	fputs(",\n   \"free_before\": ", f);
	json_snap(f, &r->free_before);
	fputs(",\n   \"free_after\": ", f);
	json_snap(f, &r->free_after);
	fputs(",\n   \"workers\": ", f);
	json_workers(f, r);
	fputs(",\n   \"sysctl_changes\": ", f);
	json_changes(f, r);
	fputs(",\n   \"events\": ", f);
	json_events(f, r);
	fputs(",\n   \"victims\": ", f);
	json_victims(f, r);
	fputs(",\n   \"metrics\": ", f);
	json_metrics(f, r);
	fputs(",\n   \"series\": ", f);
	json_series(f, r);
	fputc('}', f);
}

int export_json_end(FILE *f)
{
	fputs("\n]}\n", f);
	return ferror(f) ? -1 : 0;
}

int export_json(FILE *f, const struct run_record *runs, size_t n)
{
	export_json_begin(f);
	for (size_t i = 0; i < n; i++)
		export_json_run(f, &runs[i], i == 0);
	return export_json_end(f);
}

/* The nested parts as JSON text in one cell each. */
static void csv_nested(FILE *f, const struct run_record *r, void (*fn)(FILE *, const struct run_record *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	fn(m, r);
	fclose(m);
	fputc(',', f);
	fmt_csv_cell_n(f, buf ? buf : "", buf ? len : 0);
	free(buf);
}

void export_csv_begin(FILE *f)
{
	fputs("id", f);
	for (size_t k = 0; k < history_nfields; k++)
		fprintf(f, ",%s", history_fields[k].name);
	for (int b = 0; b < 2; b++)
		for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++)
			fprintf(f, ",free_%s_%s", b ? "after" : "before", mem_snapshot_key(j));
	fputs(",workers,sysctl_changes,events,victims,metrics,series\n", f);
}

void export_csv_run(FILE *f, const struct run_record *r)
{
	fprintf(f, "%" PRId64, r->id);
	for (size_t k = 0; k < history_nfields; k++) {
		const struct hist_field *fl = &history_fields[k];
		fputc(',', f);
		if (fl->type == HF_PSTR) {
			const char *s = *(char *const *)((const char *)r + fl->off);
			fmt_csv_cell(f, s ? s : "");
		} else {
			char buf[512];
			hist_field_get(r, fl, buf, sizeof(buf));
			fmt_csv_cell(f, buf);
		}
	}
	for (int b = 0; b < 2; b++)
		for (int j = 0; j < MEM_SNAPSHOT_NFIELDS; j++) {
			int64_t v = mem_snapshot_get(b ? &r->free_after : &r->free_before, j);
			if (v == NA)
				fputc(',', f);
			else
				fprintf(f, ",%" PRId64, v);
		}
	csv_nested(f, r, json_workers);
	csv_nested(f, r, json_changes);
	csv_nested(f, r, json_events);
	csv_nested(f, r, json_victims);
	csv_nested(f, r, json_metrics);
	csv_nested(f, r, json_series);
	fputc('\n', f);
}

int export_csv_end(FILE *f)
{
	return ferror(f) ? -1 : 0;
}

int export_csv(FILE *f, const struct run_record *runs, size_t n)
{
	export_csv_begin(f);
	for (size_t i = 0; i < n; i++)
		export_csv_run(f, &runs[i]);
	return export_csv_end(f);
}
