// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscount: system calls counted by call (or by process, -P), the top N at the end or every
 * interval; -L their time. Every call is one raw_syscalls:sys_exit event (with -L, and its
 * sys_enter): one event to enable, where the syscalls:sys_exit_<name> events are ~360 to
 * 700 to enable one by one (seconds). Counted in the kernel by a hist trigger where the
 * kernel has them (its .syscall names), else in user space by number, named by sysnr.h (the
 * kernel's names, checked against its list of calls at start); the output is the same
 * either way.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/agg.h"
#include "stream/comm.h"
#include "kernel/ftrace.h"
#include "count/fieldhist.h"
#include "base/out.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "join/syspair.h"
#include "domain/sysnr.h"
#include "tool.h"

static struct env {
	bool by_process; /* -P */
	bool latency;	 /* -L */
	bool failed;	 /* -x */
	int errnum;	 /* -e: this error only, 0: any */
	long long top;	 /* --top */
	bool user;	 /* --user-space: no hist trigger */
	struct tool_run *t;
	/* in user space: raw_syscalls, the calls by number */
	struct tep_event *enter, *exit;
	struct tep_format_field *enter_id, *exit_id, *exit_ret;
	struct sysnr nr;
	struct agg calls;    /* call number -> count, and ns */
	struct syspair join; /* -L: entry to exit, per thread */
	struct agg procs;    /* -P: process -> count, and ns and its latest name */
	/* in the kernel */
	bool hist;
	char trigger[512];
	struct agg read; /* call number -> its count at the last read (the table only grows) */
	/* -e where filters take no negative number: ret < 0 there, the error checked here */
	bool ret_here;
	struct prom_set prom; /* --prom: every row's count (and ns) from the start */
} env = {.top = 10};

enum { OPT_TOP = OPT_LONG + 1, OPT_USER_SPACE };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'e', NULL, "ERRNO", "only calls that failed with this error (ENOENT or 2)", 0},
	TOOL_JSON("one JSON object per row"),
	{'L', NULL, NULL, "also the time spent in the calls: total and average", 0},
	TOOL_NAME,
	TOOL_PID,
	{'P', NULL, NULL, "count by process instead of by call", 0},
	{'T', NULL, NULL, "the wall-clock time above each table", TOOL_OPT_WALLCLOCK},
	{'x', NULL, NULL, "only calls that failed", 0},
	{OPT_TOP, "top", "N", "print the N largest rows (default 10; 0: all)", 0},
	{OPT_USER_SPACE, "user-space", NULL,
	 "count in user space even where the kernel has hist triggers", 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"syscount                    # top 10 system calls, at Ctrl-C",
	"syscount 1 5                # every second, five times",
	"syscount -P                 # by process",
	"syscount -L -p 181          # PID 181's calls and the time in them",
	"syscount -x -e ENOENT       # what fails with ENOENT",
	"syscount -L --exec make -j4 # a build's system calls, until it ends",
	NULL,
};

/* --- options -------------------------------------------------------------------------------- */

static int parse_errno(const char *s)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {
		{"EPERM", EPERM},
		{"ENOENT", ENOENT},
		{"ESRCH", ESRCH},
		{"EINTR", EINTR},
		{"EIO", EIO},
		{"ENXIO", ENXIO},
		{"E2BIG", E2BIG},
		{"ENOEXEC", ENOEXEC},
		{"EBADF", EBADF},
		{"ECHILD", ECHILD},
		{"EAGAIN", EAGAIN},
		{"ENOMEM", ENOMEM},
		{"EACCES", EACCES},
		{"EFAULT", EFAULT},
		{"EBUSY", EBUSY},
		{"EEXIST", EEXIST},
		{"ENODEV", ENODEV},
		{"ENOTDIR", ENOTDIR},
		{"EISDIR", EISDIR},
		{"EINVAL", EINVAL},
		{"ENFILE", ENFILE},
		{"EMFILE", EMFILE},
		{"ENOTTY", ENOTTY},
		{"EFBIG", EFBIG},
		{"ENOSPC", ENOSPC},
		{"ESPIPE", ESPIPE},
		{"EROFS", EROFS},
		{"EPIPE", EPIPE},
		{"ERANGE", ERANGE},
		{"ENAMETOOLONG", ENAMETOOLONG},
		{"ENOSYS", ENOSYS},
		{"ENOTEMPTY", ENOTEMPTY},
		{"ELOOP", ELOOP},
		{"ETIMEDOUT", ETIMEDOUT},
		{"ECONNREFUSED", ECONNREFUSED},
		{"EINPROGRESS", EINPROGRESS},
		{"EOPNOTSUPP", EOPNOTSUPP},
		{"ENOTSOCK", ENOTSOCK},
		{"EADDRINUSE", EADDRINUSE},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].num;
	return (int)opt_int(s, 1, 4095, "ERRNO (a name such as ENOENT, or 1 to 4095)");
}

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'e': env.errnum = parse_errno(arg); break;
	case 'L': env.latency = true; break;
	case 'P': env.by_process = true; break;
	case 'x': env.failed = true; break;
	case OPT_TOP: env.top = opt_int(arg, 0, 1LL << 30, "N (rows)"); break;
	case OPT_USER_SPACE: env.user = true; break;
	}
}

