// SPDX-License-Identifier: GPL-2.0-only
/*
 * execsnoop: trace new programs, one line per execve() or execveat(): the process (named as
 * the new program), its parent, the result and the arguments exactly as they were passed.
 *
 * The exec itself comes from tracepoints (syscalls:sys_enter_/sys_exit_execve(at), with
 * sched:sched_process_exec for the file the kernel ran and the thread that became the
 * leader), joined per thread (syspair.h). The arguments come from the best rung the kernel
 * offers:
 *   kprobe  the syscall's entry (__x64_sys_execve: argv from the saved user registers),
 *   eprobe  event probes on syscalls:sys_enter_execve(at) reading argv,
 *   uprobe  the C library's exec functions (in the caller, before the call) and the dynamic
 *           loader's entry point (in the new program, argc and argv on its stack: the
 *           programs exec'd without the C library, by a static shell say),
 *   proc    /proc/PID/cmdline read when the exec is seen: possibly late, marked so.
 * Each rung reads the argument pointers too (the loader: argc), so it stops at the end of
 * argv and knows when --max-args cut it.
 *
 * No argument is cut silently. One trace event holds about 4 KB, and the kernel's string
 * fetches misbehave past that: a kprobe's or eprobe's event that would be larger is not
 * written at all, and a uprobe gives a string of 4 KB or more the room of the strings after
 * it (a prefix, theirs lost). So the uprobes end with a string that is always there ($comm):
 * when it is missing, the last string before it was cut. And the true lengths come from the
 * new program's stack, where the kernel packs argv (each string ends where the next one
 * begins): its pointers, read at start_thread() (kprobes) or at the loader's entry
 * (uprobes), in an event of fixed size that is never too large. An argument held in part is
 * shown with its length; one whose length is not known, marked as cut all the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "base/ladder.h"
#include "base/out.h"
#include "base/pair.h"
#include "kernel/probe.h"
#include "kernel/strpieces.h"
#include "stream/reader.h"
#include "base/row.h"
#include "join/syspair.h"
#include "tool.h"
#include "stream/usym.h"
#include "domain/execargs.h"
#include "domain/ustr.h"

#define MAX_ARGS EXECARGS_MAX	    /* the most --max-args takes */
#define PENDING 64		    /* execs waiting for the loader's record */
#define LOADER_WAIT_NS 200000000ULL /* of the reader's time, when nothing else comes */
#define LOADER_LATE_NS 20000000ULL  /* of trace time: an event this much later came first */

static const char *const calls[] = {"execve", "execveat"};
#define NCALLS 2

enum via { VIA_KPROBE, VIA_EPROBE, VIA_UPROBE, VIA_PROC, VIA_BEST };
static const char *const via_names[] = {"kprobe", "eprobe", "uprobe", "proc"};

/* What an event tells: IMAGE is the new program's stack (start_thread, or the loader's entry:
 * LOADER_IMAGE), LOADER the strings there. */
enum role { ENTER, EXIT, EXEC, ARGS, LIBC, LIBC_ARGV, LOADER, IMAGE, LOADER_IMAGE };

struct evinfo {
	enum role role;
	int call;
	enum execargs_from src;
	struct tep_format_field *ret, *filename, *pid, *old_pid, *argc, *end;
	struct tep_format_field *ptr[MAX_ARGS + 1], *str[MAX_ARGS], *slot[MAX_ARGS + 3];
};

/* An exec in progress (the join's data). */
struct exec_data {
	char filename[PATH_MAX]; /* as the kernel ran it (sched_process_exec) */
	struct execargs a;
	struct execargs_image im;
};

/* A successful exec whose arguments (or their lengths) the loader will tell, if the program
 * has one. */
struct pending {
	bool used, strings; /* strings: the loader's record of the strings came */
	int pid, call;
	uint64_t ts, deadline;
	char pcomm[16];
	struct exec_data d;
	struct execargs loader;	  /* the loader's strings */
	struct execargs fallback; /* /proc/PID/cmdline when the exec was seen */
};

