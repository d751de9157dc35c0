// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pairs of events (span.h) on ring-buffer pages recorded from Linux 6.18 (tests/fixtures/
 * sched-6.18, record-sched.sh): wake-ups paired with the switch that runs the task (keyed by
 * thread, start and end on different CPUs: merged in time order), hardirq entries with their
 * exits (keyed by CPU). The expected pairs come from the kernel's own text rendering of the
 * same pages (trace.txt), read here line by line; times there are in microseconds, so each
 * delay may differ by 1 us from the one computed from the raw nanoseconds.
 */
#include "helpers.h"

#include <event-parse.h>
#include <tracefs.h>

#include "reader.h"
#include "span.h"

#define SCHED FIXTURES "/sched-6.18"
#define MAXP 4096

static const char *const systems[] = {"sched", "irq", NULL};

struct run {
	struct tep_handle *tep;
	struct span s;
	struct tep_format_field *wpid, *npid, *irq_e, *irq_x;
	long long lose_at; /* a loss reported after this many events (-1: none) */
	int lose_cpu;
	long long events;
	int n;
	struct {
		int key;
		uint64_t ns;
	} pairs[MAXP];
};

static void done(const struct tep_record *end, const struct span_start *st, uint64_t ns, void *data,
		 void *ctx)
{
	struct run *r = ctx;
	(void)end;
	(void)st;
	if (r->n < MAXP) {
		r->pairs[r->n].key = *(int *)data;
		r->pairs[r->n++].ns = ns;
	}
}

static void maybe_lose(struct run *r, struct tep_record *rec)
{
	(void)rec;
	if (r->events++ == r->lose_at)
		span_lost(r->lose_cpu, -1, &r->s); /* what the reader does when a page says so */
}

static void on_wakeup(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	maybe_lose(r, rec);
	int pid = (int)reader_num(rec, r->wpid);
	*(int *)span_begin(&r->s, (uint64_t)pid, 0, rec->ts, rec->cpu, 0) = pid;
}

static void on_switch(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	maybe_lose(r, rec);
	span_end(&r->s, rec, (uint64_t)reader_num(rec, r->npid), 0, rec->ts);
}

static void on_irq_entry(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	maybe_lose(r, rec);
	*(int *)span_begin(&r->s, (uint64_t)rec->cpu, 0, rec->ts, rec->cpu, 0) =
		(int)reader_num(rec, r->irq_e);
}

static void on_irq_exit(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	maybe_lose(r, rec);
	span_end(&r->s, rec, (uint64_t)rec->cpu, 0, rec->ts);
}

static void pair_up(struct run *r, bool irqs, enum span_loss loss, long long lose_at, int cpu)
{
	memset(r, 0, sizeof(*r));
	r->lose_at = lose_at;
	r->lose_cpu = cpu;
	r->tep = fixture_tep(SCHED, systems);
	assert_non_null(r->tep);
	struct tep_event *w = tep_find_event_by_name(r->tep, "sched", "sched_wakeup");
	struct tep_event *sw = tep_find_event_by_name(r->tep, "sched", "sched_switch");
	struct tep_event *ie = tep_find_event_by_name(r->tep, "irq", "irq_handler_entry");
	struct tep_event *ix = tep_find_event_by_name(r->tep, "irq", "irq_handler_exit");
	assert_true(w && sw && ie && ix);
	r->wpid = tep_find_field(w, "pid");
	r->npid = tep_find_field(sw, "next_pid");
	r->irq_e = tep_find_field(ie, "irq");
	assert_int_equal(span_init(&r->s, 256, sizeof(int), loss, done, r), 0);
	struct reader rd;
	assert_int_equal(reader_open(&rd, r->tep, SCHED, 4096, true), 0);
	if (irqs) {
		assert_int_equal(reader_on(&rd, ie, on_irq_entry, r), 0);
		assert_int_equal(reader_on(&rd, ix, on_irq_exit, r), 0);
	} else {
		assert_int_equal(reader_on(&rd, w, on_wakeup, r), 0);
		assert_int_equal(reader_on(&rd, sw, on_switch, r), 0);
	}
	assert_int_equal(reader_on_lost(&rd, span_lost, &r->s), 0);
	assert_int_equal(reader_drain(&rd), 0);
	reader_close(&rd);
}

