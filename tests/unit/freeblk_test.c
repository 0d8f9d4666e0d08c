#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "freeblk.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Every distinct free block in seed 000, as the archive flattened them. */
static const char *const seed_free[] = {
	"total used free shared buffers cached Mem: 255984 16760 239224 0 1092 8008 -/+ buffers/cache: 7660 248324 Swap: 195512 0 195512",
	"total used free shared buffers cached Mem: 255984 6008 249976 0 100 1096 -/+ buffers/cache: 4812 251172 Swap: 195512 5080 190432",
	"total used free shared buffers cached Mem: 255984 13488 242496 0 532 5360 -/+ buffers/cache: 7596 248388 Swap: 390592 0 390592",
	"total used free shared buffers cached Mem: 255984 6596 249388 0 108 1116 -/+ buffers/cache: 5372 250612 Swap: 390592 5576 385016",
	"total used free shared buffers cached Mem: 255984 8808 247176 0 108 1152 -/+ buffers/cache: 7548 248436 Swap: 390592 7948 382644",
	"total used free shared buffers cached Mem: 256000 16772 239228 0 1104 8008 -/+ buffers/cache: 7660 248340 Swap: 195512 0 195512",
	"total used free shared buffers cached Mem: 256000 5132 250868 0 116 1144 -/+ buffers/cache: 3872 252128 Swap: 195512 3748 191764",
	"total used free shared buffers cached Mem: 256000 13096 242904 0 504 4904 -/+ buffers/cache: 7688 248312 Swap: 390592 0 390592",
	"total used free shared buffers cached Mem: 256000 4980 251020 0 108 1132 -/+ buffers/cache: 3740 252260 Swap: 390592 3840 386752",
	"total used free shared buffers cached Mem: 256000 5044 250956 0 108 1112 -/+ buffers/cache: 3824 252176 Swap: 390592 3896 386696",
};

/* Text with every run of blanks made one space, for comparing layouts. */
static void squash(const char *in, char *out, size_t len)
{
	size_t n = 0;
	bool gap = false;

	for (; *in && n + 2 < len; in++) {
		if (*in == ' ' || *in == '\t' || *in == '\n') {
			gap = n > 0;
			continue;
		}
		if (gap)
			out[n++] = ' ';
		gap = false;
		out[n++] = *in;
	}
	out[n] = '\0';
}

TEST(freeblk_seed_roundtrip)
{
	char buf[512], flat[512];

	for (size_t i = 0; i < N(seed_free); i++) {
		struct free_parsed f;
		int n = freeblk_parse(seed_free[i], &f);

		CHECK_INT(n, strlen(seed_free[i]));
		CHECK_INT(f.layout, FREE_OLD);
		CHECK(!f.human);
		CHECK_INT(f.available, -1);
		CHECK_INT(f.buff_cache, f.buffers + f.cached);
		freeblk_print(buf, sizeof(buf), &f);
		squash(buf, flat, sizeof(flat));
		CHECK_STR(flat, seed_free[i]);
	}
}

TEST(freeblk_old_layout)
{
	/* procps 2.0 columns, as posted to lkml in Dec 2002 */
	static const char *const in =
		"             total       used       free     shared    buffers     cached\n"
		"Mem:        191096     159340      31756          0      10568      94100\n"
		"-/+ buffers/cache:      54672     136424\n"
		"Swap:       289160          0     289160";
	const char *text = "lenstra:~/src/qsort> free total used free shared buffers cached "
			   "Mem: 255984 16760 239224 0 1092 8008 -/+ buffers/cache: 7660 248324 "
			   "Swap: 195512 0 195512 lenstra:~/src/qsort> time ./qsbench";
	struct free_parsed f;
	char buf[512];
	int n;

	CHECK_INT(freeblk_parse(in, &f), strlen(in));
	CHECK_INT(f.total, 191096);
	CHECK_INT(f.bc_used, 54672);
	CHECK_INT(f.swap_free, 289160);
	freeblk_print(buf, sizeof(buf), &f);
	CHECK_STR(buf, in);

	n = freeblk_parse(text, &f);
	CHECK(n > 0);
	CHECK_STR(text + n, " lenstra:~/src/qsort> time ./qsbench");
	CHECK_INT(f.used, 16760);
	CHECK_INT(f.cached, 8008);
	CHECK_INT(f.bc_free, 248324);
}

