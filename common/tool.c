// SPDX-License-Identifier: GPL-2.0-only
#include "tool.h"
#include "kernel/cgroup.h"
#include "kernel/child.h"
#include "stream/cpubuf.h"
#include "stream/comm.h"
#include "kernel/format.h"
#include "kernel/ftrace.h"
#include "stream/ksym.h"
#include "base/pair.h"
#include "count/prom.h"
#include "count/tracejson.h"
#include "base/out.h"
#include "stream/record.h"
#include "base/row.h"
#include "base/sig.h"
#include "base/runid.h"
#include "kernel/sweep.h"
#include "kernel/toplevel.h"
#include "stream/usym.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

/* What tool_trace has to check in user space before a tool's handler sees a record. */
struct check {
	struct tool_run *t;
	reader_event_fn fn;
	void *ctx;
	const char *name; /* -n, when the kernel could not filter on it */
	struct check *next;
};
static struct check *checks;

/* --json-keys: every key of the tool's tables once, with what it is; exit 0. */
static void json_keys(const struct tool *tool)
{
	for (int i = 0; tool->rows && tool->rows[i]; i++) {
		const struct row_table *t = tool->rows[i];
		for (int c = 0; c < t->ncols; c++) {
			const struct row_col *col = &t->cols[c];
			bool seen = !col->key || (col->flags & ROW_NOJSON);
			for (int j = 0; !seen && j <= i; j++)
				for (int k = 0; k < (j < i ? tool->rows[j]->ncols : c); k++)
					seen |= tool->rows[j]->cols[k].key &&
						!(tool->rows[j]->cols[k].flags & ROW_NOJSON) &&
						!strcmp(tool->rows[j]->cols[k].key, col->key);
			if (!seen)
				printf("%s\t%s\n", col->key, col->doc ? col->doc : "");
		}
	}
	row_tag_keys(stdout);
	exit(0);
}

static void shared_option(const struct opt_spec *o, const char *arg, void *ctx)
{
	struct tool_run *t = ctx;
	switch (o->id) {
	case TOOL_OPT_DURATION:
		if (t->o.duration)
			opt_fail("duration given twice: a second -d '%s' (see -h)", arg);
		t->o.duration = opt_seconds(arg, "duration");
		break;
	case TOOL_OPT_PID: t->o.pid = opt_live_pid(arg); break;
	case TOOL_OPT_TID: t->o.tid = opt_live_tid(arg); break;
	case TOOL_OPT_NAME: t->o.name = opt_glob(arg, "NAME"); break;
	case TOOL_OPT_JSON: t->o.json = true; break;
	case TOOL_OPT_TIMESTAMP: t->o.timestamp = true; break;
	case TOOL_OPT_WALLCLOCK: t->o.wallclock = true; break;
	case TOOL_OPT_JSON_KEYS: json_keys(t->tool); break;
	case TOOL_OPT_CGROUP: {
		static struct cgroup cg;
		char why[256];
		if (cgroup_open(&cg, arg, why, sizeof(why)))
			opt_fail("--cgroup: '%s': %s", arg, why);
		t->cgroup = &cg;
		break;
	}
	case TOOL_OPT_OUTPUT: t->output = arg; break;
	case TOOL_OPT_PROM: t->prom_path = arg; break;
	case TOOL_OPT_TRACE_JSON:
		if (t->trace_json_path)
			opt_fail("--trace-json given twice: a second '%s' (see -h)", arg);
		t->trace_json_path = arg;
		break;
	case TOOL_OPT_TAG: {
		char why[128];
		if (row_tag(arg, why, sizeof(why)))
			opt_fail("--tag: %s", why);
		break;
	}
	case TOOL_OPT_RECORD:
		if (record_check(arg, t->tool->name))
			exit(TOOL_USAGE);
		t->record_path = arg;
		break;
	default:
		if (!t->tool->option)
			opt_fail("option -%c is not handled", o->key);
		t->tool->option(t, o, arg);
	}
}

