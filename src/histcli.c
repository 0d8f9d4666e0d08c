/* `thrashtop history ...` */
#include "histcli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "chart.h"
#include "compare.h"
#include "crosstab.h"
#include "export.h"
#include "fmt.h"
#include "histfile.h"
#include "history.h"
#include "import.h"
#include "pcpexport.h"
#include "posted.h"
#include "replay.h"
#include "report.h"
#include "runkey.h"
#include "runsource.h"
#include "sweep.h"
#include "sysio.h"
#include "tui.h"

/* Reports go through an escaping stream: what was recorded reaches the
 * terminal as text, never as control sequences. */
static FILE *out;

enum fmt { F_DEFAULT, F_TEXT, F_CSV, F_JSON, F_TIME, F_TABLE, F_SVG, F_GNUPLOT, F_CAST, F_PCP };

struct hargs {
	const char *cmd;
	bool default_db;	/* no --history: the default path, made if missing */
	char **pos;
	int npos;
	enum fmt fmt;
	struct history_filter filt;
	struct report_opts ro;
	const char *import_label;
	bool skip_bad;		/* import: leave out time lines that do not parse */
	const char *db;
	bool keys_set;		/* --rows or --cols given */
	const char *svg;	/* plot: --svg FILE */
	const char *series;	/* plot, replay: --series LIST */
	double speed;		/* replay: --speed X */
	const char *cast;	/* replay: --cast FILE */
	int cols, rows;		/* a recording's --size WxH, 0: 100x30 */
	bool all;		/* list: every run, not a page; stats: every run's line */
	unsigned given;		/* the options given, an OPT_BIT each */
	char err[512];		/* bad usage or input: the one line to print */
};

/* What `history list` shows without --limit or --all: a page of the newest. */
#define LIST_PAGE 1000

/* A command of `thrashtop history`, as tmux's cmd_entry: its name, the
 * arguments it takes for the usage line, what runs it, and the options it
 * reads in each format (OPT_BITs; 0 for a format it does not print).
 * exec returns the exit status, or -1 for bad usage or input with a->err
 * filled. */
struct hcmd {
	const char *name, *args;
	int (*exec)(struct hargs *a, const char *path);
	unsigned opts[F_PCP + 1];
};

static const struct hcmd cmds[];
#define NCMDS 9

static void usage(FILE *f)
{
	fputs("usage: thrashtop history [", f);
	for (int i = 0; i < NCMDS; i++)
		fprintf(f, "%s%s%s", cmds[i].name, cmds[i].args, i + 1 == NCMDS ? "" : i == 3 || i == 7 ?
			" |\n                          " : " | ");
	fprintf(f, "] [options]\n"
		"  --format=text|csv|json|time|table   output (list, show, stats, export;\n"
		"                       stats: csv and json give its statistics;\n"
		"                       compare: json, what differs in the configuration)\n"
		"  --format=svg|gnuplot  plot: an SVG, or the data with a gnuplot script\n"
		"  --format=asciicast   export ID: the run's replay as an asciicast v2\n"
		"                       recording (also replay ID --cast FILE)\n"
		"  --format=pcp         export [ID...] DIR: each run as a Performance\n"
		"                       Co-Pilot archive, DIR/thrashtop-run-ID\n"
		"  --size=WxH           the recording's terminal size, %dx%d to 1000x1000\n"
		"                       (default 100x30)\n"
		"  --speed=X            replay and its recording: X times real time,\n"
		"                       0.25 to 64 (default 1)\n"
		"  --svg=FILE           plot: write the SVG to FILE\n"
		"  --series=LIST        plot, replay: the series, as --list-plots names them\n"
		"                       (plot's default swap-used,free,majflt,kswapd-cpu;\n"
		"                       replay's the monitor's default layout for the run)\n"
		"  -L, --label=TEXT     only runs with this label (* ? [ as a glob);\n"
		"                       for import: the label given to posted lines\n"
		"  --kernel=TEXT        only runs whose kernel release or version has TEXT\n"
		"  --session=ID         only the runs of one tuning session\n"
		"  --limit=N            at most N runs, newest first\n"
		"  --all                list: every run (else the newest 1000);\n"
		"                       stats: every run's line (else a group's newest 50)\n"
		"  --rows=KEY --cols=KEY  table keys (kernel, label, swappiness, mem, swap,\n"
		"                       procs, nelems, any field of the export); with\n"
		"                       --session and neither, the sweep's own keys\n"
		"  --gnu                time lines as GNU time prints them (default csh)\n"
		"  --cov=PCT            unstable when the wall-time CoV passes PCT (5)\n"
		"  --outlier-z=Z        outlier when the modified z-score passes Z (3.5)\n"
		"  --history=PATH       the database (default\n"
		"                       $XDG_DATA_HOME/thrashtop/history.db)\n"
		"compare takes run IDs, g:ID (the group of run ID), label:TEXT, or\n"
		"session:ID (a set for each place or sweep cell of the session).\n"
		"  --skip-bad           import: leave out posted time lines that do not\n"
		"                       parse (named on stderr) instead of refusing the file\n"
		"import reads our csv and json exports, or posted csh/GNU time lines and\n"
		"free(1) output (FILE - is standard input), or another machine's history\n"
		"database (each run once, by its uuid).\n", TUI_MIN_COLS, TUI_MIN_ROWS);
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
	long long v = 0;
	bool ok = !fmt_parse_whole(s, 1, INT64_MAX, &v);

	*id = v;
	return ok;
}

/* A command given too many or too few arguments: what it takes and what it
 * got, both named. */
static int wrong_count(struct hargs *a, const char *takes)
{
	char got[256] = "", word[128];
	size_t o = 0;

	if (!a->npos)
		return fmt_err(a->err, sizeof(a->err), "%s takes %s, got none", a->cmd, takes);
	for (int i = 0; i < a->npos && o < sizeof(got); i++)
		o += (size_t)snprintf(got + o, sizeof(got) - o, " %s",
				      fmt_escape(word, sizeof(word), a->pos[i]));
	if (o >= sizeof(got))
		memcpy(got + sizeof(got) - 5, " ...", 5);
	return fmt_err(a->err, sizeof(a->err), "%s takes %s, got %d:%s", a->cmd, takes, a->npos, got);
}

enum { OPT_FORMAT = 256, OPT_KERNEL, OPT_SESSION, OPT_LIMIT, OPT_ROWS, OPT_COLS, OPT_ALL,
       OPT_SKIP_BAD, OPT_GNU, OPT_COV, OPT_OUTLIER_Z, OPT_HISTORY, OPT_SVG, OPT_SERIES,
       OPT_SPEED, OPT_CAST, OPT_SIZE };

