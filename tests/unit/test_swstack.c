// SPDX-License-Identifier: GPL-2.0-only
/* swstack: context-switch samples joined to times off the CPU by thread and time: in
 * order, out of order (two CPUs' rings), a sample lost (its time has none, the next
 * time still gets its own), a switch the caller lost (its sample is passed over), many
 * samples of a thread trimmed to those the caller may still ask for. */
#include "helpers.h"

#include "stream/swstack.h"

static void add(struct swstack *w, uint32_t tid, uint64_t time, uint64_t leaf, int n)
{
	uint64_t u[64];
	for (int i = 0; i < n; i++)
		u[i] = leaf + (uint64_t)i;
	assert_int_equal(swstack_add(w, tid, time, u, n), 0);
}

/* The frames of tid's time off the CPU (out, in): its first frame, or 0 when none. */
static uint64_t take(struct swstack *w, uint32_t tid, uint64_t out, uint64_t in, int want_n)
{
	uint64_t u[64];
	int n = swstack_take(w, tid, out, in, u, 64);
	assert_int_equal(n, want_n);
	return n > 0 ? u[0] : 0;
}

static void test_join(void **state)
{
	(void)state;
	struct swstack w;
	assert_int_equal(swstack_init(&w, 127), 0);
	/* thread 10 off the CPU 1000..2000, 3000..4000 (sample lost), 5000..6000 (its switch
	 * out not seen by the caller), 7000..8000; each sample 2 us after the switch */
	add(&w, 10, 1002000, 0x1000, 30);
	add(&w, 10, 5002000, 0x5000, 3);
	add(&w, 10, 7002000, 0x7000, 20);
	/* thread 11: the same times, its own stacks */
	add(&w, 11, 1002500, 0x1100, 5);
	/* the first switch out of a thread whose sample came on another CPU's ring, read
	 * before its earlier one */
	add(&w, 12, 9002000, 0x9200, 2);
	add(&w, 12, 8002000, 0x8200, 4);

	assert_int_equal(take(&w, 10, 1000000, 2000000, 30), 0x1000);
	assert_int_equal(take(&w, 11, 1000000, 2000000, 5), 0x1100);
	/* lost: the next sample (5.002 ms) is after the switch in, kept for its own time */
	assert_int_equal(take(&w, 10, 3000000, 4000000, -1), 0);
	/* 5000..6000 not paired by the caller: its sample is passed over */
	assert_int_equal(take(&w, 10, 7000000, 8000000, 20), 0x7000);
	assert_int_equal(take(&w, 12, 8000000, 8500000, 4), 0x8200);
	assert_int_equal(take(&w, 12, 9000000, 9500000, 2), 0x9200);
	/* a thread without samples; then nothing left of thread 10 */
	assert_int_equal(take(&w, 99, 1000000, 2000000, -1), 0);
	assert_int_equal(take(&w, 10, 9000000, 9900000, -1), 0);
	assert_int_equal(w.matched, 5);
	assert_int_equal(w.missing, 3);
	assert_int_equal(w.unused, 1);
	/* a sample a little before the caller's time (a clock read earlier): still its own */
	add(&w, 13, 999990, 0x1300, 1);
	assert_int_equal(take(&w, 13, 1000000, 1000100, 1), 0x1300);
	/* frames cut to what the caller has room for */
	add(&w, 14, 100, 0x1400, 40);
	uint64_t u[8];
	assert_int_equal(swstack_take(&w, 14, 100, 200, u, 8), 8);
	assert_int_equal(u[7], 0x1407);
	swstack_free(&w);
}

static void test_trim(void **state)
{
	(void)state;
	struct swstack w;
	assert_int_equal(swstack_init(&w, 127), 0);
	/* 96 switches of thread 20, one a microsecond; the caller has seen up to 64 us */
	for (int i = 0; i < 96; i++)
		add(&w, 20, 1000ULL * (uint64_t)(i + 1), (uint64_t)i, 1);
	add(&w, 21, 500, 0x2100, 1); /* off the CPU since 0.5 us */
	swstack_trim(&w, 64500);
	/* before the horizon only the newest (64 us, index 63) is kept */
	assert_int_equal(w.unused, 63);
	assert_int_equal(take(&w, 20, 64000, 64800, 1), 63);
	for (int i = 64; i < 96; i++)
		assert_int_equal(take(&w, 20, 1000ULL * (uint64_t)(i + 1), 1000000000, 1), i);
	assert_int_equal(take(&w, 20, 0, 1000000000, -1), 0);
	/* the thread still off the CPU keeps its sample until its switch in */
	assert_int_equal(take(&w, 21, 400, 2000000, 1), 0x2100);
	/* a queue emptied and filled again */
	add(&w, 20, 5000000, 0x2000, 1);
	assert_int_equal(take(&w, 20, 5000000, 6000000, 1), 0x2000);
	swstack_free(&w);
}

/* A trace clock mapped to CLOCK_MONOTONIC 30 us behind perf's: learned from the matches of
 * long times off the CPU, then allowed for in short ones (10 us, shorter than the error). */
static void test_skew(void **state)
{
	(void)state;
	struct swstack w;
	assert_int_equal(swstack_init(&w, 127), 0);
	for (int i = 0; i < 12; i++)
		add(&w, 20, 1000000ULL * (uint64_t)(i + 1) + 30000, 0x2000 + (uint64_t)i, 1);
	add(&w, 20, 50030000, 0x2100, 1);
	/* not learned: the short one's sample (30 us late) falls after its switch in */
	struct swstack plain;
	assert_int_equal(swstack_init(&plain, 127), 0);
	add(&plain, 20, 50030000, 0x2100, 1);
	assert_int_equal(take(&plain, 20, 50000000, 50010000, -1), 0);
	swstack_free(&plain);
	w.learn = true;
	for (int i = 0; i < 12; i++)
		assert_int_equal(take(&w, 20, 1000000ULL * (uint64_t)(i + 1),
				      1000000ULL * (uint64_t)(i + 1) + 900000, 1),
				 0x2000 + (uint64_t)i);
	assert_true(w.skew > 29000 && w.skew <= 30000);
	assert_int_equal(take(&w, 20, 50000000, 50010000, 1), 0x2100);
	assert_int_equal(w.missing, 0);
	/* a time off the CPU whose own sample was lost takes the next one, 500 ms on (its
	 * switch in lost too): not a measure of the clocks, the skew stays */
	int64_t skew = w.skew;
	add(&w, 20, 560030000, 0x2200, 1);
	assert_int_equal(take(&w, 20, 60000000, 900000000, 1), 0x2200);
	assert_int_equal(w.skew, skew);
	swstack_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_skew),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
