// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include <time.h>

#include "out.h"

static char *text(const char *s, size_t max, int width)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	out_text(f, s, max, width);
	fclose(f);
	return buf;
}

static char *json(const char *s, size_t max)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	out_json_str(f, s, max);
	fclose(f);
	return buf;
}

static char *line(const char *s, size_t len)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	out_text_line(f, s, len);
	fclose(f);
	return buf;
}

static char *jbytes(const char *s, size_t len)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	out_json_bytes(f, s, len);
	fclose(f);
	return buf;
}

static char *arg(const char *s, bool quote)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	out_text_arg(f, s, strlen(s), quote);
	fclose(f);
	return buf;
}

/* Arguments of a command line: one word each, never two, never confused with another. */
static void test_text_arg(void **state)
{
	(void)state;
	assert_string_equal(arg("/usr/bin/ls", false), "/usr/bin/ls");
	assert_string_equal(arg("--color=auto", false), "--color=auto");
	assert_string_equal(arg("caf\xc3\xa9", false), "caf\xc3\xa9");
	assert_string_equal(arg("ls", true), "\"ls\"");
	assert_string_equal(arg("", false), "\"\"");
	assert_string_equal(arg("a b", false), "\"a b\"");
	assert_string_equal(arg("say \"hi\"", false), "\"say \\\"hi\\\"\"");
	assert_string_equal(arg("a\\b", false), "\"a\\\\b\"");
	assert_string_equal(arg("x\ny", false), "\"x\\x0ay\"");
	assert_string_equal(arg("\x1b[2J", false), "\"\\x1b[2J\"");
	assert_string_equal(arg("*.c", false), "\"*.c\"");
	assert_string_equal(arg("$HOME", false), "\"$HOME\"");
	assert_string_equal(arg("bad\xff", false), "\"bad\\xff\"");
	/* A word that only looks like a marker the tools print is quoted: [...] */
	assert_string_equal(arg("[...]", false), "\"[...]\"");
}

static void test_text_plain(void **state)
{
	(void)state;
	assert_string_equal(text("dd", 16, 0), "dd");
	assert_string_equal(text("dd", 16, 6), "dd    ");
	assert_string_equal(text("kworker/1:1H", 16, 0), "kworker/1:1H");
	assert_string_equal(text("a-b-c", 16, 0), "a-b-c");
}

static void test_text_escapes(void **state)
{
	(void)state;
	/* One token per column: white space, backslash and control bytes are escaped. */
	assert_string_equal(text("my prog", 16, 0), "my\\x20prog");
	assert_string_equal(text("a\\b", 16, 0), "a\\x5cb");
	assert_string_equal(text("x\ny", 16, 0), "x\\x0ay");
	assert_string_equal(text("t\tz", 16, 0), "t\\x09z");
	assert_string_equal(text("\x7f", 16, 0), "\\x7f");
	/* Valid UTF-8 stays; invalid bytes do not. */
	assert_string_equal(text("caf\xc3\xa9", 16, 0), "caf\xc3\xa9");
	assert_string_equal(text("bad\xff\xc3", 16, 0), "bad\\xff\\xc3");
	assert_string_equal(text("\xc0\xaf", 16, 0), "\\xc0\\xaf");	     /* overlong */
	assert_string_equal(text("\xed\xa0\x80", 16, 0), "\\xed\\xa0\\x80"); /* surrogate */
	/* A field of the full width has no NUL: stop at max. */
	char full[4] = {'a', 'b', 'c', 'd'};
	assert_string_equal(text(full, 4, 0), "abcd");
	assert_string_equal(text(full, 2, 0), "ab");
}

static void test_json_escapes(void **state)
{
	(void)state;
	assert_string_equal(json("dd", 16), "\"dd\"");
	assert_string_equal(json("my prog", 16), "\"my prog\"");
	assert_string_equal(json("q\"b\\", 16), "\"q\\\"b\\\\\"");
	assert_string_equal(json("x\ny\tz\x01", 16), "\"x\\ny\\tz\\u0001\"");
	assert_string_equal(json("caf\xc3\xa9", 16), "\"caf\xc3\xa9\"");
	/* A byte that is not UTF-8 is \udcXX, so it differs from the character U+00XX
	 * (valid UTF-8, kept as it is): "\xe9" and "\xc3\xa9" must not look alike. */
	assert_string_equal(json("b\xff", 16), "\"b\\udcff\"");
	assert_string_equal(json("caf\xe9", 16), "\"caf\\udce9\"");
	assert_string_equal(json("\xc3\xa9\xe9", 16), "\"\xc3\xa9\\udce9\"");
	/* Exactly len bytes, NUL included (byte arrays). */
	assert_string_equal(jbytes("a\0b", 3), "\"a\\u0000b\"");
	assert_string_equal(json("\x7f", 16), "\"\\u007f\"");
	char full[3] = {'a', 'b', 'c'};
	assert_string_equal(json(full, 3), "\"abc\"");
}

/* Free text keeps its spaces but stays one line: an event's strings cannot split it or
 * reach the terminal as control sequences. */
static void test_text_line(void **state)
{
	(void)state;
	assert_string_equal(line("pid=5 file=a b", 14), "pid=5 file=a b");
	assert_string_equal(line("file=x\ny", 8), "file=x\\x0ay");
	assert_string_equal(line("\x1b[2J", 4), "\\x1b[2J");
	assert_string_equal(line("a\\b", 3), "a\\x5cb");
	assert_string_equal(line("caf\xc3\xa9 \xff", 7), "caf\xc3\xa9 \\xff");
}

static void test_wallclock(void **state)
{
	(void)state;
	out_clock_init();
	char buf[16];
	struct timespec m;
	clock_gettime(CLOCK_MONOTONIC, &m);
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char want[16];
	strftime(want, sizeof(want), "%H:%M:%S", &tm);
	out_wallclock((uint64_t)m.tv_sec * 1000000000ULL + (uint64_t)m.tv_nsec, buf);
	assert_int_equal(strlen(buf), 8);
	/* Same second, unless the test straddles a second boundary. */
	if (strcmp(buf, want)) {
		now = time(NULL);
		localtime_r(&now, &tm);
		strftime(want, sizeof(want), "%H:%M:%S", &tm);
	}
	assert_string_equal(buf, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_plain),   cmocka_unit_test(test_text_escapes),
		cmocka_unit_test(test_json_escapes), cmocka_unit_test(test_text_line),
		cmocka_unit_test(test_wallclock),    cmocka_unit_test(test_text_arg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
