// SPDX-License-Identifier: GPL-2.0-only
/*
 * execsnoop: trace new programs, one line per execve() or execveat(): the process (named as
 * the new program), its parent, the result and the arguments exactly as they were passed.
 *
 * The exec itself comes from tracepoints (syscalls:sys_enter_/sys_exit_execve(at), with
 * sched:sched_process_exec for the file the kernel ran and the thread that became the
 * leader), joined per thread (sysc.h). The arguments come from the best rung the kernel
 * offers:
 *   kprobe  the syscall's entry (__x64_sys_execve: argv from the saved user registers),
 *   eprobe  event probes on syscalls:sys_enter_execve(at) reading argv,
 *   uprobe  the C library's exec functions (in the caller, before the call) and the dynamic
 *           loader's entry point (in the new program, argc and argv on its stack: the
 *           programs exec'd without the C library, by a static shell say),
 *   proc    /proc/PID/cmdline read when the exec is seen: possibly late, marked so.
 * Each rung reads the argument pointers too (the loader: argc), so it stops at the end of
 * argv and knows when --max-args cut it.
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

#include "comm.h"
#include "out.h"
#include "pair.h"
#include "probe.h"
#include "reader.h"
#include "sysc.h"
#include "tool.h"
#include "usym.h"
#include "ustr.h"

#define MAX_ARGS 40	/* the most --max-args takes: 2 fetches each, the kernel takes 128 */
#define ARGS_BYTES 4096 /* as much as one event can hold */
#define PENDING 64	/* execs waiting for the loader's record */
#define LOADER_WAIT_NS 200000000ULL /* of the reader's time, when nothing else comes */
#define LOADER_LATE_NS 20000000ULL  /* of trace time: an event this much later came first */

static const char *const calls[] = {"execve", "execveat"};
#define NCALLS 2

/* Where the arguments came from. */
enum src { SRC_NONE, SRC_KPROBE, SRC_EPROBE, SRC_LIBC, SRC_LOADER, SRC_PROC };
static const char *const src_names[] = {"none", "kprobe", "eprobe", "uprobe", "loader", "proc"};
enum via { VIA_KPROBE, VIA_EPROBE, VIA_UPROBE, VIA_PROC, VIA_BEST };
static const char *const via_names[] = {"kprobe", "eprobe", "uprobe", "proc"};

struct args {
	unsigned char from; /* enum src */
	bool cut;	    /* there were more than are held */
	unsigned short n;   /* arguments held */
	unsigned short len; /* bytes of buf: n strings, each ending with a NUL */
	char buf[ARGS_BYTES];
};

/* What an event tells. */
enum role { ENTER, EXIT, EXEC, ARGS, LIBC, LOADER };

struct evinfo {
	enum role role;
	int call;
	enum src src;
	struct tep_format_field *ret, *filename, *pid, *old_pid, *argc;
	struct tep_format_field *ptr[MAX_ARGS + 1], *str[MAX_ARGS];
};

/* An exec in progress (the join's data). */
struct exec_data {
	char filename[PATH_MAX]; /* as the kernel ran it (sched_process_exec) */
	struct args a;
};

/* A successful exec whose arguments the loader will tell (if the program has one). */
struct pending {
	bool used;
	int pid, call;
	uint64_t ts, deadline;
	char pcomm[16];
	struct exec_data d;
	struct args fallback; /* /proc/PID/cmdline when the exec was seen */
};

