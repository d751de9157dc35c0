// SPDX-License-Identifier: GPL-2.0-only
/*
 * printfmt against libtraceevent's printer: every recorded format of tests/fixtures (6.18's
 * and the old kernels'), and formats written here for each conversion and cast, on records of
 * random values and strings. Where a plan is made it must render what tep_print_event renders,
 * byte for byte; the formats every flood is made of (syscalls, sched, task, irq) must get one;
 * what it does not model (%p, ternaries, __print_symbolic, operators) must get none.
 */
#define _GNU_SOURCE /* nftw */
#include "helpers.h"

#include <ftw.h>
#include <stdint.h>

#include "kernel/format.h"
#include "base/out.h"
#include "stream/printfmt.h"

static uint64_t seed = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A value of a kind that catches sign and width mistakes: an edge, or random bits. */
static uint64_t value(void)
{
	static const uint64_t edges[] = {0,	 1,	 0x7f,	     0x80,	 0xff,
					 0x8000, 0xffff, 0x80000000, 0xffffffff, 0x8000000000000000,
					 ~0ULL};
	uint64_t r = rnd();
	return r % 3 ? edges[r % (sizeof(edges) / sizeof(edges[0]))] : rnd() >> (r % 64);
}

/* A record of ev with random fields; strings random printable and not (NUL-terminated). */
static int random_record(struct tep_event *ev, char *data, int cap)
{
	memset(data, 0, (size_t)cap);
	int end = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (f->size <= 8 && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))) {
			uint64_t v = value();
			memcpy(data + f->offset, &v, (size_t)f->size);
		}
	uint16_t id = (uint16_t)ev->id;
	memcpy(data, &id, 2);
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		char str[40];
		size_t slen = rnd() % 30;
		for (size_t i = 0; i < slen; i++)
			str[i] = (char)(rnd() % 4 ? ' ' + rnd() % 95 : 1 + rnd() % 255);
		str[slen] = 0;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			if (end + 40 > cap)
				return -1;
			uint32_t off = (uint32_t)end;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off -= (uint32_t)(f->offset + f->size);
			uint32_t loc = (uint32_t)(slen + 1) << 16 | off;
			memcpy(data + f->offset, &loc, 4);
			memcpy(data + end, str, slen + 1);
			end += (int)slen + 1;
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			if (f->size > 0)
				memcpy(data + f->offset, str,
				       slen < (size_t)f->size ? slen : (size_t)f->size - 1);
		} else if (f->size <= 8) {
			uint64_t v = value();
			memcpy(data + f->offset, &v, (size_t)f->size);
		}
	}
	return end;
}

/* Renders of the plan against tep_print_event; returns the records compared. */
static int compare(struct tep_handle *tep, struct tep_event *ev, const struct printfmt *p, int n)
{
	char data[4096], mine[4 * 4096], theirs[4 * 4096];
	struct trace_seq seq;
	trace_seq_init(&seq);
	int done = 0;
	for (int i = 0; i < n; i++) {
		int size = random_record(ev, data, (int)sizeof(data));
		if (size < 0)
			break;
		struct tep_record rec = {.data = data, .size = size, .ts = 1};
		trace_seq_reset(&seq);
		tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		int len = printfmt_render(p, &rec, mine, sizeof(mine));
		/* The plan's text comes escaped, as out_text_line writes the printer's. */
		size_t want = out_text_line_buf(theirs, seq.buffer, seq.len);
		if (len < 0 || (size_t)len != want || memcmp(mine, theirs, want)) {
			print_error("%s:%s: printfmt '%.*s', libtraceevent '%.*s'\n", ev->system,
				    ev->name, len, mine, (int)want, theirs);
			fail();
		}
		done++;
	}
	trace_seq_destroy(&seq);
	return done;
}

static int formats, planned;
static char fast[8192]; /* "SYSTEM:NAME " of each event that got a plan */

