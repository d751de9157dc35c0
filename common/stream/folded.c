// SPDX-License-Identifier: GPL-2.0-only
#include "stream/folded.h"
#include "stream/ksym.h"
#include "stream/usym.h"

#include <event-parse.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One stack counted: only its own frames are kept (a table of pointers to these), so a
 * profile's room for 127 + 127 frames costs nothing where a stack has 20. */
struct ent {
	uint64_t count; /* (its hash is folded's, beside its slot) */
	char *line;	/* named when first seen */
	int32_t tgid;
	int16_t nk, nu;
	bool named; /* its frames all in line (late: not until printed) */
	char comm[32];
	/* nu user frames, then nk kernel frames; late, then nu user frames to name (a frame in
	 * a file, FILE_REF: its line holds a LATE byte in its place) */
	uint64_t addr[];
};

/* A user frame named when printed: its file and the offset there (usym_addr_file). */
#define FILE_REF(file, foff) ((uint64_t)((file) + 1) << 48 | (foff))
#define FOFF_MAX (1ULL << 48)
/* Where such a frame goes in a line: a control byte, which folded_frame never leaves bare. */
#define LATE '\x01'

struct folded {
	struct ent **slot; /* open addressing, at most half full */
	uint64_t *hash;	   /* slot[i]'s hash: a probe reads no entry but the one that matches
			    * (each a cache miss: 6% of profile's CPU at 999 Hz) */
	size_t cap, used;
	const struct ksyms *ksyms;
	const char *late; /* kallsyms read when printed, instead of ksyms */
	bool users_now;	  /* late, but the user frames named when counted */
	const char *top;  /* late: where the kernel frames start (NULL: whole) */
	unsigned long long total;
	int kmax, umax;
};

struct folded *folded_new_depth(const struct ksyms *ksyms, int kframes, int uframes)
{
	struct folded *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->kmax = kframes;
	f->umax = uframes;
	f->cap = 256;
	if (!(f->slot = calloc(f->cap, sizeof(*f->slot))) ||
	    !(f->hash = calloc(f->cap, sizeof(*f->hash)))) {
		free(f->slot);
		free(f);
		return NULL;
	}
	f->ksyms = ksyms;
	return f;
}

struct folded *folded_new_late(const char *kallsyms, int kframes, int uframes)
{
	struct folded *f = folded_new_depth(NULL, kframes, uframes);
	if (f)
		f->late = kallsyms;
	return f;
}

