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

/* Is this kind of probe available (its events file at the top level)? Returns true if so
 * (for eprobes only creating one tells: dynamic_events comes with kprobes or uprobes alone);
 * false when not, and unless quiet, says on stderr (prefixed with the tool of s) which
 * CONFIG_ option is missing. */
bool probe_available(struct session *s, enum probe_kind kind, bool quiet);

/* RHEL 8.1's 4.18 (4.18.0-*.el8*): a kprobe whose string fetches add up to more than an
 * event holds (execve's arguments, 2 x 3,000 bytes) corrupts the kernel's memory, a crash
 * moments later (seen four times in its guest; 4.9 to 4.19 upstream and 5.x do not). A
 * rung that reads several strings in one kprobe is not used there. Returns true on such a
 * kernel (its release 4.18.0-*.el8*). */
bool probe_many_strings_unsafe(void);

/*
 * Create a probe of kind, named name in this run's group, from a kernel definition without
 * its name: type, target and args, as in "p FUNC args", "r FUNC args", "p /bin/bash:0x1234
 * args", "e syscalls.sys_enter_openat args" (args may be NULL). On an older kernel, args are
 * first given in its syntax (probe_args_compat), said on stderr. On rejection, print the
 * kernel's own explanation (error_log; without one, the part it refuses, found by trying). The
 * event's format is loaded into the tep of s, the session's; the probe is removed with s,
 * after its instance. Returns the event, owned by that tep (valid until session_close(s)), or
 * NULL with a message on stderr (the probe stays made, to be removed, when only its format
 * failed).
 */
struct tep_event *probe_create(struct session *s, enum probe_kind kind, char type, const char *name,
			       const char *target, const char *args);
/* The same, with s, kind, type, name, target and args, silent on rejection: for tools that try
 * one mechanism after another (out of memory and a format that cannot be read are still
 * said). Returns the event, owned by the tep of s (valid until session_close(s)), or NULL. */
struct tep_event *probe_try(struct session *s, enum probe_kind kind, char type, const char *name,
			    const char *target, const char *args);

/*
 * A kprobe with one more fetch argument, the last of args, that the tool reads itself: the
 * field hide is taken out of the event as the session knows it (its print format, its
 * fields: text, JSON, -k), and its place in the record given in *hidden, cleared first
 * (hidden->name NULL when the format was not as expected: then it stays in sight;
 * hidden->name is hide itself). As probe_create otherwise, with s, type, name and target.
 * Returns the event, owned by the tep of s (valid until session_close(s)), or NULL.
 */
struct tep_event *probe_create_hiding(struct session *s, char type, const char *name,
				      const char *target, const char *args, const char *hide,
				      struct tep_format_field *hidden);
/* The text of that: fmt (*len bytes, NUL after them) without the line of the field name and
 * its part of the print fmt; its offset and size in *field (field->name is name). Returns 0
 * with *len the new length, or -1 (fmt unchanged) when not found; *field may be filled in
 * even then, when the field's line was found and its print fmt part was not. */
int probe_format_hide(char *fmt, size_t *len, const char *name, struct tep_format_field *field);

/* The format fmt with its s8 and s16 fields printed as %hhd and %hd (the kernel's print fmt
 * has %d: libtraceevent 1.7 would print -100 as 156). Returns a new string, the caller frees
 * it with free(); NULL when it has none (or out of memory: then as the kernel wrote it). */
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
/* Read what this kernel lacks of that syntax (once; later calls give the same). Returns the
 * PROBE_NO_ bits (0 when the README cannot be read). */
unsigned probe_syntax_missing(void);
/*
 * args given in the syntax of a kernel that lacks `missing`: $argN as this architecture's
 * argument registers at a function's entry (x86-64, arm64; $stackN beyond them), and on x86
 * +uOFF( as +OFF( and :ustring as :string (reads by those kernels reach user memory; a
 * uprobe's always do). type ('p', 'r') and target are the probe's; uprobe: it is one.
 * Returns 1 when rewritten into out (len bytes), 0 when nothing needed it (out then holds
 * args), -1 with the reason in why, whylen bytes, when a part cannot be given (an $argN on a
 * return probe, at an offset or on a system call's wrapper, whose arguments are in struct
 * pt_regs; user memory out of reach) or out is too short.
 */
int probe_args_compat(const char *args, char type, const char *target, unsigned missing,
		      bool uprobe, char *out, size_t len, char *why, size_t whylen);

/* Is ev, an event, one of the uprobes of s, this run's? (They fire in process context only.)
 * Returns true if so. */
bool probe_is_uprobe(const struct session *s, const struct tep_event *ev);

typedef void (*probe_profile_fn)(const char *name, unsigned long long hits,
				 unsigned long long missed, void *ctx);
/*
 * The kernel's hit counts of every kprobe (kprobe_profile: hits and missed) or uprobe
 * (uprobe_profile: hits), by kind: fn(name, hits, missed, ctx) per probe, its name without a
 * group (the files show none on most kernels: a run names its probes apart). Returns 0, or -1
 * when the file cannot be read (eprobes have none: -1).
 */
int probe_profile(enum probe_kind kind, probe_profile_fn fn, void *ctx);

/* The group of this run: ftt_<run id>. Returns it, in static storage (made at the first
 * call). */
const char *probe_group(void);

/* A probe as perf-tools writes it, parsed (probe_parse). */
struct probe_def {
	char type; /* 'p' or 'r' */
	char alias[64];
	char target[512];
	const char *args;
};
/*
 * Parse def, a probe as perf-tools writes it: 'p:[alias] TARGET [args]' or 'r:...', into pd
 * (cleared first). An alias is present when a second word follows that does not look like a
 * fetch argument; it must be valid (probe_name_valid). A quoted part or a backslash joins
 * spaces into a word. Returns 0, or -1 with the reason in why, whylen bytes. pd->args points
 * into def (may be ""): valid as long as def is.
 */
int probe_parse(const char *def, struct probe_def *pd, char *why, size_t whylen);
/* The alias used when none is given, into alias (len bytes, 10 at least): the name of sym up
 * to a '+' or '@', other characters than letters, digits and _ as _ ("probe" when that is
 * empty or starts with a digit), "_ret" appended for return probes (type 'r'). */
void probe_default_alias(const char *sym, char type, char *alias, size_t len);

/* A probe alias must be a valid event name: [A-Za-z_][A-Za-z0-9_]*, at most 63 chars.
 * Returns true when name is one. */
bool probe_name_valid(const char *name);

#endif
