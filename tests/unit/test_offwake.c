// SPDX-License-Identifier: GPL-2.0-only
/* offwake: kernel stacks cut at the scheduler's frame; times summed by a pair of stacks,
 * counted, named "A;--;B", merged by name, largest first. */
#include "helpers.h"

#include "domain/offwake.h"
#include "stream/ksym.h"
#include "stream/usym.h"

struct seen {
	char text[4096];
	size_t len;
};

static void take(const char *line, uint64_t count, uint64_t ns, void *ctx)
{
	struct seen *s = ctx;
	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s %llu %llu\n",
				   line, (unsigned long long)count, (unsigned long long)ns);
}

static struct offwake_stack stack(const char *comm, int tgid, unsigned long long k0,
				  unsigned long long k1)
{
	struct offwake_stack s = {0};
	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	s.tgid = tgid;
	s.k[0] = k0;
	s.k[1] = k1;
	s.nk = k1 ? 2 : k0 ? 1 : 0;
	return s;
}

/* Counts and times by pair; pairs of other processes with the same names one line; the
 * largest time first; a reset forgets all. */
static void test_sums(void **state)
{
	(void)state;
	struct offwake_sums w;
	assert_int_equal(offwake_sums_init(&w, NULL, false, NULL, NULL), 0);
	struct offwake_stack a = stack("ping", 0x7ffffffe, 0x1000, 0x2000);
	struct offwake_stack b = stack("pong", 0x7ffffffe, 0, 0);
	struct offwake_stack a2 = stack("ping", 0x7ffffffd, 0x1000, 0x2000);
	struct offwake_stack c = stack("x;y", 1, 0x3000, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(offwake_add(&w, &a, &b, 100), 0);
	assert_int_equal(offwake_add(&w, &a2, &b, 50), 0);
	assert_int_equal(offwake_add(&w, &c, &b, 1000), 0);
	struct seen s = {{0}, 0};
	assert_int_equal(offwake_visit(&w, take, &s), 2);
	assert_string_equal(s.text, "x\\x3by;0x3000_[k];--;pong 1 1000\n"
				    "ping;0x2000_[k];0x1000_[k];--;pong 4 350\n");
	offwake_reset(&w);
	s.len = 0;
	s.text[0] = 0;
	assert_int_equal(offwake_visit(&w, take, &s), 0);
	assert_string_equal(s.text, "");
	offwake_sums_free(&w);
}

/* reverse_b: the second stack leaf first, its name last (offwaketime's waker). */
static void test_reverse_b(void **state)
{
	(void)state;
	struct offwake_sums w;
	assert_int_equal(offwake_sums_init(&w, NULL, true, NULL, NULL), 0);
	struct offwake_stack a = stack("t", 0x7ffffffe, 0x1000, 0x2000);
	struct offwake_stack b = stack("w", 0x7ffffffe, 0x3000, 0x4000);
	assert_int_equal(offwake_add(&w, &a, &b, 7), 0);
	struct seen s = {{0}, 0};
	offwake_visit(&w, take, &s);
	assert_string_equal(s.text, "t;0x2000_[k];0x1000_[k];--;0x3000_[k];0x4000_[k];w 1 7\n");
	offwake_sums_free(&w);
}

/* The kernel frames above the top function are dropped (learnt by name, then by address);
 * a stack without it is kept whole. */
static void test_trim(void **state)
{
	(void)state;
	char path[] = "/tmp/ftt-test-offwake.XXXXXX";
	const char *text = "ffffffff81000000 T trace_event_raw\n"
			   "ffffffff81000100 T try_to_wake_up\n"
			   "ffffffff81000200 T pipe_write\n";
	temp_file(path, text);
	struct ksyms *k = ksym_load_file(path);
	unlink(path);
	assert_non_null(k);
	struct offwake_trailers tr;
	offwake_trailers_init(&tr, NULL, NULL, k, "try_to_wake_up");
	for (int round = 0; round < 2; round++) {
		struct offwake_stack s = {0};
		s.k[0] = 0xffffffff81000010ULL;
		s.k[1] = 0xffffffff81000110ULL;
		s.k[2] = 0xffffffff81000210ULL;
		s.nk = 3;
		offwake_stack_trim(&tr, &s);
		assert_int_equal(s.nk, 2);
		assert_true(s.k[0] == 0xffffffff81000110ULL && s.k[1] == 0xffffffff81000210ULL);
	}
	assert_true(tr.top_ret[0] == 0xffffffff81000110ULL);
	struct offwake_stack s = {0};
	s.k[0] = 0xffffffff81000210ULL;
	s.nk = 1;
	offwake_stack_trim(&tr, &s);
	assert_int_equal(s.nk, 1);
	ksym_free(k);
}

/* Sums cut each side's kernel frames at its own top when they are named (at the visit): the
 * frames above it dropped, pairs that differ only there one line; a stack without its top
 * kept whole. */
static void test_sums_trim(void **state)
{
	(void)state;
	char path[] = "/tmp/ftt-test-offwake.XXXXXX";
	const char *text = "ffffffff81000000 T trace_event_raw\n"
			   "ffffffff81000100 T try_to_wake_up\n"
			   "ffffffff81000200 T pipe_write\n"
			   "ffffffff81000300 T __schedule\n"
			   "ffffffff81000400 T pipe_read\n";
	temp_file(path, text);
	struct ksyms *k = ksym_load_file(path);
	unlink(path);
	assert_non_null(k);
	struct offwake_sums w;
	assert_int_equal(offwake_sums_init(&w, k, false, "__schedule", "try_to_wake_up"), 0);
	struct offwake_stack a = stack("t", 0x7ffffffe, 0xffffffff81000010ULL, 0);
	a.k[1] = 0xffffffff81000310ULL, a.k[2] = 0xffffffff81000410ULL, a.nk = 3;
	struct offwake_stack a2 = a; /* another tracing frame above __schedule */
	a2.k[0] = 0xffffffff81000020ULL;
	struct offwake_stack b = stack("w", 0x7ffffffe, 0xffffffff81000010ULL, 0);
	b.k[1] = 0xffffffff81000110ULL, b.k[2] = 0xffffffff81000210ULL, b.nk = 3;
	struct offwake_stack c = stack("w", 0x7ffffffe, 0xffffffff81000210ULL, 0); /* no top */
	assert_int_equal(offwake_add(&w, &a, &b, 5), 0);
	assert_int_equal(offwake_add(&w, &a2, &b, 6), 0);
	assert_int_equal(offwake_add(&w, &a, &c, 1), 0);
	struct seen s = {{0}, 0};
	assert_int_equal(offwake_visit(&w, take, &s), 2);
	assert_string_equal(s.text, "t;pipe_read_[k];__schedule_[k];--;w;pipe_write_[k];"
				    "try_to_wake_up_[k] 2 11\n"
				    "t;pipe_read_[k];__schedule_[k];--;w;pipe_write_[k] 1 1\n");
	offwake_sums_free(&w);
	ksym_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_reverse_b),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_sums_trim),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	usym_addr_free();
	return rc;
}
