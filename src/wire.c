#include "wire.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N(t) ((int)(sizeof(t) / sizeof((t)[0])))

_Static_assert(sizeof(time_t) == sizeof(long) && sizeof(suseconds_t) == sizeof(long),
	       "a timeval travels as two longs");
_Static_assert(sizeof(enum worker_end) == sizeof(int) && sizeof(pid_t) == sizeof(int),
	       "enums and pids travel as ints");

#define SS struct sys_sample
static const struct stream_field sys_t[] = {
	STREAM_F(SS, t, ST_DBL), STREAM_A(SS, mem, ST_I64, MI_N), STREAM_A(SS, vm, ST_I64, VM_N),
	STREAM_F(SS, procs_running, ST_I64), STREAM_F(SS, procs_blocked, ST_I64),
	STREAM_F(SS, psi_some10, ST_DBL), STREAM_F(SS, psi_full10, ST_DBL),
	STREAM_F(SS, psi_some_us, ST_I64), STREAM_F(SS, psi_full_us, ST_I64),
	STREAM_F(SS, nkswapd, ST_INT), STREAM_F(SS, kswapd_ns, ST_I64),
	STREAM_F(SS, mem_cache_all, ST_I64), STREAM_F(SS, zswap_kib, ST_I64),
	STREAM_F(SS, zswapped_kib, ST_I64), STREAM_F(SS, zram_orig_kib, ST_I64),
	STREAM_F(SS, zram_compr_kib, ST_I64), STREAM_F(SS, zram_mem_kib, ST_I64),
	STREAM_F(SS, rc_ok, ST_BOOL), STREAM_F(SS, rc_p99_ms, ST_DBL),
};

#define RC struct rc_counts
static const struct stream_field counts_t[] = {
	STREAM_F(RC, direct_n, ST_I64), STREAM_F(RC, direct_ns, ST_I64),
	STREAM_F(RC, memcg_n, ST_I64), STREAM_F(RC, memcg_ns, ST_I64),
	STREAM_F(RC, compact_n, ST_I64), STREAM_F(RC, compact_ns, ST_I64),
	STREAM_F(RC, kswapd_wakes, ST_I64), STREAM_F(RC, kswapd_awake_ns, ST_I64),
	STREAM_F(RC, throttled, ST_I64), STREAM_F(RC, oom, ST_I64),
	STREAM_F(RC, oom_last_ns, ST_U64), STREAM_F(RC, lost, ST_I64),
};

#define PS struct proc_sample
static const struct stream_field proc_t[] = {
	STREAM_F(PS, pid, ST_INT), STREAM_F(PS, alive, ST_BOOL), STREAM_F(PS, state, ST_CHAR),
	STREAM_F(PS, utime_ticks, ST_I64), STREAM_F(PS, stime_ticks, ST_I64),
	STREAM_F(PS, majflt, ST_I64), STREAM_F(PS, minflt, ST_I64),
	STREAM_F(PS, rss_kib, ST_I64), STREAM_F(PS, swap_kib, ST_I64),
};

static const struct stream_field delays_t[] = {
	STREAM_A(struct delays, s, ST_DBL, DL_N),
};

#define CS struct cgroup_stat
static const struct stream_field cgroup_t[] = {
	STREAM_F(CS, usage, ST_LL), STREAM_F(CS, peak, ST_LL), STREAM_F(CS, limit, ST_LL),
	STREAM_F(CS, swap_usage, ST_LL), STREAM_F(CS, swap_limit, ST_LL),
	STREAM_F(CS, pgfault, ST_LL), STREAM_F(CS, pgmajfault, ST_LL),
	STREAM_F(CS, refault_anon, ST_LL), STREAM_F(CS, refault_file, ST_LL),
	STREAM_F(CS, failcnt, ST_LL), STREAM_F(CS, oom_kill, ST_LL),
	STREAM_F(CS, psi_some10, ST_DBL), STREAM_F(CS, psi_full10, ST_DBL),
};

#define CP struct sampler_caps
static const struct stream_field caps_t[] = {
	STREAM_A(CP, mem, ST_BOOL, MI_N), STREAM_A(CP, vm, ST_BOOL, VM_N),
	STREAM_F(CP, psi, ST_BOOL), STREAM_F(CP, psi_full, ST_BOOL), STREAM_F(CP, nkswapd, ST_INT),
	STREAM_F(CP, kswapd_ok, ST_BOOL), STREAM_F(CP, zswap_mem, ST_BOOL),
	STREAM_F(CP, zram, ST_BOOL),
};

