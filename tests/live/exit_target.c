// SPDX-License-Identifier: GPL-2.0-only
/* A program for exitsnoop's live tests: it ends in a known way, after START-FILE exists and
 * 0.3 s more (its age).
 *   exit_target START-FILE code N      exit(N)
 *   exit_target START-FILE thread N    a second thread calls exit(N): exit_group from a thread
 *                                      that is not the main one
 *   exit_target START-FILE pthread     a thread ends with pthread_exit (exit(2), code 0), then
 *                                      the process exits 7
 *   exit_target START-FILE segv        SIGSEGV from a bad pointer
 *   exit_target START-FILE wait        waits to be killed
 *   exit_target START-FILE threads N   N more threads, all waiting to be killed (funcgraph -p) */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int code;

static void *by_exit(void *arg)
{
	(void)arg;
	exit(code);
}

static void *by_pthread_exit(void *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static void *waiting(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	while (access(argv[1], F_OK))
		usleep(10000);
	usleep(300000);
	pthread_t t;
	if (!strcmp(argv[2], "code") && argc > 3)
		return atoi(argv[3]);
	if (!strcmp(argv[2], "thread") && argc > 3) {
		code = atoi(argv[3]);
		pthread_create(&t, NULL, by_exit, NULL);
		pause();
	}
	if (!strcmp(argv[2], "pthread")) {
		pthread_create(&t, NULL, by_pthread_exit, NULL);
		pthread_join(t, NULL);
		return 7;
	}
	if (!strcmp(argv[2], "segv")) {
		volatile int *p = (int *)16;
		return *p;
	}
	if (!strcmp(argv[2], "threads") && argc > 3) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (int i = atoi(argv[3]); i > 0; i--)
			if (pthread_create(&t, &attr, waiting, NULL))
				return 1;
	}
	if (!strcmp(argv[2], "wait") || !strcmp(argv[2], "threads"))
		for (;;)
			pause();
	return 2;
}
