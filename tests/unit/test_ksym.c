// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "stream/ksym.h"

static char path[] = "/tmp/ftt-test-ksym.XXXXXX";

static struct ksyms *load(const char *text)
{
	temp_file(path, text);
	struct ksyms *k = ksym_load_file(path);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	return k;
}

static void assert_sym(const struct ksyms *k, unsigned long long addr, const char *name,
		       unsigned long long off)
{
	unsigned long long o = ~0ULL;
	const char *n = ksym_find(k, addr, &o);
	if (!name) {
		assert_null(n);
		return;
	}
	assert_non_null(n);
	assert_string_equal(n, name);
	assert_int_equal(o, off);
}

/* kallsyms' lines as the kernel writes them: text and weak symbols kept, data dropped,
 * modules' names without their [module], upper- and lower-case hex, out of order. */
static void test_kallsyms_lines(void **state)
{
	(void)state;
	struct ksyms *k = load("ffffffff81000000 T _stext\n"
			       "ffffffff81000100 D some_data\n"
			       "ffffffffc0a01000 t nf_hook\t[nf_tables]\n"
			       "FFFFFFFF81000200 t helper\n"
			       "ffffffff81000050 W weak_one\n"
			       "ffffffff81000080 w weak_two\n"
			       "ffffffff81000300 b bss_thing\n");
	assert_sym(k, 0xffffffff81000000ULL, "_stext", 0);
	assert_sym(k, 0xffffffff81000060ULL, "weak_one", 0x10);
	assert_sym(k, 0xffffffff81000150ULL, "weak_two", 0xd0); /* data is no symbol here */
	assert_sym(k, 0xffffffff81000400ULL, "helper", 0x200);
	assert_sym(k, 0xffffffffc0a01004ULL, "nf_hook", 4);
	assert_sym(k, 0xffffffff80000000ULL, NULL, 0);
	assert_int_equal(ksym_addr(k, "nf_hook"), 0xffffffffc0a01000ULL);
	assert_int_equal(ksym_addr(k, "some_data"), 0);
	ksym_free(k);
}

/* With kptr_restrict every address reads 0: no symbols, not a table of zeros. Broken lines,
 * a 17-digit address, and a line longer than the reader's buffer are skipped whole (its
 * remainder is no symbol either); a 511-byte name (KSYM_NAME_LEN, Rust) is kept whole. */
static void test_hostile_lines(void **state)
{
	(void)state;
	char name[512], text[8192];
	memset(name, 'r', 511);
	name[511] = 0;
	char longname[1500];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	snprintf(text, sizeof(text),
		 "0000000000000000 T hidden\n"
		 "ffffffff81000000 T\n"
		 "ffffffff81000000  T two_spaces\n"
		 "zzzz T not_hex\n"
		 "1ffffffff81000000 T seventeen_digits\n"
		 "ffffffff81001000 T %s\n"
		 "ffffffff81002000 T %s\n"
		 "ffffffff81003000 T last",
		 name, longname);
	struct ksyms *k = load(text);
	assert_sym(k, 0xffffffff81001010ULL, name, 0x10);
	assert_sym(k, 0xffffffff81002010ULL, name, 0x1010); /* the long line was skipped */
	assert_int_equal(ksym_addr(k, "hidden"), 0);
	assert_int_equal(ksym_addr(k, "two_spaces"), 0);
	assert_int_equal(ksym_addr(k, "seventeen_digits"), 0);
	assert_int_equal(ksym_addr(k, "last"), 0xffffffff81003000ULL);
	ksym_free(k);
	k = load("0000000000000000 T a\n0000000000000000 t b\n");
	assert_sym(k, 0x1000, NULL, 0);
	ksym_free(k);
}

/* The data table: variables of .data, .bss and .rodata, text left out. */
static void test_data_symbols(void **state)
{
	(void)state;
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff82000100 D tasklist_lock\n"
			   "ffffffff82000200 d static_mutex\n"
			   "ffffffff82800000 B bss_lock\n"
			   "ffffffff81800000 r ro_table\n";
	temp_file(path, text);
	struct ksyms *k = ksym_load_data_file(path);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	assert_sym(k, 0xffffffff82000100ULL, "tasklist_lock", 0);
	assert_sym(k, 0xffffffff82000208ULL, "static_mutex", 8);
	assert_sym(k, 0xffffffff82800010ULL, "bss_lock", 0x10);
	assert_sym(k, 0xffffffff81800004ULL, "ro_table", 4);
	assert_sym(k, 0xffffffff81000010ULL, NULL, 0); /* text is no data symbol */
	assert_int_equal(ksym_addr(k, "_stext"), 0);
	assert_int_equal(ksym_count(k), 4);
	ksym_free(k);
}