void folded_late_setup(struct folded *f, bool users_now, const char *top)
{
	f->users_now = users_now;
	f->top = top;
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

static void put_n(struct str *s, const char *t, size_t l)
{
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
	memcpy(s->s + s->n, t, l);
	s->n += l;
	s->s[s->n] = 0;
}

static void put(struct str *s, const char *t)
{
	put_n(s, t, strlen(t));
}

/* A user frame as usym_addr names it, without the offset and file: "sym+0xoff (/path)" is
 * "sym"; an address without a symbol is "[file]" ("[libc.so.6]", "[vdso]", "[anonymous]"),
 * or "[unknown]" when the process is gone. */
static void user_name(struct str *s, char *buf)
{
	char name[PATH_MAX + 160], esc[4 * (PATH_MAX + 160)];
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

static void user_frame(struct str *s, int tgid, unsigned long long addr)
{
	char buf[PATH_MAX + 160];
	user_name(s, (char *)usym_addr(tgid, addr, buf, sizeof(buf)));
}

/* The address a user frame is named by: above the innermost, a return address, whose call
 * is before it (a call to a function that does not return can end its caller, whose return
 * address is then the next function's first byte). */
static unsigned long long user_call(const unsigned long long *u, int i)
{
	return i && u[i] ? u[i] - 1 : u[i];
}

/* The address a kernel frame is named by: above the innermost, a return address, whose call
 * is before it. */
static unsigned long long kernel_call(const unsigned long long *k, int i)
{
	return i && k[i] ? k[i] - 1 : k[i];
}

/* ";sym_[k]", or the address where no symbol names it. */
static void kernel_frame(struct str *s, unsigned long long addr, const char *sym)
{
	char buf[32], esc[4 * 512 + 8];
	if (!sym)
		snprintf(buf, sizeof(buf), "0x%llx", addr);
	put(s, ";");
	put(s, folded_frame(sym ? sym : buf, esc, sizeof(esc)));
	put(s, "_[k]");
}

/* The line of a stack; with ref, its user frames in files are LATE bytes, their FILE_REF
 * there (0: named in the line). */
static char *name_stack(const struct ksyms *ksyms, const char *comm, int tgid,
			const unsigned long long *k, int nk, const unsigned long long *u, int nu,
			uint64_t *ref)
{
	struct str s = {0};
	char esc[4 * 64 + 16];
	put(&s, folded_frame(comm, esc, sizeof(esc)));
	for (int i = nu - 1; i >= 0; i--) {
		put(&s, ";");
		int file;
		unsigned long long foff;
		if (ref && usym_addr_file(tgid, user_call(u, i), &file, &foff) && foff < FOFF_MAX) {
			ref[i] = FILE_REF(file, foff);
			put(&s, (char[]){LATE, 0});
		} else {
			if (ref)
				ref[i] = 0;
			user_frame(&s, tgid, user_call(u, i));
		}
	}
	for (int i = nk - 1; i >= 0; i--) {
		unsigned long long off;
		kernel_frame(&s, k[i], !ksyms ? NULL : ksym_find(ksyms, kernel_call(k, i), &off));
	}
	if (s.oom) {
		free(s.s);
		return NULL;
	}
	return s.s;
}

char *folded_name(const struct ksyms *ksyms, const char *comm, int tgid,
		  const unsigned long long *k, int nk, const unsigned long long *u, int nu)
{
	return name_stack(ksyms, comm, tgid, k, nk, u, nu, NULL);
}

/* A word at a time (a stack is tens of words): multiply and fold, as a 64-bit mixer does. */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

static uint64_t stack_hash(const char comm[32], int tgid, int nk, int nu,
			   const unsigned long long *k, const unsigned long long *u)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;
	for (int i = 0; i < 32; i += 8) {
		memcpy(&w, comm + i, 8);
		h = mix(h, w);
	}
	h = mix(h, (uint64_t)(uint32_t)tgid << 32 | (uint32_t)nk << 16 | (uint32_t)nu);
	for (int i = 0; i < nu; i++)
		h = mix(h, u[i]);
	for (int i = 0; i < nk; i++)
		h = mix(h, k[i]);
	return h;
}

/* (the hashes are compared first, beside the slots) */
static bool same(const struct ent *e, const char comm[32], int tgid, int nk, int nu,
		 const unsigned long long *k, const unsigned long long *u)
{
	return e->tgid == tgid && e->nk == nk && e->nu == nu && !memcmp(e->comm, comm, 32) &&
	       (!nu || !memcmp(e->addr, u, (size_t)nu * 8)) &&
	       (!nk || !memcmp(e->addr + nu, k, (size_t)nk * 8));
}

static int grow(struct folded *f)
{
	size_t cap = f->cap * 2;
	struct ent **n = calloc(cap, sizeof(*n));
	uint64_t *hn = n ? calloc(cap, sizeof(*hn)) : NULL;
	if (!hn) {
		free(n);
		return -1;
	}
	for (size_t i = 0; i < f->cap; i++) {
		struct ent *e = f->slot[i];
		if (!e)
			continue;
		size_t j = f->hash[i] & (cap - 1);
		while (hn[j])
			j = (j + 1) & (cap - 1);
		n[j] = e;
		hn[j] = f->hash[i];
	}
	free(f->slot);
	free(f->hash);
	f->slot = n;
	f->hash = hn;
	f->cap = cap;
	return 0;
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
	char c[32] = {0};
	memcpy(c, comm, strnlen(comm, sizeof(c) - 1)); /* (per sample: no snprintf) */
	/* The frames nearest the event are kept: the root side of a deeper stack is cut. */
	if (nk > f->kmax)
		nk = f->kmax;
	if (nu > f->umax)
		nu = f->umax;
	/* Probed by the hashes alone (never 0: 0 is a free slot), an entry read only where
	 * its hash matches: the slots' pointers were a cache miss per sample at 999 Hz. */
	uint64_t h = stack_hash(c, tgid, nk, nu, k, u) | 1;
	size_t i = h & (f->cap - 1);
	for (; f->hash[i]; i = (i + 1) & (f->cap - 1)) {
		if (f->hash[i] != h)
			continue;
		struct ent *e = f->slot[i];
		if (same(e, c, tgid, nk, nu, k, u)) {
			e->count += n;
			f->total++;
			return 0;
		}
	}
	if (2 * (f->used + 1) > f->cap) {
		if (grow(f))
			return -1;
		for (i = h & (f->cap - 1); f->hash[i]; i = (i + 1) & (f->cap - 1))
			;
	}
	/* Late: the user frames are named when printed too, their symbols read then (a
	 * process's first samples read every file it maps: most of profile's CPU at 49 Hz) */
	bool refs = f->late && !f->users_now;
	struct ent *e = malloc(sizeof(*e) + (size_t)(nk + nu + (refs ? nu : 0)) * 8);
	if (!e)
		return -1;
	*e = (struct ent){.count = n, .tgid = tgid, .nk = (int16_t)nk, .nu = (int16_t)nu};
	memcpy(e->comm, c, sizeof(c));
	if (nu)
		memcpy(e->addr, u, (size_t)nu * 8);
	if (nk)
		memcpy(e->addr + nu, k, (size_t)nk * 8);
	e->named = !f->late || (!nk && !nu);
	if (!(e->line = name_stack(f->ksyms, c, tgid, k, f->late ? 0 : nk, u, nu,
				   refs ? e->addr + nu + nk : NULL))) {
		free(e);
		return -1;
	}
	f->slot[i] = e;
	f->hash[i] = h;
	f->used++;
	f->total++;
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

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

static size_t index_of(const unsigned long long *q, size_t n, unsigned long long a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (q[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Late naming: the kernel frames of the stacks counted since the last print, from one reading
 * of kallsyms for all their addresses (addresses where it cannot be read); -1: out of memory. */
static int name_late(struct folded *f)
{
	size_t n = 0, todo = 0;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slot[i] && !f->slot[i]->named) {
			n += (size_t)f->slot[i]->nk;
			todo++;
		}
	if (!todo)
		return 0;
	unsigned long long *q = malloc((n ? n : 1) * sizeof(*q)),
			   *offs = malloc((n ? n : 1) * sizeof(*offs));
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	char *blob = NULL;
	int ret = q && offs && names ? 0 : -1;
	size_t u = 0;
	for (size_t i = 0; !ret && i < f->cap; i++) {
		const struct ent *e = f->slot[i];
		for (int j = 0; e && !e->named && j < e->nk; j++)
			q[u++] = kernel_call((const unsigned long long *)e->addr + e->nu, j);
	}
	if (!ret && u) {
		qsort(q, u, sizeof(*q), cmp_u64);
		size_t w = 0;
		for (size_t i = 0; i < u; i++)
			if (!w || q[w - 1] != q[i])
				q[w++] = q[i];
		u = w;
		if (ksym_resolve(f->late, q, u, names, offs, &blob))
			for (size_t i = 0; i < u; i++) /* unread: the addresses, as without ksyms */
				names[i] = NULL;
	}
	for (size_t i = 0; !ret && i < f->cap; i++) {
		struct ent *e = f->slot[i];
		if (!e || e->named)
			continue;
		struct str s = {0};
		const uint64_t *ref = e->addr + e->nu + e->nk;
		int r = e->nu; /* LATE bytes are in the order of the frames: outermost first */
		for (const char *p = e->line, *at;; p = at + 1) {
			if (!(at = strchr(p, LATE))) {
				put(&s, p);
				break;
			}
			put_n(&s, p, (size_t)(at - p));
			while (r > 0 && !ref[r - 1])
				r--;
			char buf[PATH_MAX + 160];
			if (r > 0) {
				uint64_t v = ref[--r];
				user_name(&s, (char *)usym_file_name((int)(v >> 48) - 1,
								     v & (FOFF_MAX - 1), buf,
								     sizeof(buf)));
			}
		}
		const unsigned long long *k = (const unsigned long long *)e->addr + e->nu;
		int from = 0; /* the frames above top cut, when it is among the first 8 */
		for (int j = 0; f->top && j < e->nk && j < 8; j++) {
			const char *name = names[index_of(q, u, kernel_call(k, j))];
			if (name && !strcmp(name, f->top)) {
				from = j;
				break;
			}
		}
		for (int j = e->nk - 1; j >= from; j--)
			kernel_frame(&s, k[j], names[index_of(q, u, kernel_call(k, j))]);
		if (s.oom || !s.s) { /* the line as it was: named again at the next print */
			free(s.s);
			ret = -1;
			continue;
		}
		free(e->line);
		e->line = s.s;
		e->named = true;
	}
	free(blob);
	free(q);
	free(offs);
	free(names);
	return ret;
}

size_t folded_print(struct folded *f, FILE *out)
{
	if (f->late && name_late(f))
		return 0;
	struct lines ls = {calloc(f->used ? f->used : 1, sizeof(struct line)), 0};
	if (!ls.l)
		return 0;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slot[i])
			ls.l[ls.n++] = (struct line){f->slot[i]->line, f->slot[i]->count};
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

char *folded_text(struct folded *f, size_t *size, size_t *n)
{
	char *buf = NULL;
	/* (late names first: out of memory there is the caller's error, not an empty profile) */
	if (f->late && name_late(f))
		return NULL;
	FILE *mem = open_memstream(&buf, size);
	if (!mem)
		return NULL;
	*n = folded_print(f, mem);
	if (fclose(mem)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int by_count_desc(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

struct folded_line *folded_split(char *text, size_t n, size_t *got, bool by_count)
{
	struct folded_line *l = calloc(n ? n : 1, sizeof(*l));
	*got = 0;
	if (!l)
		return NULL;
	for (char *p = text, *nl; p && *p && *got < n; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		*nl = 0;
		char *sp = strrchr(p, ' ');
		if (!sp)
			continue;
		*sp = 0;
		l[(*got)++] = (struct folded_line){p, strtoull(sp + 1, NULL, 10)};
	}
	if (by_count)
		qsort(l, *got, sizeof(*l), by_count_desc);
	return l;
}

unsigned long long folded_total(const struct folded *f)
{
	return f ? f->total : 0;
}

void folded_free(struct folded *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++) {
		if (f->slot[i]) {
			free(f->slot[i]->line);
			free(f->slot[i]);
		}
	}
	free(f->slot);
	free(f->hash);
	free(f);
}
