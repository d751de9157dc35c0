// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile: where the CPUs spend their time, by stack: a sample of every CPU (or -C CPU) at
 * -F HZ (49 by default) or every -c N nanoseconds of CPU time, through the kernel's
 * perf_event_open(2) cpu-clock event (perfev.h: no perf tool, no BPF), each with its kernel
 * and user call chain; at the end, each stack with its number of samples, largest first, or
 * (--folded) folded lines for flame graphs: comm;user frames;kernel frames COUNT.
 *
 * The samples are read from the events' rings at each wake-up of the driver's reader (a ring
 * half full, or a second after the last: .batched) and counted by stack here; each new
 * stack's user frames are placed in their files while its process still has its maps, and
 * every frame is named at the end (with -i, when first seen).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/cgroup.h"
#include "stream/folded.h"
#include "stream/ksym.h"
#include "base/opt.h"
#include "base/out.h"
#include "base/pair.h"
#include "kernel/perfev.h"
#include "domain/offwake.h"
#include "count/pprof.h"
#include "stream/reader.h"
#include "count/prom.h"
#include "base/row.h"
#include "base/sig.h"
#include "base/threads.h"
#include "tool.h"
#include "stream/usym.h"

#define OPT_FOLDED (OPT_LONG + 1)
#define OPT_TOP (OPT_LONG + 2)
#define OPT_PPROF (OPT_LONG + 3)
#define OPT_OFFCPU (OPT_LONG + 4)
#define MAXF PERFEV_MAX_STACK
#define MAXPIDS 64

static struct env {
	unsigned hz;
	uint64_t period;
	int cpu;
	pid_t pids[MAXPIDS]; /* -p PID,PID...: more than one (one is the driver's -p) */
	int npids;
	bool user_only, kernel_only, idle, folded, verbose;
	long long top;
	unsigned max_stack;
	struct perfev pe;
	struct ksyms *ksyms;
	bool late; /* frames named when printed at the end (folded_new_late, usym_lazy) */
	struct folded *fold;
	struct pair_table comms; /* tid -> char[16] */
	uint64_t samples, idle_samples, bad;
	int cgroup_fd;
	const char *pprof;		 /* --pprof FILE */
	uint64_t start_wall, start_mono; /* when sampling began */
	uint64_t printed;		 /* when the stacks are printed (reader_now) */
	struct row row;
	struct tool_run *t;
	/* --off-cpu: the context switches of the same tasks, off-CPU time by stack */
	bool offcpu;
	struct perfev off;
	struct folded *offfold;	 /* nanoseconds off the CPU by stack */
	struct pair_table spans; /* tid -> struct offspan: off the CPU since */
	uint64_t off_spans, off_unpaired;
	struct prom_set prom; /* --prom: samples by task name */
	uint64_t prom_lost;   /* samples not in it: no memory for a name */
} env = {.hz = 49, .cpu = -1, .cgroup_fd = -1};

/* Each stack, most samples first (-j). */
static const struct row_col cols[] = {
	{NULL, "time", 0, ROW_WALL, 0, 0,
	 "wall-clock HH:MM:SS of the print: the end, or the interval's end (-i)"},
	{NULL, "comm", 0, ROW_STR, 0, 0, "the task's name when sampled"},
	{NULL, "pid", 0, ROW_INT, 0, 0, "its process"},
	{NULL, "kstack", 0, ROW_JSON, 0, 0, "its kernel stack, innermost frame first (-U: [])"},
	{NULL, "ustack", 0, ROW_JSON, 0, 0, "its user stack, innermost frame first (-K: [])"},
	{NULL, "samples", 0, ROW_UINT, 0, 0, "the samples of that stack"},
};
static const struct row_table table = ROW_TABLE("each stack, at the end", cols);

