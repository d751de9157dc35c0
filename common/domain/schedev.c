// SPDX-License-Identifier: GPL-2.0-only
#include "domain/schedev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "base/out.h"
#include "stream/reader.h"
#include "kernel/session.h"
#include "join/span.h"
#include "tool.h"

/* The bytes a record of ev spans: the end of its last field. */
static int record_size(const struct tep_event *ev)
{
	int end = 0;
	for (const struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		end = f->offset + f->size > end ? f->offset + f->size : end;
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		end = f->offset + f->size > end ? f->offset + f->size : end;
	return end;
}

/* The state the kernel would print for prev_state == v ("R", "R+", "S", "D|W", ...) into
 * out; -1 when the rendering has no prev_state. */
static int render_state(struct tep_handle *tep, struct tep_event *sw, uint64_t v, char *out,
			size_t len)
{
	struct tep_format_field *type = tep_find_common_field(sw, "common_type");
	struct tep_format_field *state = tep_find_field(sw, "prev_state");
	unsigned char data[512] = {0};
	int size = record_size(sw);
	if (!type || !state || size > (int)sizeof(data) || type->size != 2 ||
	    (state->size != 4 && state->size != 8) || state->offset + state->size > size)
		return -1;
	uint16_t id = (uint16_t)sw->id;
	memcpy(data + type->offset, &id, sizeof(id));
	if (state->size == 8)
		memcpy(data + state->offset, &v, 8);
	else {
		uint32_t v32 = (uint32_t)v;
		memcpy(data + state->offset, &v32, 4);
	}
	struct tep_record rec = {.data = data, .size = size, .ts = 1};
	struct trace_seq seq;
	trace_seq_init(&seq);
	tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	const char *p = seq.buffer ? strstr(seq.buffer, "prev_state=") : NULL;
	int ret = -1;
	if (p) {
		p += strlen("prev_state=");
		snprintf(out, len, "%.*s", (int)strcspn(p, " "), p);
		ret = 0;
	}
	trace_seq_destroy(&seq);
	return ret;
}

int sched_sleeping_bits(struct tep_handle *tep, struct tep_event *sw, uint64_t *bits)
{
	struct tep_format_field *state = tep_find_field(sw, "prev_state");
	char text[64];
	/* A runnable task prints as "R": the format must say so of 0, or it is not read
	 * as this module expects. */
	if (!state || render_state(tep, sw, 0, text, sizeof(text)) || strcmp(text, "R"))
		return -1;
	*bits = 0;
	for (int i = 0; i < state->size * 8; i++) {
		if (render_state(tep, sw, 1ULL << i, text, sizeof(text)))
			return -1;
		if (text[0] != 'R')
			*bits |= 1ULL << i;
	}
	return *bits ? 0 : -1;
}

static struct tep_format_field *field(struct session *s, struct tep_event *ev, const char *name)
{
	return session_field(s, ev, name, true);
}

int sched_load(struct session *s, struct sched_events *se, bool wakeups)
{
	memset(se, 0, sizeof(*se));
	if (!(se->sw = session_load_event(s, "sched", "sched_switch")) &&
	    !session_event(s, "sched", "sched_switch", true))
		return -1;
	if (!(se->prev_pid = field(s, se->sw, "prev_pid")) ||
	    !(se->prev_state = field(s, se->sw, "prev_state")) ||
	    !(se->prev_comm = field(s, se->sw, "prev_comm")) ||
	    !(se->next_pid = field(s, se->sw, "next_pid")) ||
	    !(se->next_comm = field(s, se->sw, "next_comm")))
		return -1;
	if (sched_sleeping_bits(s->tep, se->sw, &se->sleeping)) {
		fprintf(stderr,
			"%s: sched:sched_switch's format does not print prev_state as a task "
			"state: cannot tell a preempted task from a sleeping one\n",
			s->tool);
		return -1;
	}
	if (!wakeups)
		return 0;
	if ((!(se->wakeup = session_load_event(s, "sched", "sched_wakeup")) &&
	     !session_event(s, "sched", "sched_wakeup", true)) ||
	    (!(se->wakeup_new = session_load_event(s, "sched", "sched_wakeup_new")) &&
	     !session_event(s, "sched", "sched_wakeup_new", true)))
		return -1;
	if (!(se->wakeup_pid = field(s, se->wakeup, "pid")) ||
	    !(se->wakeup_new_pid = field(s, se->wakeup_new, "pid")) ||
	    !(se->wakeup_by = tep_find_common_field(se->wakeup, "common_pid")) ||
	    !(se->wakeup_new_by = tep_find_common_field(se->wakeup_new, "common_pid")))
		return -1;
	return 0;
}

void sched_state_filter(const struct sched_events *se, bool runnable, char *buf, size_t len)
{
	snprintf(buf, len, "%sprev_state & 0x%llx%s", runnable ? "!(" : "",
		 (unsigned long long)se->sleeping, runnable ? ")" : "");
}

/* A break on c: the task last switched in on cpu left it unseen (counted under its name). */
static long long chain_break(struct sched_chain *c, int cpu)
{
	struct sched_cpu *at = &c->cpu[cpu];
	long long last = at->to;
	c->breaks++;
	int i = 0;
	while (i < SCHED_UNSEEN && c->unseen[i].n &&
	       (c->unseen[i].pid != last || strncmp(c->unseen[i].comm, at->comm, 16)))
		i++;
	if (i == SCHED_UNSEEN)
		c->unseen_other++;
	else if (c->unseen[i].n++ == 0) {
		c->unseen[i].pid = last;
		memcpy(c->unseen[i].comm, at->comm, sizeof(at->comm));
	}
	return last;
}

/* The CPU's place in c, grown as CPUs appear; NULL when it cannot be. */
static struct sched_cpu *chain_cpu(struct sched_chain *c, int cpu)
{
	if (c->off || cpu < 0 || cpu >= 1 << 16)
		return NULL;
	if (cpu >= c->ncpus) {
		int n = cpu + 1 > 2 * c->ncpus ? cpu + 1 : 2 * c->ncpus;
		struct sched_cpu *to = realloc(c->cpu, (size_t)n * sizeof(*to));
		if (!to)
			return NULL; /* this switch unchecked; the next grows it */
		for (int i = c->ncpus; i < n; i++)
			to[i].to = SCHED_UNKNOWN;
		c->cpu = to;
		c->ncpus = n;
	}
	return &c->cpu[cpu];
}

long long sched_chain_step(struct sched_chain *c, int cpu, long long prev, long long next,
			   const char *next_comm, size_t len)
{
	struct sched_cpu *at = chain_cpu(c, cpu);
	if (!at)
		return -1;
	long long missed = at->to >= 0 && at->to != prev ? chain_break(c, cpu) : -1;
	at->to = next;
	/* 16 bytes copied per switch: the name of a task whose switch out goes unseen is the
	 * one its switch in gave */
	memset(at->comm, 0, sizeof(at->comm));
	memcpy(at->comm, next_comm ? next_comm : "",
	       next_comm ? (len < sizeof(at->comm) - 1 ? len : sizeof(at->comm) - 1) : 0);
	return missed;
}

long long sched_chain_seen(struct sched_chain *c, int cpu, long long tid, long long pid)
{
	if (c->off || cpu < 0 || cpu >= c->ncpus || c->cpu[cpu].to != tid || pid == tid)
		return -1;
	long long missed = chain_break(c, cpu);
	c->cpu[cpu].to = SCHED_BROKEN;
	return missed;
}

void sched_chain_lost(int cpu, long long n, void *ctx)
{
	struct sched_chain *c = ctx;
	for (int i = 0; i < c->ncpus; i++)
		if (cpu < 0 || i == cpu)
			c->cpu[i].to = SCHED_UNKNOWN;
}

static int by_count(const void *a, const void *b)
{
	const struct sched_unseen *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n ? 1 : -1) : (x->pid > y->pid) - (x->pid < y->pid);
}

