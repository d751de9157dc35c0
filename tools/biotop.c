// SPDX-License-Identifier: GPL-2.0-only
/*
 * biotop: the processes doing the most block I/O, a table every interval, as bcc's biotop:
 * per process, disk and direction, the I/O completed, their KiB and average latency, largest
 * first. The requests are paired as iosnoop pairs them (blk.h), and named as it names them:
 * the process that submitted the I/O, not the kernel worker that issued it. An I/O counts in
 * the interval in which it completed.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/agg.h"
#include "domain/blk.h"
#include "stream/comm.h"
#include "base/out.h"
#include "count/prom.h"
#include "base/row.h"
#include "tool.h"

enum clear { CLEAR_TTY, CLEAR_NEVER, CLEAR_ALWAYS };

static struct env {
	struct blk_opts blk;
	const char *name;  /* -n */
	pid_t pid;	   /* -p */
	long long maxrows; /* -r, 0: all */
	enum clear clear;  /* -C, --clear */
	bool clear_set;	   /* one of them given */
	bool clearing;	   /* decided at setup: the screen is cleared before each table */
	struct agg procs;  /* struct key -> I/O count, struct sums */
	uint64_t not_kept; /* I/O not counted: no memory for a new row */
	struct blk b;
	struct row row;
	struct prom_set prom; /* --prom: every row's I/O, bytes and ns from the start */
} env = {.maxrows = 20};

/* A row: the submitting process (as it was named then), its disk and the direction. */
struct key {
	int32_t pid;
	uint32_t dev;
	char comm[BLK_COMM_LEN];
	char dir;
	char pad[7];
};

struct sums {
	uint64_t bytes, ns;
};

enum { OPT_CLEAR = OPT_LONG + 1 };