static const struct opt_spec options[] = {
	{'C', NULL, "CPU", "only this CPU", 0},
	{'c', NULL, "N", "a sample every N nanoseconds of CPU time (instead of -F)", 0},
	TOOL_DURATION,
	{'F', NULL, "HZ", "samples per second on each CPU (default 49)", 0},
	{'f', "folded", NULL,
	 "folded lines for flame graphs: comm;user frames;kernel frames\nCOUNT (kernel "
	 "frames _[k])",
	 OPT_FOLDED},
	{'I', NULL, NULL, "include the idle tasks (pid 0; left out by default)", 0},
	{'i', NULL, "SECS",
	 "print the stacks every SECS seconds, each interval's own\n(default: once, at the end)",
	 0},
	TOOL_JSON("one JSON object per stack"),
	{'K', NULL, NULL, "kernel stacks only", 0},
	TOOL_TID,
	{'p', NULL, "PID[,PID...]",
	 "only these processes (all their threads, also new ones); one:\nthe run ends with it", 0},
	{'U', NULL, NULL, "user stacks only", 0},
	{'v', NULL, NULL, "say how the samples are taken, then exit", 0},
	{OPT_PPROF, "pprof", "FILE",
	 "also write the stacks to FILE as a gzip'd pprof profile\n(go tool pprof)", 0},
	{OPT_TOP, "top", "N", "only the N stacks with the most samples", 0},
	{OPT_OFFCPU, "off-cpu", NULL,
	 "with -f: also the time off the CPU of the same tasks, by the\nstack they left it in "
	 "(a last frame [off-cpu]); both in\nmicroseconds",
	 0},
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"profile 5                  # every CPU at 49 Hz for 5 seconds",
	"profile -F 99 -p 181 10    # PID 181's threads at 99 Hz",
	"profile -f -p 181,182 10   # two processes, one profile",
	"profile -f 10 | flamegraph > cpu.svg   # a CPU flame graph",
	"profile -d 10 --pprof cpu.pb.gz; go tool pprof -top cpu.pb.gz",
	"profile -U --exec ./a.out  # user stacks of a command",
	"profile -f --off-cpu -p 181 10 | flamegraph > wall.svg   # on and off CPU",
	"profile --prom profile.prom 60 > /dev/null # samples by task name, node_exporter",
	NULL,
};

/* -p PID[,PID...]: one is the driver's -p (the run ends when it does); more are sampled
 * alike, the run going on until its duration or a signal. */
static void pids(struct tool_run *t, const char *arg)
{
	char buf[MAXPIDS * 12], *save = NULL;
	if (strlen(arg) >= sizeof(buf))
		opt_fail("-p: at most %d PIDs", MAXPIDS);
	snprintf(buf, sizeof(buf), "%s", arg);
	env.npids = 0;
	for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		pid_t pid = opt_live_pid(s);
		bool seen = false;
		for (int i = 0; i < env.npids; i++)
			seen |= env.pids[i] == pid;
		if (seen)
			continue;
		if (env.npids == MAXPIDS)
			opt_fail("-p: at most %d PIDs", MAXPIDS);
		env.pids[env.npids++] = pid;
	}
	if (!env.npids || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,"))
		opt_fail("invalid PID list: '%s' (PID[,PID...])", arg);
	t->o.pid = env.npids == 1 ? env.pids[0] : 0;
}

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'C': env.cpu = (int)opt_int(arg, 0, 4095, "CPU"); break;
	case 'c':
		env.period = (uint64_t)opt_int(arg, 10000, 1LL << 40, "N (nanoseconds)");
		env.hz = 0;
		break;
	case 'F': env.hz = (unsigned)opt_int(arg, 1, 100000, "HZ"); break;
	case 'I': env.idle = true; break;
	case 'i': t->o.interval = opt_interval(arg); break;
	case 'p': pids(t, arg); break;
	case 'K': env.kernel_only = true; break;
	case 'U': env.user_only = true; break;
	case 'v': env.verbose = true; break;
	case OPT_PPROF: env.pprof = arg; break;
	case OPT_TOP: env.top = opt_int(arg, 1, 1LL << 30, "N (stacks)"); break;
	case OPT_OFFCPU: env.offcpu = true; break;
	}
	if (o->id == OPT_FOLDED)
		env.folded = true;
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	tool_operand_duration(t, argc, argv);
	if (t->o.interval && (env.folded || env.pprof || env.offcpu))
		opt_fail("-i prints each interval's stacks: not with -f, --pprof or --off-cpu, "
			 "which are of the whole run");
	if (env.npids > 1 && (t->o.tid || t->o.exec || t->cgroup))
		opt_fail("-p names processes: not with -L, --exec or --cgroup");
	if (env.user_only && env.kernel_only)
		opt_fail("-U and -K exclude each other");
	if (env.folded && t->o.json)
		opt_fail("--folded prints folded lines: not with -j");
	if (env.offcpu && (!env.folded || env.pprof || env.top))
		opt_fail("--off-cpu prints folded lines in microseconds: give -f, not --pprof or "
			 "--top");
	if (t->record_path)
		opt_fail("--record keeps ftrace events; profile's samples are perf events: not "
			 "with --record");
	/* Before the driver opens tracefs: a user without perf events is told that, not that
	 * tracefs is root's. */
	char why[512];
	if (!env.verbose && perfev_check(why, sizeof(why))) {
		fprintf(stderr, "profile: %s\n", why);
		exit(TOOL_FAIL);
	}
}

