/* `thrashtop history ...` */
#include "histcli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "history.h"
#include "import.h"
#include "posted.h"
#include "report.h"
#include "sweep.h"

enum fmt { F_DEFAULT, F_TEXT, F_CSV, F_JSON, F_TIME, F_TABLE };

struct hargs {
	const char *cmd;
	char **pos;
	int npos;
	enum fmt fmt;
	struct history_filter filt;
	struct report_opts ro;
	const char *import_label;
	const char *db;
	bool keys_set;		/* --rows or --cols given */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: thrashtop history [list | show ID | stats | compare A B... | export |\n"
		"                          import FILE | rm ID...] [options]\n"
		"  --format=text|csv|json|time|table   output (list, show, stats, export)\n"
		"  -L, --label=TEXT     only runs with this label (* ? [ as a glob);\n"
		"                       for import: the label given to posted lines\n"
		"  --kernel=TEXT        only runs whose kernel release or version has TEXT\n"
		"  --session=ID         only the runs of one tuning session\n"
		"  --limit=N            at most N runs, newest first\n"
		"  --rows=KEY --cols=KEY  table keys (kernel, label, swappiness, mem, swap,\n"
		"                       procs, nelems, any field of the export); with\n"
		"                       --session and neither, the sweep's own keys\n"
		"  --gnu                time lines as GNU time prints them (default csh)\n"
		"  --cov=PCT            unstable when the wall-time CoV passes PCT (5)\n"
		"  --outlier-z=Z        outlier when the modified z-score passes Z (3.5)\n"
		"  --history=PATH       the database (default $XDG_DATA_HOME/thrashtop/history.db)\n"
		"compare takes run IDs, g:ID (the group of run ID) or label:TEXT.\n"
		"import reads our csv and json exports, or posted csh/GNU time lines and\n"
		"free(1) output (FILE - is standard input).\n");
}

__attribute__((format(printf, 1, 2)))
static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "thrashtop: history: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static const char *optval(const char *arg, const char *name, int *i, int argc, char **argv)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n))
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n] == 0 && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static bool parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && *v >= 0;
}

static bool parse_id(const char *s, int64_t *id)
{
	char *end;

	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 1)
		return false;
	*id = v;
	return true;
}

static int parse_args(int argc, char **argv, struct hargs *a)
{
	memset(a, 0, sizeof(*a));
	report_opts_default(&a->ro);
	a->pos = calloc((size_t)argc + 1, sizeof(char *));
	if (!a->pos)
		return bad("%s", "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;
		double d;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			return 1;
		}
		if ((v = optval(arg, "--format", &i, argc, argv))) {
			static const char *const names[] = { "", "text", "csv", "json", "time", "table" };
			a->fmt = F_DEFAULT;
			for (int k = 1; k < 6; k++)
				if (!strcmp(v, names[k]))
					a->fmt = (enum fmt)k;
			if (a->fmt == F_DEFAULT)
				return bad("unknown format \"%s\" (text, csv, json, time, table)", v);
		} else if ((v = optval(arg, "--label", &i, argc, argv)) ||
			   (v = optval(arg, "-L", &i, argc, argv))) {
			a->filt.label = v;
			a->import_label = v;
		} else if ((v = optval(arg, "--kernel", &i, argc, argv))) {
			a->filt.kernel = v;
		} else if ((v = optval(arg, "--session", &i, argc, argv))) {
			a->filt.session = v;
		} else if ((v = optval(arg, "--limit", &i, argc, argv))) {
			if (!parse_num(v, &d) || d < 1 || d != (long)d)
				return bad("--limit: \"%s\" is not a count", v);
			a->filt.limit = (long)d;
		} else if ((v = optval(arg, "--rows", &i, argc, argv))) {
			a->ro.rows = v;
			a->keys_set = true;
		} else if ((v = optval(arg, "--cols", &i, argc, argv))) {
			a->ro.cols = v;
			a->keys_set = true;
		} else if (!strcmp(arg, "--gnu")) {
			a->ro.gnu = true;
		} else if ((v = optval(arg, "--cov", &i, argc, argv))) {
			if (!parse_num(v, &d))
				return bad("--cov: \"%s\" is not a percentage", v);
			a->ro.unstable_cov_pct = d;
		} else if ((v = optval(arg, "--outlier-z", &i, argc, argv))) {
			if (!parse_num(v, &d))
				return bad("--outlier-z: \"%s\" is not a number", v);
			a->ro.outlier_z = d;
		} else if ((v = optval(arg, "--history", &i, argc, argv))) {
			a->db = v;
		} else if (arg[0] == '-' && arg[1]) {
			return bad("unknown option \"%s\" (see thrashtop history --help)", arg);
		} else if (!a->cmd) {
			a->cmd = arg;
		} else {
			a->pos[a->npos++] = argv[i];
		}
	}
	if (!a->cmd)
		a->cmd = "list";
	return 0;
}

