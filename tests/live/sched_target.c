// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scheduler tools' test program. It waits until GOFILE exists (the tool is tracing),
 * then starts children whose lifetimes are traced whole, waits for each with wait4(2), and
 * prints what the kernel counted of it: "child PID NVCSW NIVCSW CPU_US", its voluntary and
 * involuntary context switches (each is one switch out, its last at its exit included: as
 * many as it was switched in) and its CPU time in microseconds.
 *
 *   sched_target GOFILE spin N MS     N children pinned to CPU 0, each busy for MS ms of
 *                                     wall time: they wait for one another (known contention)
 *   sched_target GOFILE nap MS COUNT  one child sleeping COUNT times MS ms in ftt_nap()
 *   sched_target GOFILE tnap MS COUNT the same in a thread of this process (a tool's -p sees
 *                                     it), which prints "thread TID"
 *   sched_target GOFILE deep MS COUNT the naps of nap in this process's main thread, 20 calls
 *                                     deep in ftt_deep: a user stack deeper than ftrace's 8
 *                                     frames (main, ftt_deep 21 times, naps, ftt_nap, ...)
 *   sched_target GOFILE pong N CPU    a context-switch storm: a child and this process, both on
 *                                     CPU, pass a byte back and forth N times through pipes (two
 *                                     switches each); prints "pong N NS" with the time it took
 *   sched_target GOFILE wake N 0      two threads, "ping" and "pong", pass a byte N times each way
 *                                     through pipes; each writes only once the other is asleep in
 *                                     read(2), so every write wakes a blocked reader: N wake-ups
 *                                     each way. Prints "wake N PING_TID PONG_TID PING_NS PONG_NS",
 *                                     the time each thread spent in those reads
 *   sched_target GOFILE xcpu N 0      two threads pinned to CPUs 0 and 1 pass a byte N times
 *                                     each way through pipes: their writes alternate, each
 *                                     caused by the other's on the other CPU (a merge of the
 *                                     CPUs' buffers out of time order shows two of one side in
 *                                     a row), on descriptors 900 to 903. Prints "xcpu N TID0 TID1"
 *
 * FTT_NAME in the environment: the children name themselves so (prctl), for hostile names;
 * FTT_LINGER_MS: they stay that long before exiting, in ftt_linger (their maps still there
 * for a tool that names their user frames some time after the event).
 * Built with frame pointers, so its user stacks can be walked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile unsigned long sink;

static void pin(int cpu);

