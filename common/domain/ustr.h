/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustr: strings in user memory that system calls take (paths, arguments), read by the best
 * mechanism the kernel offers, the rungs of a ladder a tool climbs down:
 *   1. a kprobe on the kernel function that has copied the string (kprobes,
 *      CONFIG_KPROBE_EVENTS: the string as the kernel used it);
 *   2. event probes on the syscall's entry tracepoint reading user memory (eprobes, 5.15+,
 *      CONFIG_EPROBE_EVENTS);
 *   3. uprobes on the C library's wrappers (CONFIG_UPROBE_EVENTS): calls that do not go
 *      through the C library (static programs, the dynamic loader) are not seen.
 * The tool says what to probe at each rung; this module makes the probes, with the argument
 * registers of the machine's ABI. The tool climbs the rungs with ladder.h.
 */
#ifndef FTT_USTR_H
#define FTT_USTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct session;
struct tep_event;

enum ustr_via { USTR_KPROBE, USTR_EPROBE, USTR_UPROBE, USTR_BEST };
extern const char *const ustr_via_names[USTR_BEST];

/*
 * The register of a C function's n-th integer argument (1-based) at its entry, in probe
 * fetch syntax ("%di" on x86_64, "%x0" on arm64); NULL when unknown on this architecture.
 */
const char *ustr_arg_reg(int n);
/* A fetch-argument template with $1..$6 for the function's arguments, expanded to the
 * registers ("file=+0($2):string" -> "file=+0(%si):string"); -1 when unknown here. */
int ustr_expand(const char *tmpl, char *out, size_t len);

/* Rung 1: a kernel function that has the string, with its fetch arguments. */
struct ustr_kfunc {
	char type; /* 'p' entry, 'r' return */
	const char *func;
	const char *args;
};
/* The first of fs that the kernel lets us probe, as event name; *which: its index. NULL when
 * none (no kprobes, or no such function here). */
struct tep_event *ustr_kprobe(struct session *s, const char *name, const struct ustr_kfunc *fs,
			      int n, int *which);

/* Rung 2: an eprobe named name on syscalls:sys_enter_<call> with args; NULL when refused
 * (eprobes need Linux 5.15 and CONFIG_EPROBE_EVENTS). */
struct tep_event *ustr_eprobe(struct session *s, const char *name, const char *call,
			      const char *args);

/* Rung 3: C library functions, args a template of ustr_expand; the event is named after the
 * function unless name is set (two probes on one function). */
struct ustr_func {
	const char *sym;
	const char *args;
	const char *name;
};
/*
 * A uprobe on each of fs that the C library has, once per address (aliases share one:
 * the first name listed): made(event, index, ctx) for each; returns how many, or -1 (with
 * the reason in why) when there is no shared C library or no uprobes.
 */
int ustr_uprobes(struct session *s, const struct ustr_func *fs, int n,
		 void (*made)(struct tep_event *ev, int i, void *ctx), void *ctx, char *lib,
		 size_t liblen, const char **why);

/*
 * The companion of a uprobe's fetches: "s0=+0($2):string s1=+0($4):string" gives
 * "p0=$2:u64 p1=$4:u64", the strings' addresses alone. A record longer than a trace event
 * holds is not written at all (6.18: a uprobe's record over 4072 bytes, so a path of about
 * 4,050 bytes or more): a second probe on the same function, whose record is always small,
 * says the call was made and where its strings were. -1 when out is too small.
 */
int ustr_bare_args(const char *tmpl, char *out, size_t len);

/* len bytes of task tid's memory at `at` into buf: process_vm_readv, or /proc/TID/mem where
 * the kernel has no CONFIG_CROSS_MEMORY_ATTACH (the 4.x guests); -1 when it cannot be read. */
ssize_t ustr_caller_memory(int tid, uint64_t at, char *buf, size_t len);
/*
 * A string no probe could read (longer than a trace event holds, or than the kernel copies),
 * read from the caller's memory after the call, while it is still there: its first size - 1
 * bytes into buf (NUL-terminated), *len its length to its NUL (SIZE_MAX: 128 KB or more, the
 * kernel's MAX_ARG_STRLEN, or unreadable past the prefix). false when the caller is gone or
 * the memory unreadable.
 */
bool ustr_read_late(int tid, uint64_t at, char *buf, size_t size, size_t *len);

#endif
