/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysarg: system calls whole, with the strings they take from user memory (paths, a file
 * system's type, mount options): the numbers from the syscall's entry tracepoint, the result
 * from its exit, the strings from the best rung of the ladder of ustr.h the kernel offers:
 *   kprobe  the syscall's own function at its entry (__x64_sys_NAME since Linux 4.17, its
 *           arguments in the saved user registers; sys_NAME before), reading user memory;
 *   eprobe  an event probe on syscalls:sys_enter_NAME (5.15+, CONFIG_EPROBE_EVENTS) with
 *           the numbers and the strings;
 *   uprobe  the C library's functions (CONFIG_UPROBE_EVENTS): only calls made through them
 *           have their strings.
 * Every call is shown, with the strings no rung could read as unknown (counted: not
 * through the C library on rung 3, a bad address).
 * Joined per thread (syspair.h): a loss of events forgets every call in progress. statsnoop
 * and mountsnoop.
 *
 * A tool lists its calls and, for each, which of its arguments are strings (by the entry
 * tracepoint's field names); string i of a call is kept in slot i. Its C library functions
 * name their string fetches s0, s1, ... by slot ("s0=+0($2):string").
 */
#ifndef FTT_SYSARG_H
#define FTT_SYSARG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "join/syspair.h"
#include "domain/ustr.h"

struct tool_run;
struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;

#define SYSARG_MAX_CALLS 16
#define SYSARG_MAX_STRS 4   /* string arguments of one call */
#define SYSARG_MAX_ARGS 6   /* a system call's arguments */
#define SYSARG_MAX_FUNCS 24 /* C library functions */

/* A system call: its name as the tracepoints have it ("newfstatat"), and its string
 * arguments, the entry tracepoint's field names, comma-separated ("dev_name,dir_name"). */
struct sysarg_call {
	const char *name;
	const char *strs;
};

/* A call as its exit found it. */
struct sysarg_done {
	int call;	   /* index in the tool's calls */
	uint64_t enter_ns; /* its entry's time (0 when only its exit was seen) */
	bool have_args;	   /* the entry was seen: args[] hold its arguments */
	long long args[SYSARG_MAX_ARGS];
	long long ret;
};

typedef void (*sysarg_fn)(const struct tep_record *exit, int tid, const struct sysarg_done *d,
			  void *ctx);

struct sysarg_ev; /* what one event of the run gives (sysarg.c) */

struct sysarg {
	/* Set by the tool before sysarg_setup. */
	const struct sysarg_call *calls;
	int ncalls;
	const struct ustr_func *funcs; /* rung 3: C library functions, NULL: none */
	int nfuncs;
	size_t str_size;     /* bytes kept per string (with its NUL): PATH_MAX for paths */
	size_t threads;	     /* calls in progress at once, about */
	enum ustr_via via;   /* --via: the rung asked for, or USTR_BEST */
	const char *strings; /* what the strings are, in messages: "paths" */
	/* Set by sysarg_setup. */
	char what[PATH_MAX + 128]; /* how the strings are read, for the banner */
	char lib[PATH_MAX];
	struct syspair join;
	int nstrs[SYSARG_MAX_CALLS];			/* string arguments of each call */
	int str_arg[SYSARG_MAX_CALLS][SYSARG_MAX_STRS]; /* their argument index, 0-based */
	struct sysarg_ev *evs;
	int nevs;
	/* Rung 3: each function's companion probe, the strings' addresses alone
	 * (ustr_bare_args): the call is known made through the C library when its string
	 * was too long for a trace event. */
	struct ustr_func bare[SYSARG_MAX_FUNCS];
	char bare_args[SYSARG_MAX_FUNCS][96], bare_names[SYSARG_MAX_FUNCS][64];
	uint64_t stringless; /* calls shown with a string not read (its pointer not NULL) */
	uint64_t faulted;    /* of those, made through the C library: a bad address */
	uint64_t toolong;    /* strings too long for an event, not read after the call either */
	int exit_call;	     /* of the exit being joined */
	bool failed_trace;
	struct tool_run *t;
	struct tep_handle *tep;
	sysarg_fn fn;
	void *ctx;
};

/*
 * In setup(): climb the ladder (sa->via, or the best rung), trace each call's entry, string
 * event and exit, and call fn(exit, tid, done, ctx) for each call that ends (t: the tool's
 * run; ctx: handed to fn). A kernel without the calls' syscall tracepoints is said
 * (CONFIG_FTRACE_SYSCALLS); a chosen rung that is not here is said by ladder_climb. Returns a
 * TOOL_ status (TOOL_OK when set up); sa->via is the rung in use. Frees: sysarg_free(sa).
 */
enum tool_code sysarg_setup(struct sysarg *sa, struct tool_run *t, sysarg_fn fn, void *ctx);

/* String slot i of the call being done, d (the call handed to fn). Returns NULL when no rung
 * read it (not made through the C library, the read faulted) or i is not a slot (*len then
 * untouched); else its bytes, NUL-terminated, *len of them (cut at sa->str_size - 1), in the
 * call's memory: valid until fn returns. */
const char *sysarg_str(const struct sysarg *sa, const struct sysarg_done *d, int i, size_t *len);

/* What is known of string slot i beyond its bytes. */
struct sysarg_strinfo {
	bool cut;    /* longer than what is held (nothing held: too long for a trace event) */
	size_t len;  /* its length in bytes, SIZE_MAX when not known */
	bool late;   /* read from the caller's memory after the call */
	bool pieced; /* held is what a uprobe read in pieces (strpieces.h), its first bytes */
};
/* What sa knows of string slot i of call d (the call handed to fn) beyond its bytes, into
 * info. Its len is the bytes held when whole, the length as passed when cut (SIZE_MAX: not
 * known), but 0 when no rung read it and it is not known cut; i not a slot: nothing known
 * (len SIZE_MAX). */
void sysarg_str_info(const struct sysarg *sa, const struct sysarg_done *d, int i,
		     struct sysarg_strinfo *info);

/* At the end, on stderr: the calls shown with a string not read, and why (nothing when none);
 * sa set up by sysarg_setup (its tool's name is taken). */
void sysarg_report(const struct sysarg *sa);
/* What sysarg_setup or sysarg_init allocated in sa freed: its calls in progress and its events'
 * parts. A zeroed sa, or one freed already, may be freed. */
void sysarg_free(struct sysarg *sa);

/* For the unit tests: the parts of sysarg_setup without a tool, then each event's part
 * (sysarg_ev), whose records go to sysarg_on_event. sa: its calls, str_size and threads as
 * set by the tool; tool: the name in messages; tep: the handle the records are read with;
 * enter: the calls' entry events (NULL: not in this kernel), which give their string
 * arguments' places; fn(exit, tid, done, ctx) for each call that ends. Returns 0, or -1: more
 * than SYSARG_MAX_CALLS calls; a string argument its entry has not, or more than
 * SYSARG_MAX_STRS (said on stderr, both as "has no argument"); out of memory.
 * Frees: sysarg_free(sa), after -1 too. */
int sysarg_init(struct sysarg *sa, const char *tool, struct tep_handle *tep,
		struct tep_event *const *enter, sysarg_fn fn, void *ctx);
/* What an event adds to its thread's call: the entry tracepoint (numbers), a probe on the
 * syscall's function (the strings), an event probe (both), a C library function (the strings,
 * before the call: which call it made, its entry says), or the exit (the result). */
enum sysarg_role { SYSARG_ENTER, SYSARG_STRS, SYSARG_EPROBE, SYSARG_LIBC, SYSARG_EXIT };
/* The part in sa of event ev (its fields looked up) in role, for call (an index in sa's calls;
 * -1 for SYSARG_LIBC: the entry says which call). After sysarg_init. Returns it, owned by sa
 * (freed by sysarg_free): the ctx of sysarg_on_event for ev's records; NULL when sa holds as
 * many as it can (4 * SYSARG_MAX_CALLS + 64). */
struct sysarg_ev *sysarg_ev(struct sysarg *sa, struct tep_event *ev, enum sysarg_role role,
			    int call);
/* A record rec of an event into its thread's call (ctx: what sysarg_ev returned for the
 * event); an exit ends the call in progress, if any, and fn is called for it. */
void sysarg_on_event(struct tep_record *rec, void *ctx);

/* For the unit tests and the probes: the fetch of string argument arg (0-based) of a system
 * call for the kprobe on its own function, into out (len bytes, cut to fit):
 * "+0(+112(%di)):ustring" (__x64_sys_NAME, the saved registers) when regs, "+0($arg1):ustring"
 * (sys_NAME) when not. Returns 0, or -1 when this architecture's registers are not known
 * (every one but x86_64, regs or not) or arg is not 0 to 5. */
int sysarg_kprobe_fetch(int arg, bool regs, char *out, size_t len);

#endif
