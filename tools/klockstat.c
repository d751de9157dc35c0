// SPDX-License-Identifier: GPL-2.0-only
/*
 * klockstat: kernel lock contention, as bcc's klockstat and perf lock contention show it: per
 * lock and per caller, how many waits, their total, longest and average time, largest total
 * first; at the end or every interval. From lock:contention_begin and contention_end (Linux
 * 5.19), paired per thread and lock; the lock named by its symbol when it is a variable the
 * kernel's symbols list (a static lock), else its address; the caller from the kernel stack
 * of contention_begin (the stacktrace option), its first frame outside the locking and
 * scheduling code. --folded: the waiting stacks as folded lines, weighted by the time waited.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/agg.h"
#include "stream/comm.h"
#include "stream/folded.h"
#include "stream/ksym.h"
#include "base/out.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "join/span.h"
#include "tool.h"

enum { OPT_TOP = OPT_LONG + 1, OPT_FOLDED };

static struct env {
	long long top; /* --top, 0: all */
	bool folded;   /* --folded */
	struct tool_run *t;
	struct tep_event *begin_ev, *end_ev, *kstack_ev;
	struct tep_format_field *b_addr, *b_flags, *e_addr, *kcaller;
	struct ksyms *text, *data;
	bool symbols_known; /* the four below, read from the tables when first needed */
	bool data_all;	    /* the data table lists every variable (CONFIG_KALLSYMS_ALL) */
	unsigned long long lock_lo, lock_hi, sched_lo, sched_hi; /* the code a caller is not in */
	struct flag_name {
		unsigned long long bit;
		char name[24];
	} flags[32];
	int nflags;
	struct span waits;
	/* struct lock_key / struct stack_key -> struct wait_sums; by_caller: callers' addresses
	 * -> struct wait_sums, the stacks' sums merged by caller when printed */
	struct agg locks, callers, by_caller;
	struct folded *fold;
	uint64_t not_kept;
	/* --folded: the waits, and what the folded lines weigh (a wait without a stack is in
	 * no line), said at the end: the lines' sum is checked against it */
	uint64_t waits_n, folded_ns, stackless;
	struct row lrow, crow;
	struct prom_set prom_locks, prom_callers; /* --prom: waits and ns from the start */
	uint64_t prom_lost;			  /* rows not kept for --prom: out of memory */
} env = {.top = 10};

/* A wait in progress: from its thread's first contention_begin on the lock to the end. */
struct wait {
	uint32_t flags; /* of every begin of the wait, or'ed (a mutex: spun, then slept) */
	int nk;
	unsigned long long k[FOLDED_KFRAMES];
	char comm[16];
	int tgid;
};

struct lock_key {
	uint64_t addr;
	uint64_t flags;
};

struct wait_sums {
	uint64_t total_ns, max_ns;
};

/* A waiting stack, counted by: its caller is found in it when the tables are printed, kernel
 * symbols read then (none before the banner or during the run). All the frames kept, as the
 * caller was found in before: a caller deeper than a shorter key would be shown as none. */
#define CALLER_FRAMES FOLDED_KFRAMES
struct stack_key {
	uint64_t k[CALLER_FRAMES]; /* leaf first; 0 past the stack's end */
};

