// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pictures: the JSON reader heatmap uses on the tools' -j lines, the heat map's cells
 * (positions, counts, colours) and the flame graph's frames (positions, widths, names),
 * from known input; text that could break the XML escaped.
 */
#include "helpers.h"

#include <math.h>

#include "pictures/flame.h"
#include "pictures/heat.h"
#include "pictures/json.h"

static struct json_span span(const char *s)
{
	return (struct json_span){s, strlen(s)};
}

static char *slice(struct json_span v)
{
	static char buf[256];
	snprintf(buf, sizeof(buf), "%.*s", (int)v.n, v.p);
	return buf;
}

static void test_json(void **state)
{
	(void)state;
	const char *line =
		"{\"time\":\"12:00:01\",\"comm\":\"a\\\"}b\",\"n\":{\"x\":[1,{\"y\":2}]},"
		"\"lat_ms\":0.485,\"hist\":[{\"low\":0,\"high\":1,\"count\":3},"
		"{\"low\":null,\"high\":0,\"count\":1}]}\n";
	struct json_span o = span(line);
	assert_string_equal(slice(json_get(o, "time")), "\"12:00:01\"");
	assert_string_equal(slice(json_get(o, "comm")), "\"a\\\"}b\"");
	assert_string_equal(slice(json_get(o, "lat_ms")), "0.485");
	assert_int_equal(json_get(o, "x").n, 0); /* not at the top level */
	assert_int_equal(json_get(o, "nosuch").n, 0);
	double d;
	assert_true(json_number(json_get(o, "lat_ms"), &d));
	assert_true(d == 0.485);
	char s[16];
	assert_true(json_string(json_get(o, "comm"), s, sizeof(s)));
	assert_string_equal(s, "a\"}b");
	assert_false(json_string(json_get(o, "comm"), s, 4)); /* does not fit */
	struct json_span at = json_get(o, "hist"), e;
	int n = 0;
	while ((e = json_next(&at)).n) {
		n++;
		assert_true(json_number(json_get(e, "count"), &d));
	}
	assert_int_equal(n, 2);
	/* Not JSON: nothing found, nothing read past the text. */
	static const char *const bad[] = {"",		"{",   "{\"a\"",    "{\"a\":",
					  "{\"a\":\"x", "[1]", "{\"a\" 1}", "{\"a\":1,,\"b\":2}"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json_span v = json_get(span(bad[i]), "b");
		assert_int_equal(v.n, 0);
	}
	static const char *const nums[] = {"01", "1.", ".5", "-", "1e", "+1", "0x10", "1 "};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		assert_false(json_number(span(nums[i]), &d));
	assert_true(json_number(span("-1.5e3"), &d) && d == -1500);
}

/* The SVG of h with o, in memory. */
static char *svg_of(struct heat *h, const struct heat_opts *o, int *rc)
{
	static char buf[1 << 16];
	char why[160];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(m);
	*rc = heat_svg(h, o, m, why, sizeof(why));
	fclose(m);
	return *rc ? NULL : buf;
}

static int count_of(const char *svg, const char *needle)
{
	/* byte by byte: strstr from each match is quadratic under ASan on 25 MB */
	size_t len = strlen(needle);
	int n = 0;
	for (const char *p = svg; *p; p++)
		n += *p == *needle && !strncmp(p, needle, len);
	return n;
}

/*
 * Values 1.5 and 3 (twice) in the first second, 0.75 in the second: log rows 2^-1, 2^0,
 * 2^1; columns of 1 s. The plot starts at (100, 56); 2 columns of 80 px (at most 80), 3
 * rows of 36 px (at most 36): the row of 3 is the top one.
 */