#define ST struct sysstate
static const struct stream_field state_t[] = {
	STREAM_S(ST, hostname), STREAM_S(ST, release), STREAM_S(ST, version),
	STREAM_S(ST, cmdline), STREAM_S(ST, boot_id), STREAM_F(ST, cpus_online, ST_INT),
	STREAM_F(ST, memcg_version, ST_INT), STREAM_F(ST, mem_total_kib, ST_I64), STREAM_F(ST, hugetlb_kib, ST_I64),
	STREAM_F(ST, mlocked_kib, ST_I64), STREAM_F(ST, nswaps, ST_INT),
	STREAM_F(ST, swap_total_kib, ST_I64), STREAM_F(ST, swap_used_kib, ST_I64),
	STREAM_S(ST, zswap_enabled), STREAM_S(ST, zswap_compressor), STREAM_S(ST, zswap_pool),
};

#define SD struct swap_dev
static const struct stream_field swap_t[] = {
	STREAM_S(SD, path), STREAM_S(SD, type), STREAM_F(SD, size_kib, ST_I64),
	STREAM_F(SD, used_kib, ST_I64), STREAM_F(SD, prio, ST_INT),
};

#define WK struct worker
static const struct stream_field worker_t[] = {
	STREAM_F(WK, pid, ST_INT), STREAM_F(WK, pgid, ST_INT), STREAM_F(WK, status, ST_INT),
	STREAM_F(WK, t_end, ST_DBL), STREAM_F(WK, end, ST_INT),
	STREAM_A(WK, delays.s, ST_DBL, DL_N), STREAM_A(WK, delays_past, ST_BOOL, DL_N),
	STREAM_F(WK, ru.ru_utime.tv_sec, ST_LONG), STREAM_F(WK, ru.ru_utime.tv_usec, ST_LONG),
	STREAM_F(WK, ru.ru_stime.tv_sec, ST_LONG), STREAM_F(WK, ru.ru_stime.tv_usec, ST_LONG),
	STREAM_F(WK, ru.ru_maxrss, ST_LONG), STREAM_F(WK, ru.ru_minflt, ST_LONG),
	STREAM_F(WK, ru.ru_majflt, ST_LONG), STREAM_F(WK, ru.ru_nswap, ST_LONG),
	STREAM_F(WK, ru.ru_inblock, ST_LONG), STREAM_F(WK, ru.ru_oublock, ST_LONG),
	STREAM_F(WK, ru.ru_nvcsw, ST_LONG), STREAM_F(WK, ru.ru_nivcsw, ST_LONG),
};

#define OK_ struct oom_kill
static const struct stream_field kill_t[] = {
	STREAM_F(OK_, pid, ST_INT), STREAM_S(OK_, comm), STREAM_S(OK_, memcg),
};

#define PE struct place_end
static const struct stream_field end_t[] = {
	STREAM_F(PE, nkills, ST_INT), STREAM_F(PE, tree_lost, ST_BOOL),
	STREAM_A(PE, tree_past, ST_BOOL, DL_N), STREAM_F(PE, acct_off, ST_BOOL),
};

#define WP struct wire_prog
static const struct stream_field prog_t[] = {
	STREAM_F(WP, phase, ST_INT), STREAM_F(WP, done, ST_LONG), STREAM_F(WP, n, ST_LONG),
	STREAM_F(WP, errors, ST_LONG), STREAM_F(WP, first_bad, ST_LONG),
};

#define WC struct workload_cfg
static const struct stream_field cfg_t[] = {
	STREAM_F(WC, nelems, ST_LONG), STREAM_F(WC, procs, ST_INT), STREAM_F(WC, seed, ST_INT),
	STREAM_F(WC, fill.kind, ST_INT), STREAM_F(WC, fill.zero_pct, ST_INT),
	STREAM_F(WC, set_nice, ST_BOOL), STREAM_F(WC, nice, ST_INT),
};

