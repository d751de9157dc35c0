// SPDX-License-Identifier: GPL-2.0-only
#include "base/agg.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over the key: keys are short (a few fields), and this is on the per-event path. */
static uint64_t hash(const unsigned char *k, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

int agg_init(struct agg *a, size_t keysize, size_t valsize)
{
	memset(a, 0, sizeof(*a));
	a->keysize = keysize;
	a->valoff = sizeof(uint64_t) + ALIGN8(keysize);
	a->stride = a->valoff + ALIGN8(valsize);
	a->cap = 256;
	a->slots = calloc(a->cap, a->stride);
	return a->slots ? 0 : -1;
}

void agg_free(struct agg *a)
{
	free(a->slots);
	a->slots = NULL;
}

static unsigned char *find(unsigned char *slots, size_t cap, size_t stride, size_t keysize,
			   const void *key)
{
	for (size_t i = hash(key, keysize) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		unsigned char *s = slots + i * stride;
		uint64_t count;
		memcpy(&count, s, sizeof(count));
		if (!count || !memcmp(s + sizeof(uint64_t), key, keysize))
			return s;
	}
}

static int grow(struct agg *a)
{
	size_t cap = a->cap * 2;
	unsigned char *n = calloc(cap, a->stride);
	if (!n)
		return -1;
	for (size_t i = 0; i < a->cap; i++) {
		unsigned char *s = a->slots + i * a->stride;
		uint64_t count;
		memcpy(&count, s, sizeof(count));
		if (count)
			memcpy(find(n, cap, a->stride, a->keysize, s + sizeof(uint64_t)), s,
			       a->stride);
	}
	free(a->slots);
	a->slots = n;
	a->cap = cap;
	return 0;
}

void *agg_add(struct agg *a, const void *key, uint64_t n)
{
	unsigned char *s = find(a->slots, a->cap, a->stride, a->keysize, key);
	uint64_t count;
	memcpy(&count, s, sizeof(count));
	if (!count) {
		if (2 * (a->used + 1) > a->cap) { /* at most half full: probes stay short */
			if (grow(a))
				return NULL;
			s = find(a->slots, a->cap, a->stride, a->keysize, key);
		}
		memcpy(s + sizeof(uint64_t), key, a->keysize);
		a->used++;
	}
	count += n;
	memcpy(s, &count, sizeof(count));
	return s + a->valoff;
}

static int by_count_desc(const void *x, const void *y)
{
	uint64_t a, b;
	memcpy(&a, *(unsigned char *const *)x, sizeof(a));
	memcpy(&b, *(unsigned char *const *)y, sizeof(b));
	return a < b ? 1 : a > b ? -1 : 0;
}

size_t agg_sorted(struct agg *a,
		  void (*fn)(const void *key, uint64_t count, const void *val, void *ctx),
		  void *ctx)
{
	unsigned char **order = malloc((a->used ? a->used : 1) * sizeof(*order));
	if (!order)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < a->cap; i++) {
		unsigned char *s = a->slots + i * a->stride;
		uint64_t count;
		memcpy(&count, s, sizeof(count));
		if (count)
			order[n++] = s;
	}
	qsort(order, n, sizeof(*order), by_count_desc);
	for (size_t i = 0; i < n; i++) {
		uint64_t count;
		memcpy(&count, order[i], sizeof(count));
		fn(order[i] + sizeof(uint64_t), count, order[i] + a->valoff, ctx);
	}
	free(order);
	return n;
}

void agg_reset(struct agg *a)
{
	memset(a->slots, 0, a->cap * a->stride);
	a->used = 0;
}
