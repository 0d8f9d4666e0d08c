#include "tuning.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "sysctl.h"
#include "taskstats.h"
#include "tracer.h"
#include "undo.h"
#include "zswap.h"

static void msg_add(char *msg, size_t msglen, const char *line)
{
	size_t used = strlen(msg);

	if (!*line || used + 1 >= msglen)
		return;
	snprintf(msg + used, msglen - used, "%s%s", used ? "\n" : "", line);
}

static int revert_balloon(const char *key, const char *val, char *err, size_t errlen)
{
	return balloon_kill((pid_t)atoi(key), strtoull(val, NULL, 10), err, errlen);
}

static int revert_cgroup(const char *key, const char *val, char *err, size_t errlen)
{
	(void)val;
	return cgroup_remove_path(key, err, errlen);
}

/* A swap file, or a swap area on a disk (a device under /dev). */
static int revert_swap(const char *key, const char *val, char *err, size_t errlen)
{
	(void)val;
	if (!strncmp(key, "/dev/", 5))
		return swapfile_disk_off(key, err, errlen);
	return swapfile_remove_path(key, err, errlen);
}

static int revert_zram(const char *key, const char *val, char *err, size_t errlen)
{
	(void)val;
	return zram_remove_name(key, err, errlen);
}

/* The delay accounting switch is kept as a sysctl record under its own
 * name; every other sysctl record is a vm.* one. */
static int revert_sysctl(const char *key, const char *val, char *err, size_t errlen)
{
	if (!strcmp(key, DELAYACCT_SYSCTL))
		return delayacct_write(key, val, err, errlen);
	return sysctl_write(key, val, err, errlen);
}

void tuning_register_undo(void)
{
	undo_set_revert(UNDO_BALLOON, revert_balloon);
	undo_set_revert(UNDO_CGROUP, revert_cgroup);
	undo_set_revert(UNDO_SWAP, revert_swap);
	undo_set_revert(UNDO_ZRAM, revert_zram);
	undo_set_revert(UNDO_SYSCTL, revert_sysctl);
	undo_set_revert(UNDO_PARAM, zswap_param_write);
	undo_set_revert(UNDO_TRACEFS, tracer_revert);
}

void tuning_init(struct tuning *t)
{
	memset(t, 0, sizeof(*t));
	t->cg.procs_fd = -1;
	t->zr.id = -1;
	tuning_register_undo();
}

int tuning_recover(char *msg, size_t msglen)
{
	if (msglen)
		msg[0] = '\0';
	/* A normal user can neither read root's state file nor undo what it
	 * lists; with none of its own there is nothing to do. */
	if (geteuid() != 0 && access(undo_state_file(), R_OK | W_OK) < 0)
		return 0;
	tuning_register_undo();
	return undo_recover(msg, msglen);
}

int tuning_set_swap(struct tuning *t, long long bytes, char *err, size_t errlen)
{
	if (t->have_swap) {
		if (t->sw.bytes == bytes - bytes % sysconf(_SC_PAGESIZE))
			return 0;
		if (swapfile_remove(&t->sw, err, errlen) < 0)
			return -1;
		t->have_swap = false;
	}
	if (bytes <= 0)
		return 0;
	if (t->swap_disk ? swapfile_on_disk(&t->sw, t->swap_disk, t->swap_disk_kind, bytes, -1, err,
					    errlen) < 0 :
	    swapfile_create(&t->sw, NULL, bytes, -1, err, errlen) < 0)
		return -1;
	t->have_swap = t->touched = true;
	return 0;
}

int tuning_set_zram(struct tuning *t, long long bytes, const char *algo,
		    char *err, size_t errlen)
{
	if (t->have_zram) {
		if (t->zr.bytes == bytes - bytes % sysconf(_SC_PAGESIZE) &&
		    (!algo || !*algo || !strcmp(algo, t->zr.algo)))
			return 0;
		if (zram_remove(&t->zr, err, errlen) < 0)
			return -1;
		t->have_zram = false;
	}
	if (bytes <= 0)
		return 0;
	if (zram_create(&t->zr, bytes, algo, err, errlen) < 0)
		return -1;
	t->have_zram = t->touched = true;
	return 0;
}

