// SPDX-License-Identifier: GPL-2.0-only
#include "pictures/json.h"

#include <stdlib.h>
#include <string.h>

static size_t ws(const char *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

/* The end of the string whose opening quote is at i (past its closing quote), or 0. */
static size_t skip_string(const char *p, size_t i, size_t n)
{
	for (i++; i < n; i++) {
		if (p[i] == '\\')
			i++;
		else if (p[i] == '"')
			return i + 1;
		else if ((unsigned char)p[i] < 0x20)
			return 0;
	}
	return 0;
}

/* The end of the value at i, or 0 when there is none. Nesting is followed by counting
 * brackets outside strings (depth bounded by the text's length). */
static size_t skip_value(const char *p, size_t i, size_t n)
{
	if (i >= n)
		return 0;
	if (p[i] == '"')
		return skip_string(p, i, n);
	if (p[i] == '{' || p[i] == '[') {
		size_t depth = 0;
		for (; i < n; i++) {
			if (p[i] == '"') {
				size_t e = skip_string(p, i, n);
				if (!e)
					return 0;
				i = e - 1;
			} else if (p[i] == '{' || p[i] == '[') {
				depth++;
			} else if (p[i] == '}' || p[i] == ']') {
				if (!--depth)
					return i + 1;
			}
		}
		return 0;
	}
	size_t s = i;
	while (i < n && !strchr(",}] \t\r\n", p[i]))
		i++;
	return i > s ? i : 0;
}

struct json_span json_get(struct json_span o, const char *key)
{
	struct json_span none = {o.p, 0};
	const char *p = o.p;
	size_t n = o.n, i = ws(p, 0, n), klen = strlen(key);
	if (i >= n || p[i] != '{')
		return none;
	i = ws(p, i + 1, n);
	while (i < n && p[i] == '"') {
		size_t kend = skip_string(p, i, n);
		if (!kend)
			return none;
		bool match = kend - i - 2 == klen && !memcmp(p + i + 1, key, klen);
		i = ws(p, kend, n);
		if (i >= n || p[i] != ':')
			return none;
		i = ws(p, i + 1, n);
		size_t vend = skip_value(p, i, n);
		if (!vend)
			return none;
		if (match)
			return (struct json_span){p + i, vend - i};
		i = ws(p, vend, n);
		if (i < n && p[i] == ',')
			i = ws(p, i + 1, n);
		else
			break;
	}
	return none;
}

bool json_number(struct json_span v, double *out)
{
	char buf[64];
	size_t i = 0, n = v.n;
	const char *p = v.p;
	if (!n || n >= sizeof(buf))
		return false;
	/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (p[i] == '-')
		i++;
	if (i < n && p[i] == '0')
		i++;
	else if (i < n && p[i] >= '1' && p[i] <= '9')
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
	else
		return false;
	if (i < n && p[i] == '.') {
		size_t d = ++i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		size_t d = i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	if (i != n)
		return false;
	memcpy(buf, p, n);
	buf[n] = 0;
	*out = strtod(buf, NULL);
	return true;
}

bool json_string(struct json_span v, char *buf, size_t len)
{
	if (v.n < 2 || v.p[0] != '"' || v.p[v.n - 1] != '"' || !len)
		return false;
	size_t o = 0;
	for (size_t i = 1; i + 1 < v.n; i++) {
		char c = v.p[i];
		if (c == '\\') {
			c = v.p[++i];
			if (i + 1 >= v.n || (c != '"' && c != '\\' && c != '/'))
				return false;
		}
		if (o + 1 >= len)
			return false;
		buf[o++] = c;
	}
	buf[o] = 0;
	return true;
}

struct json_span json_next(struct json_span *at)
{
	const char *p = at->p;
	size_t n = at->n, i = ws(p, 0, n);
	struct json_span none = {p, 0};
	if (i < n && p[i] == '[') /* the first call: into the array */
		i = ws(p, i + 1, n);
	else if (i < n && p[i] == ',')
		i = ws(p, i + 1, n);
	else
		return none;
	size_t e = skip_value(p, i, n);
	if (!e) {
		at->n = 0;
		return none;
	}
	struct json_span v = {p + i, e - i};
	at->p = p + e;
	at->n = n - e;
	return v;
}
