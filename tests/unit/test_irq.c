// SPDX-License-Identifier: GPL-2.0-only
/*
 * irq.h: hard interrupt handlers and softirqs paired per CPU on ring-buffer pages recorded
 * from Linux 6.18 (tests/fixtures/sched-6.18, record-sched.sh), each handler's count and
 * time compared with the kernel's own text rendering of the same pages (trace.txt, times in
 * microseconds: each run may differ by 1 us from the raw nanoseconds); softirq raises paired
 * with the run that serves them; the cases the pages do not hold (a handler interrupted by
 * another, an exit lost, a loss on one CPU, a raise inside a batch) on records made here;
 * the vectors' names from the format; rows, limits and the output, text and JSON.
 */
#include "helpers.h"

#include <event-parse.h>
#include <tracefs.h>

#include "domain/irq.h"
#include "base/out.h"
#include "stream/reader.h"
#include "tool.h"

#define SCHED FIXTURES "/sched-6.18"
#define MAXK 64

static const char *const systems[] = {"irq", NULL};

struct run {
	struct tep_handle *tep;
	struct irq_stats st;
	struct tep_format_field *irq, *name, *xirq, *vec, *xvec, *rvec, *flags;
	char *names[MAXK];
};

static void on_hard_entry(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	size_t len;
	const char *name = reader_str(rec, r->name, &len);
	int irq = (int)reader_num(rec, r->irq);
	struct irq_row *row = irq_row(&r->st, irq, rec->cpu, name, len);
	if (r->st.o.counts)
		irq_count(&r->st, row);
	else
		irq_begin(&r->st, rec, irq, row);
}

static void on_hard_exit(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	irq_end(&r->st, rec, (int)reader_num(rec, r->xirq));
}

static struct irq_row *vec_row(struct run *r, const struct tep_record *rec, int vec)
{
	return irq_row(&r->st, vec, rec->cpu, r->names[vec], strlen(r->names[vec]));
}

static void on_soft_entry(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	int vec = (int)reader_num(rec, r->vec);
	if (r->st.o.counts)
		irq_count(&r->st, vec_row(r, rec, vec));
	else if (r->st.o.raise)
		irq_raise_served(&r->st, rec, vec);
	else
		irq_begin(&r->st, rec, vec, vec_row(r, rec, vec));
}

static void on_soft_exit(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	irq_end(&r->st, rec, (int)reader_num(rec, r->xvec));
}

static void on_raise(struct tep_record *rec, void *ctx)
{
	struct run *r = ctx;
	int vec = (int)reader_num(rec, r->rvec);
	irq_raise(&r->st, rec, vec, vec_row(r, rec, vec), reader_num(rec, r->flags) & 0x10);
}

/* The fixture's pages through the tool's handlers: hard or soft, with options o. */
static void replay(struct run *r, enum irq_kind kind, const struct irq_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->tep = fixture_tep(SCHED, systems);
	assert_non_null(r->tep);
	struct tep_event *he = tep_find_event_by_name(r->tep, "irq", "irq_handler_entry");
	struct tep_event *hx = tep_find_event_by_name(r->tep, "irq", "irq_handler_exit");
	struct tep_event *se = tep_find_event_by_name(r->tep, "irq", "softirq_entry");
	struct tep_event *sx = tep_find_event_by_name(r->tep, "irq", "softirq_exit");
	struct tep_event *sr = tep_find_event_by_name(r->tep, "irq", "softirq_raise");
	assert_true(he && hx && se && sx && sr);
	r->irq = tep_find_field(he, "irq");
	r->name = tep_find_field(he, "name");
	r->xirq = tep_find_field(hx, "irq");
	r->vec = tep_find_field(se, "vec");
	r->xvec = tep_find_field(sx, "vec");
	r->rvec = tep_find_field(sr, "vec");
	r->flags = tep_find_common_field(sr, "common_flags");
	assert_true(r->irq && r->name && r->xirq && r->vec && r->xvec && r->rvec && r->flags);
	assert_int_equal(irq_symbols(se, "vec", r->names, MAXK), 10);
	assert_int_equal(irq_init(&r->st, kind, o), 0);
	struct reader rd;
	assert_int_equal(reader_open(&rd, r->tep, SCHED, 4096, false), 0);
	if (kind == IRQ_HARD) {
		assert_int_equal(reader_on(&rd, he, on_hard_entry, r), 0);
		if (!o->counts)
			assert_int_equal(reader_on(&rd, hx, on_hard_exit, r), 0);
	} else {
		if (o->raise)
			assert_int_equal(reader_on(&rd, sr, on_raise, r), 0);
		assert_int_equal(reader_on(&rd, se, on_soft_entry, r), 0);
		if (!o->counts && !o->raise)
			assert_int_equal(reader_on(&rd, sx, on_soft_exit, r), 0);
	}
	assert_int_equal(reader_on_lost(&rd, span_lost, &r->st.runs), 0);
	assert_int_equal(reader_drain(&rd), 0);
	reader_close(&rd);
}