int tuning_set_zswap(struct tuning *t, const char *algo, int pool, char *err, size_t errlen)
{
	t->touched = t->have_zswap = true;
	return zswap_set(algo, pool, err, errlen);
}

int tuning_set_mem(struct tuning *t, long long bytes, char *err, size_t errlen)
{
	if (!t->have_cg) {
		if (bytes <= 0)
			return 0;
		if (cgroup_create(&t->cg, NULL, bytes, -1, err, errlen) < 0)
			return -1;
		t->have_cg = t->touched = true;
		t->t_prev = t->t_cur = 0;
		t->cg_runs = 0;
	} else if (cgroup_set_limit(&t->cg, bytes > 0 ? bytes : CGROUP_UNLIMITED, -1,
				    err, errlen) < 0) {
		return -1;
	}
	t->mem_limit = bytes > 0 ? bytes : 0;
	return 0;
}

static int global_stop(struct tuning *t, char *err, size_t errlen)
{
	if (t->have_balloon && balloon_stop(&t->bl, err, errlen) < 0)
		return -1;
	t->have_balloon = false;
	if (hugepool_stop(&t->pool, err, errlen) < 0)
		return -1;
	t->global_leave = 0;
	return 0;
}

/* The pool, with a balloon for what the kernel did not give. */
static int global_pool(struct tuning *t, long long bytes, enum global_with with,
		       char *err, size_t errlen)
{
	char e[256];
	long long gap;

	if (hugepool_start(&t->pool, bytes, err, errlen) < 0)
		return -1;
	t->touched = true;
	if (t->pool.nr == t->pool.nr0) {
		if (hugepool_stop(&t->pool, e, sizeof e) < 0) {
			fmt_err(err, errlen, "%s", e);
			return -1;
		}
		if (with == GLOBAL_AUTO)
			return 1;
		fmt_err(err, errlen, "--global: the kernel gave none of the %ld huge pages asked "
		       "for (try --global-with balloon)", t->pool.want - t->pool.nr0);
		return -1;
	}
	gap = hugepool_short(&t->pool);
	if (gap > 0 && balloon_start_pin(&t->bl, gap, err, errlen) < 0) {
		hugepool_stop(&t->pool, e, sizeof e);
		return -1;
	}
	t->have_balloon = gap > 0;
	return 0;
}

int tuning_set_global(struct tuning *t, long long bytes, enum global_with with,
		      char *err, size_t errlen)
{
	int rc = 1;

	if (t->have_balloon || t->pool.active) {
		if (t->global_leave == bytes)
			return 0;
		if (global_stop(t, err, errlen) < 0)
			return -1;
	}
	if (bytes <= 0)
		return 0;
	if (with != GLOBAL_BALLOON && (with == GLOBAL_HUGETLB || hugepool_usable())) {
		rc = global_pool(t, bytes, with, err, errlen);
		if (rc < 0)
			return -1;
	}
	if (rc > 0) {
		if (balloon_start_global(&t->bl, bytes, err, errlen) < 0)
			return -1;
		t->have_balloon = true;
	}
	t->touched = true;
	t->global_leave = bytes;
	return 0;
}

const char *tuning_global_by(const struct tuning *t)
{
	if (t->pool.active)
		return t->have_balloon ? "hugetlb+balloon" : "hugetlb";
	return t->have_balloon ? "balloon" : "";
}

