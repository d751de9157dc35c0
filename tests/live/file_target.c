// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the live tests of the file tools (vfsstat, filetop): it waits for a start
 * file, then makes known calls and exits, printing nothing after the start (a write of its
 * own). Dynamic on this machine (uprobes on the C library see its opens), static in the
 * guests.
 *
 *   file_target vfs GO DIR   prints "READS WRITES CREATES OPENS FSYNCS UNLINKS OPENAT2" (what
 *                            it will make; OPENAT2 1 when one of the opens is an openat2),
 *                            waits until GO exists, then in DIR: 11 reads (read, pread64,
 *                            readv, preadv, preadv2), 13 writes (write, pwrite64, writev,
 *                            pwritev, pwritev2), the opens (open() and openat(), creat()
 *                            and open(O_CREAT), open(2) where the architecture has it,
 *                            openat2 where the C library knows it), 4 fsync and 2
 *                            fdatasync, 3 unlinks and a directory removed by unlinkat
 *                            (AT_REMOVEDIR: no unlink).
 *   file_target top GO DIR   opens DIR/early file, waits until GO exists, then: 3 writes of
 *                            1000 bytes and 2 preads of 700 to DIR/a b, which is dup2'd to
 *                            descriptor 100 and closed: 2 writes of 512 and one of 100
 *                            through 100, and a child forked then writes 300 through it;
 *                            a writev of 4096 and a pwrite64 of 904 to
 *                            DIR/new<newline>line, dup'd by fcntl F_DUPFD: a write of 10
 *                            through the copy; a write of 1234 and a preadv of 1234 to
 *                            DIR/<0xff 0xfe> bad (openat); 5555 bytes to the early file;
 *                            77 bytes into a pipe (a descriptor not made by an open)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char path[4096];
static const char *at(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void wait_go(const char *go)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	while (access(go, F_OK))
		nanosleep(&ts, NULL);
}

static int vfs(const char *go, const char *dir)
{
	int opens = 0, creates = 0, openat2 = 0;
	/* the opens: 2 open() (openat), 1 openat(), 2 open(O_CREAT) and 1 creat() (each a create
	 * and an open), one open(2) and one openat2 where there are */
	opens = 2 + 1 + 3, creates = 3;
#ifdef SYS_open
	opens++;
#endif
#ifdef SYS_openat2
	opens++;
	openat2 = 1;
#endif
	printf("11 13 %d %d 6 3 %d\n", creates, opens, openat2);
	fflush(stdout);
	wait_go(go);

	char buf[64] = {0};
	struct iovec iov[2] = {{buf, 8}, {buf + 8, 8}};
	int c0 = open(at(dir, "c0"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	int c1 = open(at(dir, "c1"), O_RDWR | O_CREAT, 0600);
	int c2 = creat(at(dir, "c2"), 0600);
	int r0 = open(at(dir, "c0"), O_RDONLY);
	int r1 = open(at(dir, "c1"), O_RDONLY);
	int r2 = openat(AT_FDCWD, at(dir, "c0"), O_RDONLY);
#ifdef SYS_open
	int r3 = (int)syscall(SYS_open, at(dir, "c1"), O_RDONLY);
#endif
#ifdef SYS_openat2
	struct {
		unsigned long long flags, mode, resolve;
	} how = {O_RDONLY, 0, 0};
	int r4 = (int)syscall(SYS_openat2, AT_FDCWD, at(dir, "c0"), &how, sizeof(how));
#endif
	/* 13 writes */
	for (int i = 0; i < 5; i++)
		if (write(c0, buf, 16) < 0)
			return 1;
	for (int i = 0; i < 2; i++) {
		if (pwrite(c1, buf, 16, 0) < 0 || writev(c1, iov, 2) < 0 ||
		    pwritev(c2, iov, 2, 0) < 0 || pwritev2(c2, iov, 2, 0, 0) < 0)
			return 1;
	}
	/* 11 reads */
	for (int i = 0; i < 4; i++)
		if (read(r0, buf, 16) < 0)
			return 1;
	for (int i = 0; i < 2; i++)
		if (pread(r1, buf, 16, 0) < 0 || readv(r1, iov, 2) < 0 || preadv(r2, iov, 2, 0) < 0)
			return 1;
	if (preadv2(r2, iov, 2, 0, 0) < 0)
		return 1;
	for (int i = 0; i < 4; i++)
		fsync(c0);
	fdatasync(c1);
	fdatasync(c1);
	/* 3 unlinks, and a directory removed (not an unlink) */
	unlink(at(dir, "c0"));
	unlinkat(AT_FDCWD, at(dir, "c1"), 0);
	unlink(at(dir, "c2"));
	mkdir(at(dir, "d"), 0700);
	unlinkat(AT_FDCWD, at(dir, "d"), AT_REMOVEDIR);
	(void)r1;
	(void)r2;
#ifdef SYS_open
	(void)r3;
#endif
#ifdef SYS_openat2
	(void)r4;
#endif
	return 0;
}

static int top(const char *go, const char *dir)
{
	static char buf[8192];
	int early = open(at(dir, "early file"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	printf("%d\n", early);
	fflush(stdout);
	wait_go(go);
	int ab = open(at(dir, "a b"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; i < 3; i++)
		if (write(ab, buf, 1000) != 1000)
			return 1;
	for (int i = 0; i < 2; i++)
		if (pread(ab, buf, 700, 0) != 700)
			return 1;
	if (dup2(ab, 100) != 100 || close(ab))
		return 1;
	if (write(100, buf, 512) != 512 || write(100, buf, 512) != 512 ||
	    write(100, buf, 100) != 100)
		return 1;
	/* a child writes through what it inherited */
	pid_t child = fork();
	if (child == 0)
		_exit(write(100, buf, 300) != 300);
	int st;
	if (child < 0 || waitpid(child, &st, 0) != child || st)
		return 1;
	int nl = open(at(dir, "new\nline"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct iovec iov[2] = {{buf, 2048}, {buf + 2048, 2048}};
	if (writev(nl, iov, 2) != 4096 || pwrite(nl, buf, 904, 4096) != 904)
		return 1;
	int copy = fcntl(nl, F_DUPFD, 50);
	if (copy < 50 || write(copy, buf, 10) != 10)
		return 1;
	int bad = openat(AT_FDCWD, at(dir, "\xff\xfe bad"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct iovec one = {buf, 1234};
	if (write(bad, buf, 1234) != 1234 || preadv(bad, &one, 1, 0) != 1234)
		return 1;
	if (write(early, buf, 5555) != 5555)
		return 1;
	int p[2];
	if (pipe(p) || write(p[1], buf, 77) != 77)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "top"))
		return top(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "vfs"))
		return vfs(argv[2], argv[3]);
	fprintf(stderr, "usage: file_target vfs|top GO DIR\n");
	return 2;
}
