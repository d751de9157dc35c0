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

/* A printer of the events of tep, to stdout. json: objects instead of lines; wallclock: a TIME
 * column (HH:MM:SS) first. Returns the printer, or NULL when out of memory. The caller frees
 * it with evprint_free(). */
struct evprint *evprint_new(struct tep_handle *tep, bool json, bool wallclock);
/*
 * Print the stacks that follow events (the reader's trailers): the kernel's with symbols
 * from ksyms (ftrace:kernel_stack, kstack), the user's named from the process's maps
 * (ftrace:user_stack, ustack). The events must be loaded in p's tep; either may be NULL (not
 * printed), and one without its caller field (ustack: or tgid) is not printed. ksyms is kept,
 * not copied: it must outlive p.
 */
void evprint_stacks(struct evprint *p, struct tep_event *kstack, struct ksyms *ksyms,
		    struct tep_event *ustack);
/* Kernel stacks printed by p start after the first frame whose function is one of names
 * (NULL-ended, kept: it must outlive p): the frames of the tracing itself, up to a return
 * probe's trampoline. */
void evprint_kstack_after(struct evprint *p, const char *const *names);
/*
 * Kernel stacks of ev printed by p start at the caller of the function it was taken in: the
 * field at holds the address of that (a kprobe's __probe_ip, the function tracer's ip). The
 * frames of the function itself and of the tracing before it (4.19's made-up first frame,
 * 6.x's trampoline marker 0x7fffffff) are left out. caller (may be NULL): a field with the
 * return address at the function's entry, shown first where the kernel's stack lacks it
 * (unwinding by frame pointers, it cannot see a caller before the function has made its
 * frame). The fields are kept, not copied. Returns 0, or -1 when out of memory.
 */
int evprint_kstack_from_caller(struct evprint *p, const struct tep_event *ev,
			       const struct tep_format_field *at,
			       const struct tep_format_field *caller);
/* Where the callers begin in a kernel stack a[0..n) taken at address at: after the frame of
 * the function at (a return address at most 16 bytes past at), if it is among the first three.
 * Returns that index, or 0 (none found, or at 0). */
int evprint_kstack_callers(const unsigned long long *a, int n, unsigned long long at);
/* With from (evprint_kstack_callers) past the function's own frame in a[0..n): caller put in
 * that frame's place unless it is a[from] already (from 0 or caller 0: nothing). Returns the
 * new start. */
int evprint_kstack_caller_first(unsigned long long *a, int n, int from, unsigned long long caller);
/* Print with p a kernel stack held elsewhere (n frames of a, innermost first), as the
 * trailers' are printed. */
void evprint_kstack(struct evprint *p, const unsigned long long *a, int n);
/* Set ev's name in p's -j objects ("event"): name (cut at 159 bytes), not SYSTEM:NAME (the
 * probes of a run's own group, whose system means nothing to the user). Returns 0, or -1 when
 * out of memory. */
int evprint_name(struct evprint *p, struct tep_event *ev, const char *name);
/* Print p's header row of the text layout (none in JSON). */
void evprint_header(struct evprint *p);
/* Print with p one event, rec (nothing when its event is not in p's tep), then its stacks;
 * comm: the name of its task when it happened. */
void evprint_event(struct evprint *p, struct tep_record *rec, const char *comm);
/* For the unit tests: -j's objects always through the row, not the one-buffer path. */
extern bool evprint_json_by_row;
/* Print with p only the stacks of rec (its trailers), as evprint_event prints them after its
 * line: " => " lines, or in JSON "stack" and "ustack" members for the object still open. The
 * event counts as printed for evprint_without_ustack. */
void evprint_trailers(struct evprint *p, struct tep_record *rec);
/* With a user stack event given to p: how many events were printed when none had a user
 * stack. Returns that count, or 0 when some had one (or p is NULL, or has no user stack
 * event). */
unsigned long long evprint_without_ustack(const struct evprint *p);
/* With n of them (what: "events", "calls"), the line on stderr, under tool's name, that says
 * so (none when n is 0): RHEL 8.1's 4.18 records no user stack for an instance's events, and
 * -U must not look like empty stacks. */
void evprint_say_without_ustack(const char *tool, const char *what, unsigned long long n);
/* Free p (NULL: nothing). */
void evprint_free(struct evprint *p);

/* The keys of the JSON objects, as row tables (for a tool's --json-keys and its page, struct
 * tool .rows): an event's, and the members evprint_trailers writes for its stacks. */
extern const struct row_table evprint_event_keys, evprint_kstack_keys, evprint_ustack_keys;

#endif
