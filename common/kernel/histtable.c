// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* memmem */
#include "kernel/histtable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

/* A decimal number at *p (spaces before it skipped), moved past; -1 when there is none or
 * it does not fit 64 bits. */
static int number(const char **p, uint64_t *v)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	uint64_t n = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	*p = s;
	return 0;
}

/* "{ name: value, name: ~ 2^k, name: ~ LOW-HIGH } hitcount: N ..." -> keys and hits; -1
 * when not so. */
static int entry(const char *line, int nkeys, struct histtable_entry *e)
{
	const char *p = line;
	if (strncmp(p, "{ ", 2))
		return -1;
	p += 2;
	for (int i = 0; i < nkeys; i++) {
		if (i && strncmp(p, ", ", 2))
			return -1;
		p += i ? 2 : 0;
		/* the key's name: a field or variable name, then ": " */
		size_t name = strspn(
			p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
		if (!name || strncmp(p + name, ": ", 2))
			return -1;
		p += name + 2;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "~ 2^", 4)) {
			p += 4;
			if (number(&p, &e->key[i]) || e->key[i] > 64)
				return -1;
		} else if (!strncmp(p, "~ ", 2)) { /* .buckets=N: "~ LOW-HIGH", read as LOW */
			uint64_t high;
			p += 2;
			if (number(&p, &e->key[i]) || *p++ != '-' || number(&p, &high) ||
			    high < e->key[i])
				return -1;
		} else if (number(&p, &e->key[i])) {
			return -1;
		}
		while (*p == ' ')
			p++;
	}
	if (strncmp(p, "} hitcount:", 11))
		return -1;
	p += 11;
	if (number(&p, &e->hits))
		return -1;
	/* "  name: N" for each value summed besides (the first HISTTABLE_VALS of them) */
	for (int i = 0; *p; i++) {
		while (*p == ' ')
			p++;
		size_t name = strspn(
			p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
		if (!name || p[name] != ':')
			return *p ? -1 : 0;
		p += name + 1;
		uint64_t v;
		if (number(&p, &v))
			return -1;
		if (i < HISTTABLE_VALS)
			e->val[i] = v;
	}
	return 0;
}

static int cmp_keys(const uint64_t *a, const uint64_t *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static int nkeys_sort; /* for qsort's comparison (one parse at a time) */

static int by_keys(const void *a, const void *b)
{
	return cmp_keys(((const struct histtable_entry *)a)->key,
			((const struct histtable_entry *)b)->key, nkeys_sort);
}

/* "    Name: N" in the totals. */
static int total(const char *line, const char *name, uint64_t *v)
{
	const char *p = line;
	while (*p == ' ')
		p++;
	size_t n = strlen(name);
	if (strncmp(p, name, n) || p[n] != ':')
		return 0;
	p += n + 1;
	return number(&p, v) ? -1 : 1;
}

int histtable_parse(const char *text, const char *which, int nkeys, struct histtable *h, char *why,
		    size_t whylen)
{
	h->n = 0;
	h->nkeys = nkeys;
	h->hits = h->dropped = h->entries = 0;
	if (nkeys < 1 || nkeys > HISTTABLE_KEYS) {
		snprintf(why, whylen, "%d keys: 1 to %d can be read", nkeys, HISTTABLE_KEYS);
		return -1;
	}
	/* The table: after its trigger info line, up to the next "# event histogram". */
	const char *t = text;
	for (;;) {
		const char *info = strstr(t, "# trigger info:");
		if (!info) {
			snprintf(why, whylen, "no hist trigger%s%s%s in the hist file",
				 which ? " with '" : "", which ? which : "", which ? "'" : "");
			return -1;
		}
		const char *eol = strchr(info, '\n');
		size_t len = eol ? (size_t)(eol - info) : strlen(info);
		t = info + len;
		if (!which || memmem(info, len, which, strlen(which)))
			break;
	}
	int seen = 0; /* of Hits, Entries, Dropped */
	const char *end = strstr(t, "# event histogram");
	for (const char *l = t; l && *l && (!end || l < end);) {
		const char *eol = strchr(l, '\n');
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		char line[512];
		if (len >= sizeof(line)) {
			snprintf(why, whylen, "a line of %zu bytes in the hist file", len);
			return -1;
		}
		memcpy(line, l, len);
		line[len] = 0;
		l = eol ? eol + 1 : NULL;
		int r;
		if (line[0] == '{') {
			if (h->n == h->cap) {
				size_t cap = h->cap ? h->cap * 2 : 64;
				struct histtable_entry *more = realloc(h->e, cap * sizeof(*more));
				if (!more) {
					snprintf(why, whylen, "out of memory");
					return -1;
				}
				h->e = more;
				h->cap = cap;
			}
			struct histtable_entry *e = &h->e[h->n];
			memset(e, 0, sizeof(*e));
			if (entry(line, nkeys, e)) {
				snprintf(why, whylen, "not an entry of %d numeric keys: '%.80s'",
					 nkeys, line);
				return -1;
			}
			h->n++;
		} else if ((r = total(line, "Hits", &h->hits)) ||
			   (r = total(line, "Entries", &h->entries)) ||
			   (r = total(line, "Dropped", &h->dropped))) {
			if (r < 0) {
				snprintf(why, whylen, "a total that is not a number: '%.80s'",
					 line);
				return -1;
			}
			seen++;
		}
	}
	if (seen != 3) {
		snprintf(why, whylen, "the table has no Totals (Hits, Entries, Dropped)");
		return -1;
	}
	nkeys_sort = nkeys;
	qsort(h->e, h->n, sizeof(*h->e), by_keys);
	return 0;
}

int histtable_read(struct tracefs_instance *inst, const struct tep_event *ev, const char *which,
		   int nkeys, struct histtable *h, char *why, size_t whylen)
{
	char *text = tracefs_event_file_read(inst, ev->system, ev->name, "hist", NULL);
	if (!text) {
		snprintf(why, whylen, "cannot read the hist file of %s:%s: %s", ev->system,
			 ev->name, strerror(errno));
		return -1;
	}
	int ret = histtable_parse(text, which, nkeys, h, why, whylen);
	free(text);
	return ret;
}

const struct histtable_entry *histtable_find(const struct histtable *h, const uint64_t *key)
{
	size_t lo = 0, hi = h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_keys(h->e[mid].key, key, h->nkeys);
		if (!c)
			return &h->e[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void histtable_sub(struct histtable *now, const struct histtable *before)
{
	for (size_t i = 0; i < now->n; i++) {
		const struct histtable_entry *b = histtable_find(before, now->e[i].key);
		if (!b)
			continue;
		now->e[i].hits -= b->hits < now->e[i].hits ? b->hits : now->e[i].hits;
		for (int v = 0; v < HISTTABLE_VALS; v++)
			now->e[i].val[v] -=
				b->val[v] < now->e[i].val[v] ? b->val[v] : now->e[i].val[v];
	}
	now->hits -= before->hits < now->hits ? before->hits : now->hits;
	now->dropped -= before->dropped < now->dropped ? before->dropped : now->dropped;
}

void histtable_free(struct histtable *h)
{
	free(h->e);
	memset(h, 0, sizeof(*h));
}
