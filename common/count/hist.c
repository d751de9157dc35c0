// SPDX-License-Identifier: GPL-2.0-only
#include "count/hist.h"
#include "base/out.h"

#include <string.h>

#define BAR_WIDTH 38

void hist_log2_reset(struct hist_log2 *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_log2_bounds(int k, uint64_t *lo, uint64_t *hi)
{
	*lo = k ? 1ULL << (k - 1) : 0;
	*hi = k == 0 ? 1 : k == 64 ? UINT64_MAX : 1ULL << k;
}

int hist_bins_set(struct hist_bins *b, enum hist_kind kind, uint64_t n)
{
	b->kind = kind;
	b->n = n;
	b->shift = 0;
	if (kind == HIST_POWER) {
		if (n < 2 || n > HIST_POWER_MAX)
			return -1;
		if (!(n & (n - 1)))
			b->shift = __builtin_ctzll(n);
	} else if (kind == HIST_LINEAR) {
		if (n < 1 || n > HIST_LINEAR_MAX)
			return -1;
	}
	return 0;
}

int hist_bins_slot(const struct hist_bins *b, uint64_t v)
{
	if (b->kind == HIST_LINEAR)
		return v / b->n < HIST_LINEAR_SLOTS ? (int)(v / b->n) : HIST_LINEAR_SLOTS;
	if (!v)
		return 0;
	int log2 = 64 - __builtin_clzll(v);
	if (b->kind == HIST_LOG2)
		return log2;
	if (b->shift) /* [2^(m(k-1)), 2^(mk)): log2 slots m(k-1)+1 .. mk */
		return (log2 + b->shift - 1) / b->shift;
	int k = 1;
	for (uint64_t p = 1; p <= v / b->n; p *= b->n)
		k++;
	return k;
}

void hist_bins_bounds(const struct hist_bins *b, int k, uint64_t *lo, uint64_t *hi)
{
	if (!b || b->kind == HIST_LOG2) {
		hist_log2_bounds(k, lo, hi);
	} else if (b->kind == HIST_LINEAR) {
		*lo = (uint64_t)k * b->n;
		*hi = k < HIST_LINEAR_SLOTS ? *lo + b->n : UINT64_MAX;
	} else if (!k) {
		*lo = 0;
		*hi = 1;
	} else {
		uint64_t p = 1;
		for (int i = 1; i < k; i++)
			p *= b->n;
		*lo = p;
		*hi = p > UINT64_MAX / b->n ? UINT64_MAX : p * b->n;
	}
}

void hist_bins_from_log2(struct hist_log2 *h, const struct hist_bins *b,
			 const struct hist_log2 *log2)
{
	int m = b->kind == HIST_POWER ? b->shift : 1;
	h->neg += log2->neg;
	h->total += log2->total;
	for (int j = 0; j < HIST_SLOTS; j++)
		h->slot[(j + m - 1) / m] += log2->slot[j];
}

void hist_bins_name(const struct hist_bins *b, char *buf, size_t len)
{
	if (b->kind == HIST_POWER)
		snprintf(buf, len, "power-of-%llu", (unsigned long long)b->n);
	else if (b->kind == HIST_LINEAR)
		snprintf(buf, len, "linear %llu-wide", (unsigned long long)b->n);
	else
		snprintf(buf, len, "log2");
}

void hist_log2_print(FILE *f, const struct hist_log2 *h, const char *unit, const char *what)
{
	hist_bins_print(f, h, NULL, unit, what);
}

void hist_bins_print(FILE *f, const struct hist_log2 *h, const struct hist_bins *b,
		     const char *unit, const char *what)
{
	int last = -1;
	uint64_t max = h->neg;
	for (int k = 0; k < HIST_SLOTS; k++)
		if (h->slot[k]) {
			last = k;
			if (h->slot[k] > max)
				max = h->slot[k];
		}
	char lo_hdr[16], hi_hdr[16];
	snprintf(lo_hdr, sizeof(lo_hdr), ">=(%s)", unit);
	snprintf(hi_hdr, sizeof(hi_hdr), "<(%s)", unit);
	fprintf(f, "%10s .. %-10s : %-8s |%-*s|\n", lo_hdr, hi_hdr, what, BAR_WIDTH,
		"Distribution");
	/* Nothing in it: said, as a summary with no rows says it (out_none); "count" is a
	 * column's name, of events. */
	if (last < 0 && !h->neg)
		out_none(f, strcmp(what, "count") ? what : "events");
	if (h->neg) {
		int bar = (int)((h->neg * BAR_WIDTH + max - 1) / max);
		fprintf(f, "%10s -> %-10s : %-8llu |%.*s%*s|\n", "-inf", "0",
			(unsigned long long)h->neg, bar, "######################################",
			BAR_WIDTH - bar, "");
	}
	for (int k = 0; k <= last; k++) {
		uint64_t lo, hi;
		hist_bins_bounds(b, k, &lo, &hi);
		int bar = (int)((h->slot[k] * BAR_WIDTH + max - 1) / max);
		fprintf(f, "%10llu -> %-10llu : %-8llu |%.*s%*s|\n", (unsigned long long)lo,
			(unsigned long long)hi, (unsigned long long)h->slot[k], bar,
			"######################################", BAR_WIDTH - bar, "");
	}
}

void hist_log2_json(FILE *f, const struct hist_log2 *h)
{
	hist_bins_json(f, h, NULL);
}

void hist_bins_json(FILE *f, const struct hist_log2 *h, const struct hist_bins *b)
{
	int first = 1;
	putc('[', f);
	if (h->neg) {
		fprintf(f, "{\"low\":null,\"high\":0,\"count\":%llu}", (unsigned long long)h->neg);
		first = 0;
	}
	for (int k = 0; k < HIST_SLOTS; k++) {
		if (!h->slot[k])
			continue;
		uint64_t lo, hi;
		hist_bins_bounds(b, k, &lo, &hi);
		fprintf(f, "%s{\"low\":%llu,\"high\":%llu,\"count\":%llu}", first ? "" : ",",
			(unsigned long long)lo, (unsigned long long)hi,
			(unsigned long long)h->slot[k]);
		first = 0;
	}
	putc(']', f);
}
