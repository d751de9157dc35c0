// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: a format file's text, as the tools read it from tracefs: the input is the
 * text. It goes through format_parse (the soundness check, then libtraceevent's parser
 * on trial in a child, then in this process), as every format the tools load, and a record
 * of the event (zeros, its type set) is printed as tpoint prints it. Seeded with real formats
 * of tests/fixtures. Property: refused with a reason, or parsed and printed without a crash;
 * JSON valid. (It found the parser's NULL dereference the trial is for.)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "stream/evprint.h"
#include "fuzz.h"
#include "kernel/format.h"
#include "kernel/session.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_capture_stdout();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	char *fmt = malloc(size + 1);
	NEED(fmt);
	memcpy(fmt, data, size);
	fmt[size] = 0;
	char why[128] = "";
	struct tep_handle *tep = tep_alloc();
	NEED(tep);
	tep_set_long_size(tep, 8);
	struct tep_event *ev = NULL;
	int r = format_parse(tep, fmt, size, "fuzz", why, sizeof(why));
	if (r < 0)
		NEED(why[0] && memchr(why, 0, sizeof(why)));
	else if (tep_get_events_count(tep) == 1)
		ev = tep_get_first_event(tep);
	if (ev) {
		unsigned char rec_data[256] = {0};
		uint16_t id = (uint16_t)ev->id;
		memcpy(rec_data, &id, 2);
		struct tep_record rec = {.data = rec_data, .size = sizeof(rec_data), .ts = 1};
		fuzz_print_record(tep, &rec);
	}
	tep_free(tep);
	free(fmt);
	return 0;
}
