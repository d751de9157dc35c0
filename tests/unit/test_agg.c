// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "base/agg.h"

struct seen {
	uint32_t keys[2048];
	uint64_t counts[2048];
	size_t n;
};

static void collect(const void *key, uint64_t count, const void *val, void *ctx)
{
	(void)val;
	struct seen *s = ctx;
	memcpy(&s->keys[s->n], key, sizeof(uint32_t));
	s->counts[s->n++] = count;
}

/* Counts add up per key, and the keys come out highest count first. */
static void test_counts_sorted(void **state)
{
	(void)state;
	struct agg a;
	assert_int_equal(agg_init(&a, sizeof(uint32_t), 0), 0);
	uint32_t k;
	for (k = 1; k <= 3; k++)
		for (uint32_t i = 0; i < k * 10; i++)
			assert_non_null(agg_add(&a, &k, 1));
	k = 7;
	assert_non_null(agg_add(&a, &k, 5));
	static struct seen s;
	s.n = 0;
	assert_int_equal(agg_sorted(&a, collect, &s), 4);
	assert_int_equal(s.keys[0], 3);
	assert_int_equal(s.counts[0], 30);
	assert_int_equal(s.keys[1], 2);
	assert_int_equal(s.counts[1], 20);
	assert_int_equal(s.keys[2], 1);
	assert_int_equal(s.keys[3], 7);
	assert_int_equal(s.counts[3], 5);
	agg_reset(&a);
	s.n = 0;
	assert_int_equal(agg_sorted(&a, collect, &s), 0);
	agg_free(&a);
}

/* More keys than the initial table: it grows and keeps every count. */
static void test_growth(void **state)
{
	(void)state;
	struct agg a;
	assert_int_equal(agg_init(&a, sizeof(uint32_t), 0), 0);
	for (uint32_t k = 0; k < 2000; k++)
		for (uint32_t i = 0; i <= k % 3; i++)
			assert_non_null(agg_add(&a, &k, 1));
	static struct seen s;
	s.n = 0;
	assert_int_equal(agg_sorted(&a, collect, &s), 2000);
	uint64_t total = 0;
	for (size_t i = 0; i < s.n; i++) {
		assert_int_equal(s.counts[i], s.keys[i] % 3 + 1);
		assert_true(i == 0 || s.counts[i] <= s.counts[i - 1]);
		total += s.counts[i];
	}
	assert_int_equal(total, 667 * 1 + 667 * 2 + 666 * 3 + 0);
	agg_free(&a);
}

/* Per-key values (a histogram each for -k with --hist): zero for a new key, kept while the
 * table grows, handed out with their key, zeroed by a reset. */
struct val {
	uint64_t sum, n;
};

static void check_val(const void *key, uint64_t count, const void *val, void *ctx)
{
	uint32_t k = 0;
	memcpy(&k, key, 3);
	const struct val *v = val;
	assert_int_equal(((uintptr_t)val) % 8, 0);
	assert_int_equal(v->n, count);
	assert_int_equal(v->sum, (uint64_t)k * count); /* each add below adds the key itself */
	(*(size_t *)ctx)++;
}

static void test_values(void **state)
{
	(void)state;
	struct agg a;
	assert_int_equal(agg_init(&a, 3, sizeof(struct val)), 0); /* a key size to pad */
	for (uint32_t k = 0; k < 1000; k++)
		for (uint32_t i = 0; i <= k % 4; i++) {
			struct val *v = agg_add(&a, &k, 1);
			assert_non_null(v);
			if (i == 0)
				assert_true(v->sum == 0 && v->n == 0);
			v->sum += k;
			v->n++;
		}
	size_t seen = 0;
	assert_int_equal(agg_sorted(&a, check_val, &seen), 1000);
	assert_int_equal(seen, 1000);
	agg_reset(&a);
	uint32_t k = 5;
	struct val *v = agg_add(&a, &k, 1);
	assert_true(v->sum == 0 && v->n == 0);
	agg_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_sorted),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
