// SPDX-License-Identifier: GPL-2.0-only
/*
 * hardirqs: time spent in each hard interrupt handler, by its name and IRQ (and CPU with
 * --per-cpu): totals and a share of the CPUs' time, -C counts, --hist log2 histograms; at
 * the end or every interval. Each handler's run is irq:irq_handler_entry to
 * irq:irq_handler_exit on one CPU (irq.h pairs them).
 */
#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "domain/irq.h"
#include "stream/reader.h"
#include "tool.h"

static struct env {
	struct irq_opts o;
	struct irq_stats st;
	struct tep_event *entry, *exit;
	struct tep_format_field *entry_irq, *name, *exit_irq;
} env;

static const struct opt_spec options[] = {
	IRQ_OPT_COUNTS("count the handlers' runs instead of timing them (the entry event only)"),
	TOOL_DURATION,
	IRQ_OPT_HISTOGRAMS("a histogram of the run times per handler (bcc's -d: -d is the\n"
			   "duration here)"),
	TOOL_JSON("one JSON object per row (or histogram)"),
	IRQ_OPT_NANOS,
	{'T', NULL, NULL, "the wall-clock time above each table", TOOL_OPT_WALLCLOCK},
	IRQ_OPT_ONE_CPU,
	IRQ_OPT_EACH_CPU,
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"hardirqs                 # time per handler, at Ctrl-C",
	"hardirqs 1 5             # every second, five times",
	"hardirqs -C -d 10        # how many runs of each, in 10 seconds",
	"hardirqs --hist -N 5 1   # a histogram per handler, nanoseconds",
	"hardirqs --per-cpu 1     # per CPU, every second",
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

/* Fields by name: irq and name at entry, irq at exit (the same since 2.6.35 and in every
 * kernel of the matrix). */
static enum tool_code prepare(struct tool_run *t)
{
	t->follow_names = false; /* an interrupt is no task's */
	t->ordered = false;	 /* entry and exit on one CPU: each CPU's order is enough */
	t->s.keep_clock = true;	 /* only differences on one CPU: any clock will do */
	env.entry = session_event(&t->s, "irq", "irq_handler_entry", true);
	env.exit = env.o.counts ? NULL : session_event(&t->s, "irq", "irq_handler_exit", true);
	if (!env.entry || (!env.o.counts && !env.exit))
		return TOOL_FAIL;
	env.entry_irq = session_field(&t->s, env.entry, "irq", true);
	env.name = session_field(&t->s, env.entry, "name", true);
	env.exit_irq = env.exit ? session_field(&t->s, env.exit, "irq", true) : NULL;
	if (!env.entry_irq || !env.name || (env.exit && !env.exit_irq))
		return TOOL_FAIL;
	if (irq_init(&env.st, IRQ_HARD, &env.o)) {
		fprintf(stderr, "hardirqs: out of memory\n");
		return TOOL_FAIL;
	}
	snprintf(t->traced, sizeof(t->traced), "hard interrupt handlers%s",
		 env.o.counts ? " (counts)" : "");
	return TOOL_OK;
}

/* --- per event ------------------------------------------------------------------------------ */

static void on_entry(struct tep_record *rec, void *ctx)
{
	size_t len;
	const char *name = reader_str(rec, env.name, &len);
	int irq = (int)reader_num(rec, env.entry_irq);
	/* The kernel's string ends at its NUL (the field's length counts it). */
	len = name ? strnlen(name, len) : 0;
	struct irq_row *row = irq_row(&env.st, irq, rec->cpu, name ? name : "", len);
	if (env.o.counts)
		irq_count(&env.st, row);
	else
		irq_begin(&env.st, rec, irq, row);
}

static void on_exit(struct tep_record *rec, void *ctx)
{
	irq_end(&env.st, rec, (int)reader_num(rec, env.exit_irq));
}

/* Not tool_trace: its filter leaves out this process's events unless they are interrupts,
 * and these all are; a filter costs every event a copy to a temporary buffer. */
static enum tool_code setup(struct tool_run *t)
{
	struct tep_event *evs[] = {env.entry, env.exit};
	if (env.o.cpu >= 0 && irq_one_cpu(&t->s, env.o.cpu))
		return TOOL_FAIL;
	if (reader_on_lost(&t->r, span_lost, &env.st.runs) ||
	    reader_on(&t->r, env.entry, on_entry, NULL) ||
	    (env.exit && reader_on(&t->r, env.exit, on_exit, NULL)) || irq_enable(&t->s, evs, 2))
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

/* What a run's time includes, under the last table: the kernel reads the clock for an event
 * when it reserves its place, so the entry event's write after that (its name copied, the
 * commit) and the exit event's before it (the tracepoint's call, the reservation) are inside
 * each run, and so are the probes of any other tracer on the same two tracepoints. No part
 * of it is subtracted: nothing here measures it per run (hardirqs(8): OVERHEAD). */
static void footnote(struct tool_run *t)
{
	if (!t->o.json && !env.o.counts)
		printf("(the times include the writing of the entry and exit events, and other "
		       "tracers' probes on them: see hardirqs(8))\n");
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		irq_print(&env.st, t, reader_now());
	footnote(t);
	irq_report(&env.st, "hardirqs", "handler exits");
}

static void cleanup(struct tool_run *t)
{
	irq_free(&env.st);
}

static const struct tool hardirqs = {
	.name = "hardirqs",
	.batched = true,
	.no_cgroup = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 0,
	.examples = examples,
	.formats = (const char *const[]){"irq:irq_handler_entry", "irq:irq_handler_exit", NULL},
	.rows = irq_hard_rows,
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
	return tool_main(&hardirqs, argc, argv);
}
