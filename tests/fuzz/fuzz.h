/* SPDX-License-Identifier: GPL-2.0-only */
/* What the fuzz targets share: a property check that says which one broke, and quiet. */
#ifndef FTT_FUZZ_H
#define FTT_FUZZ_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

#include "stream/evprint.h"
#include "../fixture_tep.h"

/* stderr as it was (libFuzzer's and the sanitizers' reports), and /dev/null. */
static int fuzz_err_fd = 2, fuzz_null_fd = -1;

/* For code under test that prints (a usage error's message): fuzz_mute() sends stderr to
 * /dev/null until fuzz_unmute(); the sanitizers report to the saved stderr all along. */
static inline void fuzz_quiet_init(void)
{
	fuzz_err_fd = dup(2);
	fuzz_null_fd = open("/dev/null", O_WRONLY);
	__sanitizer_set_report_fd((void *)(long)fuzz_err_fd);
}
static inline void fuzz_mute(void)
{
	fflush(stderr);
	dup2(fuzz_null_fd, 2);
}
static inline void fuzz_unmute(void)
{
	fflush(stderr);
	dup2(fuzz_err_fd, 2);
}

#define NEED(cond)                                                                           \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			dprintf(fuzz_err_fd, "fuzz: %s:%d: property broken: %s\n", __FILE__, \
				__LINE__, #cond);                                            \
			fuzz_unmute();                                                       \
			abort();                                                             \
		}                                                                            \
	} while (0)

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. Written apart from
 * out.c's on purpose: an oracle that shares code with what it checks cannot catch its bugs. */
static inline size_t utf8_len(const unsigned char *p, size_t n)
{
	if (p[0] < 0x80)
		return 1;
	size_t len;
	uint32_t cp, min;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static inline bool valid_utf8(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = utf8_len(p + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

/* The strict JSON-lines checker of the live tests, as a library here. */
#define main jsoncheck_main
#define p jsoncheck_p
#define why jsoncheck_why
#include "../live/jsoncheck.c"
#undef main
#undef p
#undef why

/* stdout into a temporary file, for fuzz_check_stdout(). */
static inline void fuzz_capture_stdout(void)
{
	FILE *f = tmpfile();
	NEED(f && dup2(fileno(f), 1) == 1);
}

/* What the code under test printed since the last call: whole lines, valid UTF-8, and with
 * json each line one valid JSON object (tests/live/jsoncheck.c), else no control character. */
static inline void fuzz_check_stdout(bool json)
{
	fflush(stdout);
	long n = ftell(stdout);
	NEED(n >= 0);
	char *buf = malloc((size_t)n + 1);
	NEED(buf);
	NEED(pread(1, buf, (size_t)n, 0) == n);
	buf[n] = 0;
	NEED(n == 0 || buf[n - 1] == '\n');
	NEED(strlen(buf) == (size_t)n); /* no NUL byte printed */
	for (char *line = buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = 0;
		NEED(valid_utf8((unsigned char *)line, (size_t)(nl - line)));
		if (json) {
			jsoncheck_p = line;
			jsoncheck_why = NULL;
			ws();
			bool ok = *jsoncheck_p == '{' && value(0);
			ws();
			if (!ok || *jsoncheck_p)
				dprintf(fuzz_err_fd, "invalid JSON (%s): %s\n",
					jsoncheck_why ? jsoncheck_why : "?", line);
			NEED(ok && !*jsoncheck_p);
		} else {
			for (char *c = line; *c; c++)
				NEED((unsigned char)*c >= 0x20 && *c != 0x7f);
		}
	}
	free(buf);
	rewind(stdout);
	NEED(ftruncate(1, 0) == 0);
}

/* What was printed since the last call (malloc'd, NUL-terminated); the capture emptied. */
static inline char *fuzz_take_stdout(void)
{
	fflush(stdout);
	long n = ftell(stdout);
	NEED(n >= 0);
	char *buf = malloc((size_t)n + 1);
	NEED(buf);
	NEED(pread(1, buf, (size_t)n, 0) == n);
	buf[n] = 0;
	rewind(stdout);
	NEED(ftruncate(1, 0) == 0);
	return buf;
}

/* One record printed as the tools print it, as text and then as JSON, each checked; the
 * JSON object built in one buffer is the row's, byte for byte. */
static inline void fuzz_print_record(struct tep_handle *tep, struct tep_record *rec)
{
	char *fast = NULL;
	for (int json = 0; json < 3; json++) {
		evprint_json_by_row = json == 2;
		struct evprint *ep = evprint_new(tep, json > 0, false);
		NEED(ep);
		evprint_event(ep, rec, "fuzz");
		evprint_free(ep);
		if (json == 1)
			fast = fuzz_take_stdout();
		else if (json == 2) {
			char *row = fuzz_take_stdout();
			if (strcmp(fast, row))
				dprintf(fuzz_err_fd, "-j paths differ:\n%s%s", fast, row);
			NEED(!strcmp(fast, row));
			printf("%s", row);
			free(row);
		}
		if (json != 1)
			fuzz_check_stdout(json > 0);
	}
	evprint_json_by_row = false;
	free(fast);
}

#endif
