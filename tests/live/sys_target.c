// SPDX-License-Identifier: GPL-2.0-only
/* A program for the live tests of syscount and the function tools, built static (no dynamic
 * loader opening libraries): sys_target N M [USECS...] makes N getppid() calls and M open()
 * calls that fail with ENOENT, then calls ftt_nap(USECS) for each USECS given (a
 * nanosleep() of that long), and exits 0. Other calls: those of the C library's start and
 * exit. */
#include <fcntl.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, m = argc > 2 ? atol(argv[2]) : 0;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		open("/nonexistent/ftt-sys", O_RDONLY);
	for (int i = 3; i < argc; i++)
		ftt_nap(atol(argv[i]));
	return 0;
}
