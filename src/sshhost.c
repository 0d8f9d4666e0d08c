#include "sshhost.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "remote.h"
#include "version.h"
#include "workload.h"

#define VERSION_WAIT_S 15.0	/* for `thrashtop --version` there */
#define FAIL_WAIT_S 10.0	/* for ssh to end after a failed start */
#define CLOSE_WAIT_S 30.0	/* for the agent to undo and ssh to end */
#define COPY_CHUNK 65536

/* The copy's script, run by sh there. No single quote in it: it travels
 * inside one. The binary, read off the stream, is unlinked before it is
 * run through its descriptor, so neither the agent's exit nor a lost
 * connection can leave it behind. */
static const char copy_script[] =
	"f=$(mktemp \"${TMPDIR:-/tmp}/thrashtop.XXXXXX\") || exit 125; "
	"trap \"rm -f $f\" EXIT; trap \"exit 129\" HUP INT TERM PIPE; "
	"head -c %lld >\"$f\" && [ \"$(wc -c <\"$f\")\" -eq %lld ] && chmod 700 \"$f\" && "
	"exec 3<\"$f\" && rm -f \"$f\" && exec /proc/self/fd/3 agent; exit 126";

struct ssh {
	pid_t pid;
	int errfd;		/* ssh's standard error: a memfd */
	char box[256];
	/* until the agent is ready: its stream, and the command line that
	 * started it, to tell why it did not */
	int fd;
	char words[1024], script[1024], *argv[SSHHOST_ARGS_MAX];
	int argc;
};

int sshhost_argv(const char *ssh_cmd, const char *box, long long copy_bytes, char *words,
		 size_t wlen, char *script, size_t slen, char *argv[SSHHOST_ARGS_MAX])
{
	static const char *const ours[] = { "-T", "-o", "BatchMode=yes", "-o",
					     "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3" };
	char *save = NULL;
	int n = 0, len;

	if (!ssh_cmd || !ssh_cmd[strspn(ssh_cmd, " ")])
		ssh_cmd = "ssh";
	if ((size_t)snprintf(words, wlen, "%s", ssh_cmd) >= wlen)
		return -1;
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (n == SSHHOST_ARGS_MAX - 10)
			return -1;
		argv[n++] = w;
	}
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		argv[n++] = (char *)ours[i];
	argv[n++] = (char *)box;
	if (copy_bytes > 0) {
		char body[sizeof(copy_script) + 64];

		snprintf(body, sizeof(body), copy_script, copy_bytes, copy_bytes);
		len = snprintf(script, slen, "exec sh -c '%s'", body);
	} else {
		len = snprintf(script, slen, "thrashtop agent");
	}
	if (len < 0 || (size_t)len >= slen)
		return -1;
	argv[n++] = script;
	argv[n] = NULL;
	return n;
}

/* argv with in, out and err as its standard descriptors (-1: this
 * one's), in a process group of its own: the terminal's ^C is the
 * session's. 0 with its pid; -1 with err when it could not be run. */
