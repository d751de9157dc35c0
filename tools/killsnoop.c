// SPDX-License-Identifier: GPL-2.0-only
/*
 * killsnoop: signals sent by processes (kill, tkill, tgkill, rt_sigqueueinfo,
 * rt_tgsigqueueinfo, pidfd_send_signal), each call's entry joined to its result per thread
 * (sysc.h); with -K every signal the kernel generates, its own included (signal_generate).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "out.h"
#include "reader.h"
#include "sig.h"
#include "sysc.h"
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
	struct sysc join;
	struct ev {
		const struct call *call;
		bool enter;
		struct tep_format_field *target, *sig, *ret;
	} ev[2 * NCALLS];
	int nev;
	struct tep_format_field *g_sig, *g_pid, *g_comm, *g_result;
} env;

enum { OPT_SIGNAL = OPT_LONG + 1 };

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
	(void)t;
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

static void print_sig(int sig)
{
	char buf[16];
	if (env.names)
		printf("%-9s ", sig_name(sig, buf));
	else
		printf("%-4d ", sig);
}

static void line_start(const struct tep_record *rec, int tid)
{
	char when[16];
	if (env.t->o.timestamp)
		printf("%-14.6f ", rec->ts / 1e9);
	if (env.t->o.wallclock)
		printf("%-8s ", out_wallclock(rec->ts, when));
	out_text(stdout, tool_comm(env.t, tid), 16, 16);
	printf(" %7d ", tid);
}

static void json_start(const struct tep_record *rec, int tid)
{
	char when[16];
	printf("{\"time\":\"%s\",\"ts\":%.6f,\"comm\":", out_wallclock(rec->ts, when),
	       rec->ts / 1e9);
	out_json_str(stdout, tool_comm(env.t, tid), 16);
	printf(",\"pid\":%d,", tid);
}

/* A call ended: the signal, its target, the result. */
static void print_call(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	(void)ctx;
	struct sysc_call *c = call;
	const struct sent *s = sysc_data(c);
	const struct call *what = &calls[c->kind];
	bool pidfd = !strcmp(what->target, "pidfd");
	char buf[16];
	if ((env.failed && ret >= 0) || !wanted(s->sig))
		return;
	if (env.t->o.json) {
		json_start(rec, tid);
		printf("\"call\":\"%s\",\"%s\":%d,\"sig\":%d,\"signal_name\":\"%s\",\"result\":%"
		       "lld}\n",
		       what->name, pidfd ? "target_pidfd" : "tpid", s->target, s->sig,
		       sig_name(s->sig, buf), ret);
		return;
	}
	line_start(rec, tid);
	if (pidfd)
		printf("%7s ", "pidfd");
	else
		printf("%7d ", s->target);
	print_sig(s->sig);
	printf("%-6lld %s", ret, what->name);
	if (pidfd)
		printf(" fd %d", s->target);
	putchar('\n');
}

static void on_syscall(struct tep_record *rec, void *ctx)
{
	const struct ev *e = ctx;
	int tid = tep_data_pid(env.t->s.tep, rec);
	if (!e->enter) {
		sysc_exit(&env.join, rec, tid, reader_num(rec, e->ret));
		return;
	}
	struct sysc_call *c = sysc_enter(&env.join, tid, rec->ts, (int)(e->call - calls));
	struct sent *s = sysc_data(c);
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
	(void)ctx;
	int tid = tep_data_pid(env.t->s.tep, rec);
	int sig = (int)reader_num(rec, env.g_sig);
	long long result = reader_num(rec, env.g_result);
	int target = (int)reader_num(rec, env.g_pid);
	char tcomm[17], buf[16];
	reader_strcpy(tcomm, sizeof(tcomm), rec, env.g_comm);
	if ((env.failed && result == 0) || !wanted(sig))
		return;
	if (env.t->o.json) {
		json_start(rec, tid);
		printf("\"tpid\":%d,\"tcomm\":", target);
		out_json_str(stdout, tcomm, sizeof(tcomm));
		printf(",\"sig\":%d,\"signal_name\":\"%s\",\"result\":\"%s\"}\n", sig,
		       sig_name(sig, buf), result_name(result));
		return;
	}
	line_start(rec, tid);
	printf("%7d ", target);
	out_text(stdout, tcomm, sizeof(tcomm), 16);
	putchar(' ');
	print_sig(sig);
	printf("%s\n", result_name(result));
}

static void header(struct tool_run *t)
{
	if (t->o.timestamp)
		printf("%-14s ", "TIME(s)");
	if (t->o.wallclock)
		printf("%-8s ", "TIME");
	printf("%-16s %7s %7s ", "COMM", "PID", "TPID");
	if (env.kernel)
		printf("%-16s ", "TCOMM");
	printf(env.names ? "%-9s " : "%-4s ", "SIG");
	printf(env.kernel ? "RESULT\n" : "%-6s CALL\n", "RESULT");
}

/* --- setup ---------------------------------------------------------------------------------- */

static int setup_kernel(struct tool_run *t)
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
	snprintf(t->what, sizeof(t->what), "every signal generated");
	return tool_trace(t, g, NULL, on_generate, NULL);
}

static int setup(struct tool_run *t)
{
	env.t = t;
	if (env.kernel)
		return setup_kernel(t);
	int n = 0, ret;
	/* Every one of these events happens in a process: leave ourselves out before. */
	if (sysc_init(&env.join, 1024, sizeof(struct sent), print_call, NULL) ||
	    reader_on_lost(&t->r, sysc_lost, &env.join) || session_exclude_self(&t->s))
		return TOOL_FAIL;
	for (size_t i = 0; i < NCALLS; i++) {
		struct tep_event *enter = sysc_event(&t->s, "enter", calls[i].name);
		struct tep_event *exit_ = sysc_event(&t->s, "exit", calls[i].name);
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
	snprintf(t->what, sizeof(t->what), "signals sent by %d system calls", n);
	return TOOL_OK;
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	sysc_free(&env.join);
}

static const struct tool killsnoop = {
	.name = "killsnoop",
	.opts = options,
	.examples = examples,
	.option = option,
	.setup = setup,
	.header = header,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&killsnoop, argc, argv);
}
