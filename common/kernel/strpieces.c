// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* memmem */
#include "kernel/strpieces.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

bool strpieces_needed(void)
{
	static int known = -1;
	if (known < 0) {
		const char *env = getenv("FTT_UPROBE_STRINGS");
		struct utsname u;
		int major = 0, minor = 0;
		known = 1; /* a release that cannot be read: the safe way */
		if (!(env && !strcmp(env, "pieces")) && !uname(&u) &&
		    sscanf(u.release, "%d.%d", &major, &minor) == 2)
			known = major < 6 || (major == 6 && minor < 12);
	}
	return known;
}

/* One argument: [NAME=]FETCH[:TYPE], split (the name NULL when none). */
struct arg {
	const char *p, *name, *fetch, *type;
	size_t len, namelen, fetchlen, typelen;
};

static void split(const char *p, size_t len, struct arg *a)
{
	memset(a, 0, sizeof(*a));
	a->p = p;
	a->len = len;
	const char *eq = memchr(p, '=', len);
	/* A name is letters, digits and _ before the first '=' (an immediate string's '=' comes
	 * after its quote). */
	size_t n = eq ? (size_t)(eq - p) : 0;
	bool named = eq && n > 0 && (isalpha((unsigned char)p[0]) || p[0] == '_');
	for (size_t i = 0; named && i < n; i++)
		named = isalnum((unsigned char)p[i]) || p[i] == '_';
	if (named) {
		a->name = p;
		a->namelen = n;
		p = eq + 1;
		len -= n + 1;
	}
	a->fetch = p;
	a->fetchlen = len;
	/* The type: after the last ':' outside quotes and parentheses. */
	int depth = 0;
	bool quoted = false;
	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		if (c == '"')
			quoted = !quoted;
		else if (!quoted && c == '(')
			depth++;
		else if (!quoted && c == ')')
			depth--;
		else if (!quoted && !depth && c == ':') {
			a->fetchlen = i;
			a->type = p + i + 1;
			a->typelen = len - i - 1;
		}
	}
}

static bool is_type(const struct arg *a, const char *t)
{
	return a->type && a->typelen == strlen(t) && !memcmp(a->type, t, a->typelen);
}

/* A string read from the process's memory: of type string or ustring (arrays of them too),
 * not an immediate one (\"...") nor $comm, whose lengths are bounded. */
static bool user_string(const struct arg *a)
{
	return a->type &&
	       ((a->typelen >= 6 && !memcmp(a->type, "string", 6)) ||
		(a->typelen >= 7 && !memcmp(a->type, "ustring", 7))) &&
	       !(a->fetch[0] == '\\' && a->fetch[1] == '"') && strncmp(a->fetch, "$comm", 5);
}

/* The offset of a +OFF(FETCH) or -OFF / +uOFF fetch, as the kernel reads it (any base), into
 * *off, and where its '(' is. Returns that, or NULL when the fetch is not of that form. */
static const char *mem_fetch(const struct arg *a, long long *off, bool *user)
{
	const char *f = a->fetch;
	if (a->fetchlen < 4 || (f[0] != '+' && f[0] != '-') || f[a->fetchlen - 1] != ')')
		return NULL;
	*user = f[1] == 'u';
	const char *num = f + 1 + *user;
	if (!isdigit((unsigned char)*num))
		return NULL;
	char *end;
	errno = 0;
	*off = strtoll(num, &end, 0);
	if (errno || *end != '(' || *off > (1LL << 40))
		return NULL;
	if (f[0] == '-')
		*off = -*off;
	return end;
}

/* Append to out (len bytes, o used) what fmt makes. Returns 0, or -1 when it does not fit. */
static int append(char *out, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(out + *o, len - *o, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *o)
		return -1;
	*o += (size_t)w;
	return 0;
}

/* An argument whose bytes the kernel writes after the fixed ones: a string type ($comm and
 * immediate strings too), when not read in pieces. */
static bool dynamic(const struct arg *a)
{
	return (a->type && ((a->typelen >= 6 && !memcmp(a->type, "string", 6)) ||
			    (a->typelen >= 7 && !memcmp(a->type, "ustring", 7)) ||
			    (a->typelen >= 6 && !memcmp(a->type, "symstr", 6)))) ||
	       !strncmp(a->fetch, "$comm", 5) || (a->fetch[0] == '\\' && a->fetch[1] == '"');
}

/* The pieces of string argument a, named name, per of them, appended to out. Returns 0, or
 * -1 when they do not fit. */
static int pieces(const struct arg *a, const char *name, int per, char *out, size_t len, size_t *o)
{
	long long off;
	bool user;
	const char *paren = mem_fetch(a, &off, &user);
	/* FETCH, from its '(' to the last ')' */
	size_t inner = a->fetchlen - (size_t)(paren - a->fetch);
	for (int k = 0; k < per; k++) {
		long long at = off + 8LL * k;
		if (append(out, len, o, "%s%s__%d=%c%s%lld%.*s:u64", *o ? " " : "", name, k,
			   at < 0 ? '-' : '+', user ? "u" : "", at < 0 ? -at : at, (int)inner,
			   paren))
			return -1;
	}
	return 0;
}