/* --- output --------------------------------------------------------------------------------- */

struct tally {
	const char *name; /* the call's name, or the process's */
	int pid;	  /* -P */
	uint64_t count, ns;
};

/* The rows, by call or by process (-P), with or without the time in them (-L). The time of
 * a row is its table's, written above it in text ("[HH:MM:SS]"), in each object in JSON. */
#define COL_COUNT                                                            \
	SPEC(.head = "COUNT", .key = "count", .width = 10, .kind = ROW_UINT, \
	     .doc = "calls that returned in the interval")
#define COL_TOTAL                                                                               \
	SPEC(.head = "TOTAL(us)", .key = "total_us", .width = 14, .kind = ROW_FLOAT, .prec = 3, \
	     .doc = "microseconds in them (-L)")
#define COL_AVG                                                                             \
	SPEC(.head = "AVG(us)", .key = "avg_us", .width = 12, .kind = ROW_FLOAT, .prec = 3, \
	     .doc = "microseconds per call (-L)")
#define COL_CALL                                                                  \
	SPEC(.head = "SYSCALL", .key = "syscall", .width = -22, .kind = ROW_WORD, \
	     .doc = "the system call")
#define COL_PID \
	SPEC(.head = "PID", .key = "pid", .width = -7, .kind = ROW_INT, .doc = "the process (-P)")
#define COL_COMM                                                           \
	SPEC(.head = "COMM", .key = "comm", .width = -16, .kind = ROW_STR, \
	     .doc = "its name, exact (-P)")
static const struct row_col call_cols[] = {ROW_COL_WHEN, COL_CALL, COL_COUNT};
static const struct row_col call_lat_cols[] = {ROW_COL_WHEN, COL_CALL, COL_COUNT, COL_TOTAL,
					       COL_AVG};
static const struct row_col proc_cols[] = {ROW_COL_WHEN, COL_PID, COL_COMM, COL_COUNT};
static const struct row_col proc_lat_cols[] = {ROW_COL_WHEN, COL_PID,	COL_COMM,
					       COL_COUNT,    COL_TOTAL, COL_AVG};
static const struct row_table tables[] = {
	ROW_TABLE("each system call", call_cols),
	ROW_TABLE("each system call, with -L", call_lat_cols),
	ROW_TABLE("each process, with -P", proc_cols),
	ROW_TABLE("each process, with -P -L", proc_lat_cols),
};

