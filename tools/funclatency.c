// SPDX-License-Identifier: GPL-2.0-only
/*
 * funclatency: how long the calls of one function take, as a log2 histogram, for a kernel
 * function (a kprobe and a kretprobe) or a user one (LIB:FUNC, a uprobe and a uretprobe).
 * The entry and the return are paired per thread in user space, with a small stack per
 * thread so that a function that calls itself pairs each return with its own entry. -k: a
 * histogram per task name or per thread.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "join/funcpair.h"
#include "count/hist.h"
#include "base/opt.h"
#include "base/out.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "base/sig.h"
#include "tool.h"

enum key { KEY_NONE, KEY_COMM, KEY_TID };
static const char *const key_names[] = {"comm", "tid", NULL};

/* -k: one histogram per key (a task name, or a thread id as text), in an open-addressing
 * table that doubles at half full. */
struct keyed {
	char key[24];
	struct hist_log2 h;
	uint64_t ns; /* --prom: the latencies added up */
};

static struct env {
	struct funcpair fp;
	bool millis, nanos;
	enum key key;
	struct hist_log2 h;
	uint64_t ns; /* --prom: h's latencies added up */
	struct keyed *tab;
	size_t mask, used;
	bool oom;	      /* a key could not be added: said at the end */
	struct prom_set prom; /* --prom: each histogram from the start */
} env;

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'i', NULL, "SECS", "print a histogram every SECS seconds (default: at the end)", 0},
	TOOL_JSON("one JSON object per histogram"),
	{'k', NULL, "KEY", "a histogram per comm (task name) or per tid (thread)", 0},
	{'m', NULL, NULL, "milliseconds (default: microseconds)", 0},
	TOOL_NAME,
	{'N', NULL, NULL, "nanoseconds", 0},
	TOOL_PID,
	TOOL_TID,
	{'T', NULL, NULL, "the wall-clock time above each histogram", TOOL_OPT_WALLCLOCK},
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"funclatency vfs_read                # kernel: vfs_read's calls, at Ctrl-C",
	"funclatency -i 1 -m do_sys_open     # every second, in milliseconds",
	"funclatency -p 181 ext4_file_write_iter # only PID 181's calls",
	"funclatency libc:getaddrinfo        # user: name lookups (gethostlatency)",
	"funclatency -N ./app:parse --exec ./app input # a program's function, while it runs",
	"funclatency -k comm vfs_fsync       # per task name",
	"funclatency -i 15 --prom fl.prom vfs_read > /dev/null # a histogram for node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'i': t->o.interval = opt_interval(arg); break;
	case 'k': env.key = (enum key)(opt_choice(arg, key_names, 2, "KEY") + 1); break;
	case 'm': env.millis = true; break;
	case 'N': env.nanos = true; break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc < 1)
		opt_fail("no FUNC: which function? (see -h)");
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (one function; see -h)", argv[1]);
	if (env.millis && env.nanos)
		opt_fail("-m and -N exclude each other");
	env.fp.spec = argv[0];
	funcpair_check_spec(env.fp.spec);
}

static enum tool_code prepare(struct tool_run *t)
{
	int ret = funcpair_probes(t, &env.fp, "fl");
	if (ret)
		return ret;
	t->follow_names = t->o.name != NULL || env.key == KEY_COMM;
	snprintf(t->traced, sizeof(t->traced), "%s function %s", env.fp.user ? "user" : "kernel",
		 env.fp.spec);
	return TOOL_OK;
}