static struct env {
	bool failed;		/* -x */
	bool quote;		/* -q */
	int max_args;		/* --max-args */
	const char *name, *arg; /* -n, -l */
	enum via via;		/* --via, then the rung in use */
	bool loader;		/* the loader's entry is probed */
	bool loader_image;	/* and the pointers on the new program's stack there */
	struct tool_run *t;
	struct row row;
	struct syspair join;
	struct pair_table stash;  /* tid -> struct execargs from the C library, before the call */
	struct pair_table counts; /* tid -> struct args, how many it passed, when only that came */
	struct pair_table
		images; /* tid -> struct execargs_image from start_thread, during the call */
	struct pending pend[PENDING];
	int nev;
	struct evinfo ev[16];
	uint64_t late, unknown, shown, cut;
	char lib[PATH_MAX], ld[PATH_MAX], what_args[PATH_MAX];
} env = {.max_args = 20, .via = VIA_BEST};

enum { OPT_MAX_ARGS = OPT_LONG + 1, OPT_VIA };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per exec, the arguments as an array"),
	{'l', NULL, "ARG", "only execs with an argument that matches ARG (a glob)", 0},
	{'n', NULL, "NAME", "only programs whose name matches NAME (a glob)", 0},
	TOOL_PID,
	{'q', NULL, NULL, "quote every argument (else only those that need it)", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'x', NULL, NULL, "failed execs too (RET is the error, negative)", 0},
	{OPT_MAX_ARGS, "max-args", "N", "arguments shown per exec (default 20, at most 40)", 0},
	{OPT_VIA, "via", "MECH",
	 "how to read arguments: kprobe, eprobe, uprobe or proc (default:\nthe best the kernel "
	 "offers)",
	 0},
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"execsnoop                   # every new program, with its arguments",
	"execsnoop -x                # failed execs too",
	"execsnoop -T -n 'cron*'     # programs named cron..., with the time",
	"execsnoop -l '*.sh'         # execs with an argument ending in .sh",
	"execsnoop -p 181            # what process 181 and its children run",
	"execsnoop --exec make -j4   # every command a build runs",
	"execsnoop -j > e.json       # as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'l': env.arg = opt_glob(arg, "ARG"); break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'q': env.quote = true; break;
	case 'x': env.failed = true; break;
	case OPT_MAX_ARGS: env.max_args = (int)opt_int(arg, 1, MAX_ARGS, "N (arguments)"); break;
	case OPT_VIA: env.via = opt_choice(arg, via_names, VIA_BEST, "--via"); break;
	}
}

/* --- arguments from records (execargs.h puts them together) ------------------------------- */

/* The pointers of argv a record holds (0: NULL, or no such field). */
static void record_ptrs(uint64_t *ptr, const struct tep_record *rec, const struct evinfo *ei)
{
	for (int i = 0; i <= env.max_args; i++)
		ptr[i] = ei->ptr[i] ? (uint64_t)reader_num(rec, ei->ptr[i]) : 0;
}

static bool args_from_record(struct execargs *a, const struct tep_record *rec,
			     const struct evinfo *ei)
{
	struct execargs_record r = {.from = ei->src, .has_argc = ei->argc, .has_end = ei->end};
	if (ei->argc)
		r.argc = reader_num(rec, ei->argc);
	else
		record_ptrs(r.ptr, rec, ei);
	for (int i = 0; i < env.max_args; i++)
		r.str[i] = ei->str[i] ? reader_str(rec, ei->str[i], &r.len[i]) : NULL;
	if (ei->end)
		reader_str(rec, ei->end, &r.end_len);
	return execargs_from_record(a, &r, env.max_args);
}

/* The new program's stack: argc, then the pointers argv[0..argc-1], NULL, envp[0] (slots 1
 * on). */
static void image_from_record(struct execargs_image *im, const struct tep_record *rec,
			      const struct evinfo *ei)
{
	uint64_t slot[MAX_ARGS + 3] = {0};
	for (int j = 1; j <= env.max_args + 2; j++)
		slot[j] = ei->slot[j] ? (uint64_t)reader_num(rec, ei->slot[j]) : 0;
	execargs_image_from(im, reader_num(rec, ei->argc), slot, env.max_args);
}

/* How many pointers argv has (a record of the pointers only, which is never too large). */
static void args_count(struct execargs *a, const struct tep_record *rec, const struct evinfo *ei)
{
	uint64_t ptr[MAX_ARGS + 1];
	record_ptrs(ptr, rec, ei);
	execargs_count(a, ptr, env.max_args, ei->src);
}

/* --- output --------------------------------------------------------------------------------- */

