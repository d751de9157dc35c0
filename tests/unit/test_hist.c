// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "count/hist.h"

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
		"    >=(us) .. <(us)      : I/O      |Distribution                          |\n"
		"(no I/O)\n");
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

/* Power-of-N and linear bins: every value in the slot whose bounds hold it, the bounds
 * meeting end to end; a power of 2^m read from log2 slots as counting it directly. */
static void test_bins(void **state)
{
	(void)state;
	struct hist_bins b;
	assert_int_equal(hist_bins_set(&b, HIST_POWER, 1), -1);
	assert_int_equal(hist_bins_set(&b, HIST_POWER, HIST_POWER_MAX + 1), -1);
	assert_int_equal(hist_bins_set(&b, HIST_LINEAR, 0), -1);
	assert_int_equal(hist_bins_set(&b, HIST_LINEAR, HIST_LINEAR_MAX + 1), -1);
	const uint64_t ns[] = {2, 3, 4, 10, 16, 1000, 1ULL << 32, 4294967291ULL};
	uint64_t vals[400];
	int nv = 0;
	vals[nv++] = 0;
	vals[nv++] = UINT64_MAX;
	for (int k = 0; k < 64; k++) {
		uint64_t p = 1ULL << k;
		vals[nv++] = p;
		vals[nv++] = p - 1;
		vals[nv++] = p + 1;
	}
	for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
		vals[nv++] = p;
		vals[nv++] = p - 1;
	}
	for (int kind = HIST_POWER; kind <= HIST_LINEAR; kind++)
		for (size_t i = 0; i < sizeof(ns) / sizeof(*ns); i++) {
			assert_int_equal(hist_bins_set(&b, kind, ns[i]), 0);
			for (int j = 0; j < nv; j++) {
				int k = hist_bins_slot(&b, vals[j]);
				uint64_t lo, hi;
				assert_true(k >= 0 && k < HIST_SLOTS);
				hist_bins_bounds(&b, k, &lo, &hi);
				assert_true(lo <= vals[j]);
				assert_true(vals[j] < hi || hi == UINT64_MAX);
				if (k) {
					uint64_t plo, phi;
					hist_bins_bounds(&b, k - 1, &plo, &phi);
					assert_true(phi == lo);
				}
			}
		}
	hist_bins_set(&b, HIST_LINEAR, 1000);
	assert_int_equal(hist_bins_slot(&b, 63999), 63);
	assert_int_equal(hist_bins_slot(&b, 64000), 64);
	assert_int_equal(hist_bins_slot(&b, UINT64_MAX), 64);
	hist_bins_set(&b, HIST_POWER, 10);
	assert_int_equal(hist_bins_slot(&b, 9), 1);
	assert_int_equal(hist_bins_slot(&b, 10), 2);
	assert_int_equal(hist_bins_slot(&b, UINT64_MAX), 20); /* [10^19, 2^64) */
	for (uint64_t n = 2; n <= 1ULL << 32; n *= 2) {
		struct hist_log2 log2 = {0}, direct = {0}, from = {0};
		hist_bins_set(&b, HIST_POWER, n);
		for (int j = 0; j < nv; j++) {
			hist_log2_add(&log2, vals[j]);
			hist_bins_add(&direct, &b, vals[j]);
		}
		log2.neg = direct.neg = 3;
		hist_bins_from_log2(&from, &b, &log2);
		assert_memory_equal(&from, &direct, sizeof(from));
	}
}

/* The rows of a power-of-10 and a linear histogram. */
static void test_bins_print(void **state)
{
	(void)state;
	struct hist_bins b;
	struct hist_log2 h = {0};
	static char buf[4096];
	hist_bins_set(&b, HIST_POWER, 10);
	hist_bins_add(&h, &b, 0);
	hist_bins_add(&h, &b, 150);
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	hist_bins_print(f, &h, &b, "B", "count");
	fclose(f);
	assert_string_equal(
		buf,
		"     >=(B) .. <(B)       : count    |Distribution                          |\n"
		"         0 -> 1          : 1        |######################################|\n"
		"         1 -> 10         : 0        |                                      |\n"
		"        10 -> 100        : 0        |                                      |\n"
		"       100 -> 1000       : 1        |######################################|\n");
	hist_log2_reset(&h);
	hist_bins_set(&b, HIST_LINEAR, 5);
	hist_bins_add(&h, &b, 7);
	hist_bins_add(&h, &b, 1000);
	f = fmemopen(buf, sizeof(buf), "w");
	hist_bins_json(f, &h, &b);
	fclose(f);
	assert_string_equal(buf, "[{\"low\":5,\"high\":10,\"count\":1},"
				 "{\"low\":320,\"high\":18446744073709551615,\"count\":1}]");
	char name[64];
	hist_bins_name(&b, name, sizeof(name));
	assert_string_equal(name, "linear 5-wide");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),	    cmocka_unit_test(test_print),
		cmocka_unit_test(test_print_empty), cmocka_unit_test(test_json),
		cmocka_unit_test(test_negative),    cmocka_unit_test(test_bins),
		cmocka_unit_test(test_bins_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
