/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fieldhist: the log2 histogram of a numeric field of events (tpoint --hist FIELD), counted by
 * the kernel's hist triggers (CONFIG_HIST_TRIGGERS, Linux 4.7; not Debian's 5.10) into the
 * slots of hist.h, so that a tool prints the same histogram whichever counted it. The events
 * are never written to the ring buffer: the cost per event is the triggers' alone.
 *
 * The kernel's .log2 bins v as 2^k for v in (2^(k-1), 2^k]; hist.h's slot k holds
 * [2^(k-1), 2^k). They differ at the powers of two, 0 and 1 share the kernel's 2^0, and its
 * rounding up overflows from 2^63 on. So each event goes to one of two triggers, by their
 * filters: the values that are 0 or a power of two, or beyond the field's positive range
 * (below 0, or 2^63 and up), to a trigger keyed by the value itself (at most 65 entries
 * besides those beyond the range); every other value to one keyed by its .log2, whose 2^k
 * is then exactly slot k. No event is counted by both, so reading one table after the
 * other can move an event to the next interval, never to another slot.
 *
 * The filters are search trees over the powers of two (a value is compared about 14
 * times, not 65), after the run's own filter (session_filter) and the user's. The field is
 * read as the kernel's filter and hist read it (the format's size and sign): where the tool
 * reads it otherwise (field.h: a syscall's int argument in an 8-byte slot), or the kernel's
 * .log2 cannot read it (a field of less than 8 bytes before Linux 4.17), fieldhist_fits()
 * says no and the tool counts in user space.
 */
#ifndef FTT_FIELDHIST_H
#define FTT_FIELDHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "count/hist.h"
#include "kernel/histtable.h"

struct tep_event;
struct tep_format_field;
struct session;

/* Whether this kernel has hist triggers (its README lists them; read at each call). Returns
 * true when it has, false when not or when the README cannot be read. */
bool fieldhist_can(void);

/* Whether this kernel's triggers count only the tasks the instance traces (set_event_pid: -p,
 * -L, --exec, --cgroup). From Linux 5.15 syscall events and probes reserve their record
 * where that is checked; before, a trigger that reads the record saw every task's (4.9 and
 * 4.19 in the guests counted other processes' calls). The README's numeric literals (5.16)
 * are the mark taken. Returns true when they do, false when not or when the README cannot
 * be read (the answer is kept for the process). */
bool fieldhist_tasks_ok(void);

/* Whether the kernel reads field f of ev as the tools do (same size and sign). Returns false
 * for an array or a string, a size other than 1, 2, 4 or 8, a field the tools read otherwise
 * (field.h), and a field of less than 8 bytes before Linux 4.17 (no synthetic_events file);
 * true otherwise. */
bool fieldhist_fits(struct tep_event *ev, const struct tep_format_field *f);

/* The filter on field, of size bytes (1, 2, 4 or 8) and signed when is_signed, that the
 * value trigger (exact true) or the log2 trigger (exact false) takes, into buf (len bytes).
 * Returns 0, or -1 when it does not fit. */
int fieldhist_filter(char *buf, size_t len, const char *field, int size, bool is_signed,
		     bool exact);

/* What the two tables of one event counted between before and now, added to h: log2_now and
 * log2_before the .log2 trigger's, exact_now and exact_before the value trigger's; size and
 * is_signed the field's (as fieldhist_filter). The value table's dropped events added to
 * *dropped. */
void fieldhist_add(struct hist_log2 *h, const struct histtable *log2_now,
		   const struct histtable *log2_before, const struct histtable *exact_now,
		   const struct histtable *exact_before, int size, bool is_signed,
		   uint64_t *dropped);

/*
 * --power and --linear (hist.h's bins). A power of 2^m is the log2 histogram's slots taken m
 * at a time. A width (Linux 5.15, .buckets=N) is three triggers, by their filters: the values
 * of the 64 slots keyed by .buckets=width (at most 64 entries), the values beyond them keyed
 * by .log2 (only their number is read: at most 65 entries), those below 0 keyed by
 * common_type. No table can fill, and no event is counted twice.
 *
 * Whether this kernel can count in the bins b. Returns true for log2 and a power of 2^m,
 * for a width when the README lists .buckets (read once for the process); false for a power
 * that is not of 2 (no kernel bins it).
 */
bool fieldhist_bins_ok(const struct hist_bins *b);
enum fieldhist_part {
	FIELDHIST_LOG2 = 0,
	FIELDHIST_EXACT = 1,
	FIELDHIST_SLOTS = 0,
	FIELDHIST_BEYOND = 1,
	FIELDHIST_BELOW = 2,
	FIELDHIST_PARTS = 3
};
/* The filter of part of a linear histogram of width on field (size bytes, signed when
 * is_signed) into buf (len bytes). Returns 1, 0 when that part is not needed (below 0 for an
 * unsigned field; beyond for a field that cannot hold 64*width; buf untouched), -1 when it
 * does not fit; an empty filter, 1, for the slots when every value is in them. */
int fieldhist_linear_filter(char *buf, size_t len, const char *field, int size, bool is_signed,
			    uint64_t width, enum fieldhist_part part);
/* What the three tables counted between before and now (slots_now and slots_before,
 * beyond_now and beyond_before, below_now and below_before; a part's now NULL: not written),
 * added to h's linear slots of width. */
void fieldhist_add_linear(struct hist_log2 *h, uint64_t width, const struct histtable *slots_now,
			  const struct histtable *slots_before, const struct histtable *beyond_now,
			  const struct histtable *beyond_before, const struct histtable *below_now,
			  const struct histtable *below_before);

struct fieldhist {
	struct session *s;
	int nevents;
	struct tep_event **events;
	const char *field;
	struct hist_bins bins;
	int nparts; /* 2 (log2 and power: by log2, by value) or 3 (linear) */
	struct fieldhist_event {
		int size;
		bool is_signed;
		bool has[FIELDHIST_PARTS];	       /* the parts written on the event */
		struct histtable tab[FIELDHIST_PARTS]; /* the tables as last read */
	} * ev;
	char which[FIELDHIST_PARTS][128]; /* in each trigger's info line */
	uint64_t dropped;		  /* by the value tables, all told */
};

/* The triggers written on each of the nevents events (each must have field and
 * fieldhist_fits it; bins fieldhist_bins_ok), filtered by the run's filter of s
 * (session_filter) and the user's filter (NULL: none); kh filled in, events and field kept
 * in it, not copied. Returns 0, or -1 with why set (whylen bytes): the kernel refused one
 * (the triggers written before it are removed), an event has no field, a filter too long
 * for a trigger, or out of memory. Frees: fieldhist_free(kh), after -1 too; the triggers
 * written stay until the instance is removed. */
int fieldhist_start(struct fieldhist *kh, struct session *s, struct tep_event **events, int nevents,
		    const char *field, const struct hist_bins *bins, const char *filter, char *why,
		    size_t whylen);

/* What kh's triggers counted since the last read added to h (in its bins). Returns 0, or -1
 * with why set (whylen bytes) when a table cannot be read (what the events before it counted
 * is in h by then). */
int fieldhist_read(struct fieldhist *kh, struct hist_log2 *h, char *why, size_t whylen);

/* Frees what kh holds (kh itself is the caller's); the triggers are left to the instance's
 * removal. Safe after a failed fieldhist_start, and twice. */
void fieldhist_free(struct fieldhist *kh);

/*
 * Counts of events (tpoint -c), by one trigger per event keyed by common_type (one entry):
 * its hits and the hits it had no room for, read as they grow. Same filters as above.
 */
struct kerncount {
	struct session *s;
	int nevents;
	struct tep_event **events;
	uint64_t *seen; /* each event's count at the last read */
};
/* The counting trigger written on each of the nevents events, filtered by the run's filter of
 * s and the user's filter (NULL: none); kc filled in, events kept in it, not copied. Returns
 * 0, or -1 with why set (whylen bytes): the kernel refused it on an event (removed from
 * those before), a filter too long for a trigger, or out of memory. Frees:
 * kerncount_free(kc), after -1 too. */
int kerncount_start(struct kerncount *kc, struct session *s, struct tep_event **events, int nevents,
		    const char *filter, char *why, size_t whylen);
/* Each event's count since kc's last read (hits and the hits with no room) added to
 * counts[i]. Returns 0, or -1 with why set (whylen bytes) when a table cannot be read (the
 * events before it are added by then). */
int kerncount_read(struct kerncount *kc, uint64_t *counts, char *why, size_t whylen);
/* Frees what kc holds (kc itself is the caller's; the triggers are left to the instance's
 * removal). Safe after a failed kerncount_start, and twice. */
void kerncount_free(struct kerncount *kc);

/*
 * Counts by numeric keys (tpoint -k pid,FIELD: up to HISTTABLE_KEYS), by one trigger per event
 * keyed by them (common_pid for pid). Its table holds 2048 keys: the events beyond are
 * counted in dropped, and said.
 */
struct kernkeys {
	struct session *s;
	int nevents;
	struct tep_event **events;
	int nkeys;
	char which[256];	/* the trigger's text up to its filter */
	struct histtable *seen; /* each event's table at the last read */
	uint64_t dropped;
};
/* The trigger keyed by fields (nkeys of them, 1 to HISTTABLE_KEYS; "common_pid" for pid)
 * written on each of the nevents events, filtered by the run's filter of s and the user's
 * filter (NULL: none); kk filled in, events kept in it, not copied. Returns 0, or -1 with why
 * set (whylen bytes): nkeys out of range, the keys or a filter too long for a trigger, the
 * kernel refused it on an event (removed from those before), or out of memory. Frees:
 * kernkeys_free(kk), after -1 too. */
int kernkeys_start(struct kernkeys *kk, struct session *s, struct tep_event **events, int nevents,
		   const char *const *fields, int nkeys, const char *filter, char *why,
		   size_t whylen);
/* Each key's count since kk's last read, to fn (idx: the event's index; key: the nkeys
 * values, valid during the call; n: the count; ctx: handed to fn). Returns 0, or -1 with why
 * set (whylen bytes) when a table cannot be read (the events before it were handed on). */
int kernkeys_read(struct kernkeys *kk,
		  void (*fn)(int idx, const uint64_t *key, uint64_t n, void *ctx), void *ctx,
		  char *why, size_t whylen);
/* Frees what kk holds (kk itself is the caller's; the triggers are left to the instance's
 * removal). Safe after a failed kernkeys_start, and twice. */
void kernkeys_free(struct kernkeys *kk);

#endif
