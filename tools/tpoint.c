// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpoint: trace tracepoints, one line per event (or counts with -c, -k, --hist). Wildcards
 * in the system or event name enable several; -l lists them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/ftrace.h"
#include "tracer/tracer.h"

static struct env {
	struct tracer tr;
	bool list;	  /* -l */
	const char *spec; /* SYSTEM:EVENT, globs allowed */
	int n, cap;	  /* the matching events */
	struct tep_event **events;
	struct tool_run *t;
} env;

static const struct opt_spec options[] = {
	{'l', NULL, NULL, "list tracepoints (matching PATTERN, a glob on SYSTEM:EVENT)", 0},
	TRACER_OPTIONS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tpoint -l 'block:*'                       # list block tracepoints",
	"tpoint block:block_rq_issue               # trace block I/O issue",
	"tpoint -j 'block:block_rq_*'              # several, as JSON",
	"tpoint syscalls:sys_enter_openat 'flags & 64'   # with a filter (O_CREAT)",
	"tpoint -p 181 -d 5 'syscalls:sys_enter_read'    # one process, 5 s",
	"tpoint -c 'sched:sched_switch'            # count per second",
	"tpoint -k comm,pid syscalls:sys_enter_read      # reads by process",
	"tpoint --hist count syscalls:sys_enter_read     # read sizes, log2",
	"tpoint -v sched:sched_wakeup              # show the format",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'l')
		env.list = true;
	else
		tracer_option(&env.tr, o, arg);
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		env.spec = argv[0];
	else if (!env.list)
		opt_fail("no tracepoint given: SYSTEM:EVENT (see -h)");
	if (argc > 1 && !env.list)
		env.tr.filter = argv[1];
	if (argc > (env.list ? 1 : 2))
		opt_fail("unexpected argument: '%s' (see -h)", argv[env.list ? 1 : 2]);
	tracer_check(&env.tr);
}

static void print_one(const char *sys, const char *ev, void *ctx)
{
	printf("%s:%s\n", sys, ev);
}

/* The matching events' names, their formats loaded at once (session_load_events). */
static struct names {
	size_t n, cap;
	char **sys, **name;
} found;

static void find_event(const char *sys, const char *name, void *ctx)
{
	if (found.n == found.cap) {
		size_t cap = found.cap ? found.cap * 2 : 64;
		char **s = realloc(found.sys, cap * sizeof(*s));
		if (s)
			found.sys = s;
		char **e = realloc(found.name, cap * sizeof(*e));
		if (e)
			found.name = e;
		if (!s || !e)
			return;
		found.cap = cap;
	}
	found.sys[found.n] = strdup(sys);
	found.name[found.n] = strdup(name);
	if (found.sys[found.n] && found.name[found.n])
		found.n++;
	else
		free(found.sys[found.n]), free(found.name[found.n]);
}

static void add_event(const char *sys, const char *name)
{
	if (env.n == env.cap) {
		int cap = env.cap ? env.cap * 2 : 16;
		struct tep_event **more = realloc(env.events, (size_t)cap * sizeof(*more));
		if (!more)
			return;
		env.events = more;
		env.cap = cap;
	}
	struct tep_event *ev = session_load_event(&env.t->s, sys, name);
	if (ev)
		env.events[env.n++] = ev;
	else if (env.t->s.refused[0]) {
		char full[300];
		snprintf(full, sizeof(full), "%s:%s", sys, name);
		if (!strcmp(full, env.t->s.refused))
			session_event(&env.t->s, sys, name, true); /* why it was refused */
	}
}

static enum tool_code prepare(struct tool_run *t)
{
	char why[256];
	int skipped;
	env.t = t;
	if (env.list) {
		int n = ftrace_events(env.spec ? env.spec : "*:*", print_one, NULL, NULL, why,
				      sizeof(why));
		if (n < 0)
			opt_fail("invalid pattern '%s': %s", env.spec, why);
		if (n == 0 && env.spec)
			opt_fail("no tracepoint matches '%s'", env.spec);
		return TOOL_DONE;
	}
	int n = ftrace_events(env.spec, find_event, NULL, &skipped, why, sizeof(why));
	if (n < 0)
		opt_fail("invalid tracepoint '%s': %s", env.spec, why);
	if (n == 0 && skipped)
		opt_fail("'%s' matches only events that cannot be traced: the ftrace system's are "
			 "written by the tracers themselves",
			 env.spec);
	if (n == 0)
		opt_fail("no tracepoint matches '%s' (tpoint -l lists them)", env.spec);
	session_load_events(&t->s, found.n, (const char *const *)found.sys,
			    (const char *const *)found.name);
	for (size_t i = 0; i < found.n; i++)
		add_event(found.sys[i], found.name[i]);
	if (env.n < n) {
		fprintf(stderr, "tpoint: cannot read the formats of '%s'\n", env.spec);
		return TOOL_FAIL;
	}
	env.tr.events = env.events;
	env.tr.nevents = env.n;
	snprintf(t->traced, sizeof(t->traced), "%s", env.spec);
	return tracer_prepare(t);
}

static void cleanup(struct tool_run *t)
{
	tracer_cleanup(t);
	free(env.events);
	for (size_t i = 0; i < found.n; i++)
		free(found.sys[i]), free(found.name[i]);
	free(found.sys);
	free(found.name);
}

static const struct tool tpoint = {
	.name = "tpoint",
	.opts = options,
	.rows = TRACER_ROWS,
	.operands = "SYSTEM:EVENT [filter]",
	.more = (const char *const[]){"-l [PATTERN]", NULL},
	.operand_help = "   filter      an ftrace filter on the event's fields ('count > 100')\n",
	.examples = examples,
	.state = &env.tr,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = tracer_setup,
	.banner = tracer_banner,
	.header = tracer_header,
	.interval = tracer_interval,
	.end = tracer_end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&tpoint, argc, argv);
}
