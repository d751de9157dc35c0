// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdtrack.c without a kernel: the dups and fcntl as their exits apply them to a table, the
 * stand-in of a descriptor not seen made, and the type of an opened file looked at late
 * through a copy of /proc made here (a file, a fifo, a link that leads elsewhere now).
 */
#include "helpers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "domain/fdtrack.h"

#define NAME(f) ((f) ? (f)->name : "(none)")

static void dups_and_fcntl(void **state)
{
	(void)state;
	struct fdtrack ft = FDTRACK_INIT;
	assert_int_equal(fdtab_init(&ft.tab), 0);
	struct fdtab_file *f = fdtab_open(&ft.tab, 7, 3, "/a", 2, 'R', false);
	/* dup(3) = 4 */
	fdtrack_apply(&ft, 7, 0, (long long[3]){3, 0, 0}, 4);
	assert_ptr_equal(fdtab_get(&ft.tab, 7, 4), f);
	/* a failed dup2 changes nothing */
	fdtrack_apply(&ft, 7, 1, (long long[3]){3, 9, 0}, -9);
	assert_null(fdtab_get(&ft.tab, 7, 9));
	/* dup3(3, 9, O_CLOEXEC): gone at exec, 3 and 4 not */
	fdtrack_apply(&ft, 7, 2, (long long[3]){3, 9, O_CLOEXEC}, 9);
	assert_ptr_equal(fdtab_get(&ft.tab, 7, 9), f);
	/* fcntl(3, F_DUPFD_CLOEXEC, 20) = 20; fcntl(4, F_SETFD, FD_CLOEXEC) */
	fdtrack_apply(&ft, 7, 3, (long long[3]){3, F_DUPFD_CLOEXEC, 20}, 20);
	fdtrack_apply(&ft, 7, 3, (long long[3]){4, F_SETFD, FD_CLOEXEC}, 0);
	/* an unknown descriptor dup2'd over a known one: unknown */
	fdtab_open(&ft.tab, 7, 5, "/b", 2, 'R', false);
	fdtrack_apply(&ft, 7, 1, (long long[3]){6, 5, 0}, 5);
	assert_null(fdtab_get(&ft.tab, 7, 5));
	fdtab_exec(&ft.tab, 7);
	assert_ptr_equal(fdtab_get(&ft.tab, 7, 3), f);
	assert_null(fdtab_get(&ft.tab, 7, 4));
	assert_null(fdtab_get(&ft.tab, 7, 9));
	assert_null(fdtab_get(&ft.tab, 7, 20));
	fdtab_free(&ft.tab);
}

static void stand_in(void **state)
{
	(void)state;
	struct fdtrack ft = FDTRACK_INIT;
	assert_int_equal(fdtab_init(&ft.tab), 0);
	struct fdtab_file *f = fdtrack_file(&ft, 7, 12);
	assert_non_null(f);
	assert_true(f->unnamed);
	assert_int_equal(f->type, '?');
	assert_string_equal(f->name, "[fd 12: not seen opened]");
	assert_int_equal(ft.unnamed, 1);
	/* kept: the same stand-in, counted once */
	assert_ptr_equal(fdtrack_file(&ft, 7, 12), f);
	assert_int_equal(ft.unnamed, 1);
	/* made again by an open: named */
	fdtab_open(&ft.tab, 7, 12, "/c", 2, 'R', false);
	assert_string_equal(NAME(fdtrack_file(&ft, 7, 12)), "/c");
	fdtab_free(&ft.tab);
}

static void late_type(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_fdtrack.XXXXXX", p[512], q[512], r[512];
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/42/fd", dir);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	snprintf(q, sizeof(q), "%s/file\nx", dir);
	int fd = open(q, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(r, sizeof(r), "%s/fifo", dir);
	assert_int_equal(mkfifo(r, 0600), 0);
	snprintf(p, sizeof(p), "%s/42/fd/3", dir);
	assert_int_equal(symlink(q, p), 0);
	snprintf(p, sizeof(p), "%s/42/fd/4", dir);
	assert_int_equal(symlink(r, p), 0);
	/* the descriptor leads to a name ending with the open's path (relative too) */
	assert_int_equal(fdtrack_late_type(dir, 42, 3, q, strlen(q)), 'R');
	assert_int_equal(fdtrack_late_type(dir, 42, 3, "file\nx", 6), 'R');
	assert_int_equal(fdtrack_late_type(dir, 42, 4, "fifo", 4), 'O');
	/* it leads elsewhere now: an absolute path is looked at, a relative one is not known */
	assert_int_equal(fdtrack_late_type(dir, 42, 3, r, strlen(r)), 'O');
	assert_int_equal(fdtrack_late_type(dir, 42, 3, "fifo", 4), '?');
	/* no such process any more */
	assert_int_equal(fdtrack_late_type(dir, 43, 3, q, strlen(q)), 'R');
	assert_int_equal(fdtrack_late_type(dir, 43, 3, "/nonexistent/x", 14), '?');
	assert_int_equal(fdtrack_late_type(dir, 43, 3, "", 0), '?');
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dups_and_fcntl),
		cmocka_unit_test(stand_in),
		cmocka_unit_test(late_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
