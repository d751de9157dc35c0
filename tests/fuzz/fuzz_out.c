// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the escaping of text and JSON output (common/base/out.c). Property, for any bytes:
 * the JSON string is valid JSON and valid UTF-8 and gives back exactly the bytes it was made
 * from (\udcXX: the byte XX, as Python's surrogateescape); the text forms hold no control
 * character, no line break and no byte that is not UTF-8, the column token no space, and
 * each gives back the original bytes. A violation aborts (libFuzzer keeps the input).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "base/out.h"

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_utf8(unsigned char *out, size_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*o)++] = (unsigned char)cp;
	} else if (cp < 0x800) {
		out[(*o)++] = (unsigned char)(0xc0 | cp >> 6);
		out[(*o)++] = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		out[(*o)++] = (unsigned char)(0xe0 | cp >> 12);
		out[(*o)++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (unsigned char)(0x80 | (cp & 0x3f));
	}
}

/* A JSON string literal (strict RFC 8259), decoded with surrogateescape into out. */
static size_t json_decode(const unsigned char *s, size_t n, unsigned char *out)
{
	NEED(n >= 2 && s[0] == '"' && s[n - 1] == '"');
	NEED(valid_utf8(s, n));
	size_t o = 0;
	for (size_t i = 1; i < n - 1;) {
		NEED(s[i] >= 0x20 && s[i] != '"');
		if (s[i] != '\\') {
			out[o++] = s[i++];
			continue;
		}
		NEED(i + 1 < n - 1);
		char c = (char)s[i + 1];
		const char *simple = strchr("\"\\/bfnrt", c);
		if (c && simple) {
			out[o++] = (unsigned char)"\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
			i += 2;
			continue;
		}
		NEED(c == 'u' && i + 5 < n - 1);
		uint32_t cp = 0;
		for (int k = 0; k < 4; k++) {
			int h = hex(s[i + 2 + k]);
			NEED(h >= 0);
			cp = cp << 4 | (uint32_t)h;
		}
		i += 6;
		if (cp >= 0xdc80 && cp <= 0xdcff)
			out[o++] = (unsigned char)(cp & 0xff); /* an escaped byte */
		else {
			/* Only what must be escaped is: no pairs, no other surrogates. */
			NEED(cp < 0xd800 || cp > 0xdfff);
			put_utf8(out, &o, cp);
		}
	}
	return o;
}

/* Text with \xNN escapes, decoded; nothing else may follow a backslash. */
static size_t text_decode(const unsigned char *s, size_t n, unsigned char *out, bool spaces)
{
	NEED(valid_utf8(s, n));
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		NEED(s[i] >= 0x20 && s[i] != 0x7f);
		NEED(spaces || s[i] != ' ');
		if (s[i] != '\\') {
			out[o++] = s[i++];
			continue;
		}
		NEED(i + 3 <= n && s[i + 1] == 'x' && hex(s[i + 2]) >= 0 && hex(s[i + 3]) >= 0);
		out[o++] = (unsigned char)(hex(s[i + 2]) << 4 | hex(s[i + 3]));
		i += 4;
	}
	return o;
}

