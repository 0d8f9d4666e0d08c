#include "kernel.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "sysio.h"
#include "undo.h"

/* The modules the guest's init needs, whichever the kernel has as modules.
 * Required ones the kernel must have one way or the other; the others
 * (split out, merged or absent in some versions) are loaded when there. */
static const struct {
	const char *name;
	bool required;
} wanted[] = {
	{ "virtio_ring", true }, { "virtio", true }, { "virtio_pci_modern_dev", false },
	{ "virtio_pci_legacy_dev", false }, { "virtio_pci", true }, { "netfs", false },
	{ "fscache", false }, { "9pnet", true }, { "9pnet_virtio", true }, { "9p", true },
	{ "virtio_console", true }, { "virtio_blk", false }, { "lzo", false },
	{ "lzo_rle", false }, { "lz4", false }, { "zstd", false }, { "zsmalloc", false },
	{ "zram", false },
};

#define UNPACK_PREFIX ".unpack-"
#define SOURCE_FILE "thrashtop-source"

static void modname(const char *file, char *name, size_t len)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strcspn(base, ".");
	if (n >= len)
		n = len - 1;
	for (size_t i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
}

char *kernel_cache_dir(char *buf, size_t len, char *err, size_t errlen)
{
	if (geteuid() == 0) {
		snprintf(buf, len, "/var/cache/thrashtop/kernels");
		return buf;
	}
	if (!sysio_xdg_path("XDG_CACHE_HOME", ".cache", "kernels", buf, len)) {
		snprintf(err, errlen, "no kernel cache: neither $XDG_CACHE_HOME nor $HOME is set");
		return NULL;
	}
	return buf;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int rm_tree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Whether name is an unpack directory whose process is gone. */
static bool stale(const char *name)
{
	unsigned long long start, now;
	int pid, end = 0;

	if (sscanf(name, UNPACK_PREFIX "%d-%llu-%*6[a-zA-Z0-9]%n", &pid, &start, &end) != 2 ||
	    name[end] || pid <= 0)
		return false;
	return undo_proc_start(pid, &now, NULL) < 0 || now != start;
}

int kernel_sweep(void)
{
	char dir[PATH_MAX], e[128], path[PATH_MAX + 256];
	struct dirent *d;
	struct stat sb;
	DIR *dp;
	int n = 0;

	if (!kernel_cache_dir(dir, sizeof(dir), e, sizeof(e)) || !(dp = opendir(dir)))
		return 0;
	while ((d = readdir(dp)))
		if (stale(d->d_name) && fstatat(dirfd(dp), d->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(sb.st_mode) && sb.st_uid == geteuid()) {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			n += rm_tree(path) == 0;
		}
	closedir(dp);
	return n;
}

/* A private directory in the cache to unpack into, renamed into place
 * whole; its name carries its owner so a later run sweeps it. */
static int unpack_dir(char *dir, size_t dlen, char *tmp, size_t tlen, char *err, size_t errlen)
{
	unsigned long long start;
	struct sysio_made made;
	char probe[PATH_MAX + 8];

	if (!kernel_cache_dir(dir, dlen, err, errlen))
		return -1;
	snprintf(probe, sizeof(probe), "%s/x", dir);
	if ((sysio_make_parents(probe, 0755, &made) < 0 && errno != EEXIST) ||
	    undo_proc_start(getpid(), &start, NULL) < 0) {
		snprintf(err, errlen, "cannot make the kernel cache %s: %s", dir, strerror(errno));
		return -1;
	}
	kernel_sweep();
	snprintf(tmp, tlen, "%s/" UNPACK_PREFIX "%d-%llu-XXXXXX", dir, (int)getpid(), start);
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot make a directory in %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* data.tar.* of a .deb, read through the outer ar archive. */
static la_ssize_t inner_read(struct archive *a, void *outer, const void **buf)
{
	static char block[1 << 16];
	la_ssize_t n = archive_read_data(outer, block, sizeof(block));

	(void)a;
	*buf = block;
	return n;
}

static bool kept(const char *p)
{
	return !strncmp(p, "boot/vmlinuz-", 13) || !strncmp(p, "boot/config-", 12) ||
	       !strncmp(p, "lib/modules/", 12) || !strncmp(p, "usr/lib/modules/", 16);
}

/* Unpacks a data.tar's boot/ and lib/modules/ under dir. */
static int extract_data(struct archive *outer, const char *dir, char *err, size_t errlen)
{
	struct archive *in = archive_read_new(), *out = archive_write_disk_new();
	struct archive_entry *e;
	char path[PATH_MAX * 2], name[PATH_MAX];
	int r, rc = -1;

	archive_read_support_format_tar(in);
	archive_read_support_filter_all(in);
	/* the paths are made absolute below, from relative ones kept() took */
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	if (archive_read_open(in, outer, NULL, inner_read, NULL) != ARCHIVE_OK)
		goto out;
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *p = archive_entry_pathname(e), *hl = archive_entry_hardlink(e);

		p += strncmp(p, "./", 2) ? 0 : 2;
		if (!kept(p))
			continue;
		snprintf(name, sizeof(name), "%s", p);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		archive_entry_set_pathname(e, path);
		if (hl) {
			hl += strncmp(hl, "./", 2) ? 0 : 2;
			snprintf(path, sizeof(path), "%s/%s", dir, hl);
			archive_entry_set_hardlink(e, path);
		}
		if (archive_read_extract2(in, e, out) != ARCHIVE_OK) {
			snprintf(err, errlen, "cannot unpack %.200s: %s", name, archive_error_string(out));
			goto done;
		}
	}
	if (r == ARCHIVE_EOF)
		rc = 0;
out:
	if (rc)
		snprintf(err, errlen, "bad data archive: %s", archive_error_string(in));
done:
	archive_read_free(in);
	archive_write_free(out);
	return rc;
}

static int unpack_deb(const char *deb, const char *dir, char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char why[512];
	int r, rc = -1;

	archive_read_support_format_ar(a);
	if (archive_read_open_filename(a, deb, 1 << 16) != ARCHIVE_OK) {
		snprintf(err, errlen, "cannot read %s: %s", deb, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK)
		if (!strncmp(archive_entry_pathname(e), "data.tar", 8)) {
			if ((rc = extract_data(a, dir, why, sizeof(why))))
				snprintf(err, errlen, "%s: %s", deb, why);
			goto out;
		}
	snprintf(err, errlen, "%s is not a Debian package: %s", deb,
		 r == ARCHIVE_EOF ? "no data.tar in it" : archive_error_string(a));
out:
	archive_read_free(a);
	return rc;
}

/* The one boot/vmlinuz-VER of an unpacked package: its VER. */
static int unpacked_version(const char *dir, char *ver, size_t len)
{
	char boot[PATH_MAX + 8];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(boot, sizeof(boot), "%s/boot", dir);
	if (!(dp = opendir(boot)))
		return 0;
	while ((d = readdir(dp)))
		if (!strncmp(d->d_name, "vmlinuz-", 8) && n++ == 0)
			snprintf(ver, len, "%s", d->d_name + 8);
	closedir(dp);
	return n;
}

/* Unpacks deb into the cache, naming it by source; its version to ver. */
static int cache_deb(const char *deb, const char *source, const char *tmp, const char *dir,
		     char *ver, size_t vlen, char *err, size_t errlen)
{
	char path[PATH_MAX * 2];
	FILE *f;
	int n;

	if (unpack_deb(deb, tmp, err, errlen))
		return -1;
	if ((n = unpacked_version(tmp, ver, vlen)) != 1) {
		snprintf(err, errlen, "%s holds %s kernel image (boot/vmlinuz-*)", deb,
			 n ? "more than one" : "no");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/" SOURCE_FILE, tmp);
	if (!(f = fopen(path, "wx")) || fprintf(f, "%s\n", source) < 0 || fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, ver);
	if (rename(tmp, path) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
		snprintf(err, errlen, "cannot move the kernel into %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Runs argv in dir with its output into out (a file): the exit status,
 * or -1. */
static int run_in(const char *dir, char *const argv[], const char *out)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || chdir(dir) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The last line of a file, for an error. */
static void last_line(const char *path, char *line, size_t len)
{
	size_t n;
	char *text = sysio_read_alloc(path, 1 << 20, &n), *p;

	line[0] = '\0';
	if (!text)
		return;
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	p = strrchr(text, '\n');
	snprintf(line, len, "%s", p ? p + 1 : text);
	free(text);
}

/* Whether a version or package name matches what the user asked for:
 * a glob over either, else the version itself or one that goes on from it
 * at a '.', '-' or '+' (6.1 is 6.1.0-57-amd64, not 6.12.x). */
static bool matches(const char *pat, const char *ver)
{
	char pkg[256];
	size_t n = strlen(pat);

	snprintf(pkg, sizeof(pkg), "linux-image-%s", ver);
	if (strpbrk(pat, "*?["))
		return !fnmatch(pat, ver, 0) || !fnmatch(pat, pkg, 0);
	if (!strcmp(pat, pkg))
		return true;
	return !strncmp(pat, ver, n) && (!ver[n] || strchr(".-+", ver[n]));
}

/* The version a kernel package installs: linux-image-VER[-unsigned] with
 * VER of the form X.Y.Z... -amd64 and no other flavour. */
static bool image_package(const char *name, char *ver, size_t len, bool *unsigned_)
{
	size_t n;
	const char *v;

	if (strncmp(name, "linux-image-", 12))
		return false;
	v = name + 12;
	n = strlen(v);
	*unsigned_ = n > 9 && !strcmp(v + n - 9, "-unsigned");
	if (*unsigned_)
		n -= 9;
	if (n < 7 || strncmp(v + n - 6, "-amd64", 6) || strstr(v, "-cloud-") || strstr(v, "-rt-") ||
	    n >= len)
		return false;
	memcpy(ver, v, n);
	ver[n] = '\0';
	/* the meta packages (linux-image-6.12-amd64) have one dot */
	return strchr(ver, '.') && strchr(strchr(ver, '.') + 1, '.');
}

/* Picks the newest kernel package matching pattern from apt-cache's list
 * (signed over unsigned of the same version). */
static int newest_package(const char *pattern, const char *tmp, char *pkg, size_t plen, char *ver,
			  size_t vlen, char *err, size_t errlen)
{
	char out[PATH_MAX * 2], line[512], v[256];
	char *argv[] = { "apt-cache", "search", "--names-only", "^linux-image-", NULL };
	bool uns, best_uns = false;
	FILE *f;
	int rc;

	snprintf(out, sizeof(out), "%s/apt-cache.out", tmp);
	if ((rc = run_in(tmp, argv, out)) != 0) {
		last_line(out, line, sizeof(line));
		snprintf(err, errlen, "apt-cache search failed (%d)%s%s", rc, *line ? ": " : "", line);
		return -1;
	}
	if (!(f = fopen(out, "r")))
		return -1;
	ver[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \n")] = '\0';
		if (!image_package(line, v, sizeof(v), &uns) || !matches(pattern, v))
			continue;
		rc = *ver ? strverscmp(v, ver) : 1;
		if (rc > 0 || (rc == 0 && best_uns && !uns)) {
			snprintf(ver, vlen, "%s", v);
			snprintf(pkg, plen, "%s", line);
			best_uns = uns;
		}
	}
	fclose(f);
	unlink(out);
	if (!*ver) {
		snprintf(err, errlen, "no Debian kernel package matches %s (apt-cache search "
			 "--names-only '^linux-image-'; apt-get update?)", pattern);
		return -1;
	}
	return 0;
}

static bool cached(const char *dir, const char *ver)
{
	char path[PATH_MAX * 2];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s/" SOURCE_FILE, dir, ver);
	return stat(path, &sb) == 0;
}

/* Downloads pkg into tmp and unpacks it. */
static int download(const char *pkg, const char *tmp, const char *dir, char *ver, size_t vlen,
		    char *err, size_t errlen)
{
	char out[PATH_MAX * 2], line[512], deb[PATH_MAX * 2] = "", src[600];
	char *argv[] = { "apt-get", "download", "-q", (char *)pkg, NULL };
	struct dirent *d;
	DIR *dp;
	int rc;

	snprintf(out, sizeof(out), "%s/apt-get.out", tmp);
	if ((rc = run_in(tmp, argv, out)) != 0) {
		last_line(out, line, sizeof(line));
		snprintf(err, errlen, "apt-get download %s failed (%d)%s%s", pkg, rc, *line ? ": " : "",
			 line);
		return -1;
	}
	unlink(out);
	if ((dp = opendir(tmp))) {
		while ((d = readdir(dp)))
			if (strstr(d->d_name, ".deb"))
				snprintf(deb, sizeof(deb), "%s/%s", tmp, d->d_name);
		closedir(dp);
	}
	if (!*deb) {
		snprintf(err, errlen, "apt-get download %s left no .deb", pkg);
		return -1;
	}
	snprintf(src, sizeof(src), "apt %s", pkg);
	rc = cache_deb(deb, src, tmp, dir, ver, vlen, err, errlen);
	unlink(deb);
	return rc;
}

int kernel_fetch(const char *pattern, char *version, size_t vlen, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64], pkg[512];
	int rc = -1;

	if (unpack_dir(dir, sizeof(dir), tmp, sizeof(tmp), err, errlen))
		return -1;
	if (newest_package(pattern, tmp, pkg, sizeof(pkg), version, vlen, err, errlen) == 0)
		rc = cached(dir, version) ? 1 : download(pkg, tmp, dir, version, vlen, err, errlen);
	rm_tree(tmp);
	return rc;
}

static uint64_t tree_bytes;

static int add_size(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F)
		tree_bytes += (uint64_t)sb->st_blocks * 512;
	return 0;
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(((const struct kernel_entry *)b)->version,
			  ((const struct kernel_entry *)a)->version);
}

int kernel_cached(struct kernel_entry **list, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct kernel_entry *l = NULL, *nl;
	struct dirent *d;
	int n = 0;
	DIR *dp;

	*list = NULL;
	if (!kernel_cache_dir(dir, sizeof(dir), err, errlen))
		return -1;
	if (!(dp = opendir(dir)))
		return errno == ENOENT ? 0 : -1;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || !cached(dir, d->d_name))
			continue;
		if (!(nl = realloc(l, (size_t)(n + 1) * sizeof(*l)))) {
			snprintf(err, errlen, "out of memory");
			free(l);
			closedir(dp);
			return -1;
		}
		l = nl;
		snprintf(l[n].version, sizeof(l[n].version), "%s", d->d_name);
		snprintf(path, sizeof(path), "%s/%s/" SOURCE_FILE, dir, d->d_name);
		if (sysio_read(path, l[n].source, sizeof(l[n].source)) < 0)
			l[n].source[0] = '\0';
		l[n].source[strcspn(l[n].source, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		tree_bytes = 0;
		nftw(path, add_size, 16, FTW_PHYS);
		l[n++].bytes = tree_bytes;
	}
	closedir(dp);
	if (n)
		qsort(l, (size_t)n, sizeof(*l), by_version);
	*list = l;
	return n;
}

static unsigned char *unxz(const unsigned char *in, size_t inlen, size_t *len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = inlen * 4 + 4096;
	unsigned char *out = malloc(cap), *grown;
	lzma_ret r = LZMA_OK;

	if (!out || lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) {
		free(out);
		return NULL;
	}
	s.next_in = in;
	s.avail_in = inlen;
	while (r == LZMA_OK) {
		if (s.total_out == cap) {
			if (!(grown = realloc(out, cap * 2)))
				break;
			out = grown;
			cap *= 2;
		}
		s.next_out = out + s.total_out;
		s.avail_out = cap - s.total_out;
		r = lzma_code(&s, LZMA_FINISH);
	}
	*len = s.total_out;
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

/* A zstd frame, as `zstd` writes a module (its size in the header or not). */
static unsigned char *unzst(const unsigned char *in, size_t inlen, size_t *len)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	ZSTD_outBuffer ob = { NULL, inlen * 4 + 4096, 0 };
	size_t r = 1;
	void *grown;

	if (!ds || !(ob.dst = malloc(ob.size)))
		goto fail;
	while (r) {
		if (ob.pos == ob.size) {
			if (!(grown = realloc(ob.dst, ob.size * 2)))
				goto fail;
			ob.dst = grown;
			ob.size *= 2;
		}
		r = ZSTD_decompressStream(ds, &ob, &ib);
		/* an error, or input that ends inside the frame */
		if (ZSTD_isError(r) || (r && ib.pos == ib.size && ob.pos < ob.size))
			goto fail;
	}
	ZSTD_freeDStream(ds);
	*len = ob.pos;
	return ob.dst;
fail:
	ZSTD_freeDStream(ds);
	free(ob.dst);
	return NULL;
}

static bool ends(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

unsigned char *kernel_module_read(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t n;
	unsigned char *raw = (unsigned char *)sysio_read_alloc(path, 256u << 20, &n), *out;

	if (!raw) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (ends(path, ".ko")) {
		*len = n;
		return raw;
	}
	out = ends(path, ".ko.zst") ? unzst(raw, n, len) : unxz(raw, n, len);
	free(raw);
	if (!out)
		snprintf(err, errlen, "%s: not a valid %s file", path, ends(path, ".ko.zst") ? "zstd" :
			 "xz");
	return out;
}

int kernel_modinfo(const unsigned char *ko, size_t len, const char *key, char *val, size_t vlen)
{
	size_t klen = strlen(key);
	Elf64_Shdr strs, sh;
	Elf64_Ehdr eh;

	/* copied out: a malformed file's headers need not be aligned */
	if (len < sizeof(eh) || memcmp(ko, ELFMAG, SELFMAG) || ko[EI_CLASS] != ELFCLASS64)
		return -1;
	memcpy(&eh, ko, sizeof(eh));
	if (eh.e_shoff > len || eh.e_shentsize != sizeof(sh) ||
	    (len - eh.e_shoff) / sizeof(sh) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
		return -1;
	memcpy(&strs, ko + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(sh));
	if (strs.sh_offset > len || strs.sh_size > len - strs.sh_offset)
		return -1;
	for (int i = 0; i < eh.e_shnum; i++) {
		const char *names = (const char *)ko + strs.sh_offset, *p, *end;

		memcpy(&sh, ko + eh.e_shoff + (size_t)i * sizeof(sh), sizeof(sh));
		if (sh.sh_name >= strs.sh_size || strs.sh_size - sh.sh_name < 9 ||
		    memcmp(names + sh.sh_name, ".modinfo", 9) || sh.sh_offset > len ||
		    sh.sh_size > len - sh.sh_offset)
			continue;
		p = (const char *)ko + sh.sh_offset;
		end = p + sh.sh_size;
		for (; p < end; p += strnlen(p, (size_t)(end - p)) + 1)
			if ((size_t)(end - p) > klen && !strncmp(p, key, klen) && p[klen] == '=') {
				size_t n = strnlen(p + klen + 1, (size_t)(end - p) - klen - 1);

				snprintf(val, vlen, "%.*s", (int)n, p + klen + 1);
				return 1;
			}
		return 0;
	}
	return 0;
}

/* The modules of a tree by name, what modules.builtin lists, and what
 * modules.order does: a .ko it does not list is an earlier build's. */
struct modset {
	struct kernel_mod *all;
	int n, cap;
	char *builtin, *order;	/* those files' names as "\nname\nname\n"; NULL: none */
	char missing[256];
};

static struct modset *walk_set;

static int index_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	struct modset *m = walk_set;

	(void)sb;
	if (type == FTW_D && !strcmp(path + ftw->base, ".git"))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F || !(ends(path, ".ko") || ends(path, ".ko.xz") || ends(path, ".ko.zst")))
		return FTW_CONTINUE;
	if (m->n == m->cap) {
		struct kernel_mod *g = realloc(m->all, (size_t)(m->cap ? m->cap * 2 : 256) * sizeof(*g));

		if (!g)
			return FTW_STOP;
		m->all = g;
		m->cap = m->cap ? m->cap * 2 : 256;
	}
	modname(path, m->all[m->n].name, sizeof(m->all[m->n].name));
	snprintf(m->all[m->n].path, sizeof(m->all[m->n].path), "%s", path);
	m->n++;
	return FTW_CONTINUE;
}

static bool listed(const char *names, const char *name)
{
	char key[80];

	snprintf(key, sizeof(key), "\n%s\n", name);
	return names && strstr(names, key) != NULL;
}

static const struct kernel_mod *find_mod(const struct modset *m, const char *name)
{
	if (m->order && !listed(m->order, name))
		return NULL;
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->all[i].name, name))
			return &m->all[i];
	return NULL;
}

/* A file of module paths (modules.builtin, modules.order) as
 * "\nname\nname\n"; NULL when there is none. */
static char *load_names(const char *moddir, const char *file)
{
	char path[PATH_MAX + 32], name[64], *names, *text;
	size_t n, at = 1;

	snprintf(path, sizeof(path), "%s/%s", moddir, file);
	if (!(text = sysio_read_alloc(path, 4u << 20, &n)))
		return NULL;
	if ((names = malloc(n + 2))) {
		names[0] = '\n';
		for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
			modname(l, name, sizeof(name));
			at += (size_t)sprintf(names + at, "%s\n", name);
		}
		names[at] = '\0';
	}
	free(text);
	return names;
}

static void add_missing(struct modset *m, const char *name)
{
	size_t n = strlen(m->missing);

	snprintf(m->missing + n, sizeof(m->missing) - n, "%s%s", n ? " " : "", name);
}

static bool loaded(const struct kernel *k, const char *name)
{
	for (int i = 0; i < k->nmods; i++)
		if (!strcmp(k->mods[i].name, name))
			return true;
	return false;
}

/* Adds name after its dependencies; depth bounds a cycle. */
static int add_mod(struct kernel *k, struct modset *m, const char *name, bool required, int depth,
		   char *err, size_t errlen)
{
	const struct kernel_mod *mod;
	char deps[1024], dep[64];
	unsigned char *ko;
	size_t len;

	if (loaded(k, name) || listed(m->builtin, name))
		return 0;
	if (!(mod = find_mod(m, name))) {
		if (required && m->builtin)
			add_missing(m, name);
		return 0;
	}
	if (depth > 16 || k->nmods == KERNEL_MODS_MAX) {
		snprintf(err, errlen, "%s: module dependencies too deep or too many", mod->path);
		return -1;
	}
	if (!(ko = kernel_module_read(mod->path, &len, err, errlen)))
		return -1;
	if (kernel_modinfo(ko, len, "depends", deps, sizeof(deps)) < 0) {
		snprintf(err, errlen, "%s is not an ELF64 kernel module", mod->path);
		free(ko);
		return -1;
	}
	free(ko);
	for (char *d = deps, *c; *d; d = c + !!*c) {
		c = d + strcspn(d, ",");
		snprintf(dep, sizeof(dep), "%.*s", (int)(c - d), d);
		modname(dep, dep, sizeof(dep));
		if (*dep && add_mod(k, m, dep, true, depth + 1, err, errlen))
			return -1;
	}
	if (!loaded(k, name))
		k->mods[k->nmods++] = *mod;
	return 0;
}

/* The modules the guest needs from k->moddir, in load order. */
static int resolve_mods(struct kernel *k, unsigned flags, char *err, size_t errlen)
{
	struct modset m = { 0 };
	int rc = 0;

	k->nmods = 0;
	if (!*k->moddir)
		return 0;
	walk_set = &m;
	if (nftw(k->moddir, index_one, 16, FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
		snprintf(err, errlen, "cannot read the modules in %s: %s", k->moddir, strerror(errno));
		free(m.all);
		return -1;
	}
	m.builtin = load_names(k->moddir, "modules.builtin");
	m.order = load_names(k->moddir, "modules.order");
	for (size_t i = 0; !rc && i < sizeof(wanted) / sizeof(wanted[0]); i++)
		rc = add_mod(k, &m, wanted[i].name, wanted[i].required ||
			     ((flags & KERNEL_SWAP_DISK) && !strcmp(wanted[i].name, "virtio_blk")), 0,
			     err, errlen);
	if (!rc && *m.missing) {
		snprintf(err, errlen, "kernel %s has neither built in nor as modules in %s: %s%s",
			 k->version, k->moddir, m.missing, strstr(m.missing, "virtio_blk") ?
			 " (the swap disk a swap file in the guest needs)" : "");
		rc = -1;
	}
	free(m.all);
	free(m.builtin);
	free(m.order);
	return rc;
}

/* The version in a bzImage's header (its kernel_version string). */
static int image_version(const char *image, char *ver, size_t len)
{
	unsigned char hdr[0x210];
	char text[256];
	int fd = open(image, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	unsigned off;

	if (fd < 0)
		return -1;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		close(fd);
		return -1;
	}
	off = (unsigned)hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	n = off ? pread(fd, text, sizeof(text) - 1, (off_t)off + 0x200) : -1;
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	text[strcspn(text, " ")] = '\0';
	snprintf(ver, len, "%s", text);
	return *ver ? 0 : -1;
}

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* k from the cache entry ver. */
static int from_cache(const char *dir, const char *ver, struct kernel *k)
{
	char src[PATH_MAX * 2];

	snprintf(k->version, sizeof(k->version), "%s", ver);
	snprintf(k->image, sizeof(k->image), "%s/%s/boot/vmlinuz-%s", dir, ver, ver);
	snprintf(k->moddir, sizeof(k->moddir), "%s/%s/lib/modules/%s", dir, ver, ver);
	if (!is_dir(k->moddir))
		snprintf(k->moddir, sizeof(k->moddir), "%s/%s/usr/lib/modules/%s", dir, ver, ver);
	snprintf(src, sizeof(src), "%s/%s/" SOURCE_FILE, dir, ver);
	if (sysio_read(src, k->source, sizeof(k->source)) < 0)
		snprintf(k->source, sizeof(k->source), "cache");
	k->source[strcspn(k->source, "\n")] = '\0';
	return is_file(k->image) ? 0 : -1;
}

/* The newest cached kernel matching pattern, into k: 0, or -1. */
static int cached_match(const char *pattern, struct kernel *k)
{
	struct kernel_entry *l;
	char dir[PATH_MAX], e[256];
	int n = kernel_cached(&l, e, sizeof(e)), rc = -1;

	for (int i = 0; i < n && rc; i++)
		if (matches(pattern, l[i].version) && kernel_cache_dir(dir, sizeof(dir), e, sizeof(e)))
			rc = from_cache(dir, l[i].version, k);
	free(l);
	return rc;
}

static int from_deb(const char *deb, struct kernel *k, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64], ver[256], src[PATH_MAX + 8], abs[PATH_MAX];
	int rc;

	if (!realpath(deb, abs)) {
		snprintf(err, errlen, "%s: %s", deb, strerror(errno));
		return -1;
	}
	if (unpack_dir(dir, sizeof(dir), tmp, sizeof(tmp), err, errlen))
		return -1;
	snprintf(src, sizeof(src), "deb %s", abs);
	rc = cache_deb(abs, src, tmp, dir, ver, sizeof(ver), err, errlen);
	rm_tree(tmp);
	if (rc == 0 && from_cache(dir, ver, k)) {
		snprintf(err, errlen, "%s: no kernel image after unpacking", deb);
		return -1;
	}
	return rc;
}

/* An image file: its version from the name (vmlinuz-VER) or its header,
 * its modules in /lib/modules/VER when there. */
static int from_image(const char *image, struct kernel *k, char *err, size_t errlen)
{
	const char *base = strrchr(image, '/');

	base = base ? base + 1 : image;
	if (!strncmp(base, "vmlinuz-", 8))
		snprintf(k->version, sizeof(k->version), "%s", base + 8);
	else if (image_version(image, k->version, sizeof(k->version))) {
		snprintf(err, errlen, "%s is not a bootable x86 kernel image (no bzImage header)",
			 image);
		return -1;
	}
	snprintf(k->image, sizeof(k->image), "%s", image);
	snprintf(k->moddir, sizeof(k->moddir), "/lib/modules/%s", k->version);
	if (!is_dir(k->moddir))
		k->moddir[0] = '\0';
	snprintf(k->source, sizeof(k->source), "installed %s", image);
	return 0;
}

static int from_tree(const char *tree, struct kernel *k, char *err, size_t errlen)
{
	snprintf(k->image, sizeof(k->image), "%s/arch/x86/boot/bzImage", tree);
	if (image_version(k->image, k->version, sizeof(k->version))) {
		snprintf(err, errlen, "%s is not a bootable x86 kernel image", k->image);
		return -1;
	}
	snprintf(k->moddir, sizeof(k->moddir), "%s", tree);
	snprintf(k->source, sizeof(k->source), "tree %s", tree);
	return 0;
}

int kernel_resolve(const char *arg, unsigned flags, struct kernel *k, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], ver[256];
	int rc;

	memset(k, 0, sizeof(*k));
	snprintf(path, sizeof(path), "%s/arch/x86/boot/bzImage", arg);
	if (is_dir(arg) && is_file(path))
		rc = from_tree(arg, k, err, errlen);
	else if (is_dir(arg)) {
		snprintf(err, errlen, "%s is a directory but no kernel build tree (no "
			 "arch/x86/boot/bzImage)", arg);
		return -1;
	} else if (ends(arg, ".deb") && is_file(arg))
		rc = from_deb(arg, k, err, errlen);
	else if (strchr(arg, '/') || is_file(arg)) {
		if (!is_file(arg)) {
			snprintf(err, errlen, "%s: %s", arg, strerror(ENOENT));
			return -1;
		}
		rc = from_image(arg, k, err, errlen);
	} else if (snprintf(path, sizeof(path), "/boot/vmlinuz-%s", arg), is_file(path))
		rc = from_image(path, k, err, errlen);
	else if (cached_match(arg, k) == 0)
		rc = 0;
	else if (flags & KERNEL_NO_FETCH) {
		snprintf(err, errlen, "no kernel %s installed or cached (thrashtop kernel fetch %s)",
			 arg, arg);
		return -1;
	} else if ((rc = kernel_fetch(arg, ver, sizeof(ver), err, errlen)) >= 0) {
		char dir[PATH_MAX];

		rc = kernel_cache_dir(dir, sizeof(dir), err, errlen) ? from_cache(dir, ver, k) : -1;
	}
	return rc ? -1 : resolve_mods(k, flags, err, errlen);
}
