// SPDX-License-Identifier: GPL-2.0-only
/*
 * opensnoop: trace open(), openat(), openat2() and creat() with the path, the result and the
 * process. The result comes from the syscall's exit tracepoint; the path from the best
 * mechanism the kernel offers (ustr.h): a kprobe where the kernel has copied it, an event
 * probe on the syscall's entry, or uprobes on the C library's open functions. Entry, path and
 * exit are joined per thread (sysc.h).
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "ladder.h"
#include "out.h"
#include "probe.h"
#include "reader.h"
#include "sysc.h"
#include "tool.h"
#include "ustr.h"

/* The system calls, each traced where the kernel has it (arm64 has no open, 6.x has openat2). */
static const char *const calls[] = {"open", "openat", "openat2", "creat"};
#define NCALLS 4
enum { CALL_CREAT = 3, CALL_UNKNOWN = -1 };

#define O_CREAT_ 0100
#define O_TMPFILE_ 020000000 /* __O_TMPFILE: mode matters with it too */
#define CREAT_FLAGS 01101    /* creat(): O_CREAT | O_WRONLY | O_TRUNC */

/* What an event adds to a thread's open: its start (with the path when the probe reads it),
 * the path a kprobe read during the call, or the result. */
enum role { ENTER, NAME, EXIT };

struct evinfo {
	enum role role;
	int call; /* index in calls[], CALL_UNKNOWN for a C library function */
	bool creat;
	struct tep_format_field *file, *flags, *mode, *ret;
};

/* The tool's part of a call in progress. */
struct open_data {
	long long flags, mode; /* -1: unknown */
	bool named;
	char path[PATH_MAX];
};

