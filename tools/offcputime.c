// SPDX-License-Identifier: GPL-2.0-only
/*
 * offcputime: where tasks wait off the CPU, summed by stack: each time a task is switched
 * out (sched_switch), its kernel stack (-s) and user stack (-U) at that point, both by
 * default, and the time until it is switched in again; at the end, the total time of each
 * stack, largest first, or (--folded) as folded lines for flame graphs: comm;user
 * frames;kernel frames MICROSECONDS. -m: only times off the CPU of at least that many
 * microseconds; -u/-k: only user or only kernel threads.
 *
 * Paired here (span.h: a switch out, by thread, until its switch in, on any CPU), from every
 * switch with its stacks: the kernel's tables cannot keep a stack until the switch in
 * before Linux 6.3 (stacktrace variables).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "count/pprof.h"
#include "count/tracejson.h"
#include "stream/comm.h"
#include "stream/evprint.h"
#include "stream/folded.h"
#include "stream/ksym.h"
#include "base/opt.h"
#include "base/out.h"
#include "base/pair.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/offwake.h"
#include "domain/schedev.h"
#include "kernel/session.h"
#include "base/sig.h"
#include "join/span.h"
#include "stream/swstack.h"
#include "tool.h"
#include "stream/usym.h"

/* a kernel thread, in /proc/PID/stat's flags (include/linux/sched.h) */
#define PF_KTHREAD 0x00200000
#define OPT_VIA (OPT_LONG + 2)
#define OPT_PPROF (OPT_LONG + 3)

enum via { VIA_BEST, VIA_PERF, VIA_FTRACE };
static const char *const via_names[] = {"perf", "ftrace"};

/* A switch out: the task's name then and its stacks, until its switch in (the user stack:
 * ftrace's, when the perf event's could not be had). */
#define out offwake_stack

/* A time off the CPU that waits for the perf sample of its switch out (read at the wake-up
 * that follows: the sample was written at the switch out, before the switch in was read). */
struct back {
	int tid, tgid;
	uint64_t out_ns, in_ns;
	struct out o; /* its u unused */
};

static struct env {
	bool kstack, ustack, folded, user_only, kernel_only, verbose;
	/* -U: user stacks from the context-switch perf event (swstack.h), else from ftrace */
	bool perf_ustack;
	enum via via;
	char perf_why[256]; /* why not */
	struct swstack sw;
	struct back *backs;
	size_t nbacks, capbacks;
	uint64_t seen_ns; /* the time of the last switch read */
	uint64_t min_ns;
	struct sched_events se;
	struct span s;
	struct ksyms *ksyms;
	struct folded *fold;
	const char *pprof;		 /* --pprof FILE */
	uint64_t start_wall, start_mono; /* when tracing began, for --pprof */
	struct tep_event *kstack_ev, *ustack_ev;
	struct offwake_trailers tr; /* the stacks after each switch, from __schedule */
	struct pair_table kthreads; /* tid -> 1 kernel thread, 2 user thread */
	uint64_t counted, short_ones, ns_total;
	struct row row;
	struct tool_run *t;
} env;

