/* SPDX-License-Identifier: GPL-2.0-only */
/* hist: log2 histograms, printed alike by every tool. */
#ifndef FTT_HIST_H
#define FTT_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SLOTS 65 /* slot 0: value 0; slot k: [2^(k-1), 2^k) */

struct hist_log2 {
	uint64_t slot[HIST_SLOTS];
	uint64_t neg; /* values below 0 (signed fields: errors returned, ...) */
	uint64_t total;
};

static inline void hist_log2_add(struct hist_log2 *h, uint64_t v)
{
	int k = v ? 64 - __builtin_clzll(v) : 0;
	h->slot[k]++;
	h->total++;
}

/* A value of a signed field: below 0 it is counted apart, in its own first row. */
static inline void hist_log2_add_signed(struct hist_log2 *h, int64_t v)
{
	if (v < 0) {
		h->neg++;
		h->total++;
	} else {
		hist_log2_add(h, (uint64_t)v);
	}
}

void hist_log2_reset(struct hist_log2 *h);
/* Low and high bound of a slot: [lo, hi). */
void hist_log2_bounds(int k, uint64_t *lo, uint64_t *hi);

/*
 * perf-tools' iolatency layout: unit names the value ("us", "ms"), what names the count ("I/O").
 * Rows from the first slot up to the last non-empty one; nothing but the header when empty.
 * Negative values, if any, come first as a row "-inf -> 0".
 */
void hist_log2_print(FILE *f, const struct hist_log2 *h, const char *unit, const char *what);
/* The non-empty slots as a JSON array: [{"low":1,"high":2,"count":5},...]; negative values,
 * if any, first as {"low":null,"high":0,...}. */
void hist_log2_json(FILE *f, const struct hist_log2 *h);

#endif
