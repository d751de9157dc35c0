// SPDX-License-Identifier: GPL-2.0-only
/*
 * cachestat: page-cache hits, misses and dirtied pages per interval, counted at three of the
 * kernel functions perf-tools' and bcc's cachestat count: pages marked accessed (every
 * look-up by a read that finds or brings in a page), pages added to the cache and pages
 * dirtied. Each is counted in the kernel where it can be: a kprobe whose filter drops every
 * event still counts its hits in kprobe_profile, so no event is sent per call. Where the
 * function cannot be probed under any of its names (they changed with folios in 5.16), its
 * tracepoint is used instead and each call is an event counted here.
 *
 * Their fourth, buffers dirtied (mark_buffer_dirty), is not counted: they subtract it from
 * the accesses as if every write marked a page accessed, which no kernel from 4.9 to 6.12
 * does (measured: a 48 MiB write looks up no page), so writes took hits away, all of them on
 * a file system of 1 KiB blocks (four buffers a page): HITS 0 whenever something wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "kernel/ftrace.h"
#include "base/opt.h"
#include "base/out.h"
#include "kernel/probe.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "count/tracejson.h"
#include "kernel/session.h"
#include "tool.h"

/* What is counted: pages looked up (accessed), pages added to the cache, pages dirtied
 * (added by a write, not missed by a read). */
enum role { ACCESSED, ADDED, DIRTIED, ROLES };

/* Where each is counted, first choice first: the function under its name since 5.16
 * (folios), then before; then a tracepoint that fires in it. */
static const struct source {
	const char *func[2];
	const char *sys, *event[2];
} sources[ROLES] = {
	[ACCESSED] = {{"folio_mark_accessed", "mark_page_accessed"}, NULL, {NULL, NULL}},
	[ADDED] = {{"filemap_add_folio", "add_to_page_cache_lru"},
		   "filemap",
		   {"mm_filemap_add_to_page_cache", NULL}},
	[DIRTIED] = {{"folio_account_dirtied", "account_page_dirtied"},
		     "writeback",
		     {"writeback_dirty_folio", "writeback_dirty_page"}},
};
static const char *const role_names[ROLES] = {"accessed", "added", "dirtied"};

static struct env {
	struct counter {
		const char *name; /* the function or SYS:EVENT counted */
		struct tep_event *ev;
		bool by_hits;	       /* a kprobe's hit count; else its events, counted here */
		char probe[32];	       /* the kprobe's name (kprobe_profile shows no group) */
		uint64_t count;	       /* this interval */
		uint64_t hits, missed; /* kprobe_profile's, last read */
	} c[ROLES];
	uint64_t missed;     /* calls the kprobes missed, in all */
	uint64_t misses_due; /* pages read in last interval beyond its look-ups */
	bool verbose;
	struct row row;
	uint64_t totals[3]; /* --prom: hits, misses, dirties from the start */
	uint64_t since;	    /* --trace-json: the interval's start */
} env;

/* --trace-json: the series of each interval's counter event, as -j's members. */
static const char *const trace_series[] = {"hits", "misses", "dirties"};

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per interval"),
	{'T', NULL, NULL, "a TIME column: wall-clock time HH:MM:SS", TOOL_OPT_WALLCLOCK},
	{'v', NULL, NULL, "say what is counted where, then exit", 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"cachestat                  # every second",
	"cachestat -T 5             # every 5 seconds, with the time",
	"cachestat 1 10             # ten seconds, one line each",
	"cachestat -j 1 60 > cs.json # a minute of JSON lines",
	"cachestat --prom cs.prom 15 > /dev/null # counters for node_exporter",
	"cachestat --trace-json cs.json 1 10 # ten seconds of counters for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'v')
		env.verbose = true;
}

/* --- where each is counted ------------------------------------------------------------------ */

/* Which of the functions the kernel can trace, from one read of its list (a read each took
 * 1.4 s of cachestat's 13 s start in the 6.12 guest); listed[r][i] for sources[r].func[i]. */
static bool listed[ROLES][2];
static void mark_listed(const char *name, const char *mod, void *ctx)
{
	for (enum role r = 0; r < ROLES; r++)
		for (int i = 0; i < 2; i++)
			if (sources[r].func[i] && !strcmp(name, sources[r].func[i]))
				listed[r][i] = true;
}

static bool by_kprobe(struct tool_run *t, enum role r, bool kprobes, bool known)
{
	struct counter *c = &env.c[r];
	for (int i = 0; kprobes && i < 2 && sources[r].func[i]; i++) {
		const char *f = sources[r].func[i];
		/* Not traceable (inlined, or named otherwise on this kernel); where the list is
		 * refused, the kernel decides. */
		if (known && !listed[r][i])
			continue;
		snprintf(c->probe, sizeof(c->probe), "cs_%s_%d", role_names[r], (int)getpid());
		if ((c->ev = probe_try(&t->s, PROBE_KPROBE, 'p', c->probe, f, NULL))) {
			c->name = f;
			c->by_hits = true;
			return true;
		}
	}
	return false;
}

