/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * blk: block requests from the block tracepoints, paired from start to completion by device
 * and sector (span.h), for the block tools (iosnoop, iolatency). Fields are read by name,
 * never from the print format.
 */
#ifndef FTT_BLK_H
#define FTT_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pair.h"
#include "join/span.h"

struct session;
struct reader;
struct tep_record;

#define BLK_COMM_LEN 16
#define BLK_RWBS_LEN 10

/* One completed I/O. */
struct blk_io {
	uint64_t start_ns; /* issue, or queue with -Q (trace clock) */
	uint64_t end_ns;   /* completion */
	uint64_t sector;
	uint32_t dev; /* kernel encoding: MAJOR << 20 | MINOR */
	uint32_t bytes;
	int32_t error;
	int32_t pid; /* thread that submitted the I/O */
	char comm[BLK_COMM_LEN];
	char rwbs[BLK_RWBS_LEN];
};

typedef void (*blk_io_fn)(const struct blk_io *io, void *ctx);

struct blk_opts {
	bool queued;	  /* -Q: start when the I/O entered the block layer */
	bool has_dev;	  /* -d */
	uint32_t dev;	  /* kernel encoding */
	const char *type; /* -i: glob on rwbs, or NULL */
};

struct blk_field {
	int offset, size;
};

/* What a block event carries, resolved once at setup. */
struct blk_event {
	int id;
	struct blk_field pid, dev, sector, nr_sector, bytes, rwbs, comm, error;
};

struct blk {
	struct session *s;
	blk_io_fn on_io;
	void *ctx;
	bool queued;
	struct blk_event bio_queue, insert, issue, complete;
	struct pair_table submitters; /* (dev, sector) -> who queued it, and when */
	struct span inflight;	      /* (dev, sector): issue (or queue) to completion */
	uint64_t dev, sector;	      /* of the completion being paired */
	bool typed;		      /* -i: only the issues of a type are traced */
};

/* A block device: "MAJOR,MINOR", "MAJOR:MINOR", a name under /sys/class/block, or a /dev path.
 * Returned in the kernel's encoding (MAJOR << 20 | MINOR), as block tracepoints record it. */
uint32_t blk_opt_dev(const char *s);
/* As blk_opt_dev, but returns -1 instead of failing (for tests and callers with fallbacks). */
int blk_dev_parse(const char *s, uint32_t *kdev);
/* "vda" for a kernel dev_t, or "" when unknown; not for the per-event path. */
const char *blk_dev_name(uint32_t kdev, char *buf, size_t len);

#define BLK_MAJOR(d) ((unsigned)((d) >> 20))
#define BLK_MINOR(d) ((unsigned)((d) & ((1U << 20) - 1)))

/* The options every block tool has, for its option table (opt.h). */
#define BLK_OPT_DEV                                                                           \
	{                                                                                     \
		'd', NULL, "DEV", "only this device: name (vda), /dev path or MAJOR,MINOR", 0 \
	}
#define BLK_OPT_TYPE                                                                       \
	{                                                                                  \
		'i', NULL, "TYPE",                                                         \
			"only this I/O type, a glob on rwbs: '*R*' reads, '*W*' writes", 0 \
	}
#define BLK_OPT_QUEUED                                                                             \
	{                                                                                          \
		'Q', NULL, NULL, "measure from queueing, so latency includes time in the queue", 0 \
	}

/* -d DEV, -i TYPE and -Q, alike in every block tool; false when c is none of them. */
bool blk_parse_opt(struct blk_opts *o, int c, const char *arg);

/*
 * A block tool's two stages. Before anything changes in the kernel: check the block events
 * and fields, saying what is missing (blk_prepare). With the instance made and the reader
 * open (ordered: issue and completion may be on different CPUs): enable the events with the
 * -d and -i filters and register the handlers (blk_setup).
 */
int blk_setup(struct blk *b, struct session *s, struct reader *r, const struct blk_opts *o);
void blk_free(struct blk *b);
/* At the end: the completions that found no start (begun before tracing, lost), if any. */
void blk_report(const struct blk *b, const char *tool);

/* --trace-json (tracejson.h), iosnoop's and biotop's: one I/O as a span on its disk's track:
 * each disk a pseudo process named dev (the DEV column, "MAJOR,MINOR"), the I/O that
 * overlap on it spread over lanes (its threads, "lane 1", ...), the span named by its rwbs,
 * args comm, pid (the submitting thread), type, dev, sector, bytes and error as iosnoop's
 * -j. Nothing written when the file has failed (out of memory for the lanes). */
struct tracejson;
void blk_trace_json(struct tracejson *tj, const struct blk_io *io, const char *dev);

/* Check an -i TYPE glob before anything is changed in the kernel; NULL when fine. */
const char *blk_type_invalid(const char *type);

/* The per-event handlers, exposed for the unit tests. */
void blk_on_bio_queue(struct tep_record *rec, void *ctx);
void blk_on_insert(struct tep_record *rec, void *ctx);
void blk_on_issue(struct tep_record *rec, void *ctx);
void blk_on_complete(struct tep_record *rec, void *ctx);
void blk_on_lost(int cpu, long long n, void *ctx);
/* Resolve the field offsets of the block events (saying what is missing). */
int blk_resolve(struct blk *b, struct session *s);
int blk_prepare(struct blk *b, struct session *s, bool queued, blk_io_fn on_io, void *ctx);
int blk_register(struct blk *b, struct reader *r);

#endif
