// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsops (fsops.c) without a kernel: the file system a program's name chooses, where struct
 * file keeps its dentry by release, the fetches of a file's name, and what can time each
 * operation from a kallsyms table and the kernel's probe support, said in one line.
 */
#include "helpers.h"

#include "domain/fsops.h"
#include "stream/ksym.h"

static void test_alias(void **state)
{
	(void)state;
	assert_int_equal(fsops_alias("/usr/sbin/ext4slower", "slower"), 0);
	assert_int_equal(fsops_alias("xfsslower", "slower"), 1);
	assert_int_equal(fsops_alias("./btrfsdist", "dist"), 2);
	assert_int_equal(fsops_alias("nfsslower", "slower"), 3);
	assert_int_equal(fsops_alias("fsslower", "slower"), -1);
	assert_int_equal(fsops_alias("slower", "slower"), -1);
	assert_int_equal(fsops_alias("ext4dist", "slower"), -1);
	assert_int_equal(fsops_alias("ext4slowerx", "slower"), -1);
	assert_int_equal(fsops_alias("/ext4/fsslower", "slower"), -1);
	char name[32] = "fsdist";
	assert_int_equal(fsops_tool_name("/sbin/btrfsdist", "dist", name, sizeof(name)), 2);
	assert_string_equal(name, "btrfsdist");
	strcpy(name, "fsdist");
	assert_int_equal(fsops_tool_name("fsdist", "dist", name, sizeof(name)), -1);
	assert_string_equal(name, "fsdist");
}

/* f_path moved in 6.12; an unreadable release is taken as a new kernel. */
static void test_dentry_offset(void **state)
{
	(void)state;
	assert_int_equal(fsops_dentry_offset("4.9.337"), 24);
	assert_int_equal(fsops_dentry_offset("4.18.0-147.5.1.el8_1.x86_64"), 24);
	assert_int_equal(fsops_dentry_offset("6.11.9"), 24);
	assert_int_equal(fsops_dentry_offset("6.12.0"), 72);
	assert_int_equal(fsops_dentry_offset("6.18.0"), 72);
	assert_int_equal(fsops_dentry_offset("7.0"), 72);
	assert_int_equal(fsops_dentry_offset(""), 72);
}

/* The name is the string at the pointer d_name.name holds (+0 of it), not at +40. */
static void test_name_fetch(void **state)
{
	(void)state;
	char f[64];
	fsops_name_fetch(FSOPS_R, 24, f, sizeof(f));
	assert_string_equal(f, "+0(+40(+24(+0($arg1))))");
	fsops_name_fetch(FSOPS_O, 72, f, sizeof(f));
	assert_string_equal(f, "+0(+40(+72($arg2)))");
	fsops_name_fetch(FSOPS_S, 24, f, sizeof(f));
	assert_string_equal(f, "+0(+40(+24($arg1)))");
}

static char path[] = "/tmp/ftt-test-fsops.XXXXXX";

/* A kallsyms file of these lines: its text symbols, or with data its variables. */
static struct ksyms *load_as(const char *text, bool data)
{
	temp_file(path, text);
	struct ksyms *k = data ? ksym_load_data_file(path) : ksym_load_file(path);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	return k;
}
#define load(text) load_as(text, false)
#define load_data(text) load_as(text, true)

/* With kprobes: each function kallsyms has (ext4's read through another before 4.10). */
static void test_plan_kprobes(void **state)
{
	(void)state;
	struct ksyms *k = load("ffffffff81300000 t ext4_file_write_iter\n"
			       "ffffffff81300100 t ext4_file_open\n"
			       "ffffffff81300200 T ext4_sync_file\n"
			       "ffffffff81300300 T generic_file_read_iter\n");
	struct fsops f = {.fs = 0};
	char line[512];
	assert_int_equal(fsops_plan(&f, true, k, NULL, 24, true), 3);
	assert_false(f.on[FSOPS_R]);
	assert_true(f.on[FSOPS_W] && f.on[FSOPS_O] && f.on[FSOPS_S]);
	assert_false(f.by_tp[FSOPS_S]);
	assert_string_equal(f.traced, "writes, opens, fsyncs");
	fsops_left_out(&f, line, sizeof(line));
	assert_string_equal(line, "reads (ext4_file_read_iter) not traced: not in /proc/kallsyms; "
				  "tracing writes, opens, fsyncs");
	assert_non_null(strstr(f.why[FSOPS_R], "CONFIG_KALLSYMS_ALL"));
	/* with the data symbols (CONFIG_KALLSYMS_ALL), through generic_file_read_iter, its
	 * calls on ext4_file_operations; not with struct file of 6.12 (f_op moved) */
	struct ksyms *kd = load_data("ffffffff82000000 R ext4_file_operations\n"
				     "ffffffff82000100 R xfs_file_operations\n");
	assert_int_equal(fsops_plan(&f, true, k, kd, 24, true), 4);
	assert_true(f.on[FSOPS_R] && f.generic);
	assert_int_equal(f.fops, 0xffffffff82000000ULL);
	assert_int_equal(fsops_plan(&f, true, k, kd, 72, true), 3);
	assert_false(f.on[FSOPS_R] || f.generic);
	ksym_free(kd);
	/* xfs not loaded: nothing */
	f.fs = 1;
	assert_int_equal(fsops_plan(&f, true, k, NULL, 24, true), 0);
	ksym_free(k);
}

/* Without kprobes: ext4's fsyncs by its tracepoints where the kernel has them; the others'
 * nothing. */
static void test_plan_tracepoints(void **state)
{
	(void)state;
	struct fsops f = {.fs = 0};
	char line[512];
	assert_int_equal(fsops_plan(&f, false, NULL, NULL, 72, true), 1);
	assert_true(f.on[FSOPS_S] && f.by_tp[FSOPS_S]);
	assert_string_equal(f.traced, "fsyncs");
	fsops_left_out(&f, line, sizeof(line));
	assert_string_equal(line, "reads (R), writes (W), opens (O) not traced: they need kprobes "
				  "(CONFIG_KPROBE_EVENTS); tracing fsyncs");
	assert_int_equal(fsops_plan(&f, false, NULL, NULL, 72, false), 0);
	f.fs = 1;
	assert_int_equal(fsops_plan(&f, false, NULL, NULL, 72, true), 0);
	assert_string_equal(f.why[FSOPS_S], "kprobes not available (CONFIG_KPROBE_EVENTS)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_dentry_offset),
		cmocka_unit_test(test_name_fetch),
		cmocka_unit_test(test_plan_kprobes),
		cmocka_unit_test(test_plan_tracepoints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