int tool_on_lost(struct tool_run *t, reader_lost_fn fn, void *ctx)
{
	if (t->reader_open)
		return reader_on_lost(&t->r, fn, ctx);
	if (t->non_lost == (int)(sizeof(t->on_lost) / sizeof(t->on_lost[0]))) {
		fprintf(stderr, "%s: more than %d listeners of lost events\n", t->tool->name,
			t->non_lost);
		return -1;
	}
	t->on_lost[t->non_lost].fn = fn;
	t->on_lost[t->non_lost++].ctx = ctx;
	return 0;
}

struct tracejson *tool_trace_json(struct tool_run *t)
{
	return t->trace_json && !t->trace_json->failed ? t->trace_json : NULL;
}

struct prom *tool_prom(struct tool_run *t)
{
	if (!t->prom || prom_begin(t->prom))
		return NULL;
	return t->prom;
}

void tool_operand_duration(struct tool_run *t, int argc, char **argv)
{
	/* -d and an operand: which was meant cannot be told (the operand won, without a word). */
	if (argc > 0 && t->o.duration)
		opt_fail("duration given twice: -d and '%s' (see -h)", argv[0]);
	if (argc > 0)
		t->o.duration = opt_seconds(argv[0], "duration");
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

void tool_operand_interval(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		t->o.interval = opt_interval(argv[0]);
	if (argc > 1)
		t->o.count = opt_int(argv[1], 1, 1LL << 40, "count");
	if (argc > 2)
		opt_fail("unexpected argument: '%s' (see -h)", argv[2]);
}

enum tool_code tool_stacks(struct tool_run *t, bool kernel, bool user, bool func,
			   struct tep_event **kstack, struct tep_event **ustack)
{
	*kstack = *ustack = NULL;
	if (kernel) {
		*kstack = session_load_event(&t->s, "ftrace", "kernel_stack");
		if (!*kstack || !tep_find_field(*kstack, "caller")) {
			fprintf(stderr,
				"%s: no ftrace:kernel_stack event for -s (CONFIG_STACKTRACE)\n",
				t->tool->name);
			return TOOL_FAIL;
		}
		/* The function tracer's option is the kernel's on most kernels: ftrace.h. */
		if (func && ftrace_func_stack_on(t->s.inst, t->tool->name))
			return TOOL_FAIL;
		if (!func && tracefs_option_enable(t->s.inst, TRACEFS_OPTION_STACKTRACE)) {
			fprintf(stderr, "%s: cannot enable stack traces: %s\n", t->tool->name,
				strerror(errno));
			return TOOL_FAIL;
		}
	}
	if (user) {
		*ustack = session_load_event(&t->s, "ftrace", "user_stack");
		if (!*ustack || !tep_find_field(*ustack, "caller") ||
		    !tep_find_field(*ustack, "tgid") ||
		    !tracefs_option_is_supported(t->s.inst, TRACEFS_OPTION_USERSTACKTRACE)) {
			fprintf(stderr,
				"%s: no user stack traces in this kernel for -U "
				"(CONFIG_USER_STACKTRACE_SUPPORT)\n",
				t->tool->name);
			return TOOL_FAIL;
		}
		if (tracefs_option_enable(t->s.inst, TRACEFS_OPTION_USERSTACKTRACE)) {
			fprintf(stderr, "%s: cannot enable user stack traces: %s\n", t->tool->name,
				strerror(errno));
			return TOOL_FAIL;
		}
		/* The one process traced: its maps read while it lives (its frames are named
		 * when its events are read, which can be after it has exited). */
		if (t->o.pid > 0)
			usym_prime(t->o.pid);
	}
	if ((*kstack && reader_trailer(&t->r, *kstack)) ||
	    (*ustack && reader_trailer(&t->r, *ustack)))
		return TOOL_FAIL;
	return TOOL_OK;
}

const char *tool_comm(struct tool_run *t, int pid)
{
	return t->names ? comm_get(t->names, pid) : "<...>";
}

int tool_tgid(struct tool_run *t, int tid)
{
	struct comm_task ti;
	return t->names && !comm_task(t->names, tid, &ti) && ti.tgid > 0 ? ti.tgid : tid;
}

int tool_trace_span(struct tool_run *t, struct tracejson *tj, int tid, int tgid, const char *comm,
		    size_t clen, const char *name, size_t len, const char *cat, uint64_t start_ns,
		    uint64_t ns)
{
	char c[16] = ""; /* (a slot of the names' table may move at the process's look-up) */
	memcpy(c, comm, strnlen(comm, clen < sizeof(c) ? clen : sizeof(c)));
	int pid = tgid > 0 ? tgid : tool_tgid(t, tid);
	tracejson_process_name(tj, pid, pid == tid ? c : tool_comm(t, pid), sizeof(c));
	tracejson_thread_name(tj, pid, tid, c, sizeof(c));
	tracejson_span_begin(tj, pid, tid, name, len, cat, start_ns, ns);
	return pid;
}

/* -n checked here: the tool's handler sees only events of tasks named as asked. */
static void on_named_event(struct tep_record *rec, void *ctx)
{
	struct check *c = ctx;
	struct tool_run *t = c->t;
	if (fnmatch(c->name, tool_comm(t, tep_data_pid(t->s.tep, rec)), 0))
		return;
	c->fn(rec, c->ctx);
}

/* Write a filter; on rejection, the kernel's reason (the filter file holds it) on stderr. */
static int write_filter(struct tool_run *t, struct tep_event *ev, const char *filter,
			const char *shown, bool quiet)
{
	if (!*filter ||
	    tracefs_event_file_write(t->s.inst, ev->system, ev->name, "filter", filter) >= 0)
		return 0;
	if (quiet)
		return -1;
	char *why = tracefs_event_file_read(t->s.inst, ev->system, ev->name, "filter", NULL);
	fprintf(stderr, "%s: the kernel rejected the filter '%s' on %s:%s%s\n", t->tool->name,
		shown, ev->system, ev->name, why && *why ? "; it says:" : "");
	if (why && *why) /* the filter, a caret under the fault, and the reason */
		fputs(why, stderr);
	free(why);
	return -1;
}

enum tool_code tool_trace(struct tool_run *t, struct tep_event *ev, const char *filter,
			  reader_event_fn fn, void *ctx)
{
	char full[8192];
	if (session_filter(&t->s, full, sizeof(full), filter, NULL)) {
		fprintf(stderr, "%s: filter too long\n", t->tool->name);
		return TOOL_USAGE;
	}
	const char *shown = filter && *filter ? filter : full;
	/* -n: the kernel's "comm" is the task's name, unless the event has a field of that
	 * name (sched_wakeup's is the woken task's). The COMM field that names the task there
	 * was accepted but matched nothing on Debian's 6.1 and 6.12 (vmcheck), and 5.10 has
	 * none: for such events the name is checked here, on the in-band names. */
	const char *name = NULL;
	size_t before = strlen(full);
	if (t->o.name && tep_find_field(ev, "comm"))
		name = t->o.name;
	else if (t->o.name)
		snprintf(full + before, sizeof(full) - before, "%scomm ~ \"%s\"",
			 *full ? " && " : "", t->o.name);
	/* Filters know "comm" from Linux 4.11 on (4.9 says "Illegal operation for field
	 * type"): there the name is checked here too. */
	bool written = t->o.name && !name && !write_filter(t, ev, full, shown, true);
	if (t->o.name && !name && !written) {
		full[before] = 0;
		name = t->o.name;
	}
	if (!written && write_filter(t, ev, full, shown, false))
		return TOOL_USAGE;
	/* Not tracefs_event_enable(): it matches patterns against every event of the system,
	 * a stat() each, ~130 ms for syscalls on eventfs (6.18). */
	if (tracefs_event_file_write(t->s.inst, ev->system, ev->name, "enable", "1") < 0) {
		fprintf(stderr, "%s: cannot enable %s:%s: %s\n", t->tool->name, ev->system,
			ev->name, strerror(errno));
		return TOOL_FAIL;
	}
	if (!name)
		return reader_on(&t->r, ev, fn, ctx) ? TOOL_FAIL : TOOL_OK;
	struct check *p = malloc(sizeof(*p));
	if (!p || reader_on(&t->r, ev, on_named_event, p)) {
		free(p);
		return TOOL_FAIL;
	}
	*p = (struct check){.t = t, .fn = fn, .ctx = ctx, .name = name, .next = checks};
	checks = p;
	return TOOL_OK;
}

static int tick(uint64_t now, void *ctx)
{
	struct tool_run *t = ctx;
	t->intervals++;
	int last = t->tool->interval ? t->tool->interval(t, now) : 0;
	if (!last && t->o.count && t->intervals >= t->o.count)
		last = 1;
	t->last_interval = last;
	return last;
}

/* --cgroup: the group's threads now, added to what the instance traces (again every
 * second: a task moved into the group later is traced from then on). */
struct tid_list {
	pid_t *tids;
	size_t n, cap;
};

static void add_tid(pid_t tid, void *ctx)
{
	struct tid_list *l = ctx;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		pid_t *more = realloc(l->tids, cap * sizeof(*more));
		if (!more)
			return;
		l->tids = more;
		l->cap = cap;
	}
	l->tids[l->n++] = tid;
}

