/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * span: two events of one thing paired, its start and its end, by a key: a thread (a system
 * call's entry and exit; a wake-up and the switch that runs the task), a CPU (an interrupt
 * handler's entry and exit), a field (a request's device and sector). The end's handler gets
 * the start's time, the tool's data kept with it, and the time between.
 *
 * What a loss of events does is explicit, because a start whose end was lost must never be
 * paired with a later end (the result would be wrong, not missing):
 *   SPAN_LOSS_ALL  every start is forgotten (an end may come on another CPU than its start:
 *                  wake-up to switch, syscall entry to exit after a migration);
 *   SPAN_LOSS_CPU  only the starts recorded on that CPU (start and end always on the same
 *                  CPU: an interrupt handler's entry and exit).
 * Counted, and said at the end by span_report: ends without their start (began before
 * tracing, or after a loss), starts forgotten at losses, starts evicted from a full table,
 * starts replaced by a newer start of the same key before their end.
 */
#ifndef FTT_SPAN_H
#define FTT_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pair.h"

struct tep_record;

enum span_loss { SPAN_LOSS_ALL, SPAN_LOSS_CPU };

/* A start in progress; the tool's data_size bytes follow it (span_data). */
struct span_start {
	uint64_t ts;
	int cpu;
	int kind; /* the tool's: which start event (wake-up, new task, preempted) */
};

/* A pair made: the end's record, the start, the time between (ns, 0 when the end's time
 * is before the start's), the start's data. */
typedef void (*span_done_fn)(const struct tep_record *end, const struct span_start *start,
			     uint64_t delta_ns, void *data, void *ctx);

struct span {
	struct pair_table starts;
	size_t data_size;
	enum span_loss loss;
	span_done_fn done;
	void *ctx;
	uint64_t paired;   /* ends paired with their start */
	uint64_t unpaired; /* ends without a start */
	uint64_t cleared;  /* starts forgotten at losses */
	uint64_t replaced; /* starts replaced by a newer one of the same key */
	uint64_t losses;   /* loss reports received */
};

/* Room for about `entries` starts in progress at once (a full set evicts its oldest). */
int span_init(struct span *s, size_t entries, size_t data_size, enum span_loss loss,
	      span_done_fn done, void *ctx);
void span_free(struct span *s);

/* A start of (k1, k2) at ts on cpu: its data, zeroed. One already there is replaced
 * (counted: its end was lost, or the tool's events start twice, as two wake-ups). */
void *span_begin(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind);
/* Keep the start there if there is one (the first wake-up counts), else begin one; *fresh
 * says which. */
void *span_begin_once(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind,
		      bool *fresh);
/* The start of (k1, k2), or NULL. */
struct span_start *span_find(struct span *s, uint64_t k1, uint64_t k2);
/* The end of (k1, k2) at ts: done() with its start, which is then forgotten; 1 when paired,
 * 0 when there was no start (counted). */
int span_end(struct span *s, const struct tep_record *rec, uint64_t k1, uint64_t k2, uint64_t ts);
/* The start of (k1, k2) is now (nk1, nk2)'s (an exec by a thread other than the leader: the
 * kernel gives it the leader's ID); its start there, or NULL when there is none. One that
 * (nk1, nk2) had is replaced. */
struct span_start *span_move(struct span *s, uint64_t k1, uint64_t k2, uint64_t nk1, uint64_t nk2);
/* Forget the start of (k1, k2) without an end (the thing went away). */
void span_drop(struct span *s, uint64_t k1, uint64_t k2);
/* The reader's lost-event listener: reader_on_lost(r, span_lost, s). */
void span_lost(int cpu, long long n, void *ctx);

/* One line on stderr, when anything is to be said: how many ends found no start, and why a
 * start can be missing (what: the ends' name, "switches"). Nothing when all were paired. */
void span_report(const struct span *s, const char *tool, const char *what);

static inline void *span_data(struct span_start *st)
{
	return st + 1;
}

#endif
