// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* asprintf */
#include "stream/record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

int record_check(const char *path, const char *tool)
{
	char dir[PATH_MAX];
	struct stat st;
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	if (!*path || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		fprintf(stderr, "%s: --record: '%s' is a folder, not a file to write\n", tool,
			path);
		return -1;
	}
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		fprintf(stderr, "%s: --record: '%s' is a link: not written through (remove it)\n",
			tool, path);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "%s: --record: cannot write in %s: %s\n", tool, dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

int record_open(struct record *r, const char *path, int ncpus, size_t page, const char *tool)
{
	memset(r, 0, sizeof(*r));
	r->tool = tool;
	r->page = page;
	r->ncpus = ncpus;
	r->path = strdup(path);
	r->fd = calloc((size_t)ncpus, sizeof(*r->fd));
	r->tmp = calloc((size_t)ncpus, sizeof(*r->tmp));
	if (!r->path || !r->fd || !r->tmp) {
		fprintf(stderr, "%s: --record: out of memory\n", tool);
		return -1;
	}
	for (int i = 0; i < ncpus; i++)
		r->fd[i] = -1;
	for (int i = 0; i < ncpus; i++) {
		if (asprintf(&r->tmp[i], "%s.cpu%d", path, i) < 0) {
			r->tmp[i] = NULL;
			fprintf(stderr, "%s: --record: out of memory\n", tool);
			return -1;
		}
		/* Unnamed where the file system allows it (nothing is left if the run is killed),
		 * else named; O_EXCL: never through someone's link or over their file. */
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = 0;
		else
			snprintf(dir, sizeof(dir), ".");
		r->fd[i] = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
		if (r->fd[i] >= 0) {
			free(r->tmp[i]);
			r->tmp[i] = NULL;
			continue;
		}
		r->fd[i] = open(r->tmp[i], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (r->fd[i] < 0) {
			fprintf(stderr, "%s: --record: cannot make %s: %s\n", tool, r->tmp[i],
				strerror(errno));
			free(r->tmp[i]);
			r->tmp[i] = NULL;
			return -1;
		}
	}
	return 0;
}

static void write_failed(struct record *r, const char *what)
{
	if (!r->failed)
		fprintf(stderr, "%s: --record: cannot write %s: %s\n", r->tool, what,
			strerror(errno));
	r->failed = true;
}

void record_page(struct record *r, int cpu, const char *page, size_t len)
{
	if (cpu < 0 || cpu >= r->ncpus || r->fd[cpu] < 0 || r->failed)
		return;
	static char zero[65536];
	if (write(r->fd[cpu], page, len) != (ssize_t)len ||
	    (len < r->page && r->page - len <= sizeof(zero) &&
	     write(r->fd[cpu], zero, r->page - len) != (ssize_t)(r->page - len))) {
		write_failed(r, r->tmp[cpu] ? r->tmp[cpu] : "a CPU's pages");
		return;
	}
	r->pages++;
}

/* --- the trace.dat file ------------------------------------------------------------------- */

static bool put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n;
}
static bool put_u16(FILE *f, uint16_t v)
{
	return put(f, &v, 2);
}
static bool put_u32(FILE *f, uint32_t v)
{
	return put(f, &v, 4);
}
static bool put_u64(FILE *f, uint64_t v)
{
	return put(f, &v, 8);
}

/* A tracefs file whole (NULL: an empty one). */
static char *tracing_file(const char *name, size_t *len)
{
	int n = 0;
	char *text = tracefs_instance_file_read(NULL, name, &n);
	*len = text && n > 0 ? (size_t)n : 0;
	return text;
}

/* "name\0", an 8-byte size, the text: header_page, header_event. */
static bool put_header_file(FILE *f, const char *name, const char *file)
{
	size_t len;
	char *text = tracing_file(file, &len);
	bool ok = put(f, name, strlen(name) + 1) && put_u64(f, len) && (!len || put(f, text, len));
	free(text);
	return ok;
}

static char *event_format(const struct tep_event *ev, size_t *len)
{
	int n = 0;
	char *text = tracefs_event_file_read(NULL, ev->system, ev->name, "format", &n);
	*len = text && n > 0 ? (size_t)n : 0;
	return text;
}

/* The formats: the ftrace system's first (count, then size and text each), then every other
 * system (count; per system its name, count, and size and text each). */
static bool put_formats(FILE *f, struct tep_handle *tep)
{
	int n = tep_get_events_count(tep);
	struct tep_event **ev = calloc((size_t)(n ? n : 1), sizeof(*ev));
	int k = 0;
	for (int i = 0; ev && i < n; i++) {
		size_t len;
		char *text = event_format(tep_get_event(tep, i), &len);
		if (text && len) /* an event the kernel no longer has is left out */
			ev[k++] = tep_get_event(tep, i);
		free(text);
	}
	if (!ev)
		return false;
	bool ok = true;
	uint32_t nftrace = 0;
	for (int i = 0; i < k; i++)
		nftrace += !strcmp(ev[i]->system, "ftrace");
	ok &= put_u32(f, nftrace);
	for (int i = 0; ok && i < k; i++) {
		if (strcmp(ev[i]->system, "ftrace"))
			continue;
		size_t len;
		char *text = event_format(ev[i], &len);
		ok &= put_u64(f, len) && put(f, text, len);
		free(text);
	}
	/* Systems in the order first met. */
	uint32_t nsys = 0;
	for (int i = 0; i < k; i++) {
		bool first = strcmp(ev[i]->system, "ftrace");
		for (int j = 0; first && j < i; j++)
			first = strcmp(ev[j]->system, ev[i]->system);
		nsys += first;
	}
	ok &= put_u32(f, nsys);
	for (int i = 0; ok && i < k; i++) {
		bool first = strcmp(ev[i]->system, "ftrace");
		for (int j = 0; first && j < i; j++)
			first = strcmp(ev[j]->system, ev[i]->system);
		if (!first)
			continue;
		uint32_t count = 0;
		for (int j = i; j < k; j++)
			count += !strcmp(ev[j]->system, ev[i]->system);
		ok &= put(f, ev[i]->system, strlen(ev[i]->system) + 1) && put_u32(f, count);
		for (int j = i; ok && j < k; j++) {
			if (strcmp(ev[j]->system, ev[i]->system))
				continue;
			size_t len;
			char *text = event_format(ev[j], &len);
			ok &= put_u64(f, len) && put(f, text, len);
			free(text);
		}
	}
	free(ev);
	return ok;
}

/* A whole file of /proc or tracefs with a 4- or 8-byte size before it. */
static bool put_sized(FILE *f, const char *path, bool tracing, int width)
{
	char *text = NULL;
	size_t len = 0;
	if (tracing) {
		text = tracing_file(path, &len);
	} else {
		FILE *in = fopen(path, "r");
		size_t cap = 0;
		ssize_t n = in ? getdelim(&text, &cap, '\0', in) : -1;
		len = n > 0 ? (size_t)n : 0;
		if (in)
			fclose(in);
	}
	bool ok = (width == 4 ? put_u32(f, (uint32_t)len) : put_u64(f, len)) &&
		  (!len || put(f, text, len));
	free(text);
	return ok;
}

/* The options section: the trace clock's (its id in trace-cmd's list of options, 4). The
 * option holds what tracefs's trace_clock file shows, the clock in brackets; the clock is
 * said again after the CPUs' offsets (record_finish). */
#define RECORD_OPTION_DONE 0
#define RECORD_OPTION_TRACECLOCK 4
static bool put_options(FILE *f, const char *bracketed)
{
	return put(f, "options  ", 10) && put_u16(f, RECORD_OPTION_TRACECLOCK) &&
	       put_u32(f, (uint32_t)strlen(bracketed) + 1) &&
	       put(f, bracketed, strlen(bracketed) + 1) && put_u16(f, RECORD_OPTION_DONE);
}

int record_finish(struct record *r, struct tep_handle *tep, const char *clock)
{
	/* "[mono]": as trace_clock shows the clock in use, as trace-cmd reads it back. */
	char bracketed[64] = "";
	if (clock && *clock && strlen(clock) + 3 <= sizeof(bracketed))
		snprintf(bracketed, sizeof(bracketed), "[%s]", clock);
	if (r->failed) {
		record_abort(r);
		return -1;
	}
	/* Never through a link someone made at that name. */
	int fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		write_failed(r, r->path);
		record_abort(r);
		return -1;
	}
	/* The initial format: magic, "tracing", version "6", little endian, user long size,
	 * page size. */
	static const char magic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '6', 0};
	uint8_t endian = 0, lsize = (uint8_t)sizeof(long);
	bool ok = put(f, magic, sizeof(magic)) && put(f, &endian, 1) && put(f, &lsize, 1) &&
		  put_u32(f, (uint32_t)r->page) &&
		  put_header_file(f, "header_page", "events/header_page") &&
		  put_header_file(f, "header_event", "events/header_event") &&
		  put_formats(f, tep) && put_sized(f, "/proc/kallsyms", false, 4) &&
		  put_sized(f, "printk_formats", true, 4) &&
		  put_sized(f, "saved_cmdlines", true, 8) && put_u32(f, (uint32_t)r->ncpus) &&
		  (!*bracketed || put_options(f, bracketed)) && put(f, "flyrecord", 10);
	/* Each CPU's offset and size, the clock again (its size, then the text, with no
	 * '\0': trace-cmd reads it there when the option is present), then the data,
	 * page-aligned. */
	size_t clen = strlen(bracketed);
	long table = ftell(f);
	uint64_t at = (uint64_t)table + 16 * (uint64_t)r->ncpus + (clen ? 8 + clen : 0);
	at = (at + r->page - 1) / r->page * r->page;
	for (int i = 0; ok && i < r->ncpus; i++) {
		off_t size = lseek(r->fd[i], 0, SEEK_END);
		ok &= size >= 0 && put_u64(f, at) && put_u64(f, (uint64_t)size);
		at += (uint64_t)size;
	}
	if (ok && clen)
		ok &= put_u64(f, clen) && put(f, bracketed, clen);
	static char buf[1 << 16];
	for (long pos = ftell(f); ok && pos >= 0 && (uint64_t)pos % r->page; pos++)
		ok &= put(f, "", 1);
	for (int i = 0; ok && i < r->ncpus; i++) {
		lseek(r->fd[i], 0, SEEK_SET);
		ssize_t n;
		while (ok && (n = read(r->fd[i], buf, sizeof(buf))) > 0)
			ok &= put(f, buf, (size_t)n);
	}
	if (fclose(f) || !ok) {
		write_failed(r, r->path);
		record_abort(r);
		return -1;
	}
	r->path[0] = 0; /* kept */
	record_abort(r);
	return 0;
}

void record_abort(struct record *r)
{
	for (int i = 0; r->tmp && i < r->ncpus; i++) {
		if (r->fd && r->fd[i] >= 0)
			close(r->fd[i]);
		if (r->tmp[i])
			unlink(r->tmp[i]);
		free(r->tmp[i]);
	}
	if (r->path && r->path[0] && r->failed)
		unlink(r->path);
	free(r->tmp);
	free(r->fd);
	free(r->path);
	memset(r, 0, sizeof(*r));
}
