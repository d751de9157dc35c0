// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: ring-buffer pages as the reader gets them from trace_pipe_raw, decoded with
 * the real formats of Linux 6.18 (tests/fixtures: the block events, and the sched, syscalls
 * and task events), every event printed as tpoint prints it, as text and as JSON. The first
 * input byte picks the formats and the output; the rest is CPU 0's pages, as many as it
 * holds. Property: no crash, no hang, no read outside a record; each JSON line is one valid
 * JSON object in valid UTF-8, each text line valid UTF-8 without control characters.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracefs.h>

#include "stream/evprint.h"
#include "fuzz.h"
#include "stream/reader.h"

struct set {
	char dir[64];
	struct tep_handle *tep;
};
static struct set sets[2];

static void make_set(struct set *st, const char *fixture, const char *const *systems)
{
	snprintf(st->dir, sizeof(st->dir), "/tmp/ftt-fuzz-page.%d.XXXXXX", (int)getpid());
	NEED(mkdtemp(st->dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/events", st->dir);
	NEED(symlink(fixture, path) == 0);
	snprintf(path, sizeof(path), "%s/per_cpu", st->dir);
	NEED(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/per_cpu/cpu0", st->dir);
	NEED(mkdir(path, 0700) == 0);
	st->tep = fixture_tep(st->dir, (const char **)systems);
	NEED(st->tep);
}

static void cleanup(void)
{
	char cmd[128];
	for (int i = 0; i < 2; i++)
		if (sets[i].dir[0]) {
			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sets[i].dir);
			if (system(cmd))
				continue;
		}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	static const char *const block[] = {"block", NULL};
	static const char *const proc[] = {"sched", "syscalls", "task", NULL};
	make_set(&sets[0], FIXTURES "/block-6.18/events", block);
	make_set(&sets[1], FIXTURES "/proc-6.18/events", proc);
	atexit(cleanup);
	fuzz_capture_stdout();
	return 0;
}

static void on_event(struct tep_record *rec, void *ctx)
{
	evprint_event(ctx, rec, "fuzz\x01\xff");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 64 * 4096)
		return 0;
	struct set *st = &sets[data[0] & 1];
	bool json = data[0] & 2, ordered = data[0] & 4;
	char path[256];
	snprintf(path, sizeof(path), "%s/per_cpu/cpu0/trace_pipe_raw", st->dir);
	FILE *f = fopen(path, "w");
	NEED(f && fwrite(data + 1, 1, size - 1, f) == size - 1 && fclose(f) == 0);

	struct evprint *ep = evprint_new(st->tep, json, false);
	NEED(ep);
	struct reader r;
	NEED(reader_open(&r, st->tep, st->dir, 4096, ordered) == 0);
	int nev = tep_get_events_count(st->tep);
	struct tep_event **all = tep_list_events(st->tep, TEP_EVENT_SORT_ID);
	for (int i = 0; i < nev; i++)
		NEED(reader_on(&r, all[i], on_event, ep) == 0);
	(void)reader_drain(&r);
	reader_close(&r);
	evprint_free(ep);
	fuzz_check_stdout(json);
	return 0;
}
