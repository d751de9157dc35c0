// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* strerrorname_np: glibc 2.32 */
#include "base/out.h"
#include "base/sig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char outbuf[1 << 16];
static bool closed, failed, tables;
static int64_t mono_to_real;
static const char *out_tool = "ftrace-tools";
static int stdout_before = STDOUT_FILENO; /* what fd 1 was before -o */

static void write_failed(int err)
{
	if (!failed)
		fprintf(stderr, "%s: cannot write the output: %s\n", out_tool, strerror(err));
	failed = closed = true;
}

/* exit() with a write error pending on stdout (-h or -l to /dev/full): status 1. */
static void check_at_exit(void)
{
	if (closed && !failed)
		return; /* EPIPE: the reader went away, which is not a failure */
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout) && !failed)
		return;
	if (errno == EPIPE)
		_exit(0);
	write_failed(errno ? errno : EIO);
	_exit(1);
}

void out_check_stdio(const char *tool)
{
	out_tool = tool;
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int null = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (null != fd && null >= 0) {
			dup2(null, fd);
			close(null);
		}
		if (fd == STDOUT_FILENO) {
			fprintf(stderr, "%s: standard output is closed\n", tool);
			exit(1);
		}
	}
	atexit(check_at_exit);
}

void out_init(void)
{
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* One thread writes: no lock taken on each of a flood's writes. */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
}

int out_flush(void)
{
	if (closed)
		return failed ? -1 : 1;
	sig_blocking_begin(); /* a second Ctrl-C while a stalled pipe blocks us ends the run */
	int ret = fflush(stdout);
	int e = errno;
	sig_blocking_end();
	if (ret == 0)
		return 0;
	if (e == EPIPE) {
		closed = true;
		sig_request_stop();
		return 1;
	}
	write_failed(e);
	sig_request_stop();
	return -1;
}

bool out_closed(void)
{
	return closed;
}

bool out_failed(void)
{
	return failed;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF are not UTF-8. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Printable as it is: UTF-8 beyond ASCII, or ASCII from '!' to '~' but the backslash, and
 * the space where spaces may stay. Anything else is \xNN. Runs of plain ASCII go out in one
 * fwrite (this is on the per-event path). Returns the columns used. */
static int text(FILE *f, const unsigned char *s, size_t n, bool spaces)
{
	int col = 0;
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && ((s[run] > ' ' && s[run] < 0x7f && s[run] != '\\') ||
				   (spaces && s[run] == ' ')))
			run++;
		if (run > i) {
			fwrite(s + i, 1, run - i, f);
			col += (int)(run - i);
			i = run;
			continue;
		}
		size_t len = utf8_len(s + i, n - i);
		if (len > 1) {
			fwrite(s + i, 1, len, f);
			col++;
		} else {
			fprintf(f, "\\x%02x", s[i]);
			col += 4;
			len = 1;
		}
		i += len;
	}
	return col;
}

size_t out_text_buf(char *buf, size_t size, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strnlen(str, max), o = 0;
	for (size_t i = 0; i < n && o + 5 < size;) {
		size_t len = utf8_len(s + i, n - i);
		if (len == 1 && s[i] > ' ' && s[i] < 0x7f && s[i] != '\\') {
			buf[o++] = (char)s[i];
		} else if (len > 1 && o + len < size) {
			memcpy(buf + o, s + i, len);
			o += len;
		} else {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", s[i]);
			len = 1;
		}
		i += len;
	}
	buf[o] = 0;
	return o;
}

void out_xml(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(s + i, n - i);
		/* U+FFFE and U+FFFF are UTF-8 but not XML characters. */
		if (len == 3 && s[i] == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe)
			len = 0;
		switch (len == 1 ? s[i] : 0) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((len == 1 && s[i] >= ' ' && s[i] < 0x7f && s[i] != '\\') || len > 1) {
				fwrite(s + i, 1, len, f);
			} else {
				fprintf(f, "\\x%02x", s[i]);
				len = 1;
			}
		}
		i += len;
	}
}

