// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the live tests of oomkill, drsnoop, capable, statsnoop and mountsnoop: known
 * calls through the C library (dynamic here, so that uprobes on it see them; static in the
 * qemu guests, whose kernels have kprobes), each result printed.
 *
 *   snoop_target oom NAME MB   name itself NAME (any bytes but NUL: prctl PR_SET_NAME),
 *                              touch MB MiB of anonymous memory page by page, print
 *                              "survived" (in a memory cgroup of a smaller limit the OOM
 *                              killer ends it first)
 *   snoop_target raw UID       a raw socket (CAP_NET_RAW) as it is, then as user UID:
 *                              prints "FD1 FD2 ERRNO2"
 *   snoop_target stat DIR      in DIR, which holds "a b" and "new\nline" (a link to "a b")
 *                              and "\xff\xfe bad": stat("DIR/a b"), lstat("DIR/new\nline"),
 *                              fstatat(AT_FDCWD, "DIR/\xff\xfe bad", 0), statx(AT_FDCWD,
 *                              "DIR/missing", 0, STATX_BASIC_STATS), fstatat(dirfd, "a b",
 *                              AT_SYMLINK_NOFOLLOW), stat(""), statfs("DIR"), stat() of the
 *                              address 1 (EFAULT), of "DIR/" and "0000000/" 375 times
 *                              (ENOENT), of the same over 100 KB (ENAMETOOLONG): prints each
 *                              result (0 or -errno) on a line
 *   snoop_target long DIR SECS LEN...  for each LEN a path of LEN bytes (DIR/ then 0000000/
 *                              over and over, cut there): stat() it, then open() it,
 *                              printing each result; then SECS seconds asleep (so that
 *                              what the tracer reads of its memory late is still there;
 *                              0: each path unmapped right after its calls, gone)
 *   snoop_target newmount DIR  the new mount API: fsopen("tmpfs"), fsconfig(FSCONFIG_SET_
 *                              STRING, "size", "1m"), fsconfig(FSCONFIG_CMD_CREATE),
 *                              fsmount(), move_mount(fd, "", AT_FDCWD, DIR,
 *                              MOVE_MOUNT_F_EMPTY_PATH), umount2(DIR, 0): prints each result
 *   snoop_target stats N PATH  N stat() calls of PATH (bench/bench-sys.sh's workloads)
 *   snoop_target raws N -      N raw sockets opened and closed (N CAP_NET_RAW checks)
 *   snoop_target mounts N DIR  N tmpfs mounts on DIR, each unmounted
 */
#define _GNU_SOURCE /* statx, setresuid */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static int result(int r)
{
	return r < 0 ? -errno : r;
}

static int oom(const char *name, long mb)
{
	if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
		perror("snoop_target: prctl");
		return 1;
	}
	size_t bytes = (size_t)mb << 20;
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("snoop_target: mmap");
		return 1;
	}
	for (size_t i = 0; i < bytes; i += (size_t)page)
		p[i] = 1;
	puts("survived");
	return 0;
}

static int raw(uid_t uid)
{
	int fd1 = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (setresuid(uid, uid, uid)) {
		perror("snoop_target: setresuid");
		return 1;
	}
	int fd2 = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	printf("%d %d %d\n", fd1, fd2, fd2 < 0 ? errno : 0);
	return 0;
}

