// SPDX-License-Identifier: GPL-2.0-only
/*
 * memleak's kernel test program: kernel allocations of a known stack, held and freed.
 * kleak_target HELD FREED READY DONE: FREED pipes, each grown to 64 buffers (fcntl
 * F_SETPIPE_SZ: the kernel allocates an array of 64 struct pipe_buffer, 2560 bytes from the
 * 4096-byte kmalloc cache, under pipe_fcntl) and closed (the array freed); then HELD pipes
 * grown alike and kept open; then READY made, and the pipes held until DONE exists.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int grown_pipe(int fd[2])
{
	return pipe(fd) || fcntl(fd[0], F_SETPIPE_SZ, 64 * (int)sysconf(_SC_PAGESIZE)) < 0;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	int held = atoi(argv[1]), freed = atoi(argv[2]), fd[2];
	for (int i = 0; i < freed; i++) {
		if (grown_pipe(fd))
			return 1;
		close(fd[0]);
		close(fd[1]);
	}
	for (int i = 0; i < held; i++)
		if (grown_pipe(fd))
			return 1;
	int r = open(argv[3], O_CREAT | O_WRONLY, 0644);
	if (r < 0)
		return 1;
	close(r);
	while (access(argv[4], F_OK))
		usleep(10000);
	return 0;
}