int tuning_sysctl(struct tuning *t, const char *name, const char *val,
		  char *old, size_t oldlen, char *err, size_t errlen)
{
	int i;

	if (sysctl_get(name, old, oldlen, err, errlen) < 0)
		return -1;
	for (i = 0; i < t->nset; i++)
		if (!strcmp(t->set[i], name))
			break;
	if (i == t->nset && (i == TUNING_MAX_SYSCTL || strlen(name) >= sizeof(t->set[0]))) {
		fmt_err(err, errlen, "%s: too many sysctls changed in one session", name);
		return -1;
	}
	if (sysctl_set(name, val, err, errlen) < 0)
		return -1;
	t->touched = true;
	if (i == t->nset)
		snprintf(t->set[t->nset++], sizeof(t->set[0]), "%s", name);
	if (strcmp(name, "vm.swappiness") || tuning_cg_swappiness(t, err, errlen) == 0)
		return 0;
	/* the cgroup would reclaim at the old value: the change is not made */
	char e[256];

	sysctl_set(name, old, e, sizeof(e));
	return -1;
}

int tuning_cg_swappiness(struct tuning *t, char *err, size_t errlen)
{
	char val[SYSCTL_VALUE_MAX];

	if (!t->have_cg)
		return 0;
	if (sysctl_get("vm.swappiness", val, sizeof(val), err, errlen) < 0)
		return -1;
	return cgroup_set_swappiness(&t->cg, val, err, errlen);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t tuning_sysctls_text(const struct tuning *t, char *buf, size_t len)
{
	const char *names[TUNING_MAX_SYSCTL];
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < t->nset; i++)
		names[i] = t->set[i];
	qsort(names, (size_t)t->nset, sizeof(names[0]), cmp_name);
	for (int i = 0; i < t->nset; i++) {
		char val[SYSCTL_VALUE_MAX], err[256];
		int w;

		if (sysctl_get(names[i], val, sizeof(val), err, sizeof(err)))
			snprintf(val, sizeof(val), "n/a");
		for (char *p = val; *p; p++)	/* a multi-value sysctl's tabs */
			if (*p == '\t' || *p == '\n')
				*p = ' ';
		w = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "%s=%s\n",
			     names[i], val);
		off += (size_t)(w > 0 ? w : 0);
	}
	return off;
}

void tuning_workload_cfg(struct tuning *t, struct workload_cfg *cfg)
{
	cfg->in_child = t->have_cg ? cgroup_attach_child : NULL;
	cfg->in_child_arg = t->have_cg ? &t->cg : NULL;
	cfg->spare = t->have_balloon ? t->bl.pid : 0;
}

int tuning_sample(struct tuning *t, double now)
{
	struct cgroup_stat st;

	if (!t->have_cg)
		return 0;
	if (cgroup_read(&t->cg, &st) < 0)
		return -1;
	tuning_take(t, &st, now);
	return 0;
}

void tuning_take(struct tuning *t, const struct cgroup_stat *st, double now)
{
	t->prev = t->cur;
	t->t_prev = t->t_cur;
	t->cur = *st;
	t->t_cur = now;
}

static double per_s(long long a, long long b, double dt)
{
	if (a == NA || b == NA || b < a || !(dt > 0))
		return NAN;
	return (double)(b - a) / dt;
}

void tuning_rates(const struct tuning *t, struct tuning_rates *r)
{
	double dt = t->t_prev > 0 ? t->t_cur - t->t_prev : 0;
	long long ra = NA, rb = NA;

	r->majflt = per_s(t->prev.pgmajfault, t->cur.pgmajfault, dt);
	r->pgfault = per_s(t->prev.pgfault, t->cur.pgfault, dt);
	r->failcnt = per_s(t->prev.failcnt, t->cur.failcnt, dt);
	/* anon and file refaults together; either alone if the other is missing */
	if (t->prev.refault_anon != NA && t->cur.refault_anon != NA) {
		ra = t->prev.refault_anon;
		rb = t->cur.refault_anon;
	}
	if (t->prev.refault_file != NA && t->cur.refault_file != NA) {
		ra = (ra == NA ? 0 : ra) + t->prev.refault_file;
		rb = (rb == NA ? 0 : rb) + t->cur.refault_file;
	}
	r->refault = per_s(ra, rb, dt);
	if (!t->have_cg)
		r->majflt = r->pgfault = r->failcnt = r->refault = NAN;
}

