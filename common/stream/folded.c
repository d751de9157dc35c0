// SPDX-License-Identifier: GPL-2.0-only
#include "stream/folded.h"
#include "base/agg.h"
#include "stream/ksym.h"
#include "stream/usym.h"

#include <event-parse.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct key {
	char comm[32];
	int32_t tgid;
	int16_t nk, nu;
	uint64_t addr[]; /* umax user frames, then kmax kernel frames */
};

struct folded {
	struct agg a;
	const struct ksyms *ksyms;
	unsigned long long total;
	bool oom;
	int kmax, umax;
	struct key *key; /* the one being counted (its size is the table's) */
	size_t keysize;
};

struct folded *folded_new_depth(const struct ksyms *ksyms, int kframes, int uframes)
{
	struct folded *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->kmax = kframes;
	f->umax = uframes;
	f->keysize = sizeof(struct key) + (size_t)(kframes + uframes) * 8;
	if (!(f->key = malloc(f->keysize)) || agg_init(&f->a, f->keysize, sizeof(char *))) {
		free(f->key);
		free(f);
		return NULL;
	}
	f->ksyms = ksyms;
	return f;
}

struct folded *folded_new(const struct ksyms *ksyms)
{
	return folded_new_depth(ksyms, FOLDED_KFRAMES, FOLDED_UFRAMES);
}

int folded_frames(const struct tep_record *rec, const struct tep_format_field *caller, bool rest,
		  unsigned long long *a, int max)
{
	if (!caller || caller->offset < 0 || rec->size <= caller->offset)
		return 0;
	int n = (rec->size - caller->offset) / 8;
	if (!rest && caller->size / 8 < n)
		n = caller->size / 8;
	int got = 0;
	for (; got < n && got < max; got++) {
		memcpy(&a[got], (const char *)rec->data + caller->offset + got * 8, 8);
		if (!a[got] || a[got] == ~0ULL)
			break;
	}
	return got;
}

size_t folded_unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    sscanf(s + i + 2, "%2x", &v) == 1) {
			out[o++] = (char)v;
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	return o;
}

const char *folded_frame(const char *name, char *buf, size_t len)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p && o + 5 < len; p++) {
		if (*p == ';' || *p == '\\' || *p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *p);
		else
			buf[o++] = (char)*p;
	}
	buf[o] = 0;
	return buf;
}

/* A growing string. */
struct str {
	char *s;
	size_t n, cap;
	bool oom;
};

static void put(struct str *s, const char *t)
{
	size_t l = strlen(t);
	if (s->n + l + 1 > s->cap) {
		size_t cap = (s->n + l + 1) * 2;
		char *m = realloc(s->s, cap);
		if (!m) {
			s->oom = true;
			return;
		}
		s->s = m;
		s->cap = cap;
	}
	memcpy(s->s + s->n, t, l + 1);
	s->n += l;
}

/* A user frame as usym_addr names it, without the offset and file: "sym+0xoff (/path)" is
 * "sym"; an address without a symbol is "[file]" ("[libc.so.6]", "[vdso]", "[anonymous]"),
 * or "[unknown]" when the process is gone. */
static void user_frame(struct str *s, int tgid, unsigned long long addr)
{
	char buf[PATH_MAX + 160], name[PATH_MAX + 160], esc[4 * (PATH_MAX + 160)];
	usym_addr(tgid, addr, buf, sizeof(buf));
	char *paren = strstr(buf, " (");
	if (strncmp(buf, "0x", 2)) {
		if (paren)
			*paren = 0;
		char *plus = strrchr(buf, '+');
		if (plus && !strncmp(plus, "+0x", 3))
			*plus = 0;
		snprintf(name, sizeof(name), "%s", buf);
	} else if (paren) {
		char *file = paren + 2, *end = strrchr(file, ')');
		if (end)
			*end = 0;
		const char *base = strrchr(file, '/');
		/* "[vdso]", "[heap]" are bracketed already */
		if (*file == '[')
			snprintf(name, sizeof(name), "%s", file);
		else
			snprintf(name, sizeof(name), "[%s]", base ? base + 1 : file);
	} else {
		snprintf(name, sizeof(name), "[unknown]");
	}
	put(s, folded_frame(name, esc, sizeof(esc)));
}

