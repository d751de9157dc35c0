// SPDX-License-Identifier: GPL-2.0-only
/*
 * drsnoop: each direct reclaim, one line when it ends: the task that had to free memory
 * before its allocation could go on, how long that took and how many pages it freed. Direct
 * reclaim of the whole machine (vmscan:mm_vmscan_direct_reclaim_begin/end) and, unless
 * --direct-only, the reclaim a task does when its memory cgroup is at its limit
 * (mm_vmscan_memcg_reclaim_begin/end): both run in the allocating task, which waits for
 * them. Begin and end are paired per thread (span.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include <event-parse.h>

#include "base/row.h"
#include "count/tracejson.h"
#include "join/span.h"
#include "tool.h"

/* The two kinds of reclaim, and their events. */
enum kind { DIRECT, MEMCG, KINDS };
static const char *const kind_names[KINDS] = {"direct", "memcg"};
static const char *const begin_events[KINDS] = {"mm_vmscan_direct_reclaim_begin",
						"mm_vmscan_memcg_reclaim_begin"};
static const char *const end_events[KINDS] = {"mm_vmscan_direct_reclaim_end",
					      "mm_vmscan_memcg_reclaim_end"};

/* What a begin leaves for its end. */
struct reclaim {
	long long order;
	unsigned long long gfp;
};

struct evinfo {
	enum kind kind;
	struct tep_format_field *order, *gfp, *reclaimed;
};

/* --- settings and options --------------------------------------------------------------------- */

static struct env {
	bool extended;	  /* -e */
	bool direct_only; /* --direct-only, or a kernel without memory cgroups */
	bool no_memcg;	  /* the kernel has no memcg reclaim events */
	uint64_t min_ns;  /* -m */
	struct tool_run *t;
	struct span span;
	struct row row;
	struct evinfo begin[KINDS], end[KINDS];
	unsigned long long shown;
} env;

enum { OPT_DIRECT_ONLY = OPT_LONG + 1 };

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task that reclaimed, its name then"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its thread ID"},
	{"TYPE", "type", -6, ROW_WORD, 0, 0,
	 "direct (the whole machine was short) or memcg (its memory cgroup was at its limit)"},
	{"LAT(ms)", "lat_ms", 9, ROW_FLOAT, 3, 0, "how long the reclaim took, milliseconds"},
	{"PAGES", "pages", 8, ROW_UINT, 0, 0, "the pages it reclaimed (nr_reclaimed)"},
	{"ORDER", "order", 5, ROW_INT, 0, ROW_OPTIONAL,
	 "the order of the allocation that needed it (2^order pages; -e)"},
	{"GFP", "gfp", -10, ROW_HEX, 0, ROW_OPTIONAL, "the allocation's GFP flags (-e)"},
};
static const struct row_table table = ROW_TABLE("each reclaim, at its end", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'e', NULL, NULL, "ORDER and GFP columns: the allocation that needed it", 0},
	TOOL_JSON("one JSON object per reclaim"),
	TOOL_TID,
	{'m', NULL, "MS", "only reclaims that took longer than MS milliseconds", 0},
	TOOL_NAME,
	TOOL_PID,
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{OPT_DIRECT_ONLY, "direct-only", NULL,
	 "only direct reclaim of the whole machine, not a memory\ncgroup's at its limit", 0},
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"drsnoop                   # each direct reclaim, with its latency and pages",
	"drsnoop -T -e             # with wall-clock times and the allocation's order",
	"drsnoop -p 181            # PID 181 only",
	"drsnoop -m 10 -d 60       # reclaims over 10 ms, for a minute",
	"drsnoop -j -d 10 > r.json # 10 seconds as JSON lines",
	"drsnoop --trace-json r.json -d 10 # 10 seconds for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'e': env.extended = true; break;
	case 'm': env.min_ns = opt_decimal(arg, 1e6, "MS", "milliseconds"); break;
	case OPT_DIRECT_ONLY: env.direct_only = true; break;
	}
}

/* --- per event -------------------------------------------------------------------------------- */

/* --trace-json: the reclaim on the track of the thread that did it, in its process. */
static void trace_reclaim(struct tracejson *tj, int tid, const char *comm, enum kind kind,
			  uint64_t start_ns, uint64_t ns, unsigned long long pages,
			  const struct reclaim *r)
{
	char gfp[24];
	snprintf(gfp, sizeof(gfp), "0x%llx", r->gfp);
	tool_trace_span(env.t, tj, tid, 0, comm, 16, kind_names[kind], SIZE_MAX, "reclaim",
			start_ns, ns);
	tracejson_arg_str(tj, "comm", comm, 16);
	tracejson_arg_int(tj, "pid", tid);
	tracejson_arg_str(tj, "type", kind_names[kind], SIZE_MAX);
	tracejson_arg_uint(tj, "pages", pages);
	tracejson_arg_int(tj, "order", r->order);
	tracejson_arg_str(tj, "gfp", gfp, sizeof(gfp));
	tracejson_span_end(tj);
}

