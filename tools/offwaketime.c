// SPDX-License-Identifier: GPL-2.0-only
/*
 * offwaketime: offcputime joined with the waker. Each time a task leaves the CPU not
 * runnable (sched_switch), its stacks then; the task that wakes it (sched_waking, in the
 * waker's context) and the waker's stacks then; the time until the blocked task is switched
 * in again, summed by the two. At the end or every interval, the largest first, or
 * (--folded) as folded lines for flame graphs: target;user frames;kernel frames;--;waker
 * kernel frames;waker user frames;waker US (the waker's innermost frame next to the blocked
 * task's, its name at the top). -p: only the blocked tasks of that process; -m/-M: only
 * blocked times of at least, at most so long.
 *
 * Paired here by thread (offwake.h, span.h). A blocked time whose wake-up was not seen (a
 * loss, or a wake-up by a task outside --cgroup) is counted under the waker "[unknown]".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>

#include "base/opt.h"
#include "base/out.h"
#include "base/row.h"
#include "base/sig.h"
#include "count/pprof.h"
#include "domain/offwake.h"
#include "domain/schedev.h"
#include "join/span.h"
#include "kernel/session.h"
#include "stream/comm.h"
#include "stream/ksym.h"
#include "stream/reader.h"
#include "stream/usym.h"
#include "tool.h"

#define OPT_PPROF (OPT_LONG + 2)

/* A blocked task from its switch out: its stacks then, and its waker's when woken. */
struct blocked {
	struct offwake_stack target, waker;
};

static struct env {
	bool kstack, ustack;
	struct sched_events se;
	struct offwake_waking waking;
	struct span s;
	struct ksyms *ksyms;
	struct offwake_trailers at_switch, at_wake;
	struct offwake_output out;
	uint64_t counted, ns_total, unwoken;
	bool oom;
	struct row row;
	struct tool_run *t;
} env = {.out = {.label_a = "target", .label_b = "waker"}};

static const struct row_col cols[] = {
	{NULL, "target", 0, ROW_STR, 0, 0, "the blocked task's name when it left the CPU"},
	{NULL, "kstack", 0, ROW_JSON, 0, 0,
	 "its kernel stack then, innermost frame first (-s; [] without)"},
	{NULL, "ustack", 0, ROW_JSON, 0, 0,
	 "its user stack then, innermost frame first (-U; [] without)"},
	{NULL, "waker", 0, ROW_STR, 0, 0,
	 "the name of the task that woke it ([unknown]: not seen)"},
	{NULL, "waker_kstack", 0, ROW_JSON, 0, 0,
	 "the waker's kernel stack then, innermost frame first"},
	{NULL, "waker_ustack", 0, ROW_JSON, 0, 0,
	 "the waker's user stack then, innermost frame first"},
	{NULL, "count", 0, ROW_UINT, 0, 0, "the blocked times counted"},
	{NULL, "us", 0, ROW_UINT, 0, 0, "the time blocked until switched in, microseconds in all"},
};
static const struct row_table table = ROW_TABLE("each pair of stacks", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'f', "folded", NULL,
	 "folded lines for flame graphs: target;frames;--;waker\nframes leaf first;waker US "
	 "(kernel frames _[k])",
	 0},
	TOOL_JSON("one JSON object per pair of stacks"),
	TOOL_TID,
	{'m', "min", "USECS", "only blocked times of at least USECS microseconds", 0},
	{'M', "max", "USECS", "only blocked times of at most USECS microseconds", 0},
	{'p', NULL, "PID", "only the blocked tasks of this process (all its threads)",
	 TOOL_OPT_PID},
	{'s', NULL, NULL, "kernel stacks (default: kernel and user stacks)", 0},
	{'U', NULL, NULL, "user stacks (default: both; ftrace's: at most 8 frames)", 0},
	{OPT_PPROF, "pprof", "FILE",
	 "also write the stacks to FILE as a gzip'd pprof profile of the\nblocked time (go "
	 "tool pprof)",
	 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"offwaketime -d 5             # 5 seconds, kernel and user stacks",
	"offwaketime -s -p 181 -d 10  # PID 181's blocked threads, kernel stacks",
	"offwaketime -s -m 1000 -d 5  # blocked 1 ms or more",
	"offwaketime -s --folded -d 10 | flamegraph > offwake.svg   # a flame graph",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'm': env.out.min_ns = (uint64_t)opt_int(arg, 0, UINT32_MAX, "USECS") * 1000; break;
	case 'M': env.out.max_ns = (uint64_t)opt_int(arg, 0, UINT32_MAX, "USECS") * 1000; break;
	case 's': env.kstack = true; break;
	case 'U': env.ustack = true; break;
	case 'f': env.out.folded = true; break;
	case OPT_PPROF: env.out.pprof = arg; break;
	}
}

