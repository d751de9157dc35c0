// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the pictures' input and options. The bytes are lines of text: each goes to
 * the flame graph as a folded stack and, read as the tools' JSON (json.c), to the heat map
 * as a value or a histogram, as heatmap(8) reads them; then both SVGs are written. A line
 * {"opts":{...}} sets the options, within what the tools take: "linear" (--rows linear),
 * "max" (--max: above 0, at most 1e300), "column" (--column: 1 ns to 1e9 s), "rows" (how
 * many linear rows, 1 to 1000), "width" (flamegraph --width: 200 to 100000), "icicle",
 * "hot", "diff" (flamegraph --diff with every other line as BEFORE) and "unscaled". Properties: no crash; each SVG is UTF-8 holding no control character but
 * newlines and no '<' or '&' that the input could have put there unescaped (every '<'
 * starts a tag of ours, every '&' an entity), outside the page's script; the flame graph's
 * root holds every sample taken; the heat map's cells add up to the values given, and it
 * fails only for a reason it has (nothing to draw, histograms in linear rows, times that
 * need other columns: never "out of memory").
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pictures/flame.h"
#include "fuzz.h"
#include "pictures/heat.h"
#include "pictures/json.h"

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

/* The options line's number key, if it is one within [lo, hi]. */
static bool opt_number(struct json_span opts, const char *key, double lo, double hi, double *v)
{
	return json_number(json_get(opts, key), v) && *v >= lo && *v <= hi;
}

static bool diff; /* "diff": BEFORE is every other line */

static void options(struct json_span opts, struct heat_opts *ho, struct flame_opts *fo)
{
	double v;
	ho->linear = opt_number(opts, "linear", 1, 1, &v);
	if (opt_number(opts, "max", 0, 1e300, &v) && v > 0)
		ho->max = v;
	if (opt_number(opts, "column", 1e-9, 1e9, &v))
		ho->width = round(v * 1e9) / 1e9; /* whole nanoseconds, as opt_seconds */
	if (opt_number(opts, "rows", 1, 1000, &v))
		ho->linear_rows = (int)v;
	if (opt_number(opts, "width", 200, 100000, &v))
		fo->width = (int)v;
	fo->icicle = opt_number(opts, "icicle", 1, 1, &v);
	fo->colors = opt_number(opts, "hot", 1, 1, &v) ? FLAME_HOT : FLAME_SPLIT;
	diff = opt_number(opts, "diff", 1, 1, &v);
	fo->unscaled = opt_number(opts, "unscaled", 1, 1, &v);
}

/* The sum of the data-count attributes of a heat map. */
static uint64_t cells(const char *s)
{
	uint64_t n = 0;
	for (const char *p = s; (p = strstr(p, "data-count=\"")); p++)
		n += strtoull(p + 12, NULL, 10);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	struct flame *f = flame_new(), *before = flame_new();
	struct heat *h = heat_new();
	NEED(f && before && h);
	diff = false;
	size_t line = 0;
	struct flame_opts fo = {.width = 400};
	struct heat_opts ho = {0};
	bool buckets = false;
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		NEED(flame_add_line(f, p, n) >= 0);
		if (line++ % 2)
			NEED(flame_add_line(before, p, n) >= 0);
		struct json_span o = {p, n}, t = json_get(o, "t"), v = json_get(o, "v"), b,
				 opts = json_get(o, "opts");
		if (opts.n)
			options(opts, &ho, &fo);
		double tv, x, lo, hi, c;
		if (json_number(t, &tv) && json_number(v, &x))
			heat_add(h, tv, x);
		struct json_span at = json_get(o, "hist");
		while (json_number(t, &tv) && (b = json_next(&at)).n)
			if (json_number(json_get(b, "low"), &lo) &&
			    json_number(json_get(b, "high"), &hi) &&
			    json_number(json_get(b, "count"), &c) && c >= 0 && c < 1e12)
				buckets |= heat_add_bucket(h, tv, lo, hi, (uint64_t)c) == 0;
		p += n + 1;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	NEED(m);
	char title[64];
	snprintf(title, sizeof(title), "%.*s", (int)(size < 63 ? size : 63), (const char *)data);
	fo.title = title;
	if (diff && flame_total(before) > 0)
		fo.before = before;
	int rc = flame_svg(f, &fo, m);
	fclose(m);
	NEED(rc == 0 || !(flame_total(f) > 0));
	if (rc == 0) { /* the root spans every sample */
		char root[96], n[48];
		snprintf(root, sizeof(root), "data-d=\"0\" data-n=\"%s\" data-name=\"all\"",
			 flame_count_text(flame_total(f), n));
		NEED(strstr(buf, root));
	}
	check_svg(buf, len);
	free(buf);
	m = open_memstream(&buf, &len);
	NEED(m);
	char why[160];
	ho.title = ho.unit = title;
	rc = heat_svg(h, &ho, m, why, sizeof(why));
	fclose(m);
	NEED(rc == 0 || (rc == -1 && (!heat_count(h) || (buckets && ho.linear))) ||
	     (rc == -2 && !strncmp(why, "the times ", 10)));
	if (rc == 0) {
		NEED(cells(buf) == heat_count(h));
		check_svg(buf, len);
	}
	free(buf);
	flame_free(f);
	flame_free(before);
	heat_free(h);
	return 0;
}