/* --- per sample ----------------------------------------------------------------------------- */

/* The task's name: from its COMM records (an exec, a rename), else /proc when first seen. */
static const char *comm_of(uint32_t pid, uint32_t tid, uint32_t cpu)
{
	static char idle[32];
	if (tid == 0) {
		snprintf(idle, sizeof(idle), "swapper/%u", cpu);
		return idle;
	}
	char *c = pair_get(&env.comms, tid, 0);
	if (c)
		return c;
	c = pair_put(&env.comms, tid, 0);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, c, 15) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0 && c[n - 1] == '\n')
		n--;
	if (n <= 0)
		snprintf(c, 16, "<...>");
	else
		c[n] = 0;
	return c;
}

/* The names of the threads of pid (-p, -L's tid alone) now, while they are there: a run that
 * ends with its process reads most of its samples after the process is gone, when /proc
 * has no name to give (their COMM records come only at an exec or a rename). */
static void name_threads(pid_t pid, pid_t tid)
{
	pid_t *tids = NULL;
	size_t n = 0;
	if (tid > 0)
		(void)comm_of((uint32_t)tid, (uint32_t)tid, 0);
	else if (!threads_read(pid, &tids, &n))
		for (size_t i = 0; i < n; i++)
			(void)comm_of((uint32_t)pid, (uint32_t)tids[i], 0);
	free(tids);
}

/* A table of stacks: named from kallsyms at the end when printed once (no table of every
 * kernel symbol held through the run: ~5 MB), else (-i) from the table loaded at the start. */
static struct folded *new_fold(void)
{
	return env.late ? folded_new_late("/proc/kallsyms", MAXF, MAXF) :
			  folded_new_depth(env.ksyms, MAXF, MAXF);
}

static void on_sample(const void *body, size_t len)
{
	struct perfev_sample s;
	if (perfev_sample(body, len, env.pe.sample_type, &s)) {
		env.bad++;
		return;
	}
	if (s.pid == 0 && !env.idle) {
		env.idle_samples++;
		return;
	}
	uint64_t k[MAXF], u[MAXF];
	int nk, nu;
	perfev_chain_split(s.chain, s.nr, k, &nk, env.user_only ? 0 : MAXF, u, &nu,
			   env.kernel_only ? 0 : MAXF);
	const char *comm = comm_of(s.pid, s.tid, s.cpu);
	/* the text and JSON say the process: "name (pid)", split when printed (made without
	 * snprintf: per sample, 7% of the CPU at 999 Hz) */
	char key[32], digits[12];
	size_t cl = strnlen(comm, 15), nd = 0;
	memcpy(key, comm, cl);
	if (!env.folded) {
		uint32_t v = s.pid;
		do
			digits[nd++] = (char)('0' + v % 10);
		while ((v /= 10));
		key[cl++] = ' ';
		key[cl++] = '(';
		while (nd)
			key[cl++] = digits[--nd];
		key[cl++] = ')';
	}
	key[cl] = 0;
	env.samples++;
	if (env.t->prom) { /* a label made and a hash look-up per sample */
		char labels[96], name[16];
		snprintf(name, sizeof(name), "%.15s", comm);
		struct prom_series *ps = prom_series(
			&env.prom, prom_labels(labels, sizeof(labels), "comm", name, NULL));
		if (ps)
			ps->count++;
		else
			env.prom_lost++;
	}
	/* --off-cpu: weighed by the nanoseconds of CPU time the sample stands for */
	if (folded_add_n(env.fold, key, (int)s.pid, (const unsigned long long *)k, nk,
			 (const unsigned long long *)u, nu, env.offcpu ? s.period : 1)) {
		fprintf(stderr, "profile: out of memory for the stacks: ending\n");
		env.t->failed = true;
		sig_request_stop();
	}
}

/* A mapping of executable code (PERF_RECORD_MMAP2, attr.mmap2: 3.16+): the process's maps
 * as they are then, so that one that exits or execs before its samples are read is named
 * from them. */
static void on_mmap2(const void *body, size_t len)
{
	usym_addr_mmap2(body, len);
}