static void done_run(struct run *r)
{
	irq_free(&r->st);
	irq_names_free(r->names, MAXK);
	tep_free(r->tep);
}

/* The row of (num, name) on cpu (-1: all), or NULL. */
static struct irq_row *find(struct run *r, int num, int cpu, const char *name)
{
	for (size_t i = 0; r->st.tab && i <= r->st.mask; i++) {
		struct irq_row *x = r->st.tab[i];
		if (x && x->num == num && x->cpu == cpu && !strcmp(x->name, name))
			return x;
	}
	return NULL;
}

/* --- the kernel's text ---------------------------------------------------------------------- */

/* "  <task>-<pid>  [CPU] flags  SECS.USECS: event: fields" -> cpu, the flags' hardirq/softirq
 * character, microseconds, event. */
static bool parse_line(const char *line, int *cpu, char *ctx, long long *us, const char **ev)
{
	const char *b = strstr(line, "] ");
	if (!b || line[0] == '#')
		return false;
	const char *open = b;
	while (open > line && *open != '[')
		open--;
	*cpu = atoi(open + 1);
	*ctx = b[4]; /* "] d.h.." */
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

/* What the kernel's text says per key (an IRQ, or a vector) and CPU: entries, and the
 * pairs with their microseconds. */
struct expect {
	long long entries[MAXK][2], pairs[MAXK][2], us[MAXK][2];
	long long unpaired, in_progress;
	long long after_hardirq; /* softirq runs begun right after a handler's exit on the CPU */
};

static FILE *trace_txt(void)
{
	FILE *f = fopen(SCHED "/trace.txt", "r");
	assert_non_null(f);
	return f;
}

static void expect_runs(enum irq_kind kind, struct expect *e)
{
	memset(e, 0, sizeof(*e));
	const char *entry = kind == IRQ_HARD ? "irq_handler_entry:" : "softirq_entry:";
	const char *exit = kind == IRQ_HARD ? "irq_handler_exit:" : "softirq_exit:";
	const char *key = kind == IRQ_HARD ? "irq=" : "vec=";
	long long start[MAXK][2];
	for (int k = 0; k < MAXK; k++)
		start[k][0] = start[k][1] = -1;
	FILE *f = trace_txt();
	char line[1024];
	bool hard_exit[2] = {false, false}; /* the CPU's last event was irq_handler_exit */
	while (fgets(line, sizeof(line), f)) {
		int cpu, k;
		char c;
		long long t;
		const char *ev;
		if (!parse_line(line, &cpu, &c, &t, &ev) || cpu < 0 || cpu > 1)
			continue;
		bool after = hard_exit[cpu];
		hard_exit[cpu] = !strncmp(ev, "irq_handler_exit:", 17);
		bool is_entry = !strncmp(ev, entry, strlen(entry));
		e->after_hardirq += is_entry && after;
		if ((!is_entry && strncmp(ev, exit, strlen(exit))) || (k = field(ev, key)) < 0 ||
		    k >= MAXK)
			continue;
		if (is_entry) {
			e->entries[k][cpu]++;
			start[k][cpu] = t;
		} else if (start[k][cpu] < 0) {
			e->unpaired++;
		} else {
			e->pairs[k][cpu]++;
			e->us[k][cpu] += t - start[k][cpu];
			start[k][cpu] = -1;
		}
	}
	fclose(f);
	for (int k = 0; k < MAXK; k++)
		e->in_progress += (start[k][0] >= 0) + (start[k][1] >= 0);
}

/* The time of a row against the text's: within a microsecond per run. */
static void assert_time(const struct irq_row *x, long long pairs, long long us)
{
	assert_non_null(x);
	assert_int_equal(x->count, pairs);
	long long got = (long long)(x->ns / 1000);
	if (got < us - pairs || got > us + pairs)
		fail_msg("%s (%d): %lld us in %lld runs, the kernel's text: %lld us", x->name,
			 x->num, got, pairs, us);
}

/* --- on the recorded pages ------------------------------------------------------------------ */

/* Every handler run the text has, timed: virtio1-req.0 (IRQ 36) is all the recording had. */
static void test_hardirq_runs(void **state)
{
	(void)state;
	static struct run r;
	static struct expect e;
	struct irq_opts o;
	irq_opts_init(&o);
	replay(&r, IRQ_HARD, &o);
	expect_runs(IRQ_HARD, &e);
	assert_true(e.pairs[36][0] + e.pairs[36][1] == 41);
	assert_time(find(&r, 36, -1, "virtio1-req.0"), e.pairs[36][0] + e.pairs[36][1],
		    e.us[36][0] + e.us[36][1]);
	assert_int_equal(r.st.used, 1);
	assert_int_equal(r.st.runs.unpaired, e.unpaired);
	done_run(&r);
	/* per CPU: the same runs, split as the text splits them */
	o.per_cpu = true;
	replay(&r, IRQ_HARD, &o);
	for (int cpu = 0; cpu < 2; cpu++)
		if (e.pairs[36][cpu])
			assert_time(find(&r, 36, cpu, "virtio1-req.0"), e.pairs[36][cpu],
				    e.us[36][cpu]);
	done_run(&r);
}

/* Every softirq run, per vector and CPU, those run at the end of a hard interrupt on its
 * CPU among them; the runs under way at the end of the recording, and the exits whose
 * entry came before it, counted apart exactly. */
static void test_softirq_runs(void **state)
{
	(void)state;
	static struct run r;
	static struct expect e;
	struct irq_opts o;
	irq_opts_init(&o);
	o.per_cpu = true;
	replay(&r, IRQ_SOFT, &o);
	expect_runs(IRQ_SOFT, &e);
	long long all = 0;
	for (int v = 0; v < 10; v++)
		for (int cpu = 0; cpu < 2; cpu++) {
			all += e.pairs[v][cpu];
			if (e.pairs[v][cpu])
				assert_time(find(&r, v, cpu, r.names[v]), e.pairs[v][cpu],
					    e.us[v][cpu]);
			else
				assert_null(find(&r, v, cpu, r.names[v]));
		}
	assert_true(all > 500);
	/* among them the softirqs an interrupt ran as it ended (BLOCK after the disk's) */
	assert_true(e.after_hardirq > 10);
	assert_int_equal(r.st.runs.paired, all);
	assert_int_equal(r.st.runs.unpaired, e.unpaired);
	/* what was under way is said at the end, and not counted */
	int saved = dup(2);
	int null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	irq_report(&r.st, "test", "softirq exits");
	dup2(saved, 2);
	close(null);
	close(saved);
	assert_int_equal(r.st.in_progress, e.in_progress);
	done_run(&r);
}

/* -C: every entry counted, per CPU, as /proc/softirqs counts them (one per entry). */
static void test_counts(void **state)
{
	(void)state;
	static struct run r;
	static struct expect e;
	struct irq_opts o;
	irq_opts_init(&o);
	o.counts = o.per_cpu = true;
	replay(&r, IRQ_SOFT, &o);
	expect_runs(IRQ_SOFT, &e);
	for (int v = 0; v < 10; v++)
		for (int cpu = 0; cpu < 2; cpu++) {
			struct irq_row *x = find(&r, v, cpu, r.names[v]);
			assert_int_equal(x ? x->count : 0, e.entries[v][cpu]);
			assert_true(!x || x->ns == 0);
		}
	done_run(&r);
}

/*
 * --raise on the pages: each entry with the first raise it serves. The text's flags say
 * where each raise was made ('s' or 'H': while the CPU served softirqs); the pairing is
 * worked out here from them with plain arrays, as irq.h describes it.
 */
static void test_raise(void **state)
{
	(void)state;
	static struct run r;
	struct irq_opts o;
	irq_opts_init(&o);
	o.raise = o.per_cpu = true;
	replay(&r, IRQ_SOFT, &o);
	long long next[MAXK][2], later[MAXK][2], pairs[MAXK][2] = {{0}}, us[MAXK][2] = {{0}};
	long long unpaired = 0, inside = 0;
	for (int k = 0; k < MAXK; k++)
		next[k][0] = next[k][1] = later[k][0] = later[k][1] = -1;
	FILE *f = trace_txt();
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		int cpu, v;
		char c;
		long long t;
		const char *ev;
		if (!parse_line(line, &cpu, &c, &t, &ev) || cpu < 0 || cpu > 1 ||
		    (v = field(ev, "vec=")) < 0 || v >= MAXK)
			continue;
		if (!strncmp(ev, "softirq_raise:", 14)) {
			if (c == 's' || c == 'H') {
				inside++;
				if (later[v][cpu] < 0)
					later[v][cpu] = t;
				continue;
			}
			if (next[v][cpu] < 0 && later[v][cpu] >= 0) {
				next[v][cpu] = later[v][cpu];
				later[v][cpu] = -1;
			}
			if (next[v][cpu] < 0)
				next[v][cpu] = t;
		} else if (!strncmp(ev, "softirq_entry:", 14)) {
			long long *from = next[v][cpu] >= 0 ? &next[v][cpu] : &later[v][cpu];
			if (*from < 0) {
				unpaired++;
				continue;
			}
			pairs[v][cpu]++;
			us[v][cpu] += t - *from;
			*from = -1;
		}
	}
	fclose(f);
	assert_true(inside > 0); /* the recording has raises made inside a batch */
	long long all = 0;
	for (int v = 0; v < 10; v++)
		for (int cpu = 0; cpu < 2; cpu++) {
			all += pairs[v][cpu];
			if (pairs[v][cpu])
				assert_time(find(&r, v, cpu, r.names[v]), pairs[v][cpu],
					    us[v][cpu]);
		}
	assert_true(all > 500);
	assert_int_equal(r.st.runs.unpaired, unpaired);
	done_run(&r);
}

