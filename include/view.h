/* A full-screen view on the monitor's terminal: the monitor, the history
 * browser, and any screen added later. The owner's loop keeps a stack of
 * them and hands the top one every key and every draw; a view turns keys
 * into actions and draws its own state, nothing else. It never waits for
 * input (a prompt is a state of its view, fed one key at a time), never
 * samples and never runs anything, so the loop goes on measuring whatever
 * view is open. */
#ifndef THRASHTOP_VIEW_H
#define THRASHTOP_VIEW_H

#include <stdbool.h>

/* What a view's key function returns: stay, close this view, or one of its
 * own actions for the owner (VIEW_ACTION + n). */
enum { VIEW_STAY = 0, VIEW_CLOSE = 1, VIEW_ACTION = 16 };

struct view;

struct view_ops {
	const char *name;
	/* One key: a getch() value, KEY_RESIZE included. */
	int (*key)(struct view *v, int ch);
	/* Draws the view's state now. */
	void (*draw)(struct view *v);
	/* Frees the view; the terminal stays as it is. */
	void (*close)(struct view *v);
	/* It shows the live monitor beneath it (the plot chooser): drawn at
	 * every tick, as the monitor is, and the monitor's rows are read. */
	bool live;
	/* Optional, for a view that plays over time (a replay): advances it
	 * to now (monotonic seconds), draws it if it changed, and returns when
	 * it wants to be called next, 0 for not until a key changes it. */
	double (*wake)(struct view *v, double now);
};

/* The first member of every view's own state. */
struct view {
	const struct view_ops *ops;
};

#endif