void out_text(FILE *f, const char *str, size_t max, int width)
{
	for (int col = text(f, (const unsigned char *)str, strnlen(str, max), false); col < width;
	     col++)
		putc(' ', f);
}

void out_text_line(FILE *f, const char *s, size_t len)
{
	text(f, (const unsigned char *)s, len, true);
}

size_t out_text_line_buf(char *dst, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if ((s[i] >= ' ' && s[i] < 0x7f && s[i] != '\\')) {
			dst[o++] = (char)s[i++];
			continue;
		}
		size_t len = utf8_len(s + i, n - i);
		if (len > 1) {
			memcpy(dst + o, s + i, len);
			o += len;
			i += len;
			continue;
		}
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[s[i] >> 4];
		dst[o++] = hex[s[i] & 15];
		i++;
	}
	return o;
}

/* Characters a shell takes as part of a word, quoted or not. */
static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_@%+=:,./-", c));
}

void out_text_arg(FILE *f, const char *str, size_t n, bool quote)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (!quote && i < n && (plain(s[i]) || s[i] >= 0x80)) {
		size_t len = s[i] >= 0x80 ? utf8_len(s + i, n - i) : 1;
		if (!len)
			break;
		i += len;
	}
	if (n && i == n) {
		fwrite(s, 1, n, f);
		return;
	}
	putc('"', f);
	for (i = 0; i < n;) {
		size_t len = utf8_len(s + i, n - i);
		if (s[i] == '"' || s[i] == '\\') {
			putc('\\', f);
			putc(s[i], f);
		} else if (len > 1 || (len == 1 && s[i] >= ' ' && s[i] < 0x7f)) {
			fwrite(s + i, 1, len, f);
		} else {
			fprintf(f, "\\x%02x", s[i]);
			len = 1;
		}
		i += len;
	}
	putc('"', f);
}

