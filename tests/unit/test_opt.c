// SPDX-License-Identifier: GPL-2.0-only
#include "helpers.h"

#include <dirent.h>
#include <signal.h>

#include "base/opt.h"

static void call_int(const void *s)
{
	opt_int(s, 1, 100, "count");
}
static void call_pid(const void *s)
{
	opt_pid(s);
}
static void call_live_pid(const void *s)
{
	opt_live_pid(s);
}
static void call_seconds(const void *s)
{
	opt_seconds(s, "duration");
}

static void call_interval(const void *s)
{
	opt_interval(s);
}

static const char *const mechs[] = {"kprobe", "eprobe", "uprobe"};
static void call_choice(const void *s)
{
	opt_choice(s, mechs, 3, "--via");
}

static void test_choice(void **state)
{
	(void)state;
	assert_int_equal(opt_choice("kprobe", mechs, 3, "--via"), 0);
	assert_int_equal(opt_choice("uprobe", mechs, 3, "--via"), 2);
	assert_usage_error(call_choice, "x", "invalid --via: 'x' (kprobe, eprobe or uprobe)");
	assert_usage_error(call_choice, "", "invalid --via: ''");
	assert_usage_error(call_choice, "KPROBE", "invalid --via");
	assert_usage_error(call_choice, "k\nprobe", "invalid --via: 'k\\x0aprobe'");
}

static void test_int_good(void **state)
{
	(void)state;
	assert_int_equal(opt_int("1", 1, 100, "count"), 1);
	assert_int_equal(opt_int("100", 1, 100, "count"), 100);
	assert_int_equal(opt_pid("4321"), 4321);
}

static void test_int_bad(void **state)
{
	(void)state;
	assert_usage_error(call_int, "", "invalid count: empty (not a whole number)");
	assert_usage_error(call_int, "1\n2", "invalid count: '1\\x0a2'");
	assert_usage_error(call_int, "abc", "invalid count: 'abc'");
	assert_usage_error(call_int, "12x", "invalid count: '12x'");
	assert_usage_error(call_int, " 5", "invalid count");
	assert_usage_error(call_int, "0", "must be 1 to 100");
	assert_usage_error(call_int, "101", "must be 1 to 100");
	/* A whole number out of range says so (not "not a whole number"). */
	assert_usage_error(call_int, "99999999999999999999", "must be 1 to 100");
	assert_usage_error(call_pid, "-5", "invalid PID: -5");
	assert_usage_error(call_pid, "0", "invalid PID: 0");
	assert_usage_error(call_pid, "2147483648", "invalid PID");
}

static void test_live_pid(void **state)
{
	(void)state;
	char self[32];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	assert_int_equal(opt_live_pid(self), getpid());
	/* A child that has been reaped is a PID that no process holds (until reuse). */
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	char dead[32];
	snprintf(dead, sizeof(dead), "%d", (int)gone);
	assert_usage_error(call_live_pid, dead, "no such process");
}

static void test_seconds(void **state)
{
	(void)state;
	assert_int_equal(opt_seconds("1", "duration"), 1000000000ULL);
	assert_int_equal(opt_seconds("0.5", "duration"), 500000000ULL);
	assert_int_equal(opt_seconds("10", "interval"), 10000000000ULL);
	assert_int_equal(opt_decimal("1.5", 1e6, "MS", "milliseconds"), 1500000ULL);
	assert_usage_error(call_seconds, "0", "invalid duration: 0");
	assert_usage_error(call_seconds, "-1", "invalid duration: '-1'");
	assert_usage_error(call_seconds, "1e3", "invalid duration: '1e3'");
	assert_usage_error(call_seconds, "inf", "invalid duration: 'inf'");
	/* A value with a newline or escape is shown escaped: one line on stderr. */
	assert_usage_error(call_seconds, "1\n2", "invalid duration: '1\\x0a2'");
	assert_usage_error(call_seconds, "\033[2J", "invalid duration: '\\x1b[2J'");
	assert_usage_error(call_seconds, "0x10", "invalid duration");
	assert_usage_error(call_seconds, "", "invalid duration");
	assert_usage_error(call_seconds, "1.2.3", "invalid duration");
	assert_usage_error(call_seconds, "99999999999", "invalid duration");
	/* intervals: 10 ms at least */
	assert_int_equal(opt_interval("0.01"), 10000000ULL);
	assert_int_equal(opt_interval("2"), 2000000000ULL);
	assert_usage_error(call_interval, "0.0001",
			   "invalid interval: 0.0001 (at least 0.01 seconds)");
	assert_usage_error(call_interval, "0.009", "invalid interval: 0.009");
	assert_usage_error(call_interval, "0", "invalid interval: 0");
}

/* The usage comes from the table: synopsis (flags in one bracket, lower case first; values
 * each in theirs; the rest of the command line last; wrapped under the first), options, operands, examples. */
