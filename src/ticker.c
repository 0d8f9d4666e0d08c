#include "ticker.h"
#include "prof.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tracer.h"

/* 2048 samples: 20 s at the shortest interval, 0.01 s, during which the
 * loop may take none. */
#define QCAP 2048
/* The loop is woken for at most 20 batches of samples a second, what a
 * terminal shows usefully (and the shortest interval once was): at shorter
 * intervals every sample is still taken on time and stored, and a frame
 * shows the batch. */
#define WAKE_GAP_S 0.05
#define STACK_SIZE (256 * 1024)

struct ticker {
	size_t maplen;			/* this, mapped */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd;
	struct sampler *smp;
	double iv, t0;			/* t0: the first sample's time */
	int batch;			/* samples waiting that wake the loop */
	bool restart, stop;
	int fail;			/* errno of a failed sample, 0 none */
	char zram[16];			/* the zram device to read, "" none */
	bool zram_new;			/* zram changed: the thread applies it */
	struct tracer *tr;		/* reclaim events, NULL none */
	struct tracer *tr_using;	/* read by the thread outside the lock */
	int head, len;
	struct sys_sample q[QCAP];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec at(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static void wake(struct ticker *t)
{
	uint64_t one = 1;
	ssize_t r = write(t->efd, &one, sizeof(one));

	(void)r;	/* EAGAIN: the counter is set, the loop wakes anyway */
}

static void *run(void *arg)
{
	struct ticker *t = arg;
	struct sched_param sp = { .sched_priority = 1 };
	double next;

	pthread_setname_np(pthread_self(), "thrash-sample");	/* top -H, ps -L */
	/* not root: the thread keeps the monitor's nice value */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	pthread_mutex_lock(&t->mu);
	next = t->t0 + t->iv;
	for (;;) {
		struct sys_sample x;
		struct prof_mark pm;
		int rc, e;

		while (!t->stop && !t->restart && now() < next) {
			struct timespec ts = at(next);

			pthread_cond_timedwait(&t->cv, &t->mu, &ts);
		}
		if (t->stop)
			break;
		if (t->restart) {
			t->restart = false;
			next = now();
		}
		if (t->zram_new) {
			sampler_zram(t->smp, t->zram[0] ? t->zram : NULL);
			t->zram_new = false;
		}
		t->tr_using = t->tr;
		pthread_mutex_unlock(&t->mu);
		prof_begin(&pm);
		rc = sampler_sys(t->smp, &x);
		prof_end(PROF_SAMPLE, &pm);
		e = errno;
		if (!rc)
			tracer_sync(t->tr_using, x.t);
		pthread_mutex_lock(&t->mu);
		t->tr_using = NULL;
		pthread_cond_broadcast(&t->cv);	/* ticker_tracer may wait */
		if (!rc)
			tracer_fill(t->tr, &x);
		if (rc) {
			t->fail = e ? e : EIO;
			wake(t);
			break;
		}
		/* full: the loop took none for QCAP intervals, and the series
		 * show the gap */
		if (t->len < QCAP)
			t->q[(t->head + t->len++) % QCAP] = x;
		if (t->len >= t->batch)
			wake(t);
		/* on the schedule, unless a whole interval was missed */
		next += t->iv;
		if (next < now())
			next = now() + t->iv;
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

static void set_interval(struct ticker *t, double interval)
{
	int b = (int)(WAKE_GAP_S / interval + 1e-9);

	t->iv = interval;
	t->batch = b < 1 ? 1 : b;
}

/* The queue in pages of its own, all there from the start and not shared
 * with the workers: a page the thread wrote first later, or first after a
 * fork (copy on write), would be allocated while the machine thrashes,
 * and an allocation then can wait hundreds of ms in reclaim. */
static struct ticker *map_ticker(void)
{
	size_t len = sizeof(struct ticker);
	struct ticker *t = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	if (madvise(t, len, MADV_DONTFORK)) {
		munmap(t, len);
		return NULL;
	}
	t->maplen = len;
	return t;
}

struct ticker *ticker_start(double interval, char *err, size_t errlen)
{
	struct ticker *t = map_ticker();
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_attr_t ta;
	sigset_t all, was;
	int rc;

	if (!t) {
		snprintf(err, errlen, "cannot map the sampling thread's memory: %s",
			 strerror(errno));
		return NULL;
	}
	set_interval(t, interval);
	t->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (t->efd < 0) {
		snprintf(err, errlen, "cannot create an eventfd: %s", strerror(errno));
		munmap(t, t->maplen);
		return NULL;
	}
	if (!(t->smp = sampler_new(err, errlen))) {
		close(t->efd);
		munmap(t, t->maplen);
		return NULL;
	}
	/* The first sample is read here: what libproc2 allocates on its first
	 * read comes from this thread's heap, and the sampling thread, which
	 * then allocates nothing, gets no heap of its own. */
	if (sampler_sys(t->smp, &t->q[0])) {
		snprintf(err, errlen, "cannot sample the system: %s", strerror(errno));
		sampler_free(t->smp);
		close(t->efd);
		munmap(t, t->maplen);
		return NULL;
	}
	tracer_fill(NULL, &t->q[0]);
	t->t0 = t->q[0].t;
	t->len = 1;
	wake(t);
	/* A low-priority task holding the queue's lock is lifted while the
	 * sampling thread waits for it. */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&t->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setstacksize(&ta, STACK_SIZE);
	/* Signals are the loop's: the thread starts with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	rc = pthread_create(&t->th, &ta, run, t);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	pthread_attr_destroy(&ta);
	if (rc) {
		snprintf(err, errlen, "cannot start the sampling thread: %s", strerror(rc));
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
		sampler_free(t->smp);
		close(t->efd);
		munmap(t, t->maplen);
		return NULL;
	}
	return t;
}

void ticker_stop(struct ticker *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	sampler_free(t->smp);
	close(t->efd);
	munmap(t, t->maplen);
}

int ticker_fd(const struct ticker *t)
{
	return t->efd;
}

int ticker_take(struct ticker *t, struct sys_sample *out)
{
	int rc = 1;

	pthread_mutex_lock(&t->mu);
	if (t->len) {
		*out = t->q[t->head];
		t->head = (t->head + 1) % QCAP;
		t->len--;
	} else {
		uint64_t n;

		/* empty: the descriptor stops being readable until the next
		 * sample (pushed and signalled under this lock) */
		ssize_t r = read(t->efd, &n, sizeof(n));

		(void)r;	/* EAGAIN: it was not readable */
		rc = t->fail ? -1 : 0;
		if (t->fail)
			errno = t->fail;
	}
	pthread_mutex_unlock(&t->mu);
	return rc;
}

void ticker_zram(struct ticker *t, const char *name)
{
	pthread_mutex_lock(&t->mu);
	snprintf(t->zram, sizeof(t->zram), "%s", name ? name : "");
	t->zram_new = true;
	pthread_mutex_unlock(&t->mu);
}

void ticker_tracer(struct ticker *t, struct tracer *tr)
{
	pthread_mutex_lock(&t->mu);
	t->tr = tr;
	while (t->tr_using && t->tr_using != tr)	/* the old one may be closed next */
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
}

void ticker_set_interval(struct ticker *t, double interval)
{
	pthread_mutex_lock(&t->mu);
	set_interval(t, interval);
	t->restart = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}
