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

/* Room for about `entries` objects of value_size bytes each. */
int pair_init(struct pair_table *t, size_t entries, size_t value_size);
void pair_free(struct pair_table *t);
/* The value slot for (k1, k2), created (zeroed) when absent; never NULL. */
void *pair_put(struct pair_table *t, uint64_t k1, uint64_t k2);
/* The value for (k1, k2), or NULL. */
void *pair_get(struct pair_table *t, uint64_t k1, uint64_t k2);
/* Forget the entry that holds value (from pair_get or pair_put). */
void pair_del(struct pair_table *t, void *value);
/* Forget everything (after lost events: pairs may no longer be trusted). */
void pair_clear(struct pair_table *t);
/* Forget every entry whose value pred says so (pred NULL: every entry); returns how many. */
size_t pair_del_if(struct pair_table *t, bool (*pred)(void *value, void *ctx), void *ctx);

#endif
