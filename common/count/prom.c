// SPDX-License-Identifier: GPL-2.0-only
#include "count/prom.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void say(struct prom *p, const char *what, int err)
{
	if (!p->failed)
		fprintf(stderr, "%s: --prom: cannot %s '%s': %s\n", p->tool, what, p->tmp,
			strerror(err));
	p->failed = true;
}

/* FILE.tmp made anew: a file left there (by a killed run, or anyone) is removed first, and
 * O_EXCL|O_NOFOLLOW makes sure the one written is ours, not a link put there meanwhile.
 * 0644: the collector (node_exporter) runs as another user. */
static int make_tmp(struct prom *p)
{
	unlink(p->tmp);
	return open(p->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int prom_open(struct prom *p, const char *path, const char *tool)
{
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->tool = tool;
	struct stat st;
	if ((size_t)snprintf(p->tmp, sizeof(p->tmp), "%s.tmp", path) >= sizeof(p->tmp) || !*path ||
	    path[strlen(path) - 1] == '/') {
		fprintf(stderr, "%s: --prom: '%s' is not a file name\n", tool, path);
		return -1;
	}
	if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: --prom: '%s' is a folder\n", tool, path);
		return -1;
	}
	int fd = make_tmp(p);
	if (fd < 0) {
		say(p, "write", errno);
		return -1;
	}
	close(fd);
	unlink(p->tmp);
	return 0;
}

int prom_begin(struct prom *p)
{
	int fd = make_tmp(p);
	if (fd < 0 || !(p->f = fdopen(fd, "w"))) {
		say(p, "write", errno);
		if (fd >= 0)
			close(fd);
		unlink(p->tmp);
		return -1;
	}
	return 0;
}

int prom_commit(struct prom *p)
{
	if (!p->f)
		return -1;
	int bad = ferror(p->f) ? (errno ? errno : EIO) : 0;
	if (fflush(p->f) && !bad)
		bad = errno;
	if (fclose(p->f) && !bad)
		bad = errno;
	p->f = NULL;
	if (!bad && rename(p->tmp, p->path))
		bad = errno;
	if (bad) {
		say(p, "write", bad);
		unlink(p->tmp);
		return -1;
	}
	return 0;
}

void prom_family(struct prom *p, const char *name, const char *type, const char *help)
{
	if (!p->f)
		return;
	fprintf(p->f, "# HELP %s ", name);
	/* HELP text: backslash and newline escaped. */
	for (const char *c = help; *c; c++)
		if (*c == '\\')
			fputs("\\\\", p->f);
		else if (*c == '\n')
			fputs("\\n", p->f);
		else
			fputc(*c, p->f);
	fprintf(p->f, "\n# TYPE %s %s\n", name, type);
}

static void name_labels(struct prom *p, const char *name, const char *suffix, const char *labels,
			const char *more)
{
	bool any = (labels && *labels) || more;
	fprintf(p->f, "%s%s%s%s%s%s%s ", name, suffix, any ? "{" : "", labels ? labels : "",
		labels && *labels && more ? "," : "", more ? more : "", any ? "}" : "");
}

void prom_uint(struct prom *p, const char *name, const char *labels, uint64_t v)
{
	if (!p->f)
		return;
	name_labels(p, name, "", labels, NULL);
	fprintf(p->f, "%" PRIu64 "\n", v);
}

/* Numbers of up to 128 bits as two halves: a bucket's bound (2^63 slots times a step, times
 * 1024 for KiB) does not fit 64 bits, and 32-bit architectures have no __int128. */
struct u128 {
	uint64_t hi, lo;
};

/* a * b + c; what does not fit 128 bits is lost (the products here stay below 2^100). */
static struct u128 mul_add(struct u128 a, uint64_t b, uint64_t c)
{
	uint64_t l0 = (uint32_t)a.lo, l1 = a.lo >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = l0 * b0, p01 = l0 * b1, p10 = l1 * b0, p11 = l1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	struct u128 r = {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32) + a.hi * b,
			 (mid << 32) | (uint32_t)p00};
	r.lo += c;
	r.hi += r.lo < c;
	return r;
}

