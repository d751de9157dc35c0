// SPDX-License-Identifier: GPL-2.0-only
/*
 * funcslower: each call of one function that took longer than a threshold, with its task,
 * its duration, its return value and, with -a, its first arguments: a kernel function (a
 * kprobe and a kretprobe) or a user one (LIB:FUNC, a uprobe and a uretprobe), paired per
 * thread (funcpair.h): in the kernel where it has hist triggers and synthetic events, which
 * then sends only the slow calls, else here from an event per entry and return. A line is
 * printed when the call returns; its time is when the call began.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "count/tracejson.h"
#include "stream/comm.h"
#include "stream/evprint.h"
#include "join/funcpair.h"
#include "stream/ksym.h"
#include "base/opt.h"
#include "base/out.h"
#include "base/row.h"
#include "tool.h"
#include "stream/usym.h"

static struct env {
	struct funcpair fp;
	uint64_t min_ns; /* the threshold */
	bool user_space; /* --user-space: pair here even where the kernel can */
	bool stack, ustack;
	bool stack_here;	/* -s where the kernel's pairing would lose the callers */
	struct evprint *stacks; /* -s, -U: they follow the call's line */
	struct ksyms *ksyms;
	struct tep_event *ustack_ev;
	struct row row;
} env;

enum { OPT_USER_SPACE = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	{'a', NULL, "N", "the first N arguments (1-6), as the registers held them", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per call"),
	TOOL_NAME,
	TOOL_PID,
	{'s', NULL, NULL, "the kernel stack of each slow call, as it returned", 0},
	TOOL_TID,
	TOOL_TIMESTAMP,
	{'U', NULL, NULL,
	 "the user stack of each slow call, as it returned\n(walked by frame pointers, 8 frames)",
	 0},
	TOOL_WALLCLOCK,
	{OPT_USER_SPACE, "user-space", NULL,
	 "pair entries and returns here, even where the kernel\ncan (hist triggers)", 0},
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"funcslower vfs_read 10000           # vfs_read calls over 10 ms",
	"funcslower -a 3 -p 181 vfs_fsync 1000 # PID 181's fsyncs over 1 ms, with arguments",
	"funcslower -T ext4_sync_file 5000   # with the wall-clock time each began",
	"funcslower libc:getaddrinfo 100000  # user: name lookups over 100 ms",
	"funcslower ./app:parse 500 --exec ./app input # a program's slow parses",
	"funcslower --trace-json fs.json -d 10 vfs_fsync 1000 # fsyncs over 1 ms, for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'a')
		env.fp.nargs = (int)opt_int(arg, 1, FUNCPAIR_MAX_ARGS, "argument count");
	else if (o->key == OPT_USER_SPACE)
		env.user_space = true;
	else if (o->key == 's')
		env.stack = true;
	else if (o->key == 'U')
		env.ustack = true;
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc < 2)
		opt_fail(argc ? "no USECS: slower than how many microseconds? (see -h)" :
				"no FUNC: which function? (see -h)");
	if (argc > 2)
		opt_fail("unexpected argument: '%s' (one function and a threshold; see -h)",
			 argv[2]);
	env.fp.spec = argv[0];
	funcpair_check_spec(env.fp.spec);
	if (env.stack && strchr(env.fp.spec, ':'))
		opt_fail("-s: %s is a user function, whose kernel stack is the uprobe's own; -U "
			 "gives its user stack",
			 env.fp.spec);
	env.min_ns = (uint64_t)opt_int(argv[1], 0, UINT32_MAX, "USECS") * 1000;
	env.fp.retval = true;
}

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the thread's name when the call returned"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its thread ID"},
	{"LAT(us)", NULL, 12, ROW_FLOAT, 3, ROW_NOJSON, NULL},
	{NULL, "lat_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "the call's time, entry to return, in ns"},
	{"RET", "ret", 12, ROW_INT, 0, 0, "the value it returned (a register: as a signed number)"},
	{"FUNC", "func", 0, ROW_STR, 0, 0, "the function"},
	{"ARGS", "args", 0, ROW_TEXT, 0, ROW_OPTIONAL | ROW_NOJSON, NULL},
	{NULL, "args", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "-a: its first arguments as the registers held them, hex strings; null without -a"},
};
static const struct row_table table = ROW_TABLE("each call", cols);

static enum tool_code prepare(struct tool_run *t)
{
	int ret = funcpair_probes(t, &env.fp, "fs");
	if (ret)
		return ret;
	if (env.stack) {
		env.ksyms = ksym_load(); /* without kallsyms, addresses */
		/* The kernel's pairing records the stack in the kretprobe's handler, whose
		 * unwinder stops at the trampoline before Linux 5.15 (which renamed it to
		 * __kretprobe_trampoline; 4.18, 4.19); the kretprobe's own event unwinds from
		 * the return's registers. */
		env.stack_here = !env.user_space && env.ksyms &&
				 ksym_addr(env.ksyms, "kretprobe_trampoline") &&
				 !ksym_addr(env.ksyms, "__kretprobe_trampoline") &&
				 funcpair_kernel_can();
	}
	if (!env.user_space && !env.stack_here)
		funcpair_kernel(t, &env.fp);
	snprintf(t->traced, sizeof(t->traced), "calls of %s function %s slower than %llu us (%s)",
		 env.fp.user ? "user" : "kernel", env.fp.spec,
		 (unsigned long long)(env.min_ns / 1000),
		 env.fp.in_kernel ? "filtered in the kernel" :
		 env.stack_here	  ? "paired here for -s" :
				    "paired here");
	row_show(&env.row, "args", env.fp.nargs > 0);
	return TOOL_OK;
}

