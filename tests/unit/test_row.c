// SPDX-License-Identifier: GPL-2.0-only
/* Rows from one declaration (row.h): the header, the text line and the JSON object. */
#include "helpers.h"

#include "base/out.h"
#include "base/row.h"

#include <sys/utsname.h>

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "name"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "pid"},
	{"LATms", "lat_ms", 8, ROW_FLOAT, 3, 0, "latency"},
	{"ADDR", "addr", -18, ROW_HEX, 0, ROW_OPTIONAL, "an address"},
	{NULL, "error", 0, ROW_INT, 0, ROW_NOTEXT, "error"},
	{"ARGS", "args", -4, ROW_TEXT, 0, 0, "free text"},
};
static const struct row_table table = ROW_TABLE("test lines", cols);

/* One line written to a memory file: what the row printed. */
static char *line(bool json, bool ts, bool addr, const char *comm, size_t len, long long pid)
{
	static char buf[4096];
	memset(buf, 0, sizeof(buf));
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	struct row r;
	row_init(&r, &table, f, json, ts, false);
	row_show(&r, "addr", addr);
	row_header(&r);
	row_begin(&r, 1500000000ULL);
	row_bytes(&r, comm, len);
	row_int(&r, pid);
	row_float(&r, 1.5);
	row_hex(&r, 0xffffffffffffffffULL);
	row_int(&r, -5);
	row_str(&r, "a b\nc", 16);
	row_end(&r);
	fclose(f);
	return buf;
}

static void test_text(void **state)
{
	(void)state;
	out_clock_init();
	assert_string_equal(line(false, false, false, "dd", 2, 42),
			    "COMM                 PID    LATms ARGS\n"
			    "dd                    42    1.500 a b\\x0ac\n");
	/* -t and an optional column turned on; a name with a space stays one token */
	assert_string_equal(
		line(false, true, true, "a b", 3, -1),
		"TIME(s)        COMM                 PID    LATms ADDR               ARGS\n"
		"1.500000       a\\x20b                -1    1.500 0xffffffffffffffff a b\\x0ac\n");
}

/* The last column is a string as long as it comes: a path of 3000 bytes is not cut. */
static void test_long_last(void **state)
{
	(void)state;
	static const struct row_col two[] = {
		{"PID", "pid", 7, ROW_INT, 0, 0, "pid"},
		{"PATH", "path", -4, ROW_STR, 0, 0, "a path"},
	};
	static const struct row_table t2 = ROW_TABLE("paths", two);
	static char buf[8192], path[3001];
	memset(path, 'p', 3000);
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	struct row r;
	row_init(&r, &t2, f, false, false, false);
	row_begin(&r, 0);
	row_int(&r, 1);
	row_str(&r, path, sizeof(path));
	row_end(&r);
	fclose(f);
	assert_int_equal(strlen(buf), 8 + 3000 + 1);
	assert_memory_equal(buf + 8, path, 3000);
}

static void test_json(void **state)
{
	(void)state;
	char *s = line(true, false, false, "x\"\xff", 3, 7);
	/* every key, whatever the text shows; strings exact; hex as a string */
	assert_non_null(strstr(s, "{\"ts\":1.500000,\"time\":\""));
	assert_non_null(
		strstr(s, "\",\"comm\":\"x\\\"\\udcff\",\"pid\":7,\"lat_ms\":1.500,"
			  "\"addr\":\"0xffffffffffffffff\",\"error\":-5,\"args\":\"a b\\nc\"}\n"));
	assert_null(strstr(s, "COMM")); /* no header in JSON */
}

/* A line the tool ends early: the object stays whole, the missing columns null. */
static void test_short_line(void **state)
{
	(void)state;
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	struct row r;
	row_init(&r, &table, f, true, false, false);
	row_begin(&r, 0);
	row_str(&r, "a", 1);
	row_end(&r);
	fclose(f);
	assert_non_null(strstr(buf, "\"comm\":\"a\",\"pid\":null,\"lat_ms\":null,\"addr\":null,"
				    "\"error\":null,\"args\":null}\n"));
}

