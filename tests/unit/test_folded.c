// SPDX-License-Identifier: GPL-2.0-only
/* folded: stacks counted by address, named once, printed root first, merged by name. */
#include "helpers.h"

#include "stream/folded.h"
#include "stream/ksym.h"
#include "stream/usym.h"

/* Print f into a string. */
static char *printed(struct folded *f, size_t *lines)
{
	static char buf[8192];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(m);
	*lines = folded_print(f, m);
	fclose(m);
	return buf;
}

static void test_frame_escapes(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(folded_frame("a;b\\c\nd\x7f", buf, sizeof(buf)),
			    "a\\x3bb\\x5cc\\x0ad\\x7f");
	assert_string_equal(folded_frame("caf\xc3\xa9 x", buf, sizeof(buf)), "caf\xc3\xa9 x");
	/* cut to fit, never in the middle of an escape */
	assert_string_equal(folded_frame(";;;;", buf, 12), "\\x3b\\x3b");
}

/*
 * Without kernel symbols, kernel frames are addresses with _[k]; user frames of a process
 * that is gone are [unknown]. Root first: user frames outermost first, then kernel frames
 * outermost first (the kernel records both leaf first). Two processes with the same names
 * fold into one line; a stack without frames is the task's name alone.
 */
static void test_root_first_and_merged(void **state)
{
	(void)state;
	struct folded *f = folded_new(NULL);
	assert_non_null(f);
	unsigned long long k[2] = {0xffffffff81000010ULL, 0xffffffff81000020ULL}, u[1] = {0x401000};
	/* tgid 0x7ffffffe: no such process, so user frames cannot be named */
	assert_int_equal(folded_add(f, "app", 0x7ffffffe, k, 2, u, 1), 0);
	assert_int_equal(folded_add(f, "app", 0x7ffffffe, k, 2, u, 1), 0);
	assert_int_equal(folded_add(f, "app", 0x7ffffffd, k, 2, u, 1), 0);
	assert_int_equal(folded_add(f, "a;b", 1, NULL, 0, NULL, 0), 0);
	assert_int_equal(folded_total(f), 4);
	size_t lines;
	char *out = printed(f, &lines);
	assert_int_equal(lines, 2);
	assert_string_equal(out, "a\\x3bb 1\n"
				 "app;[unknown];0xffffffff81000020_[k];0xffffffff81000010_[k] 3\n");
	folded_free(f);
	usym_addr_free();
}

/* Weighted (offcputime's nanoseconds): a stack's line carries the sum of its weights, the
 * total counts the stacks added. */
static void test_weights(void **state)
{
	(void)state;
	struct folded *f = folded_new(NULL);
	unsigned long long k[1] = {0x1000};
	assert_int_equal(folded_add_n(f, "t", 1, k, 1, NULL, 0, 1500000000000ULL), 0);
	assert_int_equal(folded_add_n(f, "t", 2, k, 1, NULL, 0, 7), 0);
	/* a weight of 0 adds nothing (no line of 0) */
	assert_int_equal(folded_add_n(f, "u", 2, k, 1, NULL, 0, 0), 0);
	assert_int_equal(folded_total(f), 2);
	size_t lines;
	char *out = printed(f, &lines);
	assert_int_equal(lines, 1);
	assert_string_equal(out, "t;0x1000_[k] 1500000000007\n");
	folded_free(f);
}

/* A kernel stack deeper than kept: the frames nearest the event stay. */
static void test_deep_stack(void **state)
{
	(void)state;
	struct folded *f = folded_new(NULL);
	unsigned long long k[FOLDED_KFRAMES + 5];
	for (int i = 0; i < FOLDED_KFRAMES + 5; i++)
		k[i] = 0x1000 + (unsigned long long)i;
	assert_int_equal(folded_add(f, "t", 1, k, FOLDED_KFRAMES + 5, NULL, 0), 0);
	size_t lines;
	char *out = printed(f, &lines);
	assert_int_equal(lines, 1);
	char want[64];
	snprintf(want, sizeof(want), "t;0x%x_[k];", 0x1000 + FOLDED_KFRAMES - 1);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, ";0x1000_[k] 1\n"));
	folded_free(f);
}

/* A return address is looked up one byte before it: a call that does not return can be its
 * caller's last instruction, and its return address the next function's first byte (seen:
 * x86_64_start_kernel;__pfx_clear_bss;start_kernel). The innermost frame is exact. */
static void test_return_addresses(void **state)
{
	(void)state;
	char path[] = "/tmp/ftt-test-folded.XXXXXX";
	const char *text = "ffffffff81000000 T caller\n"
			   "ffffffff81000100 T next_function\n"
			   "ffffffff81000200 T leaf\n";
	temp_file(path, text);
	struct ksyms *k = ksym_load_file(path);
	unlink(path);
	assert_non_null(k);
	struct folded *f = folded_new(k);
	assert_non_null(f);
	/* leaf at leaf's first byte; caller's return address = next_function's first byte */
	unsigned long long stack[2] = {0xffffffff81000200ULL, 0xffffffff81000100ULL};
	assert_int_equal(folded_add(f, "t", 0x7ffffffe, stack, 2, NULL, 0), 0);
	size_t lines;
	assert_string_equal(printed(f, &lines), "t;caller_[k];leaf_[k] 1\n");
	folded_free(f);
	ksym_free(k);
}

