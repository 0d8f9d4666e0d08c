#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "undo.h"

#define MOUNT_POINT "/sys/kernel/tracing"
#define MAX_CPUS 1024

/* The events read, as reclaim.c knows them. */
static const struct {
	const char *sys, *name;
	enum rc_kind kind;
} wanted[] = {
	{ "vmscan", "mm_vmscan_direct_reclaim_begin", RC_DIRECT_BEGIN },
	{ "vmscan", "mm_vmscan_direct_reclaim_end", RC_DIRECT_END },
	{ "vmscan", "mm_vmscan_memcg_reclaim_begin", RC_MEMCG_BEGIN },
	{ "vmscan", "mm_vmscan_memcg_reclaim_end", RC_MEMCG_END },
	{ "vmscan", "mm_vmscan_kswapd_wake", RC_KSWAPD_WAKE },
	{ "vmscan", "mm_vmscan_kswapd_sleep", RC_KSWAPD_SLEEP },
	{ "vmscan", "mm_vmscan_throttled", RC_THROTTLED },
	{ "oom", "mark_victim", RC_OOM_VICTIM },
	{ "compaction", "mm_compaction_begin", RC_COMPACT_BEGIN },
	{ "compaction", "mm_compaction_end", RC_COMPACT_END },
};
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))

struct tracer {
	char dir[256];			/* the tracing directory */
	char inst_path[300];		/* its instance */
	bool mounted;			/* we mounted dir */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	int ids[NWANTED];		/* event ids, -1 absent */
	struct tep_format_field *nid[NWANTED], *vpid[NWANTED], *vcomm[NWANTED];
	int ncpu;
	struct tracefs_cpu *cpu[MAX_CPUS];
	int pipe_fd[MAX_CPUS];		/* cpu[]'s trace_pipe_raw, polled */
	int stats_fd[MAX_CPUS];
	int64_t lost_seen[MAX_CPUS];
	struct kbuffer *kbuf;
	void *page;
	int page_size;
	struct rc_event *batch, *held;	/* this round's, and those newer than it */
	size_t nbatch, nheld, cap;

	_Atomic uint64_t drained_ns;	/* the last drain began (read by tracer_sync
					   outside drain_mu) */
	uint64_t fed_ns;		/* events up to here are fed */

	pthread_t th;
	bool th_on;
	int stop_fd;			/* eventfd: the thread ends */
	pthread_mutex_t mu;		/* the accumulator */
	pthread_mutex_t drain_mu;	/* one drain at a time */
	struct rc_acc *acc;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where tracefs is mounted now; "" when it is not. */
static void find_mount(char *dir, size_t len)
{
	char line[1024], dev[256], mnt[200], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	dir[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %199s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "tracefs")) {
			snprintf(dir, len, "%s", mnt);
			break;
		}
	fclose(f);
}