#define TU struct tuning
static const struct stream_field tuning_t[] = {
	STREAM_F(TU, have_cg, ST_BOOL), STREAM_F(TU, mem_limit, ST_LL),
	STREAM_S(TU, cg.path), STREAM_F(TU, cg.version, ST_INT), STREAM_F(TU, cg.memsw, ST_BOOL),
	STREAM_F(TU, have_swap, ST_BOOL), STREAM_S(TU, sw.path), STREAM_F(TU, sw.bytes, ST_LL),
	STREAM_S(TU, sw.disk),
	STREAM_F(TU, have_zram, ST_BOOL), STREAM_S(TU, zr.name), STREAM_F(TU, zr.bytes, ST_LL),
	STREAM_S(TU, zr.algo), STREAM_F(TU, zr.prio, ST_INT), STREAM_F(TU, have_zswap, ST_BOOL),
	STREAM_F(TU, global_leave, ST_LL), STREAM_F(TU, touched, ST_BOOL),
	STREAM_F(TU, delayacct_on, ST_BOOL), STREAM_F(TU, cg_runs, ST_INT),
};

void wire_put_sys(struct stream_msg *m, const char *prefix, const struct sys_sample *x)
{
	char p[64];

	stream_put_fields(m, prefix, sys_t, N(sys_t), x);
	snprintf(p, sizeof(p), "%src.", prefix);
	stream_put_fields(m, p, counts_t, N(counts_t), &x->rc);
}

void wire_get_sys(const struct stream_line *l, const char *prefix, struct sys_sample *x)
{
	char p[64];

	stream_get_fields(l, prefix, sys_t, N(sys_t), x);
	snprintf(p, sizeof(p), "%src.", prefix);
	stream_get_fields(l, p, counts_t, N(counts_t), &x->rc);
}

void wire_put_counts(struct stream_msg *m, const char *prefix, const struct rc_counts *x)
{
	stream_put_fields(m, prefix, counts_t, N(counts_t), x);
}

void wire_get_counts(const struct stream_line *l, const char *prefix, struct rc_counts *x)
{
	stream_get_fields(l, prefix, counts_t, N(counts_t), x);
}

#define RV struct rc_victim
static const struct stream_field victim_t[] = {
	STREAM_F(RV, t, ST_DBL), STREAM_F(RV, pid, ST_INT), STREAM_S(RV, comm),
};

void wire_put_rcrun(struct stream_msg *m, const struct rc_acc *x, int64_t n, double s)
{
	char k[32];

	stream_put_i64(m, "n", n);
	stream_put_dbl(m, "s", s);
	stream_put_i64(m, "nev", x->nev);
	stream_put_i64(m, "ev_past", x->ev_past);
	stream_put_i64(m, "t0", (int64_t)x->run_t0);
	wire_put_counts(m, "c.", &x->c);
	wire_put_counts(m, "r.", &x->run);
	stream_put_i64(m, "h.n", x->run_hist.n);
	stream_put_i64(m, "h.max_ns", x->run_hist.max_ns);
	for (int i = 0; i < RC_HIST_N; i++) {
		if (!x->run_hist.b[i])
			continue;
		snprintf(k, sizeof(k), "b.%d", i);
		stream_put_i64(m, k, x->run_hist.b[i]);
	}
	for (int i = 0; i < x->nvictims && i < RC_VICTIMS_MAX; i++) {
		snprintf(k, sizeof(k), "v.%d.", i);
		stream_put_fields(m, k, victim_t, N(victim_t), &x->victims[i]);
	}
}

/* "b.12" -> 12 for prefix "b."; -1 for another key or a bad index. */
static int key_index(const char *key, const char *prefix, int max)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(key, prefix, n) || !key[n])
		return -1;
	v = strtol(key + n, &end, 10);
	return *end || v < 0 || v >= max ? -1 : (int)v;
}

void wire_get_rcrun(const struct stream_line *l, struct rc_acc *x, int64_t *n, double *s)
{
	char k[32];

	rc_init(x, 0);
	*n = stream_get_i64(l, "n", 0);
	*s = stream_get_dbl(l, "s");
	if (*s != *s)
		*s = 0;
	x->ev_past = stream_get_i64(l, "ev_past", 0);
	x->run_t0 = (uint64_t)stream_get_i64(l, "t0", 0);
	wire_get_counts(l, "c.", &x->c);
	wire_get_counts(l, "r.", &x->run);
	x->run_hist.n = stream_get_i64(l, "h.n", 0);
	x->run_hist.max_ns = stream_get_i64(l, "h.max_ns", 0);
	for (int i = 0; i < l->n; i++) {
		int b = key_index(l->kv[i].key, "b.", RC_HIST_N);

		if (b >= 0)
			x->run_hist.b[b] = (uint32_t)strtoul(l->kv[i].val, NULL, 10);
	}
	for (int i = 0; i < RC_VICTIMS_MAX; i++) {
		snprintf(k, sizeof(k), "v.%d.pid", i);
		if (!stream_get(l, k))
			break;
		snprintf(k, sizeof(k), "v.%d.", i);
		stream_get_fields(l, k, victim_t, N(victim_t), &x->victims[i]);
		x->nvictims = i + 1;
	}
}