/* An option's bit in hargs.given and hcmd.opts. */
#define OPT_BIT(c) (1u << ((c) == 'L' ? 0 : (c) - OPT_FORMAT + 1))
#define O_DB OPT_BIT(OPT_HISTORY)
#define O_FILTER (OPT_BIT('L') | OPT_BIT(OPT_KERNEL) | OPT_BIT(OPT_SESSION) | OPT_BIT(OPT_LIMIT))

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "label", required_argument, NULL, 'L' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "session", required_argument, NULL, OPT_SESSION },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "rows", required_argument, NULL, OPT_ROWS },
	{ "cols", required_argument, NULL, OPT_COLS },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "skip-bad", no_argument, NULL, OPT_SKIP_BAD },
	{ "gnu", no_argument, NULL, OPT_GNU },
	{ "cov", required_argument, NULL, OPT_COV },
	{ "outlier-z", required_argument, NULL, OPT_OUTLIER_Z },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "series", required_argument, NULL, OPT_SERIES },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "cast", required_argument, NULL, OPT_CAST },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ 0, 0, 0, 0 },
};

static const char *const fmt_names[] = { "", "text", "csv", "json", "time", "table", "svg",
					 "gnuplot", "asciicast", "pcp" };

static int parse_format(const char *v, struct hargs *a)
{
	a->fmt = F_DEFAULT;
	for (int k = 1; k <= F_PCP; k++)
		if (!strcmp(v, fmt_names[k]))
			a->fmt = (enum fmt)k;
	if (a->fmt == F_DEFAULT)
		return fmt_err(a->err, sizeof(a->err), "unknown format \"%s\" (text, csv, json, time, "
			       "table, svg, gnuplot, asciicast, pcp)", v);
	return 0;
}

/* One option (c as getopt_long gives it, v its value). The one switch
 * over every option: one case each. */
static int parse_option(int c, const char *v, struct hargs *a)
{
	double d;
	char *end, x;
	int used = 0;

	a->given |= OPT_BIT(c);
	switch (c) {
	case OPT_FORMAT:
		return parse_format(v, a);
	case 'L':
		if (fmt_label_arg("--label", v, a->err, sizeof(a->err)))
			return -1;
		a->filt.label = v;
		a->import_label = v;
		break;
	case OPT_KERNEL:
		a->filt.kernel = v;
		break;
	case OPT_SESSION:
		a->filt.session = v;
		break;
	case OPT_LIMIT:
		if (!parse_num(v, &d) || d < 1 || d != (long)d)
			return fmt_err(a->err, sizeof(a->err), "--limit: \"%s\" is not a count", v);
		a->filt.limit = (long)d;
		break;
	case OPT_ROWS:
	case OPT_COLS:
		*(c == OPT_ROWS ? &a->ro.rows : &a->ro.cols) = v;
		a->keys_set = true;
		break;
	case OPT_ALL:
		a->all = true;
		a->ro.lines = 0;
		break;
	case OPT_SKIP_BAD:
		a->skip_bad = true;
		break;
	case OPT_GNU:
		a->ro.gnu = true;
		break;
	case OPT_COV:
		if (!parse_num(v, &d))
			return fmt_err(a->err, sizeof(a->err), "--cov: \"%s\" is not a percentage", v);
		a->ro.unstable_cov_pct = d;
		break;
	case OPT_OUTLIER_Z:
		if (!parse_num(v, &d))
			return fmt_err(a->err, sizeof(a->err), "--outlier-z: \"%s\" is not a number", v);
		a->ro.outlier_z = d;
		break;
	case OPT_HISTORY:
		a->db = v;
		break;
	case OPT_SVG:
		if (!*v)
			return fmt_err(a->err, sizeof(a->err), "--svg: empty file name");
		a->svg = v;
		break;
	case OPT_SERIES:
		a->series = v;
		break;
	case OPT_SPEED:
		/* a decimal number: strtod also takes hex, inf and nan */
		a->speed = strtod(v, &end);
		if (end == v || *end || strspn(v, "0123456789.") != strlen(v) || !(a->speed >= REPLAY_SPEED_MIN && a->speed <= REPLAY_SPEED_MAX))
			return fmt_err(a->err, sizeof(a->err), "--speed: \"%s\": want %g to %g times real time",
				       v, REPLAY_SPEED_MIN, (double)REPLAY_SPEED_MAX);
		break;
	case OPT_CAST:
		if (!*v)
			return fmt_err(a->err, sizeof(a->err), "--cast: empty file name");
		a->cast = v;
		break;
	case OPT_SIZE:
		if (sscanf(v, "%d%c%d%n", &a->cols, &x, &a->rows, &used) != 3 || x != 'x' ||
		    v[used] || a->cols < TUI_MIN_COLS || a->cols > 1000 ||
		    a->rows < TUI_MIN_ROWS || a->rows > 1000 || strspn(v, "0123456789x") != strlen(v))
			return fmt_err(a->err, sizeof(a->err), "--size: \"%s\": want WIDTHxHEIGHT, "
				       "%dx%d to 1000x1000", v, TUI_MIN_COLS, TUI_MIN_ROWS);
		break;
	}
	return 0;
}

/* Options anywhere, the command the first other word, the rest its
 * arguments. Returns 0, 1 when help was asked for, -1 (a->err filled). */
