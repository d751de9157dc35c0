// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/out.h"

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
	buf[0] = 0; /* fmemopen writes no NUL when nothing is written */
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

/* The first time asked for is the second before the epoch (-1): its time, not the empty
 * text of a cache taken for filled (run first, before any other time is asked for). */
static void test_wallclock_first(void **state)
{
	(void)state;
	char buf[16], want[16];
	time_t t = -1;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(want, sizeof(want), "%H:%M:%S", &tm);
	/* mono_to_real is 0 before out_clock_init: -1e9 ns is second -1. */
	out_wallclock((uint64_t)-1000000000LL, buf);
	assert_string_equal(buf, want);
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

/* The buffer variant of out_text_line writes the same bytes. */
static void test_text_line_buf(void **state)
{
	(void)state;
	const char *in[] = {"pid=5 file=a b",	"file=x\ny", "\x1b[2J", "a\\b",
			    "caf\xc3\xa9 \xff", "\xe2\x82",  "",	"\x7f\x01 ~"};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		size_t n = strlen(in[i]);
		char buf[128];
		size_t len = out_text_line_buf(buf, in[i], n);
		assert_true(len <= 4 * n);
		buf[len] = 0;
		assert_string_equal(buf, line(in[i], n));
	}
}

static char *seconds(uint64_t ns)
{
	static char out[64];
	FILE *f = fmemopen(out, sizeof(out), "w");
	assert_non_null(f);
	out_seconds(f, ns);
	fclose(f);
	return out;
}

/* Seconds to six decimals, a half microsecond and more rounded up as the kernel's trace file
 * and libtraceevent round (ns + 500, divided; here in 128 bits), near a half microsecond and
 * at uptimes of years. */
static void test_seconds(void **state)
{
	(void)state;
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t ns = x >> (i % 40);
		if (i % 4 == 0) /* at a half microsecond, give or take a few ns */
			ns = ns / 1000 * 1000 + 495 + x % 11;
		unsigned long long us = (unsigned long long)(((unsigned __int128)ns + 500) / 1000);
		char want[64];
		snprintf(want, sizeof(want), "%llu.%06llu", us / 1000000, us % 1000000);
		if (strcmp(seconds(ns), want)) {
			print_error("%llu ns: %s, want %s\n", (unsigned long long)ns, seconds(ns),
				    want);
			fail();
		}
	}
	assert_string_equal(seconds(0), "0.000000");
	assert_string_equal(seconds(499), "0.000000");
	assert_string_equal(seconds(500), "0.000001");
	assert_string_equal(seconds(999999500), "1.000000");
	assert_string_equal(seconds(10283657875500ULL), "10283.657876");
	assert_string_equal(seconds(10283657875499ULL), "10283.657875");
	assert_string_equal(seconds(173092338600), "173.092339");
	assert_string_equal(seconds(UINT64_MAX), "18446744073.709552");
}

/* The buffer variant of out_json_bytes, and the FILE one through it a slice at a time, on
 * random bytes of every length up to 5,000 (UTF-8 sequences, invalid bytes, quotes, control
 * characters), against the escaping done here byte by byte from the rules. */
static size_t json_ref(char *dst, const unsigned char *s, size_t n)
{
	size_t o = 0;
	dst[o++] = '"';
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = 0;
		uint32_t cp = 0;
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		for (size_t j = 1; len && j < len; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80) {
				len = 0;
				break;
			}
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			len = 0;
		if (len) {
			memcpy(dst + o, s + i, len);
			o += len, i += len;
		} else if (c >= 0x80) {
			o += (size_t)sprintf(dst + o, "\\udc%02x", c), i++;
		} else if (c == '"' || c == '\\') {
			dst[o++] = '\\', dst[o++] = (char)c, i++;
		} else if (c == '\n') {
			dst[o++] = '\\', dst[o++] = 'n', i++;
		} else if (c == '\t') {
			dst[o++] = '\\', dst[o++] = 't', i++;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)sprintf(dst + o, "\\u%04x", c), i++;
		} else {
			dst[o++] = (char)c, i++;
		}
	}
	dst[o++] = '"';
	return o;
}