static void on_comm(const struct perf_event_header *h, const void *body, size_t len)
{
	if (len <= 8)
		return;
	uint32_t ids[2];
	memcpy(ids, body, 8);
	char *c = pair_put(&env.comms, ids[1], 0);
	size_t n = strnlen((const char *)body + 8, len - 8);
	snprintf(c, 16, "%.*s", (int)(n < 15 ? n : 15), (const char *)body + 8);
	/* A new program: the old maps are gone (its MMAP2 records follow). */
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
		usym_addr_forget((int)ids[0]);
}

/* A new task (attr.task): its name is its maker's until it changes it (a task that is gone
 * when its first samples are read has no /proc to ask), a new process's maps its parent's. */
static void on_fork(const void *body, size_t len)
{
	uint32_t ids[4]; /* pid, ppid, tid, ptid */
	if (len < 16)
		return;
	memcpy(ids, body, 16);
	/* A new process runs its parent's program until it execs: its maps are the parent's
	 * (the kernel tells none for a fork; by the time it is read, /proc has its new
	 * program's, or nothing). */
	if (ids[0] != ids[1])
		usym_addr_fork((int)ids[1], (int)ids[0]);
	char *parent = pair_get(&env.comms, ids[3], 0);
	if (!parent || pair_get(&env.comms, ids[2], 0))
		return;
	char name[16];
	memcpy(name, parent, 16);
	memcpy(pair_put(&env.comms, ids[2], 0), name, 16);
}

/* --- off the CPU (--off-cpu) ------------------------------------------------------------------- */

/* A task off the CPU since time, in the stack it left it in; or (time 0) back on a CPU at
 * back before its switch out was read. */
struct offspan {
	uint64_t time, back;
	uint32_t pid;
	int nk, nu;
	char comm[16];
	unsigned long long k[MAXF], u[MAXF];
};

/*
 * The context-switch software event of the same tasks (or CPUs), sampled at every switch
 * with the call chain of the task leaving the CPU, and its PERF_RECORD_SWITCH records
 * (attr.context_switch, 4.3+) for the task coming back: the span between is the time off
 * the CPU, asleep or waiting to run. One event per CPU (per thread with -p), as setup()
 * opens the cpu-clock ones; its rings are drained with theirs, in time order.
 */
static int off_open(const struct perf_event_attr *clock, pid_t pid, size_t pages, char *why,
		    size_t len)
{
	struct perf_event_attr a = *clock;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.freq = 0;
	a.sample_period = 1;
	a.context_switch = 1;
	a.sample_id_all = 1; /* the task and time of a SWITCH record */
	a.comm = a.comm_exec = a.mmap = a.mmap2 = a.task = 0; /* the cpu-clock event's */
	if (pair_init(&env.spans, 1024, sizeof(struct offspan)) || !(env.offfold = new_fold())) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	int ret = perfev_open(&env.off, &a, pid, env.cpu, env.cgroup_fd, pages, why, len);
	if (ret && strstr(why, "Invalid argument"))
		snprintf(why, len,
			 "--off-cpu: this kernel has no context switch records "
			 "(attr.context_switch, Linux 4.3)");
	if (!ret && pid > 0 && a.inherit && perfev_add_threads(&env.off, &a, pid, why, len) < 0)
		ret = -1;
	for (int i = 1; !ret && i < env.npids; i++)
		if (perfev_add_process(&env.off, &a, env.pids[i], why, len) < 0)
			ret = -1;
	return ret;
}

/* A span off the CPU of o's stack, of ns nanoseconds. */
static void off_count(const struct offspan *o, uint64_t ns)
{
	env.off_spans++;
	if (folded_add_n(env.offfold, o->comm, (int)o->pid, o->k, o->nk, o->u, o->nu, ns)) {
		fprintf(stderr, "profile: out of memory for the stacks: ending\n");
		env.t->failed = true;
		sig_request_stop();
	}
}

/*
 * A record of the context-switch events: a sample when a task leaves the CPU opens its span,
 * a SWITCH (or SWITCH_CPU_WIDE) record of it coming back in closes it; their task and time
 * are the record's own (sample_id_all). A drain reads the rings one after the other: a task
 * that left CPU 0 and came back on CPU 1 between the reads of the two rings has its switch
 * in read one drain before its switch out. That return is kept (back) and closes the span
 * when the switch out comes, rather than leaving it open until the next return.
 */
