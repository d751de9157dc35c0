// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the live tests of the TCP tools: known connections on loopback, each
 * reported on stdout with what the kernel gave it (getsockname, getpeername), so a test can
 * match the tools' rows exactly. Waits for START-FILE first (a tracer can start), then:
 *
 *   conn PORT4 PORT6 TX RX HOLD_MS [NAME]   a server (this process, renamed "tcpt-server") listens
 *	on 127.0.0.1:PORT4 and [::1]:PORT6; a client (a child, renamed "tcpt-client", or NAME) connects
 *	three times in turn: over IPv4, over IPv6, and from an IPv6 socket to the IPv4 listener
 *	through ::ffff:127.0.0.1 (v4-mapped); each time it sends TX bytes, reads RX bytes the
 *	server sends back, waits HOLD_MS and closes first; the server then closes. Afterwards
 *	the client renames itself "tcpt-renamed" (a tool must show the name at the event).
 *	Lines: "conn FAMILY CLIENT_PID SERVER_PID CLIENT_ADDR CLIENT_PORT SERVER_ADDR SERVER_PORT"
 *   refused PORT SPORT   connects from 127.0.0.1:SPORT and [::1]:SPORT to PORT, where
 *	nothing listens. Lines: "refused FAMILY PID SPORT ERRNO"
 *   backlog PORT HOLD_MS   a listener with backlog 1 that never accepts; two clients fill
 *	its queue (the kernel queues one more than the backlog), a third's SYNs are refused
 *	by it (and retransmitted) for HOLD_MS. (Backlog 0 refuses every SYN on kernels
 *	without syncookies: its SYN queue is full at 0.) Lines: "backlog PID SPORT3"
 *   retrans PORT TX WAIT_MS   connects, sends TX bytes and waits up to WAIT_MS for the
 *	server to have them all (a test drops them for a while: retransmits).
 *	Lines: "retrans PID SPORT RECEIVED"
 *   storm PORT N   N connections made, accepted and closed as fast as they go (for the
 *	benchmark). Line: "storm N SECONDS"
 *   refusals PORT N   N connects to PORT, where nothing listens, as fast as they go (each a
 *	reset and a drop). Line: "refusals N SECONDS"
 *   halfclose PORT TX RX   the client (a child, renamed "tcpt-half") connects to
 *	127.0.0.1:PORT, sends TX bytes and shuts its side down (SHUT_WR); the server reads them
 *	to the end, sends RX bytes and closes; the client reads them 100 ms later, after the
 *	server's FIN (its socket then CLOSE), and closes. Line: "halfclose CLIENT_PID CLIENT_PORT"
 *   early PORT TX HOLD_MS   a connection on 127.0.0.1:PORT made before START-FILE (a tracer
 *	starting later sees no state change of it), then the client (renamed "tcpt-early")
 *	sends TX bytes, the server reads them; the client waits HOLD_MS (a sender that
 *	neither receives nor changes state meanwhile) and closes, then the server.
 *	Line: "early CLIENT_PID SERVER_PID CLIENT_PORT"
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "tcp_target: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 100000000) {
		fprintf(stderr, "tcp_target: bad number '%s'\n", s);
		exit(2);
	}
	return (int)v;
}

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* An address of family fam ("127.0.0.1", "::1", "::ffff:127.0.0.1") and port. */
static socklen_t addr(struct sockaddr_storage *ss, int fam, const char *a, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, a, &in->sin_addr);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((uint16_t)port);
	inet_pton(AF_INET6, a, &in6->sin6_addr);
	return sizeof(*in6);
}

static int listener(int fam, const char *a, int port, int backlog)
{
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, fam, a, port);
	int one = 1, fd = socket(fam, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("socket");
	if (fam == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		die("IPV6_V6ONLY");
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, backlog))
		die("bind/listen");
	return fd;
}

/* "ADDR PORT" of a socket's side, v4-mapped shown as the kernel's tools show it: as v4. */
static void side(int fd, int peer, char *out, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";
	int port = 0;
	if ((peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *in = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
			port = ntohs(in->sin_port);
		} else {
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
			if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
				inet_ntop(AF_INET, in6->sin6_addr.s6_addr + 12, a, sizeof(a));
			else
				inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
			port = ntohs(in6->sin6_port);
		}
	}
	snprintf(out, size, "%s %d", a, port);
}

static int local_port(int fd)
{
	char s[80];
	side(fd, 0, s, sizeof(s));
	return atoi(strchr(s, ' ') + 1);
}

static void xfer(int fd, long n, int out)
{
	static char buf[65536];
	memset(buf, 'x', sizeof(buf));
	while (n > 0) {
		ssize_t r = out ? write(fd, buf, n < (long)sizeof(buf) ? (size_t)n : sizeof(buf)) :
				  read(fd, buf, n < (long)sizeof(buf) ? (size_t)n : sizeof(buf));
		if (r <= 0)
			die(out ? "write" : "read (short)");
		n -= r;
	}
}

