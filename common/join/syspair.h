/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * syspair: system calls as a whole, from the events around each one: the entry (arguments),
 * what other events add while the call runs (a path a kprobe read), and the exit (the
 * result), joined per thread: a span (span.h) keyed by thread, whose loss policy is
 * SPAN_LOSS_ALL (a thread may exit its call on another CPU), so a result is never attached to
 * another call's arguments; exits without their entry are counted there.
 */
#ifndef FTT_SYSPAIR_H
#define FTT_SYSPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "join/span.h"

struct session;
struct tep_event;
struct tep_record;

typedef void (*syspair_ended_fn)(const struct tep_record *exit, int tid, long long ret, void *call,
				 void *ctx);

struct syspair {
	/* tid -> the call in progress: span_start's ts is its entry, kind the tool's index of
	 * the call (open, openat, ...), its data the tool's data_size bytes; span.unpaired
	 * counts exits whose entry was not seen, span.cleared calls forgotten at a loss. */
	struct span span;
	/* A call ended: its exit record, thread, result and the call (syspair_data). */
	syspair_ended_fn ended;
	void *ctx;
	int tid;       /* of the exit being paired */
	long long ret; /* its result */
};

/* One call in progress (a span's start); the tool's data follow it (syspair_data). */
#define syspair_call span_start

/*
 * A join in j for about threads threads at once (more are kept too: the oldest is evicted
 * from a full set) with data_size bytes of the tool's per call. ended() gets each finished
 * call: the exit record, the thread, the result, the call (syspair_data for the tool's part)
 * and ctx. Returns 0, or -1 when out of memory (nothing to free). Frees: syspair_free(j).
 */
int syspair_init(struct syspair *j, size_t threads, size_t data_size, syspair_ended_fn ended,
		 void *ctx);
/* Frees the table of j (j itself is the caller's). Safe after a failed syspair_init. */
void syspair_free(struct syspair *j);

/* The entry of call which by thread tid at ts, in j: a fresh call (its data zeroed)
 * replacing any the thread had (that one's exit was lost). Returns it (never NULL), owned by
 * j: valid until its exit, a move, a loss or its eviction (any later entry may evict it). */
struct syspair_call *syspair_enter(struct syspair *j, int tid, uint64_t ts, int which);
/* Finds the call thread tid is in, in j. Returns it, owned by j and valid as
 * syspair_enter's, or NULL when there is none. */
struct syspair_call *syspair_current(struct syspair *j, int tid);
/* Moves the call of thread from in j to thread to (an exec by a thread other than the leader:
 * the kernel gives it the leader's ID). Returns it there, owned by j and valid as
 * syspair_enter's, or NULL when there is none (as span_move). */
struct syspair_call *syspair_move(struct syspair *j, int from, int to);
/* The exit of thread tid in j, rec its record (its time the exit's), ret its result: ended()
 * for the thread's call, then it is forgotten; no call: counted. */
void syspair_exit(struct syspair *j, const struct tep_record *rec, int tid, long long ret);
/* The reader's lost-event listener (reader_on_lost(r, syspair_lost, j)), ctx the join: every
 * call in progress is forgotten, whatever cpu lost the n events. */
void syspair_lost(int cpu, long long n, void *ctx);

/* The tool's data of call c. Returns the data_size bytes that follow c, owned by the join
 * and valid as c is. */
static inline void *syspair_data(struct syspair_call *c)
{
	return span_data(c);
}

/* The tracepoint syscalls:sys_<dir>_<call> (dir "enter" or "exit"), its format loaded into
 * s. Returns it, owned by the session's tep (not to be freed), or NULL when this kernel has
 * no such call or syscall events (CONFIG_FTRACE_SYSCALLS). */
struct tep_event *syspair_event(struct session *s, const char *dir, const char *call);

#endif
