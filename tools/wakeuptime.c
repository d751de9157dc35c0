// SPDX-License-Identifier: GPL-2.0-only
/*
 * wakeuptime: who woke the tasks that blocked, and how long they were blocked. Each time a
 * task leaves the CPU not runnable (sched_switch), until another task wakes it
 * (sched_waking, in the waker's context): the blocked time, summed by the waker's name and
 * stack then (the kernel stack, -U its user stack) and the blocked task's name; at the end or
 * every interval, the largest first, or (--folded) as folded lines for flame graphs:
 * waker;user frames;kernel frames;--;target MICROSECONDS. -p: only the blocked tasks of that
 * process (bcc's meaning); -m/-M: only blocked times of at least, at most so long.
 *
 * The blocked time ends at the wake-up, not at the switch in (offcputime's end): the wait
 * for a CPU after it is not the waker's. Paired here by thread (offwake.h, span.h).
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
#include "stream/ksym.h"
#include "stream/reader.h"
#include "stream/usym.h"
#include "tool.h"

#define OPT_PPROF (OPT_LONG + 2)

static struct env {
	bool kstack, ustack;
	struct sched_events se;
	struct offwake_waking waking;
	struct span s;
	struct ksyms *ksyms;
	struct offwake_trailers tr;
	struct offwake_output out;
	uint64_t counted, ns_total;
	bool oom;
	struct row row;
	struct tool_run *t;
} env = {.out = {.label_a = "waker", .label_b = "target"}};

static const struct row_col cols[] = {
	{NULL, "waker", 0, ROW_STR, 0, 0, "the name of the task that woke it"},
	{NULL, "kstack", 0, ROW_JSON, 0, 0,
	 "the waker's kernel stack then, innermost frame first (-s; [] without)"},
	{NULL, "ustack", 0, ROW_JSON, 0, 0,
	 "the waker's user stack then, innermost frame first (-U; [] without)"},
	{NULL, "target", 0, ROW_STR, 0, 0, "the name of the task it woke"},
	{NULL, "count", 0, ROW_UINT, 0, 0, "the wake-ups counted"},
	{NULL, "us", 0, ROW_UINT, 0, 0, "the time blocked until then, microseconds in all"},
};
static const struct row_table table = ROW_TABLE("each waker stack and target", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'f', "folded", NULL,
	 "folded lines for flame graphs: waker;user frames;kernel\nframes;--;target US "
	 "(kernel frames _[k])",
	 0},
	TOOL_JSON("one JSON object per waker stack and target"),
	TOOL_TID,
	{'m', "min", "USECS", "only blocked times of at least USECS microseconds", 0},
	{'M', "max", "USECS", "only blocked times of at most USECS microseconds", 0},
	{'p', NULL, "PID", "only the blocked tasks of this process (all its threads)",
	 TOOL_OPT_PID},
	{'s', NULL, NULL, "the waker's kernel stack (the default)", 0},
	{'U', NULL, NULL, "the waker's user stack (ftrace's: at most 8 frames)", 0},
	{OPT_PPROF, "pprof", "FILE",
	 "also write the stacks to FILE as a gzip'd pprof profile of the\nblocked time (go "
	 "tool pprof)",
	 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"wakeuptime -d 5            # 5 seconds, the wakers' kernel stacks",
	"wakeuptime -p 181 -d 10    # who wakes PID 181's threads, 10 seconds",
	"wakeuptime -m 1000 -d 5    # blocked 1 ms or more",
	"wakeuptime -s -U -d 5      # the wakers' kernel and user stacks",
	"wakeuptime --folded -d 10 | flamegraph > wake.svg   # a flame graph",
	"wakeuptime -j 1 3          # three 1-second intervals as JSON",
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
	if (!env.ustack)
		env.kstack = true;
}

/* --- per event ------------------------------------------------------------------------------ */

/* A task blocked: its time begins (the next switch in of a task forgets a start left). */
static void on_switch(struct tep_record *rec, void *ctx)
{
	long long prev = offwake_switch(&env.se, &env.s, rec, false);
	if (prev < 0 || sched_runnable(&env.se, reader_num(rec, env.se.prev_state)))
		return;
	span_begin(&env.s, (uint64_t)prev, 0, rec->ts, rec->cpu, 0);
}

/* The wake-up of a blocked task: summed under its waker's stacks. */
static void on_woken(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		     void *data, void *ctx)
{
	if (!offwake_output_keeps(&env.out, ns))
		return;
	static struct offwake_stack waker, target;
	offwake_waker(env.t, &env.tr, end, &waker);
	reader_strcpy(target.comm, sizeof(target.comm), end, env.waking.comm);
	env.counted++;
	env.ns_total += ns;
	if (offwake_add(&env.out.sums, &waker, &target, ns) && !env.oom) {
		env.oom = true;
		fprintf(stderr, "wakeuptime: out of memory for the stacks: ending\n");
		env.t->failed = true;
		sig_request_stop();
	}
}

