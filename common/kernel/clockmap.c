// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/clockmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLEW_NS 1000000000.0 /* a measured difference is made up over this long */
#define MAX_RATE_ERR 1e-3    /* 1000 ppm: more than NTP ever slews */
#define RESYNC_NS 1000000000ULL
#define JUMP_NS 1000000000LL /* farther apart than this: start again from the pairing */

uint64_t clockmap_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t clockmap_parse_now(const char *text)
{
	const char *p = strstr(text, "now ts:");
	unsigned long long sec, usec;
	int end = 0;
	if (!p || sscanf(p + 7, " %llu.%6llu%n", &sec, &usec, &end) != 2 || !end)
		return 0;
	/* "%5llu.%06lu": the microseconds are whole; the true time is within the next one. */
	return sec * 1000000000ULL + usec * 1000ULL + 500;
}

static const struct clockmap_piece *piece_of(const struct clockmap *m, uint64_t raw)
{
	int i = m->last;
	for (int k = 1; k < m->n && raw < m->piece[i].raw; k++)
		i = (i + CLOCKMAP_PIECES - 1) % CLOCKMAP_PIECES;
	return &m->piece[i];
}

uint64_t clockmap_mono(const struct clockmap *m, uint64_t raw)
{
	if (!m->n)
		return raw;
	const struct clockmap_piece *p = piece_of(m, raw);
	int64_t d = (int64_t)(raw - p->raw);
	int64_t mono = (int64_t)p->mono + d + (int64_t)((double)d * p->rate_err);
	return mono > 0 ? (uint64_t)mono : 0;
}

uint64_t clockmap_raw(const struct clockmap *m, uint64_t mono)
{
	if (!m->n)
		return mono;
	int i = m->last;
	for (int k = 1; k < m->n && mono < m->piece[i].mono; k++)
		i = (i + CLOCKMAP_PIECES - 1) % CLOCKMAP_PIECES;
	const struct clockmap_piece *p = &m->piece[i];
	int64_t d = (int64_t)(mono - p->mono);
	int64_t raw = (int64_t)p->raw + (int64_t)((double)d / (1.0 + p->rate_err));
	return raw > 0 ? (uint64_t)raw : 0;
}

void clockmap_pair(struct clockmap *m, uint64_t raw, uint64_t mono)
{
	struct clockmap_piece np = {.raw = raw, .mono = mono};
	if (m->n) {
		const struct clockmap_piece *cur = &m->piece[m->last];
		if (raw <= cur->raw)
			return; /* not after the newest piece's start: nothing to learn */
		uint64_t at = clockmap_mono(m, raw);
		int64_t err = (int64_t)(mono - at);
		uint64_t abs_err = (uint64_t)(err < 0 ? -err : err);
		if (abs_err > m->worst_err)
			m->worst_err = abs_err;
		if (err < JUMP_NS && err > -JUMP_NS) {
			/* The rate measured since the last pairing, and what makes up the
			 * difference over the next second. */
			double rate_err = (double)(int64_t)(mono - m->paired_mono) /
						  (double)(raw - cur->raw) -
					  1.0 + (double)err / SLEW_NS;
			np.mono = at; /* continuous: the order of times is kept */
			np.rate_err = rate_err > MAX_RATE_ERR  ? MAX_RATE_ERR :
				      rate_err < -MAX_RATE_ERR ? -MAX_RATE_ERR :
								 rate_err;
		}
	}
	m->paired_mono = mono;
	m->last = m->n ? (m->last + 1) % CLOCKMAP_PIECES : 0;
	m->piece[m->last] = np;
	if (m->n < CLOCKMAP_PIECES)
		m->n++;
	m->pairs++;
}

/* Read "now ts" between two readings of CLOCK_MONOTONIC; the pair, or -1. */
static int measure(struct clockmap *m, uint64_t *raw, uint64_t *mono)
{
	char buf[512];
	/* Open for each read: an open file of an instance keeps it from being removed. */
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint64_t a = clockmap_now();
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	uint64_t b = clockmap_now();
	int e = errno;
	close(fd);
	if (n <= 0) {
		errno = n < 0 ? e : EINVAL;
		return -1;
	}
	buf[n] = 0;
	if (!(*raw = clockmap_parse_now(buf))) {
		errno = EINVAL;
		return -1;
	}
	*mono = a + (b - a) / 2;
	return 0;
}

int clockmap_open(struct clockmap *m, const char *stats_path)
{
	memset(m, 0, sizeof(*m));
	uint64_t raw, mono;
	if (!(m->path = strdup(stats_path)) || measure(m, &raw, &mono)) {
		int e = errno;
		clockmap_close(m);
		errno = e;
		return -1;
	}
	clockmap_pair(m, raw, mono);
	m->synced = mono;
	return 0;
}

void clockmap_close(struct clockmap *m)
{
	free(m->path);
	m->path = NULL;
}

int clockmap_sync(struct clockmap *m, uint64_t now)
{
	if (!m->path || now - m->synced < RESYNC_NS)
		return 0;
	uint64_t raw, mono;
	m->synced = now;
	if (measure(m, &raw, &mono))
		return -1;
	clockmap_pair(m, raw, mono);
	return 0;
}