static int cgroup_follow(struct tool_run *t, int *count)
{
	struct tid_list l = {0};
	/* This process first: an empty set_event_pid traces every task, and an empty group
	 * must trace none (its own events are left out by the filter of every event). */
	add_tid(getpid(), &l);
	int n = cgroup_threads(t->cgroup, add_tid, &l);
	int ret = n < 0 ? -1 : session_add_tids(&t->s, l.tids, l.n, true);
	if (n < 0)
		fprintf(stderr, "%s: cannot read the tasks of cgroup %s: %s\n", t->tool->name,
			t->cgroup->path, strerror(errno));
	free(l.tids);
	if (count)
		*count = n;
	return ret;
}

/*
 * Was tid in the group? Asked when its event is handled, which may be after it exited (a
 * dd's direct writes complete, and are read, after it is gone): a task still there is asked
 * of /proc; one that is gone is a member if what made it is (its process, or its parent
 * process, from the names followed in-band). Answers are kept for the run (a task moved out
 * and back is not seen again: rare in a group). A /proc read per new task.
 */
static struct pair_table members; /* tid -> 1 in, 2 out */

bool tool_in_cgroup(struct tool_run *t, pid_t tid)
{
	if (!t->cgroup)
		return true;
	if (!members.mem && pair_init(&members, 4096, 1))
		return cgroup_has(t->cgroup, tid);
	pid_t chain[8];
	int n = 0;
	bool in = false;
	for (pid_t id = tid; n < 8 && id > 0; n++) {
		unsigned char *v = pair_get(&members, (uint64_t)id, 0);
		if (v) {
			in = *v == 1;
			break;
		}
		chain[n] = id;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d", (int)id);
		if (access(path, F_OK) == 0) {
			in = cgroup_has(t->cgroup, id);

			n++;
			break;
		}
		struct comm_task ct;
		if (!t->names || comm_task(t->names, id, &ct))
			break;

		id = ct.tgid && ct.tgid != id ? ct.tgid : ct.ppid;
	}
	for (int i = 0; i < n && i < 8; i++)
		*(unsigned char *)pair_put(&members, (uint64_t)chain[i], 0) = in ? 1 : 2;
	return in;
}