static const struct row_col lock_cols[] = {
	ROW_COL_WHEN,
	{"LOCK", "lock", -40, ROW_WORD, 0, ROW_NOJSON,
	 "the lock: its symbol+offset when a static one, else its address"},
	{NULL, "lock_addr", 0, ROW_HEX, 0, ROW_NOTEXT, "the lock's kernel address"},
	{NULL, "symbol", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "its symbol+offset (null: not a variable the kernel names)"},
	{"FLAGS", "flags", -14, ROW_WORD, 0, 0, "the kind of wait, from the event's flags"},
	{"COUNT", "count", 8, ROW_UINT, 0, 0, "waits ended"},
	{"TOTAL_us", NULL, 12, ROW_FLOAT, 1, ROW_NOJSON, "their total, microseconds"},
	{"MAX_us", NULL, 10, ROW_FLOAT, 1, ROW_NOJSON, "the longest, microseconds"},
	{"AVG_us", NULL, 9, ROW_FLOAT, 1, ROW_NOJSON, "their average, microseconds"},
	{NULL, "total_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "their total, nanoseconds"},
	{NULL, "max_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "the longest, nanoseconds"},
	{NULL, "avg_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "their average, nanoseconds"},
};
static const struct row_table lock_table =
	ROW_TABLE("each row: a lock (and kind of wait)", lock_cols);

static const struct row_col caller_cols[] = {
	ROW_COL_WHEN,
	{"CALLER", "caller", -40, ROW_WORD, 0, 0,
	 "the first function of the waiting stack outside the locking and scheduling code "
	 "(null and -: no stack)"},
	{"COUNT", "count", 8, ROW_UINT, 0, 0, "waits ended"},
	{"TOTAL_us", NULL, 12, ROW_FLOAT, 1, ROW_NOJSON, "their total, microseconds"},
	{"MAX_us", NULL, 10, ROW_FLOAT, 1, ROW_NOJSON, "the longest, microseconds"},
	{"AVG_us", NULL, 9, ROW_FLOAT, 1, ROW_NOJSON, "their average, microseconds"},
	{NULL, "total_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "their total, nanoseconds"},
	{NULL, "max_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "the longest, nanoseconds"},
	{NULL, "avg_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "their average, nanoseconds"},
};
static const struct row_table caller_table = ROW_TABLE("each row: a caller", caller_cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per row"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	{OPT_FOLDED, "folded", NULL,
	 "the waiting kernel stacks as folded lines for flame graphs:\ncomm;frames NANOSECONDS", 0},
	TOOL_JSON_KEYS,
	{OPT_TOP, "top", "N", "print the N largest rows of each table (default 10; 0: all)", 0},
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"klockstat -d 5            # five seconds, then the tables",
	"klockstat 1 10            # every second, ten times",
	"klockstat --top 3 -p 181  # the 3 largest of PID 181's waits",
	"klockstat --folded -d 10 > locks.folded  # waiting stacks for flamegraph",
	"klockstat -j -d 5         # as JSON lines",
	"klockstat --prom locks.prom 15 > /dev/null # counters for node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case OPT_TOP: env.top = opt_int(arg, 0, 1LL << 30, "N (rows)"); break;
	case OPT_FOLDED: env.folded = true; break;
	}
}

/* The command line parsed: what its options exclude. */
static void check(struct tool_run *t)
{
	if (env.folded && t->o.json)
		opt_fail("--folded prints folded lines: not with -j");
	if (env.folded && t->o.interval)
		opt_fail("--folded prints the stacks once, at the end: no interval");
	if (env.folded && t->prom_path)
		opt_fail("--folded prints stacks, not the tables --prom writes: not with --prom");
}

/* --- the flags' names ----------------------------------------------------------------------- */

/* A flag's value as the print fmt spells it: "4", "0x10", "(1U << 3)". 0 when none of these. */
static unsigned long long flag_value(const char *s)
{
	char *end;
	while (*s == '(' || *s == ' ')
		s++;
	unsigned long long v = strtoull(s, &end, 0);
	while (*end == 'U' || *end == 'u' || *end == 'L' || *end == 'l' || *end == ' ')
		end++;
	if (end[0] == '<' && end[1] == '<') {
		unsigned long long shift = strtoull(end + 2, &end, 0);
		v = shift < 64 ? v << shift : 0;
	}
	while (*end == ')' || *end == ' ')
		end++;
	return *end ? 0 : v;
}

/* The names of contention_begin's flags from its print fmt's __print_flags table (SPIN,
 * READ, WRITE, RT, PERCPU, MUTEX on 5.19 to 6.18), so a kernel that adds one names it. */
static void read_flag_names(struct tep_event *ev)
{
	for (struct tep_print_arg *a = ev->print_fmt.args; a; a = a->next) {
		if (a->type != TEP_PRINT_FLAGS)
			continue;
		for (struct tep_print_flag_sym *f = a->flags.flags; f && env.nflags < 32;
		     f = f->next) {
			unsigned long long v = flag_value(f->value);
			if (!v)
				continue;
			env.flags[env.nflags].bit = v;
			snprintf(env.flags[env.nflags].name, sizeof(env.flags[0].name), "%s",
				 f->str);
			env.nflags++;
		}
		return;
	}
}

static const char *flag_text(unsigned long long flags, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < env.nflags && n < len; i++) {
		if ((flags & env.flags[i].bit) != env.flags[i].bit)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", env.flags[i].name);
		flags &= ~env.flags[i].bit;
	}
	if (flags && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s0x%llx", n ? "|" : "", flags);
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}

/* --- pairing -------------------------------------------------------------------------------- */

/* What the symbol tables say, asked when first needed: when the tables are printed (late
 * tables, read then), or as the run starts for --folded (ksym.h). */
static void know_symbols(void)
{
	if (env.symbols_known)
		return;
	env.symbols_known = true;
	/* Without CONFIG_KALLSYMS_ALL a few dozen variables are listed, and the one before a
	 * static lock is some other (seen on 6.18: uprobes' mmap mutex shown as
	 * __stop_runtime_ptr_USER_PTR_MAX+0x64e6c): then no lock is named. With it, tens of
	 * thousands. */
	env.data_all = env.data && ksym_count(env.data) >= 10000;
	if (env.text) {
		env.lock_lo = ksym_addr(env.text, "__lock_text_start");
		env.lock_hi = ksym_addr(env.text, "__lock_text_end");
		env.sched_lo = ksym_addr(env.text, "__sched_text_start");
		env.sched_hi = ksym_addr(env.text, "__sched_text_end");
	}
}

/* The first frame outside the locking code (queued_spin_lock_slowpath, _raw_spin_lock:
 * __lock_text) and the scheduler's (__mutex_lock, schedule: __sched_text). */
static unsigned long long caller_of(const unsigned long long *k, int nk)
{
	know_symbols();
	for (int i = 0; i < nk; i++) {
		unsigned long long a = k[i];
		if ((a >= env.lock_lo && a < env.lock_hi) ||
		    (a >= env.sched_lo && a < env.sched_hi))
			continue;
		return a;
	}
	return 0;
}

/* The stack option's stack begins in the tracepoint's own code on some kernels
 * (trace_event_raw_event_contention_begin on 6.18): those frames are no part of the wait. */
static int skip_trace_frames(const unsigned long long *k, int nk)
{
	int i = 0;
	for (; i < nk && env.text; i++) {
		unsigned long long off;
		const char *sym = ksym_find(env.text, k[i], &off);
		if (!sym || (strncmp(sym, "trace_event_raw_event_", 22) &&
			     strncmp(sym, "perf_trace_", 11) && strncmp(sym, "__traceiter_", 12) &&
			     strncmp(sym, "__bpf_trace_", 12)))
			break;
	}
	return i;
}

/* Per begin: a hash look-up (and, for the first of a wait, its stack read). */
static void on_begin(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	uint64_t addr = (uint64_t)reader_num(rec, env.b_addr);
	bool fresh;
	struct wait *w =
		span_begin_once(&env.waits, (uint64_t)tid, addr, rec->ts, rec->cpu, 0, &fresh);
	w->flags |= (uint32_t)reader_num(rec, env.b_flags);
	if (!fresh)
		return;
	const struct reader_trailers *tr = reader_record_trailers(rec);
	for (int i = 0; tr && i < tr->n; i++)
		if (env.kstack_ev && tr->id[i] == env.kstack_ev->id)
			w->nk = folded_frames(tr->rec[i], env.kcaller, true, w->k, FOLDED_KFRAMES);
	if (env.folded) { /* (the text table read at the start) */
		int skip = skip_trace_frames(w->k, w->nk);
		if (skip) {
			w->nk -= skip;
			memmove(w->k, w->k + skip, (size_t)w->nk * sizeof(w->k[0]));
		}
		struct tool_run *t = env.t;
		w->tgid = tool_tgid(t, tid);
		snprintf(w->comm, sizeof(w->comm), "%s", tool_comm(t, tid));
	}
}

static void add(struct agg *a, const void *key, uint64_t ns)
{
	struct wait_sums *s = agg_add(a, key, 1);
	if (!s) {
		env.not_kept++;
		return;
	}
	s->total_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

static void waited(const struct tep_record *end, const struct span_start *start, uint64_t ns,
		   void *data, void *ctx)
{
	struct wait *w = data;
	struct lock_key k = {(uint64_t)reader_num(end, env.e_addr), w->flags};
	add(&env.locks, &k, ns);
	struct stack_key sk = {{0}};
	memcpy(sk.k, w->k, (size_t)(w->nk < CALLER_FRAMES ? w->nk : CALLER_FRAMES) * 8);
	add(&env.callers, &sk, ns);
	env.waits_n++;
	if (!env.folded)
		return;
	if (!w->nk)
		env.stackless++;
	else if (folded_add_n(env.fold, w->comm, w->tgid, w->k, w->nk, NULL, 0, ns ? ns : 1))
		env.not_kept++;
	else
		env.folded_ns += ns ? ns : 1;
}

static void on_end(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	span_end(&env.waits, rec, (uint64_t)tid, (uint64_t)reader_num(rec, env.e_addr), rec->ts);
}

/* --- output --------------------------------------------------------------------------------- */

struct line {
	uint64_t key[2];
	uint64_t count;
	struct wait_sums s;
};

struct lines {
	struct line *v;
	size_t n;
	size_t keysize;
};

static void collect(const void *key, uint64_t count, const void *val, void *ctx)
{
	struct lines *l = ctx;
	struct line *x = &l->v[l->n++];
	memset(x->key, 0, sizeof(x->key));
	memcpy(x->key, key, l->keysize);
	x->count = count;
	memcpy(&x->s, val, sizeof(x->s));
}

/* Longest total first; then most waits; then by key (the same order every time). */
static int by_total(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->s.total_ns != y->s.total_ns)
		return x->s.total_ns < y->s.total_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->key[0] != y->key[0])
		return x->key[0] < y->key[0] ? -1 : 1;
	return x->key[1] < y->key[1] ? -1 : x->key[1] > y->key[1];
}

static void times(struct row *r, const struct line *x)
{
	row_float(r, x->s.total_ns / 1e3);
	row_float(r, x->s.max_ns / 1e3);
	row_float(r, x->s.total_ns / 1e3 / (double)x->count);
	row_uint(r, x->s.total_ns);
	row_uint(r, x->s.max_ns);
	row_uint(r, x->s.total_ns / x->count);
}

/* A lock's name: its symbol+offset (true) when a static one the kernel names, else its
 * address (false). */
static bool lock_name(uint64_t addr, char *name, size_t len)
{
	unsigned long long off = 0;
	know_symbols();
	const char *sym = env.data_all ? ksym_find(env.data, addr, &off) : NULL;
	if (sym && off >= 1 << 16)
		sym = NULL; /* past the last variable named: not one of them */
	if (sym)
		snprintf(name, len, off ? "%s+0x%llx" : "%s", sym, off);
	else
		snprintf(name, len, "0x%llx", (unsigned long long)addr);
	return sym != NULL;
}

/* A caller's name: symbol+offset, else its address; false when there is none (no stack). */
static bool caller_name(uint64_t addr, char *name, size_t len)
{
	unsigned long long off = 0;
	const char *sym = addr && env.text ? ksym_find(env.text, addr, &off) : NULL;
	if (sym)
		snprintf(name, len, "%s+0x%llx", sym, off);
	else
		snprintf(name, len, "0x%llx", (unsigned long long)addr);
	return addr != 0;
}

/* --prom: a table's rows (all of them, not only the --top first) added to the totals, by
 * lock (its address, symbol and kind of wait) or by caller, each as -j names it ("" where
 * -j has null). */
static void prom_add(const struct lines *l, bool locks)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct line *x = &l->v[i];
		char labels[1024], name[600], addr[24], flags[200];
		if (locks) {
			bool named = lock_name(x->key[0], name, sizeof(name));
			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)x->key[0]);
			prom_labels(labels, sizeof(labels), "lock_addr", addr, "symbol",
				    named ? name : "", "flags",
				    flag_text(x->key[1], flags, sizeof(flags)), NULL);
		} else {
			bool any = caller_name(x->key[0], name, sizeof(name));
			prom_labels(labels, sizeof(labels), "caller", any ? name : "", NULL);
		}
		struct prom_series *ps =
			prom_series(locks ? &env.prom_locks : &env.prom_callers, labels);
		if (!ps) {
			env.prom_lost++;
			continue;
		}
		ps->count += x->count;
		ps->sum += x->s.total_ns;
	}
}