static const struct row_col cols[] = {
	{"TIME", "time", -8, ROW_WALL, 0, ROW_OPTIONAL, "the interval's end, wall-clock HH:MM:SS"},
	{"PID", "pid", -7, ROW_INT, 0, 0, "the submitting process (its thread group)"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name when it submitted the I/O"},
	{"D", "dir", -1, ROW_WORD, 0, 0, "R read, W write, D discard, F flush, N other"},
	{"DEV", "dev", -7, ROW_WORD, 0, 0, "the disk, MAJOR,MINOR"},
	{"DISK", "disk", -8, ROW_STR, 0, 0, "its name in /sys/class/block (none: - and null)"},
	{"I/O", "count", 5, ROW_UINT, 0, 0, "I/O completed in the interval"},
	{"KBYTES", "kbytes", 9, ROW_FLOAT, 1, ROW_NOJSON, "their size, KiB"},
	{NULL, "bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "their size in bytes"},
	{"AVGms", "avg_ms", 8, ROW_FLOAT, 3, 0,
	 "their average latency from issue (or queue, -Q) to completion, ms"},
};
static const struct row_table table =
	ROW_TABLE("each row: a process, disk and direction in an interval", cols);

static const struct opt_spec options[] = {
	{'C', NULL, NULL, "do not clear the screen between tables", 0},
	BLK_OPT_DEV,
	BLK_OPT_TYPE,
	TOOL_JSON("one JSON object per row, each with its interval's time"),
	{'n', NULL, "NAME", "only I/O submitted by processes whose name matches (glob)", 0},
	{'p', NULL, "PID", "only I/O submitted by this process (any of its threads)", 0},
	BLK_OPT_QUEUED,
	{'r', NULL, "MAXROWS", "print at most MAXROWS rows a table (default 20; 0: all)", 0},
	{OPT_CLEAR, "clear", NULL,
	 "clear the screen before each table also when standard output\nis not a terminal", 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"biotop                   # the top 20 every second",
	"biotop -C 5              # every 5 seconds, the screen not cleared",
	"biotop -r 5 1 10         # the top 5, ten times",
	"biotop -i '*W*' -Q       # writes, latency from queueing",
	"biotop -p 181            # only the I/O of PID 181",
	"biotop -j 1 5 > top.json # five tables as JSON lines",
	"biotop -C --prom biotop.prom 15 > /dev/null # counters for node_exporter",
	"biotop -C --trace-json io.json 5 1 > /dev/null # 5 seconds of I/O for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'C':
	case OPT_CLEAR:
		if (env.clear_set && env.clear != (o->key == 'C' ? CLEAR_NEVER : CLEAR_ALWAYS))
			opt_fail("-C and --clear exclude each other");
		env.clear = o->key == 'C' ? CLEAR_NEVER : CLEAR_ALWAYS;
		env.clear_set = true;
		break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case 'r': env.maxrows = opt_int(arg, 0, 1LL << 30, "MAXROWS"); break;
	default: blk_parse_opt(&env.blk, o->key, arg);
	}
}

/* The command line parsed: what its options exclude. */
static void check(struct tool_run *t)
{
	if (env.clear == CLEAR_ALWAYS && t->o.json)
		opt_fail("--clear and -j exclude each other (JSON lines are never cleared)");
}

/* R, W, D, F or N: the request's operation, the first letter of its rwbs after the F of a
 * flush that comes before the data (REQ_PREFLUSH: "FWS"). */
static char direction(const char *rwbs)
{
	if (rwbs[0] == 'F' && rwbs[1])
		rwbs++;
	return rwbs[0] ? rwbs[0] : 'N';
}

/* Per I/O: two glob or hash look-ups at most and one hash update (--trace-json: a line of
 * JSON, as iosnoop's). */
static void on_io(const struct blk_io *io, void *ctx)
{
	struct tool_run *t = ctx;
	/* after the last table (its count reached): in no table, so in no span either */
	if (t->last_interval || (env.name && fnmatch(env.name, io->comm, 0)))
		return;
	/* The submitter's process from the names the run follows (its thread group then). */
	int pid = tool_tgid(t, io->pid);
	if ((env.pid && pid != env.pid) ||
	    /* --cgroup is checked here: completions run in interrupts, in any task */
	    !tool_in_cgroup(t, io->pid))
		return;
	struct key k;
	memset(&k, 0, sizeof(k));
	k.pid = pid;
	k.dev = io->dev;
	memcpy(k.comm, io->comm, strnlen(io->comm, sizeof(io->comm)));
	k.dir = direction(io->rwbs);
	struct sums *s = agg_add(&env.procs, &k, 1);
	if (!s) {
		env.not_kept++;
		return;
	}
	s->bytes += io->bytes;
	s->ns += io->end_ns > io->start_ns ? io->end_ns - io->start_ns : 0;
	struct tracejson *tj = tool_trace_json(t);
	if (tj) {
		char dev[24];
		snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(io->dev), BLK_MINOR(io->dev));
		blk_trace_json(tj, io, dev);
	}
}

/* --- output --------------------------------------------------------------------------------- */

struct line {
	struct key k;
	uint64_t count;
	struct sums s;
};

struct lines {
	struct line *v;
	size_t n;
};

static void collect(const void *key, uint64_t count, const void *val, void *ctx)
{
	struct lines *l = ctx;
	struct line *x = &l->v[l->n++];
	memcpy(&x->k, key, sizeof(x->k));
	x->count = count;
	memcpy(&x->s, val, sizeof(x->s));
}

/* Most bytes first; then most I/O; then by process, disk, direction and name (the same
 * order every time). */
static int by_bytes(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->s.bytes != y->s.bytes)
		return x->s.bytes < y->s.bytes ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->k.pid != y->k.pid)
		return x->k.pid < y->k.pid ? -1 : 1;
	if (x->k.dev != y->k.dev)
		return x->k.dev < y->k.dev ? -1 : 1;
	if (x->k.dir != y->k.dir)
		return x->k.dir < y->k.dir ? -1 : 1;
	return memcmp(x->k.comm, y->k.comm, sizeof(x->k.comm));
}

/* The line bcc prints above each table: "HH:MM:SS loadavg: 0.08 0.03 0.01 1/187 2345". */
static void print_loadavg(const char *when)
{
	char load[128] = "";
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, load, sizeof(load) - 1) : -1;
	if (fd >= 0)
		close(fd);
	load[n > 0 ? n : 0] = 0;
	load[strcspn(load, "\n")] = 0;
	printf("%-8s loadavg: ", when);
	out_text_line(stdout, load, strlen(load));
	putchar('\n');
}

/* --prom: the interval's rows (all of them, not only the -r first) added to the totals, and
 * the file written: three counters by process, direction and disk. */
