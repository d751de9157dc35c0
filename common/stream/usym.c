// SPDX-License-Identifier: GPL-2.0-only
#include "stream/usym.h"
#include "base/testhooks.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *usym_ld_cache = "/etc/ld.so.cache";

/* A file root may trust to say what to probe: root's, written by nobody else, not a link. */
static bool trusted_fd(int fd, mode_t type)
{
	struct stat st;
	return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == type && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* The architecture this program was built for, from its own ELF header. */
static uint16_t usym_native_machine(void)
{
	static uint16_t machine;
	unsigned char h[20];
	int fd = machine ? -1 : open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h))
			memcpy(&machine, h + 18, sizeof(machine));
		close(fd);
	}
	return machine;
}

/* Is path an ELF file of this machine's class and architecture (the loader's cache lists
 * every multiarch library; a uprobe on another's would never fire here)? */
static bool native_elf(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return false;
	uint16_t machine;
	memcpy(&machine, h + 18, sizeof(machine));
	return h[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
	       machine == usym_native_machine();
}

/*
 * The loader's cache, read here (glibc's "glibc-ld.so.cache1.1" format, alone or after the
 * old "ld.so-1.7.0" table): never `ldconfig -p`, which a shell would look for in PATH and
 * run as root. Entries: flags, name and path offsets (from the new header), OS version,
 * hwcaps; 24 bytes each. The cache must be root's and not a link (usym.h).
 */
static int from_ld_cache(const char *want, char *path, size_t len)
{
	static const char old_magic[] = "ld.so-1.7.0", new_magic[] = "glibc-ld.so.cache1.1";
	int fd = open(usym_ld_cache, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0)
		return -1;
	if (!trusted_fd(fd, S_IFREG) || fstat(fd, &st) || st.st_size < 48 ||
	    st.st_size > (64 << 20)) {
		close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size, got = 0;
	char *buf = malloc(size + 1);
	ssize_t n = 1;
	while (buf && got < size && (n = read(fd, buf + got, size - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (!buf || got != size) {
		free(buf);
		return -1;
	}
	buf[size] = 0; /* every string ends inside the buffer */
	size_t base = 0;
	if (!memcmp(buf, old_magic, sizeof(old_magic) - 1)) {
		/* magic[11], nlibs (at 12 after padding), then 12-byte entries; the new header
		 * follows, 8-byte aligned. */
		uint32_t nold;
		memcpy(&nold, buf + 12, sizeof(nold));
		base = 16 + (size_t)nold * 12;
		base = (base + 7) & ~(size_t)7;
	}
	int found = -1;
	size_t wl = strlen(want);
	if (base <= size - 48 && !memcmp(buf + base, new_magic, sizeof(new_magic) - 1)) {
		uint32_t nlibs;
		memcpy(&nlibs, buf + base + 20, sizeof(nlibs));
		for (size_t i = 0; found && i < nlibs; i++) {
			size_t e = base + 48 + i * 24;
			if (e > size - 24)
				break;
			uint32_t key, value;
			memcpy(&key, buf + e + 4, sizeof(key));
			memcpy(&value, buf + e + 8, sizeof(value));
			if (key >= size - base || value >= size - base)
				continue;
			const char *name = buf + base + key, *file = buf + base + value;
			if (strncmp(name, want, wl) || (name[wl] && name[wl] != '.') ||
			    file[0] != '/' || !native_elf(file))
				continue;
			snprintf(path, len, "%s", file);
			found = 0;
		}
	}
	free(buf);
	return found;
}

/* A folder of PATH that root may take a program's name from: absolute, root's, written by
 * nobody else. A user's PATH (sudo -E) cannot point a probe at a file of theirs. */
static bool trusted_dir(const char *dir)
{
	if (dir[0] != '/')
		return false;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok = fd >= 0 && trusted_fd(fd, S_IFDIR);
	if (fd >= 0)
		close(fd);
	return ok;
}

int usym_target(const char *target, char *path, size_t len)
{
	char buf[PATH_MAX];
	if (!*target)
		return -1;
	if (strchr(target, '/'))
		return realpath(target, buf) && is_file(buf) ? snprintf(path, len, "%s", buf),
		       0 : -1;
	/* a program in PATH */
	const char *env = getenv("PATH");
	char *dirs = strdup(env ? env : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	char *save = NULL;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", d, target);
		if (trusted_dir(d) && is_file(buf) && access(buf, X_OK) == 0) {
			free(dirs);
			char real[PATH_MAX];
			return realpath(buf, real) ? snprintf(path, len, "%s", real), 0 : -1;
		}
	}
	free(dirs);
	/* a library: "libc" means libc.so*, "c" too */
	char want[256];
	snprintf(want, sizeof(want), "%s%s", strncmp(target, "lib", 3) ? "lib" : "", target);
	if (from_ld_cache(want, buf, sizeof(buf)) == 0 && is_file(buf))
		return realpath(buf, path) ? 0 : -1;
	static const char *const libdirs[] = {"/lib/x86_64-linux-gnu",
					      "/usr/lib/x86_64-linux-gnu",
					      "/lib64",
					      "/usr/lib64",
					      "/lib",
					      "/usr/lib"};
	static const char *const suffixes[] = {".so.6", ".so.3", ".so.1", ".so.0", ".so"};
	for (size_t i = 0; i < sizeof(libdirs) / sizeof(*libdirs); i++)
		for (size_t j = 0; j < sizeof(suffixes) / sizeof(*suffixes); j++) {
			snprintf(buf, sizeof(buf), "%s/%s%s", libdirs[i], want,
				 strstr(want, ".so") ? "" : suffixes[j]);
			if (is_file(buf))
				return realpath(buf, path) ? 0 : -1;
		}
	return -1;
}

typedef int (*sym_fn)(const char *name, GElf_Sym *sym, void *ctx);

/* Call fn for every defined symbol of .symtab and .dynsym; stops when fn returns non-zero. */
static int each_symbol(Elf *elf, sym_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; data && i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name && fn(name, &sym, ctx))
				return 1;
		}
	}
	return 0;
}

/* The ELF file open at fd (closed when it is not one), or NULL. */
static Elf *elf_of_fd(int fd)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	return elf;
}

Elf *usym_elf_open(const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? NULL : elf_of_fd(*fd);
}

int usym_elf_offset(Elf *elf, unsigned long long vaddr, bool exec, unsigned long long *off)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz) {
			if (exec != !!(ph.p_flags & PF_X))
				return -2;
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

struct find {
	char base[256];
	bool any_type;
	GElf_Sym sym;
	bool found, wrong_type;
};

static int find_sym(const char *name, GElf_Sym *sym, void *ctx)
{
	struct find *f = ctx;
	size_t bl = strlen(f->base);
	/* open matches "open" and "open@@GLIBC_2.2.5" */
	if (strncmp(name, f->base, bl) || (name[bl] && name[bl] != '@'))
		return 0;
	int type = GELF_ST_TYPE(sym->st_info);
	if (!f->any_type && type != STT_FUNC && type != STT_GNU_IFUNC) {
		f->wrong_type = true;
		return 0;
	}
	f->sym = *sym;
	f->found = true;
	return 1;
}

int usym_offset(const char *path, const char *symbol, bool any_type, unsigned long long *off,
		char *why, size_t whylen)
{
	int fd;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf) {
		snprintf(why, whylen, "%s is not an ELF file", path);
		return -1;
	}
	struct find f = {.any_type = any_type};
	unsigned long long extra = 0, vaddr;
	snprintf(f.base, sizeof(f.base), "%s", symbol);
	char *plus = strchr(f.base, '+');
	if (plus) {
		char *end;
		errno = 0;
		extra = strtoull(plus + 1, &end, 0);
		if (*end || !isxdigit((unsigned char)plus[1]) || errno) {
			snprintf(why, whylen, "invalid offset '%s' (a number up to 2^64-1)", plus);
			goto fail;
		}
		*plus = 0;
	}
	char *at = strchr(f.base, '@');
	if (at)
		*at = 0; /* the default version is what the loader binds */
	if (!strncmp(f.base, "0x", 2)) {
		char *end;
		errno = 0;
		vaddr = strtoull(f.base, &end, 16);
		if (*end || !f.base[2] || errno) {
			snprintf(why, whylen, "invalid address '%s'", f.base);
			goto fail;
		}
	} else {
		each_symbol(elf, find_sym, &f);
		if (!f.found) {
			snprintf(why, whylen,
				 f.wrong_type ?
					 "%s in %s is not a function (-F to probe it anyway)" :
					 "no symbol %s in %s",
				 f.base, path);
			goto fail;
		}
		vaddr = f.sym.st_value;
	}
	if (extra > ~0ULL - vaddr) {
		snprintf(why, whylen, "0x%llx+0x%llx overflows: not an address in %s", vaddr, extra,
			 path);
		goto fail;
	}
	int r = usym_elf_offset(elf, vaddr + extra, true, off);
	if (r) {
		snprintf(why, whylen, "address 0x%llx is not in %s segment of %s", vaddr + extra,
			 r == -2 ? "an executable" : "a loadable", path);
		goto fail;
	}
	elf_end(elf);
	close(fd);
	return 0;
fail:
	elf_end(elf);
	close(fd);
	return -1;
}

