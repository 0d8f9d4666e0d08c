#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fmt.h"
#include "sysctl.h"
#include "version.h"
#include "workload.h"
#include "zswap.h"

/* Past this a single worker's array would not fit any machine this runs on. */
#define MAX_ELEMS (1L << 36)

void cli_usage(FILE *out)
{
	fprintf(out,
"Usage: thrashtop [OPTIONS] [-- COMMAND [ARGS...]]\n"
"       thrashtop history [list|show|stats|compare|export|import|rm|plot|replay]\n"
"Runs a qsbench-compatible sort (or COMMAND) and shows what the VM does.\n"
"\n"
"Workload (qsbench's flags):\n"
"  -n, --elems N        elements per worker (default: sized for about a minute)\n"
"  -m, --mb MB          MiB per worker instead of -n (as qsbench 1.0)\n"
"  -p, --procs P        worker processes, 1 to %d (default: online CPUs)\n"
"  -s, --seed S         srand() seed, 0 to 4294967295 (default 1)\n"
"  -r, --repeat N       run the same configuration N times\n"
"      --fill=F         the sorter's data: rand (qsbench's, barely compresses),\n"
"                       text (compresses like text), zero:P (P%% of pages zero)\n"
"Monitor:\n"
"  -d, --delay SECONDS  sampling interval, 0.01 to 3600 (default 1)\n"
"      --list-plots     list every series: name, unit, available or why not\n"
"      --plots=A,B,...  plot these series, in this order (names from\n"
"                       --list-plots; default: the config file's, else swap,\n"
"                       free, faults, kswapd, reclaim scanning and PSI;\n"
"                       \"default\" for those); c in the monitor chooses them\n"
"                       and saves them to the config file\n"
"      --against ID     draw stored run ID faintly behind the live plots,\n"
"                       aligned on each run's start\n"
"      --cast FILE      record what the monitor draws as an asciicast v2 file\n"
"      --no-stalls      no delay accounting: the stall figures are n/a and\n"
"                       kernel.task_delayacct is left alone\n"
"      --no-events      no reclaim events: no tracefs instance\n"
"  -b, --batch          no screen: print each run's result lines\n"
"      --agent CMD      run at the place whose agent CMD starts (its words\n"
"                       split and unquoted as sh would), e.g. 'ssh box\n"
"                       thrashtop agent':\n"
"                       the workload and the tuning are that machine's\n"
"      --host [USER@]BOX   run the session on BOX through ssh (no password\n"
"                       prompt: keys or an ssh agent; $THRASHTOP_SSH is the\n"
"                       ssh command, default ssh), its thrashtop as agent\n"
"                       (more than once, or with --kernel: the places side\n"
"                       by side, a line each in every plot)\n"
"      --host-copy      run this thrashtop on BOX for the session: copied\n"
"                       into a temporary file there, removed as it starts\n"
"      --format=F       time line format, in batch mode and at the monitor's\n"
"                       exit: csh (default), gnu, gnu-full\n"
"Place (root; qemu):\n"
"      --kernel KERNEL  run the session in a guest booting KERNEL: VER or\n"
"                       /boot/vmlinuz-VER, a linux-image .deb, a Debian\n"
"                       version fetched into a cache (6.1), a build tree;\n"
"                       more than once: the guests side by side\n"
"      --boot-mem SIZE  the guest's RAM, its mem= (default 512M)\n"
"History:\n"
"      --metric NAME[:higher]=REGEX   keep a number the command prints\n"
"                       as its own figure: the first group of REGEX's last\n"
"                       match (or the match); lower is better unless :higher\n"
"  -L, --label TEXT     label stored with the runs, 1 to 200 characters\n"
"      --history PATH   history database (default\n"
"                       $XDG_DATA_HOME/thrashtop/history.db)\n"
"      --no-history     keep no history\n"
"Tuning (root):\n"
"      --mem SIZE       run the workload in a memory cgroup limited to SIZE\n"
"      --global SIZE    leave only SIZE of RAM to the whole machine (a hugetlb\n"
"                       pool where the kernel has one, else an mlock balloon)\n"
"      --global-with auto|hugetlb|balloon   how --global takes the memory\n"
"      --swap SIZE      add a temporary swap file of SIZE for the session;\n"
"                       zram:SIZE[:ALGO] a zram device of its own instead,\n"
"                       used before any other swap\n"
"      --zswap ALGO[:POOL%%]   zswap on with compressor ALGO (and\n"
"                       max_pool_percent), or off; restored afterwards\n"
"      --sysctl vm.NAME=VALUE   set for the session, restored afterwards\n"
"      --sweep KEY=V1,V2,...    run every combination (keys: swappiness, mem,\n"
"                       swap (file:2G,zram:2G), zswap (off,lzo-rle), procs,\n"
"                       elems, vm.NAME; kernel and boot-mem, a guest each,\n"
"                       one after another, host, a box each over ssh, side\n"
"                       by side, in batch mode); -r N runs each N times\n"
"      --knob vm.NAME   the sysctl the monitor's k/K keys step (default\n"
"                       vm.page-cluster; s/S step vm.swappiness)\n"
"      --wait[=SECONDS] queue behind another tuning session for at most\n"
"                       SECONDS (default %d) rather than be refused\n"
"  As root, the monitor without -n, -m, -p, a command, --mem, --global,\n"
"  --swap, --sweep or --zswap runs the default sort in a memory cgroup it\n"
"  does not fit, with a temporary swap file. One tuning session at a time:\n"
"  a second is refused, naming the first's pid (or waits, with --wait).\n"
"  -h, --help           this help\n"
"  -V, --version        print the version\n"
"SIZE takes K, M, G suffixes (powers of 1024): 512M, 1.5G.\n",
		WORKLOAD_MAX_PROCS, CLI_WAIT_DEFAULT);
}

