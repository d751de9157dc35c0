// SPDX-License-Identifier: GPL-2.0-only
/*
 * killsnoop: signals sent by processes (kill, tkill, tgkill, rt_sigqueueinfo,
 * rt_tgsigqueueinfo, pidfd_send_signal), each call's entry joined to its result per thread
 * (syspair.h); with -K every signal the kernel generates, its own included (signal_generate).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "stream/reader.h"
#include "base/row.h"
#include "base/sig.h"
#include "join/syspair.h"
#include "tool.h"

/* The calls, each traced where the kernel has it; which argument is the target, which the
 * signal. */
static const struct call {
	const char *name, *target, *sig;
} calls[] = {
	{"kill", "pid", "sig"},
	{"tkill", "pid", "sig"},
	{"tgkill", "pid", "sig"},
	{"rt_sigqueueinfo", "pid", "sig"},
	{"rt_tgsigqueueinfo", "pid", "sig"},
	{"pidfd_send_signal", "pidfd", "sig"},
};
#define NCALLS (sizeof(calls) / sizeof(*calls))

struct sent {
	int target; /* a PID, 0 or -PGID (a process group), -1 (all), or a pidfd */
	int sig;
};

static struct env {
	bool failed;		    /* -x */
	bool names;		    /* -s */
	bool kernel;		    /* -K */
	unsigned long long sigs[2]; /* --signal: bit per signal 0..127 */
	bool any_sig;		    /* no --signal: every signal */
	struct tool_run *t;
	struct syspair join;
	struct ev {
		const struct call *call;
		bool enter;
		struct tep_format_field *target, *sig, *ret;
	} ev[2 * NCALLS];
	int nev;
	struct tep_format_field *g_sig, *g_pid, *g_comm, *g_result;
	struct row calls, pidfds, signals; /* their lines */
} env;

enum { OPT_SIGNAL = OPT_LONG + 1 };

/*
 * The lines: the sender, the target, the signal, the result. The signal is a number or
 * (-s) a name in text, both in JSON; a call's name ends the text line but comes after pid in
 * JSON. The two tables of calls have the same header; what a key is is said where it first
 * appears (--json-keys).
 */
static const struct row_col call_cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the sender, its name when it sent the signal"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its thread ID"},
	{NULL, "call", 0, ROW_WORD, 0, ROW_NOTEXT, "the system call (kill, tgkill...)"},
	{"TPID", "tpid", 7, ROW_INT, 0, 0,
	 "the target: a PID, 0 (the sender's process group), -1 (every process it may signal), "
	 "-PGID (a group); the thread for tgkill and rt_tgsigqueueinfo"},
	{"SIG", "sig", -4, ROW_INT, 0, ROW_OPTIONAL, "the signal's number (0: kill -0's check)"},
	{"SIG", "signal_name", -9, ROW_WORD, 0, ROW_OPTIONAL, "its name, SIGTERM (-s in text)"},
	{"RESULT", "result", -6, ROW_INT, 0, 0,
	 "what the call returned, a number: 0 or -errno (-3 ESRCH); with -K a string: delivered, "
	 "ignored, already pending, overflow or info lost"},
	{"CALL", NULL, -4, ROW_WORD, 0, ROW_NOJSON, NULL},
};
static const struct row_table call_table = ROW_TABLE("each call", call_cols);

/* pidfd_send_signal: its target is a file descriptor, shown after the call's name in text. */
static const struct row_col pidfd_cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, NULL},
	{"PID", "pid", 7, ROW_INT, 0, 0, NULL},
	{NULL, "call", 0, ROW_WORD, 0, ROW_NOTEXT, NULL},
	{"TPID", NULL, 7, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "target_pidfd", 0, ROW_INT, 0, ROW_NOTEXT,
	 "pidfd_send_signal's file descriptor of the target (instead of tpid)"},
	{"SIG", "sig", -4, ROW_INT, 0, ROW_OPTIONAL, NULL},
	{"SIG", "signal_name", -9, ROW_WORD, 0, ROW_OPTIONAL, NULL},
	{"RESULT", "result", -6, ROW_INT, 0, 0, NULL},
	{"CALL", NULL, -4, ROW_WORD, 0, ROW_NOJSON, NULL},
};
static const struct row_table pidfd_table = ROW_TABLE("each pidfd_send_signal call", pidfd_cols);

