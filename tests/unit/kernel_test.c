#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "initramfs.h"
#include "kernel.h"
#include "sysio.h"

/* An ELF64 file with a .shstrtab and a .modinfo section holding info. */
static size_t fake_ko(unsigned char *b, size_t cap, const char *info, size_t ilen)
{
	static const char names[] = "\0.shstrtab\0.modinfo";
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Shdr *sh;
	size_t at = sizeof(*eh);

	memset(b, 0, cap);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	memcpy(b + at, names, sizeof(names));
	memcpy(b + at + sizeof(names), info, ilen);
	eh->e_shoff = (at + sizeof(names) + ilen + 7) & ~(size_t)7;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 3;
	eh->e_shstrndx = 1;
	sh = (Elf64_Shdr *)(b + eh->e_shoff);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_offset = at, .sh_size = sizeof(names) };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_offset = at + sizeof(names), .sh_size = ilen };
	return eh->e_shoff + 3 * sizeof(*sh);
}

/* depends= is read from .modinfo alone; empty, absent and junk apart. */
TEST(kernel_modinfo_reads_depends)
{
	static const char info[] = "license=GPL\0depends=lz4hc_compress,lz4_compress\0"
				   "vermagic=6.12.118+deb12-amd64 SMP";
	unsigned char b[1024];
	char v[128];
	size_t n = fake_ko(b, sizeof(b), info, sizeof(info));

	CHECK_INT(kernel_modinfo(b, n, "depends", v, sizeof(v)), 1);
	CHECK_STR(v, "lz4hc_compress,lz4_compress");
	CHECK_INT(kernel_modinfo(b, n, "vermagic", v, sizeof(v)), 1);
	CHECK_STR(v, "6.12.118+deb12-amd64 SMP");
	CHECK_INT(kernel_modinfo(b, n, "alias", v, sizeof(v)), 0);
	n = fake_ko(b, sizeof(b), "depends=\0", 10);
	CHECK_INT(kernel_modinfo(b, n, "depends", v, sizeof(v)), 1);
	CHECK_STR(v, "");
	CHECK_INT(kernel_modinfo(b, 40, "depends", v, sizeof(v)), -1);
	CHECK_INT(kernel_modinfo((const unsigned char *)"not an elf at all, no", 21, "depends", v,
				 sizeof(v)), -1);
}

/* The init loads the modules in order and runs the command quoted, one
 * under a directory the guest covers through the host's root. */
TEST(initramfs_script_loads_in_order_and_quotes)
{
	static struct kernel k = { .nmods = 2, .mods = { { .name = "virtio_ring" },
							 { .name = "zram" } } };
	char *argv[] = { "/root/bin/thrashtop", "it's", "--fd", "3", NULL };
	char buf[8192];
	const char *a, *b;

	CHECK(initramfs_script(&k, argv, buf, sizeof(buf)) > 0);
	a = strstr(buf, "insmod /lib/modules/virtio_ring.ko");
	b = strstr(buf, "insmod /lib/modules/zram.ko");
	CHECK(a && b && a < b);
	CHECK(strstr(buf, "chroot /newroot '/run/host/root/bin/thrashtop' 'it'\\''s' '--fd' '3'"
		      " 3<>\"$port\"\n") != NULL);
	CHECK(strstr(buf, "poweroff -f\n") != NULL);
	CHECK_INT(initramfs_script(&k, argv, buf, 100), -1);
}