int usym_symbol_addr(const char *path, const char *symbol, unsigned long long *vaddr)
{
	int fd;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf)
		return -1;
	struct find f = {.any_type = true};
	snprintf(f.base, sizeof(f.base), "%s", symbol);
	each_symbol(elf, find_sym, &f);
	elf_end(elf);
	close(fd);
	if (!f.found)
		return -1;
	*vaddr = f.sym.st_value;
	return 0;
}

int usym_fixed(const char *path)
{
	int fd;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf)
		return -1;
	GElf_Ehdr eh;
	int ret = gelf_getehdr(elf, &eh) ? eh.e_type == ET_EXEC : -1;
	elf_end(elf);
	close(fd);
	return ret;
}

int usym_interp(const char *path, char *interp, size_t len)
{
	int fd, ret = -1;
	size_t n, size;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf)
		return -1;
	char *image = elf_rawfile(elf, &size);
	if (image && !elf_getphdrnum(elf, &n))
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
				continue;
			if (ph.p_offset < size && ph.p_filesz <= size - ph.p_offset &&
			    ph.p_filesz > 1 && ph.p_filesz <= len &&
			    !memchr(image + ph.p_offset, 0, ph.p_filesz - 1) &&
			    !image[ph.p_offset + ph.p_filesz - 1]) {
				memcpy(interp, image + ph.p_offset, ph.p_filesz);
				ret = 0;
			}
			break;
		}
	elf_end(elf);
	close(fd);
	return ret;
}

