// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hist trigger tables read back (histtable.h), on the hist files of the kernels of the matrix
 * that have hist triggers with synthetic events (tests/fixtures/sched-kernels, recorded by
 * record-sched-kernels.sh in each): four tables of the same wake-up latencies, paired in the
 * kernel: by .log2 alone, per thread and .log2, exactly, and per thread in a table too small
 * for them. The oracles are the kernel's own: each table's Totals, and the four tables'
 * agreement with one another (the exact values binned by the kernel's log2 rule, 2^k holding
 * (2^(k-1), 2^k], give the .log2 table).
 */
#include "helpers.h"

#include "kernel/histtable.h"

static const char *const kernels[] = {
	"4.18.0-147.5.1.el8_1.x86_64",
	"4.19.222",
	"6.1.0-50-amd64",
	"6.12.95+deb12-amd64",
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static void parse(const char *text, const char *which, int nkeys, struct histtable *h)
{
	char why[256] = "";
	if (histtable_parse(text, which, nkeys, h, why, sizeof(why)))
		fail_msg("table '%s': %s", which, why);
}

static uint64_t sum(const struct histtable *h)
{
	uint64_t s = 0;
	for (size_t i = 0; i < h->n; i++)
		s += h->e[i].hits;
	return s;
}

/* The kernel's .log2 of v: v rounded up to a power of two, its exponent (0 and 1: 0). */
static int kernel_log2(uint64_t v)
{
	int k = 0;
	while (k < 64 && (1ULL << k) < v)
		k++;
	return k;
}

static void test_tables(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kernels) / sizeof(*kernels); i++) {
		char path[512];
		snprintf(path, sizeof(path), FIXTURES "/sched-kernels/%s/ftxl.hist", kernels[i]);
		const char *text = slurp(path);
		struct histtable log2 = {0}, per = {0}, exact = {0}, small = {0};
		parse(text, "keys=lat.log2:", 1, &log2);
		parse(text, "keys=pid,lat.log2:", 2, &per);
		parse(text, "keys=lat:", 1, &exact);
		parse(text, "keys=pid:", 1, &small);
		/* each table's entries sum to its Hits, and there are Entries of them */
		const struct histtable *all[] = {&log2, &per, &exact, &small};
		for (int t = 0; t < 4; t++) {
			assert_int_equal(sum(all[t]), all[t]->hits);
			assert_int_equal(all[t]->n, all[t]->entries);
		}
		assert_true(log2.hits > 100);
		assert_int_equal(log2.dropped, 0);
		/* the same pairs in all four */
		assert_int_equal(per.hits, log2.hits);
		assert_int_equal(exact.hits, log2.hits);
		/* the small table: its keys filled it, the rest were dropped and said */
		assert_int_equal(small.n, 128);
		assert_true(small.dropped > 0);
		assert_int_equal(small.hits + small.dropped, log2.hits);
		/* per thread, summed over the threads: the log2 table */
		uint64_t by_bucket[65] = {0}, exact_bucket[65] = {0};
		for (size_t e = 0; e < per.n; e++) {
			assert_true(per.e[e].key[1] <= 64);
			by_bucket[per.e[e].key[1]] += per.e[e].hits;
		}
		for (size_t e = 0; e < exact.n; e++)
			exact_bucket[kernel_log2(exact.e[e].key[0])] += exact.e[e].hits;
		for (int k = 0; k <= 64; k++) {
			uint64_t k64 = (uint64_t)k;
			const struct histtable_entry *le = histtable_find(&log2, &k64);
			uint64_t n = le ? le->hits : 0;
			if (by_bucket[k] != n || exact_bucket[k] != n)
				fail_msg("%s: 2^%d: %llu in the log2 table, %llu per thread, %llu "
					 "from the exact values",
					 kernels[i], k, (unsigned long long)n,
					 (unsigned long long)by_bucket[k],
					 (unsigned long long)exact_bucket[k]);
		}
		/* a table with variables only (the starts': ts0 per thread) reads alike */
		snprintf(path, sizeof(path), FIXTURES "/sched-kernels/%s/ftxs.hist", kernels[i]);
		struct histtable starts = {0};
		parse(slurp(path), "ts0=", 1, &starts);
		assert_int_equal(sum(&starts), starts.hits);
		assert_true(starts.n > 10);
		for (int t = 0; t < 4; t++)
			histtable_free((struct histtable *)all[t]);
		histtable_free(&starts);
	}
}

