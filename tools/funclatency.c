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

#include "ftrace.h"
#include "hist.h"
#include "opt.h"
#include "out.h"
#include "pair.h"
#include "probe.h"
#include "reader.h"
#include "tool.h"
#include "usym.h"

#define DEPTH 16 /* entries kept per thread: deeper recursion is counted as unpaired */

struct calls {
	uint64_t ts[DEPTH];
	int depth;
};

static struct env {
	const char *spec; /* FUNC or TARGET:FUNC */
	char func[256];	  /* the function's name, for the output */
	bool user;	  /* a uprobe pair */
	bool millis, nanos;
	struct tep_event *entry, *ret;
	struct pair_table threads; /* tid -> calls in progress */
	struct hist_log2 h;
	uint64_t unpaired; /* returns without their entry (lost, or deeper than DEPTH) */
	/* kprobe_profile names a probe without its group: names of this run's own */
	char entry_name[32], ret_name[32];
	struct tool_run *t;
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
	env.spec = argv[0];
	if (!*env.spec || strpbrk(env.spec, " \t\n*?["))
		opt_fail("invalid FUNC: '%s' (a kernel function, or LIB:FUNC)", env.spec);
}

/* --- the probes ------------------------------------------------------------------------------ */

static void probe_names(void)
{
	snprintf(env.entry_name, sizeof(env.entry_name), "fl_entry_%d", (int)getpid());
	snprintf(env.ret_name, sizeof(env.ret_name), "fl_ret_%d", (int)getpid());
}

/* A kretprobe can miss returns (more calls in progress than its instances, maxactive):
 * kprobe_profile's nmissed of ours. */
static void ret_missed(const char *name, unsigned long long hits, unsigned long long missed,
		       void *ctx)
{
	(void)hits;
	if (!strcmp(name, env.ret_name))
		*(unsigned long long *)ctx = missed;
}

static unsigned long long missed_returns(void)
{
	unsigned long long missed = 0;
	probe_profile(PROBE_KPROBE, ret_missed, &missed);
	return missed;
}

static int kernel_probes(struct tool_run *t)
{
	if (!probe_available(&t->s, PROBE_KPROBE, false))
		return TOOL_FAIL;
	/* The list may be refused (EPERM): then the kernel decides. */
	if (ftrace_function_traceable(env.spec) == 0) {
		fprintf(stderr,
			"funclatency: %s cannot be traced: not in available_filter_functions\n",
			env.spec);
		return TOOL_USAGE;
	}
	snprintf(env.func, sizeof(env.func), "%s", env.spec);
	probe_names();
	if (!(env.entry = probe_create(&t->s, PROBE_KPROBE, 'p', env.entry_name, env.spec, NULL)) ||
	    !(env.ret = probe_create(&t->s, PROBE_KPROBE, 'r', env.ret_name, env.spec, NULL)))
		return TOOL_USAGE; /* the kernel said why */
	return TOOL_OK;
}

static int user_probes(struct tool_run *t)
{
	char buf[PATH_MAX + 256], path[PATH_MAX], why[PATH_MAX + 200], target[PATH_MAX + 64];
	snprintf(buf, sizeof(buf), "%s", env.spec);
	char *colon = strrchr(buf, ':');
	*colon = 0;
	const char *symbol = colon + 1;
	if (!*buf || !*symbol)
		opt_fail("invalid FUNC: '%s' (LIB:FUNC, e.g. libc:getaddrinfo)", env.spec);
	if (usym_target(buf, path, sizeof(path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)", buf);
	unsigned long long off;
	if (usym_offset(path, symbol, false, &off, why, sizeof(why)))
		opt_fail("%s", why);
	if (strpbrk(path, " \t\n:"))
		opt_fail("the path of '%s' has a space or ':', which uprobe_events cannot take: "
			 "use a link to it",
			 buf);
	if (!probe_available(&t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	snprintf(env.func, sizeof(env.func), "%s", symbol);
	snprintf(target, sizeof(target), "%s:0x%llx", path, off);
	probe_names();
	if (!(env.entry = probe_create(&t->s, PROBE_UPROBE, 'p', env.entry_name, target, NULL)) ||
	    !(env.ret = probe_create(&t->s, PROBE_UPROBE, 'r', env.ret_name, target, NULL)))
		return TOOL_USAGE;
	return TOOL_OK;
}

static int prepare(struct tool_run *t)
{
	env.t = t;
	env.user = strchr(env.spec, ':') != NULL;
	int ret = env.user ? user_probes(t) : kernel_probes(t);
	if (ret)
		return ret;
	if (pair_init(&env.threads, 4096, sizeof(struct calls)))
		return TOOL_FAIL;
	t->follow_names = t->o.name != NULL;
	snprintf(t->what, sizeof(t->what), "%s function %s", env.user ? "user" : "kernel",
		 env.spec);
	return TOOL_OK;
}

/* --- per event ---------------------------------------------------------------------------- */

static void on_entry(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct calls *c = pair_put(&env.threads, (uint64_t)tep_data_pid(env.t->s.tep, rec), 0);
	if (c->depth < DEPTH)
		c->ts[c->depth] = rec->ts;
	c->depth++;
}

static void on_return(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct calls *c = pair_get(&env.threads, (uint64_t)tep_data_pid(env.t->s.tep, rec), 0);
	if (!c || c->depth <= 0 || c->depth > DEPTH) {
		env.unpaired++;
		if (c && c->depth > 0)
			c->depth--;
		return;
	}
	uint64_t ns = rec->ts >= c->ts[--c->depth] ? rec->ts - c->ts[c->depth] : 0;
	hist_log2_add(&env.h, env.nanos ? ns : ns / (env.millis ? 1000000 : 1000));
	if (!c->depth)
		pair_del(&env.threads, c);
}

/* A lost entry or return could pair the wrong two: start again. */
static void on_lost(int cpu, long long n, void *ctx)
{
	(void)cpu;
	(void)n;
	(void)ctx;
	pair_clear(&env.threads);
}

static int setup(struct tool_run *t)
{
	int ret;
	if (reader_on_lost(&t->r, on_lost, NULL))
		return TOOL_FAIL;
	if ((ret = tool_trace(t, env.ret, NULL, on_return, NULL)) ||
	    (ret = tool_trace(t, env.entry, NULL, on_entry, NULL)))
		return ret;
	return TOOL_OK;
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
		out_json_str(stdout, env.func, sizeof(env.func));
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
	unsigned long long missed = env.user ? 0 : missed_returns();
	if (missed)
		fprintf(stderr,
			"funclatency: %llu returns were missed by the kernel (more calls in "
			"progress "
			"than the kretprobe's instances): those calls are not counted\n",
			missed);
	if (env.unpaired)
		fprintf(stderr,
			"funclatency: %llu returns without their entry (calls that began before "
			"the "
			"start, events lost, or recursion deeper than %d) are not counted\n",
			(unsigned long long)env.unpaired, DEPTH);
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	pair_free(&env.threads);
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