int usym_entry(const char *path, unsigned long long *off)
{
	int fd, ret = -1;
	GElf_Ehdr eh;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf)
		return -1;
	if (gelf_getehdr(elf, &eh) && eh.e_entry && !usym_elf_offset(elf, eh.e_entry, true, off))
		ret = 0;
	elf_end(elf);
	close(fd);
	return ret;
}

/* The function symbols of a file, names without their version ("open@@GLIBC_2.2.5"). */
struct fsym {
	unsigned long long addr, size;
	size_t name; /* in names */
};

struct symbuf {
	struct fsym *v;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
};

static int add_fsym(const char *name, GElf_Sym *sym, void *ctx)
{
	struct symbuf *b = ctx;
	int type = GELF_ST_TYPE(sym->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return 0;
	size_t len = strcspn(name, "@") + 1;
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 1024;
		void *v = realloc(b->v, b->cap * sizeof(*b->v));
		if (!v)
			return 1;
		b->v = v;
	}
	if (b->nlen + len > b->ncap) {
		b->ncap = b->ncap ? b->ncap * 2 + len : 16384;
		void *v = realloc(b->names, b->ncap);
		if (!v)
			return 1;
		b->names = v;
	}
	memcpy(b->names + b->nlen, name, len - 1);
	b->names[b->nlen + len - 1] = 0;
	b->v[b->n++] = (struct fsym){sym->st_value, sym->st_size, b->nlen};
	b->nlen += len;
	return 0;
}

struct matching {
	Elf *elf;
	const char *glob;
	usym_fn fn;
	void *ctx;
	int n, ifuncs;
};

