// SPDX-License-Identifier: GPL-2.0-only
#include "domain/histbykey.h"

#include <stdio.h>
#include <string.h>

#include "base/opt.h"
#include "base/out.h"
#include "base/sig.h"
#include "tool.h"

static const struct row_col cols[] = {
	ROW_COL_WALL,
	{NULL, "pid", 0, ROW_INT, 0, ROW_NOTEXT, "the process (-P)"},
	{NULL, "tid", 0, ROW_INT, 0, ROW_NOTEXT, "the thread (-k tid)"},
	{NULL, "comm", 0, ROW_STR, 0, ROW_NOTEXT,
	 "the task's name (-P: the process's, -k tid: the thread's, -k comm)"},
	{NULL, "unit", 0, ROW_WORD, 0, ROW_NOTEXT, "us or ms (-m)"},
	{NULL, "count", 0, ROW_UINT, 0, ROW_NOTEXT, "how many were counted"},
	{NULL, "sum", 0, ROW_UINT, 0, ROW_NOTEXT, "their values added up, in unit"},
	{NULL, "hist", 0, ROW_JSON, 0, 0,
	 "the log2 histogram: [{\"low\":L,\"high\":H,\"count\":N},...], values in [L, H)"},
};
const struct row_table histbykey_rows = ROW_TABLE("each histogram, every interval", cols);

/* The key of the table: the id and the name as one fixed-size block. */
struct key {
	int id;
	char comm[HISTBYKEY_COMM_LEN];
};

int histbykey_init(struct histbykey *s, enum histbykey_key key, const char *unit, const char *what)
{
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->unit = unit;
	s->what = what;
	return agg_init(&s->a, sizeof(struct key), sizeof(struct histbykey_val));
}

void histbykey_free(struct histbykey *s)
{
	agg_free(&s->a);
	prom_set_free(&s->prom);
}

static struct histbykey_val *val_of(struct histbykey *s, int id, const char *comm, size_t len,
				    uint64_t n)
{
	struct key k;
	memset(&k, 0, sizeof(k));
	if (s->key == HISTBYKEY_PID || s->key == HISTBYKEY_TID)
		k.id = id;
	if (s->key == HISTBYKEY_COMM)
		memcpy(k.comm, comm, strnlen(comm, len < sizeof(k.comm) ? len : sizeof(k.comm)));
	struct histbykey_val *v = agg_add(&s->a, &k, n);
	if (!v) {
		s->oom = true;
		sig_request_stop(); /* out of memory: end with what was counted */
		return NULL;
	}
	/* The name as last seen (a key of its own with -k comm). */
	if (s->key != HISTBYKEY_ALL) {
		memset(v->comm, 0, sizeof(v->comm));
		memcpy(v->comm, comm, strnlen(comm, len < sizeof(v->comm) ? len : sizeof(v->comm)));
	}
	return v;
}

void histbykey_add(struct histbykey *s, int id, const char *comm, size_t len, uint64_t v)
{
	struct histbykey_val *hv = val_of(s, id, comm, len, 1);
	if (hv) {
		hist_log2_add(&hv->h, v);
		hv->sum += v;
	}
}

void histbykey_add_slot(struct histbykey *s, int id, const char *comm, size_t len, int k,
			uint64_t n, uint64_t sum)
{
	if (!n || k < 0 || k >= HIST_SLOTS)
		return;
	struct histbykey_val *hv = val_of(s, id, comm, len, n);
	if (hv) {
		hv->h.slot[k] += n;
		hv->h.total += n;
		hv->sum += sum;
	}
}

struct print_ctx {
	struct histbykey *s;
	struct tool_run *t;
	uint64_t now;
	size_t n;
};

