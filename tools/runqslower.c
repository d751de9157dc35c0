// SPDX-License-Identifier: GPL-2.0-only
/*
 * runqslower: each wait for a CPU longer than a threshold, one line when the task runs: the
 * task, how long it waited since it was made runnable (woken, new, or preempted), the CPU
 * that ran it and the task it waited behind (the one that left that CPU to it). The waits
 * are paired as runqlat's (schedev.h): in the kernel where it has hist triggers with
 * synthetic events (Linux 4.17), which then sends only the slow waits, else here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "count/tracejson.h"
#include "base/opt.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/schedev.h"
#include "kernel/session.h"
#include "join/span.h"
#include "tool.h"

enum via { VIA_BEST, VIA_PAIRS, VIA_USER };
static const char *const via_names[] = {"pairs", "user"};
#define OPT_VIA (OPT_LONG + 1)

static struct env {
	uint64_t min_ns;
	enum via via, how;
	struct sched_events se;
	struct span s;
	struct span_kernel k;
	struct tep_format_field *pid, *comm, *prev, *prev_comm;
	struct row row;
	struct tool_run *t;
} env;

/* One line per slow wait, when the task runs. */
static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task that waited, its name then"},
	{"TID", "tid", 7, ROW_INT, 0, 0, "its thread ID"},
	{"LAT(us)", "lat_us", 12, ROW_FLOAT, 3, 0,
	 "how long it waited to run, microseconds (ns precision)"},
	{"CPU", "cpu", 3, ROW_INT, 0, 0, "the CPU that ran it"},
	{"PREV COMM", "prev_comm", -16, ROW_STR, 0, 0,
	 "the task it waited behind: the one that left the CPU to it"},
	{"PREV TID", "prev_tid", 8, ROW_INT, 0, 0, "that task's thread ID (0: the CPU was idle)"},
};
static const struct row_table table = ROW_TABLE("each slow wait, when the task runs", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per wait"),
	TOOL_TID,
	TOOL_PID,
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{OPT_VIA, "via", "HOW",
	 "where the waits are paired: pairs (in the kernel, only the slow\n"
	 "ones read), user (here, from every wake-up and switch); default:\n"
	 "the first this kernel can",
	 0},
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"runqslower               # waits over 10 ms",
	"runqslower 1000          # waits over 1 ms",
	"runqslower -p 181 500    # PID 181's waits over 500 us",
	"runqslower -T -d 10 0    # every wait for 10 seconds, with times",
	"runqslower -j 5000 | head -20 # 20 waits over 5 ms as JSON",
	"runqslower --trace-json runq.json -d 5 1000 # for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == OPT_VIA)
		env.via = (enum via)(opt_choice(arg, via_names, 2, "HOW") + 1);
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	env.min_ns = 10000 * 1000ULL;
	if (argc > 0)
		env.min_ns = (uint64_t)opt_int(argv[0], 0, UINT32_MAX, "USECS") * 1000;
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

/* --- each wait ------------------------------------------------------------------------------ */

/* --trace-json: the wait on the track of the thread that waited, in its process (the names
 * are followed for it: the one the kernel gives when the process is not known). */
static void trace_wait(struct tracejson *tj, const struct tep_record *rec, int tid,
		       const char *comm, size_t len, uint64_t end_ns, uint64_t ns, int prev,
		       const char *prev_comm, size_t prev_len)
{
	tool_trace_span(env.t, tj, tid, 0, comm, len, "runq wait", SIZE_MAX, "sched", end_ns - ns,
			ns);
	tracejson_arg_str(tj, "comm", comm, len);
	tracejson_arg_int(tj, "tid", tid);
	tracejson_arg_int(tj, "cpu", rec->cpu);
	tracejson_arg_str(tj, "prev_comm", prev_comm, prev_len);
	tracejson_arg_int(tj, "prev_tid", prev);
	tracejson_span_end(tj);
}

static void print(const struct tep_record *rec, int tid, const char *comm, size_t len,
		  uint64_t end_ns, uint64_t ns, int prev, const char *prev_comm, size_t prev_len)
{
	struct tool_run *t = env.t;
	if (t->o.tid && tid != t->o.tid)
		return;
	if (t->o.pid) {
		struct comm_task info;
		if (comm_task(t->names, tid, &info) || info.tgid != t->o.pid)
			return;
	}
	row_begin(&env.row, end_ns);
	row_str(&env.row, comm ? comm : "", comm ? len : 0);
	row_int(&env.row, tid);
	row_float(&env.row, ns / 1e3);
	row_int(&env.row, rec->cpu);
	row_str(&env.row, prev_comm ? prev_comm : "", prev_comm ? prev_len : 0);
	row_int(&env.row, prev);
	row_end(&env.row);
	struct tracejson *tj = tool_trace_json(t);
	if (tj)
		trace_wait(tj, rec, tid, comm ? comm : "", comm ? len : 0, end_ns, ns, prev,
			   prev_comm ? prev_comm : "", prev_comm ? prev_len : 0);
}

/* Paired here: the switch that runs the task. */
static void on_wait(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		    void *data, void *ctx)
{
	if (ns < env.min_ns)
		return;
	size_t len = 0, plen = 0;
	const char *comm = reader_str(end, env.se.next_comm, &len);
	const char *prev_comm = reader_str(end, env.se.prev_comm, &plen);
	print(end, (int)reader_num(end, env.se.next_pid), comm, len, end->ts, ns,
	      (int)reader_num(end, env.se.prev_pid), prev_comm, plen);
}

/* Paired in the kernel: the slow waits only (the pair event's filter). */
static void on_pair(struct tep_record *rec, void *ctx)
{
	uint64_t t0 = reader_time(&env.t->r, (uint64_t)reader_num(rec, env.k.t0)),
		 ns = (uint64_t)reader_num(rec, env.k.lat);
	size_t len = 0, plen = 0;
	const char *comm = reader_str(rec, env.comm, &len);
	const char *prev_comm = reader_str(rec, env.prev_comm, &plen);
	print(rec, (int)reader_num(rec, env.pid), comm, len, t0 + ns, ns,
	      (int)reader_num(rec, env.prev), prev_comm, plen);
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (sched_load(&t->s, &env.se, true))
		return TOOL_FAIL;
	env.how = VIA_USER;
	if (env.via == VIA_PAIRS && !span_kernel_can(SPAN_K_PAIRS, false)) {
		fprintf(stderr,
			"runqslower: --via pairs: no hist triggers with synthetic events in "
			"this kernel (CONFIG_HIST_TRIGGERS, Linux 6.1: before it two runs "
			"interfere)\n");
		return TOOL_FAIL;
	}
	if (env.via != VIA_USER && span_kernel_can(SPAN_K_PAIRS, false)) {
		struct span_kernel *k = &env.k;
		sched_runq_kernel(&env.se, k, t->o.tid);
		k->fields[0] = (struct span_kfield){"pid_t", "pid", "next_pid"};
		k->fields[1] = (struct span_kfield){"char[16]", "comm", "next_comm"};
		k->fields[2] = (struct span_kfield){"pid_t", "prev", "prev_pid"};
		k->fields[3] = (struct span_kfield){"char[16]", "prev_comm", "prev_comm"};
		k->nfields = 4;
		k->mode = SPAN_K_PAIRS;
		if (span_kernel_make(t, k))
			env.how = VIA_PAIRS;
		else if (env.via == VIA_PAIRS)
			return TOOL_FAIL; /* said why */
	}
	if (env.how == VIA_PAIRS && (!(env.pid = span_kernel_field(&env.k, "pid")) ||
				     !(env.comm = span_kernel_field(&env.k, "comm")) ||
				     !(env.prev = span_kernel_field(&env.k, "prev")) ||
				     !(env.prev_comm = span_kernel_field(&env.k, "prev_comm"))))
		return TOOL_FAIL;
	/* The names are the kernel's, in the events; -p and --trace-json need each thread's
	 * process. */
	t->follow_names = t->o.pid != 0 || t->trace_json_path;
	snprintf(t->traced, sizeof(t->traced), "run queue waits of at least %llu us (%s)",
		 (unsigned long long)(env.min_ns / 1000),
		 env.how == VIA_PAIRS ? "filtered in the kernel" : "paired here");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	if (env.how == VIA_PAIRS) {
		char filter[64];
		snprintf(filter, sizeof(filter), "lat >= %" PRIu64, env.min_ns);
		return span_kernel_trace(t, &env.k, filter, on_pair, NULL);
	}
	if (span_init(&env.s, 16384, 0, SPAN_LOSS_ALL, on_wait, NULL) ||
	    sched_runq_trace(t, &env.se, &env.s))
		return TOOL_FAIL;
	return TOOL_OK;
}

static void end(struct tool_run *t)
{
	if (env.how == VIA_USER) {
		span_report(&env.s, "runqslower", "switches");
		sched_chain_report(&env.se.chain, "runqslower", 0,
				   "the wait of the task switched in unseen");
	} else
		span_kernel_report(&env.k, "runqslower", "switches");
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.s);
	span_kernel_free(&env.k);
	sched_chain_free(&env.se.chain);
}

static const struct tool runqslower = {
	.name = "runqslower",
	.no_cgroup = true,
	.opts = options,
	.operands = "[USECS]",
	.operand_help = "   USECS       show waits of at least this many microseconds (default\n"
			"               10000; 0: all)\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&runqslower, argc, argv);
}
