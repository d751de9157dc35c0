// SPDX-License-Identifier: GPL-2.0-only
/* Event and function lists (ftrace.c) on a fake tracefs tree (tracefs_set_tracing_dir). */
#include "helpers.h"

#include <errno.h>
#include <tracefs.h>

#include "kernel/ftrace.h"

static char tree[64];

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-fake-XXXXXX");
	assert_non_null(mkdtemp(tree));
	static const char *const files[] = {
		"events/sched/enable",
		"events/sched/sched_switch/format",
		"events/sched/sched_wakeup/format",
		"events/sched/sched_waking/format",
		"events/block/enable",
		"events/block/block_rq_issue/format",
		/* no enable file: the tracers write these themselves */
		"events/ftrace/function/format",
		"events/ftrace/kernel_stack/format",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		write_file(tree, files[i], "");
	write_file(tree, "available_filter_functions",
		   "vfs_read\nvfs_write\nvfs_readv\next4_file_read_iter [ext4]\n");
	write_file(tree, "available_tracers", "function_graph function nop\n");
	write_file(tree, "set_ftrace_filter", "");
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	rm_rf(tree);
	return 0;
}

static char got[1024];

static void collect(const char *sys, const char *ev, void *ctx)
{
	(void)ctx;
	size_t n = strlen(got);
	snprintf(got + n, sizeof(got) - n, "%s:%s ", sys, ev);
}

static int events(const char *spec, int *skipped)
{
	char why[256];
	got[0] = 0;
	return ftrace_events(spec, collect, NULL, skipped, why, sizeof(why));
}

static void test_events(void **state)
{
	(void)state;
	int skipped;
	assert_int_equal(events("sched:sched_wak*", &skipped), 2);
	assert_string_equal(got, "sched:sched_wakeup sched:sched_waking ");
	assert_int_equal(events("*:*", &skipped), 4);
	assert_string_equal(got, "block:block_rq_issue sched:sched_switch sched:sched_wakeup "
				 "sched:sched_waking ");
	assert_int_equal(skipped, 2); /* ftrace:function, ftrace:kernel_stack */
	assert_int_equal(events("ftrace:*", &skipped), 0);
	assert_int_equal(skipped, 2);
	assert_int_equal(events("sched:sched_switch", &skipped), 1);
	assert_int_equal(events("sched:nosuch", &skipped), 0);
	/* Not SYSTEM:EVENT: empty, ".", "..", a '/', no ':' */
	const char *bad[] = {"sched:", ":", ":x", "sched:.", "..:x", "sched:a/b", "sched", "a:b:c"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (events(bad[i], &skipped) != -1)
			fail_msg("'%s' accepted", bad[i]);
}

/* 5.10: the ftrace system has an enable file; its events have none (one here has). */
static void test_events_510(void **state)
{
	(void)state;
	int skipped;
	write_file(tree, "events/ftrace/enable", "");
	write_file(tree, "events/ftrace/print/enable", "");
	assert_int_equal(events("ftrace:*", &skipped), 1);
	assert_string_equal(got, "ftrace:print ");
	assert_int_equal(skipped, 2);
}

static void collect_fn(const char *name, const char *mod, void *ctx)
{
	(void)ctx;
	size_t n = strlen(got);
	snprintf(got + n, sizeof(got) - n, "%s%s%s ", name, mod ? "@" : "", mod ? mod : "");
}

static void test_functions(void **state)
{
	(void)state;
	got[0] = 0;
	assert_int_equal(ftrace_functions("vfs_read*", collect_fn, NULL), 2);
	assert_string_equal(got, "vfs_read vfs_readv ");
	got[0] = 0;
	assert_int_equal(ftrace_functions("ext4_*", collect_fn, NULL), 1);
	assert_string_equal(got, "ext4_file_read_iter@ext4 ");
	assert_int_equal(ftrace_function_traceable("vfs_read"), 1);
	assert_int_equal(ftrace_function_traceable("vfs_read+0x10"), 1);
	assert_int_equal(ftrace_function_traceable("nosuch"), 0);
	assert_int_equal(ftrace_function_traceable("vfs_*"), 0); /* a glob is not a function */
	assert_true(ftrace_tracer_available("function_graph"));
	assert_false(ftrace_tracer_available("hwlat"));
	/* An unreadable list: the caller is told why (EPERM here is what lockdown gives). */
	char path[256];
	snprintf(path, sizeof(path), "%s/available_filter_functions", tree);
	unlink(path);
	assert_int_equal(ftrace_functions("*", NULL, NULL), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(ftrace_function_traceable("vfs_read"), -1);
}

static void test_set_functions(void **state)
{
	(void)state;
	const char *const funcs[] = {"vfs_read", "vfs_write"};
	assert_int_equal(ftrace_set_functions(NULL, "set_ftrace_filter", funcs, 2, "test"), 0);
	char buf[256];
	assert_non_null(read_file(tree, "set_ftrace_filter", buf, sizeof(buf)));
	/* Each ends with its newline: the kernel joins words written without one. */
	assert_string_equal(buf, "vfs_read\nvfs_write\n");
	/* A filter that reads back empty (here: the file swallows what is written), as the
	 * kernel's does when it kept none of the words, is refused: it traces everything. */
	char path[256];
	snprintf(path, sizeof(path), "%s/set_ftrace_filter", tree);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/dev/null", path), 0);
	assert_int_equal(ftrace_set_functions(NULL, "set_ftrace_filter", funcs, 2, "test"), -1);
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_events_510, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_functions, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_set_functions, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