static int match_fsym(const char *name, GElf_Sym *sym, void *ctx)
{
	struct matching *m = ctx;
	char base[512];
	int type = GELF_ST_TYPE(sym->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return 0;
	snprintf(base, sizeof(base), "%.*s", (int)strcspn(name, "@"), name);
	if (fnmatch(m->glob, base, 0))
		return 0;
	if (type == STT_GNU_IFUNC) {
		m->ifuncs++;
		return 0;
	}
	unsigned long long off;
	if (usym_elf_offset(m->elf, sym->st_value, true, &off))
		return 0;
	m->n++;
	m->fn(base, off, m->ctx);
	return 0;
}

int usym_functions(const char *path, const char *glob, usym_fn fn, void *ctx, int *ifuncs)
{
	int fd;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf)
		return -1;
	struct matching m = {elf, glob, fn, ctx, 0, 0};
	each_symbol(elf, match_fsym, &m);
	elf_end(elf);
	close(fd);
	if (ifuncs)
		*ifuncs = m.ifuncs;
	return m.n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int usym_list(const char *path, FILE *out)
{
	int fd;
	Elf *elf = usym_elf_open(path, &fd);
	if (!elf)
		return -1;
	struct symbuf b = {0};
	each_symbol(elf, add_fsym, &b);
	elf_end(elf);
	close(fd);
	char **v = malloc((b.n ? b.n : 1) * sizeof(*v));
	int printed = v ? 0 : -1;
	for (size_t i = 0; v && i < b.n; i++)
		v[i] = b.names + b.v[i].name;
	if (v)
		qsort(v, b.n, sizeof(*v), cmp_str);
	for (size_t i = 0; v && i < b.n; i++) {
		if (!i || strcmp(v[i], v[i - 1])) {
			fprintf(out, "%s\n", v[i]);
			printed++;
		}
	}
	free(v);
	free(b.v);
	free(b.names);
	return printed;
}

/* --- user addresses of a process, for -U --------------------------------------------------- */

#define MAX_FILES 256
#define MAX_PROCS 64
#define MAX_SEGS 16

/* The function symbols of one ELF file, by address, and its loadable segments. */
static struct symfile {
	char *path;  /* what is opened */
	char *shown; /* its name in the output: path, or "PATH (deleted)", "PATH (replaced)" */
	struct fsym *syms;
	size_t nsyms;
	char *names;
	struct {
		unsigned long long off, vaddr, size;
	} seg[MAX_SEGS];
	int nsegs;
	/* lazy: its symbols are read when it is first named, from the file at path if that is
	 * still the one mapped (dev, ino), else none (said "PATH (replaced)") */
	bool lazy;
	/* lazy too: fd + 1 of the mapped file itself, opened when it was found: at its path, or
	 * deleted, replaced or another at its path in our mount namespace (through
	 * /proc/PID/map_files or /proc/PID/root), read when first named; 0: none */
	int pinned;
	dev_t dev;
	ino_t ino;
	int pid; /* a process that mapped it, at start-end: where it is read once replaced */
	unsigned long long start, end;
} files[MAX_FILES];
static int nfiles;
static bool lazy_files;

/* The executable mappings of one process, read from /proc/PID/maps. */
struct umap {
	unsigned long long start, end, off;
	int file; /* index in files[]; -1: not a file ([vdso], anonymous) */
	char special[16];
};

static struct procmaps {
	int pid;
	unsigned long use; /* the least recently used is replaced */
	struct umap *m;
	size_t n;
	uint64_t futile_ns; /* when a read for an address found it in no map either (CLOCK_MONOTONIC) */
	unsigned long long lost_at; /* records lost (usym_addr_lost) when they were read again */
} procs[MAX_PROCS];
static unsigned long use_clock;

static int by_addr(const void *x, const void *y)
{
	const struct fsym *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The GNU build ID of elf (NT_GNU_BUILD_ID) in id; its length, 0 when it has none. */
static size_t build_id(Elf *elf, unsigned char *id, size_t max)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, name, desc;
		while (d && d->d_buf && (off = gelf_getnote(d, off, &nh, &name, &desc)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name, "GNU", 4) && nh.n_descsz <= max &&
			    nh.n_descsz >= 2) {
				memcpy(id, (char *)d->d_buf + desc, nh.n_descsz);
				return nh.n_descsz;
			}
	}
	return 0;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

const char *usym_debug_root = "/usr/lib/debug";

/*
 * The separate debug file of a stripped ELF file (no .symtab), as gdb and perf find it: by
 * its build ID (DEBUG/.build-id/ab/cdef....debug, what Debian's -dbg and -dbgsym packages
 * install), else by its .gnu_debuglink name in DEBUG/DIR/ or DIR/.debug/ (DIR the file's
 * folder), that one taken only when its build ID is the file's. Root's files only, not
 * through a link: the names printed come from it. NULL when none.
 */
static Elf *debug_file(Elf *elf, const char *path, int *fd)
{
	unsigned char id[64], other[64];
	size_t n = build_id(elf, id, sizeof(id));
	char p[PATH_MAX];
	if (n) {
		int o = snprintf(p, sizeof(p), "%s/.build-id/%02x/", usym_debug_root, id[0]);
		for (size_t i = 1; i < n && o > 0 && (size_t)o < sizeof(p) - 8; i++)
			o += snprintf(p + o, sizeof(p) - (size_t)o, "%02x", id[i]);
		if (o > 0 && (size_t)o < sizeof(p) - 8)
			snprintf(p + o, sizeof(p) - (size_t)o, ".debug");
		Elf *d = usym_elf_open(p, fd);
		if (d && trusted_fd(*fd, S_IFREG) && has_symtab(d))
			return d;
		if (d) {
			elf_end(d);
			close(*fd);
		}
	}
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	const char *link = NULL;
	while (!elf_getshdrstrndx(elf, &shstrndx) && !link && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".gnu_debuglink") && (d = elf_getdata(scn, NULL)) && d->d_buf &&
		    d->d_size > 1 && memchr(d->d_buf, 0, d->d_size) && !strchr(d->d_buf, '/'))
			link = d->d_buf;
	}
	const char *slash = strrchr(path, '/');
	if (!link || !slash || !n)
		return NULL;
	int dir = (int)(slash - path);
	for (int i = 0; i < 2; i++) {
		if (i == 0)
			snprintf(p, sizeof(p), "%s%.*s/%s", usym_debug_root, dir, path, link);
		else
			snprintf(p, sizeof(p), "%.*s/.debug/%s", dir, path, link);
		Elf *d = usym_elf_open(p, fd);
		if (d && trusted_fd(*fd, S_IFREG) && has_symtab(d) &&
		    build_id(d, other, sizeof(other)) == n && !memcmp(id, other, n))
			return d;
		if (d) {
			elf_end(d);
			close(*fd);
		}
	}
	return NULL;
}

/* Is st the file f was mapped from (its inode; its device where known)? */
static bool is_mapped(const struct stat *st, const struct symfile *f)
{
	return S_ISREG(st->st_mode) && st->st_ino == f->ino && (!f->dev || st->st_dev == f->dev);
}

/* May f's file be opened now and kept (lazy names): a regular file, and at its path
 * (f->lazy) the one mapped. */
static bool pinnable(const struct stat *st, const struct symfile *f)
{
	return f->lazy ? is_mapped(st, f) : S_ISREG(st->st_mode);
}

