// SPDX-License-Identifier: GPL-2.0-only
#include "sysc.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

int sysc_init(struct sysc *j, size_t threads, size_t data_size, sysc_ended_fn ended, void *ctx)
{
	memset(j, 0, sizeof(*j));
	j->data_size = data_size;
	j->ended = ended;
	j->ctx = ctx;
	return pair_init(&j->calls, threads, sizeof(struct sysc_call) + data_size);
}

void sysc_free(struct sysc *j)
{
	pair_free(&j->calls);
}

struct sysc_call *sysc_enter(struct sysc *j, int tid, uint64_t ts, int which)
{
	struct sysc_call *c = pair_put(&j->calls, (uint64_t)tid, 0);
	memset(c, 0, sizeof(*c) + j->data_size);
	c->enter_ns = ts;
	c->which = which;
	return c;
}

struct sysc_call *sysc_current(struct sysc *j, int tid)
{
	return pair_get(&j->calls, (uint64_t)tid, 0);
}

struct sysc_call *sysc_move(struct sysc *j, int from, int to)
{
	struct sysc_call *c = pair_get(&j->calls, (uint64_t)from, 0);
	if (!c || from == to)
		return c;
	struct sysc_call *n = pair_put(&j->calls, (uint64_t)to, 0);
	/* The put may have evicted the call being moved (same set, full): look again. */
	if ((c = pair_get(&j->calls, (uint64_t)from, 0))) {
		memcpy(n, c, sizeof(*c) + j->data_size);
		pair_del(&j->calls, c);
	} else {
		pair_del(&j->calls, n);
		n = NULL;
	}
	return n;
}

void sysc_exit(struct sysc *j, const struct tep_record *rec, int tid, long long ret)
{
	struct sysc_call *c = pair_get(&j->calls, (uint64_t)tid, 0);
	if (!c) {
		j->unpaired++; /* began before tracing, after lost events, or not seen */
		return;
	}
	j->ended(rec, tid, ret, c, j->ctx);
	pair_del(&j->calls, c);
}

/* Lost events: an entry or an exit may be among them, and the next exit of a thread could
 * then be joined to an older call's arguments. */
void sysc_lost(int cpu, long long n, void *ctx)
{
	struct sysc *j = ctx;
	(void)cpu;
	(void)n;
	j->cleared++;
	pair_clear(&j->calls);
}

struct tep_event *sysc_event(struct session *s, const char *dir, const char *call)
{
	char name[96];
	snprintf(name, sizeof(name), "sys_%s_%s", dir, call);
	return session_load_event(s, "syscalls", name);
}
