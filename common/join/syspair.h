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
 * A join for about `threads` threads at once (more are kept too: the oldest is evicted from a
 * full set) with data_size bytes of the tool's per call. ended() gets each finished call:
 * the exit record, the thread, the result and the call (syspair_data for the tool's part).
 */
int syspair_init(struct syspair *j, size_t threads, size_t data_size, syspair_ended_fn ended,
		 void *ctx);
void syspair_free(struct syspair *j);

/* The entry of call `which` by thread tid at ts: a fresh call (its data zeroed) replacing
 * any the thread had (that one's exit was lost). */
struct syspair_call *syspair_enter(struct syspair *j, int tid, uint64_t ts, int which);
/* The call thread tid is in, or NULL. */
struct syspair_call *syspair_current(struct syspair *j, int tid);
/* The call of thread `from` now belongs to thread `to` (an exec by a thread other than the
 * leader: the kernel gives it the leader's ID); returns it there, or NULL when there is none. */
struct syspair_call *syspair_move(struct syspair *j, int from, int to);
/* The exit: ended() for the thread's call, then it is forgotten; no call: counted. */
void syspair_exit(struct syspair *j, const struct tep_record *rec, int tid, long long ret);
/* The reader's lost-event listener (reader_on_lost(r, syspair_lost, j)). */
void syspair_lost(int cpu, long long n, void *ctx);

static inline void *syspair_data(struct syspair_call *c)
{
	return span_data(c);
}

/* The tracepoint syscalls:sys_<dir>_<call> (dir "enter" or "exit"), its format loaded;
 * NULL when this kernel has no such call or syscall events (CONFIG_FTRACE_SYSCALLS). */
struct tep_event *syspair_event(struct session *s, const char *dir, const char *call);

#endif