/* -K: what the kernel says of each signal. */
static const struct row_col signal_cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, NULL},
	{"PID", "pid", 7, ROW_INT, 0, 0, NULL},
	{"TPID", "tpid", 7, ROW_INT, 0, 0, NULL},
	{"TCOMM", "tcomm", -16, ROW_STR, 0, 0, "-K: the target's name, as the kernel recorded it"},
	{"SIG", "sig", -4, ROW_INT, 0, ROW_OPTIONAL, NULL},
	{"SIG", "signal_name", -9, ROW_WORD, 0, ROW_OPTIONAL, NULL},
	{"RESULT", "result", -6, ROW_WORD, 0, 0, NULL},
};
static const struct row_table signal_table = ROW_TABLE("each signal, with -K", signal_cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per signal"),
	{'K', NULL, NULL,
	 "every signal the kernel generates, its own too (SIGSEGV, SIGCHLD,\nSIGPIPE, the OOM "
	 "killer's SIGKILL), with the target's name and what\nbecame of it",
	 0},
	TOOL_NAME,
	TOOL_PID,
	{'s', NULL, NULL, "signal names (SIGTERM) instead of numbers", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'x', NULL, NULL, "only calls that failed (with -K: signals not delivered)", 0},
	{OPT_SIGNAL, "signal", "LIST",
	 "only these signals: numbers or names, comma-separated\n(TERM,KILL,9)", 0},
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"killsnoop                   # signals sent with kill() and the like",
	"killsnoop -s -x             # failed ones, with signal names",
	"killsnoop --signal KILL,TERM   # who is killing or terminating",
	"killsnoop -K -s             # every signal, the kernel's own too",
	"killsnoop -K --signal SEGV  # which processes crash",
	NULL,
};

/* A signal by number (0: the existence check) or name (TERM, SIGTERM); -1 when it is
 * neither. */
static int parse_signal(const char *s)
{
	char buf[16];
	if (*s && strspn(s, "0123456789") == strlen(s))
		return strlen(s) <= 2 && atoi(s) <= 64 ? atoi(s) : -1;
	for (int i = 1; i <= 64; i++) {
		const char *name = sig_name(i, buf);
		if (!strcasecmp(s, name) || !strcasecmp(s, name + 3))
			return i;
	}
	return -1;
}

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'x': env.failed = true; break;
	case 's': env.names = true; break;
	case 'K': env.kernel = true; break;
	case OPT_SIGNAL: {
		char *list = strdup(arg), *rest = list;
		if (!list)
			opt_fail("out of memory");
		/* strsep, not strtok: "TERM,,KILL" has an empty one, which is no signal. */
		for (char *w; (w = strsep(&rest, ","));) {
			int sig = parse_signal(w);
			if (!*w)
				opt_fail("invalid --signal: '%s' (an empty item)", arg);
			else if (sig < 0)
				opt_fail("invalid signal: '%s' (a number from 0, the existence "
					 "check, to 64, or a name)",
					 w);
			env.sigs[sig / 64] |= 1ULL << (sig % 64);
		}
		free(list);
		env.any_sig = true;
		break;
	}
	}
}

static bool wanted(int sig)
{
	if (!env.any_sig)
		return true;
	return sig >= 0 && sig < 128 && (env.sigs[sig / 64] >> (sig % 64) & 1);
}

/* --- output --------------------------------------------------------------------------------- */

/* The line's start: when, and who sent the signal. */
static void line_start(struct row *r, const struct tep_record *rec, int tid)
{
	row_begin(r, rec->ts);
	row_str(r, tool_comm(env.t, tid), 16);
	row_int(r, tid);
}

static void signal_columns(struct row *r, int sig)
{
	char buf[16];
	row_int(r, sig);
	row_word(r, sig_name(sig, buf));
}

/* A call ended: the signal, its target, the result. */
static void print_call(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct syspair_call *c = call;
	const struct sent *s = syspair_data(c);
	const struct call *what = &calls[c->kind];
	bool pidfd = !strcmp(what->target, "pidfd");
	struct row *r = pidfd ? &env.pidfds : &env.calls;
	if ((env.failed && ret >= 0) || !wanted(s->sig))
		return;
	line_start(r, rec, tid);
	row_word(r, what->name);
	if (pidfd) {
		char text[64];
		row_word(r, "pidfd");
		row_int(r, s->target);
		signal_columns(r, s->sig);
		row_int(r, ret);
		snprintf(text, sizeof(text), "%s fd %d", what->name, s->target);
		row_word(r, text);
	} else {
		row_int(r, s->target);
		signal_columns(r, s->sig);
		row_int(r, ret);
		row_word(r, what->name);
	}
	row_end(r);
}

static void on_syscall(struct tep_record *rec, void *ctx)
{
	const struct ev *e = ctx;
	int tid = reader_pid(rec);
	if (!e->enter) {
		syspair_exit(&env.join, rec, tid, reader_num(rec, e->ret));
		return;
	}
	struct syspair_call *c = syspair_enter(&env.join, tid, rec->ts, (int)(e->call - calls));
	struct sent *s = syspair_data(c);
	/* The arguments as the call takes them (pid_t, int) from their 8-byte slots, which the
	 * formats call unsigned: kill(-1, ...) is 0x00000000ffffffff there. */
	s->target = (pid_t)reader_num(rec, e->target);
	s->sig = (int)reader_num(rec, e->sig);
}