static void prom_rows(struct tool_run *t, const struct lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct line *x = &l->v[i];
		char labels[512], pid[16], dev[24], disk[64], dir[2] = {x->k.dir, 0};
		char comm[BLK_COMM_LEN + 1];
		snprintf(pid, sizeof(pid), "%d", (int)x->k.pid);
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(x->k.comm), x->k.comm);
		snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(x->k.dev), BLK_MINOR(x->k.dev));
		blk_dev_name(x->k.dev, disk, sizeof(disk));
		struct prom_series *ps = prom_series(
			&env.prom, prom_labels(labels, sizeof(labels), "pid", pid, "comm", comm,
					       "dir", dir, "dev", dev, "disk", disk, NULL));
		if (!ps) {
			env.not_kept += x->count;
			continue;
		}
		ps->count += x->count;
		ps->sum += x->s.bytes;
		ps->sum2 += x->s.ns;
	}
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	static const char *const names[] = {"ftrace_tools_biotop_ios_total",
					    "ftrace_tools_biotop_io_bytes_total",
					    "ftrace_tools_biotop_io_seconds_total"};
	static const char *const helps[] = {
		"Block I/O completed, by submitting process, direction and disk.",
		"Bytes of that I/O.",
		"Seconds that I/O took, from issue (or queue, -Q) to completion, added up."};
	for (int f = 0; f < 3; f++) {
		prom_family(p, names[f], "counter", helps[f]);
		for (size_t i = 0; i < env.prom.n; i++) {
			const struct prom_series *ps = env.prom.s[i];
			if (f == 2)
				prom_scaled(p, names[f], ps->labels, ps->sum2, PROM_NS);
			else
				prom_uint(p, names[f], ps->labels, f ? ps->sum : ps->count);
		}
	}
	prom_commit(p);
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	struct lines l = {calloc(env.procs.used ? env.procs.used : 1, sizeof(*l.v)), 0};
	if (!l.v) {
		fprintf(stderr, "biotop: out of memory for a table of %zu rows\n", env.procs.used);
		t->failed = true;
		return 1;
	}
	agg_sorted(&env.procs, collect, &l);
	qsort(l.v, l.n, sizeof(*l.v), by_bytes);
	if (t->prom)
		prom_rows(t, &l);
	if (!t->o.json) {
		if (env.clearing)
			fputs("\033[H\033[2J", stdout); /* what clear(1) writes for xterm */
		else
			out_table_gap(stdout);
		print_loadavg(when);
		row_header(&env.row);
		if (!l.n)
			out_none(stdout, "I/O");
	}
	size_t shown = env.maxrows && (size_t)env.maxrows < l.n ? (size_t)env.maxrows : l.n;
	for (size_t i = 0; i < shown; i++) {
		const struct line *x = &l.v[i];
		char dev[24], disk[64], dir[2] = {x->k.dir, 0};
		snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(x->k.dev), BLK_MINOR(x->k.dev));
		blk_dev_name(x->k.dev, disk, sizeof(disk));
		row_begin(&env.row, now);
		row_int(&env.row, x->k.pid);
		row_str(&env.row, x->k.comm, sizeof(x->k.comm));
		row_word(&env.row, dir);
		row_word(&env.row, dev);
		if (*disk)
			row_str(&env.row, disk, sizeof(disk));
		else
			row_none(&env.row); /* gone since */
		row_uint(&env.row, x->count);
		row_float(&env.row, x->s.bytes / 1024.0);
		row_uint(&env.row, x->s.bytes);
		row_float(&env.row, x->s.ns / 1e6 / (double)x->count);
		row_end(&env.row);
	}
	free(l.v);
	agg_reset(&env.procs);
	if (env.not_kept) {
		fprintf(stderr, "biotop: WARNING: %llu I/O not counted (out of memory for rows)\n",
			(unsigned long long)env.not_kept);
		env.not_kept = 0;
	}
	return 0;
}

/* Stopped mid-interval (Ctrl-C, -p's process gone): the table so far; then the completions
 * that could not be counted. */
static void end(struct tool_run *t)
{
	if (!t->last_interval && env.procs.used)
		interval(t, reader_now());
	else if (t->prom && !t->intervals) /* stopped before the first table: a file all the same */
		prom_rows(t, &(struct lines){NULL, 0});
	blk_report(&env.b, "biotop");
}

/* --- the run -------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	/* Names are followed for the submitter's process (comm_task); -p and --cgroup are
	 * checked here, on the submitter, not by the instance's pid filter. */
	t->pids_checked_here = true;
	if (env.pid)
		tool_watch(t, env.pid, false);
	if (agg_init(&env.procs, sizeof(struct key), sizeof(struct sums)) ||
	    blk_prepare(&env.b, &t->s, env.blk.queued, on_io, t))
		return TOOL_FAIL;
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	env.clearing = !t->o.json && (env.clear == CLEAR_ALWAYS ||
				      (env.clear == CLEAR_TTY && isatty(STDOUT_FILENO)));
	return blk_setup(&env.b, &t->s, &t->r, &env.blk) ? TOOL_FAIL : TOOL_OK;
}

static void banner(struct tool_run *t)
{
	fprintf(stderr, "Tracing block I/O. Output every %.6g seconds. Ctrl-C to end.\n",
		t->o.interval / 1e9);
}

static void cleanup(struct tool_run *t)
{
	blk_free(&env.b);
	agg_free(&env.procs);
	prom_set_free(&env.prom);
}

static const struct tool biotop = {
	.name = "biotop",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 1,
	.examples = examples,
	.formats = (const char *const[]){"block", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&biotop, argc, argv);
}
