// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscount: system calls counted by call (or by process, -P), the top N at the end or every
 * interval; -L their time. The names are the kernel's own: each syscalls:sys_exit_<name>
 * event is one call (no copied table). Counted in the kernel by a hist trigger on
 * raw_syscalls:sys_exit where the kernel has them (its .syscall names), else in user space
 * on the events; the output is the same either way.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "agg.h"
#include "comm.h"
#include "ftrace.h"
#include "out.h"
#include "reader.h"
#include "sysc.h"
#include "tool.h"

static struct env {
	bool by_process; /* -P */
	bool latency;	 /* -L */
	bool failed;	 /* -x */
	int errnum;	 /* -e: this error only, 0: any */
	long long top;	 /* --top */
	bool user;	 /* --user-space: no hist trigger */
	struct tool_run *t;
	/* the calls, in user space */
	int n, cap;
	struct call {
		char name[64];
		struct tep_event *enter, *exit;
		struct tep_format_field *ret;
		uint64_t count, ns;
	} * calls;
	struct sysc join; /* -L: entry to exit, per thread */
	struct agg procs; /* -P: (pid, comm) -> count, and ns */
	/* in the kernel */
	bool hist;
	char trigger[512];
	/* -e where filters take no negative number: ret < 0 there, the error checked here */
	bool ret_here;
} env = {.top = 10};

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
	{OPT_LONG + 1, "top", "N", "print the N largest rows (default 10; 0: all)", 0},
	{OPT_LONG + 2, "user-space", NULL,
	 "count in user space even where the kernel has hist triggers", 0},
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
	(void)t;
	switch (o->key) {
	case 'e': env.errnum = parse_errno(arg); break;
	case 'L': env.latency = true; break;
	case 'P': env.by_process = true; break;
	case 'x': env.failed = true; break;
	case OPT_LONG + 1: env.top = opt_int(arg, 0, 1LL << 30, "N (rows)"); break;
	case OPT_LONG + 2: env.user = true; break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	tool_operand_interval(t, argc, argv);
}

/* --- output --------------------------------------------------------------------------------- */

struct row {
	const char *name; /* the call's name, or the process's */
	int pid;	  /* -P */
	uint64_t count, ns;
};

static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_rows(struct row *rows, size_t n, const char *when)
{
	struct tool_run *t = env.t;
	qsort(rows, n, sizeof(*rows), by_count);
	if (env.top && (size_t)env.top < n)
		n = (size_t)env.top;
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock || t->intervals || t->o.interval)
			printf("[%s]\n", when);
		if (env.by_process)
			printf("%-7s %-16s %10s", "PID", "COMM", "COUNT");
		else
			printf("%-22s %10s", "SYSCALL", "COUNT");
		if (env.latency)
			printf(" %14s %12s", "TOTAL(us)", "AVG(us)");
		putchar('\n');
	}
	for (size_t i = 0; i < n; i++) {
		struct row *r = &rows[i];
		if (t->o.json) {
			printf("{\"time\":\"%s\",", when);
			if (env.by_process) {
				printf("\"pid\":%d,\"comm\":", r->pid);
				out_json_str(stdout, r->name, 16);
			} else {
				printf("\"syscall\":\"%s\"", r->name);
			}
			printf(",\"count\":%llu", (unsigned long long)r->count);
			if (env.latency)
				printf(",\"total_us\":%.3f,\"avg_us\":%.3f", r->ns / 1e3,
				       r->count ? r->ns / 1e3 / r->count : 0);
			printf("}\n");
			continue;
		}
		if (env.by_process) {
			printf("%-7d ", r->pid);
			out_text(stdout, r->name, 16, 16);
			printf(" %10llu", (unsigned long long)r->count);
		} else {
			printf("%-22s %10llu", r->name, (unsigned long long)r->count);
		}
		if (env.latency)
			printf(" %14.3f %12.3f", r->ns / 1e3,
			       r->count ? r->ns / 1e3 / r->count : 0);
		putchar('\n');
	}
}

/* --- counting in user space ----------------------------------------------------------------- */

struct proc_key {
	int64_t pid;
	char comm[16];
};