/* -p/-L: the run ends when its process (or thread) is gone, as after -d (strace -c -p does
 * the same): everything recorded is read and the summary printed. Gone: no /proc entry, a
 * zombie, or the PID now another process's (another start time). Looked at most every
 * 100 ms: a read of /proc/PID/stat. */
static bool watched_gone(struct tool_run *t, uint64_t now)
{
	if (!t->watch || now < t->watch_next)
		return false;
	t->watch_next = now + 100000000ULL;
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->watch);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	bool gone = n <= 0;
	if (!gone) {
		buf[n] = 0;
		const char *p = strrchr(buf, ')');
		gone = !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' ||
		       runid_start_time(t->watch) != t->watch_start;
	}
	if (gone)
		fprintf(stderr, "%s: %s %d has exited: ending\n", t->tool->name,
			t->watch_thread ? "thread" : "PID", (int)t->watch);
	t->watch_ended = gone;
	return gone;
}

int tool_wake_on_rings(struct tool_run *t, const struct perfev *a, const struct perfev *b)
{
	int n = a->n + (b ? b->n : 0);
	int *fds = calloc((size_t)n + 1, sizeof(*fds));
	if (!fds)
		return -1;
	for (int i = 0; i < a->n; i++)
		fds[i] = a->ring[i].fd;
	for (int i = 0; b && i < b->n; i++)
		fds[a->n + i] = b->ring[i].fd;
	free(t->ring_fds);
	t->ring_fds = fds;
	t->r.wake_fds = fds;
	t->r.nwake_fds = n;
	return 0;
}

