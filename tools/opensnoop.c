// SPDX-License-Identifier: GPL-2.0-only
/*
 * opensnoop: trace open(), openat(), openat2() and creat() with the path, the result and the
 * process. The result comes from the syscall's exit tracepoint; the path from the best
 * mechanism the kernel offers (ustr.h): a kprobe where the kernel has copied it, an event
 * probe on the syscall's entry, or uprobes on the C library's open functions. Entry, path and
 * exit are joined per thread (syspair.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/ladder.h"
#include "base/out.h"
#include "kernel/probe.h"
#include "kernel/strpieces.h"
#include "stream/reader.h"
#include "base/row.h"
#include "join/syspair.h"
#include "tool.h"
#include "domain/ustr.h"

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
	bool uprobe; /* on a C library function */
	/* ptr: the path's address in the caller, for a path the kernel could not copy; end: a
	 * uprobe's last string, missing when the path took its room (4 KB or more) */
	struct tep_format_field *file, *flags, *mode, *ret, *ptr, *end;
};

/* The tool's part of a call in progress. */
struct open_data {
	long long flags, mode; /* -1: unknown */
	bool named;
	bool cut;    /* the path held is a prefix */
	bool pieced; /* that of a uprobe's pieces (strpieces.h): the rest read late */
	/* uprobes: a C library function's two probes seen, the path's (missing when too long
	 * for a trace event) and its companion's (the arguments without the path) */
	bool str_seen, ptr_seen;
	uint64_t ptr; /* where the caller passed the path, 0: not known */
	char path[PATH_MAX];
};

/* A path as it is shown: read whole, or a prefix of one len bytes long (SIZE_MAX: at least
 * as long as the prefix, or than PATH_MAX when atleast_max), read late from the caller's
 * memory. */
struct shown_path {
	const char *s;
	size_t held, len;
	bool late, atleast_max;
};

static struct env {
	const char *pattern; /* only paths containing it (a glob when it has * ? [) */
	bool glob;
	bool failed;	   /* -x */
	bool extended;	   /* -e */
	enum ustr_via via; /* --via, then the mechanism in use */
	struct syspair join;
	int nev;
	bool failed_trace;
	int exit_call; /* of the exit being joined */
	struct evinfo ev[3 * NCALLS + 24];
	char lib[PATH_MAX];
	struct row row;
} env = {.via = USTR_BEST};

enum { OPT_VIA = OPT_LONG + 1 };

/* One line per open, at its return. FLAGS and MODE are octal in text, numbers in JSON; what
 * is known of a long path is said after it in text, in three keys in JSON. */
static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task's name when it opened"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its thread ID"},
	{NULL, "call", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "the system call made: open, openat, openat2 or creat"},
	{"FD", "fd", 4, ROW_INT, 0, 0, "the file descriptor returned, -1 on failure"},
	{"ERR", "err", 3, ROW_INT, 0, 0, "the errno of a failure (ENOENT 2), 0 on success"},
	{"FLAGS", "flags", -8, ROW_INT, 0, ROW_OPTIONAL,
	 "the open flags (-e: octal in text); null when not known"},
	{"MODE", "mode", -4, ROW_INT, 0, ROW_OPTIONAL,
	 "the creation mode, 0 when the call creates no file (-e: octal in text); null when not "
	 "known"},
	/* width 0: the last column of the text line, not padded */
	{"PATH", "path", 0, ROW_STR, 0, 0,
	 "the path as the program passed it; null when not known"},
	{NULL, "path_cut", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "true when the path was longer than what is shown"},
	{NULL, "path_len", 0, ROW_UINT, 0, ROW_NOTEXT, "its length in bytes; null when not known"},
	{NULL, "path_late", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "true when it was read from the caller's memory after the call"},
};
static const struct row_table table = ROW_TABLE("each open", cols);

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
	{OPT_VIA, "via", "MECH",
	 "how to read paths: kprobe, eprobe or uprobe (default: the best the\nkernel offers)", 0},
	TOOL_JSON_KEYS,
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
	switch (o->key) {
	case 'e': env.extended = true; break;
	case 'x': env.failed = true; break;
	case OPT_VIA: env.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
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

/* A number shown in octal in text (flags, a mode), a number in JSON; -1: not known. */
static void octal(struct row *r, long long v, int digits)
{
	char buf[32];
	if (v < 0) {
		row_none(r);
	} else if (r->json) {
		row_int(r, v);
	} else {
		snprintf(buf, sizeof(buf), "%0*llo", digits, v);
		row_word(r, buf);
	}
}

static void json_bool(struct row *r, bool v)
{
	FILE *json = row_json(r);
	if (json)
		fputs(v ? "true" : "false", json);
}

/* PATH: the path (sp->s) when it is known, else what text says instead (unknown); in text
 * what is known of its length and how it was read follows it. */
static void path_column(struct row *r, bool known, const char *unknown, const struct shown_path *sp)
{
	/* The path escaped (4 bytes at most for one) and the notes after it. */
	static char text[4 * PATH_MAX + 64];
	if (!known) {
		if (r->json)
			row_none(r);
		else
			row_word(r, unknown);
		return;
	}
	if (r->json || (sp->len == sp->held && !sp->late)) {
		row_str(r, sp->s, PATH_MAX);
		return;
	}
	size_t n = out_text_buf(text, sizeof(text), sp->s, PATH_MAX);
	if (sp->len == SIZE_MAX && sp->atleast_max)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " [cut: %d bytes or more]",
				      PATH_MAX);
	else if (sp->len == SIZE_MAX)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " [cut]");
	else if (sp->len != sp->held)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " [cut: %zu bytes]", sp->len);
	if (sp->late)
		snprintf(text + n, sizeof(text) - n, " [late]");
	row_word(r, text);
}