static void count(struct tool_run *t, int call, int tid, uint64_t ns)
{
	env.calls[call].count++;
	env.calls[call].ns += ns;
	if (!env.by_process)
		return;
	struct proc_key k;
	memset(&k, 0, sizeof(k));
	struct comm_task ti;
	k.pid = comm_task(t->names, tid, &ti) ? tid : ti.tgid;
	snprintf(k.comm, sizeof(k.comm), "%s", tool_comm(t, (int)k.pid));
	uint64_t *v = agg_add(&env.procs, &k, 1);
	if (v)
		*v += ns;
}

static void on_exit_call(struct tep_record *rec, void *ctx)
{
	int call = (int)(intptr_t)ctx;
	int tid = tep_data_pid(env.t->s.tep, rec);
	if (env.ret_here && (long long)reader_num(rec, env.calls[call].ret) != -env.errnum)
		return;
	if (env.latency)
		sysc_exit(&env.join, rec, tid, reader_num(rec, env.calls[call].ret));
	else
		count(env.t, call, tid, 0);
}

static void on_enter_call(struct tep_record *rec, void *ctx)
{
	sysc_enter(&env.join, tep_data_pid(env.t->s.tep, rec), rec->ts, (int)(intptr_t)ctx);
}

/* -L: a call ended; its time from entry to exit (the filter on the exit: -x, -e). */
static void done(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	if (env.ret_here && ret != -env.errnum)
		return;
	struct tool_run *t = ctx;
	struct sysc_call *c = call;
	count(t, c->which, tid, rec->ts >= c->enter_ns ? rec->ts - c->enter_ns : 0);
}

static void add_call(const char *sys, const char *ev, void *ctx)
{
	struct tool_run *t = ctx;
	(void)sys;
	if (strncmp(ev, "sys_exit_", 9))
		return;
	if (env.n == env.cap) {
		int cap = env.cap ? env.cap * 2 : 512;
		struct call *more = realloc(env.calls, (size_t)cap * sizeof(*more));
		if (!more)
			return;
		env.calls = more;
		env.cap = cap;
	}
	struct call *c = &env.calls[env.n];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", ev + 9);
	c->exit = session_load_event(&t->s, "syscalls", ev);
	c->ret = c->exit ? tep_find_field(c->exit, "ret") : NULL;
	if (env.latency)
		c->enter = sysc_event(&t->s, "enter", c->name);
	if (c->exit && c->ret && (!env.latency || c->enter))
		env.n++;
}

static void print_user(const char *when)
{
	size_t n = env.by_process ? env.procs.used : (size_t)env.n;
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return;
	size_t k = 0;
	if (env.by_process) {
		for (size_t i = 0; i < env.procs.cap; i++) {
			unsigned char *slot = env.procs.slots + i * env.procs.stride;
			uint64_t cnt, ns;
			memcpy(&cnt, slot, 8);
			if (!cnt)
				continue;
			const struct proc_key *key = (const void *)(slot + 8);
			memcpy(&ns, slot + env.procs.valoff, 8);
			rows[k++] = (struct row){key->comm, (int)key->pid, cnt, ns};
		}
	} else {
		for (int i = 0; i < env.n; i++)
			if (env.calls[i].count)
				rows[k++] = (struct row){env.calls[i].name, 0, env.calls[i].count,
							 env.calls[i].ns};
	}
	print_rows(rows, k, when);
	free(rows);
	for (int i = 0; i < env.n; i++)
		env.calls[i].count = env.calls[i].ns = 0;
	if (env.by_process)
		agg_reset(&env.procs);
}

/* --- counting in the kernel (hist triggers) ------------------------------------------------- */

/* Read the hist of raw_syscalls:sys_exit, lines such as "{ id: sys_read [  0] } hitcount: 12",
 * then clear it. */