static void on_waking(struct tep_record *rec, void *ctx)
{
	long long tid = offwake_woken(&env.se, &env.s, &env.waking, rec);
	if (tid > 0)
		span_end(&env.s, rec, (uint64_t)tid, 0, rec->ts);
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (env.out.pprof && pprof_check(env.out.pprof)) {
		fprintf(stderr, "wakeuptime: --pprof: cannot write %s: %s\n", env.out.pprof,
			strerror(errno));
		return TOOL_FAIL;
	}
	if (sched_load(&t->s, &env.se, false))
		return TOOL_FAIL;
	/* sched_waking is recorded by the waker (sched_wakeup may be by the woken task's CPU) */
	if (offwake_waking_load(&t->s, &env.waking))
		return TOOL_FAIL;
	t->follow_names = true; /* the wakers' names, their processes for user symbols */
	if (env.kstack)		/* read when the stacks are printed: nothing before the banner */
		env.ksyms = ksym_load_late(false);
	if (offwake_sums_init(&env.out.sums, env.ksyms, false, "try_to_wake_up", NULL))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "blocked time by waker %s stack%s",
		 env.kstack && env.ustack ? "kernel and user" :
		 env.kstack		  ? "kernel" :
					    "user",
		 env.kstack && env.ustack ? "s" : "");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	offwake_output_start(&env.out);
	struct tep_event *kev = NULL, *uev = NULL;
	int ret = tool_stacks(t, env.kstack, env.ustack, false, &kev, &uev);
	if (ret)
		return ret;
	/* (the frames above try_to_wake_up, the tracepoint's and ftrace's, are cut when the
	 * stacks are named: offwake_sums_init) */
	offwake_trailers_init(&env.tr, kev, uev, NULL, NULL);
	return offwake_trace(t, &env.se, &env.waking, &env.s, 8, on_woken, on_switch, on_waking);
}

/* --- the output ----------------------------------------------------------------------------- */

static void text_frame(const char *f, size_t n, void *ctx)
{
	printf("    %.*s\n", (int)n, f);
}

/* A name from a folded line (its escapes undone) into out (80 bytes). */
static size_t name_of(const char *s, size_t n, char *out)
{
	return folded_unescape(s, n < 64 ? n : 64, out);
}

static void print_pair(const char *line, uint64_t count, uint64_t ns, void *ctx)
{
	/* waker;frames;--;target */
	const char *semi = strchr(line, ';');
	const char *sep = semi ? strstr(semi, ";--;") : NULL;
	if (!sep)
		return;
	const char *target = sep + 4;
	char waker[80], tname[80];
	size_t wl = name_of(line, (size_t)(semi - line), waker);
	size_t tl = name_of(target, strlen(target), tname);
	size_t stack = (size_t)(sep - line);
	if (env.t->o.json) {
		row_begin(&env.row, 0);
		row_bytes(&env.row, waker, wl);
		for (int kernel = 1; kernel >= 0; kernel--) {
			FILE *f = row_json(&env.row);
			if (f)
				offwake_json_frames(f, line, stack, false, kernel);
		}
		row_bytes(&env.row, tname, tl);
		row_uint(&env.row, count);
		row_uint(&env.row, ns / 1000);
		row_end(&env.row);
		return;
	}
	printf("    target:  ");
	out_text(stdout, tname, tl, 0);
	printf("\n");
	offwake_frames(line, stack, false, true, text_frame, NULL);
	if (env.kstack && env.ustack)
		printf("    --\n");
	offwake_frames(line, stack, false, false, text_frame, NULL);
	printf("    waker:   ");
	out_text(stdout, waker, wl, 0);
	printf("\n        %llu us, %llu wake-ups\n\n", (unsigned long long)(ns / 1000),
	       (unsigned long long)count);
}

static int interval(struct tool_run *t, uint64_t now)
{
	env.out.fn = print_pair;
	if (offwake_output_print(&env.out, t, now, "wake-up"))
		t->failed = true;
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	sched_chain_report(&env.se.chain, "wakeuptime", env.s.replaced,
			   "the blocked time of the tasks switched out unseen");
	fprintf(stderr, "wakeuptime: %llu wake-ups of blocked tasks counted, %.6f s blocked%s",
		(unsigned long long)env.counted, env.ns_total / 1e9, env.out.left_out ? "" : "\n");
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

static const struct tool wakeuptime = {
	.name = "wakeuptime",
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
	return tool_main(&wakeuptime, argc, argv);
}
