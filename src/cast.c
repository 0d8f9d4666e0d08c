#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cast.h"
#include "fmt.h"
#include "sysio.h"

struct cast {
	int fd;
	char *made;		/* the file's path when cast_open created it */
	double start;		/* monotonic time of the opening */
	char *line;		/* the event being written */
	size_t cap;
};

/* The recording of the screen, when one is on. */
static struct {
	struct cast *c;
	int outfd;		/* ncurses' descriptor; -1 headless */
	int saved;		/* the terminal, while the memfd stands in */
	int outflags;		/* outfd's FD_CLOEXEC, kept across the swaps */
	int mem;		/* the frame's bytes */
	double vt;		/* headless: the time of the next frame */
	int cols, rows;		/* the size last recorded */
	char *frame;
	size_t fcap;
} R = { .outfd = -1, .saved = -1, .mem = -1 };

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k > 0) {
			p += k;
			n -= (size_t)k;
		} else if (k < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };

			poll(&pf, 1, -1);
		} else if (k < 0 && errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

size_t cast_escape(char *dst, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	char *d = dst;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_len(s + i, n - i);

		if (k == 0) {
			memcpy(d, "\\ufffd", 6);
			d += 6;
			i++;
		} else if (k > 1) {
			memcpy(d, s + i, k);
			d += k;
			i += k;
		} else {
			unsigned char ch = s[i++];

			if (ch == '"' || ch == '\\') {
				*d++ = '\\';
				*d++ = (char)ch;
			} else if (ch < 0x20 || ch == 0x7f) {
				d += sprintf(d, "\\u%04x", ch);
			} else {
				*d++ = (char)ch;
			}
		}
	}
	*d = '\0';
	return (size_t)(d - dst);
}

static int put_line(struct cast *c, const char *head, const char *data, size_t n)
{
	size_t need = strlen(head) + 6 * n + 8;
	size_t len;

	if (need > c->cap) {
		char *p = realloc(c->line, need);

		if (!p)
			return -1;
		c->line = p;
		c->cap = need;
	}
	len = (size_t)sprintf(c->line, "%s", head);
	len += cast_escape(c->line + len, data, n);
	memcpy(c->line + len, "\"]\n", 3);
	return write_all(c->fd, c->line, len + 3);
}

struct cast *cast_open(const char *path, int cols, int rows, const char *term,
		       const char *title, long long timestamp, char *err, size_t errlen)
{
	struct cast *c = calloc(1, sizeof(*c));
	char head[256], name[256], *t = NULL, *e = NULL;
	bool made = false;
	int rc = -1;

	fmt_escape(name, sizeof(name), path);
	if (!c) {
		fmt_err(err, errlen, "--cast: out of memory");
		return NULL;
	}
	c->fd = strcmp(path, "-") ? sysio_create(path, 0644, &made) :
		fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (c->fd < 0) {
		fmt_err(err, errlen, "--cast %s: %s", name,
			errno == ELOOP ? "a symbolic link: refused" :
			errno == EEXIST ? "already there, in a directory others can write: refused" :
			errno == EINVAL ? "not a regular file" : strerror(errno));
		free(c);
		return NULL;
	}
	if (made && !(c->made = strdup(path))) {
		unlink(path);
		close(c->fd);
		free(c);
		fmt_err(err, errlen, "--cast: out of memory");
		return NULL;
	}
	c->start = mono();
	t = malloc(6 * strlen(title) + 1);
	e = malloc(6 * strlen(term) + 1);
	if (t && e) {
		cast_escape(t, title, strlen(title));
		cast_escape(e, term, strlen(term));
		if (timestamp)
			snprintf(head, sizeof(head), ", \"timestamp\": %lld", timestamp);
		else
			head[0] = '\0';
		rc = dprintf(c->fd, "{\"version\": 2, \"width\": %d, \"height\": %d%s, "
			     "\"env\": {\"TERM\": \"%s\"}, \"title\": \"%s\"}\n",
			     cols, rows, head, e, t) < 0 ? -1 : 0;
	}
	free(t);
	free(e);
	if (rc) {
		fmt_err(err, errlen, "--cast %s: %s", name, strerror(errno ? errno : ENOMEM));
		cast_remove(c);
		return NULL;
	}
	return c;
}

int cast_output(struct cast *c, double t, const char *bytes, size_t n)
{
	char head[48];

	if (n == 0)
		return 0;
	snprintf(head, sizeof(head), "[%.6f, \"o\", \"", t);
	return put_line(c, head, bytes, n);
}

