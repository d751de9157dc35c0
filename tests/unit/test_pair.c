// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "base/pair.h"

struct val {
	uint64_t a;
	int b;
};

static void test_put_get_del(void **state)
{
	(void)state;
	struct pair_table t;
	assert_int_equal(pair_init(&t, 64, sizeof(struct val)), 0);
	assert_null(pair_get(&t, 1, 2));
	struct val *v = pair_put(&t, 1, 2);
	assert_int_equal(v->a, 0); /* new entries are zeroed */
	v->a = 42;
	v->b = 7;
	struct val *g = pair_get(&t, 1, 2);
	assert_ptr_equal(g, v);
	assert_int_equal(g->a, 42);
	assert_null(pair_get(&t, 2, 1)); /* the key is ordered */
	/* put on an existing key returns it unchanged */
	assert_ptr_equal(pair_put(&t, 1, 2), v);
	assert_int_equal(v->a, 42);
	pair_del(&t, g);
	assert_null(pair_get(&t, 1, 2));
	pair_free(&t);
}

static void test_many_and_clear(void **state)
{
	(void)state;
	struct pair_table t;
	assert_int_equal(pair_init(&t, 4096, sizeof(struct val)), 0);
	for (uint64_t i = 0; i < 1000; i++)
		((struct val *)pair_put(&t, 254U << 20, i * 8))->a = i;
	int found = 0;
	for (uint64_t i = 0; i < 1000; i++) {
		struct val *v = pair_get(&t, 254U << 20, i * 8);
		if (v && v->a == i)
			found++;
	}
	/* 1000 keys in room for 4096: a few may collide in a set, most must be there. */
	assert_true(found + (int)t.evicted == 1000);
	assert_true(found > 990);
	pair_clear(&t);
	for (uint64_t i = 0; i < 1000; i++)
		assert_null(pair_get(&t, 254U << 20, i * 8));
	pair_free(&t);
}

/* A full set evicts its oldest entry, so never-completed objects cannot pile up. */
static void test_eviction_oldest(void **state)
{
	(void)state;
	struct pair_table t;
	assert_int_equal(pair_init(&t, 1, sizeof(struct val)), 0); /* one set of 4 ways */
	assert_int_equal(t.nsets, 1);
	for (uint64_t k = 1; k <= PAIR_WAYS; k++)
		pair_put(&t, k, 0);
	assert_int_equal(t.evicted, 0);
	pair_put(&t, 100, 0);
	assert_int_equal(t.evicted, 1);
	assert_null(pair_get(&t, 1, 0)); /* the oldest went */
	for (uint64_t k = 2; k <= PAIR_WAYS; k++)
		assert_non_null(pair_get(&t, k, 0));
	assert_non_null(pair_get(&t, 100, 0));
	/* a deleted entry's way is reused before anything is evicted */
	pair_del(&t, pair_get(&t, 3, 0));
	pair_put(&t, 200, 0);
	assert_int_equal(t.evicted, 1);
	assert_non_null(pair_get(&t, 2, 0));
	pair_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_del),
		cmocka_unit_test(test_many_and_clear),
		cmocka_unit_test(test_eviction_oldest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