/* The lines read back (profile's and offcputime's text and JSON): split into stack and count,
 * by count with ties by stack, or as printed (by stack); many distinct stacks, each kept
 * apart (the table grows past its first 256 slots). */
static void test_lines_read_back(void **state)
{
	(void)state;
	struct folded *f = folded_new(NULL);
	assert_non_null(f);
	for (unsigned long long i = 0; i < 1000; i++) {
		unsigned long long k[3] = {0xffffffff81000000ULL + i, 0xffffffff82000000ULL, i};
		assert_int_equal(folded_add_n(f, i < 500 ? "b" : "a", 1, k, 3, NULL, 0, i % 7 + 1),
				 0);
	}
	size_t size, n, got;
	char *text = folded_text(f, &size, &n);
	assert_non_null(text);
	assert_int_equal(n, 1000);
	assert_int_equal(strlen(text), size);
	struct folded_line *l = folded_split(text, n, &got, true);
	assert_non_null(l);
	assert_int_equal(got, 1000);
	unsigned long long sum = 0;
	for (size_t i = 0; i < got; i++) {
		sum += l[i].n;
		if (i)
			assert_true(
				l[i - 1].n > l[i].n ||
				(l[i - 1].n == l[i].n && strcmp(l[i - 1].stack, l[i].stack) < 0));
		assert_null(strchr(l[i].stack, ' '));
	}
	unsigned long long want = 0;
	for (unsigned long long i = 0; i < 1000; i++)
		want += i % 7 + 1;
	assert_int_equal(sum, want);
	free(l);
	free(text);
	text = folded_text(f, &size, &n);
	l = folded_split(text, n, &got, false); /* as printed: by stack */
	assert_int_equal(got, 1000);
	for (size_t i = 1; i < got; i++)
		assert_true(strcmp(l[i - 1].stack, l[i].stack) < 0);
	free(l);
	free(text);
	folded_free(f);
}

/* Kernel frames named late (profile: kallsyms read once, when printed): the same lines as a
 * table loaded at the start gives; an unreadable kallsyms gives the addresses. Stacks counted
 * after a print are named at the next one. */
static void test_named_late(void **state)
{
	(void)state;
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000200 t helper\n"
				   "ffffffffc0001000 T mod_fn\t[mod]\n"
				   "ffffffff81000400 t a;b\n";
	char file[] = "/tmp/ftt-test-folded-kallsyms.XXXXXX";
	temp_file(file, text);
	struct ksyms *k = ksym_load_file(file);
	struct folded *early = folded_new(k), *late = folded_new_late(file, 64, 8),
		      *none = folded_new_late("/nonexistent-ftt/kallsyms", 64, 8);
	assert_non_null(early);
	assert_non_null(late);
	unsigned long long s1[3] = {0xffffffff81000210ULL, 0xffffffff81000401ULL,
				    0xffffffffc0001001ULL},
			   s2[2] = {0xffffffff81000000ULL, 0xffffffff81000201ULL};
	struct folded *all[] = {early, late, none};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(folded_add(all[i], "app", 0x7ffffffe, s1, 3, NULL, 0), 0);
		assert_int_equal(folded_add(all[i], "app", 0x7ffffffe, s2, 2, NULL, 0), 0);
		assert_int_equal(folded_add(all[i], "app", 0x7ffffffe, s1, 3, NULL, 0), 0);
	}
	size_t n1, n2, n3;
	char want[8192], got[8192];
	snprintf(want, sizeof(want), "%s", printed(early, &n1));
	snprintf(got, sizeof(got), "%s", printed(late, &n2));
	assert_string_equal(got, want);
	assert_int_equal(n1, n2);
	assert_non_null(strstr(want, "app;mod_fn_[k];a\\x3bb_[k];helper_[k] 2\n"));
	assert_string_equal(printed(none, &n3),
			    "app;0xffffffff81000201_[k];0xffffffff81000000_[k] 1\n"
			    "app;0xffffffffc0001001_[k];0xffffffff81000401_[k];"
			    "0xffffffff81000210_[k] 2\n");
	/* a new stack after the print: named at the next */
	unsigned long long s3[1] = {0xffffffff81000250ULL};
	assert_int_equal(folded_add(late, "app", 0x7ffffffe, s3, 1, NULL, 0), 0);
	assert_non_null(strstr(printed(late, &n2), "app;helper_[k] 1\n"));
	assert_int_equal(n2, 3);
	/* cut at a top among the first 8 frames when named: the frames above it dropped */
	struct folded *cut = folded_new_late(file, 64, 8);
	assert_non_null(cut);
	folded_late_setup(cut, true, "helper");
	assert_int_equal(folded_add(cut, "app", 0x7ffffffe, s2, 2, NULL, 0), 0);
	assert_int_equal(folded_add(cut, "app", 0x7ffffffe, s1, 3, NULL, 0), 0);
	assert_string_equal(printed(cut, &n3), "app;helper_[k] 1\n"
					       "app;mod_fn_[k];a\\x3bb_[k];helper_[k] 1\n");
	folded_free(cut);
	folded_free(early);
	folded_free(late);
	folded_free(none);
	ksym_free(k);
	unlink(file);
	usym_addr_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_escapes),
		cmocka_unit_test(test_root_first_and_merged),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_return_addresses),
		cmocka_unit_test(test_lines_read_back),
		cmocka_unit_test(test_named_late),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
