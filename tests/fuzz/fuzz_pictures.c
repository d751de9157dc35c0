// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the pictures' input. The bytes are lines of text: each goes to the flame
 * graph as a folded stack and, read as the tools' JSON (json.c), to the heat map as a value
 * or a histogram, as heatmap(8) reads them; then both SVGs are written. Property: no crash,
 * and each SVG is UTF-8 holding no control character but newlines and no '<' or '&' that
 * the input could have put there unescaped (every '<' starts a tag of ours, every '&' an
 * entity), outside the page's script.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "fuzz.h"
#include "heat.h"
#include "json.h"

static void check_svg(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		if (!strncmp(s + i, "<![CDATA[", 9)) { /* the page's script: ours, no input */
			const char *e = strstr(s + i, "]]>");
			NEED(e);
			i = (size_t)(e - s) + 3;
			continue;
		}
		size_t len = utf8_len(p + i, n - i);
		NEED(len > 0);
		NEED(len > 1 || p[i] >= ' ' || p[i] == '\n');
		if (p[i] == '&')
			NEED(!strncmp(s + i, "&amp;", 5) || !strncmp(s + i, "&lt;", 4) ||
			     !strncmp(s + i, "&gt;", 4) || !strncmp(s + i, "&quot;", 6) ||
			     !strncmp(s + i, "&apos;", 6));
		if (p[i] == '<')
			NEED((i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '?' || s[i + 1] == '!' ||
					    (s[i + 1] >= 'a' && s[i + 1] <= 'z'))));
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	struct flame *f = flame_new();
	struct heat *h = heat_new();
	NEED(f && h);
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		NEED(flame_add_line(f, p, n) >= 0);
		struct json_span o = {p, n}, t = json_get(o, "t"), v = json_get(o, "v"), b;
		double tv, x, lo, hi, c;
		if (json_number(t, &tv) && json_number(v, &x))
			heat_add(h, tv, x);
		struct json_span at = json_get(o, "hist");
		while (json_number(t, &tv) && (b = json_next(&at)).n)
			if (json_number(json_get(b, "low"), &lo) &&
			    json_number(json_get(b, "high"), &hi) &&
			    json_number(json_get(b, "count"), &c) && c >= 0 && c < 1e12)
				heat_add_bucket(h, tv, lo, hi, (uint64_t)c);
		p += n + 1;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	NEED(m);
	struct flame_opts fo = {.title = (const char *)data, .width = 400};
	char title[64];
	snprintf(title, sizeof(title), "%.*s", (int)(size < 63 ? size : 63), (const char *)data);
	fo.title = title;
	flame_svg(f, &fo, m);
	char why[160];
	struct heat_opts ho = {.title = title, .unit = title};
	heat_svg(h, &ho, m, why, sizeof(why));
	fclose(m);
	check_svg(buf, len);
	free(buf);
	flame_free(f);
	heat_free(h);
	return 0;
}
