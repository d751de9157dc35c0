// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpudist: how long tasks run on a CPU each time they are switched in (their time slices),
 * as a log2 histogram at the end or every interval; -O: how long they are off the CPU each
 * time (from a switch out to the switch that runs them again, whatever the reason: asleep,
 * waiting for a CPU). Both from sched_switch alone, keyed by thread; the idle tasks are left
 * out. One histogram, or one per process (-P), thread or task name (-k).
 *
 * Paired in the kernel where it can (spanhist.h), as runqlat: one event per slice with hist
 * triggers and synthetic events (Linux 4.17), only the histogram with numeric literals in
 * hist expressions (5.16); else paired here, each switch read.
 */
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/opt.h"
#include "stream/reader.h"
#include "domain/schedev.h"
#include "kernel/session.h"
#include "domain/spanhist.h"
#include "tool.h"

static struct env {
	bool per_process, off_cpu;
	struct sched_events se;
	struct spanhist sh;
	char start_filter[48], end_filter[96];
} env;

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per histogram"),
	{'k', NULL, "KEY",
	 "a histogram per tid (thread), comm (task name) or pid\n(process, as -P)", 0},
	TOOL_TID,
	{'m', NULL, NULL, "milliseconds (default: microseconds)", 0},
	{'O', NULL, NULL, "off-CPU time instead: from each switch out to the next\nswitch in", 0},
	{'P', NULL, NULL, "a histogram per process", 0},
	TOOL_PID,
	{'T', NULL, NULL, "the wall-clock time above each histogram", TOOL_OPT_WALLCLOCK},
	SPANHIST_VIA_OPTION,
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"cpudist                  # on-CPU time slices, a histogram at Ctrl-C",
	"cpudist -O 1 5           # off-CPU times, five 1-second histograms",
	"cpudist -P -m -d 10      # per process, milliseconds, for 10 seconds",
	"cpudist -k tid -p 181    # each thread of PID 181",
	"cpudist -j -d 2          # JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'k': env.sh.key = histbykey_key_of(arg); break;
	case 'm': env.sh.millis = true; break;
	case 'O': env.off_cpu = true; break;
	case 'P': env.per_process = true; break;
	case SPANHIST_OPT_VIA: spanhist_via(&env.sh, arg); break;
	}
}

/* The command line parsed: what its options exclude. */
static void check(struct tool_run *t)
{
	spanhist_check(&env.sh, env.per_process);
}

/* On the CPU: from the switch in (next) to the switch out (prev) of the same task, on the
 * same CPU. Off (-O): from the switch out to the next switch in, anywhere. */
static const char *start_side(void)
{
	return env.off_cpu ? "prev" : "next";
}

static const char *end_side(void)
{
	return env.off_cpu ? "next" : "prev";
}

static void on_switch(struct tep_record *rec, void *ctx)
{
	size_t len = 0;
	const char *comm = reader_str(rec, env.se.next_comm, &len);
	sched_slice_switch(&env.se, &env.sh.s, env.off_cpu, rec, rec->cpu, rec->ts,
			   reader_num(rec, env.se.prev_pid), reader_num(rec, env.se.next_pid), comm,
			   len);
}

/* In the kernel: sched_switch is both the start and the end, by its two tasks. */
static void describe(struct spanhist *sh, bool hist)
{
	static char start_key[16], end_key[16], pid_from[16], comm_from[16];
	struct span_kernel *k = &sh->k;
	snprintf(start_key, sizeof(start_key), "%s_pid", start_side());
	snprintf(end_key, sizeof(end_key), "%s_pid", end_side());
	snprintf(pid_from, sizeof(pid_from), "%s_pid", end_side());
	snprintf(comm_from, sizeof(comm_from), "%s_comm", end_side());
	snprintf(env.start_filter, sizeof(env.start_filter), "%s != 0", start_key);
	if (sh->t->o.tid)
		snprintf(env.end_filter, sizeof(env.end_filter), "%s != 0 && %s == %d", end_key,
			 end_key, (int)sh->t->o.tid);
	else
		snprintf(env.end_filter, sizeof(env.end_filter), "%s != 0", end_key);
	memset(k, 0, sizeof(*k));
	k->name = env.off_cpu ? "off" : "on";
	k->start[0] =
		(struct span_kstart){.ev = env.se.sw, .key = start_key, .filter = env.start_filter};
	k->nstarts = 1;
	k->end = env.se.sw;
	k->end_key = end_key;
	k->end_filter = env.end_filter;
	k->fields[0] = (struct span_kfield){"pid_t", "pid", pid_from};
	k->fields[1] = (struct span_kfield){"char[16]", "comm", comm_from};
	k->nfields = hist ? 1 : 2;
}

static enum tool_code prepare(struct tool_run *t)
{
	if (sched_load(&t->s, &env.se, false))
		return TOOL_FAIL;
	env.sh.end_pid = env.off_cpu ? env.se.next_pid : env.se.prev_pid;
	env.sh.end_comm = env.off_cpu ? env.se.next_comm : env.se.prev_comm;
	int ret = spanhist_prepare(&env.sh, t, env.off_cpu ? "off-CPU time" : "on-CPU time",
				   env.off_cpu ? "offs" : "slices", describe);
	env.sh.hs.prom_name = env.off_cpu ? "ftrace_tools_cpudist_offcpu_seconds" :
					    "ftrace_tools_cpudist_oncpu_seconds";
	env.sh.hs.prom_help =
		env.off_cpu ? "Seconds off a CPU: from a task's switch out to its next "
			      "switch in (-O)." :
			      "Seconds on a CPU: from a task's switch in to its switch out.";
	return ret;
}

static enum tool_code setup(struct tool_run *t)
{
	if (env.sh.how != SPANHIST_USER)
		return spanhist_setup(&env.sh);
	/* On the CPU, a slice begins and ends on one CPU: a loss there forgets that CPU's;
	 * off it, a task may come back on another. Not tool_trace: its filter leaves this
	 * process's switches out, and each is another task's start or end. */
	env.se.chain.off = t->o.pid || t->o.tid; /* set_event_pid: switches of others unseen */
	env.se.t = t;
	if (span_init_run(t, &env.sh.s, 16384, 0, env.off_cpu ? SPAN_LOSS_ALL : SPAN_LOSS_CPU,
			  spanhist_done, &env.sh) ||
	    reader_on_lost(&t->r, sched_chain_lost, &env.se.chain) ||
	    session_enable(&t->s, env.se.sw, NULL) || reader_on(&t->r, env.se.sw, on_switch, NULL))
		return TOOL_FAIL;
	return TOOL_OK;
}

static int interval(struct tool_run *t, uint64_t now)
{
	return spanhist_interval(&env.sh, now);
}

static void end(struct tool_run *t)
{
	spanhist_end(&env.sh, env.off_cpu ? "switches in" : "switches out");
	sched_chain_report(
		&env.se.chain, "cpudist", env.sh.how == SPANHIST_USER ? env.sh.s.replaced : 0,
		env.off_cpu ? "the time off the CPU of the tasks switched out or in unseen" :
			      "the slice of the tasks switched out or in unseen");
}

static void cleanup(struct tool_run *t)
{
	spanhist_free(&env.sh);
	sched_chain_free(&env.se.chain);
}

static const struct tool cpudist = {
	.name = "cpudist",
	.batched = true,
	.no_cgroup = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "histograms",
	.interval_default_s = 0,
	.examples = examples,
	.rows = (const struct row_table *const[]){&histbykey_rows, NULL},
	.option = option,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&cpudist, argc, argv);
}