void tool_watch(struct tool_run *t, pid_t pid, bool thread)
{
	t->watch = pid;
	t->watch_thread = thread;
	t->watch_start = runid_start_time(pid);
}

/* Every wake-up: the tool's wake(), and whether the command of --exec or the process of -p
 * has ended. */
static int wake(void *ctx)
{
	struct tool_run *t = ctx;
	uint64_t now = reader_now();
	if (t->tool->wake)
		t->tool->wake(t, now);
	if (t->cgroup && !t->pids_checked_here && now >= t->cgroup_next) {
		t->cgroup_next = now + 1000000000ULL;
		cgroup_follow(t, NULL);
	}
	if (t->child.pid)
		return child_ended(&t->child);
	return watched_gone(t, now);
}

/* The options every tracing tool has after its own (opt_usage.shared); a tool with
 * no_cgroup takes them from the second on. */
static const struct opt_spec driver_opts[] = {
	{TOOL_LONG_CGROUP, "cgroup", "PATH",
	 "only the tasks of this cgroup (v1 or v2) and its descendants,\nand what they "
	 "start",
	 TOOL_OPT_CGROUP},
	{TOOL_LONG_RECORD, "record", "FILE",
	 "also keep the run's raw events in FILE, a trace.dat for\ntrace-cmd report and "
	 "KernelShark",
	 TOOL_OPT_RECORD},
	{'o', "output", "FILE", "write the output to FILE (made, or emptied; not through a\nlink)",
	 TOOL_OPT_OUTPUT},
	{TOOL_LONG_TAG, "tag", "KEYS",
	 "with -j: also \"host\" (the node name) and \"kernel\" (the\nrelease) in each object: "
	 "--tag host,kernel",
	 TOOL_OPT_TAG},
	TOOL_OPT_END,
};

/* --record: each page of the tool's instance, as the reader takes it. */
static void keep_page(int cpu, const char *page, size_t len, void *ctx)
{
	record_page(ctx, cpu, page, len);
}

static int record_start(struct tool_run *t)
{
	static struct record rec;
	int ncpus = 0;
	for (int i = 0; i < t->r.ncpus; i++)
		if (t->r.cpus[i].src == 0 && t->r.cpus[i].cpu >= ncpus)
			ncpus = t->r.cpus[i].cpu + 1;
	if (record_open(&rec, t->record_path, ncpus, t->r.subbuf, t->tool->name)) {
		record_abort(&rec);
		return -1;
	}
	t->record = &rec;
	for (int i = 0; i < t->r.ncpus; i++)
		if (t->r.cpus[i].src == 0) {
			t->r.cpus[i].on_page = keep_page;
			t->r.cpus[i].page_ctx = &rec;
		}
	return 0;
}

static void release_top(void *arg)
{
	toplevel_release(arg);
}

