// SPDX-License-Identifier: GPL-2.0-only
/*
 * memleak's test program: leaks known blocks from known functions and frees every other.
 * Left outstanding at its exit: 7 blocks of 1000 bytes by malloc at the bottom of a chain
 * of 10 functions (deeper than ftrace's 8-frame user stack), 1 block of 3 x 1000 bytes by
 * calloc in leak_calloc, 1 block of 2000 bytes by realloc in leak_realloc (grown from a
 * malloc of 100); through the other allocators, one function each: 2 blocks of 1111 bytes
 * by posix_memalign (one of alignment 16, which glibc hands to malloc, one of 64), 2560 by
 * aligned_alloc, 1280 by memalign, 5000 by valloc, 6000 by pvalloc, 300000 by malloc (which
 * glibc maps with mmap); and 3 anonymous mappings in leak_mmap, 20480 bytes: 4 pages with
 * the second unmapped (1 page and 2 left), 3 pages with the first unmapped (2 left). A file
 * mapping is not anonymous and is not counted. churn() allocates and frees 400 blocks of 777
 * bytes through every allocator, 40 blocks of 200000 bytes, and maps and unmaps 80 anonymous
 * mappings, in whole and in parts. A thread made at the start (before memleak -p attaches) leaks 2 blocks of 4321
 * bytes in thread_leak and hands 50 blocks of 555 bytes through a pipe to the main thread,
 * which frees them (a free in another thread, often on another CPU, than the allocation).
 * With an argument FILE, it first waits until FILE exists (memleak -p); with a second, DONE,
 * it waits at the end until DONE exists (a report while it lives), and leaks one more block,
 * of 3333 bytes by posix_memalign into a global (not on its stack: memleak reads it from
 * the process after the call, which lives on here) from leak_posix_memalign_global.
 * leak_target --loop N GO (bench/bench-memleak.sh): once GO exists, N malloc(64) and free
 * pairs, then "N ns" on standard output: the loop's time.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep[32]; /* 0-8 and 14- the main thread's, 12-13 the worker's */
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

/* One block of each of the other allocators, each from its own function. */
#define LEAK_ONE(name, call)                             \
	__attribute__((noinline)) static void name(void) \
	{                                                \
		keep[nkeep++] = call;                    \
		__asm__ volatile("" ::: "memory");       \
	}
LEAK_ONE(leak_aligned, aligned_alloc(256, 2560))
LEAK_ONE(leak_memalign, memalign(128, 1280))
LEAK_ONE(leak_valloc, valloc(5000))
LEAK_ONE(leak_pvalloc, pvalloc(6000))
LEAK_ONE(leak_big, malloc(300000))

/* The pointer in a local, as most callers do: on the stack memleak reads at the return. */
__attribute__((noinline)) static void leak_posix_memalign(void)
{
	for (volatile size_t align = 16; align <= 64; align *= 4) {
		void *p = NULL;
		if (!posix_memalign(&p, align, 1111))
			keep[nkeep++] = p;
	}
	__asm__ volatile("" ::: "memory");
}

/* (through a pointer: gcc's builtin posix_memalign passes a local and then stores it) */
static int (*volatile call_posix_memalign)(void **, size_t, size_t) = posix_memalign;
__attribute__((noinline)) static void leak_posix_memalign_global(void)
{
	if (call_posix_memalign((void **)&keep[20], 64, 3333))
		abort();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void leak_mmap(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *a = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED || munmap(a + pg, pg) || munmap(b, pg))
		abort();
	int fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		abort();
	close(fd);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void churn(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < 40; i++) {
		void *a = malloc(777), *b = calloc(1, 777), *c = realloc(NULL, 777);
		void *d = aligned_alloc(64, 832), *e = memalign(64, 777), *f = NULL;
		void *g = valloc(777), *h = pvalloc(777), *big = malloc(200000);
		if (posix_memalign(&f, 32, 777))
			abort();
		c = realloc(c, 7770);
		/* 3 pages: the middle one, then the two left; 2 pages at once */
		char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		char *n = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (m == MAP_FAILED || n == MAP_FAILED || munmap(m + pg, pg) || munmap(m, pg) ||
		    munmap(m + 2 * pg, pg) || munmap(n, 2 * pg))
			abort();
		free(a);
		free(b);
		free(c);
		free(d);
		free(e);
		free(f);
		free(g);
		free(h);
		free(big);
	}
	__asm__ volatile("" ::: "memory");
}

static pthread_barrier_t start;
static int handed[2];

__attribute__((noinline)) static void thread_leak(void)
{
	for (volatile int i = 0; i < 2; i++) /* one call site, not unrolled */
		keep[12 + i] = malloc(4321);
	__asm__ volatile("" ::: "memory");
}

/* The calling thread on CPU cpu, where there is one: the worker's allocations and the main
 * thread's frees of them then come in two CPUs' rings. */
static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *worker(void *arg)
{
	(void)arg;
	pin(1);
	pthread_barrier_wait(&start);
	for (int i = 0; i < 50; i++) {
		void *p = malloc(555);
		if (write(handed[1], &p, sizeof(p)) != sizeof(p))
			abort();
	}
	close(handed[1]);
	thread_leak();
	return NULL;
}

/* The worker's blocks, freed here as they come. */
__attribute__((noinline)) static void free_handed(void)
{
	void *p;
	while (read(handed[0], &p, sizeof(p)) == sizeof(p))
		free(p);
}

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int loop(long n, const char *go)
{
	while (access(go, F_OK))
		usleep(10000);
	long long t0 = mono_ns();
	for (long i = 0; i < n; i++) {
		keep[0] = malloc(64);
		free(keep[0]);
	}
	printf("%ld %lld\n", n, mono_ns() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t w;
	if (argc == 4 && !strcmp(argv[1], "--loop"))
		return loop(atol(argv[2]), argv[3]);
	pin(0);
	if (pipe(handed) || pthread_barrier_init(&start, NULL, 2) ||
	    pthread_create(&w, NULL, worker, NULL))
		return 1;
	while (argc > 1 && access(argv[1], F_OK))
		usleep(10000);
	churn();
	for (int i = 0; i < 7; i++)
		deep1(i);
	leak_calloc();
	leak_realloc();
	leak_posix_memalign();
	leak_aligned();
	leak_memalign();
	leak_valloc();
	leak_pvalloc();
	leak_big();
	leak_mmap();
	if (argc > 2)
		leak_posix_memalign_global();
	pthread_barrier_wait(&start);
	free_handed();
	pthread_join(w, NULL);
	churn();
	while (argc > 2 && access(argv[2], F_OK))
		usleep(10000);
	return 0;
}