/* x /= 10; returns the remainder. */
static unsigned div10(struct u128 *x)
{
	uint64_t r = x->hi % 10, cur;
	x->hi /= 10;
	cur = r << 32 | x->lo >> 32; /* below 10 * 2^32 */
	uint64_t q1 = cur / 10;
	cur = (cur % 10) << 32 | (uint32_t)x->lo;
	x->lo = q1 << 32 | cur / 10;
	return (unsigned)(cur % 10);
}

/* v * u.mul / 10^u.decimals, exact, trailing zeros cut: 1023 us is 0.001023. */
static void put_scaled(FILE *f, struct u128 v, struct prom_unit u)
{
	struct u128 n = mul_add(v, u.mul, 0);
	char digits[64];
	int k = sizeof(digits), d = u.decimals;
	digits[--k] = 0;
	/* every digit, at least one before the point */
	for (int i = 0; i <= d || n.hi || n.lo; i++) {
		digits[--k] = (char)('0' + div10(&n));
		if (i == d - 1 && d)
			digits[--k] = '.';
	}
	/* trailing zeros of the fraction, and a point left alone */
	int end = sizeof(digits) - 1;
	if (d) {
		while (digits[end - 1] == '0')
			digits[--end] = 0;
		if (digits[end - 1] == '.')
			digits[--end] = 0;
	}
	fputs(digits + k, f);
}

static struct u128 u128_of(uint64_t v)
{
	return (struct u128){0, v};
}

void prom_scaled(struct prom *p, const char *name, const char *labels, uint64_t v,
		 struct prom_unit u)
{
	if (!p->f)
		return;
	name_labels(p, name, "", labels, NULL);
	put_scaled(p->f, u128_of(v), u);
	fputc('\n', p->f);
}

void prom_hist(struct prom *p, const char *name, const char *labels, const struct hist_log2 *h,
	       uint64_t step, struct prom_unit u, uint64_t sum, struct prom_unit sum_u)
{
	if (!p->f)
		return;
	int last = 0;
	for (int k = 0; k < HIST_SLOTS; k++)
		if (h->slot[k])
			last = k;
	/* Slot 64 ([2^63, 2^64)) has no finite bound: +Inf alone holds it. */
	if (last > 63)
		last = 63;
	uint64_t below = h->neg;
	for (int k = 0; k <= last; k++) {
		uint64_t lo, hi;
		hist_log2_bounds(k, &lo, &hi);
		below += h->slot[k];
		char le[64];
		FILE *m = fmemopen(le + 4, sizeof(le) - 6, "w");
		if (!m)
			continue;
		/* hi * step - 1, hi * step never 0 */
		struct u128 le_v = mul_add(u128_of(hi), step, 0);
		le_v.hi -= le_v.lo == 0;
		le_v.lo--;
		put_scaled(m, le_v, u);
		fclose(m);
		memcpy(le, "le=\"", 4);
		strcat(le, "\"");
		name_labels(p, name, "_bucket", labels, le);
		fprintf(p->f, "%" PRIu64 "\n", below);
	}
	name_labels(p, name, "_bucket", labels, "le=\"+Inf\"");
	fprintf(p->f, "%" PRIu64 "\n", h->total);
	name_labels(p, name, "_sum", labels, NULL);
	put_scaled(p->f, u128_of(sum), sum_u);
	fputc('\n', p->f);
	name_labels(p, name, "_count", labels, NULL);
	fprintf(p->f, "%" PRIu64 "\n", h->total);
}

