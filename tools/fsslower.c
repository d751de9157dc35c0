// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsslower: the reads, writes, opens and fsyncs of one file system that took at least a
 * threshold (10 ms by default), timed at the file system's own file operations, as bcc's
 * ext4slower: when each ended, the task, R, W, O or S, the bytes, the offset, the latency
 * and the file's name. Installed also as ext4slower, xfsslower, btrfsslower and nfsslower:
 * the name it is run by chooses the file system (fsslower: --fs, ext4 by default).
 *
 * Each operation is a kprobe and a kretprobe on the file system's function for it (found in
 * /proc/kallsyms at the start), paired per thread here (funcpair.h). Without kprobes, what
 * the file system's own tracepoints time from entry to exit: ext4's fsyncs
 * (ext4_sync_file_enter and _exit, with the inode's number instead of the name).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/out.h"
#include "base/row.h"
#include "domain/fsops.h"
#include "stream/reader.h"
#include "tool.h"

/* --- settings and options --------------------------------------------------------------------- */

static struct env {
	struct fsops f;
	bool fs_given;	 /* --fs */
	int alias;	 /* run as <fs>slower: its index, else -1 */
	uint64_t min_ns; /* the operand */
	struct tool_run *t;
	struct row row;
} env = {.min_ns = 10 * 1000000ULL, .alias = -1, .f = {.names = true}};

enum { OPT_FS = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{OPT_FS, "fs", "FS",
	 "the file system: ext4, xfs, btrfs or nfs (default: ext4, or\nthe "
	 "one in the name it is run by: xfsslower)",
	 0},
	TOOL_JSON("one JSON object per slow operation"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	TOOL_WALLCLOCK,
	{'v', NULL, NULL, "say which functions or events time each operation, and exit", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"fsslower                  # ext4's operations slower than 10 ms",
	"fsslower 1                # slower than 1 ms",
	"fsslower -v               # which functions or events time each operation",
	"fsslower -p 181 -T 5      # PID 181's over 5 ms, with wall-clock times",
	"fsslower -j -d 10 0 > f.json # every operation for 10 seconds, as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case OPT_FS:
		env.f.fs = opt_choice(arg, fsops_fs_names, FSOPS_NFS, "--fs");
		env.fs_given = true;
		break;
	case 'v': env.f.verbose = true; break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		env.min_ns = (uint64_t)opt_int(argv[0], 0, 1LL << 31, "MIN_MS") * 1000000ULL;
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

static void check(struct tool_run *t)
{
	fsops_check(&env.f, env.alias, env.fs_given, t->tool->name, "fsslower");
}

/* --- per event -------------------------------------------------------------------------------- */

static const struct row_col cols[] = {
	{"TIME(s)", "ts", -14, ROW_TIME, 6, 0,
	 "trace-clock seconds (CLOCK_MONOTONIC) when the operation returned"},
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task, its name then"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its process ID"},
	{NULL, "tid", 0, ROW_INT, 0, ROW_NOTEXT, "its thread ID"},
	{"T", "op", 1, ROW_WORD, 0, 0, "R a read, W a write, O an open, S an fsync"},
	{NULL, "func", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "the function (kprobes) or the entry's tracepoint that timed it"},
	{"BYTES", NULL, 7, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "bytes", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "what a read or write returned (bytes); null for opens, fsyncs and failures"},
	{NULL, "errno", 0, ROW_INT, 0, ROW_NOTEXT, "the error number when it failed, else 0"},
	{"OFF_KB", NULL, 7, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "offset", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the file offset a read or write began at (bytes); null for the others"},
	{"LAT(ms)", NULL, 8, ROW_FLOAT, 2, ROW_NOJSON, NULL},
	{NULL, "lat_ns", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "nanoseconds from the operation's entry to its return"},
	{"FILENAME", NULL, -8, ROW_STR, 0, ROW_NOJSON, NULL},
	{NULL, "file", 0, ROW_STR, 0, ROW_NOTEXT,
	 "the file's name (its last component, as the dentry has it); null where not known "
	 "(the tracepoints: ino)"},
	{NULL, "ino", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "the inode's number (the tracepoints'); null with kprobes"},
};
static const struct row_table table = ROW_TABLE("each slow operation, at its return", cols);

static void on_op(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	int op = (int)(intptr_t)ctx;
	if (c->ns < env.min_ns)
		return;
	struct funcpair *fp = &env.f.fp[op];
	struct tool_run *t = env.t;
	int tid = tep_data_pid(t->s.tep, ret);
	long long rv = funcpair_retval(fp, ret);
	bool rw = op == FSOPS_R || op == FSOPS_W;
	char bytes[32], off[32];
	if (rv < 0)
		out_errname(-rv, bytes);
	else if (rw)
		snprintf(bytes, sizeof(bytes), "%lld", rv);
	else
		snprintf(bytes, sizeof(bytes), "-");
	long long offset = rw && fp->nargs ? (long long)c->args[0] : 0;
	if (rw && fp->nargs)
		snprintf(off, sizeof(off), "%lld", offset / 1024);
	else
		snprintf(off, sizeof(off), "-");
	struct row *r = &env.row;
	row_begin(r, ret->ts);
	row_str(r, tool_comm(t, tid), 16);
	row_int(r, tool_tgid(t, tid));
	row_int(r, tid);
	row_word(r, fsops_letter(op));
	row_word(r, fp->func);
	row_word(r, bytes);
	if (rw && rv >= 0)
		row_uint(r, (unsigned long long)rv);
	else
		row_none(r);
	row_int(r, rv < 0 ? -rv : 0);
	row_word(r, off);
	if (rw && fp->nargs)
		row_int(r, offset);
	else
		row_none(r);
	row_float(r, c->ns / 1e6);
	row_uint(r, c->ns);
	unsigned long long ino = env.f.by_tp[op] ? reader_num(ret, env.f.ino) : 0;
	if (c->str) {
		row_bytes(r, c->str, strnlen(c->str, fp->str_size));
		row_bytes(r, c->str, strnlen(c->str, fp->str_size));
	} else if (env.f.by_tp[op]) {
		char name[48];
		snprintf(name, sizeof(name), "[ino %llu]", ino);
		row_word(r, name);
		row_none(r);
	} else { /* the kernel could not read the name */
		row_word(r, "?");
		row_none(r);
	}
	if (env.f.by_tp[op])
		row_uint(r, ino);
	else
		row_none(r);
	row_end(r);
}

/* --- set up ----------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	int ret = fsops_prepare(t, &env.f);
	if (ret)
		return ret;
	snprintf(t->traced, sizeof(t->traced), "%s of %s taking %llu ms or more (%s)", env.f.traced,
		 fsops_fs_names[env.f.fs], (unsigned long long)(env.min_ns / 1000000),
		 env.f.kprobes ? "kprobes" : "tracepoints");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	return fsops_trace(t, &env.f, on_op);
}

/* --- at the end ------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	fsops_report(&env.f, t->tool->name);
}

static void cleanup(struct tool_run *t)
{
	fsops_free(&env.f);
}

static const struct tool fsslower = {
	.name = "fsslower",
	.opts = options,
	.operands = "[MIN_MS]",
	.operand_help = "   MIN_MS      show operations of at least this many milliseconds\n"
			"               (default 10; 0: every one)\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	/* ext4slower, xfsslower, btrfsslower, nfsslower: links to this program. */
	static char name[32];
	struct tool tool = fsslower;
	if ((env.alias = fsops_tool_name(argv[0], "slower", name, sizeof(name))) >= 0)
		tool.name = name;
	return tool_main(&tool, argc, argv);
}