static int conn(int argc, char **argv)
{
	if (argc != 5 && argc != 6)
		return 2;
	const char *name = argc == 6 ? argv[5] : "tcpt-client";
	int p4 = num(argv[0]), p6 = num(argv[1]), tx = num(argv[2]), rx = num(argv[3]);
	int hold = num(argv[4]);
	int l4 = listener(AF_INET, "127.0.0.1", p4, 8), l6 = listener(AF_INET6, "::1", p6, 8);
	prctl(PR_SET_NAME, "tcpt-server", 0, 0, 0);
	pid_t server = getpid();
	fflush(stdout);
	pid_t client = fork();
	if (client < 0)
		die("fork");
	static const struct {
		int fam, port4;
		const char *a;
	} to[] = {
		{AF_INET, 1, "127.0.0.1"}, {AF_INET6, 0, "::1"}, {AF_INET6, 1, "::ffff:127.0.0.1"}};
	if (client == 0) {
		prctl(PR_SET_NAME, name, 0, 0, 0);
		for (int i = 0; i < 3; i++) {
			struct sockaddr_storage ss;
			socklen_t len = addr(&ss, to[i].fam, to[i].a, to[i].port4 ? p4 : p6);
			int fd = socket(to[i].fam, SOCK_STREAM, 0);
			if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len))
				die("connect");
			char me[80], them[80];
			side(fd, 0, me, sizeof(me));
			side(fd, 1, them, sizeof(them));
			printf("conn %d %d %d %s %s\n", i == 1 ? 6 : 4, (int)getpid(), (int)server,
			       me, them);
			fflush(stdout);
			xfer(fd, tx, 1);
			xfer(fd, rx, 0);
			msleep(hold);
			close(fd);
			msleep(50); /* the server's close, before the next */
		}
		prctl(PR_SET_NAME, "tcpt-renamed", 0, 0, 0);
		msleep(100);
		_exit(0);
	}
	for (int i = 0; i < 3; i++) {
		int fd = accept(to[i].port4 ? l4 : l6, NULL, NULL);
		if (fd < 0)
			die("accept");
		xfer(fd, tx, 0);
		xfer(fd, rx, 1);
		char c;
		if (read(fd, &c, 1) != 0) /* the client's close */
			die("read EOF");
		close(fd);
	}
	int st;
	waitpid(client, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int refused(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int port = num(argv[0]), sport = num(argv[1]);
	static const struct {
		int fam;
		const char *a;
	} to[] = {{AF_INET, "127.0.0.1"}, {AF_INET6, "::1"}};
	for (int i = 0; i < 2; i++) {
		struct sockaddr_storage me, them;
		socklen_t ml = addr(&me, to[i].fam, to[i].a, sport);
		socklen_t tl = addr(&them, to[i].fam, to[i].a, port);
		int one = 1, fd = socket(to[i].fam, SOCK_STREAM, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&me, ml))
			die("bind");
		int r = connect(fd, (struct sockaddr *)&them, tl);
		printf("refused %d %d %d %d\n", i ? 6 : 4, (int)getpid(), sport, r ? errno : 0);
		fflush(stdout);
		close(fd);
	}
	return 0;
}

static int backlog(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int port = num(argv[0]), hold = num(argv[1]);
	int l = listener(AF_INET, "127.0.0.1", port, 1);
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, AF_INET, "127.0.0.1", port);
	int c[3];
	for (int i = 0; i < 3; i++) {
		if ((c[i] = socket(AF_INET, SOCK_STREAM, 0)) < 0)
			die("socket");
		if (i < 2 && connect(c[i], (struct sockaddr *)&ss, len))
			die("connect");
	}
	fcntl(c[2], F_SETFL, O_NONBLOCK);
	if (connect(c[2], (struct sockaddr *)&ss, len) == 0 || errno != EINPROGRESS)
		die("a third connect that waits");
	printf("backlog %d %d\n", (int)getpid(), local_port(c[2]));
	fflush(stdout);
	msleep(hold);
	for (int i = 0; i < 3; i++)
		close(c[i]);
	close(l);
	return 0;
}

static int retrans(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int port = num(argv[0]), tx = num(argv[1]), wait_ms = num(argv[2]);
	int l = listener(AF_INET, "127.0.0.1", port, 8);
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, AF_INET, "127.0.0.1", port);
	int c = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (c < 0 || connect(c, (struct sockaddr *)&ss, len))
		die("connect");
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	xfer(c, tx, 1);
	long got = 0;
	char buf[4096];
	struct pollfd p = {s, POLLIN, 0};
	while (got < tx && poll(&p, 1, wait_ms) == 1) {
		ssize_t r = read(s, buf, sizeof(buf));
		if (r <= 0)
			break;
		got += r;
	}
	printf("retrans %d %d %ld\n", (int)getpid(), local_port(c), got);
	fflush(stdout);
	close(c);
	close(s);
	close(l);
	return 0;
}

/* A connect whose SYNs go nowhere (the test drops them on output), from port sport (0: the
 * kernel picks it in connect(), after the socket is in SYN_SENT): waited for wait_ms, then
 * given up. */