static bool by_tracepoint(struct tool_run *t, enum role r)
{
	struct counter *c = &env.c[r];
	for (int i = 0; sources[r].sys && i < 2 && sources[r].event[i]; i++)
		if ((c->ev = session_load_event(&t->s, sources[r].sys, sources[r].event[i]))) {
			c->name = sources[r].event[i];
			return true;
		}
	return false;
}

/* A line per interval; the hit ratio is a percentage in text, a fraction in JSON (null with
 * no look-up), and the raw counts are JSON's only. */
static const struct row_col cols[] = {
	ROW_COL_WALL,
	{"HITS", "hits", 10, ROW_UINT, 0, 0, "look-ups that found their page"},
	{"MISSES", "misses", 10, ROW_UINT, 0, 0, "look-ups that did not (pages read in)"},
	{"DIRTIES", "dirties", 10, ROW_UINT, 0, 0, "pages dirtied"},
	{"HITRATIO", NULL, 8, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "ratio", 0, ROW_FLOAT, 4, ROW_NOTEXT, "hits / look-ups, null with none"},
	{"BUFFERS_MB", "buffers_mb", 10, ROW_INT, 0, 0, "Buffers of /proc/meminfo, MB"},
	{"CACHED_MB", "cached_mb", 10, ROW_INT, 0, 0, "Cached of /proc/meminfo, MB"},
	{NULL, "accessed", 0, ROW_UINT, 0, ROW_NOTEXT, "page look-ups counted"},
	{NULL, "added", 0, ROW_UINT, 0, ROW_NOTEXT, "pages added to the cache"},
	{NULL, "dirtied", 0, ROW_UINT, 0, ROW_NOTEXT, "pages dirtied (the same as dirties)"},
};
static const struct row_table table = ROW_TABLE("each interval", cols);

static enum tool_code prepare(struct tool_run *t)
{
	bool kprobes = probe_available(&t->s, PROBE_KPROBE, true);
	bool known = kprobes && ftrace_functions(NULL, mark_listed, NULL) >= 0;
	/* Misses are pages added less pages dirtied, so those two come from one source: two
	 * sources cannot be read at one moment (a count read while the events of the same
	 * pages were still in the buffer: 73 to 144 misses in a 48 MiB write on 6.12, where
	 * pages dirtied are events). Pages dirtied are placed first. */
	static const enum role order[ROLES] = {ACCESSED, DIRTIED, ADDED};
	for (int i = 0; i < ROLES; i++) {
		enum role r = order[i];
		bool events = r == ADDED && !env.c[DIRTIED].by_hits;
		if ((events && by_tracepoint(t, r)) || by_kprobe(t, r, kprobes, known) ||
		    (!events && by_tracepoint(t, r)))
			continue;
		const struct source *s = &sources[r];
		if (!kprobes)
			fprintf(stderr,
				"cachestat: counting pages %s needs kprobe events at %s "
				"(CONFIG_KPROBE_EVENTS)\n",
				role_names[r], s->func[0]);
		else
			fprintf(stderr,
				"cachestat: pages %s cannot be counted here: no %s%s%s can be "
				"probed%s%s\n",
				role_names[r], s->func[0], s->func[1] ? " or " : "",
				s->func[1] ? s->func[1] : "", s->sys ? " and no tracepoint " : "",
				s->sys ? s->event[0] : "");
		return TOOL_FAIL;
	}
	if (env.verbose) {
		for (enum role r = 0; r < ROLES; r++)
			printf("%-16s %s (%s)\n", role_names[r], env.c[r].name,
			       env.c[r].by_hits ? "kprobe hits, counted in the kernel" :
						  "tracepoint, each an event counted here");
		return TOOL_DONE;
	}
	t->follow_names = false;
	t->ordered = false;
	snprintf(t->traced, sizeof(t->traced), "page-cache hits and misses");
	return TOOL_OK;
}

static void on_event(struct tep_record *rec, void *ctx)
{
	((struct counter *)ctx)->count++;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	for (enum role r = 0; r < ROLES; r++)
		if ((ret = tool_trace(t, env.c[r].ev, env.c[r].by_hits ? "common_pid < 0" : NULL,
				      on_event, &env.c[r])))
			return ret;
	env.since = reader_now();
	return TOOL_OK;
}

/* --- output --------------------------------------------------------------------------------- */

/* A profile line of one of our kprobes: the calls since the last read. */
static void hit(const char *name, unsigned long long hits, unsigned long long missed, void *ctx)
{
	for (enum role r = 0; r < ROLES; r++) {
		struct counter *c = &env.c[r];
		if (!c->by_hits || strcmp(name, c->probe))
			continue;
		c->count += hits - c->hits;
		env.missed += missed - c->missed;
		c->hits = hits;
		c->missed = missed;
	}
}

