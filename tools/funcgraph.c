// SPDX-License-Identifier: GPL-2.0-only
/*
 * funcgraph: the calls made below one kernel function, as a graph with each call's duration,
 * from the kernel's function_graph tracer. set_graph_function, which starts graphs at FUNC,
 * and max_graph_depth exist only at the top level on every kernel we have (an instance of
 * 6.12 runs function_graph over set_ftrace_filter's functions alone, without their callees),
 * so the tracer is the top level's, owned by this run (toplevel.h) and given back as it was.
 *
 * The records are read from the binary buffers: an entry (function, depth) and an exit
 * (function, depth, call and return times) per call. A call that makes no traced call of its
 * own is an entry followed at once by its exit on the same CPU: it is held until the next
 * record of that CPU and printed as one line "func();" when that record is its exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/pair.h"
#include "count/tracejson.h"
#include "kernel/ftrace.h"
#include "stream/comm.h"
#include "stream/ksym.h"
#include "base/opt.h"
#include "base/out.h"
#include "base/row.h"
#include "base/threads.h"
#include "kernel/toplevel.h"
#include "tool.h"

static struct env {
	const char *func;
	unsigned long long func_addr; /* FUNC's, when it is a name */
	/* Where interrupts begin: the .irqentry.text section, and the functions that raise
	 * the hardirq count (6.x: called from code that cannot be traced) and rcu_irq_enter,
	 * which irq_enter calls before it raises it (4.x). */
	unsigned long long irq_lo, irq_hi, irq_enter[3];
	/* Softirqs: run at an interrupt's end (the kernel graphs them as if the interrupted
	 * function called them) or by do_softirq (local_bh_enable: the function's own). */
	unsigned long long softirq[3], bh_parent[3];
	/* What an interrupt runs after its softirqs, outside hardirq context (4.9:
	 * rcu_irq_exit in irq_exit). */
	unsigned long long irq_exit[3];
	/* idle_cpu, sched_core_idle_cpu: what an interrupt's end calls once the hardirq count
	 * is lowered (tick_irq_exit, 5.10+), at the depth of a callee of what it interrupted */
	unsigned long long tick_exit[3];
	struct tep_handle *tep;
	bool proc, no_dur, on_cpu, header, irqs;
	int max_depth; /* 0: no limit */
	struct ksyms *ksyms;
	struct tep_event *entry, *exit;
	struct tep_format_field *e_func, *e_depth, *x_func, *x_depth, *x_call, *x_ret;
	struct toplevel top;
	int self;
	/* Per CPU: the entry not yet known to be a leaf, and the last task seen there. */
	struct cpu_state {
		bool held;
		unsigned long long func, ts;
		int depth, pid;
		int last_pid;
		unsigned int wakes; /* the reader's wake-ups when it was held */
		/* The deepest an entry of its task can come next (-1: not known): deeper, its
		 * parent was not recorded (see in_irq) */
		int expect;
		/* Without -I: inside an interrupt's entry function, until its return */
		bool in_irq;
		/* Without -I: a record of hardirq context was seen, and the interrupted context
		 * has not come back (irq_tail); whether that context was in a softirq (or, before
		 * 5.17, had bottom halves off: the kernel's flag says either) */
		bool irq_tail, ctx_softirq;
		/* Without -I: interrupts were off at its task's last record shown */
		bool irqs_off;
		unsigned long long irq_func;
		int irq_depth;
	} * cpus;
	unsigned int wakes;
	int ncpus;
	struct row json;	/* -j's objects (the graph's text is drawn by line()) */
	struct pair_table open; /* --trace-json: per thread, its calls shown begun (struct open) */
} env;

/* --trace-json: a thread's calls begun and not yet returned, as the graph showed them: the
 * entry's time at each depth below n. */
#define OPEN_DEPTH 64
struct open {
	int n;
	uint64_t ts[OPEN_DEPTH];
};

