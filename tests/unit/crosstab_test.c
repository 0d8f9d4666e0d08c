/* Cross tables: the golden table, columns that line up whatever the
 * characters' widths, rows told apart by whole values, and what a cell
 * leaves out or mixes said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crosstab.h"
#include "fmt.h"
#include "report_fixture.h"

static int w_table(FILE *f, const struct run_record *v, size_t n, void *a)
{
	return crosstab_print(f, v, n, a, NULL, 0);
}

TEST(crosstab_golden)
{
	struct run_record v[8];
	size_t n;
	struct report_opts o;

	fixture_runs(v, &n);
	report_opts_default(&o);
	o.rows = "swappiness";
	o.cols = "kernel";
	char *out = render(w_table, v, n, &o);
	golden("table.txt", out);
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* A cell says its completed runs' n, and the kills and failures it leaves
 * out. */
TEST(crosstab_cells_say_what_they_leave_out)
{
	struct run_record v[8];
	size_t n;
	struct report_opts o;

	fixture_runs(v, &n);
	report_opts_default(&o);
	o.rows = "swappiness";
	o.cols = "kernel";
	char *out = render(w_table, v, n, &o);
	CHECK(out && strstr(out, "\n60          2:32.29 +-1.4% n=3 1 failed\n"));
	CHECK(out && strstr(out, "\n100         2:40.68 +-14.3% n=2 1 of 3 runs killed\n"));
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* A table's columns line up on a terminal whatever the labels' widths:
 * a row named in wide characters is padded by the columns it takes. */
TEST(crosstab_aligns_wide_labels)
{
	struct run_record v[8];
	struct report_opts o;
	size_t n;

	fixture_runs(v, &n);
	report_opts_default(&o);
	o.rows = "label";
	o.cols = "swappiness";
	for (size_t i = 0; i < 3; i++)	/* "日本語" */
		snprintf(v[i].label, sizeof(v[i].label), "%s", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
	char *out = render(w_table, v, n, &o);
	const char *head = out ? strstr(out, "\nlabel ") : NULL;

	CHECK(head != NULL);
	if (!head)
		return;
	head++;
	/* the second column's start, in columns, from the header */
	const char *c60 = strstr(head, "60");
	CHECK(c60 != NULL);
	int at = c60 ? fmt_text_cols_n(head, (size_t)(c60 - head)) : 0;
	int rows = 0;
	for (const char *l = strchr(head, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *line = l + 1;
		int b = fmt_cut_bytes(line, at);

		if (line[0] == '\n' || !strncmp(line, "(", 1))
			break;
		rows++;
		if (b < 1 || line[b - 1] != ' ' || line[b] == ' ')
			t_fail(__FILE__, __LINE__, "the column at %d does not start there in \"%.*s\"", at,
			       (int)strcspn(line, "\n"), line);
	}
	CHECK(rows >= 2);
	free(out);
	for (size_t i = 0; i < n; i++)
		run_record_clear(&v[i]);
}

/* A table's rows are told apart by their whole values: two commands
 * that differ past what a row shows of them are two rows. */
TEST(crosstab_keys_compared_whole)
{
	struct run_record v[4];
	struct report_opts o;
	char cmd[300];
	char *out;
	int rows = 0;

	report_opts_default(&o);
	o.rows = "command";
	o.cols = "swappiness";
	memset(cmd, 'x', sizeof(cmd) - 1);
	cmd[sizeof(cmd) - 1] = '\0';
	for (int i = 0; i < 4; i++) {
		run_record_init(&v[i]);
		v[i].id = i + 1;
		v[i].kind = RUN_COMMAND;
		v[i].swappiness = 60;
		v[i].wall_us = 1000000 * (i < 2 ? 1 : 3);
		cmd[sizeof(cmd) - 2] = i < 2 ? '1' : '2';
		v[i].command = strdup(cmd);
	}
	out = render(w_table, v, 4, &o);
	for (const char *p = out ? strstr(out, "\ncommand ") : NULL; p && (p = strstr(p + 1, "\nxxx"));)
		rows++;
	CHECK_INT(rows, 2);
	CHECK(out && strstr(out, "0:01.00") && strstr(out, "0:03.00"));
	CHECK(out && strstr(out, "xxx... "));
	free(out);
	for (int i = 0; i < 4; i++)
		run_record_clear(&v[i]);
}

/* A table cell whose completed runs ran different workloads says so under
 * the table; a failed run of another workload leaves the median alone. */
TEST(crosstab_mixed_workloads_said)
{
	struct run_record v[3];
	struct report_opts o;
	char *out;

	report_opts_default(&o);
	o.rows = "swappiness";
	o.cols = "label";
	for (int i = 0; i < 3; i++) {
		run_record_init(&v[i]);
		v[i].id = i + 1;
		v[i].kind = RUN_QSBENCH;
		v[i].nelems = 1000;
		v[i].procs = 1;
		v[i].swappiness = 60;
		v[i].wall_us = 1000000 + i;
	}
	v[2].nelems = 2000;
	v[2].status = RUN_FAILED;
	out = render(w_table, v, 3, &o);
	CHECK(out && !strstr(out, "mix"));
	free(out);
	v[2].status = RUN_OK;
	out = render(w_table, v, 3, &o);
	for (char *p = out; p && *p; p++)	/* the note is wrapped */
		if (*p == '\n')
			*p = ' ';
	CHECK(out && strstr(out, "Note: 1 of 1 cells mix completed runs of different workloads"));
	CHECK(out && strstr(out, "(qsbench -n 1000 -p 1 -s ") && strstr(out, " and qsbench -n 2000 -p 1 -s "));
	free(out);
	/* commands that differ only past what a note shows of them */
	char cmd[400];
	memset(cmd, 'x', sizeof(cmd) - 2);
	cmd[0] = 's';
	cmd[sizeof(cmd) - 2] = '1';
	cmd[sizeof(cmd) - 1] = '\0';
	for (int i = 0; i < 3; i++) {
		v[i].kind = RUN_COMMAND;
		v[i].nelems = NA;
		v[i].procs = NA;
		v[i].command = strdup(cmd);
	}
	v[1].command[sizeof(cmd) - 2] = '2';
	out = render(w_table, v, 3, &o);
	for (char *p = out; p && *p; p++)
		if (*p == '\n')
			*p = ' ';
	CHECK(out && strstr(out, "Note: 1 of 1 cells mix completed runs of different workloads"));
	CHECK(out && strstr(out, "sxxx") && strstr(out, "xxx... and sxxx"));
	free(out);
	for (int i = 0; i < 3; i++)
		run_record_clear(&v[i]);
}
