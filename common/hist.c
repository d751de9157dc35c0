// SPDX-License-Identifier: GPL-2.0-only
#include "hist.h"

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

void hist_log2_print(FILE *f, const struct hist_log2 *h, const char *unit, const char *what)
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
	if (h->neg) {
		int bar = (int)((h->neg * BAR_WIDTH + max - 1) / max);
		fprintf(f, "%10s -> %-10s : %-8llu |%.*s%*s|\n", "-inf", "0",
			(unsigned long long)h->neg, bar, "######################################",
			BAR_WIDTH - bar, "");
	}
	for (int k = 0; k <= last; k++) {
		uint64_t lo, hi;
		hist_log2_bounds(k, &lo, &hi);
		int bar = (int)((h->slot[k] * BAR_WIDTH + max - 1) / max);
		fprintf(f, "%10llu -> %-10llu : %-8llu |%.*s%*s|\n", (unsigned long long)lo,
			(unsigned long long)hi, (unsigned long long)h->slot[k], bar,
			"######################################", BAR_WIDTH - bar, "");
	}
}

void hist_log2_json(FILE *f, const struct hist_log2 *h)
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
		hist_log2_bounds(k, &lo, &hi);
		fprintf(f, "%s{\"low\":%llu,\"high\":%llu,\"count\":%llu}", first ? "" : ",",
			(unsigned long long)lo, (unsigned long long)hi,
			(unsigned long long)h->slot[k]);
		first = 0;
	}
	putc(']', f);
}
