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
 * Take the top level for tool into tl (cleared first): the lock, a dead owner's settings
 * written back (said on stderr), then checks that nobody else uses it (current_tracer is nop,
 * no event enabled there, no perf-tools lock; then this run's own perf-tools lock is made).
 * current_tracer is saved first. Returns 0: owned, give it back with toplevel_release(tl); or
 * -1, with what was changed given back, and one line on stderr naming who holds it or what
 * failed (a failure to write the state file or to save current_tracer is not said).
 */
int toplevel_acquire(struct toplevel *tl, const char *tool);

/* The same, for a tool that has another way (funccount's hit counts). Returns 0 as
 * toplevel_acquire(tl, tool) does; or -1: when the top level is in use, without a word (other
 * failures are said as there). */
int toplevel_try(struct toplevel *tl, const char *tool);

/* Write value to file, a top-level file of tl (replacing what it holds), its setting saved
 * first (once a file, TOPLEVEL_MAX_SETTINGS in all). Returns 0, or -1 with a message on stderr
 * (errno kept): ENOENT when the kernel has no such file; ENOSPC past TOPLEVEL_MAX_SETTINGS;
 * ENOTSUP for a setting that cannot be written back in one value (toplevel_normalize). */
int toplevel_set(struct toplevel *tl, const char *file, const char *value);
/* Add value to file, a top-level list of tl (set_ftrace_pid: one more ID), its setting saved
 * first, the same way. Returns 0, or -1 as toplevel_set() does. */
int toplevel_add(struct toplevel *tl, const char *file, const char *value);

/* Write every saved setting of tl back (current_tracer first, then the others newest first)
 * and give the top level up; failed is set when one could not be (said on stderr; the state
 * file and the perf-tools lock are then kept for the next run). Safe to call more than once,
 * and after a failed toplevel_acquire(). */
void toplevel_release(struct toplevel *tl);

/* The sweep of every run (sweep.h): a dead owner's settings written back, said on stderr
 * (prefixed with tool). Returns 1 when there were some (written back or not), 0 when not (or
 * when the state file could not be emptied after). */
int toplevel_recover(const char *tool);
struct sweep_how;
/* The same for tool, as how, a sweep's how, says (sweepsay.h; NULL: as toplevel_recover): with
 * how->dry, the settings it would write back are said, nothing written; with how->left, a live
 * owner is said. Returns as toplevel_recover() does (with how->dry, 1 when there are some). */
int toplevel_recover_how(const char *tool, const struct sweep_how *how);

/* Who owns the top level, said in who (len bytes). Takes nothing. Returns 1 with "tool (PID n,
 * since HH:MM:SS)" in who when a live run holds it; 0 with "nobody" in who when nobody does. */
int toplevel_owner(char *who, size_t len);

/* Keep the runs of these tools from taking the top level without owning it (reset-ftrace,
 * while it resets): the state file's lock, taken when free, a dead owner's settings written
 * back first (said, prefixed with tool). Returns the file descriptor, the lock going when the
 * caller closes it (close()); -1 with the live owner in who (len bytes), or with who empty and
 * the failure said on stderr. */
int toplevel_hold(const char *tool, char *who, size_t len);

/*
 * Put in out (len bytes) the text of file, a top-level file, as it can be written back: the
 * word in brackets of trace_clock, the size a buffer will have ("7 (expanded: 1408)": 1408),
 * the entries of a list joined by spaces (the "####" comment of an empty filter and "no pid"
 * are nothing), else the text without its newline. Returns 0, or -1 for what cannot be
 * written back in one value (per-CPU buffer sizes that differ: "X") or does not fit in len.
 */
int toplevel_normalize(const char *file, const char *text, char *out, size_t len);

#endif
