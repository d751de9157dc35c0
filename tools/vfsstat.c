// SPDX-License-Identifier: GPL-2.0-only
/*
 * vfsstat: reads, writes, creates, opens, fsyncs and unlinks per second, every interval,
 * for the whole machine or one process. Counted at the entry of the system calls that make
 * them (syscalls:sys_enter_<call>, one event each, counted here): the kernels of the 6.18
 * kind have no kprobes for vfs_read and friends, and a call's tracepoint is the same on
 * every kernel from 2.6.33. Only the counted calls are events: a raw_syscalls:sys_enter
 * filtered by number would be one event to enable, but every system call of the machine
 * would then pass through the filter.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "count/prom.h"
#include "count/tracejson.h"
#include "stream/reader.h"
#include "base/row.h"
#include "join/syspair.h"
#include "tool.h"

enum kind { READ, WRITE, CREATE, OPEN, FSYNC, UNLINK, KINDS };

/* Each counted call and what it counts. open and openat count a create too when their flags
 * ask for one (O_CREAT); unlinkat not when it removes a directory (AT_REMOVEDIR). */
static const struct call {
	const char *name;
	enum kind kind;
	const char *flags; /* the entry's field checked here, or NULL */
} calls[] = {
	{"read", READ, NULL},	    {"pread64", READ, NULL},  {"readv", READ, NULL},
	{"preadv", READ, NULL},	    {"preadv2", READ, NULL},  {"write", WRITE, NULL},
	{"pwrite64", WRITE, NULL},  {"writev", WRITE, NULL},  {"pwritev", WRITE, NULL},
	{"pwritev2", WRITE, NULL},  {"open", OPEN, "flags"},  {"openat", OPEN, "flags"},
	{"openat2", OPEN, NULL},    {"creat", CREATE, NULL},  {"fsync", FSYNC, NULL},
	{"fdatasync", FSYNC, NULL}, {"unlink", UNLINK, NULL}, {"unlinkat", UNLINK, "flag"},
};
#define NCALLS (int)(sizeof(calls) / sizeof(*calls))

static struct env {
	bool verbose; /* -v */
	struct tool_run *t;
	struct traced {
		struct tep_event *ev;
		struct tep_format_field *flags;
	} ev[NCALLS];
	uint64_t count[KINDS]; /* this interval */
	uint64_t since;	       /* the interval's start, trace clock */
	struct row row;
	uint64_t totals[KINDS]; /* --prom: the counts from the start */
} env;

static const struct opt_spec options[] = {
	TOOL_DURATION,	TOOL_JSON("one JSON object per interval"),
	TOOL_PID,	{'v', NULL, NULL, "say which calls are counted how, then exit", 0},
	TOOL_JSON_KEYS, TOOL_EXEC,
	TOOL_PROM,	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"vfsstat               # every second, the whole machine",
	"vfsstat 5 3           # every 5 seconds, three times",
	"vfsstat -p 181        # PID 181's calls",
	"vfsstat -j 1 10 > v.json  # ten seconds of JSON lines",
	"vfsstat --prom vfs.prom 15 > /dev/null # counters for node_exporter",
	"vfsstat --trace-json vfs.json 1 10 # ten seconds of counters for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'v')
		env.verbose = true;
}

