/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json: reading the tools' own JSON lines back (heatmap reads iosnoop -j, funclatency -j):
 * a value found by key in one object's text, numbers, short strings, array elements. No
 * tree is built; text that is not JSON gives NULL or false, never a read past its end.
 */
#ifndef FTT_JSON_H
#define FTT_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct json_span {
	const char *p;
	size_t n;
};

/* The value of key in the object text o (its '{' first, white space allowed around). Returns
 * its span, pointing into o's text (valid as long as that is), the first if the key is there
 * twice; a span of length 0 when o is not an object or has no such key at its top level, or
 * when what comes before it is not JSON. */
struct json_span json_get(struct json_span o, const char *key);
/* A number value v (JSON's grammar, checked, the whole span, under 64 bytes) into *out.
 * Returns true, or false (*out untouched) when v is not such a number. */
bool json_number(struct json_span v, double *out);
/* A string value v without escapes other than \" \\ \/ (the tools' own times and names) into
 * buf, len bytes, NUL-terminated. Returns true, or false when it is not a string, holds
 * another escape or does not fit (buf may then hold part of it, not terminated). */
bool json_string(struct json_span v, char *buf, size_t len);
/* Array elements: *at starts as the array's span; each call gives the next element and moves
 * at past it. Returns the element's span, pointing into the array's text (valid as long as
 * that is), or a span of length 0 at the end or on text that is not an array. */
struct json_span json_next(struct json_span *at);

#endif
