/* The user's config file, $XDG_CONFIG_HOME/thrashtop/config (else
 * ~/.config/thrashtop/config): plain "key = value" lines, '#' comments and
 * blank lines. Keys: delay (seconds, as -d) and plots (registry names,
 * comma-separated, as --plots, or "default"; the plot chooser writes it). Command-line
 * flags override it. A line that does not parse is refused with
 * "PATH:LINE: what is wrong". */
#ifndef THRASHTOP_CONF_H
#define THRASHTOP_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"

struct conf {
	bool has_delay;
	double delay;		/* seconds */
	int nplots;		/* 0: not given, or "default" */
	int plots[M_N];		/* registry ids, in screen order */
};

/* $XDG_CONFIG_HOME/thrashtop/config, else $HOME/.config/thrashtop/config.
 * Returns buf, or NULL with err filled when neither is an absolute path. */
char *conf_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Parses text (len bytes; path names it in messages). Returns 0, or -1 with
 * "PATH:LINE: message" in err and out untouched. Pure. */
int conf_parse(const char *text, size_t len, const char *path, struct conf *out,
	       char *err, size_t errlen);

/* Reads and parses path; a file that does not exist is an empty config.
 * Returns 0, or -1 with err filled. */
int conf_load(const char *path, struct conf *out, char *err, size_t errlen);

/* Writes "key = value" into path: the key's line replaced where it was,
 * else added at the end, every other line kept; the directories are made
 * and the file replaced atomically. 0, or -1 with err. */
int conf_set(const char *path, const char *key, const char *value, char *err, size_t errlen);

#endif