static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!nb) {
				free(buf);
				buf = NULL;
				snprintf(err, errlen, "%s: out of memory", path);
				break;
			}
			buf = nb;
		}
		size_t k = fread(buf + len, 1, 4096, f);
		len += k;
		if (k < 4096) {
			if (ferror(f)) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				free(buf);
				buf = NULL;
			}
			break;
		}
	}
	if (buf) {
		buf[len] = 0;
		if (strlen(buf) != len) {
			snprintf(err, errlen, "%s: binary data, not an export or posted text", path);
			free(buf);
			buf = NULL;
		}
	}
	if (f != stdin)
		fclose(f);
	return buf;
}

/* Loads the filtered runs; a history that does not exist yet is empty. */
static int load(const char *path, const struct history_filter *f, int flags,
		struct run_record **runs, size_t *n)
{
	char err[512];

	*runs = NULL;
	*n = 0;
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	struct history *h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	int rc = history_list(h, f, flags, runs, n, err, sizeof(err));
	history_close(h);
	if (rc) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	return 0;
}

static bool any_cell(const struct run_record *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].cell[0])
			return true;
	return false;
}

static int output(enum fmt fmt, struct run_record *runs, size_t n, const struct report_opts *ro,
		  bool sweep_keys)
{
	char err[256] = "";
	int rc = 0;

	/* A session's runs carry their sweep keys in their cells. */
	if (fmt == F_TABLE && sweep_keys && any_cell(runs, n))
		rc = sweep_table(stdout, runs, n, err, sizeof(err));
	else switch (fmt) {
	case F_CSV: rc = export_csv(stdout, runs, n); break;
	case F_JSON: rc = export_json(stdout, runs, n); break;
	case F_TIME: rc = report_time(stdout, runs, n, ro); break;
	case F_TABLE: rc = report_table(stdout, runs, n, ro, err, sizeof(err)); break;
	default: rc = report_text(stdout, runs, n, ro, err, sizeof(err)); break;
	}
	if (rc) {
		fprintf(stderr, "thrashtop: history: %s\n", err[0] ? err : strerror(errno));
		return err[0] ? 2 : 1;
	}
	return 0;
}

static int cmd_show(struct hargs *a, const char *path)
{
	char err[512];
	int64_t id;
	struct run_record r;

	if (a->npos != 1 || !parse_id(a->pos[0], &id))
		return bad("show needs one run ID, got \"%s\"", a->npos ? a->pos[0] : "");
	struct history *h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	int rc = history_get(h, id, &r, err, sizeof(err));
	history_close(h);
	if (rc) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return rc == 1 ? 2 : 1;
	}
	if (a->fmt == F_DEFAULT || a->fmt == F_TEXT)
		report_show(stdout, &r);
	else
		rc = output(a->fmt, &r, 1, &a->ro, false);
	run_record_clear(&r);
	return rc;
}

/* A, g:A or label:TEXT, resolved against every run. */
static int select_set(const char *arg, const struct run_record *runs, size_t n, int s, int *set)
{
	int64_t id;
	int found = 0;

	if (!strncmp(arg, "label:", 6)) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(runs[i].label, arg + 6) && set[i] < 0) {
				set[i] = s;
				found++;
			}
		return found;
	}
	bool group = !strncmp(arg, "g:", 2);
	if (!parse_id(arg + (group ? 2 : 0), &id))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (runs[i].id != id)
			continue;
		for (size_t j = 0; j < n; j++)
			if ((group ? !strcmp(runs[j].config_hash, runs[i].config_hash) : j == i) &&
			    set[j] < 0) {
				set[j] = s;
				found++;
			}
	}
	return found;
}

static int cmd_compare(struct hargs *a, const char *path)
{
	struct run_record *runs;
	size_t n;
	char err[256];

	if (a->npos < 2)
		return bad("%s", "compare needs at least two runs or groups (ID, g:ID, label:TEXT)");
	struct history_filter all = { 0 };
	int rc = load(path, &all, 0, &runs, &n);
	if (rc)
		return rc;
	int *set = malloc(sizeof(int) * (n ? n : 1));
	if (!set) {
		run_records_free(runs, n);
		return bad("%s", "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		set[i] = -1;
	for (int s = 0; s < a->npos; s++) {
		int k = select_set(a->pos[s], runs, n, s, set);
		if (k <= 0) {
			free(set);
			run_records_free(runs, n);
			return bad(k < 0 ? "compare: \"%s\" is not ID, g:ID or label:TEXT"
				   : "compare: no runs match \"%s\"", a->pos[s]);
		}
	}
	rc = report_compare(stdout, runs, n, set, (size_t)a->npos, (const char *const *)a->pos,
			    err, sizeof(err));
	if (rc)
		fprintf(stderr, "thrashtop: history: %s\n", err);
	free(set);
	run_records_free(runs, n);
	return rc ? 1 : 0;
}

static int cmd_import(struct hargs *a, const char *path)
{
	char err[512];
	struct run_record *runs = NULL;
	size_t n = 0, added = 0, dup = 0;

	if (a->npos != 1)
		return bad("%s", "import needs one FILE (- for standard input)");
	char *text = slurp(a->pos[0], err, sizeof(err));
	if (!text) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 2;
	}
	const char *s = text;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	int rc;
	if (*s == '{')
		rc = import_json(text, &runs, &n, err, sizeof(err));
	else if (!strncmp(text, "id,uuid,", 8))
		rc = import_csv(text, &runs, &n, err, sizeof(err));
	else
		rc = posted_read(text, a->import_label, &runs, &n, err, sizeof(err));
	free(text);
	if (rc) {
		fprintf(stderr, "thrashtop: history: %s: %s\n", a->pos[0], err);
		return 2;
	}
	struct history *h = history_open(path, 0, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		run_records_free(runs, n);
		return 1;
	}
	rc = history_begin(h, err, sizeof(err));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int k = history_add(h, &runs[i], err, sizeof(err));
		if (k < 0)
			rc = -1;
		else if (k == 1)
			dup++;
		else
			added++;
	}
	if (rc == 0)
		rc = history_commit(h, err, sizeof(err));
	else
		history_rollback(h);
	history_close(h);
	run_records_free(runs, n);
	if (rc) {
		fprintf(stderr, "thrashtop: history: import of %s failed, nothing imported: %s\n",
			a->pos[0], err);
		return 1;
	}
	printf("imported %zu run%s from %s (%zu already present)\n", added, added == 1 ? "" : "s",
	       a->pos[0], dup);
	return 0;
}