/* Read f's symbols and segments (unreadable: none). */
static void symfile_load(struct symfile *f)
{
	int fd = f->pinned - 1;
	bool lazy = f->lazy && fd < 0;
	f->lazy = false;
	f->pinned = 0;
	struct stat st;
	/* Lazy: the file at its path is opened only if it is still the one mapped (another
	 * there since, a FIFO of anyone's, would block the open), then checked again. Pinned:
	 * the mapped file, open since it was found. */
	bool gone = lazy && stat(f->path, &st), other = lazy && !gone && !is_mapped(&st, f);
	Elf *elf = fd >= 0	 ? elf_of_fd(fd) :
		   gone || other ? NULL :
				   usym_elf_open(f->path, &fd); /* unreadable: none */
	if (elf && lazy && (fstat(fd, &st) || !is_mapped(&st, f))) {
		elf_end(elf);
		close(fd);
		elf = NULL;
		other = true;
	}
	if (other) {
		/* replaced at its path since it was mapped: never the new file's symbols; the
		 * mapped one while a process that maps it lives */
		char mapped[96];
		snprintf(mapped, sizeof(mapped), "/proc/%d/map_files/%llx-%llx", f->pid, f->start,
			 f->end);
		elf = usym_elf_open(mapped, &fd);
		if (elf && (fstat(fd, &st) || !is_mapped(&st, f))) {
			elf_end(elf);
			close(fd);
			elf = NULL;
		}
		char *shown = malloc(strlen(f->path) + sizeof(" (replaced)"));
		if (shown) {
			sprintf(shown, "%s (replaced)", f->path);
			free(f->shown);
			f->shown = shown;
		}
	}
	if (elf) {
		struct symbuf b = {0};
		each_symbol(elf, add_fsym, &b);
		int dfd;
		Elf *debug = has_symtab(elf) ? NULL : debug_file(elf, f->path, &dfd);
		if (debug) { /* its .symtab: the local functions a stripped file lacks */
			each_symbol(debug, add_fsym, &b);
			elf_end(debug);
			close(dfd);
		}
		if (b.n) /* none (stripped): b.v is NULL, which qsort must not be given */
			qsort(b.v, b.n, sizeof(*b.v), by_addr);
		f->syms = b.v;
		f->nsyms = b.n;
		f->names = b.names;
		size_t n;
		for (size_t i = 0; !elf_getphdrnum(elf, &n) && i < n && f->nsegs < MAX_SEGS; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				f->seg[f->nsegs++] =
					(typeof(f->seg[0])){ph.p_offset, ph.p_vaddr, ph.p_filesz};
		}
		elf_end(elf);
		close(fd);
	}
}

/* The index of PATH in files[], loading its symbols the first time (shown: its name in the
 * output, NULL: PATH), or with lazy_files and a known identity (ino > 0; dev 0: any) when
 * it is first named; -1 when full. */
static int symfile_get_id(const char *path, const char *shown, dev_t dev, ino_t ino, int pid,
			  unsigned long long start, unsigned long long end)
{
	for (int i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return i;
	if (nfiles == MAX_FILES)
		return -1;
	struct symfile *f = &files[nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)) || !(f->shown = strdup(shown ? shown : path))) {
		free(f->path);
		return -1;
	}
	f->lazy = lazy_files && ino;
	f->dev = dev;
	f->ino = ino;
	f->pid = pid;
	f->start = start;
	f->end = end;
	/* Where names wait for the end, a file is only opened now (its symbols read now were 4
	 * ms of profile's CPU for one 870 KB deleted binary sampled), and read from that
	 * descriptor then: one that must be read while its process lives (no identity to check
	 * later: read through /proc/PID/...), and one at its path, if it is still the one
	 * mapped (replaced there before the end by a process that has gone by then, as an
	 * upgrade does, it was "PATH (replaced)" without names). One open and fstat per file. */
	/* (opened only if a regular file, and at its path the one mapped: a device's open
	 * could act; then checked again on the descriptor) */
	struct stat st;
	bool other = lazy_files && (stat(path, &st) || !pinnable(&st, f));
	int fd = lazy_files && !other ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd >= 0 && (fstat(fd, &st) || !pinnable(&st, f))) {
		close(fd); /* another there already: the end's checks say so */
		fd = -1;
	}
	if (fd >= 0) {
		f->pinned = fd + 1;
		f->lazy = true;
	}
	if (!f->lazy)
		symfile_load(f);
	return nfiles++;
}

static int symfile_get_as(const char *path, const char *shown)
{
	return symfile_get_id(path, shown, 0, 0, 0, 0, 0);
}

static int symfile_get(const char *path)
{
	return symfile_get_as(path, NULL);
}

/*
 * The file a process maps, as this process can open it: a process in another mount namespace
 * (a container) maps its own /usr/bin/x, seen here through /proc/PID/root when that is another
 * file than our /usr/bin/x (or ours has none). Two stat() per mapped file, when the maps are
 * read. The mapping's device and inode (ino 0: not known): a file deleted since it was mapped
 * ("PATH (deleted)" in the maps), or replaced by another at its path, is read through
 * /proc/PID/map_files/START-END, the mapped file itself, and said as such; never the symbols
 * of the file now at the path. Gone with the process: then no symbols, not wrong ones.
 */