static const struct opt_spec options[] = {
	{'a', NULL, NULL, "all columns: the same as -HPt", 0},
	{'C', NULL, NULL, "durations on CPU only: time asleep in a call left out", 0},
	TOOL_DURATION,
	{'D', NULL, NULL, "no DURATION column", 0},
	{'H', NULL, NULL, "print a header row", 0},
	{'I', NULL, NULL, "graph the interrupts that arrive during a call too", 0},
	TOOL_JSON("one JSON object per line of the graph"),
	TOOL_TID,
	{'m', NULL, "DEPTH", "graph calls down to this depth only (FUNC is 1)", 0},
	TOOL_PID,
	{'P', NULL, NULL, "COMM and PID columns: the task of each line", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"funcgraph do_nanosleep              # what a sleep does in the kernel",
	"funcgraph -m 3 vfs_read             # vfs_read, three levels deep",
	"funcgraph -P -p 181 vfs_write       # PID 181's writes, with the task",
	"funcgraph -C -D do_sys_open         # opens, no durations",
	"funcgraph -d 1 -j do_sys_open       # one second as JSON lines",
	"funcgraph vfs_read --exec cat FILE  # a command's reads",
	"funcgraph --trace-json g.json -d 1 do_nanosleep # nested spans for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'a': env.header = env.proc = t->o.timestamp = true; break;
	case 'C': env.on_cpu = true; break;
	case 'D': env.no_dur = true; break;
	case 'H': env.header = true; break;
	case 'I': env.irqs = true; break;
	case 'm': env.max_depth = (int)opt_int(arg, 1, 1000, "DEPTH"); break;
	case 'P': env.proc = true; break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc < 1)
		opt_fail("no FUNC: below which kernel function? (see -h)");
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (one function; see -h)", argv[1]);
	/* set_graph_function also takes commands and negations: names and globs only */
	if (!*argv[0] || strpbrk(argv[0], " \t\n:!"))
		opt_fail("invalid FUNC: '%s' (a kernel function name or glob)", argv[0]);
	env.func = argv[0];
}

static enum tool_code prepare(struct tool_run *t)
{
	if (!ftrace_tracer_available("function_graph")) {
		fprintf(stderr, "funcgraph: no function_graph tracer in this kernel "
				"(CONFIG_FUNCTION_GRAPH_TRACER)\n");
		return TOOL_FAIL;
	}
	int n = ftrace_functions(env.func, NULL, NULL);
	if (n < 0) {
		int e = errno;
		fprintf(stderr, "funcgraph: cannot read available_filter_functions: %s%s\n",
			strerror(e),
			e == EPERM ? " (the kernel refuses the function tracer's files)" : "");
		return TOOL_FAIL;
	}
	if (n == 0) {
		fprintf(stderr, "funcgraph: no traceable kernel function matches '%s'\n", env.func);
		return TOOL_USAGE;
	}
	env.entry = session_event(&t->s, "ftrace", "funcgraph_entry", true);
	env.exit = session_event(&t->s, "ftrace", "funcgraph_exit", true);
	if (!env.entry || !env.exit ||
	    !(env.e_func = session_field(&t->s, env.entry, "func", true)) ||
	    !(env.e_depth = session_field(&t->s, env.entry, "depth", true)) ||
	    !(env.x_func = session_field(&t->s, env.exit, "func", true)) ||
	    !(env.x_depth = session_field(&t->s, env.exit, "depth", true)) ||
	    !(env.x_call = session_field(&t->s, env.exit, "calltime", true)) ||
	    !(env.x_ret = session_field(&t->s, env.exit, "rettime", true)))
		return TOOL_FAIL;
	if (!(env.ksyms = ksym_load())) {
		fprintf(stderr, "funcgraph: cannot read the kernel's symbols (/proc/kallsyms)\n");
		return TOOL_FAIL;
	}
	env.tep = t->s.tep;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	env.ncpus = ncpus > 0 ? (int)ncpus : 1;
	if (!(env.cpus = calloc((size_t)env.ncpus, sizeof(*env.cpus)))) {
		fprintf(stderr, "funcgraph: out of memory\n");
		return TOOL_FAIL;
	}
	for (int i = 0; i < env.ncpus; i++)
		env.cpus[i].expect = -1;
	env.self = getpid();
	snprintf(t->traced, sizeof(t->traced), "calls below %s (function_graph, top level)",
		 env.func);
	/* Last, and before this run's instance is made: a run refused here leaves nothing
	 * (4.9 refuses to remove an instance whose tracer, nop, is read anywhere else). */
	if (toplevel_acquire(&env.top, "funcgraph"))
		return TOOL_FAIL;
	t->top = &env.top;
	return TOOL_OK;
}

