/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracer: the generic event tracer behind tpoint, kprobe and uprobe. The tool finds or makes
 * its events (tracepoints by glob, a kprobe, a uprobe); the tracer has their shared options
 * and the stages that trace them: every event printed (text or JSON, with kernel and user
 * stacks), counted per second (-c), or counted by key and histograms (-k, --hist).
 *
 * A tool puts TRACER_OPTIONS in its option table, points .state at its struct tracer, hands
 * the options it does not know to tracer_option(), sets tr->events in its prepare() and
 * then calls tracer_prepare(), and uses tracer_setup/_header/_interval/_end/_cleanup as
 * its stages.
 */
#ifndef FTT_TRACER_H
#define FTT_TRACER_H

#include <stdbool.h>
#include <stdint.h>

#include "stream/evprint.h"
#include "count/hist.h"
#include "count/keys.h"
#include "count/prom.h"
#include "tool.h"

struct tep_event;
struct keys;
struct fieldhist;
struct kerncount;
struct kernkeys;
struct evprint;
struct ksyms;

#define TRACER_OPT_HIST (OPT_LONG + 1)
#define TRACER_OPT_FOLDED (OPT_LONG + 2)
#define TRACER_OPT_USER_SPACE (OPT_LONG + 3)
#define TRACER_OPT_POWER (OPT_LONG + 4)
#define TRACER_OPT_LINEAR (OPT_LONG + 5)

/* The keys of every JSON object a tracer tool writes (struct tool .rows): each event and its
 * stacks, the counts of -c and -k, the histograms of --hist; functrace's lack -U's. */
struct row_table;
extern const struct row_table tracer_count_keys;
#define TRACER_ROWS_KERNEL                                                               \
	&evprint_event_keys, &evprint_kstack_keys, &tracer_count_keys, &keys_count_keys, \
		&keys_hist_keys, &keys_total_keys
#define TRACER_ROWS                                            \
	(const struct row_table *const[])                      \
	{                                                      \
		TRACER_ROWS_KERNEL, &evprint_ustack_keys, NULL \
	}

/* The options of tpoint, kprobe and uprobe besides their own; functrace's lack -U and
 * --user-space (its events are the function tracer's: no triggers). */
#define TRACER_OPTIONS TRACER_OPTIONS_KERNEL, TRACER_OPT_USTACK, TRACER_OPT_USER, TOOL_EXEC
#define TRACER_OPT_USER                                                      \
	SPEC(.key = TRACER_OPT_USER_SPACE, .name = "user-space",             \
	     .help = "-c, -k and --hist counted in user space, not by the\n" \
		     "kernel's hist triggers")
#define TRACER_OPT_USTACK                                                                  \
	SPEC(.key = 'U', .help = "user-space stack trace of each event (walked by frame\n" \
				 "pointers)")
#define TRACER_OPTIONS_HEAD                                                                     \
	SPEC(.key = 'c',                                                                        \
	     .help = "count events per second instead of printing each (with -k or --hist:\n"   \
		     "print them every second, not only at the end)"),                          \
		TOOL_DURATION, SPEC(.key = 'H', .help = "print a header row"),                  \
		TOOL_JSON("one JSON object per event, with every field of its format"),         \
		SPEC(.key = 'k', .arg = "KEY[,KEY...]",                                         \
		     .help = "count by the task (pid, comm) or fields of the event (any field " \
			     "of\n"                                                             \
			     "its format; field.NAME for one named pid or comm), top first, "   \
			     "printed\n"                                                        \
			     "at the end"),                                                     \
		SPEC(.key = TRACER_OPT_HIST, .name = "hist", .arg = "FIELD",                    \
		     .help = "log2 histogram of a numeric field, printed at the end (with "     \
			     "-k:\none per key)"),                                              \
		SPEC(.key = TRACER_OPT_POWER, .name = "power", .arg = "BASE",                   \
		     .help = "--hist in power-of-BASE slots: [BASE^(k-1), BASE^k)"),            \
		SPEC(.key = TRACER_OPT_LINEAR, .name = "linear", .arg = "WIDTH",                \
		     .help = "--hist in 64 slots WIDTH wide from 0, then one for the rest"),    \
		TOOL_TID, TOOL_NAME, TOOL_PID
/* usdt's -s is a string argument: the kernel's stack of a user-space probe is the same each
 * time. */
#define TRACER_OPT_KSTACK SPEC(.key = 's', .help = "kernel stack trace of each event")
#define TRACER_OPTIONS_TAIL                                                                        \
	TOOL_WALLCLOCK,                                                                            \
		SPEC(.key = TRACER_OPT_FOLDED, .name = "folded",                                   \
		     .help = "count the stacks of -s and -U instead, printed at the end as "       \
			     "folded\n"                                                            \
			     "lines for flame graphs: comm;root;...;leaf COUNT (kernel frames "    \
			     "_[k])"),                                                             \
		SPEC(.key = 'v', .help = "print the format of the event(s), and the memory a run " \
					 "takes, and exit"),                                       \
		TOOL_JSON_KEYS, TOOL_PROM