static int map_file(int pid, const char *path, dev_t dev, unsigned long long ino,
		    unsigned long long start, unsigned long long end)
{
	char rooted[PATH_MAX + 64], name[PATH_MAX + 16];
	struct stat theirs, ours;
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), d = sizeof(deleted) - 1;
	bool gone = n > d && !strcmp(path + n - d, deleted);
	snprintf(rooted, sizeof(rooted), "/proc/%d/root%.*s", pid, (int)(gone ? n - d : n), path);
	bool found = stat(rooted, &theirs) == 0;
	if (gone || (ino && found && (theirs.st_ino != ino || theirs.st_dev != dev))) {
		char mapped[96];
		snprintf(mapped, sizeof(mapped), "/proc/%d/map_files/%llx-%llx", pid, start, end);
		snprintf(name, sizeof(name), "%.*s (%s)", (int)(gone ? n - d : n), path,
			 gone ? "deleted" : "replaced");
		return symfile_get_as(mapped, name);
	}
	if (found &&
	    (stat(path, &ours) || theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino))
		return symfile_get(rooted);
	/* (the file through /proc/PID/root goes with the process: read now; ours may wait.
	 * Gone already (a short process's MMAP2 record): ours later, if its inode is the one
	 * mapped, the device not compared: btrfs's and overlayfs's differ from stat's) */
	if (found)
		return symfile_get_id(path, NULL, ours.st_dev, ours.st_ino, pid, start, end);
	return symfile_get_id(path, NULL, 0, (ino_t)ino, pid, start, end);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read the executable mappings of PID into p; -1 when the process is gone. */
static int procmaps_load(struct procmaps *p, int pid)
{
	char path[64], line[PATH_MAX + 128];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "re");
	free(p->m);
	memset(p, 0, sizeof(*p));
	if (!f)
		return -1;
	size_t cap = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino = 0;
		unsigned maj = 0, min = 0;
		char perms[8];
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &maj, &min, &ino, &name_at) < 4 ||
		    !strchr(perms, 'x'))
			continue;
		if (p->n == cap) {
			cap = cap ? cap * 2 : 32;
			void *m = realloc(p->m, cap * sizeof(*p->m));
			if (!m)
				break;
			p->m = m;
		}
		struct umap *m = &p->m[p->n++];
		char *name = name_at ? line + name_at : "";
		name[strcspn(name, "\n")] = 0;
		*m = (struct umap){start, end, off, -1, ""};
		if (name[0] == '/')
			m->file = map_file(pid, name, makedev(maj, min), ino, start, end);
		/* [vdso], anonymous (JIT code), or a file past the MAX_FILES we keep */
		if (m->file < 0)
			snprintf(m->special, sizeof(m->special), "%s",
				 name[0] == '/' ? "[unread file]" : name);
	}
	fclose(f);
	p->pid = pid;
	return 0;
}

static struct procmaps *procmaps_get(int pid)
{
	/* The last one asked first: a stack's frames are one process's (a scan of 64 per
	 * frame was 6% of profile's CPU at 999 Hz) */
	static struct procmaps *last;
	if (last && last->pid == pid && pid) {
		last->use = ++use_clock;
		return last;
	}
	struct procmaps *lru = &procs[0];
	for (int i = 0; i < MAX_PROCS; i++) {
		if (procs[i].pid == pid) {
			procs[i].use = ++use_clock;
			return last = &procs[i];
		}
		if (procs[i].use < lru->use)
			lru = &procs[i];
	}
	if (procmaps_load(lru, pid))
		return NULL;
	lru->use = ++use_clock;
	return last = lru;
}

/* pid's maps kept as none (in the least recently used place): the records tell them. */
static struct procmaps *procmaps_empty(int pid)
{
	struct procmaps *p = &procs[0];
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].use < p->use)
			p = &procs[i];
	free(p->m);
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->use = ++use_clock;
	return p;
}

int usym_prime(int pid)
{
	return procmaps_get(pid) ? 0 : -1;
}

int usym_addr_map(int pid, unsigned long long start, unsigned long long len, unsigned long long off,
		  const char *path, dev_t dev, unsigned long long ino)
{
	struct procmaps *p = procmaps_get(pid);
	if (!p) /* gone already: its maps are the ones told */
		p = procmaps_empty(pid);
	unsigned long long end = start + len;
	size_t kept = 0;
	for (size_t i = 0; i < p->n; i++) /* what the new mapping covers is gone */
		if (p->m[i].end <= start || p->m[i].start >= end)
			p->m[kept++] = p->m[i];
	p->n = kept;
	void *m = realloc(p->m, (p->n + 1) * sizeof(*p->m));
	if (!m)
		return -1;
	p->m = m;
	struct umap *u = &p->m[p->n++];
	*u = (struct umap){start, end, off, -1, ""};
	bool anon = !strcmp(path, "//anon"); /* the kernel's name of anonymous memory */
	if (path[0] == '/' && !anon)
		u->file = map_file(pid, path, dev, ino, start, end);
	if (u->file < 0 && !anon)
		snprintf(u->special, sizeof(u->special), "%s",
			 path[0] == '/' ? "[unread file]" : path);
	return 0;
}

static const struct umap *find_map(const struct procmaps *p, unsigned long long addr)
{
	for (size_t i = 0; i < p->n; i++)
		if (addr >= p->m[i].start && addr < p->m[i].end)
			return &p->m[i];
	return NULL;
}

