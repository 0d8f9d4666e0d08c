#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "run.h"

/* A sample that read nothing. */
static void sample_na(struct sys_sample *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < MI_N; i++)
		a->mem[i] = NA;
	for (int i = 0; i < VM_N; i++)
		a->vm[i] = NA;
}

/* A run of one worker that ended with wait status st; the OOM-kill count
 * rises by rise between its first and last samples. */
static void one_run(struct run_result *r, char **argv, int st, int64_t rise,
		    const struct oom_seen *seen)
{
	struct worker w = { .pid = 100, .status = st, .t_end = 2, .end = END_OK };
	struct sys_sample a, b;
	struct run rn;
	double v[M_N];
	bool on[M_N] = { false };

	sample_na(&a);
	a.vm[VM_OOM_KILL] = 7;
	a.kswapd_ns = NA;
	b = a;
	b.vm[VM_OOM_KILL] = 7 + rise;
	if (st)
		w.end = WIFSIGNALED(st) ? END_SIGNAL : END_EXIT;
	for (int i = 0; i < M_N; i++)
		v[i] = NAN;
	run_init(&rn);
	rn.wl.cfg.argv = argv;
	rn.wl.cfg.procs = 1;
	rn.wl.n = 1;
	rn.wl.w = &w;
	rn.wl.t_start = 1;
	rn.active = true;
	run_started(&rn, &a, v, on);
	run_finish(&rn, &b, seen, false);
	*r = rn.res;
	rn.wl.w = NULL;
	rn.wl.n = 0;
	run_free(&rn);
}

TEST(run_command_child_killed_is_oom)
{
	char *argv[] = { "/bin/sh", "-c", "x", NULL };
	struct oom_kill k = { .pid = 101, .comm = "python3" };
	struct oom_seen seen = { .kills = &k, .nkills = 1 };
	struct run_result r;

	/* the command exited 0; the log named its child */
	one_run(&r, argv, 0, 1, &seen);
	CHECK_INT(r.status, RUN_OOM);
	CHECK_INT(r.nfailed, 0);
	CHECK_INT(r.nvictims, 1);
	CHECK_INT(r.victims[0].pid, 101);
	CHECK_STR(r.victims[0].comm, "python3");

	/* the command itself killed, no log: named from its argv */
	one_run(&r, argv, SIGKILL, 1, NULL);
	CHECK_INT(r.status, RUN_OOM);
	CHECK_INT(r.nvictims, 1);
	CHECK_INT(r.victims[0].pid, 100);
	CHECK_STR(r.victims[0].comm, "sh");

	/* the cgroup counted a kill no line named */
	seen.nkills = 0;
	seen.cgroup = 1;
	one_run(&r, argv, 0, 1, &seen);
	CHECK_INT(r.status, RUN_OOM);
	CHECK_INT(r.nvictims, 0);
	CHECK_INT(r.unnamed, 1);

	/* a kill elsewhere on the machine is not the run's */
	one_run(&r, argv, 0, 1, NULL);
	CHECK_INT(r.status, RUN_OK);
	CHECK_INT(r.nvictims, 0);
	/* a sorter killed while the count rose */
	one_run(&r, NULL, SIGKILL, 1, NULL);
	CHECK_INT(r.status, RUN_OOM);
	CHECK_STR(r.victims[0].comm, "thrashtop");
	/* and without the count rising, only a signal */
	one_run(&r, NULL, SIGKILL, 0, NULL);
	CHECK_INT(r.status, RUN_FAILED);
	CHECK_INT(r.nvictims, 0);
}

/* The run's stalls sum its workers'; a total one of them lacks (its own
 * passed its life) is unknown, not the others' short sum. */
TEST(run_stalls_need_every_worker)
{
	struct worker w[2] = { { .pid = 100, .t_end = 2, .end = END_OK },
			       { .pid = 101, .t_end = 2, .end = END_OK } };
	struct sys_sample a;
	struct run rn;
	double v[M_N];
	bool on[M_N] = { false };

	sample_na(&a);
	a.kswapd_ns = NA;
	for (int i = 0; i < M_N; i++)
		v[i] = NAN;
	for (int i = 0; i < 2; i++) {
		delays_clear(&w[i].delays);
		w[i].delays.s[DL_CPU] = 1.5 + i;
		w[i].delays.s[DL_IO] = 0.25;
	}
	w[1].delays.s[DL_IO] = NAN;
	run_init(&rn);
	rn.wl.cfg.procs = 2;
	rn.wl.n = 2;
	rn.wl.w = w;
	rn.wl.t_start = 1;
	rn.active = true;
	run_started(&rn, &a, v, on);
	run_finish(&rn, &a, NULL, false);
	CHECK_NEAR(rn.res.stalls.s[DL_CPU], 4.0, 1e-12);
	CHECK(isnan(rn.res.stalls.s[DL_IO]));
	CHECK(isnan(rn.res.stalls.s[DL_IRQ]));
	rn.wl.w = NULL;
	rn.wl.n = 0;
	run_free(&rn);
}