/* A value the tool writes as JSON (a histogram): in the object as written, nothing in text. */
static void test_json_value(void **state)
{
	(void)state;
	static const struct row_col hcols[] = {
		{"NAME", "name", -4, ROW_STR, 0, 0, "name"},
		{NULL, "hist", 0, ROW_JSON, 0, 0, "a histogram"},
		{"N", "count", 3, ROW_UINT, 0, 0, "count"},
	};
	static const struct row_table htable = ROW_TABLE("histograms", hcols);
	for (int json = 0; json < 2; json++) {
		char buf[512] = "";
		FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
		struct row r;
		row_init(&r, &htable, f, json, false, false);
		row_header(&r);
		row_begin(&r, 0);
		row_str(&r, "a", 1);
		FILE *v = row_json(&r);
		if (v)
			fputs("[{\"low\":1}]", v);
		row_uint(&r, 5);
		row_end(&r);
		fclose(f);
		assert_int_equal(!!v, json);
		assert_string_equal(buf,
				    json ? "{\"name\":\"a\",\"hist\":[{\"low\":1}],\"count\":5}\n" :
					   "NAME   N\na      5\n");
	}
}

/* A text column the tool writes itself, with its JSON counterpart: each only in its form;
 * then the tool's own lines after the text line, or members inside the JSON object. */
static void test_own_text(void **state)
{
	(void)state;
	static const struct row_col tcols[] = {
		{"PID", "pid", 3, ROW_INT, 0, 0, "pid"},
		{"ARGS", NULL, 0, ROW_TEXT, 0, ROW_NOJSON, NULL},
		{NULL, "args", 0, ROW_JSON, 0, ROW_NOTEXT, "the arguments"},
	};
	static const struct row_table ttable = ROW_TABLE("own text", tcols);
	for (int json = 0; json < 2; json++) {
		char buf[512] = "";
		FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
		struct row r;
		row_init(&r, &ttable, f, json, false, false);
		row_header(&r);
		row_begin(&r, 0);
		row_int(&r, 7);
		FILE *t = row_text(&r);
		if (t)
			fputs("a \"b c\" [cut]", t);
		FILE *v = row_json(&r);
		if (v)
			fputs("[\"a\",\"b c\"]", v);
		/* then what the tool writes after the line, or inside the object (a stack) */
		row_end_open(&r);
		fputs(json ? ",\"stack\":[\"f\"]" : " => f\n", f);
		row_close(&r);
		fclose(f);
		assert_int_equal(!!t, !json);
		assert_int_equal(!!v, json);
		assert_string_equal(
			buf, json ? "{\"pid\":7,\"args\":[\"a\",\"b c\"],\"stack\":[\"f\"]}\n" :
				    "PID ARGS\n  7 a \"b c\" [cut]\n => f\n");
	}
}

/* --tag: the members at the end of every JSON object, the text line as it was. */
static void test_tag(void **state)
{
	(void)state;
	static const struct row_col tcols[] = {{"PID", "pid", 3, ROW_INT, 0, 0, NULL}};
	static const struct row_table ttable = ROW_TABLE("tagged", tcols);
	char why[128], buf[1024], want[1024];
	struct utsname u;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(row_tag("host,bogus", why, sizeof(why)), -1);
	assert_string_equal(why, "'bogus' is not a tag (host, kernel)");
	assert_int_equal(row_tag(",", why, sizeof(why)), -1);
	assert_int_equal(row_tag("kernel,host", why, sizeof(why)), 0);
	for (int json = 0; json < 2; json++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");
		struct row r;
		row_init(&r, &ttable, f, json, false, false);
		row_begin(&r, 0);
		row_int(&r, 7);
		row_end(&r);
		fclose(f);
		/* uname's strings: nothing to escape on a test machine */
		snprintf(want, sizeof(want), "{\"pid\":7,\"host\":\"%s\",\"kernel\":\"%s\"}\n",
			 u.nodename, u.release);
		assert_string_equal(buf, json ? want : "  7\n");
	}
	assert_int_equal(row_tag("kernel", why, sizeof(why)), 0);
	snprintf(want, sizeof(want), ",\"kernel\":\"%s\"", u.release);
	assert_string_equal(row_tags, want);
	row_tags_len = 0;
	row_tags[0] = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),	   cmocka_unit_test(test_long_last),
		cmocka_unit_test(test_json),	   cmocka_unit_test(test_short_line),
		cmocka_unit_test(test_json_value), cmocka_unit_test(test_own_text),
		cmocka_unit_test(test_tag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
