#include <stdlib.h>

#include "cast.h"
#include "check.h"
#include "confdiff.h"
#include "fmt.h"

static const char *esc(const char *s, size_t n)
{
	static char buf[256];

	cast_escape(buf, s, n);
	return buf;
}

TEST(cast_escape_controls_quotes_utf8)
{
	CHECK_STR(esc("\x1b[1;2H\"a\\b\"\r\n", 13), "\\u001b[1;2H\\\"a\\\\b\\\"\\u000d\\u000a");
	CHECK_STR(esc("\x7f\x0f", 2), "\\u007f\\u000f");
	/* braille and an ellipsis kept as they are */
	CHECK_STR(esc("\xe2\xa3\xbf\xe2\x80\xa6", 6), "\xe2\xa3\xbf\xe2\x80\xa6");
	/* a cut sequence, a lone continuation byte, an overlong form, a
	 * surrogate: each bad byte one U+FFFD */
	CHECK_STR(esc("a\xe2\xa3", 3), "a\\ufffd\\ufffd");
	CHECK_STR(esc("\x80z", 2), "\\ufffdz");
	CHECK_STR(esc("\xc0\xaf", 2), "\\ufffd\\ufffd");
	CHECK_STR(esc("\xed\xa0\x80", 3), "\\ufffd\\ufffd\\ufffd");
	CHECK_STR(esc("\xf0\x9f\x98\x80", 4), "\xf0\x9f\x98\x80");
	CHECK_STR(esc("\0x", 2), "\\u0000x");
}

static void record(struct run_record *r, const char *config, const char *cmdline, const char *swaps)
{
	run_record_init(r);
	r->config = strdup(config);
	r->proc_cmdline = strdup(cmdline);
	r->swap_devices = strdup(swaps);
}

TEST(conf_diff_names_keys_and_values)
{
	struct run_record a, b;
	struct conf_diff d[8];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	record(&a, "label=x\nkernel=6.1\nkernel_version=#1\nswappiness=60\nmem_limit_kib=n/a\n"
		   "zswap=0\n", "root=/dev/vda\n",
	       "Filename Type Size Used Priority\n/dev/vdb partition 1024 0 -2\n");
	record(&b, "label=x\nkernel=6.1\nkernel_version=#1\nswappiness=100\nmem_limit_kib=524288\n"
		   "zswap=1\nsysctl=vm.page-cluster=0\n", "root=/dev/vda\n",
	       "Filename Type Size Used Priority\n/tmp/s file 1024 0 -2\n");
	CHECK_INT(conf_diff(&a, &b, d, 8), 5);
	CHECK_STR(d[0].key, "vm.swappiness");
	CHECK_STR(d[0].from, "60");
	CHECK_STR(d[0].to, "100");
	CHECK_STR(d[1].key, "mem limit");
	CHECK_STR(d[1].from, "none");
	CHECK_STR(d[1].to, "512M");
	CHECK_STR(d[2].key, "zswap");
	CHECK_STR(d[2].to, "on");
	CHECK_STR(d[3].key, "swap areas");
	CHECK_STR(d[3].from, "partition");
	CHECK_STR(d[3].to, "file");
	CHECK_STR(d[4].key, "vm.page-cluster");
	CHECK_STR(d[4].from, "-");
	CHECK_STR(d[4].to, "0");
	CHECK_INT(conf_diff(&a, &a, d, 8), 0);
	/* more than fit: the count, the first ones */
	CHECK_INT(conf_diff(&a, &b, d, 1), 5);
	f = open_memstream(&text, &len);
	conf_diff_text(f, "", d, 1);
	conf_diff_text(f, "", d, 0);
	fclose(f);
	CHECK_STR(text, "vm.swappiness  60 -> 100\nsame configuration\n");
	free(text);
	run_record_clear(&a);
	run_record_clear(&b);
}

/* Long values are compared to their end: kernel command lines that
 * differ past 255 bytes differ, and show from a little before where. */
TEST(conf_diff_long_values_to_their_end)
{
	char cmd[2][400], label[2][700] = { "", "" };
	struct run_record a, b;
	struct conf_diff d[8];

	for (int k = 0; k < 2; k++) {
		int o = snprintf(cmd[k], sizeof(cmd[k]), "BOOT_IMAGE=/vmlinuz");
		for (int i = 0; i < 30; i++)
			o += snprintf(cmd[k] + o, sizeof(cmd[k]) - (size_t)o, " opt%02d=%d", i, 1000 + i);
		snprintf(cmd[k] + o, sizeof(cmd[k]) - (size_t)o, " quiet mem=%s\n", k ? "40M" : "256M");
	}
	record(&a, "label=x\nkernel_version=#1\n", cmd[0], "");
	record(&b, "label=x\nkernel_version=#1\n", cmd[1], "");
	CHECK(strlen(cmd[0]) > 300);
	CHECK_INT(conf_diff(&a, &b, d, 8), 1);
	CHECK_STR(d[0].key, "cmdline");
	CHECK_STR(d[0].from, "...opt29=1029 quiet mem=256M");
	CHECK_STR(d[0].to, "...opt29=1029 quiet mem=40M");
	run_record_clear(&a);
	run_record_clear(&b);
	/* labels of 200 wide characters, the last one differing */
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 199; i++)
			strcat(label[k], "\xe6\x97\xa5");
		strcat(label[k], k ? "\xe6\x9c\xac" : "\xe6\x97\xa5");
	}
	char config[2][800];
	for (int k = 0; k < 2; k++)
		snprintf(config[k], sizeof(config[k]), "label=%s\n", label[k]);
	record(&a, config[0], "x\n", "");
	record(&b, config[1], "x\n", "");
	CHECK_INT(conf_diff(&a, &b, d, 8), 1);
	CHECK(fmt_text_clean(d[0].from) && fmt_text_clean(d[0].to));
	CHECK(!strncmp(d[0].from, "...", 3) && strstr(d[0].to, "\xe6\x9c\xac"));
	CHECK_INT(fmt_text_cols(d[0].to), 3 + 2 * 8 + 2);	/* the context: 24 bytes */
	run_record_clear(&a);
	run_record_clear(&b);
}

/* Records' own configurations: no limit is "none" as show prints it, not
 * the config's "n/a" (mem limit 96M -> n/a); an empty label is "-" as
 * show and list print it, not nothing (label  -> rtest); an unknown RAM
 * stays n/a. */
TEST(conf_diff_no_limit_and_empty_label)
{
	struct run_record a, b;
	struct conf_diff d[8];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	run_record_init(&a);
	run_record_init(&b);
	a.mem_limit_kib = 98304;
	a.ram_kib = 24683568;
	snprintf(b.label, sizeof(b.label), "rtest");
	CHECK_INT(run_record_config(&a), 0);
	CHECK_INT(run_record_config(&b), 0);
	CHECK_INT(conf_diff(&a, &b, d, 8), 3);
	CHECK_STR(d[0].key, "label");
	CHECK_STR(d[0].from, "-");
	CHECK_STR(d[0].to, "rtest");
	CHECK_STR(d[1].key, "ram");
	CHECK_STR(d[1].from, "24G");
	CHECK_STR(d[1].to, "n/a");
	CHECK_STR(d[2].key, "mem limit");
	CHECK_STR(d[2].from, "96M");
	CHECK_STR(d[2].to, "none");
	f = open_memstream(&text, &len);
	conf_diff_text(f, "", d, 3);
	fclose(f);
	CHECK_STR(text, "label      - -> rtest\nram        24G -> n/a\nmem limit  96M -> none\n");
	free(text);
	run_record_clear(&a);
	run_record_clear(&b);
}
