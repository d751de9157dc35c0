// SPDX-License-Identifier: GPL-2.0-only
#include "stream/swstack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct swstack_sample {
	uint64_t time;
	int n;
	uint64_t u[];
};

/* A thread's samples, oldest first, from s[first] to s[n - 1]. */
struct swstack_q {
	uint32_t tid;
	size_t first, n, cap;
	struct swstack_sample **s;
	struct swstack_q *next;
};

int swstack_init(struct swstack *w, unsigned max_stack)
{
	memset(w, 0, sizeof(*w));
	w->max_stack = max_stack ? max_stack : PERFEV_MAX_STACK;
	w->buckets = calloc(SWSTACK_BUCKETS, sizeof(*w->buckets));
	return w->buckets ? 0 : -1;
}

static struct swstack_q *queue(struct swstack *w, uint32_t tid, bool make)
{
	struct swstack_q **b = &w->buckets[(tid * 2654435761u) % SWSTACK_BUCKETS];
	for (struct swstack_q *q = *b; q; q = q->next)
		if (q->tid == tid)
			return q;
	if (!make)
		return NULL;
	struct swstack_q *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->tid = tid;
	q->next = *b;
	*b = q;
	return q;
}

/* Forget the samples before s[at]. */
static void drop_before(struct swstack_q *q, size_t at)
{
	for (size_t i = q->first; i < at; i++)
		free(q->s[i]);
	q->first = at;
	if (q->first == q->n)
		q->first = q->n = 0;
}

int swstack_add(struct swstack *w, uint32_t tid, uint64_t time, const uint64_t *u, int n)
{
	struct swstack_q *q = queue(w, tid, true);
	if (!q)
		return -1;
	if (q->n == q->cap) {
		if (q->first) { /* room at the front: moved down */
			memmove(q->s, q->s + q->first, (q->n - q->first) * sizeof(*q->s));
			q->n -= q->first;
			q->first = 0;
		} else {
			size_t cap = q->cap ? q->cap * 2 : 8;
			struct swstack_sample **m = realloc(q->s, cap * sizeof(*m));
			if (!m)
				return -1;
			q->s = m;
			q->cap = cap;
		}
	}
	struct swstack_sample *s = malloc(sizeof(*s) + (size_t)n * sizeof(*u));
	if (!s)
		return -1;
	s->time = time;
	s->n = n;
	memcpy(s->u, u, (size_t)n * sizeof(*u));
	/* The rings are per CPU and read one after the other: a thread that moved between
	 * CPUs has its samples out of order; put in place from the end (usually at it). */
	size_t i = q->n;
	while (i > q->first && q->s[i - 1]->time > time) {
		q->s[i] = q->s[i - 1];
		i--;
	}
	q->s[i] = s;
	q->n++;
	w->samples++;
	return 0;
}

int swstack_take(struct swstack *w, uint32_t tid, uint64_t out_ns, uint64_t in_ns, uint64_t *u,
		 int max)
{
	struct swstack_q *q = queue(w, tid, false);
	uint64_t switched = out_ns;
	if (w->skew) { /* the switch's times on the samples' clock, as learned */
		out_ns = (uint64_t)((int64_t)out_ns + w->skew);
		in_ns = (uint64_t)((int64_t)in_ns + w->skew);
	}
	uint64_t from = out_ns > SWSTACK_SLACK_NS ? out_ns - SWSTACK_SLACK_NS : 0;
	size_t i = q ? q->first : 0;
	while (q && i < q->n && q->s[i]->time < from)
		i++;
	if (q) { /* older ones: switches not paired by the caller */
		w->unused += i - q->first;
		drop_before(q, i);
	}
	if (!q || q->first == q->n || q->s[q->first]->time >= in_ns) {
		w->missing++;
		return -1;
	}
	struct swstack_sample *s = q->s[q->first];
	int n = s->n < max ? s->n : max;
	memcpy(u, s->u, (size_t)n * sizeof(*u));
	/* The error moves slowly (the mapping is synced at intervals): a quarter of each
	 * match's difference, from matches within twice the slack of it (a switch whose own
	 * sample was lost takes the next one, perhaps a second later: not a measure). */
	int64_t d = (int64_t)(s->time - switched) - w->skew;
	if (w->learn && d <= 2 * (int64_t)SWSTACK_SLACK_NS && d >= -2 * (int64_t)SWSTACK_SLACK_NS)
		w->skew += d / 4;
	drop_before(q, q->first + 1);
	w->matched++;
	return n;
}

