// SPDX-License-Identifier: GPL-2.0-only
/* The top level's owner and its saved settings, against a fake tracefs tree and a private
 * state folder (state.h). */
#include "helpers.h"
#include "fake_top.h"

#include <tracefs.h>

#include "base/sig.h"
#include "base/state.h"
#include "kernel/toplevel.h"

static char tree[64], lock[128], run[128];

static int make_tree(void **state)
{
	(void)state;
	static const struct fake_file files[] = {
		{"set_graph_function", "#### all functions enabled ####\n"},
		{"set_ftrace_pid", "no pid\n"},
		{"max_graph_depth", "0\n"},
		{"trace_clock", "[local] global counter mono\n"},
		{"buffer_size_kb", "7 (expanded: 1408)\n"},
		{"options/sleep-time", "1\n"},
		{NULL, NULL},
	};
	fake_top_make(tree, "/tmp/ftt-top-XXXXXX", run, lock, files);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	rm_rf(tree);
	return 0;
}

static void assert_file(const char *rel, const char *want)
{
	char buf[512];
	assert_non_null(read_file(tree, rel, buf, sizeof(buf)));
	assert_string_equal(buf, want);
}

static void test_normalize(void **state)
{
	(void)state;
	static const struct {
		const char *file, *text, *want;
	} cases[] = {
		{"trace_clock", "local global [mono] boot\n", "mono"},
		{"buffer_size_kb", "7 (expanded: 1408)\n", "1408"},
		{"buffer_size_kb", "2052\n", "2052"},
		{"current_tracer", "function_graph\n", "function_graph"},
		{"set_graph_function", "#### all functions enabled ####\n", ""},
		{"set_graph_function", "vfs_read\nschedule\n", "vfs_read schedule"},
		{"set_ftrace_pid", "no pid\n", ""},
		{"set_ftrace_pid", "12\n34\n", "12 34"},
		{"options/sleep-time", "0\n", "0"},
	};
	char out[128];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(toplevel_normalize(cases[i].file, cases[i].text, out, sizeof(out)),
				 0);
		assert_string_equal(out, cases[i].want);
	}
	/* per-CPU sizes that differ cannot be written back as one */
	assert_int_equal(toplevel_normalize("buffer_size_kb", "X\n", out, sizeof(out)), -1);
	assert_int_equal(toplevel_normalize("trace_clock", "local global\n", out, sizeof(out)), -1);
	/* a list that does not fit is refused, not cut */
	assert_int_equal(toplevel_normalize("set_graph_function", "abcdef\nghijkl\n", out, 8), -1);
}

static void set_all(struct toplevel *tl)
{
	assert_int_equal(toplevel_set(tl, "set_graph_function", "vfs_read"), 0);
	assert_int_equal(toplevel_set(tl, "max_graph_depth", "3"), 0);
	assert_int_equal(toplevel_set(tl, "trace_clock", "mono"), 0);
	assert_int_equal(toplevel_set(tl, "buffer_size_kb", "4096"), 0);
	assert_int_equal(toplevel_set(tl, "options/sleep-time", "0"), 0);
	assert_int_equal(toplevel_set(tl, "current_tracer", "function_graph"), 0);
}

static void assert_restored(void)
{
	assert_file("current_tracer", "nop");
	assert_file("set_graph_function", "");
	assert_file("max_graph_depth", "0");
	assert_file("trace_clock", "local");
	assert_file("buffer_size_kb", "1408");
	assert_file("options/sleep-time", "1");
}

/* Set, then given back: every file as found (in the form the kernel takes back), the state
 * file empty, perf-tools' lock made while owned and gone after. */
static void test_set_release(void **state)
{
	(void)state;
	struct toplevel tl;
	char buf[1024], want[64];
	assert_int_equal(toplevel_acquire(&tl, "test_toplevel"), 0);
	set_all(&tl);
	assert_file("current_tracer", "function_graph");
	assert_file("set_graph_function", "vfs_read");
	snprintf(want, sizeof(want), "%d\n", (int)getpid());
	assert_non_null(read_file(tree, "ftrace-lock", buf, sizeof(buf)));
	assert_string_equal(buf, want);
	assert_non_null(read_file(run, "top-level", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "test_toplevel"));
	/* current_tracer first: it is written back first */
	assert_non_null(strstr(buf, "\nset current_tracer nop\nset set_graph_function \n"));
	assert_non_null(strstr(buf, "\nset trace_clock local\n"));
	assert_non_null(strstr(buf, "\nset buffer_size_kb 1408\n"));
	toplevel_release(&tl);
	assert_restored();
	assert_file("run/top-level", "");
	assert_int_equal(access(lock, F_OK), -1);
	toplevel_release(&tl); /* again: nothing */
	assert_restored();
}

