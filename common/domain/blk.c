// SPDX-License-Identifier: GPL-2.0-only
#include "domain/blk.h"
#include "base/opt.h"
#include "count/tracejson.h"
#include "stream/reader.h"
#include "kernel/session.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <event-parse.h>

struct submitter {
	uint64_t queued_ns;
	int32_t pid;
	char comm[BLK_COMM_LEN];
};

/* What an issued request keeps until its completion (its start time is the span's). */
struct inflight {
	uint32_t bytes;
	int32_t pid;
	char comm[BLK_COMM_LEN];
	char rwbs[BLK_RWBS_LEN];
};

static void resolve_field(struct tep_event *ev, const char *name, struct blk_field *f)
{
	struct tep_format_field *tf = ev ? tep_find_field(ev, name) : NULL;
	f->offset = tf ? tf->offset : -1;
	f->size = tf ? tf->size : 0;
}

static void resolve_event(struct tep_event *ev, struct blk_event *be)
{
	be->id = ev ? ev->id : -1;
	struct tep_format_field *pid = ev ? tep_find_common_field(ev, "common_pid") : NULL;
	be->pid.offset = pid ? pid->offset : -1;
	be->pid.size = pid ? pid->size : 0;
	resolve_field(ev, "dev", &be->dev);
	resolve_field(ev, "sector", &be->sector);
	resolve_field(ev, "nr_sector", &be->nr_sector);
	resolve_field(ev, "bytes", &be->bytes);
	resolve_field(ev, "rwbs", &be->rwbs);
	resolve_field(ev, "comm", &be->comm);
	resolve_field(ev, "error", &be->error);
}

/* A number field of a block event, by reader_num: bounds-checked like every other read of a
 * record (unsigned: dev, sector and bytes are; pid and error are cut to 32 bits). */
static inline uint64_t read_u64(const struct tep_record *rec, const struct blk_field *f)
{
	const struct tep_format_field tf = {.offset = f->offset, .size = f->size};
	return (uint64_t)reader_num(rec, &tf);
}

static inline void str(const struct tep_record *rec, const struct blk_field *f, char *dst,
		       size_t len)
{
	size_t n = (size_t)f->size < len ? (size_t)f->size : len - 1;
	if (f->offset < 0)
		n = 0;
	memcpy(dst, (const char *)rec->data + f->offset, n);
	dst[n] = 0;
}

/* The submitting process, seen where the I/O entered the block layer. */
void blk_on_bio_queue(struct tep_record *rec, void *ctx)
{
	struct blk *b = ctx;
	struct submitter *sub = pair_put(&b->submitters, read_u64(rec, &b->bio_queue.dev),
					 read_u64(rec, &b->bio_queue.sector));
	sub->queued_ns = rec->ts;
	sub->pid = (int32_t)read_u64(rec, &b->bio_queue.pid);
	str(rec, &b->bio_queue.comm, sub->comm, sizeof(sub->comm));
}

/* With a scheduler a request is inserted first; keep the bio's submitter when we saw it. */
void blk_on_insert(struct tep_record *rec, void *ctx)
{
	struct blk *b = ctx;
	uint64_t dev = read_u64(rec, &b->insert.dev), sector = read_u64(rec, &b->insert.sector);
	if (pair_get(&b->submitters, dev, sector))
		return;
	struct submitter *sub = pair_put(&b->submitters, dev, sector);
	sub->queued_ns = rec->ts;
	sub->pid = (int32_t)read_u64(rec, &b->insert.pid);
	str(rec, &b->insert.comm, sub->comm, sizeof(sub->comm));
}

void blk_on_issue(struct tep_record *rec, void *ctx)
{
	struct blk *b = ctx;
	const struct blk_event *e = &b->issue;
	uint64_t dev = read_u64(rec, &e->dev), sector = read_u64(rec, &e->sector);
	/* A requeued request is issued again: keep its first start and submitter. */
	if (span_find(&b->inflight, dev, sector))
		return;
	struct submitter *sub = pair_get(&b->submitters, dev, sector);
	struct inflight *io = span_begin(&b->inflight, dev, sector,
					 b->queued && sub ? sub->queued_ns : rec->ts, rec->cpu, 0);
	if (sub) {
		/* Issued from a kworker (I/O scheduler, plug flush): name the submitter. */
		io->pid = sub->pid;
		memcpy(io->comm, sub->comm, sizeof(io->comm));
		pair_del(&b->submitters, sub);
	} else {
		io->pid = (int32_t)read_u64(rec, &e->pid);
		str(rec, &e->comm, io->comm, sizeof(io->comm));
	}
	/* On 4.9 (measured; 4.14 fills it in) bytes is 0 for file-system requests (only pass-
	 * through ones carry it); nr_sector holds their size. */
	io->bytes = e->bytes.offset >= 0 ? (uint32_t)read_u64(rec, &e->bytes) : 0;
	if (!io->bytes && e->nr_sector.offset >= 0)
		io->bytes = (uint32_t)read_u64(rec, &e->nr_sector) << 9;
	str(rec, &e->rwbs, io->rwbs, sizeof(io->rwbs));
}

