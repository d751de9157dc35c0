// SPDX-License-Identifier: GPL-2.0-only
#include "domain/spanhist.h"

#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "base/opt.h"
#include "stream/reader.h"
#include "kernel/session.h"
#include "tool.h"

static const char *const via_names[] = {"hist", "pairs", "user"};

void spanhist_via(struct spanhist *sh, const char *arg)
{
	sh->via = (enum spanhist_via)(opt_choice(arg, via_names, 3, "HOW") + 1);
}

void spanhist_check(struct spanhist *sh, bool per_process)
{
	if (per_process && sh->key && sh->key != HISTBYKEY_PID)
		opt_fail("-P and -k %s exclude each other",
			 sh->key == HISTBYKEY_TID ? "tid" : "comm");
	if (per_process)
		sh->key = HISTBYKEY_PID;
	/* A task name cannot key the kernel's tables (text keys are not read back). */
	if (sh->via == SPANHIST_HIST && sh->key == HISTBYKEY_COMM)
		opt_fail("-k comm: not with --via hist (the kernel's tables are read by number)");
	sh->unit = sh->millis ? 1000000 : 1000;
}

/* The process of thread tid (itself when not known: it ended before it could be seen). */
static int tgid_of(struct tool_run *t, int tid)
{
	struct comm_task info;
	return t->names && comm_task(t->names, tid, &info) == 0 ? info.tgid : tid;
}

/* n values in slot k, adding up to sum, of thread tid named comm (NULL: as known here). */
static void account(struct spanhist *sh, int tid, const char *comm, size_t len, int k, uint64_t n,
		    uint64_t sum)
{
	struct tool_run *t = sh->t;
	int tgid = sh->key == HISTBYKEY_PID || t->o.pid ? tgid_of(t, tid) : tid;
	if ((t->o.pid && tgid != t->o.pid) || (t->o.tid && tid != t->o.tid))
		return;
	int id = sh->key == HISTBYKEY_PID ? tgid : tid;
	if (sh->key == HISTBYKEY_PID || !comm) {
		comm = tool_comm(t, id);
		len = strlen(comm);
	}
	histbykey_add_slot(&sh->hs, id, comm, len, k, n, sum);
}

