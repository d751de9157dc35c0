// SPDX-License-Identifier: GPL-2.0-only
/*
 * bitesize: block I/O sizes as log2 histograms in KiB, one per process that submitted the
 * I/O (with -D per disk and process), at the end or every interval.
 *
 * Counted here, from the requests blk.h pairs, on every kernel: a request is counted when
 * it completes, with its size at issue (after merging) and the task that queued its first
 * bio. The kernel's hist triggers could count it without an event per request, but not the
 * same thing: keyed on block_rq_issue's comm they name the issuing task (a kworker when the
 * I/O scheduler dispatches), and on block_bio_queue they count bios before merging.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/agg.h"
#include "domain/blk.h"
#include "count/hist.h"
#include "domain/member.h"
#include "base/out.h"
#include "count/prom.h"
#include "base/row.h"
#include "base/sig.h"
#include "tool.h"

/* A histogram's key: the disk (0 without -D), the submitting task and its name then. */
struct key {
	uint32_t dev;
	int32_t pid;
	char comm[BLK_COMM_LEN];
};

struct val {
	struct hist_log2 h; /* KiB */
	uint64_t bytes;
};

/* --- settings and options --------------------------------------------------------------------- */

static struct env {
	struct blk_opts blk;
	bool per_disk;	  /* -D */
	const char *name; /* -n */
	pid_t pid;	  /* -p */
	struct blk b;
	struct agg a;	      /* struct key -> struct val */
	bool oom;	      /* a key could not be added */
	bool under_time;      /* text: the next histogram is the first under a -T line */
	struct member of_pid; /* -p */
	struct row row;
	struct prom_set prom; /* --prom: each histogram from the start */
} env;