/* One format file: parsed as the tools parse it, planned, compared. */
static int one_format(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	const char *base = strrchr(path, '/') + 1;
	size_t blen = strlen(base);
	if (flag != FTW_F ||
	    (strcmp(base, "format") && (blen < 7 || strcmp(base + blen - 7, ".format"))))
		return 0;
	size_t len = 0;
	char *text = fixture_slurp(path, &len);
	assert_non_null(text);
	struct tep_handle *tep = tep_alloc();
	tep_set_long_size(tep, 8);
	char why[128];
	if (format_parse(tep, text, len, "fixture", why, sizeof(why)) == 0 &&
	    tep_get_events_count(tep) == 1) {
		struct tep_event *ev = tep_get_first_event(tep);
		struct printfmt *p = printfmt_compile(tep, ev);
		formats++;
		if (p) {
			planned++;
			assert_int_equal(compare(tep, ev, p, 3000), 3000);
			size_t o = strlen(fast);
			snprintf(fast + o, sizeof(fast) - o, "%s ", ev->name);
		}
		printfmt_free(p);
	}
	tep_free(tep);
	free(text);
	return 0;
}

static void test_recorded_formats(void **state)
{
	(void)state;
	assert_int_equal(nftw("tests/fixtures", one_format, 16, FTW_PHYS), 0);
	print_message("%d of %d recorded formats planned\n", planned, formats);
	assert_true(formats >= 30);
	/* The formats of floods get a plan (names in the fixtures: 6.18's and 4.x's). */
	const char *must[] = {"sys_enter_read ",  "sys_exit_read ", "sys_enter_openat ",
			      "sys_enter_write ", "sched_wakeup ",  "sched_process_fork ",
			      "task_rename ",	  "task_newtask ",  "irq_handler_entry "};
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		if (!strstr(fast, must[i]) ||
		    (strstr(fast, must[i]) != fast && strstr(fast, must[i])[-1] != ' ')) {
			print_error("no plan for %s\n", must[i]);
			fail();
		}
	/* Shapes it does not model: left to libtraceevent. */
	assert_null(strstr(fast, "sched_switch "));
	assert_null(strstr(fast, "block_rq_issue "));
	assert_null(strstr(fast, "inet_sock_set_state "));
}

/* A format written here: FIELDS are its fields after the common ones, at offset 8. */
static struct tep_event *made(struct tep_handle *tep, const char *fields, const char *print)
{
	char text[4096];
	snprintf(text, sizeof(text),
		 "name: made\nID: 77\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n%s\n\n"
		 "print fmt: %s\n",
		 fields, print);
	char why[128];
	int r = format_parse(tep, text, strlen(text), "test", why, sizeof(why));
	if (r)
		print_error("format refused: %s\n", why);
	assert_int_equal(r, 0);
	return tep_find_event_by_name(tep, "test", "made");
}

static const char *const fields =
	"\tfield:int i;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long l;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long ul;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:short s;\toffset:32;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned char c;\toffset:34;\tsize:1;\tsigned:0;\n"
	"\tfield:char name[16];\toffset:35;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc char[] path;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] path2;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc u8[] bytes;\toffset:60;\tsize:4;\tsigned:0;";

