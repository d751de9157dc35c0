// SPDX-License-Identifier: GPL-2.0-only
#include "ksym.h"

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
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ksyms *ksym_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	struct ksyms *k = f ? calloc(1, sizeof(*k)) : NULL;
	if (!k) {
		if (f)
			fclose(f);
		return NULL;
	}
	size_t cap = 0, ncap = 0, nlen = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		size_t len = strlen(name) + 1;
		if (k->n == cap || nlen + len > ncap) {
			size_t c = k->n == cap ? (cap ? cap * 2 : 65536) : cap;
			size_t nc = nlen + len > ncap ? (ncap ? ncap * 2 : 1 << 21) : ncap;
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
		k->sym[k->n].addr = addr;
		k->sym[k->n].name = (unsigned int)nlen;
		k->n++;
		nlen += len;
	}
	fclose(f);
	if (k->n)
		qsort(k->sym, k->n, sizeof(*k->sym), cmp_ksym);
	return k;
}

const char *ksym_find(const struct ksyms *k, unsigned long long addr, unsigned long long *off)
{
	if (!k)
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

void ksym_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->sym);
	free(k->names);
	free(k);
}

unsigned long long ksym_addr(const struct ksyms *k, const char *name)
{
	for (size_t i = 0; k && i < k->n; i++)
		if (!strcmp(k->names + k->sym[i].name, name))
			return k->sym[i].addr;
	return 0;
}
