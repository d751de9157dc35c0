// SPDX-License-Identifier: GPL-2.0-only
/*
 * fileslower: each synchronous read or write that took at least a threshold (10 ms by
 * default), with its file, as bcc's fileslower: when it ended, the task, R or W, the bytes it
 * returned, its latency and the file's name. From the syscall tracepoints alone (no kprobes):
 * each call's entry (its descriptor) and exit (its result) joined per thread (syspair.h), the
 * latency between the two; the descriptor named from the event stream by fdtrack.h, as it was
 * when the call was made. Only regular files unless -a, as bcc: a descriptor's type is what it
 * led to when it was opened (or at the start, from /proc).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/out.h"
#include "base/row.h"
#include "count/tracejson.h"
#include "domain/fdtrack.h"
#include "join/syspair.h"
#include "stream/reader.h"
#include "tool.h"

/* --- settings and options --------------------------------------------------------------------- */

static struct env {
	bool all;	 /* -a */
	uint64_t min_ns; /* the operand */
	struct tool_run *t;
	struct fdtrack ft;
	struct row row;
} env = {.min_ns = 10 * 1000000ULL, .ft = FDTRACK_INIT};

enum { OPT_VIA = OPT_LONG + 1 };

static const struct row_col cols[] = {
	{"TIME(s)", "ts", -14, ROW_TIME, 6, 0,
	 "trace-clock seconds (CLOCK_MONOTONIC) when the call returned"},
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task that made the call, its name then"},
	{"TID", "tid", 7, ROW_INT, 0, 0, "its thread ID"},
	{NULL, "pid", 0, ROW_INT, 0, ROW_NOTEXT, "its process ID"},
	{"D", "dir", 1, ROW_WORD, 0, 0, "R a read, W a write"},
	{NULL, "call", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "the system call (read, pread64, readv, preadv, preadv2, write, pwrite64, ...)"},
	{NULL, "fd", 0, ROW_INT, 0, ROW_NOTEXT, "the descriptor"},
	{"BYTES", NULL, 7, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "bytes", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "the bytes it read or wrote (its result); null when it failed"},
	{NULL, "errno", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the error number when it failed (EAGAIN 11; 512 ERESTARTSYS: a signal came), else 0"},
	{"LAT(ms)", NULL, 8, ROW_FLOAT, 2, ROW_NOJSON, NULL},
	{NULL, "lat_ns", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "nanoseconds from the call's entry to its return"},
	{NULL, "type", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "R a regular file, S a socket, O other (pipe, FIFO, device...), ? not known"},
	{"FILENAME", "file", -8, ROW_STR, 0, 0,
	 "the path as opened (or /proc's name of a file open at the start); a descriptor not "
	 "seen made: \"[fd N: not seen opened]\""},
	{NULL, "named", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "false when file is such a stand-in, not a name"},
};
static const struct row_table table = ROW_TABLE("each slow call, at its return", cols);

static const struct opt_spec options[] = {
	{'a', NULL, NULL,
	 "all file types: sockets, pipes, FIFOs, devices too (default:\nregular "
	 "files only)",
	 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per slow call"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	TOOL_WALLCLOCK,
	{OPT_VIA, "via", "MECH",
	 "how to read the paths of opens: kprobe, eprobe or uprobe (default:\nthe best the "
	 "kernel offers)",
	 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"fileslower                # reads and writes of regular files slower than 10 ms",
	"fileslower 1              # slower than 1 ms",
	"fileslower -a 0 -d 1      # every read and write, all file types, for a second",
	"fileslower -p 181 -T 5    # PID 181's over 5 ms, with wall-clock times",
	"fileslower -j -d 10 > s.json  # 10 seconds as JSON lines",
	"fileslower --trace-json f.json -d 10 1 # calls of 1 ms or more, for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'a': env.all = true; break;
	case OPT_VIA: env.ft.sa.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		env.min_ns = (uint64_t)opt_int(argv[0], 0, 1LL << 31, "MIN_MS") * 1000000ULL;
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

/* --- per event -------------------------------------------------------------------------------- */

/* --trace-json: the call on the track of its thread, in its process, named by the system
 * call; args as -j's (bytes left out when it failed, as -j's null). */
static void trace_call(struct tracejson *tj, int tid, int tgid, long long ret, uint64_t start_ns,
		       uint64_t ns, const struct syspair_call *c, int fd,
		       const struct fdtab_file *f)
{
	const char *call = fdtrack_rw_calls[c->kind].name;
	char type[2] = {f->type, 0}, comm[16]; /* (the table's slot may move at a look-up) */
	snprintf(comm, sizeof(comm), "%s", tool_comm(env.t, tid));
	tool_trace_span(env.t, tj, tid, tgid, comm, sizeof(comm), call, SIZE_MAX, "file", start_ns,
			ns);
	tracejson_arg_str(tj, "comm", comm, sizeof(comm));
	tracejson_arg_int(tj, "tid", tid);
	tracejson_arg_int(tj, "pid", tgid);
	tracejson_arg_str(tj, "dir", fdtrack_rw_calls[c->kind].write ? "W" : "R", SIZE_MAX);
	tracejson_arg_str(tj, "call", call, SIZE_MAX);
	tracejson_arg_int(tj, "fd", fd);
	if (ret >= 0)
		tracejson_arg_uint(tj, "bytes", (unsigned long long)ret);
	tracejson_arg_int(tj, "errno", ret < 0 ? -ret : 0);
	tracejson_arg_str(tj, "type", type, SIZE_MAX);
	tracejson_arg_str(tj, "file", f->name, f->unnamed ? SIZE_MAX : f->len);
	tracejson_span_end(tj);
}

/* A call ended: shown when slow enough and of a file shown (a stand-in is no regular file). */
static void ended(const struct tep_record *rec, int tid, long long ret,
		  const struct syspair_call *c, int fd, void *ctx)
{
	uint64_t ns = rec->ts > c->ts ? rec->ts - c->ts : 0;
	if (ns < env.min_ns)
		return;
	int tgid = fdtrack_tgid(&env.ft, tid);
	struct fdtab_file *f = fdtrack_file(&env.ft, tgid, fd);
	if (!f || (!env.all && f->type != 'R' && (f->type != '?' || f->unnamed)))
		return;
	char bytes[32], type[2] = {f->type, 0};
	if (ret >= 0)
		snprintf(bytes, sizeof(bytes), "%lld", ret);
	else
		out_errname(-ret, bytes);
	struct row *r = &env.row;
	row_begin(r, rec->ts);
	row_str(r, tool_comm(env.t, tid), 16);
	row_int(r, tid);
	row_int(r, tgid);
	row_word(r, fdtrack_rw_calls[c->kind].write ? "W" : "R");
	row_word(r, fdtrack_rw_calls[c->kind].name);
	row_int(r, fd);
	row_word(r, bytes);
	if (ret >= 0)
		row_uint(r, (unsigned long long)ret);
	else
		row_none(r);
	row_int(r, ret < 0 ? -ret : 0);
	row_float(r, ns / 1e6);
	row_uint(r, ns);
	row_word(r, type);
	if (f->unnamed)
		row_word(r, f->name);
	else
		row_bytes(r, f->name, f->len);
	FILE *j = row_json(r);
	if (j)
		fputs(f->unnamed ? "false" : "true", j);
	row_end(r);
	struct tracejson *tj = tool_trace_json(env.t);
	if (tj)
		trace_call(tj, tid, tgid, ret, rec->ts - ns, ns, c, fd, f);
}

/* --- set up ----------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	/* A call may sleep and return on another CPU: syspair's loss policy forgets every call
	 * in progress at a loss (SPAN_LOSS_ALL). */
	if (fdtrack_prepare(&env.ft, t, "fileslower") || fdtrack_rw(&env.ft, ended, NULL))
		return TOOL_FAIL;
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	if ((ret = fdtrack_setup(&env.ft, t)))
		return ret;
	snprintf(t->traced, sizeof(t->traced),
		 "reads and writes of %s taking %llu ms or more, paths via %s",
		 env.all ? "any file" : "regular files", (unsigned long long)(env.min_ns / 1000000),
		 env.ft.sa.what);
	return TOOL_OK;
}

/* --- at the end ------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	span_report(&env.ft.rw.span, "fileslower", "read and write returns");
	fdtrack_report(&env.ft);
}

static void cleanup(struct tool_run *t)
{
	fdtrack_free(&env.ft);
}

static const struct tool fileslower = {
	.name = "fileslower",
	.opts = options,
	.operands = "[MIN_MS]",
	.operand_help = "   MIN_MS      show calls of at least this many milliseconds (default\n"
			"               10; 0: every call)\n",
	.examples = examples,
	.formats =
		(const char *const[]){"syscalls:sys_enter_read", "syscalls:sys_exit_read",
				      "syscalls:sys_enter_write", "syscalls:sys_exit_write", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&fileslower, argc, argv);
}