static int parse_sweep(const char *arg, struct options *o, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	struct sweep_axis *ax;
	char *copy, *tok, *save;

	if (o->nsweep == CLI_MAX_SWEEP)
		return fmt_err(err, errlen, "--sweep: at most %d keys", CLI_MAX_SWEEP);
	if (!eq || eq == arg || !eq[1])
		return fmt_err(err, errlen, "--sweep '%s': want KEY=V1,V2,...", arg);
	if ((size_t)(eq - arg) >= sizeof(ax->key))
		return fmt_err(err, errlen, "--sweep: key too long");
	ax = &o->sweep[o->nsweep];
	memcpy(ax->key, arg, (size_t)(eq - arg));
	ax->key[eq - arg] = '\0';
	for (int i = 0; i < o->nsweep; i++)
		if (!strcmp(o->sweep[i].key, ax->key))
			return fmt_err(err, errlen, "--sweep: key '%s' given twice", ax->key);
	for (const char *p = eq + 1;; p++) {
		if ((*p == ',' || !*p) && (p == eq + 1 || p[-1] == ','))
			return fmt_err(err, errlen, "--sweep '%s': empty value", arg);
		if (!*p)
			break;
	}
	copy = strdup(eq + 1);
	if (!copy)
		return fmt_err(err, errlen, "--sweep: out of memory");
	ax->nvals = 0;
	ax->vals = NULL;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **v = realloc(ax->vals, sizeof(*v) * (size_t)(ax->nvals + 1));
		if (!v || !(v[ax->nvals] = strdup(tok))) {
			free(v ? v : ax->vals);
			free(copy);
			return fmt_err(err, errlen, "--sweep: out of memory");
		}
		ax->vals = v;
		ax->nvals++;
	}
	free(copy);
	if (ax->nvals == 0)
		return fmt_err(err, errlen, "--sweep '%s': no values", arg);
	o->nsweep++;
	return 0;
}

/* The k/K keys read and write the knob. */
static int knob_check(const char *name, char *err, size_t errlen)
{
	char path[128], e[256];
	struct stat sb;

	if (sysctl_path(name, path, sizeof(path), e, sizeof(e)))
		return fmt_err(err, errlen, "--knob: %s", e);
	if (stat(path, &sb))
		return fmt_err(err, errlen, "--knob: %s: %s", path, strerror(errno));
	if ((sb.st_mode & (S_IRUSR | S_IWUSR)) != (S_IRUSR | S_IWUSR))
		return fmt_err(err, errlen, "--knob: %s cannot be stepped: it is %s", name,
			       sb.st_mode & S_IRUSR ? "read-only" : "write-only");
	return 0;
}

void cli_free(struct options *o)
{
	for (int i = 0; i < o->nsweep; i++) {
		for (int j = 0; j < o->sweep[i].nvals; j++)
			free(o->sweep[i].vals[j]);
		free(o->sweep[i].vals);
	}
	o->nsweep = 0;
}