void sched_chain_report(const struct sched_chain *c, const char *tool, unsigned long long per_task,
			const char *unknown)
{
	if (!c->breaks && !per_task)
		return;
	if (c->breaks < per_task) {
		fprintf(stderr,
			"%s: the kernel recorded no event for at least %llu switches (a task was "
			"switched twice the same way in a row): the times around them are not "
			"counted\n",
			tool, per_task);
		return;
	}
	struct sched_unseen u[SCHED_UNSEEN];
	int n = 0;
	unsigned long long rest = c->unseen_other;
	while (n < SCHED_UNSEEN && c->unseen[n].n)
		n++;
	memcpy(u, c->unseen, (size_t)n * sizeof(*u));
	qsort(u, (size_t)n, sizeof(*u), by_count);
	fprintf(stderr, "%s: the kernel recorded no event for at least %llu switches, out of ",
		tool, c->breaks);
	int shown = n < 3 ? n : 3, more = n - shown;
	for (int i = 0; i < shown; i++) {
		fputs(i ? (i == shown - 1 && !more && !rest ? " and " : ", ") : "", stderr);
		out_text(stderr, u[i].comm, strnlen(u[i].comm, sizeof(u[i].comm)), 0);
		fprintf(stderr, " (PID %lld, %llu)", u[i].pid, u[i].n);
	}
	for (int i = shown; i < n; i++)
		rest += u[i].n;
	if (rest)
		fprintf(stderr, " and %s (%llu)", more ? "other tasks" : "others", rest);
	fprintf(stderr, ": %s is not counted\n", unknown);
}

