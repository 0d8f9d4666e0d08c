#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "record.h"
#include "timefmt.h"
#include "version.h"

static int64_t vm_int(const struct sysstate *sys, const char *name)
{
	const char *v = sysstate_vm(sys, name);
	char *end;
	long long n;

	if (!v || !*v)
		return HIST_NA;
	n = strtoll(v, &end, 10);
	return *end ? HIST_NA : n;
}

static char *swaps_text(const struct sysstate *sys)
{
	size_t len = 1, off = 0;
	char *buf;

	for (int i = 0; i < sys->nswaps; i++)
		len += strlen(sys->swaps[i].path) + 64;
	if (!(buf = malloc(len)))
		return NULL;
	buf[0] = '\0';
	for (int i = 0; i < sys->nswaps; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s %s %lld %lld %d\n",
					sys->swaps[i].path, sys->swaps[i].type,
					(long long)sys->swaps[i].size_kib,
					(long long)sys->swaps[i].used_kib, sys->swaps[i].prio);
	return buf;
}

static void fill_workers(struct run_record *r, const struct workload *wl)
{
	for (int i = 0; i < r->nworkers; i++) {
		const struct worker *w = &wl->w[i];
		struct run_worker *o = &r->workers[i];

		o->pid = (int)w->pid;
		snprintf(o->end, sizeof(o->end), "%s", worker_end_name(w->end));
		o->signal = WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0;
		o->exit_code = WIFEXITED(w->status) ? WEXITSTATUS(w->status) : HIST_NA;
		o->user_us = (int64_t)w->ru.ru_utime.tv_sec * 1000000 + w->ru.ru_utime.tv_usec;
		o->sys_us = (int64_t)w->ru.ru_stime.tv_sec * 1000000 + w->ru.ru_stime.tv_usec;
		o->majflt = w->ru.ru_majflt;
		o->minflt = w->ru.ru_minflt;
		o->verify_errors = wl->prog ? atomic_load(&wl->prog[i].errors) : 0;
		o->first_bad = wl->prog && o->verify_errors ? atomic_load(&wl->prog[i].first_bad)
							    : HIST_NA;
	}
}

char *record_sysctls_at_start(const char *at_end, const struct run_sysctl_change *changes,
			      int nchanges)
{
	size_t cap = strlen(at_end) + 2, off = 0, most = 0;
	char *out;

	for (int i = 0; i < nchanges; i++)
		if (strlen(changes[i].old_val) > most)
			most = strlen(changes[i].old_val);
	for (const char *p = at_end; *p; p++)	/* each line may take the longest */
		cap += *p == '\n' ? most + 1 : 0;
	cap += most;
	if (!(out = malloc(cap)))
		return NULL;
	for (const char *p = at_end; *p;) {
		const char *eol = strchr(p, '\n'), *eq = strchr(p, '=');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		const char *val = NULL;

		if (eq && eq < p + n)
			for (int i = 0; i < nchanges && !val; i++)
				if (strlen(changes[i].name) == (size_t)(eq - p) &&
				    !strncmp(changes[i].name, p, (size_t)(eq - p)))
					val = changes[i].old_val;
		if (val)
			off += (size_t)sprintf(out + off, "%.*s%s\n", (int)(eq - p + 1), p, val);
		else
			off += (size_t)sprintf(out + off, "%.*s\n", (int)n, p);
		p += n + (eol ? 1 : 0);
	}
	out[off] = '\0';
	return out;
}

