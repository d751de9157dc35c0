// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "stream/usym.h"

/* A function of this test program, to find by address. */
__attribute__((noinline)) int usym_probe_me(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

static char self[4096];

static int setup(void **state)
{
	(void)state;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	return 0;
}

/* An address inside one of our functions: its name, the offset, the file. */
static void test_own_function(void **state)
{
	(void)state;
	char buf[4200], want[4200];
	usym_addr(getpid(), (uintptr_t)&usym_probe_me + 2, buf, sizeof(buf));
	snprintf(want, sizeof(want), "usym_probe_me+0x2 (%s)", self);
	assert_string_equal(buf, want);
	usym_addr_free();
}

/* A process that is gone, named from the mappings the kernel told (profile's MMAP2 records):
 * this program's own mapping of usym_probe_me, told for a PID that does not exist, names it
 * as it is named here, and in a child it forks; an address beside it in no told mapping is
 * not named. After an exec
 * (usym_addr_forget) the old mapping is no longer used. */
static void test_told_mappings(void **state)
{
	(void)state;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4200];
	unsigned long long start = 0, end = 0, off = 0, a = (uintptr_t)&usym_probe_me;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) == 3 && a >= start &&
		    a < end)
			break;
	fclose(f);
	assert_true(a >= start && a < end);
	int gone = 0x7ffffffe;
	assert_int_equal(usym_addr_map(gone, start, end - start, off, self, 0, 0), 0);
	char buf[4200], want[4200];
	usym_addr(gone, a + 2, buf, sizeof(buf));
	snprintf(want, sizeof(want), "usym_probe_me+0x2 (%s)", self);
	assert_string_equal(buf, want);
	usym_addr(gone, end + 0x100000, buf, sizeof(buf));
	assert_ptr_equal(strchr(buf, '('), NULL); /* only the address */
	/* that miss (the maps asked again of /proc, which has none) kept what was told */
	usym_addr(gone, a + 2, buf, sizeof(buf));
	assert_string_equal(buf, want);
	/* a child forked then (gone too): its parent's maps */
	assert_int_equal(usym_addr_fork(gone, gone - 1), 0);
	usym_addr(gone - 1, a + 2, buf, sizeof(buf));
	assert_string_equal(buf, want);
	usym_addr_forget(gone);
	usym_addr(gone, a + 2, buf, sizeof(buf));
	assert_ptr_equal(strstr(buf, "usym_probe_me"), NULL);
	usym_addr_free();
}

/* Copy file from to to (0, or -1). */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char b[65536];
	size_t n;
	int ret = in && out ? 0 : -1;
	while (!ret && (n = fread(b, 1, sizeof(b), in)) > 0)
		if (fwrite(b, 1, n, out) != n)
			ret = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = -1;
	return ret;
}

/* Naming later (profile's end): where an address is, as a file and offset, names it after
 * the process's maps are forgotten (an exec); with usym_lazy, a file read only then is read
 * as mapped: a copy of this program told as mapped high up names usym_probe_me, and when
 * another file was renamed over it before it was found, nothing ("(replaced)"), never that
 * file's names. */