/* A loss on CPU 0 after the first hardirq entry: that start is forgotten (counted), not
 * paired with a later exit; nothing of CPU 1 is. */
static void test_loss(void **state)
{
	(void)state;
	struct irq_opts o;
	irq_opts_init(&o);
	static struct irq_stats st;
	assert_int_equal(irq_init(&st, IRQ_HARD, &o), 0);
	struct irq_row *a = irq_row(&st, 36, 0, "a", 1), *b = irq_row(&st, 40, 1, "b", 1);
	struct tep_record r0 = {.ts = 1000, .cpu = 0}, r1 = {.ts = 1000, .cpu = 1};
	irq_begin(&st, &r0, 36, a);
	irq_begin(&st, &r1, 40, b);
	span_lost(0, 3, &st.runs);
	r0.ts = r1.ts = 5000;
	irq_end(&st, &r0, 36);
	irq_end(&st, &r1, 40);
	assert_int_equal(a->count, 0);
	assert_int_equal(b->count, 1);
	assert_int_equal(b->ns, 4000);
	assert_int_equal(st.runs.cleared, 1);
	assert_int_equal(st.runs.unpaired, 1);
	irq_free(&st);
}

/* A handler that a broken driver lets be interrupted by another: each exit with its own
 * entry (the outer's time includes the inner's); an entry whose exit was lost is replaced
 * by the next of its number on that CPU (counted), never paired across the gap. */
