/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * swstack: the user stack of a task at each of its switches out, from the kernel's
 * context-switch software event (perf_event_open(2), PERF_COUNT_SW_CONTEXT_SWITCHES, a
 * sample every switch): the kernel takes the sample in the switching task's context,
 * before the switch, so its user call chain is the task's at the blocking call, walked as
 * deep as perf_event_max_stack (127), where ftrace's userstacktrace stops at 8 frames.
 *
 * The samples are kept per thread in time order until a tool asks for the one of a time
 * off the CPU it paired itself (on ftrace's sched_switch): swstack_take(tid, out, in)
 * gives the thread's first sample taken at or after its switch out and before its switch
 * in. A sample lost in a full ring leaves that time without one (counted, the caller's
 * fallback); a switch the caller never saw leaves its sample, dropped at the next take.
 * The store and the join are pure (no kernel) and unit-tested.
 */
#ifndef FTT_SWSTACK_H
#define FTT_SWSTACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/perfev.h"

/* The perf sample's time may precede the caller's switch by this much: the same clock,
 * read a few instructions apart (a slack for clocks that are not exactly the same). */
#define SWSTACK_SLACK_NS 20000ULL
#define SWSTACK_BUCKETS 4096

struct swstack_q;

struct swstack {
	struct perfev pe;
	bool open;
	unsigned max_stack;
	struct swstack_q **buckets; /* by tid, SWSTACK_BUCKETS chains */
	uint64_t samples;	    /* stored */
	uint64_t matched;	    /* taken by a time off the CPU */
	uint64_t missing;	    /* times off the CPU without their sample */
	uint64_t unused;	    /* samples of switches the caller did not pair, dropped */
	uint64_t bad;		    /* malformed samples */
	/* With a trace clock mapped to CLOCK_MONOTONIC (learn): a sample's time less its
	 * switch's as matched (the mapping's error), learned from the matches and allowed for. */
	bool learn;
	int64_t skew;
};

/* Set up w, an empty store (no kernel): swstack_add and swstack_take work on it. max_stack:
 * the frames asked of a sample (0: PERFEV_MAX_STACK). Returns 0, or -1 when out of memory.
 * Frees: swstack_free(w), after a failure too. */
int swstack_init(struct swstack *w, unsigned max_stack);

/*
 * Open the context-switch event on every CPU for: tid (> 0, one thread), else pid (> 0, a
 * process: its threads now and later), else every task; with mono, its times on
 * CLOCK_MONOTONIC (attr.use_clockid, 4.1+) to match a trace clock "mono", else the
 * kernel's local clock (perf_clock), as ftrace's "local" and close to its "global". Enabled
 * at once; w is set up as swstack_init's, as deep as perf_event_max_stack allows. Returns 0,
 * or -1 with the reason in why (len bytes; perf events refused or missing: the caller falls
 * back). Frees: swstack_free(w), after a failure too.
 */
int swstack_open(struct swstack *w, pid_t pid, pid_t tid, bool mono, char *why, size_t len);

/* Read every ring's samples into the store w (nothing when it is not open). */
void swstack_drain(struct swstack *w);

/* Stop w's sampling (what is in the rings stays for the last drain). */
void swstack_disable(struct swstack *w);

/* Store a sample in w: thread tid's user frames u[0..n-1] (leaf first, copied) at time.
 * Returns 0, or -1 when out of memory. */
int swstack_add(struct swstack *w, uint32_t tid, uint64_t time, const uint64_t *u, int n);

/*
 * The user stack in w of thread tid off the CPU from out_ns to in_ns: its first sample at or
 * after out_ns (less the slack) and before in_ns, its frames copied into u (at most max);
 * that sample and the older ones are forgotten. Returns the frames copied, or -1 when there
 * is no such sample (counted missing; a later one is kept for its own time).
 */
int swstack_take(struct swstack *w, uint32_t tid, uint64_t out_ns, uint64_t in_ns, uint64_t *u,
		 int max);

/*
 * After the takes of a drain, with horizon_ns the time up to which the caller has seen the
 * switches (less a margin for its late CPUs): of each thread's samples in w before it, only
 * the newest is kept, that of a thread still off the CPU since then (its switch in, when
 * it comes, takes it); the others are of switches the caller did not pair.
 */
void swstack_trim(struct swstack *w, uint64_t horizon_ns);

/* On stderr under the tool's name (tool): w's samples lost by the rings (and its ring's other
 * troubles, perfev_report), the times off the CPU without their sample (their user stack:
 * none), and the samples malformed or not stored. */
void swstack_report(const struct swstack *w, const char *tool);

/* Close w's event, if open, and free its samples; w may be freed again. */
void swstack_free(struct swstack *w);

#endif
