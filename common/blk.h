/*
 * blk: block requests from the block tracepoints, paired from start to completion, for the
 * block tools (iosnoop, iolatency). Fields are read by name, never from the print format.
 */
#ifndef FTT_BLK_H
#define FTT_BLK_H

#include <stdbool.h>
#include <stdint.h>

#include "pair.h"

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
	bool queued;      /* -Q: start when the I/O entered the block layer */
	bool has_dev;     /* -d */
	uint32_t dev;     /* kernel encoding */
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
	struct pair_table inflight;   /* (dev, sector) -> issued request */
	uint64_t unmatched;           /* completions with no known start */
};

/* -d DEV, -i TYPE and -Q, alike in every block tool; false when c is none of them. */
bool blk_parse_opt(struct blk_opts *o, int c, const char *arg);

/*
 * Everything a block tool does before reading: find tracefs, check the block events and
 * fields (saying what is missing) before anything changes, create the session's instance,
 * open its reader (ordered: issue and completion may be on different CPUs), enable.
 */
int blk_open(struct blk *b, struct session *s, struct reader *r, const char *tool,
	     const struct blk_opts *o, blk_io_fn on_io, void *ctx);

/* Check the events (saying what is missing), enable them with filters, register handlers. */
int blk_setup(struct blk *b, struct session *s, struct reader *r, const struct blk_opts *o,
	      blk_io_fn on_io, void *ctx);
void blk_free(struct blk *b);

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
/* The steps of blk_setup() that do not touch the kernel, for the unit tests. */
int blk_prepare(struct blk *b, struct session *s, bool queued, blk_io_fn on_io, void *ctx);
int blk_register(struct blk *b, struct reader *r);

#endif
