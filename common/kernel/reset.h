/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reset: what reset-ftrace does to the top level of tracefs, as perf-tools' reset-ftrace
 * does it: the tracer back to nop, the function, graph and PID filters emptied, every event
 * disabled, tracing_thresh 0, the kprobes and uprobes that are not these tools' removed,
 * tracing on. Unlike it, only what differs is changed, each change said in one line, and it
 * refuses while someone uses the top level: a live run of these tools that owns it (never
 * overridden: that run writes its own settings back when it ends), perf-tools' lock file,
 * a process that reads the top level's buffers (both overridden by force).
 */
#ifndef FTT_RESET_H
#define FTT_RESET_H

#include <stdbool.h>
#include <stdio.h>

struct reset_opts {
	const char *tool; /* in messages on stderr */
	FILE *out;	  /* each change, one line; NULL: nothing said (-q) */
	bool dry;	  /* -n: say what would be changed, change nothing */
	bool force;	  /* -f: reset also while perf-tools or a reader uses the top level */
};

/*
 * Reset the top level as o says (its tool, out, dry, force). "nothing to reset" is said when
 * nothing differed. Returns 0 when it is as reset-ftrace leaves it (or, dry, would be); -1
 * when refused (who uses it said on stderr; dry without force, what -f would do is said all
 * the same) or when something could not be reset (said).
 */
int reset_toplevel(const struct reset_opts *o);

/*
 * Find a process (not this one) that has a file of the top level's buffers open (trace_pipe,
 * trace, per_cpu/cpuN/trace_pipe_raw, ...) under one of the tracing folders. Returns 1 with
 * "PID 12 (cat) reads trace_pipe" in who (len bytes), or 0. Processes that cannot be read
 * (another user's, gone) are not seen.
 */
int reset_reader(char *who, size_t len);

#endif