static void test_heat_cells(void **state)
{
	(void)state;
	struct heat *h = heat_new();
	assert_int_equal(heat_add(h, 10.0, 1.5), 0);
	assert_int_equal(heat_add(h, 10.2, 3), 0);
	assert_int_equal(heat_add(h, 10.9, 3), 0);
	assert_int_equal(heat_add(h, 11.2, 0.75), 0);
	assert_int_equal(heat_add(h, 11.2, -1), -1); /* no negative latency */
	assert_int_equal(heat_add(h, NAN, 1), -1);
	assert_int_equal(heat_count(h), 4);
	struct heat_opts o = {.title = "a <b> & \"c\"", .unit = "ms", .width = 1};
	int rc;
	char *svg = svg_of(h, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, ">a &lt;b&gt; &amp; &quot;c&quot;</text>"));
	assert_int_equal(count_of(svg, "data-count="), 3);
	/* the fullest cell (2) in the darkest colour, a cell of 1 in the palest */
	assert_non_null(strstr(svg, "<rect x=\"100.00\" y=\"56.00\" width=\"80.00\" "
				    "height=\"36.00\" fill=\"rgb(140,0,0)\" data-count=\"2\">"
				    "<title>0 s to 1 s, 2 ms to 4 ms: 2</title>"));
	assert_non_null(strstr(svg, "<rect x=\"100.00\" y=\"92.00\" width=\"80.00\" "
				    "height=\"36.00\" fill=\"rgb(255,226,140)\" data-count=\"1\">"
				    "<title>0 s to 1 s, 1 ms to 2 ms: 1</title>"));
	assert_non_null(strstr(svg, "<rect x=\"180.00\" y=\"128.00\" width=\"80.00\" "
				    "height=\"36.00\" fill=\"rgb(255,226,140)\" data-count=\"1\">"
				    "<title>1 s to 2 s, 0.5 ms to 1 ms: 1</title>"));
	assert_non_null(strstr(svg, "4 values in 3 cells"));
	/* Buckets cannot be cut into linear rows. */
	assert_int_equal(heat_add_bucket(h, 12, 4, 8, 5), 0);
	assert_int_equal(heat_add_bucket(h, 12, 3, 6, 5), -1); /* not a power of 2 */
	/* 9 values so far: 2^64 - 10 more are the most there can be */
	assert_int_equal(heat_add_bucket(h, 12, 4, 8, UINT64_MAX - 8), -1);
	assert_int_equal(heat_add_bucket(h, 12, 4, 8, UINT64_MAX - 10), 0);
	assert_true(heat_count(h) == UINT64_MAX - 1);
	assert_int_equal(heat_add(h, 12, 1), 0);
	assert_int_equal(heat_add(h, 12, 1), -1);
	assert_true(heat_count(h) == UINT64_MAX);
	o.linear = true;
	assert_null(svg_of(h, &o, &rc));
	assert_int_equal(rc, -1);
	heat_free(h);
}

/* One slow value among 100,000 fast ones: a cell of its own, in a colour that is neither
 * the empty plot's nor the fullest cell's. Linear rows: values above --max in the top row. */