static int spawn(char *const argv[], int in, int out, int errfd, pid_t *pid, char *err,
		 size_t errlen)
{
	int ex[2], e = 0;
	sigset_t none;
	ssize_t n;

	if (pipe2(ex, O_CLOEXEC) < 0)
		return snprintf(err, errlen, "pipe: %s", strerror(errno)), -1;
	if ((*pid = fork()) < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(ex[0]);
		close(ex[1]);
		return -1;
	}
	if (*pid == 0) {
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if ((in >= 0 && dup2(in, STDIN_FILENO) < 0) ||
		    (out >= 0 && dup2(out, STDOUT_FILENO) < 0) || dup2(errfd, STDERR_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(ex[1]);
	while ((n = read(ex[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(ex[0]);
	if (n == sizeof(e)) {
		waitpid(*pid, NULL, 0);
		return snprintf(err, errlen, "cannot run '%.100s': %s", argv[0], strerror(e)), -1;
	}
	return 0;
}

/* The status pid ended with within timeout s, else -1. */
static int wait_exit(pid_t pid, double timeout)
{
	const struct timespec beat = { 0, 20000000 };
	double end = now_monotonic() + timeout;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if ((r < 0 && errno != EINTR) || now_monotonic() >= end)
			return -1;
		nanosleep(&beat, NULL);
	}
}

/* ssh given timeout s to end by itself (its stream closed, the agent
 * undoing its set-up there), then ended. Its status, -1 unknown. */
static int end_ssh(pid_t pid, double timeout)
{
	int st = wait_exit(pid, timeout);

	if (st == -1 && kill(pid, SIGTERM) == 0)
		st = wait_exit(pid, 5.0);
	if (st == -1 && kill(pid, SIGKILL) == 0)
		st = wait_exit(pid, 5.0);
	return st;
}

/* The last line fd (a memfd) holds, without its line end; "" none. */
static char *last_line(int fd, char *buf, size_t len)
{
	char tail[1024], *s, *e;
	off_t size = lseek(fd, 0, SEEK_END), at = size > (off_t)sizeof(tail) - 1 ?
		size - (off_t)sizeof(tail) + 1 : 0;
	ssize_t n = size > 0 ? pread(fd, tail, sizeof(tail) - 1, at) : 0;

	tail[n > 0 ? n : 0] = 0;
	e = tail + strlen(tail);
	while (e > tail && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
		*--e = 0;
	s = strrchr(tail, '\n');
	snprintf(buf, len, "%s", s ? s + 1 : tail);
	return buf;
}

/* BOX's own `thrashtop --version`, its first line; "" when none came. */
static void their_version(char *const ssh_argv[], int n, char *buf, size_t len)
{
	char *argv[SSHHOST_ARGS_MAX + 1], e[128];
	int out = memfd_create("thrashtop-ssh-out", MFD_CLOEXEC), null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t pid;

	buf[0] = 0;
	memcpy(argv, ssh_argv, sizeof(*argv) * (size_t)(n - 1));
	argv[n - 1] = "thrashtop --version";
	argv[n] = NULL;
	if (out >= 0 && null >= 0 && spawn(argv, null, out, null, &pid, e, sizeof(e)) == 0) {
		char line[256];
		ssize_t got;

		end_ssh(pid, VERSION_WAIT_S);
		got = pread(out, line, sizeof(line) - 1, 0);
		line[got > 0 ? got : 0] = 0;
		line[strcspn(line, "\r\n")] = 0;
		snprintf(buf, len, "%.100s", line);
	}
	if (out >= 0)
		close(out);
	if (null >= 0)
		close(null);
}

/* Why the agent never became ready, in one line: ssh's own reason, no
 * thrashtop there, one that said nothing (its version asked), the agent's. */
static void explain(struct ssh *h, int st, const char *why, bool copy, char *const argv[], int n,
		    char *err, size_t errlen)
{
	char line[512], theirs[128];
	int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	bool silent = !strcmp(why, "agent: the agent's stream ended") ||
		      strstr(why, "did not say hello");

	last_line(h->errfd, line, sizeof(line));
	if (code == 255) {
		snprintf(err, errlen, "--host %s: ssh: %s", h->box, line[0] ? line :
			 "it ended with status 255");
	} else if (code == 127 && !copy) {
		snprintf(err, errlen, "--host %s: no thrashtop there (%s): this is thrashtop %s; "
			 "install it there, or give --host-copy", h->box, line[0] ? line :
			 "command not found", THRASHTOP_VERSION);
	} else if (silent && !copy) {
		their_version(argv, n, theirs, sizeof(theirs));
		snprintf(err, errlen, "--host %s: its thrashtop (%s) runs no agent (%s); this is "
			 "thrashtop %s: the same version on both sides, or --host-copy", h->box,
			 theirs[0] ? theirs : "version unknown", line[0] ? line : why,
			 THRASHTOP_VERSION);
	} else if (silent) {
		snprintf(err, errlen, "--host %s: the copy of this thrashtop did not start there (%s)",
			 h->box, line[0] ? line : why);
	} else {
		snprintf(err, errlen, "--host %s: %s", h->box, why);
	}
}

/* Our binary down the stream, before the agent's hello: what the copy
 * script reads first. Cut short when ssh goes, a signal comes or time
 * runs out: ssh's status and the stream then say why. */
static void send_binary(int exe, long long size, int fd)
{
	const volatile sig_atomic_t *stop = loop_stop_flag();
	double end = now_monotonic() + REMOTE_READY_S;
	char buf[COPY_CHUNK];
	long long at = 0;

	loop_let_end(true);
	while (at < size && !*stop && now_monotonic() < end) {
		struct pollfd pfd = { fd, POLLOUT, 0 };
		ssize_t n, w;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if ((n = pread(exe, buf, sizeof(buf), (off_t)at)) <= 0)
			break;
		if ((w = write(fd, buf, (size_t)n)) < 0 && errno != EAGAIN && errno != EINTR)
			break;
		at += w > 0 ? w : 0;
	}
	loop_let_end(false);
}

/* The stream ended mid-session: ssh's own reason when it was ssh's
 * (it ends as it drops the stream), else the agent's, naming the box. */
static bool lost(void *arg, char *why, size_t len, bool last)
{
	struct ssh *h = arg;
	char line[512], agent[400];
	int st = -1;

	if (h->pid > 0 && waitpid(h->pid, &st, WNOHANG) != h->pid) {
		if (!last)
			return false;
		st = -1;
	}
	if (st != -1)
		h->pid = 0;
	snprintf(agent, sizeof(agent), "%s", why);
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 255)
		snprintf(why, len, "--host %s: ssh: %s", h->box, last_line(h->errfd, line,
									  sizeof(line))[0] ?
			 line : "the connection ended");
	else
		snprintf(why, len, "--host %s: %s", h->box, agent);
	return true;
}

static void close_ssh(void *arg)
{
	struct ssh *h = arg;

	if (h->pid > 0)
		end_ssh(h->pid, CLOSE_WAIT_S);
	close(h->errfd);
	free(h);
}

/* The binary to copy, open, and its size; -1 with err. */
static int open_self(long long *size, char *err, size_t errlen)
{
	struct stat sb;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "--host-copy: cannot read this binary: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = (long long)sb.st_size;
	return fd;
}

/* The agent started over ssh with its stream at sv[0]: 0 and h->pid, or
 * -1 with err. With exe (>= 0) the binary is sent first, size bytes. */
static int start(struct ssh *h, char *argv[], int exe, long long size, int *sv, char *err,
		 size_t errlen)
{
	int rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return snprintf(err, errlen, "socketpair: %s", strerror(errno)), -1;
	rc = spawn(argv, sv[1], sv[1], h->errfd, &h->pid, err, errlen);
	close(sv[1]);
	if (rc < 0) {
		close(sv[0]);
		return -1;
	}
	if (exe >= 0) {
		fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
		send_binary(exe, size, sv[0]);
	}
	return 0;
}

struct ssh *sshhost_start(const struct options *o, char *err, size_t errlen)
{
	struct ssh *h = calloc(1, sizeof(*h));
	char why[512];
	long long size = 0;
	int sv[2] = { -1, -1 }, exe = -1, rc = -1;

	if (!h)
		return snprintf(err, errlen, "out of memory"), NULL;
	snprintf(h->box, sizeof(h->box), "%s", o->host);
	if ((h->errfd = memfd_create("thrashtop-ssh-err", MFD_CLOEXEC)) < 0)
		snprintf(err, errlen, "--host %s: memfd_create: %s", h->box, strerror(errno));
	else if (o->host_copy && (exe = open_self(&size, err, errlen)) < 0)
		;
	else if ((h->argc = sshhost_argv(getenv("THRASHTOP_SSH"), o->host, size, h->words,
					 sizeof(h->words), h->script, sizeof(h->script), h->argv)) < 0)
		snprintf(err, errlen, "--host %s: $THRASHTOP_SSH has too many words", h->box);
	else if (start(h, h->argv, exe, size, sv, why, sizeof(why)) < 0)
		snprintf(err, errlen, "--host %s: %s", h->box, why);
	else
		rc = 0;
	if (exe >= 0)
		close(exe);
	h->fd = sv[0];
	if (rc == 0)
		return h;
	if (h->errfd >= 0)
		close(h->errfd);
	free(h);
	return NULL;
}

struct place *sshhost_ready(struct ssh *h, const struct options *o, char *err, size_t errlen)
{
	char why[512];
	struct place *p = remote_open(h->fd, o, REMOTE_READY_S, why, sizeof(why));

	if (!p) {
		explain(h, end_ssh(h->pid, FAIL_WAIT_S), why, o->host_copy, h->argv, h->argc, err,
			errlen);
		close(h->errfd);
		free(h);
		return NULL;
	}
	remote_on_close(p, close_ssh, h);
	remote_on_end(p, lost, h);
	snprintf(p->kind, sizeof(p->kind), "ssh");
	return p;
}

struct place *sshhost_open(const struct options *o, char *err, size_t errlen)
{
	struct ssh *h = sshhost_start(o, err, errlen);

	return h ? sshhost_ready(h, o, err, errlen) : NULL;
}