/* Runs sh -c cmd; its exit status. */
static int sh(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	int rc = f && fwrite(data, 1, len, f) == len ? 0 : -1;

	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* A module compressed by zstd, with the size in its frame and without
 * (from a pipe), reads back byte for byte; a cut one is refused. */
TEST(kernel_module_read_zstd)
{
	static const char info[] = "license=GPL\0depends=virtio,virtio_ring\0";
	char dir[] = "/tmp/thrashtop-zst-XXXXXX", cmd[512], ko[64], err[256], v[64];
	size_t n, len = 1 << 20, got;
	unsigned char *b = calloc(1, len), *back;

	if (system("command -v zstd >/dev/null") != 0) {
		printf("  (skipped: no zstd command: apt-get install zstd)\n");
		free(b);
		return;
	}
	CHECK(b && mkdtemp(dir));
	n = fake_ko(b, 4096, info, sizeof(info));
	for (size_t i = n; i < len; i++)	/* a body that compresses well: the buffer grows */
		b[i] = (unsigned char)(i / 4096);
	snprintf(ko, sizeof(ko), "%s/m.ko", dir);
	CHECK_INT(write_file(ko, b, len), 0);
	snprintf(cmd, sizeof(cmd), "cd %s && zstd -q m.ko -o sized.ko.zst && zstd -q -c <m.ko "
		 ">piped.ko.zst && head -c 100 sized.ko.zst >cut.ko.zst", dir);
	CHECK_INT(sh(cmd), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(ko, sizeof(ko), "%s/%s.ko.zst", dir, i ? "piped" : "sized");
		back = kernel_module_read(ko, &got, err, sizeof(err));
		CHECK(back != NULL);
		if (!back) {
			printf("  %s\n", err);
			continue;
		}
		printf("  %s: %zu bytes back\n", ko, got);
		CHECK_INT(got, len);
		CHECK(got == len && !memcmp(back, b, len));
		CHECK_INT(kernel_modinfo(back, got, "depends", v, sizeof(v)), 1);
		CHECK_STR(v, "virtio,virtio_ring");
		free(back);
	}
	snprintf(ko, sizeof(ko), "%s/cut.ko.zst", dir);
	CHECK(kernel_module_read(ko, &got, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "cut.ko.zst: not a valid zstd file") != NULL);
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	sh(cmd);
	free(b);
}

/* path's parent directories made. */
static int parents(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A tree's bzImage (a link to image) and what modules.builtin says. */
static int tree_base(const char *tree, const char *image, const void *builtin, size_t blen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/arch/x86/boot/bzImage", tree);
	if (parents(path) || symlink(image, path))
		return -1;
	snprintf(path, sizeof(path), "%s/modules.builtin", tree);
	return write_file(path, builtin, blen);
}

/* The names of k's modules, in load order, space-separated. */
static void mod_names(const struct kernel *k, const char *without, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < k->nmods; i++)
		if (!without || strcmp(k->mods[i].name, without))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "",
					       k->mods[i].name);
}

/* Every module's depends= names one loaded before it or built in. */
static int deps_first(const struct kernel *k, const char *builtin)
{
	char deps[512], err[256], key[80];
	unsigned char *ko;
	size_t len;

	for (int i = 0; i < k->nmods; i++) {
		if (!(ko = kernel_module_read(k->mods[i].path, &len, err, sizeof(err))))
			return -1;
		kernel_modinfo(ko, len, "depends", deps, sizeof(deps));
		free(ko);
		for (char *d = strtok(deps, ","); d; d = strtok(NULL, ",")) {
			int j = 0;

			while (j < i && strcmp(k->mods[j].name, d))
				j++;
			snprintf(key, sizeof(key), "/%s.ko", d);
			if (j == i && !strstr(builtin, key))
				return printf("  %s before its dependency %s\n", k->mods[i].name, d), -1;
		}
	}
	return 0;
}

/* A build tree as make leaves it, from a cached Debian kernel's files:
 * bzImage, the modules the guest needs as plain .ko at their paths,
 * modules.order (listed backwards: the load order comes from depends=)
 * and modules.builtin. */
static int make_tree(const char *tree, const struct kernel *pk, const char *builtin,
		     size_t blen, const char *skip)
{
	char path[PATH_MAX * 2], err[256], *order = NULL;
	size_t olen = 0, len;
	FILE *of = open_memstream(&order, &olen);
	unsigned char *ko;
	int rc = tree_base(tree, pk->image, builtin, blen);

	for (int i = pk->nmods - 1; !rc && i >= 0; i--) {
		const char *rel = pk->mods[i].path + strlen(pk->moddir) + strlen("/kernel/");

		snprintf(path, sizeof(path), "%s/%.*s", tree, (int)(strstr(rel, ".ko") + 3 - rel), rel);
		if (parents(path) || !(ko = kernel_module_read(pk->mods[i].path, &len, err, sizeof(err))))
			return -1;
		rc = write_file(path, ko, len);
		free(ko);
		if (!skip || strcmp(pk->mods[i].name, skip))
			fprintf(of, "%.*s\n", (int)(strstr(rel, ".ko") + 3 - rel), rel);
	}
	fclose(of);
	snprintf(path, sizeof(path), "%s/modules.order", tree);
	rc = rc || write_file(path, order, olen);
	free(order);
	return rc;
}

/* A tree with everything the guest needs built in: no module at all; one
 * without 9p, said. */
