/* `thrashtop kernel ...` */
#include "kernelcli.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "kernel.h"
#include "vm.h"

#define USAGE "usage: thrashtop kernel fetch PATTERN... | list | boot [--boot-mem SIZE] " \
	      "[--cpus N] [--append ARGS] [--timeout S] KERNEL [-- CMD...]"

/* What boot runs without a command: what the kernel gives a session. */
static const char report[] =
	"exec >&3\n"
	"echo \"kernel $(uname -r)\"\n"
	"echo \"cgroup2 $(cat /sys/fs/cgroup/cgroup.controllers)\"\n"
	"if [ -d /sys/kernel/tracing/events/vmscan ]; then echo 'tracepoints vmscan'; "
	"else echo 'tracepoints none'; fi\n"
	"echo \"task_delayacct $(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo none)\"\n"
	"if [ -e /sys/class/zram-control ]; then echo 'zram yes'; else echo 'zram no'; fi\n"
	"echo \"$(grep MemTotal /proc/meminfo)\"\n";

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static int fetch(int argc, char **argv)
{
	char ver[256], err[1024];
	int rc = 0, r;

	if (argc < 2) {
		fprintf(stderr, "thrashtop: kernel fetch: name a version or pattern (6.1, "
			"'linux-image-6.12.*-amd64')\n%s\n", USAGE);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if ((r = kernel_fetch(argv[i], ver, sizeof(ver), err, sizeof(err))) < 0) {
			fprintf(stderr, "thrashtop: kernel fetch: %s\n", err);
			rc = 1;
		} else
			printf("%s %s\n", ver, r ? "already cached" : "fetched");
	}
	return rc;
}

static int list(void)
{
	struct kernel_entry *l;
	char err[512], size[32];
	int n = kernel_cached(&l, err, sizeof(err));

	if (n < 0) {
		fprintf(stderr, "thrashtop: kernel list: %s\n", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		fmt_kib(size, sizeof(size), (int64_t)(l[i].bytes >> 10));
		printf("%-28s %6s  %s\n", l[i].version, size, l[i].source);
	}
	free(l);
	return 0;
}

/* Copies what the guest writes to stdout until qemu has ended and the
 * stream is drained, or a signal. */
static void relay(struct vm *v, const struct kernel *k)
{
	char buf[65536];
	bool said = false;
	enum vm_state st;

	while (!stop_sig) {
		st = vm_poll(v);
		if (st != VM_BOOTING && !said) {
			said = true;
			if (vm_boot_seconds(v) >= 0)
				fprintf(stderr, "thrashtop: %s under %s (%s): the command ran after "
					"%.1f s\n", k->version, vm_accel(v), vm_accel_why(v),
					vm_boot_seconds(v));
		}
		if (st == VM_FAILED)
			return;
		struct pollfd p = { .fd = vm_fd(v), .events = POLLIN };
		int r = poll(&p, 1, 100);

		if (r == 1) {
			ssize_t n = read(p.fd, buf, sizeof(buf));

			if (n > 0 && fwrite(buf, 1, (size_t)n, stdout) == (size_t)n)
				fflush(stdout);
			else if ((n == 0 || (n < 0 && errno != EAGAIN)) && st == VM_EXITED)
				return;
		} else if (st == VM_EXITED)
			return;
	}
}

static int boot_opts(int argc, char **argv, struct vm_cfg *c, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "boot-mem", required_argument, NULL, 'm' }, { "cpus", required_argument, NULL, 'c' },
		{ "append", required_argument, NULL, 'a' }, { "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	long long n;
	int64_t b;
	int o;

	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (o == 'm' && !fmt_parse_size(optarg, &b) && b >= (16 << 20))
			c->mem_bytes = (uint64_t)b;
		else if (o == 'c' && !fmt_parse_whole(optarg, 1, 64, &n))
			c->cpus = (int)n;
		else if (o == 't' && !fmt_parse_whole(optarg, 1, 3600, &n))
			c->boot_timeout = (int)n;
		else if (o == 'a')
			c->append = optarg;
		else
			return fmt_err(err, errlen, "%s", o == '?' ? "unknown option" :
				       o == ':' ? "an option lacks its value" :
				       o == 'm' ? "--boot-mem takes a size of 16M or more" :
				       o == 'c' ? "--cpus takes 1 to 64" : "--timeout takes 1 to 3600 s");
	}
	if (optind >= argc)
		return fmt_err(err, errlen, "name the kernel to boot");
	return optind;
}

static int boot(int argc, char **argv)
{
	char err[1024], *sh[] = { "/bin/sh", "-c", (char *)report, NULL };
	struct vm_cfg c = { .argv = sh };
	struct kernel k;
	struct vm *v;
	int at, rc;

	if ((at = boot_opts(argc, argv, &c, err, sizeof(err))) < 0) {
		fprintf(stderr, "thrashtop: kernel boot: %s\n%s\n", err, USAGE);
		return 2;
	}
	if (at + 1 < argc && strcmp(argv[at + 1], "--")) {
		fprintf(stderr, "thrashtop: kernel boot: the command goes after --\n%s\n", USAGE);
		return 2;
	}
	if (at + 2 < argc)
		c.argv = argv + at + 2;
	if (kernel_resolve(argv[at], 0, &k, err, sizeof(err))) {
		fprintf(stderr, "thrashtop: kernel boot: %s\n", err);
		return 1;
	}
	c.kernel = &k;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (vm_start(&c, &v, err, sizeof(err))) {
		fprintf(stderr, "thrashtop: kernel boot: %s\n", err);
		return 1;
	}
	relay(v, &k);
	if (stop_sig)
		rc = 128 + stop_sig;
	else if (vm_poll(v) == VM_FAILED) {
		fprintf(stderr, "thrashtop: kernel boot: %s\n", vm_error(v));
		rc = 1;
	} else {
		rc = vm_guest_status(v) < 0 ? 1 : vm_guest_status(v);
		fprintf(stderr, "thrashtop: the guest command exited with status %d\n", rc);
	}
	vm_stop(v);
	return rc;
}

int kernelcli_main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "fetch"))
		return fetch(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "list"))
		return list();
	if (argc >= 2 && !strcmp(argv[1], "boot"))
		return boot(argc - 1, argv + 1);
	fprintf(stderr, "thrashtop: kernel: %s\n%s\n",
		argc < 2 ? "a command is needed" : "unknown command or arguments", USAGE);
	return 2;
}