static int parse_args(int argc, char **argv, struct hargs *a)
{
	char name[64];
	int c, at;

	memset(a, 0, sizeof(*a));
	report_opts_default(&a->ro);
	a->pos = calloc((size_t)argc + 1, sizeof(char *));
	if (!a->pos)
		return fmt_err(a->err, sizeof(a->err), "out of memory");
	opterr = 0;
	optind = 0;	/* glibc's full reset: main may have parsed before */
	/* '-': every other word in place, as 1; ':': a missing value as ':' */
	while ((at = optind ? optind : 1), (c = getopt_long(argc, argv, "-:hL:", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':')
			return fmt_err(a->err, sizeof(a->err), c == ':' ? "option \"%s\" needs a value"
				       : "unknown option \"%s\" (see thrashtop history --help)",
				       fmt_escape(name, sizeof(name), argv[at]));
		if (c != 1 && parse_option(c, optarg, a))
			return -1;
		if (c == 1 && !a->cmd)
			a->cmd = optarg;
		else if (c == 1)
			a->pos[a->npos++] = optarg;
	}
	/* after "--", words are arguments whatever they look like */
	for (; optind < argc; optind++)
		if (!a->cmd)
			a->cmd = argv[optind];
		else
			a->pos[a->npos++] = argv[optind];
	if (!a->cmd)
		a->cmd = "list";
	return 0;
}

/* The input's text, mapped rather than read so that a large import costs
 * page cache, not memory, and NUL-terminated by a zero page reserved after
 * it. Standard input, a pipe or a device is copied to an unnamed temporary
 * file first, up to IMPORT_COPY_MAX and only while it is text. */
#define IMPORT_COPY_MAX (1024LL << 20)
struct input {
	char *text;
	size_t len, maplen;
};

static int map_input(const char *path, struct input *in, char *err, size_t errlen)
{
	/* a FIFO whose writer has gone would block the open for ever: opened
	 * without waiting, it reads as empty */
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) :
		 dup(STDIN_FILENO);
	struct stat sb;
	long page = sysconf(_SC_PAGESIZE);

	memset(in, 0, sizeof(*in));
	if (fd >= 0 && strcmp(path, "-") && fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 || fstat(fd, &sb)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return fmt_err(err, errlen, "%s: %s", path, strerror(e));
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return fmt_err(err, errlen, "%s: a directory, not a file", path);
	}
	if (!S_ISREG(sb.st_mode)) {
		/* a pipe or a terminal: copied to a file that can be mapped */
		FILE *tmp = tmpfile();
		char buf[65536];
		ssize_t k = 0;
		long long total = 0;
		const char *why = NULL;
		while (tmp && !why && (k = read(fd, buf, sizeof(buf))) > 0) {
			if (memchr(buf, '\0', (size_t)k))
				why = "binary data, not an export or posted text";
			else if ((total += k) > IMPORT_COPY_MAX)
				why = "over 1024 MiB: not an export or posted text";
			else if (fwrite(buf, 1, (size_t)k, tmp) != (size_t)k)
				break;
		}
		int e = errno;
		close(fd);
		if (why) {
			fclose(tmp);
			return fmt_err(err, errlen, "%s: %s", path, why);
		}
		if (!tmp || k < 0 || fflush(tmp) || ferror(tmp)) {
			if (tmp)
				fclose(tmp);
			return fmt_err(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
		}
		fd = dup(fileno(tmp));
		fclose(tmp);
		if (fd < 0 || fstat(fd, &sb))
			return fmt_err(err, errlen, "%s: %s", path, strerror(errno));
	}
	in->len = (size_t)sb.st_size;
	in->maplen = (in->len / (size_t)page + 1) * (size_t)page;
	in->text = mmap(NULL, in->maplen, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (in->text == MAP_FAILED ||
	    (in->len && mmap(in->text, in->len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)) {
		int e = errno;
		if (in->text != MAP_FAILED)
			munmap(in->text, in->maplen);
		in->text = NULL;
		close(fd);
		return fmt_err(err, errlen, "%s: %s", path, strerror(e));
	}
	close(fd);
	if (strlen(in->text) != in->len) {
		munmap(in->text, in->maplen);
		in->text = NULL;
		return fmt_err(err, errlen, "%s: binary data, not an export or posted text", path);
	}
	return 0;
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

struct stream {
	bool json, first;
};

static int stream_run(struct run_record *r, void *arg)
{
	struct stream *st = arg;

	if (st->json)
		export_json_run(out, r, st->first);
	else
		export_csv_run(out, r);
	st->first = false;
	return ferror(out) ? -1 : 0;
}

/* CSV and JSON go out a run at a time, in bounded memory at any count. */
static int stream_export(const char *path, const struct history_filter *f, bool json)
{
	struct stream st = { json, true };
	struct history *h = NULL;
	char err[512] = "";
	int rc = 0;

	if (!(access(path, F_OK) != 0 && errno == ENOENT) &&
	    !(h = history_open(path, HISTORY_RDONLY, err, sizeof(err)))) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	if (json)
		export_json_begin(out);
	else
		export_csv_begin(out);
	if (h) {
		rc = history_each(h, f, HISTORY_DETAIL, stream_run, &st, err, sizeof(err));
		history_close(h);
	}
	if (!rc)
		rc = json ? export_json_end(out) : export_csv_end(out);
	if (rc) {
		fprintf(stderr, "thrashtop: history: %s\n", err[0] ? err : strerror(errno));
		return 1;
	}
	return 0;
}

struct listing {
	long shown, page;	/* page: rows to show, 0 for all */
	bool more;		/* a run beyond the page was found */
	struct list_cols cols;
};

static int list_run(struct run_record *r, void *arg)
{
	struct listing *l = arg;

	if (l->page && l->shown == l->page) {
		l->more = true;
		return 1;
	}
	if (!l->shown++)
		report_list_header(out, &l->cols);
	report_list_row(out, r, &l->cols);
	return ferror(out) ? -1 : 0;
}

/* What a list or stats that found no runs says: that the history is
 * empty (or not made yet), or that the filter given matched none of its
 * runs. */
static void say_none(const char *path, const struct history_filter *f)
{
	char l[160], k[160], s[160];

	if ((!f->label && !f->kernel && !f->session) || (access(path, F_OK) && errno == ENOENT)) {
		fprintf(out, "no runs recorded in %s\n", path);
		return;
	}
	fprintf(out, "no runs in %s match%s%s%s%s%s%s\n", path,
		f->label ? " -L " : "", f->label ? fmt_escape(l, sizeof(l), f->label) : "",
		f->kernel ? " --kernel " : "", f->kernel ? fmt_escape(k, sizeof(k), f->kernel) : "",
		f->session ? " --session " : "", f->session ? fmt_escape(s, sizeof(s), f->session) : "");
}

/* `history list` a row at a time, reading only the columns it shows; a
 * page of the newest unless a limit or all is asked for. */
static int stream_list(const char *path, const struct history_filter *f, bool all)
{
	struct history_filter pf = *f;
	struct listing l = { 0, 0, false, { 0 } };
	struct history *h = NULL;
	struct winsize ws;
	char err[512] = "";
	int rc = 0;

	/* a terminal's width; a file or a pipe gets every column */
	report_list_cols(isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) ?
			 ws.ws_col : 0, &l.cols);
	/* one more than the page tells whether there are more */
	if (!pf.limit && !all) {
		l.page = LIST_PAGE;
		pf.limit = LIST_PAGE + 1;
	}
	if (!(access(path, F_OK) != 0 && errno == ENOENT)) {
		if (!(h = history_open(path, HISTORY_RDONLY, err, sizeof(err)))) {
			fprintf(stderr, "thrashtop: history: %s\n", err);
			return 1;
		}
		rc = history_each(h, &pf, HISTORY_BRIEF, list_run, &l, err, sizeof(err));
		if (rc > 0)
			rc = 0;
		if (!rc && l.more)
			fprintf(out, "(older runs not shown: --all lists every run, --limit=N the newest N)\n");
		history_close(h);
	}
	if (!rc && !l.shown)
		say_none(path, f);
	if (rc || fflush(out) || ferror(out)) {
		fprintf(stderr, "thrashtop: history: %s\n", err[0] ? err : strerror(errno));
		return 1;
	}
	return 0;
}

typedef int report_fn(FILE *, struct run_source *, const struct report_opts *, char *, size_t);

/* The same over runs loaded (--limit): 0, or 1 with the error printed. */
static int loaded_report(const struct run_record *runs, size_t n, const struct report_opts *ro,
			 report_fn *report)
{
	char err[512] = "";
	struct run_source *src = run_source_array(runs, n, err, sizeof(err));
	int rc = !src || report(out, src, ro, err, sizeof(err));

	run_source_free(src);
	if (rc)
		fprintf(stderr, "thrashtop: history: %s\n", err[0] ? err : strerror(errno));
	return rc ? 1 : 0;
}

/* `history stats` and the time and text exports a group at a time from
 * the history; a history that does not exist yet has no groups. With
 * say_empty, no group is said in a line. */
static int stream_report(const char *path, const struct history_filter *f,
			 const struct report_opts *ro, report_fn *report, bool say_empty)
{
	struct run_source *src;
	struct history *h;
	char err[512] = "";

	if (access(path, F_OK) != 0 && errno == ENOENT) {
		int rc = loaded_report(NULL, 0, ro, report);

		if (!rc && say_empty)
			say_none(path, f);
		return rc;
	}
	if (!(h = history_open(path, HISTORY_RDONLY, err, sizeof(err)))) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	history_cache_mib(h, 32);
	src = run_source_history(h, f, err, sizeof(err));
	int rc = !src || report(out, src, ro, err, sizeof(err));
	if (!rc && say_empty && !src->ngroups)
		say_none(path, f);
	run_source_free(src);
	history_close(h);
	if (rc || fflush(out) || ferror(out)) {
		fprintf(stderr, "thrashtop: history: %s\n", err[0] ? err : strerror(errno));
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

/* The two keys of a table and what its cells need, the workload too: a
 * cell of unlike runs is said. */
struct table_fields {
	const char *names[10];
	struct history_filter f;
};

/* a's filter, narrowed to the fields the report in fmt reads where it
 * reads few: a history's runs hold much that a time line or a table
 * never shows. */
static const struct history_filter *report_filter(const struct hargs *a, enum fmt fmt,
						  struct table_fields *tf)
{
	const struct hist_field *rf = run_key(a->ro.rows), *cf = run_key(a->ro.cols);

	tf->f = a->filt;
	if (!strcmp(a->cmd, "export") && fmt == F_TIME) {
		tf->f.fields = report_time_fields;
	} else if (!strcmp(a->cmd, "export") && fmt == F_TABLE && !a->filt.session && rf && cf) {
		const char *names[10] = { rf->name, cf->name, "kind", "status", "wall_us",
					  "nelems", "procs", "seed", "command", NULL };
		memcpy(tf->names, names, sizeof(names));
		tf->f.fields = tf->names;
	}
	return &tf->f;
}

static int output(enum fmt fmt, struct run_record *runs, size_t n, const struct report_opts *ro,
		  bool sweep_keys)
{
	char err[256] = "";
	int rc = 0;

	if (fmt == F_TIME || fmt == F_TEXT)
		return loaded_report(runs, n, ro, fmt == F_TIME ? report_time : report_text);
	/* A session's runs carry their sweep keys in their cells. */
	if (fmt == F_TABLE && sweep_keys && any_cell(runs, n))
		rc = sweep_table(out, runs, n, err, sizeof(err));
	else switch (fmt) {
	case F_CSV: rc = export_csv(out, runs, n); break;
	case F_JSON: rc = export_json(out, runs, n); break;
	default: rc = crosstab_print(out, runs, n, ro, err, sizeof(err)); break;
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

	if (a->npos != 1)
		return wrong_count(a, "one run ID");
	if (!parse_id(a->pos[0], &id))
		return fmt_err(a->err, sizeof(a->err), "show: \"%s\" is not a run ID", a->pos[0]);
	/* a run asked of a history not made yet is one it does not hold */
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		fprintf(stderr, "thrashtop: history: %s: no run %" PRId64 " (no history yet)\n",
			path, id);
		return 2;
	}
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
	if ((a->fmt == F_DEFAULT || a->fmt == F_TEXT) && report_show(out, &r)) {
		fprintf(stderr, "thrashtop: history: %s\n", strerror(errno));
		rc = 1;
	} else if (a->fmt != F_DEFAULT && a->fmt != F_TEXT)
		rc = output(a->fmt, &r, 1, &a->ro, false);
	run_record_clear(&r);
	return rc;
}

/* A, g:A, label:TEXT or session:ID as the sets it names; false if it is
 * none of them. */
static bool compare_arg_of(const char *s, struct compare_arg *arg)
{
	bool group = !strncmp(s, "g:", 2);

	*arg = (struct compare_arg){ .by = group ? COMPARE_GROUP : COMPARE_RUN, .set = -1,
				     .text = s };
	if (!strncmp(s, "session:", 8)) {
		arg->by = COMPARE_SESSION;
		arg->session = s + 8;
		return s[8] != '\0';
	}
	if (!strncmp(s, "label:", 6)) {
		arg->by = COMPARE_LABEL;
		arg->label = s + 6;
		return s[6] != '\0';	/* an empty label would match every run */
	}
	return parse_id(s + (group ? 2 : 0), &arg->id);
}

static bool given_before(const struct hargs *a, int s)
{
	for (int t = 0; t < s; t++)
		if (!strcmp(a->pos[t], a->pos[s]))
			return true;
	return false;
}

/* The runs args[0..nargs) name in the history at path; none in a history
 * not made yet. */
static int compare_read(const char *path, struct compare_arg *args, size_t nargs,
			struct compare_sets *c)
{
	struct history *h;
	char err[512];
	int rc;

	memset(c, 0, sizeof(*c));
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return 0;
	if (!(h = history_open(path, HISTORY_RDONLY, err, sizeof(err)))) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	rc = compare_collect(h, args, nargs, compare_fields, c, err, sizeof(err));
	history_close(h);
	if (rc)
		fprintf(stderr, "thrashtop: history: %s\n", err);
	return rc ? 1 : 0;
}

static int cmd_compare(struct hargs *a, const char *path)
{
	struct compare_arg *args;
	struct compare_sets c;
	char err[256];
	int bad, rc;

	if (a->npos < 2 && (a->npos < 1 || strncmp(a->pos[0], "session:", 8)))
		return wrong_count(a, "two or more runs or groups (ID, g:ID, label:TEXT), or a "
				   "session's places (session:ID)");
	if (!(args = calloc((size_t)a->npos, sizeof(*args))))
		return fmt_err(a->err, sizeof(a->err), "out of memory");
	/* the arguments before the first one given twice or not understood;
	 * each set is what its argument names that no earlier one took */
	for (bad = 0; bad < a->npos; bad++)
		if (given_before(a, bad) || !compare_arg_of(a->pos[bad], &args[bad]))
			break;
	if ((rc = compare_read(path, args, (size_t)bad, &c))) {
		free(args);
		return rc;
	}
	for (int s = 0; s < bad && !rc; s++)
		if (args[s].set < 0)
			rc = fmt_err(a->err, sizeof(a->err), "compare: no runs match \"%s\" (or an earlier argument took them all)",
				     a->pos[s]);
	if (!rc && bad < a->npos)
		rc = fmt_err(a->err, sizeof(a->err), given_before(a, bad) ?
			     "compare: \"%s\" given twice: compare it with something else" :
			     "compare: \"%s\" is not ID, g:ID, label:TEXT or session:ID", a->pos[bad]);
	if (!rc && compare_print(out, c.runs, c.n, c.set, c.nsets, (const char *const *)c.names,
				 a->fmt == F_JSON, err, sizeof(err))) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		rc = 1;
	}
	compare_sets_free(&c);
	free(args);
	return rc;
}

/* Imported runs go in transactions of IMPORT_ALONE_MS, or of IMPORT_BATCH_MS
 * while another writer says it waits for the lock (history_contended): a
 * run finishing beside a long import waits a moment, never long enough to
 * fail, and one of a build that does not say so well within its wait. A
 * commit writes again each index page its runs touched, and a run's uuid
 * lands anywhere in its index, so the fewer commits the less is written
 * (50 MB of posted lines: 5-6 GB written in 200 ms transactions, 2.1 GB
 * in 2 s ones). After each the lock stays free for longer than a waiting
 * writer's poll (history.c waits in 10 ms steps), so that it gets it. */
#define IMPORT_BATCH_MS 200
#define IMPORT_ALONE_MS 2000
#define IMPORT_ASK_MS 5		/* how often a batch past IMPORT_BATCH_MS asks */
#define IMPORT_GAP_MS 20

struct importer {
	struct history *h;
	const char *file;
	size_t added, dup;		/* committed */
	size_t batch_added, batch_dup;	/* in the open transaction */
	bool inbatch;
	double asked;			/* the batch's age at its last ask, ms */
	struct timespec batch_start;
};

static double ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) * 1e3 + (double)(now.tv_nsec - t->tv_nsec) / 1e6;
}

/* Commits the open batch (keep) or rolls it back; its runs count as kept
 * only once committed. */
static int import_end(struct importer *im, bool keep, char *err, size_t errlen)
{
	int rc = 0;

	if (keep)
		rc = history_commit(im->h, err, errlen);
	else
		history_rollback(im->h);
	if (keep && !rc) {
		im->added += im->batch_added;
		im->dup += im->batch_dup;
	}
	im->batch_added = im->batch_dup = 0;
	im->inbatch = false;
	return rc;
}

static bool batch_full(struct importer *im)
{
	double ms = ms_since(&im->batch_start);

	if (ms >= IMPORT_ALONE_MS)
		return true;
	if (ms < IMPORT_BATCH_MS || ms < im->asked + IMPORT_ASK_MS)
		return false;
	im->asked = ms;
	return history_contended(im->h);
}

static int import_run(void *arg, struct run_record *r, char *err, size_t errlen)
{
	struct importer *im = arg;

	if (!im->inbatch) {
		if (history_begin(im->h, err, errlen))
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &im->batch_start);
		im->asked = 0;
		im->inbatch = true;
	}
	int k = history_add(im->h, r, err, errlen);
	if (k < 0) {
		import_end(im, false, NULL, 0);
		return -1;
	}
	k == 1 ? im->batch_dup++ : im->batch_added++;
	if (batch_full(im)) {
		struct timespec gap = { 0, IMPORT_GAP_MS * 1000000L };
		if (import_end(im, true, err, errlen))
			return -1;
		nanosleep(&gap, NULL);
	}
	return 0;
}

static void import_note(void *arg, const char *line)
{
	struct importer *im = arg;
	char file[128];

	fprintf(stderr, "thrashtop: history: %s: %s\n",
		fmt_escape(file, sizeof(file), im->file), line);
}

/* An SQLite file by its header: a regular file, never standard input. */
static bool is_database(const char *path)
{
	char head[16];
	struct stat sb;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	bool yes = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		   read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
		   !memcmp(head, "SQLite format 3", 16);

	if (fd >= 0)
		close(fd);
	return yes;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int cmd_import(struct hargs *a, const char *path)
{
	char err[512];
	struct input in;

	if (a->npos != 1)
		return wrong_count(a, "one FILE (- for standard input)");
	bool db = is_database(a->pos[0]);
	if (db && same_file(a->pos[0], path))
		return fmt_err(a->err, sizeof(a->err), "import: %s is this history itself", a->pos[0]);
	if (db) {
		in.text = NULL;
	} else if (map_input(a->pos[0], &in, err, sizeof(err))) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 2;
	}
	struct importer im = { .file = a->pos[0] };
	const struct import_sink sink = { import_run, import_note, &im };
	im.h = history_open(path, a->default_db ? HISTORY_PARENTS : 0, err, sizeof(err));
	if (!im.h) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		if (in.text)
			munmap(in.text, in.maplen);
		return 1;
	}
	history_bulk(im.h);
	const char *s = db ? "" : in.text;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	int rc;
	if (db)
		rc = import_db(a->pos[0], &sink, err, sizeof(err));
	else if (*s == '{')
		rc = import_json(in.text, &sink, err, sizeof(err));
	else if (!strncmp(in.text, "id,uuid,", 8))
		rc = import_csv(in.text, &sink, err, sizeof(err));
	else
		rc = posted_read(in.text, a->import_label, a->skip_bad, &sink, err, sizeof(err));
	if (im.inbatch && import_end(&im, rc == 0, err, sizeof(err)))
		rc = -1;
	/* a history this import made and put no run in: as if never made */
	history_close_unused(im.h);
	if (in.text)
		munmap(in.text, in.maplen);
	char file[256];
	fmt_escape(file, sizeof(file), a->pos[0]);
	if (rc && !im.added && !im.dup) {
		fprintf(stderr, "thrashtop: history: %s: %s; nothing imported\n", file, err);
		return 2;
	}
	if (rc) {
		fprintf(stderr, "thrashtop: history: import of %s stopped after %zu run%s, which %s kept"
			" (importing again skips %s): %s\n", file, im.added + im.dup,
			im.added + im.dup == 1 ? "" : "s", im.added + im.dup == 1 ? "is" : "are",
			im.added + im.dup == 1 ? "it" : "them", err);
		return 1;
	}
	printf("imported %zu run%s from %s (%zu already present)\n", im.added,
	       im.added == 1 ? "" : "s", file, im.dup);
	return 0;
}

