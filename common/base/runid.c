// SPDX-License-Identifier: GPL-2.0-only
#include "base/runid.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

unsigned long long runid_start_time(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* The name (field 2) may hold spaces and parentheses: count from the last ')'. */
	char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

static struct runid self;

const char *runid_self(void)
{
	static char id[64];
	if (!id[0]) {
		unsigned short r = 0;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
			struct timespec t;
			clock_gettime(CLOCK_MONOTONIC, &t);
			r = (unsigned short)(t.tv_nsec ^ t.tv_sec);
		}
		self = (struct runid){getpid(), runid_start_time(getpid()), r};
		snprintf(id, sizeof(id), "%d_%llu_%04x", (int)self.pid, self.start, self.random);
	}
	return id;
}

/* Decimal digits at *p without a leading zero (unless the number is 0), at most max. */
static bool decimal(const char **p, unsigned long long max, unsigned long long *v)
{
	const char *q = *p;
	*v = 0;
	if (*q < '0' || *q > '9' || (q[0] == '0' && q[1] >= '0' && q[1] <= '9'))
		return false;
	for (; *q >= '0' && *q <= '9'; q++) {
		if (*v > (max - (unsigned)(*q - '0')) / 10)
			return false;
		*v = *v * 10 + (unsigned)(*q - '0');
	}
	*p = q;
	return true;
}

int runid_parse(const char *s, struct runid *id, const char **rest)
{
	unsigned long long pid, start;
	const char *p = s;
	if (!decimal(&p, INT_MAX, &pid) || pid == 0 || *p++ != '_' ||
	    !decimal(&p, ULLONG_MAX, &start) || *p++ != '_')
		return -1;
	unsigned r = 0;
	for (int i = 0; i < 4; i++, p++) {
		int c = *p;
		if (c >= '0' && c <= '9')
			r = r * 16 + (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			r = r * 16 + (unsigned)(c - 'a' + 10);
		else
			return -1;
	}
	if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
		return -1; /* more than four hex digits */
	*id = (struct runid){(pid_t)pid, start, r};
	if (rest)
		*rest = p;
	return 0;
}

bool runid_alive(const struct runid *id)
{
	runid_self();
	if (id->pid == self.pid && id->start == self.start && id->random == self.random)
		return true;
	if (kill(id->pid, 0) && errno == ESRCH)
		return false;
	return runid_start_time(id->pid) == id->start;
}

const char *runid_why_gone(const struct runid *id, char *buf, size_t n)
{
	bool there = !kill(id->pid, 0) || errno != ESRCH;
	snprintf(buf, n, there ? "PID %d is another process now" : "PID %d is gone", (int)id->pid);
	return buf;
}
