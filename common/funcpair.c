// SPDX-License-Identifier: GPL-2.0-only
#include "funcpair.h"
#include "runid.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "folded.h"
#include "ftrace.h"
#include "opt.h"
#include "probe.h"
#include "reader.h"
#include "session.h"
#include "sig.h"
#include "tool.h"
#include "usym.h"

void funcpair_check_spec(const char *spec)
{
	if (!*spec || strpbrk(spec, " \t\n*?["))
		opt_fail("invalid FUNC: '%s' (a kernel function, or LIB:FUNC)", spec);
}

/* "a1=$arg1:u64 a2=..." for fp->nargs arguments; a uprobe has no $argN (the kernel knows no
 * function entry in user code), so its are given as this architecture's registers. */
static int entry_args(const struct funcpair *fp, char *out, size_t len)
{
	char args[256] = "", why[256];
	size_t o = 0;
	for (int i = 1; i <= fp->nargs; i++)
		o += (size_t)snprintf(args + o, sizeof(args) - o, "%sa%d=$arg%d:u64",
				      i > 1 ? " " : "", i, i);
	if (!fp->user || !fp->nargs) {
		snprintf(out, len, "%s", args);
		return 0;
	}
	int c = probe_args_compat(args, 'p', "", PROBE_NO_ARGN, true, out, len, why, sizeof(why));
	if (c < 0 || (c == 0 && strstr(args, "$arg"))) {
		fprintf(stderr, "%s: cannot fetch the arguments of a user function here: %s\n",
			fp->t->tool->name, c < 0 ? why : "no argument registers known");
		return -1;
	}
	return 0;
}

static int kernel_target(struct funcpair *fp, char *target, size_t len)
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

static int user_target(struct funcpair *fp, char *target, size_t len)
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