static int cmd_rm(struct hargs *a, const char *path)
{
	char err[512];
	int64_t id;

	if (a->npos < 1)
		return wrong_count(a, "one or more run IDs");
	for (int i = 0; i < a->npos; i++) {
		if (!parse_id(a->pos[i], &id))
			return fmt_err(a->err, sizeof(a->err), "rm: \"%s\" is not a run ID", a->pos[i]);
		for (int j = 0; j < i; j++) {
			int64_t other;
			parse_id(a->pos[j], &other);
			if (other == id)
				return fmt_err(a->err, sizeof(a->err), "rm: run %" PRId64 " given twice", id);
		}
	}
	/* none to remove from: bad input, and no database made for it */
	if (access(path, F_OK) != 0)
		return fmt_err(a->err, sizeof(a->err), "rm: no runs recorded in %s", path);
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

struct chart_job {
	bool svg;
	const struct run_record *runs;
	size_t n;
	const struct chart_spec *spec;
};

static int chart_fill(FILE *f, const void *arg)
{
	const struct chart_job *j = arg;

	return j->svg ? chart_svg(f, j->runs, j->n, j->spec)
		      : chart_gnuplot(f, j->runs, j->n, j->spec);
}

/* Writes the chart to path, or stdout for "-"; a failure leaves no half
 * chart. */
static int write_chart(const char *path, bool svg, const struct run_record *runs, size_t n,
		       const struct chart_spec *spec)
{
	struct chart_job j = { svg, runs, n, spec };

	if (!strcmp(path, "-"))
		return chart_fill(stdout, &j);
	return sysio_replace(path, 0666, chart_fill, &j);
}

/* A stored run played again in the monitor's view. */
static int cmd_replay(struct hargs *a, const char *path)
{
	char err[512];
	int ids[M_N], n = 0, rc;
	int64_t id;
	struct history *h;

	if (a->npos != 1)
		return wrong_count(a, a->fmt == F_CAST ? "one run ID with --format=asciicast" : "one run ID");
	if (a->cols && !a->cast && a->fmt != F_CAST)
		return fmt_err(a->err, sizeof(a->err), "--size is for replay only with --cast FILE");
	if (!parse_id(a->pos[0], &id))
		return fmt_err(a->err, sizeof(a->err), "%s: \"%s\" is not a run ID", a->cmd, a->pos[0]);
	if (a->series && (n = metrics_parse_list(a->series, ids, err, sizeof(err))) < 0)
		return fmt_err(a->err, sizeof(a->err), "--series: %s", err);
	if (!(h = history_open(path, HISTORY_RDONLY, err, sizeof(err)))) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 2;
	}
	if (a->cast || a->fmt == F_CAST)
		rc = app_replay_cast(h, id, a->series ? ids : NULL, n, a->speed > 0 ? a->speed : 1,
				     a->cols ? a->cols : 100, a->rows ? a->rows : 30,
				     a->cast ? a->cast : "-");
	else
		rc = app_replay(h, id, a->series ? ids : NULL, n, a->speed > 0 ? a->speed : 1);
	history_close(h);
	return rc;
}