enum { OPT_FORMAT = 256, OPT_HISTORY, OPT_NO_HISTORY, OPT_MEM, OPT_GLOBAL,
       OPT_SWAP, OPT_SYSCTL, OPT_SWEEP, OPT_KNOB, OPT_LIST_PLOTS,
       OPT_GLOBAL_WITH, OPT_PLOTS, OPT_AGAINST, OPT_ZSWAP, OPT_FILL,
       OPT_CAST, OPT_NO_STALLS, OPT_NO_EVENTS, OPT_WAIT, OPT_KERNEL, OPT_BOOT_MEM,
       OPT_AGENT, OPT_HOST, OPT_HOST_COPY, OPT_METRIC, OPT_END };

int cli_parse_swap(const char *arg, struct swap_spec *sp, char *err, size_t errlen)
{
	const char *p = arg, *colon;
	char size[64];
	int64_t bytes;

	memset(sp, 0, sizeof(*sp));
	if (!strncmp(p, "zram:", 5)) {
		sp->zram = true;
		p += 5;
	} else if (!strncmp(p, "file:", 5)) {
		p += 5;
	}
	colon = strchr(p, ':');
	if (colon && p == arg)
		return fmt_err(err, errlen, "--swap '%s': unknown kind '%.*s': want SIZE, "
			       "file:SIZE or zram:SIZE[:ALGO]", arg, (int)(colon - p), p);
	if (colon && !sp->zram)
		return fmt_err(err, errlen, "--swap '%s': only zram takes an algorithm "
			       "(zram:SIZE:ALGO)", arg);
	snprintf(size, sizeof(size), "%.*s", colon ? (int)(colon - p) : (int)strlen(p), p);
	if (fmt_parse_size(size, &bytes) || bytes < 4096)
		return fmt_err(err, errlen, "--swap '%s': want SIZE, file:SIZE or zram:SIZE[:ALGO] "
			       "with a size such as 512M or 1.5G", arg);
	if (colon && (!colon[1] || strlen(colon + 1) >= sizeof(sp->algo) ||
		      strspn(colon + 1, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(colon + 1)))
		return fmt_err(err, errlen, "--swap '%s': bad algorithm name", arg);
	snprintf(sp->algo, sizeof(sp->algo), "%s", colon ? colon + 1 : "");
	sp->bytes = bytes;
	return 0;
}

/* An option getopt_long refused. optopt is the long option's value when a
 * known long option was misused (--batch=1), 0 for an unknown long option
 * (then word, argv[optind - 1], is it), else the unknown short option. */
static int bad_option(const struct option *longopts, const char *word, char *err, size_t errlen)
{
	char name[64];

	for (const struct option *lo = longopts; optopt && lo->name; lo++)
		if (lo->val == optopt && lo->has_arg == no_argument && !strncmp(word, "--", 2))
			return fmt_err(err, errlen, "option '--%s' takes no value", lo->name);
	if (!optopt)
		return fmt_err(err, errlen, "unknown option '%s' (try --help)",
			       fmt_escape(name, sizeof(name), word));
	char c[2] = { (char)optopt, 0 };
	return fmt_err(err, errlen, "unknown option '-%s' (try --help)",
		       fmt_escape(name, sizeof(name), c));
}

static int sized_twice(int first, int again, char *err, size_t errlen)
{
	if (first == again)
		return fmt_err(err, errlen, "-%c given twice: give the sorter one size", first);
	return fmt_err(err, errlen, "-n and -m both size the sorter: give one of them");
}

/* An option that takes one value given again: refused, not the last
 * silently winning (--swap file:1G --swap zram:1G ran zram alone). */
static int once(const struct option *lo, int c, unsigned char seen[], char *err, size_t errlen)
{
	static const int single[] = { 'p', 's', 'r', 'd', 'L', OPT_FORMAT, OPT_HISTORY, OPT_MEM,
				      OPT_GLOBAL, OPT_GLOBAL_WITH, OPT_SWAP, OPT_KNOB, OPT_PLOTS,
				      OPT_AGAINST, OPT_ZSWAP, OPT_FILL, OPT_CAST, OPT_WAIT,
				      OPT_BOOT_MEM, OPT_AGENT };
	const char *name = "?";

	for (size_t i = 0; i < sizeof(single) / sizeof(single[0]); i++)
		if (single[i] == c && seen[c]++) {
			while (lo->name && lo->val != c)
				lo++;
			name = lo->name ? lo->name : name;
			if (c < 256)
				return fmt_err(err, errlen, "-%c (--%s) given twice: give it once", c, name);
			return fmt_err(err, errlen, "--%s given twice: give it once", name);
		}
	return 0;
}

/* One more place side by side: each once, at most CLI_PLACES_MAX. */
static int add_place(struct options *o, bool kernel, const char *what, char *err, size_t errlen)
{
	const char *opt = kernel ? "--kernel" : "--host";

	for (int i = 0; i < o->nplaces; i++)
		if (o->places[i].kernel == kernel && !strcmp(o->places[i].what, what))
			return fmt_err(err, errlen, "%s %s given twice: each place once", opt, what);
	if (o->nplaces == CLI_PLACES_MAX)
		return fmt_err(err, errlen, "%s %s: at most %d places side by side (--host and "
			       "--kernel)", opt, what, CLI_PLACES_MAX);
	o->places[o->nplaces++] = (struct cli_place){ kernel, what };
	if (kernel && !o->kernel)
		o->kernel = what;
	if (!kernel && !o->host)
		o->host = what;
	return 0;
}

static void defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->interval = 1.0;
	o->repeat = 1;
	o->batch = !isatty(STDOUT_FILENO);
}