static int syndrop(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int port = num(argv[0]), sport = num(argv[1]), wait_ms = num(argv[2]);
	struct sockaddr_storage me, them;
	socklen_t ml = addr(&me, AF_INET, "127.0.0.1", sport);
	socklen_t tl = addr(&them, AF_INET, "127.0.0.1", port);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (sport && bind(fd, (struct sockaddr *)&me, ml)))
		die("bind");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (connect(fd, (struct sockaddr *)&them, tl) == 0 || errno != EINPROGRESS)
		die("a connect that waits");
	struct pollfd p = {fd, POLLOUT, 0};
	int r = poll(&p, 1, wait_ms);
	printf("syndrop %d %d %d\n", (int)getpid(), local_port(fd), r);
	fflush(stdout);
	close(fd);
	return 0;
}

static int storm(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int port = num(argv[0]), n = num(argv[1]);
	int l = listener(AF_INET, "127.0.0.1", port, 128);
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, AF_INET, "127.0.0.1", port);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		struct linger lg = {1, 0}; /* closed by a reset: no TIME_WAIT to run out of ports */
		if (c < 0 || connect(c, (struct sockaddr *)&ss, len))
			die("connect");
		int s = accept(l, NULL, NULL);
		if (s < 0)
			die("accept");
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c);
		close(s);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("storm %d %.6f\n", n, (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	close(l);
	return 0;
}

static int refusals(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int port = num(argv[0]), n = num(argv[1]);
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, AF_INET, "127.0.0.1", port);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0)
			die("socket");
		if (connect(c, (struct sockaddr *)&ss, len) == 0 || errno != ECONNREFUSED)
			die("a connect refused");
		close(c);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("refusals %d %.6f\n", n,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}

static int halfclose(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int port = num(argv[0]), tx = num(argv[1]), rx = num(argv[2]);
	int l = listener(AF_INET, "127.0.0.1", port, 8);
	fflush(stdout);
	pid_t client = fork();
	if (client < 0)
		die("fork");
	if (client == 0) {
		prctl(PR_SET_NAME, "tcpt-half", 0, 0, 0);
		struct sockaddr_storage ss;
		socklen_t len = addr(&ss, AF_INET, "127.0.0.1", port);
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&ss, len))
			die("connect");
		printf("halfclose %d %d\n", (int)getpid(), local_port(c));
		fflush(stdout);
		xfer(c, tx, 1);
		if (shutdown(c, SHUT_WR))
			die("shutdown");
		msleep(100);
		xfer(c, rx, 0);
		close(c);
		_exit(0);
	}
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	xfer(s, tx, 0);
	char ch;
	if (read(s, &ch, 1) != 0) /* the client's shutdown */
		die("read EOF");
	xfer(s, rx, 1);
	close(s);
	int st;
	waitpid(client, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void wait_start(const char *file)
{
	while (access(file, F_OK))
		msleep(10);
}

static int early(const char *start, int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int port = num(argv[0]), tx = num(argv[1]), hold = num(argv[2]);
	int l = listener(AF_INET, "127.0.0.1", port, 8);
	struct sockaddr_storage ss;
	socklen_t len = addr(&ss, AF_INET, "127.0.0.1", port);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&ss, len))
		die("connect");
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	fflush(stdout);
	pid_t client = fork();
	if (client < 0)
		die("fork");
	if (client == 0) {
		prctl(PR_SET_NAME, "tcpt-early", 0, 0, 0);
		close(s);
		printf("early %d %d %d\n", (int)getpid(), (int)getppid(), local_port(c));
		wait_start(start);
		xfer(c, tx, 1);
		msleep(hold);
		close(c);
		_exit(0);
	}
	close(c);
	wait_start(start);
	xfer(s, tx, 0);
	char ch;
	if (read(s, &ch, 1) != 0) /* the client's close */
		die("read EOF");
	close(s);
	int st;
	waitpid(client, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tcp_target START-FILE MODE ARGS...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Never a hang: a connection that waits forever (the 4.9 guest's suite once waited
	 * 25 minutes in test_tcp's first wait for this program) ends the program, and the
	 * test says what it did not do. A benchmark's storm may take longer. */
	alarm(strcmp(argv[2], "storm") ? 60 : 900);
	if (!strcmp(argv[2], "early")) {
		int r = early(argv[1], argc - 3, argv + 3);
		if (r == 2)
			fprintf(stderr, "tcp_target: wrong arguments for early\n");
		return r;
	}
	wait_start(argv[1]);
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} modes[] = {{"conn", conn},	   {"refused", refused},    {"backlog", backlog},
		     {"retrans", retrans}, {"storm", storm},	    {"refusals", refusals},
		     {"syndrop", syndrop}, {"halfclose", halfclose}};
	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
		if (!strcmp(argv[2], modes[i].name)) {
			int r = modes[i].fn(argc - 3, argv + 3);
			if (r == 2)
				fprintf(stderr, "tcp_target: wrong arguments for %s\n", argv[2]);
			return r;
		}
	fprintf(stderr, "tcp_target: unknown mode %s\n", argv[2]);
	return 2;
}
