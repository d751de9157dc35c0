// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the live tests of the file tools (vfsstat, filetop, fileslower): it waits for a start
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
 *   file_target slow GO DIR  prints "UFFD" (1 when userfaultfd works: root, CONFIG_USERFAULTFD),
 *                            waits until GO exists, then: 20 pwrite64 of 100 bytes and 20
 *                            pread64 of 100 to DIR/slow<newline><0xff> file (fast); where
 *                            userfaultfd works, a pread64 of it into a page not yet there
 *                            (2000 bytes) and a pwrite64 from one (1000 bytes), each
 *                            waiting for a child that supplies the page 60 ms after the
 *                            fault; then a read of 10 bytes from the FIFO DIR/fifo that a
 *                            child writes 60 ms after the read began (seen in
 *                            /proc/PID/syscall), and a read of it that the child's SIGUSR1
 *                            interrupts 60 ms after it began (EINTR). The children wait
 *                            with poll(2), never in a read, so that theirs are all fast.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/* The known delay of each slow call. */
static void nap_60ms(void)
{
	struct timespec ts = {0, 60 * 1000 * 1000};
	while (nanosleep(&ts, &ts))
		;
}

/* Until process pid is blocked in a read(2) (its /proc/PID/syscall's first number). */
static void wait_in_read(pid_t pid)
{
	char p[64], line[256];
	snprintf(p, sizeof(p), "/proc/%d/syscall", (int)pid);
	struct timespec ts = {0, 1000 * 1000};
	for (;;) {
		int fd = open(p, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, line, sizeof(line) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			line[n] = 0;
			/* "running" while it runs, "-1 ..." when blocked outside a call */
			if (line[0] >= '0' && line[0] <= '9' && atol(line) == SYS_read)
				return;
		}
		nanosleep(&ts, NULL);
	}
}

/* The pager: supplies each of n faults of uffd 60 ms after it came. */
static void supply(int uffd, int n)
{
	static char page[4096] __attribute__((aligned(4096)));
	memset(page, 'x', sizeof(page));
	for (int i = 0; i < n; i++) {
		struct pollfd pfd = {uffd, POLLIN, 0};
		struct uffd_msg msg;
		if (poll(&pfd, 1, 5000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			_exit(1);
		nap_60ms();
		struct uffdio_copy copy = {.dst = msg.arg.pagefault.address & ~4095ULL,
					   .src = (unsigned long)page,
					   .len = 4096};
		if (ioctl(uffd, UFFDIO_COPY, &copy))
			_exit(1);
	}
	_exit(0);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int slow(const char *go, const char *dir)
{
	static char buf[4096];
	int uffd = -1;
#ifdef SYS_userfaultfd
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	struct uffdio_api api = {.api = UFFD_API};
	if (uffd >= 0 && ioctl(uffd, UFFDIO_API, &api))
		uffd = -1;
#endif
	printf("%d\n", uffd >= 0);
	fflush(stdout);
	wait_go(go);
	int f = open(at(dir, "slow\n\xff file"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; i < 20; i++)
		if (pwrite(f, buf, 100, i * 100) != 100)
			return 1;
	for (int i = 0; i < 20; i++)
		if (pread(f, buf, 100, 0) != 100)
			return 1;
	if (uffd >= 0) {
		char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
		struct uffdio_register reg = {.range = {(unsigned long)pages, 8192},
					      .mode = UFFDIO_REGISTER_MODE_MISSING};
		if (pages == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg))
			return 1;
		pid_t pager = fork();
		if (pager == 0)
			supply(uffd, 2);
		int st;
		if (pager < 0 || pread(f, pages, 4096, 0) != 2000 ||
		    pwrite(f, pages + 4096, 1000, 0) != 1000 || waitpid(pager, &st, 0) != pager ||
		    st)
			return 1;
	}
	/* the FIFO: a read the writer answers 60 ms late, one its signal interrupts */
	const char *fifo = at(dir, "fifo");
	if (mkfifo(fifo, 0600))
		return 1;
	struct sigaction sa = {.sa_handler = on_usr1}; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	int sync[2];
	if (pipe(sync))
		return 1;
	pid_t me = getpid(), writer = fork();
	if (writer == 0) {
		int w = open(fifo, O_WRONLY);
		wait_in_read(me);
		nap_60ms();
		if (write(w, buf, 10) != 10)
			_exit(1);
		struct pollfd pfd = {sync[0], POLLIN, 0};
		char c;
		if (poll(&pfd, 1, 5000) != 1 || read(sync[0], &c, 1) != 1)
			_exit(1);
		wait_in_read(me);
		nap_60ms();
		kill(me, SIGUSR1);
		/* open until the read has returned: a pipe read that wakes to find no writer
		 * returns 0 before it looks at its signal */
		if (poll(&pfd, 1, 5000) != 1 || read(sync[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	int r = open(fifo, O_RDONLY);
	if (writer < 0 || r < 0 || read(r, buf, 100) != 10 || write(sync[1], "s", 1) != 1 ||
	    read(r, buf, 100) != -1 || errno != EINTR || write(sync[1], "e", 1) != 1)
		return 1;
	int st;
	return waitpid(writer, &st, 0) != writer || st;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "top"))
		return top(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "vfs"))
		return vfs(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "slow"))
		return slow(argv[2], argv[3]);
	fprintf(stderr, "usage: file_target vfs|top|slow GO DIR\n");
	return 2;
}
