/* Runs as PCP archives, read back through libpcp's own archive reader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "check.h"
#include "history_fixture.h"
#include "pcpexport.h"

TEST(pcp_names_unique_and_valid)
{
	char a[64], b[64];

	pcpexport_metric_name(M_SWAP_USED, a, sizeof(a));
	CHECK_STR(a, "thrashtop.swap_used");
	pcpexport_metric_name(M_DR_P99, a, sizeof(a));
	CHECK_STR(a, "thrashtop.direct_p99_ms");
	for (int i = 0; i < M_N; i++) {
		pcpexport_metric_name(i, a, sizeof(a));
		if (strspn(a + 10, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(a + 10))
			t_fail(__FILE__, __LINE__, "%s is no PCP name", a);
		for (int j = 0; j < i; j++) {
			pcpexport_metric_name(j, b, sizeof(b));
			if (!strcmp(a, b))
				t_fail(__FILE__, __LINE__, "%s named twice", a);
		}
	}
}

/* The archive at base opened as libpcp's current context, or -1. */
static int open_archive(const char *base)
{
	int ctx = pmNewContext(PM_CONTEXT_ARCHIVE, base);

	if (ctx < 0)
		t_fail(__FILE__, __LINE__, "%s: %s", base, pmErrStr(ctx));
	return ctx;
}

static pmID lookup(const char *name, pmDesc *d)
{
	pmID id = PM_ID_NULL;

	if (pmLookupName(1, &name, &id) < 0 || pmLookupDesc(id, d) < 0) {
		t_fail(__FILE__, __LINE__, "%s not in the archive", name);
		return PM_ID_NULL;
	}
	return id;
}

/* Value j of pmid in result res as a double; NAN where it has none. */
static double value_of(const pmResult *res, pmID pmid, const pmDesc *d, int j)
{
	pmAtomValue v;

	for (int k = 0; k < res->numpmid; k++)
		if (res->vset[k]->pmid == pmid && res->vset[k]->numval > j &&
		    pmExtractValue(res->vset[k]->valfmt, &res->vset[k]->vlist[j], d->type, &v,
				   PM_TYPE_DOUBLE) >= 0)
			return v.d;
	return NAN;
}

/* Every series as stored, the linux agent's figures in its units, the
 * workers' totals at the last sample, the host, zone and times. */