static void off_record(const struct perf_event_header *h, const void *body, size_t len,
		       uint64_t time)
{
	if (h->type == PERF_RECORD_SAMPLE) {
		struct perfev_sample s;
		if (perfev_sample(body, len, env.off.sample_type, &s)) {
			env.bad++;
			return;
		}
		if (s.pid == 0)
			return; /* the idle task: off the CPU when there is work */
		struct offspan *o = pair_put(&env.spans, s.tid, 0);
		uint64_t k[MAXF], u[MAXF], back = o->time ? 0 : o->back;
		perfev_chain_split(s.chain, s.nr, k, &o->nk, env.user_only ? 0 : MAXF, u, &o->nu,
				   env.kernel_only ? 0 : MAXF);
		memcpy(o->k, k, sizeof(k[0]) * (size_t)o->nk);
		memcpy(o->u, u, sizeof(u[0]) * (size_t)o->nu);
		o->time = s.time;
		o->back = 0;
		o->pid = s.pid;
		snprintf(o->comm, sizeof(o->comm), "%.15s", comm_of(s.pid, s.tid, s.cpu));
		if (back && back >= s.time) { /* already back */
			off_count(o, back - s.time);
			pair_del(&env.spans, o);
		}
		return;
	}
	int64_t tid = perfev_switch_in(h, body, len, env.off.sample_type);
	if (tid < 0)
		return;
	struct offspan *o = pair_get(&env.spans, (uint64_t)tid, 0);
	if (!o || !o->time) {
		/* off the CPU since before the start, its sample lost, or not read yet */
		env.off_unpaired++;
		o = o ? o : pair_put(&env.spans, (uint64_t)tid, 0);
		o->back = time;
		return;
	}
	if (time > o->time)
		off_count(o, time - o->time);
	pair_del(&env.spans, o);
}

/* The folded lines of fold with their nanoseconds in microseconds (rounded; none left out
 * for it), the off-CPU ones with a last frame [off-cpu]. */
static void off_print_folded(struct folded *fold, bool off)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	if (!mem) {
		fprintf(stderr, "profile: out of memory for the output\n");
		env.t->failed = true;
		return;
	}
	folded_print(fold, mem);
	fclose(mem);
	for (char *p = buf, *nl; p && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = 0;
		char *sp = strrchr(p, ' ');
		if (!sp)
			continue;
		unsigned long long ns = strtoull(sp + 1, NULL, 10), us = (ns + 500) / 1000;
		if (us)
			printf("%.*s%s %llu\n", (int)(sp - p), p, off ? ";[off-cpu]" : "", us);
	}
	free(buf);
}

/*
 * The records of a drain, in time order: the rings are per CPU, and a process's exec and
 * mappings on one CPU must be seen before its samples on another (and after the samples of
 * its old program). Copied (a few KiB per 100 ms at 49 Hz), then sorted (perfev_batch).
 */
static struct perfev_batch batch;

static void run_one(const struct perf_event_header *h, const void *body, size_t len, uint64_t time,
		    int src, void *ctx)
{
	if (src)
		off_record(h, body, len, time);
	else if (h->type == PERF_RECORD_SAMPLE)
		on_sample(body, len);
	else if (h->type == PERF_RECORD_COMM)
		on_comm(h, body, len);
	else if (h->type == PERF_RECORD_MMAP2)
		on_mmap2(body, len);
	else if (h->type == PERF_RECORD_FORK)
		on_fork(body, len);
}

static void drain(void)
{
	perfev_batch_add(&batch, &env.pe, 0);
	if (env.offcpu)
		perfev_batch_add(&batch, &env.off, 1);
	if (batch.oom) {
		fprintf(stderr, "profile: out of memory for the samples: ending\n");
		env.t->failed = true;
		sig_request_stop();
		batch.oom = false;
	}
	usym_addr_lost(env.pe.lost_records); /* (maps read again only after a loss) */
	perfev_batch_run(&batch, UINT64_MAX, run_one, NULL);
}

static void wake(struct tool_run *t, uint64_t now)
{
	drain();
}

/* --- the run -------------------------------------------------------------------------------- */

