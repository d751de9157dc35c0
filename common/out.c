#include "out.h"
#include "session.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static char outbuf[1 << 16];
static int closed;
static int64_t mono_to_real;

void out_init(void)
{
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
}

int out_flush(void)
{
	if (closed)
		return 1;
	if (fflush(stdout) == 0)
		return 0;
	if (errno != EPIPE)
		fprintf(stderr, "write error on standard output: %s\n", strerror(errno));
	closed = 1;
	session_request_stop();
	return 1;
}

int out_closed(void)
{
	return closed;
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

void out_text(FILE *f, const char *str, size_t max, int width)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strnlen(str, max);
	int col = 0;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(s + i, n - i);
		if (len == 1 && s[i] > ' ' && s[i] < 0x7f && s[i] != '\\') {
			putc(s[i], f);
			col++;
		} else if (len > 1) {
			fwrite(s + i, 1, len, f);
			col++;
		} else {
			fprintf(f, "\\x%02x", s[i]);
			col += 4;
			len = 1;
		}
		i += len;
	}
	for (; col < width; col++)
		putc(' ', f);
}

void out_json_str(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strnlen(str, max);
	putc('"', f);
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(s + i, n - i);
		if (len > 1) {
			fwrite(s + i, 1, len, f);
			i += len;
			continue;
		}
		unsigned char c = s[i++];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
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
	time_t t = (time_t)(((int64_t)mono_ns + mono_to_real) / 1000000000LL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, 16, "%H:%M:%S", &tm);
	return buf;
}
