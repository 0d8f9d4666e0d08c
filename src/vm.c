#include "vm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "initramfs.h"
#include "swapfile.h"
#include "sysio.h"
#include "undo.h"

#define RUN_PREFIX "thrashtop-vm-"
#define STOP_WAIT_MS 3000
#define KVM_GRACE_S 5.0		/* a kvm qemu dead this soon, console empty: try TCG */
#define DISK_DIR SWAPFILE_DIR	/* the swap disk's when the runtime directory cannot hold it */
#define FS_TMPFS 0x01021994L
#define FS_RAMFS 0x858458f6L

struct vm {
	pid_t pid;
	int fd;			/* host end of the stream */
	enum vm_state st;
	bool kvm;
	char why[256];
	char dir[PATH_MAX];
	char console[PATH_MAX + 16], qerr[PATH_MAX + 16], initrd[PATH_MAX + 16];
	char kept[PATH_MAX + 16];	/* where a failed guest's console was copied */
	char image[PATH_MAX];
	char disk[PATH_MAX + 16];	/* the swap disk's file, "" none */
	char disk_dir[PATH_MAX];	/* a directory of its own under DISK_DIR, "" none */
	const char *cache;		/* its qemu cache mode */
	char disk_says[640];
	char cmdline[2048];
	uint64_t mem;
	unsigned long long start;	/* ours, as the directories' names carry it */
	int cpus, timeout, guest_status;
	double t0, boot_s;
	char err[1024];
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *run_base(void)
{
	const char *d = getenv("XDG_RUNTIME_DIR");

	if (!d || *d != '/')
		d = getenv("TMPDIR");
	return d && *d == '/' ? d : "/tmp";
}

/* Removes a runtime directory: it holds plain files only. */
static int rm_dir(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR);
}

int vm_sweep(void)
{
	int n = undo_sweep_dead(run_base(), RUN_PREFIX, "", S_IFDIR, rm_dir);

	return n + undo_sweep_dead(DISK_DIR, RUN_PREFIX, "", S_IFDIR, rm_dir);
}

/* Whether a VM can be made: the cheap half of the KVM question (the
 * other is whether qemu runs with it). */
static bool kvm_usable(char *why, size_t len)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC), vmfd, api;

	if (fd < 0) {
		snprintf(why, len, "/dev/kvm: %s", strerror(errno));
		return false;
	}
	if ((api = ioctl(fd, KVM_GET_API_VERSION, 0)) != KVM_API_VERSION) {
		snprintf(why, len, "/dev/kvm: API version %d, not %d", api, KVM_API_VERSION);
		close(fd);
		return false;
	}
	while ((vmfd = ioctl(fd, KVM_CREATE_VM, 0)) < 0 && errno == EINTR)
		;
	if (vmfd < 0) {
		snprintf(why, len, "KVM_CREATE_VM: %s", strerror(errno));
		close(fd);
		return false;
	}
	close(vmfd);
	close(fd);
	snprintf(why, len, "KVM_CREATE_VM works");
	return true;
}

