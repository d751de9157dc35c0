// SPDX-License-Identifier: GPL-2.0-only
/* reset-ftrace's work against a fake tracefs tree and a private state folder: the top level
 * reset as perf-tools resets it, each change said once, nothing written that was already at
 * rest, and refused while a run of these tools owns it, perf-tools' lock exists or a process
 * reads its buffers; the sweep's dry run and what it leaves. */
#include "helpers.h"

#include <errno.h>
#include <signal.h>

#include <tracefs.h>

#include "kernel/reset.h"
#include "base/runid.h"
#include "base/state.h"
#include "kernel/sweep.h"
#include "kernel/toplevel.h"

static char tree[64], lock[128], run[128], mounts[128];
static pid_t child; /* a reader or an owner a test made: gone with the tree, failed or not */

/* The top level at rest, each file as the kernel shows it. */
static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-reset-XXXXXX");
	assert_non_null(mkdtemp(tree));
	write_file(tree, "current_tracer", "nop\n");
	write_file(tree, "set_ftrace_filter", "#### all functions enabled ####\n");
	write_file(tree, "set_ftrace_notrace", "");
	write_file(tree, "set_graph_function", "#### all functions enabled ####\n");
	write_file(tree, "set_graph_notrace", "#### no functions disabled ####\n");
	write_file(tree, "set_ftrace_pid", "no pid\n");
	write_file(tree, "set_event_pid", "");
	write_file(tree, "set_event", "");
	write_file(tree, "events/enable", "0\n");
	write_file(tree, "tracing_thresh", "0\n");
	write_file(tree, "kprobe_events", "");
	write_file(tree, "uprobe_events", "");
	write_file(tree, "tracing_on", "1\n");
	write_file(tree, "trace_pipe", "");
	write_file(tree, "mounts", "");
	mkdir(strcat(strcpy(lock, tree), "/instances"), 0755);
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	snprintf(run, sizeof(run), "%s/run", tree);
	snprintf(lock, sizeof(lock), "%s/ftrace-lock", tree);
	snprintf(mounts, sizeof(mounts), "%s/mounts", tree);
	state_dir_for_tests = run;
	state_fake_tracefs = true;
	toplevel_perf_tools_lock = lock;
	reset_mounts_for_tests = mounts; /* only the fake tree's readers count */
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	child = 0;
	rm_rf(tree);
	return 0;
}

static void assert_file(const char *rel, const char *want)
{
	char buf[1024];
	assert_non_null(read_file(tree, rel, buf, sizeof(buf)));
	assert_string_equal(buf, want);
}

/* Everything a tracer left set. */
static void set_all(void)
{
	write_file(tree, "current_tracer", "function_graph\n");
	write_file(tree, "set_ftrace_filter", "vfs_read\nvfs_write\n");
	write_file(tree, "set_graph_function", "do_sys_openat2\n");
	write_file(tree, "set_ftrace_pid", "12\n34\n");
	write_file(tree, "set_event", "sched:sched_switch\nsyscalls:sys_enter_read\n");
	write_file(tree, "events/enable", "X\n");
	write_file(tree, "tracing_thresh", "100\n");
	write_file(tree, "kprobe_events", "p:kprobes/myopen do_sys_openat2\n");
	write_file(tree, "tracing_on", "0\n");
}

/* reset_toplevel with these options; what it said on stdout in out. */
static int reset(bool dry, bool force, char *out, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	struct reset_opts o = {"reset-ftrace", f, dry, force};
	int ret = reset_toplevel(&o);
	fclose(f);
	snprintf(out, len, "%s", buf);
	free(buf);
	return ret;
}

static const char said_all[] =
	"%s current_tracer from function_graph to nop\n"
	"%s set_ftrace_filter (it held vfs_read vfs_write)\n"
	"%s set_graph_function (it held do_sys_openat2)\n"
	"%s set_ftrace_pid (it held 12 34)\n"
	"%s 2 events at the top level: sched:sched_switch syscalls:sys_enter_read\n"
	"%s tracing_thresh from 100 to 0\n"
	"%s kprobe p:kprobes/myopen do_sys_openat2\n"
	"%s tracing_on from 0 to 1\n";

/* Everything reset, in perf-tools' order (the tracer first), each change one line. */
static void test_reset_all(void **state)
{
	(void)state;
	char out[2048], want[2048];
	set_all();
	assert_int_equal(reset(false, false, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), said_all, "set", "emptied", "emptied", "emptied", "disabled",
		 "set", "removed", "set");
	assert_string_equal(out, want);
	assert_file("current_tracer", "nop");
	assert_file("set_ftrace_filter", "");
	assert_file("set_graph_function", "");
	assert_file("set_ftrace_pid", "");
	assert_file("events/enable", "0");
	assert_file("tracing_thresh", "0");
	/* a probe is removed by a line added to the file */
	assert_file("kprobe_events", "p:kprobes/myopen do_sys_openat2\n-:kprobes/myopen\n");
	assert_file("tracing_on", "1");
	/* what was at rest is not written: its text is as the kernel showed it */
	assert_file("set_graph_notrace", "#### no functions disabled ####\n");
	assert_file("uprobe_events", "");
}