TEST(freeblk_procps_ng)
{
	/* free, free -w and free -t from procps-ng 4.0.2, byte for byte */
	static const char *const ng =
		"               total        used        free      shared  buff/cache   available\n"
		"Mem:        24683620      391024    24204396        8952      309192    24292596\n"
		"Swap:              0           0           0";
	static const char *const wide =
		"               total        used        free      shared     buffers       cache   available\n"
		"Mem:        24683620      391024    24204396        8952        5344      303848    24292596\n"
		"Swap:              0           0           0";
	static const char *const tot =
		"               total        used        free      shared  buff/cache   available\n"
		"Mem:        24683620      391296    24204124        8952      309192    24292324\n"
		"Swap:              0           0           0\n"
		"Total:      24683620      391296    24204124";
	struct free_parsed f;
	char buf[512];

	CHECK_INT(freeblk_parse(ng, &f), strlen(ng));
	CHECK_INT(f.layout, FREE_NG);
	CHECK_INT(f.available, 24292596);
	CHECK_INT(f.buffers, -1);
	CHECK_INT(f.bc_used, -1);
	freeblk_print(buf, sizeof(buf), &f);
	CHECK_STR(buf, ng);

	CHECK_INT(freeblk_parse(wide, &f), strlen(wide));
	CHECK_INT(f.layout, FREE_NG_WIDE);
	CHECK_INT(f.buffers, 5344);
	CHECK_INT(f.buff_cache, 309192);
	freeblk_print(buf, sizeof(buf), &f);
	CHECK_STR(buf, wide);

	CHECK_INT(freeblk_parse(tot, &f), strlen(tot));
	CHECK(f.has_total_line);
	freeblk_print(buf, sizeof(buf), &f);
	CHECK_STR(buf, tot);
}

TEST(freeblk_human)
{
	static const char *const h =
		"               total        used        free      shared  buff/cache   available\n"
		"Mem:            23Gi       381Mi        23Gi       8.7Mi       301Mi        23Gi\n"
		"Swap:             0B          0B          0B";
	struct free_parsed f;

	CHECK_INT(freeblk_parse(h, &f), strlen(h));
	CHECK(f.human);
	CHECK_INT(f.total, 23 * 1024 * 1024);
	CHECK_INT(f.used, 381 * 1024);
	CHECK_INT(f.shared, 8909);	/* 8.7 * 1024 = 8908.8 */
	CHECK_INT(f.swap_total, 0);
}

TEST(freeblk_rejects)
{
	struct free_parsed f;

	/* used does not equal total - free */
	CHECK_INT(freeblk_parse("total used free shared buffers cached Mem: 255984 16761 239224 0 1092 8008 "
			       "-/+ buffers/cache: 7660 248324 Swap: 195512 0 195512", &f), -1);
	/* -/+ line that does not add up */
	CHECK_INT(freeblk_parse("total used free shared buffers cached Mem: 255984 16760 239224 0 1092 8008 "
			       "-/+ buffers/cache: 7661 248324 Swap: 195512 0 195512", &f), -1);
	/* swap used + free != total */
	CHECK_INT(freeblk_parse("total used free shared buffers cached Mem: 255984 16760 239224 0 1092 8008 "
			       "Swap: 195512 1 195512", &f), -1);
	CHECK_INT(freeblk_parse("total used free shared buffers cached Mem: 255984 16760 239224 0 1092 8008", &f), -1);
	CHECK_INT(freeblk_parse("total used free shared buffers cached Mem: 255984 16760 239224 0 1092 x8008 "
			       "Swap: 195512 0 195512", &f), -1);
	CHECK_INT(freeblk_parse("no free output here", &f), -1);
	CHECK_INT(errno, EINVAL);
}

TEST(freeblk_rows_and_a_block_from_its_header)
{
	static const char *const text =
		"free before:\n"
		"             total       used       free     shared    buffers     cached\n"
		"Mem:        255984      16760     239224          0       1092       8008\n"
		"Swap:       195512          0     195512\n"
		"next line";
	const char *hdr = strstr(text, "total");
	struct free_parsed f;

	CHECK(freeblk_row_at("Mem:        255984"));
	CHECK(freeblk_row_at("-/+ buffers/cache:"));
	CHECK(freeblk_row_at("Swap:"));
	CHECK(freeblk_row_at("Total: 1 2 3"));
	CHECK(!freeblk_row_at("Memory: 1"));
	CHECK(!freeblk_row_at("total"));
	CHECK_INT(freeblk_parse_at(text, hdr, &f), strstr(text, "\nnext") - text);
	CHECK_INT(f.swap_total, 195512);
	CHECK_INT(freeblk_parse_at(text, text, &f), -1);
}