static struct env {
	bool failed;		/* -x */
	bool quote;		/* -q */
	int max_args;		/* --max-args */
	const char *name, *arg; /* -n, -l */
	enum via via;		/* --via, then the rung in use */
	bool loader;		/* the loader's entry is probed */
	struct tool_run *t;
	struct sysc join;
	struct pair_table stash; /* tid -> struct args from the C library, before the call */
	struct pending pend[PENDING];
	int nev;
	struct evinfo ev[16];
	uint64_t late, unknown, shown;
	char lib[PATH_MAX], ld[PATH_MAX], what_args[PATH_MAX];
} env = {.max_args = 20, .via = VIA_BEST};

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
	{OPT_LONG + 1, "max-args", "N", "arguments shown per exec (default 20, at most 40)", 0},
	{OPT_LONG + 2, "via", "MECH",
	 "how to read arguments: kprobe, eprobe, uprobe or proc (default:\nthe best the kernel "
	 "offers)",
	 0},
	TOOL_EXEC,
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
	(void)t;
	switch (o->key) {
	case 'l': env.arg = opt_glob(arg, "ARG"); break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'q': env.quote = true; break;
	case 'x': env.failed = true; break;
	case OPT_LONG + 1: env.max_args = (int)opt_int(arg, 1, MAX_ARGS, "N (arguments)"); break;
	case OPT_LONG + 2: env.via = opt_choice(arg, via_names, VIA_BEST, "--via"); break;
	}
}

/* --- arguments ------------------------------------------------------------------------------ */

static void args_add(struct args *a, const char *s, size_t n)
{
	if (a->len + n + 1 > sizeof(a->buf)) {
		a->cut = true;
		return;
	}
	memcpy(a->buf + a->len, s, n);
	a->buf[a->len + n] = 0;
	a->len += (unsigned short)(n + 1);
	a->n++;
}

/* From a probe's record: argc (the loader) or the pointers say how many there are. A string
 * the kernel could not read makes the record useless (then /proc): an eprobe that cannot
 * read user memory (Debian's 6.1 and 6.12), a page not in memory. */
static bool args_from_record(struct args *a, const struct tep_record *rec, const struct evinfo *ei)
{
	int n = env.max_args;
	memset(a, 0, offsetof(struct args, buf));
	if (ei->argc) {
		long long argc = reader_num(rec, ei->argc);
		if (argc < n)
			n = argc < 0 ? 0 : (int)argc;
		a->cut = argc > env.max_args;
	} else {
		for (int i = 0; i <= env.max_args; i++)
			if (!ei->ptr[i] || !reader_num(rec, ei->ptr[i])) {
				n = i;
				break;
			}
		a->cut = n == env.max_args && ei->ptr[n] && reader_num(rec, ei->ptr[n]);
	}
	bool kernel = ei->src == SRC_KPROBE || ei->src == SRC_EPROBE;
	for (int i = 0; i < n; i++) {
		size_t len;
		const char *s = ei->str[i] ? reader_str(rec, ei->str[i], &len) : NULL;
		/* A uprobe records "" with its NUL and a fault with nothing. A kprobe or eprobe
		 * records "" with nothing (its copy does not count the NUL of an empty string)
		 * and, since Linux 6.4, a fault as the text "(fault)". */
		if (!s || (!len && !kernel) || (kernel && len >= 7 && !strncmp(s, "(fault)", len)))
			return false;
		args_add(a, s, len ? strnlen(s, len) : 0);
	}
	/* argv[0] read as "" from every exec: an eprobe that reads nothing (6.1). */
	if (ei->src == SRC_EPROBE && n && !a->buf[0])
		return false;
	a->from = (unsigned char)ei->src;
	return true;
}

/* The last resort: the process's command line as it is now (late: it may have changed, or
 * be another program's after a second exec). */
static void args_from_proc(struct args *a, int pid)
{
	char path[64], buf[ARGS_BYTES];
	memset(a, 0, offsetof(struct args, buf));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf));
	bool more = n == (ssize_t)sizeof(buf);
	close(fd);
	if (n <= 0)
		return; /* gone, or a kernel thread */
	for (ssize_t i = 0; i < n && a->n < env.max_args;) {
		size_t len = strnlen(buf + i, (size_t)(n - i));
		if (i + (ssize_t)len == n && more)
			break; /* cut by the read */
		args_add(a, buf + i, len);
		i += (ssize_t)len + 1;
		if (a->n == env.max_args && i < n)
			a->cut = true;
	}
	a->cut |= more;
	a->from = SRC_PROC;
}

/* --- output --------------------------------------------------------------------------------- */