static void on_reclaim_end(const struct tep_record *end, const struct span_start *start,
			   uint64_t delta, void *data, void *ctx)
{
	const struct reclaim *r = data;
	if (delta < env.min_ns)
		return;
	int tid = tep_data_pid(env.t->s.tep, (struct tep_record *)end);
	unsigned long long pages =
		(unsigned long long)reader_num(end, env.end[start->kind].reclaimed);
	char comm[16];
	snprintf(comm, sizeof(comm), "%s", tool_comm(env.t, tid));
	env.shown++;
	row_begin(&env.row, end->ts);
	row_str(&env.row, comm, sizeof(comm));
	row_int(&env.row, tid);
	row_word(&env.row, kind_names[start->kind]);
	row_float(&env.row, delta / 1e6);
	row_uint(&env.row, pages);
	row_int(&env.row, r->order);
	row_hex(&env.row, r->gfp);
	row_end(&env.row);
	struct tracejson *tj = tool_trace_json(env.t);
	if (tj)
		trace_reclaim(tj, tid, comm, start->kind, end->ts - delta, delta, pages, r);
}

static void on_begin(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = reader_pid(rec);
	struct reclaim *r =
		span_begin(&env.span, (uint64_t)tid, ei->kind, rec->ts, rec->cpu, ei->kind);
	r->order = reader_num(rec, ei->order);
	r->gfp = (unsigned long long)reader_num(rec, ei->gfp);
}

static void on_end(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = reader_pid(rec);
	span_end(&env.span, rec, (uint64_t)tid, ei->kind, rec->ts);
}

/* --- set up ----------------------------------------------------------------------------------- */

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	for (int k = 0; k < KINDS; k++) {
		if (k == MEMCG && env.direct_only)
			break;
		struct tep_event *b = session_event(&t->s, "vmscan", begin_events[k], false);
		struct tep_event *e = session_event(&t->s, "vmscan", end_events[k], false);
		/* Without memory cgroups (CONFIG_MEMCG) a kernel has no memcg reclaim events,
		 * nor such reclaim to show. */
		if (k == MEMCG && !b && !e) {
			env.direct_only = env.no_memcg = true;
			break;
		}
		if (!b || !e || !tep_find_field(e, "nr_reclaimed")) {
			fprintf(stderr,
				"drsnoop: tracepoints vmscan:%s and %s not available in this "
				"kernel (CONFIG_EVENT_TRACING)\n",
				begin_events[k], end_events[k]);
			return TOOL_FAIL;
		}
		env.begin[k] = (struct evinfo){.kind = k,
					       .order = tep_find_field(b, "order"),
					       .gfp = tep_find_field(b, "gfp_flags")};
		env.end[k] =
			(struct evinfo){.kind = k, .reclaimed = tep_find_field(e, "nr_reclaimed")};
	}
	/* A reclaim sleeps and may end on another CPU than it began: a loss anywhere clears
	 * every start. */
	if (span_init_run(t, &env.span, 1024, sizeof(struct reclaim), SPAN_LOSS_ALL, on_reclaim_end,
			  NULL))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "%s",
		 env.no_memcg ? "direct reclaim (no memory cgroups in this kernel: CONFIG_MEMCG)" :
		 env.direct_only ? "direct reclaim" :
				   "direct and memory cgroup reclaim");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	row_show(&env.row, "order", env.extended);
	row_show(&env.row, "gfp", env.extended);
	for (int k = 0; k < KINDS; k++) {
		if (k == MEMCG && env.direct_only)
			break;
		struct tep_event *b = session_event(&t->s, "vmscan", begin_events[k], true);
		struct tep_event *e = session_event(&t->s, "vmscan", end_events[k], true);
		if (!b || !e)
			return TOOL_FAIL;
		if ((ret = tool_trace(t, b, NULL, on_begin, &env.begin[k])) ||
		    (ret = tool_trace(t, e, NULL, on_end, &env.end[k])))
			return ret;
	}
	return TOOL_OK;
}

/* --- at the end ------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	span_report(&env.span, "drsnoop", "reclaim ends");
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.span);
}

static const struct tool drsnoop = {
	.name = "drsnoop",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.formats = (const char *const[]){"vmscan:mm_vmscan_direct_reclaim_begin",
					 "vmscan:mm_vmscan_direct_reclaim_end",
					 "vmscan:mm_vmscan_memcg_reclaim_begin",
					 "vmscan:mm_vmscan_memcg_reclaim_end", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&drsnoop, argc, argv);
}