/* --prom: a histogram printed, added to its series (from the start of the run). */
static void prom_add(struct histbykey *s, const struct key *k, const struct histbykey_val *v)
{
	char labels[256], id[16], comm[HISTBYKEY_COMM_LEN + 1];
	snprintf(id, sizeof(id), "%d", k->id);
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(v->comm), v->comm);
	if (s->key == HISTBYKEY_ALL)
		labels[0] = 0;
	else if (s->key == HISTBYKEY_COMM)
		prom_labels(labels, sizeof(labels), "comm", comm, NULL);
	else
		prom_labels(labels, sizeof(labels), s->key == HISTBYKEY_PID ? "pid" : "tid", id,
			    "comm", comm, NULL);
	struct prom_series *ps = prom_series(&s->prom, labels);
	if (ps) {
		prom_hist_add(&ps->h, &v->h);
		ps->sum += v->sum;
	} else {
		s->oom = true;
	}
}

static void prom_write(struct histbykey *s, struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	/* Whole nanoseconds divided down to the slots' unit (span_units). */
	uint64_t step = !strcmp(s->unit, "ms") ? 1000000 : 1000;
	prom_family(p, s->prom_name, "histogram", s->prom_help);
	for (size_t i = 0; i < s->prom.n; i++)
		prom_hist(p, s->prom_name, s->prom.s[i]->labels, &s->prom.s[i]->h, step, PROM_NS,
			  s->prom.s[i]->sum * step, PROM_NS);
	prom_commit(p);
}

static void print_one(const void *key, uint64_t count, const void *val, void *arg)
{
	struct print_ctx *c = arg;
	struct histbykey *s = c->s;
	const struct key *k = key;
	const struct histbykey_val *v = val;
	c->n++;
	if (c->t->prom && s->prom_name)
		prom_add(s, k, v);
	if (c->t->o.json) {
		struct row *r = &s->row;
		row_begin(r, c->now);
		if (s->key == HISTBYKEY_PID)
			row_int(r, k->id);
		else
			row_none(r);
		if (s->key == HISTBYKEY_TID)
			row_int(r, k->id);
		else
			row_none(r);
		if (s->key != HISTBYKEY_ALL)
			row_str(r, v->comm, sizeof(v->comm));
		else
			row_none(r);
		row_word(r, s->unit);
		row_uint(r, v->h.total);
		row_uint(r, v->sum);
		FILE *f = row_json(r);
		if (f)
			hist_log2_json(f, &v->h);
		row_end(r);
		return;
	}
	if (s->key != HISTBYKEY_ALL) {
		static const char *const names[] = {"", "pid", "tid", "comm"};
		printf("\n%s = ", names[s->key]);
		if (s->key != HISTBYKEY_COMM)
			printf("%d ", k->id);
		out_text(stdout, v->comm, sizeof(v->comm), 0);
		putchar('\n');
	}
	hist_log2_print(stdout, &v->h, s->unit, s->what);
}

void histbykey_print(struct histbykey *s, struct tool_run *t, uint64_t now)
{
	row_init(&s->row, &histbykey_rows, stdout, t->o.json, false, t->o.wallclock);
	if (!t->o.json) {
		char when[16];
		out_table_gap(stdout);
		if (t->o.wallclock)
			printf("%s\n", out_wallclock(now, when));
	}
	struct print_ctx c = {s, t, now, 0};
	agg_sorted(&s->a, print_one, &c);
	/* Nothing counted: an empty histogram all the same (its header; a count of 0). */
	if (!c.n && s->key == HISTBYKEY_ALL) {
		struct key k;
		struct histbykey_val v;
		memset(&k, 0, sizeof(k));
		memset(&v, 0, sizeof(v));
		print_one(&k, 0, &v, &c);
	} else if (!c.n && !t->o.json) {
		out_none(stdout, s->what); /* none to head a histogram: "(no waits)" */
	}
	if (t->prom && s->prom_name)
		prom_write(s, t);
	agg_reset(&s->a);
	if (s->oom)
		fprintf(stderr, "%s: out of memory for the histograms' keys: the run ended early\n",
			t->tool->name);
	s->oom = false;
}

enum histbykey_key histbykey_key_of(const char *arg)
{
	static const char *const names[] = {"pid", "tid", "comm"};
	return (enum histbykey_key)(opt_choice(arg, names, 3, "KEY") + 1);
}
