/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup: --cgroup PATH, the tasks of a control group and its descendants (cgroup v1 or v2),
 * for tools to trace only a container or a service. ftrace has no cgroup filter without BPF:
 * the tasks in the group are given to the instance's pid filter (set_event_pid, or the
 * function tracer's set_ftrace_pid) with the fork option, so what they start is traced too;
 * tasks moved into the group later (not started there) are added when the group is read
 * again, about once a second. For events that happen in another task's context (a block
 * completion in an interrupt), a tool checks a task's membership here instead.
 */
#ifndef FTT_CGROUP_H
#define FTT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cgroup {
	char path[4096];       /* as given, absolute */
	char rel[4096];	       /* its path inside its hierarchy ("/system.slice/x.service") */
	char controllers[256]; /* v1: the hierarchy's name in /proc/PID/cgroup ("memory");
				* v2: "" */
	bool v2;
};

/* Check that path, the PATH of --cgroup, is a cgroup folder (v1 or v2) and find its hierarchy:
 * cg is cleared, then filled in (the real path, its path inside the hierarchy, v1's
 * controllers). Returns 0, or -1 with the reason in why, whylen bytes (strerror() of realpath()
 * or stat(), or what it is not). */
int cgroup_open(struct cgroup *cg, const char *path, char *why, size_t whylen);
/* Call fn(tid, ctx) for every thread in the group of cg and its descendants now (64 levels down
 * at most; a descendant that cannot be read is skipped). Returns how many threads, or -1 when
 * the group's own list of threads cannot be read. */
int cgroup_threads(const struct cgroup *cg, void (*fn)(pid_t tid, void *ctx), void *ctx);
/* Is task tid in the group of cg or one of its descendants now (/proc/TID/cgroup)? Returns
 * true if so; false if not, or when its /proc/TID/cgroup cannot be read (a task gone). */
bool cgroup_has(const struct cgroup *cg, pid_t tid);
/* The same from text, the text of a /proc/PID/cgroup file, for the group of cg. Returns true
 * when its line for cg's hierarchy names the group or one of its descendants; false when it
 * does not, or when text has no line for that hierarchy. */
bool cgroup_in(const struct cgroup *cg, const char *text);

#endif
