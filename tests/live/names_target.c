// SPDX-License-Identifier: GPL-2.0-only
/* A program for the live tests of task names: it calls getppid() under each name a task can
 * have, in this order, and prints its PID:
 *   1. as started ("names_target");
 *   2. renamed with prctl(PR_SET_NAME) to a name holding an escape sequence and a newline;
 *   3. in a thread that another thread named with pthread_setname_np ("ftt-thread");
 *   4. after exec through a link named "ftt-exec-name" (argv[2]: the link), same PID.
 * names_target START-FILE LINK: waits for START-FILE first, so a tracer can start. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int go[2];

static void *thread(void *arg)
{
	char c;
	(void)arg;
	if (read(go[0], &c, 1) == 1) /* named by now */
		syscall(SYS_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exec")) {
		syscall(SYS_getppid); /* 4 */
		usleep(300000);
		return 0;
	}
	if (argc < 3)
		return 2;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(10000);
	syscall(SYS_getppid); /* 1 */
	prctl(PR_SET_NAME, "ftt\033[2J\nb", 0, 0, 0);
	syscall(SYS_getppid); /* 2 */
	pthread_t t;
	if (pipe(go) || pthread_create(&t, NULL, thread, NULL))
		return 1;
	pthread_setname_np(t, "ftt-thread");
	if (write(go[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL); /* 3 */
	execl(argv[2], argv[2], "--exec", (char *)NULL);
	return 1;
}
