/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * runid: who made a thing in the kernel. Every instance, probe group, synthetic event and
 * state file of a run carries its run id, "<pid>_<start>_<hex4>": the PID and the start time
 * (clock ticks since boot) of the process, and a random part, so that a run in another PID
 * namespace, or a later process with the same PID, never shares or mistakes it. A name is
 * judged only when it is exactly of this form: nothing else is ever taken for a killed run's.
 */
#ifndef FTT_RUNID_H
#define FTT_RUNID_H

#include <stdbool.h>
#include <sys/types.h>

/* Instances: RUNID_INSTANCE_PREFIX<tool>[.<role>]-<run id>. Probe groups: RUNID_GROUP_PREFIX<run
 * id>; synthetic events RUNID_GROUP_PREFIX<run id>_<name>. */
#define RUNID_INSTANCE_PREFIX "ftrace-tools-"
#define RUNID_GROUP_PREFIX "ftt_"

struct runid {
	pid_t pid;
	unsigned long long start;
	unsigned random;
};

/* This process's run id, made at the first call (a child forked after keeps it). Returns
 * the same static string for every call. */
const char *runid_self(void);

/*
 * Read a run id at the start of s, exactly: a PID (1 to INT_MAX, no sign or leading zero),
 * '_', a start time (digits, no leading zero unless 0), '_', four lowercase hex digits and no
 * fifth. Returns 0 with it in *id and, when rest is not NULL, *rest after it (in s); or -1,
 * *id and *rest untouched.
 */
int runid_parse(const char *s, struct runid *id, const char **rest);

/* Is the run of id alive: its PID exists with the same start time (or it is this process)? A
 * PID alive with another start time is another process, or the owner in another PID namespace
 * (its things are then held by open files: rmdir and the probe removal say EBUSY). Returns
 * true or false; a PID that cannot be signalled (EPERM) still exists. */
bool runid_alive(const struct runid *id);

/* Why the run of id, not alive, is taken as ended, for the sweep's messages: "PID N is gone",
 * or "PID N is another process now" when a process has that PID (with another start time);
 * into buf, n bytes. Returns buf (the caller's). */
const char *runid_why_gone(const struct runid *id, char *buf, size_t n);

/* The start time of process pid in clock ticks since boot, field 22 of /proc/PID/stat.
 * Returns it, or 0 when unreadable (as when there is no such process). */
unsigned long long runid_start_time(pid_t pid);

#endif
