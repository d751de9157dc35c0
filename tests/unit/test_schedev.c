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

#include "domain/schedev.h"
#include "join/span.h"
#include "tool.h"

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

/* --- waits paired around switches the kernel did not record --------------------------------- */

/* Task numbers of the sequences below (the idle task is 0). */
enum { A = 101, B = 102, C = 103, D = 104, L = 105, Y = 106, P = 200, Q = 201 };

static struct {
	int n;
	uint64_t k[16], ns[16];
} waits;

static void on_wait(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		    void *data, void *ctx)
{
	(void)end;
	(void)data;
	(void)ctx;
	(void)st;
	if (waits.n < 16)
		waits.ns[waits.n] = ns;
	waits.n++;
}

static struct tep_record rec0;

static void runq(struct sched_events *se, struct span *s)
{
	memset(se, 0, sizeof(*se));
	memset(&waits, 0, sizeof(waits));
	se->sleeping = 0xff;
	assert_int_equal(span_init(s, 64, 0, SPAN_LOSS_ALL, on_wait, NULL), 0);
	se->runq = s;
}

/* runqlat's events, one at a time: wake(cpu, ts, by, tid), sw(cpu, ts, prev, state, next) */
static void wake(struct sched_events *se, int cpu, uint64_t ts, long long by, long long tid)
{
	sched_runq_woken(se, cpu, ts, by, tid);
}

static void sw(struct sched_events *se, int cpu, uint64_t ts, long long prev, long long state,
	       long long next, const char *comm)
{
	sched_runq_switch(se, &rec0, cpu, ts, prev, state, next, comm, strlen(comm));
}

/* A switched to B on CPU 0; then C, never switched in there, switches to D: the switch from B
 * to C was not recorded. B's wait and D's are both known (their wake-up and the switch that
 * ran them) and counted; only C's is not (its switch in was unseen); one break, B's. */
static void test_unseen_switch(void **state)
{
	(void)state;
	struct sched_events se;
	struct span s;
	runq(&se, &s);
	wake(&se, 0, 100, A, B);
	wake(&se, 1, 110, P, C);
	wake(&se, 1, 120, P, D);
	sw(&se, 0, 200, A, 1, B, "b");
	/* B -> C on CPU 0 at 300, not recorded */
	sw(&se, 0, 400, C, 1, D, "d");
	assert_int_equal(waits.n, 2);
	assert_int_equal(waits.ns[0], 100);
	assert_int_equal(waits.ns[1], 280);
	assert_int_equal(se.chain.breaks, 1);
	assert_int_equal(se.chain.unseen[0].pid, B);
	assert_string_equal(se.chain.unseen[0].comm, "b");
	assert_int_equal(s.unpaired, 0);
	span_free(&s);
	sched_chain_free(&se.chain);
}

/* L runs on CPU 0 and leaves it unseen for Y; Y wakes L there and switches to it. The wake-up
 * was recorded on CPU 0 by Y: L had left, and this wait of L's has both ends known. It was
 * forgotten when the break was found at Y's switch (0 waits counted, where 1 is right); the
 * break is counted once. */
static void test_woken_after_unseen_out(void **state)
{
	(void)state;
	struct sched_events se;
	struct span s;
	runq(&se, &s);
	wake(&se, 0, 100, A, L);
	sw(&se, 0, 200, A, 1, L, "l");
	assert_int_equal(waits.n, 1);
	/* L -> Y on CPU 0 at 300, not recorded; Y wakes L at 350 */
	wake(&se, 0, 350, Y, L);
	sw(&se, 0, 400, Y, 1, L, "l");
	assert_int_equal(waits.n, 2);
	assert_int_equal(waits.ns[1], 50);
	assert_int_equal(se.chain.breaks, 1);
	assert_int_equal(se.chain.unseen[0].pid, L);
	assert_int_equal(se.chain.unseen[0].n, 1);
	/* A wake-up of L by L itself, on its CPU, is no sign: L may still run (a wake-up that
	 * finds it running); L then leaves unseen and comes back: that start is forgotten. */
	wake(&se, 0, 450, L, L);
	assert_int_equal(se.chain.breaks, 1);
	/* L -> Q at 480 unseen */
	sw(&se, 0, 500, Q, 1, A, "a");
	sw(&se, 1, 520, P, 1, L, "l");
	assert_int_equal(waits.n, 2);
	assert_int_equal(se.chain.breaks, 2);
	assert_int_equal(se.chain.unseen[0].n, 2);
	span_free(&s);
	sched_chain_free(&se.chain);
}

