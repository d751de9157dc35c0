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

#include "stream/evprint.h"

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

/* What evprint prints for rec of t, text mode. */
static char *capture(struct tep_handle *t, struct tep_record *rec)
{
	static char out[4096];
	fflush(stdout);
	FILE *f = tmpfile();
	assert_non_null(f);
	int saved = dup(1);
	dup2(fileno(f), 1);
	struct evprint *p = evprint_new(t, false, false);
	evprint_event(p, rec, "dd");
	fflush(stdout);
	evprint_free(p);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	return out;
}

/* What evprint prints for the record (freed), text mode. */
static char *print(unsigned char *data, size_t size)
{
	struct tep_record rec = {.data = data, .size = (int)size, .ts = 1000000000, .cpu = 0};
	char *out = capture(tep, &rec);
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

/* What evprint prints for rec as JSON, through the row or the one-buffer path. */
static char *json_of(struct tep_handle *t, struct tep_record *rec, const char *comm, bool row)
{
	static char out[65536];
	fflush(stdout);
	FILE *f = tmpfile();
	assert_non_null(f);
	int saved = dup(1);
	dup2(fileno(f), 1);
	evprint_json_by_row = row;
	struct evprint *p = evprint_new(t, true, false);
	evprint_event(p, rec, comm);
	fflush(stdout);
	evprint_free(p);
	evprint_json_by_row = false;
	dup2(saved, 1);
	close(saved);
	rewind(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	return out;
}

/* -j's one-buffer path writes the row's bytes: every recorded format of the sched, task and
 * syscalls fixtures (numbers, pointers, fixed and __data_loc strings), with hostile names (quotes,
 * newlines, bytes that are not UTF-8, 15 bytes of a 16-byte comm) and random values, and
 * times near a half microsecond and of a year's uptime. */
static void test_json_paths(void **state)
{
	(void)state;
	static const char *systems[] = {"sched", "task", "syscalls", NULL};
	struct tep_handle *t = fixture_tep(FIXTURES "/proc-6.18", systems);
	assert_non_null(t);
	static const char *const names[] = {
		"dd", "a\"b\\c", "x\ny\tz", "\xff\xfe caf\xc3\xa9", "0123456789abcde", ""};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int compared = 0;
	for (int i = 0; i < tep_get_events_count(t); i++) {
		struct tep_event *e = tep_get_event(t, i);
		for (int k = 0; k < 12; k++) {
			unsigned char data[512] = {0};
			uint16_t type = (uint16_t)e->id;
			memcpy(data, &type, 2);
			int end = 0;
			for (struct tep_format_field *f = e->format.fields; f; f = f->next)
				if (f->offset + f->size > end)
					end = f->offset + f->size;
			for (struct tep_format_field *f = e->format.fields; f; f = f->next) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				const char *str = names[(x >> 8) % 6];
				size_t sl = strlen(str);
				if (f->flags & TEP_FIELD_IS_DYNAMIC) {
					uint32_t loc = (uint32_t)(sl + 1) << 16 | (uint32_t)end;
					memcpy(data + f->offset, &loc, 4);
					memcpy(data + end, str, sl + 1);
					end += (int)sl + 1;
				} else if (f->flags & TEP_FIELD_IS_ARRAY) {
					memcpy(data + f->offset, str,
					       sl < (size_t)f->size ? sl : (size_t)f->size - 1);
				} else if (f->size <= 8) {
					memcpy(data + f->offset, &x, (size_t)f->size);
				}
			}
			uint64_t ts = k % 3 ? x >> (k * 5) : (x >> 20) / 1000 * 1000 + 500;
			struct tep_record rec = {.data = data, .size = end, .ts = ts, .cpu = k};
			char row[65536];
			snprintf(row, sizeof(row), "%s", json_of(t, &rec, names[k % 6], true));
			const char *fast = json_of(t, &rec, names[k % 6], false);
			if (strcmp(row, fast)) {
				print_error("%s:%s\nrow:  %sfast: %s", e->system, e->name, row,
					    fast);
				fail();
			}
			compared++;
		}
	}
	assert_true(compared >= 12 * 4);
	tep_free(t);
}

/* An event's name is printed whole, however long (a made format of 300 characters). */
static void test_long_name(void **state)
{
	(void)state;
	char name[301], text[1024];
	memset(name, 'n', 300);
	name[300] = 0;
	snprintf(text, sizeof(text),
		 "name: %s\nID: 88\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"x=%%d\", REC->x\n",
		 name);
	struct tep_handle *t = tep_alloc();
	tep_set_long_size(t, 8);
	assert_int_equal(tep_parse_event(t, text, strlen(text), "test"), 0);
	unsigned char data[12] = {88, 0, 0, 0, 7, 0, 0, 0, 5, 0, 0, 0};
	struct tep_record rec = {.data = data, .size = 12, .ts = 1000000000};
	char *out = capture(t, &rec);
	char want[400];
	snprintf(want, sizeof(want), " %s: x=5\n", name);
	assert_non_null(strstr(out, want));
	tep_free(t);
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
		cmocka_unit_test(test_json_paths),
		cmocka_unit_test(test_long_name),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tep_free(tep);
	return rc;
}