static bool on_path(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, cmd);
		if (access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* A path as one value of a qemu option: commas doubled. */
static void qpath(char *out, size_t len, const char *pre, const char *path)
{
	size_t at = (size_t)snprintf(out, len, "%s", pre);

	for (; *path && at + 2 < len; path++) {
		out[at++] = *path;
		if (*path == ',')
			out[at++] = ',';
	}
	out[at < len ? at : len - 1] = '\0';
}

/* In the child: qemu with the stream's guest end as fd 3, dying with us. */
static void exec_qemu(struct vm *v, int guest_end, pid_t parent)
{
	char machine[64], smp[16], mem[32], kernel[PATH_MAX * 2], initrd[PATH_MAX * 2],
	     con[PATH_MAX * 2], drive[PATH_MAX * 2 + 128];
	char *argv[64];
	int n = 0, out;
	sigset_t all;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	out = open(v->qerr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(guest_end, 3) < 0)
		_exit(127);
	close(0);
	if (open("/dev/null", O_RDONLY) != 0)
		_exit(127);
	close_range(4, ~0u, 0);
	snprintf(machine, sizeof(machine), "q35,accel=%s", v->kvm ? "kvm" : "tcg");
	snprintf(smp, sizeof(smp), "%d", v->cpus);
	snprintf(mem, sizeof(mem), "%lluM", (unsigned long long)(v->mem >> 20));
	qpath(kernel, sizeof(kernel), "", v->image);
	qpath(initrd, sizeof(initrd), "", v->initrd);
	qpath(con, sizeof(con), "file,id=con,path=", v->console);
	char *const args[] = {
		VM_QEMU, "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-machine", machine, "-cpu", v->kvm ? "host" : "max", "-smp", smp, "-m", mem,
		"-overcommit", "mem-lock=on", "-kernel", kernel, "-initrd", initrd,
		"-append", v->cmdline, "-chardev", con, "-serial", "chardev:con",
		"-fsdev", "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap",
		"-device", "virtio-9p-pci,fsdev=root,mount_tag=" INITRAMFS_TAG,
		"-device", "virtio-serial-pci", "-chardev", "socket,id=stream,fd=3",
		"-device", "virtserialport,chardev=stream,name=" INITRAMFS_PORT, NULL
	};
	for (; args[n]; n++)
		argv[n] = args[n];
	if (*v->disk) {
		qpath(drive, sizeof(drive), "file=", v->disk);
		snprintf(drive + strlen(drive), sizeof(drive) - strlen(drive),
			 ",if=none,id=swap,format=raw,cache=%s", v->cache);
		argv[n++] = "-drive";
		argv[n++] = drive;
		argv[n++] = "-device";
		argv[n++] = "virtio-blk-pci,drive=swap,serial=" VM_SWAP_SERIAL;
	}
	argv[n] = NULL;
	execvp(VM_QEMU, argv);
	dprintf(2, "cannot run %s: %s\n", VM_QEMU, strerror(errno));
	_exit(127);
}

static int launch(struct vm *v, char *err, size_t errlen)
{
	int sp[2];
	pid_t parent = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		snprintf(err, errlen, "cannot make the guest's stream: %s", strerror(errno));
		return -1;
	}
	if ((v->pid = fork()) < 0) {
		snprintf(err, errlen, "cannot start %s: %s", VM_QEMU, strerror(errno));
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (v->pid == 0)
		exec_qemu(v, sp[1], parent);
	close(sp[1]);
	v->fd = sp[0];
	fcntl(v->fd, F_SETFL, fcntl(v->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

static int make_initrd(struct vm *v, const struct vm_cfg *cfg, char *err, size_t errlen)
{
	char self[PATH_MAX], *agent[] = { self, "agent", "--fd", "3", NULL };
	char *const *argv = cfg->argv;
	ssize_t n;
	int fd, rc;

	if (!argv) {
		if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0) {
			snprintf(err, errlen, "cannot read /proc/self/exe: %s", strerror(errno));
			return -1;
		}
		self[n] = '\0';
		argv = agent;
	}
	fd = open(v->initrd, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", v->initrd, strerror(errno));
		return -1;
	}
	rc = initramfs_build(cfg->kernel, argv, fd, err, errlen);
	close(fd);
	return rc;
}

int vm_disk_make(const char *path, uint64_t bytes, char *why, size_t len)
{
	const char *base = strrchr(path, '/');
	char dir[PATH_MAX], size[32], free_[32];
	struct statvfs vfs;
	struct statfs fs;
	int fd;

	snprintf(dir, sizeof(dir), "%.*s", base ? (int)(base - path) : 1, base ? path : ".");
	fmt_kib(size, sizeof(size), (int64_t)(bytes >> 10));
	if (statfs(dir, &fs) < 0 || statvfs(dir, &vfs) < 0) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (fs.f_type == FS_TMPFS || fs.f_type == FS_RAMFS) {
		snprintf(why, len, "%s is on %s, this machine's memory", dir,
			 fs.f_type == FS_TMPFS ? "tmpfs" : "ramfs");
		return -1;
	}
	if ((uint64_t)vfs.f_bavail * vfs.f_frsize < bytes + (uint64_t)SWAPFILE_KEEP_FREE) {
		fmt_kib(free_, sizeof(free_), (int64_t)((uint64_t)vfs.f_bavail * vfs.f_frsize >> 10));
		snprintf(why, len, "no room for a %s swap disk in %s: %s free, and %d MiB must stay "
			 "free", size, dir, free_, (int)(SWAPFILE_KEEP_FREE >> 20));
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) < 0) {
		snprintf(why, len, "cannot make %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	close(fd);
	if ((fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC)) >= 0) {
		close(fd);
		return 1;
	}
	snprintf(why, len, "the file system at %s takes no O_DIRECT: %s", dir, strerror(errno));
	return 0;
}

/* The swap disk: in the runtime directory when it takes O_DIRECT, else
 * in a directory of the same name under DISK_DIR that does; else through
 * the page cache (cache=writethrough), saying why. */
static int make_disk(struct vm *v, uint64_t bytes, char *err, size_t errlen)
{
	char why[256], why2[256] = "", path2[PATH_MAX + 16] = "", size[32];
	int here, there = -1;
	bool at_here;

	fmt_kib(size, sizeof(size), (int64_t)(bytes >> 10));
	snprintf(v->disk, sizeof(v->disk), "%s/swap.img", v->dir);
	if ((here = vm_disk_make(v->disk, bytes, why, sizeof(why))) < 1) {
		snprintf(v->disk_dir, sizeof(v->disk_dir), "%s/" RUN_PREFIX "%d-%llu-XXXXXX", DISK_DIR,
			 (int)getpid(), v->start);
		if (mkdtemp(v->disk_dir)) {
			snprintf(path2, sizeof(path2), "%s/swap.img", v->disk_dir);
			there = vm_disk_make(path2, bytes, why2, sizeof(why2));
		} else {
			snprintf(why2, sizeof(why2), "cannot make a directory in %s: %s", DISK_DIR,
				 strerror(errno));
			v->disk_dir[0] = '\0';
		}
	}
	if (here < 0 && there < 0) {
		v->disk[0] = '\0';
		return fmt_err(err, errlen, "no place for the guest's %s swap disk: %s; %s", size, why,
			       why2);
	}
	/* O_DIRECT first, then the runtime directory */
	at_here = here == 1 || (here == 0 && there < 1);
	unlink(at_here ? path2 : v->disk);
	if (!at_here)
		snprintf(v->disk, sizeof(v->disk), "%s", path2);
	v->cache = here == 1 || there == 1 ? "none" : "writethrough";
	if (here == 1 || there == 1)
		snprintf(v->disk_says, sizeof(v->disk_says), "a %s swap disk, cache=none", size);
	else
		snprintf(v->disk_says, sizeof(v->disk_says), "a %s swap disk, cache=writethrough "
			 "(%s)", size, at_here ? why : why2);
	return 0;
}

static int setup(struct vm *v, const struct vm_cfg *cfg, char *err, size_t errlen)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	v->mem = cfg->mem_bytes ? cfg->mem_bytes : VM_MEM_DEFAULT;
	v->cpus = cfg->cpus > 0 ? cfg->cpus : online > 0 ? (int)online : 1;
	v->timeout = cfg->boot_timeout > 0 ? cfg->boot_timeout : VM_BOOT_TIMEOUT;
	snprintf(v->image, sizeof(v->image), "%s", cfg->kernel->image);
	if (undo_proc_start(getpid(), &v->start, NULL) < 0) {
		snprintf(err, errlen, "cannot read this process's start time: %s", strerror(errno));
		return -1;
	}
	snprintf(v->dir, sizeof(v->dir), "%s/" RUN_PREFIX "%d-%llu-XXXXXX", run_base(),
		 (int)getpid(), v->start);
	if (!mkdtemp(v->dir)) {
		snprintf(err, errlen, "cannot make a directory in %s: %s", run_base(), strerror(errno));
		v->dir[0] = '\0';
		return -1;
	}
	snprintf(v->console, sizeof(v->console), "%s/console.log", v->dir);
	snprintf(v->qerr, sizeof(v->qerr), "%s/qemu.err", v->dir);
	snprintf(v->initrd, sizeof(v->initrd), "%s/initrd.gz", v->dir);
	if (cfg->swap_bytes && make_disk(v, cfg->swap_bytes, err, errlen))
		return -1;
	if ((size_t)snprintf(v->cmdline, sizeof(v->cmdline), "%s%s%s%s%s", VM_CMDLINE,
			     *v->disk ? " " VM_SWAP_PARAM : "", *v->disk ? v->cache : "",
			     cfg->append && *cfg->append ? " " : "",
			     cfg->append ? cfg->append : "") >= sizeof(v->cmdline)) {
		snprintf(err, errlen, "the kernel command line is too long");
		return -1;
	}
	return make_initrd(v, cfg, err, errlen);
}

int vm_start(const struct vm_cfg *cfg, struct vm **out, char *err, size_t errlen)
{
	struct vm *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	v->pid = -1;
	v->fd = -1;
	v->guest_status = -1;
	v->boot_s = -1;
	v->t0 = now_s();
	vm_sweep();
	if (!on_path(VM_QEMU)) {
		snprintf(err, errlen, "no %s on PATH: install %s", VM_QEMU, VM_QEMU_PKG);
		free(v);
		return -1;
	}
	v->kvm = kvm_usable(v->why, sizeof(v->why));
	if (setup(v, cfg, err, errlen) || launch(v, err, errlen)) {
		vm_stop(v);
		return -1;
	}
	*out = v;
	return 0;
}

/* The last len-1 bytes of a file, NUL-terminated; how many. */
static size_t tail(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? 0 : lseek(fd, 0, SEEK_END);
	off_t from = end > (off_t)len - 1 ? end - (off_t)len + 1 : 0;
	ssize_t n = fd < 0 ? 0 : pread(fd, buf, len - 1, from);

	if (fd >= 0)
		close(fd);
	n = n < 0 ? 0 : n;
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\r' || buf[i] == '\0')
			buf[i] = ' ';
	return (size_t)n;
}

/* The line of text at which s found needle, without its newline. */
static void line_at(const char *text, const char *at, char *line, size_t len)
{
	const char *b = at, *e = strchr(at, '\n');

	while (b > text && b[-1] != '\n')
		b--;
	snprintf(line, len, "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
}

static const char *last_of(const char *text, const char *needle)
{
	const char *p = NULL, *q = text;

	while ((q = strstr(q, needle)))
		p = q++;
	return p;
}

static int copy_fill(FILE *f, const void *arg)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(arg, "r");

	if (!in)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, f) != n) {
			fclose(in);
			return -1;
		}
	fclose(in);
	return 0;
}