static int cmd_plot(struct hargs *a, const char *path)
{
	char err[512], file[256];
	struct chart_spec spec;
	struct run_record *runs;
	int64_t id;
	int rc = 0, k = 0;

	if (!a->npos)
		return wrong_count(a, "one or more run IDs");
	if (!a->svg && a->fmt != F_SVG && a->fmt != F_GNUPLOT)
		return fmt_err(a->err, sizeof(a->err), "plot: want --svg FILE, --format=svg or --format=gnuplot");
	if (chart_parse_series(a->series ? a->series : CHART_DEFAULT_SERIES, &spec, err,
			       sizeof(err)))
		return fmt_err(a->err, sizeof(a->err), "%s", err);
	for (int i = 0; i < a->npos; i++)
		if (!parse_id(a->pos[i], &id))
			return fmt_err(a->err, sizeof(a->err), "plot: \"%s\" is not a run ID", a->pos[i]);
	struct history *h = history_open(path, HISTORY_RDONLY, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 1;
	}
	runs = calloc((size_t)a->npos, sizeof(*runs));
	if (!runs) {
		history_close(h);
		return fmt_err(a->err, sizeof(a->err), "out of memory");
	}
	for (int i = 0; i < a->npos && !rc; i++) {
		parse_id(a->pos[i], &id);
		rc = history_get(h, id, &runs[i], err, sizeof(err));
		if (rc) {
			fprintf(stderr, "thrashtop: history: %s\n", err);
			rc = rc == 1 ? 2 : 1;
		} else if (runs[i].nsamples == 0) {
			rc = fmt_err(a->err, sizeof(a->err), "plot: run %" PRId64 " has no recorded series", id);
		}
	}
	history_close(h);
	if (!rc && (k = write_chart(a->svg ? a->svg : "-", a->svg || a->fmt == F_SVG, runs,
				    (size_t)a->npos, &spec)) == -2) {
		int e = errno;
		rc = fmt_err(a->err, sizeof(a->err), "--svg %s: %s",
			     fmt_escape(file, sizeof(file), a->svg), strerror(e));
	} else if (!rc && k) {
		fprintf(stderr, "thrashtop: history: cannot write %s: %s\n",
			a->svg ? a->svg : "the chart", strerror(errno));
		rc = 1;
	}
	run_records_free(runs, (size_t)a->npos);
	return rc;
}