/* -n: the same lines, said as what would be done, and nothing written. */
static void test_dry(void **state)
{
	(void)state;
	char out[2048], want[2048];
	set_all();
	assert_int_equal(reset(true, false, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), said_all, "would set", "would empty", "would empty",
		 "would empty", "would disable", "would set", "would remove", "would set");
	assert_string_equal(out, want);
	assert_file("current_tracer", "function_graph\n");
	assert_file("set_ftrace_filter", "vfs_read\nvfs_write\n");
	assert_file("events/enable", "X\n");
	assert_file("kprobe_events", "p:kprobes/myopen do_sys_openat2\n");
	assert_file("tracing_on", "0\n");
}

/* At rest already: said, and not one file written. */
static void test_nothing(void **state)
{
	(void)state;
	char out[512];
	assert_int_equal(reset(false, false, out, sizeof(out)), 0);
	assert_string_equal(out, "nothing to reset at the top level\n");
	assert_file("current_tracer", "nop\n");
	assert_file("events/enable", "0\n");
	assert_file("tracing_on", "1\n");
}

/* Files this kernel lacks are not missed; one it refuses is said and left, not a failure
 * (6.18 with lockdown refuses set_ftrace_filter: no function tracer runs to use it). */
static void test_missing_and_refused(void **state)
{
	(void)state;
	char path[256], out[1024];
	snprintf(path, sizeof(path), "%s/tracing_thresh", tree);
	unlink(path);
	snprintf(path, sizeof(path), "%s/set_ftrace_filter", tree);
	unlink(path);
	assert_int_equal(mkdir(path, 0755), 0); /* read and write fail: EISDIR */
	assert_int_equal(reset(false, false, out, sizeof(out)), 0);
	assert_string_equal(out, "left set_ftrace_filter as it is: the kernel refuses it (Is a "
				 "directory)\n"
				 "nothing to reset at the top level\n");
}

static void call_reset(const void *arg)
{
	char out[2048];
	exit(reset(false, arg != NULL, out, sizeof(out)) ? 1 : 0);
}