size_t out_json_bytes_buf(char *dst, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;
	dst[o++] = '"';
	for (size_t i = 0; i < n;) {
		/* A run of plain ASCII at once (names and paths, on the per-event path). */
		size_t run = i;
		while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		if (run > i) {
			memcpy(dst + o, s + i, run - i);
			o += run - i;
			i = run;
			continue;
		}
		size_t len = utf8_len(s + i, n - i);
		if (len > 1) {
			memcpy(dst + o, s + i, len);
			o += len;
			i += len;
			continue;
		}
		unsigned char c = s[i++];
		dst[o++] = '\\';
		if (len == 0) { /* not UTF-8: the byte, surrogate-escaped */
			memcpy(dst + o, "udc", 3);
			o += 3;
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		} else if (c == '"' || c == '\\') {
			dst[o++] = (char)c;
		} else if (c == '\n') {
			dst[o++] = 'n';
		} else if (c == '\t') {
			dst[o++] = 't';
		} else { /* control characters and DEL */
			memcpy(dst + o, "u00", 3);
			o += 3;
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	dst[o++] = '"';
	return o;
}

void out_json_bytes(FILE *f, const char *str, size_t n)
{
	/* Through out_json_bytes_buf, a slice at a time: a slice ends before a byte that
	 * starts a character (never inside a UTF-8 sequence, which would read as invalid). */
	char buf[6 * 1024 + 2];
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	do {
		size_t k = n - i > 1024 ? i + 1024 : n, c = k;
		while (c < n && c > i && (s[c] & 0xc0) == 0x80)
			c--;
		if (c > i) /* else 1024 continuation bytes: none of them starts a character */
			k = c;
		size_t len = out_json_bytes_buf(buf, str + i, k - i);
		/* Its quotes only around the whole string. */
		fwrite(buf + (i ? 1 : 0), 1, len - (i ? 1 : 0) - (k < n ? 1 : 0), f);
		i = k;
	} while (i < n);
}

void out_json_str(FILE *f, const char *str, size_t max)
{
	out_json_bytes(f, str, strnlen(str, max));
}

void out_clock_init(void)
{
	struct timespec m, r;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	mono_to_real = ((int64_t)r.tv_sec - m.tv_sec) * 1000000000LL + (r.tv_nsec - m.tv_nsec);
}

const char *out_wallclock(uint64_t mono_ns, char buf[16])
{
	/* The same second as the event before (a flood): its text again, not localtime's. */
	static bool have;
	static time_t last;
	static char text[16];
	time_t t = (time_t)(((int64_t)mono_ns + mono_to_real) / 1000000000LL);
	if (!have || t != last) {
		have = true;
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(text, sizeof(text), "%H:%M:%S", &tm);
		last = t;
	}
	memcpy(buf, text, sizeof(text));
	return buf;
}

char *out_udec(char *end, unsigned long long v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

char *out_dec(char *end, long long v)
{
	char *d = out_udec(end, v < 0 ? -(unsigned long long)v : (unsigned long long)v);
	if (v < 0)
		*--d = '-';
	return d;
}

char *out_hex(char *end, unsigned long long v)
{
	do
		*--end = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	return end;
}

void out_none(FILE *f, const char *what)
{
	fprintf(f, "(no %s)\n", what);
}

const char *out_errname(long long code, char buf[32])
{
	static const char *const restart[] = {"ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND",
					      NULL, "ERESTART_RESTARTBLOCK"};
	if (code >= 512 && code <= 516 && restart[code - 512])
		snprintf(buf, 32, "%s", restart[code - 512]);
	else if (code > 0 && code < 4096 && strerrorname_np((int)code))
		snprintf(buf, 32, "%s", strerrorname_np((int)code));
	else
		snprintf(buf, 32, "E%lld", code);
	return buf;
}

size_t out_seconds_buf(char *dst, uint64_t ns)
{
	/* Half a microsecond and more rounds up, as the kernel's trace file and libtraceevent
	 * do (ns + 500, then the division): the same digits as trace-cmd report's. */
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);
	char buf[48], *end = buf + sizeof(buf), *d = out_udec(end, us % 1000000);
	while (end - d < 6)
		*--d = '0';
	*--d = '.';
	d = out_udec(d, us / 1000000);
	memcpy(dst, d, (size_t)(end - d));
	return (size_t)(end - d);
}

void out_seconds(FILE *f, uint64_t ns)
{
	char buf[48];
	fwrite(buf, 1, out_seconds_buf(buf, ns), f);
}

void out_table_gap(FILE *f)
{
	if (tables)
		putc('\n', f);
	tables = true;
}

int out_close(void)
{
	int ret = closed ? (failed ? -1 : 0) : out_flush();
	if (ret < 0)
		return -1;
	/* The reader sees the end now, not after the instance is removed (tens of ms): fd 1
	 * becomes /dev/null, so nothing written later can fail or reach it. */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return 0;
}

int out_to_file(const char *path, const char *tool)
{
	/* Not through a link (root writes where the name points, perhaps not where its user
	 * thought); a FIFO without a reader is an error, not a wait. */
	int fd = *path ? open(path,
			      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
			      0644) :
			 (errno = ENOENT, -1);
	if (fd < 0) {
		int e = errno;
		struct stat lst;
		if (e == ELOOP && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			fprintf(stderr, "%s: -o: '%s' is a link: not written through (remove it)\n",
				tool, path);
		else
			fprintf(stderr, "%s: -o: cannot write '%s': %s\n", tool, path, strerror(e));
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	int before = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (before < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "%s: -o: cannot write '%s': %s\n", tool, path, strerror(errno));
		if (before >= 0)
			close(before);
		close(fd);
		return -1;
	}
	close(fd);
	stdout_before = before;
	return 0;
}

int out_stdout_before(void)
{
	return stdout_before;
}
