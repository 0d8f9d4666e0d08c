/* The plot chooser: a window over the live monitor listing every series
 * of the registry, the plotted ones first in screen order, to add, remove
 * and reorder plots while the monitor goes on drawing beneath it (as
 * htop's setup screen, but live). Each change is applied to the monitor
 * view at once; closing the chooser saves the choice as the config
 * file's "plots" key. A view of the one loop: keys in, drawing out. */
#ifndef THRASHTOP_CHOOSER_H
#define THRASHTOP_CHOOSER_H

#include <stdbool.h>

#include "metrics.h"
#include "monview.h"
#include "view.h"

/* Where a closing chooser reports the save: "plots saved to PATH", or the
 * error. */
typedef void (*chooser_note_fn)(void *arg, bool error, const char *msg);

/* Opens over mv, whose plots it edits. av: what this machine gives (an
 * unavailable series can be chosen, and shows why it is not drawn).
 * conf_path: the config file to save to (NULL: nothing is saved, and the
 * note says why_no_conf). At least one plot stays shown. NULL with err on
 * failure. */
struct view *chooser_open(struct monview *mv, const struct metric_avail *av,
			  const char *conf_path, const char *why_no_conf, chooser_note_fn note,
			  void *note_arg, char *err, size_t errlen);

/* Pure: the list the chooser shows, the plotted ids (n of them) first in
 * their order, then the rest in registry order. Returns M_N. */
int chooser_order(const int *plotted, int n, int out[M_N]);

/* Pure: one list row of width columns for id: its place among the
 * plotted ("3"), "[x]" or "[ ]", the name, and the title and unit, or why
 * it cannot be drawn here. */
char *chooser_row(int id, int place, const struct metric_avail *av, int width,
		  char *buf, size_t len);

#endif