static bool arg_matches(const struct args *a)
{
	if (!env.arg)
		return true;
	for (size_t o = 0; o < a->len; o += strlen(a->buf + o) + 1)
		if (!fnmatch(env.arg, a->buf + o, 0))
			return true;
	return false;
}

static void show(uint64_t ts, int pid, int call, long long ret, const char *pcomm,
		 const struct exec_data *d)
{
	struct tool_run *t = env.t;
	const struct args *a = &d->a;
	struct comm_task ti;
	int ppid = comm_task(t->names, pid, &ti) ? -1 : ti.ppid;
	if ((env.name && fnmatch(env.name, pcomm, 0)) || !arg_matches(a))
		return;
	env.shown++;
	env.late += a->from == SRC_PROC;
	env.unknown += a->from == SRC_NONE;
	char when[16];
	if (t->o.json) {
		printf("{\"time\":\"%s\",\"ts\":%.6f,\"pcomm\":", out_wallclock(ts, when),
		       ts / 1e9);
		out_json_str(stdout, pcomm, 16);
		printf(",\"pid\":%d,\"ppid\":", pid);
		printf(ppid >= 0 ? "%d" : "null", ppid);
		printf(",\"call\":\"%s\",\"ret\":%lld,\"filename\":", calls[call], ret);
		if (d->filename[0])
			out_json_str(stdout, d->filename, sizeof(d->filename));
		else
			fputs("null", stdout);
		fputs(",\"args\":", stdout);
		if (a->from == SRC_NONE) {
			fputs("null", stdout);
		} else {
			putchar('[');
			for (size_t o = 0; o < a->len; o += strlen(a->buf + o) + 1) {
				if (o)
					putchar(',');
				out_json_str(stdout, a->buf + o, a->len - o);
			}
			putchar(']');
		}
		printf(",\"args_cut\":%s,\"args_from\":\"%s\"}\n", a->cut ? "true" : "false",
		       src_names[a->from]);
		return;
	}
	if (t->o.timestamp)
		printf("%-14.6f ", ts / 1e9);
	if (t->o.wallclock)
		printf("%-8s ", out_wallclock(ts, when));
	out_text(stdout, pcomm, 16, 16);
	printf(" %7d ", pid);
	if (ppid >= 0)
		printf("%7d", ppid);
	else
		printf("%7s", "?");
	printf(" %4lld ", ret);
	if (a->from == SRC_NONE) {
		/* No arguments: the file the kernel ran, when it ran one. */
		if (d->filename[0]) {
			out_text_arg(stdout, d->filename, strlen(d->filename), env.quote);
			putchar(' ');
		}
		fputs("[no arguments]\n", stdout);
		return;
	}
	for (size_t o = 0; o < a->len; o += strlen(a->buf + o) + 1) {
		if (o)
			putchar(' ');
		out_text_arg(stdout, a->buf + o, strlen(a->buf + o), env.quote);
	}
	if (a->cut)
		fputs(" [...]", stdout);
	if (a->from == SRC_PROC)
		fputs(" [late]", stdout);
	putchar('\n');
}

static void header(struct tool_run *t)
{
	if (t->o.timestamp)
		printf("%-14s ", "TIME(s)");
	if (t->o.wallclock)
		printf("%-8s ", "TIME");
	printf("%-16s %7s %7s %4s %s\n", "PCOMM", "PID", "PPID", "RET", "ARGS");
}

/* --- the join ------------------------------------------------------------------------------- */

static void pending_show(struct pending *p)
{
	if (p->d.a.from == SRC_NONE)
		memcpy(&p->d.a, &p->fallback, offsetof(struct args, buf) + p->fallback.len);
	show(p->ts, p->pid, p->call, 0, p->pcomm, &p->d);
	p->used = false;
}

/* An exec ended: shown now, or (a success without arguments, the loader probed) when the
 * loader's record comes or LOADER_WAIT_NS have passed (a static program has no loader). */
