/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ladder: a mechanism ladder. A tool that can do one thing several ways (read a path with a
 * kprobe, an eprobe, uprobes, or not at all) lists the ways best first, each a rung that
 * sets itself up or says why it cannot; the ladder climbs down until one can, or takes the
 * one the user chose (--via) and says why when it cannot.
 */
#ifndef FTT_LADDER_H
#define FTT_LADDER_H

/* A rung: 0 when it is set up, -1 when it is not here (the reason in *why), or the tool's
 * exit status of a failure it has said on stderr. */
typedef int (*ladder_rung_fn)(void *ctx, const char **why);

/*
 * Rung *via of rungs when the user chose one (0 <= *via < n), else each in order until one
 * does not answer -1; *via is then the rung in use (n when none is here). Each rung is called
 * with ctx; names are the rungs' names for --via, tool the tool's for messages. A chosen rung
 * that is not here is said on stderr ("TOOL: --via NAME: why"). Returns what the rung returned:
 * 0, -1 (none here), or the tool's exit status.
 */
int ladder_climb(const ladder_rung_fn *rungs, const char *const *names, int n, int *via, void *ctx,
		 const char *tool);

#endif
