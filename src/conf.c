#include "conf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "metrics.h"

#define CONF_MAX_BYTES (1 << 20)

char *conf_default_path(char *buf, size_t len, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n;

	/* The XDG spec says a relative XDG_CONFIG_HOME is to be ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/thrashtop/config", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.config/thrashtop/config", home);
	else {
		snprintf(err, errlen, "config: neither XDG_CONFIG_HOME nor HOME is an absolute path");
		return NULL;
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "config: path too long");
		return NULL;
	}
	return buf;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *trim_end(const char *start, const char *end)
{
	while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	return end;
}

/* One line split into key and value; 1 for a key, 0 for a blank or
 * comment line, -1 when it is neither. */
static int split_line(const char *p, const char *eol, char *key, size_t klen,
		      char *val, size_t vlen)
{
	const char *eq, *kend;

	p = skip_blank(p, eol);
	if (p == eol || *p == '#' || trim_end(p, eol) == p)
		return 0;
	eq = memchr(p, '=', (size_t)(eol - p));
	if (!eq)
		return -1;
	kend = trim_end(p, eq);
	if (kend == p || (size_t)(kend - p) >= klen)
		return -1;
	memcpy(key, p, (size_t)(kend - p));
	key[kend - p] = '\0';
	p = skip_blank(eq + 1, eol);
	eol = trim_end(p, eol);
	if ((size_t)(eol - p) >= vlen)
		return -1;
	memcpy(val, p, (size_t)(eol - p));
	val[eol - p] = '\0';
	return 1;
}

int conf_parse(const char *text, size_t len, const char *path, struct conf *out,
	       char *err, size_t errlen)
{
	struct conf c = { 0 };
	const char *p = text, *end = text + len;
	int line = 0;
	bool plots_seen = false;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char key[32], val[1024];
		int rc;

		if (!eol)
			eol = end;
		line++;
		if (memchr(p, '\0', (size_t)(eol - p))) {
			snprintf(err, errlen, "%s:%d: not a text line", path, line);
			return -1;
		}
		rc = split_line(p, eol, key, sizeof(key), val, sizeof(val));
		p = eol + 1;
		if (rc == 0)
			continue;
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: want key = value", path, line);
			return -1;
		}
		if (!strcmp(key, "delay")) {
			if (c.has_delay) {
				snprintf(err, errlen, "%s:%d: delay given twice", path, line);
				return -1;
			}
			if (fmt_parse_seconds(val, &c.delay) || c.delay < 0.05 || c.delay > 3600) {
				snprintf(err, errlen, "%s:%d: delay '%.40s': want seconds from 0.05 to 3600",
					 path, line, val);
				return -1;
			}
			c.has_delay = true;
		} else if (!strcmp(key, "plots")) {
			char e[256];

			if (plots_seen)
				return fmt_err(err, errlen, "%s:%d: plots given twice", path, line);
			plots_seen = true;
			if (strcmp(val, "default") &&
			    (c.nplots = metrics_parse_list(val, c.plots, e, sizeof(e))) < 0)
				return fmt_err(err, errlen, "%s:%d: %s", path, line, e);
		} else {
			char safe[128];

			return fmt_err(err, errlen, "%s:%d: unknown key '%s' (keys: delay, plots)",
				       path, line, fmt_escape(safe, sizeof(safe), key));
		}
	}
	*out = c;
	return 0;
}

/* The whole file; NULL with errno (ENOENT: none; EFBIG: over the cap). */
static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CONF_MAX_BYTES) {
		int e = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EISDIR : EFBIG;
		close(fd);
		errno = e;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r <= 0) {
			if (r == 0)
				break;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		n += (size_t)r;
	}
	close(fd);
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int conf_load(const char *path, struct conf *out, char *err, size_t errlen)
{
	size_t len = 0;
	char *text;
	int rc;

	text = read_all(path, &len);
	if (!text) {
		if (errno == ENOENT) {
			memset(out, 0, sizeof(*out));
			return 0;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = conf_parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}

/* Makes the directories above path, as mkdir -p. */
static int make_parents(const char *path)
{
	char dir[4096];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

int conf_set(const char *path, const char *key, const char *value, char *err, size_t errlen)
{
	size_t len = 0, klen = strlen(key);
	char *text = read_all(path, &len), tmp[4200];
	bool done = false;
	FILE *f;
	int fd;

	if (!text && errno != ENOENT)
		return fmt_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
	if (make_parents(path) < 0)
		goto fail;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0)
		goto fail;
	/* mkstemp makes it 0600: keep the file's mode, else a config's 0644 */
	{
		struct stat st;
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, stat(path, &st) == 0 ? st.st_mode & 07777 : 0644 & ~um);
	}
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		goto fail;
	}
	/* every other line as it was; the key's own line replaced in place */
	for (const char *p = text, *end = text ? text + len : NULL; p && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *k = skip_blank(p, eol ? eol : end);

		if (!eol)
			eol = end;
		if (!done && !strncmp(k, key, klen) && (k[klen] == '=' || k[klen] == ' ' ||
							k[klen] == '\t')) {
			fprintf(f, "%s = %s\n", key, value);
			done = true;
		} else {
			fprintf(f, "%.*s\n", (int)(eol - p), p);
		}
		p = eol + 1;
	}
	if (!done)
		fprintf(f, "%s = %s\n", key, value);
	free(text);
	text = NULL;
	if (fflush(f) || fsync(fileno(f)) || fclose(f)) {
		int e = errno;

		unlink(tmp);
		errno = e;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		goto fail;
	}
	return 0;
fail:
	free(text);
	return fmt_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
}