static void check(struct tool_run *t)
{
	offwake_output_check(&env.out, t->o.json, t->o.interval);
	if (!env.kstack && !env.ustack)
		env.kstack = env.ustack = true;
}

/* --- per event ------------------------------------------------------------------------------ */

/* Switched in again: its blocked time, summed under its stacks and its waker's. */
static void on_back(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		    void *data, void *ctx)
{
	struct blocked *b = data;
	if (st->kind) /* preempted: not blocked */
		return;
	if (!offwake_output_keeps(&env.out, ns))
		return;
	if (!b->waker.comm[0]) {
		snprintf(b->waker.comm, sizeof(b->waker.comm), "[unknown]");
		env.unwoken++;
	}
	env.counted++;
	env.ns_total += ns;
	if (offwake_add(&env.out.sums, &b->target, &b->waker, ns) && !env.oom) {
		env.oom = true;
		fprintf(stderr, "offwaketime: out of memory for the stacks: ending\n");
		env.t->failed = true;
		sig_request_stop();
	}
}

static void on_switch(struct tep_record *rec, void *ctx)
{
	long long prev = offwake_switch(&env.se, &env.s, rec, true);
	if (prev < 0)
		return;
	/* A preempted task's switch in ends a span too (kind 1, not counted): a switch in
	 * without a start is then one whose switch out was not seen. */
	if (sched_runnable(&env.se, reader_num(rec, env.se.prev_state))) {
		span_begin(&env.s, (uint64_t)prev, 0, rec->ts, rec->cpu, 1);
		return;
	}
	struct blocked *b = span_begin(&env.s, (uint64_t)prev, 0, rec->ts, rec->cpu, 0);
	reader_strcpy(b->target.comm, sizeof(b->target.comm), rec, env.se.prev_comm);
	b->target.tgid = (int32_t)prev;
	struct comm_task info;
	if (env.t->names && comm_task(env.t->names, (int)prev, &info) == 0)
		b->target.tgid = info.tgid;
	offwake_stack_read(&env.at_switch, rec, &b->target);
}

/* The last wake-up before the switch in is the one kept (as bcc's). */
static void on_waking(struct tep_record *rec, void *ctx)
{
	long long tid = offwake_woken(&env.se, &env.s, &env.waking, rec);
	struct span_start *st = tid > 0 ? span_find(&env.s, (uint64_t)tid, 0) : NULL;
	if (st && !st->kind)
		offwake_waker(env.t, &env.at_wake, rec, &((struct blocked *)span_data(st))->waker);
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (env.out.pprof && pprof_check(env.out.pprof)) {
		fprintf(stderr, "offwaketime: --pprof: cannot write %s: %s\n", env.out.pprof,
			strerror(errno));
		return TOOL_FAIL;
	}
	if (sched_load(&t->s, &env.se, false) || offwake_waking_load(&t->s, &env.waking))
		return TOOL_FAIL;
	t->follow_names = true; /* the wakers' names, the processes for user symbols */
	t->buffer_kb = session_big_buffer_kb(); /* each switch with its stacks */
	if (env.kstack) /* read when the stacks are printed: nothing before the banner */
		env.ksyms = ksym_load_late(false);
	if (offwake_sums_init(&env.out.sums, env.ksyms, true, "__schedule", "try_to_wake_up"))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "blocked time by %s stacks and the waker's",
		 env.kstack && env.ustack ? "kernel and user" :
		 env.kstack		  ? "kernel" :
					    "user");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	offwake_output_start(&env.out);
	struct tep_event *kev = NULL, *uev = NULL;
	int ret = tool_stacks(t, env.kstack, env.ustack, false, &kev, &uev);
	if (ret)
		return ret;
	/* (the frames above __schedule and try_to_wake_up are cut when the stacks are named:
	 * offwake_sums_init) */
	offwake_trailers_init(&env.at_switch, kev, uev, NULL, NULL);
	offwake_trailers_init(&env.at_wake, kev, uev, NULL, NULL);
	return offwake_trace(t, &env.se, &env.waking, &env.s, sizeof(struct blocked), on_back,
			     on_switch, on_waking);
}

