// SPDX-License-Identifier: GPL-2.0-only
#include "domain/member.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

int member_init(struct member *m, pid_t pid)
{
	m->pid = pid;
	return pair_init(&m->cache, 1024, 1);
}

/* A stat() per thread first seen, then a lookup in a table of 1024 (an evicted thread is
 * asked again). */
bool member_of(struct member *m, pid_t tid)
{
	if (tid == m->pid)
		return true;
	if (tid <= 0)
		return false;
	unsigned char *v = pair_get(&m->cache, (uint64_t)tid, 0);
	if (!v) {
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)m->pid, (int)tid);
		v = pair_put(&m->cache, (uint64_t)tid, 0);
		*v = stat(path, &st) == 0 ? 1 : 2;
	}
	return *v == 1;
}

void member_free(struct member *m)
{
	pair_free(&m->cache);
}
