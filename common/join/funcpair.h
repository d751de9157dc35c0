/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * funcpair: the calls of one function as pairs of events, its entry and its return: a
 * kprobe and a kretprobe for a kernel function (FUNC), a uprobe and a uretprobe for a user
 * one (LIB:FUNC). Paired in user space by common/span under (thread, depth), so that a
 * function that calls itself pairs each return with its own entry. The probes may fetch the
 * first arguments at the entry and the return value. funclatency and funcslower.
 */
#ifndef FTT_FUNCPAIR_H
#define FTT_FUNCPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pair.h"
#include "join/span.h"

struct tool_run;
struct tep_event;
struct tep_record;
struct tep_format_field;

#define FUNCPAIR_DEPTH 16     /* calls kept per thread: deeper recursion is counted unpaired */
#define FUNCPAIR_MAX_ARGS 6   /* the arguments the ABI passes in registers (x86-64) */
#define FUNCPAIR_FRAMES 128   /* kernel frames kept per call (kstack_ev): all 5.x+ records */
#define FUNCPAIR_MEM_WORDS 64 /* 8-byte words of memory fetched at an entry (mem_arg) */

/* One call, when its return comes: the entry's time, its duration and the arguments
 * fetched at the entry. */
struct funcpair_call {
	uint64_t entry_ts;
	uint64_t ns;
	const uint64_t *args; /* nargs of them, then with mem_arg the mem_words words */
	/* With kstack_ev: the call's kernel stack, innermost first; nkstack 0 when none came. */
	const unsigned long long *kstack;
	int nkstack;
	/* With str_arg: the string it pointed to at the entry, its first str_size - 1 bytes
	 * (NUL-terminated); str_len its length as the kernel read it (more than kept: cut).
	 * NULL when the kernel could not read it (a fault). */
	const char *str;
	size_t str_len;
	bool str_cut; /* longer than str_len, its length not known (read in pieces: strpieces.h) */
};

/* Called for each paired return with its record: the return's (its task, its value), or the
 * kernel's event of the call (funcpair_trace_kernel). */
typedef void (*funcpair_fn)(struct tep_record *ret, const struct funcpair_call *c, void *ctx);

struct funcpair {
	/* Set before funcpair_probes(). */
	const char *spec; /* FUNC or LIB:FUNC */
	int nargs;	  /* arguments to fetch at entry (0..FUNCPAIR_MAX_ARGS) */
	bool retval;	  /* fetch the return value (funcpair_retval) */
	/* More fetch arguments of the return's probe ("sp=%sp:u64 w0=+0(%sp):u64"), which the
	 * caller reads from the return's record (fp->ret's fields); NULL none. */
	const char *ret_extra;
	/* A user function's argument (1-based; 0 none) read at the entry as a string, of which
	 * str_size - 1 bytes are kept with the call (gethostlatency's host name). Paired here
	 * only: funcpair_kernel says no. A record longer than a trace event holds is not
	 * written (a string of about 4,000 bytes): its call's return is counted unpaired. */
	int str_arg;
	size_t str_size;
	/* Kernel functions: fetches of the probe's syntax taken at the entry instead of $argN
	 * (argument i + 1: "+8($arg1)", a field of what it points to) and of str_arg's string
	 * ("+40(+24($arg2))"); NULL: $argN. Given as registers where the kernel has no $argN
	 * (Linux 4.20), without a word on stderr: they are the tool's, not the user's. */
	const char *arg_fetch[FUNCPAIR_MAX_ARGS];
	const char *str_fetch;
	struct tep_format_field *strf;
	/* A user function's argument (1-based; 0 none) that points to memory of which the
	 * first mem_words 8-byte words (up to FUNCPAIR_MEM_WORDS) are read at the entry, as
	 * one u64 fetch each (any kernel with uprobes; arrays came in 4.20): kept with the
	 * call after its arguments (sslsniff's data written). A word the kernel could not
	 * read is 0. Paired here only. */
	int mem_arg;
	int mem_words;
	struct tep_format_field *memf[FUNCPAIR_MEM_WORDS];
	/* Set by it. */
	bool user;	/* a uprobe pair */
	char func[256]; /* the function's name, for the output */
	struct tep_event *entry, *ret;
	struct tep_format_field *arg[FUNCPAIR_MAX_ARGS], *retf;
	struct pair_table depth; /* tid -> its calls in progress (deeper than DEPTH not kept) */
	struct span calls;	 /* (tid, depth) -> the entry: nargs args, then its stack */
	uint64_t unpaired;	 /* returns without their entry (lost, or deeper than DEPTH) */
	/* kprobe_profile names a probe without its group: names of this run's own */
	char entry_name[32], ret_name[32];
	/* Set before tracing, for the call's kernel stack (-s; ftrace:kernel_stack, enabled as
	 * the instance's stacktrace option): paired here, the entry's, kept with the call until
	 * its return; paired in the kernel, its event's (recorded at the return). */
	struct tep_event *kstack_ev;
	struct tep_format_field *kcaller;
	funcpair_fn fn;
	void *ctx;
	struct tool_run *t;
	/* Paired in the kernel (funcpair_kernel): the span's pair event, fired by the
	 * return's hist trigger with what the entry's saved for the thread. */
	bool in_kernel;
	struct span_kernel k;
	struct tep_format_field *sarg[FUNCPAIR_MAX_ARGS];
};

