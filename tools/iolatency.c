// SPDX-License-Identifier: GPL-2.0-only
/*
 * iolatency: block I/O latency as log2 histograms, printed every interval.
 * Same request pairing as iosnoop; an I/O counts in the interval in which it completed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "domain/blk.h"
#include "pictures/heat.h"
#include "count/hist.h"
#include "base/out.h"
#include "count/prom.h"
#include "base/row.h"
#include "tool.h"

#define MAX_DISKS 256

static struct env {
	struct blk_opts blk;
	bool per_disk;	     /* -D */
	bool millis;	     /* -m */
	const char *heatmap; /* --heatmap FILE */
	FILE *heat_file;
	struct heat *heat;
	struct blk b;
	uint64_t dropped; /* I/O of disks past MAX_DISKS */
	int ndisks;
	struct disk {
		uint32_t dev;
		struct hist_log2 h;
		uint64_t ns; /* --prom: the latencies added up */
	} disks[MAX_DISKS];
	struct prom_set prom; /* --prom: each disk's histogram from the start */
} env;

enum { OPT_HEATMAP = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	BLK_OPT_DEV,
	{'D', NULL, NULL, "one histogram per disk", 0},
	BLK_OPT_TYPE,
	TOOL_JSON("one JSON object per histogram"),
	{'m', NULL, NULL, "millisecond buckets (default: microseconds)", 0},
	BLK_OPT_QUEUED,
	{'T', NULL, NULL, "print the wall-clock time with each histogram", TOOL_OPT_WALLCLOCK},
	{OPT_HEATMAP, "heatmap", "FILE",
	 "also write the histograms as an SVG latency heat map to FILE at the\nend (a column "
	 "per interval; with -D, all disks in one)",
	 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"iolatency                # histograms every second",
	"iolatency 5 2            # two 5-second histograms",
	"iolatency -D -T 1        # per disk, with times",
	"iolatency -Q -d vda      # queue-to-completion latency on vda",
	"iolatency -i '*R*' -m    # reads, millisecond buckets",
	"iolatency --heatmap io.svg 1 60   # a minute, then its heat map",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'D')
		env.per_disk = true;
	else if (o->key == 'm')
		env.millis = true;
	else if (o->key == OPT_HEATMAP)
		env.heatmap = arg;
	else
		blk_parse_opt(&env.blk, o->key, arg);
}

static struct disk *disk_of(uint32_t dev)
{
	if (!env.per_disk)
		return &env.disks[0];
	for (int i = 0; i < env.ndisks; i++)
		if (env.disks[i].dev == dev)
			return &env.disks[i];
	if (env.ndisks == MAX_DISKS)
		return NULL;
	env.disks[env.ndisks].dev = dev;
	return &env.disks[env.ndisks++];
}

static void on_io(const struct blk_io *io, void *ctx)
{
	struct disk *d = disk_of(io->dev);
	if (!d) {
		env.dropped++;
		return;
	}
	hist_log2_add(&d->h, (io->end_ns - io->start_ns) / (env.millis ? 1000000 : 1000));
	d->ns += io->end_ns - io->start_ns;
}

/* -j: one object per histogram (per disk with -D); the text is hist.h's. */
#define COLS_HEAD                                                          \
	ROW_COL_WALL, {NULL,                                               \
		       "interval_s",                                       \
		       0,                                                  \
		       ROW_FLOAT,                                          \
		       6,                                                  \
		       ROW_NOTEXT,                                         \
		       "seconds between histograms (0: one, at the end)"}, \
	{                                                                  \
		NULL, "unit", 0, ROW_WORD, 0, ROW_NOTEXT, "us or ms (-m)"  \
	}
#define COLS_TAIL                                                                           \
	{NULL, "count", 0, ROW_UINT, 0, ROW_NOTEXT, "I/O in the interval"},                 \
	{                                                                                   \
		NULL, "hist", 0, ROW_JSON, 0, 0,                                            \
			"the non-empty rows of the log2 histogram: [{low, high, count}...]" \
	}
static const struct row_col all_cols[] = {COLS_HEAD, COLS_TAIL};
static const struct row_col disk_cols[] = {
	COLS_HEAD,
	{NULL, "dev", 0, ROW_WORD, 0, ROW_NOTEXT, "the disk, \"MAJOR,MINOR\" (-D)"},
	{NULL, "disk", 0, ROW_WORD, 0, ROW_NOTEXT, "its name (-D)"},
	COLS_TAIL,
};
static const struct row_table tables[] = {
	ROW_TABLE("each histogram", all_cols),
	ROW_TABLE("each disk's histogram, with -D", disk_cols),
};

static void print_disk(const struct tool_run *t, const struct disk *d, uint64_t now)
{
	char name[64], dev[24];
	const char *unit = env.millis ? "ms" : "us";
	snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(d->dev), BLK_MINOR(d->dev));
	if (env.per_disk)
		blk_dev_name(d->dev, name, sizeof(name));
	if (t->o.json) {
		struct row r;
		row_init(&r, &tables[env.per_disk], stdout, true, false, false);
		row_begin(&r, now);
		row_float(&r, t->o.interval / 1e9);
		row_word(&r, unit);
		if (env.per_disk) {
			row_word(&r, dev);
			row_word(&r, name);
		}
		row_uint(&r, d->h.total);
		FILE *f = row_json(&r);
		if (f)
			hist_log2_json(f, &d->h);
		row_end(&r);
		return;
	}
	if (env.per_disk)
		printf("disk %s%s%s%s:\n", dev, *name ? " (" : "", name, *name ? ")" : "");
	hist_log2_print(stdout, &d->h, unit, "I/O");
}