static bool arg_matches(const struct execargs *a)
{
	if (!env.arg)
		return true;
	for (size_t o = 0; o < a->len; o += strlen(a->buf + o) + 1)
		if (!fnmatch(env.arg, a->buf + o, 0))
			return true;
	return false;
}

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"PCOMM", "pcomm", -16, ROW_STR, 0, 0,
	 "the program's name after the exec (a failed one: the caller's), exact"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "the process"},
	{"PPID", "ppid", 7, ROW_INT, 0, 0, "its parent when it was created; null when not known"},
	{NULL, "call", 0, ROW_WORD, 0, ROW_NOTEXT, "the system call: execve or execveat"},
	{"RET", "ret", 4, ROW_INT, 0, 0, "0, or (-x) the negative error of a failed exec"},
	{NULL, "filename", 0, ROW_STR, 0, ROW_NOTEXT,
	 "the file the kernel ran; null for a failure"},
	{"ARGS", NULL, 0, ROW_TEXT, 0, ROW_NOJSON, NULL},
	{NULL, "args", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "the arguments, an array of exact strings (what was read of each); null when none "
	 "were read"},
	{NULL, "args_cut", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "true when argv was longer than --max-args or an argument was cut"},
	{NULL, "args_from", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "where they were read: kprobe, eprobe, uprobe, loader, proc or none"},
	{NULL, "arg_lengths", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "each argument's length in bytes as passed (null: cut at a length not known); null "
	 "when none were read"},
};
static const struct row_table table = ROW_TABLE("each exec", cols);

static void print_exec(uint64_t ts, int pid, int call, long long ret, const char *pcomm,
		       const struct exec_data *d)
{
	const struct execargs *a = &d->a;
	struct comm_task ti;
	int ppid = comm_task(env.t->names, pid, &ti) ? -1 : ti.ppid;
	if ((env.name && fnmatch(env.name, pcomm, 0)) || !arg_matches(a))
		return;
	bool read = a->from != EXECARGS_NONE, cut = execargs_any_cut(a);
	env.shown++;
	env.late += a->from == EXECARGS_PROC;
	env.unknown += !read;
	env.cut += read && !execargs_whole(a);
	struct row *w = &env.row;
	FILE *f;
	row_begin(w, ts);
	row_str(w, pcomm, 16);
	row_int(w, pid);
	if (ppid >= 0)
		row_int(w, ppid);
	else
		row_none(w);
	row_word(w, calls[call]);
	row_int(w, ret);
	if (d->filename[0])
		row_str(w, d->filename, sizeof(d->filename));
	else
		row_none(w);
	if ((f = row_text(w)))
		execargs_text(f, a, d->filename, env.quote);
	if ((f = row_json(w)))
		execargs_json(f, a);
	if ((f = row_json(w)))
		fputs(cut ? "true" : "false", f);
	row_word(w, execargs_from_names[a->from]);
	if ((f = row_json(w)))
		execargs_json_sizes(f, a);
	row_end(w);
}

/* --- the join ------------------------------------------------------------------------------- */

/* The best the loader's two records and /proc tell of a pending exec: whole arguments first,
 * then the caller's, cut (as passed), then the new program's, then /proc's, then only the
 * lengths. */
static void pending_show(struct pending *p)
{
	execargs_best(&p->d.a, &p->loader, &p->fallback, &p->d.im, env.max_args);
	print_exec(p->ts, p->pid, p->call, 0, p->pcomm, &p->d);
	p->used = false;
}

static struct pending *pending_of(int tid)
{
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used && env.pend[i].pid == tid)
			return &env.pend[i];
	return NULL;
}

/*
 * An exec ended. A success whose arguments are not all whole waits, where the loader is
 * probed, for its records (lengths, and the strings as the new program has them) until they
 * come or LOADER_WAIT_NS have passed (a static program has no loader); the rest is shown now,
 * a success read from /proc when nothing else read its arguments.
 */
