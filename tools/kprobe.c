// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe: trace a kernel function's entry or return, with arguments, perf-tools' kprobe in C.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <event-parse.h>

#include "kernel/ftrace.h"
#include "kernel/probe.h"
#include "tracer/tracer.h"

static struct env {
	struct tracer tr;
	bool force;	 /* -F */
	const char *def; /* 'p:[alias] FUNC[+off] [args]' */
	struct tep_event *ev;
	struct tep_format_field caller; /* -s: the return address at the entry (hidden) */
} env;

/* The name of that field: not one a user would give. */
#define CALLER "__ftt_caller"

static bool is_x86_64(void)
{
	struct utsname u;
	return uname(&u) == 0 && !strcmp(u.machine, "x86_64");
}

static const struct opt_spec options[] = {
	{'F', NULL, NULL, "skip the check that FUNC can be traced", 0},
	TRACER_OPTIONS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"kprobe p:do_sys_open                        # trace opens",
	"kprobe 'p:do_sys_open file=+0($arg2):ustring'   # with the path",
	"kprobe 'r:do_sys_open ret=$retval:s32' 'ret < 0'   # failed opens",
	"kprobe -s p:tcp_retransmit_skb              # with kernel stacks",
	"kprobe -c p:vfs_read                        # count per second",
	"kprobe -v p:do_sys_open                     # show the event format",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'F')
		env.force = true;
	else
		tracer_option(&env.tr, o, arg);
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc == 0)
		opt_fail("no probe given: 'p:FUNC' (see -h)");
	env.def = argv[0];
	if (argc > 1)
		env.tr.filter = argv[1];
	if (argc > 2)
		opt_fail("unexpected argument: '%s' (see -h)", argv[2]);
	tracer_check(&env.tr);
}

static enum tool_code prepare(struct tool_run *t)
{
	char why[300], alias[64];
	struct probe_def pd;
	if (probe_parse(env.def, &pd, why, sizeof(why)))
		opt_fail("invalid probe '%s': %s", env.def, why);
	if (strpbrk(pd.target, "/:"))
		opt_fail("invalid probe '%s': '%s' is not a kernel function (for user space: "
			 "uprobe)",
			 env.def, pd.target);
	if (!probe_available(&t->s, PROBE_KPROBE, false))
		return TOOL_FAIL;
	/* The list may be refused (lockdown: EPERM): then the kernel decides. */
	if (!env.force && ftrace_function_traceable(pd.target) == 0)
		opt_fail("%.*s cannot be traced: not in available_filter_functions (-F to try "
			 "anyway)",
			 (int)strcspn(pd.target, "+"), pd.target);
	if (*pd.alias)
		snprintf(alias, sizeof(alias), "%s", pd.alias);
	else
		probe_default_alias(pd.target, pd.type, alias, sizeof(alias));
	/* -s at a function's entry: the return address on top of the stack is its caller,
	 * which the kernel's stack lacks where it unwinds by frame pointers (4.x): fetched
	 * by the probe too, out of sight, for the stacks (tracer.h). x86-64 only. */
	const char *off = strchr(pd.target, '+');
	bool entry = !off || strtoull(off + 1, NULL, 0) == 0;
	static char args[8192];
	if (env.tr.stack && pd.type == 'p' && entry && is_x86_64() &&
	    snprintf(args, sizeof(args), "%s%s" CALLER "=$stack0", pd.args, *pd.args ? " " : "") <
		    (int)sizeof(args)) {
		env.ev = probe_create_hiding(&t->s, pd.type, alias, pd.target, args, CALLER,
					     &env.caller);
		if (env.caller.name)
			env.tr.entry_caller = &env.caller;
	} else {
		env.ev = probe_create(&t->s, PROBE_KPROBE, pd.type, alias, pd.target, pd.args);
	}
	if (!env.ev)
		return TOOL_USAGE; /* the kernel said why: a definition it does not accept */
	snprintf(t->traced, sizeof(t->traced), "%s:%s (%s)", env.ev->system, env.ev->name,
		 pd.target);
	env.tr.events = &env.ev;
	env.tr.nevents = 1;
	return tracer_prepare(t);
}

static const struct tool kprobe = {
	.name = "kprobe",
	.opts = options,
	.rows = TRACER_ROWS,
	.operands = "'p:[alias] FUNC[+off] [args]' | 'r:[alias] FUNC [args]' [filter]",
	.operand_help =
		"   filter      an ftrace filter on the probe's fields ('ret < 0')\n"
		"  args: fetch arguments as in kprobe_events: %di, $arg1, +0($arg2):string,\n"
		"        $retval, with types :u32 :s64 :string :ustring ...\n",
	.examples = examples,
	.formats = (const char *const[]){"ftrace:kernel_stack", "ftrace:user_stack", NULL},
	.state = &env.tr,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = tracer_setup,
	.banner = tracer_banner,
	.header = tracer_header,
	.interval = tracer_interval,
	.end = tracer_end,
	.cleanup = tracer_cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&kprobe, argc, argv);
}