int cast_resize(struct cast *c, double t, int cols, int rows)
{
	char head[48], size[32];

	snprintf(head, sizeof(head), "[%.6f, \"r\", \"", t);
	snprintf(size, sizeof(size), "%dx%d", cols, rows);
	return put_line(c, head, size, strlen(size));
}

void cast_detach(void)
{
	if (R.saved >= 0)
		close(R.saved);
	if (R.mem >= 0)
		close(R.mem);
	free(R.frame);
	R.c = NULL;
	R.outfd = R.saved = R.mem = -1;
	R.frame = NULL;
	R.fcap = 0;
}

void cast_close(struct cast *c)
{
	if (!c)
		return;
	if (R.c == c)
		cast_detach();
	close(c->fd);
	free(c->made);
	free(c->line);
	free(c);
}

void cast_remove(struct cast *c)
{
	if (c && c->made)
		unlink(c->made);
	cast_close(c);
}

static int attach(struct cast *c, char *err, size_t errlen)
{
	R.mem = memfd_create("thrashtop-cast", MFD_CLOEXEC);
	if (R.mem < 0) {
		fmt_err(err, errlen, "--cast: memfd: %s", strerror(errno));
		return -1;
	}
	R.c = c;
	R.cols = COLS;
	R.rows = LINES;
	R.vt = 0;
	return 0;
}

int cast_tee(struct cast *c, int outfd, char *err, size_t errlen)
{
	if (attach(c, err, errlen))
		return -1;
	R.outfd = outfd;
	R.outflags = fcntl(outfd, F_GETFD) & FD_CLOEXEC ? O_CLOEXEC : 0;
	R.saved = fcntl(outfd, F_DUPFD_CLOEXEC, 3);
	if (R.saved < 0) {
		fmt_err(err, errlen, "--cast: %s", strerror(errno));
		cast_detach();
		return -1;
	}
	return 0;
}

FILE *cast_headless(struct cast *c, int cols, int rows, char *err, size_t errlen)
{
	int fd;
	FILE *f;

	if (attach(c, err, errlen))
		return NULL;
	R.cols = cols;
	R.rows = rows;
	fd = fcntl(R.mem, F_DUPFD_CLOEXEC, 3);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fmt_err(err, errlen, "cast: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		cast_detach();
	}
	return f;
}

void cast_set_time(double t)
{
	R.vt = t;
}

static double now(void)
{
	return R.saved >= 0 ? mono() - R.c->start : R.vt;
}

static void note_size(void)
{
	if (COLS == R.cols && LINES == R.rows)
		return;
	R.cols = COLS;
	R.rows = LINES;
	cast_resize(R.c, now(), COLS, LINES);
}

/* The memfd's bytes: to the terminal (when there is one), then as one
 * event. A recording that cannot be written ends; the screen goes on. */
static void drain(void)
{
	off_t n = lseek(R.mem, 0, SEEK_CUR);

	if (n <= 0)
		return;
	if ((size_t)n > R.fcap) {
		char *p = realloc(R.frame, (size_t)n);

		if (!p)
			goto out;
		R.frame = p;
		R.fcap = (size_t)n;
	}
	if (pread(R.mem, R.frame, (size_t)n, 0) != n)
		goto out;
	if (R.saved >= 0)
		write_all(R.saved, R.frame, (size_t)n);
	if (cast_output(R.c, now(), R.frame, (size_t)n)) {
		cast_detach();
		return;
	}
out:
	if (ftruncate(R.mem, 0) == 0)
		lseek(R.mem, 0, SEEK_SET);
}

void cast_doupdate(void)
{
	struct winsize ws = { .ws_row = (unsigned short)LINES, .ws_col = (unsigned short)COLS };

	if (!R.c) {
		doupdate();
		return;
	}
	if (R.saved < 0) {
		doupdate();
		note_size();
		drain();
		return;
	}
	/* A resize ncurses has yet to take in is read through the
	 * descriptor: that update goes to the terminal itself, and the next
	 * one is drawn in full. */
	if (ioctl(R.saved, TIOCGWINSZ, &ws) != 0)
		ws = (struct winsize){ .ws_row = (unsigned short)LINES, .ws_col = (unsigned short)COLS };
	if (ws.ws_col != COLS || ws.ws_row != LINES) {
		doupdate();
		clearok(curscr, TRUE);
		note_size();
		return;
	}
	dup3(R.mem, R.outfd, R.outflags);
	doupdate();
	dup3(R.saved, R.outfd, R.outflags);
	note_size();
	drain();
	if (ws.ws_col != COLS || ws.ws_row != LINES)
		resizeterm(ws.ws_row, ws.ws_col);
}
