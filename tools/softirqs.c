// SPDX-License-Identifier: GPL-2.0-only
/*
 * softirqs: time spent in each kind of softirq (NET_RX, TIMER, RCU...), and CPU with
 * --per-cpu: totals and a share of the CPUs' time, -C counts, --hist log2 histograms; with
 * --raise the time from a softirq's raise to its run instead. At the end or every interval.
 * A run is irq:softirq_entry to irq:softirq_exit on one CPU (irq.h pairs them); the names
 * are the kernel's own, read from the event's print format on the running kernel.
 */
#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "domain/irq.h"
#include "stream/reader.h"
#include "tool.h"

#define MAX_VEC 64 /* the kernel has 10 (NR_SOFTIRQS) */

/* The event's flags: the softirq bit is set while a CPU serves softirqs (the kernel's
 * TRACE_FLAG_SOFTIRQ, the same since 2.6.x). */
#define FLAG_SOFTIRQ 0x10

static struct env {
	struct irq_opts o;
	struct irq_stats st;
	struct tep_event *entry, *exit, *raise;
	struct tep_format_field *entry_vec, *exit_vec, *raise_vec, *raise_flags;
	char *names[MAX_VEC];
	size_t lens[MAX_VEC];
} env;

static const struct opt_spec options[] = {
	IRQ_OPT_COUNTS("count the softirqs' runs instead of timing them (the entry event only)"),
	TOOL_DURATION,
	IRQ_OPT_HISTOGRAMS("a histogram of the run times per softirq (bcc's -d: -d is the\n"
			   "duration here)"),
	TOOL_JSON("one JSON object per row (or histogram)"),
	IRQ_OPT_NANOS,
	{'T', NULL, NULL, "the wall-clock time above each table", TOOL_OPT_WALLCLOCK},
	IRQ_OPT_ONE_CPU,
	IRQ_OPT_EACH_CPU,
	{IRQ_OPT_RAISE, "raise", NULL,
	 "the time from each raise to the run that serves it, instead of the\nrun's "
	 "(softirq_raise)",
	 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"softirqs                 # time per softirq, at Ctrl-C",
	"softirqs 1 5             # every second, five times",
	"softirqs -C --per-cpu 1  # runs per CPU every second (as /proc/softirqs)",
	"softirqs --hist 5 1      # a histogram per softirq",
	"softirqs --raise --hist 5 1   # how long raised softirqs wait to run",
	"softirqs -j --hist 1 10 | heatmap > softirq.svg   # a heat map of run times",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	irq_parse_opt(&env.o, o->key, arg);
}

/* The command line parsed: what its options exclude. */
static void check(struct tool_run *t)
{
	irq_check_opts(&env.o);
}

static enum tool_code prepare(struct tool_run *t)
{
	t->follow_names = false; /* a softirq is no task's */
	t->ordered = false;	 /* raise, entry and exit on one CPU: its order is enough */
	t->s.keep_clock = true;	 /* only differences on one CPU: any clock will do */
	env.entry = session_event(&t->s, "irq", "softirq_entry", true);
	if (!env.entry || !(env.entry_vec = session_field(&t->s, env.entry, "vec", true)))
		return TOOL_FAIL;
	if (env.o.raise) {
		env.raise = session_event(&t->s, "irq", "softirq_raise", true);
		if (!env.raise || !(env.raise_vec = session_field(&t->s, env.raise, "vec", true)))
			return TOOL_FAIL;
		env.raise_flags = tep_find_common_field(env.raise, "common_flags");
		if (!env.raise_flags) {
			fprintf(stderr, "softirqs: irq:softirq_raise has no common_flags field\n");
			return TOOL_FAIL;
		}
	} else if (!env.o.counts) {
		env.exit = session_event(&t->s, "irq", "softirq_exit", true);
		if (!env.exit || !(env.exit_vec = session_field(&t->s, env.exit, "vec", true)))
			return TOOL_FAIL;
	}
	/* The names as the kernel prints them; a vector it names not: its number. */
	irq_symbols(env.entry, "vec", env.names, MAX_VEC);
	for (int v = 0; v < MAX_VEC; v++) {
		char num[16];
		snprintf(num, sizeof(num), "%d", v);
		if (!env.names[v] && !(env.names[v] = strdup(num)))
			return TOOL_FAIL;
		env.lens[v] = strlen(env.names[v]);
	}
	if (irq_init(&env.st, IRQ_SOFT, &env.o)) {
		fprintf(stderr, "softirqs: out of memory\n");
		return TOOL_FAIL;
	}
	snprintf(t->traced, sizeof(t->traced), "softirqs%s",
		 env.o.counts ? " (counts)" :
		 env.o.raise  ? " from raise to run" :
				"");
	return TOOL_OK;
}

/* --- per event ------------------------------------------------------------------------------ */

static struct irq_row *row_of(const struct tep_record *rec, unsigned vec)
{
	char num[16];
	if (vec < MAX_VEC)
		return irq_row(&env.st, (int)vec, rec->cpu, env.names[vec], env.lens[vec]);
	return irq_row(&env.st, (int)vec, rec->cpu, num, (size_t)snprintf(num, 16, "%u", vec));
}

static void on_entry(struct tep_record *rec, void *ctx)
{
	unsigned vec = (unsigned)reader_num(rec, env.entry_vec);
	if (env.o.counts)
		irq_count(&env.st, row_of(rec, vec));
	else if (env.o.raise)
		irq_raise_served(&env.st, rec, (int)vec);
	else
		irq_begin(&env.st, rec, (int)vec, row_of(rec, vec));
}

static void on_exit(struct tep_record *rec, void *ctx)
{
	irq_end(&env.st, rec, (int)reader_num(rec, env.exit_vec));
}

static void on_raise(struct tep_record *rec, void *ctx)
{
	unsigned vec = (unsigned)reader_num(rec, env.raise_vec);
	bool in_softirq = reader_num(rec, env.raise_flags) & FLAG_SOFTIRQ;
	irq_raise(&env.st, rec, (int)vec, row_of(rec, vec), in_softirq);
}

/* Not tool_trace: its filter leaves out this process's events unless they are interrupts;
 * a raise may come from this process (its own network I/O), and a filter costs every event
 * a copy to a temporary buffer. */
static enum tool_code setup(struct tool_run *t)
{
	struct tep_event *evs[] = {env.exit, env.entry, env.raise};
	if (env.o.cpu >= 0 && irq_one_cpu(&t->s, env.o.cpu))
		return TOOL_FAIL;
	if (reader_on_lost(&t->r, span_lost, &env.st.runs) ||
	    (env.exit && reader_on(&t->r, env.exit, on_exit, NULL)) ||
	    reader_on(&t->r, env.entry, on_entry, NULL) ||
	    (env.raise && reader_on(&t->r, env.raise, on_raise, NULL)) || irq_enable(&t->s, evs, 3))
		return TOOL_FAIL;
	env.st.start_ns = reader_now();
	return TOOL_OK;
}

/* --- output --------------------------------------------------------------------------------- */

static int interval(struct tool_run *t, uint64_t now)
{
	irq_print(&env.st, t, now);
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		irq_print(&env.st, t, reader_now());
	irq_report(&env.st, "softirqs", env.o.raise ? "softirq runs" : "softirq exits");
}

static void cleanup(struct tool_run *t)
{
	irq_free(&env.st);
	irq_names_free(env.names, MAX_VEC);
}

static const struct tool softirqs = {
	.name = "softirqs",
	.batched = true,
	.no_cgroup = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 0,
	.examples = examples,
	.formats = (const char *const[]){"irq:softirq_entry", "irq:softirq_exit",
					 "irq:softirq_raise", NULL},
	.rows = irq_soft_rows,
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
	irq_opts_init(&env.o);
	return tool_main(&softirqs, argc, argv);
}