static struct env {
	const char *pattern; /* only paths containing it (a glob when it has * ? [) */
	bool glob;
	bool failed;	   /* -x */
	bool extended;	   /* -e */
	enum ustr_via via; /* --via, then the mechanism in use */
	struct tool_run *t;
	struct sysc join;
	int nev;
	bool failed_trace;
	int exit_call; /* of the exit being joined */
	struct evinfo ev[3 * NCALLS + 24];
	char lib[PATH_MAX];
} env = {.via = USTR_BEST};

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'e', NULL, NULL, "FLAGS and MODE columns (octal)", 0},
	TOOL_JSON("one JSON object per open"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'x', NULL, NULL, "only failed opens", 0},
	{OPT_LONG + 1, "via", "MECH",
	 "how to read paths: kprobe, eprobe or uprobe (default: the best the\nkernel offers)", 0},
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"opensnoop                 # trace file opens",
	"opensnoop -x              # only failed opens",
	"opensnoop -T -p 181       # PID 181 only, with wall-clock times",
	"opensnoop -n nginx -e     # processes named nginx, with flags and mode",
	"opensnoop '/etc/*'        # paths under /etc",
	"opensnoop -j -d 10 > o.json   # 10 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	(void)t;
	switch (o->key) {
	case 'e': env.extended = true; break;
	case 'x': env.failed = true; break;
	case OPT_LONG + 1: env.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	(void)t;
	if (argc > 0) {
		env.pattern = opt_glob(argv[0], "PATTERN");
		env.glob = strpbrk(env.pattern, "*?[") != NULL;
	}
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

/* --- output -------------------------------------------------------------------------------- */

static bool path_matches(const char *path)
{
	if (!env.pattern)
		return true;
	return env.glob ? fnmatch(env.pattern, path, 0) == 0 : strstr(path, env.pattern) != NULL;
}

static void done(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct tool_run *t = ctx;
	struct sysc_call *c = call;
	const struct open_data *o = sysc_data(c);
	int fd = ret >= 0 ? (int)ret : -1, err = ret < 0 ? (int)-ret : 0;
	/* An eprobe that cannot read user memory records "" (6.1) or "(fault)" (6.12). */
	bool known = o->named && o->path[0] && strcmp(o->path, "(fault)");
	const char *path = known ? o->path : "[unknown]";
	if ((env.failed && ret >= 0) || !path_matches(path))
		return;
	const char *comm = tool_comm(t, tid);
	/* The mode is an argument only when a file may be created. */
	long long mode = o->flags >= 0 && !(o->flags & (O_CREAT_ | O_TMPFILE_)) ? 0 : o->mode;
	/* The system call made, as its exit says (a C library function may make another). */
	const char *name = calls[env.exit_call];
	char when[16];
	if (t->o.json) {
		printf("{\"time\":\"%s\",\"ts\":%.6f,\"pid\":%d,\"comm\":",
		       out_wallclock(rec->ts, when), rec->ts / 1e9, tid);
		out_json_str(stdout, comm, 16);
		printf(",\"call\":\"%s\",\"fd\":%d,\"err\":%d,", name, fd, err);
		printf(o->flags >= 0 ? "\"flags\":%lld," : "\"flags\":null,", o->flags);
		printf(mode >= 0 ? "\"mode\":%lld,\"path\":" : "\"mode\":null,\"path\":", mode);
		if (known)
			out_json_str(stdout, o->path, sizeof(o->path));
		else
			fputs("null", stdout);
		fputs("}\n", stdout);
		return;
	}
	if (t->o.timestamp)
		printf("%-14.6f ", rec->ts / 1e9);
	if (t->o.wallclock)
		printf("%-8s ", out_wallclock(rec->ts, when));
	out_text(stdout, comm, 16, 16);
	printf(" %7d %4d %3d ", tid, fd, err);
	if (env.extended) {
		if (o->flags >= 0)
			printf("%08llo ", o->flags);
		else
			printf("%8s ", "-");
		if (mode >= 0)
			printf("%04llo ", mode);
		else
			printf("%4s ", "-");
	}
	out_text(stdout, path, sizeof(o->path), 0);
	putchar('\n');
}

static void header(struct tool_run *t)
{
	if (t->o.timestamp)
		printf("%-14s ", "TIME(s)");
	if (t->o.wallclock)
		printf("%-8s ", "TIME");
	printf("%-16s %7s %4s %3s ", "COMM", "PID", "FD", "ERR");
	if (env.extended)
		printf("%-8s %-4s ", "FLAGS", "MODE");
	printf("PATH\n");
}

/* --- per event ------------------------------------------------------------------------------ */

static void on_event(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = tep_data_pid(env.t->s.tep, rec);
	if (ei->role == EXIT) {
		env.exit_call = ei->call;
		sysc_exit(&env.join, rec, tid, reader_num(rec, ei->ret));
		return;
	}
	struct sysc_call *c = ei->role == ENTER ? sysc_enter(&env.join, tid, rec->ts, ei->call) :
						  sysc_current(&env.join, tid);
	struct open_data *o = c ? sysc_data(c) : NULL;
	/* A kprobe's path only within an open: do_filp_open() also serves execve(), getname()
	 * most system calls. */
	if (!o || (ei->role == NAME && o->named))
		return;
	if (ei->role == ENTER) {
		o->flags = ei->creat ? CREAT_FLAGS : ei->flags ? reader_num(rec, ei->flags) : -1;
		o->mode = ei->mode ? reader_num(rec, ei->mode) : -1;
	}
	if (ei->file) {
		o->named = true;
		reader_strcpy(o->path, sizeof(o->path), rec, ei->file);
	}
}

/* --- the mechanisms ------------------------------------------------------------------------ */

static int trace(struct tool_run *t, struct tep_event *ev, enum role role, int call, bool creat)
{
	struct evinfo *ei = &env.ev[env.nev++];
	*ei = (struct evinfo){
		.role = role,
		.call = call,
		.creat = creat,
		.file = tep_find_field(ev, "file"),
		.flags = tep_find_field(ev, "flags"),
		.mode = tep_find_field(ev, "mode"),
		.ret = tep_find_field(ev, "ret"),
	};
	return tool_trace(t, ev, NULL, on_event, ei);
}

/* 1: the path as the kernel copied it from user space. do_filp_open() gets it first
 * (struct filename, name at offset 0); getname() returns it on kernels where that is not
 * probeable. The flags and mode come from the syscall entries. */
static int via_kprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	static const struct ustr_kfunc funcs[] = {
		{'p', "do_filp_open", "file=+0(+0($arg2)):string"},
		{'r', "getname", "file=+0(+0($retval)):string"},
	};
	int which, ret;
	*why = "no kprobes (CONFIG_KPROBE_EVENTS) in this kernel";
	if (!probe_available(&t->s, PROBE_KPROBE, true))
		return -1;
	*why = "neither do_filp_open() nor getname() can be probed in this kernel";
	struct tep_event *ev = ustr_kprobe(&t->s, "path", funcs, 2, &which);
	if (!ev)
		return -1;
	for (int c = 0; c < NCALLS; c++) {
		struct tep_event *enter = sysc_event(&t->s, "enter", calls[c]);
		if (enter && (ret = trace(t, enter, ENTER, c, c == CALL_CREAT)))
			return ret;
	}
	snprintf(t->what, sizeof(t->what), "open()s via kprobes (%s)", funcs[which].func);
	return trace(t, ev, NAME, CALL_UNKNOWN, false);
}