static void test_nested(void **state)
{
	(void)state;
	struct irq_opts o;
	irq_opts_init(&o);
	static struct irq_stats st;
	assert_int_equal(irq_init(&st, IRQ_HARD, &o), 0);
	struct irq_row *a = irq_row(&st, 36, 0, "a", 1), *b = irq_row(&st, 40, 0, "b", 1);
	struct tep_record r = {.ts = 100, .cpu = 0};
	irq_begin(&st, &r, 36, a);
	r.ts = 150;
	irq_begin(&st, &r, 40, b);
	r.ts = 170;
	irq_end(&st, &r, 40);
	r.ts = 300;
	irq_end(&st, &r, 36);
	assert_int_equal(a->ns, 200);
	assert_int_equal(b->ns, 20);
	r.ts = 1000;
	irq_begin(&st, &r, 36, a);
	r.ts = 2000;
	irq_begin(&st, &r, 36, a); /* the exit of the one before was lost */
	r.ts = 2010;
	irq_end(&st, &r, 36);
	assert_int_equal(a->count, 2);
	assert_int_equal(a->ns, 210);
	assert_int_equal(st.runs.replaced, 1);
	/* an exit whose entry came before tracing */
	irq_end(&st, &r, 40);
	assert_int_equal(st.runs.unpaired, 1);
	irq_free(&st);
}