/* --- per call ------------------------------------------------------------------------------ */

/* --trace-json: the call on the track of its thread, in its process (as the names the run
 * follows know it), named by the function; args as -j's, the arguments one string. */
static void trace_call(struct tracejson *tj, struct tool_run *t, int tid, const char *comm,
		       const struct funcpair_call *c, long long retval)
{
	tool_trace_span(t, tj, tid, 0, comm, 16, env.fp.func, sizeof(env.fp.func), "func",
			c->entry_ts, c->ns);
	tracejson_arg_str(tj, "comm", comm, 16);
	tracejson_arg_int(tj, "pid", tid);
	tracejson_arg_uint(tj, "lat_ns", c->ns);
	tracejson_arg_int(tj, "ret", retval);
	tracejson_arg_str(tj, "func", env.fp.func, sizeof(env.fp.func));
	if (env.fp.nargs) {
		char args[FUNCPAIR_MAX_ARGS * 20] = "";
		size_t n = 0;
		for (int i = 0; i < env.fp.nargs && n < sizeof(args); i++)
			n += (size_t)snprintf(args + n, sizeof(args) - n, "%s0x%" PRIx64,
					      i ? " " : "", c->args[i]);
		tracejson_arg_str(tj, "args", args, sizeof(args));
	}
	tracejson_span_end(tj);
}

static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	uint64_t ns = c->ns;
	if (ns < env.min_ns)
		return;
	struct tool_run *t = env.fp.t;
	int tid = tep_data_pid(t->s.tep, ret);
	struct row *w = &env.row;
	FILE *f;
	row_begin(w, c->entry_ts);
	row_str(w, tool_comm(t, tid), 16);
	row_int(w, tid);
	row_float(w, ns / 1e3);
	row_uint(w, ns);
	row_int(w, funcpair_retval(&env.fp, ret));
	row_str(w, env.fp.func, sizeof(env.fp.func));
	if ((f = row_text(w)))
		for (int i = 0; i < env.fp.nargs; i++)
			fprintf(f, "%s0x%" PRIx64, i ? " " : "", c->args[i]);
	if ((f = row_json(w))) {
		fputs(env.fp.nargs ? "[" : "null", f);
		for (int i = 0; i < env.fp.nargs; i++)
			fprintf(f, "%s\"0x%" PRIx64 "\"", i ? "," : "", c->args[i]);
		if (env.fp.nargs)
			putc(']', f);
	}
	/* -s, -U: after the call's line, or as members of its object. */
	row_end_open(w);
	if (env.stack)
		evprint_kstack(env.stacks, c->kstack, c->nkstack);
	if (env.ustack)
		evprint_trailers(env.stacks, ret);
	row_close(w);
	struct tracejson *tj = tool_trace_json(t);
	if (tj) {
		char comm[16];
		snprintf(comm, sizeof(comm), "%s", tool_comm(t, tid));
		trace_call(tj, t, tid, comm, c, funcpair_retval(&env.fp, ret));
	}
}

static enum tool_code setup(struct tool_run *t)
{
	/* The stacks recorded after each event of the instance: the kernel's event of a slow
	 * call, or the probes' entries (not used) and returns. */
	struct tep_event *kstack, *ustack;
	int ret = tool_stacks(t, env.stack, env.ustack, false, &kstack, &ustack);
	if (ret)
		return ret;
	if (kstack || ustack) {
		/* The call's callers: frames up to the function itself (at its entry) or the
		 * return probe's trampoline (at its return) are the tracing's own. */
		static const char *const skip[] = {env.fp.func, "arch_rethook_trampoline",
						   "__kretprobe_trampoline", "kretprobe_trampoline",
						   NULL};
		if (!(env.stacks = evprint_new(t->s.tep, t->o.json, t->o.wallclock)))
			return TOOL_FAIL;
		evprint_stacks(env.stacks, NULL, env.ksyms, ustack); /* kernel's: funcpair's */
		evprint_kstack_after(env.stacks, skip);
		env.ustack_ev = ustack;
		env.fp.kstack_ev = kstack;
	}
	return env.fp.in_kernel ? funcpair_trace_kernel(t, &env.fp, env.min_ns, on_call, NULL) :
				  funcpair_trace(t, &env.fp, on_call, NULL);
}

/* --- output --------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	funcpair_report(&env.fp, "funcslower", reader_trailers_read(&t->r, env.ustack_ev));
	evprint_say_without_ustack(t->tool->name, "calls", evprint_without_ustack(env.stacks));
}

static void cleanup(struct tool_run *t)
{
	funcpair_free(&env.fp);
	evprint_free(env.stacks);
	ksym_free(env.ksyms);
	usym_addr_free();
	env.stacks = NULL;
	env.ksyms = NULL;
}

static const struct tool funcslower = {
	.name = "funcslower",
	.opts = options,
	.operands = "FUNC USECS",
	.operand_help =
		"   FUNC        a kernel function (vfs_read), or LIB:FUNC for a user one\n"
		"               (libc:getaddrinfo; a path or a program in PATH)\n"
		"   USECS       show calls that took at least this many microseconds (0: all)\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, &evprint_kstack_keys,
						  &evprint_ustack_keys, NULL},
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
	return tool_main(&funcslower, argc, argv);
}
