// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: ELF files of any kind, as uprobe, -U, funccount and execsnoop's loader probe
 * read them (common/stream/usym.c on libelf): the input is the file. Seeded at run time with
 * programs of this machine, whole, truncated and with bytes flipped (tests/fuzz/run.sh).
 * Property: no crash, no hang, no read outside what was allocated; results inside their
 * buffers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "stream/usym.h"

static char path[64];
static FILE *devnull;
static int found;

/* funccount's LIB:GLOB: every name a string, as many calls as the count returned. */
static void each(const char *name, unsigned long long off, void *ctx)
{
	(void)off, (void)ctx;
	NEED(strlen(name) < 512);
	found++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	snprintf(path, sizeof(path), "/tmp/ftt-fuzz-elf.%d", (int)getpid());
	devnull = fopen("/dev/null", "w");
	NEED(devnull);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");
	NEED(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
	char interp[64], why[256];
	unsigned long long off;
	if (usym_interp(path, interp, sizeof(interp)) == 0)
		NEED(memchr(interp, 0, sizeof(interp)));
	(void)usym_entry(path, &off);
	NEED(usym_list(path, devnull) >= -1);
	int ifuncs = -1;
	found = 0;
	int n = usym_functions(path, "*", each, NULL, &ifuncs);
	NEED(n == -1 || (n == found && ifuncs >= 0));
	static const char *const syms[] = {"main", "open@@GLIBC_2.2.5", "_start+4", "0x1040",
					   "environ"};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (usym_offset(path, syms[i], i == 4, &off, why, sizeof(why)))
			NEED(memchr(why, 0, sizeof(why)));
	unlink(path);
	return 0;
}