/* export ID: the filter narrowed to that run, which must be there. 0, 1
 * when the history cannot be read, or 2 (a->err filled). */
static int export_one(struct hargs *a, const char *path)
{
	struct history_filter f = { .id = 0 };
	struct history *h;
	char err[512];
	int64_t n = 0;

	if (!parse_id(a->pos[0], &f.id))
		return fmt_err(a->err, sizeof(a->err), "export: \"%s\" is not a run ID", a->pos[0]);
	if (access(path, F_OK) == 0) {
		if (!(h = history_open(path, HISTORY_RDONLY, err, sizeof(err)))) {
			fprintf(stderr, "thrashtop: history: %s\n", err);
			return 1;
		}
		n = history_count(h, &f, err, sizeof(err));
		history_close(h);
		if (n < 0) {
			fprintf(stderr, "thrashtop: history: %s\n", err);
			return 1;
		}
	}
	if (n == 0)
		return fmt_err(a->err, sizeof(a->err), "export: no run %" PRId64 " in %s", f.id, path);
	a->filt.id = f.id;
	a->npos = 0;
	return 0;
}

/* export [ID...] --format=pcp DIR: the runs named, or the filter's, as
 * PCP archives in DIR. */
static int cmd_pcp(struct hargs *a, const char *path)
{
	char err[512];
	int64_t *ids;
	size_t left = 0;
	int nids = a->npos - 1, rc = 0;

	if (a->npos < 1)
		return wrong_count(a, "a directory with --format=pcp, after any run IDs");
	if (nids && (a->given & O_FILTER))
		return fmt_err(a->err, sizeof(a->err), "export --format=pcp: run IDs or a filter "
			       "(-L, --kernel, --session, --limit), not both");
	if (!(ids = calloc((size_t)a->npos, sizeof(*ids))))
		return fmt_err(a->err, sizeof(a->err), "out of memory");
	for (int i = 0; !rc && i < nids; i++) {
		if (!parse_id(a->pos[i], &ids[i]))
			rc = fmt_err(a->err, sizeof(a->err), "export: \"%s\" is not a run ID", a->pos[i]);
		for (int k = 0; !rc && k < i; k++)
			if (ids[k] == ids[i])
				rc = fmt_err(a->err, sizeof(a->err), "export: run %" PRId64 " given twice",
					     ids[i]);
	}
	if (!rc) {
		rc = pcpexport_history(path, &a->filt, ids, nids, a->pos[nids], out, &left, err,
				       sizeof(err));
		if (rc)
			fprintf(stderr, "thrashtop: history: %s\n", err);
		else if (left)
			fprintf(stderr, "thrashtop: history: left out %zu run%s without a recorded series"
				" (posted results)\n", left, left == 1 ? "" : "s");
		rc = rc == 1 ? 2 : rc ? 1 : 0;
	}
	free(ids);
	return rc;
}

