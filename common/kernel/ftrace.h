/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace: what the kernel offers to trace, by name: its events (SYSTEM:EVENT globs, as
 * tpoint takes them) and its functions (available_filter_functions), and the function
 * tracers of an instance (current_tracer, set_ftrace_filter, set_graph_function, their
 * options), which the function tools drive.
 */
#ifndef FTT_FTRACE_H
#define FTT_FTRACE_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_instance;

/*
 * Every SYSTEM:EVENT that matches spec (globs allowed on either side, sorted) and that can
 * be enabled; fn(sys, event, ctx) for each, returns how many. Events of systems that cannot
 * be enabled (ftrace:*, written by the tracers themselves) are skipped; *skipped counts
 * them (may be NULL). -1 with a reason in why for a spec that is not SYSTEM:EVENT.
 */
int ftrace_events(const char *spec, void (*fn)(const char *sys, const char *ev, void *ctx),
		  void *ctx, int *skipped, char *why, size_t whylen);

/* Is name a valid SYSTEM or EVENT name or glob (not empty, not . or .., no /)? */
bool ftrace_name_valid(const char *name);

/*
 * The kernel functions the function tracer and kprobes can trace that match glob:
 * fn(name, module or NULL, ctx) for each, returns how many; -1 with errno when the list
 * cannot be read (EPERM: the kernel refuses it, as lockdown does; ENOENT: no function
 * tracer, CONFIG_FUNCTION_TRACER).
 */
int ftrace_functions(const char *glob, void (*fn)(const char *name, const char *mod, void *ctx),
		     void *ctx);
/* 1: func can be traced; 0: it cannot; -1: the kernel does not say (see errno). */
int ftrace_function_traceable(const char *func);

/* Is tracer (function, function_graph, ...) available in this kernel? */
bool ftrace_tracer_available(const char *tracer);
/*
 * The instance's tracer (NULL instance: the top level). -1 with a message naming why on
 * failure: EPERM, the kernel refuses it (a policy: not lockdown on the 6.18 here); EINVAL or
 * EBUSY, not available here (function_graph works only at the top level before 6.x).
 */
int ftrace_set_tracer(struct tracefs_instance *inst, const char *tracer, const char *tool);
/* Functions the tracer follows (set_ftrace_filter) or starts graphs at (set_graph_function):
 * the file replaced by the n globs of funcs. -1 with a message on failure, also when the file
 * reads back empty (the kernel's "all functions"). */
int ftrace_set_functions(struct tracefs_instance *inst, const char *file, const char *const *funcs,
			 int n, const char *tool);

/*
 * -s of the instance's function tracer (set first): each call followed by its kernel stack
 * (func_stack_trace). On kernels where that option is the kernel's, shared by every instance
 * and the top level (4.9 to 6.12 at least), it is left as it was found: the instance's tracer
 * is switched to stacks, then the value written back. -1 with a message on failure.
 */
int ftrace_func_stack_on(struct tracefs_instance *inst, const char *tool);

#endif