/* Each conversion, flag, width, length and cast: planned and identical, or not planned. */
static void test_conversions(void **state)
{
	(void)state;
	static const struct {
		const char *print;
		bool must; /* libtraceevent prints it as C does: a plan is expected */
	} cases[] = {
		{"\"%d %u %ld %lu\", REC->i, REC->u, REC->l, REC->ul", true},
		{"\"%x %X %lx %llx %Lu\", REC->i, REC->u, REC->l, REC->ul, REC->ul", true},
		{"\"%08lx|%-8d|%8u|%-3s|%20s\", REC->ul, REC->i, REC->u, REC->name, REC->name",
		 true},
		{"\"%hd %hu %hhu %hhd\", REC->s, REC->s, REC->c, REC->c", false},
		{"\"%d %ld\", ((int)(REC->ul)), ((long)(REC->u))", true},
		{"\"0x%08lx %d\", ((unsigned long)(REC->i)), ((unsigned int)(REC->l))", true},
		{"\"%u %d\", ((u8)(REC->i)), ((s16)(REC->u))", false},
		{"\"%#x %+d % d %zu\", REC->u, REC->i, REC->i, REC->ul", false},
		{"\"file=\\\"%s\\\" name=%s\", __get_str(path), REC->name", true},
		{"\"100%% %d\", REC->i", true},
		{"\"%p\", REC->ul", false},
		{"\"%s\", REC->i ? \"yes\" : \"no\"", false},
		{"\"%s%s\", __get_str(path), __get_str(path2)", true},
		{"\"%s\xc3%s\", __get_str(path), REC->name", false},
		{"\"flags=%ld pc=%d\", ((s8)(REC->common_flags)), "
		 "((char)(REC->common_preempt_count))",
		 false},
		{"\"%d %x\", REC->common_pid, REC->common_flags", true},
		{"\"u8=%s\", __get_str(bytes)", false},
		{"\"%d\", REC->i + 1", false},
		{"\"%d %d\", REC->i", false},
		{"\"%d\", REC->i, REC->u", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tep_handle *tep = tep_alloc();
		tep_set_long_size(tep, 8);
		struct tep_event *ev = made(tep, fields, cases[i].print);
		assert_non_null(ev);
		struct printfmt *p = printfmt_compile(tep, ev);
		if (cases[i].must && !p) {
			print_error("no plan for %s\n", cases[i].print);
			fail();
		}
		if (p)
			assert_int_equal(compare(tep, ev, p, 5000), 5000);
		printfmt_free(p);
		tep_free(tep);
	}
}

/* A record of ev in data (zeroed): path's and path2's __data_loc words (len << 16 | offset),
 * and bytes at offset at, the record's end. */
static struct tep_record string_record(struct tep_event *ev, char *data, uint32_t loc,
				       uint32_t loc2, int at, const char *bytes, size_t n)
{
	uint16_t id = (uint16_t)ev->id;
	memcpy(data, &id, 2);
	memcpy(data + 52, &loc, 4);
	memcpy(data + 56, &loc2, 4);
	memcpy(data + at, bytes, n);
	return (struct tep_record){.data = data, .size = at + (int)n};
}

/* A record whose rendering does not fit the buffer: -1, nothing written past it. */
static void test_too_long(void **state)
{
	(void)state;
	struct tep_handle *tep = tep_alloc();
	tep_set_long_size(tep, 8);
	struct tep_event *ev = made(tep, fields, "\"%s|%d\", __get_str(path), REC->i");
	struct printfmt *p = printfmt_compile(tep, ev);
	assert_non_null(p);
	char data[256] = {0}, out[8];
	struct tep_record rec =
		string_record(ev, data, 21u << 16 | 60, 0, 60, "abcdefghijklmnopqrst", 21);
	memset(out, '#', sizeof(out));
	assert_int_equal(printfmt_render(p, &rec, out, 7), -1);
	assert_int_equal(out[7], '#');
	char big[128]; /* room for the string escaped: 4 bytes a byte */
	assert_int_equal(printfmt_render(p, &rec, big, sizeof(big)), 22);
	assert_memory_equal(big, "abcdefghijklmnopqrst|0", 22);
	printfmt_free(p);
	tep_free(tep);
}

/* A character split between two strings in a row stays one character, as libtraceevent's
 * line, escaped whole, has it: "\xe2\x82" then "\xac" is a euro sign, not three escapes. */
static void test_split_character(void **state)
{
	(void)state;
	struct tep_handle *tep = tep_alloc();
	tep_set_long_size(tep, 8);
	struct tep_event *ev = made(tep, fields, "\"%s%s|\", __get_str(path), __get_str(path2)");
	struct printfmt *p = printfmt_compile(tep, ev);
	assert_non_null(p);
	char data[256] = {0}, out[256];
	struct tep_record rec =
		string_record(ev, data, 3u << 16 | 64, 2u << 16 | 67, 64, "\xe2\x82\0\xac\0", 5);
	int n = printfmt_render(p, &rec, out, sizeof(out));
	assert_int_equal(n, 4);
	assert_memory_equal(out, "\xe2\x82\xac|", 4);
	printfmt_free(p);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_formats),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_split_character),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
