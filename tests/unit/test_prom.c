// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include "count/prom.h"

static char dir[] = "/tmp/test_prom.XXXXXX";

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_escape(void **state)
{
	(void)state;
	char buf[128];
	assert_string_equal(prom_labels(buf, sizeof(buf), "comm", "a\\b\"c\nd", "pid", "7", NULL),
			    "comm=\"a\\\\b\\\"c\\nd\",pid=\"7\"");
	/* A byte that is not UTF-8 is U+FFFD; UTF-8 stays as it is. */
	assert_string_equal(prom_labels(buf, sizeof(buf), "c", "x\xff\xc3\xa9", NULL),
			    "c=\"x\xef\xbf\xbd\xc3\xa9\"");
	/* A kernel's comm: 16 bytes, no NUL. */
	const char comm[16] = "0123456789abcdef";
	assert_int_equal(prom_escape(buf, sizeof(buf), comm, 16), 16);
	assert_string_equal(buf, "0123456789abcdef");
	/* Too small: a pair is whole or not there. */
	char small[16];
	assert_string_equal(prom_labels(small, sizeof(small), "a", "1", "b", "22222222", NULL),
			    "a=\"1\"");
	assert_int_equal(prom_escape(small, 4, "\"\"\"", 3), SIZE_MAX);
	assert_string_equal(small, "\\\"");
}

/* The rows an interval could not keep: said once (on stderr), then counted afresh. */
static void test_say_lost(void **state)
{
	(void)state;
	uint64_t n = 0;
	prom_say_lost(&n, "t", "rows");
	assert_int_equal(n, 0);
	n = 3;
	prom_say_lost(&n, "t", "rows");
	assert_int_equal(n, 0);
}