static void second_run(const void *arg)
{
	(void)arg;
	struct toplevel tl;
	exit(toplevel_acquire(&tl, "second") ? 1 : 0);
}

/* A second run while the first owns it: refused, naming the owner; nothing changed. */
static void test_second_run_named(void **state)
{
	(void)state;
	struct toplevel tl;
	char err[1024], want[128];
	assert_int_equal(toplevel_acquire(&tl, "test_toplevel"), 0);
	assert_int_equal(toplevel_set(&tl, "current_tracer", "function_graph"), 0);
	assert_int_equal(run_child(second_run, NULL, err, sizeof(err)), 1);
	snprintf(want, sizeof(want),
		 "second: the top-level tracer is in use by test_toplevel (PID %d, since ",
		 (int)getpid());
	if (strncmp(err, want, strlen(want)) || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("got '%s'", err);
	assert_file("current_tracer", "function_graph");
	toplevel_release(&tl);
	assert_file("current_tracer", "nop");
}

static void killed_owner(const void *arg)
{
	(void)arg;
	struct toplevel tl;
	if (toplevel_acquire(&tl, "killed"))
		exit(1);
	set_all(&tl);
	_exit(0); /* as SIGKILL: nothing written back */
}

static void recover(const void *arg)
{
	exit(toplevel_recover(arg));
}

/* An owner that died holding it: the next run (any tool's sweep) writes its settings back,
 * says so, and removes perf-tools' lock it made. */
static void test_recover_after_kill(void **state)
{
	(void)state;
	char err[1024];
	assert_int_equal(run_child(killed_owner, NULL, err, sizeof(err)), 0);
	assert_file("current_tracer", "function_graph");
	assert_int_equal(access(lock, F_OK), 0);
	assert_int_equal(run_child(recover, "tpoint", err, sizeof(err)), 1);
	if (!strstr(err, "tpoint: killed (PID ") ||
	    !strstr(err, ") was killed holding the top-level tracer: restored its 6 settings\n"))
		fail_msg("got '%s'", err);
	assert_restored();
	assert_int_equal(access(lock, F_OK), -1);
	/* nothing left to do for the next one */
	assert_int_equal(run_child(recover, "tpoint", err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static void faulting_owner(const void *arg)
{
	(void)arg;
	struct toplevel tl;
	if (toplevel_acquire(&tl, "faulting"))
		exit(1);
	set_all(&tl);
	sig_emergency(); /* what the fault handler runs */
	_exit(0);
}

/* A fault: the emergency steps write every setting back. */
static void test_emergency(void **state)
{
	(void)state;
	char err[1024];
	assert_int_equal(run_child(faulting_owner, NULL, err, sizeof(err)), 0);
	assert_restored();
}

static void unwritable(const void *arg)
{
	(void)arg;
	struct toplevel tl;
	char path[256];
	if (toplevel_acquire(&tl, "stuck") || toplevel_set(&tl, "max_graph_depth", "3"))
		exit(1);
	/* the file cannot be opened for writing any more (as root: a directory) */
	snprintf(path, sizeof(path), "%s/max_graph_depth", tree);
	if (unlink(path) || mkdir(path, 0755))
		exit(1);
	toplevel_release(&tl);
	exit(tl.failed ? 3 : 0);
}

/* A setting that cannot be written back: said, the run fails, the state is kept for the
 * next run, and what could be written back was. */
static void test_write_back_fails(void **state)
{
	(void)state;
	char err[1024], buf[1024];
	assert_int_equal(run_child(unwritable, NULL, err, sizeof(err)), 3);
	if (!strstr(err, "stuck: could not write back at the top level: max_graph_depth ("))
		fail_msg("got '%s'", err);
	assert_non_null(read_file(run, "top-level", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "\nset max_graph_depth 0\n"));
	assert_file("current_tracer", "nop");
}

static void first_run(const void *arg)
{
	(void)arg;
	struct toplevel tl;
	exit(toplevel_acquire(&tl, "funcgraph") ? 1 : 0);
}

/* A top level used by someone else is refused, with what uses it, and left alone. */
static void test_in_use(void **state)
{
	(void)state;
	char err[1024];
	write_file(tree, "current_tracer", "function\n");
	assert_int_equal(run_child(first_run, NULL, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "current_tracer is function, not set by ftrace-tools"));
	assert_file("current_tracer", "function\n");
	write_file(tree, "current_tracer", "nop\n");
	write_file(tree, "set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
	assert_int_equal(run_child(first_run, NULL, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "events are enabled there (sched:sched_switch, ..."));
	write_file(tree, "set_event", "");
	write_file(tree, "ftrace-lock", "4242\n");
	assert_int_equal(run_child(first_run, NULL, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "in use by perf-tools: "));
	assert_non_null(strstr(err, "names PID 4242"));
	assert_file("ftrace-lock", "4242\n");
	assert_file("run/top-level", "");
}

/* A state file as another user could plant it: its "dir" and "set" lines must not make
 * root write outside tracefs, and a file that is not root's 0600, or a link, is not read. */
static void test_hostile_state(void **state)
{
	(void)state;
	char err[1024], buf[64], text[1024], path[256];
	write_file(tree, "victim", "safe\n");
	mkdir(run, 0700);
	/* a dir outside tracefs, then a file climbing out of the tracing folder */
	snprintf(text, sizeof(text),
		 "owner 999999 evil 0\ndir /etc\nset ftt-no-such-file X\n"
		 "dir %s\nset ../%s/victim OWNED\nset /victim OWNED\n",
		 tree, strrchr(tree, '/') + 1);
	write_file(run, "top-level", text);
	snprintf(path, sizeof(path), "%s/top-level", run);
	chmod(path, 0600);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_file("victim", "safe\n");
	assert_int_equal(access("/etc/ftt-no-such-file", F_OK), -1);
	assert_non_null(strstr(err, "could not write back"));
	/* the same state writable by others, or a link: not read at all */
	snprintf(text, sizeof(text), "owner 999999 evil 0\ndir %s\nset victim OWNED\n", tree);
	write_file(run, "top-level", text);
	chmod(path, 0644);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_file("victim", "safe\n");
	assert_non_null(strstr(err, "not root's with mode 0600"));
	char other[256];
	snprintf(other, sizeof(other), "%s/other", tree);
	rename(path, other);
	chmod(other, 0600);
	assert_int_equal(symlink(other, path), 0);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_file("victim", "safe\n");
	/* and the owner's own run refuses it rather than write over it */
	struct toplevel tl;
	assert_int_equal(toplevel_acquire(&tl, "test_toplevel"), -1);
	unlink(path);
	(void)buf;
}

/* A list added to (funcgraph's -p: one thread ID a write, as many as there are): the first
 * replaces, the others are appended, and what was found is written back once. */
static void test_add(void **state)
{
	(void)state;
	struct toplevel tl;
	char buf[1024];
	assert_int_equal(toplevel_acquire(&tl, "test_toplevel"), 0);
	assert_int_equal(toplevel_set(&tl, "set_ftrace_pid", "12"), 0);
	assert_int_equal(toplevel_add(&tl, "set_ftrace_pid", "13"), 0);
	assert_int_equal(toplevel_add(&tl, "set_ftrace_pid", "14"), 0);
	assert_file("set_ftrace_pid", "121314"); /* a plain file: the kernel reads each write */
	assert_non_null(read_file(run, "top-level", buf, sizeof(buf)));
	char *first = strstr(buf, "\nset set_ftrace_pid \n");
	assert_non_null(first);
	assert_null(strstr(first + 2, "set set_ftrace_pid"));
	assert_int_equal(toplevel_add(&tl, "no_such_list", "1"), -1);
	toplevel_release(&tl);
	assert_file("set_ftrace_pid", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test_setup_teardown(test_set_release, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_add, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_second_run_named, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_recover_after_kill, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_emergency, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_in_use, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_write_back_fails, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_hostile_state, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
