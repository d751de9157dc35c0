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
#define IRQ_OPT_COUNTS(help)             \
	{                                \
		'C', NULL, NULL, help, 0 \
	}
#define IRQ_OPT_HISTOGRAMS(help)                    \
	{                                           \
		IRQ_OPT_HIST, "hist", NULL, help, 0 \
	}
#define IRQ_OPT_NANOS                                                                  \
	{                                                                              \
		'N', NULL, NULL, "with --hist: nanoseconds (default: microseconds)", 0 \
	}
#define IRQ_OPT_ONE_CPU                                                                   \
	{                                                                                 \
		IRQ_OPT_CPU, "cpu", "CPU", "only this CPU (the others record nothing)", 0 \
	}
#define IRQ_OPT_EACH_CPU                                                            \
	{                                                                           \
		IRQ_OPT_PER_CPU, "per-cpu", NULL, "a row per CPU (a CPU column)", 0 \
	}

/* Parse one of the IRQ_OPT_* options (o->cpu starts at -1: irq_opts_init). */
void irq_opts_init(struct irq_opts *o);
void irq_parse_opt(struct irq_opts *o, int key, const char *arg);
/* Options that exclude each other: a usage error. */
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

/* --cpu: the instance of session s records only this CPU's events (its tracing_cpumask): on
 * the others an event costs no more than a check of the disabled buffer. Says what failed. */
int irq_one_cpu(struct session *s, int cpu);

/* Enable the n events (NULL ones skipped) in the instance of s, recording off while they
 * are enabled one by one: all start recording at the same moment, so no run's exit is
 * recorded without its entry, or the reverse, for want of the other's event. */
int irq_enable(struct session *s, struct tep_event *const *evs, int n);

/* The rows' tables, for struct tool's .rows (--json-keys) and the printing. */
extern const struct row_table *const irq_hard_rows[];
extern const struct row_table *const irq_soft_rows[];

int irq_init(struct irq_stats *st, enum irq_kind kind, const struct irq_opts *o);
void irq_free(struct irq_stats *st);

/*
 * The row of handler (num, name of len bytes) for an event on cpu, made when new; NULL
 * when IRQ_MAX_ROWS rows exist (the event is counted in dropped) or memory ran out.
 */
struct irq_row *irq_row(struct irq_stats *st, int num, int cpu, const char *name, size_t len);

/* Per event. -C: an entry counted. */
void irq_count(struct irq_stats *st, struct irq_row *row);
/* An entry of (num) on rec's CPU, to be timed until its exit. */
void irq_begin(struct irq_stats *st, const struct tep_record *rec, int num, struct irq_row *row);
/* The exit of (num) on rec's CPU: its run's time added to its row. */
void irq_end(struct irq_stats *st, const struct tep_record *rec, int num);

/*
 * --raise. A softirq raised on a CPU is pending there until the next batch of softirqs on
 * that CPU clears the pending bits and runs each pending one once, in vector order; a raise
 * of one already pending changes nothing. A raise made while a batch runs (the event's
 * softirq flag: in a softirq, or an interrupt on top of one) comes after that batch's clear
 * and is served by the next batch. So a raise made outside a batch is served by the next
 * entry of its vector, one made inside by the entry after its batch: each entry is paired
 * with the first raise it serves, never with a later one. in_softirq: the raise's flag.
 */
void irq_raise(struct irq_stats *st, const struct tep_record *rec, int vec, struct irq_row *row,
	       bool in_softirq);
/* The entry of vec on rec's CPU: the time since the raise it serves added to its row. */
void irq_raise_served(struct irq_stats *st, const struct tep_record *rec, int vec);

/* The rows counted since the last call, largest first, then TOTAL (not with --hist); the
 * counts start again from 0. now: the interval's end (reader_now). With --prom the file
 * too: ftrace_tools_<tool>_runs_total and _run_seconds_total, or with --hist the histogram
 * _run_seconds (softirqs --raise: raise_waits_total, raise_wait_seconds...), from the start,
 * labelled as -j's keys: name, irq or vec, and cpu with --per-cpu or --cpu. */
void irq_print(struct irq_stats *st, struct tool_run *t, uint64_t now);
/* At the end, on stderr: exits (or entries) without their start, runs still under way
 * when tracing stopped, events of rows past the limit. what: "handler exits". */
void irq_report(struct irq_stats *st, const char *tool, const char *what);

/*
 * The names of field's values in ev's print fmt (its __print_symbolic table): names[v] for
 * v below max, NULL where the table has none. Returns how many were found (0: no table);
 * each name is malloc'd (irq_names_free).
 */
int irq_symbols(const struct tep_event *ev, const char *field, char **names, int max);
void irq_names_free(char **names, int max);

#endif
