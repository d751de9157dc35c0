// SPDX-License-Identifier: GPL-2.0-only
/* Probe definitions as users write them (probe.c) and the argument registers (ustr.c). */
#include "helpers.h"

#include "kernel/probe.h"

#include <event-parse.h>
#include "domain/ustr.h"

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

/* The same probe for kernels without $argN (before 4.20) or user fetches (before 5.5). */
static void test_compat(void **state)
{
	(void)state;
	char out[512], why[256];
	const unsigned both = PROBE_NO_ARGN | PROBE_NO_USER;
#if defined(__x86_64__)
	assert_int_equal(probe_args_compat("file=+0($arg2):ustring", 'p', "do_sys_open", both,
					   false, out, sizeof(out), why, sizeof(why)),
			 1);
	assert_string_equal(out, "file=+0(%si):string");
	assert_int_equal(probe_args_compat("a=$arg1 g=$arg6 h=$arg7 i=$arg9:u32 $arg10", 'p', "f+0",
					   PROBE_NO_ARGN, false, out, sizeof(out), why,
					   sizeof(why)),
			 1);
	assert_string_equal(out, "a=%di g=%r9 h=$stack1 i=$stack3:u32 $stack4");
	assert_int_equal(probe_args_compat("p=+u8(+u0(%di)):u64 s=+0(+u8(%si)):ustring -u4(%dx)",
					   'p', "f", PROBE_NO_USER, false, out, sizeof(out), why,
					   sizeof(why)),
			 1);
	assert_string_equal(out, "p=+8(+0(%di)):u64 s=+0(+8(%si)):string -4(%dx)");
	/* only what is missing is rewritten */
	assert_int_equal(probe_args_compat("a=$arg1 s=+0(%si):ustring", 'p', "f", PROBE_NO_ARGN,
					   false, out, sizeof(out), why, sizeof(why)),
			 1);
	assert_string_equal(out, "a=%di s=+0(%si):ustring");
	/* a syscall function of 4.17+ takes pt_regs: its $argN are not the call's arguments */
	assert_int_equal(probe_args_compat("f=+0($arg2):ustring", 'p', "__x64_sys_openat", both,
					   false, out, sizeof(out), why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "+104(%di)"));
#endif
	/* nothing to rewrite, or words that only look alike */
	assert_int_equal(probe_args_compat("$argument x=$retval y=%ax:ustringy fu8=+8(%di)", 'p',
					   "f", both, false, out, sizeof(out), why, sizeof(why)),
			 0);
	assert_string_equal(out, "$argument x=$retval y=%ax:ustringy fu8=+8(%di)");
	assert_int_equal(
		probe_args_compat("", 'p', "f", both, false, out, sizeof(out), why, sizeof(why)),
		0);
	assert_string_equal(out, "");
	/* $argN cannot be given where the registers no longer hold the arguments */
	assert_int_equal(probe_args_compat("a=$arg1", 'r', "f", both, false, out, sizeof(out), why,
					   sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "Linux 4.20"));
	assert_int_equal(probe_args_compat("a=$arg1", 'p', "f+0x10", both, false, out, sizeof(out),
					   why, sizeof(why)),
			 -1);
	/* a uprobe's reads always reach user memory */
	assert_int_equal(probe_args_compat("s=+0(%di):ustring", 'p', "/bin/x:0x10", PROBE_NO_USER,
					   true, out, sizeof(out), why, sizeof(why)),
			 1);
	assert_string_equal(out, "s=+0(%di):string");
	/* too long for out */
	assert_int_equal(probe_args_compat("a=$arg1", 'p', "f", 0, false, out, 4, why, sizeof(why)),
			 -1);
}

/* kprobe -s: the caller's return address fetched by the tool is not shown (its line and its
 * part of the print fmt go; the rest byte for byte), and where it is in the record is kept. */