static const char *who(struct tool_run *t, char *buf, size_t len)
{
	if (t->o.tid)
		snprintf(buf, len, "thread %d", (int)t->o.tid);
	else if (t->o.exec)
		snprintf(buf, len, "the command and what it starts");
	else if (t->o.pid)
		snprintf(buf, len, "PID %d and what it starts", (int)t->o.pid);
	else if (env.npids > 1) {
		size_t o = (size_t)snprintf(buf, len, "PIDs");
		for (int i = 0; i < env.npids && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s %d", i ? "," : "",
					      (int)env.pids[i]);
		if (o < len)
			snprintf(buf + o, len - o, " and what they start");
	} else if (t->cgroup)
		snprintf(buf, len, "cgroup %s", t->cgroup->path);
	else
		snprintf(buf, len, "every task");
	return buf;
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (env.pprof && pprof_check(env.pprof)) {
		fprintf(stderr, "profile: --pprof: cannot write %s: %s\n", env.pprof,
			strerror(errno));
		return TOOL_FAIL;
	}
	t->follow_names = false; /* names come from the samples' tasks (COMM records) */
	t->ordered = false;
	t->pids_checked_here = true; /* --cgroup: the kernel's perf cgroup filter */
	unsigned kmax = perfev_max_stack();
	env.max_stack = kmax < MAXF ? kmax : MAXF;
	char what[64], by[64];
	if (env.hz)
		snprintf(what, sizeof(what), "%u Hz", env.hz);
	else
		snprintf(what, sizeof(what), "every %llu ns of CPU time",
			 (unsigned long long)env.period);
	if (env.cpu >= 0)
		snprintf(by, sizeof(by), "CPU %d", env.cpu);
	else
		snprintf(by, sizeof(by), "per-CPU");
	if (env.verbose) {
		char w[PATH_MAX + 64];
		printf("perf_event_open, cpu-clock, %s, %s, %s; call chains of up to %u frames "
		       "(%s%s%s), read from a ring per CPU when it is half full, at the latest "
		       "every %s; %s\n",
		       what, by, who(t, w, sizeof(w)), env.max_stack, env.user_only ? "" : "kernel",
		       env.user_only || env.kernel_only ? "" : " and ",
		       env.kernel_only ? "" : "user",
		       t->o.exec || t->o.pid || t->o.tid || t->cgroup ? "100 ms" : "second",
		       env.idle ? "the idle tasks sampled too" :
				  "the idle tasks not sampled (exclude_idle)");
		if (!env.user_only)
			printf("kernel frames named from /proc/kallsyms %s\n",
			       t->o.interval ? "read at the start" : "read once, at the end");
		if (!env.kernel_only)
			printf("user frames named from each mapped file's symbols %s\n",
			       t->o.interval ? "read when its process is first sampled" :
					       "read at the end (a file replaced since: from the "
					       "mapping while its process lives)");
		if (env.offcpu)
			printf("--off-cpu: perf_event_open, context-switches, period 1, with call "
			       "chains, and its switch records (4.3+); the spans between a task's "
			       "switch out and in, in microseconds\n");
		return TOOL_DONE;
	}
	char why[PATH_MAX + 64];
	env.late = !t->o.interval;
	if (!env.user_only && !env.late)
		env.ksyms = ksym_load(); /* without kallsyms, addresses */
	if (!(env.fold = new_fold()) || pair_init(&env.comms, 4096, 16))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "%s stacks at %s, %s, of %s",
		 env.offcpu ? "on- and off-CPU" : "on-CPU", what, env.cpu >= 0 ? by : "every CPU",
		 who(t, why, sizeof(why)));
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	struct perf_event_attr a;
	perfev_cpu_clock(&a, env.hz, env.period, !env.user_only, !env.kernel_only, env.max_stack);
	/* The idle task's samples are not taken at all (3.x+: the cpu-clock's timer checks
	 * it); they were a third of the samples of a quiet machine, each read and dropped. */
	a.exclude_idle = !env.idle;
	a.comm = 1;
	a.comm_exec = 1; /* 3.16+, as mmap2 */
	a.mmap = 1;
	a.mmap2 = 1;
	a.task = 1;	     /* FORK: a child's name is its parent's */
	a.sample_id_all = 1; /* the time of the COMM and MMAP2 records */
	pid_t pid = -1;
	if (t->o.tid) {
		pid = t->o.tid;
	} else if (t->o.pid || env.npids > 1) {
		pid = t->o.pid ? t->o.pid : env.pids[0];
		a.inherit = 1; /* its threads and children, also new ones */
	} else if (t->cgroup) {
		env.cgroup_fd = open(t->cgroup->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (env.cgroup_fd < 0) {
			fprintf(stderr, "profile: cannot open %s: %s\n", t->cgroup->path,
				strerror(errno));
			return TOOL_FAIL;
		}
	}
	/* The ring holds a second of samples at ~1 KiB each, from 8 to 256 pages per CPU. */
	size_t pages = 8, want = (env.hz ? env.hz : 1000000000ULL / env.period) * 1024 / 4096;
	while (pages < want && pages < 256)
		pages *= 2;
	/* Woken when a ring is half full (tool_wake_on_rings): the rings are drained at each
	 * wake-up, which comes at the latest every second when nothing waits on the time (a
	 * wake-up is a context switch, ~70 us of CPU on this PVM guest). */
	a.wakeup_watermark = (uint32_t)(pages * (size_t)sysconf(_SC_PAGESIZE) / 2);
	char why[512];
	int ret = perfev_open(&env.pe, &a, pid, env.cpu, env.cgroup_fd, pages, why, sizeof(why));
	if (ret && a.mmap2) { /* before 3.16: no mmap2 nor comm_exec; names from /proc only */
		perfev_close(&env.pe);
		a.comm_exec = a.mmap = a.mmap2 = a.task = 0;
		ret = perfev_open(&env.pe, &a, pid, env.cpu, env.cgroup_fd, pages, why,
				  sizeof(why));
	}
	usym_addr_followed(!ret && a.mmap2);
	usym_lazy(env.late); /* the files' symbols read at the end, as their frames are named */
	/* -p: the process's other threads now (inherit follows the ones made later) */
	if (!ret && pid > 0 && a.inherit &&
	    perfev_add_threads(&env.pe, &a, pid, why, sizeof(why)) < 0)
		ret = -1;
	for (int i = 1; !ret && i < env.npids; i++)
		if (perfev_add_process(&env.pe, &a, env.pids[i], why, sizeof(why)) < 0)
			ret = -1;
	if (!ret && t->o.tid)
		name_threads(0, t->o.tid);
	for (int i = 0; !ret && i < env.npids; i++)
		name_threads(env.pids[i], 0);
	if (!ret && env.offcpu)
		/* a record per switch, each with its call chain (~1 KiB): up to ~25,000 switches
		 * a second per CPU between two reads at 256 pages; more are lost and said */
		ret = off_open(&a, pid, 256, why, sizeof(why));
	if (ret || tool_wake_on_rings(t, &env.pe, &env.off)) {
		fprintf(stderr, "profile: %s\n", ret ? why : "out of memory");
		return TOOL_FAIL;
	}
	return TOOL_OK;
}