/* list, stats and export: what the format asks for, a run or a group at a
 * time from the history where it can be, else the runs loaded. */
static int cmd_report(struct hargs *a, const char *path)
{
	/* Series only where they are printed or charted. */
	enum fmt fmt = a->fmt == F_DEFAULT && !strcmp(a->cmd, "export") ? F_JSON : a->fmt;
	int flags = fmt == F_TEXT ? HISTORY_DETAIL : fmt == F_TIME ? HISTORY_WORKERS : 0;
	struct run_record *runs;
	struct table_fields tf;
	size_t n;
	int rc;

	if (fmt == F_CAST)
		return cmd_replay(a, path);
	if (fmt == F_PCP)
		return cmd_pcp(a, path);
	/* export ID: that run alone, as show and replay take it */
	if (!strcmp(a->cmd, "export") && a->npos == 1 && (rc = export_one(a, path)))
		return rc;
	if (a->npos && (strcmp(a->cmd, "export") || a->npos > 1))
		return wrong_count(a, strcmp(a->cmd, "export") ? "no arguments" :
				   "at most one run ID");
	/* stats' own formats: the statistics, as text or as data */
	report_fn *stats = strcmp(a->cmd, "stats") ? NULL : fmt == F_DEFAULT ? report_stats :
			   fmt == F_CSV ? report_stats_csv : fmt == F_JSON ? report_stats_json : NULL;
	if (!stats && (fmt == F_CSV || fmt == F_JSON || (!strcmp(a->cmd, "list") && fmt == F_DEFAULT)))
		return fmt == F_DEFAULT ? stream_list(path, &a->filt, a->all) :
		       stream_export(path, &a->filt, fmt == F_JSON);
	if (stats && !a->filt.limit)
		return stream_report(path, &a->filt, &a->ro, stats, fmt == F_DEFAULT);
	if (!strcmp(a->cmd, "export") && (fmt == F_TIME || fmt == F_TEXT) && !a->filt.limit)
		return stream_report(path, &a->filt, &a->ro, fmt == F_TIME ? report_time : report_text,
				     false);
	if ((rc = load(path, report_filter(a, fmt, &tf), flags, &runs, &n)))
		return rc;
	if (stats) {
		rc = loaded_report(runs, n, &a->ro, stats);
		if (!rc && !n && fmt == F_DEFAULT)
			say_none(path, &a->filt);
	} else {
		rc = output(a->fmt == F_DEFAULT ? F_JSON : a->fmt, runs, n, &a->ro,
			    a->filt.session && !a->keys_set);
	}
	run_records_free(runs, n);
	return rc;
}

/* A history that is there but cannot be one is bad input, not a failed
 * write: a directory, a device, a file of something else. */
static int check_existing(const char *path, char *err, size_t errlen)
{
	struct stat sb;

	if (stat(path, &sb))
		return 0;
	if (history_check_path(path, err, errlen))
		return -1;
	if (sb.st_size > 0 && !is_database(path))
		return fmt_err(err, errlen, "--history %s: not a database", path);
	return 0;
}

/* What the commands read: --history always; filters and the options of
 * a report only in the formats whose output they change. */
