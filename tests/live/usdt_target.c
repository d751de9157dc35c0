// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program for the usdt live test: USDT probes (<sys/sdt.h>) fired with known arguments.
 * usdt_target loop N: fires ftt:values and ftt:consts N times, at once (bench/bench.sh's USDT
 * workload), and exits.
 * usdt_target GO STOP N: prints "before=S" (its semaphore of ftt:gated), waits for file GO,
 * then fires N times ftt:values (8 arguments, 1 to 8 bytes, signed and unsigned, extremes),
 * ftt:consts (constants 42 and -7), ftt:text three times (a string and its length: 100,000,
 * 4095 and 4096 bytes of "0123456789..." cut there) and,
 * only while its semaphore is raised, ftt:gated (the round); prints "during=S gated=G";
 * waits for file STOP and prints "after=S".
 *
 * ftt:gated has a semaphore and the others none: sys/sdt.h gives every probe of a file one
 * or none, so the semaphore's part of the header is switched on before ftt:gated.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/sdt.h>

#define TEXT_LEN 100000

static void wait_for(const char *path)
{
	while (access(path, F_OK))
		usleep(10000);
}

/* volatile: the compiler passes them from registers or memory, as a program's variables. */
static volatile signed char v_s8 = -100;
static volatile unsigned char v_u8 = 200;
static volatile int16_t v_s16 = -30000;
static volatile uint16_t v_u16 = 60000;
static volatile int32_t v_s32 = -2000000000;
static volatile uint32_t v_u32 = 4000000000u;
static volatile int64_t v_s64 = -9000000000000000000ll;
static volatile uint64_t v_u64 = 18000000000000000000ull;

__attribute__((noinline)) static void fire_plain(void)
{
	signed char s8 = v_s8;
	unsigned char u8 = v_u8;
	int16_t s16 = v_s16;
	uint16_t u16 = v_u16;
	int32_t s32 = v_s32;
	uint32_t u32 = v_u32;
	int64_t s64 = v_s64;
	uint64_t u64 = v_u64;
	STAP_PROBE8(ftt, values, s8, u8, s16, u16, s32, u32, s64, u64);
	STAP_PROBE2(ftt, consts, 42, -7);
}

__attribute__((noinline)) static void fire_text(char *text)
{
	int len = (int)strlen(text);
	STAP_PROBE2(ftt, text, text, len);
}

/* ftt:text with the whole text, then its first 4095 and 4096 bytes (the kernel's limit);
 * not the 4095 bytes when FTT_NO_NEAR_PAGE is set (a kernel that would write that string past
 * its uprobe buffer: test_usdt.sh). */
static void fire_texts(char *text)
{
	fire_text(text);
	for (int cut = getenv("FTT_NO_NEAR_PAGE") ? 4096 : 4095; cut <= 4096; cut++) {
		char was = text[cut];
		text[cut] = 0;
		fire_text(text);
		text[cut] = was;
	}
}

/* From here on, probes have semaphores (the header's own switch, read when a probe is
 * expanded). */
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
volatile unsigned short ftt_gated_semaphore __attribute__((section(".probes")));

__attribute__((noinline)) static int fire_gated(int round)
{
	if (!ftt_gated_semaphore)
		return 0;
	STAP_PROBE1(ftt, gated, round);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "loop")) {
		for (long i = atol(argv[2]); i > 0; i--)
			fire_plain();
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: usdt_target GO STOP N, or usdt_target loop N\n");
		return 2;
	}
	int n = atoi(argv[3]), gated = 0;
	char *text = malloc(TEXT_LEN + 1);
	if (!text)
		return 1;
	for (int i = 0; i < TEXT_LEN; i++)
		text[i] = (char)('0' + i % 10);
	text[TEXT_LEN] = 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("before=%u\n", ftt_gated_semaphore);
	wait_for(argv[1]);
	unsigned during = ftt_gated_semaphore;
	for (int i = 0; i < n; i++) {
		fire_plain();
		fire_texts(text);
		gated += fire_gated(i + 1);
	}
	printf("during=%u gated=%d\n", during, gated);
	wait_for(argv[2]);
	printf("after=%u\n", ftt_gated_semaphore);
	free(text);
	return 0;
}
