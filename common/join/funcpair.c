// SPDX-License-Identifier: GPL-2.0-only
#include "join/funcpair.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "stream/folded.h"
#include "kernel/ftrace.h"
#include "base/opt.h"
#include "kernel/probe.h"
#include "stream/reader.h"
#include "kernel/strpieces.h"
#include "kernel/session.h"
#include "tool.h"
#include "stream/usym.h"

void funcpair_check_spec(const char *spec)
{
	if (!*spec || strpbrk(spec, " \t\n*?["))
		opt_fail("invalid FUNC: '%s' (a kernel function, or LIB:FUNC)", spec);
}

/* "a1=$arg1:u64 a2=..." for fp->nargs arguments (or arg_fetch's); a uprobe has no $argN (the
 * kernel knows no function entry in user code), so its are given as this architecture's
 * registers, and so are a kernel function's fetches of the tool's own where the kernel has
 * no $argN (without probe_create's word on stderr about the user's). */
static int entry_args(const struct funcpair *fp, char *out, size_t len)
{
	char args[2048] = "", why[256];
	size_t o = 0;
	bool own = fp->str_fetch != NULL;
	for (int i = 1; i <= fp->nargs && o < sizeof(args); i++) {
		own |= fp->arg_fetch[i - 1] != NULL;
		if (fp->arg_fetch[i - 1])
			o += (size_t)snprintf(args + o, sizeof(args) - o, "%sa%d=%s:u64",
					      i > 1 ? " " : "", i, fp->arg_fetch[i - 1]);
		else
			o += (size_t)snprintf(args + o, sizeof(args) - o, "%sa%d=$arg%d:u64",
					      i > 1 ? " " : "", i, i);
	}
	if (fp->str_fetch && o < sizeof(args))
		o += (size_t)snprintf(args + o, sizeof(args) - o, "%sstr=%s:string", o ? " " : "",
				      fp->str_fetch);
	else if (fp->str_arg && o < sizeof(args))
		o += (size_t)snprintf(args + o, sizeof(args) - o, "%sstr=+0($arg%d):string",
				      o ? " " : "", fp->str_arg);
	for (int i = 0; fp->mem_arg && i < fp->mem_words && o < sizeof(args); i++)
		o += (size_t)snprintf(args + o, sizeof(args) - o, "%sm%d=+%d($arg%d):u64",
				      o ? " " : "", i, 8 * i, fp->mem_arg);
	if (o >= sizeof(args)) {
		fprintf(stderr, "%s: the probe's arguments are too long\n", fp->t->tool->name);
		return -1;
	}
	unsigned missing = fp->user ? PROBE_NO_ARGN : probe_syntax_missing() & PROBE_NO_ARGN;
	if ((!fp->user && !(own && missing)) || !*args) {
		snprintf(out, len, "%s", args);
		return 0;
	}
	int c = probe_args_compat(args, 'p', "", missing, fp->user, out, len, why, sizeof(why));
	if (c < 0 || (c == 0 && strstr(args, "$arg"))) {
		fprintf(stderr, "%s: cannot fetch the arguments of a %s function here: %s\n",
			fp->t->tool->name, fp->user ? "user" : "kernel",
			c < 0 ? why : "no argument registers known");
		return -1;
	}
	return 0;
}

static enum tool_code kernel_target(struct funcpair *fp, char *target, size_t len)
{
	if (!probe_available(&fp->t->s, PROBE_KPROBE, false))
		return TOOL_FAIL;
	/* The list may be refused (EPERM): then the kernel decides. */
	if (ftrace_function_traceable(fp->spec) == 0) {
		fprintf(stderr, "%s: %s cannot be traced: not in available_filter_functions\n",
			fp->t->tool->name, fp->spec);
		return TOOL_USAGE;
	}
	snprintf(fp->func, sizeof(fp->func), "%s", fp->spec);
	snprintf(target, len, "%s", fp->spec);
	return TOOL_OK;
}