/* "name+0xoff" for a virtual address of the file, or NULL. */
static const char *file_sym(const struct symfile *f, unsigned long long vaddr,
			    unsigned long long *off)
{
	size_t lo = 0, hi = f->nsyms;
	while (lo < hi) { /* the first symbol above vaddr */
		size_t mid = (lo + hi) / 2;
		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Among symbols at the same address, any; one whose size covers vaddr. */
	for (size_t i = lo; i-- > 0;) {
		const struct fsym *s = &f->syms[i];
		if (vaddr < s->addr + (s->size ? s->size : 1)) {
			*off = vaddr - s->addr;
			return f->names + s->name;
		}
		if (lo - i > 8)
			break;
	}
	return NULL;
}

/*
 * /tmp/perf-PID.map, the symbols a JIT (a JVM with perf-map-agent, node --perf-basic-prof,
 * LuaJIT...) writes of the code it makes: "START SIZE name" lines, hex. Read only when it is
 * a regular file (not followed through a link) owned by root or by the process's owner: a
 * file in /tmp anyone could have made for another's PID. One process's map is kept, read
 * again when it has grown, and looked for at most every 50 ms per process (a stack walked
 * through code without frame pointers has frames in no map: each was a stat and an open), the
 * last 8 processes' tries remembered (two shell loops sampled in turn tried at every sample:
 * a fifth of profile's CPU at 999 Hz).
 */
#define JIT_TRIED 8
static struct {
	int pid;
	struct {
		int pid;
		uint64_t ns;
	} tried[JIT_TRIED];
	unsigned next; /* the slot the next process's try takes */
	off_t size;
	struct jsym {
		unsigned long long start, end;
		char *name;
	} * e;
	size_t n;
} jit;

static void perfmap_free(void)
{
	for (size_t i = 0; i < jit.n; i++)
		free(jit.e[i].name);
	free(jit.e);
	jit.e = NULL;
	jit.n = 0;
	jit.pid = 0;
	jit.size = 0;
}

static void perfmap_load(int pid)
{
	char path[64];
	struct stat proc, st;
	uint64_t t = now_ns();
	int slot = -1;
	for (int i = 0; i < JIT_TRIED && slot < 0; i++)
		if (jit.tried[i].pid == pid)
			slot = i;
	if (slot >= 0 && t - jit.tried[slot].ns < 50000000ULL)
		return;
	if (slot < 0)
		slot = (int)(jit.next++ % JIT_TRIED);
	jit.tried[slot].pid = pid;
	jit.tried[slot].ns = t;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	bool alive = stat(path, &proc) == 0;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && (!alive || st.st_uid != proc.st_uid)) ||
	    (jit.pid == pid && st.st_size == jit.size)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	perfmap_free();
	jit.pid = pid;
	jit.size = st.st_size;
	char line[1024];
	size_t cap = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, size;
		int at = 0;
		if (sscanf(line, "%llx %llx %n", &start, &size, &at) != 2 || !at)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (jit.n == cap) {
			cap = cap ? cap * 2 : 256;
			void *m = realloc(jit.e, cap * sizeof(*jit.e));
			if (!m)
				break;
			jit.e = m;
		}
		char *name = strdup(line + at);
		if (!name)
			break;
		jit.e[jit.n++] = (struct jsym){start, start + size, name};
	}
	fclose(f);
}

static const char *perfmap_find(int pid, unsigned long long addr, unsigned long long *off)
{
	for (int pass = 0; pass < 2; pass++) {
		if (jit.pid == pid)
			/* the latest line first: a JIT writes code again over freed code */
			for (size_t i = jit.n; i-- > 0;)
				if (addr >= jit.e[i].start && addr < jit.e[i].end) {
					*off = addr - jit.e[i].start;
					return jit.e[i].name;
				}
		if (!pass)
			perfmap_load(pid);
	}
	return NULL;
}

static bool followed;
static unsigned long long lost_records;

void usym_addr_followed(bool on)
{
	followed = on;
}

void usym_addr_lost(unsigned long long total)
{
	lost_records = total;
}

void usym_lazy(bool on)
{
	lazy_files = on;
}

/* The mapping of pid that holds addr, or NULL. */
static const struct umap *lookup(int pid, unsigned long long addr)
{
	struct procmaps *p = procmaps_get(pid);
	const struct umap *m = p ? find_map(p, addr) : NULL;
	/* Mapped since (dlopen): the maps read again, if the process is still there; but for
	 * 50 ms after a read that found the address in no map either, not again: a stack walked
	 * by frame pointers through code built without them (dash, most of Debian) has frames
	 * that are no code, and each was a read of the maps (most of profile's own CPU at 99 Hz
	 * on two shell loops). Where the mappings come as records, only after records were
	 * lost (usym_addr_lost), and then once a second at most. */
	uint64_t t = p && !m && (!followed || p->lost_at != lost_records) ? now_ns() : 0;
	if (t && t - p->futile_ns >= (followed ? 1000000000ULL : 50000000ULL)) {
		struct procmaps now = {0};
		if (!procmaps_load(&now, pid)) {
			free(p->m);
			now.use = p->use;
			*p = now;
			m = find_map(p, addr);
		}
		p->lost_at = lost_records;
		if (!m) /* (or gone: its maps are the ones told) */
			p->futile_ns = t;
	}
	return m;
}

int usym_addr_file(int pid, unsigned long long addr, int *file, unsigned long long *foff)
{
	const struct umap *m = lookup(pid, addr);
	if (!m || m->file < 0)
		return 0;
	*file = m->file;
	*foff = addr - m->start + m->off;
	return 1;
}

