// SPDX-License-Identifier: GPL-2.0-only
/* --cgroup's membership (cgroup.h) read from /proc/PID/cgroup texts of a machine with both
 * cgroup v1 hierarchies and the v2 one (as this development machine has), and the check
 * that a path is a cgroup at all. */
#include "helpers.h"

#include "kernel/cgroup.h"

static const char proc[] = "12:pids:/user.slice/x\n"
			   "5:cpu,cpuacct:/system.slice/ssh.service\n"
			   "1:name=systemd:/system.slice/ssh.service\n"
			   "0::/system.slice/ssh.service/sub\n";

static void test_v2(void **state)
{
	(void)state;
	struct cgroup cg = {.v2 = true};
	strcpy(cg.rel, "/system.slice/ssh.service");
	assert_true(cgroup_in(&cg, proc)); /* a descendant */
	strcpy(cg.rel, "/system.slice/ssh.service/sub");
	assert_true(cgroup_in(&cg, proc));
	strcpy(cg.rel, "/system.slice/ssh");
	assert_false(cgroup_in(&cg, proc)); /* a prefix of a name is not a parent */
	strcpy(cg.rel, "/");
	assert_true(cgroup_in(&cg, proc));
	assert_false(cgroup_in(&cg, "5:cpu:/x\n")); /* no v2 line */
}

static void test_v1(void **state)
{
	(void)state;
	struct cgroup cg = {.v2 = false};
	strcpy(cg.controllers, "cpu,cpuacct");
	strcpy(cg.rel, "/system.slice");
	assert_true(cgroup_in(&cg, proc));
	strcpy(cg.controllers, "pids");
	assert_false(cgroup_in(&cg, proc)); /* that hierarchy has it elsewhere */
	strcpy(cg.controllers, "name=systemd");
	strcpy(cg.rel, "/system.slice/ssh.service");
	assert_true(cgroup_in(&cg, proc));
	strcpy(cg.controllers, "memory");
	assert_false(cgroup_in(&cg, proc)); /* no such hierarchy for it */
}

static void test_open(void **state)
{
	(void)state;
	struct cgroup cg;
	char why[256];
	assert_int_equal(cgroup_open(&cg, "/tmp", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a cgroup"));
	assert_int_equal(cgroup_open(&cg, "/no/such/path", why, sizeof(why)), -1);
	/* Where a cgroup file system is mounted, its root is one (v1 or v2). */
	static const char *const roots[] = {"/sys/fs/cgroup/unified", "/sys/fs/cgroup/pids",
					    "/sys/fs/cgroup"};
	for (size_t i = 0; i < 3; i++)
		if (cgroup_open(&cg, roots[i], why, sizeof(why)) == 0) {
			assert_string_equal(cg.rel, "/");
			return;
		}
	skip(); /* no cgroup file system mounted here */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
