// SPDX-License-Identifier: GPL-2.0-only
/*
 * The map from a kept trace clock to CLOCK_MONOTONIC (clockmap.c): "now ts" read from a stats
 * file's text, a clock that runs 50 ppm fast followed within microseconds, the order of times
 * kept across pairings (a merge by the kept clock is the same merge after the map), a late
 * CPU's time mapped by the piece it falls in, a jump taken at once, and a real stats file.
 */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>

#include "kernel/clockmap.h"

static void test_parse_now(void **state)
{
	(void)state;
	assert_int_equal(
		clockmap_parse_now("entries: 0\noverrun: 0\noldest event ts:     0.000000\n"
				   "now ts:   403.425885\ndropped events: 0\n"),
		403425885500ULL);
	assert_int_equal(clockmap_parse_now("now ts: 1.000001\n"), 1000001500ULL);
	assert_int_equal(clockmap_parse_now("entries: 0\n"), 0);
	assert_int_equal(clockmap_parse_now("now ts: \n"), 0);
	assert_int_equal(clockmap_parse_now("now ts: x.5\n"), 0);
}

/* The kept clock runs 50 ppm fast against CLOCK_MONOTONIC and starts 20 ms ahead; paired
 * every second, the map is within a few microseconds after the first second and never goes
 * back. */
static void test_follows_drift(void **state)
{
	(void)state;
	struct clockmap m = {0};
	const uint64_t mono0 = 1000000000000ULL, ahead = 20000000ULL;
#define RAW_OF(mono) ((mono0 + ahead) + (uint64_t)(((mono)-mono0) * (1.0 + 50e-6)))
	clockmap_pair(&m, RAW_OF(mono0), mono0);
	assert_int_equal(clockmap_mono(&m, RAW_OF(mono0)), mono0);
	uint64_t last = 0;
	for (int s = 1; s <= 60; s++) {
		uint64_t mono = mono0 + (uint64_t)s * 1000000000ULL;
		/* Between pairings, at every 10 ms: rising, and near from the second second on. */
		for (uint64_t t = mono - 1000000000ULL; t < mono; t += 10000000ULL) {
			uint64_t got = clockmap_mono(&m, RAW_OF(t));
			assert_true(got > last);
			last = got;
			int64_t err = (int64_t)(got - t);
			if (s > 2)
				assert_true(err > -5000 && err < 5000);
		}
		clockmap_pair(&m, RAW_OF(mono), mono);
	}
	assert_true(m.worst_err < 60000); /* 50 us: the first second's, before any rate */
	assert_int_equal(m.pairs, 61);
	/* The reverse, for the reader's limits. */
	uint64_t mono = mono0 + 30500000000ULL;
	int64_t back = (int64_t)(clockmap_raw(&m, mono) - RAW_OF(mono));
	assert_true(back > -5000 && back < 5000);
#undef RAW_OF
}

/* Times are mapped by the piece they fall in: a late CPU's time from before the last pairing
 * maps as it would have then, and the pieces meet (no step at a pairing). */
static void test_pieces_continuous(void **state)
{
	(void)state;
	struct clockmap m = {0};
	clockmap_pair(&m, 5000000000ULL, 1000000000ULL);
	uint64_t before = clockmap_mono(&m, 5900000000ULL);
	assert_int_equal(before, 1900000000ULL);
	/* 1 ms behind at the next pairing: the new piece starts where the old one is. */
	clockmap_pair(&m, 6000000000ULL, 2001000000ULL);
	assert_int_equal(clockmap_mono(&m, 6000000000ULL), 2000000000ULL);
	assert_int_equal(clockmap_mono(&m, 5900000000ULL), before);
	/* Then it gains the millisecond over a second (rate 1.001), no faster. */
	assert_int_equal(clockmap_mono(&m, 7000000000ULL), 3001000000ULL);
	/* A pairing that is no later than the newest piece changes nothing. */
	clockmap_pair(&m, 6000000000ULL, 9000000000ULL);
	assert_int_equal(m.pairs, 2);
	/* 1 s apart or more: a jump, taken at once from the pairing. */
	clockmap_pair(&m, 8000000000ULL, 9000000000ULL);
	assert_int_equal(clockmap_mono(&m, 8000000000ULL), 9000000000ULL);
	assert_int_equal(clockmap_mono(&m, 8000000500ULL), 9000000500ULL);
}

/* More pairings than pieces kept: the oldest go, times before them map by the oldest kept. */
static void test_pieces_wrap(void **state)
{
	(void)state;
	struct clockmap m = {0};
	for (int i = 0; i < 3 * CLOCKMAP_PIECES; i++)
		clockmap_pair(&m, (uint64_t)(i + 1) * 1000000000ULL,
			      (uint64_t)(i + 1) * 1000000000ULL + 7);
	assert_int_equal(m.n, CLOCKMAP_PIECES);
	uint64_t prev = 0;
	for (uint64_t raw = 500000000ULL; raw < 50000000000ULL; raw += 250000000ULL) {
		uint64_t got = clockmap_mono(&m, raw);
		assert_true(got > prev);
		prev = got;
	}
	assert_int_equal(clockmap_mono(&m, 40000000000ULL), 40000000007ULL);
}

/* A real stats file (this machine's top level), when it can be read: paired within a
 * millisecond of what a second read says. */
static void test_real_stats(void **state)
{
	(void)state;
	const char *path = "/sys/kernel/tracing/per_cpu/cpu0/stats";
	struct clockmap m;
	if (clockmap_open(&m, path)) {
		printf("# skipped: %s cannot be read here\n", path);
		return;
	}
	assert_int_equal(m.pairs, 1);
	assert_int_equal(clockmap_sync(&m, m.synced + 1), 0); /* within the second: no read */
	assert_int_equal(m.pairs, 1);
	assert_int_equal(clockmap_sync(&m, m.synced + 1000000000ULL), 0);
	assert_int_equal(m.pairs, 2);
	assert_true(m.worst_err < 1000000);
	clockmap_close(&m);
	assert_null(m.path);
	assert_int_equal(clockmap_open(&m, "/nonexistent/stats"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_now),	  cmocka_unit_test(test_follows_drift),
		cmocka_unit_test(test_pieces_continuous), cmocka_unit_test(test_pieces_wrap),
		cmocka_unit_test(test_real_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