static void done(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct tool_run *t = ctx;
	struct sysc_call *c = call;
	struct exec_data *d = sysc_data(c);
	if (ret < 0 && !env.failed)
		return;
	const char *pcomm = tool_comm(t, tid);
	if (ret < 0 || d->a.from != SRC_NONE || !env.loader) {
		if (ret == 0 && d->a.from == SRC_NONE)
			args_from_proc(&d->a, tid);
		show(rec->ts, tid, c->which, ret, pcomm, d);
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
	p->pid = tid;
	p->call = c->which;
	p->ts = rec->ts;
	p->deadline = reader_now() + LOADER_WAIT_NS;
	snprintf(p->pcomm, sizeof(p->pcomm), "%s", pcomm);
	memcpy(p->d.filename, d->filename, sizeof(d->filename));
	p->d.a.from = SRC_NONE;
	/* Read now, as early as it can be: used if the loader says nothing. */
	args_from_proc(&p->fallback, tid);
}

static void on_event(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = tep_data_pid(env.t->s.tep, rec);
	/* Events come in time order: the loader runs as soon as the exec returns, so a wait
	 * this long means there is none (a static program). Shown first, in order. */
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used && env.pend[i].ts + LOADER_LATE_NS < rec->ts)
			pending_show(&env.pend[i]);
	switch (ei->role) {
	case ENTER: {
		struct exec_data *d = sysc_data(sysc_enter(&env.join, tid, rec->ts, ei->call));
		struct args *st = pair_get(&env.stash, (uint64_t)tid, 0);
		if (st) { /* the C library's record of this call */
			memcpy(&d->a, st, offsetof(struct args, buf) + st->len);
			pair_del(&env.stash, st);
		}
		break;
	}
	case ARGS: {
		struct sysc_call *c = sysc_current(&env.join, tid);
		struct exec_data *d = c ? sysc_data(c) : NULL;
		if (d && d->a.from == SRC_NONE)
			args_from_record(&d->a, rec, ei);
		break;
	}
	case LIBC: {
		struct args *st = pair_put(&env.stash, (uint64_t)tid, 0);
		if (!args_from_record(st, rec, ei))
			pair_del(&env.stash, st);
		break;
	}
	case EXEC: {
		/* The kernel ran the file; a thread other than the leader now has its ID. */
		int pid = (int)reader_num(rec, ei->pid), old = (int)reader_num(rec, ei->old_pid);
		struct sysc_call *c = sysc_move(&env.join, old, pid);
		if (c)
			reader_strcpy(((struct exec_data *)sysc_data(c))->filename, PATH_MAX, rec,
				      ei->filename);
		break;
	}
	case EXIT: sysc_exit(&env.join, rec, tid, reader_num(rec, ei->ret)); break;
	case LOADER:
		for (int i = 0; i < PENDING; i++) {
			struct pending *p = &env.pend[i];
			if (p->used && p->pid == tid) {
				args_from_record(&p->d.a, rec, ei);
				pending_show(p);
			}
		}
		break;
	}
}

/* Lost events: the C library's records may belong to calls whose entry was lost. */
static void lost(int cpu, long long n, void *ctx)
{
	(void)cpu;
	(void)n;
	(void)ctx;
	pair_clear(&env.stash);
}

static void wake(struct tool_run *t, uint64_t now)
{
	(void)t;
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used && env.pend[i].deadline <= now)
			pending_show(&env.pend[i]);
}

/* --- the rungs ------------------------------------------------------------------------------ */

