// SPDX-License-Identifier: GPL-2.0-only
#include "domain/irq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/out.h"
#include "kernel/session.h"
#include "tool.h"

/* --- options -------------------------------------------------------------------------------- */

void irq_opts_init(struct irq_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cpu = -1;
}

void irq_parse_opt(struct irq_opts *o, int key, const char *arg)
{
	switch (key) {
	case 'C': o->counts = true; break;
	case 'N': o->nanos = true; break;
	case IRQ_OPT_HIST: o->hist = true; break;
	case IRQ_OPT_PER_CPU: o->per_cpu = true; break;
	case IRQ_OPT_RAISE: o->raise = true; break;
	case IRQ_OPT_CPU: {
		long n = sysconf(_SC_NPROCESSORS_CONF);
		char what[64];
		snprintf(what, sizeof(what), "CPU (0 to %ld)", n > 0 ? n - 1 : 0);
		o->cpu = (int)opt_int(arg, 0, n > 0 ? n - 1 : 0, what);
		break;
	}
	}
}

void irq_check_opts(const struct irq_opts *o)
{
	if (o->counts && o->hist)
		opt_fail("-C and --hist exclude each other (counts, or histograms of times)");
	if (o->counts && o->raise)
		opt_fail("-C and --raise exclude each other (--raise times from raise to run)");
	if (o->nanos && !o->hist)
		opt_fail("-N is for --hist (the totals are in microseconds, to the nanosecond)");
}

int irq_one_cpu(struct session *s, int cpu)
{
	/* 32 CPUs per group of hex digits, the highest group first: "20,00000000" is CPU 37. */
	char mask[4096];
	size_t n = (size_t)snprintf(mask, sizeof(mask), "%x", 1U << (cpu % 32));
	for (int g = cpu / 32; g > 0 && n + 10 < sizeof(mask); g--)
		n += (size_t)snprintf(mask + n, sizeof(mask) - n, ",00000000");
	if (tracefs_instance_file_write(s->inst, "tracing_cpumask", mask) < 0) {
		fprintf(stderr, "%s: cannot trace only CPU %d (tracing_cpumask): %s\n", s->tool,
			cpu, strerror(errno));
		return -1;
	}
	return 0;
}