static void test_named_later(void **state)
{
	(void)state;
	char buf[4200], want[4200];
	int file = -1;
	unsigned long long foff = 0, a = (uintptr_t)&usym_probe_me;
	usym_lazy(true);
	assert_int_equal(usym_addr_file(getpid(), a + 2, &file, &foff), 1);
	usym_addr_forget(getpid());
	snprintf(want, sizeof(want), "usym_probe_me+0x2 (%s)", self);
	assert_string_equal(usym_file_name(file, foff, buf, sizeof(buf)), want);
	assert_int_equal(usym_addr_file(getpid(), 16, &file, &foff), 0); /* in no map */

	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4200];
	unsigned long long start = 0, end = 0, off = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) == 3 && a >= start &&
		    a < end)
			break;
	fclose(f);
	char dir[64], copy[96];
	snprintf(dir, sizeof(dir), "/tmp/ftt-usym.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/prog", dir);
	for (int replaced = 0; replaced < 2; replaced++) {
		assert_int_equal(copy_file(self, copy), 0);
		struct stat st;
		assert_int_equal(stat(copy, &st), 0);
		if (replaced) { /* renamed over it before it was found: another inode at the path */
			char other[96];
			snprintf(other, sizeof(other), "%s/other", dir);
			assert_int_equal(copy_file(self, other), 0);
			assert_int_equal(rename(other, copy), 0);
		}
		unsigned long long at = 0x100000000000ULL;
		assert_int_equal(
			usym_addr_map(getpid(), at, end - start, off, copy, st.st_dev, st.st_ino),
			0);
		assert_int_equal(usym_addr_file(getpid(), at + (a - start) + 2, &file, &foff), 1);
		usym_file_name(file, foff, buf, sizeof(buf));
		snprintf(want, sizeof(want),
			 replaced ? "(%s (replaced))" : "usym_probe_me+0x2 (%s)", copy);
		assert_non_null(strstr(buf, want));
		assert_null(strstr(buf, "usym_probe_me") && replaced ? buf : NULL);
		usym_addr_free();
		usym_lazy(true);
	}
	/* a FIFO anyone could make put at the path: never blocked on, replaced */
	usym_lazy(true);
	assert_int_equal(copy_file(self, copy), 0);
	struct stat st;
	assert_int_equal(stat(copy, &st), 0);
	assert_int_equal(unlink(copy), 0);
	assert_int_equal(mkfifo(copy, 0666), 0);
	unsigned long long at = 0x100000000000ULL;
	assert_int_equal(usym_addr_map(getpid(), at, end - start, off, copy, st.st_dev, st.st_ino),
			 0);
	assert_int_equal(usym_addr_file(getpid(), at + (a - start) + 2, &file, &foff), 1);
	usym_file_name(file, foff, buf, sizeof(buf));
	snprintf(want, sizeof(want), "(%s (replaced))", copy);
	assert_non_null(strstr(buf, want));
	usym_addr_free();
	unlink(copy);
	rmdir(dir);
}

/* After an exec where the mappings are followed, a process has none until records tell
 * them: /proc/PID/maps, read a second later, could be a later program's. Not followed, the
 * next address reads them again. */
static void test_exec_followed(void **state)
{
	(void)state;
	int file = -1;
	unsigned long long foff = 0, a = (uintptr_t)&usym_probe_me;
	usym_lazy(true);
	usym_addr_followed(true);
	assert_int_equal(usym_addr_file(getpid(), a, &file, &foff), 1);
	usym_addr_forget(getpid());
	assert_int_equal(usym_addr_file(getpid(), a, &file, &foff), 0);
	usym_addr_free();
	usym_lazy(true);
	assert_int_equal(usym_addr_file(getpid(), a, &file, &foff), 1);
	usym_addr_forget(getpid());
	assert_int_equal(usym_addr_file(getpid(), a, &file, &foff), 1);
	usym_addr_free();
}

/* A copy of this program mapped here (its whole file, read-only), in a folder of its own:
 * where usym_probe_me is in it (at + at_probe), and its identity. */
struct mapped_copy {
	char dir[64], copy[96];
	struct stat st;
	size_t len;
	void *m;
	unsigned long long at_probe;
};

