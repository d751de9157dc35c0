/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clockmap: the times of an instance that keeps its own trace clock ("local": sched_clock,
 * the same on every CPU where the platform says so) turned into CLOCK_MONOTONIC, so that a
 * run need not switch the instance to "mono" (a switch resets the buffers and waits for an
 * RCU grace period under the kernel's trace_types_lock: 19-25 ms each on 6.18 when idle).
 *
 * The two clocks are paired by reading the clock's "now ts" from a CPU's stats file (in
 * microseconds) between two clock_gettime(CLOCK_MONOTONIC). They run at rates a few parts
 * per million apart (NTP slews CLOCK_MONOTONIC, not sched_clock), so they are paired again
 * about every second and the map follows: it is a chain of straight pieces, each going from
 * where the last one was at the new pairing at the rate measured between the last two
 * pairings, plus what makes up the difference found at the new one over the next second
 * (within 0.1 % of 1 in all). Being continuous and rising, the
 * map keeps the order of the times it is given: a merge of CPUs by the local clock is the
 * same merge after it. A time read within a few microseconds of the pairing's error.
 */
#ifndef FTT_CLOCKMAP_H
#define FTT_CLOCKMAP_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCKMAP_PIECES 16

struct clockmap_piece {
	uint64_t raw, mono; /* where the piece starts, in the two clocks */
	double rate_err;    /* its rate less 1 (mono per raw ns) */
};

struct clockmap {
	char *path; /* the stats file read for "now ts", or NULL */
	struct clockmap_piece piece[CLOCKMAP_PIECES];
	int n, last;	      /* pieces kept; the newest's index */
	uint64_t synced;      /* CLOCK_MONOTONIC of the last pairing */
	uint64_t paired_mono; /* the last pairing's measured time (its raw: the newest piece's) */
	uint64_t worst_err;   /* the largest |measured - mapped| at a pairing, ns */
	unsigned long pairs;  /* pairings made */
};

/* Clear m, keep a copy of stats_path, the stats file's path (per_cpu/cpuN/stats of an
 * instance), and pair the clocks once. Returns 0, or -1 with errno (EINVAL: no "now ts" line,
 * as kernels that lack it; ENOMEM; that of open() or read()) with nothing to free. Frees:
 * clockmap_close(m). */
int clockmap_open(struct clockmap *m, const char *stats_path);
/* Free the path that m keeps; its pieces stay, to be read, and clockmap_sync() does nothing
 * after it. */
void clockmap_close(struct clockmap *m);

/* Pair the clocks of m again when a second has passed since the last pairing (now: the
 * caller's CLOCK_MONOTONIC). Returns 0 (when it was not time yet, or m has no path, too), or -1
 * with errno when the file could not be read (the map goes on as it was; the next try is a
 * second later). */
int clockmap_sync(struct clockmap *m, uint64_t now);

/* A pairing from outside (the tests) for m: raw at mono, as if just read. One not after the
 * newest piece's start is ignored; one 1 s or more off the map starts a piece from it, at a
 * rate of 1, and the map is not continuous there. */
void clockmap_pair(struct clockmap *m, uint64_t raw, uint64_t mono);

/* The CLOCK_MONOTONIC of raw, a time of the instance's clock, by the map m. Returns it in ns
 * (raw itself before the first pairing; 0 for a time that maps before 0). */
uint64_t clockmap_mono(const struct clockmap *m, uint64_t raw);
/* The reverse: the time of the instance's clock of mono, a CLOCK_MONOTONIC, by the map m.
 * Returns it in ns (mono itself before the first pairing; 0 for one that maps before 0). */
uint64_t clockmap_raw(const struct clockmap *m, uint64_t mono);

/* Returns CLOCK_MONOTONIC now, in ns (the reader's time base too: reader_now). */
uint64_t clockmap_now(void);

/* Read the "now ts" of text, a stats file's text. Returns it in ns (its whole microseconds
 * and 500 ns: the true time is within the next one), or 0 when it has none. */
uint64_t clockmap_parse_now(const char *text);

#endif
