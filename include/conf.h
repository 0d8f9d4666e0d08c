/* The user's config file, $XDG_CONFIG_HOME/thrashtop/config (else
 * ~/.config/thrashtop/config): plain "key = value" lines, '#' comments and
 * blank lines. Keys: plots (names as --plots takes them) and delay
 * (seconds, as -d). Command-line flags override it. A line that does not
 * parse is refused with "PATH:LINE: what is wrong". */
#ifndef THRASHTOP_CONF_H
#define THRASHTOP_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"

struct conf {
	bool has_plots;
	struct metric_list plots;
	bool has_delay;
	double delay;		/* seconds */
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

/* Sets "key = value" in text: the first line with that key is replaced,
 * else the line is appended; comments and other lines stay as they are.
 * Returns a malloc'd text, or NULL when out of memory. Pure. */
char *conf_set_text(const char *text, size_t len, const char *key, const char *value);

/* conf_set_text on the file at path (created with its directories if
 * missing), written to a temporary file and renamed over it. Returns 0, or
 * -1 with err filled and the file as it was. */
int conf_save(const char *path, const char *key, const char *value, char *err, size_t errlen);

#endif