/* Each stack, largest total first (-j). */
static const struct row_col cols[] = {
	{NULL, "comm", 0, ROW_STR, 0, 0, "the task's name when it left the CPU"},
	{NULL, "kstack", 0, ROW_JSON, 0, 0,
	 "its kernel stack then, innermost frame first (-s; [] without)"},
	{NULL, "ustack", 0, ROW_JSON, 0, 0,
	 "its user stack then, innermost frame first (-U; [] without)"},
	{NULL, "us", 0, ROW_UINT, 0, 0, "the time off the CPU from there, microseconds in all"},
};
static const struct row_table table = ROW_TABLE("each stack, at the end", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'f', "folded", NULL,
	 "folded lines for flame graphs: comm;user frames;kernel frames US\n"
	 "(kernel frames _[k])",
	 0},
	TOOL_JSON("one JSON object per stack"),
	{'k', NULL, NULL, "only kernel threads", 0},
	TOOL_TID,
	{'m', NULL, "USECS", "only times off the CPU of at least USECS microseconds", 0},
	TOOL_PID,
	{'s', NULL, NULL, "kernel stacks (default: kernel and user stacks)", 0},
	{'u', NULL, NULL, "only user threads", 0},
	{'U', NULL, NULL,
	 "user stacks (default: both; walked by frame pointers: from perf\nevents, up to "
	 "127 frames, else from ftrace, at most 8)",
	 0},
	{'v', NULL, NULL, "say where the stacks come from, then exit", 0},
	{OPT_PPROF, "pprof", "FILE",
	 "also write the stacks to FILE as a gzip'd pprof profile of the\ntime off the CPU "
	 "(go tool pprof)",
	 0},
	{OPT_VIA, "via", "MECH",
	 "where the user stacks come from: perf (events, up to 127 frames)\n"
	 "or ftrace (at most 8); default: perf where it can be opened",
	 0},
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"offcputime 5             # 5 seconds, kernel and user stacks",
	"offcputime -s -m 1000 5  # kernel stacks, off the CPU 1 ms or more",
	"offcputime -p 181 -d 10  # PID 181's threads for 10 seconds",
	"offcputime -u --folded 10 | flamegraph > off.svg   # user threads, a flame graph",
	"offcputime -v -U         # where the user stacks come from here",
	"offcputime -s --trace-json off.json 5 # each time off the CPU, for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'k': env.kernel_only = true; break;
	case 'm': env.min_ns = (uint64_t)opt_int(arg, 0, UINT32_MAX, "USECS") * 1000; break;
	case 's': env.kstack = true; break;
	case 'u': env.user_only = true; break;
	case 'U': env.ustack = true; break;
	case 'v': env.verbose = true; break;
	case 'f': env.folded = true; break;
	case OPT_PPROF: env.pprof = arg; break;
	case OPT_VIA: env.via = (enum via)(opt_choice(arg, via_names, 2, "MECH") + 1); break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	tool_operand_duration(t, argc, argv);
	if (env.user_only && env.kernel_only)
		opt_fail("-u and -k exclude each other");
	if (env.folded && t->o.json)
		opt_fail("--folded prints folded lines: not with -j");
	if (!env.kstack && !env.ustack)
		env.kstack = env.ustack = true;
	if (env.via && !env.ustack)
		opt_fail("--via says where the user stacks come from: not with -s alone");
}

/* --- per switch ----------------------------------------------------------------------------- */

/* Is tid a kernel thread (PF_KTHREAD in /proc/TID/stat's flags; a task gone by then: a
 * child of kthreadd)? Looked up once per thread. */
static bool kernel_thread(int tid)
{
	unsigned char *v = pair_get(&env.kthreads, (uint64_t)tid, 0);
	if (v)
		return *v == 1;
	bool kthread = false, known = false;
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = 0;
		/* after "(comm) ": state ppid pgrp session tty_nr tpgid flags */
		const char *p = strrchr(buf, ')');
		unsigned long flags;
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1) {
			kthread = flags & PF_KTHREAD;
			known = true;
		}
	}
	struct comm_task info;
	if (!known && env.t->names && comm_task(env.t->names, tid, &info) == 0)
		kthread = tid == 2 || info.ppid == 2;
	v = pair_put(&env.kthreads, (uint64_t)tid, 0);
	*v = kthread ? 1 : 2;
	return kthread;
}

static void out_of_memory(void)
{
	fprintf(stderr, "offcputime: out of memory for the stacks: ending\n");
	env.t->failed = true;
	sig_request_stop();
}

/* --trace-json: the name of a time off the CPU, the function it waits in: the innermost
 * kernel frame outside the scheduler (the first whose name has no "schedule": __schedule,
 * schedule, schedule_timeout, io_schedule, preempt_schedule_common ...), as -j prints it;
 * the innermost frame when all are; "off-cpu" without kernel stacks. */
static const char *wait_name(const struct out *o, char *buf, size_t size)
{
	const char *first = NULL;
	for (int i = 0; i < o->nk; i++) {
		unsigned long long off, addr = o->k[i];
		/* above the innermost, return addresses: folded.c names addr - 1 */
		const char *sym =
			env.ksyms ? ksym_find(env.ksyms, i && addr ? addr - 1 : addr, &off) : NULL;
		if (!sym) {
			snprintf(buf, size, "0x%llx", addr);
			sym = buf;
		}
		if (!strstr(sym, "schedule"))
			return sym;
		if (!first) {
			snprintf(buf, size, "%s", sym);
			first = buf;
		}
	}
	return first ? first : "off-cpu";
}

/* --trace-json: the time off the CPU on the track of its thread, in its process. */
static void trace_off(struct tracejson *tj, const struct out *o, int tid, int tgid,
		      uint64_t start_ns, uint64_t ns)
{
	char buf[160];
	const char *name = wait_name(o, buf, sizeof(buf));
	tool_trace_span(env.t, tj, tid, tgid, o->comm, sizeof(o->comm), name, SIZE_MAX, "offcpu",
			start_ns, ns);
	tracejson_arg_str(tj, "comm", o->comm, sizeof(o->comm));
	tracejson_arg_int(tj, "tid", tid);
	tracejson_arg_int(tj, "pid", tgid);
	tracejson_span_end(tj);
}