/* --raise: a raise inside a batch is for the batch after it, a second raise of one pending
 * changes nothing, and one made inside a batch is pending like the others once it ended. */
static void test_raise_batches(void **state)
{
	(void)state;
	struct irq_opts o;
	irq_opts_init(&o);
	o.raise = true;
	static struct irq_stats st;
	assert_int_equal(irq_init(&st, IRQ_SOFT, &o), 0);
	struct irq_row *rx = irq_row(&st, 3, 0, "NET_RX", 6);
	struct tep_record r = {.ts = 100, .cpu = 0};
	irq_raise(&st, &r, 3, rx, false); /* in a hardirq: the next batch */
	r.ts = 110;
	irq_raise(&st, &r, 3, rx, false); /* already pending */
	r.ts = 130;
	irq_raise(&st, &r, 3, rx, true); /* inside the batch, before its NET_RX run */
	r.ts = 150;
	irq_raise_served(&st, &r, 3); /* this batch's run: the raise at 100 */
	assert_int_equal(rx->count, 1);
	assert_int_equal(rx->ns, 50);
	r.ts = 170;
	irq_raise_served(&st, &r, 3); /* the restart: the raise at 130 */
	assert_int_equal(rx->ns, 50 + 40);
	/* made inside a batch that ended without a restart; outside it, raised again */
	r.ts = 200;
	irq_raise(&st, &r, 3, rx, true);
	r.ts = 300;
	irq_raise(&st, &r, 3, rx, false);
	r.ts = 400;
	irq_raise_served(&st, &r, 3);
	assert_int_equal(rx->count, 3);
	assert_int_equal(rx->ns, 90 + 200);
	r.ts = 500;
	irq_raise_served(&st, &r, 3); /* nothing pending: began before tracing */
	assert_int_equal(st.runs.unpaired, 1);
	irq_free(&st);
}

/* --- rows, names and output ----------------------------------------------------------------- */

static void test_rows(void **state)
{
	(void)state;
	struct irq_opts o;
	irq_opts_init(&o);
	o.hist = true;
	static struct irq_stats st;
	assert_int_equal(irq_init(&st, IRQ_HARD, &o), 0);
	/* names exact: a NUL inside, 100 KB, the same IRQ with two handlers (shared) */
	static char big[100000];
	memset(big, 'x', sizeof(big));
	struct irq_row *a = irq_row(&st, 5, 0, "eth0", 4), *b = irq_row(&st, 5, 1, "eth0\0x", 6);
	struct irq_row *c = irq_row(&st, 5, 0, big, sizeof(big)), *d = irq_row(&st, 5, 0, "usb", 3);
	assert_true(a && b && c && d && a != b && a != c && a != d && b != c);
	assert_ptr_equal(irq_row(&st, 5, 1, "eth0", 4), a); /* not per CPU: one row */
	assert_int_equal(c->len, sizeof(big));
	assert_non_null(a->h);
	irq_free(&st);
	/* per CPU, a row each; past the limit, the events are counted as dropped */
	o.hist = false;
	o.per_cpu = true;
	assert_int_equal(irq_init(&st, IRQ_HARD, &o), 0);
	assert_ptr_not_equal(irq_row(&st, 5, 0, "eth0", 4), irq_row(&st, 5, 1, "eth0", 4));
	for (int i = 0; i < IRQ_MAX_ROWS + 10; i++)
		irq_row(&st, i, 7, "n", 1);
	assert_int_equal(st.used, IRQ_MAX_ROWS);
	assert_int_equal(st.dropped, 12);
	assert_non_null(irq_row(&st, 5, 0, "eth0", 4)); /* the rows made still found */
	irq_free(&st);
}

