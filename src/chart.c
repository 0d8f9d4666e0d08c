#include "chart.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fmt.h"
#include "report.h"
#include "timefmt.h"


static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

/* SVG layout, in pixels */
#define W 900
#define ML 80		/* left margin: y tick labels */
#define MR 30
#define PW (W - ML - MR)
#define PH 170		/* one panel's plot area */
#define GAP 56		/* below a panel: x tick labels, the next title */
#define LINE 16

int chart_parse_series(const char *list, struct chart_spec *spec, char *err, size_t errlen)
{
	const char *p = list;

	spec->nseries = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		char name[64];
		int id;

		snprintf(name, sizeof(name), "%.*s", (int)(len < 40 ? len : 40), p);
		id = len < 40 ? metric_find(name) : -1;
		if (id < 0) {
			char shown[200];

			return fmt_err(err, errlen, "--series: unknown series \"%s\" (names as "
				       "--list-plots prints them)", fmt_escape(shown, sizeof(shown), name));
		}
		for (int i = 0; i < spec->nseries; i++)
			if (spec->series[i] == id)
				return fmt_err(err, errlen, "--series: %s given twice", name);
		spec->series[spec->nseries++] = id;
		p += len;
		if (*p == ',' && *++p == '\0')
			break;
	}
	if (!spec->nseries)
		return fmt_err(err, errlen, "--series: no series named");
	return 0;
}

double chart_unit(int id, double vmax, const char **unit)
{
	*unit = metric_def(id)->unit;
	if (strcmp(*unit, "KiB"))
		return 1;
	if (vmax >= 1048576) {
		*unit = "GiB";
		return 1048576;
	}
	if (vmax >= 1024) {
		*unit = "MiB";
		return 1024;
	}
	return 1;
}

double chart_ticks(double vmax, int n, double *top)
{
	double raw, mag, step;

	if (!(vmax > 0) || !isfinite(vmax) || n < 1) {
		*top = 1;
		return n > 1 ? 1.0 / n : 1;
	}
	raw = vmax / n;
	mag = pow(10, floor(log10(raw)));
	step = raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
	*top = ceil(vmax / step - 1e-9) * step;
	return step;
}

size_t chart_tick_text(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e6)
		return (size_t)snprintf(buf, len, "%gM", v / 1e6);
	if (a >= 1e4)
		return (size_t)snprintf(buf, len, "%gk", v / 1e3);
	return (size_t)snprintf(buf, len, "%g", fabs(v) < 1e-12 ? 0.0 : v);
}

void chart_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 has no place for other control characters */
			if ((unsigned char)*s < 0x20 && *s != '\t')
				fputc(' ', f);
			else
				fputc(*s, f);
		}
	}
}

/* ---- what both writers share ---- */

struct frame {
	double tmax;			/* seconds, the x axis end */
	double tstep;
	double div[M_N], top[M_N], step[M_N];
	const char *unit[M_N];
};

static void frame_of(const struct run_record *runs, size_t n, const struct chart_spec *spec,
		     struct frame *fr)
{
	double tmax = 0;

	memset(fr, 0, sizeof(*fr));
	for (size_t r = 0; r < n; r++) {
		for (int k = 0; k < runs[r].nsamples; k++)
			if (isfinite(runs[r].t[k]) && runs[r].t[k] > tmax)
				tmax = runs[r].t[k];
		for (int c = 0; c < runs[r].nchanges; c++)
			if (runs[r].changes[c].t_s > tmax)
				tmax = runs[r].changes[c].t_s;
	}
	fr->tstep = chart_ticks(tmax, 8, &fr->tmax);
	for (int i = 0; i < spec->nseries; i++) {
		int id = spec->series[i];
		double vmax = 0;

		for (size_t r = 0; r < n; r++)
			for (int k = 0; runs[r].series[id] && k < runs[r].nsamples; k++) {
				double v = runs[r].series[id][k];
				if (isfinite(v) && v > vmax)
					vmax = v;
			}
		fr->div[id] = chart_unit(id, vmax, &fr->unit[id]);
		fr->step[id] = chart_ticks(vmax / fr->div[id], 5, &fr->top[id]);
	}
}

/* A label wider than this is cut in a title, so that the legend's line
 * stays on the chart. */
#define TITLE_LABEL_COLS 60

/* "#3 2.4.14-pre8 (6.1.0-18-amd64 on lenstra, 2025-03-04T09:00:00Z)" */
static void run_title(char *buf, size_t len, const struct run_record *r)
{
	char label[sizeof(r->label)];
	size_t n;

	if (fmt_text_cols(r->label) > TITLE_LABEL_COLS) {
		n = fmt_field(label, sizeof(label), 0, r->label, TITLE_LABEL_COLS, false, false);
		while (n && label[n - 1] == ' ')	/* the field's padding */
			label[--n] = '\0';
	} else {
		snprintf(label, sizeof(label), "%s", r->label);
	}
	snprintf(buf, len, "#%" PRId64 "%s%s (%s on %s, %s)", r->id, r->label[0] ? " " : "",
		 label, r->kernel_release[0] ? r->kernel_release : "kernel n/a",
		 r->hostname[0] ? r->hostname : "host n/a", r->started_at);
}