void wire_put_rcev(struct stream_msg *m, const struct rc_acc *x, int from)
{
	char k[32];

	stream_put_i64(m, "from", from);
	for (int j = 0; j < WIRE_RC_EVENTS && from + j < x->nev; j++) {
		const struct rc_run_event *e = &x->ev[from + j];

		snprintf(k, sizeof(k), "k.%d", j);
		stream_put_i64(m, k, e->kind);
		snprintf(k, sizeof(k), "t.%d", j);
		stream_put_dbl(m, k, e->t);
		snprintf(k, sizeof(k), "d.%d", j);
		stream_put_dbl(m, k, e->dur);
		snprintf(k, sizeof(k), "p.%d", j);
		stream_put_i64(m, k, e->pid);
	}
}

void wire_get_rcev(const struct stream_line *l, struct rc_acc *x)
{
	const int max = RC_EVENTS_MAX + RC_OOM_PAST_MAX;
	int64_t from = stream_get_i64(l, "from", -1);

	if (from < 0 || from >= max)
		return;
	for (int i = 0; i < l->n; i++) {
		const char *key = l->kv[i].key;
		int j = key_index(key + (*key ? 1 : 0), ".", WIRE_RC_EVENTS), at;
		struct rc_run_event *e;

		if (j < 0 || (at = (int)from + j) >= max)
			continue;
		e = &x->ev[at];
		switch (*key) {
		case 'k': e->kind = (uint8_t)strtoul(l->kv[i].val, NULL, 10); break;
		case 't': e->t = strtod(l->kv[i].val, NULL); break;
		case 'd': e->dur = strtod(l->kv[i].val, NULL); break;
		case 'p': e->pid = (int)strtol(l->kv[i].val, NULL, 10); break;
		default: continue;
		}
		if (at >= x->nev)
			x->nev = at + 1;
	}
}

void wire_put_proc(struct stream_msg *m, const char *prefix, const struct proc_sample *x)
{
	stream_put_fields(m, prefix, proc_t, N(proc_t), x);
}

void wire_get_proc(const struct stream_line *l, const char *prefix, struct proc_sample *x)
{
	stream_get_fields(l, prefix, proc_t, N(proc_t), x);
}

void wire_put_delays(struct stream_msg *m, const char *prefix, const struct delays *x)
{
	stream_put_fields(m, prefix, delays_t, N(delays_t), x);
}

void wire_get_delays(const struct stream_line *l, const char *prefix, struct delays *x)
{
	stream_get_fields(l, prefix, delays_t, N(delays_t), x);
}

void wire_put_cgroup(struct stream_msg *m, const char *prefix, const struct cgroup_stat *x)
{
	stream_put_fields(m, prefix, cgroup_t, N(cgroup_t), x);
}

void wire_get_cgroup(const struct stream_line *l, const char *prefix, struct cgroup_stat *x)
{
	stream_get_fields(l, prefix, cgroup_t, N(cgroup_t), x);
}

void wire_put_caps(struct stream_msg *m, const char *prefix, const struct sampler_caps *x)
{
	stream_put_fields(m, prefix, caps_t, N(caps_t), x);
}

void wire_get_caps(const struct stream_line *l, const char *prefix, struct sampler_caps *x)
{
	stream_get_fields(l, prefix, caps_t, N(caps_t), x);
}

static const char *const vm_names[SYSSTATE_NVM] = {
#define X(n) n,
	SYSSTATE_VM_SYSCTLS
#undef X
};

void wire_put_state(struct stream_msg *m, const struct sysstate *x)
{
	char p[32];

	stream_put_fields(m, "", state_t, N(state_t), x);
	for (int i = 0; i < x->nswaps && i < SYSSTATE_MAX_SWAPS; i++) {
		snprintf(p, sizeof(p), "sw.%d.", i);
		stream_put_fields(m, p, swap_t, N(swap_t), &x->swaps[i]);
	}
	for (int i = 0; i < SYSSTATE_NVM; i++) {
		snprintf(p, sizeof(p), "vm.%d", i);
		stream_put_str(m, p, x->vm[i].value);
	}
}