static void exec_ended(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct tool_run *t = ctx;
	struct syspair_call *c = call;
	struct exec_data *d = syspair_data(c);
	struct execargs_image *im = pair_get(&env.images, (uint64_t)tid, 0);
	if (im) { /* start_thread(), in the new program */
		if (ret == 0)
			d->im = *im;
		pair_del(&env.images, im);
	}
	if (ret < 0 && !env.failed)
		return;
	const char *pcomm = tool_comm(t, tid);
	if (ret == 0)
		execargs_sizes_from(&d->a, &d->im);
	if (ret < 0 || execargs_whole(&d->a) || !env.loader) {
		if (ret == 0 && d->a.from == EXECARGS_NONE) {
			execargs_from_proc(&d->a, tid, env.max_args);
			if (d->a.from == EXECARGS_NONE && d->im.known)
				execargs_from_image(&d->a, &d->im, env.max_args, EXECARGS_KPROBE);
		}
		print_exec(rec->ts, tid, c->kind, ret, pcomm, d);
		return;
	}
	struct pending *p = NULL;
	for (int i = 0; i < PENDING && !p; i++)
		if (!env.pend[i].used)
			p = &env.pend[i];
	if (!p) { /* all waiting: the oldest goes now */
		p = &env.pend[0];
		for (int i = 1; i < PENDING; i++)
			if (env.pend[i].ts < p->ts)
				p = &env.pend[i];
		pending_show(p);
	}
	p->used = true;
	p->strings = false;
	p->pid = tid;
	p->call = c->kind;
	p->ts = rec->ts;
	p->deadline = reader_now() + LOADER_WAIT_NS;
	snprintf(p->pcomm, sizeof(p->pcomm), "%s", pcomm);
	memcpy(p->d.filename, d->filename, sizeof(d->filename));
	execargs_copy(&p->d.a, &d->a);
	p->d.im = d->im;
	execargs_clear(&p->loader);
	/* Read now, as early as it can be: used if the loader says nothing. */
	execargs_from_proc(&p->fallback, tid, env.max_args);
}

static void on_event(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = reader_pid(rec);
	/* Events come in time order: the loader runs as soon as the exec returns, so a wait
	 * this long means there is none (a static program). Shown first, in order. */
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used && env.pend[i].ts + LOADER_LATE_NS < rec->ts)
			pending_show(&env.pend[i]);
	switch (ei->role) {
	case ENTER: {
		struct exec_data *d =
			syspair_data(syspair_enter(&env.join, tid, rec->ts, ei->call));
		/* The C library's record of this call, or of how many arguments it had (its
		 * strings too many for one event). */
		struct execargs *st = pair_get(&env.stash, (uint64_t)tid, 0);
		struct execargs *cnt = pair_get(&env.counts, (uint64_t)tid, 0);
		if (st || cnt)
			execargs_copy(&d->a, st ? st : cnt);
		if (st)
			pair_del(&env.stash, st);
		if (cnt)
			pair_del(&env.counts, cnt);
		break;
	}
	case ARGS: {
		struct syspair_call *c = syspair_current(&env.join, tid);
		struct exec_data *d = c ? syspair_data(c) : NULL;
		if (d && d->a.from == EXECARGS_NONE)
			args_from_record(&d->a, rec, ei);
		break;
	}
	case LIBC: {
		struct execargs *st = pair_put(&env.stash, (uint64_t)tid, 0);
		if (!args_from_record(st, rec, ei))
			pair_del(&env.stash, st);
		break;
	}
	case LIBC_ARGV: args_count(pair_put(&env.counts, (uint64_t)tid, 0), rec, ei); break;
	case IMAGE: /* start_thread(): the ID is already the one the exec ends with */
		image_from_record(pair_put(&env.images, (uint64_t)tid, 0), rec, ei);
		break;
	case EXEC: {
		/* The kernel ran the file; a thread other than the leader now has its ID. */
		int pid = (int)reader_num(rec, ei->pid), old = (int)reader_num(rec, ei->old_pid);
		struct syspair_call *c = syspair_move(&env.join, old, pid);
		if (c)
			reader_strcpy(((struct exec_data *)syspair_data(c))->filename, PATH_MAX,
				      rec, ei->filename);
		break;
	}
	case EXIT: syspair_exit(&env.join, rec, tid, reader_num(rec, ei->ret)); break;
	case LOADER:
	case LOADER_IMAGE: {
		struct pending *p = pending_of(tid);
		if (!p)
			break;
		if (ei->role == LOADER_IMAGE) {
			image_from_record(&p->d.im, rec, ei);
		} else {
			p->strings = true;
			if (!args_from_record(&p->loader, rec, ei))
				execargs_clear(&p->loader);
		}
		/* Both came (the strings may have been too many for one event: not written). */
		if (p->strings && (p->d.im.known || !env.loader_image))
			pending_show(p);
		break;
	}
	}
}