/* Two reads of a table that only grows: what was counted between them. */
static void test_sub(void **state)
{
	(void)state;
	static const char before[] = "# event histogram\n#\n# trigger info: hist:keys=pid,b.log2:"
				     "vals=hitcount [active]\n#\n\n"
				     "{ pid:        12, b: ~ 2^3  } hitcount:          4\n"
				     "{ pid:         7, b: ~ 2^0  } hitcount:          1\n"
				     "\nTotals:\n    Hits: 5\n    Entries: 2\n    Dropped: 1\n";
	static const char now[] = "# event histogram\n#\n# trigger info: hist:keys=pid,b.log2:"
				  "vals=hitcount [active]\n#\n\n"
				  "{ pid:         7, b: ~ 2^0  } hitcount:          3\n"
				  "{ pid:        12, b: ~ 2^3  } hitcount:          4\n"
				  "{ pid:        12, b: ~ 2^10 } hitcount:          2\n"
				  "\nTotals:\n    Hits: 9\n    Entries: 3\n    Dropped: 3\n";
	struct histtable a = {0}, b = {0};
	parse(before, "b.log2", 2, &a);
	parse(now, NULL, 2, &b);
	histtable_sub(&b, &a);
	assert_int_equal(b.hits, 4);
	assert_int_equal(b.dropped, 2);
	uint64_t k1[] = {7, 0}, k2[] = {12, 3}, k3[] = {12, 10}, k4[] = {12, 4};
	assert_int_equal(histtable_find(&b, k1)->hits, 2);
	assert_int_equal(histtable_find(&b, k2)->hits, 0);
	assert_int_equal(histtable_find(&b, k3)->hits, 2);
	assert_null(histtable_find(&b, k4));
	histtable_free(&a);
	histtable_free(&b);
}

/* A .buckets=N key (Linux 5.15) is read as its low end, beside a .log2 key and a number. */
static void test_buckets(void **state)
{
	(void)state;
	const char *text =
		"# trigger info: hist:keys=bytes.buckets=4096,lat.log2,pid:vals=hitcount [active]\n"
		"{ bytes: ~ 4096-8191, lat: ~ 2^3 , pid:        12 } hitcount:          7\n"
		"{ bytes: ~ 0-4095, lat: ~ 2^0 , pid:         1 } hitcount:          2\n"
		"{ bytes: ~ 18446744073709547520-18446744073709551615, lat: ~ 2^64, pid: 3 } "
		"hitcount: 1\n"
		"\nTotals:\n    Hits: 10\n    Entries: 3\n    Dropped: 0\n";
	struct histtable h = {0};
	char why[256] = "";
	if (histtable_parse(text, "bytes.buckets=4096", 3, &h, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(h.n, 3);
	assert_int_equal(h.e[0].key[0], 0);
	assert_int_equal(h.e[0].key[1], 0);
	assert_int_equal(h.e[0].hits, 2);
	assert_int_equal(h.e[1].key[0], 4096);
	assert_int_equal(h.e[1].key[1], 3);
	assert_int_equal(h.e[1].key[2], 12);
	assert_int_equal(h.e[2].key[0], 18446744073709547520ULL);
	assert_int_equal(h.e[2].key[1], 64);
	histtable_free(&h);
}

/* What is not a table of numeric keys is refused with the reason, never half read. */
static void test_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		/* no table for that trigger */
		"# event histogram\n# trigger info: hist:keys=x:vals=hitcount [active]\n\n"
		"Totals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n",
		/* a string key (a name with spaces or a brace could not be told apart) */
		"# trigger info: hist:keys=comm:vals=hitcount [active]\n"
		"{ comm: bash } hitcount:          1\n"
		"Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		/* one key where two are asked */
		"# trigger info: hist:keys=lat:vals=hitcount [active]\n"
		"{ lat:          3 } hitcount:          1\n"
		"Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		/* cut short: no totals */
		"# trigger info: hist:keys=lat:vals=hitcount [active]\n"
		"{ lat:          3 } hitcount:          1\n",
		/* a number past 64 bits */
		"# trigger info: hist:keys=lat:vals=hitcount [active]\n"
		"{ lat: 99999999999999999999999 } hitcount:          1\n"
		"Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		/* an exponent past 64 */
		"# trigger info: hist:keys=lat.log2:vals=hitcount [active]\n"
		"{ lat: ~ 2^65 } hitcount:          1\n"
		"Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		/* a bucket with no high end, and one whose high end is below its low */
		"# trigger info: hist:keys=lat.buckets=10:vals=hitcount [active]\n"
		"{ lat: ~ 10- } hitcount:          1\n"
		"Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		"# trigger info: hist:keys=lat.buckets=10:vals=hitcount [active]\n"
		"{ lat: ~ 20-19 } hitcount:          1\n"
		"Totals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
	};
	static const char *const which[] = {"keys=lat", "comm", "lat", "lat",
					    "lat",	"lat",	"lat", "lat"};
	static const int nkeys[] = {1, 1, 2, 1, 1, 1, 1, 1};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct histtable h = {0};
		char why[256] = "";
		assert_int_equal(histtable_parse(bad[i], which[i], nkeys[i], &h, why, sizeof(why)),
				 -1);
		assert_true(why[0] != 0);
		histtable_free(&h);
	}
	/* a line of 100 KB: refused, no overflow */
	size_t len = 100 * 1024;
	char *big = malloc(len + 200);
	assert_non_null(big);
	strcpy(big, "# trigger info: hist:keys=lat:vals=hitcount [active]\n{ lat: ");
	size_t o = strlen(big);
	memset(big + o, '1', len);
	strcpy(big + o + len, " } hitcount: 1\nTotals:\n Hits: 1\n Entries: 1\n Dropped: 0\n");
	struct histtable h = {0};
	char why[256];
	assert_int_equal(histtable_parse(big, "lat", 1, &h, why, sizeof(why)), -1);
	histtable_free(&h);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_sub),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_buckets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
