// SPDX-License-Identifier: GPL-2.0-only
/*
 * functrace: every call of the kernel functions that match globs, with the function that
 * called it, from the function tracer of the run's own instance: its set_ftrace_filter
 * takes the globs (the kernel matches them), its current_tracer is function, and each call
 * is an ftrace:function record. The tracer's options apply to those records (-s their
 * kernel stacks through func_stack_trace, -c, -k, --hist, -j); -p follows the process
 * through set_ftrace_pid.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/ftrace.h"
#include "stream/ksym.h"
#include "base/opt.h"
#include "kernel/session.h"
#include "tool.h"
#include "tracer/tracer.h"

static struct env {
	char **globs;
	int nglobs;
	struct tep_event *ev;
	struct tracer tr;
	struct ksyms *ksyms;
} env;

static const struct opt_spec options[] = {
	TRACER_OPTIONS_KERNEL,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"functrace 'vfs_*'                 # every call of the VFS functions",
	"functrace -s do_nanosleep         # each call with its kernel stack",
	"functrace -p 181 'ext4_*'         # PID 181's calls of ext4",
	"functrace -c 'tcp_*'              # calls per second",
	"functrace -k comm vfs_fsync       # who calls vfs_fsync, counted",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	tracer_option(&env.tr, o, arg);
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc < 1)
		opt_fail("no PATTERN: which kernel functions? (see -h)");
	/* set_ftrace_filter also takes commands (mod:, !, :traceon): only names and globs */
	for (int i = 0; i < argc; i++)
		if (!*argv[i] || strpbrk(argv[i], " \t\n:!"))
			opt_fail("invalid PATTERN: '%s' (a kernel function name or glob)", argv[i]);
	env.globs = argv;
	env.nglobs = argc;
	tracer_check(&env.tr);
}

/* A call as the kernel's own text shows it on 6.x (" %ps <-- %ps"): 4.x's format prints
 * the two addresses in hex, so the names are found here. */
static void sym(struct trace_seq *s, unsigned long long addr)
{
	unsigned long long off;
	const char *name = ksym_find(env.ksyms, addr, &off);
	if (name)
		trace_seq_puts(s, name);
	else
		trace_seq_printf(s, "0x%llx", addr);
}

static int print_call(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev, void *ctx)
{
	unsigned long long ip, parent;
	if (tep_get_field_val(NULL, ev, "ip", rec, &ip, 0) ||
	    tep_get_field_val(NULL, ev, "parent_ip", rec, &parent, 0))
		return -1;
	sym(s, ip);
	trace_seq_puts(s, " <-- ");
	sym(s, parent);
	return 0;
}

/* How many functions each glob matches (ctx: one count per glob). */
static void count_match(const char *name, const char *mod, void *ctx)
{
	int *matched = ctx;
	for (int g = 0; g < env.nglobs; g++)
		if (!fnmatch(env.globs[g], name, 0))
			matched[g]++;
}

static enum tool_code prepare(struct tool_run *t)
{
	if (!ftrace_tracer_available("function")) {
		fprintf(stderr, "functrace: no function tracer in this kernel "
				"(CONFIG_FUNCTION_TRACER)\n");
		return TOOL_FAIL;
	}
	/* A glob that matches nothing would trace every function: refused here. The list is
	 * read once (tens of thousands of lines) for all the globs. */
	int *matched = calloc((size_t)env.nglobs, sizeof(*matched));
	if (!matched || ftrace_functions(NULL, count_match, matched) < 0) {
		int e = matched ? errno : ENOMEM;
		free(matched);
		fprintf(stderr, "functrace: cannot read available_filter_functions: %s%s\n",
			strerror(e),
			e == EPERM ? " (the kernel refuses the function tracer's files)" : "");
		return TOOL_FAIL;
	}
	for (int g = 0; g < env.nglobs; g++)
		if (!matched[g]) {
			fprintf(stderr, "functrace: no traceable kernel function matches '%s'\n",
				env.globs[g]);
			free(matched);
			return TOOL_USAGE;
		}
	free(matched);
	if (!(env.ev = session_load_event(&t->s, "ftrace", "function"))) {
		fprintf(stderr, "functrace: no ftrace:function event format in this kernel\n");
		return TOOL_FAIL;
	}
	if (!(env.ksyms = ksym_load())) {
		fprintf(stderr, "functrace: cannot read the kernel's symbols (/proc/kallsyms)\n");
		return TOOL_FAIL;
	}
	tep_register_event_handler(t->s.tep, env.ev->id, "ftrace", "function", print_call, NULL);
	env.tr.events = &env.ev;
	env.tr.nevents = 1;
	env.tr.by_tracer = true;
	snprintf(t->traced, sizeof(t->traced), "calls of %s%s (function tracer)", env.globs[0],
		 env.nglobs > 1 ? " ..." : "");
	return tracer_prepare(t);
}

/* Before the buffers are opened: the kernel will not change the tracer of an instance
 * whose buffers are being read (EBUSY). The filter and the tasks first: the tracer starts
 * recording when it is set. */
static enum tool_code instance(struct tool_run *t)
{
	if (ftrace_set_functions(t->s.inst, "set_ftrace_filter", (const char *const *)env.globs,
				 env.nglobs, "functrace") ||
	    session_set_ftrace_pids(&t->s, t->o.pid, t->o.tid) ||
	    ftrace_set_tracer(t->s.inst, "function", "functrace"))
		return TOOL_FAIL;
	return TOOL_OK;
}

static void cleanup(struct tool_run *t)
{
	tracer_cleanup(t);
	ksym_free(env.ksyms);
}

static const struct tool functrace = {
	.name = "functrace",
	.opts = options,
	.rows = (const struct row_table *const[]){TRACER_ROWS_KERNEL, NULL},
	.operands = "PATTERN...",
	.operand_help = "   PATTERN     kernel functions: names or globs ('vfs_*'), as\n"
			"               available_filter_functions lists them\n",
	.examples = examples,
	.formats = (const char *const[]){"ftrace:kernel_stack", NULL},
	.state = &env.tr,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.instance = instance,
	.setup = tracer_setup,
	.banner = tracer_banner,
	.header = tracer_header,
	.interval = tracer_interval,
	.end = tracer_end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&functrace, argc, argv);
}
