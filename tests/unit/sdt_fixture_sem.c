// SPDX-License-Identifier: GPL-2.0-only
/* The fixture's probe with a semaphore (sdt_fixture.c). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short fix_gated_semaphore __attribute__((section(".probes"))) __attribute__((used));

void fixture_sem(long a);
void fixture_sem(long a)
{
	if (fix_gated_semaphore)
		STAP_PROBE1(fix, gated, a);
}
