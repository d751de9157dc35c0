// SPDX-License-Identifier: GPL-2.0-only
/*
 * exitsnoop: process (and with --threads, thread) exits: who, their age, and how they ended:
 * an exit code, or the signal that killed them. From tracepoints only: sched_process_exit,
 * the exit code of exit_group(2)/exit(2) at their entry, and signal_deliver for a fatal
 * signal; the parent and the start time from the names module (comm.h).
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "base/pair.h"
#include "stream/reader.h"
#include "base/row.h"
#include "base/sig.h"
#include "join/syspair.h"
#include "tool.h"

/* How a task or a process is ending, as far as the events have said. */
struct ending {
	int code; /* the status the parent sees of exit(2)/exit_group(2), when has_code */
	int sig;  /* a fatal signal delivered, 0: none */
	int sent; /* the last signal other than SIGKILL sent to it, 0: none */
	bool has_code;
	bool sent_kill; /* a SIGKILL was sent to it */
};

static struct env {
	bool failed;  /* -x */
	bool threads; /* --threads */
	/* -p and -n are checked here, at the exit: a killer's signal is sent from outside the
	 * process, and the kernel's filters would drop it. */
	pid_t pid;
	const char *name;
	struct tool_run *t;
	struct tep_event *exit_ev, *group_ev, *thread_ev, *deliver_ev, *generate_ev;
	struct tep_format_field *comm, *group_dead, *code, *tcode, *sig, *handler;
	struct tep_format_field *gen_sig, *gen_pid, *gen_result;
	struct pair_table tasks;  /* tid -> its ending */
	struct pair_table groups; /* tgid -> the process's ending */
	struct row row;
} env;

enum { OPT_THREADS = OPT_LONG + 1 };

/* One line per exit. The age has two decimals in text, three in JSON; the ending is one
 * column of text (EXIT), four keys in JSON. */
static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"PCOMM", "comm", -16, ROW_STR, 0, 0,
	 "the process's name when it ended (--threads: the thread's)"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "the process ID (thread group ID)"},
	{"PPID", "ppid", 7, ROW_INT, 0, 0, "its parent's process ID (0: not known)"},
	{"TID", "tid", 7, ROW_INT, 0, 0, "the thread that ended"},
	{"AGE(s)", NULL, 8, ROW_FLOAT, 2, ROW_NOJSON, NULL},
	{NULL, "age_s", 0, ROW_FLOAT, 3, ROW_NOTEXT,
	 "seconds from the process's start to its end (null: not known)"},
	{NULL, "exit_code", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the status the parent sees, 0 to 255 (null after a signal, or when not known)"},
	{NULL, "signal", 0, ROW_INT, 0, ROW_NOTEXT, "the signal that killed it (null: none)"},
	{NULL, "signal_name", 0, ROW_WORD, 0, ROW_NOTEXT, "its name, SIGTERM (null: none)"},
	{NULL, "core", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "true for a signal whose default action dumps core"},
	{"EXIT", NULL, -4, ROW_WORD, 0, ROW_NOJSON, NULL},
};
static const struct row_table table = ROW_TABLE("each exit", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per exit"),
	{'n', NULL, "NAME", "only processes whose name matches (glob), as it was when it exited",
	 0},
	{'p', NULL, "PID", "only this process (its threads with --threads)", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'x', NULL, NULL, "only failures: an exit status other than 0, or a signal", 0},
	{OPT_THREADS, "threads", NULL, "every thread's exit, not only processes'", 0},
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"exitsnoop                 # every process that exits",
	"exitsnoop -x              # only those that failed or were killed",
	"exitsnoop -n 'nginx*' -T  # nginx processes, with wall-clock times",
	"exitsnoop --threads -p 181   # every thread of PID 181",
	"exitsnoop -j -d 60 > x.json  # a minute as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'x')
		env.failed = true;
	else if (o->key == 'p')
		env.pid = opt_live_pid(arg);
	else if (o->key == 'n')
		env.name = opt_glob(arg, "NAME");
	else if (o->key == OPT_THREADS)
		env.threads = true;
}

/* --- how tasks end --------------------------------------------------------------------------- */

static int tgid_of(int tid)
{
	struct comm_task ti;
	return comm_task(env.t->names, tid, &ti) ? tid : ti.tgid;
}

/* What a parent's wait() sees of exit(code): the kernel keeps (code & 0xff) << 8, so exit(256)
 * is a success and exit(-1) is 255. */