/* --- per event ---------------------------------------------------------------------------- */

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* The histogram of key, added if new; NULL when out of memory. */
static struct keyed *keyed(const char *key)
{
	if (2 * (env.used + 1) > env.mask + 1) {
		size_t cap = env.mask ? (env.mask + 1) * 2 : 64;
		struct keyed *tab = calloc(cap, sizeof(*tab));
		if (!tab)
			return NULL;
		for (size_t i = 0; env.tab && i <= env.mask; i++) {
			if (!env.tab[i].key[0])
				continue;
			size_t j = hash(env.tab[i].key) & (cap - 1);
			while (tab[j].key[0])
				j = (j + 1) & (cap - 1);
			tab[j] = env.tab[i];
		}
		free(env.tab);
		env.tab = tab;
		env.mask = cap - 1;
	}
	size_t j = hash(key) & env.mask;
	while (env.tab[j].key[0] && strcmp(env.tab[j].key, key))
		j = (j + 1) & env.mask;
	if (!env.tab[j].key[0]) {
		snprintf(env.tab[j].key, sizeof(env.tab[j].key), "%s", key);
		env.used++;
	}
	return &env.tab[j];
}

static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	uint64_t ns = c->ns, v = env.nanos ? ns : ns / (env.millis ? 1000000 : 1000);
	struct hist_log2 *h = &env.h;
	uint64_t *sum = &env.ns;
	if (env.key) {
		char key[24];
		int tid = tep_data_pid(env.fp.t->s.tep, ret);
		if (env.key == KEY_TID)
			snprintf(key, sizeof(key), "%d", tid);
		else { /* a name is at most 15 bytes; "" would mark a free slot */
			const char *comm = tool_comm(env.fp.t, tid);
			snprintf(key, sizeof(key), "%s", *comm ? comm : "?");
		}
		struct keyed *k = keyed(key);
		if (!k) {
			env.oom = true;
			sig_request_stop(); /* out of memory: end with what was counted */
			return;
		}
		h = &k->h;
		sum = &k->ns;
	}
	hist_log2_add(h, v);
	*sum += ns;
}

static enum tool_code setup(struct tool_run *t)
{
	return funcpair_trace(t, &env.fp, on_call, NULL);
}

/* --- output --------------------------------------------------------------------------------- */

static const char *unit(void)
{
	return env.nanos ? "ns" : env.millis ? "ms" : "us";
}

/* -j: one object per histogram, by -k's key (none, comm, tid); the text is hist.h's. */
#define COL_FUNC SPEC(.key = "func", .kind = ROW_STR, .flags = ROW_NOTEXT, .doc = "the function")
#define COLS_TAIL                                                                          \
	SPEC(.key = "unit", .kind = ROW_WORD, .flags = ROW_NOTEXT, .doc = "ns, us or ms"), \
		SPEC(.key = "count", .kind = ROW_UINT, .flags = ROW_NOTEXT,                \
		     .doc = "calls counted"),                                              \
		SPEC(.key = "hist", .kind = ROW_JSON,                                      \
		     .doc = "the non-empty rows of the log2 histogram: [{low, high, count}...]")
static const struct row_col all_cols[] = {ROW_COL_WHEN, COL_FUNC, COLS_TAIL};
static const struct row_col comm_cols[] = {
	ROW_COL_WHEN,
	COL_FUNC,
	{NULL, "comm", 0, ROW_STR, 0, ROW_NOTEXT, "the task name (-k comm)"},
	COLS_TAIL};
static const struct row_col tid_cols[] = {
	ROW_COL_WHEN,
	COL_FUNC,
	{NULL, "tid", 0, ROW_INT, 0, ROW_NOTEXT, "the thread (-k tid)"},
	COLS_TAIL};
static const struct row_table tables[] = {
	ROW_TABLE("each histogram", all_cols),
	ROW_TABLE("each task name's histogram, with -k comm", comm_cols),
	ROW_TABLE("each thread's histogram, with -k tid", tid_cols),
};

/* One histogram; key: "comm = NAME" or "tid = N" above it, or none. */
static void print_hist(struct tool_run *t, const char *when, const char *key,
		       const struct hist_log2 *h)
{
	if (t->o.json) {
		struct row r;
		row_init(&r, &tables[env.key], stdout, true, false, false);
		row_begin(&r, 0);
		row_word(&r, when);
		row_str(&r, env.fp.func, sizeof(env.fp.func));
		if (env.key == KEY_COMM)
			row_bytes(&r, key, strlen(key));
		else if (env.key == KEY_TID)
			row_int(&r, atoll(key));
		row_word(&r, unit());
		row_uint(&r, h->total);
		FILE *f = row_json(&r);
		if (f)
			hist_log2_json(f, h);
		row_end(&r);
		return;
	}
	if (key) {
		printf("\n%s = ", key_names[env.key - 1]);
		out_text(stdout, key, strlen(key), 0);
		putchar('\n');
	}
	hist_log2_print(stdout, h, unit(), "calls");
}