void tuning_run_begin(struct tuning *t)
{
	t->oom_base = t->have_cg && t->t_cur > 0 ? t->cur.oom_kill : NA;
	t->cg_runs += t->have_cg;
}

int64_t tuning_run_oom(const struct tuning *t)
{
	if (!t->have_cg)
		return 0;
	if (t->oom_base == NA || t->cur.oom_kill == NA || t->cur.oom_kill < t->oom_base)
		return NA;
	return t->cur.oom_kill - t->oom_base;
}

int tuning_balloon_alive(struct tuning *t, char *err, size_t errlen)
{
	if (!t->have_balloon)
		return 1;
	if (balloon_check(&t->bl, err, errlen) == 1)
		return 1;
	t->have_balloon = false;
	return 0;
}

int tuning_delayacct(struct tuning *t, char *err, size_t errlen)
{
	int rc = delayacct_enable(err, errlen);

	if (rc == 1)
		t->delayacct_on = true;
	return rc;
}

int tuning_end(struct tuning *t, char *msg, size_t msglen)
{
	char err[512], all[1024];
	int rc = 0;

	if (msglen)
		msg[0] = '\0';
	if (t->have_balloon) {
		if (balloon_stop(&t->bl, err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
		t->have_balloon = false;
	}
	/* before swapoff, which needs the room to take pages back */
	if (hugepool_stop(&t->pool, err, sizeof(err)) < 0) {
		msg_add(msg, msglen, err);
		rc = -1;
	}
	t->pool.active = false;
	t->global_leave = 0;
	if (t->have_cg) {
		if (cgroup_remove(&t->cg, err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
		t->have_cg = false;
	}
	if (t->have_swap) {
		if (swapfile_remove(&t->sw, err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
		t->have_swap = false;
	}
	if (t->have_zram) {
		if (zram_remove(&t->zr, err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
		t->have_zram = false;
	}
	for (int i = 0; i < t->nset; i++)
		if (sysctl_restore(t->set[i], err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
	t->nset = 0;
	if (t->delayacct_on) {
		if (delayacct_restore(err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
		t->delayacct_on = false;
	}
	if (t->have_zswap) {
		if (zswap_restore(err, sizeof(err)) < 0) {
			msg_add(msg, msglen, err);
			rc = -1;
		}
		t->have_zswap = false;
	}
	if (t->touched) {
		/* Whatever a failed step above left recorded gets a second try. */
		all[0] = '\0';
		if (undo_all(all, sizeof(all)) < 0) {
			msg_add(msg, msglen, all);
			rc = -1;
		}
		t->touched = false;
	}
	return rc;
}

size_t tuning_reclaim_text(char *buf, size_t len, const double v[M_N],
			   bool cgroup, double cg_failcnt_rate)
{
	/* Comparisons with NAN are false: an unknown rate is no evidence. */
	bool cg_direct = cgroup && cg_failcnt_rate > 0;
	bool direct = v[M_SCAN_DIRECT] > 0 || v[M_STEAL_DIRECT] > 0 || v[M_ALLOCSTALL] > 0;
	bool kswapd = v[M_SCAN_KSWAPD] > 0 || v[M_STEAL_KSWAPD] > 0 || v[M_KSWAPD_CPU] >= 1.0;
	bool kswapd_known = !isnan(v[M_SCAN_KSWAPD]) || !isnan(v[M_KSWAPD_CPU]);
	bool known = kswapd_known || !isnan(v[M_SCAN_DIRECT]) || !isnan(v[M_ALLOCSTALL]) ||
		     (cgroup && !isnan(cg_failcnt_rate));
	char parts[96] = "";

	if (!known)
		return (size_t)snprintf(buf, len, "reclaim: n/a");
	if (cg_direct)
		snprintf(parts, sizeof(parts), "direct (cgroup)");
	if (direct)
		snprintf(parts + strlen(parts), sizeof(parts) - strlen(parts), "%s%s",
			 parts[0] ? " + " : "", cg_direct ? "direct (global)" : "direct");
	if (kswapd)
		snprintf(parts + strlen(parts), sizeof(parts) - strlen(parts), "%skswapd",
			 parts[0] ? " + " : "");
	if (!parts[0])
		return (size_t)snprintf(buf, len, "reclaim: none%s",
					kswapd_known ? "" : " (kswapd n/a)");
	return (size_t)snprintf(buf, len, "reclaim: %s%s", parts,
				kswapd ? "" : kswapd_known ? ", kswapd idle" : ", kswapd n/a");
}

static void bytes_text(char *buf, size_t len, long long b)
{
	fmt_kib(buf, len, b == NA ? NA : (int64_t)(b / 1024));
}

size_t tuning_cgroup_text(char *buf, size_t len, const struct cgroup_stat *st,
			  const struct tuning_rates *r)
{
	char use[32], lim[32], sw[32], mf[32], psi[32] = "";

	bytes_text(use, sizeof(use), st->usage);
	if (st->limit == CGROUP_UNLIMITED)
		snprintf(lim, sizeof(lim), "no limit");
	else
		bytes_text(lim, sizeof(lim), st->limit);
	bytes_text(sw, sizeof(sw), st->swap_usage);
	fmt_rate(mf, sizeof(mf), r->majflt);
	if (!isnan(st->psi_some10))
		snprintf(psi, sizeof(psi), " psi %.0f%%", st->psi_some10);
	return (size_t)snprintf(buf, len, "cgroup %s/%s swap %s majflt %s%s", use, lim, sw, mf, psi);
}

struct knob_rule {
	const char *name;
	long step, lo, hi;
};

static const struct knob_rule knob_rules[] = {
	{ "vm.swappiness", 10, 0, 200 },
	{ "vm.page-cluster", 1, 0, 10 },
	{ "vm.page_cluster", 1, 0, 10 },
	{ "vm.vfs_cache_pressure", 25, 0, 1000 },
	{ "vm.watermark_scale_factor", 10, 1, 3000 },
	{ "vm.dirty_ratio", 5, 0, 100 },
	{ "vm.dirty_background_ratio", 5, 0, 100 },
};

int tuning_knob_step(const char *name, const char *cur, int dir, char *out, size_t outlen)
{
	struct knob_rule r = { name, 0, 0, -1 };
	long long v, nv;
	char *end;

	errno = 0;
	v = strtoll(cur, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == cur || *end)
		return -1;
	for (size_t i = 0; i < sizeof(knob_rules) / sizeof(knob_rules[0]); i++)
		if (!strcmp(name, knob_rules[i].name))
			r = knob_rules[i];
	if (!r.step) {
		r.step = llabs(v) / 10 > 0 ? (long)(llabs(v) / 10) : 1;
		r.hi = -1;
	}
	nv = v + (dir < 0 ? -r.step : r.step);
	/* Off-grid values land on the grid, as a user pressing the key expects. */
	if (r.hi >= 0 && v % r.step)
		nv = dir < 0 ? v - (v % r.step + r.step) % r.step : v + (r.step - v % r.step);
	if (nv < r.lo)
		nv = r.lo;
	if (r.hi >= 0 && nv > r.hi)
		nv = r.hi;
	if (nv == v)
		return 1;
	snprintf(out, outlen, "%lld", nv);
	return 0;
}

int tuning_knob(struct tuning *t, const char *name, int dir, char *old, char *now, size_t vlen,
		char *err, size_t errlen)
{
	char cur[SYSCTL_VALUE_MAX];
	int rc;

	if (sysctl_get(name, cur, sizeof(cur), err, errlen))
		return -1;
	rc = tuning_knob_step(name, cur, dir, now, vlen);
	if (rc < 0)
		return snprintf(err, errlen, "%s is %s: not one number to step", name, cur), -1;
	if (rc > 0)
		return snprintf(now, vlen, "%s", cur), 1;
	return tuning_sysctl(t, name, now, old, vlen, err, errlen) ? -1 : 0;
}