/* --prom: the file written, two counters a lock and two a caller. */
static void prom_write(struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	static const char *const names[] = {"ftrace_tools_klockstat_lock_waits_total",
					    "ftrace_tools_klockstat_lock_wait_seconds_total",
					    "ftrace_tools_klockstat_caller_waits_total",
					    "ftrace_tools_klockstat_caller_wait_seconds_total"};
	static const char *const helps[] = {
		"Kernel lock waits ended, by lock (address, symbol) and kind of wait.",
		"Seconds of those waits, added up.",
		"Kernel lock waits ended, by the waiting stack's first function outside the "
		"locking and scheduling code.",
		"Seconds of those waits, added up."};
	for (int f = 0; f < 4; f++) {
		const struct prom_set *set = f < 2 ? &env.prom_locks : &env.prom_callers;
		prom_family(p, names[f], "counter", helps[f]);
		for (size_t i = 0; i < set->n; i++)
			if (f % 2)
				prom_scaled(p, names[f], set->s[i]->labels, set->s[i]->sum,
					    PROM_NS);
			else
				prom_uint(p, names[f], set->s[i]->labels, set->s[i]->count);
	}
	prom_commit(p);
}

static int print_table(struct tool_run *t, struct agg *a, size_t keysize, bool locks,
		       const char *when)
{
	struct lines l = {calloc(a->used ? a->used : 1, sizeof(*l.v)), 0, keysize};
	if (!l.v) {
		fprintf(stderr, "klockstat: out of memory for a table of %zu rows\n", a->used);
		t->failed = true;
		return -1;
	}
	agg_sorted(a, collect, &l);
	qsort(l.v, l.n, sizeof(*l.v), by_total);
	if (t->prom)
		prom_add(&l, locks);
	struct row *r = locks ? &env.lrow : &env.crow;
	if (!t->o.json) {
		row_header(r);
		if (!l.n)
			out_none(stdout, "lock contention");
	}
	size_t shown = env.top && (size_t)env.top < l.n ? (size_t)env.top : l.n;
	for (size_t i = 0; i < shown; i++) {
		const struct line *x = &l.v[i];
		char name[600], flags[200];
		row_begin(r, 0);
		row_word(r, when);
		if (locks) {
			bool named = lock_name(x->key[0], name, sizeof(name));
			row_word(r, name);
			row_hex(r, x->key[0]);
			if (named)
				row_word(r, name);
			else
				row_none(r);
			row_word(r, flag_text(x->key[1], flags, sizeof(flags)));
		} else if (caller_name(x->key[0], name, sizeof(name))) {
			row_word(r, name);
		} else {
			row_none(r);
		}
		row_uint(r, x->count);
		times(r, x);
		row_end(r);
	}
	free(l.v);
	agg_reset(a);
	return 0;
}