/* The length of the UTF-8 sequence at s (at most n bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t c;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return len;
}

size_t prom_escape(char *buf, size_t len, const char *s, size_t n)
{
	size_t o = 0;
	if (!len)
		return 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n && u[i];) {
		char tmp[4];
		const char *put = tmp;
		size_t k = utf8_len(u + i, n - i), w;
		if (u[i] == '\\' || u[i] == '"' || u[i] == '\n') {
			tmp[0] = '\\';
			tmp[1] = u[i] == '\n' ? 'n' : (char)u[i];
			w = 2;
			k = 1;
		} else if (!k) {
			put = "\xef\xbf\xbd"; /* U+FFFD for a byte that is not UTF-8 */
			w = 3;
			k = 1;
		} else {
			put = s + i;
			w = k;
		}
		if (o + w >= len) {
			buf[o] = 0;
			return SIZE_MAX;
		}
		memcpy(buf + o, put, w);
		o += w;
		i += k;
	}
	buf[o] = 0;
	return o;
}

char *prom_labels(char *buf, size_t len, ...)
{
	va_list ap;
	size_t o = 0;
	if (!len)
		return buf;
	buf[0] = 0;
	va_start(ap, len);
	for (const char *k; (k = va_arg(ap, const char *));) {
		const char *v = va_arg(ap, const char *);
		if (!v)
			break;
		int w = snprintf(buf + o, len - o, "%s%s=\"", o ? "," : "", k);
		if (w < 0 || (size_t)w >= len - o)
			break;
		/* The escaped value, whole, and its closing quote, or not the pair at all. */
		size_t room = len - o - (size_t)w, e = prom_escape(buf + o + w, room, v, SIZE_MAX);
		if (e == SIZE_MAX || room - e < 2) {
			buf[o] = 0;
			break;
		}
		o += (size_t)w + e;
		buf[o++] = '"';
		buf[o] = 0;
	}
	buf[o] = 0;
	va_end(ap);
	return buf;
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

struct prom_series *prom_series(struct prom_set *set, const char *labels)
{
	if (!labels)
		labels = "";
	if (set->n * 2 >= set->icap) {
		size_t icap = set->icap ? set->icap * 2 : 64;
		size_t *index = calloc(icap, sizeof(*index));
		if (!index)
			return NULL;
		for (size_t i = 0; i < set->n; i++) {
			size_t j = hash(set->s[i]->labels) & (icap - 1);
			while (index[j])
				j = (j + 1) & (icap - 1);
			index[j] = i + 1;
		}
		free(set->index);
		set->index = index;
		set->icap = icap;
	}
	size_t j = hash(labels) & (set->icap - 1);
	for (; set->index[j]; j = (j + 1) & (set->icap - 1))
		if (!strcmp(set->s[set->index[j] - 1]->labels, labels))
			return set->s[set->index[j] - 1];
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 32;
		struct prom_series **more = realloc(set->s, cap * sizeof(*more));
		if (!more)
			return NULL;
		set->s = more;
		set->cap = cap;
	}
	struct prom_series *s = calloc(1, sizeof(*s));
	if (!s || !(s->labels = strdup(labels))) {
		free(s);
		return NULL;
	}
	set->s[set->n] = s;
	set->index[j] = ++set->n;
	return s;
}

void prom_say_lost(uint64_t *lost, const char *tool, const char *what)
{
	if (!*lost)
		return;
	fprintf(stderr, "%s: WARNING: %llu %s not counted in --prom's file (out of memory)\n", tool,
		(unsigned long long)*lost, what);
	*lost = 0;
}

void prom_set_free(struct prom_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->s[i]->labels);
		free(set->s[i]);
	}
	free(set->s);
	free(set->index);
	memset(set, 0, sizeof(*set));
}

void prom_hist_add(struct hist_log2 *into, const struct hist_log2 *h)
{
	for (int k = 0; k < HIST_SLOTS; k++)
		into->slot[k] += h->slot[k];
	into->neg += h->neg;
	into->total += h->total;
}
