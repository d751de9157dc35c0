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
 * Counting for the nevents events (idx: their index in events[]) by the keys of spec
 * ("comm,pid", NULL: none; at most 8) with a histogram of field hist (NULL: none); spec and
 * hist are not both NULL (keys_add would read a histogram's field that is not there).
 * events and hist are kept, not copied (they must outlive it). Returns it, or NULL with
 * the reason in why (whylen bytes) when a key or the field does not fit an event (a usage
 * error), spec holds no key or more than 8, or out of memory. The caller frees it with
 * keys_free().
 */
struct keys *keys_new(struct tep_event **events, int nevents, const char *spec, const char *hist,
		      char *why, size_t whylen);
/* Whether the task's name is a key of k (so the names must be followed). Returns true when
 * comm is one of its keys. */
bool keys_need_comm(const struct keys *k);
/* Counts rec, a record of events[idx], in k; comm: the name of its task (read only when it is
 * a key). Returns 0, or -1 when out of memory (rec not counted). */
int keys_add(struct keys *k, const struct tep_record *rec, int idx, const char *comm);
struct hist_bins;
/* --hist: b, copied, the bins of k's histograms (log2 unless set). */
void keys_set_bins(struct keys *k, const struct hist_bins *b);
/* --hist without keys: the histogram of k itself, for counts made elsewhere (fieldhist.h) to
 * be added to. Returns it (owned by k, valid until keys_free), or NULL with keys. */
struct hist_log2 *keys_total(struct keys *k);
struct tep_format_field;
/* For counting elsewhere (fieldhist.h): the fields of k's keys in events[idx] into f (NULL
 * for pid, the task), at most max. Returns their number (0 without keys), or -1 when a key
 * is a name or bytes, there are more than max, or k has a histogram (--hist). The fields are
 * the events' (libtraceevent's), not to be freed. */
int keys_fields(const struct keys *k, int idx, const struct tep_format_field **f, int max);
/* Adds to k n events of events[idx] counted elsewhere under vals, the values of the keys (in
 * -k's order, each widened to 64 bits by its sign; with keys only: without, keys_print shows
 * nothing of them). Returns 0, or -1 when out of memory. */
int keys_add_values(struct keys *k, int idx, const uint64_t *vals, uint64_t n);
/* Whether nothing was counted in k since the last print. Returns true when nothing was. */
bool keys_empty(const struct keys *k);
/* Prints what k counted on stdout, highest count first, and starts again; when: "HH:MM:SS";
 * json: one object per key (one for the histogram without keys), else text: a table, or
 * with --hist a histogram per key ("(no events)" when nothing was counted). */
void keys_print(struct keys *k, const char *when, bool json);
struct prom_set;
/* --prom (-k): each key's count in k since the last print added to its series in set, its
 * labels event="SYS:NAME" and each key by its name (a character a label name cannot have
 * made '_': field.comm as field_comm; event, __NAME and a name that starts with a digit
 * after field_), its value a string as it is (escaped by the format's rules), anything else
 * as the table shows it. Before keys_print, which starts again; nothing without keys. Keys
 * whose labels would pass 2 KiB are left out, their events added to *cut. Returns 0, or -1
 * when out of memory (counts left out). */
int keys_prom_add(struct keys *k, struct prom_set *set, uint64_t *cut);
/* Frees k and all it holds (k NULL: nothing). */
void keys_free(struct keys *k);

/* The keys of keys_print's JSON objects, as row tables (a tool's --json-keys, struct tool
 * .rows): a key's count, a key's histogram, the histogram without keys. Their event and
 * count columns, for a table of counts by event alone (tracer.c). */
#define KEYS_COL_EVENT SPEC(.key = "event", .kind = ROW_STR, .doc = "the event, SYSTEM:NAME")
#define KEYS_COL_COUNT                                              \
	SPEC(.key = "count", .kind = ROW_UINT,                      \
	     .doc = "the events counted (under those keys) in the " \
		    "interval")
extern const struct row_table keys_count_keys, keys_hist_keys, keys_total_keys;

#endif