TEST(pcp_archive_reads_back)
{
	struct run_record r;
	char base[512], name[64];
	pmDesc dseries[M_N], dfree, dmaj, dpsi, dwork;
	pmID pseries[M_N], pfree, pmaj, ppsi, pwork;
	pmLogLabel label;
	pmResult *res;
	int *inst = NULL, n = 0, ninst;
	char **names = NULL;
	double maj = 0;
	char err[256] = "";

	fixture(&r, 1);
	r.id = 7;
	snprintf(base, sizeof(base), "%s/run7", tdir());
	CHECK_INT(pcpexport_run(&r, base, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	int ctx = open_archive(base);
	if (ctx < 0) {
		run_record_clear(&r);
		return;
	}
	CHECK_INT(pmGetArchiveLabel(&label), 0);
	CHECK_STR(label.ll_hostname, "lenstra");
	CHECK_STR(label.ll_tz, "UTC");
	CHECK_INT(label.ll_start.tv_sec, 1735725601);	/* 2025-01-01T10:00:01Z */
	for (int id = 0; id < M_N; id++) {
		pseries[id] = PM_ID_NULL;
		if (!r.series[id])
			continue;
		pcpexport_metric_name(id, name, sizeof(name));
		pseries[id] = lookup(name, &dseries[id]);
		CHECK_INT(dseries[id].type, PM_TYPE_DOUBLE);
		CHECK_INT(dseries[id].sem, PM_SEM_INSTANT);
	}
	CHECK_INT(dseries[M_FREE].units.dimSpace, 1);
	CHECK_INT(dseries[M_FREE].units.scaleSpace, PM_SPACE_KBYTE);
	CHECK_INT(dseries[M_MAJFLT].units.dimTime, -1);
	CHECK_INT(dseries[M_MAJFLT].units.dimCount, 1);
	CHECK_INT(dseries[M_DR_P99].units.scaleTime, PM_TIME_MSEC);
	pfree = lookup("swap.used", &dfree);
	CHECK_INT(pmID_domain(pfree), 60);
	CHECK_INT(dfree.units.scaleSpace, PM_SPACE_BYTE);
	pmaj = lookup("mem.vmstat.pgmajfault", &dmaj);
	CHECK_INT(dmaj.sem, PM_SEM_COUNTER);
	CHECK_INT(dmaj.type, PM_TYPE_U64);
	ppsi = lookup("kernel.all.pressure.memory.some.avg", &dpsi);
	CHECK_INT(dpsi.type, PM_TYPE_FLOAT);
	pwork = lookup("thrashtop.worker.user", &dwork);
	ninst = pmGetInDomArchive(dwork.indom, &inst, &names);
	CHECK_INT(ninst, 2);
	if (ninst == 2) {
		CHECK_STR(names[0], "worker1");
		CHECK_STR(names[1], "worker2");
	}
	free(inst);
	free(names);
	/* the psi-full series was not recorded: nothing in its names */
	const char *full = "kernel.all.pressure.memory.full.avg";
	CHECK(pmLookupName(1, &full, &ppsi) < 0);

	while (pmFetchArchive(&res) >= 0) {
		double t = (double)res->timestamp.tv_sec - 1735725601 + res->timestamp.tv_usec / 1e6;

		CHECK(n < r.nsamples);
		if (n >= r.nsamples) {
			pmFreeResult(res);
			break;
		}
		CHECK_NEAR(t, r.t[n], 1e-6);
		for (int id = 0; id < M_N; id++) {
			double want = r.series[id] ? r.series[id][n] : NAN;
			double got = pseries[id] != PM_ID_NULL ? value_of(res, pseries[id], &dseries[id], 0) : NAN;
			if (isnan(want) != isnan(got) || (!isnan(want) && want != got))
				t_fail(__FILE__, __LINE__, "%s at %d: %g, stored %g",
				       metric_def(id)->name, n, got, want);
		}
		CHECK_NEAR(value_of(res, pfree, &dfree, 0), r.series[M_SWAP_USED][n] * 1024, 0);
		if (n)
			maj += r.series[M_MAJFLT][n] * (r.t[n] - r.t[n - 1]);
		CHECK_NEAR(value_of(res, pmaj, &dmaj, 0), round(maj), 0);
		CHECK(isnan(value_of(res, pwork, &dwork, 0)) == (n < r.nsamples - 1));
		if (n == r.nsamples - 1)
			CHECK_NEAR(value_of(res, pwork, &dwork, 1), r.workers[1].user_us, 0);
		pmFreeResult(res);
		n++;
	}
	CHECK_INT(n, r.nsamples);
	pmDestroyContext(ctx);
	run_record_clear(&r);
}

TEST(pcp_run_refuses_what_is_no_archive)
{
	struct run_record r;
	char base[512], err[256], file[600];

	snprintf(base, sizeof(base), "%s/bad", tdir());
	snprintf(file, sizeof(file), "%s.meta", base);
	fixture(&r, 2);
	r.id = 3;
	r.started_at[0] = '\0';
	CHECK_INT(pcpexport_run(&r, base, err, sizeof(err)), 1);
	CHECK_STR(err, "run 3 has no start time");
	run_record_clear(&r);
	fixture(&r, 2);
	r.t[3] = r.t[2];
	CHECK_INT(pcpexport_run(&r, base, err, sizeof(err)), 1);
	CHECK(strstr(err, "do not rise (sample 4 at 3.000000 s)") != NULL);
	r.nsamples = 0;
	CHECK_INT(pcpexport_run(&r, base, err, sizeof(err)), 1);
	CHECK(strstr(err, "has no recorded series") != NULL);
	CHECK(access(file, F_OK) != 0);
	run_record_clear(&r);
}

static int count_entries(const char *dir, const char *prefix)
{
	char cmd[600], line[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	if (!(p = popen(cmd, "r")))
		return -1;
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	return atoi(line);
}

/* A name taken (a link planted there) refuses the export and leaves the
 * directory and the link's target as they were; a free one takes both
 * runs' archives, named on the output. */
TEST(pcp_export_never_over_a_name)
{
	char db[512], dir[512], victim[512], link[600], err[512], *text = NULL;
	struct run_record r;
	struct history_filter f = { 0 };
	int64_t ids[2] = { 1, 2 };
	size_t left = 9, len = 0;

	tpath(db, sizeof(db), "pcp.db");
	snprintf(dir, sizeof(dir), "%s/pcpdir", tdir());
	snprintf(victim, sizeof(victim), "%s/victim", tdir());
	snprintf(link, sizeof(link), "%s/thrashtop-run-2.meta", dir);
	CHECK(mkdir(dir, 0755) == 0);
	struct history *h = history_open(db, 0, err, sizeof(err));
	CHECK(h != NULL);
	for (int i = 0; h && i < 2; i++) {
		fixture(&r, 10 + i);
		CHECK(history_add(h, &r, err, sizeof(err)) == 0);
		run_record_clear(&r);
	}
	if (h)
		history_close(h);
	FILE *v = fopen(victim, "w");
	if (v) {
		fputs("kept\n", v);
		fclose(v);
	}
	CHECK(symlink(victim, link) == 0);
	FILE *out = open_memstream(&text, &len);
	CHECK_INT(pcpexport_history(db, &f, ids, 2, dir, out, &left, err, sizeof(err)), 1);
	CHECK(strstr(err, "thrashtop-run-2.meta: an archive of run 2 is there already") != NULL);
	CHECK_INT(count_entries(dir, ""), 1);
	CHECK_INT(count_entries(tdir(), "victim"), 1);
	CHECK_INT(pcpexport_history(db, &f, ids, 1, dir, out, &left, err, sizeof(err)), 0);
	CHECK_INT(count_entries(dir, "thrashtop-run-1\\."), 3);
	CHECK_INT(pcpexport_history(db, &f, ids, 1, dir, out, &left, err, sizeof(err)), 1);
	unlink(link);
	CHECK_INT(pcpexport_history(db, &f, NULL, 0, dir, out, &left, err, sizeof(err)), 1);
	unlink(link);
	for (const char *s = ".0"; s; s = !strcmp(s, ".0") ? ".meta" : !strcmp(s, ".meta") ? ".index" : NULL) {
		char p[600];
		snprintf(p, sizeof(p), "%s/thrashtop-run-1%s", dir, s);
		unlink(p);
	}
	CHECK_INT(pcpexport_history(db, &f, NULL, 0, dir, out, &left, err, sizeof(err)), 0);
	CHECK_INT(left, 0);
	CHECK_INT(count_entries(dir, "thrashtop-run-"), 6);
	CHECK_INT(count_entries(dir, "\\."), 0);
	ids[0] = 5;
	CHECK_INT(pcpexport_history(db, &f, ids, 1, dir, out, &left, err, sizeof(err)), 1);
	CHECK(strstr(err, "no run 5 in") != NULL);
	CHECK_INT(pcpexport_history(db, &f, ids, 1, victim, out, &left, err, sizeof(err)), 1);
	CHECK(strstr(err, "victim: not a directory") != NULL);
	fclose(out);
	char want[1700];
	snprintf(want, sizeof(want), "%s/thrashtop-run-1\n%s/thrashtop-run-2\n%s/thrashtop-run-1\n",
		 dir, dir, dir);
	CHECK_STR(text, want);
	free(text);
	FILE *k = fopen(victim, "r");
	char line[16] = "";
	CHECK(k && fgets(line, sizeof(line), k));
	CHECK_STR(line, "kept\n");
	if (k)
		fclose(k);
}