/* "#3: 70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w  0:01 kswapd" */
static void run_caption(char *buf, size_t len, const struct run_record *r)
{
	struct timeline t;
	char csh[160], ks[32];

	run_record_timeline(r, &t);
	timefmt_csh(csh, sizeof(csh), &t);
	timefmt_kswapd(ks, sizeof(ks), r->kswapd_s);
	snprintf(buf, len, "#%" PRId64 ": %s  %s", r->id, csh, ks);
}

/* ---- SVG ---- */

static double xpos(const struct frame *fr, double t)
{
	return ML + t / fr->tmax * PW;
}

static void svg_text(FILE *f, double x, double y, const char *attrs, const char *text)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs[0] ? " " : "", attrs);
	chart_xml_text(f, text);
	fputs("</text>\n", f);
}

static void svg_panel(FILE *f, const struct run_record *runs, size_t n, const struct frame *fr,
		      int id, double y0, bool first, bool last)
{
	char buf[256], tick[32];
	double top = fr->top[id], step = fr->step[id], div = fr->div[id];

	snprintf(buf, sizeof(buf), "%s (%s)", metric_def(id)->title, fr->unit[id]);
	svg_text(f, ML, y0 - 8, "font-weight=\"bold\"", buf);
	fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#444\"/>\n", ML, y0, PW, PH);
	for (double v = 0; v <= top + step / 2; v += step) {
		double y = y0 + PH - v / top * PH;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			ML, y, ML + PW, y);
		chart_tick_text(tick, sizeof(tick), v);
		svg_text(f, ML - 6, y + 4, "text-anchor=\"end\"", tick);
	}
	for (double t = 0; t <= fr->tmax + fr->tstep / 2; t += fr->tstep) {
		double x = xpos(fr, t);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
			x, y0 + PH, x, y0 + PH + 4);
		chart_tick_text(tick, sizeof(tick), t);
		svg_text(f, x, y0 + PH + 17, "text-anchor=\"middle\"", tick);
	}
	if (last)
		svg_text(f, ML + PW / 2.0, y0 + PH + 36, "text-anchor=\"middle\"",
			 "seconds since the run started");
	for (size_t r = 0; r < n; r++) {
		const char *c = colours[r % NCOLOURS];

		for (int i = 0; i < runs[r].nchanges; i++) {
			const struct run_sysctl_change *ch = &runs[r].changes[i];
			double x = xpos(fr, ch->t_s);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-dasharray=\"4 3\"/>\n", x, y0, x, y0 + PH, c);
			if (first) {
				snprintf(buf, sizeof(buf), "%s %s\xe2\x86\x92%s", ch->name, ch->old_val,
					 ch->new_val);
				snprintf(tick, sizeof(tick), "fill=\"%s\" font-size=\"11\"", c);
				svg_text(f, x + 3, y0 + 12 + 12 * (double)(i % 4), tick, buf);
			}
		}
		fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"", c);
		bool pen = false;
		for (int k = 0; runs[r].series[id] && k < runs[r].nsamples; k++) {
			double t = runs[r].t[k], v = runs[r].series[id][k];

			if (!isfinite(t) || !isfinite(v)) {
				pen = false;
				continue;
			}
			fprintf(f, "%s%.1f %.1f", pen ? " L" : " M", xpos(fr, t),
				y0 + PH - v / div / top * PH);
			pen = true;
		}
		fputs("\"/>\n", f);
	}
}