static void test_names(void **state)
{
	(void)state;
	struct tep_handle *tep = fixture_tep(SCHED, systems);
	assert_non_null(tep);
	char *names[MAXK];
	struct tep_event *se = tep_find_event_by_name(tep, "irq", "softirq_entry");
	assert_int_equal(irq_symbols(se, "vec", names, MAXK), 10);
	static const char *const want[] = {"HI",       "TIMER",	  "NET_TX", "NET_RX",  "BLOCK",
					   "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
	for (int i = 0; i < 10; i++)
		assert_string_equal(names[i], want[i]);
	assert_null(names[10]);
	irq_names_free(names, MAXK);
	/* an event without such a table, another field, too small a table */
	assert_int_equal(irq_symbols(tep_find_event_by_name(tep, "irq", "irq_handler_entry"), "vec",
				     names, MAXK),
			 0);
	assert_int_equal(irq_symbols(se, "irq", names, MAXK), 0);
	assert_int_equal(irq_symbols(se, "vec", names, 4), 4);
	assert_string_equal(names[3], "NET_RX");
	irq_names_free(names, 4);
	tep_free(tep);
	/* values that are not small numbers, a name given twice: left out, the first kept */
	char fmt[4096], odd[8192];
	assert_non_null(read_file(SCHED, "events/irq/softirq_entry/format", fmt, sizeof(fmt)));
	char *at = strstr(fmt, "{ 1, \"TIMER\" }");
	assert_non_null(at);
	*at = 0;
	snprintf(odd, sizeof(odd), "%s%s%s", fmt,
		 "{ 0, \"B\" }, { 99999999999999999999, \"C\" }, { -1, \"D\" }, "
		 "{ 2, \"new\\nline\" }",
		 at + strlen("{ 1, \"TIMER\" }"));
	tep = tep_alloc();
	assert_int_equal(tep_parse_event(tep, odd, strlen(odd), "irq"), 0);
	assert_int_equal(irq_symbols(tep_find_event_by_name(tep, "irq", "softirq_entry"), "vec",
				     names, MAXK),
			 9);
	assert_string_equal(names[0], "HI");
	assert_null(names[1]);
	assert_string_equal(names[2], "new\\nline"); /* as libtraceevent prints it */
	assert_string_equal(names[9], "RCU");
	irq_names_free(names, MAXK);
	tep_free(tep);
}

/* irq_print's lines on stdout, into buf. */
static void printed(struct irq_stats *st, struct tool_run *t, uint64_t now, char *buf, size_t len)
{
	fflush(stdout);
	FILE *f = tmpfile();
	assert_non_null(f);
	int saved = dup(1);
	dup2(fileno(f), 1);
	irq_print(st, t, now);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void test_output(void **state)
{
	(void)state;
	static const struct tool tool = {.name = "test"};
	static struct tool_run t;
	t.tool = &tool;
	out_clock_init();
	struct irq_opts o;
	irq_opts_init(&o);
	static struct irq_stats st;
	assert_int_equal(irq_init(&st, IRQ_HARD, &o), 0);
	st.ncpus = 2;
	struct tep_record r = {.ts = 1000, .cpu = 0};
	struct irq_row *a = irq_row(&st, 36, 0, "virtio1-req.0", 13);
	struct irq_row *b = irq_row(&st, 7, 0, "a b\n", 4);
	irq_begin(&st, &r, 36, a);
	r.ts = 3000;
	irq_end(&st, &r, 36);
	irq_begin(&st, &r, 7, b);
	r.ts = 3500;
	irq_end(&st, &r, 7);
	st.start_ns = 1000000000;
	char buf[4096];
	printed(&st, &t, 1100000000, buf, sizeof(buf)); /* 100 ms of 2 CPUs */
	assert_string_equal(buf, "HARDIRQ                IRQ      COUNT      TOTAL(us)    AVG(us)"
				 "   %CPU\n"
				 "virtio1-req.0           36          1          2.000      2.000"
				 "   0.00\n"
				 "a\\x20b\\x0a               7          1          0.500      0.500"
				 "   0.00\n"
				 "TOTAL                    -          2          2.500      1.250"
				 "   0.00\n");
	/* the counts start again; JSON: the names exact, the total's null */
	t.o.json = true;
	irq_begin(&st, &r, 7, b);
	r.ts = 50003500;
	irq_end(&st, &r, 7);
	printed(&st, &t, 1200000000, buf, sizeof(buf));
	assert_non_null(strstr(buf,
			       "\"name\":\"a b\\n\",\"irq\":7,\"cpu\":null,\"count\":1,"
			       "\"total_us\":50000.000,\"avg_us\":50000.000,\"cpu_pct\":25.00}\n"));
	assert_non_null(strstr(buf, "\"name\":null,\"irq\":null,\"cpu\":null,\"count\":1,"));
	assert_null(strstr(buf, "virtio"));
	/* a name that is not UTF-8, a negative number: exact, and recoverable */
	struct irq_row *odd = irq_row(&st, -5, 0, "x\xff\"", 3);
	irq_begin(&st, &r, -5, odd);
	irq_end(&st, &r, -5);
	printed(&st, &t, 1300000000, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"name\":\"x\\udcff\\\"\",\"irq\":-5,"));
	t.o.json = false;
	odd = irq_row(&st, -5, 0, "x\xff\"", 3);
	irq_begin(&st, &r, -5, odd);
	irq_end(&st, &r, -5);
	printed(&st, &t, 1400000000, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nx\\xff\"                  -5          1 "));
	t.o.json = true;
	irq_free(&st);
	/* histograms: one object each, with its buckets */
	o.hist = o.nanos = true;
	assert_int_equal(irq_init(&st, IRQ_SOFT, &o), 0);
	struct irq_row *n = irq_row(&st, 3, 0, "NET_RX", 6);
	r.ts = 0;
	irq_begin(&st, &r, 3, n);
	r.ts = 5;
	irq_end(&st, &r, 3);
	printed(&st, &t, 1300000000, buf, sizeof(buf));
	assert_non_null(strstr(buf,
			       "\"name\":\"NET_RX\",\"vec\":3,\"cpu\":null,\"unit\":\"ns\","
			       "\"count\":1,\"total_us\":0.005,\"hist\":[{\"low\":4,\"high\":8,"
			       "\"count\":1}]}\n"));
	irq_free(&st);
}

