/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * irq: what hardirqs and softirqs share. A run of an interrupt handler (or of a softirq) is
 * an entry and an exit event on one CPU: they are paired per CPU and number (span.h,
 * SPAN_LOSS_CPU: a run never leaves its CPU; by the number too, so that a handler a broken
 * driver lets be interrupted still pairs each exit with its own entry), and the time between
 * is added to the row of its handler: a name and a number (the IRQ, the softirq's vector),
 * and the CPU with --per-cpu. Both tools print their rows alike: totals with a TOTAL line,
 * counts (-C) or log2 histograms (--hist), as text or JSON (row.h).
 *
 * Also here: a softirq's raise paired with the run that serves it (softirqs --raise), and
 * the names of an event's symbolic values as the running kernel prints them (the softirq
 * vectors' names, from the print fmt's __print_symbolic table).
 */
#ifndef FTT_IRQ_H
#define FTT_IRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "count/hist.h"
#include "base/opt.h"
#include "count/prom.h"
#include "base/row.h"
#include "join/span.h"

struct tep_event;
struct session;
struct tep_record;
struct tool_run;

enum irq_kind { IRQ_HARD, IRQ_SOFT };

/* The options both tools have (their letters: IRQ_OPT_*; -T, -j, -d are the driver's). */
struct irq_opts {
	bool counts;  /* -C: entries counted, not timed: the entry event only */
	bool hist;    /* --hist: a log2 histogram per row */
	bool nanos;   /* -N: the histograms in nanoseconds */
	bool per_cpu; /* --per-cpu: a row per handler and CPU */
	int cpu;      /* --cpu: only this CPU; -1: all */
	bool raise;   /* softirqs --raise: the time from raise to run, not the run's */
};

enum { IRQ_OPT_HIST = OPT_LONG + 1, IRQ_OPT_CPU, IRQ_OPT_PER_CPU, IRQ_OPT_RAISE };
#define IRQ_OPT_COUNTS(text) SPEC(.key = 'C', .help = text)
#define IRQ_OPT_HISTOGRAMS(text) SPEC(.key = IRQ_OPT_HIST, .name = "hist", .help = text)
#define IRQ_OPT_NANOS SPEC(.key = 'N', .help = "with --hist: nanoseconds (default: microseconds)")
#define IRQ_OPT_ONE_CPU                                       \
	SPEC(.key = IRQ_OPT_CPU, .name = "cpu", .arg = "CPU", \
	     .help = "only this CPU (the others record nothing)")
#define IRQ_OPT_EACH_CPU \
	SPEC(.key = IRQ_OPT_PER_CPU, .name = "per-cpu", .help = "a row per CPU (a CPU column)")

/* Sets o to the defaults: every option off, o->cpu -1 (all CPUs). */
void irq_opts_init(struct irq_opts *o);
/* Parses one of the options above, key ('C', 'N' or an IRQ_OPT_*) with its arg, into o
 * (o->cpu starts at -1: irq_opts_init); another key changes nothing. A --cpu not between 0
 * and the last CPU configured is a usage error: a line on stderr and exit 2. */
void irq_parse_opt(struct irq_opts *o, int key, const char *arg);
/* Checks the options of o: those that exclude each other (-C with --hist or --raise; -N
 * without --hist) are a usage error: a line on stderr and exit 2 (opt_fail). */
void irq_check_opts(const struct irq_opts *o);

/* One handler (or softirq type), and CPU with --per-cpu: what this interval counted. */
struct irq_row {
	int num; /* the IRQ or the vector */
	int cpu; /* -1: every CPU */
	uint64_t count, ns;
	struct hist_log2 *h; /* --hist */
	size_t len;
	char name[]; /* the handler's name as the event gave it, len bytes (NUL-terminated) */
};

#define IRQ_MAX_ROWS 65536

struct irq_stats {
	enum irq_kind kind;
	struct irq_opts o;
	struct span runs;     /* entry -> exit; --raise: raise -> entry */
	struct irq_row **tab; /* rows by (num, cpu, name), open addressing */
	size_t mask, used;
	struct irq_row *cache[256]; /* the last row of each (num, cpu): skips the hash */
	uint64_t dropped;	    /* events of handlers past IRQ_MAX_ROWS rows */
	uint64_t in_progress;	    /* runs under way when tracing stopped (irq_report) */
	uint64_t start_ns;	    /* this interval's start (reader_now) */
	int ncpus;		    /* the CPUs traced: 1 with --cpu */
	struct prom_set prom;	    /* --prom: each row's counts from the start (irq_print) */
};

