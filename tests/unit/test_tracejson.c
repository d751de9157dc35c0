// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "count/tracejson.h"
#include "domain/blk.h"

#include <sys/stat.h>

static char dir[] = "/tmp/test_tracejson.XXXXXX";

static char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_us(void **state)
{
	(void)state;
	char b[32];
	assert_int_equal(tracejson_us(b, 0), 5);
	assert_string_equal(b, "0.000");
	tracejson_us(b, 1234567);
	assert_string_equal(b, "1234.567");
	tracejson_us(b, 1000);
	assert_string_equal(b, "1.000");
	tracejson_us(b, UINT64_MAX);
	assert_string_equal(b, "18446744073709551.615");
}

/* The whole file of a run: events, names written once and again when they change, hostile
 * strings escaped as -j escapes them; nothing at FILE until the commit. */
static void test_file(void **state)
{
	(void)state;
	char path[256], tmp[300];
	snprintf(path, sizeof(path), "%s/t.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	struct tracejson tj;
	assert_int_equal(tracejson_open(&tj, path, "t"), 0);
	assert_int_equal(access(tmp, F_OK), 0);
	assert_int_equal(access(path, F_OK), -1);
	tracejson_process_name(&tj, 10, "proc", 16);
	tracejson_thread_name(&tj, 10, 11, "a\"b\\c\nd", 16);
	tracejson_thread_name(&tj, 10, 11, "a\"b\\c\nd", 16); /* the same: not again */
	/* A kernel's comm of 16 bytes without a NUL, a byte that is not UTF-8, a control. */
	const char comm[16] = "0123456789abcdef";
	tracejson_thread_name(&tj, 10, 12, comm, sizeof(comm));
	tracejson_span_begin(&tj, 10, 11, "x\xff\x01", 16, "wait", 1500, 2001);
	tracejson_arg_str(&tj, "comm", "\xc3\xa9t\xc3", 16);
	tracejson_arg_int(&tj, "error", -5);
	tracejson_arg_uint(&tj, "bytes", 4096);
	tracejson_span_end(&tj);
	tracejson_span_begin(&tj, 10, 12, "y", 16, "wait", 0, 0);
	tracejson_span_end(&tj);
	tracejson_thread_name(&tj, 10, 11, "renamed", 16); /* changed: written again */
	tracejson_counter(&tj, 10, "io", 3000, "count", -2);
	static const char *const series[] = {"reads", "a\"b"};
	const long long v[] = {7, 0};
	tracejson_counters(&tj, 10, "vfs", 4000, series, v, 2);
	assert_int_equal(tj.spans, 2);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(tracejson_commit(&tj), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_string_equal(
		slurp(path),
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":10,\"tid\":0,\"args\":{\"name\":"
		"\"proc\"}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":11,\"args\":{\"name\":"
		"\"a\\\"b\\\\c\\nd\"}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":12,\"args\":{\"name\":"
		"\"0123456789abcdef\"}},\n"
		"{\"ph\":\"X\",\"name\":\"x\\udcff\\u0001\",\"cat\":\"wait\",\"ts\":1.500,"
		"\"dur\":2.001,\"pid\":10,\"tid\":11,\"args\":{\"comm\":\"\xc3\xa9t\\udcc3\","
		"\"error\":-5,\"bytes\":4096}},\n"
		"{\"ph\":\"X\",\"name\":\"y\",\"cat\":\"wait\",\"ts\":0.000,\"dur\":0.000,\"pid\":"
		"10,"
		"\"tid\":12,\"args\":{}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":11,\"args\":{\"name\":"
		"\"renamed\"}},\n"
		"{\"ph\":\"C\",\"name\":\"io\",\"ts\":3.000,\"pid\":10,\"tid\":0,\"args\":{"
		"\"count\":"
		"-2}},\n"
		"{\"ph\":\"C\",\"name\":\"vfs\",\"ts\":4.000,\"pid\":10,\"tid\":0,\"args\":{"
		"\"reads\":7,\"a\\\"b\":0}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"t\",\"clock\":\"mono\","
		"\"spans\":2}}\n");
	unlink(path);
}

/* An empty run is a valid file too; a 100 KB name is escaped whole. */
static void test_empty_and_long(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof(path), "%s/e.json", dir);
	struct tracejson tj;
	assert_int_equal(tracejson_open(&tj, path, "t"), 0);
	assert_int_equal(tracejson_commit(&tj), 0);
	assert_string_equal(slurp(path), "{\"traceEvents\":[\n],\"displayTimeUnit\":\"ns\","
					 "\"otherData\":{\"tool\":\"t\",\"clock\":\"mono\","
					 "\"spans\":0}}\n");
	size_t n = 100 * 1024;
	char *big = malloc(n + 1);
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = i % 3 == 0 ? '"' : i % 3 == 1 ? '\n' : '\xe9';
	big[n] = 0;
	assert_int_equal(tracejson_open(&tj, path, "t"), 0);
	tracejson_thread_name(&tj, 1, 1, big, n);
	assert_int_equal(tracejson_commit(&tj), 0);
	char *s = slurp(path);
	/* each third: \" \n \udce9 */
	assert_non_null(strstr(s, "\"args\":{\"name\":\"\\\"\\n\\udce9\\\"\\n\\udce9"));
	const char *head = "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"thread_name\","
			   "\"pid\":1,\"tid\":1,\"args\":{\"name\":\"",
		   *tail = "\"}}\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"t\","
			   "\"clock\":\"mono\",\"spans\":0}}\n";
	/* 34133 times \" \n \udce9, and one \" */
	assert_int_equal(strlen(s), strlen(head) + n / 3 * (2 + 2 + 6) + 2 + strlen(tail));
	assert_int_equal(strncmp(s, head, strlen(head)), 0);
	assert_string_equal(s + strlen(s) - strlen(tail), tail);
	free(big);
	/* A file that failed before its end (out of memory keeping its tracks): -1, FILE as it
	 * was, no FILE.tmp left (it was renamed over FILE all the same). */
	char tmp[300], *before = strdup(slurp(path));
	assert_non_null(before);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(tracejson_open(&tj, path, "t"), 0);
	tracejson_thread_name(&tj, 1, 1, "x", 1);
	tj.failed = true;
	assert_int_equal(tracejson_commit(&tj), -1);
	assert_string_equal(slurp(path), before);
	assert_int_equal(access(tmp, F_OK), -1);
	free(before);
	unlink(path);
}

/* Lanes: a span goes on the first lane whose spans all ended by its start, whatever order
 * they come in; pseudo PIDs by key, above every task's PID. */
static void test_lanes(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof(path), "%s/l.json", dir);
	struct tracejson tj;
	assert_int_equal(tracejson_open(&tj, path, "t"), 0);
	int a = tracejson_pseudo_pid(&tj, 0x800000);
	int b = tracejson_pseudo_pid(&tj, 0x800010);
	assert_int_equal(a, TRACEJSON_PID_BASE + 1);
	assert_int_equal(b, TRACEJSON_PID_BASE + 2);
	assert_int_equal(tracejson_pseudo_pid(&tj, 0x800000), a);
	assert_int_equal(tracejson_lane(&tj, a, 0, 10), 1);
	assert_int_equal(tracejson_lane(&tj, a, 5, 12), 2);  /* overlaps lane 1's */
	assert_int_equal(tracejson_lane(&tj, a, 10, 20), 1); /* lane 1 ended at 10 */
	assert_int_equal(tracejson_lane(&tj, a, 11, 13), 3); /* 1 to 20, 2 to 12 */
	assert_int_equal(tracejson_lane(&tj, a, 12, 14), 2);
	/* Out of order: ends before lane 2's latest, starts before it: a new lane, never
	 * a partial overlap with the span [5, 12) still on lane 2. */
	assert_int_equal(tracejson_lane(&tj, a, 1, 4), 4);
	assert_int_equal(tracejson_lane(&tj, b, 1, 4), 1); /* another device's lanes */
	assert_int_equal(tracejson_lane(&tj, 77, 1, 4), -1);
	assert_int_equal(tracejson_lane(&tj, TRACEJSON_PID_BASE + 3, 1, 4), -1);
	/* Many keys: the table grows and keeps them. */
	for (uint64_t k = 0; k < 1000; k++)
		assert_int_equal(tracejson_pseudo_pid(&tj, k + 1), TRACEJSON_PID_BASE + 3 + (int)k);
	assert_int_equal(tracejson_pseudo_pid(&tj, 500), TRACEJSON_PID_BASE + 3 + 499);
	tracejson_abort(&tj);
	assert_int_equal(access(path, F_OK), -1);
}