int funcpair_probes(struct tool_run *t, struct funcpair *fp, const char *prefix)
{
	char target[PATH_MAX + 64], args[512];
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
	if (!(fp->ret = probe_create(&t->s, kind, 'r', fp->ret_name, target,
				     fp->retval ? "ret=$retval:s64" : NULL)) ||
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

/* A call in progress (span data): its arguments, then with kcaller its entry's kernel
 * stack (the count, then the frames). */
static unsigned long long *call_stack(const struct funcpair *fp, void *data)
{
	return (unsigned long long *)((uint64_t *)data + fp->nargs);
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
	struct funcpair_call c = {st->ts, delta, data, NULL, 0};
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

int funcpair_trace(struct tool_run *t, struct funcpair *fp, funcpair_fn fn, void *ctx)
{
	int ret;
	fp->fn = fn;
	fp->ctx = ctx;
	if (stacks_init(fp))
		return TOOL_FAIL;
	/* Per thread the calls open (the depth), and each call kept under (thread, depth):
	 * entries and returns of one thread may be on different CPUs (a migration). */
	size_t data = sizeof(uint64_t) * (size_t)fp->nargs +
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

/* Threads each hist table keeps (one entry per thread that ever called, for the run): the
 * kernel's default is 2048; a busy box starts more in a few minutes. About 2 MB each. */
#define KERNEL_THREADS 16384

/* After the instance (it had the event enabled): the synthetic event. */
static void remove_synth(void *arg)
{
	struct funcpair *fp = arg;
	char line[128];
	snprintf(line, sizeof(line), "!%s\n", fp->synth);
	if (session_append("synthetic_events", line)) {
		fprintf(stderr, "%s: cannot remove synthetic event %s: %s\n", fp->t->tool->name,
			fp->synth, strerror(errno));
		fp->t->failed = true;
		return;
	}
	sig_forget(fp->synth_emergency);
}

bool funcpair_kernel_can(void)
{
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	bool can = readme && strstr(readme, "hist:keys") &&
		   tracefs_file_exists(NULL, "synthetic_events");
	free(readme);
	return can;
}

bool funcpair_kernel(struct tool_run *t, struct funcpair *fp)
{
	if (!funcpair_kernel_can())
		return false;
	/* ftt_<run id>_<entry's prefix>: the sweep finds a killed run's by its id. */
	snprintf(fp->synth, sizeof(fp->synth), RUNID_GROUP_PREFIX "%s_%.*s", runid_self(),
		 (int)strcspn(fp->entry_name, "_"), fp->entry_name);
	char def[512];
	size_t o = (size_t)snprintf(def, sizeof(def), "%s u64 lat; u64 t0%s", fp->synth,
				    fp->retf ? "; s64 ret" : "");
	for (int i = 0; i < fp->nargs; i++)
		o += (size_t)snprintf(def + o, sizeof(def) - o, "; u64 a%d", i + 1);
	snprintf(def + o, sizeof(def) - o, "\n");
	if (session_append("synthetic_events", def)) {
		/* Not this kernel's way after all: pair in user space, as without. */
		fprintf(stderr,
			"%s: the kernel refused the synthetic event '%.*s': %s; the calls "
			"are paired here\n",
			t->tool->name, (int)strlen(def) - 1, def, strerror(errno));
		return false;
	}
	fp->in_kernel = true;
	fp->synth_emergency = -1;
	/* Removed at the end however the run ends from here (a usage error included). */
	if (session_on_close(&t->s, SESSION_AFTER_REMOVE, remove_synth, fp)) {
		remove_synth(fp);
		fp->in_kernel = false;
		return false;
	}
	fp->trig_emergency[0] = fp->trig_emergency[1] = -1;
	fp->undo.fd = -1;
	if (!(fp->synth_ev = session_load_event(&t->s, "synthetic", fp->synth)) ||
	    !(fp->lat = tep_find_field(fp->synth_ev, "lat")) ||
	    !(fp->t0 = tep_find_field(fp->synth_ev, "t0")) ||
	    (fp->retf && !(fp->retf = tep_find_field(fp->synth_ev, "ret")))) {
		fprintf(stderr, "%s: cannot read the format of synthetic event %s\n", t->tool->name,
			fp->synth);
		fp->synth_ev = NULL;
	}
	for (int i = 0; fp->synth_ev && i < fp->nargs; i++) {
		char name[16];
		snprintf(name, sizeof(name), "a%d", i + 1);
		fp->sarg[i] = tep_find_field(fp->synth_ev, name);
	}
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
	struct funcpair_call c = {(uint64_t)reader_num(rec, fp->t0),
				  (uint64_t)reader_num(rec, fp->lat), args, st,
				  fp->kcaller ? kernel_frames(fp, rec, st) : 0};
	fp->fn(rec, &c, fp->ctx);
}

/* "Dropped: N" of a hist: calls of threads its table had no room for. */
static uint64_t hist_dropped(const struct funcpair *fp, const struct tep_event *ev)
{
	char *text = tracefs_event_file_read(fp->t->s.inst, ev->system, ev->name, "hist", NULL);
	const char *d = text ? strstr(text, "Dropped:") : NULL;
	uint64_t n = d ? strtoull(d + 8, NULL, 10) : 0;
	free(text);
	return n;
}

/* Before the instance goes (the triggers hold it): the return's trigger, which refers to
 * the entry's variables, first. */
static void remove_triggers(void *arg)
{
	struct funcpair *fp = arg;
	const struct tep_event *ev[2] = {fp->entry, fp->ret};
	for (int i = 1; i >= 0; i--) {
		if (!fp->trig_set[i])
			continue;
		char line[1040];
		snprintf(line, sizeof(line), "!%s", fp->trig[i]);
		if (tracefs_event_file_append(fp->t->s.inst, ev[i]->system, ev[i]->name, "trigger",
					      line) < 0) {
			fprintf(stderr, "%s: cannot remove the hist trigger of %s/%s: %s\n",
				fp->t->tool->name, ev[i]->system, ev[i]->name, strerror(errno));
			fp->t->failed = true;
			continue;
		}
		fp->trig_set[i] = false;
		sig_forget(fp->trig_emergency[i]);
	}
	if (!fp->trig_set[0] && !fp->trig_set[1])
		undo_end(&fp->undo);
}

int funcpair_trace_kernel(struct tool_run *t, struct funcpair *fp, uint64_t min_ns, funcpair_fn fn,
			  void *ctx)
{
	char clock[32], saved[512] = "", refs[256] = "", path[4096];
	fp->fn = fn;
	fp->ctx = ctx;
	if (!fp->synth_ev || stacks_init(fp))
		return TOOL_FAIL;
	snprintf(path, sizeof(path), "%s/synthetic_events", tracefs_tracing_dir());
	char line[128];
	snprintf(line, sizeof(line), "!%s\n", fp->synth);
	/* After the instance's removal (it has the event enabled). */
	if ((fp->synth_emergency = sig_on_emergency_write(path, line)) < 0 ||
	    session_clock(&t->s, clock, sizeof(clock)))
		return TOOL_FAIL;
	/* The entry saves, per thread, its time twice (the older kernels read a variable once:
	 * one for the duration, one for the event) and its arguments. */
	size_t o = 0, r = 0;
	for (int i = 0; i < fp->nargs; i++) {
		o += (size_t)snprintf(saved + o, sizeof(saved) - o, ",v%d=a%d", i + 1, i + 1);
		r += (size_t)snprintf(refs + r, sizeof(refs) - r, ",$v%d", i + 1);
	}
	snprintf(fp->trig[0], sizeof(fp->trig[0]),
		 "hist:keys=common_pid:ts0=common_timestamp,t0=common_timestamp%s:size=%d:clock=%s",
		 saved, KERNEL_THREADS, clock);
	snprintf(fp->trig[1], sizeof(fp->trig[1]),
		 "hist:keys=common_pid:lat=common_timestamp-$ts0%s:size=%d:clock=%s:"
		 "onmatch(%s.%s).%s($lat,$t0%s%s)",
		 fp->retf ? ",rv=ret" : "", KERNEL_THREADS, clock, fp->entry->system,
		 fp->entry->name, fp->synth, fp->retf ? ",$rv" : "", refs);
	/* Kept before they are written: a killed run's are removed by the next run, and on
	 * a fault before the instance is removed. */
	if (undo_begin(&fp->undo, t->tool->name) ||
	    session_on_close(&t->s, SESSION_BEFORE_REMOVE, remove_triggers, fp))
		return TOOL_FAIL;
	const struct tep_event *ev[2] = {fp->entry, fp->ret};
	for (int i = 1; i >= 0; i--) {
		char rm[1040];
		snprintf(fp->trig_path[i], sizeof(fp->trig_path[i]), "%s/events/%s/%s/trigger",
			 t->s.dir, ev[i]->system, ev[i]->name);
		snprintf(rm, sizeof(rm), "!%s", fp->trig[i]);
		if (undo_add(&fp->undo, fp->trig_path[i], rm) ||
		    (fp->trig_emergency[i] = sig_on_emergency_write_before(
			     t->s.emergency, fp->trig_path[i], rm)) < 0)
			return TOOL_FAIL;
	}
	for (int i = 0; i < 2; i++) {
		if (tracefs_event_file_append(t->s.inst, ev[i]->system, ev[i]->name, "trigger",
					      fp->trig[i]) < 0) {
			fprintf(stderr,
				"%s: the kernel rejected the hist trigger '%s' on %s/%s: %s\n",
				t->tool->name, fp->trig[i], ev[i]->system, ev[i]->name,
				strerror(errno));
			return TOOL_FAIL;
		}
		fp->trig_set[i] = true;
	}
	char filter[64] = "";
	if (min_ns)
		snprintf(filter, sizeof(filter), "lat >= %" PRIu64, min_ns);
	return tool_trace(t, fp->synth_ev, filter, on_synth, fp);
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
	(void)hits;
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

void funcpair_report(const struct funcpair *fp, const char *tool, unsigned long long ustacks)
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
	/* A call of a thread that one table had no room for is dropped by one or both. */
	uint64_t dropped = 0;
	for (int i = 0; i < 2; i++) {
		uint64_t d = fp->trig_set[i] ? hist_dropped(fp, i ? fp->ret : fp->entry) : 0;
		dropped = d > dropped ? d : dropped;
	}
	if (dropped)
		fprintf(stderr,
			"%s: at least %llu calls are left out: the kernel's table of threads (%d) "
			"was full (--user-space pairs them here)\n",
			tool, (unsigned long long)dropped, KERNEL_THREADS);
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
	pair_free(&fp->depth);
	span_free(&fp->calls);
}