int strpieces_args(const char *args, char *out, size_t len, struct strpieces *sp, char *why,
		   size_t whylen)
{
	memset(sp, 0, sizeof(*sp));
	struct arg a[STRPIECES_MAX_ARGS + 1];
	int n = 0, strs = 0;
	for (const char *p = args; *p;) {
		/* (the kernel splits at any white space: so must this) */
		while (*p && isspace((unsigned char)*p))
			p++;
		size_t l = 0;
		while (p[l] && !isspace((unsigned char)p[l]))
			l++;
		if (!l)
			break;
		if (n == STRPIECES_MAX_ARGS + 1) {
			snprintf(why, whylen, "more than %d arguments", STRPIECES_MAX_ARGS);
			return -1;
		}
		split(p, l, &a[n]);
		if (user_string(&a[n])) {
			long long off;
			bool user;
			if (!(is_type(&a[n], "string") || is_type(&a[n], "ustring")) ||
			    !mem_fetch(&a[n], &off, &user)) {
				snprintf(why, whylen,
					 "before Linux 6.12 (373b9338) a uprobe's string argument "
					 "can overwrite kernel memory, so it is read here in "
					 "pieces, and only in the form +OFF(FETCH):string, not "
					 "'%.*s'",
					 (int)l, p);
				return -1;
			}
			if (strs == STRPIECES_MAX_STRS) {
				snprintf(why, whylen, "more than %d strings", STRPIECES_MAX_STRS);
				return -1;
			}
			char *name = sp->name[strs];
			if (a[n].name && a[n].namelen <= STRPIECES_NAME_MAX)
				snprintf(name, STRPIECES_NAME_MAX + 1, "%.*s", (int)a[n].namelen,
					 a[n].name);
			else if (!a[n].name)
				snprintf(name, STRPIECES_NAME_MAX + 1, "arg%d", n + 1);
			else {
				snprintf(why, whylen,
					 "the string argument name '%.*s' is longer than %d "
					 "characters, which its pieces need before Linux 6.12",
					 (int)a[n].namelen, a[n].name, STRPIECES_NAME_MAX);
				return -1;
			}
			strs++;
		}
		n++;
		p += l;
	}
	if (!strs) {
		if (strlen(args) >= len)
			goto toolong;
		strcpy(out, args);
		return 0;
	}
	int per = (STRPIECES_MAX_ARGS - (n - strs)) / strs;
	if (per > STRPIECES_PER_STR)
		per = STRPIECES_PER_STR;
	if (per < 1) {
		snprintf(why, whylen, "too many arguments beside the strings' pieces");
		return -1;
	}
	sp->n = strs;
	sp->pieces = per;
	/* The dynamic arguments left ($comm, \"...") first: from 4.20 to 6.4 (until
	 * e38e2c6a9efc) a fixed fetch that faults moves where the kernel writes the dynamic
	 * ones after it backwards, out of its buffer (a piece of +0(+8(%si)) of a NULL argv
	 * entry). Then the others in their order, the strings as pieces; each unnamed one named
	 * as the kernel named it in its place (argN). */
	size_t o = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0, s = 0; i < n; i++) {
			if (user_string(&a[i])) {
				if (pass && pieces(&a[i], sp->name[s], per, out, len, &o))
					goto toolong;
				s++;
				continue;
			}
			if (dynamic(&a[i]) != !pass)
				continue;
			if (a[i].name ? append(out, len, &o, "%s%.*s", o ? " " : "", (int)a[i].len,
					       a[i].p) :
					append(out, len, &o, "%sarg%d=%.*s", o ? " " : "", i + 1,
					       (int)a[i].len, a[i].p))
				goto toolong;
		}
	return strs;
toolong:
	snprintf(why, whylen, "the arguments are too long");
	return -1;
}

/* Which piece a field or argument name is: NAME__K of sp's string *s, piece *k. Returns true
 * if so. */
static bool piece_of(const struct strpieces *sp, const char *p, size_t len, int *s, int *k)
{
	for (int i = 0; i < sp->n; i++) {
		size_t n = strlen(sp->name[i]);
		if (len < n + 3 || memcmp(p, sp->name[i], n) || memcmp(p + n, "__", 2))
			continue;
		int v = 0;
		size_t j = n + 2;
		for (; j < len && isdigit((unsigned char)p[j]) && v < 1000; j++)
			v = v * 10 + (p[j] - '0');
		if (j == len && j > n + 2) {
			*s = i;
			*k = v;
			return true;
		}
	}
	return false;
}

