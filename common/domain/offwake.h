/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * offwake: what offcputime, wakeuptime and offwaketime share. A task's time off the CPU
 * begins at its switch out (sched_switch, paired by thread in a span); the stacks recorded
 * after an event (ftrace's kernel_stack and user_stack trailers, tool_stacks) are read and cut
 * where the kernel's own frames end (the frames above __schedule, or try_to_wake_up, are the
 * tracepoint's and ftrace's); and times are summed by a pair of stacks (a blocked task's and
 * its waker's), counted by raw addresses on the per-event path and named once per pair.
 */
#ifndef FTT_OFFWAKE_H
#define FTT_OFFWAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/agg.h"
#include "count/prom.h"
#include "join/span.h"
#include "stream/folded.h"

struct ksyms;
struct sched_events;
struct span;
struct tep_event;
struct tep_format_field;
struct tep_record;

/* A task and its stacks at one event, each leaf first as the kernel records them. */
struct offwake_stack {
	char comm[16];
	int32_t tgid;
	int16_t nk, nu;
	unsigned long long k[FOLDED_KFRAMES], u[FOLDED_UFRAMES];
};

/* The stack events that follow the run's events, and where their kernel stacks start. */
struct offwake_trailers {
	struct tep_event *kev, *uev; /* NULL: that stack not recorded */
	struct tep_format_field *kcaller, *ucaller;
	const struct ksyms *ksyms;     /* NULL: the kernel stacks are kept whole */
	const char *top;	       /* the function the kernel stacks start at */
	unsigned long long top_ret[4]; /* its return addresses seen so far */
};

/* Sets tr up (zeroed first) for the stack events kev (kernel) and uev (user; NULL: that stack
 * not recorded), cutting the kernel stacks at top (the function they start at) found with
 * ksyms (NULL: kept whole). kev, uev, ksyms and top are kept, not copied. */
void offwake_trailers_init(struct offwake_trailers *tr, struct tep_event *kev,
			   struct tep_event *uev, const struct ksyms *ksyms, const char *top);
/* Reads the stacks that came with rec, by the trailers tr, into st's k/nk and u/nu (left as
 * they are when none came), the kernel's cut by offwake_stack_trim. The top's return
 * addresses are learnt by name once each, then compared as numbers. */
void offwake_stack_read(struct offwake_trailers *tr, const struct tep_record *rec,
			struct offwake_stack *st);
/* Cuts the kernel frames of st to start at tr's top function (the frames above it dropped),
 * when it is among the first 8; nothing without tr's ksyms and top. Its return addresses are
 * kept in tr (4 at most). */
void offwake_stack_trim(struct offwake_trailers *tr, struct offwake_stack *st);

/*
 * Takes one sched_switch record rec, of se's events (schedev.h), for tools that pair a switch
 * out with a later event by thread in s (SPAN_LOSS_ALL): each CPU's chain is followed (a task
 * switched in unseen forgets its start); the task switched in, when the run traces it, ends
 * its time off the CPU (end_next: span_end, its done() called; else only forgotten). Returns
 * the task switched out when the run traces it (the caller then begins its span), else -1.
 */
long long offwake_switch(struct sched_events *se, struct span *s, struct tep_record *rec,
			 bool end_next);

/* Times summed by a pair of stacks. */
struct offwake_sums {
	struct agg a;
	const struct ksyms *ksyms;
	bool reverse_b;	    /* the second stack printed leaf first (offwaketime's waker) */
	const char *top[2]; /* where each stack's kernel frames start (NULL: whole) */
	struct offwake_stack key[2];
};

/* Sets w up (zeroed first): kernel frames named with ksyms when printed (a late table,
 * ksym_load_late, is read then), each side's cut to start at top_a or top_b (NULL: kept
 * whole; as offwake_stack_trim), the second stack printed leaf first with reverse_b. ksyms,
 * top_a and top_b are kept, not copied. Returns 0, or -1 when out of memory (not said).
 * Frees: offwake_sums_free(w), also after -1. */
int offwake_sums_init(struct offwake_sums *w, const struct ksyms *ksyms, bool reverse_b,
		      const char *top_a, const char *top_b);
/* Adds ns under the pair (a, b) in w (NULL: an empty stack), counted once more; a new pair's
 * processes and user frames are named now, while they have their maps, its kernel frames at
 * its first visit. Returns 0, or -1 when out of memory (not said; a pair that could not be
 * named is left out of the lines until a later add names it). */
int offwake_add(struct offwake_sums *w, const struct offwake_stack *a,
		const struct offwake_stack *b, uint64_t ns);
/*
 * Visits each pair of w as one folded line, "A;--;B" (A: comm;user frames;kernel frames_[k],
 * root first; B the same, or reverse_b: frames leaf first then comm), pairs of the same names
 * merged, largest time first (then by line): fn(line, times counted, ns, ctx), ctx handed to
 * fn; line is w's, valid until offwake_reset or offwake_sums_free. Returns how many lines,
 * 0 also when out of memory (none visited, not said).
 */
size_t offwake_visit(struct offwake_sums *w,
		     void (*fn)(const char *line, uint64_t count, uint64_t ns, void *ctx),
		     void *ctx);
/*
 * Visits the frames of one stack of a visited line, s (len bytes: one side of ";--;"),
 * innermost first: its kernel frames (kernel, their _[k] left out) or its user frames.
 * leaf_first: s is written leaf first with its name last (reverse_b's second stack), else
 * name first. fn(f, n, ctx) for each, ctx handed to fn: f points into s, n bytes, still
 * escaped (folded_frame), not terminated.
 */
void offwake_frames(const char *s, size_t len, bool leaf_first, bool kernel,
		    void (*fn)(const char *f, size_t n, void *ctx), void *ctx);
/* Writes those frames of s (len bytes; leaf_first, kernel as above) as a JSON array on out,
 * each unescaped (folded_unescape), one longer than 255 bytes cut there. */
void offwake_json_frames(FILE *out, const char *s, size_t len, bool leaf_first, bool kernel);

/* sched:sched_waking: a wake-up recorded in the context of the task that wakes (4.3). */
struct offwake_waking {
	struct tep_event *ev;
	struct tep_format_field *pid, *comm;
};
struct session;
struct tool_run;
/* Loads sched_waking and its fields from the session s into w (zeroed first). Returns 0, or
 * -1 with one line on stderr (the tool's name first) naming what is missing. */
int offwake_waking_load(struct session *s, struct offwake_waking *w);
/* Takes a wake-up record rec of w's event, with se set up by offwake_trace. A woken task that
 * left this CPU unseen (schedev.h's chain) first forgets its start in sp. Returns the woken
 * thread when the run traces it, else -1. */
long long offwake_woken(struct sched_events *se, struct span *sp, const struct offwake_waking *w,
			struct tep_record *rec);
/*
 * In setup(), after tool_stacks, for t, the tool's run: the switches (se's) and wake-ups (w's)
 * enabled (not through tool_trace: its filter leaves this process's events out, and its
 * switches and wake-ups are others' times) and handed to on_switch and on_waking (ctx NULL);
 * the pairs by thread in s (SPAN_LOSS_ALL, data bytes each, done() at the end, ctx NULL);
 * under -p, -L and --cgroup the kernel records only the traced tasks' events
 * (set_event_pid), so the chains have gaps. Returns TOOL_OK, or TOOL_FAIL when an event
 * cannot be enabled (said on stderr) or out of memory.
 */
enum tool_code offwake_trace(struct tool_run *t, struct sched_events *se,
			     const struct offwake_waking *w, struct span *s, size_t data,
			     span_done_fn done,
			     void (*on_switch)(struct tep_record *rec, void *ctx),
			     void (*on_waking)(struct tep_record *rec, void *ctx));
/* Fills st with the waker of rec: its name as t, the tool's run, knows it, its process, its
 * stacks (read by tr; none when none came). */
void offwake_waker(struct tool_run *t, struct offwake_trailers *tr, const struct tep_record *rec,
		   struct offwake_stack *st);

/*
 * What wakeuptime and offwaketime print every interval and at the end, and how: --folded
 * (the lines as they are), --pprof FILE (also a profile of the blocked time, once), the
 * times of -m/-M; the tool's own text and JSON of one line by fn.
 */
struct offwake_output {
	struct offwake_sums sums;
	bool folded;
	const char *pprof;		 /* --pprof FILE */
	uint64_t min_ns, max_ns;	 /* -m, -M (0: none) */
	uint64_t start_wall, start_mono; /* when tracing began, for --pprof */
	uint64_t left_out;		 /* times outside -m/-M */
	void (*fn)(const char *line, uint64_t count, uint64_t ns, void *ctx);
	/* --prom: the times and counts by the two tasks' names, from the start; the label of
	 * the first stack's name and of the second's ("waker", "target"). */
	const char *label_a, *label_b;
	struct prom_set prom;
	uint64_t prom_lost; /* lines not in it: out of memory */
};
/* Checks the options of o with json (-j) and interval (0: none): the usage errors (opt_fail,
 * a line on stderr and exit 2): --folded with -j, -m above -M, --pprof with an interval. */
void offwake_output_check(const struct offwake_output *o, bool json, uint64_t interval);
/* Is ns within the -m/-M of o? Returns true when it is, else false (counted in left_out). */
bool offwake_output_keeps(struct offwake_output *o, uint64_t ns);
/* At setup: records in o the start times --pprof records. */
void offwake_output_start(struct offwake_output *o);
/* Prints the pairs of o counted since the last time: with an interval, the time now
 * (CLOCK_MONOTONIC ns) first in the text (not --folded); --pprof's file; --prom's (the totals
 * from the start); the lines (on standard output; in the text, none, the tool's words, when
 * there are none), then forgotten. t: the tool's run. Returns 0, or -1 when --pprof's file
 * cannot be written (said on stderr). */
int offwake_output_print(struct offwake_output *o, struct tool_run *t, uint64_t now,
			 const char *none);

/* Forgets every pair of w (each interval), their lines freed. */
void offwake_reset(struct offwake_sums *w);
/* Frees w (one zeroed, or whose init failed, too). */
void offwake_sums_free(struct offwake_sums *w);
/* Frees the sums of o and --prom's series. */
void offwake_output_free(struct offwake_output *o);

#endif
