// SPDX-License-Identifier: GPL-2.0-only
#include "join/syspair.h"
#include "kernel/session.h"

#include <stdio.h>
#include <string.h>

#include <event-parse.h>

/* span's end handler: the tool's, with the thread and the result. */
static void call_ended(const struct tep_record *exit, const struct span_start *start,
		       uint64_t delta_ns, void *data, void *ctx)
{
	struct syspair *j = ctx;
	j->ended(exit, j->tid, j->ret, (struct syspair_call *)start, j->ctx);
}

int syspair_init(struct syspair *j, size_t threads, size_t data_size, syspair_ended_fn ended,
		 void *ctx)
{
	memset(j, 0, sizeof(*j));
	j->ended = ended;
	j->ctx = ctx;
	return span_init(&j->span, threads, data_size, SPAN_LOSS_ALL, call_ended, j);
}

void syspair_free(struct syspair *j)
{
	span_free(&j->span);
}

struct syspair_call *syspair_enter(struct syspair *j, int tid, uint64_t ts, int which)
{
	span_begin(&j->span, (uint64_t)tid, 0, ts, -1, which);
	return span_find(&j->span, (uint64_t)tid, 0);
}

struct syspair_call *syspair_current(struct syspair *j, int tid)
{
	return span_find(&j->span, (uint64_t)tid, 0);
}

struct syspair_call *syspair_move(struct syspair *j, int from, int to)
{
	return span_move(&j->span, (uint64_t)from, 0, (uint64_t)to, 0);
}

void syspair_exit(struct syspair *j, const struct tep_record *rec, int tid, long long ret)
{
	j->tid = tid;
	j->ret = ret;
	span_end(&j->span, rec, (uint64_t)tid, 0, rec->ts);
}

/* Lost events: an entry or an exit may be among them, and the next exit of a thread could
 * then be joined to an older call's arguments. */
void syspair_lost(int cpu, long long n, void *ctx)
{
	struct syspair *j = ctx;
	span_lost(cpu, n, &j->span);
}

struct tep_event *syspair_event(struct session *s, const char *dir, const char *call)
{
	char name[96];
	snprintf(name, sizeof(name), "sys_%s_%s", dir, call);
	return session_load_event(s, "syscalls", name);
}