#define O_VERDICTS (OPT_BIT(OPT_COV) | OPT_BIT(OPT_OUTLIER_Z))
#define O_GROUPS (OPT_BIT(OPT_GNU) | O_VERDICTS)
#define O_TABLE (OPT_BIT(OPT_ROWS) | OPT_BIT(OPT_COLS))
#define O_CAST (OPT_BIT(OPT_SERIES) | OPT_BIT(OPT_SPEED) | OPT_BIT(OPT_SIZE))
#define O_REPORTS(dflt) [F_DEFAULT] = O_DB | (dflt), [F_TEXT] = O_DB | O_FILTER | O_GROUPS, \
	[F_CSV] = O_DB | O_FILTER, [F_JSON] = O_DB | O_FILTER, \
	[F_TIME] = O_DB | O_FILTER | OPT_BIT(OPT_GNU), [F_TABLE] = O_DB | O_FILTER | O_TABLE

static const struct hcmd cmds[NCMDS] = {
	{ "list", "", cmd_report, { O_REPORTS(O_FILTER | OPT_BIT(OPT_ALL)) } },
	{ "show", " ID", cmd_show, { [F_DEFAULT] = O_DB, [F_TEXT] = O_DB, [F_CSV] = O_DB,
				     [F_JSON] = O_DB, [F_TIME] = O_DB | OPT_BIT(OPT_GNU),
				     [F_TABLE] = O_DB | O_TABLE } },
	{ "stats", "", cmd_report, { [F_DEFAULT] = O_DB | O_FILTER | OPT_BIT(OPT_ALL) | O_GROUPS,
				     [F_TEXT] = O_DB | O_FILTER | O_GROUPS,
				     [F_CSV] = O_DB | O_FILTER | O_VERDICTS,
				     [F_JSON] = O_DB | O_FILTER | O_VERDICTS,
				     [F_TIME] = O_DB | O_FILTER | OPT_BIT(OPT_GNU),
				     [F_TABLE] = O_DB | O_FILTER | O_TABLE } },
	{ "compare", " A B...", cmd_compare, { [F_DEFAULT] = O_DB, [F_TEXT] = O_DB,
					       [F_JSON] = O_DB } },
	{ "export", " [ID]", cmd_report, { O_REPORTS(O_FILTER), [F_CAST] = O_DB | O_CAST,
					   [F_PCP] = O_DB | O_FILTER } },
	{ "import", " FILE", cmd_import, { [F_DEFAULT] = O_DB | OPT_BIT('L') | OPT_BIT(OPT_SKIP_BAD) } },
	{ "rm", " ID...", cmd_rm, { [F_DEFAULT] = O_DB } },
	{ "plot", " ID...", cmd_plot, { [F_DEFAULT] = O_DB | OPT_BIT(OPT_SVG) | OPT_BIT(OPT_SERIES),
					[F_SVG] = O_DB | OPT_BIT(OPT_SVG) | OPT_BIT(OPT_SERIES),
					[F_GNUPLOT] = O_DB | OPT_BIT(OPT_SERIES) } },
	{ "replay", " ID", cmd_replay, { [F_DEFAULT] = O_DB | O_CAST | OPT_BIT(OPT_CAST) } },
};

static const struct hcmd *find_command(struct hargs *a)
{
	char names[128];
	size_t o = 0;

	for (int i = 0; i < NCMDS; i++)
		if (!strcmp(a->cmd, cmds[i].name))
			return &cmds[i];
	for (int i = 0; i < NCMDS; i++)
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", i ? ", " : "", cmds[i].name);
	fmt_err(a->err, sizeof(a->err), "unknown command \"%s\" (%s)", a->cmd, names);
	return NULL;
}

/* Refuses a format or an option given that c would not read, naming it
 * and the formats with which c does read it. */
static int check_options(struct hargs *a, const struct hcmd *c)
{
	char with[256] = "";
	size_t o = 0;

	if (!c->opts[a->fmt]) {
		for (int k = 1; k <= F_PCP; k++)
			if (c->opts[k])
				o += (size_t)snprintf(with + o, sizeof(with) - o, "%s%s", o ? ", " : "",
						      fmt_names[k]);
		if (!o)
			return fmt_err(a->err, sizeof(a->err), "--format is not for %s", c->name);
		return fmt_err(a->err, sizeof(a->err), "--format=%s is not for %s (%s)",
			       fmt_names[a->fmt], c->name, with);
	}
	for (const struct option *opt = longopts; opt->name; opt++) {
		if (opt->val == 'h' || opt->val == OPT_FORMAT)
			continue;
		unsigned bit = OPT_BIT(opt->val);
		if (!(a->given & bit) || (c->opts[a->fmt] & bit))
			continue;
		for (int k = 0; k <= F_PCP; k++)
			if (c->opts[k] & bit)
				o += (size_t)snprintf(with + o, sizeof(with) - o, "%s%s%s",
						      o ? " or " : "", k ? "with --format=" :
						      "without --format", fmt_names[k]);
		if (!o)
			return fmt_err(a->err, sizeof(a->err), "--%s is not for %s", opt->name, c->name);
		return fmt_err(a->err, sizeof(a->err), "--%s is for %s only %s", opt->name, c->name,
			       with);
	}
	return 0;
}

int histcli_main(int argc, char **argv, const char *db_path)
{
	const struct hcmd *c = NULL;
	struct hargs a;
	char pathbuf[4096], err[512];
	int rc = parse_args(argc, argv, &a);
	const char *path = a.db ? a.db : db_path;

	if (rc == 1) {
		free(a.pos);
		return 0;
	}
	if (!rc && !path && !(path = history_default_path(pathbuf, sizeof(pathbuf), err, sizeof(err)))) {
		free(a.pos);
		fprintf(stderr, "thrashtop: %s\n", err);
		return 2;
	}
	a.default_db = path == pathbuf;
	if (!rc && !(c = find_command(&a)))
		rc = -1;
	if (!rc)
		rc = check_options(&a, c);
	if (!rc && check_existing(path, err, sizeof(err))) {
		free(a.pos);
		fprintf(stderr, "thrashtop: history: %s\n", err);
		return 2;
	}
	/* A --history that is not there is a mistyped one (only the default
	 * history is empty before the first run), unless an import makes it. */
	if (!rc && !a.default_db && strcmp(c->name, "import") && access(path, F_OK) != 0 &&
	    errno == ENOENT) {
		free(a.pos);
		fprintf(stderr, "thrashtop: history: --history %s: no such file\n", path);
		return 2;
	}
	if (!rc) {
		if (!(out = fmt_escaping_stream(stdout)))
			out = stdout;
		rc = c->exec(&a, path);
		if (out != stdout && fclose(out) && rc == 0) {
			fprintf(stderr, "thrashtop: history: writing the output: %s\n", strerror(errno));
			rc = 1;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "thrashtop: history: %s\n", a.err);
		rc = 2;
	}
	free(a.pos);
	return rc;
}
