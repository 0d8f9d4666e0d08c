/* A guest: qemu booting a kernel with the initramfs that runs one command
 * on the host's root, read-only over 9p, and a stream to it over a
 * virtio-serial port (the command's fd 3; a socketpair on the host).
 * Accelerated by KVM when a VM can be made and qemu runs with it, else
 * by TCG; which, and why, is kept. qemu dies with the process that
 * started it (PR_SET_PDEATHSIG: start it from the thread that lives as
 * long as the guest should); its private runtime directory is swept by
 * the next start once its owner is gone. Nothing here blocks once
 * vm_start has returned. */
#ifndef THRASHTOP_VM_H
#define THRASHTOP_VM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel.h"

#define VM_QEMU "qemu-system-x86_64"
#define VM_QEMU_PKG "qemu-system-x86"
#define VM_MEM_DEFAULT (512ull << 20)
#define VM_BOOT_TIMEOUT 120	/* seconds to the guest command's first byte */
#define VM_CMDLINE "console=ttyS0 panic=-1 rdinit=/init cgroup_no_v1=all quiet"
/* The guest's swap disk: its serial, as the guest finds it in
 * /sys/block/NAME/serial, and its host cache mode on the kernel command
 * line (thrashtop.swap_cache=none), as the run's record keeps it. */
#define VM_SWAP_SERIAL "thrashtop-swap"
#define VM_SWAP_PARAM "thrashtop.swap_cache="

struct vm_cfg {
	const struct kernel *kernel;
	uint64_t mem_bytes;	/* the guest's RAM (--boot-mem); 0: VM_MEM_DEFAULT */
	int cpus;		/* 0: the host's online CPUs */
	const char *append;	/* more kernel command line, or NULL */
	/* The guest command, NULL-ended; NULL: this binary (/proc/self/exe)
	 * as `agent --fd 3`. */
	char *const *argv;
	int boot_timeout;	/* seconds; 0: VM_BOOT_TIMEOUT */
	uint64_t swap_bytes;	/* a raw disk of this size for the guest's swap; 0: none */
};

enum vm_state {
	VM_BOOTING,		/* qemu runs; nothing from the guest yet */
	VM_RUNNING,		/* the guest command has written to the stream */
	VM_EXITED,		/* qemu ended after the command ran */
	VM_FAILED,		/* the guest never ran its command, or died: vm_error */
};

struct vm;

/* Sweeps runtime directories of dead owners, builds the initramfs, picks
 * the accelerator and starts qemu: 0 with *out, or -1 with one line in
 * err (no qemu: the package named; no static busybox; ...). */
int vm_start(const struct vm_cfg *cfg, struct vm **out, char *err, size_t errlen);

/* Looks at qemu without waiting (reaps it when it ended) and returns the
 * state. Call it when the stream fd is readable, on SIGCHLD and on a beat
 * while booting (the boot timeout is checked here). */
enum vm_state vm_poll(struct vm *v);

/* The host end of the stream, non-blocking: -1 until VM_RUNNING. Bytes
 * are left for the caller to read. */
int vm_fd(const struct vm *v);

/* qemu's pid, or -1 once reaped. */
pid_t vm_pid(const struct vm *v);

/* "kvm" or "tcg", and why (e.g. "KVM_CREATE_VM: ..."), for the run's
 * record and the title. */
const char *vm_accel(const struct vm *v);
const char *vm_accel_why(const struct vm *v);

/* Seconds from vm_start to the first byte from the guest; -1 before. */
double vm_boot_seconds(const struct vm *v);

/* VM_FAILED's one line ("" otherwise), naming where the console is kept. */
const char *vm_error(const struct vm *v);

/* The guest command's exit status as its init reported it; -1 unknown. */
int vm_guest_status(const struct vm *v);

/* The guest console's file while the guest runs (kept elsewhere once it
 * failed: see vm_error). */
const char *vm_console(const struct vm *v);

/* The console copied where it outlives the guest, and that path. */
const char *vm_keep_console(struct vm *v);

/* Stops qemu (SIGTERM, then SIGKILL after a bound), reaps it, closes the
 * stream and removes the runtime directory; frees v. */
void vm_stop(struct vm *v);

/* The swap disk as a sentence ("a 64M swap disk, cache=none"; and where
 * and why when the host's page cache is not bypassed), "" without one. */
const char *vm_disk(const struct vm *v);

/* Makes path, a sparse file of bytes, exclusively: 1 when it opens with
 * O_DIRECT (qemu's cache=none, the guest's swap bypasses this machine's
 * page cache), 0 when only without (why says so); -1 with why when it
 * cannot hold a guest's swap: on tmpfs or ramfs (this machine's memory),
 * too little room, not made. Nothing is left on -1. */
int vm_disk_make(const char *path, uint64_t bytes, char *why, size_t len);

/* Removes the runtime directories of this user's guests whose owner is
 * gone (and those made for their swap disks). How many. */
int vm_sweep(void);

#endif