/* Checks spec: a usage error (opt_fail: exit 2) unless it is one function, FUNC or LIB:FUNC,
 * no glob. */
void funcpair_check_spec(const char *spec);

/*
 * In prepare(): the probes of fp->spec for t, the tool's run, named <prefix>_entry_<pid> and
 * <prefix>_ret_<pid>; fp's fields "Set by it" filled in. A function the kernel cannot trace
 * or a symbol not in the file is a usage error, said on stderr (a LIB:FUNC's exits 2 through
 * opt_fail); missing probe support is named by its CONFIG_ option. Returns TOOL_OK;
 * TOOL_USAGE for a function not traceable or a probe the kernel refused (its reason said);
 * TOOL_FAIL for missing probe support, arguments that cannot be fetched (said), or a field
 * not found in a probe's format (not said).
 */
enum tool_code funcpair_probes(struct tool_run *t, struct funcpair *fp, const char *prefix);

/* In setup(): traces both probes of fp for t, the tool's run; fn is called, with ctx, for
 * every return paired with its entry. A loss of events clears the pairs (they could join the
 * wrong two). Returns TOOL_OK; TOOL_FAIL, not said, when out of memory or kstack_ev has no
 * caller field; or tool_trace's status. Frees: funcpair_free(fp). */
enum tool_code funcpair_trace(struct tool_run *t, struct funcpair *fp, funcpair_fn fn, void *ctx);

/*
 * In prepare(), instead of funcpair_probes: two events of the kernel's own (a file
 * system's tracepoints, ext4_sync_file_enter and _exit) as the entry and the return of fp
 * for t, the tool's run, named func (entry's name) in the output; retfield the return's
 * field read by funcpair_retval (NULL: none). Paired here (funcpair_trace). Returns TOOL_OK,
 * or TOOL_FAIL when ret has no field retfield (said on stderr).
 */
enum tool_code funcpair_events(struct tool_run *t, struct funcpair *fp, struct tep_event *entry,
			       struct tep_event *ret, const char *retfield);

/*
 * Whether the kernel can pair the calls of fp for t, the tool's run (hist triggers with
 * variables and synthetic events: CONFIG_HIST_TRIGGERS, Linux 4.17). In prepare(), after
 * funcpair_probes: the synthetic event is made then, and fp->in_kernel set. Returns true
 * then; false (and nothing made) when it cannot, or fp fetches what its triggers cannot carry
 * (str_arg, mem_arg, ret_extra). When the return value's field of the pair event cannot be
 * found, it says so on stderr and returns true: funcpair_retval then reads 0.
 */
bool funcpair_kernel(struct tool_run *t, struct funcpair *fp);
/* Whether the kernel has what funcpair_kernel needs (nothing is made). Returns true when it
 * has (span_kernel_can for the run's own probes), else false. */
bool funcpair_kernel_can(void);

/* In setup(), when funcpair_kernel said yes: the kernel pairs each thread's entry and return
 * of fp (the innermost call of a function that calls itself) for t, the tool's run, and sends
 * one event per call of at least min_ns (0: all), for fn, with ctx. Returns TOOL_OK;
 * TOOL_FAIL, not said, when funcpair_kernel did not say yes or kstack_ev has no caller
 * field; else span_kernel_trace's or tool_trace's status. */
enum tool_code funcpair_trace_kernel(struct tool_run *t, struct funcpair *fp, uint64_t min_ns,
				     funcpair_fn fn, void *ctx);

/* The return value of a paired return, ret its record (with fp->retval). Returns it, or 0
 * when fp reads none. */
long long funcpair_retval(const struct funcpair *fp, const struct tep_record *ret);

/* In end(): on stderr (tool: the name in it), the returns of fp the kernel missed (a
 * kretprobe's instances all in use) and the returns that found no entry (paired in the
 * kernel: span_kernel_report's lines). ustacks: the user stacks the probes recorded (-U),
 * each of which may have added a miss to the kretprobe's count (below). */
void funcpair_report(struct funcpair *fp, const char *tool, unsigned long long ustacks);

/* Frees the tables of fp (fp itself is the caller's); the probes and what the kernel pairs
 * with are removed at the end of the run, not here. */
void funcpair_free(struct funcpair *fp);

#endif
