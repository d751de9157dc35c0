/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sweepsay: how the sweep of what killed runs left (sweep.h) says what it does, and whether
 * it does it. Its own module so that the parts the sweep calls (undo.h, toplevel.h) say their
 * lines the same way without depending on the sweep itself.
 */
#ifndef FTT_SWEEPSAY_H
#define FTT_SWEEPSAY_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Every tool's sweep (sweep_stale): each thing done on stderr after "tool: ". reset-ftrace's:
 * on its output (or nowhere, -q); with dry, only what it would do (nothing is changed); with
 * left, also what it leaves and why (a live run's, one the kernel says is busy).
 */
struct sweep_how {
	FILE *out;   /* NULL: stderr */
	bool quiet;  /* nothing said */
	bool prefix; /* "tool: " before each line */
	bool dry;
	bool left;
};
/* sweep_stale's: on stderr, prefixed, acting. */
extern const struct sweep_how sweep_default;

/* Say one line of a sweep as how says (NULL: sweep_default): fmt and what follows it, as
 * printf() takes them, after "tool: " when how->prefix; nothing when how->quiet. */
void sweep_say(const struct sweep_how *how, const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
