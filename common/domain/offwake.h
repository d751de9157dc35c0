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

void offwake_trailers_init(struct offwake_trailers *tr, struct tep_event *kev,
			   struct tep_event *uev, const struct ksyms *ksyms, const char *top);
/* The stacks that came with rec into st's k/nk and u/nu (left as they are when none came).
 * The top's return addresses are learnt by name once each, then compared as numbers. */
void offwake_stack_read(struct offwake_trailers *tr, const struct tep_record *rec,
			struct offwake_stack *st);
/* The kernel frames of st from tr's top function on (the frames above it dropped). */
void offwake_stack_trim(struct offwake_trailers *tr, struct offwake_stack *st);

/*
 * One sched_switch record, for tools that pair a switch out with a later event by thread in
 * s (SPAN_LOSS_ALL): each CPU's chain is followed (a task switched in unseen forgets its
 * start); the task switched in ends its time off the CPU (end_next: span_end, its done()
 * called; else only forgotten). Returns the task switched out when the run traces it (the
 * caller then begins its span), else -1.
 */
long long offwake_switch(struct sched_events *se, struct span *s, struct tep_record *rec,
			 bool end_next);

/* Times summed by a pair of stacks. */
struct offwake_sums {
	struct agg a;
	const struct ksyms *ksyms;
	bool reverse_b; /* the second stack printed leaf first (offwaketime's waker) */
	struct offwake_stack key[2];
};

int offwake_sums_init(struct offwake_sums *w, const struct ksyms *ksyms, bool reverse_b);
/* ns more under the pair (a, b), counted once more; -1 when out of memory. */
int offwake_add(struct offwake_sums *w, const struct offwake_stack *a,
		const struct offwake_stack *b, uint64_t ns);
/*
 * Each pair as one folded line, "A;--;B" (A: comm;user frames;kernel frames_[k], root first;
 * B the same, or reverse_b: frames leaf first then comm), pairs of the same names merged,
 * largest time first (then by line): fn(line, times counted, ns). Returns how many.
 */
size_t offwake_visit(struct offwake_sums *w,
		     void (*fn)(const char *line, uint64_t count, uint64_t ns, void *ctx),
		     void *ctx);
/*
 * The frames of one stack of a visited line, s (len bytes: one side of ";--;"), innermost
 * first: its kernel frames (kernel, their _[k] left out) or its user frames. leaf_first: s
 * is written leaf first with its name last (reverse_b's second stack), else name first.
 */
void offwake_frames(const char *s, size_t len, bool leaf_first, bool kernel,
		    void (*fn)(const char *f, size_t n, void *ctx), void *ctx);
/* Those frames as a JSON array on out, each unescaped (folded_unescape). */
void offwake_json_frames(FILE *out, const char *s, size_t len, bool leaf_first, bool kernel);

/* sched:sched_waking: a wake-up recorded in the context of the task that wakes (4.3). */
struct offwake_waking {
	struct tep_event *ev;
	struct tep_format_field *pid, *comm;
};
struct session;
struct tool_run;
/* Loaded into w; -1 with one line on stderr (the tool's name first) naming what is missing. */
int offwake_waking_load(struct session *s, struct offwake_waking *w);
/* A wake-up record: the woken thread when the run traces it, else -1. A woken task that
 * left this CPU unseen (schedev.h's chain) first forgets its start in sp. */
long long offwake_woken(struct sched_events *se, struct span *sp, const struct offwake_waking *w,
			struct tep_record *rec);
/*
 * In setup(), after tool_stacks: the switches and wake-ups enabled (not through tool_trace:
 * its filter leaves this process's events out, and its switches and wake-ups are others'
 * times) and handed to on_switch and on_waking; the pairs by thread in s (SPAN_LOSS_ALL, data
 * bytes each, done() at the end); under -p, -L and --cgroup the kernel records only the
 * traced tasks' events (set_event_pid), so the chains have gaps. A TOOL_ status.
 */
int offwake_trace(struct tool_run *t, struct sched_events *se, const struct offwake_waking *w,
		  struct span *s, size_t data, span_done_fn done,
		  void (*on_switch)(struct tep_record *rec, void *ctx),
		  void (*on_waking)(struct tep_record *rec, void *ctx));
/* The waker of rec: its name as the run knows it, its process, its stacks (tr). */
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
/* The usage errors of those options (opt_fail): --folded with -j, -m above -M, --pprof
 * with an interval. */
void offwake_output_check(const struct offwake_output *o, bool json, uint64_t interval);
/* Is ns within -m/-M? (counted when not) */
bool offwake_output_keeps(struct offwake_output *o, uint64_t ns);
/* At setup: the start times --pprof records. */
void offwake_output_start(struct offwake_output *o);
/* The pairs counted since the last time: --pprof's file (a failure said, -1), --prom's (the
 * totals from the start), the lines (on standard output; "none" when there are none, in the
 * text), then forgotten. */
int offwake_output_print(struct offwake_output *o, struct tool_run *t, uint64_t now,
			 const char *none);

/* Forget every pair (each interval). */
void offwake_reset(struct offwake_sums *w);
void offwake_sums_free(struct offwake_sums *w);
/* The sums and --prom's series freed. */
void offwake_output_free(struct offwake_output *o);

#endif
