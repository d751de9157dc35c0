// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for execsnoop's live tests: it execs PROG with ARGS in one of the ways a program
 * can, and prints its PID first (on stdout, flushed):
 *   exec_target libc PROG ARGS...      execv() from the C library
 *   exec_target raw PROG ARGS...       the execve system call itself, not the C library's
 *   exec_target thread PROG ARGS...    execv() from a thread that is not the leader
 *   exec_target execveat PROG ARGS...  the C library's execveat() (AT_FDCWD)
 *   exec_target fexecve PROG ARGS...   the C library's fexecve() on PROG opened
 * An exec that fails says why on stderr and exits 127.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;
static char **args;

static void *thread(void *arg)
{
	(void)arg;
	execv(args[0], args);
	fprintf(stderr, "exec_target: thread %s: %s\n", args[0], strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: exec_target libc|raw|thread|execveat|fexecve PROG [ARGS]\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	args = argv + 2;
	const char *how = argv[1];
	if (!strcmp(how, "libc")) {
		execv(args[0], args);
	} else if (!strcmp(how, "raw")) {
		syscall(SYS_execve, args[0], args, environ);
	} else if (!strcmp(how, "thread")) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread, NULL) == 0)
			pthread_join(t, NULL);
	} else if (!strcmp(how, "execveat")) {
		execveat(AT_FDCWD, args[0], args, environ, 0);
	} else if (!strcmp(how, "fexecve")) {
		int fd = open(args[0], O_RDONLY);
		if (fd >= 0)
			fexecve(fd, args, environ);
	}
	fprintf(stderr, "exec_target: %s %s: %s\n", how, args[0], strerror(errno));
	return 127;
}
