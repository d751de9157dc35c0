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

#include "base/spec.h"
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

/* Parses s, a block device: "MAJOR,MINOR", "MAJOR:MINOR", a name under /sys/class/block, or
 * a /dev path. Returns it in the kernel's encoding (MAJOR << 20 | MINOR), as block
 * tracepoints record it. A device it does not name, or one this machine does not have (not
 * in /sys/dev/block), is a usage error: a line on stderr and exit 2 (opt_fail). */
uint32_t blk_opt_dev(const char *s);
/* Parses s as blk_opt_dev does, into *kdev, without failing (for tests and callers with
 * fallbacks), and without asking whether this machine has a MAJOR,MINOR device. Returns 0,
 * or -1 when s names no block device (nothing printed; *kdev unchanged). */
int blk_dev_parse(const char *s, uint32_t *kdev);
/* Writes the name of the device kdev, a kernel dev_t ("vda", from /sys/dev/block), in buf
 * (len bytes); not for the per-event path. Returns buf, the caller's: the name, or "" when
 * unknown. */
const char *blk_dev_name(uint32_t kdev, char *buf, size_t len);

#define BLK_MAJOR(d) ((unsigned)((d) >> 20))
#define BLK_MINOR(d) ((unsigned)((d) & ((1U << 20) - 1)))

/* The options every block tool has, for its option table (opt.h). */
#define BLK_OPT_DEV                    \
	SPEC(.key = 'd', .arg = "DEV", \
	     .help = "only this device: name (vda), /dev path or MAJOR,MINOR")
#define BLK_OPT_TYPE                    \
	SPEC(.key = 'i', .arg = "TYPE", \
	     .help = "only this I/O type, a glob on rwbs: '*R*' reads, '*W*' writes")
#define BLK_OPT_QUEUED \
	SPEC(.key = 'Q', .help = "measure from queueing, so latency includes time in the queue")

/* Takes option c with its arg into o: -d DEV, -i TYPE and -Q, alike in every block tool
 * (o->type is arg itself, not a copy). A bad DEV (blk_opt_dev) or TYPE (blk_type_invalid)
 * is a usage error: a line on stderr and exit 2. Returns true, or false when c is none of
 * them. */
bool blk_parse_opt(struct blk_opts *o, int c, const char *arg);

/*
 * The second of a block tool's two stages (blk_prepare, below, the first): with the instance
 * of s, the session, made and the reader r open (ordered: issue and completion may be on
 * different CPUs), enables the events of b with the -d and -i filters of o and registers the
 * handlers. Returns 0, or -1 when the kernel rejects a filter or an event (said on stderr)
 * or a handler cannot be registered (out of memory, not said).
 */
int blk_setup(struct blk *b, struct session *s, struct reader *r, const struct blk_opts *o);
/* Frees the tables of b (after blk_prepare, also one that failed). */
void blk_free(struct blk *b);
/* At the end: one line on stderr, headed by tool, with the completions of b that found no
 * start (begun before tracing, lost), if any (span_report). */
void blk_report(const struct blk *b, const char *tool);

struct tracejson;
/* Writes io to tj, the --trace-json file (tracejson.h), iosnoop's and biotop's: one I/O as a
 * span on its disk's track: each disk a pseudo process named dev (the DEV column,
 * "MAJOR,MINOR"), the I/O that overlap on it spread over lanes (its threads, "lane 1", ...),
 * the span named by its rwbs, args comm, pid (the submitting thread), type, dev, sector,
 * bytes and error as iosnoop's -j. Nothing written when the file has failed (out of memory
 * for the lanes). */
void blk_trace_json(struct tracejson *tj, const struct blk_io *io, const char *dev);

/* Checks type, an -i TYPE glob, before anything is changed in the kernel: not empty, at most
 * 64 characters, only rwbs letters and glob characters. Returns NULL when fine, else why
 * not, a static string ("empty"). */
const char *blk_type_invalid(const char *type);

/* block_bio_queue's handler (ctx: the struct blk), exposed as the others below for the unit
 * tests: keeps who submitted rec's bio, and when, by (dev, sector). */
void blk_on_bio_queue(struct tep_record *rec, void *ctx);
/* block_rq_insert's (ctx: the struct blk; with a scheduler a request is inserted first): the
 * same as blk_on_bio_queue for rec, unless the bio's submitter was seen. */
void blk_on_insert(struct tep_record *rec, void *ctx);
/* block_rq_issue's (ctx: the struct blk): the start of rec's request (its queueing with -Q,
 * when seen), named by its submitter when one was seen (issued from a kworker), else by the
 * issuing task; a requeued one keeps its first. */
void blk_on_issue(struct tep_record *rec, void *ctx);
/* block_rq_complete's (ctx: the struct blk): pairs rec with its request's start and hands
 * the I/O to the tool's on_io (one without a start is counted, for blk_report). */
void blk_on_complete(struct tep_record *rec, void *ctx);
/* The reader's lost-event listener (n events lost on cpu; ctx: the struct blk): forgets every
 * start and submitter, since a start or completion may be among the lost. */
void blk_on_lost(int cpu, long long n, void *ctx);
/* Resolves into b the field offsets of the block events of s, the session (saying what is
 * missing). Returns 0, or -1 when block_rq_issue, block_rq_complete or a field they need is
 * missing (said on stderr). */
int blk_resolve(struct blk *b, struct session *s);
/* The first of a block tool's two stages, before anything changes in the kernel: checks the
 * block events and fields of s, the session, saying what is missing (blk_resolve), and makes
 * b's tables (b zeroed first). on_io(io, ctx) is called for each completed I/O; queued: -Q.
 * Returns 0, or -1 when an event or field is missing (said) or out of memory (not said).
 * Frees: blk_free(b). */
int blk_prepare(struct blk *b, struct session *s, bool queued, blk_io_fn on_io, void *ctx);
/* Registers the handlers of b's events with the reader r, and its lost-event listener.
 * Returns 0, or -1 when one cannot be registered (out of memory, not said). */
int blk_register(struct blk *b, struct reader *r);

#endif
