#include "helpers.h"

#include "agg.h"

struct seen {
	uint32_t keys[2048];
	uint64_t counts[2048];
	size_t n;
};

static void collect(const void *key, uint64_t count, void *ctx)
{
	struct seen *s = ctx;
	memcpy(&s->keys[s->n], key, sizeof(uint32_t));
	s->counts[s->n++] = count;
}

/* Counts add up per key, and the keys come out highest count first. */
static void test_counts_sorted(void **state)
{
	(void)state;
	struct agg a;
	assert_int_equal(agg_init(&a, sizeof(uint32_t)), 0);
	uint32_t k;
	for (k = 1; k <= 3; k++)
		for (uint32_t i = 0; i < k * 10; i++)
			assert_int_equal(agg_add(&a, &k, 1), 0);
	k = 7;
	assert_int_equal(agg_add(&a, &k, 5), 0);
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
	assert_int_equal(agg_init(&a, sizeof(uint32_t)), 0);
	for (uint32_t k = 0; k < 2000; k++)
		for (uint32_t i = 0; i <= k % 3; i++)
			assert_int_equal(agg_add(&a, &k, 1), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_sorted),
		cmocka_unit_test(test_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
