/* SPDX-License-Identifier: GPL-2.0-only */
/* reader: the per-CPU binary ring buffers of an instance, decoded with libtraceevent. */
#ifndef FTT_READER_H
#define FTT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;
struct session;
struct clockmap;

/* Called for every record of a registered event, in time order when the reader is ordered. */
typedef void (*reader_event_fn)(struct tep_record *rec, void *ctx);
/* Called when the kernel overwrote n unread events of a CPU (n < 0: count unknown). */
typedef void (*reader_lost_fn)(int cpu, long long n, void *ctx);
/* Called every interval; returns non-zero to stop. */
typedef int (*reader_tick_fn)(uint64_t now_ns, void *ctx);

/* Trailer records handed to one event's handler (see reader_trailer). */
#define READER_MAX_TRAILERS 4
struct reader_trailers {
	int n;
	int id[READER_MAX_TRAILERS];
	struct tep_record *rec[READER_MAX_TRAILERS];
};

#define READER_MAX_LOST 8
#define READER_MAX_SOURCES 2

struct cpubuf;
struct reader_route;

/* An instance (or fixture tree) whose per-CPU buffers are read: the tool's, and a second one
 * that records the task-naming events (comm.h), merged in time order. */
struct reader_source {
	char *dir;
	const char *what;  /* what its events are, in messages ("events") */
	int tracing_on_fd; /* its tracing_on, or -1 */
	bool polled;	   /* its CPUs wake poll() (the tool's; names are read alongside) */
};

struct reader {
	struct tep_handle *tep;
	const char *tool; /* for messages */
	struct reader_source src[READER_MAX_SOURCES];
	int nsrc;
	struct cpubuf *cpus;
	int ncpus;
	size_t subbuf; /* bytes per ring-buffer page */
	bool ordered;  /* merge CPUs by timestamp (tools that pair events) */
	bool mono;     /* timestamps are CLOCK_MONOTONIC: hold back the newest for late CPUs */
	/* The instance kept its trace clock "local": its times are mapped to CLOCK_MONOTONIC
	 * as records are dispatched (the session's, clockmap.h), NULL when they are not. */
	struct clockmap *clock;
	struct reader_route *routes; /* by event id */
	int nroutes;
	int nlost;
	struct {
		reader_lost_fn fn;
		void *ctx;
		int src; /* -1: every source */
	} on_lost[READER_MAX_LOST];
	/* Losses said on stderr (report_lost), per source: at most a line a second. */
	struct reader_warn {
		uint64_t said; /* when the last line was written (0: never) */
		long long pending, total;
		unsigned long long cpus; /* CPUs with losses since that line */
		bool unknown;		 /* a loss of unknown size was among them */
	} warn[READER_MAX_SOURCES];
	unsigned long long events; /* dispatched */
	long long lost_seen;	   /* reported by the pages so far (known counts) */
	int percent_fd;		   /* the tool instance's buffer_percent, or -1 */
	bool flood;	    /* buffer_percent raised: events come faster than one wake-up each */
	unsigned int wakes; /* wake-ups since window_start */
	uint64_t window_start;
	struct reader_trailers trailers; /* of the record being dispatched */
	/* Asked every wake-up (at least every 100 ms): non-zero ends the run like a stop
	 * (tool.c: the command of --exec, or the process of -p, has exited). */
	int (*ended)(void *ctx);
	void *ended_ctx;
	/* Longest sleep in poll() in ms (0: 100), for a tool whose output waits for its
	 * intervals or its end and whose events come from elsewhere (perf rings, whose fds
	 * in wake_fds wake it as they fill): every wake-up is a context switch. */
	int poll_ms;
	const int *wake_fds;
	int nwake_fds;
	/* Woken when a buffer is a quarter full (buffer_percent, 6.1+ honours it in poll) or
	 * after poll_ms, not at the first event: a tool that prints only per interval or at its
	 * end (each wake-up was ~70 us: softirqs on an idle machine cost 18 ms a second). */
	bool batched;
};

/*
 * Open into r the per_cpu/cpuN/trace_pipe_raw files under dir (an instance directory, or a
 * fixture tree in the unit tests), decoded with tep, with the given page size subbuf (0: the
 * kernel's); ordered: CPUs merged by timestamp. A CPU that is offline is read once it comes
 * online; a file that cannot be opened is an error (said on stderr when r's tool is set: by
 * the session's opens, not by this one, which leaves it NULL). Returns 0, or -1 (what was
 * opened stays in r). Frees: reader_close(r), after a failure too.
 */
int reader_open(struct reader *r, struct tep_handle *tep, const char *dir, size_t subbuf,
		bool ordered);
/* Open r, the reader of session s's instance (ordered as reader_open's), with its page size and
 * clock; session_close() closes it, whether it opened or not. Returns 0, or -1 (said on
 * stderr when a buffer cannot be opened; not when memory runs out). */
int reader_open_session(struct reader *r, struct session *s, bool ordered);
/* Instead, the top level's buffers (toplevel.h: the run owns it) in r, for session s: on_fd
 * its tracing_on, written 0 at the stop; ordered as reader_open's. Returns 0, or -1 as
 * reader_open_session; session_close() closes it. */
int reader_open_toplevel(struct reader *r, struct session *s, int on_fd, bool ordered);
/* Read session s's instance too in r (merged in time order; its CPUs do not wake poll());
 * what names its events in messages (kept, not copied). Returns its source index, or -1 when r
 * has READER_MAX_SOURCES, memory runs out or a buffer cannot be opened (said when r has a
 * tool). */
int reader_add_session(struct reader *r, struct session *s, const char *what);