/* A failed guest's console, copied where the user can read it:
 * $XDG_STATE_HOME/thrashtop/console.log (~/.local/state/...). */
static const char *keep_console(struct vm *v)
{
	struct sysio_made made;

	if (*v->kept)
		return v->kept;
	if (sysio_xdg_path("XDG_STATE_HOME", ".local/state", "console.log", v->kept,
			   sizeof(v->kept)) &&
	    (sysio_make_parents(v->kept, 0700, &made) == 0 || errno == EEXIST) &&
	    sysio_replace(v->kept, 0600, copy_fill, v->console) == 0)
		return v->kept;
	snprintf(v->kept, sizeof(v->kept), "%s", v->console);
	return v->kept;
}

static void fail(struct vm *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct vm *v, const char *fmt, ...)
{
	const char *where = keep_console(v);
	va_list ap;

	v->st = VM_FAILED;
	va_start(ap, fmt);
	vsnprintf(v->err, sizeof(v->err), fmt, ap);
	va_end(ap);
	snprintf(v->err + strlen(v->err), sizeof(v->err) - strlen(v->err),
		 ": its console is in %s", where);
}

static bool out_of_memory(const char *con)
{
	static const char *const says[] = { "Out of memory", "deadlocked on memory",
					    "Initramfs unpacking failed", "not enough memory",
					    "Cannot allocate memory" };

	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (strstr(con, says[i]))
			return true;
	return false;
}