static void test_heat_outlier(void **state)
{
	(void)state;
	struct heat *h = heat_new();
	for (int i = 0; i < 100000; i++)
		assert_int_equal(heat_add(h, i / 100000.0, 0.1), 0);
	assert_int_equal(heat_add(h, 0.5, 100), 0);
	struct heat_opts o = {.width = 1, .linear = true, .linear_rows = 10, .max = 50};
	int rc;
	char *svg = svg_of(h, &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(count_of(svg, "data-count="), 2);
	assert_non_null(strstr(svg, "fill=\"rgb(140,0,0)\" data-count=\"100000\">"));
	assert_non_null(strstr(svg, "fill=\"rgb(255,226,140)\" data-count=\"1\"><title>0 s to 1 "
				    "s, 45 and above: 1</title>"));
	assert_non_null(strstr(svg, "1 above the top row"));
	heat_free(h);
}

/*
 * Values far past --max: 1e12 and 1e300 with a top of 50, and every value with a top of
 * 1e-10, counted above it and drawn in the top row, which says so. The row was once
 * computed as an int from 1e12 / 50 * 40 and written far outside the cells.
 */
static void test_heat_beyond(void **state)
{
	(void)state;
	struct heat *h = heat_new();
	assert_int_equal(heat_add(h, 0, 1), 0);
	assert_int_equal(heat_add(h, 0.5, 1e12), 0);
	assert_int_equal(heat_add(h, 0.7, 1e300), 0);
	assert_int_equal(heat_add(h, 0.9, 50), 0); /* at the top: not above it */
	struct heat_opts o = {.width = 1, .linear = true, .max = 50};
	int rc;
	char *svg = svg_of(h, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "data-count=\"3\"><title>0 s to 1 s, 48.75 and above: "
				    "3</title>"));
	assert_non_null(strstr(svg, "<title>0 s to 1 s, 0 to 1.25: 1</title>"));
	assert_non_null(strstr(svg, "2 above the top row"));
	assert_int_equal(heat_beyond(h), 2);
	o.max = 1e-10;
	svg = svg_of(h, &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(count_of(svg, "data-count="), 1);
	assert_non_null(strstr(svg, "data-count=\"4\"><title>0 s to 1 s, 9.75e-11 and above: "
				    "4</title>"));
	assert_non_null(strstr(svg, "4 above the top row"));
	assert_int_equal(heat_beyond(h), 4);
	heat_free(h);
}

/*
 * Times too far apart: -2, and why says what would do. -1e308 and 1e308 are finite but
 * their difference is not (it made a column count of NaN, then "out of memory"); 100,000
 * s in columns of 1 s are 100,001 columns, more than 20,000.
 */
static void test_heat_span(void **state)
{
	(void)state;
	char why[160];
	FILE *null = fopen("/dev/null", "w");
	assert_non_null(null);
	struct heat *h = heat_new();
	assert_int_equal(heat_add(h, -1e308, 1), 0);
	assert_int_equal(heat_add(h, 1e308, 2), 0);
	struct heat_opts o = {0};
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), -2);
	assert_string_equal(why, "the times run from -1e+308 s to 1e+308 s: too far apart to draw");
	o.width = 1;
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), -2);
	heat_free(h);
	h = heat_new();
	assert_int_equal(heat_add(h, 0, 1), 0);
	assert_int_equal(heat_add(h, 100000, 2), 0);
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), -2);
	assert_string_equal(why, "the times span 100000 s: 100001 columns of 1 s, more than "
				 "20000: columns of 10 s or wider would fit");
	o.width = 5; /* 20,001 columns: 100,000 s is the start of one more */
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), -2);
	o.width = 10;
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), 0);
	o.width = 0; /* about 100 columns, whatever the span */
	assert_int_equal(heat_add(h, 1e300, 2), 0);
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), 0);
	/* Histograms: columns of their smallest step, 1 s here. */
	heat_free(h);
	h = heat_new();
	assert_int_equal(heat_add_bucket(h, 0, 4, 8, 1), 0);
	assert_int_equal(heat_add_bucket(h, 1, 4, 8, 1), 0);
	assert_int_equal(heat_add_bucket(h, 1e12, 4, 8, 1), 0);
	assert_int_equal(heat_svg(h, &o, null, why, sizeof(why)), -2);
	assert_string_equal(why, "the times span 1e+12 s: 1000000000001 columns of 1 s, more than "
				 "20000: columns of 1e+08 s or wider would fit");
	heat_free(h);
	fclose(null);
}

/*
 * Log rows run from 2^-40 to 2^64: a value past them is in the last row, which says so
 * ("and above", "above 0, below"), and the axis shows no bound there that is not one.
 */
static void test_heat_log_ends(void **state)
{
	(void)state;
	struct heat *h = heat_new();
	assert_int_equal(heat_add(h, 0, 1e-300), 0);
	assert_int_equal(heat_add(h, 0, 1), 0);
	assert_int_equal(heat_add(h, 0, 1e300), 0);
	struct heat_opts o = {.width = 1};
	int rc;
	char *svg = svg_of(h, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "<title>0 s to 1 s, 1.84467e+19 and above: 1</title>"));
	assert_non_null(strstr(svg, "<title>0 s to 1 s, above 0, below 1.81899e-12: 1</title>"));
	assert_non_null(strstr(svg, "<title>0 s to 1 s, 1 to 2: 1</title>"));
	assert_null(strstr(svg, ">9.09495e-13</text>")); /* 2^-40: not a bound here */
	assert_null(strstr(svg, ">3.68935e+19</text>")); /* 2^65: nor this */
	heat_free(h);
	/* Within the rows: both bounds shown. */
	h = heat_new();
	assert_int_equal(heat_add(h, 0, 0x1p-40), 0);
	assert_int_equal(heat_add(h, 0, 0x1p64), 0);
	svg = svg_of(h, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "<title>0 s to 1 s, 9.09495e-13 to 1.81899e-12: 1</title>"));
	assert_non_null(strstr(svg, "<title>0 s to 1 s, 1.84467e+19 to 3.68935e+19: 1</title>"));
	assert_non_null(strstr(svg, ">3.68935e+19</text>"));
	heat_free(h);
}