/* Call fn(rec, ctx) for every record of event ev that r reads. Handlers run in the order
 * registered; an event may have several (the names module and the tool both follow
 * sched_process_fork when a tool traces it). Returns 0, or -1 when ev is NULL or out of
 * memory. */
int reader_on(struct reader *r, struct tep_event *ev, reader_event_fn fn, void *ctx);
/* Call fn(cpu, n, ctx) for each loss r finds. Every listener is told of each loss (pairing
 * tables, the names module), of any source. Returns 0, or -1 when r has READER_MAX_LOST
 * listeners already. */
int reader_on_lost(struct reader *r, reader_lost_fn fn, void *ctx);
/* The same (r, fn, ctx), told only of losses in source src. Returns 0, or -1 as
 * reader_on_lost. */
int reader_on_lost_of(struct reader *r, int src, reader_lost_fn fn, void *ctx);

/*
 * Records of ev, in r, belong to the record before them on the same CPU (ftrace:kernel_stack
 * and ftrace:user_stack follow the event whose stack they hold): they are never dispatched
 * alone but handed to that record's handler, which finds them with reader_record_trailers().
 * A trailer whose event was not seen (lost) is dropped. Returns 0, or -1 when ev is NULL or out
 * of memory.
 */
int reader_trailer(struct reader *r, struct tep_event *ev);
/* How many records of trailer event ev r read (with their event or without). Returns that
 * count, 0 for an event that is not a trailer (or NULL). */
unsigned long long reader_trailers_read(const struct reader *r, const struct tep_event *ev);
/* In a handler: the trailers of rec (n may be 0). Returns them, owned by the reader and valid
 * until the handler returns; for a record not from a reader, its priv (NULL for one made
 * zeroed). */
const struct reader_trailers *reader_record_trailers(const struct tep_record *rec);

/*
 * Read r and dispatch until a stop is requested (sig.h), the duration (duration_ns, 0: none)
 * has passed, a tick returns non-zero or r's ended says so. Then, unless the output is gone,
 * recording is stopped and everything recorded before the stop is read and dispatched; a
 * second stop request cuts that short, and what was not shown is counted on stderr. Events the
 * kernel overwrote are reported as they are found and, at the end, in all (exact, from the
 * per-CPU stats). tick(now, tick_ctx) is called every interval_ns (0: no ticks; tick may be
 * NULL). flush (may be NULL) is called after every batch so output reaches pipes promptly; it
 * returns 1 when the output's reader went away (| head: the run ends quietly) and -1 when
 * writing failed (said on stderr; reader_run returns -1). Returns 0, or -1 when flush failed,
 * a buffer cannot be read (said when r has a tool), poll() fails or memory runs out (not said).
 */
int reader_run(struct reader *r, uint64_t duration_ns, uint64_t interval_ns, reader_tick_fn tick,
	       void *tick_ctx, int (*flush)(void));

/* Read everything available now in r and dispatch all of it (the unit tests), and report
 * losses no later record will carry. Returns 0, or -1 when a buffer cannot be read (said when r
 * has a tool). */
int reader_drain(struct reader *r);

/* A time raw of the instance's trace clock that is not a record's (a hist trigger's field, as
 * the start time a synthetic event carries) as record times are given: CLOCK_MONOTONIC
 * where the reader r maps the clock. Returns that time (raw itself where r does not map). */
uint64_t reader_time(const struct reader *r, uint64_t raw);

/* Read everything available now in r and dispatch what is stamped up to limit (reader_now's
 * clock; everything when the trace clock is not mono); the rest waits for the next read.
 * For a tick that also reads counts the kernel keeps: its events then fall in the same
 * interval as those counts. Returns 0, or -1 when a buffer cannot be read (said when r has a
 * tool). */
int reader_read_until(struct reader *r, uint64_t limit);

/* Events the kernel lost in source src of r (overrun, commit overrun, dropped), from the
 * per-CPU stats. Returns their count, or -1 when they cannot be read. */
long long reader_lost_total(const struct reader *r, int src);

/* Close r's buffers and free its handlers and sources (not its tep); r may be closed again
 * (nothing left to do). */
void reader_close(struct reader *r);

/* Does a record of have bytes hold size bytes at off? Formats are not trusted with the
 * arithmetic. Returns true when off and size are not negative and off + size is at most
 * have. */
static inline bool reader_fits(int have, int off, int size)
{
	return off >= 0 && size >= 0 && (long long)off + size <= (long long)have;
}

/*
 * Fields of a record in this machine's byte order (the buffers are local). reader_str: field
 * f of rec, a string field, fixed array or __data_loc, as a pointer into the record and its
 * length in len (NUL-terminated or not; a __data_loc one cut at the record's end, len 0 when a
 * field lies outside it). Returns that pointer, valid while the record is, or a static "".
 */
const char *reader_str(const struct tep_record *rec, const struct tep_format_field *f, size_t *len);
/* reader_num: numeric field f of rec, sign-extended when the format says signed. Returns its
 * value, 0 when it lies outside the record or is not of 1, 2, 4 or 8 bytes. */
long long reader_num(const struct tep_record *rec, const struct tep_format_field *f);
/* The thread that recorded rec (common_pid), as tep_data_pid reads it with the handle of the
 * last reader opened (every event of a kernel has the same common fields): a handler needs no
 * handle of its own for it. Returns that thread's id. */
int reader_pid(struct tep_record *rec);
/* A string field f of rec copied into dst (size bytes, at least 1; always NUL-terminated), cut
 * at its first NUL; f NULL: "". Returns its length. The one bounded copy of strings out of
 * records. */
size_t reader_strcpy(char *dst, size_t size, const struct tep_record *rec,
		     const struct tep_format_field *f);

/* CLOCK_MONOTONIC in ns: the time base of the mono trace clock. Returns it now. */
uint64_t reader_now(void);

#endif
