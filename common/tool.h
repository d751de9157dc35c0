/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tool: the skeleton every tool is written on. A tool describes itself in a struct tool (its
 * name, one table of options, operands, examples, the events it loads, and callbacks for
 * each stage); tool_main() runs it: parsing and usage from the table, the session (a private
 * instance, signals, cleanup on every exit path), the names of tasks, the reader, -d,
 * intervals, and the exit status (0 done, 1 runtime failure, 2 usage error).
 *
 * Stages, in order: option() for each of the tool's own options; operands(); prepare()
 * before anything changes in the kernel (check features, load formats, -l and -v, probes);
 * then the instance is made and -p/-L applied; instance() sets what must be set before its
 * buffers are opened (a tracer); task names are followed; setup() enables the
 * tool's events (tool_trace) and registers their handlers; banner and header(); the reader
 * runs until a stop, calling interval() every interval; end(); cleanup() on every path.
 */
#ifndef FTT_TOOL_H
#define FTT_TOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/child.h"
#include "kernel/perfev.h"
#include "base/opt.h"
#include "stream/reader.h"
#include "kernel/session.h"

struct cgroup;
struct comm_table;
struct record;
struct row_table;
struct tep_event;
struct toplevel;
struct prom;
struct tracejson;

/* Exit statuses, and TOOL_DONE: prepare() did all there was to do (-l, -v). */
enum tool_code { TOOL_OK = 0, TOOL_FAIL = 1, TOOL_USAGE = 2, TOOL_DONE = 3 };

/* The keys of the long options the driver owns (opt.h: OPT_LONG + n); a tool's own long
 * options count up from OPT_LONG + 1, these down from OPT_LONG + 0xff. */
enum tool_long_key {
	TOOL_LONG_EXEC = OPT_LONG + 0xff,
	TOOL_LONG_JSON_KEYS = OPT_LONG + 0xfe,
	TOOL_LONG_RECORD = OPT_LONG + 0xfd,
	TOOL_LONG_CGROUP = OPT_LONG + 0xfc,
	TOOL_LONG_PROM = OPT_LONG + 0xfb,
	TOOL_LONG_TAG = OPT_LONG + 0xfa,
	TOOL_LONG_TRACE_JSON = OPT_LONG + 0xf9,
};

/* The options every tool spells alike (CONTRIBUTING.md, "Option letters"); tool_main parses
 * them. */
enum tool_opt_id {
	TOOL_OPT_DURATION = 1, /* -d SECS */
	TOOL_OPT_PID,	       /* -p PID */
	TOOL_OPT_TID,	       /* -L TID */
	TOOL_OPT_NAME,	       /* -n NAME */
	TOOL_OPT_JSON,	       /* -j, --json */
	TOOL_OPT_TIMESTAMP,    /* -t */
	TOOL_OPT_WALLCLOCK,    /* -T */
	TOOL_OPT_EXEC,	       /* --exec CMD [ARGS]: the rest of the command line */
	TOOL_OPT_JSON_KEYS,    /* --json-keys */
	TOOL_OPT_RECORD,       /* --record FILE (every tracing tool: tool.c adds it) */
	TOOL_OPT_CGROUP,       /* --cgroup PATH (likewise) */
	TOOL_OPT_OUTPUT,       /* -o FILE (likewise) */
	TOOL_OPT_PROM,	       /* --prom FILE (the tools that count: prom.h) */
	TOOL_OPT_TAG,	       /* --tag host,kernel (every tool: row.h's row_tag) */
	TOOL_OPT_TRACE_JSON,   /* --trace-json FILE (the tools that show spans: tracejson.h) */
};
#define TOOL_DURATION                                                                     \
	SPEC(.key = 'd', .arg = "SECS", .help = "trace for this many seconds, then exit", \
	     .id = TOOL_OPT_DURATION)