/* The SVG of f with o, in memory. */
static char *flame_of(struct flame *f, const struct flame_opts *o)
{
	static char buf[1 << 16];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(m);
	assert_int_equal(flame_svg(f, o, m), 0);
	fclose(m);
	return buf;
}

/*
 * a;b 2, a;c 1, x 1 (x before a: sorted by name either way): 4 samples over 1180 px, 295
 * each. Depth 2 at most: height 50 + 3 * 16 + 36 = 134; the root ("all") at y = 82, its
 * children at 66, theirs at 50; in icicle mode the root at 50 and down from there.
 */
static void test_flame_frames(void **state)
{
	(void)state;
	struct flame *f = flame_new();
	assert_int_equal(flame_add_line(f, "x 1\n", 4), FLAME_TAKEN);
	assert_int_equal(flame_add_line(f, "a;b 2\n", 6), FLAME_TAKEN);
	assert_int_equal(flame_add_line(f, "a;c 1", 5), FLAME_TAKEN);
	/* What flamegraph.pl leaves out too: no white space and count at the end. */
	static const char *const bad[] = {"a;b",  "a 1x", "a;b 1 ", "a 1e3",  "a -1",  "a .5",
					  "a +1", "5",	  "a 0x10", "a 1..2", "a\t1 ", "a 1\v"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(flame_add_line(f, bad[i], strlen(bad[i])), FLAME_NO_COUNT);
	assert_int_equal(flame_add_line(f, "\n", 1), FLAME_BLANK);
	assert_int_equal(flame_add_line(f, " \t\r\n", 4), FLAME_BLANK);
	assert_true(flame_total(f) == 4);
	flame_free(f);
	f = flame_new();
	assert_int_equal(flame_add_line(f, "x 1\n", 4), 0);
	assert_int_equal(flame_add_line(f, "a;b 2\n", 6), 0);
	assert_int_equal(flame_add_line(f, "a;c 1", 5), 0);
	assert_true(flame_total(f) == 4);
	struct flame_opts o = {0};
	char *svg = flame_of(f, &o);
	assert_non_null(strstr(svg, "height=\"134\""));
	assert_non_null(strstr(svg, "data-name=\"all\"><title>all (4 samples, 100.00%)</title>"
				    "<rect x=\"10.00\" y=\"82.0\" width=\"1180.00\""));
	assert_non_null(strstr(svg, "data-name=\"a\"><title>a (3 samples, 75.00%)</title>"
				    "<rect x=\"10.00\" y=\"66.0\" width=\"885.00\""));
	assert_non_null(strstr(svg, "data-name=\"b\"><title>b (2 samples, 50.00%)</title>"
				    "<rect x=\"10.00\" y=\"50.0\" width=\"590.00\""));
	assert_non_null(strstr(svg, "data-name=\"c\"><title>c (1 samples, 25.00%)</title>"
				    "<rect x=\"600.00\" y=\"50.0\" width=\"295.00\""));
	assert_non_null(strstr(svg, "data-name=\"x\"><title>x (1 samples, 25.00%)</title>"
				    "<rect x=\"895.00\" y=\"66.0\" width=\"295.00\""));
	o.icicle = true;
	svg = flame_of(f, &o);
	assert_non_null(strstr(svg, "<rect x=\"10.00\" y=\"50.0\" width=\"1180.00\""));
	assert_non_null(strstr(svg, "<rect x=\"600.00\" y=\"82.0\" width=\"295.00\""));
	flame_free(f);
}

/* A frame as flame_svg writes it: depth, samples, name. */
static bool has_frame(const char *svg, int depth, const char *n, const char *name)
{
	char want[256];
	snprintf(want, sizeof(want), "data-d=\"%d\" data-n=\"%s\" data-name=\"%s\">", depth, n,
		 name);
	return strstr(svg, want);
}

/*
 * Lines flamegraph.pl takes, taken the same way (each checked against its output, at
 * FlameGraph 41fee1f): white space before the count is any of Perl's \s (a tab, two
 * spaces: the first is the last frame's; U+00A0 and U+3000 in UTF-8), counts with a
 * fraction, empty frames (trailing ones dropped), no frame at all, difffolded.pl's two
 * counts (the second drawn), the count 2^64 - 1. Before, each of them was "not folded
 * stacks".
 */
static void test_flame_like_flamegraph_pl(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"t;tab\t2\n",
		"t;two  3\n",
		"e;;b 1\n",
		";lead 2\n",
		"trail;; 4\n",
		" 5\n",
		"f 1.5\n",
		"f 0.25\n",
		"d;x 1 7\n",
		"crlf 1\r\n",
		"nb;p\xc2\xa0"
		"3\n",
		"id;q\xe3\x80\x80"
		"4\n",
	};
	struct flame *f = flame_new();
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(flame_add_line(f, lines[i], strlen(lines[i])), FLAME_TAKEN);
	char buf[48];
	assert_string_equal(flame_count_text(flame_total(f), buf), "33.75");
	static char svg[1 << 16];
	FILE *m = fmemopen(svg, sizeof(svg), "w");
	struct flame_opts o = {.width = 100000};
	assert_int_equal(flame_svg(f, &o, m), 0);
	fclose(m);
	assert_true(has_frame(svg, 0, "33.75", "all"));
	assert_true(has_frame(svg, 1, "5", "t"));
	assert_true(has_frame(svg, 2, "2", "tab"));
	assert_true(has_frame(svg, 2, "3", "two "));
	assert_true(has_frame(svg, 1, "1", "e"));
	assert_true(has_frame(svg, 2, "1", ""));
	assert_true(has_frame(svg, 3, "1", "b"));
	assert_true(has_frame(svg, 1, "2", ""));
	assert_true(has_frame(svg, 2, "2", "lead"));
	assert_true(has_frame(svg, 1, "4", "trail"));
	assert_false(has_frame(svg, 2, "4", "")); /* trail's empty frames: none */
	assert_true(has_frame(svg, 1, "1.75", "f"));
	assert_true(has_frame(svg, 1, "7", "d"));
	assert_true(has_frame(svg, 2, "7", "x"));
	assert_true(has_frame(svg, 1, "1", "crlf"));
	assert_true(has_frame(svg, 2, "3", "p"));
	assert_true(has_frame(svg, 2, "4", "q"));
	assert_non_null(strstr(svg, ">33.75 samples;"));
	flame_free(f);

	/* Exact up to 2^64; past it, a long double's 64 bits; past its range, left out. */
	f = flame_new();
	assert_int_equal(flame_add_line(f, "u 18446744073709551615", 22), FLAME_TAKEN);
	assert_string_equal(flame_count_text(flame_total(f), buf), "18446744073709551615");
	assert_int_equal(flame_add_line(f, "v 1", 3), FLAME_TAKEN);
	assert_string_equal(flame_count_text(flame_total(f), buf), "18446744073709551616");
	assert_int_equal(flame_add_line(f, "w 18446744073709551615", 22), FLAME_TAKEN);
	assert_string_equal(flame_count_text(flame_total(f), buf), "3.68934881474191032e+19");
	char *big = malloc(4940);
	assert_non_null(big);
	memcpy(big, "c 6", 3);
	memset(big + 3, '0', 4931); /* 6e4931: once is a long double, twice is not */
	assert_int_equal(flame_add_line(f, big, 4934), FLAME_TAKEN);
	assert_int_equal(flame_add_line(f, big, 4934), FLAME_COUNT_TOO_LARGE);
	memset(big + 2, '9', 4937); /* 9.99e4936: not even once */
	assert_int_equal(flame_add_line(f, big, 4939), FLAME_COUNT_TOO_LARGE);
	free(big);
	flame_free(f);
}

