// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpoint's event printer on records built to the real block_rq_complete format of Linux 6.18
 * (tests/fixtures): one that fits is printed by the kernel's print format; one that does not
 * (a __data_loc string past the record, a string without its NUL, a record too short) is
 * shown field by field from what it holds, never read past (fuzz_format found these; make
 * check SANITIZE=1 fails here without the check).
 */
#include "helpers.h"

#include <stdint.h>
#include <tracefs.h>

#include "evprint.h"

static struct tep_handle *tep;
static struct tep_event *ev;

/* A block_rq_complete record: dev 8,0, sector 100, 8 sectors, rwbs "R", cmd "" (data_loc
 * at the end), error 0; size is the record's length (the buffer is exactly that long). */
static unsigned char *record(size_t size, uint32_t cmd_loc, bool rwbs_nul)
{
	unsigned char *d = calloc(1, size);
	assert_non_null(d);
	unsigned char full[64] = {0};
	uint16_t id = (uint16_t)ev->id;
	memcpy(full, &id, 2);
	uint32_t dev = 8u << 20;
	memcpy(full + 8, &dev, 4);
	uint64_t sector = 100;
	memcpy(full + 16, &sector, 8);
	uint32_t nr = 8;
	memcpy(full + 24, &nr, 4);
	memset(full + 34, rwbs_nul ? 0 : 'R', 10);
	full[34] = 'R';
	memcpy(full + 44, &cmd_loc, 4);
	memcpy(d, full, size < sizeof(full) ? size : sizeof(full));
	return d;
}

/* What evprint prints for the record, text mode. */
static char *print(unsigned char *data, size_t size)
{
	static char out[4096];
	fflush(stdout);
	FILE *f = tmpfile();
	assert_non_null(f);
	int saved = dup(1);
	dup2(fileno(f), 1);
	struct evprint *p = evprint_new(tep, false, false);
	struct tep_record rec = {.data = data, .size = (int)size, .ts = 1000000000, .cpu = 0};
	evprint_event(p, &rec, "dd");
	fflush(stdout);
	evprint_free(p);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	free(data);
	return out;
}

static void test_fits(void **state)
{
	(void)state;
	/* cmd: 1 byte (its NUL) at offset 48 */
	char *out = print(record(49, 1u << 16 | 48, true), 49);
	assert_non_null(strstr(out, "block_rq_complete: 8,0 R () 100 + 8 "));
}

static void test_data_loc_past_record(void **state)
{
	(void)state;
	char *out = print(record(49, 200u << 16 | 48, true), 49);
	assert_non_null(strstr(out, "block_rq_complete: dev="));
	assert_non_null(strstr(out, " sector=100 nr_sector=8 "));
	assert_non_null(strstr(out, " cmd=\n") || strstr(out, " cmd= "));
}

static void test_string_without_nul(void **state)
{
	(void)state;
	char *out = print(record(49, 1u << 16 | 48, false), 49);
	assert_non_null(strstr(out, " rwbs=RRRRRRRRRR"));
}

static void test_too_short(void **state)
{
	(void)state;
	char *out = print(record(20, 0, true), 20);
	assert_non_null(strstr(out, "block_rq_complete: dev="));
	/* Fields the record does not hold: nothing after their '=' (not a made-up 0). */
	assert_non_null(strstr(out, " sector= nr_sector= error= "));
}

int main(void)
{
	static const char *systems[] = {"block", NULL};
	tep = fixture_tep(FIXTURES "/block-6.18", systems);
	if (!tep)
		return 1;
	ev = tep_find_event_by_name(tep, "block", "block_rq_complete");
	if (!ev)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_data_loc_past_record),
		cmocka_unit_test(test_string_without_nul),
		cmocka_unit_test(test_too_short),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tep_free(tep);
	return rc;
}
