// SPDX-License-Identifier: GPL-2.0-only
#include "schedev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "reader.h"
#include "session.h"
#include "span.h"
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
	    !(se->wakeup_new_pid = field(s, se->wakeup_new, "pid")))
		return -1;
	return 0;
}

void sched_state_filter(const struct sched_events *se, bool runnable, char *buf, size_t len)
{
	snprintf(buf, len, "%sprev_state & 0x%llx%s", runnable ? "!(" : "",
		 (unsigned long long)se->sleeping, runnable ? ")" : "");
}

long long sched_chain_step(struct sched_chain *c, int cpu, long long prev, long long next)
{
	if (c->off || cpu < 0 || cpu >= 1 << 16)
		return -1;
	if (cpu >= c->ncpus) {
		int n = cpu + 1 > 2 * c->ncpus ? cpu + 1 : 2 * c->ncpus;
		long long *to = realloc(c->to, (size_t)n * sizeof(*to));
		if (!to)
			return -1; /* this switch unchecked; the next grows it */
		for (int i = c->ncpus; i < n; i++)
			to[i] = -1;
		c->to = to;
		c->ncpus = n;
	}
	long long last = c->to[cpu];
	c->to[cpu] = next;
	if (last < 0 || last == prev)
		return -1;
	c->breaks++;
	return last;
}

void sched_chain_lost(int cpu, long long n, void *ctx)
{
	struct sched_chain *c = ctx;
	(void)n;
	for (int i = 0; i < c->ncpus; i++)
		if (cpu < 0 || i == cpu)
			c->to[i] = -1;
}

void sched_chain_report(const struct sched_chain *c, const char *tool, unsigned long long per_task)
{
	unsigned long long n = c->breaks > per_task ? c->breaks : per_task;
	if (n)
		fprintf(stderr,
			"%s: the kernel recorded no event for at least %llu switches (%s): the "
			"times "
			"around them are not counted\n",
			tool, n,
			c->breaks >= per_task ?
				"a CPU's next switch came from another task than it "
				"had switched to" :
				"a task was switched twice the same way in a row");
}

void sched_chain_free(struct sched_chain *c)
{
	free(c->to);
	memset(c, 0, sizeof(*c));
}

static void woken(struct sched_events *se, struct tep_record *rec, struct tep_format_field *pid)
{
	long long tid = reader_num(rec, pid);
	if (tid > 0)
		span_begin(se->runq, (uint64_t)tid, 0, rec->ts, rec->cpu, 0);
}

static void on_wakeup(struct tep_record *rec, void *ctx)
{
	struct sched_events *se = ctx;
	woken(se, rec, se->wakeup_pid);
}

static void on_wakeup_new(struct tep_record *rec, void *ctx)
{
	struct sched_events *se = ctx;
	woken(se, rec, se->wakeup_new_pid);
}

static void on_switch(struct tep_record *rec, void *ctx)
{
	struct sched_events *se = ctx;
	long long prev = reader_num(rec, se->prev_pid), next = reader_num(rec, se->next_pid);
	/* A switch out not recorded: whether that task was left runnable is not known. */
	long long missed = sched_chain_step(&se->chain, rec->cpu, prev, next);
	if (missed > 0)
		span_drop(se->runq, (uint64_t)missed, 0);
	if (prev == 0)
		sched_idle_switch(se, reader_num(rec, se->prev_state));
	if (prev > 0) {
		if (sched_runnable(se, reader_num(rec, se->prev_state)))
			span_begin(se->runq, (uint64_t)prev, 0, rec->ts, rec->cpu, 0);
		else
			span_drop(se->runq, (uint64_t)prev, 0);
	}
	if (next > 0)
		span_end(se->runq, rec, (uint64_t)next, 0, rec->ts);
}

int sched_runq_trace(struct tool_run *t, struct sched_events *se, struct span *s)
{
	se->runq = s;
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