static int by_total(const void *a, const void *b)
{
	const struct keyed *x = *(const struct keyed *const *)a,
			   *y = *(const struct keyed *const *)b;
	if (x->h.total != y->h.total)
		return x->h.total < y->h.total ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* --prom: a histogram printed added to its series (labels func, and comm or tid with -k). */
static void prom_add(const char *key, const struct hist_log2 *h, uint64_t ns)
{
	char labels[512];
	if (key)
		prom_labels(labels, sizeof(labels), "func", env.fp.func, key_names[env.key - 1],
			    key, NULL);
	else
		prom_labels(labels, sizeof(labels), "func", env.fp.func, NULL);
	struct prom_series *ps = prom_series(&env.prom, labels);
	if (!ps) {
		env.oom = true;
		return;
	}
	prom_hist_add(&ps->h, h);
	ps->sum += ns;
}

static void prom_write(struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	/* whole nanoseconds divided down to the slots' unit */
	uint64_t step = env.nanos ? 1 : env.millis ? 1000000 : 1000;
	const char *name = "ftrace_tools_funclatency_call_seconds";
	prom_family(p, name, "histogram",
		    "Time from a function's entry to its return, in seconds.");
	for (size_t i = 0; i < env.prom.n; i++)
		prom_hist(p, name, env.prom.s[i]->labels, &env.prom.s[i]->h, step, PROM_NS,
			  env.prom.s[i]->sum, PROM_NS);
	prom_commit(p);
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock || t->o.interval)
			printf("[%s]\n", when);
	}
	if (!env.key) {
		print_hist(t, when, NULL, &env.h);
		if (t->prom) {
			prom_add(NULL, &env.h, env.ns);
			prom_write(t);
		}
		hist_log2_reset(&env.h);
		env.ns = 0;
		return 0;
	}
	/* The keys with calls, most called first; the table starts again. */
	struct keyed **rows = malloc((env.used ? env.used : 1) * sizeof(*rows));
	size_t n = 0;
	for (size_t i = 0; rows && env.tab && i <= env.mask; i++)
		if (env.tab[i].key[0])
			rows[n++] = &env.tab[i];
	if (!rows) {
		fprintf(stderr, "funclatency: out of memory\n");
		t->failed = true;
		return 1;
	}
	qsort(rows, n, sizeof(*rows), by_total);
	if (!n && !t->o.json)
		print_hist(t, when, NULL, &env.h); /* empty: its header */
	for (size_t i = 0; i < n; i++) {
		print_hist(t, when, rows[i]->key, &rows[i]->h);
		if (t->prom)
			prom_add(rows[i]->key, &rows[i]->h, rows[i]->ns);
	}
	if (t->prom)
		prom_write(t);
	free(rows);
	free(env.tab);
	env.tab = NULL;
	env.mask = env.used = 0;
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	funcpair_report(&env.fp, "funclatency", 0);
	if (env.oom)
		fprintf(stderr, "funclatency: out of memory for the keys: the run ended early\n");
}

static void cleanup(struct tool_run *t)
{
	funcpair_free(&env.fp);
	free(env.tab);
	prom_set_free(&env.prom);
}

static const struct tool funclatency = {
	.name = "funclatency",
	.batched = true,
	.opts = options,
	.operands = "FUNC",
	.operand_help = "   FUNC        a kernel function (vfs_read), or LIB:FUNC for a user one\n"
			"               (libc:getaddrinfo; a path or a program in PATH)\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&tables[0], &tables[1], &tables[2], NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&funclatency, argc, argv);
}