static void print_open(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct tool_run *t = ctx;
	struct syspair_call *c = call;
	struct open_data *o = syspair_data(c);
	int fd = ret >= 0 ? (int)ret : -1, err = ret < 0 ? (int)-ret : 0;
	/* An eprobe that cannot read user memory records "" (6.1) or "(fault)" (6.12). */
	bool known = o->named && o->path[0] && strcmp(o->path, "(fault)");
	struct shown_path sp = {.s = o->path, .held = strlen(o->path)};
	sp.len = o->cut ? SIZE_MAX : sp.held;
	/* (ENAMETOOLONG: PATH_MAX or more, or a name over NAME_MAX; a prefix read in pieces
	 * cannot tell which) */
	sp.atleast_max = err == ENAMETOOLONG && !o->pieced;
	/* A C library function's path too long for its probe's record: the record was not
	 * written, its companion's was. */
	bool unrecorded = o->ptr_seen && !o->str_seen && err != EFAULT;
	if ((!known || o->cut) && (err == ENAMETOOLONG || unrecorded || o->pieced) && o->ptr &&
	    ustr_read_late(tid, o->ptr, o->path, sizeof(o->path), &sp.len)) {
		known = sp.late = true;
		sp.held = strlen(o->path);
	}
	/* Not read, and longer than the kernel copies or an event holds: not to be taken for
	 * a path unknown. */
	bool too_long = !known && (err == ENAMETOOLONG || unrecorded);
	const char *path = known			   ? o->path :
			   too_long && err == ENAMETOOLONG ? "[unknown: 4096 bytes or more]" :
			   too_long ? "[unknown: longer than a trace event holds]" :
				      "[unknown]";
	if ((env.failed && ret >= 0) || !path_matches(path))
		return;
	/* The mode is an argument only when a file may be created. */
	long long mode = o->flags >= 0 && !(o->flags & (O_CREAT_ | O_TMPFILE_)) ? 0 : o->mode;
	struct row *r = &env.row;
	row_begin(r, rec->ts);
	row_str(r, tool_comm(t, tid), 16);
	row_int(r, tid);
	/* The system call made, as its exit says (a C library function may make another). */
	row_word(r, calls[env.exit_call]);
	row_int(r, fd);
	row_int(r, err);
	octal(r, o->flags, 8);
	octal(r, mode, 4);
	path_column(r, known, path, &sp);
	json_bool(r, (known && sp.len != sp.held) || too_long);
	if (known && sp.len != SIZE_MAX)
		row_uint(r, sp.len);
	else
		row_none(r);
	json_bool(r, sp.late);
	row_end(r);
}

/* --- per event ------------------------------------------------------------------------------ */

static void on_event(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = reader_pid(rec);
	if (ei->role == EXIT) {
		env.exit_call = ei->call;
		syspair_exit(&env.join, rec, tid, reader_num(rec, ei->ret));
		return;
	}
	struct syspair_call *c = syspair_current(&env.join, tid);
	struct open_data *o = c ? syspair_data(c) : NULL;
	/* A call begins at its entry, unless this is the other of a C library function's two
	 * probes (in either order): the call begun has the one's part and not this one's. */
	bool bare = ei->role == ENTER && ei->uprobe && !ei->file;
	if (ei->role == ENTER &&
	    (!ei->uprobe || !o ||
	     (bare ? o->ptr_seen || !o->str_seen : o->str_seen || !o->ptr_seen)))
		o = syspair_data(c = syspair_enter(&env.join, tid, rec->ts, ei->call));
	if (ei->uprobe) {
		o->ptr_seen |= bare;
		o->str_seen |= !bare;
	}
	/* A kprobe's path only within an open: do_filp_open() also serves execve(), getname()
	 * most system calls. */
	if (!o || (ei->role == NAME && o->named))
		return;
	if (ei->role == ENTER) {
		o->flags = ei->creat ? CREAT_FLAGS : ei->flags ? reader_num(rec, ei->flags) : -1;
		o->mode = ei->mode ? reader_num(rec, ei->mode) : -1;
		o->ptr = ei->ptr ? (uint64_t)reader_num(rec, ei->ptr) : 0;
	}
	if (ei->file) {
		size_t endlen = 1;
		o->named = true;
		reader_strcpy(o->path, sizeof(o->path), rec, ei->file);
		if (ei->end)
			reader_str(rec, ei->end, &endlen);
		o->cut = !endlen;
		size_t len;
		const char *s = reader_str(rec, ei->file, &len);
		if (strpieces_cut(ei->file, s, len))
			o->cut = o->pieced = true;
	}
}