const char *usym_file_name(int file, unsigned long long foff, char *buf, size_t len)
{
	struct symfile *f = &files[file];
	if (f->lazy)
		symfile_load(f);
	unsigned long long vaddr = foff, off = 0;
	for (int i = 0; i < f->nsegs; i++)
		if (foff >= f->seg[i].off && foff < f->seg[i].off + f->seg[i].size) {
			vaddr = foff - f->seg[i].off + f->seg[i].vaddr;
			break;
		}
	const char *name = file_sym(f, vaddr, &off);
	if (name)
		snprintf(buf, len, "%s+0x%llx (%s)", name, off, f->shown);
	else
		snprintf(buf, len, "0x%llx (%s)", vaddr, f->shown);
	return buf;
}

const char *usym_addr(int pid, unsigned long long addr, char *buf, size_t len)
{
	const struct umap *m = lookup(pid, addr);
	/* Code a JIT made in anonymous memory: named from its /tmp/perf-PID.map, if any. (An
	 * address in no map where the mappings are followed is none: a frame-pointer walk's
	 * garbage, each a stat and an open, most of profile's CPU at 49 Hz on dash loops.) */
	if ((!m && !followed) || (m && m->file < 0 && !m->special[0])) {
		unsigned long long off;
		const char *jname = perfmap_find(pid, addr, &off);
		if (jname) {
			snprintf(buf, len, "%s+0x%llx ([perf-%d.map])", jname, off, pid);
			return buf;
		}
	}
	if (!m) {
		snprintf(buf, len, "0x%llx", addr);
		return buf;
	}
	if (m->file < 0) {
		snprintf(buf, len, "0x%llx (%s)", addr, m->special[0] ? m->special : "anonymous");
		return buf;
	}
	return usym_file_name(m->file, addr - m->start + m->off, buf, len);
}

int usym_addr_fork(int parent, int child)
{
	struct procmaps *p = procmaps_get(parent);
	if (!p || parent == child)
		return -1;
	struct umap *m = malloc((p->n ? p->n : 1) * sizeof(*m));
	if (!m)
		return -1;
	if (p->n) /* a parent with no maps read yet has none (p->m NULL) */
		memcpy(m, p->m, p->n * sizeof(*m));
	size_t n = p->n;
	struct procmaps *c = &procs[0];
	for (int i = 0; i < MAX_PROCS; i++) {
		if (procs[i].pid == child) {
			c = &procs[i];
			break;
		}
		if (procs[i].use < c->use && &procs[i] != p)
			c = &procs[i];
	}
	if (c == p) { /* one slot in all: cannot happen with MAX_PROCS > 1 */
		free(m);
		return -1;
	}
	free(c->m);
	*c = (struct procmaps){child, ++use_clock, m, n, 0, lost_records};
	return 0;
}

void usym_addr_forget(int pid)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].pid == pid) {
			free(procs[i].m);
			memset(&procs[i], 0, sizeof(procs[i]));
		}
	/* Followed: the new program's mappings come as records (its file, the loader, the
	 * vDSO, each library), so its maps start empty, not read from /proc (read after the
	 * records of a second, they were the program's after a later exec, and two stat()
	 * per mapping: a quarter of profile's CPU on shell loops started under it). */
	if (followed)
		procmaps_empty(pid);
}

void usym_addr_free(void)
{
	perfmap_free();
	memset(jit.tried, 0, sizeof(jit.tried));
	followed = false;
	lazy_files = false;
	lost_records = 0;
	for (int i = 0; i < MAX_PROCS; i++)
		free(procs[i].m);
	for (int i = 0; i < nfiles; i++) {
		free(files[i].path);
		free(files[i].shown);
		free(files[i].syms);
		free(files[i].names);
		if (files[i].pinned)
			close(files[i].pinned - 1);
	}
	memset(procs, 0, sizeof(procs));
	nfiles = 0;
}

int usym_addr_mmap2(const void *body, size_t len)
{
	if (len <= 64)
		return -1;
	uint32_t pid, maj, min;
	uint64_t v[3], ino;
	memcpy(&pid, body, 4);
	memcpy(v, (const char *)body + 8, 24);
	/* (a build ID there instead only when attr.build_id asks for it: not here) */
	memcpy(&maj, (const char *)body + 32, 4);
	memcpy(&min, (const char *)body + 36, 4);
	memcpy(&ino, (const char *)body + 40, 8);
	const char *name = (const char *)body + 64;
	if (!memchr(name, 0, len - 64))
		return -1;
	return usym_addr_map((int)pid, v[0], v[1], v[2], name, makedev(maj, min), ino);
}

bool usym_maps_file(int pid, const char *path)
{
	struct stat st;
	char maps[64], line[PATH_MAX + 128];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	FILE *f = stat(path, &st) ? NULL : fopen(maps, "r");
	if (!f)
		return true;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		found = sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3 &&
			ino == (unsigned long long)st.st_ino && makedev(maj, min) == st.st_dev;
		if (!strchr(line, '\n')) /* the rest of a long line */
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
	}
	fclose(f);
	return found;
}
