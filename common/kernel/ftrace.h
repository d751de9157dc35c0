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
 * Call fn(sys, event, ctx) for every SYSTEM:EVENT that matches spec (globs allowed on either
 * side, sorted) and that can be enabled. Events of systems that cannot be enabled (ftrace:*,
 * written by the tracers themselves) are skipped; *skipped counts them (may be NULL). Returns
 * how many, or -1 with a reason in why (whylen bytes) for a spec that is not SYSTEM:EVENT.
 */
int ftrace_events(const char *spec, void (*fn)(const char *sys, const char *ev, void *ctx),
		  void *ctx, int *skipped, char *why, size_t whylen);

/* Is name a valid SYSTEM or EVENT name or glob (not empty, not . or .., no /)? Returns true if
 * so. */
bool ftrace_name_valid(const char *name);

/*
 * Call fn(name, module or NULL, ctx) for each kernel function the function tracer and kprobes
 * can trace that matches glob (NULL: all; fn may be NULL, to count). Returns how many, or -1
 * with errno when the list cannot be read (EPERM: the kernel refuses it, as lockdown does;
 * ENOENT: no function tracer, CONFIG_FUNCTION_TRACER).
 */
int ftrace_functions(const char *glob, void (*fn)(const char *name, const char *mod, void *ctx),
		     void *ctx);
/* Look func up among the traceable functions (a +OFFSET after its name is left out). Returns
 * 1: func can be traced; 0: it cannot, or its name has glob characters (not looked up); -1:
 * the kernel does not say (see errno, as ftrace_functions()). */
int ftrace_function_traceable(const char *func);

/* Is tracer (function, function_graph, ...) available in this kernel? Returns true if so;
 * false if not, or when available_tracers cannot be read. */
bool ftrace_tracer_available(const char *tracer);
/*
 * Set the tracer of inst, an instance (NULL: the top level). Returns 0, or -1 with errno and a
 * message naming why on stderr (prefixed with tool): EPERM, the kernel refuses it (a policy:
 * not lockdown on the 6.18 here); EINVAL or EBUSY, not available here (function_graph works
 * only at the top level before 6.x).
 */
int ftrace_set_tracer(struct tracefs_instance *inst, const char *tracer, const char *tool);
/* Set the functions the tracer of inst (NULL: the top level) follows (file set_ftrace_filter)
 * or starts graphs at (set_graph_function): the file replaced by the n globs of funcs (n 0
 * empties it, the kernel's "all functions", unchecked). Returns 0, or -1 with errno and a
 * message on stderr (prefixed with tool) on failure, also when the file reads back empty
 * (EINVAL); a glob the kernel rejects leaves in the file those written before it. */
int ftrace_set_functions(struct tracefs_instance *inst, const char *file, const char *const *funcs,
			 int n, const char *tool);

/*
 * Turn on -s of the function tracer of inst (set first): each call followed by its kernel
 * stack (func_stack_trace). On kernels where that option is the kernel's, shared by every
 * instance and the top level (4.9 to 6.12 at least), it is left as it was found: the
 * instance's tracer is switched to stacks, then the value written back (an emergency step
 * writes it back after a fault). Returns 0, or -1 with a message on stderr (prefixed with tool)
 * on failure.
 */
int ftrace_func_stack_on(struct tracefs_instance *inst, const char *tool);

#endif