char *folded_name(const struct ksyms *ksyms, const char *comm, int tgid,
		  const unsigned long long *k, int nk, const unsigned long long *u, int nu)
{
	struct str s = {0};
	char esc[4 * 64 + 16], buf[160];
	put(&s, folded_frame(comm, esc, sizeof(esc)));
	for (int i = nu - 1; i >= 0; i--) {
		put(&s, ";");
		/* Frames above the innermost are return addresses: the call is before them (a
		 * call to a function that does not return can end its caller, whose return
		 * address is then the next function's first byte). */
		user_frame(&s, tgid, i && u[i] ? u[i] - 1 : u[i]);
	}
	for (int i = nk - 1; i >= 0; i--) {
		unsigned long long addr = k[i], off;
		const char *sym =
			!ksyms ? NULL : ksym_find(ksyms, i && addr ? addr - 1 : addr, &off);
		if (!sym)
			snprintf(buf, sizeof(buf), "0x%llx", addr);
		put(&s, ";");
		put(&s, folded_frame(sym ? sym : buf, esc, sizeof(esc)));
		put(&s, "_[k]");
	}
	if (s.oom) {
		free(s.s);
		return NULL;
	}
	return s.s;
}

static char *name_stack(const struct folded *f, const struct key *k)
{
	return folded_name(f->ksyms, k->comm, k->tgid,
			   (const unsigned long long *)k->addr + f->umax, k->nk,
			   (const unsigned long long *)k->addr, k->nu);
}

int folded_add(struct folded *f, const char *comm, int tgid, const unsigned long long *k, int nk,
	       const unsigned long long *u, int nu)
{
	return folded_add_n(f, comm, tgid, k, nk, u, nu, 1);
}

int folded_add_n(struct folded *f, const char *comm, int tgid, const unsigned long long *k, int nk,
		 const unsigned long long *u, int nu, uint64_t n)
{
	if (!n)
		return 0;
	struct key *key = f->key;
	memset(key, 0, f->keysize);
	snprintf(key->comm, sizeof(key->comm), "%s", comm);
	key->tgid = tgid;
	/* The frames nearest the event are kept: the root side of a deeper stack is cut. */
	key->nk = (int16_t)(nk < f->kmax ? nk : f->kmax);
	key->nu = (int16_t)(nu < f->umax ? nu : f->umax);
	if (key->nu)
		memcpy(key->addr, u, (size_t)key->nu * 8);
	if (key->nk)
		memcpy(key->addr + f->umax, k, (size_t)key->nk * 8);
	char **line = agg_add(&f->a, key, n);
	if (!line)
		return -1;
	f->total++;
	if (!*line && !(*line = name_stack(f, key)))
		return -1;
	return 0;
}

struct line {
	const char *s;
	uint64_t count;
};

struct lines {
	struct line *l;
	size_t n;
};

static void collect(const void *key, uint64_t count, const void *val, void *ctx)
{
	struct lines *ls = ctx;
	const char *s;
	memcpy(&s, val, sizeof(s));
	if (s)
		ls->l[ls->n++] = (struct line){s, count};
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

size_t folded_print(struct folded *f, FILE *out)
{
	struct lines ls = {calloc(f->a.used ? f->a.used : 1, sizeof(struct line)), 0};
	if (!ls.l)
		return 0;
	agg_sorted(&f->a, collect, &ls);
	if (ls.n)
		qsort(ls.l, ls.n, sizeof(*ls.l), by_stack);
	size_t printed = 0;
	for (size_t i = 0; i < ls.n; i++) {
		uint64_t n = ls.l[i].count;
		/* Stacks that differ only in offsets or processes fold into one line. */
		while (i + 1 < ls.n && !strcmp(ls.l[i + 1].s, ls.l[i].s))
			n += ls.l[++i].count;
		fprintf(out, "%s %llu\n", ls.l[i].s, (unsigned long long)n);
		printed++;
	}
	free(ls.l);
	return printed;
}

unsigned long long folded_total(const struct folded *f)
{
	return f ? f->total : 0;
}

static void free_line(const void *key, uint64_t count, const void *val, void *ctx)
{
	(void)key, (void)count, (void)ctx;
	char *s;
	memcpy(&s, val, sizeof(s));
	free(s);
}

void folded_free(struct folded *f)
{
	if (!f)
		return;
	agg_sorted(&f->a, free_line, NULL);
	agg_free(&f->a);
	free(f->key);
	free(f);
}
