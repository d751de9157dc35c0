/* SPDX-License-Identifier: GPL-2.0-only */
/* hist: log2 histograms, printed alike by every tool; and the same slots binned otherwise
 * (tpoint --hist with --power or --linear, struct hist_bins). */
#ifndef FTT_HIST_H
#define FTT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_SLOTS 65 /* slot 0: value 0; slot k: [2^(k-1), 2^k) */

struct hist_log2 {
	uint64_t slot[HIST_SLOTS];
	uint64_t neg; /* values below 0 (signed fields: errors returned, ...) */
	uint64_t total;
};

/* Counts v in its log2 slot of h (slot 0: 0; slot k: [2^(k-1), 2^k)). */
static inline void hist_log2_add(struct hist_log2 *h, uint64_t v)
{
	int k = v ? 64 - __builtin_clzll(v) : 0;
	h->slot[k]++;
	h->total++;
}

/* Counts v, a value of a signed field, in h: below 0 it is counted apart (h->neg), in its own
 * first row. */
static inline void hist_log2_add_signed(struct hist_log2 *h, int64_t v)
{
	if (v < 0) {
		h->neg++;
		h->total++;
	} else {
		hist_log2_add(h, (uint64_t)v);
	}
}

/*
 * How values go to the slots of a struct hist_log2. LOG2: as above. POWER of n (2 to 2^32):
 * slot 0 holds 0, slot k [n^(k-1), n^k), the last slot used up to 2^64 - 1 (n 2 is log2).
 * LINEAR of width n (1 to 2^57): slot k holds [k*n, (k+1)*n) for k below 64, slot 64 every
 * value from 64*n on. Below 0 (signed fields), .neg, whatever the bins.
 */
enum hist_kind { HIST_LOG2, HIST_POWER, HIST_LINEAR };
struct hist_bins {
	enum hist_kind kind;
	uint64_t n;
	int shift; /* POWER of 2^shift: log2(n); 0 otherwise */
};
#define HIST_POWER_MAX (1ULL << 32)
#define HIST_LINEAR_MAX (1ULL << 57)
#define HIST_LINEAR_SLOTS 64 /* slots of width n; the 65th holds the rest */

/* Sets b to the bins of kind for n (n ignored for LOG2). Returns 0, or -1 when n is out of
 * range (b is written all the same). */
int hist_bins_set(struct hist_bins *b, enum hist_kind kind, uint64_t n);
/* Finds the slot of v (not negative) in the bins b. Returns its index, 0 to HIST_SLOTS - 1. */
int hist_bins_slot(const struct hist_bins *b, uint64_t v);
/* Fills in lo and hi, the low and high bound of slot k of b: [lo, hi) (b NULL: log2 slots);
 * hi is UINT64_MAX where 2^64 or more. */
void hist_bins_bounds(const struct hist_bins *b, int k, uint64_t *lo, uint64_t *hi);
/* Add to h what log2 (counted in log2 slots) holds, in the bins of b: a POWER of 2^m only
 * (each of its slots is m log2 slots), or LOG2. */
void hist_bins_from_log2(struct hist_log2 *h, const struct hist_bins *b,
			 const struct hist_log2 *log2);
/* Writes the name of the bins b for a banner into buf (len bytes, cut to fit): "log2",
 * "power-of-10", "linear 100-wide". */
void hist_bins_name(const struct hist_bins *b, char *buf, size_t len);

/* Counts v in its slot of the bins b in h. */
static inline void hist_bins_add(struct hist_log2 *h, const struct hist_bins *b, uint64_t v)
{
	if (b->kind == HIST_LOG2)
		hist_log2_add(h, v);
	else {
		h->slot[hist_bins_slot(b, v)]++;
		h->total++;
	}
}

/* Counts v, a value of a signed field, in h in b's slots, below 0 in its own first row. */
static inline void hist_bins_add_signed(struct hist_log2 *h, const struct hist_bins *b, int64_t v)
{
	if (v < 0) {
		h->neg++;
		h->total++;
	} else {
		hist_bins_add(h, b, (uint64_t)v);
	}
}

/* Empties h: every slot, neg and total back to 0. */
void hist_log2_reset(struct hist_log2 *h);
/* Fills in lo and hi, the low and high bound of log2 slot k: [lo, hi) (slot 64's hi:
 * UINT64_MAX). */
void hist_log2_bounds(int k, uint64_t *lo, uint64_t *hi);

/*
 * Prints h to f in perf-tools' iolatency layout: unit names the value ("us", "ms"), what names
 * the count ("I/O"). Rows from the first slot up to the last non-empty one; when empty, the
 * header and a line "(no what)" ("(no events)" when what is "count"). Negative values, if
 * any, come first as a row "-inf -> 0".
 */
void hist_log2_print(FILE *f, const struct hist_log2 *h, const char *unit, const char *what);
/* The same with the slots of b (NULL: log2): h printed to f, unit and what as above. */
void hist_bins_print(FILE *f, const struct hist_log2 *h, const struct hist_bins *b,
		     const char *unit, const char *what);
/* Prints the non-empty slots of h to f as a JSON array: [{"low":1,"high":2,"count":5},...];
 * negative values, if any, first as {"low":null,"high":0,...}. */
void hist_log2_json(FILE *f, const struct hist_log2 *h);
/* The same with the slots of b (NULL: log2): h printed to f. */
void hist_bins_json(FILE *f, const struct hist_log2 *h, const struct hist_bins *b);

#endif