#define TOOL_PID                       \
	SPEC(.key = 'p', .arg = "PID", \
	     .help = "only this process (all its threads, also new ones)", .id = TOOL_OPT_PID)
#define TOOL_TID SPEC(.key = 'L', .arg = "TID", .help = "only this thread", .id = TOOL_OPT_TID)
#define TOOL_NAME                                                                       \
	SPEC(.key = 'n', .arg = "NAME",                                                 \
	     .help = "only tasks whose name matches (glob), as it was when\nthe event " \
		     "happened",                                                        \
	     .id = TOOL_OPT_NAME)
#define TOOL_JSON(text) SPEC(.key = 'j', .name = "json", .help = text, .id = TOOL_OPT_JSON)
#define TOOL_TIMESTAMP \
	SPEC(.key = 't', .help = "TIME(s) column: trace-clock seconds", .id = TOOL_OPT_TIMESTAMP)
#define TOOL_WALLCLOCK \
	SPEC(.key = 'T', .help = "TIME column: wall-clock time HH:MM:SS", .id = TOOL_OPT_WALLCLOCK)
/* Takes the rest of the command line (tool.c finds it before the options are parsed). */
#define TOOL_EXEC                                                                         \
	SPEC(.key = TOOL_LONG_EXEC, .name = "exec", .arg = "CMD [ARG...]",                \
	     .help = "run CMD and trace only it and what it starts; end\nwhen it exits; " \
		     "CMD keeps standard output, not -o's",                               \
	     .id = TOOL_OPT_EXEC)
/* The keys of -j's objects, from the tool's row tables (row.h); the man page lists them. */
#define TOOL_JSON_KEYS                                        \
	SPEC(.key = TOOL_LONG_JSON_KEYS, .name = "json-keys", \
	     .help = "list the keys of -j's objects and exit", .id = TOOL_OPT_JSON_KEYS)
/* The counts also in FILE for node_exporter's textfile collector (prom.h): a tool that lists
 * it writes the file where it prints an interval and at the end (tool_prom). */
#define TOOL_PROM                                                          \
	SPEC(.key = TOOL_LONG_PROM, .name = "prom", .arg = "FILE",         \
	     .help = "also write the counts to FILE in Prometheus' text "  \
		     "format\n(node_exporter's "                           \
		     "textfile collector), each interval and at\nthe end", \
	     .id = TOOL_OPT_PROM)
/* The spans also in FILE, for Perfetto and chrome://tracing (tracejson.h): a tool that lists
 * it writes its spans with tool_trace_json(); the driver makes FILE.tmp at start (a path
 * it cannot write is a usage error) and renames it over FILE when the run has traced. */
#define TOOL_TRACE_JSON                                                                 \
	SPEC(.key = TOOL_LONG_TRACE_JSON, .name = "trace-json", .arg = "FILE",          \
	     .help = "also write each span to FILE as Trace Event JSON, for\nPerfetto " \
		     "and chrome://tracing (written whole at the end)",                 \
	     .id = TOOL_OPT_TRACE_JSON)
#define TOOL_OPT_END SPEC(.key = 0)

struct tool_opts {
	uint64_t duration; /* ns, 0: until stopped */
	pid_t pid, tid;
	const char *name; /* comm glob */
	bool json, timestamp, wallclock;
	uint64_t interval; /* ns between interval() calls, 0: none */
	long long count;   /* intervals, then stop; 0: until stopped */
	char **exec;	   /* --exec: the command and its arguments (NULL-terminated) */
};

struct tool_run;

/* The operands most tools take, parsed and described by the driver (before operands_fn,
 * which then only checks what it needs): "[duration]", or "[interval [count]]". */
enum tool_operand_kind {
	TOOL_OPERANDS_OWN,	/* operands, operand_help and operands_fn are the tool's */
	TOOL_OPERAND_DURATION,	/* [duration]: as -d */
	TOOL_OPERAND_INTERVALS, /* [interval [count]]: what .interval prints, how often */
};