static void tree_built_in(const struct kernel *pk)
{
	static const char *const need[] = { "virtio_ring", "virtio", "virtio_pci", "9pnet",
					    "9pnet_virtio", "virtio_console", "9p" };
	char tree[] = "/tmp/thrashtop-tree-XXXXXX", err[512], path[PATH_MAX], *list = NULL;
	size_t llen = 0;
	FILE *f = open_memstream(&list, &llen);
	struct kernel tk;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		fprintf(f, "kernel/drivers/virtio/%s.ko\n", need[i]);
	fclose(f);
	CHECK(mkdtemp(tree) != NULL);
	CHECK_INT(tree_base(tree, pk->image, list, llen), 0);
	snprintf(path, sizeof(path), "%s/modules.order", tree);
	CHECK_INT(write_file(path, "", 0), 0);
	CHECK_INT(kernel_resolve(tree, 0, &tk, err, sizeof(err)), 0);
	CHECK_INT(tk.nmods, 0);
	CHECK_STR(tk.version, pk->version);
	/* 9p, the last line, left out */
	snprintf(path, sizeof(path), "%s/modules.builtin", tree);
	CHECK_INT(write_file(path, list, llen - strlen("kernel/drivers/virtio/9p.ko\n")), 0);
	CHECK_INT(kernel_resolve(tree, 0, &tk, err, sizeof(err)), -1);
	printf("  %s\n", err);
	CHECK(strstr(err, "has neither built in nor as modules in ") && strstr(err, ": 9p"));
	rm_tree(tree);
	free(list);
}

static void tree_of(const char *version, bool built_in)
{
	char tree[] = "/tmp/thrashtop-tree-XXXXXX", err[512], want[1024], got[1024];
	char path[PATH_MAX * 2], *builtin;
	struct kernel pk, tk;
	size_t blen;

	if (kernel_resolve(version, KERNEL_NO_FETCH, &pk, err, sizeof(err))) {
		printf("  %s: %s\n", version, err);
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/modules.builtin", pk.moddir);
	builtin = sysio_read_alloc(path, 4u << 20, &blen);
	CHECK(builtin != NULL);
	CHECK(builtin && mkdtemp(tree) != NULL);
	if (!builtin)
		return;
	CHECK_INT(make_tree(tree, &pk, builtin, blen, NULL), 0);
	CHECK_INT(kernel_resolve(tree, 0, &tk, err, sizeof(err)), 0);
	CHECK_STR(tk.version, pk.version);
	mod_names(&pk, NULL, want, sizeof(want));
	mod_names(&tk, NULL, got, sizeof(got));
	printf("  %s as a tree: %s\n", version, got);
	CHECK_STR(got, want);
	CHECK(tk.nmods > 0 && !strncmp(tk.mods[0].path, tree, strlen(tree)));
	CHECK_INT(deps_first(&tk, builtin), 0);
	/* a virtio_blk.ko an earlier build left: not loaded, and missed
	 * where a swap disk needs it */
	rm_tree(tree);
	CHECK(mkdir(tree, 0700) == 0);
	CHECK_INT(make_tree(tree, &pk, builtin, blen, "virtio_blk"), 0);
	CHECK_INT(kernel_resolve(tree, 0, &tk, err, sizeof(err)), 0);
	mod_names(&pk, "virtio_blk", want, sizeof(want));
	mod_names(&tk, NULL, got, sizeof(got));
	CHECK_STR(got, want);
	CHECK_INT(kernel_resolve(tree, KERNEL_SWAP_DISK, &tk, err, sizeof(err)), -1);
	printf("  %s\n", err);
	CHECK(strstr(err, ": virtio_blk (the swap disk a swap file in the guest needs)") != NULL);
	rm_tree(tree);
	free(builtin);
	if (built_in)
		tree_built_in(&pk);
}

/* Kernel build trees made of each cached Debian kernel: the same modules
 * in the same order as its package, one an earlier build left passed
 * over; and one with all built in. */
TEST(kernel_build_tree)
{
	struct kernel_entry *l;
	char err[256];
	int n = kernel_cached(&l, err, sizeof(err));

	if (n <= 0) {
		printf("  (skipped: no kernel cached: make guest-kernels)\n");
		free(l);
		return;
	}
	for (int i = 0; i < n && i < 2; i++)
		tree_of(l[i].version, i == 0);
	free(l);
}