static int exit_status(const struct tep_record *rec, const struct tep_format_field *f)
{
	return (int)(reader_num(rec, f) & 0xff);
}

/* exit_group(2): the code of the whole process; the other threads then get SIGKILL. */
static void on_exit_group(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	struct ending *g = pair_put(&env.groups, (uint64_t)tgid_of(tid), 0);
	if (!g->has_code && !g->sig) {
		g->code = exit_status(rec, env.code);
		g->has_code = true;
	}
}

/* exit(2): one thread's own end (pthread_exit). */
static void on_exit_thread(struct tep_record *rec, void *ctx)
{
	struct ending *e = pair_put(&env.tasks, (uint64_t)reader_pid(rec), 0);
	e->code = exit_status(rec, env.tcode);
	e->has_code = true;
}

/* A signal sent (kill, tgkill, or the kernel's own), in the sender's context: a fatal one is
 * turned into SIGKILL at once for the target (the kernel's fast path), so the one sent is
 * what killed it when no SIGKILL was sent. */
static void on_generate(struct tep_record *rec, void *ctx)
{
	int sig = (int)reader_num(rec, env.gen_sig);
	if (reader_num(rec, env.gen_result) != 0 /* TRACE_SIGNAL_DELIVERED */)
		return;
	struct ending *g =
		pair_put(&env.groups, (uint64_t)tgid_of((int)reader_num(rec, env.gen_pid)), 0);
	if (sig == SIGKILL)
		g->sent_kill = true;
	else if (!strchr("IS", sig_default(sig)))
		g->sent = sig;
}

/* A signal taken with its default action, which ends the process: the first one is what
 * killed it (the SIGKILLs the kernel then sends to the other threads are not). */
static void on_deliver(struct tep_record *rec, void *ctx)
{
	int sig = (int)reader_num(rec, env.sig);
	unsigned long long handler = (unsigned long long)reader_num(rec, env.handler);
	if (sig != SIGKILL && (handler != 0 /* SIG_DFL */ || strchr("IS", sig_default(sig))))
		return;
	int tid = reader_pid(rec);
	struct ending *sent = pair_get(&env.groups, (uint64_t)tgid_of(tid), 0);
	if (sig == SIGKILL && sent && sent->sent && !sent->sent_kill)
		sig = sent->sent;
	struct ending *e = pair_put(&env.tasks, (uint64_t)tid, 0);
	if (!e->sig)
		e->sig = sig;
	struct ending *g = pair_put(&env.groups, (uint64_t)tgid_of(tid), 0);
	if (!g->has_code && !g->sig)
		g->sig = sig;
}

/* --- output --------------------------------------------------------------------------------- */

static void print(const struct tep_record *rec, int tid, int tgid, const struct ending *how)
{
	struct tool_run *t = env.t;
	struct comm_task ti;
	bool known = comm_task(t->names, tgid, &ti) == 0;
	int ppid = known ? ti.ppid : 0;
	double age = known && ti.start_ns && rec->ts >= ti.start_ns ?
			     (double)(rec->ts - ti.start_ns) / 1e9 :
			     -1;
	bool failed = how->sig || (how->has_code && how->code != 0);
	if (env.failed && !failed)
		return;
	/* The process's name; with --threads, the thread's. */
	const char *comm = tool_comm(t, env.threads ? tid : tgid);
	if (env.name && fnmatch(env.name, comm, 0))
		return;
	char sigbuf[16], text[64];
	const char *sname = how->sig ? sig_name(how->sig, sigbuf) : NULL;
	bool core = how->sig && sig_default(how->sig) == 'C';
	struct row *r = &env.row;
	row_begin(r, rec->ts);
	row_str(r, comm, 16);
	row_int(r, tgid);
	row_int(r, ppid);
	row_int(r, tid);
	for (int i = 0; i < 2; i++) /* AGE(s), age_s */
		if (age >= 0)
			row_float(r, age);
		else
			row_none(r);
	if (how->has_code && !how->sig)
		row_int(r, how->code);
	else
		row_none(r);
	if (how->sig) {
		row_int(r, how->sig);
		row_word(r, sname);
	} else {
		row_none(r);
		row_none(r);
	}
	FILE *json = row_json(r);
	if (json)
		fputs(core ? "true" : "false", json);
	if (how->sig)
		snprintf(text, sizeof(text), "signal %d (%s)%s", how->sig, sname,
			 core ? ", core" : "");
	else if (how->has_code)
		snprintf(text, sizeof(text), "%d", how->code);
	else
		snprintf(text, sizeof(text), "?");
	row_word(r, text);
	row_end(r);
}