/* The stacks' sums merged by caller into by_caller (the frames of the tracepoint's own code
 * skipped first); the stacks forgotten. */
static void merge_callers(const void *key, uint64_t count, const void *val, void *ctx)
{
	const struct stack_key *sk = key;
	const struct wait_sums *v = val;
	unsigned long long k[CALLER_FRAMES];
	int nk = 0;
	while (nk < CALLER_FRAMES && sk->k[nk])
		k[nk] = sk->k[nk], nk++;
	int skip = skip_trace_frames(k, nk);
	uint64_t caller = caller_of(k + skip, nk - skip);
	struct wait_sums *s = agg_add(&env.by_caller, &caller, count);
	if (!s) {
		env.not_kept += count;
		return;
	}
	s->total_ns += v->total_ns;
	if (v->max_ns > s->max_ns)
		s->max_ns = v->max_ns;
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	if (!t->o.json) {
		out_table_gap(stdout);
		printf("%s\n", when);
	}
	if (print_table(t, &env.locks, sizeof(struct lock_key), true, when))
		return 1;
	if (!t->o.json)
		putchar('\n');
	agg_sorted(&env.callers, merge_callers, NULL);
	agg_reset(&env.callers);
	if (print_table(t, &env.by_caller, sizeof(uint64_t), false, when))
		return 1;
	if (t->prom)
		prom_write(t);
	prom_say_lost(&env.prom_lost, "klockstat", "rows");
	if (env.not_kept) {
		fprintf(stderr, "klockstat: WARNING: %llu waits not counted (out of memory)\n",
			(unsigned long long)env.not_kept);
		env.not_kept = 0;
	}
	return 0;
}