/* Lost events: the C library's records may belong to calls whose entry was lost, the new
 * programs' stacks to calls whose exit was. */
static void lost(int cpu, long long n, void *ctx)
{
	pair_clear(&env.stash);
	pair_clear(&env.counts);
	pair_clear(&env.images);
}

static void wake(struct tool_run *t, uint64_t now)
{
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used && env.pend[i].deadline <= now)
			pending_show(&env.pend[i]);
}

/* --- the rungs ------------------------------------------------------------------------------ */

static int trace_role(struct tool_run *t, struct tep_event *ev, enum role role, int call,
		      enum execargs_from src)
{
	struct evinfo *ei = &env.ev[env.nev++];
	*ei = (struct evinfo){.role = role, .call = call, .src = src};
	ei->ret = tep_find_field(ev, "ret");
	ei->filename = tep_find_field(ev, "filename");
	ei->pid = tep_find_field(ev, "pid");
	ei->old_pid = tep_find_field(ev, "old_pid");
	ei->argc = tep_find_field(ev, "argc");
	ei->end = tep_find_field(ev, "end");
	for (int i = 0; i <= env.max_args + 2; i++) {
		char f[16];
		snprintf(f, sizeof(f), "p%d", i);
		if (i <= env.max_args)
			ei->ptr[i] = tep_find_field(ev, f);
		snprintf(f, sizeof(f), "a%d", i);
		if (i < env.max_args)
			ei->str[i] = tep_find_field(ev, f);
		snprintf(f, sizeof(f), "q%d", i);
		ei->slot[i] = tep_find_field(ev, f);
	}
	/* No -n here: a program is named after its exec, its arguments before. */
	const char *name = t->o.name;
	t->o.name = NULL;
	int ret = tool_trace(t, ev, NULL, on_event, ei);
	t->o.name = name;
	return ret;
}

/* Fetch arguments reading argv from `argv` (a fetch expression for the array's address):
 * "p0=+u0(ARGV):u64 a0=+0(+u0(ARGV)):ustring p1=+u8(ARGV):u64 ..." in the kernel (u: the
 * array is in user memory), "p0=+0(ARGV):u64 a0=+0(+0(ARGV)):string ..." in a uprobe; with
 * end, the string that tells a uprobe's cut (" end=$comm"). */
static void fetch_args(char *out, size_t len, const char *argv, bool kernel, bool end)
{
	const char *u = kernel ? "u" : "", *type = kernel ? "ustring" : "string";
	size_t o = 0;
	for (int i = 0; i <= env.max_args && o < len; i++) {
		o += (size_t)snprintf(out + o, len - o, "%sp%d=+%s%d(%s):u64", o ? " " : "", i, u,
				      8 * i, argv);
		if (i < env.max_args && o < len)
			o += (size_t)snprintf(out + o, len - o, " a%d=+0(+%s%d(%s)):%s", i, u,
					      8 * i, argv, type);
	}
	if (end && o < len)
		snprintf(out + o, len - o, " end=$comm");
}

/* The pointers only: "p0=+0(ARGV):u64 p1=+8(ARGV):u64 ..." (a uprobe). */
static void fetch_argv(char *out, size_t len, const char *argv)
{
	size_t o = 0;
	for (int i = 0; i <= env.max_args && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%sp%d=+%d(%s):u64", o ? " " : "", i, 8 * i,
				      argv);
}

/* The new program's stack at sp: "argc=+0(SP):u64 q1=+8(SP):u64 ..." (slots 1 to max+2: the
 * pointers of argv, its NULL and envp[0]), or its strings at the loader's entry,
 * "argc=+0(%sp):u64 a0=+0(+8(%sp)):string ... end=$comm". */
static void fetch_stack(char *out, size_t len, const char *sp, bool kernel, bool strings)
{
	const char *u = kernel ? "u" : "";
	size_t o = (size_t)snprintf(out, len, "argc=+%s0(%s):u64", u, sp);
	for (int j = 1; j <= env.max_args + 2 && o < len; j++)
		if (!strings)
			o += (size_t)snprintf(out + o, len - o, " q%d=+%s%d(%s):u64", j, u, 8 * j,
					      sp);
		else if (j <= env.max_args)
			o += (size_t)snprintf(out + o, len - o, " a%d=+0(+%d(%s)):string", j - 1,
					      8 * j, sp);
	if (strings && o < len)
		snprintf(out + o, len - o, " end=$comm");
}

