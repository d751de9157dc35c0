#include "opt.h"
#include "out.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *opt_tool = "ftrace-tools";

size_t opt_buffer_kb;

/* MemAvailable of /proc/meminfo in KB, 0 when unknown. */
static unsigned long long mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

long long opt_buffer_limit_kb(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long avail = mem_available_kb();
	/* A quarter of what is available, over every CPU's buffer: tracing must not push the
	 * box it looks at into reclaim (8 GB took 15 s to allocate for a 1 s run). */
	long long limit = avail ? (long long)(avail / 4 / (unsigned long long)(ncpus > 0 ? ncpus : 1))
			       : 1 << 22;
	return limit < 4 ? 4 : limit;
}

void opt_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	opt_tool = slash ? slash + 1 : argv0;
	out_check_stdio(opt_tool);
	const char *kb = getenv("FTT_BUFFER_KB");
	if (kb && *kb) {
		long long limit = opt_buffer_limit_kb();
		long long v = opt_int(kb, 1, 1LL << 40, "FTT_BUFFER_KB (KB per CPU)");
		if (v > limit)
			opt_fail("invalid FTT_BUFFER_KB: %s (KB per CPU; the buffers of all CPUs may "
				 "take at most a quarter of the available memory: %lld)", kb, limit);
		opt_buffer_kb = (size_t)v;
	}
}

void opt_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", opt_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

void opt_version(void)
{
	printf("%s (ftrace-tools) %s\n", opt_tool, FTT_VERSION);
	exit(0);
}

const struct option opt_longopts[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"json", no_argument, NULL, 'j'},
	{NULL, 0, NULL, 0},
};

void opt_common(int c, char **argv, void (*usage)(FILE *))
{
	if (c == 'h') {
		usage(stdout);
		exit(0);
	}
	if (c == 'V')
		opt_version();
	opt_fail("unknown option or missing value: '%s' (see -h)", argv[optind - 1]);
}

long long opt_int(const char *s, long long min, long long max, const char *what)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || isspace((unsigned char)*s) || *end || (errno && errno != ERANGE))
		opt_fail("invalid %s: '%s' (not a whole number)", what, s);
	if (errno == ERANGE)
		opt_fail("invalid %s: %s (must be %lld to %lld)", what, s, min, max);
	if (v < min || v > max)
		opt_fail("invalid %s: %s (must be %lld to %lld)", what, s, min, max);
	return v;
}

pid_t opt_pid(const char *s)
{
	return (pid_t)opt_int(s, 1, INT_MAX, "PID");
}

uint64_t opt_decimal(const char *s, double scale, const char *what, const char *unit)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* strtod also takes hex, "inf" and "nan": allow plain decimals only. */
	if (!*s || strspn(s, "0123456789.") != strlen(s) || *end || errno || !isfinite(v))
		opt_fail("invalid %s: '%s' (not a number of %s)", what, s, unit);
	if (v <= 0 || v * scale > 1e18)
		opt_fail("invalid %s: %s (must be greater than 0 and less than 30 years)", what, s);
	uint64_t ns = (uint64_t)(v * scale + 0.5);
	if (!ns)
		opt_fail("invalid %s: %s (shorter than a nanosecond)", what, s);
	return ns;
}

uint64_t opt_seconds(const char *s, const char *what)
{
	return opt_decimal(s, 1e9, what, "seconds");
}

pid_t opt_live_pid(const char *s)
{
	pid_t pid = opt_pid(s);
	if (kill(pid, 0) && errno == ESRCH)
		opt_fail("no such process: %s", s);
	return pid;
}

static int parse_pair(const char *s, uint32_t *kdev)
{
	unsigned maj, min;
	char sep, extra;
	if (sscanf(s, "%u%c%u%c", &maj, &sep, &min, &extra) != 3 || (sep != ',' && sep != ':'))
		return -1;
	if (!isdigit((unsigned char)s[0]) || maj >= (1U << 12) || min >= (1U << 20))
		return -1;
	*kdev = maj << 20 | min;
	return 0;
}

int blockdev_parse(const char *s, uint32_t *kdev)
{
	if (!*s)
		return -1;
	if (!parse_pair(s, kdev))
		return 0;
	if (s[0] == '/') {
		struct stat st;
		if (stat(s, &st) || !S_ISBLK(st.st_mode))
			return -1;
		*kdev = major(st.st_rdev) << 20 | minor(st.st_rdev);
		return 0;
	}
	if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return -1;
	char path[512], buf[64];
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", s);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok ? parse_pair(buf, kdev) : -1;
}

uint32_t opt_blockdev(const char *s)
{
	uint32_t kdev;
	if (blockdev_parse(s, &kdev))
		opt_fail("invalid device: '%s' (not a block device name, /dev path or MAJOR,MINOR)",
			 s);
	return kdev;
}

const char *blockdev_name(uint32_t kdev, char *buf, size_t len)
{
	char path[128], link[512];
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", KDEV_MAJOR(kdev), KDEV_MINOR(kdev));
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	buf[0] = 0;
	if (n > 0) {
		link[n] = 0;
		const char *base = strrchr(link, '/');
		snprintf(buf, len, "%s", base ? base + 1 : link);
	}
	return buf;
}