static int by_count(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* --prom: the interval's rows (all of them, not only the top N) added to the totals, and the
 * totals written: counters from the start of the run. */
static void prom_rows(const struct tally *rows, size_t n)
{
	struct prom *p;
	char labels[256], pid[16];
	for (size_t i = 0; i < n; i++) {
		snprintf(pid, sizeof(pid), "%d", rows[i].pid);
		if (env.by_process)
			prom_labels(labels, sizeof(labels), "pid", pid, "comm", rows[i].name, NULL);
		else
			prom_labels(labels, sizeof(labels), "syscall", rows[i].name, NULL);
		struct prom_series *ps = prom_series(&env.prom, labels);
		if (ps) {
			ps->count += rows[i].count;
			ps->sum += rows[i].ns;
		}
	}
	if (!(p = tool_prom(env.t)))
		return;
	const char *calls = "ftrace_tools_syscount_calls_total",
		   *secs = "ftrace_tools_syscount_call_seconds_total";
	/* One HELP whatever the options: node_exporter drops a family whose files disagree. */
	prom_family(p, calls, "counter",
		    "System calls that returned, by call (syscall) or by process (-P: pid, comm).");
	for (size_t i = 0; i < env.prom.n; i++)
		prom_uint(p, calls, env.prom.s[i]->labels, env.prom.s[i]->count);
	if (env.latency) {
		prom_family(p, secs, "counter", "Seconds spent in those calls (-L).");
		for (size_t i = 0; i < env.prom.n; i++)
			prom_scaled(p, secs, env.prom.s[i]->labels, env.prom.s[i]->sum, PROM_NS);
	}
	prom_commit(p);
}

static void print_rows(struct tally *rows, size_t n, const char *when)
{
	struct tool_run *t = env.t;
	struct row r;
	if (t->prom)
		prom_rows(rows, n);
	row_init(&r, &tables[2 * env.by_process + env.latency], stdout, t->o.json, false, false);
	qsort(rows, n, sizeof(*rows), by_count);
	if (env.top && (size_t)env.top < n)
		n = (size_t)env.top;
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock || t->intervals || t->o.interval)
			printf("[%s]\n", when);
		row_header(&r);
		if (!n)
			out_none(stdout,
				 env.by_process ? "processes making system calls" : "system calls");
	}
	for (size_t i = 0; i < n; i++) {
		const struct tally *c = &rows[i];
		row_begin(&r, 0);
		row_word(&r, when);
		if (env.by_process) {
			row_int(&r, c->pid);
			row_str(&r, c->name, 16);
		} else {
			row_word(&r, c->name);
		}
		row_uint(&r, c->count);
		if (env.latency) {
			row_float(&r, c->ns / 1e3);
			row_float(&r, c->count ? c->ns / 1e3 / c->count : 0);
		}
		row_end(&r);
	}
}

/* --- counting in user space ----------------------------------------------------------------- */

/* A process's count: the name is its latest, so the calls it made before an exec (the child
 * of --exec between fork and exec) are the program's, not its parent's name's. */
struct proc_val {
	uint64_t ns;
	char comm[16];
};

static void count(struct tool_run *t, long long nr, int tid, uint64_t ns)
{
	int64_t key = nr;
	uint64_t *v = agg_add(&env.calls, &key, 1);
	if (v)
		*v += ns;
	if (!env.by_process)
		return;
	struct comm_task ti;
	key = comm_task(t->names, tid, &ti) ? tid : ti.tgid;
	struct proc_val *p = agg_add(&env.procs, &key, 1);
	if (!p)
		return;
	p->ns += ns;
	snprintf(p->comm, sizeof(p->comm), "%s", tool_comm(t, (int)key));
}

static void on_sys_exit(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	long long ret = reader_num(rec, env.exit_ret);
	if (env.ret_here && ret != -env.errnum)
		return;
	if (env.latency)
		syspair_exit(&env.join, rec, tid, ret);
	else
		count(env.t, reader_num(rec, env.exit_id), tid, 0);
}

static void on_sys_enter(struct tep_record *rec, void *ctx)
{
	syspair_enter(&env.join, reader_pid(rec), rec->ts, (int)reader_num(rec, env.enter_id));
}

/* -L: a call ended; its time from entry to exit (the filter on the exit: -x, -e). */
static void count_timed(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	if (env.ret_here && ret != -env.errnum)
		return;
	struct tool_run *t = ctx;
	struct syspair_call *c = call;
	count(t, c->kind, tid, rec->ts >= c->ts ? rec->ts - c->ts : 0);
}

/* The kernel's calls by name (its syscalls:sys_enter_* events), for sysnr's check. */
static struct kernel_calls {
	int n, cap;
	char **name;
} kcalls;

static void add_kernel_call(const char *sys, const char *ev, void *ctx)
{
	if (kcalls.n == kcalls.cap) {
		int cap = kcalls.cap ? kcalls.cap * 2 : 512;
		char **more = realloc(kcalls.name, (size_t)cap * sizeof(*more));
		if (!more)
			return;
		kcalls.name = more;
		kcalls.cap = cap;
	}
	if ((kcalls.name[kcalls.n] = strdup(ev + strlen("sys_enter_"))))
		kcalls.n++;
}