/* iosnoop's and biotop's I/O (blk_trace_json): a disk a pseudo process named as DEV, two I/O
 * that overlap on two lanes, a third after both on lane 1, another disk its own process; a
 * completion stamped before its start (clocks of two CPUs) a span of 0, not 2^64 ns. */
static void test_blk_io(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof(path), "%s/io.json", dir);
	struct tracejson tj;
	assert_int_equal(tracejson_open(&tj, path, "iosnoop"), 0);
	struct blk_io a = {.start_ns = 1000,
			   .end_ns = 3500,
			   .sector = 8,
			   .dev = 253u << 20,
			   .bytes = 4096,
			   .error = 0,
			   .pid = 42,
			   .comm = "dd",
			   .rwbs = "WS"};
	struct blk_io b = a, c = a, d = a, e = a;
	b.start_ns = 2000, b.end_ns = 4000, b.pid = 43, b.rwbs[0] = 'R', b.rwbs[1] = 0;
	c.start_ns = 5000, c.end_ns = 6000, c.error = -5;
	d.dev = 8u << 20 | 16;
	e.start_ns = 7000, e.end_ns = 6999;
	blk_trace_json(&tj, &a, "253,0");
	blk_trace_json(&tj, &b, "253,0");
	blk_trace_json(&tj, &c, "253,0");
	blk_trace_json(&tj, &d, "8,16");
	blk_trace_json(&tj, &e, "253,0");
	assert_int_equal(tj.spans, 5);
	assert_int_equal(tracejson_commit(&tj), 0);
	const char *want =
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4194305,\"tid\":0,\"args\":{"
		"\"name\":\"253,0\"}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4194305,\"tid\":1,\"args\":{"
		"\"name\":\"lane 1\"}},\n"
		"{\"ph\":\"X\",\"name\":\"WS\",\"cat\":\"io\",\"ts\":1.000,\"dur\":2.500,\"pid\":"
		"4194305,\"tid\":1,\"args\":{\"comm\":\"dd\",\"pid\":42,\"type\":\"WS\",\"dev\":"
		"\"253,0\",\"sector\":8,\"bytes\":4096,\"error\":0}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4194305,\"tid\":2,\"args\":{"
		"\"name\":\"lane 2\"}},\n"
		"{\"ph\":\"X\",\"name\":\"R\",\"cat\":\"io\",\"ts\":2.000,\"dur\":2.000,\"pid\":"
		"4194305,\"tid\":2,\"args\":{\"comm\":\"dd\",\"pid\":43,\"type\":\"R\",\"dev\":"
		"\"253,0\",\"sector\":8,\"bytes\":4096,\"error\":0}},\n"
		"{\"ph\":\"X\",\"name\":\"WS\",\"cat\":\"io\",\"ts\":5.000,\"dur\":1.000,\"pid\":"
		"4194305,\"tid\":1,\"args\":{\"comm\":\"dd\",\"pid\":42,\"type\":\"WS\",\"dev\":"
		"\"253,0\",\"sector\":8,\"bytes\":4096,\"error\":-5}},\n"
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4194306,\"tid\":0,\"args\":{"
		"\"name\":\"8,16\"}},\n"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4194306,\"tid\":1,\"args\":{"
		"\"name\":\"lane 1\"}},\n"
		"{\"ph\":\"X\",\"name\":\"WS\",\"cat\":\"io\",\"ts\":1.000,\"dur\":2.500,\"pid\":"
		"4194306,\"tid\":1,\"args\":{\"comm\":\"dd\",\"pid\":42,\"type\":\"WS\",\"dev\":"
		"\"8,16\",\"sector\":8,\"bytes\":4096,\"error\":0}},\n"
		"{\"ph\":\"X\",\"name\":\"WS\",\"cat\":\"io\",\"ts\":7.000,\"dur\":0.000,\"pid\":"
		"4194305,\"tid\":1,\"args\":{\"comm\":\"dd\",\"pid\":42,\"type\":\"WS\",\"dev\":"
		"\"253,0\",\"sector\":8,\"bytes\":4096,\"error\":0}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"iosnoop\",\"clock\":"
		"\"mono\",\"spans\":5}}\n";
	assert_string_equal(slurp(path), want);
	unlink(path);
}