/* --- the mechanisms ------------------------------------------------------------------------ */

static enum tool_code trace_role(struct tool_run *t, struct tep_event *ev, enum role role, int call,
				 bool creat)
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
		.ptr = tep_find_field(ev, "ptr"),
		.end = tep_find_field(ev, "end"),
	};
	/* The syscall entries: the path's pointer as the call took it. */
	if (!ei->ptr && !(ei->ptr = tep_find_field(ev, "filename")))
		ei->ptr = tep_find_field(ev, "pathname");
	if (ei->ptr && !(ei->ptr->flags & TEP_FIELD_IS_POINTER) && strcmp(ei->ptr->name, "ptr"))
		ei->ptr = NULL;
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
		struct tep_event *enter = syspair_event(&t->s, "enter", calls[c]);
		if (enter && (ret = trace_role(t, enter, ENTER, c, c == CALL_CREAT)))
			return ret;
	}
	snprintf(t->traced, sizeof(t->traced), "open()s via kprobes (%s)", funcs[which].func);
	return trace_role(t, ev, NAME, CALL_UNKNOWN, false);
}

/* 2: event probes on the syscall entries, reading the path from user memory. On Debian's 6.1
 * and 6.12 every path reads "(fault)" (whatever the fetch syntax): kprobes come first. */
static int via_eprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	static const char *const args[NCALLS] = {
		"file=+0($filename):ustring flags=$flags:u64 mode=$mode:u64 ptr=$filename:u64",
		"file=+0($filename):ustring flags=$flags:u64 mode=$mode:u64 ptr=$filename:u64",
		"file=+0($filename):ustring flags=+u0($how):u64 mode=+u8($how):u64 "
		"ptr=$filename:u64",
		"file=+0($pathname):ustring mode=$mode:u64 ptr=$pathname:u64",
	};
	int n = 0, ret;
	*why = "no event probes on syscall tracepoints (CONFIG_EPROBE_EVENTS) in this kernel";
	for (int c = 0; c < NCALLS; c++) {
		if (!syspair_event(&t->s, "enter", calls[c]))
			continue;
		struct tep_event *ev = ustr_eprobe(&t->s, calls[c], calls[c], args[c]);
		if (!ev && n == 0)
			return -1;
		if (!ev)
			return TOOL_FAIL;
		if ((ret = trace_role(t, ev, ENTER, c, c == CALL_CREAT)))
			return ret;
		n++;
	}
	snprintf(t->traced, sizeof(t->traced),
		 "open()s via event probes on syscalls:sys_enter_open*");
	return n ? 0 : -1;
}

/* 3: uprobes on the C library's open functions, with the ABI's argument registers. */
static const struct ustr_func libc_opens[] = {
	{"open64", "file=+0($1):string flags=$2:u64 mode=$3:u64 ptr=$1:u64", NULL},
	{"open", "file=+0($1):string flags=$2:u64 mode=$3:u64 ptr=$1:u64", NULL},
	{"__open64", "file=+0($1):string flags=$2:u64 mode=$3:u64 ptr=$1:u64", NULL},
	{"__open", "file=+0($1):string flags=$2:u64 mode=$3:u64 ptr=$1:u64", NULL},
	{"__open64_nocancel", "file=+0($1):string flags=$2:u64 mode=$3:u64 ptr=$1:u64", NULL},
	{"__open_nocancel", "file=+0($1):string flags=$2:u64 mode=$3:u64 ptr=$1:u64", NULL},
	{"__open64_2", "file=+0($1):string flags=$2:u64 ptr=$1:u64", NULL},
	{"__open_2", "file=+0($1):string flags=$2:u64 ptr=$1:u64", NULL},
	{"openat64", "file=+0($2):string flags=$3:u64 mode=$4:u64 ptr=$2:u64", NULL},
	{"openat", "file=+0($2):string flags=$3:u64 mode=$4:u64 ptr=$2:u64", NULL},
	{"__openat64_2", "file=+0($2):string flags=$3:u64 ptr=$2:u64", NULL},
	{"__openat_2", "file=+0($2):string flags=$3:u64 ptr=$2:u64", NULL},
	{"creat64", "file=+0($1):string mode=$2:u64 ptr=$1:u64", NULL},
	{"creat", "file=+0($1):string mode=$2:u64 ptr=$1:u64", NULL},
};

