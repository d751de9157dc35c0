// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mechanism ladder: the first rung that is here is taken, in order; a chosen one is taken
 * alone, and when it is not here the tool says why; a rung's own failure ends the climb.
 */
#include "helpers.h"

#include "base/ladder.h"

static int tried[4], answer[4];
static int order[8], norder;

static int rung(int i, const char **why)
{
	tried[i]++;
	order[norder++] = i;
	*why = "not here";
	return answer[i];
}
static int rung0(void *ctx, const char **why)
{
	(void)ctx;
	return rung(0, why);
}
static int rung1(void *ctx, const char **why)
{
	(void)ctx;
	return rung(1, why);
}
static int rung2(void *ctx, const char **why)
{
	(void)ctx;
	return rung(2, why);
}

static const ladder_rung_fn rungs[] = {rung0, rung1, rung2};
static const char *const names[] = {"kprobe", "eprobe", "uprobe"};

static void reset(int a0, int a1, int a2)
{
	memset(tried, 0, sizeof(tried));
	norder = 0;
	answer[0] = a0, answer[1] = a1, answer[2] = a2;
}

static void test_first_that_is_here(void **state)
{
	(void)state;
	int via = 3; /* none chosen */
	reset(-1, 0, 0);
	assert_int_equal(ladder_climb(rungs, names, 3, &via, NULL, "tool"), 0);
	assert_int_equal(via, 1);
	assert_int_equal(norder, 2);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(tried[2], 0);
	/* None here: -1, every rung tried once. */
	via = 3;
	reset(-1, -1, -1);
	assert_int_equal(ladder_climb(rungs, names, 3, &via, NULL, "tool"), -1);
	assert_int_equal(norder, 3);
	/* A rung that failed (said on stderr, its status): the climb ends there. */
	via = 3;
	reset(-1, 1, 0);
	assert_int_equal(ladder_climb(rungs, names, 3, &via, NULL, "tool"), 1);
	assert_int_equal(via, 1);
	assert_int_equal(tried[2], 0);
}

static void chosen_missing(const void *arg)
{
	(void)arg;
	int via = 2;
	reset(0, 0, -1);
	exit(ladder_climb(rungs, names, 3, &via, NULL, "tool") == -1 && tried[0] == 0 ? 2 : 0);
}

static void test_chosen(void **state)
{
	(void)state;
	int via = 2;
	reset(0, 0, 0);
	assert_int_equal(ladder_climb(rungs, names, 3, &via, NULL, "tool"), 0);
	assert_int_equal(norder, 1);
	assert_int_equal(order[0], 2);
	/* Not here: only that rung tried, and one line naming it and why. */
	assert_usage_error(chosen_missing, NULL, "tool: --via uprobe: not here");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_that_is_here),
		cmocka_unit_test(test_chosen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
