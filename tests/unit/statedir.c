#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "statedir.h"
#include "tuning.h"

static char dir[96];

void machine_lock(void)
{
	static int fd = -1;

	if (fd >= 0)
		return;
	fd = open("/tmp/thrashtop-e2e-tuning.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		perror("/tmp/thrashtop-e2e-tuning.lock");
		abort();
	}
}

void statedir_begin(const char *tag)
{
	machine_lock();
	snprintf(dir, sizeof dir, "/tmp/thrashtop-%s-test-XXXXXX", tag);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	setenv("THRASHTOP_STATE_DIR", dir, 1);
	tuning_register_undo();
}

void statedir_end(void)
{
	const char *names[] = { "state", "lock", "session" };
	char p[160];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	unsetenv("THRASHTOP_STATE_DIR");
}

int as_nobody(int (*fn)(char *err, size_t errlen), char *err, size_t errlen)
{
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	err[0] = '\0';
	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char cerr[256] = "";

		close(fds[0]);
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		if (fn(cerr, sizeof cerr) == 0)
			_exit(3);
		if (write(fds[1], cerr, strlen(cerr)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], err, errlen - 1) : -1;
	err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