static void test_json_slices(void **state)
{
	(void)state;
	static unsigned char in[5000];
	static char want[6 * 5000 + 2], got[6 * 5000 + 2], file[6 * 5000 + 64];
	static const unsigned char pieces[][4] = {{'a'},
						  {0xc3, 0xa9},
						  {0xe2, 0x82, 0xac},
						  {0xf0, 0x9f, 0x98, 0x80},
						  {0x80},
						  {0xff},
						  {'"'},
						  {'\\'},
						  {'\n'},
						  {1},
						  {0x7f},
						  {0xe2, 0x82}};
	static const size_t plen[] = {1, 2, 3, 4, 1, 1, 1, 1, 1, 1, 1, 2};
	uint64_t x = 0x243f6a8885a308d3ULL;
	for (size_t n = 0; n < sizeof(in); n += n < 40 ? 1 : 97) {
		for (size_t i = 0; i < n;) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t k = x % 12;
			for (size_t j = 0; j < plen[k] && i < n; j++)
				in[i++] = pieces[k][j];
		}
		size_t w = json_ref(want, in, n);
		assert_int_equal(out_json_bytes_buf(got, (const char *)in, n), w);
		assert_memory_equal(got, want, w);
		FILE *f = fmemopen(file, sizeof(file), "w");
		out_json_bytes(f, (const char *)in, n);
		long len = ftell(f);
		fclose(f);
		assert_int_equal(len, (long)w);
		assert_memory_equal(file, want, w);
	}
}

static void test_digits(void **state)
{
	(void)state;
	char buf[32], *end = buf + sizeof(buf) - 1;
	*end = 0;
	assert_string_equal(out_dec(end, -9223372036854775807LL - 1), "-9223372036854775808");
	assert_string_equal(out_dec(end, 0), "0");
	assert_string_equal(out_dec(end, -1), "-1");
	assert_string_equal(out_udec(end, 18446744073709551615ULL), "18446744073709551615");
	assert_string_equal(out_hex(end, 0), "0");
	assert_string_equal(out_hex(end, 0xdeadbeefcafe0123ULL), "deadbeefcafe0123");
}

/* -o FILE: made 0644 or emptied, fd 1 then the file, the old fd 1 kept for --exec's command;
 * a link, a folder or a missing folder refused with fd 1 unchanged. */
static void test_to_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/ftt-test-out.XXXXXX", path[128], link[128], missing[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(missing, sizeof(missing), "%s/none/out", dir);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	struct stat before, st;
	assert_int_equal(fstat(STDOUT_FILENO, &before), 0);

	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old contents\n", 13), 13);
	close(fd);
	assert_int_equal(symlink(path, link), 0);
	int err = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);
	assert_true(err >= 0 && null >= 0);
	dup2(null, STDERR_FILENO); /* the refusals' lines */
	close(null);
	assert_int_equal(out_to_file(link, "test"), -1);
	assert_int_equal(out_to_file(dir, "test"), -1);
	assert_int_equal(out_to_file(missing, "test"), -1);
	assert_int_equal(out_to_file("", "test"), -1);
	assert_int_equal(fstat(STDOUT_FILENO, &st), 0);
	assert_true(st.st_ino == before.st_ino && st.st_dev == before.st_dev);
	assert_int_equal(out_stdout_before(), STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(err);

	unlink(path); /* made anew: 0644 whatever the umask leaves */
	mode_t mask = umask(022);
	assert_int_equal(out_to_file(path, "test"), 0);
	umask(mask);
	assert_int_equal(write(STDOUT_FILENO, "new\n", 4), 4);
	int old = out_stdout_before();
	assert_true(old > 2);
	assert_int_equal(fstat(old, &st), 0);
	assert_true(st.st_ino == before.st_ino && st.st_dev == before.st_dev);
	assert_true(fcntl(old, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(st.st_size, 4);
	/* An existing file is emptied. */
	assert_int_equal(out_to_file(path, "test"), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);

	dup2(saved, STDOUT_FILENO);
	close(saved);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

/* Error names: the C library's, the kernel's restart codes, a number for the rest. */
static void test_errname(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(out_errname(5, b), "EIO");
	assert_string_equal(out_errname(11, b), "EAGAIN");
	assert_string_equal(out_errname(512, b), "ERESTARTSYS");
	assert_string_equal(out_errname(516, b), "ERESTART_RESTARTBLOCK");
	assert_string_equal(out_errname(515, b), "E515");
	assert_string_equal(out_errname(4000, b), "E4000");
	assert_string_equal(out_errname(-3, b), "E-3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wallclock_first), cmocka_unit_test(test_text_plain),
		cmocka_unit_test(test_text_escapes),	cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_text_line),	cmocka_unit_test(test_wallclock),
		cmocka_unit_test(test_text_arg),	cmocka_unit_test(test_text_line_buf),
		cmocka_unit_test(test_seconds),		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_json_slices),	cmocka_unit_test(test_to_file),
		cmocka_unit_test(test_errname),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
