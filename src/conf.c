#include "conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "metrics.h"
#include "sysio.h"

#define CONF_MAX_BYTES (1 << 20)

char *conf_default_path(char *buf, size_t len, char *err, size_t errlen)
{
	if (sysio_xdg_path("XDG_CONFIG_HOME", ".config", "config", buf, len))
		return buf;
	snprintf(err, errlen, errno == ENAMETOOLONG ? "config: path too long"
			      : "config: neither XDG_CONFIG_HOME nor HOME is an absolute path");
	return NULL;
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
			if (fmt_parse_seconds(val, &c.delay) || c.delay < 0.01 || c.delay > 3600) {
				snprintf(err, errlen, "%s:%d: delay '%.40s': want seconds from 0.01 to 3600",
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

int conf_load(const char *path, struct conf *out, char *err, size_t errlen)
{
	size_t len = 0;
	char *text;
	int rc;

	text = sysio_read_alloc(path, CONF_MAX_BYTES, &len);
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

struct conf_edit {
	const char *text;	/* NULL: no file yet */
	size_t len;
	const char *key, *value;
};

/* Every other line as it was; the key's own line replaced in place, or
 * added at the end. */
static int write_edit(FILE *f, const void *arg)
{
	const struct conf_edit *e = arg;
	size_t klen = strlen(e->key);
	bool done = false;

	for (const char *p = e->text, *end = e->text ? e->text + e->len : NULL; p && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *k = skip_blank(p, eol ? eol : end);

		if (!eol)
			eol = end;
		if (!done && !strncmp(k, e->key, klen) &&
		    (k[klen] == '=' || k[klen] == ' ' || k[klen] == '\t')) {
			fprintf(f, "%s = %s\n", e->key, e->value);
			done = true;
		} else {
			fprintf(f, "%.*s\n", (int)(eol - p), p);
		}
		p = eol + 1;
	}
	if (!done)
		fprintf(f, "%s = %s\n", e->key, e->value);
	return ferror(f) ? -1 : 0;
}

int conf_set(const char *path, const char *key, const char *value, char *err, size_t errlen)
{
	struct conf_edit e = { .key = key, .value = value };
	char *text = sysio_read_alloc(path, CONF_MAX_BYTES, &e.len);
	int rc;

	if (!text && errno != ENOENT)
		return fmt_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
	e.text = text;
	rc = sysio_make_parents(path, 0755, NULL);
	if (!rc)
		rc = sysio_replace(path, 0644, write_edit, &e);
	if (rc) {
		int saved = errno;

		free(text);
		return fmt_err(err, errlen, "cannot write %s: %s", path, strerror(saved));
	}
	free(text);
	return 0;
}