/* 2: event probes on the syscall entries, reading the path from user memory. On Debian's 6.1
 * and 6.12 every path reads "(fault)" (whatever the fetch syntax): kprobes come first. */
static int via_eprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	static const char *const args[NCALLS] = {
		"file=+0($filename):ustring flags=$flags:u64 mode=$mode:u64",
		"file=+0($filename):ustring flags=$flags:u64 mode=$mode:u64",
		"file=+0($filename):ustring flags=+u0($how):u64 mode=+u8($how):u64",
		"file=+0($pathname):ustring mode=$mode:u64",
	};
	int n = 0, ret;
	*why = "no event probes on syscall tracepoints (CONFIG_EPROBE_EVENTS) in this kernel";
	for (int c = 0; c < NCALLS; c++) {
		if (!sysc_event(&t->s, "enter", calls[c]))
			continue;
		struct tep_event *ev = ustr_eprobe(&t->s, calls[c], calls[c], args[c]);
		if (!ev && n == 0)
			return -1;
		if (!ev)
			return TOOL_FAIL;
		if ((ret = trace(t, ev, ENTER, c, c == CALL_CREAT)))
			return ret;
		n++;
	}
	snprintf(t->what, sizeof(t->what), "open()s via event probes on syscalls:sys_enter_open*");
	return n ? 0 : -1;
}

/* 3: uprobes on the C library's open functions, with the ABI's argument registers. */
static const struct ustr_func libc_opens[] = {
	{"open64", "file=+0($1):string flags=$2:u64 mode=$3:u64", NULL},
	{"open", "file=+0($1):string flags=$2:u64 mode=$3:u64", NULL},
	{"__open64", "file=+0($1):string flags=$2:u64 mode=$3:u64", NULL},
	{"__open", "file=+0($1):string flags=$2:u64 mode=$3:u64", NULL},
	{"__open64_nocancel", "file=+0($1):string flags=$2:u64 mode=$3:u64", NULL},
	{"__open_nocancel", "file=+0($1):string flags=$2:u64 mode=$3:u64", NULL},
	{"__open64_2", "file=+0($1):string flags=$2:u64", NULL},
	{"__open_2", "file=+0($1):string flags=$2:u64", NULL},
	{"openat64", "file=+0($2):string flags=$3:u64 mode=$4:u64", NULL},
	{"openat", "file=+0($2):string flags=$3:u64 mode=$4:u64", NULL},
	{"__openat64_2", "file=+0($2):string flags=$3:u64", NULL},
	{"__openat_2", "file=+0($2):string flags=$3:u64", NULL},
	{"creat64", "file=+0($1):string mode=$2:u64", NULL},
	{"creat", "file=+0($1):string mode=$2:u64", NULL},
};

