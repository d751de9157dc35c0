// SPDX-License-Identifier: GPL-2.0-only
/* Probe definitions as users write them (probe.c) and the argument registers (ustr.c). */
#include "helpers.h"

#include "probe.h"
#include "ustr.h"

static void test_parse(void **state)
{
	(void)state;
	struct probe_def pd;
	char why[256];
	assert_int_equal(probe_parse("p:do_sys_openat2", &pd, why, sizeof(why)), 0);
	assert_int_equal(pd.type, 'p');
	assert_string_equal(pd.target, "do_sys_openat2");
	assert_string_equal(pd.alias, "");
	assert_string_equal(pd.args, "");
	assert_int_equal(probe_parse("r:myret vfs_read ret=$retval:s32", &pd, why, sizeof(why)), 0);
	assert_string_equal(pd.alias, "myret");
	assert_string_equal(pd.target, "vfs_read");
	assert_string_equal(pd.args, "ret=$retval:s32");
	/* a first argument is not taken for the target */
	assert_int_equal(probe_parse("p:vfs_read %di", &pd, why, sizeof(why)), 0);
	assert_string_equal(pd.target, "vfs_read");
	assert_string_equal(pd.args, "%di");
	/* paths with spaces: quoted or escaped */
	assert_int_equal(probe_parse("p:\"/opt/my app/bin\":main a=%di", &pd, why, sizeof(why)), 0);
	assert_string_equal(pd.target, "/opt/my app/bin:main");
	assert_string_equal(pd.args, "a=%di");
	assert_int_equal(probe_parse("p:al /opt/my\\ app:main", &pd, why, sizeof(why)), 0);
	assert_string_equal(pd.alias, "al");
	assert_string_equal(pd.target, "/opt/my app:main");
	/* errors */
	assert_int_equal(probe_parse("x:foo", &pd, why, sizeof(why)), -1);
	assert_int_equal(probe_parse("p:", &pd, why, sizeof(why)), -1);
	assert_int_equal(probe_parse("p:\"/opt/x:main", &pd, why, sizeof(why)), -1);
	assert_int_equal(probe_parse("p:/opt/my prog:main", &pd, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "invalid alias '/opt/my'"));
}

static void test_alias(void **state)
{
	(void)state;
	char a[64];
	probe_default_alias("do_sys_open+0x10", 'p', a, sizeof(a));
	assert_string_equal(a, "do_sys_open");
	probe_default_alias("readline", 'r', a, sizeof(a));
	assert_string_equal(a, "readline_ret");
	probe_default_alias("open@@GLIBC_2.2.5", 'p', a, sizeof(a));
	assert_string_equal(a, "open");
	probe_default_alias("0x1234", 'p', a, sizeof(a));
	assert_string_equal(a, "probe");
}

static void test_registers(void **state)
{
	(void)state;
	char out[256];
#if defined(__x86_64__)
	assert_string_equal(ustr_arg_reg(1), "%di");
	assert_string_equal(ustr_arg_reg(4), "%cx");
	assert_int_equal(ustr_expand("file=+0($2):string flags=$3:u64", out, sizeof(out)), 0);
	assert_string_equal(out, "file=+0(%si):string flags=%dx:u64");
#elif defined(__aarch64__)
	assert_int_equal(ustr_expand("file=+0($2):string", out, sizeof(out)), 0);
	assert_string_equal(out, "file=+0(%x1):string");
#endif
	assert_null(ustr_arg_reg(0));
	assert_null(ustr_arg_reg(7));
	assert_int_equal(ustr_expand("a=$7", out, sizeof(out)), -1);
	assert_int_equal(ustr_expand("$1", out, 2), -1); /* does not fit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_registers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
