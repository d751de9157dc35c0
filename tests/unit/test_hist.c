// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "hist.h"

static char *render(const struct hist_log2 *h, int json)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	if (json)
		hist_log2_json(f, h);
	else
		hist_log2_print(f, h, "us", "I/O");
	fclose(f);
	return buf;
}

static void test_slots(void **state)
{
	(void)state;
	struct hist_log2 h = {0};
	hist_log2_add(&h, 0);
	hist_log2_add(&h, 1);
	hist_log2_add(&h, 2);
	hist_log2_add(&h, 3);
	hist_log2_add(&h, 1023);
	hist_log2_add(&h, 1024);
	hist_log2_add(&h, UINT64_MAX);
	assert_int_equal(h.slot[0], 1);
	assert_int_equal(h.slot[1], 1);	 /* [1,2) */
	assert_int_equal(h.slot[2], 2);	 /* [2,4) */
	assert_int_equal(h.slot[10], 1); /* [512,1024) */
	assert_int_equal(h.slot[11], 1); /* [1024,2048) */
	assert_int_equal(h.slot[64], 1);
	assert_int_equal(h.total, 7);
	uint64_t lo, hi;
	hist_log2_bounds(11, &lo, &hi);
	assert_int_equal(lo, 1024);
	assert_int_equal(hi, 2048);
	hist_log2_reset(&h);
	assert_int_equal(h.total, 0);
	assert_int_equal(h.slot[2], 0);
}

static void test_print(void **state)
{
	(void)state;
	struct hist_log2 h = {0};
	for (int i = 0; i < 4; i++)
		hist_log2_add(&h, 40); /* [32,64) */
	hist_log2_add(&h, 100);	       /* [64,128) */
	hist_log2_add(&h, 1);	       /* [1,2) */
	const char *want =
		"    >=(us) .. <(us)      : I/O      |Distribution                          |\n"
		"         0 -> 1          : 0        |                                      |\n"
		"         1 -> 2          : 1        |##########                            |\n"
		"         2 -> 4          : 0        |                                      |\n"
		"         4 -> 8          : 0        |                                      |\n"
		"         8 -> 16         : 0        |                                      |\n"
		"        16 -> 32         : 0        |                                      |\n"
		"        32 -> 64         : 4        |######################################|\n"
		"        64 -> 128        : 1        |##########                            |\n";
	assert_string_equal(render(&h, 0), want);
}

static void test_print_empty(void **state)
{
	(void)state;
	struct hist_log2 h = {0};
	assert_string_equal(
		render(&h, 0),
		"    >=(us) .. <(us)      : I/O      |Distribution                          |\n");
	assert_string_equal(render(&h, 1), "[]");
}

static void test_json(void **state)
{
	(void)state;
	struct hist_log2 h = {0};
	hist_log2_add(&h, 0);
	hist_log2_add(&h, 5);
	hist_log2_add(&h, 6);
	assert_string_equal(render(&h, 1), "[{\"low\":0,\"high\":1,\"count\":1},"
					   "{\"low\":4,\"high\":8,\"count\":2}]");
}

/* Signed values: the negative ones in a first row of their own, text and JSON. */
static void test_negative(void **state)
{
	(void)state;
	struct hist_log2 h = {0};
	hist_log2_add_signed(&h, -2);
	hist_log2_add_signed(&h, -9223372036854775807LL - 1);
	hist_log2_add_signed(&h, 0);
	hist_log2_add_signed(&h, 3);
	assert_int_equal(h.neg, 2);
	assert_int_equal(h.total, 4);
	assert_int_equal(h.slot[64], 0);
	const char *want =
		"    >=(us) .. <(us)      : I/O      |Distribution                          |\n"
		"      -inf -> 0          : 2        |######################################|\n"
		"         0 -> 1          : 1        |###################                   |\n"
		"         1 -> 2          : 0        |                                      |\n"
		"         2 -> 4          : 1        |###################                   |\n";
	assert_string_equal(render(&h, 0), want);
	assert_string_equal(render(&h, 1), "[{\"low\":null,\"high\":0,\"count\":2},"
					   "{\"low\":0,\"high\":1,\"count\":1},"
					   "{\"low\":2,\"high\":4,\"count\":1}]");
	hist_log2_reset(&h);
	assert_int_equal(h.neg, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),	    cmocka_unit_test(test_print),
		cmocka_unit_test(test_print_empty), cmocka_unit_test(test_json),
		cmocka_unit_test(test_negative),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
