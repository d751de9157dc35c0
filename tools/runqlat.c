// SPDX-License-Identifier: GPL-2.0-only
/*
 * runqlat: how long tasks wait for a CPU once they can run (run queue latency), as a log2
 * histogram at the end or every interval: from the wake-up (sched_wakeup, sched_wakeup_new)
 * or the switch that left a preempted task runnable, to the switch that runs it (schedev.h).
 * One histogram, or one per process (-P), thread or task name (-k).
 *
 * Paired in the kernel where it can (spanhist.h): hist triggers with synthetic events
 * (Linux 4.17) send one event per wait instead of the wake-ups and every switch; with
 * numeric literals in hist expressions (5.16) the kernel bins the waits itself and only its
 * histogram is read. Else paired here from the events.
 */
#include <stdio.h>

#include "base/opt.h"
#include "stream/reader.h"
#include "domain/schedev.h"
#include "domain/spanhist.h"
#include "tool.h"

static struct env {
	bool per_process;
	struct sched_events se;
	struct spanhist sh;
} env;

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per histogram"),
	{'k', NULL, "KEY",
	 "a histogram per tid (thread), comm (task name) or pid\n(process, as -P)", 0},
	TOOL_TID,
	{'m', NULL, NULL, "milliseconds (default: microseconds)", 0},
	{'P', NULL, NULL, "a histogram per process", 0},
	TOOL_PID,
	{'T', NULL, NULL, "the wall-clock time above each histogram", TOOL_OPT_WALLCLOCK},
	SPANHIST_VIA_OPTION,
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"runqlat                  # a histogram at Ctrl-C",
	"runqlat 1 5              # five 1-second histograms",
	"runqlat -m -T 5          # every 5 seconds, in milliseconds, with times",
	"runqlat -P -d 10         # per process, for 10 seconds",
	"runqlat -k tid -p 181    # each thread of PID 181",
	"runqlat -j -d 2          # JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'k': env.sh.key = histbykey_key_of(arg); break;
	case 'm': env.sh.millis = true; break;
	case 'P': env.per_process = true; break;
	case SPANHIST_OPT_VIA: spanhist_via(&env.sh, arg); break;
	}
}

/* The command line parsed: what its options exclude. */
static void check(struct tool_run *t)
{
	spanhist_check(&env.sh, env.per_process);
}

/* In the kernel: the waits as schedev.h pairs them, each named by the task that ran. */
static void describe(struct spanhist *sh, bool hist)
{
	struct span_kernel *k = &sh->k;
	sched_runq_kernel(&env.se, k, sh->t->o.tid);
	k->fields[0] = (struct span_kfield){"pid_t", "pid", "next_pid"};
	k->fields[1] = (struct span_kfield){"char[16]", "comm", "next_comm"};
	k->nfields = hist ? 1 : 2;
}

static enum tool_code prepare(struct tool_run *t)
{
	if (sched_load(&t->s, &env.se, true))
		return TOOL_FAIL;
	env.sh.end_pid = env.se.next_pid;
	env.sh.end_comm = env.se.next_comm;
	int ret = spanhist_prepare(&env.sh, t, "run queue latency", "waits", describe);
	env.sh.hs.prom_name = "ftrace_tools_runqlat_wait_seconds";
	env.sh.hs.prom_help = "Run queue latency: seconds from a task's wake-up (or preemption) "
			      "to its run on a CPU.";
	return ret;
}

static enum tool_code setup(struct tool_run *t)
{
	if (env.sh.how != SPANHIST_USER)
		return spanhist_setup(&env.sh);
	if (span_init(&env.sh.s, 16384, 0, SPAN_LOSS_ALL, spanhist_done, &env.sh) ||
	    sched_runq_trace(t, &env.se, &env.sh.s))
		return TOOL_FAIL;
	return TOOL_OK;
}

static int interval(struct tool_run *t, uint64_t now)
{
	return spanhist_interval(&env.sh, now);
}

static void end(struct tool_run *t)
{
	spanhist_end(&env.sh, "switches");
	sched_chain_report(&env.se.chain, "runqlat", 0, "the wait of the task switched in unseen");
}

static void cleanup(struct tool_run *t)
{
	spanhist_free(&env.sh);
	sched_chain_free(&env.se.chain);
}

static const struct tool runqlat = {
	.name = "runqlat",
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
	return tool_main(&runqlat, argc, argv);
}