/* Without a table (profile's names at the end): one reading of kallsyms answers a sorted list
 * of addresses as ksym_find does from the table, out-of-order modules included; this
 * machine's own kallsyms too, where it has one (root: real addresses). */
static void check_resolve(const char *file, const struct ksyms *k, const unsigned long long *q,
			  size_t n)
{
	const char *names[64];
	unsigned long long offs[64];
	char *blob;
	assert_true(n <= 64);
	assert_int_equal(ksym_resolve(file, q, n, names, offs, &blob), 0);
	for (size_t i = 0; i < n; i++) {
		unsigned long long off = 0;
		const char *want = ksym_find(k, q[i], &off);
		if (!want) {
			assert_null(names[i]);
			continue;
		}
		assert_non_null(names[i]);
		assert_string_equal(names[i], want);
		assert_int_equal(offs[i], off);
	}
	free(blob);
}

static void test_resolve_without_table(void **state)
{
	(void)state;
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 D some_data\n"
				   "ffffffff81000200 t helper\n"
				   "ffffffffc0002000 t mod_fn\t[mod]\n"
				   "ffffffff81000400 W weak_fn\n"
				   "ffffffffc0001000 T mod_init\t[mod]\n";
	char file[] = "/tmp/ftt-test-ksym-resolve.XXXXXX";
	temp_file(file, text);
	struct ksyms *k = ksym_load_file(file);
	assert_non_null(k);
	unsigned long long q[] = {0xffffffff80000000ULL, 0xffffffff81000000ULL,
				  0xffffffff810001ffULL, 0xffffffff81000200ULL,
				  0xffffffff81000201ULL, 0xffffffff81000500ULL,
				  0xffffffffc0000fffULL, 0xffffffffc0001004ULL,
				  0xffffffffc0002000ULL, 0xffffffffc0009000ULL};
	check_resolve(file, k, q, sizeof(q) / sizeof(*q));
	ksym_free(k);
	unlink(file);
	const char *names[1];
	unsigned long long offs[1];
	char *blob;
	assert_int_equal(ksym_resolve("/nonexistent-ftt/kallsyms", q, 1, names, offs, &blob), -1);
	free(blob);
	if (geteuid() || !(k = ksym_load()) || ksym_count(k) < 1000) {
		ksym_free(k);
		return;
	}
	/* 48 addresses of this kernel: functions' starts and insides, sorted */
	unsigned long long real[48];
	const char *fn[] = {"schedule", "do_sys_openat2",   "vfs_read",	   "ksys_write",
			    "kfree",	"__kmalloc_noprof", "tcp_sendmsg", "ext4_file_read_iter"};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(fn) / sizeof(*fn); i++) {
		unsigned long long a = ksym_addr(k, fn[i]);
		for (unsigned long long d = 0; a && d < 6; d++)
			real[n++] = a + d * 7;
	}
	for (size_t i = 1; i < n; i++) /* sorted, for ksym_resolve */
		for (size_t j = i; j > 0 && real[j - 1] > real[j]; j--) {
			unsigned long long t = real[j];
			real[j] = real[j - 1];
			real[j - 1] = t;
		}
	check_resolve("/proc/kallsyms", k, real, n);
	ksym_free(k);
}

/* A late table: /proc/kallsyms opened at once, read at its first lookup (its symbols then
 * there); one never asked is freed unread. (Skipped where this process cannot open
 * /proc/kallsyms, or is not root: its addresses are then zero.) */
static void test_late(void **state)
{
	(void)state;
	struct ksyms *k = ksym_load_late(false);
	if (!k)
		skip();
	ksym_free(k);
	k = ksym_load_late(false);
	assert_non_null(k);
	size_t n = ksym_count(k);
	ksym_free(k);
	if (!n && getuid()) /* kallsyms shows a user the addresses as zero */
		skip();
	assert_true(n > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_lines), cmocka_unit_test(test_hostile_lines),
		cmocka_unit_test(test_data_symbols),   cmocka_unit_test(test_resolve_without_table),
		cmocka_unit_test(test_late),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