/* span's done: the completion of a request seen issued. */
static void completed(const struct tep_record *rec, const struct span_start *st, uint64_t delta,
		      void *data, void *ctx)
{
	struct blk *b = ctx;
	const struct inflight *in = data;
	struct blk_io io = {
		.start_ns = st->ts,
		.end_ns = rec->ts,
		.sector = b->sector,
		.dev = (uint32_t)b->dev,
		.bytes = in->bytes,
		.error = b->complete.error.offset >= 0 ?
				 (int32_t)read_u64(rec, &b->complete.error) :
				 0,
		.pid = in->pid,
	};
	memcpy(io.comm, in->comm, sizeof(io.comm));
	memcpy(io.rwbs, in->rwbs, sizeof(io.rwbs));
	b->on_io(&io, b->ctx);
}

void blk_on_complete(struct tep_record *rec, void *ctx)
{
	struct blk *b = ctx;
	b->dev = read_u64(rec, &b->complete.dev);
	b->sector = read_u64(rec, &b->complete.sector);
	span_end(&b->inflight, rec, b->dev, b->sector, rec->ts);
}

void blk_on_lost(int cpu, long long n, void *ctx)
{
	struct blk *b = ctx;
	/* A start or completion may be among the lost: pairing what is left could lie. */
	span_lost(cpu, n, &b->inflight);
	pair_clear(&b->submitters);
}

void blk_report(const struct blk *b, const char *tool)
{
	/* -i filters the issues in the kernel, not the completions (whose flags may differ):
	 * those of the other types find no start either. */
	span_report(&b->inflight, tool,
		    b->typed ? "completions (of any type: -i selects the issues)" : "completions");
}

const char *blk_type_invalid(const char *type)
{
	if (!*type)
		return "empty";
	/* The kernel's filter holds it with -d's (blk_setup): a longer one would be cut. */
	if (strlen(type) > 64)
		return "longer than 64 characters";
	/* rwbs holds letters (R W D F N S M A E V), so a glob of those and *?[]! is enough. */
	for (const char *p = type; *p; p++)
		if (!strchr("RWDFNSMAEVrwdfnsmaev*?[]!-", *p))
			return "only rwbs letters (R, W, D, F, S, M, A, ...) and * ? [ ] may be "
			       "used";
	return NULL;
}

int blk_resolve(struct blk *b, struct session *s)
{
	struct tep_event *issue = session_event(s, "block", "block_rq_issue", true);
	struct tep_event *complete = session_event(s, "block", "block_rq_complete", true);
	if (!issue || !complete)
		return -1;
	/* Optional: without them, COMM/PID are whoever issued the request. */
	resolve_event(session_event(s, "block", "block_bio_queue", false), &b->bio_queue);
	resolve_event(session_event(s, "block", "block_rq_insert", false), &b->insert);
	resolve_event(issue, &b->issue);
	resolve_event(complete, &b->complete);
	static const char *const need_issue[] = {"dev", "sector", "rwbs", "comm"};
	for (size_t i = 0; i < sizeof(need_issue) / sizeof(*need_issue); i++)
		if (!session_field(s, issue, need_issue[i], true))
			return -1;
	if (!session_field(s, complete, "dev", true) || !session_field(s, complete, "sector", true))
		return -1;
	if (b->issue.bytes.offset < 0 && !session_field(s, issue, "nr_sector", true))
		return -1;
	/* Without comm, a queue or insert event cannot name the submitter. */
	if (b->bio_queue.comm.offset < 0)
		b->bio_queue.id = -1;
	if (b->insert.comm.offset < 0)
		b->insert.id = -1;
	return 0;
}

int blk_prepare(struct blk *b, struct session *s, bool queued, blk_io_fn on_io, void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->s = s;
	b->on_io = on_io;
	b->ctx = ctx;
	b->queued = queued;
	if (blk_resolve(b, s))
		return -1;
	/* Issue and completion may be on different CPUs: a loss anywhere forgets them all. */
	if (pair_init(&b->submitters, 8192, sizeof(struct submitter)) ||
	    span_init(&b->inflight, 8192, sizeof(struct inflight), SPAN_LOSS_ALL, completed, b))
		return -1;
	return 0;
}

/* The events in the order blk_register() and blk_setup() walk them. */
static const struct {
	size_t offset; /* of the struct blk_event in struct blk */
	reader_event_fn fn;
	bool type_filter; /* -i applies: the event carries the request's final rwbs */
} events[] = {
	{offsetof(struct blk, bio_queue), blk_on_bio_queue, false},
	{offsetof(struct blk, insert), blk_on_insert, true},
	{offsetof(struct blk, issue), blk_on_issue, true},
	{offsetof(struct blk, complete), blk_on_complete, false},
};

#define EVENT(b, i) ((struct blk_event *)((char *)(b) + events[i].offset))

int blk_register(struct blk *b, struct reader *r)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(*events); i++)
		if (EVENT(b, i)->id >= 0 &&
		    reader_on(r, tep_find_event(b->s->tep, EVENT(b, i)->id), events[i].fn, b))
			return -1;
	reader_on_lost(r, blk_on_lost, b);
	return 0;
}