/* perf-tools' lock: refused (nothing changed) unless forced; forced, the lock goes too. */
static void test_perf_lock(void **state)
{
	(void)state;
	char err[1024], out[2048];
	set_all();
	write_file(tree, "ftrace-lock", "999999999\n");
	assert_int_equal(run_child(call_reset, NULL, err, sizeof(err)), 1);
	char want[512];
	snprintf(want, sizeof(want),
		 "reset-ftrace: ftrace is in use by perf-tools: %s names PID 999999999, gone: not "
		 "reset (-f removes the lock and resets)\n",
		 lock);
	assert_string_equal(err, want);
	assert_file("current_tracer", "function_graph\n");
	assert_int_equal(reset(false, true, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "removed perf-tools' lock (%s names PID 999999999, gone)\n",
		 lock);
	assert_int_equal(strncmp(out, want, strlen(want)), 0);
	assert_int_equal(access(lock, F_OK), -1);
	assert_file("current_tracer", "nop");
}

/* A process that reads the top level's buffer: refused unless forced, and named. */
static void test_reader(void **state)
{
	(void)state;
	char err[1024], out[2048], path[256];
	snprintf(path, sizeof(path), "%s/trace_pipe", tree);
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t reader = child = fork();
	if (reader == 0) {
		int fd = open(path, O_RDONLY);
		if (fd < 0 || write(go[1], "x", 1) != 1)
			_exit(1);
		pause(); /* killed by remove_tree */
		_exit(0);
	}
	char c;
	close(go[1]); /* the child failing ends the read */
	assert_int_equal(read(go[0], &c, 1), 1);
	close(go[0]);
	set_all();
	assert_int_equal(run_child(call_reset, NULL, err, sizeof(err)), 1);
	char want[512];
	snprintf(want, sizeof(want), "PID %d (test_reset) reads trace_pipe: not reset",
		 (int)reader);
	if (!strstr(err, want))
		fail_msg("'%s' not in '%s'", want, err);
	assert_file("current_tracer", "function_graph\n");
	assert_int_equal(reset(false, true, out, sizeof(out)), 0);
	snprintf(want, sizeof(want),
		 "resetting the top level while PID %d (test_reset) reads "
		 "trace_pipe\nset current_tracer",
		 (int)reader);
	assert_int_equal(strncmp(out, want, strlen(want)), 0);
}

/* A run of these tools that owns the top level: refused even when forced, and named. */
static void test_owner(void **state)
{
	(void)state;
	char err[1024];
	int go[2], done[2];
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid_t owner = child = fork();
	if (owner == 0) {
		struct toplevel tl;
		char c;
		if (toplevel_acquire(&tl, "funcgraph") ||
		    toplevel_set(&tl, "current_tracer", "function_graph") ||
		    write(go[1], "x", 1) != 1)
			_exit(1);
		if (read(done[0], &c, 1) < 0)
			_exit(1);
		toplevel_release(&tl);
		_exit(0);
	}
	char c;
	close(go[1]);
	close(done[0]);
	assert_int_equal(read(go[0], &c, 1), 1);
	close(go[0]);
	assert_int_equal(run_child(call_reset, "force", err, sizeof(err)), 1);
	char want[256];
	snprintf(want, sizeof(want), "in use by funcgraph (PID %d, since ", (int)owner);
	if (!strstr(err, want) || !strstr(err, "stop it first"))
		fail_msg("'%s' not in '%s'", want, err);
	assert_file("current_tracer", "function_graph");
	assert_int_equal(write(done[1], "x", 1), 1);
	close(done[1]);
	int st;
	waitpid(owner, &st, 0);
	child = 0;
	assert_int_equal(st, 0);
	assert_file("current_tracer", "nop");
}

/* The probes of these tools are the sweep's, never the top level's reset: kept. */
static void test_own_probes_kept(void **state)
{
	(void)state;
	char out[1024], probes[256], want[512];
	snprintf(probes, sizeof(probes), "p:ftt_%s/open do_sys_openat2\nr:mine/ret vfs_read\n",
		 runid_self());
	write_file(tree, "kprobe_events", probes);
	assert_int_equal(reset(false, false, out, sizeof(out)), 0);
	assert_string_equal(out, "removed kprobe r:mine/ret vfs_read\n");
	snprintf(want, sizeof(want), "%s-:mine/ret\n", probes);
	assert_file("kprobe_events", want);
}

/* The sweep as reset-ftrace runs it: with dry, only said; with left, a live run's instance
 * said as left; then done. */
static void test_sweep_dry_and_left(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char stale[96], reused[96], live[96], rel[256];
	snprintf(stale, sizeof(stale), "ftrace-tools-iosnoop-%d_123_abcd", (int)dead);
	/* This PID with another start time: a run that had the PID before this process. */
	snprintf(reused, sizeof(reused), "ftrace-tools-opensnoop-%d_123_abcd", (int)getpid());
	snprintf(live, sizeof(live), "ftrace-tools-iolatency-%s", runid_self());
	snprintf(rel, sizeof(rel), "%s/instances/%s", tree, stale);
	assert_int_equal(mkdir(rel, 0755), 0);
	snprintf(rel, sizeof(rel), "%s/instances/%s", tree, reused);
	assert_int_equal(mkdir(rel, 0755), 0);
	snprintf(rel, sizeof(rel), "%s/instances/%s", tree, live);
	assert_int_equal(mkdir(rel, 0755), 0);
	char *buf = NULL, want[1024];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct sweep_how how = {.out = f, .dry = true, .left = true};
	assert_int_equal(sweep_with("reset-ftrace", &how), 2);
	fflush(f);
	snprintf(want, sizeof(want),
		 "would remove instance %s left by a run that ended without removing it (PID %d "
		 "is gone)\n",
		 stale, (int)dead);
	if (!strstr(buf, want))
		fail_msg("'%s' not in '%s'", want, buf);
	snprintf(want, sizeof(want),
		 "would remove instance %s left by a run that ended without removing it (PID %d "
		 "is another process now)\n",
		 reused, (int)getpid());
	if (!strstr(buf, want))
		fail_msg("'%s' not in '%s'", want, buf);
	snprintf(want, sizeof(want), "left instance %s: its run (PID %d) is alive\n", live,
		 (int)getpid());
	if (!strstr(buf, want))
		fail_msg("'%s' not in '%s'", want, buf);
	snprintf(rel, sizeof(rel), "%s/instances/%s", tree, stale);
	assert_int_equal(access(rel, F_OK), 0); /* dry: still there */
	how.dry = false;
	assert_int_equal(sweep_with("reset-ftrace", &how), 2);
	fclose(f);
	free(buf);
	assert_int_equal(access(rel, F_OK), -1);
	snprintf(rel, sizeof(rel), "%s/instances/%s", tree, reused);
	assert_int_equal(access(rel, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reset_all, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_dry, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_nothing, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_missing_and_refused, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_perf_lock, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_reader, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_owner, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_own_probes_kept, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_sweep_dry_and_left, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
