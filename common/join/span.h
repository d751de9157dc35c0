/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * span: two events of one thing paired, its start and its end, by a key: a thread (a system
 * call's entry and exit; a wake-up and the switch that runs the task), a CPU (an interrupt
 * handler's entry and exit), a field (a request's device and sector). The end's handler gets
 * the start's time, the tool's data kept with it, and the time between.
 *
 * What a loss of events does is explicit, because a start whose end was lost must never be
 * paired with a later end (the result would be wrong, not missing):
 *   SPAN_LOSS_ALL  every start is forgotten (an end may come on another CPU than its start:
 *                  wake-up to switch, syscall entry to exit after a migration);
 *   SPAN_LOSS_CPU  only the starts recorded on that CPU (start and end always on the same
 *                  CPU: an interrupt handler's entry and exit).
 * Counted, and said at the end by span_report: ends without their start (began before
 * tracing, or after a loss), starts forgotten at losses, starts evicted from a full table,
 * starts replaced by a newer start of the same key before their end.
 */
#ifndef FTT_SPAN_H
#define FTT_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pair.h"
#include "kernel/undo.h"

struct tep_record;
struct tep_format_field;

enum span_loss { SPAN_LOSS_ALL, SPAN_LOSS_CPU };

/* A start in progress; the tool's data_size bytes follow it (span_data). */
struct span_start {
	uint64_t ts;
	int cpu;
	int kind; /* the tool's: which start event (wake-up, new task, preempted) */
};

/* A pair made: the end's record, the start, the time between (ns, 0 when the end's time
 * is before the start's), the start's data. */
typedef void (*span_done_fn)(const struct tep_record *end, const struct span_start *start,
			     uint64_t delta_ns, void *data, void *ctx);

struct span {
	struct pair_table starts;
	size_t data_size;
	enum span_loss loss;
	span_done_fn done;
	void *ctx;
	uint64_t paired;   /* ends paired with their start */
	uint64_t unpaired; /* ends without a start */
	uint64_t cleared;  /* starts forgotten at losses */
	uint64_t replaced; /* starts replaced by a newer one of the same key */
	uint64_t losses;   /* loss reports received */
};

/* Room for about entries starts in progress at once in s (a full set evicts its oldest),
 * each with data_size bytes of the tool's; a start whose end is lost is dealt with by loss;
 * done(end, start, delta, data, ctx) is called for each pair (done NULL: what is known per
 * key, read with span_find, kept until span_drop or span_end). Returns 0, or -1 when out of
 * memory (nothing to free). Frees: span_free(s). */
int span_init(struct span *s, size_t entries, size_t data_size, enum span_loss loss,
	      span_done_fn done, void *ctx);
struct tool_run;
/* The same for t, the tool's run, and its loss policy given the reader's losses (span_lost:
 * registered now or when the driver opens the reader): s, entries, data_size, loss, done and
 * ctx as span_init. Returns 0, or -1 when out of memory (nothing to free) or when the
 * listener cannot be registered (tool_on_lost; s is then made: span_free(s)). */
int span_init_run(struct tool_run *t, struct span *s, size_t entries, size_t data_size,
		  enum span_loss loss, span_done_fn done, void *ctx);
/* Frees the table of s (s itself is the caller's). Safe after a failed span_init, and twice. */
void span_free(struct span *s);

/* A start of (k1, k2) in s at ts on cpu, of the tool's kind. One already there is replaced
 * (counted: its end was lost, or the tool's events start twice, as two wake-ups). Returns its
 * data, zeroed (never NULL), owned by s: valid until the start ends, is dropped, moved,
 * evicted or forgotten at a loss (any later span_begin may evict it). */
void *span_begin(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind);
/* Keeps the start of (k1, k2) in s if there is one (the first wake-up counts), else begins
 * one at ts on cpu, of kind; *fresh says which (true: begun). Returns the start's data, owned
 * by s and valid as span_begin's. */
void *span_begin_once(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind,
		      bool *fresh);
/* Finds the start of (k1, k2) in s. Returns it (its data: span_data), owned by s and valid
 * as span_begin's, or NULL when there is none. */
struct span_start *span_find(struct span *s, uint64_t k1, uint64_t k2);
/* The end of (k1, k2) in s at ts, rec its record: done() with its start, which is then
 * forgotten. Returns 1 when paired, 0 when there was no start (counted). */
int span_end(struct span *s, const struct tep_record *rec, uint64_t k1, uint64_t k2, uint64_t ts);
/* Moves the start of (k1, k2) in s to (nk1, nk2) (an exec by a thread other than the leader:
 * the kernel gives it the leader's ID). One that (nk1, nk2) had is replaced. Returns the
 * start there, owned by s and valid as span_begin's, or NULL when there is none (or when
 * making room for it evicted the start being moved: then it is gone). */
struct span_start *span_move(struct span *s, uint64_t k1, uint64_t k2, uint64_t nk1, uint64_t nk2);
/* Forgets the start of (k1, k2) in s without an end (the thing went away); nothing when
 * there is none. */
void span_drop(struct span *s, uint64_t k1, uint64_t k2);
/* The reader's lost-event listener: reader_on_lost(r, span_lost, s), ctx the span. Forgets
 * the starts recorded on cpu (SPAN_LOSS_CPU and cpu 0 or more), else every start; n, the
 * events lost, is not read. */
void span_lost(int cpu, long long n, void *ctx);

/* One line on stderr for s (tool: the name in it), when anything is to be said: how many
 * ends found no start, and why a start can be missing (what: the ends' name, "switches").
 * Nothing when all were paired and no start was forgotten at a loss or evicted. */
void span_report(const struct span *s, const char *tool, const char *what);

/* The tool's data of st. Returns the data_size bytes that follow st, owned by the span and
 * valid as st is. */
static inline void *span_data(struct span_start *st)
{
	return st + 1;
}

/* The time between two events in whole units (unit_ns 1000: microseconds) as the kernel's
 * hist triggers compute it: the difference of the two times (start_ns, end_ns) each cut to
 * the unit, so that the pairs made here and those made in the kernel are binned alike.
 * Returns it, 0 when end_ns is not after start_ns. It may be one more than the nanoseconds
 * between divided by the unit, never less. */
static inline uint64_t span_units(uint64_t start_ns, uint64_t end_ns, uint64_t unit_ns)
{
	return end_ns > start_ns ? end_ns / unit_ns - start_ns / unit_ns : 0;
}

/* --- paired in the kernel -----------------------------------------------------------------
 *
 * Where the kernel has hist triggers with variables and synthetic events (CONFIG_HIST_TRIGGERS,
 * Linux 4.17), it can make the pairs itself: a hist trigger on the start event keeps the
 * start's time (and the fields the end needs) in a table keyed by the start's key field; a
 * hist trigger on the end event finds the start of its key and fires a synthetic event of
 * the run, the pair: the time between (lat, ns), the start's time (t0, ns), the carried
 * fields and the end's. Then only the pairs leave the kernel (SPAN_K_PAIRS), or, where hist
 * expressions also take numeric literals (Linux 5.16), not even those: a hist trigger on the
 * pair event counts them by log2 of their time in a unit, and the tool reads the table back
 * (SPAN_K_HIST, histtable.h).
 *
 * Several start events (a wake-up, a new task's, a preempted task's switch) become one: each
 * fires a second synthetic event of the run, the start (its key, its own time, its carried
 * fields), whose table then keeps the newest start of each key. Records of the end event
 * that forget their key's start (a task going to sleep: span_drop) read it, which clears it,
 * through a third synthetic event that is never recorded (the drop). A start is read once:
 * an end finds it only if no end or drop has read it since.
 *
 * Names: ftt_<run id>_<name> (the pair), ..._<name>s (the start), ..._<name>d (the drop), so
 * that a killed run's are removed by the next run's sweep (sweep.h); its triggers are
 * removed through the undo file written before them (undo.h), on a fault by the emergency
 * steps (sig.h), and at the end before the instance goes. funcpair's pairing is the case of
 * one start event with carried fields.
 */
#define SPAN_K_STARTS 3
#define SPAN_K_CARRY 6
#define SPAN_K_FIELDS 6
#define SPAN_K_TRIGGERS (SPAN_K_STARTS + 4)
/* Keys each table keeps (one entry per thread that ever started, for the run: entries are
 * never removed); the kernel's default is 2048, a busy box starts more in minutes. */
#define SPAN_K_TABLE 16384

struct tep_event;
struct tool_run;
struct histtable;

/* An event that starts a span in the kernel. */
struct span_kstart {
	struct tep_event *ev;
	const char *key;		 /* its field that names the thing: "pid", "prev_pid" */
	const char *filter;		 /* which of its records start one (NULL: all) */
	const char *carry[SPAN_K_CARRY]; /* its field for each carried slot */
};

/* A field of the pair event: its type in synthetic_events' words ("u64", "pid_t",
 * "char[16]"), its name there, and (the end's fields) the end event's field it is from. */
struct span_kfield {
	const char *type, *name, *from;
};

enum span_kmode {
	SPAN_K_PAIRS, /* each pair is recorded as an event */
	SPAN_K_HIST,  /* the pairs are counted in the kernel by log2 of their time */
};

struct span_kernel {
	/* Set by the tool before span_kernel_make(). */
	const char *name; /* a short lowercase word: the events and variables are named by it */
	struct span_kstart start[SPAN_K_STARTS];
	int nstarts;
	const char *key_type; /* several starts: the type of their key fields ("pid_t") */
	struct span_kfield carry[SPAN_K_CARRY]; /* type and name of each carried slot */
	int ncarry;
	struct tep_event *end;
	const char *end_key, *end_filter;
	struct span_kfield fields[SPAN_K_FIELDS];
	int nfields;
	/* The end event's records that forget their key's start (NULL: none). */
	const char *drop_key, *drop_filter;
	enum span_kmode mode;
	bool own; /* the start and end events are the run's own (span_kernel_can) */
	/* SPAN_K_HIST: the unit of the time binned (1000: us), and the pair event's fields
	 * keyed before the bucket ("pid"; NULL: none). */
	uint64_t unit_ns;
	const char *hist_keys;
	size_t table; /* keys per table (0: SPAN_K_TABLE) */

	/* Set by span_kernel_make() and span_kernel_trace(). */
	struct tool_run *t;
	char synth[3][96];  /* the pair, the start, the drop (the last two may be unused) */
	char def[3][512];   /* their definitions, for synthetic_events */
	bool synth_made[3]; /* made, not yet removed */
	int synth_emergency[3];
	int ntrig; /* in the order written; removed in the other */
	struct span_ktrig {
		char sys[32], event[96];
		char text[1024];
		char which[48]; /* a variable only it defines: its table in the hist file */
		char path[4096];
		bool set;
		int emergency;
	} trig[SPAN_K_TRIGGERS];
	int end_trig, pair_trig; /* their index in trig[] */
	struct tep_event *pair_ev;
	struct tep_format_field *lat, *t0;
	/* the tables' counts when tracing began: what came before is not counted */
	uint64_t base_ends, base_pairs, base_dropped;
	struct histtable *base;
	struct undo undo;
};

/* Whether the kernel can pair in the kernel in this mode (nothing is made); own: the start
 * and end events are the run's own (its probes), which older kernels can pair too. Returns
 * true when the kernel has hist triggers and synthetic events (for SPAN_K_HIST also numeric
 * literals, Linux 5.16) and is Linux 6.1 or later unless own; false otherwise. */
bool span_kernel_can(enum span_kmode mode, bool own);

/* The synthetic events' names and definitions (run id id) and the triggers' text (trace
 * clock clock), from the tool's description in k, set into k; nothing is written to the
 * kernel. Returns 0, or -1 (with one line on stderr) when the description is not whole or a
 * text does not fit. */
int span_kernel_build(struct span_kernel *k, const char *id, const char *clock);

/*
 * In prepare(): the synthetic events of k made for t, the tool's run, removed at the end
 * however the run ends (a usage error included). Returns true when made; false, with nothing
 * left made, when the kernel cannot: the tool pairs in user space then (said on stderr when
 * the kernel refused an event, its format cannot be read or the description does not build).
 */
bool span_kernel_make(struct tool_run *t, struct span_kernel *k);

/* In setup(): the triggers of k written for t, the tool's run, the kernel pairs from now on;
 * SPAN_K_PAIRS: each pair event that passes filter (NULL: all) is handed to fn with ctx. fn
 * NULL: the tool traces the pair event (k->pair_ev) itself, after (tool_trace: where the pair
 * event is fired in the task's own context, the run's filters of the task apply). One fn at
 * a time in a process: a second call's fn and ctx replace the first's. Returns TOOL_OK, or
 * TOOL_FAIL, said on stderr (but when the trace clock cannot be read, or a step of the end or
 * a handler cannot be kept: out of memory); what was written is removed at the end all the
 * same. */
enum tool_code span_kernel_trace(struct tool_run *t, struct span_kernel *k, const char *filter,
				 void (*fn)(struct tep_record *pair, void *ctx), void *ctx);

/* Finds field name of k's pair event (lat, t0, a carried one, an end's). Returns it (the
 * event's, libtraceevent's: not to be freed), or NULL when there is none or no pair event
 * was made. */
struct tep_format_field *span_kernel_field(const struct span_kernel *k, const char *name);

/* SPAN_K_HIST: the pairs k counted since tracing began, into h (zeroed or read before; emptied
 * first; the caller frees its entries with histtable_free, after -1 too), keyed by hist_keys
 * and then by the bucket, which is hist.h's log2 slot of span_units(start, end, unit_ns);
 * each entry's val[0] is the sum of those units plus one each (subtract its hits). Returns 0,
 * or -1 with one line on stderr. */
int span_kernel_hist(struct span_kernel *k, struct histtable *h);

/* Since tracing began, in k's tables: the end's records (*ends), the pairs made (*pairs), and
 * the starts or ends the kernel's tables had no room for (*dropped: the most of any table).
 * Returns 0, or -1 when unreadable (not said; before span_kernel_trace too). */
int span_kernel_counts(struct span_kernel *k, uint64_t *ends, uint64_t *pairs, uint64_t *dropped);

/* At the end, on stderr (tool: the name in it): the ends of k that found no start (what:
 * "switches"), and what the tables had no room for; one line instead when they cannot be
 * read. The tables are read one after the other while the kernel still counts (a trigger
 * with variables cannot be paused, and triggers of events that are not recorded run when
 * recording is off): the pairs and ends of those microseconds may be counted in one and not
 * the other. */
void span_kernel_report(struct span_kernel *k, const char *tool, const char *what);

/* Frees what k holds (k itself is the caller's); what it made in the kernel is removed at the
 * end of the run, not here. */
void span_kernel_free(struct span_kernel *k);

#endif
