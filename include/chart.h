/* Charts of stored runs as files, for bug reports and articles: an SVG
 * drawn here, or the data with a gnuplot script. One panel per chosen
 * series, the runs overlaid in it and labelled, axes with units, each
 * sysctl change a marker, and the runs' result lines as the caption.
 * Pure writers: they take runs loaded with their series (history.h) and
 * write to a FILE; they never open the history. */
#ifndef THRASHTOP_CHART_H
#define THRASHTOP_CHART_H

#include <stddef.h>
#include <stdio.h>

#include "metrics.h"
#include "runrec.h"

#define CHART_DEFAULT_SERIES "swap-used,free,majflt,kswapd-cpu"

/* The series to draw: registry ids (metrics.h), in order. */
struct chart_spec {
	int nseries;
	int series[M_N];
};

/* Parses registry names as --list-plots prints them ("swap-used,majflt"),
 * each once, in the order given. Returns 0, or -1 with err filled. */
int chart_parse_series(const char *list, struct chart_spec *spec, char *err, size_t errlen);

/* The axis of a series: a divisor that brings its largest value (vmax,
 * in the registry's unit) to a readable unit, and that unit ("GiB" for
 * KiB values of a GiB and more). */
double chart_unit(int id, double vmax, const char **unit);

/* A 1, 2 or 5 times a power of ten step that cuts 0..vmax into at most
 * about n intervals, and the axis end it gives (a whole number of steps,
 * at least vmax). vmax <= 0 or not finite gives the axis 0..1. */
double chart_ticks(double vmax, int n, double *top);

/* Text for a tick: "0", "2.5", "40k", "1.5M". */
size_t chart_tick_text(char *buf, size_t len, double v);

/* Text made safe for XML character data and attributes. */
void chart_xml_text(FILE *f, const char *s);

/* Writes the SVG of runs[0..n) (n >= 1). Returns 0, or -1 on a write
 * error (errno set). */
int chart_svg(FILE *f, const struct run_record *runs, size_t n, const struct chart_spec *spec);

/* Writes a gnuplot script holding the data as inline data blocks: `gnuplot
 * -p FILE` shows it, `gnuplot -e "set terminal pngcairo; set output
 * 'x.png'" FILE` writes a PNG. Returns 0, or -1 on a write error. */
int chart_gnuplot(FILE *f, const struct run_record *runs, size_t n, const struct chart_spec *spec);

#endif