/* 1: kprobes on the syscall entry functions. Since 4.17 they take the user registers
 * (pt_regs) saved at entry: argv is one of them; before, the arguments themselves (argv the
 * second of execve's, the third of execveat's). Kernels before 5.5 have no user fetches:
 * probe.c gives them plain reads, which reach user memory there. */
static int via_kprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
#if defined(__x86_64__)
	/* struct pt_regs on x86_64: si at 104, dx at 96. */
	static const struct {
		const char *funcs[NCALLS], *argv[NCALLS];
	} entries[] = {
		{{"__x64_sys_execve", "__x64_sys_execveat"}, {"+104(%di)", "+96(%di)"}},
		{{"sys_execve", "sys_execveat"}, {"%si", "%dx"}},
	};
	static char args[NCALLS][8192];
	*why = "a kprobe reading long arguments corrupts this kernel's memory (RHEL 8.1's 4.18)";
	if (probe_many_strings_unsafe())
		return -1;
	*why = "no kprobes (CONFIG_KPROBE_EVENTS) in this kernel";
	if (!probe_available(&t->s, PROBE_KPROBE, true))
		return -1;
	for (size_t e = 0; e < sizeof(entries) / sizeof(*entries); e++) {
		int n = 0, ret;
		for (int c = 0; c < NCALLS; c++) {
			fetch_args(args[c], sizeof(args[c]), entries[e].argv[c], true, false);
			char name[32];
			snprintf(name, sizeof(name), "%s_args", calls[c]);
			struct tep_event *ev = probe_try(&t->s, PROBE_KPROBE, 'p', name,
							 entries[e].funcs[c], args[c]);
			if (!ev && c == 0)
				break;
			if (ev && (ret = trace_role(t, ev, ARGS, c, EXECARGS_KPROBE)))
				return ret;
			n += ev != NULL;
		}
		if (!n)
			continue;
		/* start_thread(regs, ip, sp): the new program's stack, for the true lengths. */
		static char stack[4096];
		fetch_stack(stack, sizeof(stack), "%dx", true, false);
		struct tep_event *ev =
			probe_try(&t->s, PROBE_KPROBE, 'p', "image", "start_thread", stack);
		if (ev && (ret = trace_role(t, ev, IMAGE, 0, EXECARGS_KPROBE)))
			return ret;
		snprintf(env.what_args, sizeof(env.what_args), "kprobes on %s%s%s%s",
			 entries[e].funcs[0], n > 1 ? " and " : "",
			 n > 1 ? entries[e].funcs[1] : "", ev ? " and start_thread" : "");
		return 0;
	}
	*why = "neither __x64_sys_execve() (Linux 4.17) nor sys_execve() can be probed with "
	       "reads of user memory";
	return -1;
#else
	(void)t;
	*why = "the kprobe rung knows only x86_64's registers";
	return -1;
#endif
}

/* 2: event probes on the syscall entry tracepoints. */
static int via_eprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	static char args[8192];
	int n = 0, ret;
	*why = "no event probes on syscall tracepoints (CONFIG_EPROBE_EVENTS) in this kernel";
	fetch_args(args, sizeof(args), "$argv", true, false);
	for (int c = 0; c < NCALLS; c++) {
		if (!syspair_event(&t->s, "enter", calls[c]))
			continue;
		char name[32];
		snprintf(name, sizeof(name), "%s_args", calls[c]);
		struct tep_event *ev = ustr_eprobe(&t->s, name, calls[c], args);
		if (!ev && n == 0)
			return -1;
		if (ev && (ret = trace_role(t, ev, ARGS, c, EXECARGS_EPROBE)))
			return ret;
		n += ev != NULL;
	}
	snprintf(env.what_args, sizeof(env.what_args), "event probes on syscalls:sys_enter_exec*");
	return n ? 0 : -1;
}

/* 3: the C library's exec functions (execv, execvp, posix_spawn, system() all end in one
 * of them), and the dynamic loader's entry. */
static struct ustr_func libc_execs[3], libc_argvs[3];
static bool libc_failed;

