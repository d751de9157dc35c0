/*
 * iosnoop: trace block device I/O with latency, one line per I/O.
 * Pairs each request's issue (or queue, -Q) with its completion by device and sector, and
 * names the process that submitted it even when a kernel worker issued it.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blk.h"
#include "opt.h"
#include "out.h"
#include "pair.h"
#include "reader.h"
#include "session.h"

static struct env {
	struct blk_opts blk;
	const char *name;  /* -n */
	pid_t pid;         /* -p */
	uint64_t min_ns;   /* -m */
	bool start_col;    /* -s */
	bool end_col;      /* -t */
	bool wallclock;    /* -T */
	bool json;         /* -j */
	uint64_t duration; /* ns, 0: until stopped */
} env;

static void usage(FILE *f)
{
	fprintf(f,
		"USAGE: iosnoop [-hjQstTV] [-d DEV] [-i TYPE] [-m MS] [-n NAME] [-p PID] [duration]\n"
		"   -d DEV      only this device: name (vda), /dev path or MAJOR,MINOR\n"
		"   -i TYPE     only this I/O type, a glob on rwbs: '*R*' reads, '*W*' writes\n"
		"   -j, --json  one JSON object per I/O\n"
		"   -m MS       only I/O slower than MS milliseconds\n"
		"   -n NAME     only I/O submitted by processes whose name matches (glob)\n"
		"   -p PID      only I/O submitted by this process (any of its threads)\n"
		"   -Q          measure from queueing, so latency includes time in the queue\n"
		"   -s          STARTs column: start time in seconds\n"
		"   -t          ENDs column: completion time in seconds\n"
		"   -T          TIME column: wall-clock time HH:MM:SS\n"
		"   -h, --help  this usage\n"
		"   -V, --version  the version\n"
		"   duration    trace for this many seconds, then exit\n"
		"  eg,\n"
		"       iosnoop                  # watch block I/O live\n"
		"       iosnoop -ts              # include start and end timestamps\n"
		"       iosnoop -i '*R*'         # trace reads\n"
		"       iosnoop -p 91            # I/O submitted by PID 91\n"
		"       iosnoop -Q -d vda        # queue-to-completion latency on vda\n"
		"       iosnoop -m 10 5          # I/O slower than 10 ms, for 5 seconds\n"
		"       iosnoop -j | head -100   # 100 I/O as JSON lines\n");
}

static void parse_args(int argc, char **argv)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:i:jm:n:p:QstThV", opt_longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			env.json = true;
			break;
		case 'm':
			env.min_ns = opt_decimal(optarg, 1e6, "MS", "milliseconds");
			break;
		case 'n':
			env.name = optarg;
			break;
		case 'p':
			env.pid = opt_live_pid(optarg);
			break;
		case 's':
			env.start_col = true;
			break;
		case 't':
			env.end_col = true;
			break;
		case 'T':
			env.wallclock = true;
			break;
		default:
			if (!blk_parse_opt(&env.blk, c, optarg))
				opt_common(c, argv, usage);
		}
	}
	if (optind < argc)
		env.duration = opt_seconds(argv[optind++], "duration");
	if (optind < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[optind]);
}

/* Threads already judged for -p: tid -> 1 (of the process) or 2 (not). */
static struct pair_table pid_cache;

static bool of_process(int32_t tid)
{
	if (tid == env.pid)
		return true;
	unsigned char *v = pair_get(&pid_cache, (uint64_t)tid, 0);
	if (!v) {
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)env.pid, (int)tid);
		v = pair_put(&pid_cache, (uint64_t)tid, 0);
		*v = stat(path, &st) == 0 ? 1 : 2;
	}
	return *v == 1;
}

static void print_header(void)
{
	if (env.wallclock)
		printf("%-8s ", "TIME");
	if (env.start_col)
		printf("%-14s ", "STARTs");
	if (env.end_col)
		printf("%-14s ", "ENDs");
	printf("%-16s %-7s %-4s %-8s %-12s %-8s %9s\n", "COMM", "PID", "TYPE", "DEV", "BLOCK",
	       "BYTES", "LATms");
}

static void on_io(const struct blk_io *io, void *ctx)
{
	(void)ctx;
	uint64_t lat = io->end_ns - io->start_ns;
	if (lat < env.min_ns)
		return;
	if (env.pid && !of_process(io->pid))
		return;
	if (env.name && fnmatch(env.name, io->comm, 0))
		return;
	char tbuf[16], dev[24];
	snprintf(dev, sizeof(dev), "%u,%u", KDEV_MAJOR(io->dev), KDEV_MINOR(io->dev));
	if (env.json) {
		printf("{\"time\":\"%s\",\"start_s\":%.6f,\"end_s\":%.6f,\"comm\":",
		       out_wallclock(io->end_ns, tbuf), io->start_ns / 1e9, io->end_ns / 1e9);
		out_json_str(stdout, io->comm, sizeof(io->comm));
		printf(",\"pid\":%d,\"type\":", (int)io->pid);
		out_json_str(stdout, io->rwbs, sizeof(io->rwbs));
		printf(",\"dev\":\"%s\",\"sector\":%llu,\"bytes\":%u,\"lat_ms\":%.3f,\"error\":%d}\n",
		       dev, (unsigned long long)io->sector, io->bytes, lat / 1e6, (int)io->error);
		return;
	}
	if (env.wallclock)
		printf("%-8s ", out_wallclock(io->end_ns, tbuf));
	if (env.start_col)
		printf("%-14.6f ", io->start_ns / 1e9);
	if (env.end_col)
		printf("%-14.6f ", io->end_ns / 1e9);
	out_text(stdout, io->comm, sizeof(io->comm), 16);
	printf(" %-7d ", (int)io->pid);
	out_text(stdout, io->rwbs, sizeof(io->rwbs), 4);
	printf(" %-8s %-12llu %-8u %9.3f\n", dev, (unsigned long long)io->sector, io->bytes,
	       lat / 1e6);
}

int main(int argc, char **argv)
{
	opt_init(argv[0]);
	parse_args(argc, argv);

	struct session s = {0};
	struct reader r;
	struct blk b = {0};
	int ret = 1;
	if (pair_init(&pid_cache, 1024, 1) ||
	    blk_open(&b, &s, &r, opt_tool, &env.blk, on_io, NULL))
		goto out;

	out_init();
	out_clock_init();
	if (env.duration)
		fprintf(stderr, "Tracing block I/O for %.6g seconds.\n", env.duration / 1e9);
	else
		fprintf(stderr, "Tracing block I/O. Ctrl-C to end.\n");
	if (!env.json)
		print_header();
	if (reader_run(&r, env.duration, 0, NULL, NULL, out_flush) == 0)
		ret = 0;
	out_flush();
out:
	blk_free(&b);
	session_close(&s);
	return ret;
}
