/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agg: counts by key, for tools that aggregate in user space (tpoint -k, future funccount).
 * Keys are fixed-size byte strings; the table grows as keys arrive, so no key is dropped.
 * Each key may carry a value area of its own (a histogram for -k with --hist).
 */
#ifndef FTT_AGG_H
#define FTT_AGG_H

#include <stddef.h>
#include <stdint.h>

struct agg {
	unsigned char *slots; /* each: uint64_t count, the key, the value; count 0 = empty */
	size_t keysize, valoff, stride, cap, used;
};

/* keysize bytes of key; valsize bytes of value per key (0: counts only). */
int agg_init(struct agg *a, size_t keysize, size_t valsize);
void agg_free(struct agg *a);
/* Add n to the count of key (keysize bytes). Returns the key's value area (all zero for a new
 * key, 8-byte aligned), NULL when memory ran out. */
void *agg_add(struct agg *a, const void *key, uint64_t n);
/* Visit the keys, highest count first; returns how many. */
size_t agg_sorted(struct agg *a,
		  void (*fn)(const void *key, uint64_t count, const void *val, void *ctx),
		  void *ctx);
/* Forget every key (each interval). */
void agg_reset(struct agg *a);

#endif