/* --prom: a disk's interval added to its series (labels dev and disk with -D). */
static void prom_add(const struct disk *d)
{
	char labels[256], name[64], dev[24];
	labels[0] = 0;
	if (env.per_disk) {
		snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(d->dev), BLK_MINOR(d->dev));
		blk_dev_name(d->dev, name, sizeof(name));
		prom_labels(labels, sizeof(labels), "dev", dev, "disk", name, NULL);
	}
	struct prom_series *ps = prom_series(&env.prom, labels);
	if (ps) {
		prom_hist_add(&ps->h, &d->h);
		ps->sum += d->ns;
	}
}

static void prom_write(struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	const char *name = "ftrace_tools_iolatency_io_seconds";
	prom_family(p, name, "histogram", "Block I/O latency in seconds.");
	for (size_t i = 0; i < env.prom.n; i++)
		prom_hist(p, name, env.prom.s[i]->labels, &env.prom.s[i]->h,
			  env.millis ? 1000000 : 1000, PROM_NS, env.prom.s[i]->sum, PROM_NS);
	prom_commit(p);
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock)
			printf("%s\n", when);
	}
	if (env.per_disk && !env.ndisks && !t->o.json)
		out_none(stdout, "I/O"); /* no disk seen yet: no histogram to show it */
	for (int i = 0; i < (env.per_disk ? env.ndisks : 1); i++) {
		print_disk(t, &env.disks[i], now);
		for (int k = 0; env.heat && k < HIST_SLOTS; k++) {
			uint64_t lo, hi;
			hist_log2_bounds(k, &lo, &hi);
			if (env.disks[i].h.slot[k] &&
			    heat_add_bucket(env.heat, now / 1e9, (double)lo, (double)hi,
					    env.disks[i].h.slot[k])) {
				fprintf(stderr, "iolatency: out of memory for --heatmap\n");
				heat_free(env.heat);
				env.heat = NULL;
			}
		}
		if (t->prom)
			prom_add(&env.disks[i]);
		hist_log2_reset(&env.disks[i].h);
		env.disks[i].ns = 0;
	}
	if (t->prom)
		prom_write(t);
	if (env.dropped) {
		fprintf(stderr, "WARNING: %llu I/O on disks past the first %d not counted\n",
			(unsigned long long)env.dropped, MAX_DISKS);
		env.dropped = 0;
	}
	return 0;
}

/* --heatmap: the picture of every interval's histograms, written at the end. */
static void write_heatmap(struct tool_run *t)
{
	char why[160];
	struct heat_opts o = {
		.title = "Block I/O latency",
		.unit = env.millis ? "ms" : "us",
		.what = "I/O",
		.width = t->o.interval / 1e9,
	};
	if (!env.heat || heat_svg(env.heat, &o, env.heat_file, why, sizeof(why))) {
		fprintf(stderr, "iolatency: --heatmap: %s: %s not written\n",
			env.heat ? why : "out of memory", env.heatmap);
		fclose(env.heat_file);
		unlink(env.heatmap);
	} else if (fclose(env.heat_file) && errno != EPIPE) {
		/* EPIPE: --heatmap /dev/stdout | head, its reader went away: not a failure */
		fprintf(stderr, "iolatency: --heatmap: cannot write %s: %s\n", env.heatmap,
			strerror(errno));
	}
	env.heat_file = NULL;
}

/* Stopped mid-interval (Ctrl-C): show what that interval had so far. */
static void end(struct tool_run *t)
{
	for (int i = 0; !t->last_interval && i < (env.per_disk ? env.ndisks : 1); i++)
		if (env.disks[i].h.total) {
			interval(t, reader_now());
			break;
		}
	if (env.heat_file)
		write_heatmap(t);
	blk_report(&env.b, "iolatency");
}

static enum tool_code prepare(struct tool_run *t)
{
	t->follow_names = false;
	/* The file is opened before tracing: one that cannot be written stops the run now. */
	if (env.heatmap &&
	    (!(env.heat = heat_new()) || !(env.heat_file = fopen(env.heatmap, "w")))) {
		fprintf(stderr, "iolatency: cannot write %s: %s\n", env.heatmap, strerror(errno));
		return TOOL_FAIL;
	}
	return blk_prepare(&env.b, &t->s, env.blk.queued, on_io, t) ? TOOL_FAIL : TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	return blk_setup(&env.b, &t->s, &t->r, &env.blk) ? TOOL_FAIL : TOOL_OK;
}

static void banner(struct tool_run *t)
{
	fprintf(stderr, "Tracing block I/O. Output every %.6g seconds. Ctrl-C to end.\n",
		t->o.interval / 1e9);
}

static void cleanup(struct tool_run *t)
{
	blk_free(&env.b);
	prom_set_free(&env.prom);
	heat_free(env.heat);
	env.heat = NULL;
	if (env.heat_file) /* ended before the end stage: no picture */
		fclose(env.heat_file), unlink(env.heatmap);
}

static const struct tool iolatency = {
	.name = "iolatency",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "histograms",
	.interval_default_s = 1,
	.examples = examples,
	.rows = (const struct row_table *const[]){&tables[0], &tables[1], NULL},
	.formats = (const char *const[]){"block", NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&iolatency, argc, argv);
}