static void print_user(const char *when)
{
	struct agg *a = env.by_process ? &env.procs : &env.calls;
	struct tally *rows = calloc(a->used ? a->used : 1, sizeof(*rows));
	char(*names)[32] = calloc(a->used ? a->used : 1, sizeof(*names));
	size_t k = 0;
	for (size_t i = 0; rows && names && i < a->cap; i++) {
		unsigned char *slot = a->slots + i * a->stride;
		uint64_t cnt, ns;
		int64_t key;
		memcpy(&cnt, slot, 8);
		if (!cnt)
			continue;
		memcpy(&key, slot + 8, 8);
		memcpy(&ns, slot + a->valoff, 8);
		if (env.by_process) {
			const struct proc_val *p = (const void *)(slot + a->valoff);
			rows[k++] = (struct tally){p->comm, (int)key, cnt, ns};
		} else {
			const char *name = sysnr_name(&env.nr, key, names[k], sizeof(names[k]));
			rows[k++] = (struct tally){name, 0, cnt, ns};
		}
	}
	print_rows(rows, k, when);
	free(rows);
	free(names);
	agg_reset(&env.calls);
	if (env.by_process)
		agg_reset(&env.procs);
}

/* --- counting in the kernel (hist triggers) ------------------------------------------------- */

/* Read the hist of raw_syscalls:sys_exit, lines such as "{ id: sys_read [  0] } hitcount: 12":
 * what each call counted since the last read. Not ':clear', which loses the calls between a
 * read and the clear (and the trigger itself when written with O_TRUNC, as it was: every
 * interval after the first was empty). */
static void print_hist(const char *when)
{
	struct tool_run *t = env.t;
	char *text = tracefs_event_file_read(t->s.inst, "raw_syscalls", "sys_exit", "hist", NULL);
	size_t n = 0, cap = 0;
	struct tally *rows = NULL;
	char *save = NULL;
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *key = strstr(l, "id: "), *hit = strstr(l, "hitcount:");
		if (!key || !hit)
			continue;
		key += 4;
		char *open = strchr(key, '['), *end = open;
		while (end && end > key && end[-1] == ' ')
			end--;
		if (!open || end <= key)
			continue;
		*end = 0;
		if (!strncmp(key, "sys_", 4))
			key += 4;
		char *ret = env.ret_here ? strstr(end + 1, "ret: ") : NULL;
		if (env.ret_here && (!ret || (long long)strtoull(ret + 5, NULL, 10) != -env.errnum))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			struct tally *more = realloc(rows, cap * sizeof(*rows));
			if (!more)
				break;
			rows = more;
		}
		int64_t id = strtoll(open + 1, NULL, 10);
		uint64_t now = strtoull(hit + 9, NULL, 10);
		uint64_t *before = agg_add(&env.read, &id, 1);
		if (!before)
			break;
		uint64_t count = now > *before ? now - *before : 0;
		*before = now;
		if (count)
			rows[n++] = (struct tally){key, 0, count, 0};
	}
	print_rows(rows, n, when);
	free(rows);
	free(text);
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	char why[256];
	env.t = t;
	/* In the kernel: counts by call, a filter on the result. Not -L (each call's two
	 * ends), -n (a name glob the trigger cannot take) nor -P: the kernel's histograms key
	 * by thread, not process, and name it as it was at its first call (before an exec). */
	env.hist = !env.user && !env.latency && !t->o.name && !env.by_process && fieldhist_can() &&
		   session_load_event(&t->s, "raw_syscalls", "sys_exit");
	t->follow_names = env.by_process || t->o.name;
	t->ordered = t->follow_names;
	t->s.keep_clock = !t->follow_names && !env.latency;
	if (!env.hist) {
		env.exit = session_load_event(&t->s, "raw_syscalls", "sys_exit");
		env.enter =
			env.latency ? session_load_event(&t->s, "raw_syscalls", "sys_enter") : NULL;
		env.exit_id = env.exit ? tep_find_field(env.exit, "id") : NULL;
		env.exit_ret = env.exit ? tep_find_field(env.exit, "ret") : NULL;
		env.enter_id = env.enter ? tep_find_field(env.enter, "id") : NULL;
		if (!env.exit_id || !env.exit_ret || (env.latency && !env.enter_id)) {
			fprintf(stderr,
				"syscount: tracepoint raw_syscalls:%s not available in this "
				"kernel (CONFIG_FTRACE_SYSCALLS)\n",
				env.exit_id && env.exit_ret ? "sys_enter" : "sys_exit");
			return TOOL_FAIL;
		}
		/* The names: the table's, checked against the kernel's list of calls. */
		ftrace_events("syscalls:sys_enter_*", add_kernel_call, NULL, NULL, why,
			      sizeof(why));
		if (sysnr_init(&env.nr, (const char *const *)kcalls.name, kcalls.n))
			return TOOL_FAIL;
		if (env.nr.unnamed)
			fprintf(stderr,
				"syscount: %d of this kernel's %d calls are not in the table built "
				"for this machine (%s%s): they are counted by number "
				"(syscall_NNN)\n",
				env.nr.unnamed, env.nr.kernel, env.nr.unnamed_list,
				env.nr.unnamed > 8 ? ", ..." : "");
		if (agg_init(&env.calls, sizeof(int64_t), sizeof(uint64_t)))
			return TOOL_FAIL;
	}
	if (env.hist && agg_init(&env.read, sizeof(int64_t), sizeof(uint64_t)))
		return TOOL_FAIL;
	if (env.by_process && agg_init(&env.procs, sizeof(int64_t), sizeof(struct proc_val)))
		return TOOL_FAIL;
	if (env.latency && syspair_init(&env.join, 4096, 0, count_timed, t))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "system calls%s",
		 env.hist ? " (counted in the kernel)" : "");
	return TOOL_OK;
}