/* A top-level file that lists functions: its entries hide calls from the graph. True when
 * it holds any. */
static bool say_if_set(const char *file, const char *what)
{
	char *text = tracefs_instance_file_read(NULL, file, NULL);
	char list[256];
	bool set = true;
	if (text && toplevel_normalize(file, text, list, sizeof(list))) /* too long to quote */
		fprintf(stderr, "funcgraph: %s at the top level is set: %s (left as it is)\n", file,
			what);
	else if (text && *list)
		fprintf(stderr, "funcgraph: %s at the top level holds '%s': %s (left as it is)\n",
			file, list, what);
	else
		set = false;
	free(text);
	return set;
}

/* -p/-L's threads into the top level's set_ftrace_pid, the first list replacing what it
 * held: all of them, however many. */
struct top_pids {
	struct toplevel *tl;
	int n;
};

static int add_top_pid(void *ctx, const char *ids)
{
	struct top_pids *to = ctx;
	return to->n++ ? toplevel_add(to->tl, "set_ftrace_pid", ids) :
			 toplevel_set(to->tl, "set_ftrace_pid", ids);
}

/* The top level, taken and set before its buffers are opened: its tracer cannot change
 * while they are read (EBUSY). The tracer last: it starts recording when set. */
static enum tool_code instance(struct tool_run *t)
{
	struct toplevel *tl = &env.top;
	char val[64];
	bool filtered = say_if_set("set_ftrace_filter", "only its functions are graphed");
	say_if_set("set_ftrace_notrace", "its functions are not graphed");
	say_if_set("set_graph_notrace", "calls below its functions are not graphed");
	if (toplevel_set(tl, "set_graph_function", env.func))
		return TOOL_FAIL;
	/* One level (-m 1) is FUNC's calls alone: only they are traced, so the kernel patches
	 * their call sites only, not every function's (seconds to start and to stop on a big
	 * kernel under emulation). */
	if (env.max_depth == 1 && !filtered && toplevel_set(tl, "set_ftrace_filter", env.func))
		return TOOL_FAIL;
	snprintf(val, sizeof(val), "%d", env.max_depth);
	if (tracefs_file_exists(NULL, "max_graph_depth") &&
	    toplevel_set(tl, "max_graph_depth", val))
		return TOOL_FAIL;
	/* -p, -L, --exec: the tasks; a process's later threads and children by function-fork
	 * (4.14+; 4.9 follows only those there at the start). */
	if (t->o.pid || t->o.tid) {
		struct top_pids to = {tl, 0};
		/* One write where the kernel takes a list (4.10; function-fork came in 4.14): each
		 * costs ~0.1 s under emulation (4.19), 1200 threads in 64-byte lists took 10 s. */
		bool lists = tracefs_file_exists(NULL, "options/function-fork");
		if (threads_each_list("funcgraph", t->o.pid, t->o.tid, lists ? 0 : 64, add_top_pid,
				      &to))
			return TOOL_FAIL;
		if (!t->o.tid && lists && toplevel_set(tl, "options/function-fork", "1"))
			return TOOL_FAIL;
	}
	/* This process's own calls (the reads of the buffers go through vfs_read) recorded
	 * would make more to read: left out by the kernel where it can (5.8+), else here. */
	snprintf(val, sizeof(val), "%d", env.self);
	if (tracefs_file_exists(NULL, "set_ftrace_notrace_pid") &&
	    toplevel_set(tl, "set_ftrace_notrace_pid", val))
		return TOOL_FAIL;
	/* Interrupts are graphed where they land, inside whatever call was running (4.14
	 * records their entry at depth 0 there); this run's own reads wake it by one
	 * (irq_work). Off unless -I: see in_irq(). */
	if (tracefs_file_exists(NULL, "options/funcgraph-irqs") &&
	    toplevel_set(tl, "options/funcgraph-irqs", env.irqs ? "1" : "0"))
		return TOOL_FAIL;
	const char *sleep = tracefs_file_exists(NULL, "options/sleep-time") ?
				    "options/sleep-time" :
				    "options/funcgraph-sleep-time";
	if (tracefs_file_exists(NULL, sleep) && toplevel_set(tl, sleep, env.on_cpu ? "0" : "1"))
		return TOOL_FAIL;
	if (env.on_cpu && !tracefs_file_exists(NULL, sleep)) {
		fprintf(stderr, "funcgraph: -C needs the sleep-time option, not in this kernel\n");
		return TOOL_FAIL;
	}
	/* The clock of this run's instance (the task names are read from there, merged in
	 * time order), and a buffer for floods (the instance, unused, keeps the default). */
	char *clock = tracefs_instance_file_read(t->s.inst, "trace_clock", NULL);
	char *size = tracefs_instance_file_read(NULL, "buffer_size_kb", NULL);
	int ret = !clock || toplevel_normalize("trace_clock", clock, val, sizeof(val)) ||
		  toplevel_set(tl, "trace_clock", val);
	free(clock);
	snprintf(val, sizeof(val), "%zu", session_buffer_kb(session_big_buffer_kb()));
	/* "X": per-CPU sizes of the owner's choosing, kept */
	if (!ret && size && size[0] != 'X' && toplevel_set(tl, "buffer_size_kb", val))
		ret = 1;
	free(size);
	if (ret || toplevel_set(tl, "tracing_on", "1") ||
	    toplevel_set(tl, "current_tracer", "function_graph"))
		return TOOL_FAIL;
	return TOOL_OK;
}