static void end(struct tool_run *t)
{
	if (env.folded) {
		folded_print(env.fold, stdout);
		fprintf(stderr, "klockstat: %llu waits, the folded lines weigh %llu ns",
			(unsigned long long)env.waits_n, (unsigned long long)env.folded_ns);
		if (env.stackless)
			fprintf(stderr, " (%llu waits without a stack in no line)",
				(unsigned long long)env.stackless);
		fputc('\n', stderr);
	} else if (!t->o.interval || (!t->last_interval && (env.locks.used || env.callers.used)))
		interval(t, reader_now());
	else if (t->prom && !t->intervals) /* stopped before the first table: a file all the same */
		prom_write(t);
	span_report(&env.waits, "klockstat", "waits ended");
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	env.begin_ev = session_load_event(&t->s, "lock", "contention_begin");
	env.end_ev = session_load_event(&t->s, "lock", "contention_end");
	if (!env.begin_ev || !env.end_ev) {
		fprintf(stderr, "klockstat: no lock:contention_begin and contention_end in this "
				"kernel (Linux 5.19)\n");
		return TOOL_FAIL;
	}
	env.b_addr = tep_find_field(env.begin_ev, "lock_addr");
	env.b_flags = tep_find_field(env.begin_ev, "flags");
	env.e_addr = tep_find_field(env.end_ev, "lock_addr");
	if (!env.b_addr || !env.b_flags || !env.e_addr) {
		fprintf(stderr, "klockstat: lock:contention_begin/end without lock_addr and flags "
				"on this kernel\n");
		return TOOL_FAIL;
	}
	read_flag_names(env.begin_ev);
	/* Kernel symbols read when the tables are printed; --folded names each new stack as
	 * it is counted, from a text table read while the run starts. */
	env.text = env.folded ? ksym_load() : ksym_load_late(false);
	env.data = ksym_load_late(true);
	if (agg_init(&env.locks, sizeof(struct lock_key), sizeof(struct wait_sums)) ||
	    agg_init(&env.callers, sizeof(struct stack_key), sizeof(struct wait_sums)) ||
	    agg_init(&env.by_caller, sizeof(uint64_t), sizeof(struct wait_sums)) ||
	    span_init_run(t, &env.waits, 4096, sizeof(struct wait), SPAN_LOSS_ALL, waited, NULL))
		return TOOL_FAIL;
	if (env.folded && !(env.fold = folded_new(env.text)))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "kernel lock contention");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	struct tep_event *ustack;
	int ret;
	/* Without stacks the locks are still counted; the callers are not known. */
	if (!session_load_event(&t->s, "ftrace", "kernel_stack"))
		fprintf(stderr, "klockstat: no kernel stacks in this kernel (CONFIG_STACKTRACE): "
				"callers not known\n");
	else if ((ret = tool_stacks(t, true, false, false, &env.kstack_ev, &ustack)))
		return ret;
	env.kcaller = env.kstack_ev ? tep_find_field(env.kstack_ev, "caller") : NULL;
	row_init(&env.lrow, &lock_table, stdout, t->o.json, false, false);
	row_init(&env.crow, &caller_table, stdout, t->o.json, false, false);
	if ((ret = tool_trace(t, env.begin_ev, NULL, on_begin, NULL)) ||
	    (ret = tool_trace(t, env.end_ev, NULL, on_end, NULL)))
		return ret ? ret : TOOL_FAIL;
	return TOOL_OK;
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.waits);
	agg_free(&env.locks);
	agg_free(&env.callers);
	agg_free(&env.by_caller);
	prom_set_free(&env.prom_locks);
	prom_set_free(&env.prom_callers);
	folded_free(env.fold);
	ksym_free(env.text);
	ksym_free(env.data);
}

static const struct tool klockstat = {
	.name = "klockstat",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 0,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&lock_table, &caller_table, NULL},
	.option = option,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&klockstat, argc, argv);
}
