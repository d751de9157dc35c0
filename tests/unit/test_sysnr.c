// SPDX-License-Identifier: GPL-2.0-only
/*
 * System calls by number: the table the compiler built for this architecture, named as the
 * kernel names them (its list of calls: the syscalls:sys_enter_* events), the calls newer
 * than the headers, and what the check against the kernel says it cannot name.
 */
#include "helpers.h"

#include <sys/syscall.h>

#include "domain/sysnr.h"

static void test_numbers(void **state)
{
	(void)state;
	struct sysnr t;
	char buf[32];
	assert_int_equal(sysnr_init(&t, NULL, 0), 0);
	/* The headers' names where the kernel's list is not known. */
	assert_string_equal(sysnr_name(&t, SYS_getppid, buf, sizeof(buf)), "getppid");
	assert_string_equal(sysnr_name(&t, SYS_openat, buf, sizeof(buf)), "openat");
	assert_int_equal(sysnr_number(&t, "getppid"), SYS_getppid);
	/* Numbers nothing names, and hostile ones: by number. */
	assert_string_equal(sysnr_name(&t, 999999, buf, sizeof(buf)), "syscall_999999");
	assert_string_equal(sysnr_name(&t, -1, buf, sizeof(buf)), "syscall_-1");
	assert_string_equal(sysnr_name(&t, 0x40000000L + SYS_getppid, buf, sizeof(buf)),
			    "syscall_1073741934");
#if defined(__x86_64__) || defined(__aarch64__)
	/* After Debian 12's headers (they end at 450): numbered alike since Linux 5.1. */
	assert_string_equal(sysnr_name(&t, 451, buf, sizeof(buf)), "cachestat");
	assert_string_equal(sysnr_name(&t, 462, buf, sizeof(buf)), "mseal");
#endif

	sysnr_free(&t);
}

/* The kernel names some calls after their SYSCALL_DEFINE, not the header's __NR_. */
static void test_kernel_names(void **state)
{
	(void)state;
	static const char *const kernel[] = {
		"read",	 "newstat",  "sendfile64", "umount",	   "getppid",
		"pipe2", "newuname", "sysctl",	   "ftt_new_call",
	};
	struct sysnr t;
	char buf[32];
	assert_int_equal(sysnr_init(&t, kernel, 9), 0);
	assert_int_equal(t.kernel, 9);
	assert_int_equal(t.unnamed, 1); /* a call the table has no number for */
	assert_string_equal(t.unnamed_list, "ftt_new_call");
	assert_string_equal(sysnr_name(&t, SYS_read, buf, sizeof(buf)), "read");
	assert_string_equal(sysnr_name(&t, SYS_getppid, buf, sizeof(buf)), "getppid");
	assert_string_equal(sysnr_name(&t, SYS_pipe2, buf, sizeof(buf)), "pipe2");
#ifdef SYS_stat
	assert_string_equal(sysnr_name(&t, SYS_stat, buf, sizeof(buf)), "newstat");
#endif
#ifdef SYS_sendfile
	assert_string_equal(sysnr_name(&t, SYS_sendfile, buf, sizeof(buf)), "sendfile64");
#endif
#ifdef SYS_umount2
	assert_string_equal(sysnr_name(&t, SYS_umount2, buf, sizeof(buf)), "umount");
#endif
	assert_string_equal(sysnr_name(&t, SYS_uname, buf, sizeof(buf)), "newuname");
#ifdef SYS__sysctl
	/* The 4.x kernels' sysctl, the headers' _sysctl (the 4.9 guest said it was unnamed). */
	assert_string_equal(sysnr_name(&t, SYS__sysctl, buf, sizeof(buf)), "sysctl");
#endif
	/* A call the kernel lists no event for keeps the headers' name. */
	assert_string_equal(sysnr_name(&t, SYS_openat, buf, sizeof(buf)), "openat");
	sysnr_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_kernel_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