/* --- per record ----------------------------------------------------------------------------- */

static const char *fname(unsigned long long addr, char buf[32])
{
	unsigned long long off;
	const char *name = ksym_find(env.ksyms, addr, &off);
	/* (the address may be past the symbol's start: after ENDBR64 where the kernel has IBT) */
	if (name && env.func_addr && addr - off == env.func_addr)
		return env.func;
	if (name)
		return name;
	snprintf(buf, 32, "0x%llx", addr);
	return buf;
}

enum kind { ENTRY, EXIT, LEAF };

/* -j: one object per line of the graph. */
static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{NULL, "cpu", 0, ROW_INT, 0, 0, "the CPU"},
	{NULL, "pid", 0, ROW_INT, 0, 0, "the thread"},
	{NULL, "comm", 0, ROW_STR, 0, 0, "its name then, exact"},
	{NULL, "func", 0, ROW_STR, 0, 0, "the function (an address where no symbol is known)"},
	{NULL, "depth", 0, ROW_INT, 0, 0, "its depth in the graph, 0 for FUNC"},
	{NULL, "call", 0, ROW_WORD, 0, 0,
	 "entry (a call that goes deeper), exit (its return) or leaf (a call with no traced "
	 "callee)"},
	{NULL, "dur_ns", 0, ROW_UINT, 0, 0,
	 "exit and leaf: the call's duration in ns (-C: on CPU only); null on an entry"},
};
static const struct row_table table = ROW_TABLE("each line of the graph", cols);

/* --trace-json: a call the graph closed (EXIT, or LEAF: end_ns its return record's time) as a
 * span from its entry record to its return record, on its thread's track: the calls of a
 * thread nest as its graph does. An EXIT whose entry the graph did not show (begun before
 * the run, or deeper than OPEN_DEPTH) makes none. The times are the records' (the kernel's
 * call and return times are another clock before Linux 6.x: dur_ns, in the args, is theirs,
 * as -j's). */
static void trace_call(struct tool_run *t, struct tracejson *tj, int cpu, int tid, uint64_t ts,
		       uint64_t end_ns, enum kind k, const char *name, int depth, uint64_t dur_ns)
{
	struct open *o = pair_get(&env.open, (uint64_t)tid, 0);
	if (k == ENTRY) {
		if (!o)
			o = pair_put(&env.open, (uint64_t)tid, 0);
		if (depth >= 0 && depth < OPEN_DEPTH)
			o->ts[depth] = ts;
		o->n = depth >= 0 && depth < OPEN_DEPTH ? depth + 1 : 0;
		return;
	}
	uint64_t start = ts;
	if (k == EXIT) {
		if (!o || depth < 0 || depth >= o->n)
			return;
		start = o->ts[depth];
		end_ns = ts;
	}
	if (o && depth >= 0 && depth < o->n)
		o->n = depth;
	char comm[16]; /* (the table's slot may move when the process is looked up) */
	snprintf(comm, sizeof(comm), "%s", tool_comm(t, tid));
	tool_trace_span(t, tj, tid, 0, comm, sizeof(comm), name, SIZE_MAX, "func", start,
			end_ns > start ? end_ns - start : 0);
	tracejson_arg_str(tj, "comm", comm, sizeof(comm));
	tracejson_arg_int(tj, "pid", tid);
	tracejson_arg_int(tj, "cpu", cpu);
	tracejson_arg_int(tj, "depth", depth);
	tracejson_arg_uint(tj, "dur_ns", dur_ns);
	tracejson_span_end(tj);
}

