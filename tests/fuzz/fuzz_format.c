// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: event formats as the tools use them. The real formats of tests/fixtures
 * (parsed once, by libtraceevent as the tools do) with their field layout changed by the
 * input (offsets, sizes, flags: what a format of another kernel or a broken one could
 * say), then one record of that event printed as tpoint prints it, text and JSON, and each
 * field on its own as the counting tools read it. Input: the event (1 byte), up to 8 field
 * changes (3 bytes each: field, what, value), a byte 0xff, then the record (its type is
 * set to the event's ID). The format text itself is not fuzzed: libtraceevent 1.7.1's
 * parser crashes on some broken texts (docs/hardening.md), and tools only parse the
 * kernel's. Property: no crash, no read outside the record; JSON valid, text one line.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "stream/evprint.h"
#include "stream/field.h"
#include "fuzz.h"

static struct tep_handle *teps[2];
static struct tep_event **events;
static int nevents;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_capture_stdout();
	static const char *const block[] = {"block", NULL};
	static const char *const proc[] = {"sched", "syscalls", "task", NULL};
	teps[0] = fixture_tep(FIXTURES "/block-6.18", (const char **)block);
	teps[1] = fixture_tep(FIXTURES "/proc-6.18", (const char **)proc);
	NEED(teps[0] && teps[1]);
	for (int t = 0; t < 2; t++) {
		int n = tep_get_events_count(teps[t]);
		struct tep_event **all = tep_list_events(teps[t], TEP_EVENT_SORT_ID);
		events = realloc(events, (size_t)(nevents + n) * sizeof(*events));
		NEED(events);
		for (int i = 0; i < n; i++)
			events[nevents++] = all[i];
	}
	return 0;
}

struct saved {
	struct tep_format_field *f;
	int offset, size, flags;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 8192)
		return 0;
	struct tep_event *ev = events[data[0] % nevents];
	struct tep_format_field *fields[64];
	int nf = 0;
	for (struct tep_format_field *f = ev->format.fields; f && nf < 64; f = f->next)
		fields[nf++] = f;
	size_t i = 1;
	struct saved saved[8];
	int nsaved = 0;
	while (nf && i + 3 <= size && data[i] != 0xff && nsaved < 8) {
		struct tep_format_field *f = fields[data[i] % nf];
		saved[nsaved++] = (struct saved){f, f->offset, f->size, (int)f->flags};
		int v = data[i + 2];
		switch (data[i + 1] % 3) {
		case 0: f->offset = v; break;
		case 1: f->size = v; break;
		case 2: f->flags ^= (unsigned long)1 << (v % 9); break;
		}
		i += 3;
	}
	if (i < size && data[i] == 0xff)
		i++;
	size_t rlen = size - i;
	unsigned char *rec_data = malloc(rlen + 2);
	NEED(rec_data);
	memcpy(rec_data, data + i, rlen);
	if (rlen >= 2) {
		uint16_t id = (uint16_t)ev->id;
		memcpy(rec_data, &id, 2);
		struct tep_record rec = {.data = rec_data, .size = (int)rlen, .ts = 1000000};
		struct tep_handle *tep = ev->tep;
		fuzz_print_record(tep, &rec);
		for (int k = 0; k < nf; k++) {
			struct field_desc d = field_describe(ev, fields[k]);
			size_t len;
			const void *v = field_data(&rec, fields[k], &d, &len);
			NEED(len == 0 || ((const unsigned char *)v >= rec_data &&
					  (const unsigned char *)v + len <= rec_data + rlen));
			field_json(stdout, &d, v, len);
			putchar('\n');
			fuzz_check_stdout(false);
		}
	}
	while (nsaved--) {
		saved[nsaved].f->offset = saved[nsaved].offset;
		saved[nsaved].f->size = saved[nsaved].size;
		saved[nsaved].f->flags = (unsigned long)saved[nsaved].flags;
	}
	free(rec_data);
	return 0;
}