static enum tool_code run(struct tool_run *t)
{
	const struct tool *tool = t->tool;
	int ret;
	/* The naming events' formats in the same trial of the parser as the tool's. */
	if (t->follow_names || t->o.name || t->cgroup)
		session_preload(COMM_NFORMATS, comm_format_sys, comm_format_names);
	if (session_init(&t->s, tool->name, tool->formats))
		return TOOL_FAIL;
	/* Its row, from the table its options chose: prepare() and setup() may turn optional
	 * columns on (row_show). */
	const struct row_table *table = tool->table_of ? tool->table_of(t) : tool->table;
	if (tool->row && table)
		row_init(tool->row, table, stdout, t->o.json, t->o.timestamp, t->o.wallclock);
	if (tool->prepare && (ret = tool->prepare(t)))
		return ret == TOOL_DONE ? TOOL_OK : ret;
	/* Stopped before anything was made: nothing to trace, nothing to undo. */
	if (sig_stop)
		return TOOL_OK;
	/* After prepare(): a usage error it finds changes nothing in the kernel. */
	sweep_stale(tool->name);
	/* trace.dat keeps the instance's own times, which trace-cmd report shows: the same as
	 * the tool's only in mono (a kept local clock is mapped by the reader alone). */
	if (t->record_path)
		t->s.want_mono = true;
	if (session_start(&t->s, t->buffer_kb))
		return TOOL_FAIL;
	if (t->o.exec) {
		if (child_start(&t->child, tool->name))
			return TOOL_FAIL;
		t->o.pid = t->child.pid;
	}
	if (session_set_pids(&t->s, t->o.pid, t->o.tid))
		return TOOL_FAIL;
	int in_group = 0;
	if (t->cgroup && !t->pids_checked_here && cgroup_follow(t, &in_group))
		return TOOL_FAIL;
	/* -n names the task when the event happened; the names are followed for it too, and
	 * for --cgroup checked here (who made a task that is gone). Before instance(): a tracer
	 * it sets records from then on, so the names come first (comm_follow), and the naming
	 * instance is made before function_graph slows every call (6.1 under emulation: its
	 * making took 0.8 s after, 0.3 s before). */
	if ((t->follow_names || t->o.name || (t->cgroup && t->pids_checked_here)) &&
	    !(t->names = comm_follow(&t->s, t->o.pid, t->o.tid)))
		return TOOL_FAIL;
	/* Before a tracer of instance() or an event of setup() is on. */
	if (t->child.pid && child_held(&t->child, tool->name))
		return TOOL_FAIL;
	if (tool->instance && (ret = tool->instance(t)))
		return ret;
	if (t->top ? reader_open_toplevel(&t->r, &t->s, t->top->on_fd, t->ordered || t->names) :
		     reader_open_session(&t->r, &t->s, t->ordered || t->names))
		return TOOL_FAIL;
	/* After the reader's close (registered as it opened): the kernel will not change the
	 * tracer while its buffers are open (EBUSY). */
	if (t->top && session_on_close(&t->s, SESSION_BEFORE_REMOVE, release_top, t->top))
		return TOOL_FAIL;
	t->reader_open = true;
	for (int i = 0; i < t->non_lost; i++)
		if (reader_on_lost(&t->r, t->on_lost[i].fn, t->on_lost[i].ctx))
			return TOOL_FAIL;
	if (t->names && comm_attach(t->names, &t->r))
		return TOOL_FAIL;
	if (t->record_path && record_start(t))
		return TOOL_FAIL;
	if (tool->setup && (ret = tool->setup(t)))
		return ret;
	format_trial_end(); /* no more formats before the run's events (probes are made) */
	/* Kernel symbols, read while the kernel was set up (ksym.h). Not after the banner: a run
	 * that reads them there (40-90 ms on 6.18) left its wake-ups undone meanwhile (--cgroup's
	 * new tasks: offwaketime --cgroup saw none of a short workload's) and took both CPUs
	 * from a workload started at its banner (klockstat saw 8 waits of ~30,000). */
	ksym_wait_all();
	out_init();
	out_clock_init();
	if (tool->banner)
		tool->banner(t);
	else
		fprintf(stderr, "Tracing %s. Ctrl-C to end.\n", t->traced);
	if (t->cgroup && t->pids_checked_here)
		fprintf(stderr, "Only the tasks of cgroup %s and its descendants.\n",
			t->cgroup->path);
	else if (t->cgroup)
		fprintf(stderr,
			"Only the tasks of cgroup %s and its descendants (%d now), and what they "
			"start.\n",
			t->cgroup->path, in_group);
	if (tool->header && !t->o.json)
		tool->header(t);
	else if (tool->row && !tool->header_later && !t->o.json)
		row_header(tool->row);
	t->r.ended = wake;
	t->r.ended_ctx = t;
	if (tool->batched) {
		t->r.batched = true;
		if (!t->r.poll_ms)
			t->r.poll_ms = t->child.pid || t->watch || t->cgroup ? 100 : 1000;
	}
	if (t->child.pid) {
		out_flush(); /* the command's output comes after the header */
		if (child_release(&t->child, tool->name))
			return TOOL_FAIL;
	}
	t->tracing_began = true;
	ret = reader_run(&t->r, t->o.duration, t->o.interval, tick, t, out_flush) ? TOOL_FAIL :
										    TOOL_OK;
	if (tool->end && !out_closed())
		tool->end(t);
	/* While the run's probes still exist: their formats go into the file. */
	if (t->record) {
		uint64_t pages = t->record->pages;
		char clock[32];
		if (record_finish(t->record, t->s.tep,
				  session_clock(&t->s, clock, sizeof(clock)) ? NULL : clock))
			ret = TOOL_FAIL;
		else
			fprintf(stderr, "%s: kept %llu pages of events in %s\n", tool->name,
				(unsigned long long)pages, t->record_path);
		t->record = NULL;
	}
	if (out_flush() < 0 || t->failed)
		ret = TOOL_FAIL;
	return ret;
}