int record_build(struct run_record *r, const struct record_input *in)
{
	const struct run_result *res = in->res;
	const struct sysstate *sys = in->sys;
	struct tm tm;

	gmtime_r(&in->started, &tm);
	strftime(r->started_at, sizeof(r->started_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(r->label, sizeof(r->label), "%s", in->label ? in->label : "");
	r->kind = in->command ? RUN_COMMAND : RUN_QSBENCH;
	if (in->command) {
		if (!(r->command = strdup(in->command)))
			return -1;
		r->procs = 1;
	} else {
		r->nelems = in->wl->cfg.nelems;
		r->procs = in->wl->cfg.procs;
		r->seed = in->wl->cfg.seed;
	}
	r->repeat_k = in->repeat_k;
	r->repeat_n = in->repeat_n;
	snprintf(r->session, sizeof(r->session), "%s", in->session ? in->session : "");
	snprintf(r->cell, sizeof(r->cell), "%s", in->cell ? in->cell : "");

	r->status = res->status;
	r->wall_us = res->tl.wall_us;
	r->user_us = res->tl.user_us;
	r->sys_us = res->tl.sys_us;
	r->cpu_pct = (double)timefmt_csh_permille(&res->tl) / 10.0;
	r->majflt = res->tl.majflt;
	r->minflt = res->tl.minflt;
	r->inblock = res->tl.inblock;
	r->oublock = res->tl.oublock;
	r->kswapd_s = res->kswapd_s;
	r->swap_peak_kib = res->swap_peak_kib;
	r->mem_free_min_kib = res->free_min_kib;
	r->swap_before_kib = res->before.swap_used;
	r->swap_after_kib = res->after.swap_used;
	r->free_before = res->before;
	r->free_after = res->after;

	r->nworkers = in->wl->n;
	if (r->nworkers && !(r->workers = calloc((size_t)r->nworkers, sizeof(*r->workers))))
		return -1;
	fill_workers(r, in->wl);

	snprintf(r->kernel_release, sizeof(r->kernel_release), "%.64s", sys->release);
	snprintf(r->hostname, sizeof(r->hostname), "%.64s", sys->hostname);
	if (!(r->kernel_version = strdup(sys->version)) ||
	    !(r->proc_cmdline = strdup(sys->cmdline)) ||
	    !(r->swap_devices = swaps_text(sys)))
		return -1;
	r->ncpus = sys->cpus_online;
	r->ram_kib = sys->mem_total_kib;
	r->swap_total_kib = sys->swap_total_kib;
	r->swappiness = vm_int(sys, "vm.swappiness");
	r->vfs_cache_pressure = vm_int(sys, "vm.vfs_cache_pressure");
	r->min_free_kbytes = vm_int(sys, "vm.min_free_kbytes");
	r->watermark_scale_factor = vm_int(sys, "vm.watermark_scale_factor");
	r->page_cluster = vm_int(sys, "vm.page-cluster");
	r->overcommit_memory = vm_int(sys, "vm.overcommit_memory");
	r->dirty_ratio = vm_int(sys, "vm.dirty_ratio");
	r->dirty_background_ratio = vm_int(sys, "vm.dirty_background_ratio");
	r->zswap = !strcmp(sys->zswap_enabled, "Y") ? 1 :
		   !strcmp(sys->zswap_enabled, "N") ? 0 : HIST_NA;
	r->mem_limit_kib = in->mem_limit_kib;
	r->cgroup_new = in->cgroup_new;
	r->global_limit_kib = in->global_limit_kib;
	snprintf(r->global_by, sizeof(r->global_by), "%s", in->global_by ? in->global_by : "");
	r->tmp_swap_kib = in->tmp_swap_kib;
	r->hugetlb_kib = sys->hugetlb_kib;
	r->mlocked_kib = sys->mlocked_kib;
	if (in->sysctls && *in->sysctls &&
	    !(r->sysctls = record_sysctls_at_start(in->sysctls, in->changes, in->nchanges)))
		return -1;
	snprintf(r->version, sizeof(r->version), "%s", THRASHTOP_VERSION);

	if (in->nchanges > 0) {
		r->changes = malloc(sizeof(*r->changes) * (size_t)in->nchanges);
		if (!r->changes)
			return -1;
		memcpy(r->changes, in->changes, sizeof(*r->changes) * (size_t)in->nchanges);
		r->nchanges = in->nchanges;
	}
	return in->log ? runlog_record(in->log, in->wl->t_start, r) : 0;
}
