/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pair: a fixed-size table for joining two events of one object (a request's issue and
 * completion, a thread's syscall entry and exit). Set-associative: no allocation after init,
 * and when a set is full the oldest entry is evicted, so objects whose second event never
 * comes cannot fill it up.
 */
#ifndef FTT_PAIR_H
#define FTT_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAIR_WAYS 4

struct pair_table {
	unsigned char *mem;
	size_t stride, value_size;
	uint32_t nsets; /* power of two */
	uint64_t clock; /* insertion counter, for eviction */
	uint64_t evicted;
};

/* Room in t for about entries objects of value_size bytes each (at least entries, in a power
 * of 2 of sets of PAIR_WAYS). Returns 0, or -1 when out of memory. Frees: pair_free(t). */
int pair_init(struct pair_table *t, size_t entries, size_t value_size);
/* Free the memory of t (again: harmless). */
void pair_free(struct pair_table *t);
/* The value slot for (k1, k2) in t, created (zeroed) when absent; a full set evicts the entry
 * put there first (counted in t->evicted). Returns it, never NULL, 8-byte aligned and owned
 * by the table: valid until pair_del, pair_clear, pair_free, or its eviction by a later
 * pair_put. */
void *pair_put(struct pair_table *t, uint64_t k1, uint64_t k2);
/* The value for (k1, k2) in t. Returns it (owned by the table, valid as pair_put's), or NULL
 * when absent. */
void *pair_get(struct pair_table *t, uint64_t k1, uint64_t k2);
/* Forget the entry of t that holds value (from pair_get or pair_put). */
void pair_del(struct pair_table *t, void *value);
/* Forget everything in t (after lost events: pairs may no longer be trusted); t->evicted
 * stays. */
void pair_clear(struct pair_table *t);
/* Forget every entry of t whose value pred(value, ctx) says so (pred NULL: every entry).
 * Returns how many were forgotten. */
size_t pair_del_if(struct pair_table *t, bool (*pred)(void *value, void *ctx), void *ctx);

#endif