/* Buffers and Cached of /proc/meminfo, in MB; -1 when not found. */
static void meminfo(long long *buffers, long long *cached)
{
	char line[256];
	long long kb;
	*buffers = *cached = -1;
	FILE *f = fopen("/proc/meminfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Buffers: %lld kB", &kb) == 1)
			*buffers = kb / 1024;
		else if (sscanf(line, "Cached: %lld kB", &kb) == 1)
			*cached = kb / 1024;
	}
	if (f)
		fclose(f);
}

/* --prom: the interval's counts added to the totals, and the file written. */
static void prom_write(struct tool_run *t, const uint64_t n[3])
{
	static const char *const names[] = {"ftrace_tools_cachestat_hits_total",
					    "ftrace_tools_cachestat_misses_total",
					    "ftrace_tools_cachestat_dirties_total"};
	static const char *const helps[] = {"Page-cache look-ups that found their page.",
					    "Page-cache look-ups that did not (pages read in).",
					    "Page-cache pages dirtied."};
	for (int i = 0; i < 3; i++)
		env.totals[i] += n[i];
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	for (int i = 0; i < 3; i++) {
		prom_family(p, names[i], "counter", helps[i]);
		prom_uint(p, names[i], NULL, env.totals[i]);
	}
	prom_commit(p);
}

static int interval(struct tool_run *t, uint64_t now)
{
	/* The counts would be short: the run ends, and fails. */
	if (probe_profile(PROBE_KPROBE, hit, NULL) < 0) {
		fprintf(stderr, "cachestat: cannot read kprobe_profile: the counts are lost\n");
		t->failed = true;
		return 1;
	}
	/* The events counted here up to the moment the kernel's counts were read, not later
	 * ones: the look-ups (a count) and the pages added (events, where pages dirtied are)
	 * of one read fall in the same interval. */
	if (reader_read_until(&t->r, reader_now()) < 0) {
		fprintf(stderr, "cachestat: cannot read the trace buffers: the counts are lost\n");
		t->failed = true;
		return 1;
	}
	uint64_t n[ROLES];
	for (enum role r = 0; r < ROLES; r++) {
		n[r] = env.c[r].count;
		env.c[r].count = 0;
	}
	/* Pages added that no write dirtied were read in: misses; the rest of the look-ups
	 * found their page. Read-ahead may add more pages than were looked up in an
	 * interval (and a count and events read at the interval are microseconds apart):
	 * then all its look-ups were misses, and the pages left over are the next
	 * interval's misses (its look-ups find them), not lost; no further. */
	uint64_t total = n[ACCESSED], due = env.misses_due;
	uint64_t read_in = n[ADDED] > n[DIRTIED] ? n[ADDED] - n[DIRTIED] : 0;
	uint64_t misses = due + read_in < total ? due + read_in : total;
	/* the last interval's first, then this one's: what is left of this one's is due */
	env.misses_due = read_in - (misses > due ? misses - due : 0);
	uint64_t hits = total - misses;
	if (t->prom)
		prom_write(t, (const uint64_t[]){hits, misses, n[DIRTIED]});
	struct tracejson *tj = tool_trace_json(t);
	if (tj)
		tracejson_interval(tj, env.since, trace_series,
				   (const long long[]){(long long)hits, (long long)misses,
						       (long long)n[DIRTIED]},
				   3);
	env.since = now;
	long long buffers, cached;
	meminfo(&buffers, &cached);
	struct row *w = &env.row;
	char pct[16] = "-";
	if (total)
		snprintf(pct, sizeof(pct), "%.2f%%", 100.0 * (double)hits / (double)total);
	row_begin(w, now);
	row_uint(w, hits);
	row_uint(w, misses);
	row_uint(w, n[DIRTIED]);
	row_word(w, pct);
	if (total)
		row_float(w, (double)hits / (double)total);
	else
		row_none(w);
	row_int(w, buffers);
	row_int(w, cached);
	for (enum role r = 0; r < ROLES; r++)
		row_uint(w, n[r]);
	row_end(w);
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	struct tracejson *tj = tool_trace_json(t);
	if (tj)
		tracejson_interval(tj, env.since, trace_series, NULL, 3);
	if (env.missed)
		fprintf(stderr,
			"cachestat: the kernel's kprobes missed %llu calls (a probe hit while "
			"another ran on the same CPU): the counts are short by that many\n",
			(unsigned long long)env.missed);
}

static const struct tool cachestat = {
	.name = "cachestat",
	.batched = true,
	.no_cgroup = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "lines",
	.interval_default_s = 1,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.interval = interval,
	.end = end,
};

int main(int argc, char **argv)
{
	return tool_main(&cachestat, argc, argv);
}