static void test_file(void **state)
{
	(void)state;
	char path[256], tmp[300];
	snprintf(path, sizeof(path), "%s/t.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	struct prom p;
	assert_int_equal(prom_open(&p, path, "t"), 0);
	assert_int_equal(access(tmp, F_OK), -1); /* checked, not left */
	assert_int_equal(access(path, F_OK), -1);

	struct hist_log2 h = {0};
	hist_log2_add(&h, 0);
	hist_log2_add(&h, 1);
	hist_log2_add(&h, 3);	 /* [2,4): le 3 us */
	hist_log2_add(&h, 1023); /* [512,1024) */
	assert_int_equal(prom_begin(&p), 0);
	prom_family(&p, "ftrace_tools_t_calls_total", "counter", "calls\\by \"x\"\nend");
	char l[64];
	prom_uint(&p, "ftrace_tools_t_calls_total", prom_labels(l, sizeof(l), "k", "v", NULL), 12);
	prom_uint(&p, "ftrace_tools_t_calls_total", NULL, 3);
	prom_family(&p, "ftrace_tools_t_wait_seconds", "histogram", "waits");
	prom_hist(&p, "ftrace_tools_t_wait_seconds", NULL, &h, 1, PROM_US, 1027, PROM_US);
	/* Whole bytes counted in KiB slots: [1, 2) KiB holds up to 2047 bytes. */
	prom_hist(&p, "ftrace_tools_t_size_bytes", "d=\"sda\"", &h, 1024, PROM_ONE, 3072, PROM_ONE);
	/* Not there until committed. */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(prom_commit(&p), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_string_equal(slurp(path),
			    "# HELP ftrace_tools_t_calls_total calls\\\\by \"x\"\\nend\n"
			    "# TYPE ftrace_tools_t_calls_total counter\n"
			    "ftrace_tools_t_calls_total{k=\"v\"} 12\n"
			    "ftrace_tools_t_calls_total 3\n"
			    "# HELP ftrace_tools_t_wait_seconds waits\n"
			    "# TYPE ftrace_tools_t_wait_seconds histogram\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0\"} 1\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000001\"} 2\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000003\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000007\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000015\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000031\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000063\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000127\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000255\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.000511\"} 3\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"0.001023\"} 4\n"
			    "ftrace_tools_t_wait_seconds_bucket{le=\"+Inf\"} 4\n"
			    "ftrace_tools_t_wait_seconds_sum 0.001027\n"
			    "ftrace_tools_t_wait_seconds_count 4\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"1023\"} 1\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"2047\"} 2\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"4095\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"8191\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"16383\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"32767\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"65535\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"131071\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"262143\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"524287\"} 3\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"1048575\"} 4\n"
			    "ftrace_tools_t_size_bytes_bucket{d=\"sda\",le=\"+Inf\"} 4\n"
			    "ftrace_tools_t_size_bytes_sum{d=\"sda\"} 3072\n"
			    "ftrace_tools_t_size_bytes_count{d=\"sda\"} 4\n");
	unlink(path);
}

/* The biggest values: slot 64 only in +Inf, the last finite bound exact, a sum beyond 2^64
 * once scaled. */
static void test_bounds(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof(path), "%s/b.prom", dir);
	struct prom p;
	assert_int_equal(prom_open(&p, path, "t"), 0);
	struct hist_log2 h = {0};
	hist_log2_add(&h, UINT64_MAX);
	hist_log2_add(&h, 1ULL << 62);
	h.neg = 1; /* below 0: in every bucket */
	struct hist_log2 h2 = {0};
	hist_log2_add(&h2, 1023);
	h.total++;
	assert_int_equal(prom_begin(&p), 0);
	prom_hist(&p, "x", NULL, &h, 1024, PROM_ONE, UINT64_MAX, PROM_KIB);
	/* whole ns in us slots */
	prom_hist(&p, "n", NULL, &h2, 1000, PROM_NS, 1023999, PROM_NS);
	prom_scaled(&p, "y", NULL, 1500, PROM_NS);
	prom_scaled(&p, "z", NULL, 2000000, PROM_US);
	assert_int_equal(prom_commit(&p), 0);
	char *s = slurp(path);
	assert_non_null(strstr(s, "x_bucket{le=\"1023\"} 1\n"));
	/* 2^63 KiB less a byte, the slot of 2^62 */
	assert_non_null(strstr(s, "x_bucket{le=\"9444732965739290427391\"} 2\n"));
	assert_null(strstr(s, "x_bucket{le=\"18889465931478580854783\"}"));
	assert_non_null(strstr(s, "n_bucket{le=\"0.000000999\"} 0\n"));
	assert_non_null(strstr(s, "n_bucket{le=\"0.001023999\"} 1\n"));
	assert_non_null(strstr(s, "n_sum 0.001023999\n"));
	assert_non_null(strstr(s, "x_bucket{le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(s, "x_sum 18889465931478580853760\n"));
	assert_non_null(strstr(s, "y 0.0000015\n"));
	assert_non_null(strstr(s, "z 2\n"));
	unlink(path);
}

/* An unwritable folder is known at the start; a link at FILE.tmp is not followed. */
static void test_unwritable(void **state)
{
	(void)state;
	char path[256], tmp[300], target[256], err[512];
	struct prom p;
	snprintf(path, sizeof(path), "%s/none/x.prom", dir);
	/* The messages (checked live by test_prom.sh) out of the test's output. */
	int saved = dup(2), nul = open("/dev/null", O_WRONLY);
	dup2(nul, 2);
	close(nul);
	assert_int_equal(prom_open(&p, path, "t"), -1);
	assert_true(p.failed);
	assert_int_equal(prom_open(&p, dir, "t"), -1); /* a folder */
	snprintf(path, sizeof(path), "%s/l.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(target, sizeof(target), "%s/target", dir);
	assert_int_equal(symlink(target, tmp), 0);
	assert_int_equal(prom_open(&p, path, "t"), 0);
	assert_int_equal(prom_begin(&p), 0);
	prom_uint(&p, "a", NULL, 1);
	assert_int_equal(prom_commit(&p), 0);
	assert_int_equal(access(target, F_OK), -1);
	unlink(path);
	/* A full disk: said, the file before it kept, no .tmp left. */
	FILE *keep = fopen(path, "w");
	fputs("old\n", keep);
	fclose(keep);
	if (!access("/dev/full", W_OK)) {
		assert_int_equal(prom_begin(&p), 0);
		fclose(p.f);
		p.f = fopen("/dev/full", "w");
		for (int i = 0; i < 10000; i++)
			prom_uint(&p, "a", NULL, 1);
		assert_int_equal(prom_commit(&p), -1);
		assert_true(p.failed);
		assert_int_equal(access(tmp, F_OK), -1);
		assert_string_equal(slurp(path), "old\n");
	}
	unlink(path);
	(void)err;
	dup2(saved, 2);
	close(saved);
}

static void test_set(void **state)
{
	(void)state;
	struct prom_set set = {0};
	char l[32];
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 1000; i++) {
			snprintf(l, sizeof(l), "k=\"%d\"", i);
			struct prom_series *s = prom_series(&set, l);
			assert_non_null(s);
			s->count += (uint64_t)i;
			hist_log2_add(&s->h, (uint64_t)i);
		}
	assert_int_equal(set.n, 1000);
	assert_string_equal(set.s[7]->labels, "k=\"7\"");
	assert_int_equal(set.s[7]->count, 21);
	assert_int_equal(set.s[7]->h.slot[3], 3);
	struct hist_log2 a = {0}, b = {0};
	hist_log2_add(&a, 5);
	hist_log2_add(&b, 5);
	hist_log2_add_signed(&b, -1);
	prom_hist_add(&a, &b);
	assert_int_equal(a.slot[3], 2);
	assert_int_equal(a.neg, 1);
	assert_int_equal(a.total, 3);
	prom_set_free(&set);
}

int main(void)
{
	assert_non_null(mkdtemp(dir));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),	 cmocka_unit_test(test_file),
		cmocka_unit_test(test_say_lost), cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_set),	 cmocka_unit_test(test_unwritable),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "%s/l.prom.tmp", dir);
	unlink(cmd);
	rmdir(dir);
	return r;
}