/* The task's time off the CPU ended: counted under its stacks. */
static void on_back(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		    void *data, void *ctx)
{
	const struct out *o = data;
	if (ns < env.min_ns) {
		env.short_ones++;
		return;
	}
	int tid = (int)reader_num(end, env.se.next_pid);
	int tgid = tool_tgid(env.t, tid);
	if (env.t->o.pid && tgid != env.t->o.pid)
		return;
	env.counted++;
	env.ns_total += ns;
	struct tracejson *tj = tool_trace_json(env.t);
	if (tj)
		trace_off(tj, o, tid, tgid, st->ts, ns);
	if (env.perf_ustack) {
		if (env.nbacks == env.capbacks) {
			size_t cap = env.capbacks ? env.capbacks * 2 : 256;
			struct back *m = realloc(env.backs, cap * sizeof(*m));
			if (!m) {
				out_of_memory();
				return;
			}
			env.backs = m;
			env.capbacks = cap;
		}
		env.backs[env.nbacks++] = (struct back){tid, tgid, st->ts, end->ts, *o};
		return;
	}
	if (folded_add_n(env.fold, o->comm, tgid, o->k, o->nk, o->u, o->nu, ns))
		out_of_memory();
}

/* The times off the CPU read so far, each with the user stack of its switch out. The
 * per-switch cost: a hash look-up and a copy of the frames (measured in the commit). */
static void join_ustacks(void)
{
	swstack_drain(&env.sw);
	static unsigned long long u[PERFEV_MAX_STACK];
	for (size_t i = 0; i < env.nbacks; i++) {
		struct back *b = &env.backs[i];
		int nu = swstack_take(&env.sw, (uint32_t)b->tid, b->out_ns, b->in_ns, (uint64_t *)u,
				      PERFEV_MAX_STACK);
		if (folded_add_n(env.fold, b->o.comm, b->tgid, b->o.k, b->o.nk, u, nu > 0 ? nu : 0,
				 b->in_ns - b->out_ns)) {
			out_of_memory();
			break;
		}
	}
	env.nbacks = 0;
	/* The switches come in time order (reader.c): none will be read from before the last
	 * one (less a margin for a CPU the reader is late on). */
	swstack_trim(&env.sw, env.seen_ns > 100000000 ? env.seen_ns - 100000000 : 0);
}

static void wake(struct tool_run *t, uint64_t now)
{
	if (env.perf_ustack)
		join_ustacks();
}

