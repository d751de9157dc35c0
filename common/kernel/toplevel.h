/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * toplevel: the top-level ftrace instance, for what kernels have only there (function_graph
 * below chosen functions: set_graph_function, max_graph_depth and tracing_thresh exist in
 * no instance up to 6.12 at least). It is shared by the whole machine, so one run at a time
 * owns it: a state file, locked with flock(2) while its owner lives, names the owner and
 * holds every setting the owner changed, saved before the first write. A second run finds
 * the lock held and says who holds it; a run that finds the lock free and the file not empty
 * (its owner was killed) writes the saved settings back first. Settings are restored on
 * every exit path: at the end, by the emergency steps on a fault (sig.h), by the next run
 * of any tool after SIGKILL.
 */
#ifndef FTT_TOPLEVEL_H
#define FTT_TOPLEVEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define TOPLEVEL_MAX_SETTINGS 16

struct toplevel {
	const char *tool;
	char dir[PATH_MAX]; /* the tracing directory */
	char state[PATH_MAX];
	int lock_fd;	/* the state file, locked while this run owns the top level; -1: not */
	int on_fd;	/* tracing_on, for the reader to stop recording at the end */
	bool perf_lock; /* toplevel_perf_tools_lock made by this run */
	bool failed;	/* a setting could not be written back (said): the run exits 1 */
	int n;
	struct toplevel_setting {
		char file[48]; /* relative to dir: "current_tracer", "options/sleep-time" */
		char *saved;   /* as it is written back */
		int emergency; /* the signal module's step that writes it back */
	} set[TOPLEVEL_MAX_SETTINGS];
};

/*
 * Take the top level for tool: the lock, a dead owner's settings written back, then checks
 * that nobody else uses it (current_tracer is nop, no event enabled there, no perf-tools
 * lock). current_tracer is saved first. -1 with one line on stderr naming who holds it.
 */
int toplevel_acquire(struct toplevel *tl, const char *tool);

/* The same, for a tool that has another way (funccount's hit counts): when the top level
 * is in use, -1 without a word. */
int toplevel_try(struct toplevel *tl, const char *tool);

/* Write value to a top-level file (replacing what it holds), its setting saved first. -1
 * with a message (errno kept); ENOENT when the kernel has no such file. */
int toplevel_set(struct toplevel *tl, const char *file, const char *value);
/* Add value to a top-level list (set_ftrace_pid: one more ID), its setting saved first, the
 * same way. */
int toplevel_add(struct toplevel *tl, const char *file, const char *value);

/* Write every saved setting back (current_tracer first, then the others newest first) and
 * give the top level up; failed is set when one could not be. Safe to call more than once. */
void toplevel_release(struct toplevel *tl);

/* The sweep of every run (sweep.h): a dead owner's settings written back, said
 * on stderr. 1 when there were some, 0 when not. */
int toplevel_recover(const char *tool);
/* The same as a sweep's how says (sweepsay.h; NULL: as toplevel_recover): with how->dry, the
 * settings it would write back are said, nothing written; with how->left, a live owner is
 * said. */
struct sweep_how;
int toplevel_recover_how(const char *tool, const struct sweep_how *how);

/* Who owns the top level: 1 and "tool (PID n, since HH:MM:SS)" in who when a live run holds
 * it; 0 when nobody does. Takes nothing. */
int toplevel_owner(char *who, size_t len);

/* Keep the runs of these tools from taking the top level without owning it (reset-ftrace,
 * while it resets): the state file's lock, taken when free, a dead owner's settings written
 * back first. The file descriptor, the lock going when it is closed; -1 with the live owner
 * in who, or with who empty and the failure said on stderr. */
int toplevel_hold(const char *tool, char *who, size_t len);

/*
 * A top-level file's text as it can be written back: the word in brackets of trace_clock,
 * the size a buffer will have ("7 (expanded: 1408)": 1408), the entries of a list joined by
 * spaces (the "####" comment of an empty filter and "no pid" are nothing), else the text
 * without its newline. -1 for what cannot be written back in one value (per-CPU buffer
 * sizes that differ: "X").
 */
int toplevel_normalize(const char *file, const char *text, char *out, size_t len);

#endif
