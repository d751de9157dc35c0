/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * member: is a thread one of a process's, for a tool's own -p where the kernel cannot filter
 * (the block tools: a completion runs in whatever task an interrupt lands on, and the
 * submitter is known only from an earlier event). Asked of /proc once per thread, then
 * remembered: a thread seen in the process stays counted after it exits.
 */
#ifndef FTT_MEMBER_H
#define FTT_MEMBER_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/pair.h"

struct member {
	pid_t pid;
	struct pair_table cache; /* tid -> 1 (a thread of pid) or 2 (not) */
};

/* m for the threads of process pid, none asked yet. Returns 0, or -1 when out of memory.
 * Frees: member_free(m). */
int member_init(struct member *m, pid_t pid);
/* Is tid a thread of m's process (/proc/PID/task/TID exists, or did when first asked)? Either
 * answer is remembered, in a table of 1024 (an evicted thread is asked again). Returns true
 * when it is (tid the process's own ID: always), false when not (tid 0 or below: always). */
bool member_of(struct member *m, pid_t tid);
/* What m remembers freed; m may be freed again. */
void member_free(struct member *m);

#endif