int irq_enable(struct session *s, struct tep_event *const *evs, int n)
{
	if (session_stop_recording(s)) {
		fprintf(stderr, "%s: cannot stop recording to enable events: %s\n", s->tool,
			strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (evs[i] && session_enable(s, evs[i], NULL))
			return -1;
	if (s->hold_fd >= 0 && pwrite(s->hold_fd, "1", 1, 0) != 1) {
		fprintf(stderr, "%s: cannot start recording: %s\n", s->tool, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- the rows' tables ----------------------------------------------------------------------- */

/* The columns both tools share, in the order irq_print writes them. */
#define COL_TIME                                                         \
	{                                                                \
		"TIME", "time", -8, ROW_WALL, 0, ROW_NOTEXT,             \
			"wall-clock HH:MM:SS at the end of the interval" \
	}
#define COL_CPU                                                                     \
	{                                                                           \
		"CPU", "cpu", 3, ROW_INT, 0, ROW_OPTIONAL,                          \
			"the CPU (with --per-cpu or --cpu), else null: all of them" \
	}
#define COL_COUNT                                                                           \
	{                                                                                   \
		"COUNT", "count", 10, ROW_UINT, 0, 0,                                       \
			"runs that ended in the interval (-C: that began; --raise: served)" \
	}
#define COL_TOTAL                                                                             \
	{                                                                                     \
		"TOTAL(us)", "total_us", 14, ROW_FLOAT, 3, 0,                                 \
			"their time, microseconds to the nanosecond (--raise: from raise to " \
			"run)"                                                                \
	}
#define COL_AVG                                                                            \
	{                                                                                  \
		"AVG(us)", "avg_us", 10, ROW_FLOAT, 3, 0, "the time per run, microseconds" \
	}
#define COL_PCT                                                                               \
	{                                                                                     \
		"%CPU", "cpu_pct", 6, ROW_FLOAT, 2, ROW_OPTIONAL,                             \
			"their share of the CPUs' time in the interval, percent (of one CPU " \
			"with --per-cpu or --cpu; null with --raise)"                         \
	}
#define COL_UNIT                                                                           \
	{                                                                                  \
		NULL, "unit", 0, ROW_WORD, 0, ROW_NOTEXT, "the histogram's unit, us or ns" \
	}
#define COL_HIST                                                                             \
	{                                                                                    \
		NULL, "hist", 0, ROW_JSON, 0, 0,                                             \
			"the log2 histogram: [{\"low\":L,\"high\":H,\"count\":N},...], the " \
			"non-empty buckets"                                                  \
	}

/* The name's column: text (TOTAL on the total line) and JSON (null there) apart. */
#define HARD_TEXT                                                  \
	{                                                          \
		"HARDIRQ", NULL, -20, ROW_STR, 0, ROW_NOJSON, NULL \
	}
#define HARD_NAME                                                                               \
	{                                                                                       \
		NULL, "name", 0, ROW_STR, 0, ROW_NOTEXT,                                        \
			"the handler's name as the kernel gave it (irq_handler_entry's name); " \
			"null on the total line"                                                \
	}
#define HARD_NUM                                                                         \
	{                                                                                \
		"IRQ", "irq", 5, ROW_INT, 0, 0, "the IRQ number; null on the total line" \
	}
#define SOFT_TEXT                                                  \
	{                                                          \
		"SOFTIRQ", NULL, -10, ROW_STR, 0, ROW_NOJSON, NULL \
	}
#define SOFT_NAME                                                                           \
	{                                                                                   \
		NULL, "name", 0, ROW_STR, 0, ROW_NOTEXT,                                    \
			"the softirq's name as the kernel prints it (NET_RX); null on the " \
			"total line"                                                        \
	}
#define SOFT_NUM                                                                            \
	{                                                                                   \
		"VEC", "vec", 3, ROW_INT, 0, 0, "its vector number; null on the total line" \
	}

static const struct row_col hard_totals[] = {COL_TIME,	HARD_TEXT, HARD_NAME, HARD_NUM, COL_CPU,
					     COL_COUNT, COL_TOTAL, COL_AVG,   COL_PCT};
static const struct row_col hard_counts[] = {COL_TIME, HARD_TEXT, HARD_NAME,
					     HARD_NUM, COL_CPU,	  COL_COUNT};
static const struct row_col hard_hists[] = {COL_TIME, HARD_TEXT, HARD_NAME, HARD_NUM, COL_CPU,
					    COL_UNIT, COL_COUNT, COL_TOTAL, COL_HIST};
static const struct row_col soft_totals[] = {COL_TIME,	SOFT_TEXT, SOFT_NAME, SOFT_NUM, COL_CPU,
					     COL_COUNT, COL_TOTAL, COL_AVG,   COL_PCT};
static const struct row_col soft_counts[] = {COL_TIME, SOFT_TEXT, SOFT_NAME,
					     SOFT_NUM, COL_CPU,	  COL_COUNT};
static const struct row_col soft_hists[] = {COL_TIME, SOFT_TEXT, SOFT_NAME, SOFT_NUM, COL_CPU,
					    COL_UNIT, COL_COUNT, COL_TOTAL, COL_HIST};

static const struct row_table tables[2][3] = {
	{ROW_TABLE("each handler and the total, every interval", hard_totals),
	 ROW_TABLE("each handler and the total, with -C", hard_counts),
	 ROW_TABLE("each handler's histogram, with --hist", hard_hists)},
	{ROW_TABLE("each softirq and the total, every interval", soft_totals),
	 ROW_TABLE("each softirq and the total, with -C", soft_counts),
	 ROW_TABLE("each softirq's histogram, with --hist", soft_hists)},
};
const struct row_table *const irq_hard_rows[] = {&tables[0][0], &tables[0][1], &tables[0][2], NULL};
const struct row_table *const irq_soft_rows[] = {&tables[1][0], &tables[1][1], &tables[1][2], NULL};

/* --- rows ----------------------------------------------------------------------------------- */

static void add(const struct tep_record *end, const struct span_start *start, uint64_t ns,
		void *data, void *ctx);

int irq_init(struct irq_stats *st, enum irq_kind kind, const struct irq_opts *o)
{
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->o = *o;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	st->ncpus = o->cpu >= 0 ? 1 : n > 0 ? (int)n : 1;
	/* A run in progress per CPU (two with a broken driver's nesting); --raise: two raises
	 * per vector and CPU. A full set would evict a start: room for many more. */
	size_t entries = (size_t)(n > 0 ? n : 1) * 64;
	return span_init(&st->runs, entries < 1024 ? 1024 : entries, sizeof(struct irq_row *),
			 SPAN_LOSS_CPU, add, st);
}

void irq_free(struct irq_stats *st)
{
	span_free(&st->runs);
	for (size_t i = 0; st->tab && i <= st->mask; i++)
		if (st->tab[i]) {
			free(st->tab[i]->h);
			free(st->tab[i]);
		}
	free(st->tab);
	st->tab = NULL;
	prom_set_free(&st->prom);
}

static uint64_t hash(int num, int cpu, const char *name, size_t len)
{
	uint64_t h =
		0xcbf29ce484222325ULL ^ (uint64_t)(unsigned)num ^ (uint64_t)(unsigned)cpu << 32;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static bool same(const struct irq_row *x, int num, int cpu, const char *name, size_t len)
{
	return x->num == num && x->cpu == cpu && x->len == len && !memcmp(x->name, name, len);
}

/* Room for one more row: the table doubles at half full. */
static int grow(struct irq_stats *st)
{
	if (2 * (st->used + 1) <= st->mask + 1)
		return 0;
	size_t cap = st->mask ? (st->mask + 1) * 2 : 64;
	struct irq_row **tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	for (size_t i = 0; st->tab && i <= st->mask; i++) {
		struct irq_row *x = st->tab[i];
		if (!x)
			continue;
		size_t j = hash(x->num, x->cpu, x->name, x->len) & (cap - 1);
		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = x;
	}
	free(st->tab);
	st->tab = tab;
	st->mask = cap - 1;
	return 0;
}

struct irq_row *irq_row(struct irq_stats *st, int num, int cpu, const char *name, size_t len)
{
	if (!st->o.per_cpu && st->o.cpu < 0)
		cpu = -1;
	struct irq_row **c = &st->cache[((unsigned)num * 7 + (unsigned)(cpu + 1)) & 255];
	if (*c && same(*c, num, cpu, name, len))
		return *c;
	size_t j = 0;
	if (st->tab) {
		j = hash(num, cpu, name, len) & st->mask;
		for (; st->tab[j]; j = (j + 1) & st->mask)
			if (same(st->tab[j], num, cpu, name, len))
				return *c = st->tab[j];
	}
	struct irq_row *x = NULL;
	if (st->used < IRQ_MAX_ROWS && !grow(st))
		x = calloc(1, sizeof(*x) + len + 1);
	if (x && st->o.hist && !(x->h = calloc(1, sizeof(*x->h)))) {
		free(x);
		x = NULL;
	}
	if (!x) {
		st->dropped++;
		return NULL;
	}
	x->num = num;
	x->cpu = cpu;
	x->len = len;
	memcpy(x->name, name, len);
	j = hash(num, cpu, name, len) & st->mask;
	while (st->tab[j])
		j = (j + 1) & st->mask;
	st->tab[j] = x;
	st->used++;
	return *c = x;
}

/* --- per event ------------------------------------------------------------------------------ */

void irq_count(struct irq_stats *st, struct irq_row *row)
{
	if (row)
		row->count++;
}

/* A run (or a raise) paired with its end: its time to its row (none: past the row limit). */
static void add(const struct tep_record *end, const struct span_start *start, uint64_t ns,
		void *data, void *ctx)
{
	struct irq_stats *st = ctx;
	struct irq_row *row = *(struct irq_row **)data;
	if (!row)
		return;
	row->count++;
	row->ns += ns;
	if (row->h)
		hist_log2_add(row->h, st->o.nanos ? ns : ns / 1000);
}

void irq_begin(struct irq_stats *st, const struct tep_record *rec, int num, struct irq_row *row)
{
	*(struct irq_row **)span_begin(&st->runs, (uint64_t)rec->cpu, (uint64_t)(unsigned)num,
				       rec->ts, rec->cpu, 0) = row;
}

void irq_end(struct irq_stats *st, const struct tep_record *rec, int num)
{
	span_end(&st->runs, rec, (uint64_t)rec->cpu, (uint64_t)(unsigned)num, rec->ts);
}

/* --raise: two starts per vector and CPU, the raise pending for the next batch (k2 even) and
 * one made inside the running batch, for the batch after it (odd). */
static void raised(struct irq_stats *st, const struct tep_record *rec, uint64_t k2, uint64_t ts,
		   struct irq_row *row)
{
	bool fresh;
	struct irq_row **d =
		span_begin_once(&st->runs, (uint64_t)rec->cpu, k2, ts, rec->cpu, 0, &fresh);
	if (fresh)
		*d = row;
}

void irq_raise(struct irq_stats *st, const struct tep_record *rec, int vec, struct irq_row *row,
	       bool in_softirq)
{
	uint64_t next = (uint64_t)(unsigned)vec * 2, later = next + 1;
	if (in_softirq) {
		raised(st, rec, later, rec->ts, row);
		return;
	}
	/* Outside a batch: a raise made inside the last one is pending like any other now. */
	struct span_start *l = span_find(&st->runs, (uint64_t)rec->cpu, later);
	if (l && !span_find(&st->runs, (uint64_t)rec->cpu, next)) {
		uint64_t ts = l->ts;
		struct irq_row *lrow = *(struct irq_row **)span_data(l);
		span_drop(&st->runs, (uint64_t)rec->cpu, later);
		raised(st, rec, next, ts, lrow);
	}
	raised(st, rec, next, rec->ts, row);
}

void irq_raise_served(struct irq_stats *st, const struct tep_record *rec, int vec)
{
	uint64_t next = (uint64_t)(unsigned)vec * 2;
	if (!span_find(&st->runs, (uint64_t)rec->cpu, next))
		next++; /* none pending from before the batch: one made inside the last */
	span_end(&st->runs, rec, (uint64_t)rec->cpu, next, rec->ts);
}

/* --- output --------------------------------------------------------------------------------- */

static int by_size(const void *a, const void *b)
{
	const struct irq_row *x = *(const struct irq_row *const *)a,
			     *y = *(const struct irq_row *const *)b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/* The name, number and CPU columns of a row (NULL: the total line). */
static void ident(struct irq_stats *st, struct row *r, const struct irq_row *x)
{
	if (x) {
		row_bytes(r, x->name, x->len);
		row_bytes(r, x->name, x->len);
		row_int(r, x->num);
	} else {
		row_word(r, "TOTAL");
		row_none(r);
		row_none(r);
	}
	int cpu = x ? x->cpu : st->o.cpu;
	if (cpu >= 0)
		row_int(r, cpu);
	else
		row_none(r);
}

/* The time columns: total, average and the share of the CPUs' time (of cpus CPUs). */
static void times(struct irq_stats *st, struct row *r, uint64_t count, uint64_t ns, double span,
		  int cpus)
{
	row_float(r, ns / 1e3);
	row_float(r, count ? ns / 1e3 / count : 0);
	if (st->o.raise || span <= 0)
		row_none(r);
	else
		row_float(r, 100.0 * ns / (span * cpus));
}

static void print_hist(struct irq_stats *st, struct tool_run *t, struct row *r,
		       const struct irq_row *x, uint64_t now)
{
	const char *unit = st->o.nanos ? "ns" : "us";
	if (!t->o.json) {
		printf("\n%s = ", st->kind == IRQ_HARD ? "hardirq" : "softirq");
		out_text(stdout, x->name, x->len, 0);
		printf(", %s %d", st->kind == IRQ_HARD ? "irq" : "vec", x->num);
		if (x->cpu >= 0)
			printf(", cpu %d", x->cpu);
		printf("\n");
		hist_log2_print(stdout, x->h, unit, "count");
		return;
	}
	row_begin(r, now);
	ident(st, r, x);
	row_word(r, unit);
	row_uint(r, x->count);
	row_float(r, x->ns / 1e3);
	FILE *f = row_json(r);
	if (f)
		hist_log2_json(f, x->h);
	row_end(r);
}

/* --prom: a row's interval added to its series (labelled as -j's keys). */
static void prom_add(struct irq_stats *st, const struct irq_row *x)
{
	char labels[512], name[256], num[16], cpu[16];
	snprintf(num, sizeof(num), "%d", x->num);
	snprintf(cpu, sizeof(cpu), "%d", x->cpu);
	snprintf(name, sizeof(name), "%.*s", (int)x->len, x->name);
	const char *numkey = st->kind == IRQ_HARD ? "irq" : "vec";
	if (x->cpu >= 0)
		prom_labels(labels, sizeof(labels), "name", name, numkey, num, "cpu", cpu, NULL);
	else
		prom_labels(labels, sizeof(labels), "name", name, numkey, num, NULL);
	struct prom_series *ps = prom_series(&st->prom, labels);
	if (!ps)
		return;
	ps->count += x->count;
	ps->sum += x->ns;
	if (x->h)
		prom_hist_add(&ps->h, x->h);
}

static void prom_write(struct irq_stats *st, struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	bool hard = st->kind == IRQ_HARD, raise = st->o.raise;
	const char *what = hard ? "spent in hardirq handlers" : "spent in softirqs";
	char runs[64], secs[64], hist[64], help[160];
	snprintf(runs, sizeof(runs), "ftrace_tools_%s_%s_total", t->tool->name,
		 raise ? "raise_waits" : "runs");
	snprintf(secs, sizeof(secs), "ftrace_tools_%s_%s_seconds_total", t->tool->name,
		 raise ? "raise_wait" : "run");
	snprintf(hist, sizeof(hist), "ftrace_tools_%s_%s_seconds", t->tool->name,
		 raise ? "raise_wait" : "run");
	if (st->o.hist) {
		snprintf(help, sizeof(help), "%s, in seconds.",
			 raise ? "The time from a softirq's raise to the run that serves it" :
			 hard  ? "The run times of hardirq handlers" :
				 "The run times of softirqs");
		prom_family(p, hist, "histogram", help);
		for (size_t i = 0; i < st->prom.n; i++)
			prom_hist(p, hist, st->prom.s[i]->labels, &st->prom.s[i]->h,
				  st->o.nanos ? 1 : 1000, PROM_NS, st->prom.s[i]->sum, PROM_NS);
		prom_commit(p);
		return;
	}
	snprintf(help, sizeof(help), "%s.",
		 raise ? "Raised softirqs served by a run" :
		 hard  ? "Hardirq handler runs" :
			 "Softirq runs");
	prom_family(p, runs, "counter", help);
	for (size_t i = 0; i < st->prom.n; i++)
		prom_uint(p, runs, st->prom.s[i]->labels, st->prom.s[i]->count);
	if (!st->o.counts) {
		snprintf(help, sizeof(help), "Seconds %s.",
			 raise ? "from softirqs' raises to the runs that served them" : what);
		prom_family(p, secs, "counter", help);
		for (size_t i = 0; i < st->prom.n; i++)
			prom_scaled(p, secs, st->prom.s[i]->labels, st->prom.s[i]->sum, PROM_NS);
	}
	prom_commit(p);
}

void irq_print(struct irq_stats *st, struct tool_run *t, uint64_t now)
{
	const struct row_table *const *tabs = st->kind == IRQ_HARD ? irq_hard_rows : irq_soft_rows;
	const struct row_table *tab = tabs[st->o.hist ? 2 : st->o.counts ? 1 : 0];
	struct row r;
	row_init(&r, tab, stdout, t->o.json, false, false);
	row_show(&r, "cpu", st->o.per_cpu || st->o.cpu >= 0);
	row_show(&r, "cpu_pct", !st->o.raise);
	double span = now > st->start_ns ? (double)(now - st->start_ns) : 0;
	st->start_ns = now;

	size_t n = 0;
	struct irq_row **rows = malloc((st->used ? st->used : 1) * sizeof(*rows));
	for (size_t i = 0; rows && st->tab && i <= st->mask; i++)
		if (st->tab[i] && st->tab[i]->count)
			rows[n++] = st->tab[i];
	if (!rows) {
		fprintf(stderr, "%s: out of memory\n", t->tool->name);
		t->failed = true;
		return;
	}
	qsort(rows, n, sizeof(*rows), by_size);
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock || t->o.interval) {
			char when[16];
			printf("[%s]\n", out_wallclock(now, when));
		}
		if (!st->o.hist)
			row_header(&r);
	}
	uint64_t count = 0, ns = 0;
	for (size_t i = 0; i < n; i++) {
		struct irq_row *x = rows[i];
		count += x->count;
		ns += x->ns;
		if (st->o.hist) {
			print_hist(st, t, &r, x, now);
		} else {
			row_begin(&r, now);
			ident(st, &r, x);
			row_uint(&r, x->count);
			if (!st->o.counts)
				times(st, &r, x->count, x->ns, span, x->cpu >= 0 ? 1 : st->ncpus);
			row_end(&r);
		}
		if (t->prom)
			prom_add(st, x);
		x->count = x->ns = 0;
		if (x->h)
			hist_log2_reset(x->h);
	}
	free(rows);
	if (t->prom)
		prom_write(st, t);
	if (st->o.hist)
		return;
	row_begin(&r, now);
	ident(st, &r, NULL);
	row_uint(&r, count);
	if (!st->o.counts)
		times(st, &r, count, ns, span, st->ncpus);
	row_end(&r);
}

/* Every start still in the table: runs under way (raises pending) at the stop. */
static bool any(void *value, void *ctx)
{
	return true;
}

void irq_report(struct irq_stats *st, const char *tool, const char *what)
{
	span_report(&st->runs, tool, what);
	st->in_progress = pair_del_if(&st->runs.starts, any, NULL);
	if (st->in_progress)
		fprintf(stderr, "%s: %llu %s when tracing stopped: not counted\n", tool,
			(unsigned long long)st->in_progress,
			st->o.raise ? "raises were not yet served" : "runs were under way");
	if (st->runs.replaced)
		fprintf(stderr,
			"%s: %llu entries were followed by another of the same number "
			"on their CPU before their exit: not counted\n",
			tool, (unsigned long long)st->runs.replaced);
	if (st->dropped)
		fprintf(stderr, "%s: %llu events of handlers past the first %d not counted\n", tool,
			(unsigned long long)st->dropped, IRQ_MAX_ROWS);
}

/* --- the kernel's names --------------------------------------------------------------------- */

static bool names_field(const struct tep_print_arg *a, const char *field)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD && a->field.name && !strcmp(a->field.name, field);
}

static int symbols(const struct tep_print_arg *a, const char *field, char **names, int max)
{
	int found = 0;
	for (; a; a = a->next) {
		if (a->type == TEP_PRINT_SYMBOL && names_field(a->symbol.field, field)) {
			for (const struct tep_print_flag_sym *s = a->symbol.symbols; s;
			     s = s->next) {
				char *end;
				unsigned long long v = s->value ? strtoull(s->value, &end, 0) : 0;
				if (!s->value || !*s->value || *end || v >= (unsigned)max ||
				    !s->str || names[v])
					continue;
				if ((names[v] = strdup(s->str)))
					found++;
			}
		} else if (a->type == TEP_PRINT_TYPE) {
			found += symbols(a->typecast.item, field, names, max);
		} else if (a->type == TEP_PRINT_OP) {
			found += symbols(a->op.left, field, names, max);
			found += symbols(a->op.right, field, names, max);
		}
	}
	return found;
}

int irq_symbols(const struct tep_event *ev, const char *field, char **names, int max)
{
	for (int i = 0; i < max; i++)
		names[i] = NULL;
	return ev ? symbols(ev->print_fmt.args, field, names, max) : 0;
}

void irq_names_free(char **names, int max)
{
	for (int i = 0; i < max; i++) {
		free(names[i]);
		names[i] = NULL;
	}
}
