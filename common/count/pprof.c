// SPDX-License-Identifier: GPL-2.0-only
#include "count/pprof.h"
#include "stream/folded.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* profile.proto's field numbers (the ones written here). */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	VALUETYPE_TYPE = 1,
	VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	LOCATION_ID = 1,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
};

struct sample {
	uint64_t *ids; /* string (= function = location) ids, leaf first */
	size_t n;
	uint64_t count;
};

struct pprof {
	char **str; /* the string table; [0] is "" */
	size_t nstr, capstr;
	size_t *slot; /* hash of str: index + 1, 0 empty */
	size_t nslot;
	struct sample *s;
	size_t ns, caps;
	const char *time_type; /* pprof_time_values: one value, nanoseconds of this */
};

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static int rehash(struct pprof *p, size_t nslot)
{
	size_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < p->nstr; i++) {
		size_t h = (size_t)hash(p->str[i], strlen(p->str[i])) & (nslot - 1);
		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = i + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->nslot = nslot;
	return 0;
}

/* The index of s[0..n) in the string table, added when new; -1 when out of memory. */
static long long intern(struct pprof *p, const char *s, size_t n)
{
	size_t h = (size_t)hash(s, n) & (p->nslot - 1);
	for (; p->slot[h]; h = (h + 1) & (p->nslot - 1)) {
		const char *t = p->str[p->slot[h] - 1];
		if (strnlen(t, n + 1) == n && !memcmp(t, s, n))
			return (long long)p->slot[h] - 1;
	}
	if (p->nstr == p->capstr) {
		size_t cap = p->capstr * 2;
		char **m = realloc(p->str, cap * sizeof(*m));
		if (!m)
			return -1;
		p->str = m;
		p->capstr = cap;
	}
	/* s is not a C string (a frame within a folded line): copied by length, never read
	 * past n (strndup would be allowed to, and ASan's strict checks say so). */
	char *c = malloc(n + 1);
	if (!c)
		return -1;
	memcpy(c, s, n);
	c[n] = 0;
	p->slot[h] = p->nstr + 1;
	p->str[p->nstr++] = c;
	if (p->nstr * 2 > p->nslot && rehash(p, p->nslot * 2))
		return -1;
	return (long long)p->nstr - 1;
}

struct pprof *pprof_new(void)
{
	struct pprof *p = calloc(1, sizeof(*p));
	if (!p || !(p->str = calloc(64, sizeof(*p->str))) || rehash(p, 128)) {
		pprof_free(p);
		return NULL;
	}
	p->capstr = 64;
	if (intern(p, "", 0) != 0) {
		pprof_free(p);
		return NULL;
	}
	return p;
}

void pprof_free(struct pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstr; i++)
		free(p->str[i]);
	for (size_t i = 0; i < p->ns; i++)
		free(p->s[i].ids);
	free(p->str);
	free(p->slot);
	free(p->s);
	free(p);
}

int pprof_add_folded(struct pprof *p, const char *line, size_t len)
{
	const char *sp = NULL;
	for (size_t i = len; i-- > 0;)
		if (line[i] == ' ') {
			sp = line + i;
			break;
		}
	if (!sp || sp == line || sp + 1 == line + len)
		return -1;
	char *end;
	uint64_t count = strtoull(sp + 1, &end, 10);
	if (end != line + len)
		return -1;
	size_t nf = 1;
	for (const char *c = line; c < sp; c++)
		nf += *c == ';';
	uint64_t *ids = malloc(nf * sizeof(*ids));
	char *buf = malloc((size_t)(sp - line) + 1);
	if (!ids || !buf)
		goto fail;
	size_t k = nf;
	for (const char *f = line; f < sp;) {
		const char *e = memchr(f, ';', (size_t)(sp - f));
		if (!e)
			e = sp;
		size_t n = folded_unescape(f, (size_t)(e - f), buf);
		long long id = intern(p, buf, n);
		if (id < 0)
			goto fail;
		ids[--k] = (uint64_t)id; /* root first in the line, leaf first in the profile */
		f = e + 1;
	}
	if (p->ns == p->caps) {
		size_t cap = p->caps ? p->caps * 2 : 256;
		struct sample *m = realloc(p->s, cap * sizeof(*m));
		if (!m)
			goto fail;
		p->s = m;
		p->caps = cap;
	}
	p->s[p->ns++] = (struct sample){ids, nf, count};
	free(buf);
	return 0;
fail:
	free(ids);
	free(buf);
	return -1;
}

/* --- the encoder ---------------------------------------------------------------------------- */