int tracer_revert(const char *key, const char *val, char *err, size_t errlen)
{
	if (!strcmp(val, "instance")) {
		if (rmdir(key) == 0 || errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot remove tracefs instance %s: %s", key, strerror(errno));
		return -1;
	}
	if (!strcmp(val, "mount")) {
		/* EINVAL: not a mount point (any more) */
		if (umount2(key, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL || errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot unmount tracefs at %s: %s", key, strerror(errno));
		return -1;
	}
	snprintf(err, errlen, "unknown tracefs record %s %s", key, val);
	return -1;
}

static int grow(struct tracer *t, size_t want)
{
	struct rc_event *b, *h;
	size_t cap = t->cap ? t->cap : 4096;

	while (cap < want)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	if (!(b = realloc(t->batch, cap * sizeof(*b))))
		return -1;
	t->batch = b;
	if (!(h = realloc(t->held, cap * sizeof(*h))))
		return -1;
	t->held = h;
	t->cap = cap;
	return 0;
}

static void parse_one(struct tracer *t, void *data, unsigned long long ts, int cpu)
{
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data,
				  .size = kbuffer_event_size(t->kbuf) };
	int type = tep_data_type(t->tep, &rec);
	struct rc_event *e;
	unsigned long long v;

	for (size_t i = 0; i < NWANTED; i++) {
		if (t->ids[i] != type)
			continue;
		if (t->nbatch >= t->cap && grow(t, t->nbatch + 1))
			return;
		e = &t->batch[t->nbatch++];
		memset(e, 0, sizeof(*e));
		e->kind = wanted[i].kind;
		e->ns = ts;
		e->pid = tep_data_pid(t->tep, &rec);
		if (t->nid[i] && !tep_read_number_field(t->nid[i], data, &v))
			e->nid = (int)v;
		if (t->vpid[i] && !tep_read_number_field(t->vpid[i], data, &v))
			e->pid = (int)v;
		if (t->vcomm[i]) {
			struct tep_format_field *f = t->vcomm[i];
			int off = f->offset, size = f->size;

			if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				unsigned long long loc;

				if (tep_read_number_field(f, data, &loc))
					return;
				off = (int)(loc & 0xffff);
				size = (int)(loc >> 16);
				if (f->flags & TEP_FIELD_IS_RELATIVE)
					off += f->offset + f->size;
			}
			if (off >= 0 && size > 0 && off + size <= rec.size)
				snprintf(e->comm, sizeof(e->comm), "%.*s", size, (char *)data + off);
		}
		return;
	}
}

static int64_t read_lost(struct tracer *t, int cpu)
{
	char buf[1024], *p;
	ssize_t n = pread(t->stats_fd[cpu], buf, sizeof(buf) - 1, 0);
	int64_t lost = 0;

	if (n <= 0)
		return t->lost_seen[cpu];
	buf[n] = '\0';
	if ((p = strstr(buf, "overrun: ")))
		lost += strtoll(p + 9, NULL, 10);
	if ((p = strstr(buf, "dropped events: ")))
		lost += strtoll(p + 16, NULL, 10);
	return lost;
}

/* One round: what every CPU's buffer holds, merged in time order. Only
 * events up to upto are fed: one stamped later on a CPU read first may
 * have its begin on a CPU read after, and waits for the next round with
 * the events after it. */
static void drain(struct tracer *t, uint64_t upto)
{
	size_t n, k, at[MAX_CPUS + 2];
	int64_t lost = 0;
	int nrun = 0;

	pthread_mutex_lock(&t->drain_mu);
	t->drained_ns = mono_ns();
	if (upto < t->fed_ns)
		upto = t->fed_ns;
	t->nbatch = 0;
	if (t->nheld && !grow(t, t->nheld)) {
		memcpy(t->batch, t->held, t->nheld * sizeof(*t->held));
		t->nbatch = t->nheld;
	}
	t->nheld = 0;
	at[nrun++] = 0;
	for (int c = 0; c < t->ncpu; c++) {
		if (!t->cpu[c])
			continue;
		at[nrun++] = t->nbatch;
		while (tracefs_cpu_read(t->cpu[c], t->page, true) > 0) {
			unsigned long long ts;
			void *d;

			if (kbuffer_load_subbuffer(t->kbuf, t->page) < 0)
				break;
			for (d = kbuffer_read_event(t->kbuf, &ts); d; d = kbuffer_next_event(t->kbuf, &ts))
				parse_one(t, d, ts, c);
		}
		if (t->stats_fd[c] >= 0) {
			int64_t l = read_lost(t, c);

			lost += l - t->lost_seen[c];
			t->lost_seen[c] = l;
		}
	}
	at[nrun] = t->nbatch;
	if (t->nbatch && rc_order(t->batch, t->held, at, nrun) != t->batch) {
		struct rc_event *sw = t->batch;

		t->batch = t->held;
		t->held = sw;
	}
	for (n = 0; n < t->nbatch && t->batch[n].ns <= upto; n++)
		;
	pthread_mutex_lock(&t->mu);
	for (k = 0; k < n; k++)
		rc_feed(t->acc, &t->batch[k]);
	rc_lost(t->acc, lost);
	pthread_mutex_unlock(&t->mu);
	t->fed_ns = upto;
	memcpy(t->held, t->batch + n, (t->nbatch - n) * sizeof(*t->batch));
	t->nheld = t->nbatch - n;
	pthread_mutex_unlock(&t->drain_mu);
}

/* The samples drain the buffers (tracer_sync); this thread only when one
 * is half full between them (the instance's buffer_percent), so that a
 * burst is read before it overwrites itself. */
static void *run(void *arg)
{
	struct tracer *t = arg;
	struct pollfd pf[1 + MAX_CPUS];
	nfds_t n = 0;

	pthread_setname_np(pthread_self(), "thrash-trace");	/* top -H, ps -L */
	pf[n++] = (struct pollfd){ .fd = t->stop_fd, .events = POLLIN };
	for (int c = 0; c < t->ncpu; c++)
		if (t->cpu[c])
			pf[n++] = (struct pollfd){ .fd = t->pipe_fd[c], .events = POLLIN };
	for (;;) {
		int rc = poll(pf, n, -1);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0 || pf[0].revents)
			break;
		for (nfds_t i = 1; i < n; i++)
			if (pf[i].revents & (POLLERR | POLLNVAL))
				pf[i].fd = -1;	/* the samples still drain it */
		drain(t, mono_ns());
	}
	return NULL;
}

static void forget(const char *key)
{
	char err[256];

	undo_forget(UNDO_TRACEFS, key, err, sizeof(err));
}