/* Stacks of any depth: 100,000 frames taken and drawn (without recursion, which would
 * overflow the stack), each frame one row higher. */
static void test_flame_deep(void **state)
{
	(void)state;
	enum { DEPTH = 100000 };
	char *line = malloc(2 * DEPTH + 8);
	assert_non_null(line);
	for (int i = 0; i < DEPTH; i++)
		memcpy(line + 2 * i, "a;", 2);
	memcpy(line + 2 * DEPTH - 1, " 3", 3);
	struct flame *f = flame_new();
	assert_int_equal(flame_add_line(f, line, strlen(line)), FLAME_TAKEN);
	assert_int_equal(flame_add_line(f, "a 1", 3), FLAME_TAKEN);
	free(line);
	char *svg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&svg, &len);
	struct flame_opts o = {0};
	assert_int_equal(flame_svg(f, &o, m), 0);
	fclose(m);
	char want[64];
	snprintf(want, sizeof(want), "height=\"%d\"", 50 + (DEPTH + 1) * 16 + 36);
	assert_non_null(strstr(svg, want));
	assert_true(has_frame(svg, 1, "4", "a"));
	assert_true(has_frame(svg, DEPTH, "3", "a"));
	assert_int_equal(count_of(svg, "<g class=\"f\""), DEPTH + 1);
	free(svg);
	flame_free(f);
}

