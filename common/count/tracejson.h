/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracejson: a run's spans written in the Trace Event format (the JSON object form) that
 * Perfetto's UI and chrome://tracing open (--trace-json FILE):
 *   {"traceEvents":[ event, ... ],"displayTimeUnit":"ns","otherData":{...}}
 * with complete events ("ph":"X": name, cat, ts, dur, pid, tid, args), the names of
 * processes and threads as metadata ("ph":"M": process_name, thread_name, written again
 * when a name changes) and counters ("ph":"C"). ts and dur are microseconds of the run's
 * trace clock (CLOCK_MONOTONIC) with three decimals: nanoseconds exactly. Strings are
 * escaped as -j escapes them (out.h: \u00XX for control characters, \udcXX for a byte that
 * is not UTF-8), so a name compares equal with the one -j printed.
 *
 * The events are streamed into FILE.tmp (FILE's folder) as they come, nothing kept but the
 * names last written per track and each lane's end; at the end of the run the array is
 * closed and FILE.tmp renamed over FILE: a reader sees the whole file of a run that ended
 * (Ctrl-C, SIGTERM, -d, a count) or the one before it, never half of one. A run killed by
 * SIGKILL leaves FILE.tmp, which the next run with that FILE removes.
 *
 * Tracks: a task's spans go on its (pid = process, tid = thread) track; what is not a task
 * (a disk) gets a pseudo process above every PID (tracejson_pseudo_pid) whose spans that
 * may overlap are spread over lanes, its threads (tracejson_lane): each track holds spans
 * that are disjoint or nested, as the viewers draw them.
 */
#ifndef FTT_TRACEJSON_H
#define FTT_TRACEJSON_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* PID_MAX_LIMIT of 64-bit kernels: every task's PID is below it, the pseudo ones above. */
#define TRACEJSON_PID_BASE 4194304

struct tracejson_entry;
struct tracejson_lanes;

struct tracejson {
	const char *path, *tool;
	char tmp[PATH_MAX + 8];
	FILE *f;
	bool failed;	/* a write failed: said once, the run exits 1, no FILE */
	uint64_t spans; /* complete events written */
	size_t nevents, nargs;
	struct tracejson_entry *tab; /* names written, pseudo PIDs: open addressing */
	size_t ntab, captab;
	struct tracejson_lanes *lanes; /* per pseudo PID, by its index */
	size_t nlanes;
	int npseudo;
};

/* At start, before anything is traced: FILE is a file name, not a folder nor a link, and
 * FILE.tmp can be made in its folder; FILE.tmp is made then (a file left there is removed
 * first; never through a link) and the file begun. 0, or -1 said on stderr ("tool:
 * --trace-json: ..."), nothing left. */
int tracejson_open(struct tracejson *tj, const char *path, const char *tool);
/* The end: the array closed, FILE.tmp renamed over FILE. 0, or -1 (said once, FILE.tmp
 * removed, FILE as it was). */
int tracejson_commit(struct tracejson *tj);
/* A run that traced nothing (it failed or was refused before): FILE.tmp removed. */
void tracejson_abort(struct tracejson *tj);

/* The name of a process or a thread (len bytes at most, NUL-terminated or not), written
 * when it is not the one last written for it. */
void tracejson_process_name(struct tracejson *tj, int pid, const char *name, size_t len);
void tracejson_thread_name(struct tracejson *tj, int pid, int tid, const char *name, size_t len);

/* The pseudo process of a thing that is not a task, by a key of the tool's (a device
 * number): TRACEJSON_PID_BASE + 1, + 2, ... in the order they come; -1 out of memory (said,
 * the file is failed: tool_trace_json gives NULL from then on). */
int tracejson_pseudo_pid(struct tracejson *tj, uint64_t key);
/* The lane (a thread of pseudo process pid, from 1) for a span [start, end): the first whose
 * spans all ended by start; a new one when none did. -1 out of memory (said, as above), or
 * pid not a pseudo PID. */
int tracejson_lane(struct tracejson *tj, int pid, uint64_t start_ns, uint64_t end_ns);

/* A complete event: name (len bytes at most), cat a static word; then its args with
 * tracejson_arg_*, then tracejson_span_end. */
void tracejson_span_begin(struct tracejson *tj, int pid, int tid, const char *name, size_t len,
			  const char *cat, uint64_t start_ns, uint64_t dur_ns);
void tracejson_arg_str(struct tracejson *tj, const char *key, const char *s, size_t max);
void tracejson_arg_int(struct tracejson *tj, const char *key, long long v);
void tracejson_arg_uint(struct tracejson *tj, const char *key, unsigned long long v);
void tracejson_span_end(struct tracejson *tj);

/* A counter of process pid at ts: one series, value v (a count: integers only, so no NaN
 * reaches the file). */
void tracejson_counter(struct tracejson *tj, int pid, const char *name, uint64_t ts_ns,
		       const char *series, long long v);
/* The same with n series in one event (series[i] = v[i]): Perfetto draws each as a counter
 * track of its own ("name series"), chrome://tracing stacks them in one. */
void tracejson_counters(struct tracejson *tj, int pid, const char *name, uint64_t ts_ns,
			const char *const *series, const long long *v, int n);

/* An interval tool's counts (vfsstat, cachestat): one counter event named tool at the
 * interval's start, v[i] for series[i], on a pseudo process of its own named tool; v NULL:
 * zeros, written once at the last interval's end so that the last one has a width. */
void tracejson_interval(struct tracejson *tj, uint64_t start_ns, const char *const *series,
			const long long *v, int n);

/* Microseconds of ns, with three decimals, into dst (32 bytes); its length. */
size_t tracejson_us(char *dst, uint64_t ns);

#endif
