// SPDX-License-Identifier: GPL-2.0-only
/*
 * --hist counted in the kernel (fieldhist.h): the two triggers' filters, evaluated here by a
 * small evaluator of the grammar they use (parentheses, && and ||, FIELD OP NUMBER, compared
 * as the kernel compares a field of that size and sign), must send every value to exactly
 * one trigger, the value trigger taking exactly 0, the powers of two and what is beyond the
 * positive range; and the two tables, as the kernel prints them, must give hist.h's slots.
 */
#include "helpers.h"

#include <string.h>

#include "count/fieldhist.h"

/* --- an evaluator of the filters ------------------------------------------------------- */

struct ev {
	const char *p, *field;
	uint64_t v; /* the value, as the kernel widened it */
	bool is_signed;
};

static void skip_spaces(struct ev *e)
{
	while (*e->p == ' ')
		e->p++;
}

static bool or_expr(struct ev *e);

static bool primary(struct ev *e)
{
	skip_spaces(e);
	if (*e->p == '(') {
		e->p++;
		bool r = or_expr(e);
		skip_spaces(e);
		if (*e->p != ')')
			fail_msg("no ')' at '%.20s'", e->p);
		e->p++;
		return r;
	}
	size_t n = strlen(e->field);
	if (strncmp(e->p, e->field, n) || e->p[n] != ' ')
		fail_msg("not the field at '%.20s'", e->p);
	e->p += n + 1;
	char op[3] = {0};
	size_t ol = strspn(e->p, "<>=!");
	if (ol < 1 || ol > 2)
		fail_msg("no operator at '%.20s'", e->p);
	memcpy(op, e->p, ol);
	e->p += ol;
	skip_spaces(e);
	char *end;
	uint64_t c = strtoull(e->p, &end, 0);
	if (end == e->p)
		fail_msg("no number at '%.20s'", e->p);
	e->p = end;
	int cmp;
	if (e->is_signed)
		cmp = (int64_t)e->v < (int64_t)c ? -1 : (int64_t)e->v > (int64_t)c;
	else
		cmp = e->v < c ? -1 : e->v > c;
	if (!strcmp(op, "=="))
		return cmp == 0;
	if (!strcmp(op, "!="))
		return cmp != 0;
	if (!strcmp(op, "<"))
		return cmp < 0;
	if (!strcmp(op, ">="))
		return cmp >= 0;
	fail_msg("operator %s", op);
	return false;
}

static bool and_expr(struct ev *e)
{
	bool r = primary(e);
	for (;;) {
		skip_spaces(e);
		if (strncmp(e->p, "&&", 2))
			return r;
		e->p += 2;
		bool b = primary(e);
		r = r && b;
	}
}

static bool or_expr(struct ev *e)
{
	bool r = and_expr(e);
	for (;;) {
		skip_spaces(e);
		if (strncmp(e->p, "||", 2))
			return r;
		e->p += 2;
		bool b = and_expr(e);
		r = r || b;
	}
}

static bool eval(const char *filter, const char *field, uint64_t v, bool is_signed)
{
	struct ev e = {filter, field, v, is_signed};
	bool r = or_expr(&e);
	skip_spaces(&e);
	if (*e.p)
		fail_msg("left over: '%.20s'", e.p);
	return r;
}

