/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * probe: kprobes, uprobes and eprobes owned by one run. They live in the group ftt_<run id>
 * (runid.h: PID, start time, random), so a later run can tell which ones a killed run
 * left behind; they are removed on every exit path, after the instance (an enabled probe
 * cannot be removed), and by the signal module's emergency steps when the process dies.
 */
#ifndef FTT_PROBE_H
#define FTT_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/session.h"

struct session;
struct tep_event;
struct tep_format_field;

/* Event probes (eprobes, Linux 5.15) attach to a tracepoint and live in dynamic_events. */
enum probe_kind { PROBE_KPROBE, PROBE_UPROBE, PROBE_EPROBE, PROBE_KINDS };

/* Is this kind of probe available? When not, say which CONFIG_ option is missing. */
bool probe_available(struct session *s, enum probe_kind kind, bool quiet);

/* RHEL 8.1's 4.18 (4.18.0-*.el8*): a kprobe whose string fetches add up to more than an
 * event holds (execve's arguments, 2 x 3,000 bytes) corrupts the kernel's memory, a crash
 * moments later (seen four times in its guest; 4.9 to 4.19 upstream and 5.x do not). A
 * rung that reads several strings in one kprobe is not used there. */
bool probe_many_strings_unsafe(void);

/*
 * Create a probe from a kernel definition without its name: "p FUNC args", "r FUNC args",
 * "p /bin/bash:0x1234 args", "e syscalls.sys_enter_openat args". On rejection, print the
 * kernel's own explanation (error_log) and return NULL. The event's format is loaded into
 * the session's tep.
 */
struct tep_event *probe_create(struct session *s, enum probe_kind kind, char type, const char *name,
			       const char *target, const char *args);
/* The same, silent on rejection: for tools that try one mechanism after another. */
struct tep_event *probe_try(struct session *s, enum probe_kind kind, char type, const char *name,
			    const char *target, const char *args);

/*
 * A kprobe with one more fetch argument, the last of args, that the tool reads itself: the
 * field hide is taken out of the event as the session knows it (its print format, its
 * fields: text, JSON, -k), and its place in the record given in *hidden (hidden->name NULL
 * when the format was not as expected: then it stays in sight). As probe_create otherwise.
 */
struct tep_event *probe_create_hiding(struct session *s, char type, const char *name,
				      const char *target, const char *args, const char *hide,
				      struct tep_format_field *hidden);
/* The text of that: fmt (*len bytes, NUL after them) without the field's line and its part of
 * the print fmt; its offset and size in *field. 0, or -1 (fmt unchanged) when not found. */
int probe_format_hide(char *fmt, size_t *len, const char *name, struct tep_format_field *field);

/* The format fmt with its s8 and s16 fields printed as %hhd and %hd (the kernel's print fmt
 * has %d: libtraceevent 1.7 would print -100 as 156), in a new string; NULL when it has none
 * (or out of memory: then as the kernel wrote it). */
char *probe_format_small_signed(const char *fmt);

/*
 * The probe syntax this kernel lacks, from its tracefs README (read once): PROBE_NO_ARGN,
 * $argN (Linux 4.20); PROBE_NO_USER, +u and :ustring (Linux 5.5); PROBE_NO_REFCTR, a uprobe's
 * reference counter PATH:OFF(REF) that raises a USDT semaphore (Linux 4.20); PROBE_NO_IMM,
 * immediate fetch arguments \\VALUE (Linux 5.7).
 */
#define PROBE_NO_ARGN 1u
#define PROBE_NO_USER 2u
#define PROBE_NO_REFCTR 4u
#define PROBE_NO_IMM 8u
unsigned probe_syntax_missing(void);
/*
 * args given in the syntax of a kernel that lacks `missing`: $argN as this architecture's
 * argument registers at a function's entry (x86-64, arm64; $stackN beyond them), and on x86
 * +uOFF( as +OFF( and :ustring as :string (reads by those kernels reach user memory; a
 * uprobe's always do).
 * Returns 1 when rewritten into out, 0 when nothing needed it, -1 with the reason in why
 * when a part cannot be given (an $argN on a return probe or at an offset).
 */
int probe_args_compat(const char *args, char type, const char *target, unsigned missing,
		      bool uprobe, char *out, size_t len, char *why, size_t whylen);

/* Is this event one of this run's uprobes? (They fire in process context only.) */
bool probe_is_uprobe(const struct session *s, const struct tep_event *ev);

/*
 * The kernel's hit counts of every kprobe (kprobe_profile: hits and missed) or uprobe
 * (uprobe_profile: hits): fn(name, hits, missed, ctx) per probe, its name without a group
 * (the files show none on most kernels: a run names its probes apart). -1 when the file
 * cannot be read.
 */
typedef void (*probe_profile_fn)(const char *name, unsigned long long hits,
				 unsigned long long missed, void *ctx);
int probe_profile(enum probe_kind kind, probe_profile_fn fn, void *ctx);

/* The group of this run: ftt_<run id>. */
const char *probe_group(void);

/*
 * A probe as perf-tools writes it: 'p:[alias] TARGET [args]' or 'r:...'. An alias is
 * present when a second word follows that does not look like a fetch argument. Returns 0,
 * or -1 with the reason in why. args points into def (may be "").
 */
struct probe_def {
	char type; /* 'p' or 'r' */
	char alias[64];
	char target[512];
	const char *args;
};
int probe_parse(const char *def, struct probe_def *pd, char *why, size_t whylen);
/* The alias used when none is given: the symbol's name, "_ret" appended for return probes. */
void probe_default_alias(const char *sym, char type, char *alias, size_t len);

/* A probe alias must be a valid event name: [A-Za-z_][A-Za-z0-9_]*, at most 63 chars. */
bool probe_name_valid(const char *name);

#endif
