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

/* Set up a: keys of keysize bytes, each with valsize bytes of value (0: counts only), room
 * for 256 keys at first. Returns 0, or -1 when out of memory (agg_free may still be called).
 * Frees: agg_free(a). */
int agg_init(struct agg *a, size_t keysize, size_t valsize);
/* Free the keys and values of a (again: harmless). */
void agg_free(struct agg *a);
/* Add n to the count of key (keysize bytes) in a, which doubles its room when more than half
 * full. Returns the key's value area (all zero for a new key, 8-byte aligned), owned by the
 * table and valid until the next agg_add, agg_reset or agg_free; NULL when memory ran out
 * (the key not added). A new key with n 0 is not kept: a count of 0 marks a free slot, which
 * a later key takes with the value area as it was left. */
void *agg_add(struct agg *a, const void *key, uint64_t n);
/* Visit the keys of a, highest count first: fn(key, count, val, ctx), key and val pointing
 * into the table for the call. Returns how many; 0 also when out of memory (none visited). */
size_t agg_sorted(struct agg *a,
		  void (*fn)(const void *key, uint64_t count, const void *val, void *ctx),
		  void *ctx);
/* Forget every key of a (each interval), keeping its room. */
void agg_reset(struct agg *a);

#endif