static void on_switch(struct tep_record *rec, void *ctx)
{
	env.seen_ns = rec->ts;
	long long prev = offwake_switch(&env.se, &env.s, rec, true);
	if (prev < 0)
		return;
	if ((env.user_only || env.kernel_only) && kernel_thread((int)prev) != env.kernel_only)
		return;
	struct out *o = span_begin(&env.s, (uint64_t)prev, 0, rec->ts, rec->cpu, 0);
	reader_strcpy(o->comm, sizeof(o->comm), rec, env.se.prev_comm);
	offwake_stack_read(&env.tr, rec, o);
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (env.pprof && pprof_check(env.pprof)) {
		fprintf(stderr, "offcputime: --pprof: cannot write %s: %s\n", env.pprof,
			strerror(errno));
		return TOOL_FAIL;
	}
	if (sched_load(&t->s, &env.se, false))
		return TOOL_FAIL;
	/* Names: the process of each thread (user symbols, -p), and who made it (-u, -k). */
	t->follow_names = true;
	if (env.verbose) {
		/* a context-switch event of this thread, opened and closed: can perf give it? */
		struct swstack w;
		bool try = env.ustack && env.via != VIA_FTRACE;
		bool perf = try && !swstack_open(&w, 0, (pid_t)getpid(), false, env.perf_why,
						 sizeof(env.perf_why));
		if (try)
			swstack_free(&w);
		if (env.via == VIA_FTRACE)
			snprintf(env.perf_why, sizeof(env.perf_why), "--via ftrace");
		printf("the switches: ftrace, sched:sched_switch, paired by thread here\n");
		if (env.kstack)
			printf("kernel stacks: ftrace, the stacktrace option, after each switch\n");
		if (perf)
			printf("user stacks: perf_event_open, the context-switch software event, a "
			       "sample at every switch out with its user call chain (up to %u "
			       "frames), joined to the switch by thread and time\n",
			       perfev_max_stack() < PERFEV_MAX_STACK ? perfev_max_stack() :
								       PERFEV_MAX_STACK);
		else if (env.ustack)
			printf("user stacks: ftrace, the userstacktrace option, after each switch "
			       "(at most 8 frames): %s%s\n",
			       env.via == VIA_FTRACE ? "" : "perf events not available: ",
			       env.perf_why);
		return TOOL_DONE;
	}
	/* Kernel frames named at the end, from one reading of kallsyms then (none of its
	 * 40-50 ms before the banner or while the run traces); each --trace-json span is
	 * named as it is written: a table read while the run starts. The user frames are
	 * named as the stacks are counted, while their processes run. */
	int uframes = env.ustack ? PERFEV_MAX_STACK : FOLDED_UFRAMES;
	if (env.kstack && t->trace_json_path)
		env.ksyms = ksym_load(); /* without kallsyms, addresses */
	bool late = env.kstack && !t->trace_json_path;
	env.fold = late ? folded_new_late("/proc/kallsyms", FOLDED_KFRAMES, uframes) :
			  folded_new_depth(env.ksyms, FOLDED_KFRAMES, uframes);
	if (!env.fold || pair_init(&env.kthreads, 4096, 1))
		return TOOL_FAIL;
	if (late)
		folded_late_setup(env.fold, true, "__schedule");
	snprintf(t->traced, sizeof(t->traced), "time off the CPU by %s stack%s",
		 env.kstack && env.ustack ? "kernel and user" :
		 env.kstack		  ? "kernel" :
					    "user",
		 env.kstack && env.ustack ? "s" : "");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	struct timespec w;
	clock_gettime(CLOCK_REALTIME, &w);
	env.start_wall = (uint64_t)w.tv_sec * 1000000000ULL + (uint64_t)w.tv_nsec;
	env.start_mono = reader_now();
	/* User stacks from perf events where they can be opened (before the switches are
	 * enabled: a time off the CPU has its sample), on the trace clock's time. */
	if (env.ustack && env.via == VIA_FTRACE)
		snprintf(t->traced + strlen(t->traced), sizeof(t->traced) - strlen(t->traced),
			 " (user stacks from ftrace: at most 8 frames)");
	if (env.ustack && env.via != VIA_FTRACE) {
		/* perf's samples are matched to the switches by time, within 20 us, on
		 * CLOCK_MONOTONIC: the trace clock's, or a kept local one mapped to it (its
		 * error learned from the matches: no clock switched, 90 ms less to start). */
		env.perf_ustack = !swstack_open(&env.sw, t->o.pid, t->o.tid, t->s.mono,
						env.perf_why, sizeof(env.perf_why));
		env.sw.learn = t->s.clock_mapped;
		/* The switches wait in the buffers (.batched): the rings wake the reader as
		 * they fill, not to overflow meanwhile. */
		if (env.perf_ustack && tool_wake_on_rings(t, &env.sw.pe, NULL)) {
			fprintf(stderr, "offcputime: out of memory\n");
			return TOOL_FAIL;
		}
		if (!env.perf_ustack && env.via == VIA_PERF) {
			fprintf(stderr, "offcputime: --via perf: %s\n", env.perf_why);
			return TOOL_FAIL;
		}
		if (!env.perf_ustack) {
			swstack_free(&env.sw);
			fprintf(stderr,
				"offcputime: user stacks from ftrace, at most 8 frames: %s\n",
				env.perf_why);
			size_t l = strlen(t->traced);
			snprintf(t->traced + l, sizeof(t->traced) - l,
				 " (user stacks from ftrace: at most 8 frames)");
		}
	}
	int ret = tool_stacks(t, env.kstack, env.ustack && !env.perf_ustack, false, &env.kstack_ev,
			      &env.ustack_ev);
	if (ret)
		return ret;
	/* The frames above __schedule are the tracing's own (the tracepoint's, the event's):
	 * cut as they are counted where the table is read (--trace-json), else when named. */
	offwake_trailers_init(&env.tr, env.kstack_ev, env.ustack_ev, env.ksyms,
			      env.ksyms ? "__schedule" : NULL);
	/* A switch out until its switch in, maybe on another CPU. Not tool_trace: its filter
	 * leaves this process's switches out, and each is another task's end. */
	env.se.chain.off = t->o.pid || t->o.tid; /* set_event_pid: switches of others unseen */
	env.se.t = t;
	if (span_init_run(t, &env.s, 4096, sizeof(struct out), SPAN_LOSS_ALL, on_back, NULL) ||
	    reader_on_lost(&t->r, sched_chain_lost, &env.se.chain) ||
	    session_enable(&t->s, env.se.sw, NULL) || reader_on(&t->r, env.se.sw, on_switch, NULL))
		return TOOL_FAIL;
	return TOOL_OK;
}