static void uprobe_made(struct tep_event *ev, int i, void *ctx)
{
	struct tool_run *t = ctx;
	bool creat = !strncmp(libc_opens[i].sym, "creat", 5);
	if (!env.failed_trace && trace_role(t, ev, ENTER, creat ? CALL_CREAT : CALL_UNKNOWN, creat))
		env.failed_trace = true; /* said on stderr */
	else if (!env.failed_trace)
		env.ev[env.nev - 1].uprobe = true;
}

#define NOPENS (sizeof(libc_opens) / sizeof(*libc_opens))

static int via_uprobe(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	/* Each with a last string that is always there ($comm): when the path took its room,
	 * the path held is a prefix. Kernels without $comm in uprobes: without it. */
	static char args[NOPENS][256];
	static struct ustr_func ended[NOPENS];
	for (size_t i = 0; i < NOPENS; i++) {
		snprintf(args[i], sizeof(args[i]), "%s end=$comm", libc_opens[i].args);
		ended[i] = (struct ustr_func){libc_opens[i].sym, args[i], NULL};
	}
	int before = env.nev;
	int n = ustr_uprobes(&t->s, ended, NOPENS, uprobe_made, t, env.lib, sizeof(env.lib), why);
	if (n < 0 && !env.failed_trace && env.nev == before)
		n = ustr_uprobes(&t->s, libc_opens, NOPENS, uprobe_made, t, env.lib,
				 sizeof(env.lib), why);
	if (env.failed_trace)
		return TOOL_FAIL;
	if (n < 0)
		return -1;
	/* The companions: the same arguments without the path, a record that always fits
	 * (the path's is not written when longer than an event holds: about 4,000 bytes on
	 * 6.18). One more record a call, from the same trap: about 3 us more on the 6.18 VM. */
	static char bare_args[NOPENS][256], bare_names[NOPENS][64];
	static struct ustr_func bare[NOPENS];
	for (size_t i = 0; i < NOPENS; i++) {
		const char *a = libc_opens[i].args;
		snprintf(bare_args[i], sizeof(bare_args[i]), "%s", a + strcspn(a, " ") + 1);
		snprintf(bare_names[i], sizeof(bare_names[i]), "%s_p", libc_opens[i].sym);
		bare[i] = (struct ustr_func){libc_opens[i].sym, bare_args[i], bare_names[i]};
	}
	if (ustr_uprobes(&t->s, bare, NOPENS, uprobe_made, t, env.lib, sizeof(env.lib), why) < 0 ||
	    env.failed_trace)
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "open()s via uprobes on %d functions of %s", n,
		 env.lib);
	return 0;
}

static enum tool_code setup(struct tool_run *t)
{
	static const ladder_rung_fn rungs[] = {via_kprobe, via_eprobe, via_uprobe};
	int ret, via = env.via;
	row_show(&env.row, "flags", env.extended);
	row_show(&env.row, "mode", env.extended);
	if (!syspair_event(&t->s, "exit", "openat")) {
		fprintf(stderr,
			"opensnoop: tracepoint syscalls:sys_exit_openat not available in this "
			"kernel (CONFIG_FTRACE_SYSCALLS)\n");
		return TOOL_FAIL;
	}
	/* Every event here happens in a process: leave ourselves out before any is written. */
	if (syspair_init(&env.join, 1024, sizeof(struct open_data), print_open, t) ||
	    reader_on_lost(&t->r, syspair_lost, &env.join) || session_exclude_self(&t->s))
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
		struct tep_event *ex = syspair_event(&t->s, "exit", calls[c]);
		if (ex && (ret = trace_role(t, ex, EXIT, c, false)))
			return ret;
	}
	return TOOL_OK;
}

static void end(struct tool_run *t)
{
	if (env.via == USTR_UPROBE && env.join.span.unpaired)
		fprintf(stderr,
			"opensnoop: %llu opens without the C library's open functions were "
			"not shown\n",
			(unsigned long long)env.join.span.unpaired);
	/* An eprobe's record that would be larger than an event (a path of 4 KB or more that
	 * it can read) is not written: its open has no entry. */
	if (env.via == USTR_EPROBE && env.join.span.unpaired)
		fprintf(stderr,
			"opensnoop: %llu opens were not shown: their entry was not recorded (begun "
			"before tracing, or a path longer than one trace event holds)\n",
			(unsigned long long)env.join.span.unpaired);
}

static void cleanup(struct tool_run *t)
{
	syspair_free(&env.join);
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
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&opensnoop, argc, argv);
}
