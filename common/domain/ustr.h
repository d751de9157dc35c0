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
 * fetch syntax ("%di" on x86_64, "%x0" on arm64). Returns it (static storage), or NULL when
 * unknown on this architecture (or n is not 1 to 6).
 */
const char *ustr_arg_reg(int n);
/* A fetch-argument template tmpl with $1..$6 for the function's arguments, expanded to the
 * registers into out, len bytes ("file=+0($2):string" -> "file=+0(%si):string"). Returns 0,
 * or -1 when a register is unknown here ($7 to $9 too) or out is too small (then out is not
 * NUL-terminated). */
int ustr_expand(const char *tmpl, char *out, size_t len);

/* Rung 1: a kernel function that has the string, with its fetch arguments. */
struct ustr_kfunc {
	char type; /* 'p' entry, 'r' return */
	const char *func;
	const char *args;
};
/* The first of fs (n of them) that the kernel lets us probe, made in session s as event
 * name; *which: its index (set only when one is made). A refusal is not said on stderr (out of
 * memory and a format that cannot be read are). Returns the event, owned by s's tep (valid
 * while s lives), or NULL when none (no kprobes, or no such function here). */
struct tep_event *ustr_kprobe(struct session *s, const char *name, const struct ustr_kfunc *fs,
			      int n, int *which);

/* Rung 2: an eprobe named name on syscalls:sys_enter_<call> with args, made in session s; a
 * refusal is not said, as with ustr_kprobe. Returns the event, owned by s's tep (valid while s
 * lives), or NULL when refused (eprobes need Linux 5.15 and CONFIG_EPROBE_EVENTS). */
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
 * A uprobe in session s on each of fs (n of them, at most 64 made) that the C library has,
 * once per address (aliases share one: the first name listed): made(event, index, ctx) for
 * each; lib (liblen bytes) gets the library's path. Returns how many, or -1 with the reason
 * in *why (static text): no uprobes, no shared C library, an argument register not known
 * here, a uprobe the kernel refused (those made before it stay made, made called for them),
 * or none of the functions in the C library.
 */
int ustr_uprobes(struct session *s, const struct ustr_func *fs, int n,
		 void (*made)(struct tep_event *ev, int i, void *ctx), void *ctx, char *lib,
		 size_t liblen, const char **why);

/*
 * The companion of a uprobe's fetches tmpl, into out (len bytes, at least 1):
 * "s0=+0($2):string s1=+0($4):string" gives "p0=$2:u64 p1=$4:u64", the strings' addresses
 * alone (a fetch of another form is left out). A record longer than a trace event holds is
 * not written at all (6.18: a uprobe's record over 4072 bytes, so a path of about 4,050 bytes
 * or more): a second probe on the same function, whose record is always small, says the call
 * was made and where its strings were. Returns 0, or -1 when out is too small.
 */
int ustr_bare_args(const char *tmpl, char *out, size_t len);

/* len bytes of task tid's memory at `at` into buf: process_vm_readv, or /proc/TID/mem where
 * the kernel has no CONFIG_CROSS_MEMORY_ATTACH (the 4.x guests). Returns how many bytes were
 * read (fewer than len when the memory ends before), or -1 (errno set) when it cannot be
 * read. */
ssize_t ustr_caller_memory(int tid, uint64_t at, char *buf, size_t len);
/*
 * A string no probe could read (longer than a trace event holds, or than the kernel copies),
 * read from the caller's memory after the call, while it is still there: thread tid's, at
 * address at. Its first size - 1 bytes into buf (NUL-terminated), *len its length to its NUL
 * (SIZE_MAX: 128 KB or more, the kernel's MAX_ARG_STRLEN, or unreadable past the prefix).
 * Returns true, or false when the caller is gone or the memory unreadable (buf and *len
 * untouched).
 */
bool ustr_read_late(int tid, uint64_t at, char *buf, size_t size, size_t *len);

#endif