/* An interval tool's counters: a pseudo process named as the tool, an event per interval,
 * zeros at the end. */
static void test_interval(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof(path), "%s/c.json", dir);
	struct tracejson tj;
	assert_int_equal(tracejson_open(&tj, path, "vfsstat"), 0);
	static const char *const series[] = {"reads", "writes"};
	tracejson_interval(&tj, 1000, series, (const long long[]){3, 4}, 2);
	tracejson_interval(&tj, 2000, series, NULL, 2);
	assert_int_equal(tracejson_commit(&tj), 0);
	assert_string_equal(
		slurp(path),
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4194305,\"tid\":0,\"args\":{"
		"\"name\":\"vfsstat\"}},\n"
		"{\"ph\":\"C\",\"name\":\"vfsstat\",\"ts\":1.000,\"pid\":4194305,\"tid\":0,"
		"\"args\":{\"reads\":3,\"writes\":4}},\n"
		"{\"ph\":\"C\",\"name\":\"vfsstat\",\"ts\":2.000,\"pid\":4194305,\"tid\":0,"
		"\"args\":{\"reads\":0,\"writes\":0}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"vfsstat\",\"clock\":"
		"\"mono\",\"spans\":0}}\n");
	unlink(path);
}

/* Refused at start, with nothing made: a folder, a link, a name ending in '/', a folder not
 * there; a FILE.tmp left by a killed run is replaced, a link there is not followed. */
static void test_refused(void **state)
{
	(void)state;
	struct tracejson tj;
	char path[256], tmp[300], target[300], link[300];
	assert_int_equal(tracejson_open(&tj, dir, "t"), -1);
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(tracejson_open(&tj, path, "t"), -1);
	assert_int_equal(tracejson_open(&tj, "", "t"), -1);
	snprintf(path, sizeof(path), "%s/none/x.json", dir);
	assert_int_equal(tracejson_open(&tj, path, "t"), -1);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	FILE *f = fopen(target, "w");
	assert_non_null(f);
	fputs("keep", f);
	fclose(f);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(tracejson_open(&tj, link, "t"), -1);
	assert_string_equal(slurp(target), "keep");
	/* FILE.tmp a link to target: removed, target untouched. */
	snprintf(path, sizeof(path), "%s/k.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(symlink(target, tmp), 0);
	assert_int_equal(tracejson_open(&tj, path, "t"), 0);
	assert_int_equal(tracejson_commit(&tj), 0);
	assert_string_equal(slurp(target), "keep");
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	unlink(path);
	unlink(link);
	unlink(target);
}

int main(void)
{
	assert_non_null(mkdtemp(dir));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_us),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_empty_and_long),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_blk_io),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_refused),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return r;
}
