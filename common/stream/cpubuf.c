// SPDX-License-Identifier: GPL-2.0-only
#include "stream/cpubuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

/*
 * Is the current record inside its page? The kernel writes sound pages; one that is not (a
 * length past the page's end: memory gone bad, a file that is not trace_pipe_raw) must not
 * be decoded further, kbuffer would read past it. The rest of such a page is dropped, said
 * at once, and reported as lost events of unknown number (fuzz_page found this).
 */
static bool sound(struct cpubuf *c)
{
	const char *page = c->pages[c->head], *rec = c->cur;
	int size = c->size = kbuffer_event_size(c->kbuf);
	return rec >= page && size >= 0 && (size_t)(rec - page) + (size_t)size <= c->subbuf;
}

/*
 * Is the page sound: does its header give a length within the page (with RB_MISSED_STORED,
 * bit 30, a count of lost events, a long, follows the data), and does every record inside
 * that length lead forward to the next, the last ending at the length? kbuffer trusts the
 * lengths: one that leads back makes it read the same records forever, a padding record's
 * inside kbuffer_next_event itself (fuzz_page found it). The walk follows kbuffer's reading
 * of each type: a record's header is 4 bytes, its type in the low 5 bits.
 */
bool cpubuf_page_sound(const char *page, size_t subbuf, size_t commit_size)
{
	uint64_t flags = 0;
	memcpy(&flags, page + 8, commit_size);
	uint64_t commit = flags & ((1ULL << 27) - 1), hdr = 8 + commit_size;
	if (hdr + commit + (flags & (1ULL << 30) ? commit_size : 0) > subbuf)
		return false;
	const unsigned char *p = (const unsigned char *)page;
	uint64_t at = hdr, end = hdr + commit;
	while (at + 4 <= end) {
		uint32_t head, len = 0;
		memcpy(&head, p + at, 4);
		unsigned int type = head & 31;
		if ((type == 0 || type == 29) && at + 8 > end)
			return false;
		if (type == 0 || type == 29)
			memcpy(&len, p + at + 4, 4);
		uint64_t step = type == 0  ? (len < 4 ? 0 : 8 + (((uint64_t)len - 4 + 3) & ~3ULL)) :
				type <= 28 ? 4 + 4 * (uint64_t)type :
				type == 29 ? 4 + (uint64_t)len : /* padding: its length after the header */
					     8;			/* time extend, time stamp */
		if (!step || at + step > end)
			return false;
		at += step;
	}
	return true;
}

static void drop_page(struct cpubuf *c)
{
	fprintf(stderr, "WARNING: a ring-buffer page of CPU %d holds data past its end: not read\n",
		c->cpu);
	c->lost = -1;
	c->cur = NULL;
}

/* Make the head page current; returns false when the CPU has no page left. */
static bool load_head(struct cpubuf *c)
{
	while (c->count) {
		if (!cpubuf_page_sound(c->pages[c->head], c->subbuf, c->commit_size)) {
			drop_page(c);
			c->head = (c->head + 1) % c->cap;
			c->count--;
			continue;
		}
		kbuffer_load_subbuffer(c->kbuf, c->pages[c->head]);
		int missed = kbuffer_missed_events(c->kbuf);
		if (missed)
			c->lost = missed < 0 || c->lost < 0 ? -1 : c->lost + missed;
		/* (kbuffer_start_of_data is where the first event is, past any time extend: not
		 * the header's end. The page was checked above.) */
		if ((c->cur = kbuffer_read_event(c->kbuf, &c->ts)) && !sound(c))
			drop_page(c);
		if (c->cur)
			return true;
		c->head = (c->head + 1) % c->cap;
		c->count--;
	}
	c->cur = NULL;
	return false;
}

/* The next record; a page that ends stays in memory until the next fill (a record of it may
 * still be in use: a trailer's event). */
void cpubuf_advance(struct cpubuf *c)
{
	c->cur = kbuffer_next_event(c->kbuf, &c->ts);
	if (c->cur && !sound(c))
		drop_page(c);
	if (c->cur)
		return;
	c->head = (c->head + 1) % c->cap;
	c->count--;
	load_head(c);
}

/* Pages never move once read: kbuffer keeps pointers into the head page. */
static int grow(struct cpubuf *c)
{
	size_t cap = c->cap ? c->cap * 2 : 16;
	char **p = calloc(cap, sizeof(*p));
	if (!p)
		return -1;
	for (size_t i = 0; i < c->cap; i++)
		p[i] = c->pages[(c->head + i) % c->cap];
	for (size_t i = c->cap; i < cap; i++)
		if (!(p[i] = malloc(c->subbuf))) {
			while (i-- > c->cap)
				free(p[i]);
			free(p);
			return -1;
		}
	free(c->pages);
	c->pages = p;
	c->cap = cap;
	c->head = 0;
	return 0;
}

int cpubuf_fill(struct cpubuf *c, int max)
{
	int got = 0;
	c->more = false;
	for (;;) {
		if (got >= max || c->count >= CPUBUF_MAX_PENDING) {
			c->more = true;
			break;
		}
		if (c->count == c->cap && grow(c))
			return -1;
		char *slot = c->pages[(c->head + c->count) % c->cap];
		ssize_t n = read(c->fd, slot, c->subbuf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENODEV) {
			c->offline = true; /* back online: the next wake-up reads it */
			break;
		}
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (n <= 0)
			break;
		c->offline = false;
		if (c->on_page)
			c->on_page(c->cpu, slot, (size_t)n, c->page_ctx);
		if ((size_t)n < c->subbuf)
			memset(slot + n, 0, c->subbuf - (size_t)n);
		c->count++;
		got++;
		if (c->count == 1)
			load_head(c);
	}
	return got;
}

int cpubuf_open(struct cpubuf *c, const char *path, int cpu, int src, struct tep_handle *tep,
		size_t subbuf)
{
	memset(c, 0, sizeof(*c));
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		return -1;
	c->cpu = cpu;
	c->src = src;
	c->subbuf = subbuf;
	int cs = tep_get_header_page_size(tep);
	c->commit_size = cs == 4 || cs == 8 ? (size_t)cs : 8;
	c->kbuf = tep_kbuffer(tep);
	if (!c->kbuf) {
		close(c->fd);
		c->fd = -1;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void cpubuf_close(struct cpubuf *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	kbuffer_free(c->kbuf);
	c->kbuf = NULL;
	for (size_t p = 0; p < c->cap; p++)
		free(c->pages[p]);
	free(c->pages);
	c->pages = NULL;
	c->cap = c->count = 0;
}