/* One line of the graph. dur_ns: the call's duration (EXIT and LEAF); end_ns: a LEAF's return
 * record's time. */
static void line(struct tool_run *t, int cpu, int pid, uint64_t ts, enum kind k,
		 unsigned long long func, int depth, uint64_t dur_ns, uint64_t end_ns)
{
	char buf[32], when[16];
	const char *name = fname(func, buf);
	struct tracejson *tj = tool_trace_json(t);
	if (tj)
		trace_call(t, tj, cpu, pid, ts, end_ns, k, name, depth, dur_ns);
	if (t->o.json) {
		static const char *const kinds[] = {"entry", "exit", "leaf"};
		struct row *w = &env.json;
		row_begin(w, ts);
		row_int(w, cpu);
		row_int(w, pid);
		row_str(w, tool_comm(t, pid), 16);
		row_str(w, name, strlen(name));
		row_int(w, depth);
		row_word(w, kinds[k]);
		if (k != ENTRY)
			row_uint(w, dur_ns);
		else
			row_none(w);
		row_end(w);
		return;
	}
	if (t->o.timestamp) {
		char secs[48];
		printf("%-14.*s ", (int)out_seconds_buf(secs, ts), secs);
	}
	if (t->o.wallclock)
		printf("%-8s ", out_wallclock(ts, when));
	printf("%3d) ", cpu);
	if (env.proc) {
		out_text(stdout, tool_comm(t, pid), 16, 16);
		printf(" %7d ", pid);
	}
	if (env.no_dur)
		putchar('|');
	else if (k == ENTRY)
		printf("%13s |", "");
	else
		printf("%10.3f us |", dur_ns / 1e3);
	printf("%*s", 2 + 2 * depth, "");
	if (k == ENTRY)
		printf("%s() {\n", name);
	else if (k == LEAF)
		printf("%s();\n", name);
	else
		printf("} /* %s */\n", name);
}

/* What a CPU holds is not a leaf after all: shown as the start of a call. */
static void flush_held(struct tool_run *t, int cpu, struct cpu_state *c)
{
	if (c->held)
		line(t, cpu, c->pid, c->ts, ENTRY, c->func, c->depth, 0, 0);
	c->held = false;
}

static struct cpu_state *cpu_of(struct tool_run *t, struct tep_record *rec, int pid)
{
	if (pid == env.self || rec->cpu < 0 || rec->cpu >= env.ncpus)
		return NULL;
	struct cpu_state *c = &env.cpus[rec->cpu];
	if (c->last_pid != pid) {
		flush_held(t, rec->cpu, c);
		if (c->last_pid && !t->o.json && !env.proc)
			printf("%3d) ------ %s-%d => %s-%d ------\n", rec->cpu,
			       tool_comm(t, c->last_pid), c->last_pid, tool_comm(t, pid), pid);
		c->last_pid = pid;
		c->expect = -1;
	}
	return c;
}

/*
 * A task that slept inside a call resumes it on whichever CPU it is woken on: its entry may
 * be held by the CPU it left (with no record of it in between, the call is still one line).
 * Where each task was last seen, in a table by pid that forgets on collisions (then the
 * half-second flush shows the entry begun). The CPU it left, or -1. Not the idle tasks:
 * each CPU has one, all pid 0.
 */
#define LAST_SLOTS 4096
static struct {
	int pid, cpu;
} last_seen[LAST_SLOTS];