/* A signal from the first instruction of main on is a stop request, not a death by the
 * default action (exit 130/143 with the run half made): the handlers are in place before
 * main, and tool_main names them. Not in the fuzz targets: libFuzzer keeps a handler it
 * finds, and its SIGALRM (the -timeout watch, every 3 s) would stop them (exit 1) at the
 * third. */
#ifndef FTT_FUZZ
__attribute__((constructor)) static void stop_early(void)
{
	sig_install(NULL);
}
#endif

/* The synopsis and usage lines of the driver's operand kinds. */
static void operands_usage(const struct tool *tool, struct opt_usage *u, char *help, size_t len)
{
	if (tool->operand_kind == TOOL_OPERAND_DURATION) {
		u->operands = "[duration]";
		u->operand_help = "   duration    trace for this many seconds, then exit\n";
	} else if (tool->operand_kind == TOOL_OPERAND_INTERVALS) {
		char dflt[32] = "one at the end";
		if (tool->interval_default_s)
			snprintf(dflt, sizeof(dflt), "%u", tool->interval_default_s);
		snprintf(help, len,
			 "   interval    seconds between %s, 0.01 or more (default %s)\n"
			 "   count       number of %s, then exit (default: until Ctrl-C)\n",
			 tool->interval_prints, dflt, tool->interval_prints);
		u->operands = "[interval [count]]";
		u->operand_help = help;
	}
}

/* --trace-json: a stage that exits (a usage error found by a tool's prepare()) leaves no
 * FILE.tmp. Nothing once the file is committed or removed. */
static struct tracejson trace_json;
static void drop_trace_json(void)
{
	tracejson_abort(&trace_json);
}

