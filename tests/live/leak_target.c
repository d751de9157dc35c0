// SPDX-License-Identifier: GPL-2.0-only
/*
 * memleak's test program: leaks known blocks from known functions and frees every other.
 * Left outstanding at its exit: 7 blocks of 1000 bytes by malloc at the bottom of a chain
 * of 10 functions (deeper than ftrace's 8-frame user stack), 1 block of 3 x 1000 bytes by
 * calloc in leak_calloc, 1 block of 2000 bytes by realloc in leak_realloc (grown from a
 * malloc of 100). churn() allocates and frees 200 blocks of 777 bytes through every
 * allocator. With an argument FILE, it first waits until FILE exists (memleak -p).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[16];
static int nkeep;

#define LEVEL(n, next)                                       \
	__attribute__((noinline)) static void deep##n(int i) \
	{                                                    \
		next(i);                                     \
		__asm__ volatile("" ::: "memory");           \
	}

__attribute__((noinline)) static void deep_leak(int i)
{
	keep[nkeep++] = malloc(1000);
	memset(keep[nkeep - 1], i, 1000);
	__asm__ volatile("" ::: "memory");
}
LEVEL(9, deep_leak)
LEVEL(8, deep9)
LEVEL(7, deep8)
LEVEL(6, deep7)
LEVEL(5, deep6)
LEVEL(4, deep5)
LEVEL(3, deep4)
LEVEL(2, deep3)
LEVEL(1, deep2)

__attribute__((noinline)) static void leak_calloc(void)
{
	keep[nkeep++] = calloc(3, 1000);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void leak_realloc(void)
{
	char *p = malloc(100);
	if (p)
		p[0] = 1;
	keep[nkeep++] = realloc(p, 2000);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 40; i++) {
		void *a = malloc(777), *b = calloc(1, 777), *c = realloc(NULL, 777);
		void *d = aligned_alloc(64, 832), *e = memalign(64, 777);
		c = realloc(c, 7770);
		free(a);
		free(b);
		free(c);
		free(d);
		free(e);
	}
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	while (argc > 1 && access(argv[1], F_OK))
		usleep(10000);
	churn();
	for (int i = 0; i < 7; i++)
		deep1(i);
	leak_calloc();
	leak_realloc();
	churn();
	return 0;
}