/* A value of a field of size bytes, widened as the kernel widens it (by its sign). */
static uint64_t widen(uint64_t v, int size, bool is_signed)
{
	if (size == 8)
		return v;
	v &= (1ULL << (size * 8)) - 1;
	if (is_signed && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	return v;
}

static bool exact_wanted(uint64_t v, int size, bool is_signed)
{
	if (is_signed && (int64_t)v < 0)
		return true;
	if (!is_signed && size == 8 && v >= 1ULL << 63)
		return true;
	return (v & (v - 1)) == 0; /* 0 and the powers of two */
}

static void test_filters(void **state)
{
	(void)state;
	static const int sizes[] = {1, 2, 4, 8};
	char exact[4000], log2[4000];
	for (int si = 0; si < 4; si++)
		for (int sg = 0; sg < 2; sg++) {
			int size = sizes[si];
			bool is_signed = sg;
			assert_int_equal(fieldhist_filter(exact, sizeof(exact), "bytes_done", size,
							  is_signed, true),
					 0);
			assert_int_equal(fieldhist_filter(log2, sizeof(log2), "bytes_done", size,
							  is_signed, false),
					 0);
			/* 0, every power of two, its neighbours, and the extremes */
			for (int k = -1; k < 64; k++)
				for (int d = -1; d <= 1; d++) {
					uint64_t raw =
						(k < 0 ? 0 : 1ULL << k) + (uint64_t)(int64_t)d;
					uint64_t v = widen(raw, size, is_signed);
					bool x = eval(exact, "bytes_done", v, is_signed),
					     l = eval(log2, "bytes_done", v, is_signed);
					if (x == l || x != exact_wanted(v, size, is_signed))
						fail_msg("size %d %s, value 0x%llx: value trigger "
							 "%d, "
							 "log2 trigger %d",
							 size, is_signed ? "signed" : "unsigned",
							 (unsigned long long)v, x, l);
				}
		}
	/* A field's name of 16 characters still fits a trigger (a page) with room for the
	 * run's filters; what does not fit is said (the tool then counts in user space). */
	assert_int_equal(fieldhist_filter(exact, sizeof(exact), "sixteen_chars_16", 8, false, true),
			 0);
	assert_true(strlen(exact) < 3000);
	assert_int_equal(fieldhist_filter(log2, sizeof(log2), "sixteen_chars_16", 8, false, false),
			 0);
	assert_true(strlen(log2) < 3000);
	assert_int_equal(fieldhist_filter(exact, 100, "bytes", 8, false, true), -1);
}

/* --- the tables into slots ------------------------------------------------------------- */

static void parse(const char *text, struct histtable *h)
{
	char why[256] = "";
	if (histtable_parse(text, NULL, 1, h, why, sizeof(why)))
		fail_msg("%s", why);
}

static void test_add(void **state)
{
	(void)state;
	/* The kernel's tables: 5 and 6 (2^3), 3 (2^2) by log2; 0, 1, 2, 4 twice, 2^63 and
	 * 2^64-1 by value (an unsigned 8-byte field); the value table dropped 3. */
	const char *log2_1 = "# trigger info: hist:keys=v.log2:vals=hitcount\n"
			     "{ v: ~ 2^2       } hitcount:          1\n"
			     "{ v: ~ 2^3       } hitcount:          2\n"
			     "\nTotals:\n    Hits: 3\n    Entries: 2\n    Dropped: 0\n";
	const char *exact_1 = "# trigger info: hist:keys=v:vals=hitcount\n"
			      "{ v:          0 } hitcount:          1\n"
			      "{ v:          1 } hitcount:          1\n"
			      "{ v:          2 } hitcount:          1\n"
			      "{ v:          4 } hitcount:          2\n"
			      "{ v: 9223372036854775808 } hitcount:          1\n"
			      "{ v: 18446744073709551615 } hitcount:          1\n"
			      "\nTotals:\n    Hits: 10\n    Entries: 6\n    Dropped: 3\n";
	struct histtable l1 = {0}, x1 = {0}, none = {.nkeys = 1};
	parse(log2_1, &l1);
	parse(exact_1, &x1);
	struct hist_log2 h = {0};
	uint64_t dropped = 0;
	fieldhist_add(&h, &l1, &none, &x1, &none, 8, false, &dropped);
	assert_int_equal(h.slot[0], 1);	 /* 0 */
	assert_int_equal(h.slot[1], 1);	 /* 1 */
	assert_int_equal(h.slot[2], 2);	 /* 2, 3 */
	assert_int_equal(h.slot[3], 4);	 /* 4, 4, 5, 6 */
	assert_int_equal(h.slot[64], 2); /* 2^63, 2^64-1 */
	assert_int_equal(h.total, 10);
	assert_int_equal(h.neg, 0);
	assert_int_equal(dropped, 3);

	/* Later: one more 5 and a new 8; only that is added. */
	const char *log2_2 = "# trigger info: hist:keys=v.log2:vals=hitcount\n"
			     "{ v: ~ 2^2       } hitcount:          1\n"
			     "{ v: ~ 2^3       } hitcount:          3\n"
			     "\nTotals:\n    Hits: 4\n    Entries: 2\n    Dropped: 0\n";
	const char *exact_2 = "# trigger info: hist:keys=v:vals=hitcount\n"
			      "{ v:          0 } hitcount:          1\n"
			      "{ v:          1 } hitcount:          1\n"
			      "{ v:          2 } hitcount:          1\n"
			      "{ v:          4 } hitcount:          2\n"
			      "{ v:          8 } hitcount:          1\n"
			      "{ v: 9223372036854775808 } hitcount:          1\n"
			      "{ v: 18446744073709551615 } hitcount:          1\n"
			      "\nTotals:\n    Hits: 11\n    Entries: 7\n    Dropped: 3\n";
	struct histtable l2 = {0}, x2 = {0};
	parse(log2_2, &l2);
	parse(exact_2, &x2);
	memset(&h, 0, sizeof(h));
	dropped = 0;
	fieldhist_add(&h, &l2, &l1, &x2, &x1, 8, false, &dropped);
	assert_int_equal(h.slot[3], 1);
	assert_int_equal(h.slot[4], 1);
	assert_int_equal(h.total, 2);
	assert_int_equal(dropped, 0);

	/* A signed 4-byte field: -1 as the kernel widened it, and as a kernel that did not. */
	const char *exact_s = "# trigger info: hist:keys=v:vals=hitcount\n"
			      "{ v: 18446744073709551615 } hitcount:          2\n"
			      "{ v: 4294967294 } hitcount:          1\n"
			      "{ v:          1 } hitcount:          1\n"
			      "\nTotals:\n    Hits: 4\n    Entries: 3\n    Dropped: 0\n";
	struct histtable xs = {0}, ls = {.nkeys = 1};
	parse(exact_s, &xs);
	memset(&h, 0, sizeof(h));
	fieldhist_add(&h, &ls, &none, &xs, &none, 4, true, &dropped);
	assert_int_equal(h.neg, 3);
	assert_int_equal(h.slot[1], 1);
	assert_int_equal(h.total, 4);
	histtable_free(&l1);
	histtable_free(&x1);
	histtable_free(&l2);
	histtable_free(&x2);
	histtable_free(&xs);
}

/* --linear in the kernel: the three filters by the field's size and sign; the slots, the
 * values beyond and those below 0 read back into the slots of hist.h's linear bins. */
static void test_linear(void **state)
{
	(void)state;
	char buf[256];
	struct {
		int size;
		bool is_signed;
		uint64_t width;
		enum fieldhist_part part;
		int ret;
		const char *want;
	} cases[] = {
		{8, false, 1000, FIELDHIST_SLOTS, 1, "v < 64000"},
		{8, false, 1000, FIELDHIST_BEYOND, 1, "v >= 64000"},
		{8, false, 1000, FIELDHIST_BELOW, 0, ""},
		{4, true, 1000, FIELDHIST_SLOTS, 1, "v >= 0 && v < 64000"},
		{4, true, 1000, FIELDHIST_BELOW, 1, "v < 0"},
		/* 64 slots of 4 cover every value a byte holds: nothing beyond */
		{1, false, 4, FIELDHIST_SLOTS, 1, ""},
		{1, false, 4, FIELDHIST_BEYOND, 0, ""},
		{1, false, 3, FIELDHIST_BEYOND, 1, "v >= 192"},
		{1, true, 2, FIELDHIST_SLOTS, 1, "v >= 0"},
		{1, true, 2, FIELDHIST_BEYOND, 0, ""},
		/* 2^63 and more: past a signed 8-byte field's range, within an unsigned one's */
		{8, true, 1ULL << 57, FIELDHIST_SLOTS, 1, "v >= 0"},
		{8, false, 1ULL << 57, FIELDHIST_BEYOND, 1, "v >= 9223372036854775808"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		strcpy(buf, "");
		assert_int_equal(fieldhist_linear_filter(buf, sizeof(buf), "v", cases[i].size,
							 cases[i].is_signed, cases[i].width,
							 cases[i].part),
				 cases[i].ret);
		if (cases[i].ret)
			assert_string_equal(buf, cases[i].want);
	}
	assert_int_equal(fieldhist_linear_filter(buf, 8, "v", 8, false, 1000, FIELDHIST_BEYOND),
			 -1);

	const char *slots = "# trigger info: hist:keys=v.buckets=1000:vals=hitcount\n"
			    "{ v: ~ 0-999 } hitcount:          3\n"
			    "{ v: ~ 63000-63999 } hitcount:          1\n"
			    "\nTotals:\n    Hits: 4\n    Entries: 2\n    Dropped: 0\n";
	const char *beyond = "# trigger info: hist:keys=v.log2:vals=hitcount\n"
			     "{ v: ~ 2^16 } hitcount:          1\n"
			     "{ v: ~ 2^0  } hitcount:          2\n"
			     "\nTotals:\n    Hits: 3\n    Entries: 2\n    Dropped: 0\n";
	const char *below = "# trigger info: hist:keys=common_type:vals=hitcount\n"
			    "{ common_type:        300 } hitcount:          5\n"
			    "\nTotals:\n    Hits: 5\n    Entries: 1\n    Dropped: 0\n";
	struct histtable s1 = {0}, b1 = {0}, n1 = {0}, none = {.nkeys = 1};
	parse(slots, &s1);
	parse(beyond, &b1);
	parse(below, &n1);
	struct hist_log2 h = {0};
	fieldhist_add_linear(&h, 1000, &s1, &none, &b1, &none, &n1, &none);
	assert_int_equal(h.slot[0], 3);
	assert_int_equal(h.slot[63], 1);
	assert_int_equal(h.slot[64], 3);
	assert_int_equal(h.neg, 5);
	assert_int_equal(h.total, 12);
	/* read again, nothing new: nothing added */
	memset(&h, 0, sizeof(h));
	fieldhist_add_linear(&h, 1000, &s1, &s1, &b1, &b1, &n1, &n1);
	assert_int_equal(h.total, 0);
	histtable_free(&s1);
	histtable_free(&b1);
	histtable_free(&n1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
