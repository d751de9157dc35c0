/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the unit tests (header-only: each test is one binary). */
#ifndef FTT_TEST_HELPERS_H
#define FTT_TEST_HELPERS_H

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../fixture_tep.h"
#include "base/testhooks.h"

/* Run fn(arg) in a child; return its exit status and what it wrote on stderr. */
static inline int run_child(void (*fn)(const void *), const void *arg, char *err, size_t len)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		fn(arg);
		_exit(0);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < len && (r = read(p[0], err + n, len - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = 0;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The child must exit 2 with exactly one line on stderr that contains want. */
static inline void assert_usage_error(void (*fn)(const void *), const void *arg, const char *want)
{
	char err[1024];
	int st = run_child(fn, arg, err, sizeof(err));
	if (st != 2 || !strstr(err, want) || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("expected exit 2 and one line with '%s'; got exit %d, stderr '%s'", want,
			 st, err);
}

static inline void write_file(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	/* mkdir -p of the parent */
	for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* text into a new file made from the template path (its XXXXXX replaced: mkstemp). */
static inline void temp_file(char *path, const char *text)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static inline char *read_file(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static inline void rm_rf(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fail_msg("cannot remove %s", dir);
}

#endif
