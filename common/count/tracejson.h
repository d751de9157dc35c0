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

/* At start, before anything is traced: path, FILE, is a file name, not a folder nor a link
 * (nor anything but a regular file), and FILE.tmp can be made in its folder; FILE.tmp is made
 * then (a file left there is removed first; never through a link) and the file begun; tj
 * filled in, path and tool (the name in messages) kept in it, not copied. Returns 0, or -1
 * said on stderr ("tool: --trace-json: ..."), nothing left. */
int tracejson_open(struct tracejson *tj, const char *path, const char *tool);
/* The end of tj's file: the array closed, FILE.tmp renamed over FILE, the tables freed.
 * Returns 0, or -1: said once when a write failed or tj failed before (out of memory keeping
 * its tracks), FILE.tmp removed and FILE as it was in both; not said when no file is open
 * (never opened, or committed or aborted already). */
int tracejson_commit(struct tracejson *tj);
/* A run that traced nothing (it failed or was refused before): tj's FILE.tmp removed, its
 * tables freed. Nothing more when its file was committed or aborted already. */
void tracejson_abort(struct tracejson *tj);

/* Writes name, the name of process pid (len bytes at most, NUL-terminated or not), into
 * tj's file when it is not the one last written for it. Nothing when no file is open. */
void tracejson_process_name(struct tracejson *tj, int pid, const char *name, size_t len);
/* The same for thread tid of process pid in tj: name, at most len bytes. */
void tracejson_thread_name(struct tracejson *tj, int pid, int tid, const char *name, size_t len);

/* The pseudo process in tj of a thing that is not a task, by key, a key of the tool's (a
 * device number). Returns its PID, TRACEJSON_PID_BASE + 1, + 2, ... in the order they come;
 * -1 out of memory (said, the file is failed: tool_trace_json gives NULL from then on; but
 * not said, nor failed, when the table of keys cannot grow). */
int tracejson_pseudo_pid(struct tracejson *tj, uint64_t key);
/* The lane in tj (a thread of pseudo process pid, from 1) for a span [start_ns, end_ns): the
 * first whose spans all ended by start_ns; a new one when none did. Returns it, or -1 out of
 * memory (said, as above), pid not a pseudo PID, or no file open. */
int tracejson_lane(struct tracejson *tj, int pid, uint64_t start_ns, uint64_t end_ns);

/* Begins a complete event in tj's file: name (len bytes at most), cat a static word (written
 * as it is), on track pid, tid, from start_ns for dur_ns; then its args with tracejson_arg_*,
 * then tracejson_span_end. Nothing when no file is open; so for every writer below. */
void tracejson_span_begin(struct tracejson *tj, int pid, int tid, const char *name, size_t len,
			  const char *cat, uint64_t start_ns, uint64_t dur_ns);
/* An arg of the event begun in tj: key and s, a string of at most max bytes. */
void tracejson_arg_str(struct tracejson *tj, const char *key, const char *s, size_t max);
/* An arg of the event begun in tj: key and v, a signed number. */
void tracejson_arg_int(struct tracejson *tj, const char *key, long long v);
/* An arg of the event begun in tj: key and v, an unsigned number. */
void tracejson_arg_uint(struct tracejson *tj, const char *key, unsigned long long v);
/* Ends the event begun in tj (its args, then itself). */
void tracejson_span_end(struct tracejson *tj);

/* Writes into tj's file the counter name of process pid at ts_ns: one series, value v (a count:
 * integers only, so no NaN reaches the file). */
void tracejson_counter(struct tracejson *tj, int pid, const char *name, uint64_t ts_ns,
		       const char *series, long long v);
/* The same with n series in one event (series[i] = v[i]), the counter name of process pid at
 * ts_ns in tj: Perfetto draws each as a counter track of its own ("name series"),
 * chrome://tracing stacks them in one. */
void tracejson_counters(struct tracejson *tj, int pid, const char *name, uint64_t ts_ns,
			const char *const *series, const long long *v, int n);

/* Writes into tj's file an interval tool's counts (vfsstat, cachestat): one counter event
 * named tool at the interval's start, start_ns, v[i] for series[i] (n of them), on a pseudo
 * process of its own named tool (key 0); v NULL: zeros (16 series at most), written once at
 * the last interval's end so that the last one has a width. Nothing when its pseudo process
 * cannot be had. */
void tracejson_interval(struct tracejson *tj, uint64_t start_ns, const char *const *series,
			const long long *v, int n);

/* Writes the microseconds of ns, with three decimals, into dst (32 bytes). Returns its
 * length. */
size_t tracejson_us(char *dst, uint64_t ns);

#endif