/* --- the output ----------------------------------------------------------------------------- */

static void text_frame(const char *f, size_t n, void *ctx)
{
	printf("    %.*s\n", (int)n, f);
}

static void print_pair(const char *line, uint64_t count, uint64_t ns, void *ctx)
{
	/* target;frames;--;waker frames leaf first;waker */
	const char *semi = strchr(line, ';');
	const char *sep = semi ? strstr(semi, ";--;") : NULL;
	if (!sep)
		return;
	const char *wk = sep + 4, *wname = strrchr(wk, ';');
	wname = wname ? wname + 1 : wk;
	char tname[80], waker[80];
	size_t tl = folded_unescape(line, (size_t)(semi - line) < 64 ? (size_t)(semi - line) : 64,
				    tname);
	size_t wl = folded_unescape(wname, strlen(wname) < 64 ? strlen(wname) : 64, waker);
	size_t tlen = (size_t)(sep - line), wlen = strlen(wk);
	if (env.t->o.json) {
		row_begin(&env.row, 0);
		row_bytes(&env.row, tname, tl);
		for (int kernel = 1; kernel >= 0; kernel--) {
			FILE *f = row_json(&env.row);
			if (f)
				offwake_json_frames(f, line, tlen, false, kernel);
		}
		row_bytes(&env.row, waker, wl);
		for (int kernel = 1; kernel >= 0; kernel--) {
			FILE *f = row_json(&env.row);
			if (f)
				offwake_json_frames(f, wk, wlen, true, kernel);
		}
		row_uint(&env.row, count);
		row_uint(&env.row, ns / 1000);
		row_end(&env.row);
		return;
	}
	/* the waker's name and stacks, then the blocked task's: kernel then user frames, each
	 * innermost first */
	printf("    waker:   ");
	out_text(stdout, waker, wl, 0);
	printf("\n");
	offwake_frames(wk, wlen, true, true, text_frame, NULL);
	offwake_frames(wk, wlen, true, false, text_frame, NULL);
	printf("    --\n");
	offwake_frames(line, tlen, false, true, text_frame, NULL);
	offwake_frames(line, tlen, false, false, text_frame, NULL);
	printf("    target:  ");
	out_text(stdout, tname, tl, 0);
	printf("\n        %llu us, %llu times\n\n", (unsigned long long)(ns / 1000),
	       (unsigned long long)count);
}

static int interval(struct tool_run *t, uint64_t now)
{
	env.out.fn = print_pair;
	if (offwake_output_print(&env.out, t, now, "blocked time"))
		t->failed = true;
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	span_report(&env.s, "offwaketime", "switches in");
	sched_chain_report(&env.se.chain, "offwaketime", env.s.replaced,
			   "the blocked time of the tasks switched out or in unseen");
	fprintf(stderr,
		"offwaketime: %llu blocked times counted, %.6f s in all, %llu without a wake-up "
		"seen%s",
		(unsigned long long)env.counted, env.ns_total / 1e9,
		(unsigned long long)env.unwoken, env.out.left_out ? "" : "\n");
	if (env.out.left_out)
		fprintf(stderr, "; %llu outside -m/-M left out\n",
			(unsigned long long)env.out.left_out);
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.s);
	sched_chain_free(&env.se.chain);
	offwake_output_free(&env.out);
	ksym_free(env.ksyms);
	usym_addr_free();
	env.ksyms = NULL;
}

static const struct tool offwaketime = {
	.name = "offwaketime",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "stacks",
	.interval_default_s = 0,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&offwaketime, argc, argv);
}