static enum tool_code user_target(struct funcpair *fp, char *target, size_t len)
{
	char buf[PATH_MAX + 256], path[PATH_MAX], why[PATH_MAX + 200];
	snprintf(buf, sizeof(buf), "%s", fp->spec);
	char *colon = strrchr(buf, ':');
	*colon = 0;
	const char *symbol = colon + 1;
	if (!*buf || !*symbol)
		opt_fail("invalid FUNC: '%s' (LIB:FUNC, e.g. libc:getaddrinfo)", fp->spec);
	if (usym_target(buf, path, sizeof(path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)", buf);
	unsigned long long off;
	if (usym_offset(path, symbol, false, &off, why, sizeof(why)))
		opt_fail("%s", why);
	if (strpbrk(path, " \t\n:"))
		opt_fail("the path of '%s' has a space or ':', which uprobe_events cannot take: "
			 "use a link to it",
			 buf);
	if (!probe_available(&fp->t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	snprintf(fp->func, sizeof(fp->func), "%s", symbol);
	snprintf(target, len, "%s:0x%llx", path, off);
	return TOOL_OK;
}

enum tool_code funcpair_probes(struct tool_run *t, struct funcpair *fp, const char *prefix)
{
	char target[PATH_MAX + 64], args[4096];
	fp->t = t;
	fp->user = strchr(fp->spec, ':') != NULL;
	int ret = fp->user ? user_target(fp, target, sizeof(target)) :
			     kernel_target(fp, target, sizeof(target));
	if (ret)
		return ret;
	if (entry_args(fp, args, sizeof(args)))
		return TOOL_FAIL;
	snprintf(fp->entry_name, sizeof(fp->entry_name), "%s_entry_%d", prefix, (int)getpid());
	snprintf(fp->ret_name, sizeof(fp->ret_name), "%s_ret_%d", prefix, (int)getpid());
	enum probe_kind kind = fp->user ? PROBE_UPROBE : PROBE_KPROBE;
	/* The return's first: at one address the kernel runs the newest probe's handler
	 * first, and the entry's must see the stack before the kretprobe's replaces the
	 * return address (before 5.15 a stack walk stops at its trampoline). */
	char rargs[4096];
	snprintf(rargs, sizeof(rargs), "%s%s%s", fp->retval ? "ret=$retval:s64" : "",
		 fp->retval && fp->ret_extra ? " " : "", fp->ret_extra ? fp->ret_extra : "");
	if (!(fp->ret = probe_create(&t->s, kind, 'r', fp->ret_name, target,
				     *rargs ? rargs : NULL)) ||
	    !(fp->entry =
		      probe_create(&t->s, kind, 'p', fp->entry_name, target, *args ? args : NULL)))
		return TOOL_USAGE; /* the kernel said why */
	for (int i = 0; i < fp->nargs; i++) {
		char name[16];
		snprintf(name, sizeof(name), "a%d", i + 1);
		if (!(fp->arg[i] = tep_find_field(fp->entry, name)))
			return TOOL_FAIL;
	}
	if (fp->retval && !(fp->retf = tep_find_field(fp->ret, "ret")))
		return TOOL_FAIL;
	if ((fp->str_arg || fp->str_fetch) && !(fp->strf = tep_find_field(fp->entry, "str")))
		return TOOL_FAIL;
	for (int i = 0; fp->mem_arg && i < fp->mem_words; i++) {
		char name[16];
		snprintf(name, sizeof(name), "m%d", i);
		if (!(fp->memf[i] = tep_find_field(fp->entry, name)))
			return TOOL_FAIL;
	}
	return TOOL_OK;
}

enum tool_code funcpair_events(struct tool_run *t, struct funcpair *fp, struct tep_event *entry,
			       struct tep_event *ret, const char *retfield)
{
	fp->t = t;
	fp->entry = entry;
	fp->ret = ret;
	snprintf(fp->func, sizeof(fp->func), "%s", entry->name);
	if (retfield && !(fp->retf = tep_find_field(ret, retfield))) {
		fprintf(stderr, "%s: %s has no field %s\n", t->tool->name, ret->name, retfield);
		return TOOL_FAIL;
	}
	return TOOL_OK;
}

/* --- per event ------------------------------------------------------------------------------ */

/* The kernel stack that came after rec (its trailer) into a (FUNCPAIR_FRAMES); how many. */
static int kernel_frames(const struct funcpair *fp, const struct tep_record *rec,
			 unsigned long long *a)
{
	const struct reader_trailers *tr = reader_record_trailers(rec);
	for (int i = 0; tr && i < tr->n; i++)
		if (tr->id[i] == fp->kstack_ev->id)
			return folded_frames(tr->rec[i], fp->kcaller, true, a, FUNCPAIR_FRAMES);
	return 0;
}

/* A call in progress (span data): its arguments, with str_arg the string's length and its
 * str_size bytes (rounded up to 8), then with kcaller its entry's kernel stack (the count,
 * then the frames). */
static size_t str_bytes(const struct funcpair *fp)
{
	return fp->strf ? sizeof(uint64_t) + ((fp->str_size + 7) & ~(size_t)7) : 0;
}

/* The words kept per call before the string: the arguments, then the memory's. */
static int call_words(const struct funcpair *fp)
{
	return fp->nargs + (fp->mem_arg ? fp->mem_words : 0);
}

static uint64_t *call_str(const struct funcpair *fp, void *data)
{
	return (uint64_t *)data + call_words(fp);
}

static unsigned long long *call_stack(const struct funcpair *fp, void *data)
{
	return (unsigned long long *)((char *)call_str(fp, data) + str_bytes(fp));
}

#define STR_CUT (1ULL << 62) /* in a kept string's length: longer than read */

/* The string of the entry into its place: its length to its NUL (with STR_CUT), then its bytes;
 * UINT64_MAX when the kernel could not read it (a fetch that faults records no bytes, not
 * even the NUL of an empty string). */
static void keep_str(const struct funcpair *fp, const struct tep_record *rec, const uint64_t *args,
		     uint64_t *at)
{
	size_t len = 0;
	const char *s = reader_str(rec, fp->strf, &len);
	bool dynamic = fp->strf->flags & TEP_FIELD_IS_DYNAMIC;
	/* Pieces of a NULL pointer read as zeros, not as a fault: its argument says. */
	bool null = !dynamic && fp->str_arg && !fp->str_fetch && fp->str_arg <= fp->nargs &&
		    !args[fp->str_arg - 1];
	if (!len || null) {
		*at = UINT64_MAX;
		return;
	}
	bool cut = strpieces_cut(fp->strf, s, len);
	len = strnlen(s, len);
	*at = len | (cut ? STR_CUT : 0);
	memcpy(at + 1, s, len < fp->str_size ? len : fp->str_size - 1);
}

static void on_entry(struct tep_record *rec, void *ctx)
{
	struct funcpair *fp = ctx;
	int tid = tep_data_pid(fp->t->s.tep, rec);
	uint64_t *depth = pair_put(&fp->depth, (uint64_t)tid, 0);
	if (*depth < FUNCPAIR_DEPTH) {
		uint64_t *args =
			span_begin(&fp->calls, (uint64_t)tid, *depth, rec->ts, rec->cpu, 0);
		for (int i = 0; i < fp->nargs; i++)
			args[i] = (uint64_t)reader_num(rec, fp->arg[i]);
		for (int i = 0; fp->mem_arg && i < fp->mem_words; i++)
			args[fp->nargs + i] = (uint64_t)reader_num(rec, fp->memf[i]);
		if (fp->strf)
			keep_str(fp, rec, args, call_str(fp, args));
		if (fp->kcaller) { /* the entry's stack, until the return */
			unsigned long long *st = call_stack(fp, args);
			st[0] = (unsigned long long)kernel_frames(fp, rec, st + 1);
		}
	}
	(*depth)++;
}

/* span's done: a return paired with its thread's innermost open call. */
static void paired(const struct tep_record *rec, const struct span_start *st, uint64_t delta,
		   void *data, void *ctx)
{
	struct funcpair *fp = ctx;
	struct funcpair_call c = {st->ts, delta, data, NULL, 0, NULL, 0, false};
	if (fp->strf) {
		const uint64_t *str = call_str(fp, data);
		c.str = *str == UINT64_MAX ? NULL : (const char *)(str + 1);
		c.str_len = *str == UINT64_MAX ? 0 : (size_t)(*str & ~STR_CUT);
		c.str_cut = *str != UINT64_MAX && (*str & STR_CUT);
	}
	if (fp->kcaller) {
		const unsigned long long *stack = call_stack(fp, data);
		c.kstack = stack + 1;
		c.nkstack = (int)stack[0];
	}
	fp->fn((struct tep_record *)rec, &c, fp->ctx);
}

static void on_return(struct tep_record *rec, void *ctx)
{
	struct funcpair *fp = ctx;
	int tid = tep_data_pid(fp->t->s.tep, rec);
	uint64_t *depth = pair_get(&fp->depth, (uint64_t)tid, 0);
	if (!depth || *depth == 0) {
		fp->unpaired++;
		return;
	}
	/* Deeper than the table: not kept, counted. */
	if (--*depth >= FUNCPAIR_DEPTH ||
	    !span_end(&fp->calls, rec, (uint64_t)tid, *depth, rec->ts))
		fp->unpaired++;
	if (!*depth)
		pair_del(&fp->depth, depth);
}

/* A lost entry or return could pair the wrong two: start again. */
static void on_lost(int cpu, long long n, void *ctx)
{
	struct funcpair *fp = ctx;
	span_lost(cpu, n, &fp->calls);
	pair_clear(&fp->depth);
}

/* Calls in progress kept paired here: with their entry's stack about 4.5 MB. */
#define CALLS 16384
#define STACK_CALLS 4096

/* With kstack_ev: its caller field. */
static int stacks_init(struct funcpair *fp)
{
	if (!fp->kstack_ev)
		return 0;
	return (fp->kcaller = tep_find_field(fp->kstack_ev, "caller")) ? 0 : -1;
}

enum tool_code funcpair_trace(struct tool_run *t, struct funcpair *fp, funcpair_fn fn, void *ctx)
{
	int ret;
	fp->fn = fn;
	fp->ctx = ctx;
	if (stacks_init(fp))
		return TOOL_FAIL;
	/* Per thread the calls open (the depth), and each call kept under (thread, depth):
	 * entries and returns of one thread may be on different CPUs (a migration). */
	size_t data = sizeof(uint64_t) * (size_t)call_words(fp) + str_bytes(fp) +
		      (fp->kcaller ? sizeof(unsigned long long) * (1 + FUNCPAIR_FRAMES) : 0);
	if (pair_init(&fp->depth, 4096, sizeof(uint64_t)) ||
	    span_init(&fp->calls, fp->kcaller ? STACK_CALLS : CALLS, data, SPAN_LOSS_ALL, paired,
		      fp) ||
	    reader_on_lost(&t->r, on_lost, fp))
		return TOOL_FAIL;
	if ((ret = tool_trace(t, fp->ret, NULL, on_return, fp)) ||
	    (ret = tool_trace(t, fp->entry, NULL, on_entry, fp)))
		return ret;
	return TOOL_OK;
}

/* --- paired in the kernel ------------------------------------------------------------------ */

bool funcpair_kernel_can(void)
{
	return span_kernel_can(SPAN_K_PAIRS, true);
}

/* Argument i's name in the entry's probe and in the pair event. */
static const char *const arg_names[FUNCPAIR_MAX_ARGS] = {"a1", "a2", "a3", "a4", "a5", "a6"};

bool funcpair_kernel(struct tool_run *t, struct funcpair *fp)
{
	/* The entry starts a call of its thread; the return ends it and fires the run's pair
	 * event with the call's time, its start, the entry's arguments and the return value.
	 * The innermost call of a function that calls itself is the one paired. */
	if (fp->strf || fp->mem_arg || fp->ret_extra) /* what its hist triggers cannot carry */
		return false;
	struct span_kernel *k = &fp->k;
	*k = (struct span_kernel){.name = "call", .nstarts = 1, .mode = SPAN_K_PAIRS, .own = true};
	k->start[0] = (struct span_kstart){.ev = fp->entry, .key = "common_pid"};
	for (int i = 0; i < fp->nargs; i++) {
		k->start[0].carry[i] = arg_names[i];
		k->carry[i] = (struct span_kfield){"u64", arg_names[i], NULL};
	}
	k->ncarry = fp->nargs;
	k->end = fp->ret;
	k->end_key = "common_pid";
	if (fp->retf)
		k->fields[k->nfields++] = (struct span_kfield){"s64", "ret", "ret"};
	if (!span_kernel_make(t, k))
		return false;
	fp->in_kernel = true;
	if (fp->retf && !(fp->retf = span_kernel_field(k, "ret")))
		fprintf(stderr, "%s: cannot read the format of synthetic event %s\n", t->tool->name,
			k->synth[0]);
	for (int i = 0; i < fp->nargs; i++)
		fp->sarg[i] = span_kernel_field(k, arg_names[i]);
	return true;
}

/* The kernel's event of one call: what its hist triggers paired. */
static void on_synth(struct tep_record *rec, void *ctx)
{
	struct funcpair *fp = ctx;
	uint64_t args[FUNCPAIR_MAX_ARGS];
	for (int i = 0; i < fp->nargs; i++)
		args[i] = fp->sarg[i] ? (uint64_t)reader_num(rec, fp->sarg[i]) : 0;
	unsigned long long st[FUNCPAIR_FRAMES];
	struct funcpair_call c = {(uint64_t)reader_num(rec, fp->k.t0),
				  (uint64_t)reader_num(rec, fp->k.lat),
				  args,
				  st,
				  fp->kcaller ? kernel_frames(fp, rec, st) : 0,
				  NULL,
				  0,
				  false};
	fp->fn(rec, &c, fp->ctx);
}

enum tool_code funcpair_trace_kernel(struct tool_run *t, struct funcpair *fp, uint64_t min_ns,
				     funcpair_fn fn, void *ctx)
{
	fp->fn = fn;
	fp->ctx = ctx;
	if (!fp->in_kernel || stacks_init(fp))
		return TOOL_FAIL;
	char filter[64] = "";
	if (min_ns)
		snprintf(filter, sizeof(filter), "lat >= %" PRIu64, min_ns);
	/* The pair event is fired by the return, in the thread's context: -p and -n apply. */
	enum tool_code ret = span_kernel_trace(t, &fp->k, NULL, NULL, NULL);
	return ret ? ret : tool_trace(t, fp->k.pair_ev, filter, on_synth, fp);
}

long long funcpair_retval(const struct funcpair *fp, const struct tep_record *ret)
{
	return fp->retf ? reader_num(ret, fp->retf) : 0;
}

/* --- the end ------------------------------------------------------------------------------- */

struct missed {
	const char *name;
	unsigned long long n;
};

/* kprobe_profile's nmissed of our kretprobe. */
static void ret_missed(const char *name, unsigned long long hits, unsigned long long missed,
		       void *ctx)
{
	struct missed *m = ctx;
	if (!strcmp(name, m->name))
		m->n = missed;
}

/* Does this kernel count a fault in a probe's handler as a miss (x86 before 5.14)? */
static bool faults_missed(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true; /* unknown: the cautious reading */
	return major < 5 || (major == 5 && minor < 14);
}

void funcpair_report(struct funcpair *fp, const char *tool, unsigned long long ustacks)
{
	/* A kretprobe can miss returns: more calls in progress than its instances (maxactive).
	 * Before 5.14, x86 also counts a fault in a probe's handler as a miss of the probe
	 * (and of every probe at its address): a user stack's walk ends with one when the
	 * frame pointers lead nowhere, once at most (4.19: every -U stack of a program built
	 * without them). Those misses lose nothing. */
	struct missed m = {fp->ret_name, 0};
	if (!fp->user && fp->ret)
		probe_profile(PROBE_KPROBE, ret_missed, &m);
	if (!faults_missed())
		ustacks = 0;
	if (m.n && m.n > ustacks)
		fprintf(stderr,
			"%s: %s%llu returns were missed by the kernel (more calls in progress than "
			"the kretprobe's instances): those calls are left out\n",
			tool, ustacks ? "at least " : "", m.n - ustacks);
	else if (m.n)
		fprintf(stderr,
			"%s: the kretprobe counted %llu misses, no more than the user stacks "
			"recorded (%llu): before Linux 5.14 a fault while reading one counts as a "
			"miss; no call is known to be left out\n",
			tool, m.n, ustacks);
	/* Paired in the kernel: the returns of calls begun before tracing, and the calls of
	 * threads a table of the kernel had no room for. */
	if (fp->in_kernel && fp->k.ntrig)
		span_kernel_report(&fp->k, tool, "returns");
	char evicted[96] = "";
	if (fp->calls.starts.evicted)
		snprintf(evicted, sizeof(evicted),
			 ", or more calls in progress than the table holds: %llu evicted",
			 (unsigned long long)fp->calls.starts.evicted);
	if (fp->unpaired)
		fprintf(stderr,
			"%s: %llu returns without their entry (calls that began before the start, "
			"events lost, or recursion deeper than %d%s) are left out\n",
			tool, (unsigned long long)fp->unpaired, FUNCPAIR_DEPTH, evicted);
}

void funcpair_free(struct funcpair *fp)
{
	if (fp->in_kernel)
		span_kernel_free(&fp->k);
	pair_free(&fp->depth);
	span_free(&fp->calls);
}
