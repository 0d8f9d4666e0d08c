#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "app.h"
#include "cgroup.h"
#include "checkcli.h"
#include "cli.h"
#include "conf.h"
#include "histcli.h"
#include "histfile.h"
#include "kernelcli.h"
#include "metrics.h"
#include "prof.h"
#include "sampler.h"
#include "tracer.h"

/* The workers' stall series need root, taskstats and the switch on, as a
 * plain session does (one that changes the machine turns it on). */
static void stalls_available(struct metric_avail *av, const struct options *o)
{
	struct taskstats_conn *ts;
	char err[256];
	int on;

	if (o->no_stalls) {
		metrics_no_stalls(av, "--no-stalls");
		return;
	}
	if (geteuid() != 0) {
		metrics_no_stalls(av, "delay accounting needs root (taskstats)");
		return;
	}
	if ((on = delayacct_get(err, sizeof(err))) < 0 || !(ts = taskstats_open(err, sizeof(err)))) {
		metrics_no_stalls(av, err);
		return;
	}
	taskstats_close(ts);
	if (on == 0 && !cli_tunes(o))
		metrics_no_stalls(av, DELAYACCT_SYSCTL " is 0: only in a session that changes the "
				  "machine");
}

/* --list-plots: the registry, and what this machine gives a session with
 * the options beside it (--mem, --swap zram:SIZE, --no-stalls ...). */
static int list_plots(const struct options *o)
{
	char err[256];
	struct sampler *smp = sampler_new(err, sizeof(err));
	struct sampler_caps caps;
	struct metric_cgroup_info cg = { 0 };
	struct metric_avail av;

	if (!smp) {
		fprintf(stderr, "thrashtop: %s\n", err);
		return 2;
	}
	sampler_caps(smp, &caps);
	sampler_free(smp);
	caps.zram = caps.zram || (o->swap_size && o->swap.zram);
	cg.version = cgroup_probe(&cg.swap_accounted);
	cg.present = o->mem_limit && cg.version;
	char why[160];
	bool tr = tracer_probe(why, sizeof(why)) == 0;

	/* as the cg-* series: had only in a session that asks for them, but
	 * for what no cgroup of this version has */
	metrics_availability(&caps, &cg, &av);
	stalls_available(&av, o);
	metrics_reclaim_availability(&av, tr && !o->no_events && cli_tunes(o),
				     o->no_events ? "--no-events"
				     : tr ? "only in a session that changes the machine "
				     "(--mem, --global, --swap, --sysctl ...)" : why);
	metrics_print(stdout, &av);
	if (cg.version && !cg.present) {
		cg.present = true;
		metrics_availability(&caps, &cg, &av);
		printf("\nThe cg-* series are the workload's memory cgroup (cgroup v%d), with --mem:\n",
		       cg.version);
		for (int i = 0; i < M_N; i++)
			if (metric_is_cgroup(i) && !av.ok[i])
				printf("%s: %s\n", metric_def(i)->name, av.why[i]);
	}
	return 0;
}

/* The config file under the flags: a flag given wins. */
static int apply_config(struct options *o, char *path, size_t len, char *err, size_t errlen)
{
	struct conf c;

	if (!conf_default_path(path, len, err, errlen))
		return 0;	/* no home: no config, nothing to refuse */
	if (conf_load(path, &c, err, errlen))
		return -1;
	o->config = path;
	if (c.has_delay && !o->interval_set)
		o->interval = c.delay;
	if (c.nplots > 0 && !o->plots_set) {
		o->nplots = c.nplots;
		memcpy(o->plots, c.plots, sizeof(c.plots));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opt;
	char err[512], config[4096];
	int rc;

	setlocale(LC_ALL, "");
	prof_init();
	if (argc > 1 && !strcmp(argv[1], "kernel"))
		return kernelcli_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return checkcli_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "agent"))
		return agent_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "history"))
		return histcli_main(argc - 1, argv + 1, NULL);
	if (argc > 3 && !strcmp(argv[1], "--history") && !strcmp(argv[3], "history"))
		return histcli_main(argc - 3, argv + 3, argv[2]);
	rc = cli_parse(argc, argv, &opt, err, sizeof(err));
	if (rc) {
		cli_free(&opt);
		if (rc > 0)
			return 0;
		fprintf(stderr, "thrashtop: %s\n", err);
		return 2;
	}
	if (opt.list_plots) {
		cli_free(&opt);
		return list_plots(&opt);
	}
	if ((opt.history && !opt.no_history &&
	     history_check_path(opt.history, err, sizeof(err))) ||
	    apply_config(&opt, config, sizeof(config), err, sizeof(err))) {
		cli_free(&opt);
		fprintf(stderr, "thrashtop: %s\n", err);
		return 2;
	}
	rc = app_run(&opt);
	cli_free(&opt);
	return rc;
}