static void bad_opts(const void *arg)
{
	struct irq_opts o;
	irq_opts_init(&o);
	const char *which = arg;
	o.counts = strchr(which, 'C');
	o.hist = strchr(which, 'h');
	o.nanos = strchr(which, 'N');
	o.raise = strchr(which, 'r');
	irq_check_opts(&o);
}

static void bad_cpu(const void *arg)
{
	struct irq_opts o;
	irq_opts_init(&o);
	irq_parse_opt(&o, IRQ_OPT_CPU, arg);
}

static void test_options(void **state)
{
	(void)state;
	assert_usage_error(bad_opts, "Ch", "-C and --hist exclude each other");
	assert_usage_error(bad_opts, "Cr", "-C and --raise exclude each other");
	assert_usage_error(bad_opts, "N", "-N is for --hist");
	assert_usage_error(bad_cpu, "-1", "invalid CPU");
	assert_usage_error(bad_cpu, "99999", "invalid CPU");
	assert_usage_error(bad_cpu, "0x", "invalid CPU");
	struct irq_opts o;
	irq_opts_init(&o);
	irq_parse_opt(&o, IRQ_OPT_CPU, "0");
	assert_int_equal(o.cpu, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hardirq_runs),  cmocka_unit_test(test_softirq_runs),
		cmocka_unit_test(test_counts),	      cmocka_unit_test(test_raise),
		cmocka_unit_test(test_loss),	      cmocka_unit_test(test_nested),
		cmocka_unit_test(test_raise_batches), cmocka_unit_test(test_rows),
		cmocka_unit_test(test_names),	      cmocka_unit_test(test_output),
		cmocka_unit_test(test_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
