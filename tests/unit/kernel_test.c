#include <elf.h>
#include <string.h>

#include "check.h"
#include "initramfs.h"
#include "kernel.h"

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