/* One command-line argument: bare (only safe bytes) or quoted with \" \\ \xNN. */
static size_t arg_decode(const unsigned char *s, size_t n, unsigned char *out, bool quote)
{
	NEED(valid_utf8(s, n));
	if (n == 0 || s[0] != '"') {
		NEED(!quote && n > 0);
		for (size_t i = 0; i < n; i++) {
			NEED(s[i] >= 0x80 || strchr("_@%+=:,./-", s[i]) ||
			     (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
			     (s[i] >= 'A' && s[i] <= 'Z'));
			out[i] = s[i];
		}
		return n;
	}
	NEED(n >= 2 && s[n - 1] == '"');
	size_t o = 0;
	for (size_t i = 1; i < n - 1;) {
		NEED(s[i] >= 0x20 && s[i] != 0x7f && s[i] != '"');
		if (s[i] != '\\') {
			out[o++] = s[i++];
			continue;
		}
		NEED(i + 1 < n - 1);
		if (s[i + 1] == '"' || s[i + 1] == '\\') {
			out[o++] = s[i + 1];
			i += 2;
			continue;
		}
		NEED(i + 3 < n - 1 && s[i + 1] == 'x' && hex(s[i + 2]) >= 0 && hex(s[i + 3]) >= 0);
		out[o++] = (unsigned char)(hex(s[i + 2]) << 4 | hex(s[i + 3]));
		i += 4;
	}
	return o;
}

typedef void (*emit_fn)(FILE *f, const char *s, size_t n, int variant);

static void emit_json_bytes(FILE *f, const char *s, size_t n, int v)
{
	(void)v;
	out_json_bytes(f, s, n);
}
static void emit_json_str(FILE *f, const char *s, size_t n, int v)
{
	(void)v;
	out_json_str(f, s, n);
}
static void emit_text(FILE *f, const char *s, size_t n, int v)
{
	out_text(f, s, n, v ? 0 : 1);
}
static void emit_line(FILE *f, const char *s, size_t n, int v)
{
	(void)v;
	out_text_line(f, s, n);
}
static void emit_arg(FILE *f, const char *s, size_t n, int v)
{
	out_text_arg(f, s, n, v);
}

static size_t emit(emit_fn fn, const char *s, size_t n, int v, char **buf)
{
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);
	NEED(f);
	fn(f, s, n, v);
	NEED(fclose(f) == 0);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	/* What a NUL-terminated reader of at most size bytes sees. */
	size_t strn = strnlen(s, size);
	unsigned char *back = malloc(size * 4 + 16);
	char *buf = NULL;
	size_t n, len;
	NEED(back);

	len = emit(emit_json_bytes, s, size, 0, &buf);
	n = json_decode((unsigned char *)buf, len, back);
	NEED(n == size && !memcmp(back, s, size));
	free(buf);

	len = emit(emit_json_str, s, size, 0, &buf);
	n = json_decode((unsigned char *)buf, len, back);
	NEED(n == strn && !memcmp(back, s, strn));
	free(buf);

	len = emit(emit_text, s, size, 1, &buf);
	n = text_decode((unsigned char *)buf, len, back, false);
	NEED(n == strn && !memcmp(back, s, strn));
	free(buf);

	/* Padded to a width: the same token, then spaces. */
	len = emit(emit_text, s, size, 0, &buf);
	while (len > 1 && buf[len - 1] == ' ')
		len--;
	if (strn == 0 && len == 1 && buf[0] == ' ')
		len = 0;
	n = text_decode((unsigned char *)buf, len, back, false);
	NEED(n == strn && !memcmp(back, s, strn));
	free(buf);

	/* Free text: exactly its length, NUL bytes included. */
	len = emit(emit_line, s, size, 0, &buf);
	n = text_decode((unsigned char *)buf, len, back, true);
	NEED(n == size && !memcmp(back, s, size));
	free(buf);

	for (int quote = 0; quote < 2; quote++) {
		len = emit(emit_arg, s, size, quote, &buf);
		n = arg_decode((unsigned char *)buf, len, back, quote);
		NEED(n == size && !memcmp(back, s, size));
		free(buf);
	}

	/* Into a buffer: always terminated, never past its end, a whole prefix when cut. */
	char full[4 * 256 + 8], small[17]; /* room for every byte escaped */
	size_t m = size < 256 ? size : 256;
	size_t flen = out_text_buf(full, sizeof(full), s, m);
	NEED(flen == strlen(full));
	n = text_decode((unsigned char *)full, flen, back, false);
	NEED(n == strnlen(s, m) && !memcmp(back, s, n));
	size_t slen = out_text_buf(small, sizeof(small), s, m);
	NEED(slen == strlen(small) && slen < sizeof(small) && !strncmp(small, full, slen));
	free(back);
	return 0;
}