struct tool {
	const char *name;
	const struct opt_spec *opts; /* ends with TOOL_OPT_END */
	enum tool_operand_kind operand_kind;
	/* TOOL_OPERAND_INTERVALS: what each interval prints ("tables"), and the interval
	 * when none is given (0: one at the end). */
	const char *interval_prints;
	unsigned interval_default_s;
	const char *operands;	  /* in the synopsis, after the options */
	const char *const *more;  /* other synopsis lines, after the name */
	const char *operand_help; /* usage lines for the operands */
	const char *const *examples;
	const char *const *formats; /* events whose formats are loaded at start */
	/* The tables of its lines (row.h), NULL-terminated: --json-keys lists their keys. */
	const struct row_table *const *rows;
	/* Its events happen in the context of tasks other than the ones they concern (a
	 * softirq's, a whole system's): no --cgroup, whose filter is by the running task. */
	bool no_cgroup;
	/* It prints only per interval or at its end: its buffers are read when a quarter full
	 * or every second, not at each event (reader.h: batched); every 100 ms with --exec, -p
	 * or -L, whose end ends the run, and with --cgroup, whose tasks are written again at a
	 * wake-up (offwaketime --cgroup of a program started at once saw none of its events
	 * when the first wake-up came a second later). */
	bool batched;
	void *state; /* the tool's own state, for shared stages (tracer.h) */
	void (*option)(struct tool_run *t, const struct opt_spec *o, const char *arg);
	/* The operands (argv[0] .. argv[argc-1]); usage errors exit 2 (opt_fail). */
	void (*operands_fn)(struct tool_run *t, int argc, char **argv);
	/* After the command line is parsed (operands too): usage errors (opt_fail) only. */
	void (*check)(struct tool_run *t);
	enum tool_code (*prepare)(struct tool_run *t);
	/* The instance is made, -p/-L applied, its buffers not yet opened: for what the kernel
	 * allows only then (a tracer cannot be set while its buffers are read: EBUSY). */
	enum tool_code (*instance)(struct tool_run *t);
	enum tool_code (*setup)(struct tool_run *t);
	/* On stderr; without it: "Tracing <what>. Ctrl-C to end." */
	void (*banner)(struct tool_run *t);
	/* Column headers on stdout (not called with -j); without it, row's (row.h). */
	void (*header)(struct tool_run *t);
	/* Its line (row.h), which the driver makes with row_init() from table (or the table
	 * table_of chooses by the options), -j, -t and -T before prepare(); prepare() and
	 * setup() may turn optional columns on (row_show). Its header is printed under the
	 * banner unless header_later (a tool that prints its table every interval). */
	struct row *row;
	const struct row_table *table;
	const struct row_table *(*table_of)(struct tool_run *t);
	bool header_later;
	/* Every interval; non-zero: that was the last one. */
	int (*interval)(struct tool_run *t, uint64_t now);
	/* At every wake-up of the reader (at least every 100 ms), after its events: for what
	 * waits on time rather than on an event. */
	void (*wake)(struct tool_run *t, uint64_t now);
	/* After the stop and the last events: what is left to print (a partial interval). */
	void (*end)(struct tool_run *t);
	void (*cleanup)(struct tool_run *t);
};