/* Append n bytes of p to the buffer *b (used *o, room *cap). Returns 0, or -1 when out of
 * memory. */
static int put(char **b, size_t *o, size_t *cap, const char *p, size_t n)
{
	if (*o + n + 1 > *cap) {
		size_t c = (*o + n + 1) * 2;
		char *more = realloc(*b, c);
		if (!more)
			return -1;
		*b = more;
		*cap = c;
	}
	memcpy(*b + *o, p, n);
	*o += n;
	(*b)[*o] = 0;
	return 0;
}

char *strpieces_format(const char *fmt, const struct strpieces *sp)
{
	const char *pf = strstr(fmt, "\nprint fmt: \"");
	if (!pf || sp->n < 1 || sp->pieces < 1)
		return NULL;
	pf++;
	char *b = NULL;
	size_t o = 0, cap = 0;
	int seen[STRPIECES_MAX_STRS] = {0}, first[STRPIECES_MAX_STRS] = {0};
	char line[256];
	/* The fields: "\tfield:u64 NAME__K;\toffset:N;\tsize:8;\tsigned:0;\n" */
	for (const char *l = fmt, *nl; l < pf; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(pf - l));
		if (!nl)
			nl = pf - 1;
		const char *f = memmem(l, (size_t)(nl - l), "field:u64 ", 10);
		const char *semi = f ? memchr(f, ';', (size_t)(nl - f)) : NULL;
		int s, k;
		if (!semi || !piece_of(sp, f + 10, (size_t)(semi - f - 10), &s, &k)) {
			if (put(&b, &o, &cap, l, (size_t)(nl + 1 - l)))
				goto fail;
			continue;
		}
		const char *off = memmem(semi, (size_t)(nl - semi), "offset:", 7);
		const char *size = memmem(semi, (size_t)(nl - semi), "size:", 5);
		if (!off || !size || atoi(size + 5) != 8 || k != seen[s])
			goto fail;
		int at = atoi(off + 7);
		if (k == 0)
			first[s] = at;
		else if (at != first[s] + 8 * k)
			goto fail;
		seen[s]++;
		if (k)
			continue;
		int n = snprintf(line, sizeof(line),
				 "\tfield:char %s[%d];\toffset:%d;\tsize:%d;\tsigned:0;\n",
				 sp->name[s], 8 * sp->pieces, at, 8 * sp->pieces);
		if (put(&b, &o, &cap, line, (size_t)n))
			goto fail;
	}
	for (int s = 0; s < sp->n; s++)
		if (seen[s] != sp->pieces)
			goto fail;
	/* The print fmt: its words " NAME__K=CONV" and arguments ", REC->NAME__K". */
	const char *q = pf + 12, *end = q + strlen(q);
	const char *close = q + 1;
	while (close < end && !(*close == '"' && close[-1] != '\\'))
		close++;
	if (close >= end || put(&b, &o, &cap, pf, (size_t)(q + 1 - pf)))
		goto fail;
	/* Words split at single spaces (an empty word keeps a second space). */
	bool any = false;
	for (const char *w = q + 1; w <= close;) {
		const char *sp_at = memchr(w, ' ', (size_t)(close - w));
		size_t n = sp_at ? (size_t)(sp_at - w) : (size_t)(close - w);
		const char *eq = memchr(w, '=', n);
		int s, k;
		bool piece = eq && piece_of(sp, w, (size_t)(eq - w), &s, &k);
		if (!piece || !k) {
			int m = piece ? snprintf(line, sizeof(line), "%s=\\\"%%s\\\"",
						 sp->name[s]) :
					0;
			if ((any && put(&b, &o, &cap, " ", 1)) ||
			    put(&b, &o, &cap, piece ? line : w, piece ? (size_t)m : n))
				goto fail;
			any = true;
		}
		w += n + 1;
	}
	/* Arguments after it: ", ARG, ARG\n", each REC->NAME__K left out but the first. */
	if (put(&b, &o, &cap, "\"", 1))
		goto fail;
	const char *a = close + 1;
	while (*a == ',') {
		a++;
		size_t n = strcspn(a, ",\n");
		size_t lead = strspn(a, " ");
		const char *t = a + (lead < n ? lead : n);
		size_t tn = n - (size_t)(t - a);
		int s, k;
		bool piece =
			tn > 5 && !memcmp(t, "REC->", 5) && piece_of(sp, t + 5, tn - 5, &s, &k);
		if (!piece || !k) {
			int m = piece ? snprintf(line, sizeof(line), " REC->%s", sp->name[s]) : 0;
			if (put(&b, &o, &cap, ",", 1) ||
			    put(&b, &o, &cap, piece ? line : a, piece ? (size_t)m : n))
				goto fail;
		}
		a += n;
	}
	if (put(&b, &o, &cap, a, strlen(a)))
		goto fail;
	return b;
fail:
	free(b);
	return NULL;
}
