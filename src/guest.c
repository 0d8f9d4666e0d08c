#include "guest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "kernel.h"
#include "loop.h"
#include "remote.h"
#include "vm.h"


static void stop_vm(void *v)
{
	vm_stop(v);
}

/* The stream ended under the session: how the guest ended (qemu's end,
 * waited for a little), and where its console is kept. */
static bool guest_end(void *arg, char *why, size_t len, bool last)
{
	struct vm *v = arg;
	enum vm_state st = vm_poll(v);

	if (st == VM_RUNNING && !last)
		return false;
	if (st == VM_FAILED)
		snprintf(why, len, "the guest ended: %s", vm_error(v));
	else if (st == VM_EXITED)
		snprintf(why, len, "the guest ended: its agent exited with status %d: its console "
			 "is in %s", vm_guest_status(v), vm_keep_console(v));
	else {
		size_t at = strlen(why);

		snprintf(why + at, len - at, " (the guest still runs): its console is in %s",
			 vm_keep_console(v));
	}
	return true;
}

/* Until the guest's agent has said its first word, the guest stopped, or
 * an ending signal came. */
static enum vm_state boot_wait(struct vm *v)
{
	const volatile sig_atomic_t *stop = loop_stop_flag();
	const struct timespec beat = { 0, 50000000 };
	enum vm_state st;

	loop_let_end(true);
	while ((st = vm_poll(v)) == VM_BOOTING && !*stop)
		nanosleep(&beat, NULL);
	loop_let_end(false);
	return st;
}

int64_t guest_swap_bytes(const struct options *o)
{
	int64_t most = o->swap_size && !o->swap.zram ? o->swap.bytes : 0;
	struct swap_spec sp;
	char e[256];

	for (int i = 0; i < o->nsweep; i++)
		for (int j = 0; !strcmp(o->sweep[i].key, "swap") && j < o->sweep[i].nvals; j++)
			if (cli_parse_swap(o->sweep[i].vals[j], &sp, e, sizeof(e)) == 0 && !sp.zram &&
			    sp.bytes > most)
				most = sp.bytes;
	return most;
}

struct guest {
	struct vm *v;
	char version[256];
};

struct guest *guest_start(const struct options *o, char *err, size_t errlen)
{
	struct guest *g = calloc(1, sizeof(*g));
	struct kernel *k = malloc(sizeof(*k));
	char mem[32];
	int rc = -1;

	if (!g || !k)
		snprintf(err, errlen, "out of memory");
	else {
		struct vm_cfg cfg = { .kernel = k, .mem_bytes = (uint64_t)o->boot_mem,
				      .swap_bytes = (uint64_t)guest_swap_bytes(o) };

		if (!kernel_resolve(o->kernel, cfg.swap_bytes ? KERNEL_SWAP_DISK : 0, k, err, errlen))
			rc = vm_start(&cfg, &g->v, err, errlen);
	}
	if (rc == 0) {
		snprintf(g->version, sizeof(g->version), "%s", k->version);
		fmt_kib(mem, sizeof(mem), o->boot_mem / 1024);
		fprintf(stderr, "thrashtop: booting %s with %s of RAM%s%s (console: %s)\n",
			g->version, mem, *vm_disk(g->v) ? " and " : "", vm_disk(g->v),
			vm_console(g->v));
	}
	free(k);
	if (rc == 0)
		return g;
	free(g);
	return NULL;
}

bool guest_booting(struct guest *g)
{
	return vm_poll(g->v) == VM_BOOTING;
}

struct place *guest_open(const struct options *o, char *err, size_t errlen)
{
	struct guest *g = guest_start(o, err, errlen);

	return g ? guest_ready(g, o, err, errlen) : NULL;
}

struct place *guest_ready(struct guest *g, const struct options *o, char *err, size_t errlen)
{
	struct vm *v = g->v;
	struct place *p = NULL;
	enum vm_state st = boot_wait(v);
	int fd;

	if (st != VM_RUNNING) {
		if (st == VM_BOOTING)
			snprintf(err, errlen, "stopped by a signal while the guest booted");
		else
			snprintf(err, errlen, "%s", vm_error(v)[0] ? vm_error(v) :
				 "the guest stopped before its agent started");
	} else if (strcmp(vm_accel(v), "kvm")) {
		fprintf(stderr, "thrashtop: %s booted in %.1f s under %s (KVM: %s)\n", g->version,
			vm_boot_seconds(v), vm_accel(v), vm_accel_why(v));
	} else {
		fprintf(stderr, "thrashtop: %s booted in %.1f s under kvm\n", g->version,
			vm_boot_seconds(v));
	}
	if (st == VM_RUNNING && (fd = dup(vm_fd(v))) < 0)
		snprintf(err, errlen, "the guest's stream: %m");
	else if (st == VM_RUNNING)
		p = remote_open(fd, o, REMOTE_READY_S, err, errlen);
	free(g);
	if (!p) {
		vm_stop(v);
		return NULL;
	}
	remote_on_end(p, guest_end, v);
	remote_on_close(p, stop_vm, v);
	snprintf(p->kind, sizeof(p->kind), "vm");
	snprintf(p->accel, sizeof(p->accel), "%s", vm_accel(v));
	return p;
}
