/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * histtable: a hist trigger's table read back from the kernel (an event's "hist" file): its
 * entries, each the values of its numeric keys, its hitcount and the sums of its values
 * (vals=hitcount,lat: "lat: 1234"), and its totals (Hits,
 * Entries, Dropped: the events its table had no room for). A .log2 key ("lat: ~ 2^12") is
 * read as its exponent, a .buckets=N key ("bytes: ~ 4096-8191", Linux 5.15) as its low end.
 *
 * The kernel's log2 of v is the exponent of v rounded up to a power of two: 2^k holds
 * (2^(k-1), 2^k], and 0 and 1 both show as 2^0. The log2 slots of hist.h are [2^(k-1), 2^k)
 * and 0 alone: a value binned by the kernel as v + 1 (span.h's histogram mode) lands in 2^k
 * exactly when v is in hist.h's slot k.
 *
 * An event's hist file holds one table per hist trigger: the one read is the first whose
 * "trigger info" line holds the given text (a variable only that trigger defines).
 */
#ifndef FTT_HISTTABLE_H
#define FTT_HISTTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracefs_instance;
struct tep_event;

#define HISTTABLE_KEYS 3
#define HISTTABLE_VALS 2

struct histtable_entry {
	uint64_t key[HISTTABLE_KEYS]; /* in the trigger's order; a .log2 key: its exponent */
	uint64_t hits;
	uint64_t val[HISTTABLE_VALS]; /* the sums of the trigger's values after hitcount, in order */
};

struct histtable {
	struct histtable_entry *e; /* sorted by keys */
	size_t n, cap;
	int nkeys;
	uint64_t hits, dropped; /* the table's Totals */
	uint64_t entries;
};

/*
 * Read the table of text whose trigger info line contains which (NULL: the first table) into
 * h (emptied first, its memory kept; zeroed before its first use): every entry must have nkeys
 * numeric keys (1 to HISTTABLE_KEYS). Returns 0, or -1 with the reason in why, whylen bytes
 * (no such table, a line that is not an entry, no totals, out of memory), the entries read
 * until then left in h. Frees: histtable_free(h), after a failure too.
 */
int histtable_parse(const char *text, const char *which, int nkeys, struct histtable *h, char *why,
		    size_t whylen);

/* The same from the hist file of ev in inst, an instance (NULL: the top level), into h, by
 * which, nkeys, why and whylen. Returns 0, or -1 with the reason in why (the hist file that
 * cannot be read, too). */
int histtable_read(struct tracefs_instance *inst, const struct tep_event *ev, const char *which,
		   int nkeys, struct histtable *h, char *why, size_t whylen);

/* Find the entry of h with these keys (key: h->nkeys of them). Returns it, valid until the
 * next parse into h or histtable_free(h), or NULL when there is none. */
const struct histtable_entry *histtable_find(const struct histtable *h, const uint64_t *key);

/* now minus before, entry by entry and in the totals Hits and Dropped (Entries stays now's),
 * never below 0: what was counted between two reads of a table that only grows (counts never
 * go down; an entry is never removed). */
void histtable_sub(struct histtable *now, const struct histtable *before);

/* Free the entries of h and zero it (it may be parsed into again). */
void histtable_free(struct histtable *h);

#endif