static void map_copy(struct mapped_copy *c)
{
	char line[4200];
	unsigned long long a = (uintptr_t)&usym_probe_me, start = 0, end = 0, off = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) == 3 && a >= start &&
		    a < end)
			break;
	fclose(f);
	c->at_probe = a - start + off;
	snprintf(c->dir, sizeof(c->dir), "/tmp/ftt-usym.XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(c->copy, sizeof(c->copy), "%s/prog", c->dir);
	assert_int_equal(copy_file(self, c->copy), 0);
	assert_int_equal(stat(c->copy, &c->st), 0);
	int fd = open(c->copy, O_RDONLY);
	assert_true(fd >= 0);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	c->len = ((size_t)c->st.st_size + page - 1) / page * page;
	c->m = mmap(NULL, c->len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(c->m != MAP_FAILED);
	close(fd);
}

/* A deleted file, named when printed: opened when its mapping was told (through
 * /proc/PID/map_files, the mapped file itself), read at the end from that descriptor, after
 * the mapping is gone (as after its process ended). */
static void test_deleted_named_later(void **state)
{
	(void)state;
	char buf[4200], want[4200], told[128];
	struct mapped_copy c;
	map_copy(&c);
	assert_int_equal(unlink(c.copy), 0);
	usym_lazy(true);
	snprintf(told, sizeof(told), "%s (deleted)", c.copy);
	unsigned long long at = (uintptr_t)c.m;
	assert_int_equal(usym_addr_map(getpid(), at, c.len, 0, told, c.st.st_dev, c.st.st_ino), 0);
	int file = -1;
	unsigned long long foff = 0;
	assert_int_equal(usym_addr_file(getpid(), at + c.at_probe + 2, &file, &foff), 1);
	assert_int_equal(munmap(c.m, c.len), 0); /* its /proc/PID/map_files entry gone */
	snprintf(want, sizeof(want), "usym_probe_me+0x2 (%s (deleted))", c.copy);
	assert_string_equal(usym_file_name(file, foff, buf, sizeof(buf)), want);
	usym_addr_free();
	rmdir(c.dir);
}

/* A file mapped, then replaced at its path (an upgrade: a new file renamed over it) and the
 * mapping gone before it is named: its own names, from the file opened when it was found; it
 * was "PATH (replaced)" without names when the process had gone by the end. */
static void test_replaced_named_later(void **state)
{
	(void)state;
	char buf[4200], want[4200], other[128];
	struct mapped_copy c;
	map_copy(&c);
	usym_lazy(true);
	unsigned long long at = (uintptr_t)c.m;
	assert_int_equal(usym_addr_map(getpid(), at, c.len, 0, c.copy, c.st.st_dev, c.st.st_ino),
			 0);
	int file = -1;
	unsigned long long foff = 0;
	assert_int_equal(usym_addr_file(getpid(), at + c.at_probe + 2, &file, &foff), 1);
	/* another file renamed over it (not an ELF file: nothing of it could be named) */
	snprintf(other, sizeof(other), "%s/prog.new", c.dir);
	FILE *f = fopen(other, "w");
	assert_non_null(f);
	fputs("not the program\n", f);
	fclose(f);
	assert_int_equal(rename(other, c.copy), 0);
	assert_int_equal(munmap(c.m, c.len), 0); /* its /proc/PID/map_files entry gone */
	snprintf(want, sizeof(want), "usym_probe_me+0x2 (%s)", c.copy);
	assert_string_equal(usym_file_name(file, foff, buf, sizeof(buf)), want);
	usym_addr_free();
	unlink(c.copy);
	rmdir(c.dir);
}

/* JIT code: an address in no file of the process is named from /tmp/perf-PID.map; the map is
 * not read through a symbolic link (anyone can make one in /tmp). */
static void test_perf_map(void **state)
{
	(void)state;
	char path[64], other[80], buf[4200], want[128];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("10000 100 LazyCompile:*hot_loop app.js:12\n20000 10 stub\n", f);
	fclose(f);
	usym_addr(getpid(), 0x10050, buf, sizeof(buf));
	snprintf(want, sizeof(want), "LazyCompile:*hot_loop app.js:12+0x50 ([perf-%d.map])",
		 (int)getpid());
	assert_string_equal(buf, want);
	usym_addr(getpid(), 0x20010, buf, sizeof(buf)); /* past its size */
	assert_string_equal(buf, "0x20010");
	/* code the JIT writes later: its line is read once the 50 ms hold after a miss is over */
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("30000 10 later\n", f);
	fclose(f);
	usleep(60000);
	usym_addr(getpid(), 0x30004, buf, sizeof(buf));
	snprintf(want, sizeof(want), "later+0x4 ([perf-%d.map])", (int)getpid());
	assert_string_equal(buf, want);
	usym_addr_free();
	snprintf(other, sizeof(other), "%s.real", path);
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(symlink(other, path), 0);
	usym_addr(getpid(), 0x10050, buf, sizeof(buf));
	assert_string_equal(buf, "0x10050");
	unlink(path);
	unlink(other);
	usym_addr_free();
}

/* An address in the C library: a symbol of libc.so.6 (getpid: the sanitizers intercept
 * fopen, whose address is then theirs). */
static void test_library_function(void **state)
{
	(void)state;
	char buf[4200];
	usym_addr(getpid(), (uintptr_t)&getpid, buf, sizeof(buf));
	assert_non_null(strstr(buf, "+0x0 ("));
	assert_non_null(strstr(buf, "libc.so.6)"));
	usym_addr_free();
}

static void collect_one(const char *name, unsigned long long off, void *ctx)
{
	unsigned long long *got = ctx;
	got[0]++;
	got[1] = off;
	assert_string_equal(name, "usym_probe_me");
}

static void count_all(const char *name, unsigned long long off, void *ctx)
{
	(void)name;
	(void)off;
	(*(int *)ctx)++;
}

/* Functions by glob: ours at the offset usym_offset gives; libc's strlen is an IFUNC (its
 * resolver runs once at load), left out and counted; a file that is not ELF: -1. */
static void test_functions_by_glob(void **state)
{
	(void)state;
	unsigned long long got[2] = {0, 0}, off;
	char why[256], libc[4096];
	int ifuncs = -1, n = 0;
	assert_int_equal(usym_functions(self, "usym_probe_m?", collect_one, got, &ifuncs), 1);
	assert_int_equal(got[0], 1);
	assert_int_equal(ifuncs, 0);
	assert_int_equal(usym_offset(self, "usym_probe_me", false, &off, why, sizeof(why)), 0);
	assert_int_equal(got[1], off);
	assert_int_equal(usym_target("libc", libc, sizeof(libc)), 0);
	assert_int_equal(usym_functions(libc, "strlen", count_all, &n, &ifuncs), 0);
	assert_int_equal(n, 0);
	assert_true(ifuncs >= 1);
	assert_true(usym_functions(libc, "getpid", count_all, &n, &ifuncs) >= 1);
	assert_int_equal(usym_functions("/proc/self/status", "*", count_all, &n, NULL), -1);
}

/* Nothing mapped there, or the process is gone: the bare address. */
static void test_unmapped_and_gone(void **state)
{
	(void)state;
	char buf[4200];
	assert_string_equal(usym_addr(getpid(), 0x10, buf, sizeof(buf)), "0x10");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	usym_addr(pid, (uintptr_t)&usym_probe_me, buf, sizeof(buf));
	char want[64];
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)(uintptr_t)&usym_probe_me);
	assert_string_equal(buf, want);
	usym_addr_free();
}