/* Every task's exit, in its own context. A process ends with its last thread (group_dead,
 * 6.x) or, on kernels without that field, with its main thread. */
static void on_exit(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	int tgid = tgid_of(tid);
	bool last = env.group_dead ? reader_num(rec, env.group_dead) != 0 : tid == tgid;
	bool shown = !env.pid || tgid == env.pid;
	struct ending *e = pair_get(&env.tasks, (uint64_t)tid, 0);
	struct ending *g = pair_get(&env.groups, (uint64_t)tgid, 0);
	struct ending none = {0}, how;
	/* The process's code (exit_group) or killing signal comes before a thread's own. */
	how = g && (g->has_code || g->sig) ? *g : e ? *e : none;
	if (env.threads && e && e->has_code && !(g && g->sig))
		how = *e; /* a thread that called exit(2) itself */
	if (shown && (env.threads || last))
		print(rec, tid, tgid, &how);
	if (e)
		pair_del(&env.tasks, e);
	if (last && g)
		pair_del(&env.groups, g);
}

/* A loss may hide how something ended: forget what is half known. */
static void on_lost(int cpu, long long n, void *ctx)
{
	pair_clear(&env.tasks);
	pair_clear(&env.groups);
}

/* --- setup ---------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	env.exit_ev = session_event(&t->s, "sched", "sched_process_exit", true);
	if (!env.exit_ev)
		return TOOL_FAIL;
	env.comm = tep_find_field(env.exit_ev, "comm");
	env.group_dead = tep_find_field(env.exit_ev, "group_dead");
	env.group_ev = syspair_event(&t->s, "enter", "exit_group");
	env.thread_ev = syspair_event(&t->s, "enter", "exit");
	env.deliver_ev = session_load_event(&t->s, "signal", "signal_deliver");
	env.generate_ev = session_load_event(&t->s, "signal", "signal_generate");
	if (env.generate_ev) {
		env.gen_sig = tep_find_field(env.generate_ev, "sig");
		env.gen_pid = tep_find_field(env.generate_ev, "pid");
		env.gen_result = tep_find_field(env.generate_ev, "result");
	}
	env.code = env.group_ev ? tep_find_field(env.group_ev, "error_code") : NULL;
	env.tcode = env.thread_ev ? tep_find_field(env.thread_ev, "error_code") : NULL;
	env.sig = env.deliver_ev ? tep_find_field(env.deliver_ev, "sig") : NULL;
	env.handler = env.deliver_ev ? tep_find_field(env.deliver_ev, "sa_handler") : NULL;
	if (!env.code || !env.sig || !env.handler || !env.gen_sig || !env.gen_pid ||
	    !env.gen_result) {
		fprintf(stderr,
			"exitsnoop: %s not available in this kernel (%s): exit codes and "
			"signals cannot be told\n",
			!env.code ? "syscalls:sys_enter_exit_group" : "signal:signal_deliver",
			!env.code ? "CONFIG_FTRACE_SYSCALLS" : "CONFIG_EVENT_TRACING");
		return TOOL_FAIL;
	}
	if (pair_init(&env.tasks, 4096, sizeof(struct ending)) ||
	    pair_init(&env.groups, 4096, sizeof(struct ending)))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "%s exits", env.threads ? "thread" : "process");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	if (reader_on_lost(&t->r, on_lost, NULL))
		return TOOL_FAIL;
	/* The endings first: each comes before the exit it explains. */
	if ((ret = tool_trace(t, env.group_ev, NULL, on_exit_group, NULL)) ||
	    (env.thread_ev && env.tcode &&
	     (ret = tool_trace(t, env.thread_ev, NULL, on_exit_thread, NULL))) ||
	    (ret = tool_trace(t, env.generate_ev, NULL, on_generate, NULL)) ||
	    (ret = tool_trace(t, env.deliver_ev, NULL, on_deliver, NULL)))
		return ret;
	return tool_trace(t, env.exit_ev, NULL, on_exit, NULL);
}

static void cleanup(struct tool_run *t)
{
	pair_free(&env.tasks);
	pair_free(&env.groups);
}

static const struct tool exitsnoop = {
	.name = "exitsnoop",
	.opts = options,
	.examples = examples,
	.formats = (const char *const[]){"sched:sched_process_exit", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&exitsnoop, argc, argv);
}
