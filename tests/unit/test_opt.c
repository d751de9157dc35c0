#include "helpers.h"

#include <dirent.h>
#include <signal.h>

#include "opt.h"

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
static void call_dev(const void *s)
{
	opt_blockdev(s);
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
	assert_usage_error(call_int, "", "invalid count: ''");
	assert_usage_error(call_int, "abc", "invalid count: 'abc'");
	assert_usage_error(call_int, "12x", "invalid count: '12x'");
	assert_usage_error(call_int, " 5", "invalid count");
	assert_usage_error(call_int, "0", "must be 1 to 100");
	assert_usage_error(call_int, "101", "must be 1 to 100");
	assert_usage_error(call_int, "99999999999999999999", "invalid count");
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
	assert_usage_error(call_seconds, "0x10", "invalid duration");
	assert_usage_error(call_seconds, "", "invalid duration");
	assert_usage_error(call_seconds, "1.2.3", "invalid duration");
	assert_usage_error(call_seconds, "99999999999", "invalid duration");
}

static void test_blockdev_pairs(void **state)
{
	(void)state;
	uint32_t d;
	assert_int_equal(blockdev_parse("8,0", &d), 0);
	assert_int_equal(d, 8U << 20);
	assert_int_equal(blockdev_parse("254:17", &d), 0);
	assert_int_equal(KDEV_MAJOR(d), 254);
	assert_int_equal(KDEV_MINOR(d), 17);
	assert_int_equal(blockdev_parse("", &d), -1);
	assert_int_equal(blockdev_parse("8,", &d), -1);
	assert_int_equal(blockdev_parse("8,0,1", &d), -1);
	assert_int_equal(blockdev_parse("-8,0", &d), -1);
	assert_int_equal(blockdev_parse("4096,0", &d), -1);
	assert_int_equal(blockdev_parse("..", &d), -1);
	assert_int_equal(blockdev_parse("../../etc", &d), -1);
	assert_int_equal(blockdev_parse("/etc/passwd", &d), -1);
	assert_int_equal(blockdev_parse("no-such-disk", &d), -1);
	assert_usage_error(call_dev, "no-such-disk", "invalid device: 'no-such-disk'");
}

/* A name and a /dev path resolve to what sysfs says, for a block device this machine has. */
static void test_blockdev_names(void **state)
{
	(void)state;
	DIR *d = opendir("/sys/class/block");
	struct dirent *de = NULL;
	while (d && (de = readdir(d)) && de->d_name[0] == '.')
		;
	if (!de) {
		if (d)
			closedir(d);
		skip(); /* no block devices in this environment */
	}
	char name[256], rel[300], want[64], got_name[64];
	snprintf(name, sizeof(name), "%s", de->d_name);
	closedir(d);
	snprintf(rel, sizeof(rel), "%s/dev", name);
	assert_non_null(read_file("/sys/class/block", rel, want, sizeof(want)));
	unsigned maj, min;
	assert_int_equal(sscanf(want, "%u:%u", &maj, &min), 2);
	uint32_t kdev;
	assert_int_equal(blockdev_parse(name, &kdev), 0);
	assert_int_equal(kdev, maj << 20 | min);
	assert_string_equal(blockdev_name(kdev, got_name, sizeof(got_name)), name);
	char dev_path[300];
	snprintf(dev_path, sizeof(dev_path), "/dev/%s", name);
	if (access(dev_path, F_OK) == 0) {
		assert_int_equal(blockdev_parse(dev_path, &kdev), 0);
		assert_int_equal(kdev, maj << 20 | min);
	}
}

int main(void)
{
	opt_init("test_opt");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_good),       cmocka_unit_test(test_int_bad),
		cmocka_unit_test(test_live_pid),       cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_blockdev_pairs), cmocka_unit_test(test_blockdev_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