/* Mapped after the maps were first read (as dlopen does): read again, found. */
static void test_mapped_later(void **state)
{
	(void)state;
	char buf[4200], want[4200];
	usym_addr(getpid(), (uintptr_t)&usym_probe_me, buf, sizeof(buf)); /* maps cached */
	/* Map our own text again at a new address, from the file. */
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4200];
	unsigned long long start = 0, end = 0, off = 0, a = (uintptr_t)&usym_probe_me;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) == 3 && a >= start &&
		    a < end)
			break;
	fclose(f);
	assert_true(a >= start && a < end);
	int fd = open(self, O_RDONLY);
	assert_true(fd >= 0);
	char *p = mmap(NULL, end - start, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, (off_t)off);
	assert_true(p != MAP_FAILED);
	close(fd);
	usym_addr(getpid(), (uintptr_t)p + (a - start) + 1, buf, sizeof(buf));
	snprintf(want, sizeof(want), "usym_probe_me+0x1 (%s)", self);
	assert_string_equal(buf, want);
	munmap(p, end - start);
	usym_addr_free();
}

/* A temporary folder of mode 0700, for files the tests make. */
static void temp_dir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/ftt-usym.XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void put_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* A library name is found without running anything: an `ldconfig` first in PATH (as
 * `PATH=/tmp/evil:$PATH execsnoop` would put one) is never run, and the answer is the
 * loader's own. */
