// SPDX-License-Identifier: GPL-2.0-only
/*
 * funclatency: how long the calls of one function take, as a log2 histogram, for a kernel
 * function (a kprobe and a kretprobe) or a user one (LIB:FUNC, a uprobe and a uretprobe).
 * The entry and the return are paired per thread in user space, with a small stack per
 * thread so that a function that calls itself pairs each return with its own entry.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "funcpair.h"
#include "hist.h"
#include "opt.h"
#include "out.h"
#include "reader.h"
#include "tool.h"

static struct env {
	struct funcpair fp;
	bool millis, nanos;
	struct hist_log2 h;
} env;

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'i', NULL, "SECS", "print a histogram every SECS seconds (default: at the end)", 0},
	TOOL_JSON("one JSON object per histogram"),
	{'m', NULL, NULL, "milliseconds (default: microseconds)", 0},
	TOOL_NAME,
	{'N', NULL, NULL, "nanoseconds", 0},
	TOOL_PID,
	TOOL_TID,
	{'T', NULL, NULL, "the wall-clock time above each histogram", TOOL_OPT_WALLCLOCK},
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"funclatency vfs_read                # kernel: vfs_read's calls, at Ctrl-C",
	"funclatency -i 1 -m do_sys_open     # every second, in milliseconds",
	"funclatency -p 181 ext4_file_write_iter # only PID 181's calls",
	"funclatency libc:getaddrinfo        # user: name lookups (gethostlatency)",
	"funclatency -N ./app:parse --exec ./app input # a program's function, while it runs",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'i': t->o.interval = opt_seconds(arg, "interval"); break;
	case 'm': env.millis = true; break;
	case 'N': env.nanos = true; break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	(void)t;
	if (argc < 1)
		opt_fail("no FUNC: which function? (see -h)");
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (one function; see -h)", argv[1]);
	if (env.millis && env.nanos)
		opt_fail("-m and -N exclude each other");
	env.fp.spec = argv[0];
	funcpair_check_spec(env.fp.spec);
}

static int prepare(struct tool_run *t)
{
	int ret = funcpair_probes(t, &env.fp, "fl");
	if (ret)
		return ret;
	t->follow_names = t->o.name != NULL;
	snprintf(t->what, sizeof(t->what), "%s function %s", env.fp.user ? "user" : "kernel",
		 env.fp.spec);
	return TOOL_OK;
}

/* --- per event ---------------------------------------------------------------------------- */

static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	(void)ctx;
	uint64_t ns = ret->ts >= c->entry_ts ? ret->ts - c->entry_ts : 0;
	hist_log2_add(&env.h, env.nanos ? ns : ns / (env.millis ? 1000000 : 1000));
}

static int setup(struct tool_run *t)
{
	return funcpair_trace(t, &env.fp, on_call, NULL);
}

/* --- output --------------------------------------------------------------------------------- */

static const char *unit(void)
{
	return env.nanos ? "ns" : env.millis ? "ms" : "us";
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	if (t->o.json) {
		printf("{\"time\":\"%s\",\"func\":", when);
		out_json_str(stdout, env.fp.func, sizeof(env.fp.func));
		printf(",\"unit\":\"%s\",\"count\":%llu,\"hist\":", unit(),
		       (unsigned long long)env.h.total);
		hist_log2_json(stdout, &env.h);
		printf("}\n");
	} else {
		out_table_gap(stdout);
		if (t->o.wallclock || t->o.interval)
			printf("[%s]\n", when);
		hist_log2_print(stdout, &env.h, unit(), "calls");
	}
	hist_log2_reset(&env.h);
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	funcpair_report(&env.fp, "funclatency");
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	funcpair_free(&env.fp);
}

static const struct tool funclatency = {
	.name = "funclatency",
	.opts = options,
	.operands = "FUNC",
	.operand_help = "   FUNC        a kernel function (vfs_read), or LIB:FUNC for a user one\n"
			"               (libc:getaddrinfo; a path or a program in PATH)\n",
	.examples = examples,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&funclatency, argc, argv);
}