/* Whether path is a file exec may run (as the effective user); *e why
 * not. */
static bool runnable(const char *path, int *e)
{
	struct stat sb;

	if (stat(path, &sb)) {
		*e = errno;
		return false;
	}
	if (!S_ISREG(sb.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS)) {
		*e = EACCES;
		return false;
	}
	return true;
}

/* The command where execvp looks for it, with its errors: a name with a
 * '/' as it is, else each PATH entry (the C library's default when PATH
 * is unset) until one runs; one found but not runnable is EACCES, and an
 * error other than not there ends the search. Checked before a session
 * changes anything for it: a misspelt command must not cost a swap file
 * made and removed. The child's exec still says what befalls it later. */
static int command_check(const char *cmd, char *err, size_t errlen)
{
	char path[PATH_MAX], name[160], dflt[256];
	const char *dirs = getenv("PATH");
	int e = ENOENT, why = 0;

	if (!*cmd)
		return fmt_err(err, errlen, "-- must be followed by a command");
	if (strchr(cmd, '/')) {
		if (runnable(cmd, &e))
			return 0;
	} else if (strlen(cmd) > NAME_MAX) {
		e = ENAMETOOLONG;
	} else {
		if (!dirs && confstr(_CS_PATH, dflt, sizeof(dflt)) > 0)
			dirs = dflt;
		for (const char *d = dirs ? dirs : ""; d; d = strchr(d, ':') ? strchr(d, ':') + 1 : NULL) {
			int n = (int)strcspn(d, ":");

			/* an empty entry is the current directory */
			if (snprintf(path, sizeof(path), "%.*s%s%s", n, d, n ? "/" : "", cmd) >=
			    (int)sizeof(path))
				continue;
			if (runnable(path, &why))
				return 0;
			if (why == EACCES)
				e = EACCES;
			else if (why != ENOENT && why != ENOTDIR && why != ESTALE &&
				 why != ENODEV && why != ETIMEDOUT) {
				e = why;
				break;
			}
		}
	}
	return fmt_err(err, errlen, "cannot run '%s': %s", fmt_escape(name, sizeof(name), cmd),
		       strerror(e));
}

/* The words after the options: a command, after "--", or none. Run after
 * getopt_long, whose optind it reads. */
static int take_command(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	if (optind < argc) {
		if (!strcmp(argv[optind - 1], "--wait"))
			return fmt_err(err, errlen, "unexpected argument '%s' (--wait takes its seconds "
				       "after an =: --wait=%s)", argv[optind], argv[optind]);
		if (strcmp(argv[optind - 1], "--"))
			return fmt_err(err, errlen, "unexpected argument '%s' (a command goes after --)",
				    argv[optind]);
		o->argv = &argv[optind];
		if (o->nelems_set || o->procs_set)
			return fmt_err(err, errlen, "-n, -m and -p size the sorter; they do not apply to a command");
		return command_check(o->argv[0], err, errlen);
	} else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		return fmt_err(err, errlen, "-- must be followed by a command");
	}
	return 0;
}