void sched_chain_free(struct sched_chain *c)
{
	free(c->cpu);
	memset(c, 0, sizeof(*c));
}

bool sched_traced(const struct sched_events *se, long long tid)
{
	const struct tool_run *t = se->t;
	if (!t || (!t->o.pid && !t->o.tid))
		return true;
	if (t->o.tid)
		return tid == t->o.tid;
	struct comm_task info;
	int tgid = t->names && comm_task(t->names, (int)tid, &info) == 0 ? info.tgid : (int)tid;
	return tgid == t->o.pid;
}

void sched_runq_woken(struct sched_events *se, int cpu, uint64_t ts, long long pid, long long tid)
{
	if (tid <= 0 || !sched_traced(se, tid))
		return;
	/* Woken on the CPU it was last switched in on, by another task there: it left that
	 * CPU unseen, and any start it had may be from before (a wake-up while it ran). */
	if (sched_chain_seen(&se->chain, cpu, tid, pid) > 0)
		span_drop(se->runq, (uint64_t)tid, 0);
	span_begin(se->runq, (uint64_t)tid, 0, ts, cpu, 0);
}

static void on_wakeup(struct tep_record *rec, void *ctx)
{
	struct sched_events *se = ctx;
	sched_runq_woken(se, rec->cpu, rec->ts, reader_num(rec, se->wakeup_by),
			 reader_num(rec, se->wakeup_pid));
}

static void on_wakeup_new(struct tep_record *rec, void *ctx)
{
	struct sched_events *se = ctx;
	sched_runq_woken(se, rec->cpu, rec->ts, reader_num(rec, se->wakeup_new_by),
			 reader_num(rec, se->wakeup_new_pid));
}

void sched_runq_switch(struct sched_events *se, const struct tep_record *rec, int cpu, uint64_t ts,
		       long long prev, long long prev_state, long long next, const char *next_comm,
		       size_t len)
{
	/* A switch out not recorded: whether that task was left runnable is not known, and a
	 * start it has may be from a wake-up while it ran. The task switched in unseen (prev)
	 * has its start replaced or dropped below: its wait's end is not known. */
	long long missed = sched_chain_step(&se->chain, cpu, prev, next, next_comm, len);
	if (missed > 0)
		span_drop(se->runq, (uint64_t)missed, 0);
	if (prev == 0)
		sched_idle_switch(se, prev_state);
	if (prev > 0 && sched_traced(se, prev)) {
		if (sched_runnable(se, prev_state))
			span_begin(se->runq, (uint64_t)prev, 0, ts, cpu, 0);
		else
			span_drop(se->runq, (uint64_t)prev, 0);
	}
	if (next > 0 && sched_traced(se, next))
		span_end(se->runq, rec, (uint64_t)next, 0, ts);
}

