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

/* Does this kernel have hist triggers (its README lists them)? */
bool fieldhist_can(void);

/* Do this kernel's triggers count only the tasks the instance traces (set_event_pid: -p,
 * -L, --exec, --cgroup)? From Linux 5.15 syscall events and probes reserve their record
 * where that is checked; before, a trigger that reads the record saw every task's (4.9 and
 * 4.19 in the guests counted other processes' calls). The README's numeric literals (5.16)
 * are the mark taken. */
bool fieldhist_tasks_ok(void);

/* Does the kernel read field f of ev as the tools do (same size and sign)? */
bool fieldhist_fits(struct tep_event *ev, const struct tep_format_field *f);

/* The filter on a field of size bytes (1, 2, 4 or 8) of this sign that the value trigger
 * (exact true) or the log2 trigger (exact false) takes, into buf. -1 when it does not fit. */
int fieldhist_filter(char *buf, size_t len, const char *field, int size, bool is_signed,
		     bool exact);

/* What the two tables of one event counted between before and now, added to h: log2: the
 * .log2 trigger's, exact: the value trigger's. Its dropped events added to *dropped. */
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
/* The filter of a part of a linear histogram into buf: 1, 0 when that part is not needed
 * (below 0 for an unsigned field; beyond for a field that cannot hold 64*width; an empty
 * filter for the slots when every value is in them), -1 when it does not fit. */
int fieldhist_linear_filter(char *buf, size_t len, const char *field, int size, bool is_signed,
			    uint64_t width, enum fieldhist_part part);
/* What the three tables counted between before and now (NULL: a part not written), into h's
 * linear slots of width. */
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

/* The triggers written on every event (each must have field and fieldhist_fits it; bins
 * fieldhist_bins_ok), filtered by the user's filter (NULL: none). -1 with why set: the kernel
 * refused one (the triggers written before it are removed) or out of memory. */
int fieldhist_start(struct fieldhist *kh, struct session *s, struct tep_event **events, int nevents,
		    const char *field, const struct hist_bins *bins, const char *filter, char *why,
		    size_t whylen);

/* What was counted since the last read added to h (in its bins). -1 with why set. */
int fieldhist_read(struct fieldhist *kh, struct hist_log2 *h, char *why, size_t whylen);

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
int kerncount_start(struct kerncount *kc, struct session *s, struct tep_event **events, int nevents,
		    const char *filter, char *why, size_t whylen);
/* Each event's count since the last read added to counts[i]. -1 with why set. */
int kerncount_read(struct kerncount *kc, uint64_t *counts, char *why, size_t whylen);
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
int kernkeys_start(struct kernkeys *kk, struct session *s, struct tep_event **events, int nevents,
		   const char *const *fields, int nkeys, const char *filter, char *why,
		   size_t whylen);
/* Each key's count since the last read, to fn (idx: the event's index). -1 with why set. */
int kernkeys_read(struct kernkeys *kk,
		  void (*fn)(int idx, const uint64_t *key, uint64_t n, void *ctx), void *ctx,
		  char *why, size_t whylen);
void kernkeys_free(struct kernkeys *kk);

#endif
