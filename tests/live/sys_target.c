// SPDX-License-Identifier: GPL-2.0-only
/* A program for syscount's live tests, built static (no dynamic loader opening libraries):
 * sys_target N M makes N getppid() calls and M open() calls that fail with ENOENT, then
 * exits 0. Other calls: those of the C library's start and exit. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, m = argc > 2 ? atol(argv[2]) : 0;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		open("/nonexistent/ftt-sys", O_RDONLY);
	return 0;
}