static int moved_from(int pid, int cpu)
{
	unsigned int i = (unsigned int)pid % LAST_SLOTS;
	int from = pid && last_seen[i].pid == pid ? last_seen[i].cpu : -1;
	last_seen[i].pid = pid;
	last_seen[i].cpu = cpu;
	if (from != cpu) /* new here, or not known: how deep it is, not known either */
		env.cpus[cpu].expect = -1;
	return from >= 0 && from != cpu && from < env.ncpus && env.cpus[from].held &&
			       env.cpus[from].pid == pid ?
		       from :
		       -1;
}

/* Is func (a record's, perhaps a few bytes into the function) one of the three? */
static bool near(const unsigned long long f[3], unsigned long long func)
{
	for (int i = 0; i < 3; i++)
		if (f[i] && func - f[i] < 16)
			return true;
	return false;
}

/*
 * Without -I: the kernel (funcgraph-irqs off) skips what runs in hardirq context, but not
 * what runs before the hardirq count is raised or after it is lowered: 4.14 records
 * smp_irq_work_interrupt (at depth 0, whatever it interrupted) with the start and end of
 * irq_enter and irq_exit inside; 6.x, whose entry code cannot be traced, irq_enter_rcu. An
 * interrupt's entry function (.irqentry.text) and all its CPU records until it returns, and
 * irq_enter and irq_enter_rcu, are left out here. True: the record is left out.
 * (16: past an ENDBR64 and the call to fentry.)
 */
static bool in_irq(struct tep_record *rec, int flags, unsigned long long func, bool entry,
		   int depth)
{
	if (env.irqs || rec->cpu < 0 || rec->cpu >= env.ncpus)
		return false;
	struct cpu_state *c = &env.cpus[rec->cpu];
	/* The context of each record (its common_flags): a record of hardirq context means an
	 * interrupt on this CPU (4.9: irq_enter's return); what comes after it in a softirq
	 * the interrupted context was not in is the softirqs it runs as it ends, and its last
	 * steps outside hardirq context (rcu_irq_exit) are its own, until the interrupted
	 * context's next record. 4.9 records those softirqs at the depth of a callee of the
	 * interrupted call when __do_softirq's own entry is not recorded (one interrupt in a
	 * few hundred: run_timer_softirq inside vfs_read). */
	if (flags & TRACE_FLAG_HARDIRQ) {
		c->irq_tail = true;
		return true;
	}
	if (c->irq_tail) {
		if (((flags & TRACE_FLAG_SOFTIRQ) && !c->ctx_softirq) || near(env.irq_exit, func))
			return true;
		c->irq_tail = false;
	}
	/* Inside an interrupt's work until its first function returns; a record shallower
	 * than that function is the interrupted context's again, its return not recorded
	 * (else one lost return would hide the rest of the run on this CPU). */
	if (c->in_irq && depth < c->irq_depth)
		c->in_irq = false;
	if (c->in_irq) {
		if (!entry && func == c->irq_func && depth == c->irq_depth)
			c->in_irq = false;
		return true;
	}
	if (entry && func >= env.irq_lo && func < env.irq_hi) {
		c->in_irq = true;
		c->irq_func = func;
		c->irq_depth = depth;
		return true;
	}
	/* The enter and exit steps of an interrupt, wherever they show: 4.19 records
	 * rcu_irq_exit's return with no record of hardirq context before it. */
	if (near(env.irq_enter, func) || near(env.irq_exit, func))
		return true;
	c->ctx_softirq = flags & TRACE_FLAG_SOFTIRQ;
	return false;
}

/* A record's function, depth, task and context flags (common_flags), and the state of its
 * CPU; NULL when it is left out (this process's, an interrupt's). from: the CPU its task
 * left with an entry held, or -1. */
static struct cpu_state *record_of(struct tool_run *t, struct tep_record *rec, bool entry,
				   unsigned long long *func, int *depth, int *pid, int *from,
				   int *flags)
{
	*func = (unsigned long long)reader_num(rec, entry ? env.e_func : env.x_func);
	*depth = (int)reader_num(rec, entry ? env.e_depth : env.x_depth);
	*flags = tep_data_flags(env.tep, rec);
	if (in_irq(rec, *flags, *func, entry, *depth))
		return NULL;
	*pid = tep_data_pid(t->s.tep, rec);
	struct cpu_state *c = cpu_of(t, rec, *pid);
	if (c)
		*from = moved_from(*pid, rec->cpu);
	return c;
}

