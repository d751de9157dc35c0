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

#include "blk.h"
#include "out.h"
#include "pair.h"
#include "tool.h"

static struct env {
	struct blk_opts blk;
	const char *name; /* -n */
	pid_t pid;	  /* -p */
	uint64_t min_ns;  /* -m */
	bool start_col;	  /* -s */
	bool end_col;	  /* -t */
	struct blk b;
	struct pair_table pid_cache; /* -p: tid -> 1 (of the process) or 2 (not) */
} env;

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
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	(void)t;
	switch (o->key) {
	case 'm': env.min_ns = opt_decimal(arg, 1e6, "MS", "milliseconds"); break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case 's': env.start_col = true; break;
	case 't': env.end_col = true; break;
	default: blk_parse_opt(&env.blk, o->key, arg);
	}
}

/* -p is checked here, not with set_event_pid: a completion runs in whatever task the
 * interrupt lands on, and the submitter is only known from the earlier events. */
static bool of_process(int32_t tid)
{
	if (tid == env.pid)
		return true;
	unsigned char *v = pair_get(&env.pid_cache, (uint64_t)tid, 0);
	if (!v) {
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)env.pid, (int)tid);
		v = pair_put(&env.pid_cache, (uint64_t)tid, 0);
		*v = stat(path, &st) == 0 ? 1 : 2;
	}
	return *v == 1;
}

static void on_io(const struct blk_io *io, void *ctx)
{
	const struct tool_run *t = ctx;
	uint64_t lat = io->end_ns - io->start_ns;
	if (lat < env.min_ns || (env.pid && !of_process(io->pid)) ||
	    (env.name && fnmatch(env.name, io->comm, 0)))
		return;
	char tbuf[16], dev[24];
	snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(io->dev), BLK_MINOR(io->dev));
	if (t->o.json) {
		printf("{\"time\":\"%s\",\"start_s\":%.6f,\"end_s\":%.6f,\"comm\":",
		       out_wallclock(io->end_ns, tbuf), io->start_ns / 1e9, io->end_ns / 1e9);
		out_json_str(stdout, io->comm, sizeof(io->comm));
		printf(",\"pid\":%d,\"type\":", (int)io->pid);
		out_json_str(stdout, io->rwbs, sizeof(io->rwbs));
		printf(",\"dev\":\"%s\",\"sector\":%llu,\"bytes\":%u,\"lat_ms\":%.3f,\"error\":%d}"
		       "\n",
		       dev, (unsigned long long)io->sector, io->bytes, lat / 1e6, (int)io->error);
		return;
	}
	if (t->o.wallclock)
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

/* The submitter's name comes from the block events (the kernel's comm at the time). */
static int prepare(struct tool_run *t)
{
	t->follow_names = false;
	if (env.pid)
		tool_watch(t, env.pid, false);
	if (pair_init(&env.pid_cache, 1024, 1) ||
	    blk_prepare(&env.b, &t->s, env.blk.queued, on_io, t))
		return TOOL_FAIL;
	return TOOL_OK;
}

static int setup(struct tool_run *t)
{
	return blk_setup(&env.b, &t->s, &t->r, &env.blk) ? TOOL_FAIL : TOOL_OK;
}

static void banner(struct tool_run *t)
{
	if (t->o.duration)
		fprintf(stderr, "Tracing block I/O for %.6g seconds.\n", t->o.duration / 1e9);
	else
		fprintf(stderr, "Tracing block I/O. Ctrl-C to end.\n");
}

static void header(struct tool_run *t)
{
	if (t->o.wallclock)
		printf("%-8s ", "TIME");
	if (env.start_col)
		printf("%-14s ", "STARTs");
	if (env.end_col)
		printf("%-14s ", "ENDs");
	printf("%-16s %-7s %-4s %-8s %-12s %-8s %9s\n", "COMM", "PID", "TYPE", "DEV", "BLOCK",
	       "BYTES", "LATms");
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	blk_free(&env.b);
	pair_free(&env.pid_cache);
}

static const struct tool iosnoop = {
	.name = "iosnoop",
	.opts = options,
	.operands = "[duration]",
	.operand_help = "   duration    trace for this many seconds, then exit\n",
	.examples = examples,
	.formats = (const char *const[]){"block", NULL},
	.option = option,
	.operands_fn = tool_operand_duration,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.header = header,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&iosnoop, argc, argv);
}