/* -K: what signal_generate says of each signal. */
static const char *result_name(long long r)
{
	static const char *const names[] = {"delivered", "ignored", "already pending", "overflow",
					    "info lost"};
	return r >= 0 && r < 5 ? names[r] : "?";
}

static void on_generate(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	int sig = (int)reader_num(rec, env.g_sig);
	long long result = reader_num(rec, env.g_result);
	int target = (int)reader_num(rec, env.g_pid);
	char tcomm[17];
	reader_strcpy(tcomm, sizeof(tcomm), rec, env.g_comm);
	if ((env.failed && result == 0) || !wanted(sig))
		return;
	line_start(&env.signals, rec, tid);
	row_int(&env.signals, target);
	row_str(&env.signals, tcomm, sizeof(tcomm));
	signal_columns(&env.signals, sig);
	row_word(&env.signals, result_name(result));
	row_end(&env.signals);
}

static void header(struct tool_run *t)
{
	row_header(env.kernel ? &env.signals : &env.calls);
}

/* --- setup ---------------------------------------------------------------------------------- */

static enum tool_code setup_kernel(struct tool_run *t)
{
	struct tep_event *g = session_load_event(&t->s, "signal", "signal_generate");
	env.g_sig = g ? tep_find_field(g, "sig") : NULL;
	env.g_pid = g ? tep_find_field(g, "pid") : NULL;
	env.g_comm = g ? tep_find_field(g, "comm") : NULL;
	env.g_result = g ? tep_find_field(g, "result") : NULL;
	if (!env.g_sig || !env.g_pid || !env.g_comm || !env.g_result) {
		fprintf(stderr,
			"killsnoop: tracepoint signal:signal_generate not available in this "
			"kernel (CONFIG_EVENT_TRACING)\n");
		return TOOL_FAIL;
	}
	snprintf(t->traced, sizeof(t->traced), "every signal generated");
	return tool_trace(t, g, NULL, on_generate, NULL);
}

static void rows_init(struct tool_run *t)
{
	struct row *rows[] = {&env.calls, &env.pidfds, &env.signals};
	const struct row_table *tables[] = {&call_table, &pidfd_table, &signal_table};
	for (int i = 0; i < 3; i++) {
		row_init(rows[i], tables[i], stdout, t->o.json, t->o.timestamp, t->o.wallclock);
		row_show(rows[i], "sig", !env.names);
		row_show(rows[i], "signal_name", env.names);
	}
}

static enum tool_code setup(struct tool_run *t)
{
	env.t = t;
	rows_init(t);
	if (env.kernel)
		return setup_kernel(t);
	int n = 0, ret;
	/* Every one of these events happens in a process: leave ourselves out before. */
	if (syspair_init(&env.join, 1024, sizeof(struct sent), print_call, NULL) ||
	    reader_on_lost(&t->r, syspair_lost, &env.join) || session_exclude_self(&t->s))
		return TOOL_FAIL;
	for (size_t i = 0; i < NCALLS; i++) {
		struct tep_event *enter = syspair_event(&t->s, "enter", calls[i].name);
		struct tep_event *exit_ = syspair_event(&t->s, "exit", calls[i].name);
		if (!enter || !exit_)
			continue;
		struct ev *e = &env.ev[env.nev++];
		*e = (struct ev){&calls[i], true, tep_find_field(enter, calls[i].target),
				 tep_find_field(enter, calls[i].sig), NULL};
		struct ev *x = &env.ev[env.nev++];
		*x = (struct ev){&calls[i], false, NULL, NULL, tep_find_field(exit_, "ret")};
		if (!e->target || !e->sig || !x->ret)
			continue;
		/* The exits first: an entry is kept only while its exit can be seen. */
		if ((ret = tool_trace(t, exit_, NULL, on_syscall, x)) ||
		    (ret = tool_trace(t, enter, NULL, on_syscall, e)))
			return ret;
		n++;
	}
	if (!n) {
		fprintf(stderr,
			"killsnoop: tracepoint syscalls:sys_enter_kill not available in this "
			"kernel (CONFIG_FTRACE_SYSCALLS)\n");
		return TOOL_FAIL;
	}
	snprintf(t->traced, sizeof(t->traced), "signals sent by %d system calls", n);
	return TOOL_OK;
}

static void cleanup(struct tool_run *t)
{
	syspair_free(&env.join);
}

static const struct tool killsnoop = {
	.name = "killsnoop",
	.opts = options,
	.examples = examples,
	.rows = (const struct row_table *const[]){&call_table, &pidfd_table, &signal_table, NULL},
	.option = option,
	.setup = setup,
	.header = header,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&killsnoop, argc, argv);
}