static void on_entry(struct tep_record *rec, void *ctx)
{
	struct tool_run *t = ctx;
	unsigned long long func;
	int depth, pid, from, flags;
	struct cpu_state *c = record_of(t, rec, true, &func, &depth, &pid, &from, &flags);
	if (!c)
		return;
	if (!env.irqs && near(env.softirq, func) &&
	    !(c->held && c->depth == depth - 1 && near(env.bh_parent, c->func))) {
		/* softirqs an interrupt ran as it ended (5.10: do_softirq_own_stack at the
		 * depth of the interrupted function's callees), left out with their callees;
		 * those of do_softirq (local_bh_enable) are the function's */
		c->in_irq = true;
		c->irq_func = func;
		c->irq_depth = depth;
		return;
	}
	if (!env.irqs && c->expect >= 0 && depth != c->expect) {
		/* deeper: no parent recorded; not deeper than the call held open (6.1: idle_cpu
		 * at the depth of the __rcu_read_lock it interrupted): an interrupt's work
		 * outside hardirq context (what irq_exit_rcu does once the count is lowered),
		 * left out with its callees */
		c->in_irq = true;
		c->irq_func = func;
		c->irq_depth = depth;
		return;
	}
	bool irqs_off = flags & TRACE_FLAG_IRQS_OFF;
	if (!env.irqs && irqs_off && !c->irqs_off && near(env.tick_exit, func)) {
		/* idle_cpu with interrupts off where its caller ran with them on: not a call of
		 * that function (its callers in the scheduler hold interrupts off) but an
		 * interrupt's end, left out with its callees */
		c->in_irq = true;
		c->irq_func = func;
		c->irq_depth = depth;
		return;
	}
	c->irqs_off = irqs_off;
	c->expect = depth + 1;
	if (from >= 0)
		flush_held(t, from, &env.cpus[from]);
	flush_held(t, rec->cpu, c);
	c->held = true;
	c->func = func;
	c->depth = depth;
	c->ts = rec->ts;
	c->pid = pid;
	c->wakes = env.wakes;
}

static void on_exit_record(struct tep_record *rec, void *ctx)
{
	struct tool_run *t = ctx;
	unsigned long long func;
	int depth, pid, from, flags;
	struct cpu_state *c = record_of(t, rec, false, &func, &depth, &pid, &from, &flags);
	if (!c)
		return;
	unsigned long long call = (unsigned long long)reader_num(rec, env.x_call);
	unsigned long long ret = (unsigned long long)reader_num(rec, env.x_ret);
	uint64_t dur = ret > call ? ret - call : 0;
	int hcpu = from >= 0 ? from : rec->cpu;
	struct cpu_state *h = &env.cpus[hcpu];
	c->expect = depth;
	c->irqs_off = flags & TRACE_FLAG_IRQS_OFF;
	if (h->held && h->func == func && h->depth == depth) {
		/* shown on the CPU of its entry, with the entry's time */
		h->held = false;
		line(t, hcpu, pid, h->ts, LEAF, func, depth, dur, rec->ts);
		return;
	}
	flush_held(t, hcpu, h);
	flush_held(t, rec->cpu, c);
	line(t, rec->cpu, pid, rec->ts, EXIT, func, depth, dur, 0);
}

/* Records of a CPU were lost: what it holds cannot be matched any more, and the graph says
 * where (the lines after it may close calls whose start was lost). */
static void on_lost(int cpu, long long n, void *ctx)
{
	struct tool_run *t = ctx;
	if (cpu >= 0 && cpu < env.ncpus) {
		flush_held(t, cpu, &env.cpus[cpu]);
		if (!t->o.json && n > 0)
			printf("%3d) ------ %lld events lost ------\n", cpu, n);
		else if (!t->o.json)
			printf("%3d) ------ events lost ------\n", cpu);
		env.cpus[cpu].in_irq = false; /* its return may be among the lost */
		env.cpus[cpu].irq_tail = false;
		env.cpus[cpu].expect = -1;
	}
}

/* A CPU whose next record does not come (it went idle, or its task left for another CPU)
 * would hold its entry back indefinitely: shown once it is half a second old (a call that
 * sleeps longer is shown begun, then ended), or after ten wake-ups of the reader where the
 * trace clock is not the monotonic one. */