struct tool_run {
	const struct tool *tool;
	struct tool_opts o;
	struct session s;
	struct reader r;
	struct comm_table *names; /* task names, when followed */
	/* Set by prepare() when they differ from the default. */
	bool follow_names; /* default true: names are printed or filtered */
	bool ordered;	   /* default true: CPUs merged in time order */
	size_t buffer_kb; /* per CPU, 0: the kernel's (session_buffer_kb: FTT_BUFFER_KB overrides) */
	char traced[PATH_MAX + 1024]; /* what the default banner says is traced */
	int intervals;		      /* interval() calls so far */
	bool last_interval;	      /* interval() said it was the last */
	/* Set by prepare() when the tool traces at the top level (toplevel.h), which it
	 * owns: its buffers are read instead of the instance's; released after them (a
	 * setting that cannot be written back makes the run exit 1). */
	struct toplevel *top;
	/* Set by a stage that failed after tracing began (said on stderr): the run exits 1. */
	bool failed;
	int *ring_fds; /* tool_wake_on_rings(): the reader's wake_fds, the driver's to free */
	/* --exec: the command, held until tracing is on, then waited for (child.h). */
	struct child child;
	/* -p/-L (or a tool's own -p: tool_watch): the run ends when it is gone. */
	pid_t watch;
	bool watch_thread;
	unsigned long long watch_start;
	uint64_t watch_next;
	bool watch_ended; /* the run ended as the watched process was gone */
	/* --cgroup PATH (cgroup.h): by default the instance traces only the group's tasks
	 * (set_event_pid, set_ftrace_pid, forks followed, the group read again every second);
	 * a tool whose events happen in other tasks' context (an interrupt's) sets
	 * pids_checked_here in prepare() and asks tool_in_cgroup() of each event's task. */
	struct cgroup *cgroup;
	bool pids_checked_here;
	uint64_t cgroup_next;
	/* Listeners of the reader's losses given before it opens (tool_on_lost). */
	struct {
		reader_lost_fn fn;
		void *ctx;
	} on_lost[8];
	int non_lost;
	bool reader_open;
	/* -o FILE: the output goes there (out_to_file). */
	const char *output;
	/* --record FILE: the raw events kept as a trace.dat (record.h). */
	const char *record_path;
	struct record *record;
	/* --prom FILE (prom.h): checked at start, written by the tool (tool_prom). */
	const char *prom_path;
	struct prom *prom;
	/* --trace-json FILE (tracejson.h): begun at start, written by the tool, made whole at
	 * the end of a run that traced (traced_from set), else removed. */
	const char *trace_json_path;
	struct tracejson *trace_json;
	bool tracing_began;
};

/* Runs the tool t, described by its struct tool, on the command line argc, argv (argv is
 * changed: --exec's place set to NULL); once per process (its state is static). Returns the
 * exit status: TOOL_OK (0: done, also when prepare() returned TOOL_DONE or a stop came before
 * anything was made), TOOL_FAIL (1: a runtime failure, said on stderr; also a --prom FILE that
 * cannot be written), TOOL_USAGE (2: a usage error, as a --trace-json or -o FILE that cannot
 * be made), or any other status a stage returned. A usage error of the command line exits 2
 * (opt_fail) without returning; so does --json-keys, with 0. */
enum tool_code tool_main(const struct tool *t, int argc, char **argv);

/*
 * In setup(): traces ev in t, the tool's run, with an ftrace filter (may be NULL) and the
 * shared filters (this process left out, -n), handing each record to fn with ctx. The kernel
 * filters where it can; -n on an event with a comm field of its own (the kernel's "comm"
 * would be that field) is checked here on the in-band names before fn is called. Returns
 * TOOL_OK; TOOL_USAGE for a filter the kernel rejects (its explanation on stderr) or one too
 * long ("filter too long"); TOOL_FAIL when ev cannot be enabled (said) or out of memory (not
 * said).
 */
enum tool_code tool_trace(struct tool_run *t, struct tep_event *ev, const char *filter,
			  reader_event_fn fn, void *ctx);

/*
 * In setup(), before any event is enabled (one enabled before has no stack): a kernel stack
 * (kernel) and a user stack (user) recorded after each event of t's instance, the function
 * tracer's calls with their own option (func). The stack events are loaded into *kstack and
 * *ustack (NULL when not asked; the session's, not to be freed) and handed to their event's
 * handler as trailers (reader_trailer). Returns TOOL_OK, or TOOL_FAIL: a kernel without them
 * is named by its CONFIG_ option, an option that cannot be set is said, a trailer that
 * cannot be registered is not.
 */