static int slot_of(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

void spanhist_done(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		   void *data, void *ctx)
{
	struct spanhist *sh = ctx;
	size_t len = 0;
	const char *comm = reader_str(end, sh->end_comm, &len);
	uint64_t v = span_units(st->ts, end->ts, sh->unit);
	account(sh, (int)reader_num(end, sh->end_pid), comm ? comm : "", comm ? len : 0, slot_of(v),
		1, v);
}

/* Paired in the kernel: one event per pair. */
static void on_pair(struct tep_record *rec, void *ctx)
{
	struct spanhist *sh = ctx;
	uint64_t t0 = (uint64_t)reader_num(rec, sh->k.t0),
		 lat = (uint64_t)reader_num(rec, sh->k.lat);
	uint64_t v = span_units(t0, t0 + lat, sh->unit);
	size_t len = 0;
	const char *comm = reader_str(rec, sh->pair_comm, &len);
	account(sh, (int)reader_num(rec, sh->pair_pid), comm ? comm : "", comm ? len : 0,
		slot_of(v), 1, v);
}

/* Binned in the kernel: what its table counted since the last read. */
static int read_kernel(struct spanhist *sh)
{
	struct histtable now = {0};
	if (span_kernel_hist(&sh->k, &now))
		return -1;
	for (size_t i = 0; i < now.n; i++) {
		const struct histtable_entry *e = &now.e[i], *p = histtable_find(&sh->prev, e->key);
		uint64_t n = e->hits - (p ? p->hits : 0);
		/* b is the units plus one (the kernel's log2 rounds up): its sum less the count */
		uint64_t sum = e->val[0] - (p ? p->val[0] : 0) - n;
		if (now.nkeys == 2)
			account(sh, (int)e->key[0], NULL, 0, (int)e->key[1], n, sum);
		else /* all of them (-L: the kernel's filter) */
			histbykey_add_slot(&sh->hs, 0, "", 0, (int)e->key[0], n, sum);
	}
	histtable_free(&sh->prev);
	sh->prev = now;
	return 0;
}

/* Where the pairs are made: as asked, or the first this kernel can; -1 when asked for what
 * it cannot (said). */
static int choose(struct spanhist *sh, struct tool_run *t,
		  void (*describe)(struct spanhist *sh, bool hist))
{
	if (sh->via == SPANHIST_USER)
		return SPANHIST_USER;
	if (sh->via == SPANHIST_HIST && !span_kernel_can(SPAN_K_HIST, false)) {
		fprintf(stderr,
			"%s: --via hist: this kernel's hist triggers cannot bin in the kernel "
			"(CONFIG_HIST_TRIGGERS with synthetic events and numeric literals: Linux "
			"5.16)\n",
			t->tool->name);
		return -1;
	}
	if (sh->via == SPANHIST_PAIRS && !span_kernel_can(SPAN_K_PAIRS, false)) {
		fprintf(stderr,
			"%s: --via pairs: no hist triggers with synthetic events in this kernel "
			"(CONFIG_HIST_TRIGGERS, Linux 6.1: before it two runs interfere)\n",
			t->tool->name);
		return -1;
	}
	bool hist = sh->via == SPANHIST_HIST ||
		    (sh->via == SPANHIST_BEST && sh->key != HISTBYKEY_COMM &&
		     span_kernel_can(SPAN_K_HIST, false));
	if (!hist && sh->via == SPANHIST_BEST && !span_kernel_can(SPAN_K_PAIRS, false))
		return SPANHIST_USER;
	describe(sh, hist);
	sh->k.mode = hist ? SPAN_K_HIST : SPAN_K_PAIRS;
	sh->k.unit_ns = sh->unit;
	/* keyed by thread in the kernel: -P and -p map each to its process here */
	sh->k.hist_keys =
		sh->key == HISTBYKEY_PID || sh->key == HISTBYKEY_TID || t->o.pid ? "pid" : NULL;
	if (span_kernel_make(t, &sh->k))
		return hist ? SPANHIST_HIST : SPANHIST_PAIRS;
	return sh->via == SPANHIST_BEST ? SPANHIST_USER : -1; /* said why */
}

enum tool_code spanhist_prepare(struct spanhist *sh, struct tool_run *t, const char *what,
				const char *counted,
				void (*describe)(struct spanhist *sh, bool hist))
{
	sh->t = t;
	if (histbykey_init(&sh->hs, sh->key, sh->millis ? "ms" : "us", counted))
		return TOOL_FAIL;
	int how = choose(sh, t, describe);
	if (how < 0)
		return TOOL_FAIL;
	sh->how = (enum spanhist_via)how;
	if (sh->how == SPANHIST_PAIRS && (!(sh->pair_pid = span_kernel_field(&sh->k, "pid")) ||
					  !(sh->pair_comm = span_kernel_field(&sh->k, "comm"))))
		return TOOL_FAIL;
	/* Names: of processes (-P), of threads binned in the kernel; the process of a thread
	 * (-P, -p). */
	t->follow_names = sh->key == HISTBYKEY_PID || t->o.pid ||
			  (sh->how == SPANHIST_HIST && sh->key == HISTBYKEY_TID);
	snprintf(t->traced, sizeof(t->traced), "%s (%s)", what,
		 sh->how == SPANHIST_HIST  ? "binned in the kernel" :
		 sh->how == SPANHIST_PAIRS ? "paired in the kernel" :
					     "paired here");
	return TOOL_OK;
}

enum tool_code spanhist_setup(struct spanhist *sh)
{
	if (sh->how == SPANHIST_USER)
		return TOOL_OK;
	return span_kernel_trace(sh->t, &sh->k, NULL, on_pair, sh);
}

int spanhist_interval(struct spanhist *sh, uint64_t now)
{
	if (sh->how == SPANHIST_HIST && read_kernel(sh)) {
		sh->t->failed = true;
		return 1;
	}
	histbykey_print(&sh->hs, sh->t, now);
	return 0;
}

void spanhist_end(struct spanhist *sh, const char *what)
{
	struct tool_run *t = sh->t;
	if (!t->last_interval)
		spanhist_interval(sh, reader_now());
	if (sh->how == SPANHIST_USER)
		span_report(&sh->s, t->tool->name, what);
	else
		span_kernel_report(&sh->k, t->tool->name, what);
}

void spanhist_free(struct spanhist *sh)
{
	span_free(&sh->s);
	span_kernel_free(&sh->k);
	histbykey_free(&sh->hs);
	histtable_free(&sh->prev);
}