static void test_hide(void **state)
{
	(void)state;
	const char *with = "name: do_nanosleep\nID: 1771\nformat:\n"
			   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			   "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
			   "\tfield:u32 mode;\toffset:16;\tsize:4;\tsigned:0;\n"
			   "\tfield:u64 __ftt_caller;\toffset:20;\tsize:8;\tsigned:0;\n\n"
			   "print fmt: \"(%lx) mode=0x%x __ftt_caller=0x%Lx\", REC->__probe_ip, "
			   "REC->mode, REC->__ftt_caller\n";
	const char *without = "name: do_nanosleep\nID: 1771\nformat:\n"
			      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			      "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
			      "\tfield:u32 mode;\toffset:16;\tsize:4;\tsigned:0;\n\n"
			      "print fmt: \"(%lx) mode=0x%x\", REC->__probe_ip, REC->mode\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", with);
	size_t len = strlen(buf);
	struct tep_format_field f = {0};
	assert_int_equal(probe_format_hide(buf, &len, "__ftt_caller", &f), 0);
	assert_string_equal(buf, without);
	assert_int_equal(len, strlen(without));
	assert_int_equal(f.offset, 20);
	assert_int_equal(f.size, 8);
	/* 4.x prints a u64 in decimal; a name that is only a prefix of a field is not it. */
	snprintf(buf, sizeof(buf), "%s",
		 "format:\n\tfield:u64 __ftt_caller;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: \"(%lx) __ftt_caller=%Lu\", REC->__probe_ip, REC->__ftt_caller\n");
	len = strlen(buf);
	assert_int_equal(probe_format_hide(buf, &len, "__ftt_caller", &f), 0);
	assert_string_equal(buf, "format:\n\n"
				 "print fmt: \"(%lx)\", REC->__probe_ip\n");
	snprintf(buf, sizeof(buf), "%s", with);
	len = strlen(buf);
	assert_int_equal(probe_format_hide(buf, &len, "__ftt_call", &f), -1);
	assert_string_equal(buf, with);
	assert_int_equal(probe_format_hide(buf, &len, "mode_x", &f), -1);
}

/* s8 and s16 fields of a probe print their sign (libtraceevent would print -100 as 156 with
 * the kernel's %d); others, arrays and a name that is a prefix of another are left alone. */
static void test_format_small_signed(void **state)
{
	(void)state;
	const char *fmt = "format:\n"
			  "\tfield:s8 arg1;\toffset:16;\tsize:1;\tsigned:1;\n"
			  "\tfield:u8 arg2;\toffset:17;\tsize:1;\tsigned:0;\n"
			  "\tfield:s16 arg3;\toffset:18;\tsize:2;\tsigned:1;\n"
			  "\tfield:s32 arg4;\toffset:20;\tsize:4;\tsigned:1;\n"
			  "\tfield:s8 a[2];\toffset:24;\tsize:2;\tsigned:1;\n"
			  "\tfield:s16 arg;\toffset:26;\tsize:2;\tsigned:1;\n\n"
			  "print fmt: \"(%lx) arg1=%d arg2=%u arg3=%d arg4=%d a={%d,%d} arg=%d\", "
			  "REC->__probe_ip, REC->arg1, REC->arg2, REC->arg3, REC->arg4, REC->a[0], "
			  "REC->a[1], REC->arg\n";
	char *got = probe_format_small_signed(fmt);
	assert_non_null(got);
	assert_non_null(strstr(got, "\"(%lx) arg1=%hhd arg2=%u arg3=%hd arg4=%d a={%d,%d} "
				    "arg=%hd\", REC->__probe_ip, REC->arg1,"));
	assert_int_equal(strlen(got), strlen(fmt) + 4);
	free(got);
	assert_null(probe_format_small_signed("format:\n\tfield:s32 x;\toffset:8;\tsize:4;"
					      "\tsigned:1;\n\nprint fmt: \"x=%d\", REC->x\n"));
	assert_null(probe_format_small_signed("format:\n\tfield:s8 x;"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_small_signed),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_compat),
		cmocka_unit_test(test_hide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
