// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's function profiler (funcprof.c) against a fake tracefs tree: its tables read
 * (headers left out, a CPU without a table, names cut at 30 characters), names alike that
 * far, the profiler taken only when it is off, and started on the words given, everything
 * it changed written back at the release.
 */
#include "helpers.h"
#include "fake_top.h"

#include <tracefs.h>

#include "base/state.h"
#include "kernel/funcprof.h"
#include "kernel/toplevel.h"

static char tree[64], lock[128], run[128];

/* A table as the kernel writes it with the function graph tracer (Time, Avg, s^2), names
 * in %-30.30s. */
static const char table0[] =
	"  Function                               Hit    Time            Avg             s^2\n"
	"  --------                               ---    ----            ---             ---\n"
	"  vfs_read                                 42    123.400 us      2.938 us        1.200 "
	"us\n"
	"  ext4_file_read_iter                       7    12.000 us       1.714 us        0.100 "
	"us\n"
	"  a_function_whose_name_is_longe            3    1.000 us        0.333 us        0.000 "
	"us\n";
/* Without it: Hit only. */
static const char table_nograph[] = "  Function                               Hit\n"
				    "  --------                               ---\n"
				    "  vfs_read                                  5\n";

static int make_tree(void **state)
{
	(void)state;
	static const struct fake_file files[] = {
		{"set_ftrace_filter", "#### all functions enabled ####\n"},
		{"function_profile_enabled", "0\n"},
		{NULL, NULL},
	};
	fake_top_make(tree, "/tmp/ftt-prof-XXXXXX", run, lock, files);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	rm_rf(tree);
	return 0;
}

struct sums {
	unsigned long long read, ext4, longer, lines;
};

static void sum(const char *name, unsigned long long hits, void *ctx)
{
	struct sums *s = ctx;
	s->lines++;
	if (funcprof_shows(name, "vfs_read"))
		s->read += hits;
	else if (funcprof_shows(name, "ext4_file_read_iter"))
		s->ext4 += hits;
	else if (funcprof_shows(name, "a_function_whose_name_is_longer_than_thirty"))
		s->longer += hits;
	else
		fail_msg("a line of no function: '%s'", name);
}

static void parse(void **state)
{
	(void)state;
	struct sums s = {0};
	char text[sizeof(table0)];
	memcpy(text, table0, sizeof(table0));
	funcprof_parse(text, sum, &s);
	assert_int_equal(s.lines, 3);
	assert_int_equal(s.read, 42);
	assert_int_equal(s.ext4, 7);
	assert_int_equal(s.longer, 3);
	char nograph[sizeof(table_nograph)];
	memcpy(nograph, table_nograph, sizeof(table_nograph));
	memset(&s, 0, sizeof(s));
	funcprof_parse(nograph, sum, &s);
	assert_int_equal(s.lines, 1);
	assert_int_equal(s.read, 5);
	char empty[] = "";
	funcprof_parse(empty, sum, &s);
	assert_int_equal(s.lines, 1);
}

static void names(void **state)
{
	(void)state;
	/* Cut at 30: a name shown cut is the one that begins with it, not a shorter one. */
	assert_true(funcprof_shows("a_function_whose_name_is_longe",
				   "a_function_whose_name_is_longer_than_thirty"));
	assert_false(funcprof_shows("a_function_whose_name_is", "a_function_whose_name_is_x"));
	assert_false(funcprof_shows("vfs_read", "vfs_readv"));
	assert_true(funcprof_shows("vfs_read", "vfs_read"));
	assert_true(funcprof_alike("a_function_whose_name_is_longer_one",
				   "a_function_whose_name_is_longer_two"));
	assert_false(
		funcprof_alike("a_function_whose_name_is_longe", "a_function_whose_name_is_long"));
	assert_false(funcprof_alike("vfs_read", "vfs_read"));
}

/* Every CPU's table summed; a CPU without one is a gap, none at all -1. */
static void read_tables(void **state)
{
	(void)state;
	struct sums s = {0};
	assert_int_equal(funcprof_read(sum, &s), -1);
	write_file(tree, "trace_stat/function0", table0);
	assert_int_equal(funcprof_read(sum, &s), 0);
	assert_int_equal(s.read, 42);
	if (sysconf(_SC_NPROCESSORS_CONF) < 3)
		return;
	write_file(tree, "trace_stat/function2", table_nograph);
	memset(&s, 0, sizeof(s));
	assert_int_equal(funcprof_read(sum, &s), 0);
	assert_int_equal(s.read, 47);
}

static void assert_file(const char *rel, const char *want)
{
	char buf[256];
	assert_string_equal(read_file(tree, rel, buf, sizeof(buf)), want);
}

/* Taken only when off; started on the words; written back as found. */
static void take_start(void **state)
{
	(void)state;
	struct toplevel tl = {.lock_fd = -1};
	assert_int_equal(funcprof_take(&tl, "test", false), 0);
	static const char *const words[] = {"vfs_*", "ext4_file_read_iter"};
	assert_int_equal(funcprof_start(&tl, words, 2, "test"), 0);
	assert_file("set_ftrace_filter", "vfs_* ext4_file_read_iter");
	assert_file("function_profile_enabled", "1");
	toplevel_release(&tl);
	assert_false(tl.failed);
	/* The kernel's "all functions" banner is an empty filter. */
	assert_file("set_ftrace_filter", "");
	assert_file("function_profile_enabled", "0");
	/* Someone else's profiler running: best gives way without a word, must says so. */
	write_file(tree, "function_profile_enabled", "1\n");
	struct toplevel t2 = {.lock_fd = -1};
	assert_int_equal(funcprof_take(&t2, "test", false), 1);
	assert_int_equal(t2.lock_fd, -1);
}

static void must_take(const void *arg)
{
	(void)arg;
	struct toplevel tl = {.lock_fd = -1};
	_exit(funcprof_take(&tl, "mytool", true) == -1 ? 1 : 0);
}

static void in_use_said(void **state)
{
	(void)state;
	write_file(tree, "function_profile_enabled", "1\n");
	char err[512];
	assert_int_equal(run_child(must_take, NULL, err, sizeof(err)), 1);
	assert_string_equal(err, "mytool: the function profiler is in use "
				 "(function_profile_enabled is not 0)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),
		cmocka_unit_test(names),
		cmocka_unit_test_setup_teardown(read_tables, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(take_start, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(in_use_said, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
