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

/* Whether this kernel has the profiler (function_profile_enabled at the top level). */
bool funcprof_available(void);

/* Whether a and b would show the same in the profiler's tables. */
bool funcprof_alike(const char *a, const char *b);
/* Whether shown, a name as the profiler's table has it, is name's. */
bool funcprof_shows(const char *shown, const char *name);

/*
 * Take the top level and the profiler for tool, with the profiler off (no one else
 * counting). must: a refusal is said on stderr (one line, prefixed with tool) and is -1;
 * else the top level is only tried (toplevel_try) and a refusal is 1 without a word (the
 * tool counts another way). 0: taken, give it back with toplevel_release().
 */
int funcprof_take(struct toplevel *tl, const char *tool, bool must);

/* The profiler started on the n words (names or globs) in set_ftrace_filter: its counts
 * start at 0. -1 with the failure said. */
int funcprof_start(struct toplevel *tl, const char *const *words, int n, const char *tool);

/* One CPU's table (text, changed: split in place): each line "  NAME  HITS ..." handed to
 * fn, the header lines left out. */
void funcprof_parse(char *text, void (*fn)(const char *name, unsigned long long hits, void *ctx),
		    void *ctx);

/* Every possible CPU's table, each line to fn (a CPU offline has none: its number is a gap).
 * -1 when there is no table at all. */
int funcprof_read(void (*fn)(const char *name, unsigned long long hits, void *ctx), void *ctx);

#endif