static void wake(struct tool_run *t, uint64_t now)
{
	for (int i = 0; i < env.ncpus; i++) {
		struct cpu_state *c = &env.cpus[i];
		if (c->held &&
		    (t->r.mono ? now > c->ts + 500000000ULL : env.wakes - c->wakes >= 10))
			flush_held(t, i, c);
	}
	env.wakes++;
}

/* The addresses the records are read against, once the kernel is set up: kallsyms is read
 * meanwhile (ksym.h), and this waits for it. */
static void find_addresses(void)
{
	/* Its name, not another at the same address (6.12: __x64_sys_getppid is
	 * __do_sys_getppid), as kallsyms would give. */
	if (!strpbrk(env.func, "*?["))
		env.func_addr = ksym_addr(env.ksyms, env.func);
	env.irq_lo = ksym_addr(env.ksyms, "__irqentry_text_start");
	env.irq_hi = ksym_addr(env.ksyms, "__irqentry_text_end");
	env.irq_enter[0] = ksym_addr(env.ksyms, "irq_enter");
	env.irq_enter[1] = ksym_addr(env.ksyms, "irq_enter_rcu");
	env.irq_enter[2] =
		ksym_addr(env.ksyms, "rcu_irq_enter"); /* irq_enter's, before the count */
	env.softirq[0] = env.bh_parent[1] = ksym_addr(env.ksyms, "do_softirq_own_stack");
	env.softirq[1] = ksym_addr(env.ksyms, "__do_softirq");
	env.softirq[2] = ksym_addr(env.ksyms, "handle_softirqs"); /* 6.8: __do_softirq's work */
	env.bh_parent[0] = ksym_addr(env.ksyms, "do_softirq");
	env.bh_parent[2] = env.softirq[1];
	env.irq_exit[0] = ksym_addr(env.ksyms, "rcu_irq_exit");
	env.irq_exit[1] = ksym_addr(env.ksyms, "irq_exit");
	env.irq_exit[2] = ksym_addr(env.ksyms, "irq_exit_rcu");
	env.tick_exit[0] = ksym_addr(env.ksyms, "idle_cpu");
	env.tick_exit[1] = ksym_addr(env.ksyms, "sched_core_idle_cpu");
}

static enum tool_code setup(struct tool_run *t)
{
	find_addresses();
	if (t->trace_json_path && pair_init(&env.open, 1024, sizeof(struct open)))
		return TOOL_FAIL;
	if (t->o.json)
		row_init(&env.json, &table, stdout, true, true, true);
	if (reader_on(&t->r, env.entry, on_entry, t) ||
	    reader_on(&t->r, env.exit, on_exit_record, t) || reader_on_lost(&t->r, on_lost, t))
		return TOOL_FAIL;
	return TOOL_OK;
}

/* --- output --------------------------------------------------------------------------------- */

static void header(struct tool_run *t)
{
	if (!env.header)
		return;
	if (t->o.timestamp)
		printf("%-14s ", "TIME(s)");
	if (t->o.wallclock)
		printf("%-8s ", "TIME");
	printf("%-4s ", "CPU");
	if (env.proc)
		printf("%-16s %7s ", "COMM", "PID");
	printf("%s|  FUNCTION CALLS\n", env.no_dur ? "" : "     DURATION ");
}

/* Calls entered and not yet returned when the run stopped: shown as begun. */
static void end(struct tool_run *t)
{
	for (int i = 0; i < env.ncpus; i++)
		flush_held(t, i, &env.cpus[i]);
}

static void cleanup(struct tool_run *t)
{
	if (t->top)
		toplevel_release(t->top);
	ksym_free(env.ksyms);
	free(env.cpus);
	pair_free(&env.open);
}

static const struct tool funcgraph = {
	.name = "funcgraph",
	.no_cgroup = true,
	.opts = options,
	.operands = "FUNC",
	.operand_help =
		"   FUNC        a kernel function (or glob), as available_filter_functions\n"
		"               lists them: the graph of every call below it\n",
	.examples = examples,
	.formats = (const char *const[]){"ftrace:funcgraph_entry", "ftrace:funcgraph_exit", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.instance = instance,
	.setup = setup,
	.header = header,
	.wake = wake,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&funcgraph, argc, argv);
}
