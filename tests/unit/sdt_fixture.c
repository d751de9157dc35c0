// SPDX-License-Identifier: GPL-2.0-only
/*
 * The notes test_sdt reads: every operand form of x86-64 notes written out exactly
 * (STAP_PROBE_ASM takes the argument string as it is; variables by %rip), constants the
 * compiler chose, and a
 * probe with a semaphore (sdt_fixture_sem.c: a file that has semaphores has them on every
 * probe). Never run.
 */
#include <sys/sdt.h>

void fixture_sem(long a);
void fixture_forms(void);

void fixture_forms(void)
{
	/* the argument string as the note writes it, unformatted */
	// clang-format off
	__asm__ __volatile__(STAP_PROBE_ASM(fix, forms, -4@%%edi 8@-8(%%rbp) -1@$5 8@%%rax 4@8(%%rsp) -2@%%r8w 1@%%al 8@(%%rsi)) ::);
	__asm__ __volatile__(STAP_PROBE_ASM(fix, globals, 2@fix_gated_semaphore(%%rip) -8@fix_gated_semaphore-16(%%rip)) ::);
	// clang-format on
}

int main(void)
{
	long x = -3;
	STAP_PROBE2(fix, consts, x, 7);
	fixture_forms();
	fixture_sem(x);
	return 0;
}
