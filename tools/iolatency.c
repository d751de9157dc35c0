/*
 * iolatency: block I/O latency as log2 histograms, printed every interval.
 * Same request pairing as iosnoop; an I/O counts in the interval in which it completed.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "blk.h"
#include "hist.h"
#include "opt.h"
#include "out.h"
#include "reader.h"
#include "session.h"

#define MAX_DISKS 256

static struct env {
	struct blk_opts blk;
	bool per_disk;     /* -D */
	bool millis;       /* -m */
	bool wallclock;    /* -T */
	bool json;         /* -j */
	uint64_t interval; /* ns */
	long long count;   /* intervals; 0: until stopped */
} env = {.interval = 1000000000ULL};

static struct disk {
	uint32_t dev;
	struct hist_log2 h;
} disks[MAX_DISKS];
static int ndisks;
static uint64_t dropped; /* I/O of disks past MAX_DISKS */

static void usage(FILE *f)
{
	fprintf(f,
		"USAGE: iolatency [-hDjmQTV] [-d DEV] [-i TYPE] [interval [count]]\n"
		"   -d DEV      only this device: name (vda), /dev path or MAJOR,MINOR\n"
		"   -D          one histogram per disk\n"
		"   -i TYPE     only this I/O type, a glob on rwbs: '*R*' reads, '*W*' writes\n"
		"   -j, --json  one JSON object per histogram\n"
		"   -m          millisecond buckets (default: microseconds)\n"
		"   -Q          measure from queueing, so latency includes time in the queue\n"
		"   -T          print the wall-clock time with each histogram\n"
		"   -h, --help  this usage\n"
		"   -V, --version  the version\n"
		"   interval    seconds between histograms (default 1)\n"
		"   count       number of histograms, then exit (default: until Ctrl-C)\n"
		"  eg,\n"
		"       iolatency                # histograms every second\n"
		"       iolatency 5 2            # two 5-second histograms\n"
		"       iolatency -D -T 1        # per disk, with times\n"
		"       iolatency -Q -d vda      # queue-to-completion latency on vda\n"
		"       iolatency -i '*R*' -m    # reads, millisecond buckets\n");
}

static void parse_args(int argc, char **argv)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:Di:jmQThV", opt_longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			env.per_disk = true;
			break;
		case 'j':
			env.json = true;
			break;
		case 'm':
			env.millis = true;
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
		env.interval = opt_seconds(argv[optind++], "interval");
	if (optind < argc)
		env.count = opt_int(argv[optind++], 1, 1LL << 40, "count");
	if (optind < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[optind]);
}

static struct disk *disk_of(uint32_t dev)
{
	if (!env.per_disk)
		return &disks[0];
	for (int i = 0; i < ndisks; i++)
		if (disks[i].dev == dev)
			return &disks[i];
	if (ndisks == MAX_DISKS)
		return NULL;
	disks[ndisks].dev = dev;
	return &disks[ndisks++];
}

static void on_io(const struct blk_io *io, void *ctx)
{
	(void)ctx;
	struct disk *d = disk_of(io->dev);
	if (!d) {
		dropped++;
		return;
	}
	hist_log2_add(&d->h, (io->end_ns - io->start_ns) / (env.millis ? 1000000 : 1000));
}

static void print_disk(const struct disk *d, const char *when)
{
	char name[64], dev[24];
	const char *unit = env.millis ? "ms" : "us";
	snprintf(dev, sizeof(dev), "%u,%u", KDEV_MAJOR(d->dev), KDEV_MINOR(d->dev));
	if (env.per_disk)
		blockdev_name(d->dev, name, sizeof(name));
	if (env.json) {
		printf("{\"time\":\"%s\",\"interval_s\":%.6g,\"unit\":\"%s\"", when,
		       env.interval / 1e9, unit);
		if (env.per_disk)
			printf(",\"dev\":\"%s\",\"disk\":\"%s\"", dev, name);
		printf(",\"count\":%llu,\"hist\":", (unsigned long long)d->h.total);
		hist_log2_json(stdout, &d->h);
		printf("}\n");
		return;
	}
	if (env.per_disk)
		printf("disk %s%s%s%s:\n", dev, *name ? " (" : "", name, *name ? ")" : "");
	hist_log2_print(stdout, &d->h, unit, "I/O");
}

static int print_interval(uint64_t now, void *ctx)
{
	(void)ctx;
	char when[16];
	out_wallclock(now, when);
	if (env.wallclock && !env.json)
		printf("\n%s\n", when);
	else if (!env.json)
		putchar('\n');
	for (int i = 0; i < (env.per_disk ? ndisks : 1); i++) {
		print_disk(&disks[i], when);
		hist_log2_reset(&disks[i].h);
	}
	if (dropped) {
		fprintf(stderr, "WARNING: %llu I/O on disks past the first %d not counted\n",
			(unsigned long long)dropped, MAX_DISKS);
		dropped = 0;
	}
	return env.count && --env.count == 0;
}

static bool pending(void)
{
	for (int i = 0; i < (env.per_disk ? ndisks : 1); i++)
		if (disks[i].h.total)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	opt_init(argv[0]);
	parse_args(argc, argv);

	struct session s = {0};
	struct reader r;
	struct blk b = {0};
	int ret = 1;
	if (blk_open(&b, &s, &r, opt_tool, &env.blk, on_io, NULL))
		goto out;

	out_init();
	out_clock_init();
	fprintf(stderr, "Tracing block I/O. Output every %.6g seconds. Ctrl-C to end.\n",
		env.interval / 1e9);
	bool counted = env.count != 0;
	if (reader_run(&r, 0, env.interval, print_interval, NULL, out_flush) == 0)
		ret = 0;
	/* Stopped mid-interval (Ctrl-C): show what that interval had so far. */
	if (!(counted && env.count == 0) && !out_closed() && pending())
		print_interval(reader_now(), NULL);
	out_flush();
out:
	blk_free(&b);
	session_close(&s);
	return ret;
}