/* Text: per second, as bcc's vfsstat; JSON: the interval's counts and its length, exact. */
static const struct row_col cols[] = {
	{"TIME", "time", -8, ROW_WALL, 0, 0, "wall-clock HH:MM:SS at the end of the interval"},
	{"READ/s", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"WRITE/s", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"CREATE/s", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"OPEN/s", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"FSYNC/s", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"UNLINK/s", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{NULL, "secs", 0, ROW_FLOAT, 3, ROW_NOTEXT, "the interval's length in seconds"},
	{NULL, "reads", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "read, pread64, readv, preadv and preadv2 calls in the interval"},
	{NULL, "writes", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "write, pwrite64, writev, pwritev and pwritev2 calls"},
	{NULL, "creates", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "creat calls, and open and openat calls with O_CREAT"},
	{NULL, "opens", 0, ROW_UINT, 0, ROW_NOTEXT, "open, openat, openat2 and creat calls"},
	{NULL, "fsyncs", 0, ROW_UINT, 0, ROW_NOTEXT, "fsync and fdatasync calls"},
	{NULL, "unlinks", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "unlink calls, and unlinkat calls without AT_REMOVEDIR"},
};
static const struct row_table table = ROW_TABLE("each interval", cols);

static const char *const kind_names[KINDS] = {"reads", "writes", "creates",
					      "opens", "fsyncs", "unlinks"};

static enum tool_code prepare(struct tool_run *t)
{
	int found = 0;
	env.t = t;
	for (int i = 0; i < NCALLS; i++) {
		/* Calls this kernel or architecture lacks (openat2 before 5.6, open and creat
		 * on arm64, preadv2 before 4.6) are not counted: said by -v. */
		struct traced *e = &env.ev[i];
		e->ev = syspair_event(&t->s, "enter", calls[i].name);
		if (e->ev && calls[i].flags && !(e->flags = tep_find_field(e->ev, calls[i].flags)))
			e->ev = NULL;
		found += e->ev != NULL;
	}
	if (!found) {
		fprintf(stderr, "vfsstat: no syscall tracepoints in this kernel "
				"(CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)\n");
		return TOOL_FAIL;
	}
	if (env.verbose) {
		printf("mechanism: syscall tracepoints (syscalls:sys_enter_<call>), each call an "
		       "event counted here\n");
		for (int i = 0; i < NCALLS; i++)
			printf("%-8s %-10s %s\n", kind_names[calls[i].kind], calls[i].name,
			       !env.ev[i].ev ? "not in this kernel: not counted" :
			       calls[i].kind == OPEN && env.ev[i].flags ?
					       "(also a create with O_CREAT)" :
			       calls[i].kind == UNLINK && env.ev[i].flags ?
					       "(not with AT_REMOVEDIR)" :
			       calls[i].kind == CREATE ? "(also an open)" :
							 "");
		return TOOL_DONE;
	}
	t->follow_names = false;
	t->ordered = false;
	snprintf(t->traced, sizeof(t->traced), "reads, writes, creates, opens, fsyncs and unlinks");
	return TOOL_OK;
}

static void on_call(struct tep_record *rec, void *ctx)
{
	const struct traced *e = ctx;
	const struct call *c = &calls[e - env.ev];
	unsigned long long flags = e->flags ? (unsigned long long)reader_num(rec, e->flags) : 0;
	switch (c->kind) {
	case OPEN:
		env.count[OPEN]++;
		if (flags & O_CREAT)
			env.count[CREATE]++;
		break;
	case CREATE:
		/* creat(2) is open(O_CREAT | O_WRONLY | O_TRUNC): an open too */
		env.count[CREATE]++;
		env.count[OPEN]++;
		break;
	case UNLINK:
		if (!(flags & AT_REMOVEDIR))
			env.count[UNLINK]++;
		break;
	default: env.count[c->kind]++;
	}
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	for (int i = 0; i < NCALLS; i++)
		if (env.ev[i].ev && (ret = tool_trace(t, env.ev[i].ev, NULL, on_call, &env.ev[i])))
			return ret;
	env.since = reader_now();
	return TOOL_OK;
}

/* --prom: the interval's counts added to the totals, and the file written: a counter per
 * kind, as -j's members (a create is also an open: they are not parts of one sum). */
static void prom_write(struct tool_run *t)
{
	static const char *const helps[KINDS] = {
		"read, pread64, readv, preadv and preadv2 calls.",
		"write, pwrite64, writev, pwritev and pwritev2 calls.",
		"creat calls, and open and openat calls with O_CREAT.",
		"open, openat, openat2 and creat calls.",
		"fsync and fdatasync calls.",
		"unlink calls, and unlinkat calls without AT_REMOVEDIR."};
	for (int k = 0; k < KINDS; k++)
		env.totals[k] += env.count[k];
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	for (int k = 0; k < KINDS; k++) {
		char name[64];
		snprintf(name, sizeof(name), "ftrace_tools_vfsstat_%s_total", kind_names[k]);
		prom_family(p, name, "counter", helps[k]);
		prom_uint(p, name, NULL, env.totals[k]);
	}
	prom_commit(p);
}

/* --trace-json: the interval's counts as one counter event at its start, a series per -j
 * member (Perfetto draws a counter track each); zeros at the end (tracejson_interval). */
static void trace_counts(struct tool_run *t, uint64_t start, const uint64_t *count)
{
	struct tracejson *tj = tool_trace_json(t);
	long long v[KINDS];
	for (int k = 0; k < KINDS; k++)
		v[k] = count ? (long long)count[k] : 0;
	if (tj)
		tracejson_interval(tj, start, kind_names, count ? v : NULL, KINDS);
}

static int interval(struct tool_run *t, uint64_t now)
{
	/* The calls made up to now, not those the reader has yet to see. */
	if (reader_read_until(&t->r, now) < 0) {
		fprintf(stderr, "vfsstat: cannot read the trace buffers: the counts are lost\n");
		t->failed = true;
		return 1;
	}
	double secs = now > env.since ? (double)(now - env.since) / 1e9 : 0;
	struct row *w = &env.row;
	row_begin(w, now);
	for (int k = 0; k < KINDS; k++)
		row_uint(w, secs > 0 ? (unsigned long long)((double)env.count[k] / secs + 0.5) : 0);
	row_float(w, secs);
	for (int k = 0; k < KINDS; k++)
		row_uint(w, env.count[k]);
	row_end(w);
	if (t->prom)
		prom_write(t);
	trace_counts(t, env.since, env.count);
	memset(env.count, 0, sizeof(env.count));
	env.since = now;
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	trace_counts(t, env.since, NULL);
}

static const struct tool vfsstat = {
	.name = "vfsstat",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "lines",
	.interval_default_s = 1,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.interval = interval,
	.end = end,
};

int main(int argc, char **argv)
{
	return tool_main(&vfsstat, argc, argv);
}