static void libc_made(struct tep_event *ev, int i, void *ctx)
{
	if (!libc_failed && trace_role(ctx, ev, LIBC, 0, EXECARGS_LIBC))
		libc_failed = true; /* said on stderr */
}

static void libc_argv_made(struct tep_event *ev, int i, void *ctx)
{
	if (!libc_failed && trace_role(ctx, ev, LIBC_ARGV, 0, EXECARGS_LIBC))
		libc_failed = true;
}

/* The C library's functions, with the string that tells a cut at the end where the kernel
 * takes $comm in a uprobe, else without. */
static int libc_uprobes(struct tool_run *t, bool end, const char **why)
{
	static char args[3][8192];
	/* execve(path, argv, envp), fexecve(fd, argv, envp), execveat(fd, path, argv, ...) */
	fetch_args(args[0], sizeof(args[0]), "$2", false, end);
	fetch_args(args[2], sizeof(args[2]), "$3", false, end);
	libc_execs[0] = (struct ustr_func){"execve", args[0], NULL};
	libc_execs[1] = (struct ustr_func){"fexecve", args[0], NULL};
	libc_execs[2] = (struct ustr_func){"execveat", args[2], NULL};
	return ustr_uprobes(&t->s, libc_execs, 3, libc_made, t, env.lib, sizeof(env.lib), why);
}

/* And how many arguments there are, in an event of its own that is never too large. */
static int libc_argv_uprobes(struct tool_run *t, const char **why)
{
	static char argv[2][4096];
	fetch_argv(argv[0], sizeof(argv[0]), "$2");
	fetch_argv(argv[1], sizeof(argv[1]), "$3");
	libc_argvs[0] = (struct ustr_func){"execve", argv[0], "execve_argv"};
	libc_argvs[1] = (struct ustr_func){"fexecve", argv[0], "fexecve_argv"};
	libc_argvs[2] = (struct ustr_func){"execveat", argv[1], "execveat_argv"};
	return ustr_uprobes(&t->s, libc_argvs, 3, libc_argv_made, t, env.lib, sizeof(env.lib), why);
}

/* The loader's entry: the new program's stack, its pointers and its strings (two events:
 * the pointers are there even when the strings are too long to be written). */
static int loader_uprobes(struct tool_run *t, const char *target)
{
	static char stack[4096], strings[8192];
	int ret;
	fetch_stack(stack, sizeof(stack), "%sp", false, false);
	struct tep_event *ev = probe_try(&t->s, PROBE_UPROBE, 'p', "loader_argv", target, stack);
	if (ev && (ret = trace_role(t, ev, LOADER_IMAGE, 0, EXECARGS_LOADER)))
		return ret;
	env.loader_image = ev != NULL;
	fetch_stack(strings, sizeof(strings), "%sp", false, true);
	if (!(ev = probe_try(&t->s, PROBE_UPROBE, 'p', "loader", target, strings))) {
		*strstr(strings, " end=") = 0;
		ev = probe_try(&t->s, PROBE_UPROBE, 'p', "loader", target, strings);
	}
	if (ev && (ret = trace_role(t, ev, LOADER, 0, EXECARGS_LOADER)))
		return ret;
	env.loader = ev != NULL;
	return 0;
}

static int via_uprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	int before = env.nev, n = libc_uprobes(t, true, why), ret;
	if (n < 0 && !libc_failed && env.nev == before)
		n = libc_uprobes(t, false, why); /* no $comm in uprobes here */
	if (n >= 0 && !libc_failed)
		libc_argv_uprobes(t, why);
	if (libc_failed)
		return TOOL_FAIL;
	if (n < 0)
		return -1;
	/* The loader the C library asks for (its PT_INTERP), at its entry point. */
	char interp[PATH_MAX], target[PATH_MAX + 32];
	unsigned long long off;
	if (!usym_interp(env.lib, interp, sizeof(interp)) && realpath(interp, env.ld) &&
	    !usym_entry(env.ld, &off)) {
		snprintf(target, sizeof(target), "%s:0x%llx", env.ld, off);
		if ((ret = loader_uprobes(t, target)))
			return ret;
	}
	snprintf(env.what_args, sizeof(env.what_args), "uprobes on %.2000s%s%.2000s", env.lib,
		 env.loader ? " and " : "", env.loader ? env.ld : "");
	return 0;
}