/* --metric NAME[:higher|:lower]=REGEX, each name once. */
static int add_metric(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct capture_spec sp;

	if (o->nmetric == CAPTURE_MAX)
		return fmt_err(err, errlen, "--metric: at most %d", CAPTURE_MAX);
	if (capture_parse(arg, &sp, err, errlen))
		return -1;
	for (int i = 0; i < o->nmetric; i++)
		if (!strcmp(o->metric[i].name, sp.name))
			return fmt_err(err, errlen, "--metric %s given twice: give each name once",
				       sp.name);
	o->metric[o->nmetric++] = sp;
	return 0;
}

/* What the options say together, once all are read: conflicts refused, and
 * whether the default pressure run applies. */
static int settle(struct options *o, bool global_with_set, char *err, size_t errlen)
{
	if (o->against && o->batch)
		return fmt_err(err, errlen, "--against draws behind the monitor's plots: not in batch mode (-b, or no terminal on stdout)");
	if (o->against && o->no_history)
		return fmt_err(err, errlen, "--against reads the run from the history: not with --no-history");
	if (o->cast && o->batch)
		return fmt_err(err, errlen, "--cast records the monitor: not in batch mode (-b, or no terminal on stdout)");
	bool kernels = o->kernel != NULL;
	for (int i = 0; i < o->nsweep; i++)
		kernels = kernels || !strcmp(o->sweep[i].key, "kernel");
	if (o->boot_mem && !kernels)
		return fmt_err(err, errlen, "--boot-mem sizes the guest that --kernel boots: give --kernel too");
	if (kernels && !o->boot_mem)
		o->boot_mem = CLI_BOOT_MEM_DEFAULT;
	bool hosts = o->host != NULL;
	for (int i = 0; i < o->nsweep; i++)
		hosts = hosts || !strcmp(o->sweep[i].key, "host");
	if (o->agent && (hosts || kernels))
		return fmt_err(err, errlen, "--agent names the place alone: not with --host or --kernel");
	for (int i = 0; i < o->nsweep; i++)
		if ((!strcmp(o->sweep[i].key, "host") && kernels) ||
		    (!strcmp(o->sweep[i].key, "kernel") && hosts))
			return fmt_err(err, errlen, "--sweep %s= names every place: not with --%s or "
				       "--sweep %s=", o->sweep[i].key, o->sweep[i].key[0] == 'h' ? "kernel" : "host",
				       o->sweep[i].key[0] == 'h' ? "kernel" : "host");
	for (int i = 0; i < o->nsweep && o->nplaces > 1; i++)
		if (!strcmp(o->sweep[i].key, "boot-mem"))
			return fmt_err(err, errlen, "--sweep boot-mem= sizes one guest: not with several "
				       "places (each --kernel boots with --boot-mem)");
	if (o->nplaces > 1 && o->against)
		return fmt_err(err, errlen, "--against draws a stored run behind one place's plots: "
			       "not with several places");
	if (o->host_copy && !hosts)
		return fmt_err(err, errlen, "--host-copy copies this thrashtop to --host's box: give --host too");
	if (global_with_set && !o->global_limit)
		return fmt_err(err, errlen, "--global-with needs --global SIZE");
	for (int i = 0; o->global_limit && o->global_with != GLOBAL_BALLOON && i < o->nsysctl; i++)
		if (!strncmp(o->sysctl[i], "vm.nr_hugepages=", 16))
			return fmt_err(err, errlen, "--global sizes vm.nr_hugepages itself: drop --sysctl %s "
				    "or add --global-with balloon", o->sysctl[i]);
	if (o->nmetric && !o->argv)
		return fmt_err(err, errlen, "--metric reads a command's output: give the command "
			       "after --");
	if (o->argv && o->fill.kind != FILL_RAND)
		return fmt_err(err, errlen, "--fill is the sorter's data: it does not apply to a command");
	o->pressure_default = !o->nelems_set && !o->procs_set && !o->argv &&
			      !o->mem_limit && !o->global_limit && !o->swap_size && !o->nsweep &&
			      !o->zswap_set && !o->kernel && !o->host;
	return 0;
}

/* The option switch: one case per option, each checking its own value, so
 * it is long by design. Returns 0, 1 when -h or -V was answered, or -1
 * with err. */