static const struct opt_spec specs[] = {
	{'d', NULL, "SECS", "trace for this many seconds", 0},
	{'e', NULL, NULL, "extended columns\nsecond line", 0},
	{'j', "json", NULL, "JSON lines", 0},
	{'E', NULL, NULL, "errors only", 0},
	{OPT_LONG + 1, "via", "MECH", "how", 0},
	{OPT_LONG + 2, "threads", NULL, "threads too", 0},
	{OPT_LONG + 3, "exec", "CMD [ARG...]", "run CMD", 0},
	{'k', NULL, "KEY[,KEY...]", "keys", 0},
	{0, NULL, NULL, NULL, 0},
};
static const struct opt_usage usage = {
	.tool = "demo",
	.opts = specs,
	.operands = "[PATTERN]",
	.more = (const char *const[]){"-l [X]", NULL},
	.operand_help = "   PATTERN     what\n",
	.examples = (const char *const[]){"demo -e   # one", NULL},
};

static void test_usage_text(void **state)
{
	(void)state;
	char buf[2048];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	opt_usage(f, &usage);
	fclose(f);
	assert_string_equal(
		buf, "USAGE: demo [-eEhjV] [-d SECS] [--via MECH] [--threads] [-k KEY[,KEY...]] "
		     "[PATTERN]\n"
		     "            [--exec CMD [ARG...]]\n"
		     "       demo -l [X]\n"
		     "   -d SECS     trace for this many seconds\n"
		     "   -e          extended columns\n"
		     "               second line\n"
		     "   -j, --json  JSON lines\n"
		     "   -E          errors only\n"
		     "   --via MECH  how\n"
		     "   --threads   threads too\n"
		     "   --exec CMD [ARG...]  run CMD\n"
		     "   -k KEY[,KEY...]  keys\n"
		     "   -h, --help  this usage\n"
		     "   -V, --version  the version\n"
		     "   PATTERN     what\n"
		     "  eg,\n"
		     "       demo -e   # one\n");
}

static char seen[256];
static void record(const struct opt_spec *o, const char *arg, void *ctx)
{
	(void)ctx;
	size_t n = strlen(seen);
	snprintf(seen + n, sizeof(seen) - n, "%s%d=%s", n ? " " : "", o->key, arg ? arg : "-");
}

static void parse(const void *arg)
{
	char *argv[8] = {"demo"};
	int argc = 1;
	char copy[256];
	snprintf(copy, sizeof(copy), "%s", (const char *)arg);
	for (char *w = strtok(copy, " "); w && argc < 7; w = strtok(NULL, " "))
		argv[argc++] = w;
	optind = 1;
	opt_parse(argc, argv, &usage, record, NULL);
}

static void test_parse(void **state)
{
	(void)state;
	char *argv[] = {"demo", "-e", "-d", "2", "--via", "x", "--json", "pat", "-j", NULL};
	seen[0] = 0;
	optind = 1;
	int first = opt_parse(9, argv, &usage, record, NULL);
	/* Options after an operand are options too (GNU order): "-j" after "pat" is -j, and
	 * the operands come last; "--" ends the options. */
	assert_string_equal(seen, "101=- 100=2 257=x 106=- 106=-");
	assert_int_equal(first, 8);
	assert_string_equal(argv[first], "pat");
	char *argv2[] = {"demo", "-e", "--", "-j", NULL};
	seen[0] = 0;
	optind = 1;
	first = opt_parse(4, argv2, &usage, record, NULL);
	assert_string_equal(seen, "101=-");
	assert_string_equal(argv2[first], "-j");
	assert_usage_error(parse, "-z", "unknown option or missing value: '-z'");
	assert_usage_error(parse, "-d", "unknown option or missing value: '-d'");
	assert_usage_error(parse, "--nope", "unknown option or missing value: '--nope'");
	char out[64];
	assert_int_equal(run_child(parse, "-h", out, sizeof(out)), 0);
}

static void call_glob(const void *s)
{
	opt_glob(s, "NAME");
}

static void test_glob(void **state)
{
	(void)state;
	assert_string_equal(opt_glob("rcu_*", "NAME"), "rcu_*");
	assert_string_equal(opt_glob("[a-c]d", "NAME"), "[a-c]d");
	assert_string_equal(opt_glob("[]x]y", "NAME"), "[]x]y");
	assert_string_equal(opt_glob("[!x]", "NAME"), "[!x]");
	assert_usage_error(call_glob, "", "invalid NAME: '' (empty)");
	assert_usage_error(call_glob, "[", "invalid NAME: '[' (a '[' without its ']')");
	assert_usage_error(call_glob, "a[b", "without its");
	assert_usage_error(call_glob, "a\"b", "no quotes");
	assert_usage_error(call_glob, "a\nb", "invalid NAME: 'a\\x0ab'");
	assert_usage_error(call_glob, "a[\033", "invalid NAME: 'a[\\x1b'");
}

static void call_tid(const void *s)
{
	opt_live_tid(s);
}

static void test_live_tid(void **state)
{
	(void)state;
	char self[32];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	assert_int_equal(opt_live_tid(self), getpid());
	assert_usage_error(call_tid, "999999999", "no such thread: 999999999");
}

int main(void)
{
	opt_init("test_opt");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_good), cmocka_unit_test(test_choice),
		cmocka_unit_test(test_int_bad),	 cmocka_unit_test(test_live_pid),
		cmocka_unit_test(test_seconds),	 cmocka_unit_test(test_usage_text),
		cmocka_unit_test(test_parse),	 cmocka_unit_test(test_glob),
		cmocka_unit_test(test_live_tid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