/* Under -L (and -p) the kernel records the switches between the traced task and others: the
 * others' wake-ups are not recorded, and their switches in would be ends without a start said
 * at the end. Only the traced task's count. */
static void test_traced_only(void **state)
{
	(void)state;
	struct sched_events se;
	struct span s;
	static struct tool_run t;
	runq(&se, &s);
	t.o.tid = A;
	se.t = &t;
	se.chain.off = true;
	wake(&se, 0, 100, P, A);
	sw(&se, 0, 200, P, 0, A, "a");
	sw(&se, 0, 300, A, 0, B, "b"); /* preempted by B, whose wake-up was not recorded */
	sw(&se, 0, 400, C, 1, A, "a"); /* C's switch in and out: not recorded */
	assert_int_equal(waits.n, 2);
	assert_int_equal(waits.ns[1], 100);
	assert_int_equal(s.unpaired, 0);
	assert_int_equal(s.paired, 2);
	assert_int_equal(se.chain.breaks, 0);
	span_free(&s);
}

/* cpudist's slices around a switch out of B not recorded (B -> C, C never switched in):
 * A's and D's slices counted; B's (its end) and C's (its start) unknown, said once with the
 * break, not as a slice without a start (it was, before: 1 unpaired) nor a start replaced. */
static void test_slices(void **state)
{
	(void)state;
	for (int off = 0; off <= 1; off++) {
		struct sched_events se;
		struct span s;
		runq(&se, &s);
		sched_slice_switch(&se, &s, off, &rec0, 0, 50, P, A, "a", 1);
		sched_slice_switch(&se, &s, off, &rec0, 0, 100, A, B, "b", 1);
		sched_slice_switch(&se, &s, off, &rec0, 1, 150, Q, C, "c", 1);
		sched_slice_switch(&se, &s, off, &rec0, 1, 160, C, Q, "q", 1);
		/* B -> C on CPU 0 at 200, not recorded */
		sched_slice_switch(&se, &s, off, &rec0, 0, 300, C, D, "d", 1);
		sched_slice_switch(&se, &s, off, &rec0, 0, 400, D, A, "a", 1);
		assert_int_equal(se.chain.breaks, 1);
		assert_int_equal(s.replaced, 0);
		if (!off) {
			/* A 50..100, C 150..160, D 300..400; P, Q began before */
			assert_int_equal(waits.n, 3);
			assert_int_equal(waits.ns[2], 100);
			assert_int_equal(s.unpaired, 2);
		} else {
			/* Q 150..160, A 100..400; P, C (160..unseen), D before */
			assert_int_equal(waits.n, 2);
			assert_int_equal(waits.ns[1], 300);
		}
		span_free(&s);
		sched_chain_free(&se.chain);
	}
}

static void report(const void *arg)
{
	sched_chain_report(arg, "runqlat", 0, "the wait of the task switched in unseen");
}

/* The message names the tasks whose switches out went unseen, the most first, three at most. */
static void test_report(void **state)
{
	(void)state;
	static struct sched_chain c;
	const char *names[] = {"swapper/1", "x\nbad", "tokio-rt-worker", "tokio-rt-worker", "e"};
	long long pids[] = {0, 7, 68, 69, 8};
	int times[] = {9, 5, 3, 2, 1};
	sched_chain_step(&c, 1, 1000, 1002, "z", 1);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < times[i]; j++) {
			sched_chain_step(&c, 1, 1002, pids[i], names[i], strlen(names[i]));
			/* not from pids[i]: its switch out was not recorded */
			sched_chain_step(&c, 1, 1001, 1002, "z", 1);
		}
	char err[1024];
	assert_int_equal(run_child(report, &c, err, sizeof(err)), 0);
	assert_string_equal(err, "runqlat: the kernel recorded no event for at least 20 switches, "
				 "out of swapper/1 (PID 0, 9), x\\x0abad (PID 7, 5), "
				 "tokio-rt-worker (PID 68, 3) and other tasks (3): the wait of the "
				 "task switched in unseen is not counted\n");
	sched_chain_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels),	      cmocka_unit_test(test_shifted),
		cmocka_unit_test(test_filter),	      cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_unseen_switch), cmocka_unit_test(test_woken_after_unseen_out),
		cmocka_unit_test(test_traced_only),   cmocka_unit_test(test_slices),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