static int parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "elems", required_argument, NULL, 'n' },
		{ "mb", required_argument, NULL, 'm' },
		{ "procs", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "delay", required_argument, NULL, 'd' },
		{ "batch", no_argument, NULL, 'b' },
		{ "label", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "history", required_argument, NULL, OPT_HISTORY },
		{ "no-history", no_argument, NULL, OPT_NO_HISTORY },
		{ "no-stalls", no_argument, NULL, OPT_NO_STALLS },
		{ "no-events", no_argument, NULL, OPT_NO_EVENTS },
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "global", required_argument, NULL, OPT_GLOBAL },
		{ "global-with", required_argument, NULL, OPT_GLOBAL_WITH },
		{ "swap", required_argument, NULL, OPT_SWAP },
		{ "sysctl", required_argument, NULL, OPT_SYSCTL },
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		{ "knob", required_argument, NULL, OPT_KNOB },
		{ "list-plots", no_argument, NULL, OPT_LIST_PLOTS },
		{ "plots", required_argument, NULL, OPT_PLOTS },
		{ "against", required_argument, NULL, OPT_AGAINST },
		{ "zswap", required_argument, NULL, OPT_ZSWAP },
		{ "fill", required_argument, NULL, OPT_FILL },
		{ "cast", required_argument, NULL, OPT_CAST },
		{ "wait", optional_argument, NULL, OPT_WAIT },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "boot-mem", required_argument, NULL, OPT_BOOT_MEM },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "host-copy", no_argument, NULL, OPT_HOST_COPY },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ 0, 0, 0, 0 },
	};
	unsigned char seen[OPT_END] = { 0 };
	long long v;
	bool global_with_set = false;
	int c, sized = 0;

	defaults(o);
	opterr = 0;
	optind = 0;	/* 0, not 1: glibc's full reset, for a second parse */
	/* '+': stop at the first non-option, so a command's own flags are its. */
	while ((c = getopt_long(argc, argv, "+:n:m:p:s:r:d:bL:hV", longopts, NULL)) != -1) {
		if (c >= 0 && c < OPT_END && once(longopts, c, seen, err, errlen))
			return -1;
		switch (c) {
		case 'n':
			if (sized)
				return sized_twice(sized, c, err, errlen);
			sized = c;
			if (fmt_parse_whole(optarg, 1, MAX_ELEMS, &v))
				return fmt_err(err, errlen, "-n '%s': want a whole number of elements from 1 to %ld",
					    optarg, MAX_ELEMS);
			o->nelems = v;
			o->nelems_set = true;
			break;
		case 'm':
			if (sized)
				return sized_twice(sized, c, err, errlen);
			sized = c;
			if (fmt_parse_whole(optarg, 1, MAX_ELEMS / (1 << 18), &v))
				return fmt_err(err, errlen, "-m '%s': want whole MiB per worker from 1 to %ld",
					    optarg, MAX_ELEMS / (1 << 18));
			o->nelems = v * (1024 * 1024 / (long)sizeof(int));
			o->nelems_set = true;
			break;
		case 'p':
			if (fmt_parse_whole(optarg, 1, WORKLOAD_MAX_PROCS, &v))
				return fmt_err(err, errlen, "-p '%s': want 1 to %d worker processes",
					    optarg, WORKLOAD_MAX_PROCS);
			o->procs = (int)v;
			o->procs_set = true;
			break;
		case 's':
			/* srand() takes an unsigned int */
			if (fmt_parse_whole(optarg, 0, UINT_MAX, &v))
				return fmt_err(err, errlen, "-s '%s': want a whole number seed from 0 to %u",
					       optarg, UINT_MAX);
			o->seed = (unsigned)v;
			break;
		case 'r':
			if (fmt_parse_whole(optarg, 1, 10000, &v))
				return fmt_err(err, errlen, "-r '%s': want 1 to 10000 repeats", optarg);
			o->repeat = (int)v;
			break;
		case 'd':
			if (fmt_parse_seconds(optarg, &o->interval) || o->interval < 0.01 ||
			    o->interval > 3600)
				return fmt_err(err, errlen, "-d '%s': want seconds from 0.01 to 3600", optarg);
			o->interval_set = true;
			break;
		case 'b':
			o->batch = true;
			break;
		case 'L':
			if (fmt_label_arg("-L", optarg, err, errlen))
				return -1;
			o->label = optarg;
			break;
		case 'h':
		case 'V':
			if (optind < argc)
				return fmt_err(err, errlen, "%s takes no arguments", c == 'h' ? "--help" : "--version");
			if (c == 'h')
				cli_usage(stdout);
			else
				printf("thrashtop %s\n", THRASHTOP_VERSION);
			return 1;
		case OPT_FORMAT:
			if (!strcmp(optarg, "csh") || !strcmp(optarg, "tcsh"))
				o->format = OUT_CSH;
			else if (!strcmp(optarg, "gnu"))
				o->format = OUT_GNU;
			else if (!strcmp(optarg, "gnu-full"))
				o->format = OUT_GNU_FULL;
			else
				return fmt_err(err, errlen, "--format '%s': want csh, gnu or gnu-full", optarg);
			break;
		case OPT_HISTORY:
			if (!*optarg)
				return fmt_err(err, errlen, "--history: empty path");
			o->history = optarg;
			break;
		case OPT_NO_HISTORY:
			o->no_history = true;
			break;
		case OPT_NO_STALLS:
			o->no_stalls = true;
			break;
		case OPT_NO_EVENTS:
			o->no_events = true;
			break;
		case OPT_MEM:
		case OPT_GLOBAL: {
			int64_t bytes;
			const char *name = c == OPT_MEM ? "--mem" : "--global";
			if (fmt_parse_size(optarg, &bytes))
				return fmt_err(err, errlen, "%s '%s': want a size such as 512M or 1.5G", name, optarg);
			if (bytes < 4096)
				return fmt_err(err, errlen, "%s '%s': at least a page, 4K", name, optarg);
			*(c == OPT_MEM ? &o->mem_limit : &o->global_limit) = bytes;
			break;
		}
		case OPT_SWAP:
			if (cli_parse_swap(optarg, &o->swap, err, errlen))
				return -1;
			o->swap_size = o->swap.bytes;
			break;
		case OPT_ZSWAP:
			if (zswap_parse(optarg, o->zswap_algo, sizeof(o->zswap_algo), &o->zswap_pool,
					err, errlen))
				return -1;
			o->zswap_set = true;
			break;
		case OPT_FILL:
			if (sorter_fill_parse(optarg, &o->fill)) 
				return fmt_err(err, errlen, "--fill '%s': want rand, text or zero:PERCENT "
					       "(zero:50: half the pages zero)", optarg);
			break;
		case OPT_GLOBAL_WITH:
			if (!strcmp(optarg, "auto"))
				o->global_with = GLOBAL_AUTO;
			else if (!strcmp(optarg, "hugetlb"))
				o->global_with = GLOBAL_HUGETLB;
			else if (!strcmp(optarg, "balloon"))
				o->global_with = GLOBAL_BALLOON;
			else
				return fmt_err(err, errlen, "--global-with '%s': want auto, hugetlb or balloon", optarg);
			global_with_set = true;
			break;
		case OPT_SYSCTL: {
			const char *eq;
			char e[256];

			if (o->nsysctl == CLI_MAX_SYSCTL)
				return fmt_err(err, errlen, "--sysctl: at most %d", CLI_MAX_SYSCTL);
			if (strncmp(optarg, "vm.", 3) || !strchr(optarg, '=') || optarg[3] == '=')
				return fmt_err(err, errlen, "--sysctl '%s': want vm.NAME=VALUE", optarg);
			eq = strchr(optarg, '=');
			if (strchr(" \t", eq[-1]) || !eq[1] || strchr(" \t", eq[1]) ||
			    strchr(" \t", eq[strlen(eq) - 1]))
				return fmt_err(err, errlen, "--sysctl '%s': want vm.NAME=VALUE, no blanks "
					       "around the = or the value", optarg);
			if (sysctl_value_check(strchr(optarg, '=') + 1, e, sizeof(e)))
				return fmt_err(err, errlen, "--sysctl %s: %s", optarg, e);
			for (int i = 0; i < o->nsysctl; i++)
				if (!strncmp(o->sysctl[i], optarg, (size_t)(strchr(optarg, '=') - optarg + 1)))
					return fmt_err(err, errlen, "--sysctl %.*s given twice",
						       (int)(strchr(optarg, '=') - optarg), optarg);
			o->sysctl[o->nsysctl++] = optarg;
			break;
		}
		case OPT_SWEEP:
			if (parse_sweep(optarg, o, err, errlen))
				return -1;
			break;
		case OPT_KNOB:
			if (strncmp(optarg, "vm.", 3) || !optarg[3] || strlen(optarg) >= 64 ||
			    strpbrk(optarg, "=/ \t\n"))
				return fmt_err(err, errlen, "--knob '%s': want vm.NAME", optarg);
			if (knob_check(optarg, err, errlen))
				return -1;
			o->knob = optarg;
			break;
		case OPT_LIST_PLOTS:
			o->list_plots = true;
			break;
		case OPT_PLOTS: {
			char e[256];

			o->plots_set = true;
			o->nplots = 0;
			if (strcmp(optarg, "default") &&
			    (o->nplots = metrics_parse_list(optarg, o->plots, e, sizeof(e))) < 0)
				return fmt_err(err, errlen, "--plots: %s", e);
			break;
		}
		case OPT_AGAINST:
			if (fmt_parse_whole(optarg, 1, LONG_MAX, &v))
				return fmt_err(err, errlen, "--against '%s': want the ID of a stored run"
					       " (thrashtop history list)", optarg);
			o->against = v;
			break;
		case OPT_CAST:
			if (!*optarg)
				return fmt_err(err, errlen, "--cast: want a file name");
			o->cast = optarg;
			break;
		case OPT_KERNEL:
			if (!*optarg)
				return fmt_err(err, errlen, "--kernel: want a kernel: a version, "
					       "/boot/vmlinuz-VER, a linux-image .deb or a build tree");
			if (add_place(o, true, optarg, err, errlen))
				return -1;
			break;
		case OPT_BOOT_MEM: {
			int64_t bytes;
			char a[32];
			if (fmt_parse_size(optarg, &bytes))
				return fmt_err(err, errlen, "--boot-mem '%s': want a size such as 512M "
					       "or 1G", optarg);
			fmt_kib(a, sizeof(a), CLI_BOOT_MEM_MIN / 1024);
			if (bytes < CLI_BOOT_MEM_MIN)
				return fmt_err(err, errlen, "--boot-mem '%s': at least %s: no kernel "
					       "boots to a shell in less", optarg, a);
			o->boot_mem = bytes;
			break;
		}
		case OPT_WAIT:
			if (!optarg)
				v = CLI_WAIT_DEFAULT;
			else if (fmt_parse_whole(optarg, 1, 86400, &v))
				return fmt_err(err, errlen, "--wait=%s: want whole seconds from 1 to 86400",
					       optarg);
			o->wait = (int)v;
			break;
		case OPT_AGENT:
			if (!optarg[strspn(optarg, " ")])
				return fmt_err(err, errlen, "--agent: want a command that starts an agent");
			o->agent = optarg;
			break;
		case OPT_HOST:
			if (cli_check_host(optarg, err, errlen) || add_place(o, false, optarg, err, errlen))
				return -1;
			break;
		case OPT_HOST_COPY:
			o->host_copy = true;
			break;
		case OPT_METRIC:
			if (add_metric(o, optarg, err, errlen))
				return -1;
			break;
		case ':': {
			char name[64];
			return fmt_err(err, errlen, "option '%s' needs a value",
				       fmt_escape(name, sizeof(name), argv[optind - 1]));
		}
		default:
			return bad_option(longopts, argv[optind - 1], err, errlen);
		}
	}
	return take_command(argc, argv, o, err, errlen) ||
	       settle(o, global_with_set, err, errlen) ? -1 : 0;
}

int cli_check_host(const char *box, char *err, size_t errlen)
{
	char e[64];

	/* ssh would read a leading '-' as an option of its own */
	if (!*box || *box == '-' || box[strcspn(box, " \t\n'\"\\")])
		return fmt_err(err, errlen, "--host '%s': want [USER@]BOX, a name ssh reaches",
			       fmt_escape(e, sizeof(e), box));
	return 0;
}

bool cli_tunes(const struct options *o)
{
	return o->mem_limit || o->global_limit || o->swap_size || o->nsysctl || o->nsweep ||
	       o->zswap_set;
}

int cli_parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	int rc = parse(argc, argv, o, err, errlen);

	o->argc = argc;
	o->args = argv;
	if (rc)
		cli_free(o);
	return rc;
}