static int cmd_rm(struct hargs *a, const char *path)
{
	char err[512];
	int64_t id;

	if (a->npos < 1)
		return bad("%s", "rm needs run IDs");
	for (int i = 0; i < a->npos; i++)
		if (!parse_id(a->pos[i], &id))
			return bad("rm: \"%s\" is not a run ID", a->pos[i]);
	struct history *h = history_open(path, 0, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	int rc = history_begin(h, err, sizeof(err));
	for (int i = 0; rc == 0 && i < a->npos; i++) {
		parse_id(a->pos[i], &id);
		rc = history_rm(h, id, err, sizeof(err));
	}
	if (rc == 0)
		rc = history_commit(h, err, sizeof(err));
	else
		history_rollback(h);
	history_close(h);
	if (rc) {
		fprintf(stderr, "thrashtop: history: %s%s\n", err, rc == 1 ? "; nothing removed" : "");
		return rc == 1 ? 2 : 1;
	}
	printf("removed %d run%s\n", a->npos, a->npos == 1 ? "" : "s");
	return 0;
}

int histcli_main(int argc, char **argv, const char *db_path)
{
	struct hargs a;
	char pathbuf[4096], err[512];
	int rc = parse_args(argc, argv, &a);

	if (rc) {
		free(a.pos);
		return rc == 1 ? 0 : rc;
	}
	const char *path = a.db ? a.db : db_path;
	if (!path && !(path = history_default_path(pathbuf, sizeof(pathbuf), err, sizeof(err)))) {
		free(a.pos);
		fprintf(stderr, "thrashtop: %s\n", err);
		return 2;
	}
	struct run_record *runs;
	size_t n;
	if (!strcmp(a.cmd, "list") || !strcmp(a.cmd, "stats") || !strcmp(a.cmd, "export")) {
		if (a.npos) {
			rc = bad("unexpected argument \"%s\"", a.pos[0]);
		} else {
			/* Series only where they are printed or charted. */
			enum fmt fmt = a.fmt == F_DEFAULT && !strcmp(a.cmd, "export") ? F_JSON : a.fmt;
			int flags = fmt == F_TEXT || fmt == F_CSV || fmt == F_JSON ? HISTORY_DETAIL :
				    fmt == F_TIME || fmt == F_TABLE ? HISTORY_WORKERS : 0;
			rc = load(path, &a.filt, flags, &runs, &n);
			if (rc == 0) {
				if (!strcmp(a.cmd, "list") && a.fmt == F_DEFAULT) {
					if (n)
						report_list(stdout, runs, n);
					else
						printf("no runs recorded in %s\n", path);
				} else if (!strcmp(a.cmd, "stats") && a.fmt == F_DEFAULT) {
					report_stats(stdout, runs, n, &a.ro);
				} else {
					rc = output(a.fmt == F_DEFAULT ? F_JSON : a.fmt, runs, n, &a.ro,
					    a.filt.session && !a.keys_set);
				}
				run_records_free(runs, n);
			}
		}
	} else if (!strcmp(a.cmd, "show")) {
		rc = cmd_show(&a, path);
	} else if (!strcmp(a.cmd, "compare")) {
		rc = cmd_compare(&a, path);
	} else if (!strcmp(a.cmd, "import")) {
		rc = cmd_import(&a, path);
	} else if (!strcmp(a.cmd, "rm")) {
		rc = cmd_rm(&a, path);
	} else {
		rc = bad("unknown command \"%s\" (list, show, stats, compare, export, import, rm)", a.cmd);
	}
	free(a.pos);
	return rc;
}