int blk_setup(struct blk *b, struct session *s, struct reader *r, const struct blk_opts *o)
{
	char dev_filter[64] = "", full[256] = "";
	b->typed = o->type != NULL;
	if (o->has_dev)
		snprintf(dev_filter, sizeof(dev_filter), "dev == %u", o->dev);
	if (o->type)
		snprintf(full, sizeof(full), "%s%srwbs ~ \"%s\"", dev_filter,
			 o->has_dev ? " && " : "", o->type);
	else
		snprintf(full, sizeof(full), "%s", dev_filter);
	for (size_t i = 0; i < sizeof(events) / sizeof(*events); i++) {
		if (EVENT(b, i)->id < 0)
			continue;
		struct tep_event *te = tep_find_event(s->tep, EVENT(b, i)->id);
		if (session_enable(s, te, events[i].type_filter ? full : dev_filter))
			return -1;
	}
	return blk_register(b, r);
}

bool blk_parse_opt(struct blk_opts *o, int c, const char *arg)
{
	const char *why;
	switch (c) {
	case 'd':
		o->has_dev = true;
		o->dev = blk_opt_dev(arg);
		return true;
	case 'i':
		if ((why = blk_type_invalid(arg)))
			opt_fail("invalid TYPE: '%s' (%s)", arg, why);
		o->type = arg;
		return true;
	case 'Q': o->queued = true; return true;
	}
	return false;
}

void blk_free(struct blk *b)
{
	pair_free(&b->submitters);
	span_free(&b->inflight);
}

/* --- block devices by name ---------------------------------------------------------------- */

static int parse_pair(const char *s, uint32_t *kdev)
{
	unsigned maj, min;
	char sep, extra;
	if (sscanf(s, "%u%c%u%c", &maj, &sep, &min, &extra) != 3 || (sep != ',' && sep != ':'))
		return -1;
	if (!isdigit((unsigned char)s[0]) || maj >= (1U << 12) || min >= (1U << 20))
		return -1;
	*kdev = maj << 20 | min;
	return 0;
}

int blk_dev_parse(const char *s, uint32_t *kdev)
{
	if (!*s)
		return -1;
	if (!parse_pair(s, kdev))
		return 0;
	if (s[0] == '/') {
		struct stat st;
		if (stat(s, &st) || !S_ISBLK(st.st_mode))
			return -1;
		*kdev = major(st.st_rdev) << 20 | minor(st.st_rdev);
		return 0;
	}
	if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return -1;
	char path[512], buf[64];
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", s);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok ? parse_pair(buf, kdev) : -1;
}

uint32_t blk_opt_dev(const char *s)
{
	uint32_t kdev;
	if (blk_dev_parse(s, &kdev))
		opt_fail("invalid device: '%s' (not a block device name, /dev path or MAJOR,MINOR)",
			 s);
	/* Numbers name any device, one this machine has or not: a run on one it has not would
	 * trace nothing and print nothing, as an unknown name would if it were taken. */
	char path[128];
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", BLK_MAJOR(kdev), BLK_MINOR(kdev));
	if (access(path, F_OK))
		opt_fail("invalid device: '%s' (no block device %u,%u on this machine: %s)", s,
			 BLK_MAJOR(kdev), BLK_MINOR(kdev),
			 errno == ENOENT ? "not in /sys/dev/block" : strerror(errno));
	return kdev;
}

const char *blk_dev_name(uint32_t kdev, char *buf, size_t len)
{
	char path[128], link[512];
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", BLK_MAJOR(kdev), BLK_MINOR(kdev));
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	buf[0] = 0;
	if (n > 0) {
		link[n] = 0;
		const char *base = strrchr(link, '/');
		snprintf(buf, len, "%s", base ? base + 1 : link);
	}
	return buf;
}

void blk_trace_json(struct tracejson *tj, const struct blk_io *io, const char *dev)
{
	int pid = tracejson_pseudo_pid(tj, io->dev), lane;
	if (pid < 0 || (lane = tracejson_lane(tj, pid, io->start_ns, io->end_ns)) < 0)
		return;
	char name[32];
	snprintf(name, sizeof(name), "lane %d", lane);
	tracejson_process_name(tj, pid, dev, SIZE_MAX);
	tracejson_thread_name(tj, pid, lane, name, sizeof(name));
	tracejson_span_begin(tj, pid, lane, io->rwbs, sizeof(io->rwbs), "io", io->start_ns,
			     io->end_ns > io->start_ns ? io->end_ns - io->start_ns : 0);
	tracejson_arg_str(tj, "comm", io->comm, sizeof(io->comm));
	tracejson_arg_int(tj, "pid", io->pid);
	tracejson_arg_str(tj, "type", io->rwbs, sizeof(io->rwbs));
	tracejson_arg_str(tj, "dev", dev, SIZE_MAX);
	tracejson_arg_uint(tj, "sector", io->sector);
	tracejson_arg_uint(tj, "bytes", io->bytes);
	tracejson_arg_int(tj, "error", io->error);
	tracejson_span_end(tj);
}
