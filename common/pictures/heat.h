/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * heat: a latency heat map as one self-contained SVG. Time runs along x in columns of a
 * fixed width; the value (a latency) runs up y in rows, one per power of 2 (log) or of
 * equal height (linear); each cell's colour says how many values fell in it, on a log scale
 * so that a cell of one value has a colour of its own next to cells of 100,000. Each cell
 * names its time span, its value range and its count on mouse-over (an SVG <title>) and in
 * its data-count attribute. Fed either values (t, v) or histogram buckets (t, [lo, hi),
 * count) as iolatency and funclatency build them.
 */
#ifndef FTT_HEAT_H
#define FTT_HEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct heat;

struct heat_opts {
	const char *title; /* NULL: "Latency heat map" */
	const char *unit;  /* of the values ("ms"); NULL or "": none */
	const char *what;  /* what is counted, for the legend ("I/O"); NULL: "values" */
	double width;	   /* column width in seconds; 0: chosen from the time range */
	bool linear;	   /* rows of equal height (linear_rows of them) instead of log2 */
	int linear_rows;   /* 0: 40 */
	double max;	   /* linear: the top of the rows; 0: the largest value */
	bool clock;	   /* times are seconds since midnight: label them HH:MM:SS */
};

/* A new map, with nothing added. Returns it, or NULL when out of memory; heat_free frees it. */
struct heat *heat_new(void);
/* One value v at time t (seconds), added to h. Returns 0, or -1 (nothing added) when out of
 * memory, t or v is not finite, v is negative, or there are 2^64 - 1 values already. */
int heat_add(struct heat *h, double t, double v);
/* count values in [lo, hi) at time t, added to h: a bucket of a log2 histogram (lo a power of
 * 2 or 0, hi = 2 lo, or 1 when lo is 0). A count of 0 adds nothing. Once given such a bucket
 * (even of 0, even when -1 follows), h holds buckets: no linear rows. Returns 0, or -1 when
 * not such a bucket, out of memory, t is not finite, or the values would be more than
 * 2^64 - 1. */
int heat_add_bucket(struct heat *h, double t, double lo, double hi, uint64_t count);
/* Is [lo, hi) such a bucket? Returns true or false. */
bool heat_bucket_ok(double lo, double hi);
/* Returns how many values were added to h (a bucket adds its count). */
uint64_t heat_count(const struct heat *h);
/* Returns how many values of h were above the top of linear rows (heat_opts.max) in the last
 * picture written (0 before one): they are drawn in the top row, which says "and above". */
uint64_t heat_beyond(const struct heat *h);
/*
 * Write the SVG of h, drawn as o says, to out; the values of h are sorted by time. Returns 0
 * on success. Buckets cannot be cut into linear rows: -1 with why then (nothing written), as
 * when nothing was added or memory ran out. -2 with why when the columns must change: more
 * than 20,000 of them across the times (why says what width would fit), or times too far
 * apart for any width. why holds whylen bytes. A write error is left to out's error flag.
 */
int heat_svg(struct heat *h, const struct heat_opts *o, FILE *out, char *why, size_t whylen);
/* Free h and its values (NULL: nothing). */
void heat_free(struct heat *h);

#endif