enum tool_code tool_stacks(struct tool_run *t, bool kernel, bool user, bool func,
			   struct tep_event **kstack, struct tep_event **ustack);

/* The name of task pid when its current event happened, as t's names know it. Returns it,
 * valid until the next call; "<...>" (static) when it is not known or names are not
 * followed. */
const char *tool_comm(struct tool_run *t, int pid);
/* The process (thread group) of thread tid, as the names t follows know it. Returns it, or
 * tid itself when they do not (no names followed, or a thread not seen). */
int tool_tgid(struct tool_run *t, int tid);

/* With --cgroup: whether task tid is in t's group (or a descendant) now, or when first asked
 * (answers are kept for the run). Reads /proc/TID/cgroup: for a tool that checks pids itself
 * (pids_checked_here). A task that is gone is a member if its process or parent process is
 * (the names followed). Returns true when it is, and always without --cgroup; else false. */
bool tool_in_cgroup(struct tool_run *t, pid_t tid);

/* The run t ends when process pid (or thread, when thread) is gone, as after -d: for a tool's
 * own -p (the shared -p and -L are watched by tool_main). */
void tool_watch(struct tool_run *t, pid_t pid, bool thread);

/*
 * A .batched tool whose records also come through perf rings (a, and b: NULL when one set):
 * the rings' fds in the poll of t's reader, so a ring that reaches its watermark wakes the
 * reader before it overflows. Call in setup(), after the rings are open. Returns 0, or -1
 * out of memory (the fds set before kept). The list of fds is t's (the driver frees it).
 */
int tool_wake_on_rings(struct tool_run *t, const struct perfev *a, const struct perfev *b);

/* fn(ctx) told of the losses of t's reader (reader_on_lost): now if the reader is open, else
 * when the driver opens it. Returns 0, or -1 when it cannot be (more than 8 before the open:
 * said on stderr; out of memory). */
int tool_on_lost(struct tool_run *t, reader_lost_fn fn, void *ctx);

/* --prom: a new file of t begun, for the tool to write its families into and prom_commit().
 * Returns the driver's struct prom (static, valid for the run), or NULL without --prom or
 * when the file cannot be made (said once; the run exits 1). */
struct prom *tool_prom(struct tool_run *t);

/* --trace-json: the file of t to write the spans into. Returns the driver's struct tracejson
 * (static, valid for the run), or NULL without it or once it has failed (out of memory
 * keeping its tracks: said once, the run exits 1; a write that fails is found at the end). */
struct tracejson *tool_trace_json(struct tool_run *t);
/* --trace-json: a span begun in tj on the track of thread tid, named comm (its name then:
 * clen bytes at most, 16 at most kept; copied first, so it may be a slot of the names' table),
 * in its process tgid (0: as the names t follows know it, tool_tgid), whose track is named as
 * they know it; name (len bytes at most), cat, start_ns and ns as tracejson_span_begin's. Its
 * args then with tracejson_arg_*, then tracejson_span_end(). Returns the process's ID. */
int tool_trace_span(struct tool_run *t, struct tracejson *tj, int tid, int tgid, const char *comm,
		    size_t clen, const char *name, size_t len, const char *cat, uint64_t start_ns,
		    uint64_t ns);

/* Operand helpers: "[duration]" and "[interval [count]]" (the driver's for operand_kind).
 * The duration of t's run from argv[0] of argc operands, as -d; a usage error (opt_fail:
 * exit 2) when -d gave one too, it is not a duration, or there is more than one. */
void tool_operand_duration(struct tool_run *t, int argc, char **argv);
/* The interval of t's run from argv[0] and the count of intervals from argv[1] (1 to 2^40)
 * of argc operands; a usage error (opt_fail: exit 2) when one is not valid, or there are
 * more than two. */
void tool_operand_interval(struct tool_run *t, int argc, char **argv);

#endif