static int via_proc(void *ctx, const char **why)
{
	snprintf(env.what_args, sizeof(env.what_args), "/proc/PID/cmdline");
	return 0;
}

static enum tool_code setup(struct tool_run *t)
{
	static const ladder_rung_fn rungs[] = {via_kprobe, via_eprobe, via_uprobe, via_proc};
	int ret;
	env.t = t;
	struct tep_event *exec_ev = session_load_event(&t->s, "sched", "sched_process_exec");
	if (!syspair_event(&t->s, "enter", "execve") || !syspair_event(&t->s, "exit", "execve") ||
	    !exec_ev) {
		fprintf(stderr, "execsnoop: tracepoints syscalls:sys_enter_execve, sys_exit_execve "
				"and sched:sched_process_exec needed (CONFIG_FTRACE_SYSCALLS)\n");
		return TOOL_FAIL;
	}
	if (syspair_init(&env.join, 256, sizeof(struct exec_data), exec_ended, t) ||
	    pair_init(&env.stash, 256, sizeof(struct execargs)) ||
	    pair_init(&env.counts, 256, sizeof(struct execargs)) ||
	    pair_init(&env.images, 256, sizeof(struct execargs_image)) ||
	    reader_on_lost(&t->r, syspair_lost, &env.join) || reader_on_lost(&t->r, lost, NULL) ||
	    session_exclude_self(&t->s))
		return TOOL_FAIL;
	int via = env.via;
	ret = ladder_climb(rungs, via_names, VIA_BEST, &via, t, "execsnoop");
	env.via = via;
	if (ret)
		return ret == -1 ? TOOL_FAIL : ret;
	for (int c = 0; c < NCALLS; c++) {
		struct tep_event *en = syspair_event(&t->s, "enter", calls[c]);
		struct tep_event *ex = syspair_event(&t->s, "exit", calls[c]);
		if (en && ex &&
		    ((ret = trace_role(t, en, ENTER, c, EXECARGS_NONE)) ||
		     (ret = trace_role(t, ex, EXIT, c, EXECARGS_NONE))))
			return ret;
	}
	if ((ret = trace_role(t, exec_ev, EXEC, 0, EXECARGS_NONE)))
		return ret;
	snprintf(t->traced, sizeof(t->traced), "exec()s, arguments via %s", env.what_args);
	return TOOL_OK;
}

static void banner(struct tool_run *t)
{
	fprintf(stderr, "Tracing %s. Ctrl-C to end.\n", t->traced);
	if (env.via == VIA_UPROBE)
		fprintf(stderr,
			"execsnoop: no kprobes or event probes here: the arguments of programs "
			"exec'd without the C library%s are read from /proc afterwards ([late])\n",
			env.loader ? " that are static (no loader)" : "");
}

static void end(struct tool_run *t)
{
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used)
			pending_show(&env.pend[i]);
	if (env.late || env.unknown)
		fprintf(stderr,
			"execsnoop: of %llu execs shown, %llu with arguments read from /proc after "
			"the exec ([late]), %llu whose arguments were not read (gone before they "
			"were read, a failed exec by a program without the C library, or more than "
			"one trace event holds)\n",
			(unsigned long long)env.shown, (unsigned long long)env.late,
			(unsigned long long)env.unknown);
	if (env.cut)
		fprintf(stderr,
			"execsnoop: %llu execs shown with arguments cut ([cut]): longer than one "
			"trace event holds (about 4 KB in all)%s\n",
			(unsigned long long)env.cut,
			(env.via == VIA_UPROBE || env.loader) && strpieces_needed() ?
				", or than this kernel's uprobes read of each (before Linux 6.12: "
				"in pieces, 256 bytes, fewer with many arguments)" :
				"");
}

static void cleanup(struct tool_run *t)
{
	syspair_free(&env.join);
	pair_free(&env.stash);
	pair_free(&env.counts);
	pair_free(&env.images);
}

static const struct tool execsnoop = {
	.name = "execsnoop",
	.opts = options,
	.examples = examples,
	.formats =
		(const char *const[]){"syscalls:sys_enter_execve", "syscalls:sys_exit_execve",
				      "syscalls:sys_enter_execveat", "syscalls:sys_exit_execveat",
				      "sched:sched_process_exec", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.setup = setup,
	.banner = banner,
	.table = &table,
	.row = &env.row,
	.wake = wake,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&execsnoop, argc, argv);
}
