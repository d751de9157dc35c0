// SPDX-License-Identifier: GPL-2.0-only
#include "span.h"

#include <stdio.h>
#include <string.h>

int span_init(struct span *s, size_t entries, size_t data_size, enum span_loss loss,
	      span_done_fn done, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->data_size = data_size;
	s->loss = loss;
	s->done = done;
	s->ctx = ctx;
	return pair_init(&s->starts, entries, sizeof(struct span_start) + data_size);
}

void span_free(struct span *s)
{
	pair_free(&s->starts);
}

static void *fill(struct span *s, struct span_start *st, uint64_t ts, int cpu, int kind)
{
	memset(st, 0, sizeof(*st) + s->data_size);
	st->ts = ts;
	st->cpu = cpu;
	st->kind = kind;
	return span_data(st);
}

void *span_begin(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind)
{
	if (pair_get(&s->starts, k1, k2))
		s->replaced++;
	return fill(s, pair_put(&s->starts, k1, k2), ts, cpu, kind);
}

void *span_begin_once(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind,
		      bool *fresh)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	*fresh = !st;
	if (st)
		return span_data(st);
	return fill(s, pair_put(&s->starts, k1, k2), ts, cpu, kind);
}

struct span_start *span_find(struct span *s, uint64_t k1, uint64_t k2)
{
	return pair_get(&s->starts, k1, k2);
}

int span_end(struct span *s, const struct tep_record *rec, uint64_t k1, uint64_t k2, uint64_t ts)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	if (!st) {
		s->unpaired++;
		return 0;
	}
	s->paired++;
	s->done(rec, st, ts > st->ts ? ts - st->ts : 0, span_data(st), s->ctx);
	pair_del(&s->starts, st);
	return 1;
}

struct span_start *span_move(struct span *s, uint64_t k1, uint64_t k2, uint64_t nk1, uint64_t nk2)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	if (!st || (k1 == nk1 && k2 == nk2))
		return st;
	struct span_start *n = pair_put(&s->starts, nk1, nk2);
	/* The put may have evicted the start being moved (same set, full): look again. */
	if ((st = pair_get(&s->starts, k1, k2))) {
		memcpy(n, st, sizeof(*st) + s->data_size);
		pair_del(&s->starts, st);
		return n;
	}
	pair_del(&s->starts, n);
	return NULL;
}

void span_drop(struct span *s, uint64_t k1, uint64_t k2)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	if (st)
		pair_del(&s->starts, st);
}

/* SPAN_LOSS_CPU: the starts of the CPU that lost events. */
static bool of_cpu(void *value, void *ctx)
{
	return ((struct span_start *)value)->cpu == *(int *)ctx;
}

void span_lost(int cpu, long long n, void *ctx)
{
	struct span *s = ctx;
	(void)n;
	s->losses++;
	if (s->loss == SPAN_LOSS_CPU && cpu >= 0)
		s->cleared += pair_del_if(&s->starts, of_cpu, &cpu);
	else
		s->cleared += pair_del_if(&s->starts, NULL, NULL);
}

void span_report(const struct span *s, const char *tool, const char *what)
{
	if (!s->unpaired && !s->cleared && !s->starts.evicted)
		return;
	char why[256];
	size_t n = (size_t)snprintf(why, sizeof(why), "begun before tracing");
	if (s->cleared)
		n += (size_t)snprintf(why + n, sizeof(why) - n,
				      ", or after lost events (%llu starts forgotten then)",
				      (unsigned long long)s->cleared);
	if (s->starts.evicted)
		snprintf(why + n, sizeof(why) - n, ", or evicted from a full table (%llu)",
			 (unsigned long long)s->starts.evicted);
	fprintf(stderr, "%s: %llu of %llu %s found no start (%s): not counted\n", tool,
		(unsigned long long)s->unpaired, (unsigned long long)(s->unpaired + s->paired),
		what, why);
}