/* Undoes what open made, in reverse; 0, or -1 with err. */
static int teardown(struct tracer *t, char *err, size_t errlen)
{
	int rc = 0;

	for (int c = 0; c < t->ncpu; c++) {
		if (t->cpu[c]) {
			tracefs_cpu_free_fd(t->cpu[c]);
			close(t->pipe_fd[c]);
		}
		if (t->stats_fd[c] >= 0)
			close(t->stats_fd[c]);
	}
	if (t->inst) {
		tracefs_event_disable(t->inst, NULL, NULL);
		tracefs_instance_free(t->inst);
	}
	if (t->inst_path[0]) {
		if (tracer_revert(t->inst_path, "instance", err, errlen) == 0)
			forget(t->inst_path);
		else
			rc = -1;
	}
	if (t->mounted && rc == 0) {
		if (tracer_revert(t->dir, "mount", err, errlen) == 0)
			forget(t->dir);
		else
			rc = -1;
	}
	if (t->tep)
		tep_free(t->tep);
	if (t->kbuf)
		kbuffer_free(t->kbuf);
	free(t->page);
	free(t->batch);
	free(t->held);
	free(t->acc);
	free(t);
	return rc;
}

/* An event's format parsed into t->tep; NULL when the kernel lacks it. */
static struct tep_event *load_format(struct tracer *t, const char *sys, const char *name)
{
	char path[512], buf[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", t->dir, sys, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || tep_parse_event(t->tep, buf, (unsigned long)n, sys) != 0)
		return NULL;
	return tep_find_event_by_name(t->tep, sys, name);
}

static int setup(struct tracer *t, char *why, size_t whylen)
{
	char name[32], err[512];
	int nev = 0;

	find_mount(t->dir, sizeof(t->dir));
	if (!t->dir[0]) {
		snprintf(t->dir, sizeof(t->dir), "%s", MOUNT_POINT);
		if (undo_add(UNDO_TRACEFS, t->dir, "mount", err, sizeof(err)) < 0) {
			snprintf(why, whylen, "%s", err);
			return -1;
		}
		if (mount("nodev", t->dir, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
			snprintf(why, whylen, "cannot mount tracefs at %s: %s", t->dir, strerror(errno));
			forget(t->dir);
			return -1;
		}
		t->mounted = true;
	}
	if (tracefs_set_tracing_dir(t->dir) < 0) {
		snprintf(why, whylen, "libtracefs cannot use %s", t->dir);
		return -1;
	}
	snprintf(name, sizeof(name), "thrashtop-%d", (int)getpid());
	snprintf(t->inst_path, sizeof(t->inst_path), "%s/instances/%s", t->dir, name);
	if (undo_add(UNDO_TRACEFS, t->inst_path, "instance", err, sizeof(err)) < 0) {
		snprintf(why, whylen, "%s", err);
		t->inst_path[0] = '\0';
		return -1;
	}
	/* mkdir, not tracefs_instance_create, which takes one that exists */
	if (mkdir(t->inst_path, 0700) < 0) {
		snprintf(why, whylen, "cannot create tracefs instance %s: %s", t->inst_path,
			 strerror(errno));
		forget(t->inst_path);
		t->inst_path[0] = '\0';
		return -1;
	}
	if (!(t->inst = tracefs_instance_alloc(t->dir, name)) ||
	    tracefs_instance_set_buffer_size(t->inst, TRACER_BUF_KB, -1) < 0 ||
	    tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(t->inst, "buffer_percent", "50") < 0) {
		snprintf(why, whylen, "cannot set up tracefs instance %s", t->inst_path);
		return -1;
	}
	if (!(t->tep = tep_alloc())) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	tep_set_long_size(t->tep, (int)sizeof(long));
	tep_set_page_size(t->tep, (int)sysconf(_SC_PAGESIZE));
	for (size_t i = 0; i < NWANTED; i++) {
		struct tep_event *ev;

		t->ids[i] = -1;
		/* each format alone: tracefs_local_events would read all of
		 * them and /proc/kallsyms too, seconds under a sanitizer */
		if (!(ev = load_format(t, wanted[i].sys, wanted[i].name)) ||
		    tracefs_event_enable(t->inst, wanted[i].sys, wanted[i].name) < 0)
			continue;
		t->ids[i] = ev->id;
		nev++;
		if (wanted[i].kind == RC_KSWAPD_WAKE || wanted[i].kind == RC_KSWAPD_SLEEP)
			t->nid[i] = tep_find_field(ev, "nid");
		if (wanted[i].kind == RC_OOM_VICTIM) {
			t->vpid[i] = tep_find_field(ev, "pid");
			t->vcomm[i] = tep_find_field(ev, "comm");
		}
	}
	if (t->ids[0] < 0 || t->ids[1] < 0) {
		snprintf(why, whylen, "kernel has no vmscan:mm_vmscan_direct_reclaim_begin/_end");
		return -1;
	}
	t->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (t->ncpu > MAX_CPUS)
		t->ncpu = MAX_CPUS;
	for (int c = 0; c < t->ncpu; c++) {
		char path[400];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", t->inst_path, c);
		t->stats_fd[c] = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", t->inst_path, c);
		if ((t->pipe_fd[c] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			continue;
		if (!(t->cpu[c] = tracefs_cpu_alloc_fd(t->pipe_fd[c], (int)sysconf(_SC_PAGESIZE),
						       true))) {
			close(t->pipe_fd[c]);
			continue;
		}
		if (tracefs_cpu_read_size(t->cpu[c]) > t->page_size)
			t->page_size = tracefs_cpu_read_size(t->cpu[c]);
	}
	if (t->page_size <= 0 || !(t->page = malloc((size_t)t->page_size)) ||
	    !(t->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST)) ||
	    grow(t, 4096)) {
		snprintf(why, whylen, "cannot open the instance's per-CPU buffers");
		return -1;
	}
	return 0;
}

int tracer_probe(char *why, size_t whylen)
{
	char dir[200];

	if (geteuid() != 0) {
		snprintf(why, whylen, "needs root (tracefs)");
		return -1;
	}
	find_mount(dir, sizeof(dir));
	if (!dir[0] && access(MOUNT_POINT, F_OK) < 0) {
		snprintf(why, whylen, "no tracefs (kernel without %s)", MOUNT_POINT);
		return -1;
	}
	return 0;
}

struct tracer *tracer_open(char *why, size_t whylen)
{
	struct tracer *t;
	sigset_t all, was;
	char err[256];

	if (tracer_probe(why, whylen) < 0)
		return NULL;
	/* the mount and the instance are machine changes: one session's */
	if (undo_claim(err, sizeof(err)) < 0) {
		snprintf(why, whylen, "%s", err);
		return NULL;
	}
	if (!(t = calloc(1, sizeof(*t))) || !(t->acc = malloc(sizeof(*t->acc)))) {
		free(t);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	rc_init(t->acc, mono_ns());
	for (int c = 0; c < MAX_CPUS; c++)
		t->stats_fd[c] = -1;
	t->stop_fd = -1;
	if (setup(t, why, whylen)) {
		teardown(t, err, sizeof(err));
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_mutex_init(&t->drain_mu, NULL);
	t->drained_ns = t->fed_ns = mono_ns();
	if ((t->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
		snprintf(why, whylen, "cannot start the tracing thread: eventfd: %s", strerror(errno));
		tracer_close(t, err, sizeof(err));
		return NULL;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	t->th_on = pthread_create(&t->th, NULL, run, t) == 0;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (!t->th_on) {
		snprintf(why, whylen, "cannot start the tracing thread");
		tracer_close(t, err, sizeof(err));
		return NULL;
	}
	return t;
}

int tracer_close(struct tracer *t, char *err, size_t errlen)
{
	if (!t)
		return 0;
	if (t->th_on) {
		uint64_t one = 1;

		while (write(t->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(t->th, NULL);
	}
	if (t->stop_fd >= 0)
		close(t->stop_fd);
	pthread_mutex_destroy(&t->mu);
	pthread_mutex_destroy(&t->drain_mu);
	return teardown(t, err, errlen);
}

void tracer_fill(struct tracer *t, struct sys_sample *x)
{
	int64_t p99;

	x->rc_ok = t != NULL;
	x->rc_p99_ms = NAN;
	if (!t) {
		memset(&x->rc, 0, sizeof(x->rc));
		return;
	}
	pthread_mutex_lock(&t->mu);
	rc_counts_at(t->acc, (uint64_t)(x->t * 1e9), &x->rc);
	p99 = rc_hist_quantile(&t->acc->tick_hist, 0.99);
	if (p99 >= 0)
		x->rc_p99_ms = (double)p99 / 1e6;
	memset(&t->acc->tick_hist, 0, sizeof(t->acc->tick_hist));
	pthread_mutex_unlock(&t->mu);
}

void tracer_drain(struct tracer *t)
{
	if (t)
		drain(t, mono_ns());
}

void tracer_sync(struct tracer *t, double now)
{
	if (t && mono_ns() - t->drained_ns >= (uint64_t)(TRACER_DRAIN_S * 1e9))
		drain(t, (uint64_t)(now * 1e9));
}

void tracer_run_begin(struct tracer *t, double t0)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	rc_run_begin(t->acc, (uint64_t)(t0 * 1e9));
	pthread_mutex_unlock(&t->mu);
}

void tracer_run_copy(struct tracer *t, struct rc_acc *out)
{
	pthread_mutex_lock(&t->mu);
	memcpy(out, t->acc, sizeof(*out));
	pthread_mutex_unlock(&t->mu);
}
