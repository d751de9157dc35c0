// SPDX-License-Identifier: GPL-2.0-only
/*
 * sched_switch's prev_state as each kernel of the matrix encodes it, read from the format
 * files recorded there (tests/fixtures/sched-kernels, record-sched-kernels.sh; 6.18's from
 * sched-6.18): the bits that mean a task left the CPU to sleep are those whose rendering by
 * the kernel's own print format is not "R". The expected masks are the ones the print
 * formats spell: (4096-1) on 4.9, ((0x7f + 1) << 1) - 1 from 4.14 on.
 */
#include "helpers.h"

#include <event-parse.h>

#include "schedev.h"

static struct tep_event *load(struct tep_handle *tep, const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[16384];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	struct tep_event *ev = NULL;
	assert_int_equal(tep_parse_format(tep, &ev, buf, n, "sched"), 0);
	assert_non_null(ev);
	return ev;
}

static void check(const char *path, uint64_t want)
{
	struct tep_handle *tep = tep_alloc();
	assert_non_null(tep);
	tep_set_long_size(tep, 8);
	struct tep_event *sw = load(tep, path);
	uint64_t bits = 0;
	if (sched_sleeping_bits(tep, sw, &bits) || bits != want)
		fail_msg("%s: sleeping bits 0x%llx, the print format says 0x%llx", path,
			 (unsigned long long)bits, (unsigned long long)want);
	struct sched_events se = {.sleeping = bits};
	/* running (0), preempted (the bit just above the states), and each state */
	assert_true(sched_runnable(&se, 0));
	assert_true(sched_runnable(&se, (long long)(want + 1)));
	assert_false(sched_runnable(&se, 1));
	assert_false(sched_runnable(&se, 2));
	assert_false(sched_runnable(&se, (long long)((want + 1) | 1)));
	tep_free(tep);
}

static void test_kernels(void **state)
{
	(void)state;
	static const struct {
		const char *release;
		uint64_t sleeping;
	} k[] = {
		{"4.9.337", 0xfff},
		{"4.14.325", 0xff},
		{"4.18.0-147.5.1.el8_1.x86_64", 0xff},
		{"4.19.222", 0xff},
		{"5.10.0-32-amd64", 0xff},
		{"6.1.0-50-amd64", 0xff},
		{"6.12.95+deb12-amd64", 0xff},
	};
	char path[512];
	for (size_t i = 0; i < sizeof(k) / sizeof(*k); i++) {
		snprintf(path, sizeof(path), FIXTURES "/sched-kernels/%s/sched_switch.format",
			 k[i].release);
		check(path, k[i].sleeping);
	}
	check(FIXTURES "/sched-6.18/events/sched/sched_switch/format", 0xff);
}

/* A kernel that records the states one bit too high (RHEL 8.1's): told by the idle task's
 * switch, recorded 0x1 (S) where it is running; then running 0x1 and a preemption or an I
 * sleeper 0x100 are runnable, S 0x2 ... P 0x80 sleeping. An idle switch recorded 0 (right)
 * changes nothing, and a second 0x1 does not shift again. */
static void test_shifted(void **state)
{
	(void)state;
	struct sched_events se = {.sleeping = 0xff};
	sched_idle_switch(&se, 0);
	assert_false(se.shifted);
	assert_false(sched_runnable(&se, 1));
	sched_idle_switch(&se, 1);
	assert_true(se.shifted);
	sched_idle_switch(&se, 1);
	assert_int_equal(se.sleeping, 0xfe);
	assert_true(sched_runnable(&se, 1));
	assert_true(sched_runnable(&se, 0x100));
	for (int bit = 1; bit < 8; bit++)
		assert_false(sched_runnable(&se, 1LL << bit));
	/* 4.9's encoding (no such kernel): the bits above the states stay runnable */
	struct sched_events old = {.sleeping = 0xfff};
	sched_idle_switch(&old, 1);
	assert_true(sched_runnable(&old, 0x1000));
	assert_false(sched_runnable(&old, 0x800));
}

/* The filters the kernel is given for the same test. */
static void test_filter(void **state)
{
	(void)state;
	struct sched_events se = {.sleeping = 0xff};
	char buf[64];
	sched_state_filter(&se, true, buf, sizeof(buf));
	assert_string_equal(buf, "!(prev_state & 0xff)");
	sched_state_filter(&se, false, buf, sizeof(buf));
	assert_string_equal(buf, "prev_state & 0xff");
}

/* A format whose print fmt does not show prev_state as a state: refused, not guessed. */
static void test_unreadable(void **state)
{
	(void)state;
	static const char fmt[] =
		"name: sched_switch\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:long prev_state;\toffset:8;\tsize:8;\tsigned:1;\n\n"
		"print fmt: \"prev_state=%ld\", REC->prev_state\n";
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	assert_int_equal(tep_parse_format(tep, &ev, fmt, sizeof(fmt) - 1, "sched"), 0);
	uint64_t bits = 0;
	assert_int_equal(sched_sleeping_bits(tep, ev, &bits), -1);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_shifted),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_unreadable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
