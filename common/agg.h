/*
 * agg: counts by key, for tools that aggregate in user space (tpoint -k, future funccount).
 * Keys are fixed-size byte strings; the table grows as keys arrive, so no key is dropped.
 */
#ifndef FTT_AGG_H
#define FTT_AGG_H

#include <stddef.h>
#include <stdint.h>

struct agg {
	unsigned char *slots; /* each: uint64_t count, then the key; count 0 = empty */
	size_t keysize, stride, cap, used;
};

int agg_init(struct agg *a, size_t keysize);
void agg_free(struct agg *a);
/* Add n to the count of key (keysize bytes); -1 when memory ran out. */
int agg_add(struct agg *a, const void *key, uint64_t n);
/* Visit the keys, highest count first; returns how many. */
size_t agg_sorted(struct agg *a, void (*fn)(const void *key, uint64_t count, void *ctx),
		  void *ctx);
/* Forget every key (each interval). */
void agg_reset(struct agg *a);

#endif
