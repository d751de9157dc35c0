/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpubuf: one CPU's ring buffer of an instance, read page by page from trace_pipe_raw and
 * walked record by record (libtraceevent's kbuffer). Every page is checked before it is
 * decoded, every record against its page: a page the kernel did not write whole is dropped,
 * said, and counted as lost events of unknown number. The reader (reader.h) merges the CPUs.
 */
#ifndef FTT_CPUBUF_H
#define FTT_CPUBUF_H

#include <stdbool.h>
#include <stddef.h>

struct kbuffer;
struct tep_handle;

/*
 * Pages held per CPU at most. When events come faster than the tool handles them, the
 * backlog stays in the kernel's buffer (where an overflow is counted and reported as lost
 * events) instead of growing this process without bound.
 */
#define CPUBUF_MAX_PENDING 128
struct cpubuf {
	int cpu, fd;
	int src;	/* which instance */
	bool offline;	/* read says ENODEV: retried every wake-up */
	bool more;	/* the kernel may hold pages not read yet (a batch cap hit) */
	long long lost; /* lost before the head page (-1: how many unknown), reported
				  * when its first record is dispatched, in time order */
	struct kbuffer *kbuf;
	char **pages;		 /* ring of pages read but not yet fully dispatched */
	size_t cap, head, count; /* in pages */
	void *cur;		 /* current record in the head page, NULL when none */
	unsigned long long ts;	 /* its timestamp */
	int size;		 /* its size, found when checked against its page */
	size_t subbuf;		 /* the size of a page */
	size_t commit_size;	 /* of the length in a page's header (the kernel's long) */
	/* Called with each page as it is read (--record), before it is decoded. */
	void (*on_page)(int cpu, const char *page, size_t len, void *ctx);
	void *page_ctx;
};

/* Open CPU cpu's trace_pipe_raw at path (non-blocking) into c, for source src, pages of
 * subbuf bytes decoded with tep's header page. Opening works for an offline CPU too (its
 * reads fail with ENODEV). Returns 0, or -1 with errno (ENOMEM when no kbuffer could be made;
 * nothing left open). Frees: cpubuf_close(c). */
int cpubuf_open(struct cpubuf *c, const char *path, int cpu, int src, struct tep_handle *tep,
		size_t subbuf);
/* Append the pages the kernel has for c's CPU now (at most max, and at most
 * CPUBUF_MAX_PENDING held), each handed to on_page as it is read. Sets more when it stopped at
 * a limit, offline on ENODEV. When c held no page, the head page's first record becomes
 * current. Returns the pages read, or -1 with errno (a read failed, or out of memory). */
int cpubuf_fill(struct cpubuf *c, int max);
/* Move c to the next record (cur, ts, size); cur NULL when none is left in memory. A page that
 * ends stays in memory until the next fill (a record of it may still be in use: a trailer's
 * event). */
void cpubuf_advance(struct cpubuf *c);
/* Close c's file and free its pages; c may be closed again. */
void cpubuf_close(struct cpubuf *c);

/* Is a page whole: a length within the page, and records that lead forward to it (see
 * cpubuf.c)? page: subbuf bytes; commit_size: the kernel's long (4 or 8). Returns true when it
 * is, false when it must not be decoded. */
bool cpubuf_page_sound(const char *page, size_t subbuf, size_t commit_size);

#endif
