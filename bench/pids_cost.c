/* Cost of reading 64 processes per tick: libproc2's pids_select against
 * kept-open /proc/PID files read with pread. Forks 64 sleeping children,
 * times N rounds of each way and prints microseconds per round.
 * Usage: pids_cost [ROUNDS] */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libproc2/pids.h>

#include "procparse.h"
#include "sampler.h"

#define NKIDS 64

static pid_t kids[NKIDS];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void reap_kids(void)
{
	for (int i = 0; i < NKIDS; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
}

static void report(const char *what, double t0, int rounds)
{
	double us = (now_us() - t0) / rounds;

	printf("%-44s %9.1f us/round %7.2f us/pid\n", what, us, us / NKIDS);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	enum pids_item items[] = { PIDS_ID_PID, PIDS_STATE, PIDS_TICS_USER, PIDS_TICS_SYSTEM,
				   PIDS_FLT_MAJ, PIDS_FLT_MIN, PIDS_VM_RSS, PIDS_VM_SWAP };
	unsigned sel[NKIDS];
	int stat_fd[NKIDS], status_fd[NKIDS];
	struct pids_info *pi = NULL;
	struct sampler *s;
	char err[256], buf[4096];
	pid_t desc[4 * NKIDS];
	double t0;
	long sink = 0;

	if (rounds <= 0) {
		fprintf(stderr, "usage: pids_cost [ROUNDS>0]\n");
		return 2;
	}
	for (int i = 0; i < NKIDS; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("fork");
			reap_kids();
			return 1;
		}
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
		sel[i] = (unsigned)kids[i];
	}
	s = sampler_new(err, sizeof(err));
	if (!s || procps_pids_new(&pi, items, 8) < 0) {
		fprintf(stderr, "pids_cost: %s\n", s ? "libproc2 pids_new failed" : err);
		reap_kids();
		return 1;
	}
	for (int i = 0; i < NKIDS; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/stat", kids[i]);
		stat_fd[i] = open(path, O_RDONLY);
		snprintf(path, sizeof(path), "/proc/%d/status", kids[i]);
		status_fd[i] = open(path, O_RDONLY);
		if (stat_fd[i] < 0 || status_fd[i] < 0 || sampler_watch(s, kids[i]) < 0) {
			perror("open /proc/PID");
			reap_kids();
			return 1;
		}
	}
	printf("%d children, %d rounds\n", NKIDS, rounds);

	t0 = now_us();
	for (int r = 0; r < rounds; r++) {
		struct pids_fetch *f = procps_pids_select(pi, sel, NKIDS, PIDS_SELECT_PID);
		if (!f || f->counts->total != NKIDS) {
			fprintf(stderr, "pids_select: %s\n", strerror(errno));
			reap_kids();
			return 1;
		}
		sink += f->stacks[0]->head[5].result.ul_int;
	}
	report("libproc2 pids_select (8 items incl. VmSwap)", t0, rounds);

	t0 = now_us();
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < NKIDS; i++) {
			struct pstat ps;
			ssize_t n = pread(stat_fd[i], buf, sizeof(buf), 0);
			if (n < 0 || procparse_stat(buf, (size_t)n, &ps) < 0)
				return 1;
			sink += ps.minflt;
		}
	report("pread /proc/PID/stat + parse", t0, rounds);

	t0 = now_us();
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < NKIDS; i++) {
			int64_t kib;
			ssize_t n = pread(status_fd[i], buf, sizeof(buf), 0);
			if (n < 0 || procparse_kib(buf, (size_t)n, "VmSwap", &kib) < 0)
				return 1;
			sink += kib;
		}
	report("pread /proc/PID/status + VmSwap", t0, rounds);

	t0 = now_us();
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < NKIDS; i++) {
			struct proc_sample p;
			if (sampler_proc(s, kids[i], true, &p) < 0)
				return 1;
			sink += p.minflt;
		}
	report("sampler_proc (stat + status)", t0, rounds);

	t0 = now_us();
	for (int r = 0; r < rounds; r++)
		if (sampler_descendants(NULL, getpid(), desc, 4 * NKIDS) != NKIDS)
			return 1;
	report("sampler_descendants (64 children)", t0, rounds);

	t0 = now_us();
	for (int r = 0; r < rounds; r++) {
		struct sys_sample ss;
		if (sampler_sys(s, &ss) < 0)
			return 1;
		sink += ss.vm[VM_PGFAULT];
	}
	printf("%-44s %9.1f us/call\n", "sampler_sys", (now_us() - t0) / rounds);

	procps_pids_unref(&pi);
	sampler_free(s);
	reap_kids();
	return sink == -1;
}