static int trace(struct tool_run *t, struct tep_event *ev, enum role role, int call, enum src src)
{
	struct evinfo *ei = &env.ev[env.nev++];
	*ei = (struct evinfo){.role = role, .call = call, .src = src};
	ei->ret = tep_find_field(ev, "ret");
	ei->filename = tep_find_field(ev, "filename");
	ei->pid = tep_find_field(ev, "pid");
	ei->old_pid = tep_find_field(ev, "old_pid");
	ei->argc = tep_find_field(ev, "argc");
	for (int i = 0; i <= env.max_args; i++) {
		char f[16];
		snprintf(f, sizeof(f), "p%d", i);
		ei->ptr[i] = tep_find_field(ev, f);
		snprintf(f, sizeof(f), "a%d", i);
		if (i < env.max_args)
			ei->str[i] = tep_find_field(ev, f);
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
 * array is in user memory), "p0=+0(ARGV):u64 a0=+0(+0(ARGV)):string ..." in a uprobe, and
 * with argc at the loader's entry "argc=+0(%sp):u64 a0=+0(+8(%sp)):string ...". */
static void fetch_args(char *out, size_t len, const char *argv, bool kernel, bool argc)
{
	const char *u = kernel ? "u" : "", *type = kernel ? "ustring" : "string";
	size_t o = 0;
	if (argc)
		o += (size_t)snprintf(out + o, len - o, "argc=+0(%%sp):u64");
	for (int i = 0; i <= env.max_args && o < len; i++) {
		if (!argc)
			o += (size_t)snprintf(out + o, len - o, "%sp%d=+%s%d(%s):u64", o ? " " : "",
					      i, u, 8 * i, argv);
		if (i < env.max_args && o < len)
			o += (size_t)snprintf(out + o, len - o, " a%d=+0(+%s%d(%s)):%s", i, u,
					      8 * i + (argc ? 8 : 0), argv, type);
	}
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
			if (ev && (ret = trace(t, ev, ARGS, c, SRC_KPROBE)))
				return ret;
			n += ev != NULL;
		}
		if (!n)
			continue;
		snprintf(env.what_args, sizeof(env.what_args), "kprobes on %s%s%s",
			 entries[e].funcs[0], n > 1 ? " and " : "",
			 n > 1 ? entries[e].funcs[1] : "");
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
		if (!sysc_event(&t->s, "enter", calls[c]))
			continue;
		char name[32];
		snprintf(name, sizeof(name), "%s_args", calls[c]);
		struct tep_event *ev = ustr_eprobe(&t->s, name, calls[c], args);
		if (!ev && n == 0)
			return -1;
		if (ev && (ret = trace(t, ev, ARGS, c, SRC_EPROBE)))
			return ret;
		n += ev != NULL;
	}
	snprintf(env.what_args, sizeof(env.what_args), "event probes on syscalls:sys_enter_exec*");
	return n ? 0 : -1;
}

/* 3: the C library's exec functions (execv, execvp, posix_spawn, system() all end in one
 * of them), and the dynamic loader's entry. */
static struct ustr_func libc_execs[3];
static bool libc_failed;

static void libc_made(struct tep_event *ev, int i, void *ctx)
{
	(void)i;
	if (!libc_failed && trace(ctx, ev, LIBC, 0, SRC_LIBC))
		libc_failed = true; /* said on stderr */
}

static int via_uprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	static char args[3][8192], largs[8192];
	/* execve(path, argv, envp), fexecve(fd, argv, envp), execveat(fd, path, argv, ...) */
	fetch_args(args[0], sizeof(args[0]), "$2", false, false);
	fetch_args(args[2], sizeof(args[2]), "$3", false, false);
	libc_execs[0] = (struct ustr_func){"execve", args[0]};
	libc_execs[1] = (struct ustr_func){"fexecve", args[0]};
	libc_execs[2] = (struct ustr_func){"execveat", args[2]};
	int n = ustr_uprobes(&t->s, libc_execs, 3, libc_made, t, env.lib, sizeof(env.lib), why);
	if (libc_failed)
		return TOOL_FAIL;
	if (n < 0)
		return -1;
	/* The loader the C library asks for (its PT_INTERP), at its entry point. */
	char interp[PATH_MAX], target[PATH_MAX + 32];
	unsigned long long off;
	if (!usym_interp(env.lib, interp, sizeof(interp)) && realpath(interp, env.ld) &&
	    !usym_entry(env.ld, &off)) {
		fetch_args(largs, sizeof(largs), "%sp", false, true);
		snprintf(target, sizeof(target), "%s:0x%llx", env.ld, off);
		struct tep_event *ev = probe_try(&t->s, PROBE_UPROBE, 'p', "loader", target, largs);
		int ret;
		if (ev && (ret = trace(t, ev, LOADER, 0, SRC_LOADER)))
			return ret;
		env.loader = ev != NULL;
	}
	snprintf(env.what_args, sizeof(env.what_args), "uprobes on %.2000s%s%.2000s", env.lib,
		 env.loader ? " and " : "", env.loader ? env.ld : "");
	return 0;
}

