// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile's test program. "ratio SECS": one thread burns CPU in burn_one, burn_two and
 * burn_three in turns, 3, 6 and 9 ms of its CPU time each, until it has had SECS seconds of
 * CPU (not of wall time: a loaded machine gives as many samples): their shares of the
 * samples must be 1/6, 2/6 and 3/6. The 18 ms turn is longer than a sample period at 99 Hz
 * and than the timer's lateness on a loaded machine, and not a multiple of the period: the
 * samples fall on every part of it in turn (a 1.8 ms turn, shorter than the lateness, gave
 * shares off by up to 3 points, as perf record's; this one within 0.6).
 * "ratio SECS GOFILE": the same in a second thread, made at once, once GOFILE exists (the
 * tracers are ready).
 * "getppid SECS": getppid() in a loop for SECS seconds. "children N": N short-lived
 * processes one after the other, each this program run again ("burn MS": burn_two for MS
 * ms of CPU, then exit), gone before most of their samples are read. "half SECS": below.
 * "stolen SECS [DEPTH]": below (bench/bench-profile.sh's workload: what a profiler takes
 * from a CPU-bound task).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Spin for ns of this thread's CPU time, less what the last spin of the same caller went past
 * its end (*over): each function gets its share over the run however coarse the checks are
 * (a check every 2000 additions; under emulation a check costs tens of microseconds).
 */
static __attribute__((noinline)) void spin(long long ns, long long *over)
{
	long long end = cpu_ns() + ns - *over, now;
	while ((now = cpu_ns()) < end)
		for (int i = 0; i < 2000; i++)
			sink += (unsigned long)i;
	*over = now - end;
}

__attribute__((noinline)) void burn_one(void)
{
	static long long over;
	spin(3000000, &over);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void burn_two(void)
{
	static long long over;
	spin(6000000, &over);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void burn_three(void)
{
	static long long over;
	spin(9000000, &over);
	__asm__ volatile("" ::: "memory");
}

static void ratio(long long secs)
{
	long long cpu_end = cpu_ns() + secs * 1000000000LL;
	while (cpu_ns() < cpu_end) {
		burn_one();
		burn_two();
		burn_three();
	}
}

/* "half SECS": 10 ms of CPU in burn_half, then 10 ms asleep in nap, for SECS seconds; then
 * its CPU and wall time on stderr ("half: cpu NS wall NS"), what profile --off-cpu must
 * show: on a loaded machine the waits to run again add to the time off the CPU. */
__attribute__((noinline)) void burn_half(void)
{
	static long long over;
	spin(10000000, &over);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void nap(void)
{
	nanosleep(&(struct timespec){0, 10000000}, NULL);
	__asm__ volatile("" ::: "memory");
}

static void half(long long secs)
{
	long long start = now_ns(), cpu = cpu_ns(), end = start + secs * 1000000000LL;
	while (now_ns() < end) {
		burn_half();
		nap();
	}
	fprintf(stderr, "half: cpu %lld wall %lld\n", cpu_ns() - cpu, now_ns() - start);
}

/* "stolen SECS [DEPTH]": read the clock in a loop for SECS seconds, DEPTH calls deep (1 when
 * not given: a profiler's stack walks cost by the frame); each gap of more than 2 us between
 * two readings is time the CPU spent elsewhere (interrupts, a profiler's samples among them;
 * other tasks, a profiler among them). Prints "stolen NS gaps N": the gaps' sum and number. */
static __attribute__((noinline)) void stolen(long long secs, int depth)
{
	if (depth > 1) {
		stolen(secs, depth - 1);
		__asm__ volatile("" ::: "memory"); /* (not a tail call: the frame stays) */
		return;
	}
	long long prev = now_ns(), end = prev + secs * 1000000000LL, sum = 0, gaps = 0;
	for (;;) {
		long long t = now_ns();
		if (t - prev > 2000) {
			sum += t - prev;
			gaps++;
		}
		prev = t;
		if (t >= end)
			break;
	}
	printf("stolen %lld gaps %lld\n", sum, gaps);
}

static const char *go_file;
static long long secs;

static void *ratio_thread(void *arg)
{
	(void)arg;
	while (access(go_file, F_OK))
		usleep(10000);
	ratio(secs);
	return NULL;
}

/* N children, one after the other, each this program again burning 40 ms in burn_two. */
static int children(const char *self, int n)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			execl(self, self, "burn", "40", (char *)NULL);
			_exit(127);
		}
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 &&
	    !(argc == 4 && (!strcmp(argv[1], "ratio") || !strcmp(argv[1], "stolen")))) {
		fprintf(stderr, "usage: profile_target ratio|getppid|children|burn|half|stolen N "
				"[GOFILE|DEPTH]\n");
		return 2;
	}
	long long end = now_ns() + atoll(argv[2]) * 1000000000LL;
	if (!strcmp(argv[1], "ratio")) {
		if (argc == 4) {
			pthread_t t;
			go_file = argv[3];
			secs = atoll(argv[2]);
			if (pthread_create(&t, NULL, ratio_thread, NULL) || pthread_join(t, NULL))
				return 1;
			return 0;
		}
		ratio(atoll(argv[2]));
	} else if (!strcmp(argv[1], "children")) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return 1;
		self[n] = 0;
		return children(self, atoi(argv[2]));
	} else if (!strcmp(argv[1], "burn")) {
		long long cpu_end = atoll(argv[2]) * 1000000LL;
		while (cpu_ns() < cpu_end)
			burn_two();
	} else if (!strcmp(argv[1], "half")) {
		half(atoll(argv[2]));
	} else if (!strcmp(argv[1], "stolen")) {
		stolen(atoll(argv[2]), argc == 4 ? atoi(argv[3]) : 1);
	} else if (!strcmp(argv[1], "getppid")) {
		while (now_ns() < end)
			for (int i = 0; i < 1000; i++)
				sink += (unsigned long)getppid();
	} else {
		return 2;
	}
	return 0;
}