void wire_get_state(const struct stream_line *l, struct sysstate *x)
{
	char p[32];

	memset(x, 0, sizeof(*x));
	stream_get_fields(l, "", state_t, N(state_t), x);
	if (x->nswaps < 0 || x->nswaps > SYSSTATE_MAX_SWAPS)
		x->nswaps = 0;
	for (int i = 0; i < x->nswaps; i++) {
		snprintf(p, sizeof(p), "sw.%d.", i);
		stream_get_fields(l, p, swap_t, N(swap_t), &x->swaps[i]);
	}
	for (int i = 0; i < SYSSTATE_NVM; i++) {
		const char *v;

		snprintf(p, sizeof(p), "vm.%d", i);
		v = stream_get(l, p);
		x->vm[i].name = vm_names[i];
		snprintf(x->vm[i].value, sizeof(x->vm[i].value), "%s", v ? v : "n/a");
	}
}

void wire_put_worker(struct stream_msg *m, const struct worker *x)
{
	stream_put_fields(m, "", worker_t, N(worker_t), x);
}

void wire_get_worker(const struct stream_line *l, struct worker *x)
{
	stream_get_fields(l, "", worker_t, N(worker_t), x);
}

void wire_put_kill(struct stream_msg *m, const char *prefix, const struct oom_kill *x)
{
	stream_put_fields(m, prefix, kill_t, N(kill_t), x);
}

void wire_get_kill(const struct stream_line *l, const char *prefix, struct oom_kill *x)
{
	stream_get_fields(l, prefix, kill_t, N(kill_t), x);
}

void wire_put_end(struct stream_msg *m, const struct place_end *x)
{
	stream_put_fields(m, "", end_t, N(end_t), x);
}

void wire_get_end(const struct stream_line *l, struct place_end *x)
{
	memset(x, 0, sizeof(*x));
	stream_get_fields(l, "", end_t, N(end_t), x);
	if (x->nkills < 0 || x->nkills > RUN_VICTIMS_MAX)
		x->nkills = 0;
}

void wire_put_prog(struct stream_msg *m, const struct wire_prog *x)
{
	stream_put_fields(m, "", prog_t, N(prog_t), x);
}

void wire_get_prog(const struct stream_line *l, struct wire_prog *x)
{
	stream_get_fields(l, "", prog_t, N(prog_t), x);
}

void wire_put_cfg(struct stream_msg *m, const struct workload_cfg *x)
{
	stream_put_fields(m, "", cfg_t, N(cfg_t), x);
	for (char **a = x->argv; a && *a; a++)
		stream_put_str(m, "arg", *a);
}

char **wire_get_all(const struct stream_line *l, const char *key)
{
	size_t n = 0, bytes = 0;
	char **v, *s;

	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->kv[i].key, key))
			n++, bytes += strlen(l->kv[i].val) + 1;
	if (!(v = malloc(sizeof(*v) * (n + 1) + bytes)))
		return NULL;
	s = (char *)(v + n + 1);
	n = 0;
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->kv[i].key, key)) {
			size_t k = strlen(l->kv[i].val) + 1;

			v[n++] = memcpy(s, l->kv[i].val, k);
			s += k;
		}
	v[n] = NULL;
	return v;
}

int wire_get_cfg(const struct stream_line *l, struct workload_cfg *x)
{
	memset(x, 0, sizeof(*x));
	stream_get_fields(l, "", cfg_t, N(cfg_t), x);
	x->out_fd = -1;
	if (!stream_get(l, "arg"))
		return 0;
	return (x->argv = wire_get_all(l, "arg")) ? 0 : -1;
}

void wire_free_argv(char **argv)
{
	free(argv);
}

void wire_put_tuning(struct stream_msg *m, const struct tuning *x)
{
	stream_put_fields(m, "", tuning_t, N(tuning_t), x);
	stream_put_str(m, "global_by", tuning_global_by(x));
}

void wire_get_tuning(const struct stream_line *l, struct tuning *x)
{
	const char *by = stream_get(l, "global_by");

	stream_get_fields(l, "", tuning_t, N(tuning_t), x);
	x->cg.procs_fd = -1;
	x->zr.id = -1;
	x->pool.active = by && strstr(by, "hugetlb");
	x->have_balloon = by && strstr(by, "balloon");
	x->mem_limit = x->mem_limit < 0 ? 0 : x->mem_limit;
	x->global_leave = x->global_leave < 0 ? 0 : x->global_leave;
	x->cg_runs = x->cg_runs < 0 ? 0 : x->cg_runs;
}