static void spin(long ms)
{
	pin(0);
	long long end = now_ns() + ms * 1000000LL;
	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

/* The C library's nanosleep has no frame pointer: a walk from it finds the return address
 * of the function that called its caller. So the known function, ftt_nap, calls another of
 * ours that sleeps: ftt_nap is then the second user frame. */
__attribute__((noinline)) void ftt_sleep(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	sink++;
}

__attribute__((noinline)) void ftt_nap(long ms)
{
	ftt_sleep(ms);
	sink++;
}

__attribute__((noinline)) void ftt_linger(long ms)
{
	ftt_sleep(ms);
	sink++;
}

__attribute__((noinline)) static void naps(long ms, long count)
{
	for (long i = 0; i < count; i++)
		ftt_nap(ms);
}

#define DEEP 20

/* level + 1 frames of ftt_deep, then the naps; not a tail call (the sink after it). */
__attribute__((noinline)) void ftt_deep(int level, long ms, long count)
{
	if (level > 0)
		ftt_deep(level - 1, ms, count);
	else
		naps(ms, count);
	sink++;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(3);
}

static int pong(long n, int cpu)
{
	int ab[2], ba[2];
	char c = 0;
	if (pipe(ab) || pipe(ba))
		return 1;
	pin(cpu);
	long long t0 = now_ns();
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	int status;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	printf("pong %ld %lld\n", n, now_ns() - t0);
	return 0;
}

/* One side of wake: its pipes, the other side's TID, the time in its reads. */
struct side {
	const char *name;
	int rfd, wfd;
	bool first; /* writes before it reads */
	pid_t tid, *other;
	long n;
	long long read_ns;
	int *go; /* the threads at the start, counted up (spun on, not slept on) */
};

/* Until thread tid sleeps in read(2): state S in /proc/self/task/TID/stat, system call
 * SYS_read in .../syscall (a sleep elsewhere is not that). */
static int wait_in_read(pid_t tid)
{
	char path[64], buf[512];
	for (;;) {
		int asleep = 0, nr = -1;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
		FILE *f = fopen(path, "r");
		if (!f)
			return -1;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		const char *p = strrchr(buf, ')');
		asleep = p && p[1] == ' ' && p[2] == 'S';
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
		if (asleep && (f = fopen(path, "r"))) {
			if (fscanf(f, "%d", &nr) != 1)
				nr = -1;
			fclose(f);
		}
		if (asleep && nr == SYS_read)
			return 0;
		sched_yield();
	}
}

static void *wake_side(void *arg)
{
	struct side *s = arg;
	char c = 0;
	s->tid = (pid_t)syscall(SYS_gettid);
	if (prctl(PR_SET_NAME, s->name))
		return (void *)1;
	/* Both at the start before either goes on, without a sleep: a futex wake-up here
	 * would be one wake-up more of one by the other than the byte's, at the switch out
	 * (bpftrace's sched_waking program may run before its sched_switch one then). */
	__atomic_add_fetch(s->go, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(s->go, __ATOMIC_SEQ_CST) < 2)
		sched_yield();
	for (long i = 0; i < s->n; i++) {
		if (s->first && (wait_in_read(*s->other) || write(s->wfd, &c, 1) != 1))
			return (void *)1;
		long long t0 = now_ns();
		if (read(s->rfd, &c, 1) != 1)
			return (void *)1;
		s->read_ns += now_ns() - t0;
		if (!s->first && (wait_in_read(*s->other) || write(s->wfd, &c, 1) != 1))
			return (void *)1;
	}
	return NULL;
}

static int wake(long n)
{
	int ab[2], ba[2];
	int go = 0;
	if (pipe(ab) || pipe(ba))
		return 1;
	struct side ping = {"ping", ba[0], ab[1], true, 0, NULL, n, 0, &go};
	struct side pong = {"pong", ab[0], ba[1], false, 0, &ping.tid, n, 0, &go};
	ping.other = &pong.tid;
	pthread_t a, b;
	void *ra, *rb;
	if (pthread_create(&a, NULL, wake_side, &ping) ||
	    pthread_create(&b, NULL, wake_side, &pong) || pthread_join(a, &ra) ||
	    pthread_join(b, &rb) || ra || rb)
		return 1;
	printf("wake %ld %d %d %lld %lld\n", n, (int)ping.tid, (int)pong.tid, ping.read_ns,
	       pong.read_ns);
	return 0;
}

struct xside {
	int cpu, rfd, wfd;
	long n;
	pid_t tid;
};

static void *xcpu_side(void *arg)
{
	struct xside *s = arg;
	char c = 0;
	s->tid = (pid_t)syscall(SYS_gettid);
	pin(s->cpu);
	for (long i = 0; i < s->n; i++) {
		if (s->cpu == 0 && write(s->wfd, &c, 1) != 1)
			return (void *)1;
		if (read(s->rfd, &c, 1) != 1)
			return (void *)1;
		if (s->cpu == 1 && write(s->wfd, &c, 1) != 1)
			return (void *)1;
	}
	return NULL;
}

static int xcpu(long n)
{
	int ab[2], ba[2];
	if (pipe(ab) || pipe(ba))
		return 1;
	/* Descriptors 900 to 903: a filter on them (fd >= 900) finds these writes only. */
	int fds[4] = {ab[0], ab[1], ba[0], ba[1]};
	for (int i = 0; i < 4; i++)
		if (dup2(fds[i], 900 + i) != 900 + i || close(fds[i]))
			return 1;
	struct xside a = {0, 902, 901, n, 0}, b = {1, 900, 903, n, 0};
	pthread_t ta, tb;
	void *ra, *rb;
	if (pthread_create(&ta, NULL, xcpu_side, &a) || pthread_create(&tb, NULL, xcpu_side, &b) ||
	    pthread_join(ta, &ra) || pthread_join(tb, &rb) || ra || rb)
		return 1;
	printf("xcpu %ld %d %d\n", n, (int)a.tid, (int)b.tid);
	return 0;
}

static long nap_ms, nap_count;

static void *napper(void *arg)
{
	(void)arg;
	printf("thread %ld\n", (long)syscall(SYS_gettid));
	naps(nap_ms, nap_count);
	const char *linger = getenv("FTT_LINGER_MS");
	if (linger)
		ftt_linger(atol(linger));
	return NULL;
}

/* GOFILE clock N MS: N getppid() calls MS apart, each between two readings of CLOCK_MONOTONIC
 * printed on stderr ("clock NS_BEFORE NS_AFTER"): a tracer's time of each call must lie
 * between its two (the trace clock mapped to CLOCK_MONOTONIC, or mono itself). */
static int clock_calls(long n, long ms)
{
	for (long i = 0; i < n; i++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &b);
		fprintf(stderr, "clock %lld %lld\n", a.tv_sec * 1000000000LL + a.tv_nsec,
			b.tv_sec * 1000000000LL + b.tv_nsec);
		usleep((useconds_t)ms * 1000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: sched_target GOFILE spin N MS | GOFILE nap MS COUNT | "
				"GOFILE clock N MS\n");
		return 2;
	}
	struct stat st;
	while (stat(argv[1], &st))
		usleep(10000);
	long a = atol(argv[3]), b = atol(argv[4]);
	if (argv[2][0] == 't') {
		pthread_t th;
		nap_ms = a;
		nap_count = b;
		if (pthread_create(&th, NULL, napper, NULL) || pthread_join(th, NULL))
			return 1;
		return 0;
	}
	if (argv[2][0] == 'p')
		return pong(a, (int)b);
	if (argv[2][0] == 'w')
		return wake(a);
	if (argv[2][0] == 'x')
		return xcpu(a);
	if (argv[2][0] == 'c')
		return clock_calls(a, b);
	if (argv[2][0] == 'd') {
		ftt_deep(DEEP, a, b);
		const char *linger = getenv("FTT_LINGER_MS");
		if (linger)
			ftt_linger(atol(linger));
		return 0;
	}
	int spinning = argv[2][0] == 's';
	int n = spinning ? (int)a : 1;
	pid_t pids[64];
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (pids[i] == 0) {
			const char *name = getenv("FTT_NAME");
			if (name && prctl(PR_SET_NAME, name))
				_exit(4);
			if (spinning)
				spin(b);
			else
				naps(a, b);
			const char *linger = getenv("FTT_LINGER_MS");
			if (linger)
				ftt_linger(atol(linger));
			_exit(0);
		}
	}
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int status;
		struct rusage ru;
		siginfo_t si;
		/* A child can be reaped before its last switch out (it is a zombie already):
		 * wait until it is one, then long enough for that switch to be counted. */
		if (waitid(P_PID, (id_t)pids[i], &si, WEXITED | WNOWAIT))
			bad = 1;
		usleep(20000);
		if (wait4(pids[i], &status, 0, &ru) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
		long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
				ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
		printf("child %d %ld %ld %lld\n", (int)pids[i], ru.ru_nvcsw, ru.ru_nivcsw, cpu);
	}
	return bad;
}
