// SPDX-License-Identifier: GPL-2.0-only
/* A program for the uprobe and opensnoop live tests: known calls with known arguments.
 * uprobe_target [START-FILE [N]]: wait for START-FILE, then make them (the opens N times).
 * Prints "sum len fd bad-result polls=P" (P: start-file checks that failed; 0 when it was
 * there at once). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int ftt_add(int a, int b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

__attribute__((noinline)) size_t ftt_greet(const char *s)
{
	__asm__ volatile("" ::: "memory");
	return strlen(s);
}

int main(int argc, char **argv)
{
	/* Optionally wait until a file exists, so a tracer can start first. */
	long polls = 0; /* 0: the start file was there at once (a diagnostic for the tests) */
	if (argc > 1)
		while (access(argv[1], F_OK) && ++polls)
			usleep(10000);
	int sum = 0;
	for (int i = 1; i <= 3; i++)
		sum += ftt_add(i, 10 * i);
	size_t n = ftt_greet("hello, uprobe");
	int fd = open("/proc/self/stat", O_RDONLY);
	int bad = open("/nonexistent/ftt-file", O_RDONLY);
	printf("%d %zu %d %d polls=%ld\n", sum, n, fd, bad, polls);
	/* Optionally, that pair of opens again, many times (a flood for the lost-event tests). */
	for (long i = 1; argc > 2 && i < atol(argv[2]); i++) {
		close(open("/proc/self/stat", O_RDONLY));
		open("/nonexistent/ftt-file", O_RDONLY);
	}
	/* Stay a moment: a tool names a process from /proc, or from the kernel's saved_cmdlines,
	 * which records names best-effort (it skips them when its lock is busy). A process that
	 * exits within microseconds of its events may show as "<...>"; the tests check naming. */
	fflush(stdout);
	usleep(300000);
	return 0;
}