static void print_hist(const char *when)
{
	struct tool_run *t = env.t;
	char *text = tracefs_event_file_read(t->s.inst, "raw_syscalls", "sys_exit", "hist", NULL);
	size_t n = 0, cap = 0;
	struct row *rows = NULL;
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
			struct row *more = realloc(rows, cap * sizeof(*rows));
			if (!more)
				break;
			rows = more;
		}
		rows[n++] = (struct row){key, 0, strtoull(hit + 9, NULL, 10), 0};
	}
	print_rows(rows, n, when);
	free(rows);
	free(text);
	/* ':clear' on the same trigger starts it again from zero. */
	char clear[600];
	snprintf(clear, sizeof(clear), "%s:clear", env.trigger);
	if (tracefs_event_file_write(t->s.inst, "raw_syscalls", "sys_exit", "trigger", clear) < 0)
		fprintf(stderr, "syscount: cannot clear the counts: %s\n", strerror(errno));
}

/* --- the run -------------------------------------------------------------------------------- */

static bool have_hist(void)
{
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	bool yes = readme && strstr(readme, "hist:keys");
	free(readme);
	return yes;
}

static int prepare(struct tool_run *t)
{
	char why[256];
	env.t = t;
	/* In the kernel: counts by call, a filter on the result. Not -L (each call's two
	 * ends), -n (a name glob the trigger cannot take) nor -P: the kernel's histograms key
	 * by thread, not process, and name it as it was at its first call (before an exec). */
	env.hist = !env.user && !env.latency && !t->o.name && !env.by_process && have_hist() &&
		   session_load_event(&t->s, "raw_syscalls", "sys_exit");
	t->follow_names = env.by_process || t->o.name;
	t->ordered = t->follow_names;
	t->s.keep_clock = !t->follow_names && !env.latency;
	t->buffer_kb = session_flood_buffer_kb();
	if (!env.hist) {
		if (ftrace_events("syscalls:sys_exit_*", add_call, t, NULL, why, sizeof(why)) < 0 ||
		    !env.n) {
			fprintf(stderr, "syscount: no syscall tracepoints in this kernel "
					"(CONFIG_FTRACE_SYSCALLS)\n");
			return TOOL_FAIL;
		}
	}
	if (env.by_process && agg_init(&env.procs, sizeof(struct proc_key), sizeof(uint64_t)))
		return TOOL_FAIL;
	if (env.latency && sysc_init(&env.join, 4096, 0, done, t))
		return TOOL_FAIL;
	snprintf(t->what, sizeof(t->what), "system calls%s",
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

static int setup(struct tool_run *t)
{
	char filter[64] = "";
	int ret;
	if (env.errnum)
		env.ret_here =
			env.hist ? !negatives_ok(t, "raw_syscalls", "sys_exit") :
				   env.n && !negatives_ok(t, "syscalls", env.calls[0].exit->name);
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
	if (env.latency && reader_on_lost(&t->r, sysc_lost, &env.join))
		return TOOL_FAIL;
	for (int i = 0; i < env.n; i++) {
		/* The exits first: an entry is kept only while its exit can be seen. */
		if ((ret = tool_trace(t, env.calls[i].exit, *filter ? filter : NULL, on_exit_call,
				      (void *)(intptr_t)i)))
			return ret;
		if (env.latency && (ret = tool_trace(t, env.calls[i].enter, NULL, on_enter_call,
						     (void *)(intptr_t)i)))
			return ret;
	}
	return TOOL_OK;
}

static void banner(struct tool_run *t)
{
	char top[32] = "all rows";
	if (env.top)
		snprintf(top, sizeof(top), "the top %lld", env.top);
	fprintf(stderr, "Tracing %s, printing %s%s. Ctrl-C to end.\n", t->what, top,
		t->o.interval ? " every interval" :
				(t->o.exec ? " when the command ends" : " at the end"));
}

static int interval(struct tool_run *t, uint64_t now)
{
	(void)t;
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
	(void)t;
	free(env.calls);
	if (env.latency)
		sysc_free(&env.join);
	if (env.by_process)
		agg_free(&env.procs);
}

static const struct tool syscount = {
	.name = "syscount",
	.opts = options,
	.operands = "[interval [count]]",
	.operand_help = "   interval    seconds between tables (default: one table at the end)\n"
			"   count       number of tables, then exit\n",
	.examples = examples,
	.option = option,
	.operands_fn = operands,
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