/* "  <task>-<pid>  [CPU] flags  SECS.USECS: event: fields" -> cpu, microseconds, event. */
static bool parse_line(const char *line, int *cpu, long long *us, const char **ev)
{
	const char *b = strstr(line, "] ");
	if (!b || line[0] == '#')
		return false;
	const char *open = b;
	while (open > line && *open != '[')
		open--;
	*cpu = atoi(open + 1);
	const char *colon = strstr(b, ": ");
	if (!colon)
		return false;
	const char *t = colon;
	while (t > b && t[-1] != ' ')
		t--;
	long long s = 0, u = 0;
	if (sscanf(t, "%lld.%lld", &s, &u) != 2)
		return false;
	*us = s * 1000000 + u;
	*ev = colon + 2;
	return true;
}

static int field(const char *ev, const char *name)
{
	const char *p = strstr(ev, name);
	return p ? atoi(p + strlen(name)) : -1;
}

/* The kernel's pairs, from its text, with a loss at the same place when asked. */
static int expected(bool irqs, enum span_loss loss, long long lose_at, int lose_cpu, int keys[MAXP],
		    long long us[MAXP])
{
	FILE *f = fopen(SCHED "/trace.txt", "r");
	assert_non_null(f);
	static long long start[1 << 16];
	static int startcpu[1 << 16];
	for (int i = 0; i < 1 << 16; i++)
		start[i] = -1;
	char line[1024];
	int n = 0;
	long long events = 0;
	while (fgets(line, sizeof(line), f)) {
		int cpu;
		long long t;
		const char *ev;
		if (!parse_line(line, &cpu, &t, &ev))
			continue;
		bool start_ev = irqs ? !strncmp(ev, "irq_handler_entry:", 18) :
				       !strncmp(ev, "sched_wakeup:", 13);
		bool end_ev = irqs ? !strncmp(ev, "irq_handler_exit:", 17) :
				     !strncmp(ev, "sched_switch:", 13);
		if (!start_ev && !end_ev)
			continue;
		if (events++ == lose_at)
			for (int i = 0; i < 1 << 16; i++)
				if (loss == SPAN_LOSS_ALL || startcpu[i] == lose_cpu)
					start[i] = -1;
		int key = irqs ? cpu : field(ev, start_ev ? " pid=" : " next_pid=");
		if (key < 0 || key >= 1 << 16)
			continue;
		if (start_ev) {
			start[key] = t;
			startcpu[key] = cpu;
			if (irqs)
				keys[n] = field(ev, "irq=");
		} else if (start[key] >= 0 && n < MAXP) {
			if (!irqs)
				keys[n] = key;
			us[n++] = t - start[key];
			start[key] = -1;
		}
	}
	fclose(f);
	return n;
}

static void compare(struct run *r, bool irqs, enum span_loss loss, long long lose_at, int cpu)
{
	static int keys[MAXP];
	static long long us[MAXP];
	int n = expected(irqs, loss, lose_at, cpu, keys, us);
	assert_true(n > 10);
	if (r->n != n)
		fail_msg("%d pairs, the kernel's text has %d", r->n, n);
	for (int i = 0; i < n; i++) {
		long long got = (long long)(r->pairs[i].ns / 1000);
		if (r->pairs[i].key != keys[i] || got < us[i] - 1 || got > us[i] + 1)
			fail_msg("pair %d: %d after %lld us, the kernel's text: %d after %lld us",
				 i, r->pairs[i].key, got, keys[i], us[i]);
	}
}

/* Wake-ups to the switch that runs the task, merged across CPUs: every pair the kernel's
 * text has, in its order, with its delay. */
static void test_wakeup_to_switch(void **state)
{
	(void)state;
	static struct run r;
	pair_up(&r, false, SPAN_LOSS_ALL, -1, 0);
	compare(&r, false, SPAN_LOSS_ALL, -1, 0);
	/* the switches to tasks whose wake-up came before the recording are counted */
	assert_true(r.s.unpaired > 0);
	assert_int_equal(r.s.paired, (uint64_t)r.n);
	span_free(&r.s);
	tep_free(r.tep);
}