/* Does this kernel's filter take a negative number? RHEL 8.1's 4.18 says "Invalid value
 * (did you forget quotes)?" to 'ret == -2' (4.14 and 4.19 take it). */
static bool negatives_ok(struct tool_run *t, const char *sys, const char *ev)
{
	if (tracefs_event_file_write(t->s.inst, sys, ev, "filter", "ret == -1") < 0)
		return false;
	tracefs_event_file_write(t->s.inst, sys, ev, "filter", "0");
	return true;
}

static enum tool_code setup(struct tool_run *t)
{
	char filter[64] = "";
	int ret;
	if (env.errnum)
		env.ret_here = !negatives_ok(t, "raw_syscalls", "sys_exit");
	if (env.errnum && !env.ret_here)
		snprintf(filter, sizeof(filter), "ret == %d", -env.errnum);
	else if (env.errnum)
		snprintf(filter, sizeof(filter), "ret < 0");
	else if (env.failed)
		snprintf(filter, sizeof(filter), "ret < 0");
	if (session_exclude_self(&t->s))
		return TOOL_FAIL;
	if (env.hist) {
		/* The trigger's own filter, and this tool left out when set_event_notrace_pid
		 * cannot (older kernels). */
		char full[256];
		if (session_filter(&t->s, full, sizeof(full), *filter ? filter : NULL, NULL))
			return TOOL_FAIL;
		snprintf(env.trigger, sizeof(env.trigger),
			 "hist:keys=id.syscall%s:vals=hitcount%s%s", env.ret_here ? ",ret" : "",
			 *full ? " if " : "", full);
		if (tracefs_event_file_write(t->s.inst, "raw_syscalls", "sys_exit", "trigger",
					     env.trigger) < 0) {
			fprintf(stderr, "syscount: the kernel rejected the trigger '%s': %s\n",
				env.trigger, strerror(errno));
			return TOOL_FAIL;
		}
		return TOOL_OK;
	}
	if (env.latency && reader_on_lost(&t->r, syspair_lost, &env.join))
		return TOOL_FAIL;
	/* The exit first: an entry is kept only while its exit can be seen. */
	if ((ret = tool_trace(t, env.exit, *filter ? filter : NULL, on_sys_exit, NULL)) ||
	    (env.latency && (ret = tool_trace(t, env.enter, NULL, on_sys_enter, NULL))))
		return ret;
	return TOOL_OK;
}

static void banner(struct tool_run *t)
{
	char top[32] = "all rows";
	if (env.top)
		snprintf(top, sizeof(top), "the top %lld", env.top);
	fprintf(stderr, "Tracing %s, printing %s%s. Ctrl-C to end.\n", t->traced, top,
		t->o.interval ? " every interval" :
				(t->o.exec ? " when the command ends" : " at the end"));
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	if (env.hist)
		print_hist(when);
	else
		print_user(when);
	return 0;
}

/* At the end: the counts (all of them without intervals; the partial last one with them). */
static void end(struct tool_run *t)
{
	if (t->last_interval)
		return;
	interval(t, reader_now());
}

static void cleanup(struct tool_run *t)
{
	for (int i = 0; i < kcalls.n; i++)
		free(kcalls.name[i]);
	free(kcalls.name);
	sysnr_free(&env.nr);
	agg_free(&env.calls);
	agg_free(&env.read);
	prom_set_free(&env.prom);
	if (env.latency)
		syspair_free(&env.join);
	if (env.by_process)
		agg_free(&env.procs);
}

static const struct tool syscount = {
	.name = "syscount",
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 0,
	.examples = examples,
	.rows = (const struct row_table *const[]){&tables[0], &tables[1], &tables[2], &tables[3],
						  NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&syscount, argc, argv);
}
