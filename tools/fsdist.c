// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsdist: the latencies of one file system's reads, writes, opens and fsyncs as a log2
 * histogram per operation, at the end or every interval, as bcc's ext4dist; timed where
 * fsslower times them (fsops.h): kprobe pairs on the file system's own file operations, or
 * without kprobes ext4's fsync tracepoints. Installed also as ext4dist, xfsdist, btrfsdist
 * and nfsdist: the name it is run by chooses the file system.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/out.h"
#include "base/row.h"
#include "count/hist.h"
#include "domain/fsops.h"
#include "tool.h"

/* --- settings and options --------------------------------------------------------------------- */

static struct env {
	struct fsops f;
	bool fs_given; /* --fs */
	int alias;     /* run as <fs>dist: its index, else -1 */
	bool ms;       /* -m */
	struct hist_log2 h[FSOPS_N];
	uint64_t sum[FSOPS_N]; /* ns */
	struct row row;
} env = {.alias = -1};

enum { OPT_FS = OPT_LONG + 1 };

static const struct row_col cols[] = {
	ROW_COL_WHEN,
	{NULL, "op", 0, ROW_WORD, 0, ROW_NOTEXT, "R reads, W writes, O opens, S fsyncs"},
	{NULL, "func", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "the function (kprobes) or the entry's tracepoint that timed them"},
	{NULL, "unit", 0, ROW_WORD, 0, ROW_NOTEXT, "us or ms (-m)"},
	{NULL, "count", 0, ROW_UINT, 0, ROW_NOTEXT, "the operations counted"},
	{NULL, "sum_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "their latencies added up, in ns"},
	{NULL, "hist", 0, ROW_JSON, 0, 0,
	 "the log2 histogram: [{\"low\":L,\"high\":H,\"count\":N},...], latencies in unit in "
	 "[L, H)"},
};
static const struct row_table table = ROW_TABLE("each operation's histogram, every interval", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{OPT_FS, "fs", "FS",
	 "the file system: ext4, xfs, btrfs or nfs (default: ext4, or\nthe one in the name it "
	 "is run by: xfsdist)",
	 0},
	TOOL_JSON("one JSON object per histogram"),
	TOOL_TID,
	{'m', NULL, NULL, "milliseconds (default: microseconds)", 0},
	TOOL_NAME,
	TOOL_PID,
	{'T', NULL, NULL, "the wall-clock time above each interval's histograms",
	 TOOL_OPT_WALLCLOCK},
	{'v', NULL, NULL, "say which functions or events time each operation, and exit", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"fsdist                  # ext4's latencies, histograms at Ctrl-C",
	"fsdist 1 5              # five 1-second intervals",
	"fsdist -m -p 181        # PID 181's, in milliseconds",
	"fsdist -j -d 10 > d.json # 10 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case OPT_FS:
		env.f.fs = opt_choice(arg, fsops_fs_names, FSOPS_NFS, "--fs");
		env.fs_given = true;
		break;
	case 'm': env.ms = true; break;
	case 'v': env.f.verbose = true; break;
	}
}

static void check(struct tool_run *t)
{
	fsops_check(&env.f, env.alias, env.fs_given, t->tool->name, "fsdist");
}

/* --- per event -------------------------------------------------------------------------------- */

/* Per operation: a division and a slot's increment. */
static void on_op(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	int op = (int)(intptr_t)ctx;
	hist_log2_add(&env.h[op], c->ns / (env.ms ? 1000000 : 1000));
	env.sum[op] += c->ns;
}

/* --- every interval and at the end ------------------------------------------------------------ */

static int interval(struct tool_run *t, uint64_t now)
{
	const char *unit = env.ms ? "ms" : "us";
	char when[16];
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock)
			printf("%s\n", out_wallclock(now, when));
	}
	bool first = true;
	for (int op = 0; op < FSOPS_N; op++) {
		if (!env.f.on[op])
			continue;
		if (t->o.json) {
			struct row *r = &env.row;
			row_begin(r, now);
			row_word(r, out_wallclock(now, when));
			row_word(r, fsops_letter(op));
			row_word(r, env.f.fp[op].func);
			row_word(r, unit);
			row_uint(r, env.h[op].total);
			row_uint(r, env.sum[op]);
			FILE *f = row_json(r);
			if (f)
				hist_log2_json(f, &env.h[op]);
			row_end(r);
		} else {
			if (!first)
				out_table_gap(stdout);
			printf("operation = %s (%s)\n", fsops_what(op), env.f.fp[op].func);
			hist_log2_print(stdout, &env.h[op], unit, fsops_what(op));
		}
		first = false;
		hist_log2_reset(&env.h[op]);
		env.sum[op] = 0;
	}
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	fsops_report(&env.f, t->tool->name);
}

/* --- set up ----------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	int ret = fsops_prepare(t, &env.f);
	if (ret)
		return ret;
	snprintf(t->traced, sizeof(t->traced), "the latencies of %s of %s (%s)", env.f.traced,
		 fsops_fs_names[env.f.fs], env.f.kprobes ? "kprobes" : "tracepoints");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	return fsops_trace(t, &env.f, on_op);
}

static void cleanup(struct tool_run *t)
{
	fsops_free(&env.f);
}

static const struct tool fsdist = {
	.name = "fsdist",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "histograms",
	.interval_default_s = 0,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	/* ext4dist, xfsdist, btrfsdist, nfsdist: links to this program. */
	static char name[32];
	struct tool tool = fsdist;
	if ((env.alias = fsops_tool_name(argv[0], "dist", name, sizeof(name))) >= 0)
		tool.name = name;
	return tool_main(&tool, argc, argv);
}