/* A loss in the middle: every start then is forgotten (an end may be on another CPU), so
 * fewer pairs and never a wrong one; the count of forgotten starts is kept. */
static void test_loss_clears_all(void **state)
{
	(void)state;
	static struct run a, b;
	pair_up(&a, false, SPAN_LOSS_ALL, -1, 0);
	pair_up(&b, false, SPAN_LOSS_ALL, 400, 1);
	compare(&b, false, SPAN_LOSS_ALL, 400, 1);
	assert_true(b.s.cleared > 0);
	assert_true(b.n < a.n);
	assert_int_equal(b.s.losses, 1);
	span_free(&a.s);
	span_free(&b.s);
	tep_free(a.tep);
	tep_free(b.tep);
}

/* Interrupt handlers, keyed by CPU: a loss on one CPU forgets only that CPU's starts. */
static void test_irq_per_cpu(void **state)
{
	(void)state;
	static struct run a, b;
	pair_up(&a, true, SPAN_LOSS_CPU, -1, 0);
	compare(&a, true, SPAN_LOSS_CPU, -1, 0);
	/* the first hardirq entry of the recording: a loss right after it, on its CPU */
	pair_up(&b, true, SPAN_LOSS_CPU, 1, 0);
	compare(&b, true, SPAN_LOSS_CPU, 1, 0);
	span_free(&a.s);
	span_free(&b.s);
	tep_free(a.tep);
	tep_free(b.tep);
}

/* The table's own rules: a second start replaces the first (counted), begin_once keeps it,
 * drop forgets, an end without start is counted, and a full table evicts its oldest. */
static void test_rules(void **state)
{
	(void)state;
	static struct run r;
	memset(&r, 0, sizeof(r));
	struct tep_record rec = {.ts = 100};
	assert_int_equal(span_init(&r.s, 16, sizeof(int), SPAN_LOSS_CPU, done, &r), 0);
	*(int *)span_begin(&r.s, 7, 0, 10, 0, 0) = 7;
	*(int *)span_begin(&r.s, 7, 0, 20, 0, 0) = 7;
	assert_int_equal(r.s.replaced, 1);
	bool fresh = true;
	span_begin_once(&r.s, 7, 0, 30, 0, 0, &fresh);
	assert_false(fresh);
	assert_int_equal(span_end(&r.s, &rec, 7, 0, 100), 1);
	assert_int_equal(r.pairs[0].ns, 80); /* from the second start */
	assert_int_equal(span_end(&r.s, &rec, 7, 0, 100), 0);
	assert_int_equal(r.s.unpaired, 1);
	span_begin(&r.s, 8, 0, 10, 1, 0);
	span_drop(&r.s, 8, 0);
	assert_null(span_find(&r.s, 8, 0));
	/* an end before its start (clocks of two CPUs): 0, never a wrapped huge number */
	span_begin(&r.s, 9, 0, 500, 1, 0);
	assert_int_equal(span_end(&r.s, &rec, 9, 0, 100), 1);
	assert_int_equal(r.pairs[1].ns, 0);
	/* SPAN_LOSS_CPU: a loss on CPU 1 forgets CPU 1's starts only */
	span_begin(&r.s, 20, 0, 10, 0, 0);
	span_begin(&r.s, 21, 0, 10, 1, 0);
	span_lost(1, 5, &r.s);
	assert_non_null(span_find(&r.s, 20, 0));
	assert_null(span_find(&r.s, 21, 0));
	assert_int_equal(r.s.cleared, 1);
	r.s.loss = SPAN_LOSS_ALL;
	span_lost(1, 5, &r.s);
	assert_null(span_find(&r.s, 20, 0));
	for (uint64_t k = 0; k < 1000; k++)
		span_begin(&r.s, 1000 + k, 0, k, 0, 0);
	assert_true(r.s.starts.evicted > 0);
	char err[512];
	(void)err;
	span_free(&r.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakeup_to_switch),
		cmocka_unit_test(test_loss_clears_all),
		cmocka_unit_test(test_irq_per_cpu),
		cmocka_unit_test(test_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
