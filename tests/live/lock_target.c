// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for klockstat's live test: real contention on one kernel lock. Waits for SIGUSR1
 * (the tracers have started), then THREADS writer threads (named "lockt-writer") each
 * write one byte ITERATIONS times to one pipe while as many reader threads ("lockt-reader")
 * read them back: every call takes the pipe's mutex (pipe->mutex), so on two or more CPUs
 * they wait for each other in the kernel. Prints "lock PID" first and "done" at the end.
 * Until the signal it sleeps in sigwait(): no system call of its own that could wait for a
 * lock while one tracer has started and another has not (polling for a start file did: a
 * run that started first counted one wait more).
 *
 *   lock_target THREADS ITERATIONS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int fds[2];
static long iterations;

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > 100000000) {
		fprintf(stderr, "lock_target: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void *writer(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "lockt-writer", 0, 0, 0);
	for (long i = 0; i < iterations; i++)
		if (write(fds[1], "x", 1) != 1) {
			perror("lock_target: write");
			exit(1);
		}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "lockt-reader", 0, 0, 0);
	char c;
	for (long i = 0; i < iterations; i++)
		if (read(fds[0], &c, 1) != 1) {
			perror("lock_target: read");
			exit(1);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: lock_target THREADS ITERATIONS\n");
		return 2;
	}
	int n = (int)num(argv[1]);
	iterations = num(argv[2]);
	if (n > 64) {
		fprintf(stderr, "lock_target: at most 64 threads\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(60);
	if (pipe(fds)) {
		perror("lock_target: pipe");
		return 1;
	}
	sigset_t go;
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	int sig;
	if (sigprocmask(SIG_BLOCK, &go, NULL)) {
		perror("lock_target: sigprocmask");
		return 1;
	}
	printf("lock %d\n", (int)getpid());
	if (sigwait(&go, &sig)) {
		fprintf(stderr, "lock_target: sigwait failed\n");
		return 1;
	}
	pthread_t t[128];
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[2 * i], NULL, writer, NULL) ||
		    pthread_create(&t[2 * i + 1], NULL, reader, NULL)) {
			fprintf(stderr, "lock_target: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 2 * n; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
