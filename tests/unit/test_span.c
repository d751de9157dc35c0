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

#include "stream/reader.h"
#include "domain/schedev.h"
#include "join/span.h"

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

/* No done callback: a table of what is known per key; an end removes it, pairs nothing. */
static void test_no_done(void **state)
{
	(void)state;
	struct span s;
	struct tep_record rec = {0};
	assert_int_equal(span_init(&s, 16, sizeof(int), SPAN_LOSS_ALL, NULL, NULL), 0);
	*(int *)span_begin(&s, 7, 1, 100, 0, 0) = 42;
	struct span_start *st = span_find(&s, 7, 1);
	assert_non_null(st);
	assert_int_equal(*(int *)span_data(st), 42);
	assert_int_equal(span_end(&s, &rec, 7, 1, 200), 1);
	assert_null(span_find(&s, 7, 1));
	assert_int_equal(span_end(&s, &rec, 7, 1, 300), 0);
	assert_int_equal(s.paired, 1);
	assert_int_equal(s.unpaired, 1);
	span_free(&s);
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

/* The microseconds between two events as the kernel's tables count them: the times cut to
 * the unit, then subtracted. */
static void test_units(void **state)
{
	(void)state;
	assert_int_equal(span_units(1999, 2000, 1000), 1); /* 1 ns apart, across a us */
	assert_int_equal(span_units(2000, 2999, 1000), 0); /* 999 ns within one us */
	assert_int_equal(span_units(2001, 4000, 1000), 2); /* one more than 1999 / 1000 */
	assert_int_equal(span_units(5000, 4000, 1000), 0); /* an end before its start */
	assert_int_equal(span_units(0, 2500000, 1000000), 2);
}

/* The events of the formats of 6.18 the descriptions below name. */
static struct tep_handle *sched_tep(struct tep_event **sw, struct tep_event **wake,
				    struct tep_event **wnew)
{
	struct tep_handle *tep = fixture_tep(SCHED, systems);
	assert_non_null(tep);
	*sw = tep_find_event_by_name(tep, "sched", "sched_switch");
	*wake = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	*wnew = tep_find_event_by_name(tep, "sched", "sched_wakeup_new");
	assert_true(*sw && *wake && *wnew);
	return tep;
}

/* runqlat's pairing in the kernel (sched_runq_kernel on 6.18's formats): three start events
 * made one through the start event, a drop at a sleeping task's switch, the end at the
 * switch in, binned in microseconds. The
 * texts are those the kernels of the matrix were seen to take (4.18, 4.19, 6.1, 6.12:
 * tests/fixtures/record-sched-kernels.sh and the live tests), word for word. */
static void test_kernel_several_starts(void **state)
{
	(void)state;
	struct tep_event *sw, *wake, *wnew;
	struct tep_handle *tep = sched_tep(&sw, &wake, &wnew);
	static struct span_kernel k;
	static struct sched_events se;
	se.sw = sw;
	se.wakeup = wake;
	se.wakeup_new = wnew;
	assert_int_equal(sched_sleeping_bits(tep, sw, &se.sleeping), 0);
	sched_runq_kernel(&se, &k, 0);
	k.fields[0] = (struct span_kfield){"pid_t", "pid", "next_pid"};
	k.fields[1] = (struct span_kfield){"char[16]", "comm", "next_comm"};
	k.nfields = 2;
	k.mode = SPAN_K_HIST;
	k.unit_ns = 1000;
	k.hist_keys = "pid";
	assert_int_equal(span_kernel_build(&k, "42_7_abcd", "mono"), 0);
	assert_string_equal(k.synth[0], "ftt_42_7_abcd_rq");
	assert_string_equal(k.def[0],
			    "ftt_42_7_abcd_rq u64 lat; u64 t0; u64 b; pid_t pid; char comm[16]");
	assert_string_equal(k.def[1], "ftt_42_7_abcd_rqs pid_t key; u64 ts");
	assert_string_equal(k.def[2], "ftt_42_7_abcd_rqd u64 gone");
	static const char *const want[][3] = {
		{"synthetic", "ftt_42_7_abcd_rqs",
		 "hist:keys=key:rq0=ts,rq1=ts,rqu=ts/1000-1:size=16384:clock=mono"},
		{"synthetic", "ftt_42_7_abcd_rq",
		 "hist:keys=pid,b.log2:vals=hitcount,b:size=16384"},
		{"sched", "sched_switch",
		 "hist:keys=prev_pid:rqg=common_timestamp-$rq0:size=16384:clock=mono:"
		 "onmatch(synthetic.ftt_42_7_abcd_rqs).ftt_42_7_abcd_rqd($rqg) if prev_pid != 0 && "
		 "prev_state & 0xff"},
		{"sched", "sched_switch",
		 "hist:keys=next_pid:rqlat=common_timestamp-$rq0,rqb=common_timestamp/1000-$rqu:"
		 "size=16384:clock=mono:onmatch(synthetic.ftt_42_7_abcd_rqs).ftt_42_7_abcd_rq("
		 "$rqlat,$rq1,$rqb,next_pid,next_comm) if next_pid != 0"},
		{"sched", "sched_wakeup",
		 "hist:keys=pid:rqt=common_timestamp:size=16384:clock=mono:onmatch(sched."
		 "sched_wakeup).ftt_42_7_abcd_rqs(pid,$rqt) if pid != 0"},
		{"sched", "sched_wakeup_new",
		 "hist:keys=pid:rqt=common_timestamp:size=16384:clock=mono:onmatch(sched."
		 "sched_wakeup_new).ftt_42_7_abcd_rqs(pid,$rqt) if pid != 0"},
		{"sched", "sched_switch",
		 "hist:keys=prev_pid:rqt=common_timestamp:size=16384:clock=mono:onmatch(sched."
		 "sched_switch).ftt_42_7_abcd_rqs(prev_pid,$rqt) if prev_pid != 0 && !(prev_state "
		 "& "
		 "0xff)"},
	};
	assert_int_equal(k.ntrig, 7);
	for (int i = 0; i < k.ntrig; i++) {
		assert_string_equal(k.trig[i].sys, want[i][0]);
		assert_string_equal(k.trig[i].event, want[i][1]);
		assert_string_equal(k.trig[i].text, want[i][2]);
		/* each finds its own table: no other trigger of its event has its variable */
		for (int j = 0; j < k.ntrig; j++)
			if (j != i && !strcmp(k.trig[j].event, k.trig[i].event))
				assert_null(strstr(k.trig[j].text, k.trig[i].which));
	}
	assert_int_equal(k.end_trig, 3);
	assert_int_equal(k.pair_trig, 1);
	tep_free(tep);
}

/* One start event (cpudist: on the CPU from the switch in to the switch out) keeps its time
 * in its own table; carried fields (funcpair's arguments) go through variables; the pairs
 * are recorded. A description that does not fit is refused, not cut. */
static void test_kernel_one_start(void **state)
{
	(void)state;
	struct tep_event *sw, *wake, *wnew;
	struct tep_handle *tep = sched_tep(&sw, &wake, &wnew);
	static struct span_kernel k;
	memset(&k, 0, sizeof(k));
	k.name = "cd";
	k.start[0] = (struct span_kstart){
		.ev = sw, .key = "next_pid", .filter = "next_pid != 0", .carry = {"next_prio"}};
	k.nstarts = 1;
	k.carry[0] = (struct span_kfield){"int", "prio", NULL};
	k.ncarry = 1;
	k.end = sw;
	k.end_key = "prev_pid";
	k.end_filter = "prev_pid != 0";
	k.fields[0] = (struct span_kfield){"pid_t", "pid", "prev_pid"};
	k.nfields = 1;
	k.mode = SPAN_K_PAIRS;
	k.table = 4096;
	assert_int_equal(span_kernel_build(&k, "42_7_abcd", "global"), 0);
	assert_string_equal(k.def[0], "ftt_42_7_abcd_cd u64 lat; u64 t0; int prio; pid_t pid");
	assert_string_equal(k.def[1], "");
	assert_string_equal(k.def[2], "");
	assert_int_equal(k.ntrig, 3);
	assert_string_equal(k.trig[0].text, "hist:keys=next_pid:cd0=common_timestamp,"
					    "cd1=common_timestamp,cdc0=next_prio:size=4096:"
					    "clock=global if next_pid != 0");
	assert_string_equal(k.trig[1].text, "hist:keys=lat.log2");
	assert_string_equal(
		k.trig[2].text,
		"hist:keys=prev_pid:cdlat=common_timestamp-$cd0:size=4096:clock=global:"
		"onmatch(sched.sched_switch).ftt_42_7_abcd_cd($cdlat,$cd1,$cdc0,prev_pid)"
		" if prev_pid != 0");
	/* too long for its buffer: refused */
	char longf[1200];
	memset(longf, 'x', sizeof(longf) - 1);
	longf[sizeof(longf) - 1] = 0;
	k.end_filter = longf;
	assert_int_equal(span_kernel_build(&k, "42_7_abcd", "global"), -1);
	/* a description without its end */
	k.end_filter = NULL;
	k.end = NULL;
	assert_int_equal(span_kernel_build(&k, "42_7_abcd", "global"), -1);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_kernel_several_starts),
		cmocka_unit_test(test_kernel_one_start),
		cmocka_unit_test(test_wakeup_to_switch),
		cmocka_unit_test(test_loss_clears_all),
		cmocka_unit_test(test_irq_per_cpu),
		cmocka_unit_test(test_no_done),
		cmocka_unit_test(test_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
