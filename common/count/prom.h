/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prom: the counts of a run in Prometheus' text exposition format, for node_exporter's
 * textfile collector (--prom FILE). Each write is a whole file: FILE.tmp in FILE's folder,
 * then renamed over FILE, so a collector reads the last whole file or the one before, never
 * half of one. Counters and histograms count from the start of the run (a collector takes
 * rates of them); histograms in the base unit (seconds, bytes), cumulative, as the format
 * wants: the log2 slot [2^(k-1), 2^k) holds the values v / step (the tools count whole
 * nanoseconds in microsecond slots: step 1000), so its values are at most 2^k * step - 1,
 * its bucket's le, written exactly in the base unit ([512, 1024) us of whole ns:
 * le="0.001023999"; of whole bytes in KiB slots, [1, 2) KiB: le="2047").
 *
 * A write that fails (a full disk) is said once on stderr and the run exits 1; tracing and
 * counting go on, and FILE.tmp is removed. Names: ftrace_tools_<tool>_<what>_<unit>, counters
 * ending in _total.
 */
#ifndef FTT_PROM_H
#define FTT_PROM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "count/hist.h"

/* What a tool's integer values are in the base unit: v * mul / 10^decimals. */
struct prom_unit {
	uint64_t mul;
	int decimals;
};
#define PROM_NS ((struct prom_unit){1, 9})
#define PROM_US ((struct prom_unit){1, 6})
#define PROM_MS ((struct prom_unit){1, 3})
#define PROM_ONE ((struct prom_unit){1, 0})
#define PROM_KIB ((struct prom_unit){1024, 0})

struct prom {
	const char *path, *tool;
	char tmp[PATH_MAX + 8];
	FILE *f;
	bool failed; /* a write failed: said once, the run exits 1 */
};

/* At start: whether FILE.tmp can be made in the folder of path, FILE (made and removed again;
 * one left there is removed first); p filled in, path and tool (the name in messages) kept
 * in it, not copied. Returns 0, or -1 said on stderr ("tool: --prom: cannot write
 * 'FILE.tmp': why"; "'FILE' is not a file name", "'FILE' is a folder"). */
int prom_open(struct prom *p, const char *path, const char *tool);
/* A new file of p: FILE.tmp made (never through a link). Returns 0, or -1 (said once, p
 * failed) when it cannot be. */
int prom_begin(struct prom *p);
/* Writes a family into p's file: the HELP line of name (help, its backslashes and newlines
 * escaped) and its TYPE line (type: "counter", "gauge", "histogram"). Nothing without a file
 * begun; so for every writer below. */
void prom_family(struct prom *p, const char *name, const char *type, const char *help);
/* Writes a sample into p's file: name{labels} v; labels made by prom_labels, or NULL. */
void prom_uint(struct prom *p, const char *name, const char *labels, uint64_t v);
/* Writes a sample name{labels} of v, a value counted in unit u, into p's file in the base
 * unit, exactly. */
void prom_scaled(struct prom *p, const char *name, const char *labels, uint64_t v,
		 struct prom_unit u);
/* Writes the samples of histogram name{labels} into p's file from h, log2 slots of whole
 * values of unit u divided by step (values below 0 are in every bucket): _bucket{le} up to
 * the last slot not empty and +Inf, cumulative; _sum (sum, in sum_u) and _count. */
void prom_hist(struct prom *p, const char *name, const char *labels, const struct hist_log2 *h,
	       uint64_t step, struct prom_unit u, uint64_t sum, struct prom_unit sum_u);
/* The file of p is whole: FILE.tmp renamed over FILE. Returns 0, or -1 (said once, p failed,
 * FILE.tmp removed); -1 also, not said, when no file was begun. */
int prom_commit(struct prom *p);

/* Labels k1="v1",k2="v2" into buf (len bytes) from pairs of strings ending with NULL, the
 * values escaped as the format wants (\\, \", \n) and bytes that are not UTF-8 as U+FFFD.
 * The text is cut (at a whole pair) when buf is too small. Returns buf (the caller's; len 0:
 * left as it was). */
char *prom_labels(char *buf, size_t len, ...) __attribute__((sentinel));
/* Escapes s, a value of at most n bytes (not NUL-terminated when n long: a kernel's comm; it
 * ends at a NUL), into a label's quotes in buf (len bytes). Returns the bytes written,
 * SIZE_MAX when it did not fit whole (buf is NUL-terminated either way); len 0: 0, nothing
 * written. */
size_t prom_escape(char *buf, size_t len, const char *s, size_t n);

/* Counts kept from the start of a run, one series per label text (the tools count by
 * interval: what each interval counted is added here before it is printed and reset). */
struct prom_series {
	char *labels;
	uint64_t count, sum;
	uint64_t sum2; /* a second sum where a row has two (biotop: bytes and nanoseconds) */
	struct hist_log2 h;
};
struct prom_set {
	struct prom_series **s; /* in the order they came */
	size_t n, cap;
	size_t *index, icap; /* open addressing: position in s + 1, 0 empty */
};
/* The series of labels in set (made at zero; labels NULL: ""; set zeroed at first). Returns
 * it, owned by set and valid until prom_set_free, or NULL when memory ran out. */
struct prom_series *prom_series(struct prom_set *set, const char *labels);
/* Frees every series of set and its tables (set itself is the caller's), left empty. */
void prom_set_free(struct prom_set *set);
/* "TOOL: WARNING: N WHAT not counted in --prom's file (out of memory)" on stderr (tool,
 * what) when *lost, which is then 0: the rows an interval could not add to their series. */
void prom_say_lost(uint64_t *lost, const char *tool, const char *what);
/* h added to into. */
void prom_hist_add(struct hist_log2 *into, const struct hist_log2 *h);

#endif
