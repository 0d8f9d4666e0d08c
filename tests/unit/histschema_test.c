/* The history's schema: files as each older release wrote them migrated
 * to each later version, their rows kept, and the v3 series converted. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "history.h"
#include "history_fixture.h"

/* v1 and v2 files as older releases wrote them migrate, each step alone and
 * all at once, keeping their rows. */
TEST(histschema_migrations_from_every_version)
{
	char path[256], err[256];
	struct run_record r, got;

	for (int from = 1; from < HISTORY_SCHEMA_VERSION; from++) {
		for (int to = from + 1; to <= HISTORY_SCHEMA_VERSION; to++) {
			tpath(path, sizeof(path), "mig.db");
			struct history *h = history_open_version(path, 0, from, err, sizeof(err));
			CHECK(h);
			if (!h)
				return;
			CHECK_INT(history_schema_version(h), from);
			fixture(&r, 1);
			snprintf(r.session, sizeof(r.session), "s");
			r.victims = calloc(1, sizeof(*r.victims));
			r.victims[0] = (struct run_victim){ .pid = 4000, .comm = "qsbench" };
			r.nvictims = 1;
			r.oom_unnamed = 2;
			CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
			history_close(h);
			CHECK_INT(raw_int(path, "PRAGMA user_version"), from);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM pragma_table_info('runs')"
					  " WHERE name = 'session'"), from >= 2);

			h = history_open_version(path, 0, to, err, sizeof(err));
			CHECK(h);
			if (!h)
				return;
			CHECK_INT(history_schema_version(h), to);
			CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
			/* The session column arrived in v2, samples and the
			 * start's pools and sysctls in v4. */
			CHECK_STR(got.session, from >= 2 ? "s" : "");
			r.session[0] = 0;
			got.session[0] = 0;
			/* delay accounting: v6 */
			if (from < 6) {
				CHECK(!delays_known(&got.stalls));
				CHECK(!delays_known(&got.workers[0].delays));
				delays_clear(&r.stalls);
			}
			/* the OOM victims: v11; none known before, not none */
			if (from < 11) {
				CHECK_INT(got.nvictims, 0);
				CHECK_INT(got.oom_unnamed, NA);
				free(r.victims);
				r.victims = NULL;
				r.nvictims = 0;
				r.oom_unnamed = NA;
			}
			/* the command's own figures: v14 */
			if (from < 14) {
				CHECK_INT(got.nmetrics, 0);
				free(r.metrics);
				r.metrics = NULL;
				r.nmetrics = 0;
			}
			/* the largest worker's max RSS: v10 */
			if (from < 10) {
				CHECK_INT(got.maxrss_kib, NA);
				r.maxrss_kib = NA;
			}
			/* whether the cgroup was new: v5 */
			if (from < 5) {
				CHECK_INT(got.cgroup_new, NA);
				r.cgroup_new = NA;
			}
			if (from < 4) {
				CHECK_INT(got.nsamples, 0);
				CHECK_INT(got.hugetlb_kib, NA);
				run_record_alloc_series(&r, 0);
				r.hugetlb_kib = r.mlocked_kib = NA;
				free(r.sysctls);
				r.sysctls = NULL;
			}
			check_same(&r, &got);
			run_record_clear(&got);
			run_record_clear(&r);
			/* Runs added after the migration land beside the old one,
			 * with their own figures from v14 on. */
			fixture(&r, 2);
			CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
			CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
			CHECK_INT(got.nmetrics, to >= 14 ? 2 : 0);
			if (got.nmetrics == 2)
				CHECK(got.metrics[0].value == 7.05841 + 2 && isnan(got.metrics[1].value) &&
				      got.metrics[0].higher && !got.metrics[1].higher);
			run_record_clear(&got);
			run_record_clear(&r);
			history_close(h);
			CHECK_INT(raw_int(path, "PRAGMA user_version"), to);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM runs"), 2);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE"
					  " name = 'runs_session'"), to >= 2);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE"
					  " name IN ('runs_label', 'runs_config')"), to >= 3 ? 2 : 0);
			/* v9 kept the last id by a trigger, v12 by the writer */
			CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE"
					  " type = 'trigger'"), to >= 9 && to <= 11);
			CHECK_INT(raw_int(path, "PRAGMA integrity_check") == -1, 0);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE"
					  " name = 'victims'"), to >= 11);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE"
					  " name = 'run_metrics'"), to >= 14);
			CHECK_INT(raw_int(path, "SELECT count(*) FROM pragma_table_info('run_metrics')"
					  " WHERE name IN ('value', 'higher')"), to >= 14 ? 2 : 0);
			rm_db(path);
		}
	}
}

/* A v3 file's 300-point float series, as the release before wrote them,
 * become samples of the registry's series when it is opened, and the old
 * table goes. */
TEST(histschema_v3_series_convert)
{
	char path[256], err[256], sql[512];
	struct run_record r, got;
	static const char *const old[] = { "t", "swap_used_kib", "mem_free_kib", "mem_avail_kib",
					   "majflt_per_s", "minflt_per_s", "kswapd_pct" };
	const int ids[] = { -1, M_SWAP_USED, M_FREE, M_AVAIL, M_MAJFLT, M_MINFLT, M_KSWAPD_CPU };

	tpath(path, sizeof(path), "v3.db");
	struct history *h = history_open_version(path, 0, 3, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	fixture(&r, 3);
	CHECK_INT(history_add(h, &r, err, sizeof(err)), 0);
	history_close(h);
	/* float32 little-endian, 4 points: 2k + series index */
	for (int s = 0; s < 7; s++) {
		char hex[64] = "";
		for (int k = 0; k < 4; k++) {
			float f = (float)(2 * k + s);
			uint32_t u;
			memcpy(&u, &f, 4);
			snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%02x%02x%02x%02x",
				 u & 0xff, (u >> 8) & 0xff, (u >> 16) & 0xff, u >> 24);
		}
		if (s == 6)	/* kswapd not visible: a NAN point */
			memcpy(hex + 8, "0000c07f", 8);
		snprintf(sql, sizeof(sql), "INSERT INTO series VALUES(%lld, '%s', x'%s')",
			 (long long)r.id, old[s], hex);
		CHECK_INT(raw_exec(path, sql), 0);
	}
	CHECK_INT(raw_int(path, "SELECT count(*) FROM series"), 7);

	h = history_open(path, 0, err, sizeof(err));
	CHECK(h);
	if (!h)
		return;
	CHECK_INT(history_schema_version(h), HISTORY_SCHEMA_VERSION);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'series'"), 0);
	CHECK_INT(raw_int(path, "SELECT count(*) FROM samples"), 7);
	CHECK_INT(history_get(h, r.id, &got, err, sizeof(err)), 0);
	CHECK_INT(got.nsamples, 4);
	for (int s = 0; s < 7 && got.nsamples == 4; s++) {
		const double *v = s ? got.series[ids[s]] : got.t;
		CHECK(v != NULL);
		for (int k = 0; v && k < 4; k++) {
			if (s == 6 && k == 1)
				CHECK(isnan(v[k]));
			else
				CHECK_NEAR(v[k], 2 * k + s, 1e-9);
		}
	}
	CHECK(got.series[M_PSI_SOME] == NULL);
	run_record_clear(&got);
	run_record_clear(&r);
	history_close(h);
	rm_db(path);
}