/* qemu ended: what happened, from its status, its stderr and the console. */
static void ended(struct vm *v, int status)
{
	char con[16384], qe[1024], line[512], size[32];
	const char *p;
	int gs;

	tail(v->console, con, sizeof(con));
	tail(v->qerr, qe, sizeof(qe));
	qe[strcspn(qe, "\n")] = '\0';
	if ((p = last_of(con, INITRAMFS_SAYS "the command exited with status ")) &&
	    sscanf(p + strlen(INITRAMFS_SAYS "the command exited with status "), "%d", &gs) == 1) {
		v->guest_status = gs;
		v->st = VM_EXITED;
		return;
	}
	if ((p = last_of(con, "Kernel panic")) && out_of_memory(con)) {
		fmt_kib(size, sizeof(size), (int64_t)(v->mem >> 10));
		fail(v, "the guest ran out of memory booting with --boot-mem %s: give it more", size);
	} else if (p) {
		line_at(con, p, line, sizeof(line));
		fail(v, "the guest kernel panicked: %s", line);
	} else if ((p = last_of(con, INITRAMFS_SAYS)) && strncmp(p + strlen(INITRAMFS_SAYS),
								    "running", 7)) {
		line_at(con, p + strlen(INITRAMFS_SAYS), line, sizeof(line));
		fail(v, "the guest's init failed: %s", line);
	} else if (WIFSIGNALED(status) && !*qe) {
		fail(v, "%s was killed by signal %d (%s)", VM_QEMU, WTERMSIG(status),
		     strsignal(WTERMSIG(status)));
	} else if (*qe) {
		fail(v, "%s exited (%s %d): %s", VM_QEMU, WIFEXITED(status) ? "status" : "signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), qe);
	} else if (!*con) {
		fmt_kib(size, sizeof(size), (int64_t)(v->mem >> 10));
		fail(v, "the guest stopped before its console said anything (--boot-mem %s: too little "
		     "for the kernel and its initramfs?)", size);
	} else {
		p = con + strlen(con);
		while (p > con && (p[-1] == '\n' || p[-1] == ' '))
			p--;
		while (p > con && p[-1] != '\n')
			p--;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		fail(v, "the guest stopped before its command ended; its console's last line: %s",
		     *line ? line : "(none)");
	}
}

/* A kvm qemu that died at once with nothing on the console: KVM does not
 * work here after all (a CPU without vmx/svm, say). Start it under TCG. */
static bool fall_back(struct vm *v, int status)
{
	char qe[512], con[8], e[256];

	if (!v->kvm || v->boot_s >= 0 || now_s() - v->t0 > KVM_GRACE_S ||
	    (WIFEXITED(status) && WEXITSTATUS(status) == 0) || tail(v->console, con, sizeof(con)))
		return false;
	tail(v->qerr, qe, sizeof(qe));
	qe[strcspn(qe, "\n")] = '\0';
	snprintf(v->why, sizeof(v->why), "%s with accel=kvm failed: %.180s", VM_QEMU,
		 *qe ? qe : "no reason given");
	v->kvm = false;
	close(v->fd);
	v->fd = -1;
	if (launch(v, e, sizeof(e))) {
		v->st = VM_FAILED;
		snprintf(v->err, sizeof(v->err), "%s", e);
	}
	return true;
}

enum vm_state vm_poll(struct vm *v)
{
	int status;
	char c;

	if (v->st == VM_EXITED || v->st == VM_FAILED)
		return v->st;
	/* a byte, not the end a dead qemu leaves readable too */
	if (v->st == VM_BOOTING && recv(v->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1) {
		v->st = VM_RUNNING;
		v->boot_s = now_s() - v->t0;
	}
	if (waitpid(v->pid, &status, WNOHANG) == v->pid) {
		v->pid = -1;
		if (!fall_back(v, status))
			ended(v, status);
	} else if (v->st == VM_BOOTING && now_s() - v->t0 > v->timeout) {
		kill(v->pid, SIGKILL);
		waitpid(v->pid, &status, 0);
		v->pid = -1;
		fail(v, "the guest did not reach its command in %d s", v->timeout);
	}
	return v->st;
}

int vm_fd(const struct vm *v)
{
	return v->st == VM_RUNNING || v->st == VM_EXITED ? v->fd : -1;
}

pid_t vm_pid(const struct vm *v)
{
	return v->pid;
}

const char *vm_accel(const struct vm *v)
{
	return v->kvm ? "kvm" : "tcg";
}

const char *vm_accel_why(const struct vm *v)
{
	return v->why;
}

double vm_boot_seconds(const struct vm *v)
{
	return v->boot_s;
}

const char *vm_error(const struct vm *v)
{
	return v->st == VM_FAILED ? v->err : "";
}

int vm_guest_status(const struct vm *v)
{
	return v->guest_status;
}

const char *vm_console(const struct vm *v)
{
	return v->console;
}

const char *vm_keep_console(struct vm *v)
{
	return keep_console(v);
}

const char *vm_disk(const struct vm *v)
{
	return v->disk_says;
}

/* A runtime directory by its path ("": none). */
static void rm_path(char *dir)
{
	char *base = strrchr(dir, '/');
	int parent;

	if (!*dir || !base)
		return;
	*base = '\0';
	parent = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent >= 0) {
		rm_dir(parent, base + 1);
		close(parent);
	}
}

void vm_stop(struct vm *v)
{
	int status;

	if (!v)
		return;
	if (v->pid > 0) {
		kill(v->pid, SIGTERM);
		for (int ms = 0; ms < STOP_WAIT_MS; ms += 20) {
			if (waitpid(v->pid, &status, WNOHANG) == v->pid) {
				v->pid = -1;
				break;
			}
			nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
		}
		if (v->pid > 0) {
			kill(v->pid, SIGKILL);
			waitpid(v->pid, &status, 0);
		}
	}
	if (v->fd >= 0)
		close(v->fd);
	rm_path(v->dir);
	rm_path(v->disk_dir);
	free(v);
}