/* Names with XML's special characters, kernel frames (_[k]: shown without it, marked),
 * labels cut to their frame's width. */
static void test_flame_names(void **state)
{
	(void)state;
	struct flame *f = flame_new();
	const char *l1 = "a<b>&'\"c;do_sys_open_[k] 1";
	assert_int_equal(flame_add_line(f, l1, strlen(l1)), 0);
	char long_line[200];
	snprintf(long_line, sizeof(long_line), "%s;%s 99", "a<b>&'\"c",
		 "a_very_long_function_name_that_cannot_fit_in_its_frame_xxxxxxxxxxxxxxxxxxxx");
	assert_int_equal(flame_add_line(f, long_line, strlen(long_line)), 0);
	struct flame_opts o = {.title = "t<&>", .width = 300};
	char *svg = flame_of(f, &o);
	assert_non_null(strstr(svg, ">t&lt;&amp;&gt;</text>"));
	assert_non_null(strstr(svg, "data-name=\"a&lt;b&gt;&amp;&apos;&quot;c\">"));
	assert_non_null(strstr(svg, "data-k=\"1\" data-name=\"do_sys_open\"><title>do_sys_open "
				    "[kernel] (1 samples, 1.00%)"));
	assert_null(strstr(svg, "_[k]"));
	/* 280 px * 99 / 100 = 277.2 px: (277.2 - 6) / 7 = 38 characters, 36 and ".." */
	assert_non_null(strstr(svg, ">a_very_long_function_name_that_canno..</text>"));
	flame_free(f);
}

/* The folded lines of text into a new graph. */
static struct flame *folded(const char *text)
{
	struct flame *f = flame_new();
	assert_non_null(f);
	for (const char *p = text, *e; *p; p = e + 1) {
		e = strchr(p, '\n');
		assert_int_equal(flame_add_line(f, p, (size_t)(e - p)), FLAME_TAKEN);
	}
	return f;
}

/* The frame named name of a differential graph: its tooltip and its fill, as written. */
static bool diff_frame(const char *svg, const char *name, const char *title, const char *fill)
{
	char want[320];
	snprintf(want, sizeof(want), "data-name=\"%s\"><title>%s %s</title><rect ", name, name,
		 title);
	const char *at = strstr(svg, want), *gt = at ? strchr(at + strlen(want), '>') : NULL;
	if (!gt)
		return false;
	snprintf(want, sizeof(want), "fill=\"%s\"", fill);
	const char *f = strstr(at, want);
	return f && f < gt;
}

/*
 * A differential graph: BEFORE has 8 samples, AFTER 10, so BEFORE's counts are scaled by
 * 1.25; the colour's v is 230 - 160|r|. a: self 2 (2.5 scaled) to 4, r = 1.5 / 4 = 0.375,
 * red rgb(255, 170, 170); b: 2.5 to 1, r = -1.5 / 2.5 = -0.6, blue rgb(134, 134, 255); c:
 * 1.25 to 1.25, grey; d: new, r = 1, the deepest red (v = 70); m: no self samples in
 * either, grey; e's caller c2 lost its self samples to it: the deepest blue. x;y (2 of 8)
 * only in BEFORE: not drawn, said in the subtitle. Unscaled, a is 2 to 4 (r = 0.5: 150)
 * and c 1 to 1.25 (r = 0.2: 198).
 */