static void test_no_program_run(void **state)
{
	(void)state;
	char dir[64], evil[128], marker[128], path[PATH_MAX + 64], libc[4096];
	temp_dir(dir, sizeof(dir));
	snprintf(evil, sizeof(evil), "%s/ldconfig", dir);
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	char script[256];
	int n = snprintf(script, sizeof(script), "#!/bin/sh\ntouch %s\n", marker);
	put_file(evil, script, (size_t)n, 0755);
	const char *old = getenv("PATH");
	snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	int ret = usym_target("libc", libc, sizeof(libc));
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	assert_int_equal(access(marker, F_OK), -1);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(libc, "libc.so.6"));
	unlink(evil);
	rmdir(dir);
}

/* A program's name is looked for only in folders of PATH that are absolute, root's and
 * written by nobody else: one in a folder anyone can write is not taken. */
static void test_untrusted_path_dir(void **state)
{
	(void)state;
	char dir[64], prog[128], path[PATH_MAX + 64], got[4096];
	temp_dir(dir, sizeof(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(prog, sizeof(prog), "%s/ftt-no-such-program", dir);
	put_file(prog, "#!/bin/sh\n", 10, 0755);
	const char *old = getenv("PATH");
	snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	assert_int_equal(usym_target("ftt-no-such-program", got, sizeof(got)), -1);
	/* The same folder of mode 0755 owned by root is one to take it from. */
	assert_int_equal(chmod(dir, 0755), 0);
	int ret = usym_target("ftt-no-such-program", got, sizeof(got));
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	if (geteuid() == 0) {
		assert_int_equal(ret, 0);
		assert_string_equal(got, prog);
	}
	unlink(prog);
	rmdir(dir);
}

/* A loader's cache of the new format with one entry: libftt-test.so.1 => path. */
static size_t fake_cache(char *buf, const char *path)
{
	memset(buf, 0, 512);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	uint32_t nlibs = 1, key = 48 + 24, value = key + 32;
	memcpy(buf + 20, &nlibs, 4);
	int32_t flags = 0x0303;
	memcpy(buf + 48, &flags, 4);
	memcpy(buf + 52, &key, 4);
	memcpy(buf + 56, &value, 4);
	strcpy(buf + key, "libftt-test.so.1");
	strcpy(buf + value, path);
	return value + strlen(path) + 1;
}

/* The cache is read here: its entry is found, for this machine's architecture only; a
 * cache that anyone could have written, or a link, is not trusted. */
static void test_ld_cache(void **state)
{
	(void)state;
	char dir[64], cache[128], link[128], got[4096], buf[8192];
	temp_dir(dir, sizeof(dir));
	snprintf(cache, sizeof(cache), "%s/ld.so.cache", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	size_t len = fake_cache(buf, self);
	put_file(cache, buf, len, 0644);
	assert_int_equal(symlink(cache, link), 0);
	const char *real = usym_ld_cache;
	usym_ld_cache = cache;
	int trusted = usym_target("ftt-test", got, sizeof(got));
	char want[4096];
	assert_non_null(realpath(self, want));
	chmod(cache, 0666);
	int writable = usym_target("libftt-test", got, sizeof(got));
	chmod(cache, 0644);
	usym_ld_cache = link;
	int linked = usym_target("libftt-test", got, sizeof(got));
	/* An entry for a file that is not an ELF file of this machine: not taken. */
	usym_ld_cache = cache;
	len = fake_cache(buf, "/proc/self/status");
	put_file(cache, buf, len, 0644);
	int foreign = usym_target("libftt-test", got, sizeof(got));
	usym_ld_cache = real;
	assert_int_equal(writable, -1);
	assert_int_equal(linked, -1);
	assert_int_equal(foreign, -1);
	if (geteuid() == 0) /* only root's cache is trusted */
		assert_int_equal(trusted, 0);
	unlink(link);
	unlink(cache);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function),
		cmocka_unit_test(test_functions_by_glob),
		cmocka_unit_test(test_library_function),
		cmocka_unit_test(test_unmapped_and_gone),
		cmocka_unit_test(test_mapped_later),
		cmocka_unit_test(test_no_program_run),
		cmocka_unit_test(test_untrusted_path_dir),
		cmocka_unit_test(test_ld_cache),
		cmocka_unit_test(test_told_mappings),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_named_later),
		cmocka_unit_test(test_deleted_named_later),
		cmocka_unit_test(test_replaced_named_later),
		cmocka_unit_test(test_exec_followed),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