/* The samples start here, after the run is set up (kallsyms read), as -d counts. */
static void banner(struct tool_run *t)
{
	char why[512];
	struct timespec w;
	clock_gettime(CLOCK_REALTIME, &w);
	env.start_wall = (uint64_t)w.tv_sec * 1000000000ULL + (uint64_t)w.tv_nsec;
	env.start_mono = reader_now();
	fprintf(stderr, "Tracing %s. Ctrl-C to end.\n", t->traced);
	if (perfev_enable(&env.pe, why, sizeof(why)) ||
	    (env.offcpu && perfev_enable(&env.off, why, sizeof(why)))) {
		fprintf(stderr, "profile: %s\n", why);
		t->failed = true;
		sig_request_stop();
	}
}

/* --- the end -------------------------------------------------------------------------------- */

static void text_frame(const char *f, size_t n, void *ctx)
{
	printf("    %.*s\n", (int)n, f);
}

static void print_line(const struct folded_line *l)
{
	if (env.folded) {
		printf("%s %llu\n", l->stack, (unsigned long long)l->n);
		return;
	}
	/* "name (pid)": the name is the task's, the pid after the last " (". */
	const char *semi = strchr(l->stack, ';');
	size_t clen = semi ? (size_t)(semi - l->stack) : strlen(l->stack);
	char comm[160];
	size_t cl = folded_unescape(l->stack, clen < 120 ? clen : 120, comm);
	long long pid = -1;
	char *open = NULL;
	for (char *p = strstr(comm, " ("); p; p = strstr(p + 1, " ("))
		open = p;
	if (open) {
		pid = strtoll(open + 2, NULL, 10);
		*open = 0;
		cl = (size_t)(open - comm);
	}
	if (env.t->o.json) {
		row_begin(&env.row, env.printed);
		row_bytes(&env.row, comm, cl);
		row_int(&env.row, pid);
		for (int kernel = 1; kernel >= 0; kernel--) {
			FILE *f = row_json(&env.row);
			if (f)
				offwake_json_frames(f, l->stack, strlen(l->stack), false, kernel);
		}
		row_uint(&env.row, l->n);
		row_end(&env.row);
		return;
	}
	offwake_frames(l->stack, strlen(l->stack), false, true, text_frame, NULL);
	if (!env.user_only && !env.kernel_only)
		printf("    --\n");
	offwake_frames(l->stack, strlen(l->stack), false, false, text_frame, NULL);
	printf("    -                ");
	out_text(stdout, comm, cl, 0);
	printf(" (%lld)\n        %llu\n\n", pid, (unsigned long long)l->n);
}