static int stats(const char *dir)
{
	char path[4096];
	struct stat st;
	struct statx sx;
	struct statfs sf;
	snprintf(path, sizeof(path), "%s/a b", dir);
	printf("%d\n", result(stat(path, &st)));
	snprintf(path, sizeof(path), "%s/new\nline", dir);
	printf("%d\n", result(lstat(path, &st)));
	snprintf(path, sizeof(path), "%s/\xff\xfe bad", dir);
	printf("%d\n", result(fstatat(AT_FDCWD, path, &st, 0)));
	snprintf(path, sizeof(path), "%s/missing", dir);
	printf("%d\n", result(statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx)));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	printf("%d\n", result(fstatat(dfd, "a b", &st, AT_SYMLINK_NOFOLLOW)));
	printf("%d\n", result(stat("", &st)));
	printf("%d\n", result(statfs(dir, &sf)));
	printf("%d\n", result(stat((const char *)1, &st))); /* a bad address: EFAULT */
	/* 3000 bytes: DIR/ then 0000000/ 375 times (ENOENT); 100 KB (ENAMETOOLONG). */
	static char big[102400];
	size_t n = (size_t)snprintf(big, sizeof(big), "%s/", dir);
	for (int i = 0; i < 375; i++, n += 8)
		memcpy(big + n, "0000000/", 8);
	big[n] = 0;
	printf("%d\n", result(stat(big, &st)));
	while (n + 8 < sizeof(big) - 1) {
		memcpy(big + n, "0000000/", 8);
		n += 8;
	}
	big[n] = 0;
	printf("%d\n", result(stat(big, &st)));
	return 0;
}

static int longs(const char *dir, unsigned secs, int n, char **lens)
{
	struct stat st;
	for (int i = 0; i < n; i++) {
		/* Each its own buffer, kept: read late, it still holds the path. */
		size_t len = strtoul(lens[i], NULL, 10), o = strlen(dir) + 1;
		char *big = mmap(NULL, len + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
		if (big == MAP_FAILED || len < o)
			return 2;
		snprintf(big, len + 1, "%s/", dir);
		for (; o < len; o++)
			big[o] = "0000000/"[(o - strlen(dir) - 1) % 8];
		big[len] = 0;
		printf("%d\n", result(stat(big, &st)));
		int fd = open(big, O_RDONLY);
		printf("%d\n", result(fd));
		if (fd >= 0)
			close(fd);
		if (!secs)
			munmap(big, len + 1);
	}
	sleep(secs);
	return 0;
}

/* A string paged in before the call that passes it: a kprobe reads user memory without
 * faulting a page in, so a literal on a page the program has not touched yet reads as
 * [unknown] (seen on 5.10 under TCG for fsconfig's "size"). */
static void paged_in(const char *s)
{
	volatile char c = 0;
	while ((c = *s++))
		;
	(void)c;
}

static int newmount(const char *dir)
{
	static const char *const strs[] = {"tmpfs", "size", "1m", ""};
	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		paged_in(strs[i]);
	paged_in(dir);
	int fs = fsopen(strs[0], 0);
	printf("%d\n", result(fs));
	printf("%d\n", result(fsconfig(fs, FSCONFIG_SET_STRING, strs[1], strs[2], 0)));
	printf("%d\n", result(fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)));
	int mnt = fsmount(fs, 0, 0);
	printf("%d\n", result(mnt));
	printf("%d\n", result(move_mount(mnt, strs[3], AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH)));
	close(mnt);
	close(fs);
	printf("%d\n", result(umount2(dir, 0)));
	return 0;
}

/* The benchmark's workloads (bench/bench-sys.sh): n calls each, through the C library. */
static int loop(const char *what, long n, const char *arg)
{
	struct stat st;
	for (long i = 0; i < n; i++) {
		if (!strcmp(what, "stats")) {
			stat(arg, &st);
		} else if (!strcmp(what, "raws")) {
			int fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(what, "mounts")) {
			if (mount("ftt", arg, "tmpfs", 0, "size=64k") || umount2(arg, 0))
				return 1;
		} else {
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "oom"))
		return oom(argv[2], atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "raw"))
		return raw((uid_t)atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "stat"))
		return stats(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "long"))
		return longs(argv[2], (unsigned)atol(argv[3]), argc - 4, argv + 4);
	if (argc == 3 && !strcmp(argv[1], "newmount"))
		return newmount(argv[2]);
	if (argc == 4 && strchr("srm", argv[1][0]) && strcmp(argv[1], "stat"))
		return loop(argv[1], atol(argv[2]), argv[3]);
	fprintf(stderr,
		"usage: snoop_target oom NAME MB | raw UID | stat DIR | long DIR SECS LEN... | "
		"newmount DIR | "
		"stats N PATH | raws N - | mounts N DIR\n");
	return 2;
}
