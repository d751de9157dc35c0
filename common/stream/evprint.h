/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * evprint: any event as the kernel recorded it. Text: one line in the kernel's own layout
 * (the task's name, PID, CPU, time, the event and its fields as its print format renders
 * them), escaped so that no string in it can split the line or reach the terminal as a
 * control sequence; then its stacks. JSON: one object per event, every field by its type
 * (field.h), its stacks as fields.
 */
#ifndef FTT_EVPRINT_H
#define FTT_EVPRINT_H

#include <stdbool.h>

struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;
struct ksyms;
struct evprint;
struct row_table;

/* json: objects instead of lines; wallclock: a TIME column (HH:MM:SS) first. */
struct evprint *evprint_new(struct tep_handle *tep, bool json, bool wallclock);
/*
 * Print the stacks that follow events (the reader's trailers): the kernel's with symbols
 * from ksyms (ftrace:kernel_stack), the user's named from the process's maps
 * (ftrace:user_stack). The events must be loaded in tep.
 */
void evprint_stacks(struct evprint *p, struct tep_event *kstack, struct ksyms *ksyms,
		    struct tep_event *ustack);
/* Kernel stacks start after the first frame whose function is one of names (NULL-ended):
 * the frames of the tracing itself, up to a return probe's trampoline. */
void evprint_kstack_after(struct evprint *p, const char *const *names);
/*
 * Kernel stacks of ev start at the caller of the function it was taken in: the field at
 * holds the address of that (a kprobe's __probe_ip, the function tracer's ip). The frames of
 * the function itself and of the tracing before it (4.19's made-up first frame, 6.x's
 * trampoline marker 0x7fffffff) are left out. caller (may be NULL): a field with the return
 * address at the function's entry, shown first where the kernel's stack lacks it (unwinding
 * by frame pointers, it cannot see a caller before the function has made its frame). -1
 * when out of memory.
 */
int evprint_kstack_from_caller(struct evprint *p, const struct tep_event *ev,
			       const struct tep_format_field *at,
			       const struct tep_format_field *caller);
/* Where the callers begin in a kernel stack a[0..n) taken at address at: after the frame of
 * the function at, if it is among the first three; else 0. */
int evprint_kstack_callers(const unsigned long long *a, int n, unsigned long long at);
/* With from (evprint_kstack_callers) past the function's own frame: caller put in that frame's
 * place unless it is a[from] already; the new start. */
int evprint_kstack_caller_first(unsigned long long *a, int n, int from, unsigned long long caller);
/* A kernel stack held elsewhere (n frames of a, innermost first), as the trailers' are
 * printed. */
void evprint_kstack(struct evprint *p, const unsigned long long *a, int n);
/* ev's name in -j's objects ("event"): name, not SYSTEM:NAME (the probes of a run's own
 * group, whose system means nothing to the user). -1 when out of memory. */
int evprint_name(struct evprint *p, struct tep_event *ev, const char *name);
/* The header row of the text layout. */
void evprint_header(struct evprint *p);
/* One event; comm: the name of its task when it happened. */
void evprint_event(struct evprint *p, struct tep_record *rec, const char *comm);
/* For the unit tests: -j's objects always through the row, not the one-buffer path. */
extern bool evprint_json_by_row;
/* Only the stacks of rec (its trailers), as evprint_event prints them after its line: " => "
 * lines, or in JSON "stack" and "ustack" members for the object still open. */
void evprint_trailers(struct evprint *p, struct tep_record *rec);
/* With a user stack event given: how many events were printed when none had a user stack
 * (0 when some had one). */
unsigned long long evprint_without_ustack(const struct evprint *p);
/* With n of them (what: "events", "calls"), the line on stderr that says so: RHEL 8.1's 4.18
 * records no user stack for an instance's events, and -U must not look like empty stacks. */
void evprint_say_without_ustack(const char *tool, const char *what, unsigned long long n);
void evprint_free(struct evprint *p);

/* The keys of the JSON objects, as row tables (for a tool's --json-keys and its page, struct
 * tool .rows): an event's, and the members evprint_trailers writes for its stacks. */
extern const struct row_table evprint_event_keys, evprint_kstack_keys, evprint_ustack_keys;

#endif
