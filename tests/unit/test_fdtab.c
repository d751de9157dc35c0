// SPDX-License-Identifier: GPL-2.0-only
/*
 * The descriptor tables (fdtab.c): opens, dups, closes, close_range, close-on-exec at exec,
 * fork and exit, a loss; and the read of /proc/PID/fd on a copy of /proc made here (links
 * to a file, a fifo and a name that is no file; fdinfo's flags).
 */
#include "helpers.h"

#include "domain/fdtab.h"

#define NAME(f) ((f) ? (f)->name : "(none)")

static void opens_dups_closes(void **state)
{
	(void)state;
	struct fdtab t;
	assert_int_equal(fdtab_init(&t), 0);
	const char bad[] = "a\nb\xff c";
	struct fdtab_file *f = fdtab_open(&t, 10, 3, bad, sizeof(bad) - 1, 'R', false);
	assert_non_null(f);
	assert_int_equal(f->len, sizeof(bad) - 1);
	assert_memory_equal(fdtab_get(&t, 10, 3)->name, bad, sizeof(bad));
	assert_null(fdtab_get(&t, 10, 4));
	assert_null(fdtab_get(&t, 11, 3));
	/* dup2(3, 100): the same file, counted once */
	fdtab_dup(&t, 10, 3, 100, false);
	assert_ptr_equal(fdtab_get(&t, 10, 100), f);
	assert_int_equal(f->refs, 2);
	fdtab_close(&t, 10, 3);
	assert_null(fdtab_get(&t, 10, 3));
	assert_ptr_equal(fdtab_get(&t, 10, 100), f);
	/* an unknown descriptor dup'd over a known one: unknown, not the old name */
	fdtab_dup(&t, 10, 7, 100, false);
	assert_null(fdtab_get(&t, 10, 100));
	/* reopened: the new name replaces the old */
	fdtab_open(&t, 10, 5, "x", 1, 'R', false);
	fdtab_open(&t, 10, 5, "y", 1, 'O', false);
	assert_string_equal(NAME(fdtab_get(&t, 10, 5)), "y");
	assert_int_equal(fdtab_get(&t, 10, 5)->type, 'O');
	/* a caller's reference outlives the table's */
	f = fdtab_get(&t, 10, 5);
	fdtab_hold(f);
	fdtab_close(&t, 10, 5);
	assert_string_equal(f->name, "y");
	fdtab_put(f);
	/* descriptors far up, and one too large to keep */
	assert_non_null(fdtab_open(&t, 10, 5000, "far", 3, 'R', false));
	assert_null(fdtab_open(&t, 10, 1 << 21, "huge", 4, 'R', false));
	assert_null(fdtab_get(&t, 10, 1 << 21));
	assert_null(fdtab_open(&t, 10, -1, "neg", 3, 'R', false));
	fdtab_free(&t);
}

static void ranges_exec_fork_exit(void **state)
{
	(void)state;
	struct fdtab t;
	assert_int_equal(fdtab_init(&t), 0);
	for (int fd = 0; fd < 10; fd++)
		fdtab_open(&t, 20, fd, "f", 1, 'R', fd % 2);
	/* close_range(8, ~0U): 8 and 9 gone */
	fdtab_close_range(&t, 20, 8, ~0U, false);
	assert_null(fdtab_get(&t, 20, 8));
	assert_null(fdtab_get(&t, 20, 9));
	/* a child made now has the parent's 0..7 */
	fdtab_dup(&t, 20, 2, 30, false);
	fdtab_fork(&t, 20, 21);
	assert_non_null(fdtab_get(&t, 21, 7));
	/* the child's files are its own (its rows), named alike, a dup'd pair still one */
	assert_ptr_not_equal(fdtab_get(&t, 21, 7), fdtab_get(&t, 20, 7));
	assert_int_equal(fdtab_get(&t, 21, 7)->tgid, 21);
	assert_string_equal(fdtab_get(&t, 21, 7)->name, "f");
	assert_ptr_equal(fdtab_get(&t, 21, 2), fdtab_get(&t, 21, 30));
	assert_ptr_not_equal(fdtab_get(&t, 21, 2), fdtab_get(&t, 21, 4));
	/* close_range(0, 1, CLOSE_RANGE_CLOEXEC) then exec: the odd ones and 0 gone */
	fdtab_close_range(&t, 21, 0, 1, true);
	fdtab_set_cloexec(&t, 21, 3, false);
	fdtab_exec(&t, 21);
	assert_null(fdtab_get(&t, 21, 0));
	assert_null(fdtab_get(&t, 21, 1));
	assert_non_null(fdtab_get(&t, 21, 2));
	assert_non_null(fdtab_get(&t, 21, 3));
	assert_null(fdtab_get(&t, 21, 5));
	/* the parent's are its own */
	assert_non_null(fdtab_get(&t, 20, 5));
	/* a child of an unknown parent knows nothing, also with its ID used before */
	fdtab_fork(&t, 99, 21);
	assert_null(fdtab_get(&t, 21, 2));
	fdtab_exit(&t, 20);
	assert_null(fdtab_get(&t, 20, 2));
	assert_int_equal(t.procs, 0);
	fdtab_open(&t, 30, 1, "g", 1, 'R', false);
	fdtab_forget(&t);
	assert_null(fdtab_get(&t, 30, 1));
	fdtab_free(&t);
}

static void from_proc(void **state)
{
	(void)state;
	char dir[] = "/tmp/ftt-fdtab.XXXXXX", p[512], q[512];
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/42", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/42/fd", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/42/fdinfo", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	write_file(dir, "file a", "x");
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	/* 3: a regular file, 4: a fifo, 5: a socket's link (no such file), 6: not a number */
	snprintf(p, sizeof(p), "%s/42/fd/3", dir);
	snprintf(q, sizeof(q), "%s/file a", dir);
	assert_int_equal(symlink(q, p), 0);
	snprintf(p, sizeof(p), "%s/42/fd/4", dir);
	snprintf(q, sizeof(q), "%s/fifo", dir);
	assert_int_equal(symlink(q, p), 0);
	snprintf(p, sizeof(p), "%s/42/fd/5", dir);
	assert_int_equal(symlink("socket:[1234]", p), 0);
	snprintf(p, sizeof(p), "%s/42/fd/x6", dir);
	assert_int_equal(symlink("/", p), 0);
	write_file(dir, "42/fdinfo/3", "pos:\t0\nflags:\t02100002\nmnt_id:\t1\n");
	write_file(dir, "42/fdinfo/4", "pos:\t0\nflags:\t00000000\n");
	struct fdtab t;
	assert_int_equal(fdtab_init(&t), 0);
	assert_int_equal(fdtab_read_proc(&t, dir, 42), 3);
	assert_int_equal(fdtab_read_proc(&t, dir, 43), -1);
	snprintf(q, sizeof(q), "%s/file a", dir);
	assert_string_equal(NAME(fdtab_get(&t, 42, 3)), q);
	assert_int_equal(fdtab_get(&t, 42, 3)->type, 'R');
	assert_int_equal(fdtab_get(&t, 42, 4)->type, 'O');
	assert_string_equal(NAME(fdtab_get(&t, 42, 5)), "socket:[1234]");
	assert_int_equal(fdtab_get(&t, 42, 5)->type, 'S');
	/* 3 was close-on-exec (02000000), 4 not */
	fdtab_exec(&t, 42);
	assert_null(fdtab_get(&t, 42, 3));
	assert_non_null(fdtab_get(&t, 42, 4));
	fdtab_free(&t);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opens_dups_closes),
		cmocka_unit_test(ranges_exec_fork_exit),
		cmocka_unit_test(from_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