struct buf {
	unsigned char *b;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = (b->n + n) * 2 + 64;
		unsigned char *m = realloc(b->b, cap);
		if (!m) {
			b->oom = true;
			return;
		}
		b->b = m;
		b->cap = cap;
	}
	memcpy(b->b + b->n, d, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;
	do {
		c[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		c[n++] |= v ? 0x80 : 0;
	} while (v);
	put(b, c, n);
}

/* A varint field (wire type 0); 0 is the default and left out. */
static void field_int(struct buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

/* A length-delimited field (wire type 2): bytes, a string, a message, a packed array. */
static void field_bytes(struct buf *b, unsigned field, const void *d, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	put(b, d, n);
}

static void field_msg(struct buf *b, unsigned field, struct buf *m)
{
	if (m->oom)
		b->oom = true;
	field_bytes(b, field, m->b, m->n);
	m->n = 0;
}

static void value_type(struct buf *b, unsigned field, long long type, long long unit, struct buf *m)
{
	field_int(m, VALUETYPE_TYPE, (uint64_t)type);
	field_int(m, VALUETYPE_UNIT, (uint64_t)unit);
	field_msg(b, field, m);
}

int pprof_add_folded_text(struct pprof *p, const char *text, size_t size)
{
	for (const char *l = text, *e; l < text + size; l = e + 1) {
		if (!(e = memchr(l, '\n', (size_t)(text + size - l))))
			return -1;
		if (pprof_add_folded(p, l, (size_t)(e - l)))
			return -1;
	}
	return 0;
}

void pprof_time_values(struct pprof *p, const char *type)
{
	p->time_type = type;
}

int pprof_encode(const struct pprof *cp, uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns,
		 unsigned char **out, size_t *len)
{
	struct pprof *p = (struct pprof *)cp; /* the value names are interned here */
	const char *tt = p->time_type;
	long long samples = intern(p, "samples", 7), count = intern(p, "count", 5),
		  cpu = tt ? intern(p, tt, strlen(tt)) : intern(p, "cpu", 3),
		  ns = intern(p, "nanoseconds", 11);
	if (samples < 0 || count < 0 || cpu < 0 || ns < 0)
		return -1;
	struct buf b = {0}, m = {0}, packed = {0}, line = {0};
	if (!tt)
		value_type(&b, PROFILE_SAMPLE_TYPE, samples, count, &m);
	value_type(&b, PROFILE_SAMPLE_TYPE, cpu, ns, &m);
	for (size_t i = 0; i < p->ns; i++) {
		const struct sample *s = &p->s[i];
		for (size_t j = 0; j < s->n; j++)
			varint(&packed, s->ids[j]);
		field_msg(&m, SAMPLE_LOCATION_ID, &packed);
		varint(&packed, s->count);
		if (!tt)
			varint(&packed, s->count * period_ns);
		field_msg(&m, SAMPLE_VALUE, &packed);
		field_msg(&b, PROFILE_SAMPLE, &m);
	}
	/* A location and a function per string, both with the string's index as id (ids start
	 * at 1: index 0 is ""); the value names' are not used. */
	for (size_t i = 1; i < p->nstr; i++) {
		field_int(&m, LOCATION_ID, i);
		field_int(&line, LINE_FUNCTION_ID, i);
		field_msg(&m, LOCATION_LINE, &line);
		field_msg(&b, PROFILE_LOCATION, &m);
		field_int(&m, FUNCTION_ID, i);
		field_int(&m, FUNCTION_NAME, i);
		field_int(&m, FUNCTION_SYSTEM_NAME, i);
		field_msg(&b, PROFILE_FUNCTION, &m);
	}
	for (size_t i = 0; i < p->nstr; i++)
		field_bytes(&b, PROFILE_STRING_TABLE, p->str[i], strlen(p->str[i]));
	field_int(&b, PROFILE_TIME_NANOS, time_ns);
	field_int(&b, PROFILE_DURATION_NANOS, duration_ns);
	value_type(&b, PROFILE_PERIOD_TYPE, cpu, ns, &m);
	field_int(&b, PROFILE_PERIOD, period_ns);
	bool oom = b.oom || m.oom || packed.oom || line.oom;
	free(m.b);
	free(packed.b);
	free(line.b);
	if (oom) {
		free(b.b);
		return -1;
	}
	*out = b.b;
	*len = b.n;
	return 0;
}

int pprof_write(const struct pprof *p, const char *path, uint64_t period_ns, uint64_t time_ns,
		uint64_t duration_ns)
{
	unsigned char *d;
	size_t n;
	if (pprof_encode(p, period_ns, time_ns, duration_ns, &d, &n)) {
		errno = ENOMEM;
		return -1;
	}
	/* Written beside it and renamed: a reader never sees half a profile. */
	char tmp[4096];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		free(d);
		errno = ENAMETOOLONG;
		return -1;
	}
	/* Made anew, as prom's: a file left there (a killed run's, anyone's, a hard link) is
	 * removed first, and O_EXCL|O_NOFOLLOW makes sure the one written is ours. */
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	gzFile gz = fd >= 0 ? gzdopen(fd, "wb9") : NULL;
	int ret = -1;
	if (fd >= 0 && !gz) {
		close(fd);
		unlink(tmp);
		errno = ENOMEM;
	}
	if (gz) {
		size_t done = 0;
		while (done < n) {
			unsigned chunk = n - done > (1u << 30) ? 1u << 30 : (unsigned)(n - done);
			int w = gzwrite(gz, d + done, chunk);
			if (w <= 0)
				break;
			done += (size_t)w;
		}
		ret = gzclose(gz) == Z_OK && done == n ? 0 : -1;
		if (ret)
			errno = EIO;
		else if (rename(tmp, path))
			ret = -1;
		if (ret) {
			int e = errno;
			unlink(tmp);
			errno = e;
		}
	}
	free(d);
	return ret;
}

int pprof_write_folded(const char *path, const char *text, size_t size, const char *time_type,
		       uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns)
{
	struct pprof *p = pprof_new();
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	errno = EINVAL;
	int ret = pprof_add_folded_text(p, text, size);
	if (!ret && time_type)
		pprof_time_values(p, time_type);
	if (!ret)
		ret = pprof_write(p, path, period_ns, time_ns, duration_ns);
	int e = errno;
	pprof_free(p);
	errno = e;
	return ret;
}

int pprof_check(const char *path)
{
	char tmp[4096];
	struct stat st;
	if (!*path || path[strlen(path) - 1] == '/' ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		errno = EINVAL;
		return -1;
	}
	if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	unlink(tmp); /* a killed run's: pprof_write makes it anew too */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}