static void test_flame_diff(void **state)
{
	(void)state;
	struct flame *b = folded("m;a 2\nm;b 2\nm;c 1\nm;c2 1\nx;y 2\n"),
		     *a = folded("m;a 4\nm;b 1\nm;c 1.25\nm;d 2.5\nm;c2;e 1.25\n");
	struct flame_opts o = {.before = b};
	char *svg = flame_of(a, &o);
	assert_non_null(strstr(svg, ">Differential flame graph</text>"));
	assert_non_null(strstr(svg,
			       ">10 samples; before 8 (scaled by 1.25); red: more self samples, "
			       "blue: fewer; 2.5 of before (25.00%) on paths gone: not "
			       "drawn</text>"));
	assert_true(diff_frame(svg, "a",
			       "(after 4, before 2.5, +1.5 samples, +60.0%; self: after 4, "
			       "before 2.5, +1.5)",
			       "rgb(255,170,170)"));
	assert_true(diff_frame(svg, "b",
			       "(after 1, before 2.5, -1.5 samples, -60.0%; self: after 1, "
			       "before 2.5, -1.5)",
			       "rgb(134,134,255)"));
	assert_true(diff_frame(svg, "c",
			       "(after 1.25, before 1.25, 0 samples, +0.0%; self: after 1.25, "
			       "before 1.25, 0)",
			       "rgb(230,230,230)"));
	assert_true(diff_frame(svg, "d",
			       "(after 2.5, before 0, +2.5 samples, new; self: after 2.5, "
			       "before 0, +2.5)",
			       "rgb(255,70,70)"));
	assert_true(diff_frame(svg, "c2",
			       "(after 1.25, before 1.25, 0 samples, +0.0%; self: after 0, "
			       "before 1.25, -1.25)",
			       "rgb(70,70,255)"));
	assert_true(diff_frame(svg, "m",
			       "(after 10, before 7.5, +2.5 samples, +33.3%; self: after 0, "
			       "before 0, 0)",
			       "rgb(230,230,230)"));
	/* the widths are AFTER's: a 4 of 10 samples of 1180 px */
	assert_non_null(strstr(svg, "data-n=\"4\" data-name=\"a\">"));
	assert_non_null(strstr(svg, "width=\"472.00\" height=\"15\" fill=\"rgb(255,170,170)\""));
	assert_null(strstr(svg, "data-name=\"x\""));
	assert_null(strstr(svg, "data-name=\"y\""));
	o.unscaled = true;
	svg = flame_of(a, &o);
	assert_non_null(strstr(svg, ">10 samples; before 8 (not scaled); red: more self samples, "
				    "blue: fewer; 2 of before (25.00%) on paths gone: not "
				    "drawn</text>"));
	assert_true(diff_frame(svg, "a",
			       "(after 4, before 2, +2 samples, +100.0%; self: after 4, before 2, "
			       "+2)",
			       "rgb(255,150,150)"));
	assert_true(diff_frame(svg, "c",
			       "(after 1.25, before 1, +0.25 samples, +25.0%; self: after 1.25, "
			       "before 1, +0.25)",
			       "rgb(255,198,198)"));
	/* Nothing gone: no word of it. */
	o.before = a;
	svg = flame_of(a, &o);
	assert_non_null(strstr(svg, ">10 samples; before 10 (not scaled); red: more self "
				    "samples, blue: fewer</text>"));
	assert_true(diff_frame(svg, "a",
			       "(after 4, before 4, 0 samples, +0.0%; self: after 4, before 4, 0)",
			       "rgb(230,230,230)"));
	flame_free(b);
	/* Counts past 1e15 scaled: 18 digits, not 2 decimals (once past the 48-byte buffer,
	 * found by fuzz_pictures). */
	b = folded("a 3\nb 1\n");
	struct flame *big =
		folded("a 1000000000000000000000000000000000000000000000000000000000000\n");
	o = (struct flame_opts){.before = b};
	svg = flame_of(big, &o);
	assert_non_null(strstr(svg, "<title>a (after 1e+60, before 7.5e+59, +2.5e+59 samples, "
				    "+33.3%; self: after 1e+60, before 7.5e+59, +2.5e+59)"));
	flame_free(big);
	char buf[48];
	assert_string_equal(flame_diff_colour(0, 0, buf), "rgb(230,230,230)");
	assert_string_equal(flame_diff_colour(3, 1, buf), "rgb(123,123,255)");
	assert_string_equal(flame_diff_colour(1, 3, buf), "rgb(255,123,123)");
	flame_free(a);
	flame_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_heat_cells),
		cmocka_unit_test(test_heat_outlier),
		cmocka_unit_test(test_heat_beyond),
		cmocka_unit_test(test_heat_span),
		cmocka_unit_test(test_heat_log_ends),
		cmocka_unit_test(test_flame_frames),
		cmocka_unit_test(test_flame_like_flamegraph_pl),
		cmocka_unit_test(test_flame_deep),
		cmocka_unit_test(test_flame_names),
		cmocka_unit_test(test_flame_diff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