/* --- the end -------------------------------------------------------------------------------- */

static void text_frame(const char *f, size_t n, void *ctx)
{
	printf("    %.*s\n", (int)n, f);
}

static void print_line(const struct folded_line *l)
{
	const char *semi = strchr(l->stack, ';');
	size_t clen = semi ? (size_t)(semi - l->stack) : strlen(l->stack);
	char comm[80]; /* a name of 16 bytes at most, 4 each escaped */
	size_t cl = folded_unescape(l->stack, clen < 64 ? clen : 64, comm);
	if (env.t->o.json) {
		row_begin(&env.row, 0);
		row_bytes(&env.row, comm, cl);
		for (int kernel = 1; kernel >= 0; kernel--) {
			FILE *f = row_json(&env.row);
			if (f)
				offwake_json_frames(f, l->stack, strlen(l->stack), false, kernel);
		}
		row_uint(&env.row, l->n / 1000);
		row_end(&env.row);
		return;
	}
	if (env.folded) {
		printf("%s %llu\n", l->stack, (unsigned long long)(l->n / 1000));
		return;
	}
	offwake_frames(l->stack, strlen(l->stack), false, true, text_frame, NULL);
	if (env.kstack && env.ustack)
		printf("    --\n");
	offwake_frames(l->stack, strlen(l->stack), false, false, text_frame, NULL);
	printf("    -                ");
	out_text(stdout, comm, cl, 0);
	printf("\n        %llu\n\n", (unsigned long long)(l->n / 1000));
}

/* --pprof: the folded lines as a pprof profile of off-CPU nanoseconds, same frames and totals. */
static void write_pprof(const char *folded, size_t size)
{
	uint64_t now = reader_now();
	if (pprof_write_folded(env.pprof, folded, size, "off_cpu", 1, env.start_wall,
			       env.start_mono ? now - env.start_mono : 0)) {
		fprintf(stderr, "offcputime: cannot write %s: %s\n", env.pprof, strerror(errno));
		env.t->failed = true;
	}
}

/* The stacks as folded.c prints them ("stack NANOSECONDS", merged), read back and sorted
 * by time. */
static void print_stacks(void)
{
	size_t size, n;
	char *buf = folded_text(env.fold, &size, &n);
	if (!buf) {
		fprintf(stderr, "offcputime: out of memory for the output\n");
		env.t->failed = true;
		return;
	}
	if (env.pprof)
		write_pprof(buf, size);
	size_t got;
	struct folded_line *lines = folded_split(buf, n, &got, !env.folded);
	for (size_t i = 0; lines && i < got; i++)
		print_line(&lines[i]);
	free(lines);
	free(buf);
}

static void end(struct tool_run *t)
{
	if (env.perf_ustack) { /* the samples of the last switches */
		swstack_disable(&env.sw);
		join_ustacks();
	}
	print_stacks();
	span_report(&env.s, "offcputime", "switches in");
	sched_chain_report(&env.se.chain, "offcputime", env.s.replaced,
			   "the time off the CPU of the tasks switched out or in unseen");
	fprintf(stderr, "offcputime: %llu times off the CPU counted, %.6f s in all%s",
		(unsigned long long)env.counted, env.ns_total / 1e9, env.short_ones ? "" : "\n");
	if (env.short_ones)
		fprintf(stderr, "; %llu shorter than %llu us left out\n",
			(unsigned long long)env.short_ones,
			(unsigned long long)(env.min_ns / 1000));
	if (env.perf_ustack)
		swstack_report(&env.sw, "offcputime");
	if (env.ustack_ev && !reader_trailers_read(&t->r, env.ustack_ev) && env.counted)
		evprint_say_without_ustack(t->tool->name, "switches", env.counted);
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.s);
	swstack_free(&env.sw);
	free(env.backs);
	env.backs = NULL;
	env.nbacks = env.capbacks = 0;
	env.perf_ustack = false;
	sched_chain_free(&env.se.chain);
	folded_free(env.fold);
	ksym_free(env.ksyms);
	pair_free(&env.kthreads);
	usym_addr_free();
	env.fold = NULL;
	env.ksyms = NULL;
}

static const struct tool offcputime = {
	.name = "offcputime",
	.no_cgroup = true,
	.opts = options,
	.operands = "[duration]",
	.operand_help = "   duration    trace for this many seconds, then print the stacks\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.wake = wake,
	.end = end,
	.cleanup = cleanup,
	.batched = true,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&offcputime, argc, argv);
}