int chart_svg(FILE *f, const struct run_record *runs, size_t n, const struct chart_spec *spec)
{
	struct frame fr;
	char buf[1024];	/* a title: a label is up to 800 bytes */
	double y, h;
	size_t off = 0;

	frame_of(runs, n, spec, &fr);
	y = 40 + (double)n * LINE + 30;
	h = y + spec->nseries * (PH + GAP) + (double)n * LINE + 20;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
		"font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, h, W, h);
	off = (size_t)snprintf(buf, sizeof(buf), "thrashtop: run%s", n > 1 ? "s" : "");
	for (size_t r = 0; r < n && off < sizeof(buf); r++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s #%" PRId64, r ? "," : "",
					runs[r].id);
	svg_text(f, ML, 24, "font-size=\"16\" font-weight=\"bold\"", buf);
	for (size_t r = 0; r < n; r++) {
		double ly = 44 + (double)r * LINE;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"3\"/>\n", ML, ly - 4, ML + 24, ly - 4, colours[r % NCOLOURS]);
		run_title(buf, sizeof(buf), &runs[r]);
		svg_text(f, ML + 30, ly, "", buf);
	}
	for (int i = 0; i < spec->nseries; i++)
		svg_panel(f, runs, n, &fr, spec->series[i], y + i * (PH + GAP), i == 0,
			  i == spec->nseries - 1);
	y += spec->nseries * (PH + GAP);
	for (size_t r = 0; r < n; r++) {
		char attrs[96];

		run_caption(buf, sizeof(buf), &runs[r]);
		snprintf(attrs, sizeof(attrs), "font-family=\"DejaVu Sans Mono, monospace\" "
			 "fill=\"%s\"", colours[r % NCOLOURS]);
		svg_text(f, ML, y + (double)r * LINE, attrs, buf);
	}
	fputs("</svg>\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}

/* ---- gnuplot ---- */

static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

int chart_gnuplot(FILE *f, const struct run_record *runs, size_t n, const struct chart_spec *spec)
{
	struct frame fr;
	char buf[1024], title[4096];	/* buf: a title, as above */
	size_t off;

	frame_of(runs, n, spec, &fr);
	fputs("# thrashtop history plot: the runs' series as data blocks, then the plots.\n", f);
	for (size_t r = 0; r < n; r++) {
		run_title(buf, sizeof(buf), &runs[r]);
		fprintf(f, "# ");
		for (const char *p = buf; *p; p++)
			fputc((unsigned char)*p < 0x20 ? ' ' : *p, f);
		fprintf(f, "\n$run%" PRId64 " << EOD\n# t_s", runs[r].id);
		for (int i = 0; i < spec->nseries; i++)
			fprintf(f, " %s_%s", metric_def(spec->series[i])->name, fr.unit[spec->series[i]]);
		fputc('\n', f);
		for (int k = 0; k < runs[r].nsamples; k++) {
			fprintf(f, "%.3f", runs[r].t[k]);
			for (int i = 0; i < spec->nseries; i++) {
				const double *sv = runs[r].series[spec->series[i]];
				double v = sv ? sv[k] : NAN;
				if (isfinite(v))
					fprintf(f, " %.6g", v / fr.div[spec->series[i]]);
				else
					fputs(" NaN", f);
			}
			fputc('\n', f);
		}
		fputs("EOD\n", f);
	}
	off = 0;
	title[0] = '\0';
	for (size_t r = 0; r < n && off < sizeof(title); r++) {
		run_caption(buf, sizeof(buf), &runs[r]);
		off += (size_t)snprintf(title + off, sizeof(title) - off, "%s%s", r ? "\n" : "", buf);
	}
	fputs("set termoption noenhanced\nset datafile missing NaN\nset grid\n"
	      "set key top left\n", f);
	fprintf(f, "set xrange [0:%g]\nset multiplot layout %d,1 title ", fr.tmax, spec->nseries);
	gp_string(f, title);
	fputc('\n', f);
	for (int i = 0; i < spec->nseries; i++) {
		int id = spec->series[i];

		snprintf(buf, sizeof(buf), "%s (%s)", metric_def(id)->title, fr.unit[id]);
		fputs("set ylabel ", f);
		gp_string(f, buf);
		fprintf(f, "\nset yrange [0:%g]\n", fr.top[id]);
		if (i == spec->nseries - 1)
			fputs("set xlabel \"seconds since the run started\"\n", f);
		for (size_t r = 0; r < n; r++)
			for (int c = 0; c < runs[r].nchanges; c++) {
				const struct run_sysctl_change *ch = &runs[r].changes[c];

				fprintf(f, "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead "
					"dashtype 2 lc rgb \"%s\"\n", ch->t_s, ch->t_s,
					colours[r % NCOLOURS]);
				if (i)
					continue;
				snprintf(buf, sizeof(buf), "%s %s->%s", ch->name, ch->old_val, ch->new_val);
				fputs("set label ", f);
				gp_string(f, buf);
				fprintf(f, " at %.3f, graph 0.9 offset 0.5,0 tc rgb \"%s\"\n", ch->t_s,
					colours[r % NCOLOURS]);
			}
		fputs("plot", f);
		for (size_t r = 0; r < n; r++) {
			run_title(buf, sizeof(buf), &runs[r]);
			fprintf(f, "%s $run%" PRId64 " using 1:%d with lines lw 1.5 lc rgb \"%s\" title ",
				r ? "," : "", runs[r].id, i + 2, colours[r % NCOLOURS]);
			gp_string(f, buf);
		}
		fputs("\nunset arrow\nunset label\n", f);
	}
	fputs("unset multiplot\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
