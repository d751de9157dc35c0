/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record: --record FILE, the raw events of a run kept in a trace.dat file that trace-cmd
 * report and KernelShark read, while the tool shows and counts as usual. Each page the
 * reader takes from a CPU's ring buffer is appended, as it is, to a file of that CPU beside
 * FILE; at the end FILE is written in trace-cmd's version 6 format (trace-cmd.dat.v6(5)):
 * the ring buffer's headers, the format of every event the run loaded, the kernel's symbols
 * and printk formats, its saved task names, the trace clock the run used (so the file can be
 * lined up with another recording of the same clock), then each CPU's pages. Written here, not with
 * libtracecmd: its public API (3.1) reads trace.dat files but does not write them.
 */
#ifndef FTT_RECORD_H
#define FTT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

struct record {
	char *path;	/* FILE */
	int ncpus;	/* CPU numbers 0 .. ncpus-1 */
	int *fd;	/* per CPU: its pages so far, or -1 */
	char **tmp;	/* their files' names */
	size_t page;	/* bytes per page */
	uint64_t pages; /* pages kept */
	bool failed;	/* a write failed (said once) */
	const char *tool;
};

/* Check FILE (path) can be made (its folder exists and is writable; FILE is not a folder, nor
 * a link, nor empty), before anything changes in the kernel. Returns 0, or -1 with one line on
 * stderr under tool's name. */
int record_check(const char *path, const char *tool);
/* Start r: a file per CPU (0 .. ncpus-1) beside path (unnamed where the file system allows
 * it), pages of page bytes; path is copied, tool (for messages) kept. Returns 0, or -1 with one
 * line on stderr. Frees: record_finish(r), or record_abort(r), after a failure too. */
int record_open(struct record *r, const char *path, int ncpus, size_t page, const char *tool);
/* Keep in r one page of CPU cpu (what trace_pipe_raw gave at page, len bytes, zero-padded to a
 * page). A CPU out of range is ignored; a failed write is said once on stderr, and the pages
 * after it are not kept (record_finish then fails). */
void record_page(struct record *r, int cpu, const char *page, size_t len);
/* Write FILE with the formats of every event tep holds (read from tracefs now: call while
 * the run's probes still exist) and clock, the trace clock of the run's instance ("mono";
 * NULL: none saved), then remove the CPU files and free r (record_abort), whatever happens.
 * Returns 0, or -1 when it could not be written (said; what was written of FILE removed). */
int record_finish(struct record *r, struct tep_handle *tep, const char *clock);
/* Remove what record_open made in r and free it (a run that failed before the end); FILE too
 * when a write had failed. r may be given again (nothing left to do). */
void record_abort(struct record *r);

#endif
