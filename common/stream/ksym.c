// SPDX-License-Identifier: GPL-2.0-only
#include "stream/ksym.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	unsigned long long addr;
	unsigned int name; /* offset in names */
};

struct ksyms {
	struct ksym *sym;
	size_t n;
	char *names;
	bool data;	  /* data symbols (d, D, b, B, r, R), not text */
	FILE *f;	  /* what the loader reads */
	pthread_t loader; /* while loading: every reader of the table joins it first */
	bool loading;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The next symbol of kallsyms' text on f of the kind asked for (data: d, D, b, B, r, R;
 * else text: t, T, w, W): its address, its name (in line, not terminated) and the name's
 * length; false at the end. */
static bool next_symbol(FILE *f, bool data, char line[1024], unsigned long long *addr,
			const char **name, size_t *len)
{
	/* names are up to 511 bytes (KSYM_NAME_LEN, 6.1+) */
	while (fgets(line, 1024, f)) {
		size_t got = strlen(line);
		if (got == 1023 && line[got - 1] != '\n') {
			/* Longer than any symbol's line: skipped whole, its rest too. */
			while (fgets(line, 1024, f) && !strchr(line, '\n'))
				;
			continue;
		}
		/* "ADDR TYPE NAME[\t[MODULE]]", read by hand: sscanf took 2/3 of the load's
		 * time (~120,000 lines). */
		const char *p = line;
		unsigned long long a = 0;
		int digits = 0;
		for (;; p++, digits++) {
			unsigned c = (unsigned char)*p, v;
			if (c - '0' < 10)
				v = c - '0';
			else if ((c | 0x20) - 'a' < 6)
				v = (c | 0x20) - 'a' + 10;
			else
				break;
			a = a << 4 | v;
		}
		if (!digits || digits > 16 || !a || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		char type = p[1];
		if (data ? !strchr("dDbBrR", type) :
			   type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		*name = p + 3;
		*len = strcspn(*name, " \t\n");
		if (!*len)
			continue;
		*addr = a;
		return true;
	}
	return false;
}

/* The table from k->f, then sorted; k->f closed. */
static void read_table(struct ksyms *k)
{
	FILE *f = k->f;
	size_t cap = 0, ncap = 0, nlen = 0, len;
	char line[1024];
	unsigned long long addr;
	const char *name;
	while (next_symbol(f, k->data, line, &addr, &name, &len)) {
		if (k->n == cap || nlen + len + 1 > ncap) {
			size_t c = k->n == cap ? (cap ? cap * 2 : 65536) : cap;
			size_t nc = nlen + len + 1 > ncap ? (ncap ? ncap * 2 : 1 << 21) : ncap;
			struct ksym *s = realloc(k->sym, c * sizeof(*s));
			if (s)
				k->sym = s;
			char *n = s ? realloc(k->names, nc) : NULL;
			if (!n)
				break;
			k->names = n;
			cap = c;
			ncap = nc;
		}
		memcpy(k->names + nlen, name, len);
		k->names[nlen + len] = 0;
		k->sym[k->n].addr = addr;
		k->sym[k->n].name = (unsigned int)nlen;
		k->n++;
		nlen += len + 1;
	}
	fclose(f);
	k->f = NULL;
	if (k->n)
		qsort(k->sym, k->n, sizeof(*k->sym), cmp_ksym);
}

int ksym_resolve(const char *path, const unsigned long long *addrs, size_t n, const char **names,
		 unsigned long long *offs, char **blob)
{
	*blob = NULL;
	FILE *f = fopen(path, "re");
	unsigned long long *best = calloc(n ? n : 1, sizeof(*best));
	char **name = calloc(n ? n : 1, sizeof(*name));
	int ret = f && best && name ? 0 : -1;
	char line[1024];
	unsigned long long a;
	const char *s;
	size_t len;
	/* Each symbol is the best so far for the first address at or after it, if it is nearer
	 * than that one's (kallsyms is not sorted: the modules' come after). */
	while (!ret && next_symbol(f, false, line, &a, &s, &len)) {
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (addrs[mid] < a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || (name[lo] && best[lo] >= a))
			continue;
		char *c = strndup(s, len);
		if (!c) {
			ret = -1;
			break;
		}
		free(name[lo]);
		name[lo] = c;
		best[lo] = a;
	}
	/* An address whose own best is unset has its predecessor's (no symbol between them). */
	size_t total = 0;
	for (size_t i = 0; !ret && i < n; i++) {
		if (!name[i] && i && name[i - 1]) {
			name[i] = strdup(name[i - 1]);
			best[i] = best[i - 1];
			if (!name[i])
				ret = -1;
		}
		total += name[i] ? strlen(name[i]) + 1 : 0;
	}
	char *b = !ret ? malloc(total ? total : 1) : NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (!name) { /* out of memory at the start: nothing was found */
			names[i] = NULL;
			continue;
		}
		if (b && name[i]) {
			size_t l = strlen(name[i]) + 1;
			memcpy(b + o, name[i], l);
			names[i] = b + o;
			offs[i] = addrs[i] - best[i];
			o += l;
		} else {
			names[i] = NULL;
		}
		free(name[i]);
	}
	if (!b)
		ret = -1;
	*blob = b;
	free(best);
	free(name);
	if (f)
		fclose(f);
	return ret;
}

/* The tables still loading, for ksym_wait_all(). */
static struct ksyms *pending[8];

static void *loader(void *arg)
{
	read_table(arg);
	return NULL;
}

struct ksyms *ksym_load(void)
{
	return ksym_load_file("/proc/kallsyms");
}

static struct ksyms *load(const char *path, bool data, bool late);

struct ksyms *ksym_load_file(const char *path)
{
	return load(path, false, false);
}

struct ksyms *ksym_load_data(void)
{
	return load("/proc/kallsyms", true, false);
}

struct ksyms *ksym_load_data_file(const char *path)
{
	return load(path, true, false);
}

/* The table of path (data: the data symbols), read by a thread of its own now, or (late) at
 * its first lookup. */
static struct ksyms *load(const char *path, bool data, bool late)
{
	FILE *f = fopen(path, "re");
	struct ksyms *k = f ? calloc(1, sizeof(*k)) : NULL;
	if (!k) {
		if (f)
			fclose(f);
		return NULL;
	}
	k->f = f;
	k->data = data;
	if (late) /* read at the first lookup (loaded) */
		return k;
	/* Read while the run sets the kernel up (RCU grace periods it sleeps through): the
	 * first lookup waits for the end. No signal of the run's is taken by the loader.
	 * A table ksym_wait_all() could not find (no free slot) is read here and now. */
	size_t i = 0;
	while (i < sizeof(pending) / sizeof(*pending) && pending[i])
		i++;
	if (i < sizeof(pending) / sizeof(*pending)) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		k->loading = pthread_create(&k->loader, NULL, loader, k) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (k->loading)
		pending[i] = k;
	else
		read_table(k);
	return k;
}

struct ksyms *ksym_load_late(bool data)
{
	return load("/proc/kallsyms", data, true);
}

/* The table once loaded (a branch per lookup while it is not joined yet), a late one read
 * now. */
static const struct ksyms *loaded(const struct ksyms *k)
{
	if (k && !k->loading && k->f)
		read_table((struct ksyms *)k); /* once: the table itself is const */
	if (k && k->loading) {
		struct ksyms *w = (struct ksyms *)k; /* joined once: the table itself is const */
		pthread_join(w->loader, NULL);
		w->loading = false;
		for (size_t i = 0; i < sizeof(pending) / sizeof(*pending); i++)
			if (pending[i] == w)
				pending[i] = NULL;
	}
	return k;
}

void ksym_wait_all(void)
{
	for (size_t i = 0; i < sizeof(pending) / sizeof(*pending); i++)
		loaded(pending[i]);
}

const char *ksym_find(const struct ksyms *k, unsigned long long addr, unsigned long long *off)
{
	if (!loaded(k))
		return NULL;
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k->sym[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*off = addr - k->sym[lo - 1].addr;
	return k->names + k->sym[lo - 1].name;
}

size_t ksym_count(const struct ksyms *k)
{
	return loaded(k) ? k->n : 0;
}

void ksym_free(struct ksyms *k)
{
	if (k && !k->loading && k->f) { /* a late table never asked: not read */
		fclose(k->f);
		k->f = NULL;
	}
	if (!loaded(k))
		return;
	free(k->sym);
	free(k->names);
	free(k);
}

unsigned long long ksym_addr(const struct ksyms *k, const char *name)
{
	loaded(k);
	for (size_t i = 0; k && i < k->n; i++)
		if (!strcmp(k->names + k->sym[i].name, name))
			return k->sym[i].addr;
	return 0;
}