static void uprobe_made(struct tep_event *ev, int i, void *ctx)
{
	struct tool_run *t = ctx;
	bool creat = !strncmp(libc_opens[i].sym, "creat", 5);
	if (!env.failed_trace && trace(t, ev, ENTER, creat ? CALL_CREAT : CALL_UNKNOWN, creat))
		env.failed_trace = true; /* said on stderr */
}

static int via_uprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	int n = ustr_uprobes(&t->s, libc_opens, sizeof(libc_opens) / sizeof(*libc_opens),
			     uprobe_made, t, env.lib, sizeof(env.lib), why);
	if (env.failed_trace)
		return TOOL_FAIL;
	if (n < 0)
		return -1;
	snprintf(t->what, sizeof(t->what), "open()s via uprobes on %d functions of %s", n, env.lib);
	return 0;
}

static int setup(struct tool_run *t)
{
	static const ladder_rung_fn rungs[] = {via_kprobe, via_eprobe, via_uprobe};
	int ret, via = env.via;
	env.t = t;
	if (!sysc_event(&t->s, "exit", "openat")) {
		fprintf(stderr,
			"opensnoop: tracepoint syscalls:sys_exit_openat not available in this "
			"kernel (CONFIG_FTRACE_SYSCALLS)\n");
		return TOOL_FAIL;
	}
	/* Every event here happens in a process: leave ourselves out before any is written. */
	if (sysc_init(&env.join, 1024, sizeof(struct open_data), done, t) ||
	    reader_on_lost(&t->r, sysc_lost, &env.join) || session_exclude_self(&t->s))
		return TOOL_FAIL;
	bool chosen = env.via != USTR_BEST;
	ret = ladder_climb(rungs, ustr_via_names, USTR_BEST, &via, t, "opensnoop");
	env.via = via;
	if (!chosen && ret == 0 && env.via == USTR_UPROBE)
		fprintf(stderr, "opensnoop: no kprobes or event probes in this kernel "
				"(CONFIG_KPROBE_EVENTS, CONFIG_EPROBE_EVENTS): only programs that "
				"open files through the C library are seen\n");
	if (!chosen && ret == -1)
		fprintf(stderr, "opensnoop: no way to read paths in this kernel: needs kprobes "
				"(CONFIG_KPROBE_EVENTS), event probes (CONFIG_EPROBE_EVENTS) or "
				"uprobes (CONFIG_UPROBE_EVENTS)\n");
	if (ret)
		return ret == -1 ? TOOL_FAIL : ret;
	for (int c = 0; c < NCALLS; c++) {
		struct tep_event *ex = sysc_event(&t->s, "exit", calls[c]);
		if (ex && (ret = trace(t, ex, EXIT, c, false)))
			return ret;
	}
	return TOOL_OK;
}

static void end(struct tool_run *t)
{
	(void)t;
	if (env.via == USTR_UPROBE && env.join.unpaired)
		fprintf(stderr,
			"opensnoop: %llu opens without the C library's open functions were "
			"not shown\n",
			(unsigned long long)env.join.unpaired);
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	sysc_free(&env.join);
}

static const struct tool opensnoop = {
	.name = "opensnoop",
	.opts = options,
	.operands = "[PATTERN]",
	.operand_help =
		"   PATTERN     only paths containing PATTERN (a glob when it has * ? or [)\n",
	.examples = examples,
	.formats =
		(const char *const[]){"syscalls:sys_enter_open", "syscalls:sys_exit_open",
				      "syscalls:sys_enter_openat", "syscalls:sys_exit_openat",
				      "syscalls:sys_enter_openat2", "syscalls:sys_exit_openat2",
				      "syscalls:sys_enter_creat", "syscalls:sys_exit_creat", NULL},
	.option = option,
	.operands_fn = operands,
	.setup = setup,
	.header = header,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&opensnoop, argc, argv);
}