/* --pprof: the folded lines as a pprof profile, same frames and totals. */
static void write_pprof(const char *folded, size_t size)
{
	uint64_t now = reader_now();
	if (pprof_write_folded(env.pprof, folded, size, NULL,
			       env.hz ? 1000000000ULL / env.hz : env.period, env.start_wall,
			       env.start_mono ? now - env.start_mono : 0)) {
		fprintf(stderr, "profile: cannot write %s: %s\n", env.pprof, strerror(errno));
		env.t->failed = true;
	}
}

/* The stacks as folded.c prints them (merged by name), read back and sorted by count. */
static void print_stacks(void)
{
	env.printed = reader_now();
	size_t size, n;
	char *buf = folded_text(env.fold, &size, &n);
	if (!buf) {
		fprintf(stderr, "profile: out of memory for the output\n");
		env.t->failed = true;
		return;
	}
	if (env.pprof)
		write_pprof(buf, size);
	if (env.offcpu) {
		off_print_folded(env.fold, false);
		off_print_folded(env.offfold, true);
		free(buf);
		return;
	}
	size_t got;
	struct folded_line *lines = folded_split(buf, n, &got, !env.folded || env.top);
	if (lines) {
		if (env.top && (size_t)env.top < got)
			got = (size_t)env.top;
		for (size_t i = 0; i < got; i++)
			print_line(&lines[i]);
	}
	free(lines);
	free(buf);
}

/* --prom: the samples by task name, written once (the stacks are printed once, at the end). */
static void prom_write(struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	const char *name = "ftrace_tools_profile_samples_total";
	prom_family(p, name, "counter", "CPU samples taken, by task name.");
	for (size_t i = 0; i < env.prom.n; i++)
		prom_uint(p, name, env.prom.s[i]->labels, env.prom.s[i]->count);
	prom_commit(p);
	if (env.prom_lost)
		fprintf(stderr, "profile: %llu samples not in --prom's file (out of memory)\n",
			(unsigned long long)env.prom_lost);
}

/* -i: the interval's stacks, under the time in text, then a new count. */
static int interval(struct tool_run *t, uint64_t now)
{
	drain();
	char when[16];
	if (!t->o.json) {
		out_table_gap(stdout);
		printf("%s\n", out_wallclock(reader_now(), when));
	}
	print_stacks();
	if (t->prom)
		prom_write(t);
	folded_free(env.fold);
	if (!(env.fold = new_fold())) {
		fprintf(stderr, "profile: out of memory for the stacks\n");
		t->failed = true;
		return 1;
	}
	fflush(stdout);
	return 0;
}

static void end(struct tool_run *t)
{
	perfev_disable(&env.pe); /* the run is over: what is in the rings, then the stacks */
	if (env.offcpu)
		perfev_disable(&env.off);
	drain();
	if (t->o.interval && !t->o.json && folded_total(env.fold)) {
		char when[16];
		out_table_gap(stdout);
		printf("%s\n", out_wallclock(reader_now(), when));
	}
	print_stacks();
	if (t->prom)
		prom_write(t);
	perfev_report(&env.pe, "profile");
	if (env.offcpu)
		perfev_report(&env.off, "profile");
	fprintf(stderr, "profile: %llu samples counted", (unsigned long long)env.samples);
	if (env.offcpu)
		fprintf(stderr, ", %llu spans off the CPU", (unsigned long long)env.off_spans);
	if (env.idle_samples)
		fprintf(stderr, "; %llu of idle CPUs left out (-I)",
			(unsigned long long)env.idle_samples);
	if (env.bad)
		fprintf(stderr, "; %llu malformed", (unsigned long long)env.bad);
	fputc('\n', stderr);
}

static void cleanup(struct tool_run *t)
{
	perfev_close(&env.pe);
	perfev_close(&env.off);
	folded_free(env.offfold);
	env.offfold = NULL;
	pair_free(&env.spans);
	if (env.cgroup_fd >= 0)
		close(env.cgroup_fd);
	env.cgroup_fd = -1;
	folded_free(env.fold);
	ksym_free(env.ksyms);
	pair_free(&env.comms);
	usym_addr_free();
	perfev_batch_free(&batch);
	memset(&batch, 0, sizeof(batch));
	env.fold = NULL;
	env.ksyms = NULL;
	prom_set_free(&env.prom);
}

static const struct tool profile = {
	.name = "profile",
	.batched = true,
	.opts = options,
	.operands = "[duration]",
	.operand_help = "   duration    sample for this many seconds, then print the stacks\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.wake = wake,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&profile, argc, argv);
}
