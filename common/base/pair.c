// SPDX-License-Identifier: GPL-2.0-only
#include "base/pair.h"

#include <stdlib.h>
#include <string.h>

struct pair_head {
	uint64_t k1, k2, age; /* age 0: free */
};

static inline struct pair_head *slot(struct pair_table *t, uint32_t set, int way)
{
	return (struct pair_head *)(t->mem + ((size_t)set * PAIR_WAYS + way) * t->stride);
}

static inline uint32_t hash(const struct pair_table *t, uint64_t k1, uint64_t k2)
{
	uint64_t h = (k1 * 0x9e3779b97f4a7c15ULL) ^ (k2 + 0x632be59bd9b4e019ULL + (k1 << 6));
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (uint32_t)h & (t->nsets - 1);
}

int pair_init(struct pair_table *t, size_t entries, size_t value_size)
{
	memset(t, 0, sizeof(*t));
	t->nsets = 1;
	while ((size_t)t->nsets * PAIR_WAYS < entries)
		t->nsets <<= 1;
	t->value_size = value_size;
	t->stride = (sizeof(struct pair_head) + value_size + 7) & ~(size_t)7;
	t->mem = calloc((size_t)t->nsets * PAIR_WAYS, t->stride);
	return t->mem ? 0 : -1;
}

void pair_free(struct pair_table *t)
{
	free(t->mem);
	t->mem = NULL;
}

void *pair_get(struct pair_table *t, uint64_t k1, uint64_t k2)
{
	uint32_t set = hash(t, k1, k2);
	for (int w = 0; w < PAIR_WAYS; w++) {
		struct pair_head *h = slot(t, set, w);
		if (h->age && h->k1 == k1 && h->k2 == k2)
			return h + 1;
	}
	return NULL;
}

void *pair_put(struct pair_table *t, uint64_t k1, uint64_t k2)
{
	uint32_t set = hash(t, k1, k2);
	struct pair_head *victim = NULL;
	for (int w = 0; w < PAIR_WAYS; w++) {
		struct pair_head *h = slot(t, set, w);
		if (h->age && h->k1 == k1 && h->k2 == k2)
			return h + 1;
		if (!victim || (victim->age && (!h->age || h->age < victim->age)))
			victim = h;
	}
	if (victim->age)
		t->evicted++;
	victim->k1 = k1;
	victim->k2 = k2;
	victim->age = ++t->clock;
	memset(victim + 1, 0, t->value_size);
	return victim + 1;
}

void pair_del(struct pair_table *t, void *value)
{
	((struct pair_head *)value - 1)->age = 0;
}

void pair_clear(struct pair_table *t)
{
	memset(t->mem, 0, (size_t)t->nsets * PAIR_WAYS * t->stride);
}

size_t pair_del_if(struct pair_table *t, bool (*pred)(void *value, void *ctx), void *ctx)
{
	size_t n = 0;
	for (uint32_t set = 0; set < t->nsets; set++)
		for (int w = 0; w < PAIR_WAYS; w++) {
			struct pair_head *h = slot(t, set, w);
			if (h->age && (!pred || pred(h + 1, ctx))) {
				h->age = 0;
				n++;
			}
		}
	return n;
}
