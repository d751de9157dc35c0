/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * funcprof: the kernel's function profiler (CONFIG_FUNCTION_PROFILER): calls of the
 * functions set_ftrace_filter names, counted per CPU in the kernel with no event per call,
 * read from trace_stat/function<cpu>. Its files are the top level's only, so a run owns the
 * top level while it counts (toplevel.h), and gives it back as found. funccount.
 *
 * Its tables show a name in at most FUNCPROF_NAME characters: two names alike that far
 * cannot be told apart (funcprof_alike), and a name shown cut stands for the one name that
 * begins with it (funcprof_shows).
 */
#ifndef FTT_FUNCPROF_H
#define FTT_FUNCPROF_H

#include <stdbool.h>

struct toplevel;

#define FUNCPROF_NAME 30

/* Whether this kernel has the profiler (function_profile_enabled at the top level). Returns
 * true if so. */
bool funcprof_available(void);

/* Whether a and b would show the same, cut, in the profiler's tables. Returns true when both
 * have FUNCPROF_NAME characters or more and begin alike that far; false otherwise (for two
 * equal shorter names too: each shows whole). */
bool funcprof_alike(const char *a, const char *b);
/* Whether shown, a name as the profiler's table has it, is name's. Returns true when it is
 * name, or when it has FUNCPROF_NAME characters and name begins with them. */
bool funcprof_shows(const char *shown, const char *name);

/*
 * Take the top level into tl and the profiler for tool, with the profiler off (no one else
 * counting; a profiler on, or whose file cannot be read, is a refusal, the top level given
 * back). Returns 0: taken, give it back with toplevel_release(tl). With must, a refusal is
 * said on stderr (one line, prefixed with tool) and is -1; else the top level is only tried
 * (toplevel_try) and a refusal is 1 without a word (the tool counts another way).
 */
int funcprof_take(struct toplevel *tl, const char *tool, bool must);

/* Start the profiler of tl on the n words (names or globs) in set_ftrace_filter (one write,
 * joined by spaces): its counts start at 0. Returns 0, or -1 with the failure said on stderr
 * (out of memory prefixed with tool; a write as toplevel_set() says it). */
int funcprof_start(struct toplevel *tl, const char *const *words, int n, const char *tool);

/* Hand each line "  NAME  HITS ..." of text, one CPU's table (changed: split in place), to
 * fn(name, hits, ctx), the header lines left out. */
void funcprof_parse(char *text, void (*fn)(const char *name, unsigned long long hits, void *ctx),
		    void *ctx);

/* Read every possible CPU's table, each line to fn(name, hits, ctx) (a CPU offline has none:
 * its number is a gap). Returns 0, or -1 when there is no table at all. */
int funcprof_read(void (*fn)(const char *name, unsigned long long hits, void *ctx), void *ctx);

#endif