static int via_proc(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	(void)t;
	(void)why;
	snprintf(env.what_args, sizeof(env.what_args), "/proc/PID/cmdline");
	return 0;
}

static int setup(struct tool_run *t)
{
	static const ustr_rung_fn rungs[] = {via_kprobe, via_eprobe, via_uprobe, via_proc};
	int ret;
	env.t = t;
	struct tep_event *exec_ev = session_load_event(&t->s, "sched", "sched_process_exec");
	if (!sysc_event(&t->s, "enter", "execve") || !sysc_event(&t->s, "exit", "execve") ||
	    !exec_ev) {
		fprintf(stderr, "execsnoop: tracepoints syscalls:sys_enter_execve, sys_exit_execve "
				"and sched:sched_process_exec needed (CONFIG_FTRACE_SYSCALLS)\n");
		return TOOL_FAIL;
	}
	if (sysc_init(&env.join, 256, sizeof(struct exec_data), done, t) ||
	    pair_init(&env.stash, 256, sizeof(struct args)) ||
	    reader_on_lost(&t->r, sysc_lost, &env.join) || reader_on_lost(&t->r, lost, NULL) ||
	    session_exclude_self(&t->s))
		return TOOL_FAIL;
	int via = env.via;
	ret = ustr_climb(rungs, via_names, VIA_BEST, &via, t, "execsnoop");
	env.via = via;
	if (ret)
		return ret == -1 ? TOOL_FAIL : ret;
	for (int c = 0; c < NCALLS; c++) {
		struct tep_event *en = sysc_event(&t->s, "enter", calls[c]);
		struct tep_event *ex = sysc_event(&t->s, "exit", calls[c]);
		if (en && ex &&
		    ((ret = trace(t, en, ENTER, c, SRC_NONE)) ||
		     (ret = trace(t, ex, EXIT, c, SRC_NONE))))
			return ret;
	}
	if ((ret = trace(t, exec_ev, EXEC, 0, SRC_NONE)))
		return ret;
	snprintf(t->what, sizeof(t->what), "exec()s, arguments via %s", env.what_args);
	return TOOL_OK;
}

static void banner(struct tool_run *t)
{
	fprintf(stderr, "Tracing %s. Ctrl-C to end.\n", t->what);
	if (env.via == VIA_UPROBE)
		fprintf(stderr,
			"execsnoop: no kprobes or event probes here: the arguments of programs "
			"exec'd without the C library%s are read from /proc afterwards ([late])\n",
			env.loader ? " that are static (no loader)" : "");
}

static void end(struct tool_run *t)
{
	(void)t;
	for (int i = 0; i < PENDING; i++)
		if (env.pend[i].used)
			pending_show(&env.pend[i]);
	if (env.late || env.unknown)
		fprintf(stderr,
			"execsnoop: of %llu execs shown, %llu with arguments read from /proc after "
			"the exec ([late]), %llu without arguments (gone before they were read, or "
			"a failed exec by a program without the C library)\n",
			(unsigned long long)env.shown, (unsigned long long)env.late,
			(unsigned long long)env.unknown);
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	sysc_free(&env.join);
	pair_free(&env.stash);
}

static const struct tool execsnoop = {
	.name = "execsnoop",
	.opts = options,
	.examples = examples,
	.formats =
		(const char *const[]){"syscalls:sys_enter_execve", "syscalls:sys_exit_execve",
				      "syscalls:sys_enter_execveat", "syscalls:sys_exit_execveat",
				      "sched:sched_process_exec", NULL},
	.option = option,
	.setup = setup,
	.banner = banner,
	.header = header,
	.wake = wake,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&execsnoop, argc, argv);
}