enum tool_code tool_main(const struct tool *tool, int argc, char **argv)
{
	static struct tool_run t;
	if (sig_install(tool->name)) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", tool->name,
			strerror(errno));
		return TOOL_FAIL;
	}
	memset(&t, 0, sizeof(t));
	t.tool = tool;
	t.follow_names = true;
	t.ordered = true;
	t.s.hold_fd = -1;
	opt_init(argv[0]);
	opt_tool = tool->name; /* the tool's own name in messages, however it was called */
	session_buffer_env();
	struct opt_usage u = {tool->name,     tool->opts, driver_opts + (tool->no_cgroup ? 1 : 0),
			      tool->operands, tool->more, tool->operand_help,
			      tool->examples};
	char operand_help[512];
	operands_usage(tool, &u, operand_help, sizeof(operand_help));
	/* --exec takes the rest of the command line, wherever it is: its own options are not
	 * the tool's. */
	t.child.err = -1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--exec")) {
			bool declared = false;
			for (const struct opt_spec *o = tool->opts; o && o->key; o++)
				declared |= o->id == TOOL_OPT_EXEC;
			if (!declared)
				break; /* getopt says it is unknown */
			if (i + 1 == argc)
				opt_fail("--exec: no command given (see -h)");
			t.o.exec = argv + i + 1;
			argv[i] = NULL;
			argc = i;
			break;
		}
	int first = opt_parse(argc, argv, &u, shared_option, &t);
	if (tool->operand_kind == TOOL_OPERAND_DURATION)
		tool_operand_duration(&t, argc - first, argv + first);
	if (tool->operand_kind == TOOL_OPERAND_INTERVALS) {
		tool_operand_interval(&t, argc - first, argv + first);
		if (!t.o.interval)
			t.o.interval = tool->interval_default_s * 1000000000ULL;
	}
	if (tool->operands_fn)
		tool->operands_fn(&t, argc - first, argv + first);
	else if (first < argc && tool->operand_kind == TOOL_OPERANDS_OWN)
		opt_fail("unexpected argument: '%s' (see -h)", argv[first]);
	if (tool->check)
		tool->check(&t);
	if (t.o.pid && t.o.tid)
		opt_fail("-p and -L exclude each other");
	if (row_tags_len && !t.o.json)
		opt_fail("--tag adds members to -j's objects: not without -j");
	if (t.o.exec && (t.o.pid || t.o.tid))
		opt_fail("--exec traces the command it starts: not with -p or -L");
	if (t.cgroup && (t.o.pid || t.o.tid || t.o.exec))
		opt_fail("--cgroup traces a group's tasks: not with -p, -L or --exec");
	int e = t.o.exec ? child_find(&t.child, t.o.exec) : 0;
	if (e) {
		fprintf(stderr, "%s: cannot run '%s': %s\n", tool->name, t.o.exec[0], strerror(e));
		return TOOL_FAIL;
	}
	/* After every check of the command line: a usage error makes no file. --trace-json's
	 * is begun now (a folder that refuses it is a usage error), before -o's file is made
	 * or emptied; FILE.tmp is removed again when the run does not trace. */
	if (t.trace_json_path && tracejson_open(&trace_json, t.trace_json_path, tool->name))
		return TOOL_USAGE;
	if (t.trace_json_path) {
		t.trace_json = &trace_json;
		atexit(drop_trace_json);
	}
	if (t.output && out_to_file(t.output, tool->name)) {
		if (t.trace_json)
			tracejson_abort(t.trace_json);
		return TOOL_USAGE;
	}
	/* An unwritable folder is known now, before anything is traced. */
	static struct prom prom;
	if (t.prom_path && prom_open(&prom, t.prom_path, tool->name)) {
		if (t.trace_json)
			tracejson_abort(t.trace_json);
		return TOOL_FAIL;
	}
	if (t.prom_path)
		t.prom = &prom;
	/* The command's output is never inside ours: with -o it keeps the standard output
	 * the tool was given; with -j it goes to standard error, where a JSON reader of our
	 * standard output does not see it (refusing would make every -j --exec need -o). */
	if (t.o.exec && t.output)
		t.child.out = out_stdout_before();
	else if (t.o.exec && t.o.json)
		t.child.out = STDERR_FILENO;
	if (t.o.pid)
		tool_watch(&t, t.o.pid, false);
	else if (t.o.tid)
		tool_watch(&t, t.o.tid, true);
	int ret = run(&t);
	if (t.record) /* the run failed before its end: no file */
		record_abort(t.record);
	t.record = NULL;
	/* The output is whole: its reader goes on while the instance is removed. */
	if (out_close() < 0)
		ret = TOOL_FAIL;
	if (child_finish(&t.child, tool->name) && ret == TOOL_OK)
		ret = TOOL_FAIL;
	if (session_close(&t.s))
		ret = TOOL_FAIL;
	if (comm_free(t.names))
		ret = TOOL_FAIL;
	t.names = NULL;
	for (struct check *c = checks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	checks = NULL;
	if (tool->cleanup)
		tool->cleanup(&t);
	free(t.ring_fds);
	t.ring_fds = NULL;
	/* After the tool's end(): its last spans are in. A run that traced (and stopped by a
	 * signal, -d, a count or a failure) leaves a whole file; one that did not, none. */
	if (t.trace_json && t.tracing_began) {
		if (tracejson_commit(t.trace_json))
			ret = TOOL_FAIL;
		else
			fprintf(stderr, "%s: wrote %llu spans to %s\n", tool->name,
				(unsigned long long)t.trace_json->spans, t.trace_json_path);
	} else if (t.trace_json)
		tracejson_abort(t.trace_json);
	if (out_failed() || t.failed || (t.top && t.top->failed) || (t.prom && t.prom->failed))
		ret = TOOL_FAIL;
	return ret;
}
