// SPDX-License-Identifier: GPL-2.0-only
/*
 * iosnoop: trace block device I/O with latency, one line per I/O.
 * Pairs each request's issue (or queue, -Q) with its completion by device and sector, and
 * names the process that submitted it even when a kernel worker issued it.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "domain/blk.h"
#include "domain/member.h"
#include "base/out.h"
#include "base/pair.h"
#include "base/row.h"
#include "tool.h"

static struct env {
	struct blk_opts blk;
	const char *name; /* -n */
	pid_t pid;	  /* -p */
	uint64_t min_ns;  /* -m */
	bool start_col;	  /* -s */
	bool end_col;	  /* -t */
	struct blk b;
	struct member of_pid; /* -p */
	struct row row;
} env;

/* One line per I/O, at its completion. */
static const struct row_col cols[] = {
	ROW_COL_WALL,
	{"STARTs", "start_s", -14, ROW_FLOAT, 6, ROW_OPTIONAL,
	 "when it was issued (or queued, -Q), trace-clock seconds"},
	{"ENDs", "end_s", -14, ROW_FLOAT, 6, ROW_OPTIONAL,
	 "when it completed, trace-clock seconds"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the process that submitted it, its name then"},
	{"PID", "pid", -7, ROW_INT, 0, 0, "its thread ID"},
	{"TYPE", "type", -4, ROW_STR, 0, 0,
	 "rwbs: R read, W write, F flush, D discard, S sync, ..."},
	{"DEV", "dev", -8, ROW_WORD, 0, 0, "the disk, MAJOR,MINOR"},
	{"BLOCK", "sector", -12, ROW_UINT, 0, 0, "the first sector (512 bytes)"},
	{"BYTES", "bytes", -8, ROW_UINT, 0, 0, "its size"},
	{"LATms", "lat_ms", 9, ROW_FLOAT, 3, 0,
	 "from issue (or queue) to completion, milliseconds"},
	{NULL, "error", 0, ROW_INT, 0, ROW_NOTEXT, "the completion's error (0, or -EIO...)"},
};
static const struct row_table table = ROW_TABLE("each I/O, at its completion", cols);

static const struct opt_spec options[] = {
	BLK_OPT_DEV,
	BLK_OPT_TYPE,
	TOOL_JSON("one JSON object per I/O"),
	{'m', NULL, "MS", "only I/O slower than MS milliseconds", 0},
	{'n', NULL, "NAME", "only I/O submitted by processes whose name matches (glob)", 0},
	{'p', NULL, "PID", "only I/O submitted by this process (any of its threads)", 0},
	BLK_OPT_QUEUED,
	{'s', NULL, NULL, "STARTs column: start time in seconds", 0},
	{'t', NULL, NULL, "ENDs column: completion time in seconds", 0},
	TOOL_WALLCLOCK,
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"iosnoop                  # watch block I/O live",
	"iosnoop -ts              # include start and end timestamps",
	"iosnoop -i '*R*'         # trace reads",
	"iosnoop -p 91            # I/O submitted by PID 91",
	"iosnoop -Q -d vda        # queue-to-completion latency on vda",
	"iosnoop -m 10 5          # I/O slower than 10 ms, for 5 seconds",
	"iosnoop -j | head -100   # 100 I/O as JSON lines",
	"iosnoop --trace-json io.json 5 # 5 seconds of I/O for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'm': env.min_ns = opt_decimal(arg, 1e6, "MS", "milliseconds"); break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case 's': env.start_col = true; break;
	case 't': env.end_col = true; break;
	default: blk_parse_opt(&env.blk, o->key, arg);
	}
}

static void on_io(const struct blk_io *io, void *ctx)
{
	const struct tool_run *t = ctx;
	uint64_t lat = io->end_ns - io->start_ns;
	if (lat < env.min_ns || (env.pid && !member_of(&env.of_pid, io->pid)) ||
	    (env.name && fnmatch(env.name, io->comm, 0)) ||
	    /* --cgroup is checked here: completions run in interrupts, in any task */
	    !tool_in_cgroup((struct tool_run *)t, io->pid))
		return;
	char dev[24];
	snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(io->dev), BLK_MINOR(io->dev));
	row_begin(&env.row, io->end_ns);
	row_float(&env.row, io->start_ns / 1e9);
	row_float(&env.row, io->end_ns / 1e9);
	row_str(&env.row, io->comm, sizeof(io->comm));
	row_int(&env.row, io->pid);
	row_str(&env.row, io->rwbs, sizeof(io->rwbs));
	row_word(&env.row, dev);
	row_uint(&env.row, io->sector);
	row_uint(&env.row, io->bytes);
	row_float(&env.row, lat / 1e6);
	row_int(&env.row, io->error);
	row_end(&env.row);
	struct tracejson *tj = tool_trace_json((struct tool_run *)t);
	if (tj)
		blk_trace_json(tj, io, dev);
}

/* The submitter's name comes from the block events (the kernel's comm at the time). */
static enum tool_code prepare(struct tool_run *t)
{
	t->follow_names = false;
	t->pids_checked_here = true;
	if (env.pid)
		tool_watch(t, env.pid, false);
	if ((env.pid && member_init(&env.of_pid, env.pid)) ||
	    blk_prepare(&env.b, &t->s, env.blk.queued, on_io, t))
		return TOOL_FAIL;
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	row_show(&env.row, "start_s", env.start_col);
	row_show(&env.row, "end_s", env.end_col);
	return blk_setup(&env.b, &t->s, &t->r, &env.blk) ? TOOL_FAIL : TOOL_OK;
}

static void banner(struct tool_run *t)
{
	if (t->o.duration)
		fprintf(stderr, "Tracing block I/O for %.6g seconds.\n", t->o.duration / 1e9);
	else
		fprintf(stderr, "Tracing block I/O. Ctrl-C to end.\n");
}

static void end(struct tool_run *t)
{
	blk_report(&env.b, "iosnoop");
}

static void cleanup(struct tool_run *t)
{
	blk_free(&env.b);
	member_free(&env.of_pid);
}

static const struct tool iosnoop = {
	.name = "iosnoop",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.formats = (const char *const[]){"block", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&iosnoop, argc, argv);
}