void sched_slice_switch(struct sched_events *se, struct span *s, bool off_cpu,
			const struct tep_record *rec, int cpu, uint64_t ts, long long prev,
			long long next, const char *next_comm, size_t len)
{
	long long start = off_cpu ? prev : next, end = off_cpu ? next : prev;
	/* On the CPU, a switch out not recorded leaves its task's slice open: forgotten. */
	long long missed = sched_chain_step(&se->chain, cpu, prev, next, next_comm, len);
	if (missed > 0 && !off_cpu)
		span_drop(s, (uint64_t)missed, 0);
	if (missed >= 0 && prev > 0) {
		span_drop(s, (uint64_t)prev, 0);
		if (!off_cpu)
			end = -1;
	}
	/* the end first: a slice ends as the next begins, never with its own start; under -p
	 * the other tasks of the switches recorded are not the run's */
	if (end > 0 && sched_traced(se, end))
		span_end(s, rec, (uint64_t)end, 0, ts);
	if (start > 0 && sched_traced(se, start))
		span_begin(s, (uint64_t)start, 0, ts, cpu, 0);
}

static void on_switch(struct tep_record *rec, void *ctx)
{
	struct sched_events *se = ctx;
	size_t len = 0;
	const char *comm = reader_str(rec, se->next_comm, &len);
	sched_runq_switch(se, rec, rec->cpu, rec->ts, reader_num(rec, se->prev_pid),
			  reader_num(rec, se->prev_state), reader_num(rec, se->next_pid), comm,
			  len);
}

int sched_runq_trace(struct tool_run *t, struct sched_events *se, struct span *s)
{
	se->runq = s;
	se->t = t;
	se->chain.off = t->o.pid || t->o.tid;
	if (reader_on_lost(&t->r, span_lost, s) ||
	    reader_on_lost(&t->r, sched_chain_lost, &se->chain) ||
	    session_enable(&t->s, se->wakeup, "pid != 0") ||
	    reader_on(&t->r, se->wakeup, on_wakeup, se) ||
	    session_enable(&t->s, se->wakeup_new, "pid != 0") ||
	    reader_on(&t->r, se->wakeup_new, on_wakeup_new, se) ||
	    session_enable(&t->s, se->sw, NULL) || reader_on(&t->r, se->sw, on_switch, se))
		return -1;
	return 0;
}

void sched_runq_kernel(struct sched_events *se, struct span_kernel *k, int tid)
{
	char state[64];
	sched_state_filter(se, true, state, sizeof(state));
	snprintf(se->runnable_filter, sizeof(se->runnable_filter), "prev_pid != 0 && %s", state);
	sched_state_filter(se, false, state, sizeof(state));
	snprintf(se->sleeping_filter, sizeof(se->sleeping_filter), "prev_pid != 0 && %s", state);
	if (tid)
		snprintf(se->end_filter, sizeof(se->end_filter), "next_pid != 0 && next_pid == %d",
			 tid);
	else
		snprintf(se->end_filter, sizeof(se->end_filter), "next_pid != 0");
	memset(k, 0, sizeof(*k));
	k->name = "rq";
	k->start[0] = (struct span_kstart){.ev = se->wakeup, .key = "pid", .filter = "pid != 0"};
	k->start[1] =
		(struct span_kstart){.ev = se->wakeup_new, .key = "pid", .filter = "pid != 0"};
	k->start[2] = (struct span_kstart){
		.ev = se->sw, .key = "prev_pid", .filter = se->runnable_filter};
	k->nstarts = 3;
	k->key_type = "pid_t";
	k->end = se->sw;
	k->end_key = "next_pid";
	k->end_filter = se->end_filter;
	k->drop_key = "prev_pid";
	k->drop_filter = se->sleeping_filter;
}
