/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keys: counts of events by key (-k pid,comm,FIELD), and log2 histograms of a numeric field
 * (--hist FIELD), alone or one per key. The engine behind tpoint/kprobe/uprobe -k and
 * --hist, for any tool that counts (syscount, funccount, ...). Keys are kept whole: strings
 * and byte arrays of any length are interned, so two values never merge.
 *
 * Key names: pid and comm are the task that ran the event (its name when it happened, as
 * -n); field.NAME is the event's own field NAME (field.comm: sched_wakeup's woken task);
 * any other name is a field of the event's format.
 */
#ifndef FTT_KEYS_H
#define FTT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/row.h"

struct tep_event;
struct tep_record;
struct keys;

/*
 * Counting for the events (idx: their index in events[]) by the keys of spec
 * ("comm,pid", NULL: none) with a histogram of field hist (NULL: none). NULL with the
 * reason in why when a key or the field does not fit an event (a usage error).
 */
struct keys *keys_new(struct tep_event **events, int nevents, const char *spec, const char *hist,
		      char *why, size_t whylen);
/* Is the task's name a key (so the names must be followed)? */
bool keys_need_comm(const struct keys *k);
/* Count rec, a record of events[idx]; comm: the name of its task. -1: out of memory. */
int keys_add(struct keys *k, const struct tep_record *rec, int idx, const char *comm);
/* --hist: the bins of its histograms (log2 unless set). */
struct hist_bins;
void keys_set_bins(struct keys *k, const struct hist_bins *b);
/* --hist without keys: the histogram itself, for counts made elsewhere (fieldhist.h) to be
 * added to; NULL with keys. */
struct hist_log2 *keys_total(struct keys *k);
/* For counting elsewhere (fieldhist.h): the keys' fields in events[idx] (NULL for pid, the
 * task), their number; -1 when a key is a name or bytes, or there are more than max. */
struct tep_format_field;
int keys_fields(const struct keys *k, int idx, const struct tep_format_field **f, int max);
/* n events of events[idx] counted elsewhere under these values of the keys (in -k's order,
 * each widened to 64 bits by its sign). -1: out of memory. */
int keys_add_values(struct keys *k, int idx, const uint64_t *vals, uint64_t n);
/* Nothing counted since the last print. */
bool keys_empty(const struct keys *k);
/* Print what was counted, highest count first, and start again; when: "HH:MM:SS". Text:
 * a table, or with --hist a histogram per key; JSON: one object per key. */
void keys_print(struct keys *k, const char *when, bool json);
/* --prom (-k): each key's count since the last print added to its series in set, its labels
 * event="SYS:NAME" and each key by its name (a character a label name cannot have made '_':
 * field.comm as field_comm; event and __NAME after field_), its value a string as it is (escaped by the format's rules),
 * anything else as the table shows it. Before keys_print, which
 * starts again. Keys whose labels would pass 2 KiB are left out, their events added to
 * *cut. -1: out of memory (counts left out). */
struct prom_set;
int keys_prom_add(struct keys *k, struct prom_set *set, uint64_t *cut);
void keys_free(struct keys *k);

/* The keys of keys_print's JSON objects, as row tables (a tool's --json-keys, struct tool
 * .rows): a key's count, a key's histogram, the histogram without keys. Their event and
 * count columns, for a table of counts by event alone (tracer.c). */
#define KEYS_COL_EVENT                                                    \
	{                                                                 \
		NULL, "event", 0, ROW_STR, 0, 0, "the event, SYSTEM:NAME" \
	}
#define KEYS_COL_COUNT                                                  \
	{                                                               \
		NULL, "count", 0, ROW_UINT, 0, 0,                       \
			"the events counted (under those keys) in the " \
			"interval"                                      \
	}
extern const struct row_table keys_count_keys, keys_hist_keys, keys_total_keys;

#endif
