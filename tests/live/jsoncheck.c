// SPDX-License-Identifier: GPL-2.0-only
/*
 * jsoncheck FILE [KEY...]: every line of FILE is one JSON object (RFC 8259, strict) holding
 * at least the given top-level keys. For the live tests where python3 is missing (the qemu
 * guests); on a failure, prints the line number and what is wrong, and exits 1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;	/* parse position */
static const char *why; /* first error */
static char keys[64][64];
static int nkeys;

static bool fail(const char *msg)
{
	if (!why)
		why = msg;
	return false;
}

static void ws(void)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
}

static bool string(char *out, size_t len)
{
	size_t n = 0;
	if (*p++ != '"')
		return fail("expected a string");
	for (;;) {
		unsigned char c = (unsigned char)*p++;
		if (c == '"')
			break;
		if (c < 0x20)
			return fail("control character or end of line inside a string");
		if (c == '\\') {
			c = (unsigned char)*p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, p++)
					if (!strchr("0123456789abcdefABCDEF", *p) || !*p)
						return fail("bad \\u escape");
				c = '?';
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return fail("bad escape in a string");
			}
		}
		if (out && n + 1 < len)
			out[n++] = (char)c;
	}
	if (out)
		out[n] = 0;
	return true;
}

static bool number(void)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return fail("bad number");
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return fail("bad fraction");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return fail("bad exponent");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return true;
}

static bool value(int depth);

/* An object or an array; at depth 0 the object's keys are recorded. */
static bool container(int depth)
{
	char close = *p == '{' ? '}' : ']';
	bool obj = close == '}';
	p++;
	ws();
	if (*p == close) {
		p++;
		return true;
	}
	for (;;) {
		ws();
		if (obj) {
			char key[64];
			if (!string(key, sizeof(key)))
				return false;
			if (depth == 0 && nkeys < 64)
				snprintf(keys[nkeys++], sizeof(keys[0]), "%s", key);
			ws();
			if (*p++ != ':')
				return fail("expected ':' after a key");
		}
		if (!value(depth + 1))
			return false;
		ws();
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p++ == close)
			return true;
		return fail(obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool value(int depth)
{
	ws();
	if (depth > 64)
		return fail("nested too deep");
	switch (*p) {
	case '{':
	case '[': return container(depth);
	case '"': return string(NULL, 0);
	case 't': return strncmp(p, "true", 4) ? fail("bad literal") : (p += 4, true);
	case 'f': return strncmp(p, "false", 5) ? fail("bad literal") : (p += 5, true);
	case 'n': return strncmp(p, "null", 4) ? fail("bad literal") : (p += 4, true);
	default: return number();
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: jsoncheck FILE [KEY...]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	static char line[1 << 20];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		line[strcspn(line, "\n")] = 0;
		p = line;
		why = NULL;
		nkeys = 0;
		ws();
		bool ok = *p == '{' ? value(0) : fail("not an object");
		ws();
		if (ok && *p)
			ok = fail("text after the object");
		for (int i = 2; ok && i < argc; i++) {
			int k = 0;
			while (k < nkeys && strcmp(keys[k], argv[i]))
				k++;
			if (k == nkeys) {
				fprintf(stderr, "%s:%d: no key \"%s\"\n", argv[1], n, argv[i]);
				return 1;
			}
		}
		if (!ok) {
			fprintf(stderr, "%s:%d:%d: %s\n", argv[1], n, (int)(p - line) + 1, why);
			return 1;
		}
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, "%s: empty\n", argv[1]);
		return 1;
	}
	return 0;
}
