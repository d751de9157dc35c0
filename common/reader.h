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

/* Called for every record of a registered event, in time order when the reader is ordered. */
typedef void (*reader_event_fn)(struct tep_record *rec, void *ctx);
/* Called when the kernel overwrote n unread events of a CPU (n < 0: count unknown). */
typedef void (*reader_lost_fn)(int cpu, long long n, void *ctx);
/* Called every interval; returns non-zero to stop. */
typedef int (*reader_tick_fn)(uint64_t now_ns, void *ctx);

#define READER_MAX_HANDLERS 64

struct reader_cpu;

struct reader {
	struct tep_handle *tep;
	struct reader_cpu *cpus;
	int ncpus;
	size_t subbuf; /* bytes per ring-buffer page */
	bool ordered;  /* merge CPUs by timestamp (tools that pair events) */
	bool mono;     /* timestamps are CLOCK_MONOTONIC: hold back the newest for late CPUs */
	int nhandlers;
	struct {
		int id;
		reader_event_fn fn;
		void *ctx;
	} handlers[READER_MAX_HANDLERS];
	reader_lost_fn on_lost;
	void *lost_ctx;
	unsigned long long events; /* dispatched */
	int percent_fd; /* the instance's buffer_percent, or -1 */
	bool flood;     /* buffer_percent raised: events come faster than one wake-up each */
	unsigned int wakes;    /* wake-ups since window_start */
	uint64_t window_start;
};

/*
 * Open the per_cpu/cpuN/trace_pipe_raw files under dir (an instance directory, or a fixture
 * tree in the unit tests) with the given page size (0: the kernel's).
 */
int reader_open(struct reader *r, struct tep_handle *tep, const char *dir, size_t subbuf,
		bool ordered);
/* Open the reader of a session's instance; session_close() closes it. */
int reader_open_session(struct reader *r, struct session *s, bool ordered);

int reader_on(struct reader *r, struct tep_event *ev, reader_event_fn fn, void *ctx);
void reader_on_lost(struct reader *r, reader_lost_fn fn, void *ctx);

/*
 * Read and dispatch until session_stop is raised, the duration (ns, 0: none) has passed or a
 * tick returns non-zero; then drain what is left. interval_ns 0: no ticks.
 * flush is called after every batch so output reaches pipes promptly; it returns non-zero
 * when output failed.
 */
int reader_run(struct reader *r, uint64_t duration_ns, uint64_t interval_ns, reader_tick_fn tick,
	       void *tick_ctx, int (*flush)(void));

/* Read everything available now and dispatch all of it (used at the end, and by tests). */
int reader_drain(struct reader *r);

void reader_close(struct reader *r);

/*
 * Fields of a record in this machine's byte order (the buffers are local). A string field,
 * fixed array or __data_loc, as a pointer into the record and its length (NUL-terminated or
 * not); a numeric field, sign-extended when the format says signed.
 */
const char *reader_str(const struct tep_record *rec, const struct tep_format_field *f, size_t *len);
long long reader_num(const struct tep_record *rec, const struct tep_format_field *f);

/* CLOCK_MONOTONIC in ns: the time base of the mono trace clock. */
uint64_t reader_now(void);

#endif
