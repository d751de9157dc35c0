// SPDX-License-Identifier: GPL-2.0-only
/* What a killed run leaves to undo (undo.h), in a private state folder (state.h), and
 * the order of the signal module's emergency steps when one is put before another. */
#include "helpers.h"

#include <dirent.h>
#include <signal.h>

#include <tracefs.h>

#include "base/runid.h"
#include "base/sig.h"
#include "base/state.h"
#include "kernel/undo.h"

static char tree[64], run[128], target[128];

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-undo-XXXXXX");
	assert_non_null(mkdtemp(tree));
	snprintf(run, sizeof(run), "%s/run", tree);
	snprintf(target, sizeof(target), "%s/trigger", tree);
	write_file(tree, "trigger", "");
	write_file(tree, "victim", "");
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	state_dir_for_tests = run;
	state_fake_tracefs = true; /* the tree is on tmpfs: only the path is checked */
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	rm_rf(tree);
	return 0;
}

static int files_in_run(void)
{
	DIR *d = opendir(run);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* A run that adds its two lines, then dies (as by SIGKILL) or ends as it should. */
static void owner(const void *arg)
{
	struct undo u;
	if (undo_begin(&u, "owner") || undo_add(&u, target, "!second") ||
	    undo_add(&u, target, "!first"))
		exit(1);
	if (arg)
		undo_end(&u);
	_exit(0);
}

static void recover(const void *arg)
{
	exit(undo_recover(arg));
}

/* Killed: the next run writes its lines in the order given, says so, and removes the file;
 * a second sweep has nothing left to do. */
static void test_recover_after_kill(void **state)
{
	(void)state;
	char err[512], buf[64];
	assert_int_equal(run_child(owner, NULL, err, sizeof(err)), 0);
	assert_int_equal(files_in_run(), 1);
	assert_string_equal(read_file(tree, "trigger", buf, sizeof(buf)), "");
	assert_int_equal(run_child(recover, "tpoint", err, sizeof(err)), 1);
	assert_string_equal(err, "tpoint: removed 2 hist triggers left by a run that was killed\n");
	assert_string_equal(read_file(tree, "trigger", buf, sizeof(buf)), "!second!first");
	assert_int_equal(files_in_run(), 0);
	assert_int_equal(run_child(recover, "tpoint", err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* Ended as it should: nothing left for a sweep. */
static void test_end(void **state)
{
	(void)state;
	char err[512], buf[64];
	assert_int_equal(run_child(owner, "end", err, sizeof(err)), 0);
	assert_int_equal(files_in_run(), 0);
	assert_int_equal(run_child(recover, "tpoint", err, sizeof(err)), 0);
	assert_string_equal(read_file(tree, "trigger", buf, sizeof(buf)), "");
}

/* Alive: its lock is held, so a sweep leaves its file alone. */
static void test_alive(void **state)
{
	(void)state;
	char err[512], buf[64];
	struct undo u;
	assert_int_equal(undo_begin(&u, "alive"), 0);
	assert_int_equal(undo_add(&u, target, "!mine"), 0);
	assert_int_equal(run_child(recover, "tpoint", err, sizeof(err)), 0);
	assert_string_equal(read_file(tree, "trigger", buf, sizeof(buf)), "");
	assert_int_equal(files_in_run(), 1);
	undo_end(&u);
	undo_end(&u);
	assert_int_equal(files_in_run(), 0);
}

/* A line that the file cannot hold as one is refused, not cut. */
static void test_refused(void **state)
{
	(void)state;
	struct undo u;
	assert_int_equal(undo_begin(&u, "refused"), 0);
	assert_int_equal(undo_add(&u, target, "two\nlines"), -1);
	undo_end(&u);
}

/* Emergency steps: one put before another runs first, handles stay their steps', and the
 * rmdir steps run before all (a write through the directory, registered before it, finds
 * it gone). */
static void emergency(const void *arg)
{
	(void)arg;
	char dir[160], via[192];
	snprintf(dir, sizeof(dir), "%s/dir", tree);
	snprintf(via, sizeof(via), "%s/../trigger", dir);
	if (mkdir(dir, 0700))
		exit(1);
	int b = sig_on_emergency_write(target, "B");
	int c = sig_on_emergency_write(target, "C");
	if (sig_on_emergency_write(via, "R") < 0 || sig_on_emergency_rmdir(dir) < 0 ||
	    sig_on_emergency_write_before(b, target, "A") < 0 ||
	    sig_on_emergency_write_before(-1, target, "D") < 0)
		exit(1);
	sig_forget(c);
	sig_emergency();
	_exit(0);
}

static void test_emergency_order(void **state)
{
	(void)state;
	char err[512], buf[64];
	write_file(tree, "trigger", "");
	assert_int_equal(run_child(emergency, NULL, err, sizeof(err)), 0);
	assert_string_equal(read_file(tree, "trigger", buf, sizeof(buf)), "ABD");
}

/* A file in the state folder as another user could leave it: a run id that is not alive,
 * lines of "PATH\tTEXT". */
static void plant(const char *name, const char *text, mode_t mode)
{
	char rel[256];
	mkdir(run, 0700);
	snprintf(rel, sizeof(rel), "run/%s", name);
	write_file(tree, rel, text);
	snprintf(rel, sizeof(rel), "%s/%s", run, name);
	assert_int_equal(chmod(rel, mode), 0);
}

static char dead_file[64];

static const char *dead_name(void)
{
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(dead_file, sizeof(dead_file), "undo-%d_1_abcd", (int)dead);
	return dead_file;
}

/* A replayed line writes only inside tracefs: a path outside the tracing folder, or one
 * that climbs out of it with "..", is not written and the file is kept (said). */
static void test_only_tracefs(void **state)
{
	(void)state;
	char err[1024], buf[64], text[1024];
	snprintf(text, sizeof(text),
		 "%s/victim\tOWNED\n%s/../%s/victim\tOWNED\n/etc/ftt-no-such\tX\n", tree, tree,
		 strrchr(tree, '/') + 1);
	plant(dead_name(), text, 0600);
	/* Only the first is inside the tree: make it the tracing folder's file, the others
	 * outside or climbing. */
	run_child(recover, "tpoint", err, sizeof(err));
	assert_string_equal(read_file(tree, "victim", buf, sizeof(buf)), "OWNED");
	assert_non_null(strstr(err, "could not be undone"));
	/* The same path on a file system that is not tracefs: refused. */
	write_file(tree, "victim", "");
	state_fake_tracefs = false;
	snprintf(text, sizeof(text), "%s/victim\tOWNED\n", tree);
	plant(dead_name(), text, 0600);
	run_child(recover, "tpoint", err, sizeof(err));
	state_fake_tracefs = true;
	assert_string_equal(read_file(tree, "victim", buf, sizeof(buf)), "");
}

/* A state file that is not root's 0600 with one link, a link, or not of the exact name
 * form, is never replayed; the first two are said. A folder that others can enter is not
 * used at all. */
static void test_untrusted_files(void **state)
{
	(void)state;
	char err[1024], buf[64], text[512], path[256], link[256];
	snprintf(text, sizeof(text), "%s/victim\tOWNED\n", tree);
	plant(dead_name(), text, 0644);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_string_equal(read_file(tree, "victim", buf, sizeof(buf)), "");
	assert_non_null(strstr(err, "not root's with mode 0600"));
	snprintf(path, sizeof(path), "%s/%s", run, dead_file);
	unlink(path);
	/* a link to a file of the right mode elsewhere */
	write_file(tree, "elsewhere", text);
	snprintf(path, sizeof(path), "%s/elsewhere", tree);
	chmod(path, 0600);
	snprintf(link, sizeof(link), "%s/%s", run, dead_name());
	assert_int_equal(symlink(path, link), 0);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_string_equal(read_file(tree, "victim", buf, sizeof(buf)), "");
	unlink(link);
	/* a name not of the form undo-<run id> */
	plant("undo-foo", text, 0600);
	plant("undo-1_1_abcde", text, 0600);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_string_equal(read_file(tree, "victim", buf, sizeof(buf)), "");
	/* the folder open to others: neither replayed nor made use of */
	plant(dead_name(), text, 0600);
	assert_int_equal(chmod(run, 0755), 0);
	run_child(recover, "tpoint", err, sizeof(err));
	assert_string_equal(read_file(tree, "victim", buf, sizeof(buf)), "");
	assert_non_null(strstr(err, "not to be trusted"));
	struct undo u;
	assert_int_equal(undo_begin(&u, "tpoint"), -1);
	chmod(run, 0700);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recover_after_kill, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_end, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_alive, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_refused, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_emergency_order, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_only_tracefs, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_untrusted_files, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
