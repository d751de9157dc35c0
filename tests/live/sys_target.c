// SPDX-License-Identifier: GPL-2.0-only
/* A program for the live tests of syscount and the function tools, built static (no dynamic
 * loader opening libraries): sys_target N M [USECS...] makes N getppid() calls and M open()
 * calls that fail with ENOENT, then calls ftt_nap(USECS) for each USECS given (a
 * nanosleep() of that long), and exits 0. Other calls: those of the C library's start and
 * exit. sys_target values V...: for each V (any 64-bit number, -1 or 18446744073709551615)
 * calls ftt_value(V) and write(2) to /dev/null with V as its count (the histogram tests).
 * sys_target reads N: N read(2) calls of 1 byte from /dev/zero (--exec's exact counts). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Takes at least usecs microseconds (funcslower's known slow calls). */
__attribute__((noinline)) long ftt_nap(long usecs)
{
	struct timespec ts = {usecs / 1000000, usecs % 1000000 * 1000};
	while (nanosleep(&ts, &ts))
		;
	__asm__ volatile("" ::: "memory");
	return usecs / 1000;
}

__attribute__((noinline)) long ftt_value(long v)
{
	__asm__ volatile("" ::: "memory");
	return v;
}

static int values(int argc, char **argv)
{
	int fd = open("/dev/null", O_WRONLY);
	static char buf[1];
	for (int i = 2; i < argc; i++) {
		long v = argv[i][0] == '-' ? strtol(argv[i], NULL, 0) :
					     (long)strtoull(argv[i], NULL, 0);
		ftt_value(v);
		syscall(SYS_write, fd, buf, v); /* a huge count: EFAULT, after the tracepoint */
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "values"))
		return values(argc, argv);
	if (argc > 2 && !strcmp(argv[1], "reads")) {
		int fd = open("/dev/zero", O_RDONLY);
		char b;
		for (long i = atol(argv[2]); i > 0; i--)
			if (read(fd, &b, 1) != 1)
				return 1;
		return 0;
	}
	long n = argc > 1 ? atol(argv[1]) : 0, m = argc > 2 ? atol(argv[2]) : 0;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		open("/nonexistent/ftt-sys", O_RDONLY);
	for (int i = 3; i < argc; i++)
		ftt_nap(atol(argv[i]));
	return 0;
}
