/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * threads: a process's threads now, from /proc/PID/task, and the same as lists of IDs
 * separated by spaces for the kernel's pid files (set_event_pid, set_ftrace_pid): -p in the
 * instance (session.c) and at the top level (funcgraph).
 */
#ifndef FTT_THREADS_H
#define FTT_THREADS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The IDs of pid's threads now, in the order /proc lists them (the process's own ID among
 * them): *tids, malloc'd, the caller frees it with free(); *n of them (*tids NULL when none).
 * Returns 0, or -1 with errno (ENOENT: the process has exited), *tids NULL and nothing to
 * free.
 */
int threads_read(pid_t pid, pid_t **tids, size_t *n);

/*
 * The threads -p or -L name, as lists of IDs separated by spaces ("12 13 14") handed to
 * add(ctx, ids), ids valid for the call, each of less than chunk bytes (0: all in one; an
 * ID alone may be longer): every thread of pid now, or tid alone when not 0. No limit on
 * their number: none is dropped. The kernel's pid files take a list a write (set_ftrace_pid
 * before 4.10 one ID of less than 64 bytes). Returns 0, or -1 with the failure said in one
 * line prefixed with tool (a process gone, a directory unreadable, out of memory), or when
 * add fails (returns non-zero; add says why); with tid, what add returned.
 */
int threads_each_list(const char *tool, pid_t pid, pid_t tid, size_t chunk,
		      int (*add)(void *ctx, const char *ids), void *ctx);

#endif