#define TRACER_OPTIONS_KERNEL TRACER_OPTIONS_HEAD, TRACER_OPT_KSTACK, TRACER_OPTIONS_TAIL

struct tracer {
	/* options */
	bool count, header, stack, ustack, format, folded, user_space;
	const char *keys, *hist;
	bool power, linear;    /* given: --hist's bins are those of the last */
	struct hist_bins bins; /* log2 unless --power or --linear */
	/* set by the tool before tracer_prepare() */
	struct tep_event **events;
	int nevents;
	const char *filter; /* the user's ftrace filter, may be NULL */
	/* Each event's name in -c, -j and --prom (NULL, or a NULL entry: SYSTEM:NAME, or NAME
	 * alone for a probe of the run's own group, ftt_<run id>). */
	const char **names;
	/* The events are written by the instance's tracer (ftrace:function), which the tool
	 * sets: they are not enabled or filtered, and this process's own are dropped. */
	bool by_tracer;
	/* kprobe -s at a function's entry: its return address, fetched by the probe and kept
	 * out of sight (probe_create_hiding): the stacks' first frame where the kernel's lacks
	 * it. NULL: none. */
	const struct tep_format_field *entry_caller;
	/* while tracing */
	struct tool_run *t;
	struct keys *k;
	struct fieldhist *kh; /* --hist counted in the kernel */
	struct kerncount *kc; /* -c counted in the kernel */
	struct kernkeys *kk;  /* -k counted in the kernel, by these fields */
	const char *kfields[3];
	int nkfields;
	struct evprint *p;
	struct ksyms *ksyms;
	struct folded *fold; /* --folded */
	struct tep_event *kstack_ev, *ustack_ev;
	struct tep_format_field *kcaller, *ucaller, *utgid;
	unsigned long long ustacks; /* --folded: events that came with a user stack */
	uint64_t *counts;
	struct prom_set prom; /* --prom: -c's (or -k's) counts from the start */
	uint64_t prom_cut;    /* -k's events whose keys were too long for labels */
	struct tracer_event *ctx;
	int self; /* getpid() */
};

/* The handler's context of each event: its tracer and its index in events[]. */
struct tracer_event {
	struct tracer *tr;
	int idx;
};

/* Take o, an option of TRACER_OPTIONS (the shared ones are parsed by tool.c), with arg, its
 * argument, into tr; a bad --power or --linear value is a usage error (exit 2). */
void tracer_option(struct tracer *tr, const struct opt_spec *o, const char *arg);
/* After parsing: options of tr that exclude each other (exit 2). */
void tracer_check(struct tracer *tr);
/*
 * After the tool has its events (prepare() of t, the tool's run): -k and --hist against the
 * events' fields, -v (prints the formats, and the memory a run takes), and how the run is set
 * up (names followed, order, buffer size, what the kernel counts). Returns TOOL_OK; TOOL_USAGE
 * with one line on stderr; TOOL_DONE after -v; TOOL_FAIL when a format cannot be read for -v
 * (said) or out of memory (not said).
 */
enum tool_code tracer_prepare(struct tool_run *t);
/* setup() of t, the tool's run: this process excluded where every event is in process
 * context; -c, -k or --hist counted by the kernel's hist triggers where they can be (then
 * nothing else: no handler), else the stacks, the printer or the counting, and a handler for
 * each event (tool_trace, with the user's filter). Returns TOOL_OK, or TOOL_FAIL or
 * tool_trace's or tool_stacks' status (TOOL_USAGE: a filter the kernel rejects). */
enum tool_code tracer_setup(struct tool_run *t);
/* banner() of t, the tool's run: "Tracing" (or "Counting") and what, on stderr. */
void tracer_banner(struct tool_run *t);
/* header() of t, the tool's run: with -H, the column header of the printed events on
 * stdout. */
void tracer_header(struct tool_run *t);
/* interval() of t, the tool's run: what was counted since the last (read from the kernel's
 * tables where they count), printed as the table of the interval ending at now, the counts
 * of -c then set back to 0. A table that cannot be read is said, and ends the run as failed.
 * Returns 0: never the last interval. */
int tracer_interval(struct tool_run *t, uint64_t now);
/* end() of t, the tool's run: the partial last interval (-c), or everything (-k, --hist
 * without -c), not an empty one when -d ended right on a tick; the folded stacks; and what
 * was not counted or shown said on stderr. */
void tracer_end(struct tool_run *t);
/* cleanup() of t, the tool's run: what the tracer holds freed. */
void tracer_cleanup(struct tool_run *t);

#endif