/* --cpu: the instance of session s records only the events of cpu (its tracing_cpumask): on
 * the others an event costs no more than a check of the disabled buffer. Returns 0, or -1
 * when tracing_cpumask cannot be written (said on stderr). */
int irq_one_cpu(struct session *s, int cpu);

/* Enables the n events of evs (NULL ones skipped) in the instance of s, recording off while
 * they are enabled one by one: all start recording at the same moment, so no run's exit is
 * recorded without its entry, or the reverse, for want of the other's event. Returns 0, or
 * -1 when recording cannot be stopped or started or an event cannot be enabled (said on
 * stderr; once stopped, recording stays off). */
int irq_enable(struct session *s, struct tep_event *const *evs, int n);

/* The rows' tables, for struct tool's .rows (--json-keys) and the printing. */
extern const struct row_table *const irq_hard_rows[];
extern const struct row_table *const irq_soft_rows[];

/* Sets st up (zeroed first) for kind, hardirqs or softirqs, with a copy of the options o.
 * Returns 0, or -1 when out of memory (not said). Frees: irq_free(st), also after -1. */
int irq_init(struct irq_stats *st, enum irq_kind kind, const struct irq_opts *o);
/* Frees the rows of st, its runs and its --prom series. */
void irq_free(struct irq_stats *st);

/*
 * Finds in st the row of handler (num, name of len bytes, copied) for an event on cpu (-1 in
 * the row without --per-cpu and --cpu), made when new. Returns it (st's, valid until
 * irq_free), or NULL when IRQ_MAX_ROWS rows exist or memory ran out (the event is counted
 * in dropped, said by irq_report).
 */
struct irq_row *irq_row(struct irq_stats *st, int num, int cpu, const char *name, size_t len);

/* Per event. -C: an entry counted in row (NULL: none, past the row limit); st is not read. */
void irq_count(struct irq_stats *st, struct irq_row *row);
/* An entry rec of (num) on its CPU, to be timed in st until its exit, for row (NULL: past the
 * row limit, timed for no row); one of the same (num) still there is replaced (counted). */
void irq_begin(struct irq_stats *st, const struct tep_record *rec, int num, struct irq_row *row);
/* The exit rec of (num) on its CPU: its run's time added to its row in st (an exit without
 * its entry is counted, for irq_report). */
void irq_end(struct irq_stats *st, const struct tep_record *rec, int num);

/*
 * --raise. A softirq raised on a CPU is pending there until the next batch of softirqs on
 * that CPU clears the pending bits and runs each pending one once, in vector order; a raise
 * of one already pending changes nothing. A raise made while a batch runs (the event's
 * softirq flag: in a softirq, or an interrupt on top of one) comes after that batch's clear
 * and is served by the next batch. So a raise made outside a batch is served by the next
 * entry of its vector, one made inside by the entry after its batch: each entry is paired
 * with the first raise it serves, never with a later one. Keeps in st the raise rec of vec,
 * for row (NULL: past the row limit); in_softirq: the raise's flag.
 */
void irq_raise(struct irq_stats *st, const struct tep_record *rec, int vec, struct irq_row *row,
	       bool in_softirq);
/* The entry rec of vec on its CPU: the time since the raise it serves added to its row in
 * st. */
void irq_raise_served(struct irq_stats *st, const struct tep_record *rec, int vec);

/* Prints the rows of st counted since the last call, largest first, then TOTAL (not with
 * --hist), as t, the tool's run, asks (text or -j); the counts start again from 0. Out of
 * memory, "out of memory" on stderr and t->failed set instead. now: the interval's end
 * (reader_now). With --prom the file
 * too: ftrace_tools_<tool>_runs_total and _run_seconds_total, or with --hist the histogram
 * _run_seconds (softirqs --raise: raise_waits_total, raise_wait_seconds...), from the start,
 * labelled as -j's keys: name, irq or vec, and cpu with --per-cpu or --cpu. */
void irq_print(struct irq_stats *st, struct tool_run *t, uint64_t now);
/* At the end, on stderr headed by tool, what st could not count: exits (or entries) without
 * their start, entries replaced by another of the same number before their exit, runs still
 * under way when tracing stopped (then forgotten), events of rows past the limit. what:
 * "handler exits". */
void irq_report(struct irq_stats *st, const char *tool, const char *what);

/*
 * Reads the names of field's values in ev's print fmt (its __print_symbolic table) into
 * names: names[v] for v below max, NULL where the table has none. Returns how many were
 * found (0: no table, or ev NULL); each name is malloc'd, the caller's to free with
 * irq_names_free.
 */
int irq_symbols(const struct tep_event *ev, const char *field, char **names, int max);
/* Frees the max names of names (irq_symbols's), each left NULL. */
void irq_names_free(char **names, int max);

#endif