void swstack_trim(struct swstack *w, uint64_t horizon_ns)
{
	for (size_t b = 0; b < SWSTACK_BUCKETS; b++)
		for (struct swstack_q *q = w->buckets[b]; q; q = q->next) {
			size_t i = q->first;
			while (i + 1 < q->n && q->s[i + 1]->time < horizon_ns)
				i++;
			w->unused += i - q->first;
			drop_before(q, i);
		}
}

/* --- the kernel's side ---------------------------------------------------------------------- */

static void on_record(const struct perf_event_header *h, const void *body, size_t len, void *ctx)
{
	struct swstack *w = ctx;
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	struct perfev_sample s;
	uint64_t k[1], u[PERFEV_MAX_STACK];
	int nk, nu;
	if (perfev_sample(body, len, w->pe.sample_type, &s)) {
		w->bad++;
		return;
	}
	if (s.tid == 0)
		return; /* the idle task */
	perfev_chain_split(s.chain, s.nr, k, &nk, 0, u, &nu, PERFEV_MAX_STACK);
	if (swstack_add(w, s.tid, s.time, u, nu))
		w->bad++;
}

int swstack_open(struct swstack *w, pid_t pid, pid_t tid, bool mono, char *why, size_t len)
{
	unsigned kmax = perfev_max_stack();
	if (swstack_init(w, kmax < PERFEV_MAX_STACK ? kmax : PERFEV_MAX_STACK)) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.sample_period = 1;
	a.sample_type =
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
	/* The sample is taken with the kernel's registers at the switch: exclude_kernel would
	 * drop every one. Only the user part of the chain is walked. */
	a.exclude_callchain_kernel = 1;
	a.sample_max_stack = (uint16_t)w->max_stack;
	a.disabled = 1;
	a.watermark = 1;
	a.wakeup_watermark = 65536; /* the driver's reader drains on its own wake-ups */
	if (mono) {
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
	}
	pid_t who = tid > 0 ? tid : pid > 0 ? pid : -1;
	a.inherit = tid <= 0 && pid > 0; /* the process's threads made later */
	/* 4 MiB per CPU: a CPU switching 70,000 times a second (a pipe's ping-pong) with
	 * short stacks wrote more than 1 MiB between two drains of a busy reader (lost). A
	 * user limited by perf_event_mlock_kb: 512 KiB. */
	int ret = perfev_open(&w->pe, &a, who, -1, -1, 1024, why, len);
	if (ret) {
		perfev_close(&w->pe);
		ret = perfev_open(&w->pe, &a, who, -1, -1, 128, why, len);
	}
	if (!ret && a.inherit && perfev_add_threads(&w->pe, &a, who, why, len) < 0)
		ret = -1;
	if (!ret)
		ret = perfev_enable(&w->pe, why, len);
	if (ret) {
		perfev_close(&w->pe);
		return -1;
	}
	w->open = true;
	return 0;
}

void swstack_drain(struct swstack *w)
{
	if (w->open)
		perfev_drain(&w->pe, on_record, w);
}

void swstack_disable(struct swstack *w)
{
	if (w->open)
		perfev_disable(&w->pe);
}

void swstack_report(const struct swstack *w, const char *tool)
{
	perfev_report(&w->pe, tool);
	if (w->missing)
		fprintf(stderr,
			"%s: %llu of %llu times off the CPU without their user stack sample "
			"(%s): no user stack\n",
			tool, (unsigned long long)w->missing,
			(unsigned long long)(w->missing + w->matched),
			w->pe.lost ? "samples lost in a full ring" :
			w->learn   ? "no sample of that switch read, or none within 20 us of it on "
				     "the trace clock as mapped to CLOCK_MONOTONIC" :
				     "no sample of that switch read");
	if (w->bad)
		fprintf(stderr, "%s: %llu context-switch samples malformed or not stored\n", tool,
			(unsigned long long)w->bad);
}

void swstack_free(struct swstack *w)
{
	if (w->open)
		perfev_close(&w->pe);
	w->open = false;
	for (size_t b = 0; w->buckets && b < SWSTACK_BUCKETS; b++)
		for (struct swstack_q *q = w->buckets[b], *next; q; q = next) {
			next = q->next;
			drop_before(q, q->n);
			free(q->s);
			free(q);
		}
	free(w->buckets);
	w->buckets = NULL;
}