/* -j: one object per histogram. */
static const struct row_col cols[] = {
	ROW_COL_WALL,
	{NULL, "dev", 0, ROW_WORD, 0, ROW_NOTEXT, "the disk, \"MAJOR,MINOR\" (-D)"},
	{NULL, "disk", 0, ROW_WORD, 0, ROW_NOTEXT, "the disk's name (-D)"},
	{NULL, "pid", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the task that submitted the I/O (its thread ID, as iosnoop's PID)"},
	{NULL, "comm", 0, ROW_STR, 0, ROW_NOTEXT, "its name then"},
	{NULL, "unit", 0, ROW_WORD, 0, ROW_NOTEXT, "KiB: the unit of the buckets"},
	{NULL, "count", 0, ROW_UINT, 0, ROW_NOTEXT, "the I/O counted"},
	{NULL, "bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "their sizes added up, in bytes"},
	{NULL, "hist", 0, ROW_JSON, 0, 0,
	 "the log2 histogram: [{\"low\":L,\"high\":H,\"count\":N},...], sizes in KiB in [L, H)"},
};
static const struct row_table table = ROW_TABLE("each histogram, every interval", cols);

static const struct opt_spec options[] = {
	BLK_OPT_DEV,
	{'D', NULL, NULL, "one histogram per disk and process", 0},
	BLK_OPT_TYPE,
	TOOL_JSON("one JSON object per histogram"),
	{'n', NULL, "NAME", "only I/O submitted by processes whose name matches (glob)", 0},
	{'p', NULL, "PID", "only I/O submitted by this process (any of its threads)", 0},
	{'T', NULL, NULL, "the wall-clock time above each interval's histograms",
	 TOOL_OPT_WALLCLOCK},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"bitesize                 # histograms at Ctrl-C",
	"bitesize 1 5             # five 1-second intervals",
	"bitesize -D              # per disk and process",
	"bitesize -d vda -i '*W*' # writes to vda",
	"bitesize -n 'postgres*'  # I/O of processes named postgres...",
	"bitesize -j 10 1         # 10 seconds, JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'D': env.per_disk = true; break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	default: blk_parse_opt(&env.blk, o->key, arg);
	}
}

/* --- per event -------------------------------------------------------------------------------- */

/* Per request: a filter or two, a hash lookup and a slot increment. */
static void on_io(const struct blk_io *io, void *ctx)
{
	struct tool_run *t = ctx;
	/* -p is checked here, not with set_event_pid: a completion runs in whatever task the
	 * interrupt lands on, and the submitter is known only from the earlier events. */
	if ((env.pid && !member_of(&env.of_pid, io->pid)) ||
	    (env.name && fnmatch(env.name, io->comm, 0)) ||
	    /* --cgroup is checked here: completions run in interrupts, in any task */
	    !tool_in_cgroup(t, io->pid))
		return;
	struct key k;
	memset(&k, 0, sizeof(k));
	k.dev = env.per_disk ? io->dev : 0;
	k.pid = io->pid;
	memcpy(k.comm, io->comm, sizeof(k.comm));
	struct val *v = agg_add(&env.a, &k, 1);
	if (!v) {
		env.oom = true;
		sig_request_stop(); /* out of memory: end with what was counted */
		return;
	}
	hist_log2_add(&v->h, io->bytes / 1024);
	v->bytes += io->bytes;
}

struct print_ctx {
	const struct tool_run *t;
	uint64_t now; /* the interval's end */
};

static void print_one(const void *key, uint64_t count, const void *val, void *arg)
{
	const struct print_ctx *c = arg;
	const struct tool_run *t = c->t;
	const struct key *k = key;
	const struct val *v = val;
	char dev[24], name[64] = "";
	snprintf(dev, sizeof(dev), "%u,%u", BLK_MAJOR(k->dev), BLK_MINOR(k->dev));
	if (env.per_disk)
		blk_dev_name(k->dev, name, sizeof(name));
	if (t->prom) { /* added to its series from the start (labels as -j's keys) */
		char labels[256], pid[16], comm[BLK_COMM_LEN + 1];
		snprintf(pid, sizeof(pid), "%d", (int)k->pid);
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(k->comm), k->comm);
		if (env.per_disk)
			prom_labels(labels, sizeof(labels), "dev", dev, "disk", name, "pid", pid,
				    "comm", comm, NULL);
		else
			prom_labels(labels, sizeof(labels), "pid", pid, "comm", comm, NULL);
		struct prom_series *ps = prom_series(&env.prom, labels);
		if (ps) {
			prom_hist_add(&ps->h, &v->h);
			ps->sum += v->bytes;
		}
	}
	if (t->o.json) {
		struct row *r = &env.row;
		row_begin(r, c->now);
		if (env.per_disk) {
			row_word(r, dev);
			row_word(r, name);
		} else {
			row_none(r);
			row_none(r);
		}
		row_int(r, k->pid);
		row_str(r, k->comm, sizeof(k->comm));
		row_word(r, "KiB");
		row_uint(r, v->h.total);
		row_uint(r, v->bytes);
		FILE *f = row_json(r);
		if (f)
			hist_log2_json(f, &v->h);
		row_end(r);
		return;
	}
	if (!env.under_time)
		out_table_gap(stdout);
	env.under_time = false;
	if (env.per_disk)
		printf("disk %s%s%s%s: ", dev, *name ? " (" : "", name, *name ? ")" : "");
	printf("pid = %d ", (int)k->pid);
	out_text(stdout, k->comm, sizeof(k->comm), 0);
	putchar('\n');
	hist_log2_print(stdout, &v->h, "KiB", "I/O");
}

/* --- every interval and at the end ------------------------------------------------------------ */

/* The interval's histograms, most I/O first, then they start again. */
static int interval(struct tool_run *t, uint64_t now)
{
	if (!t->o.json && t->o.wallclock) {
		char when[16];
		out_table_gap(stdout);
		printf("%s\n", out_wallclock(now, when));
		env.under_time = true;
	}
	struct print_ctx c = {t, now};
	if (!t->o.json && !env.a.used) {
		if (!env.under_time)
			out_table_gap(stdout);
		env.under_time = false;
		out_none(stdout, "I/O");
	}
	agg_sorted(&env.a, print_one, &c);
	agg_reset(&env.a);
	struct prom *p = tool_prom(t);
	if (p) {
		/* Whole bytes in KiB slots: [1, 2) KiB holds up to 2047 bytes, its le. */
		const char *family = "ftrace_tools_bitesize_io_bytes";
		prom_family(p, family, "histogram", "Block I/O sizes in bytes, by process.");
		for (size_t i = 0; i < env.prom.n; i++)
			prom_hist(p, family, env.prom.s[i]->labels, &env.prom.s[i]->h, 1024,
				  PROM_ONE, env.prom.s[i]->sum, PROM_ONE);
		prom_commit(p);
	}
	if (env.oom)
		fprintf(stderr, "bitesize: out of memory for the histograms' keys: the run ended "
				"early\n");
	env.oom = false;
	return 0;
}

/* Stopped (Ctrl-C, -p's process gone) or no interval: what was counted since the last one. */
static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	/* Issued, never seen completing: not counted (bcc and bpftrace count at issue). */
	size_t inflight = pair_del_if(&env.b.inflight.starts, NULL, NULL);
	if (inflight)
		fprintf(stderr, "bitesize: %zu I/O in flight when tracing ended were not counted\n",
			inflight);
	blk_report(&env.b, "bitesize");
}

/* --- set up ----------------------------------------------------------------------------------- */

/* The submitter's name comes from the block events (the kernel's comm at the time). */
static enum tool_code prepare(struct tool_run *t)
{
	t->follow_names = false;
	t->pids_checked_here = true;
	if (env.pid)
		tool_watch(t, env.pid, false);
	if (agg_init(&env.a, sizeof(struct key), sizeof(struct val)) ||
	    (env.pid && member_init(&env.of_pid, env.pid)) ||
	    blk_prepare(&env.b, &t->s, false, on_io, t))
		return TOOL_FAIL;
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	return blk_setup(&env.b, &t->s, &t->r, &env.blk) ? TOOL_FAIL : TOOL_OK;
}

static void banner(struct tool_run *t)
{
	if (t->o.interval)
		fprintf(stderr,
			"Tracing block I/O size. Output every %.6g seconds. Ctrl-C to end.\n",
			t->o.interval / 1e9);
	else
		fprintf(stderr, "Tracing block I/O size. Ctrl-C to end.\n");
}

static void cleanup(struct tool_run *t)
{
	blk_free(&env.b);
	agg_free(&env.a);
	prom_set_free(&env.prom);
	member_free(&env.of_pid);
}

static const struct tool bitesize = {
	.name = "bitesize",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "histograms",
	.interval_default_s = 0,
	.examples = examples,
	.formats = (const char *const[]){"block", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
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
	return tool_main(&bitesize, argc, argv);
}
