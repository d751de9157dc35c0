// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include <stdint.h>
#include <sys/mman.h>

#include "usym.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function),	 cmocka_unit_test(test_functions_by_glob),
		cmocka_unit_test(test_library_function), cmocka_unit_test(test_unmapped_and_gone),
		cmocka_unit_test(test_mapped_later),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
