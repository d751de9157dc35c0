// SPDX-License-Identifier: GPL-2.0-only
/*
 * USDT notes: the fixture's real notes (built with <sys/sdt.h>: sdt_fixture.c) read back
 * with the addresses the symbol table and section headers give; notes that are cut short or
 * lie; every x86-64 operand form into uprobe fetch arguments, and the forms refused.
 */
#include "helpers.h"

#include <gelf.h>
#include <libelf.h>

#include "stream/sdt.h"
#include "base/sig.h"
#include "stream/usym.h"

/* The fixture is built beside this test (the Makefile). */
static char fixture[4096];
#define SDT_FIXTURE fixture

static int find_fixture(void **state)
{
	(void)state;
	ssize_t n = readlink("/proc/self/exe", fixture, sizeof(fixture) - 32);
	char *slash;
	if (n < 0)
		return -1;
	fixture[n] = 0;
	if (!(slash = strrchr(fixture, '/')))
		return -1;
	strcpy(slash + 1, "sdt_fixture");
	return 0;
}

#define MAXP 8
static struct sdt_probe got[MAXP];
static int ngot;

static int keep(const struct sdt_probe *p, void *ctx)
{
	(void)ctx;
	if (ngot < MAXP)
		got[ngot++] = *p;
	return 0;
}

static int stop_at_first(const struct sdt_probe *p, void *ctx)
{
	(void)p;
	(void)ctx;
	return 1;
}

static const struct sdt_probe *find(const char *name)
{
	for (int i = 0; i < ngot; i++)
		if (!strcmp(got[i].note.name, name))
			return &got[i];
	return NULL;
}

/* The section's file offset and address, read from the section headers (not the segments
 * sdt.c goes through). */
static void section(const char *path, const char *want, unsigned long long *off,
		    unsigned long long *addr)
{
	int fd;
	struct Elf *elf = usym_elf_open(path, &fd);
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	*off = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), want)) {
			*off = sh.sh_offset;
			*addr = sh.sh_addr;
		}
	}
	elf_end(elf);
	close(fd);
	assert_true(*off != 0);
}

static void test_real_notes(void **state)
{
	(void)state;
	char why[300];
	ngot = 0;
	assert_int_equal(sdt_probes(SDT_FIXTURE, keep, NULL, why, sizeof(why)), 4);
	const struct sdt_probe *forms = find("forms"), *consts = find("consts"),
			       *gated = find("gated");
	assert_non_null(forms);
	assert_non_null(consts);
	assert_non_null(gated);
	assert_string_equal(forms->note.provider, "fix");
	assert_string_equal(forms->note.args,
			    "-4@%edi 8@-8(%rbp) -1@$5 8@%rax 4@8(%rsp) -2@%r8w 1@%al 8@(%rsi)");
	assert_string_equal(consts->note.args, "-8@$-3 -4@$7");
	assert_string_equal(gated->note.args, "-8@%rdi");
	/* The asm probe is the first instruction of fixture_forms: the symbol table says where. */
	unsigned long long off, addr;
	assert_int_equal(usym_offset(SDT_FIXTURE, "fixture_forms", false, &off, why, sizeof(why)),
			 0);
	assert_int_equal(forms->off, off);
	assert_int_equal(forms->sem, 0);
	assert_int_equal(consts->sem, 0);
	/* The semaphore is the .probes section's 2 bytes. */
	section(SDT_FIXTURE, ".probes", &off, &addr);
	assert_int_equal(gated->sem, addr);
	assert_int_equal(gated->sem_off, off);
	/* A variable: at its distance from the probe, counted from the probe's file offset
	 * (@+OFFSET, which the kernel reads where the probe's file is mapped). */
	const struct sdt_probe *globals = find("globals");
	char out[256], want[256];
	unsigned nconst;
	long long values[SDT_ARGC_MAX];
	assert_non_null(globals);
	assert_int_equal(sdt_fetch_args(globals->note.args, 0, true, SDT_FIXTURE, globals, out,
					sizeof(out), &nconst, values, why, sizeof(why)),
			 2);
	snprintf(want, sizeof(want), "arg1=@+0x%llx:u16 arg2=@+0x%llx:s64",
		 globals->off + (addr - globals->addr), globals->off + (addr - 16 - globals->addr));
	assert_string_equal(out, want);
	section(SDT_FIXTURE, ".stapsdt.base", &off, &addr);
	assert_int_equal(forms->note.base, addr);
	assert_int_equal(sdt_probes(SDT_FIXTURE, NULL, NULL, why, sizeof(why)), 4);
	/* fn stops the walk: the probes seen until then, no error */
	ngot = 0;
	assert_int_equal(sdt_probes(SDT_FIXTURE, stop_at_first, NULL, why, sizeof(why)), 1);
}

/* A copy of the fixture in a temporary file, and the file offset of its notes. */
static int copy_fixture(char *tmp, unsigned long long *notes)
{
	unsigned long long addr;
	section(SDT_FIXTURE, ".note.stapsdt", notes, &addr);
	strcpy(tmp, "/tmp/test_sdt.XXXXXX");
	int out = mkstemp(tmp), in = open(SDT_FIXTURE, O_RDONLY);
	char buf[65536];
	ssize_t n;
	assert_true(out >= 0 && in >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	return out;
}

static void patch(int fd, unsigned long long at, const void *v, size_t n)
{
	assert_int_equal(pwrite(fd, v, n, (off_t)at), (ssize_t)n);
}

/* Prelink moves .stapsdt.base: a note that saw it 0x100 lower has its pc 0x100 higher. */
static void test_moved_base(void **state)
{
	(void)state;
	char tmp[64], why[300];
	unsigned long long notes;
	int fd = copy_fixture(tmp, &notes);
	ngot = 0;
	assert_int_equal(sdt_probes(tmp, keep, NULL, why, sizeof(why)), 4);
	struct sdt_probe before = got[0];
	uint64_t base = before.note.base - 0x100, pc = before.note.pc - 0x100;
	/* the first note: namesz, descsz, type, "stapsdt\0", then pc, base, semaphore */
	patch(fd, notes + 20, &pc, 8);
	patch(fd, notes + 28, &base, 8);
	ngot = 0;
	assert_int_equal(sdt_probes(tmp, keep, NULL, why, sizeof(why)), 4);
	assert_int_equal(got[0].note.pc, pc);
	assert_int_equal(got[0].addr, before.addr);
	assert_int_equal(got[0].off, before.off);
	close(fd);
	unlink(tmp);
}

/* Notes that lie about their sizes, or whose address is outside the code: an error that
 * says which, never a read past the section. */
static void test_hostile_files(void **state)
{
	(void)state;
	char tmp[64], why[300];
	unsigned long long notes;
	int fd = copy_fixture(tmp, &notes);
	uint32_t huge = 0x7ffffff0, small = 8;
	patch(fd, notes + 4, &huge, 4); /* descsz past the section's end */
	assert_int_equal(sdt_probes(tmp, NULL, NULL, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "malformed note after 0 probes"));
	patch(fd, notes + 4, &small, 4); /* shorter than its 3 addresses */
	assert_int_equal(sdt_probes(tmp, NULL, NULL, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "probe 1: note of 8 bytes, shorter than its 3 addresses"));
	close(fd);
	unlink(tmp);
	fd = copy_fixture(tmp, &notes);
	uint64_t nowhere = 0x7fffffff0000ULL;
	patch(fd, notes + 20, &nowhere, 8);
	assert_int_equal(sdt_probes(tmp, NULL, NULL, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "fix:forms at 0x7fffffff0000: address not in the file's code"));
	close(fd);
	unlink(tmp);
	assert_int_equal(sdt_probes("/proc/self/status", NULL, NULL, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not an ELF file"));
}

/* Descriptors cut at every length: only the whole one parses; 32-bit addresses too. */
static void test_note_parse(void **state)
{
	(void)state;
	unsigned char d[64] = {0};
	struct sdt_note n;
	char why[200];
	uint64_t pc = 0x1129, base = 0x2004, sem = 0x4010;
	memcpy(d, &pc, 8);
	memcpy(d + 8, &base, 8);
	memcpy(d + 16, &sem, 8);
	memcpy(d + 24, "prov\0name\0-4@%edi", 18);
	size_t whole = 24 + 18;
	for (size_t len = 0; len < 24 + 10; len++)
		assert_int_equal(sdt_note_parse(d, len, true, &n, why, sizeof(why)), -1);
	/* no arguments at all (a note of version 1): a probe without arguments */
	assert_int_equal(sdt_note_parse(d, 24 + 10, true, &n, why, sizeof(why)), 0);
	assert_string_equal(n.args, "");
	for (size_t len = 24 + 11; len < whole; len++)
		assert_int_equal(sdt_note_parse(d, len, true, &n, why, sizeof(why)), -1);
	assert_int_equal(sdt_note_parse(d, whole, true, &n, why, sizeof(why)), 0);
	assert_string_equal(n.provider, "prov");
	assert_string_equal(n.name, "name");
	assert_string_equal(n.args, "-4@%edi");
	assert_int_equal(n.pc, 0x1129);
	assert_int_equal(n.base, 0x2004);
	assert_int_equal(n.sem, 0x4010);
	uint32_t pc32 = 0x8048000;
	memcpy(d, &pc32, 4);
	memcpy(d + 12, "p\0n\0\0", 5);
	assert_int_equal(sdt_note_parse(d, 17, false, &n, why, sizeof(why)), 0);
	assert_int_equal(n.pc, 0x8048000);
	assert_string_equal(n.name, "n");
	/* a name longer than the note keeps */
	unsigned char big[24 + SDT_NAME_MAX + 8];
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = 0;
	assert_int_equal(sdt_note_parse(big, sizeof(big), true, &n, why, sizeof(why)), -1);
}

static void fetch_is(const char *args, int str, bool imm, const char *want)
{
	char out[512], why[200];
	unsigned consts;
	long long values[SDT_ARGC_MAX];
	int n = sdt_fetch_args(args, str, imm, NULL, NULL, out, sizeof(out), &consts, values, why,
			       sizeof(why));
	if (n < 0)
		fail_msg("%s: %s", args, why);
	assert_string_equal(out, want);
}

static void fetch_fails(const char *args, const char *reason)
{
	char out[512], why[200];
	unsigned consts;
	long long values[SDT_ARGC_MAX];
	assert_int_equal(sdt_fetch_args(args, 0, true, NULL, NULL, out, sizeof(out), &consts,
					values, why, sizeof(why)),
			 -1);
	if (!strstr(why, reason))
		fail_msg("%s: '%s' lacks '%s'", args, why, reason);
}

static void test_fetch_args(void **state)
{
	(void)state;
	fetch_is("-4@%edi 8@-8(%rbp) -1@$5 8@%rax 4@8(%rsp) -2@%r8w 1@%al 8@(%rsi)", 0, true,
		 "arg1=%di:s32 arg2=-8(%bp):u64 arg3=\\5:s8 arg4=%ax:u64 arg5=+8(%sp):u32 "
		 "arg6=%r8:s16 arg7=%ax:u8 arg8=+0(%si):u64");
	fetch_is("-8@$-3 8@$18446744073709551615 4@$0x10", 0, true,
		 "arg1=\\-3:s64 arg2=\\18446744073709551615:u64 arg3=\\16:u32");
	/* strings: the pointer in a register, or one in memory read first */
	fetch_is("8@%rdi -4@%esi", 1, true, "arg1=+0(%di):string arg2=%si:s32");
	fetch_is("-4@%esi 8@16(%rsp)", 2, true, "arg1=%si:s32 arg2=+0(+16(%sp)):string");
	/* version 1 notes: no size, a word */
	fetch_is("%rdi %r12", 0, true, "arg1=%di:u64 arg2=%r12:u64");
	fetch_is("", 0, true, "");
	fetch_is("  8@%rdi  ", 0, true, "arg1=%di:u64");
	/* constants without immediates: left out, said to the caller */
	char out[512], why[200];
	unsigned consts;
	long long values[SDT_ARGC_MAX];
	assert_int_equal(sdt_fetch_args("-4@$-7 8@%rdx 1@$255", 0, false, NULL, NULL, out,
					sizeof(out), &consts, values, why, sizeof(why)),
			 3);
	assert_string_equal(out, "arg2=%dx:u64");
	assert_int_equal(consts, 5);
	assert_int_equal(values[0], -7);
	assert_int_equal(values[2], 255);
	/* hostile or unsupported */
	fetch_fails("3@%rdi", "size not one of 1, 2, 4, 8");
	fetch_fails("-16@%rdi", "size not one of");
	fetch_fails("x@%rdi", "size not one of");
	fetch_fails("@%rdi", "size not one of");
	fetch_fails("8@%xmm0", "an operand uprobes cannot fetch");
	fetch_fails("8@%rip", "cannot fetch");
	fetch_fails("8@foo(%rax)", "not a number before '('");
	fetch_fails("8@foo(%rip)", "no symbol foo in the file");
	fetch_fails("8@foo+x(%rip)", "not SYMBOL[+-N](%rip)");
	fetch_fails("8@8(%rip)", "cannot fetch");
	fetch_fails("8@(%rax,%rbx,8)", "cannot fetch");
	fetch_fails("8@8(%rax", "cannot fetch");
	fetch_fails("8@8()", "cannot fetch");
	fetch_fails("8@$", "not a number");
	fetch_fails("8@$sym", "not a number");
	fetch_fails("8@$99999999999999999999", "not a number");
	fetch_fails("8@", "cannot fetch");
	fetch_fails("8@%", "cannot fetch");
	fetch_fails("1@%a 2@%rdi", "cannot fetch");
	fetch_fails("8@%rdi 8@%rdi 8@%rdi 8@%rdi 8@%rdi 8@%rdi 8@%rdi 8@%rdi 8@%rdi 8@%rdi "
		    "8@%rdi 8@%rdi 8@%rdi",
		    "more than 12 arguments");
	char longarg[300];
	memset(longarg, '1', sizeof(longarg));
	longarg[sizeof(longarg) - 1] = 0;
	fetch_fails(longarg, "over 127 bytes");
	assert_int_equal(sdt_fetch_args("8@$1", 1, true, NULL, NULL, out, sizeof(out), &consts,
					values, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "argument 1 is a constant (8@$1): not a string");
	/* the output buffer is never overrun */
	assert_int_equal(sdt_fetch_args("8@%rdi 8@%rsi", 0, true, NULL, NULL, out, 16, &consts,
					values, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "over 15 bytes"));
}

/* A semaphore of this test's own file, as <sys/sdt.h> makes them (in the file: .probes). */
volatile unsigned short test_semaphore __attribute__((section(".probes"))) = 0;

/* Raised and lowered through /proc/PID/mem (here this process's own), where the process
 * maps the file; lowered by the emergency step when the tool would die of a signal. */
static void test_semaphore_by_hand(void **state)
{
	(void)state;
	char self[4096], why[300];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	unsigned long long vaddr, off;
	int fd;
	assert_true(n > 0);
	self[n] = 0;
	assert_int_equal(usym_symbol_addr(self, "test_semaphore", &vaddr), 0);
	struct Elf *elf = usym_elf_open(self, &fd);
	assert_non_null(elf);
	assert_int_equal(usym_elf_offset(elf, vaddr, false, &off), 0);
	elf_end(elf);
	close(fd);
	struct sdt_sem s;
	assert_int_equal(sdt_sem_raise(&s, getpid(), self, off, why, sizeof(why)), 0);
	assert_int_equal(test_semaphore, 1);
	sdt_sem_lower(&s);
	assert_int_equal(test_semaphore, 0);
	sdt_sem_lower(&s); /* once only */
	assert_int_equal(test_semaphore, 0);
	test_semaphore = 3; /* another tracer's */
	assert_int_equal(sdt_sem_raise(&s, getpid(), self, off, why, sizeof(why)), 0);
	assert_int_equal(test_semaphore, 4);
	sig_emergency();
	assert_int_equal(test_semaphore, 3);
	sdt_sem_lower(&s); /* the emergency step is forgotten by the normal path */
	assert_int_equal(test_semaphore, 2);
	test_semaphore = 0;
	/* a file the process does not map */
	assert_int_equal(sdt_sem_raise(&s, getpid(), SDT_FIXTURE, 0x10, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not map"));
	sdt_sem_lower(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_notes),    cmocka_unit_test(test_moved_base),
		cmocka_unit_test(test_hostile_files), cmocka_unit_test(test_note_parse),
		cmocka_unit_test(test_fetch_args),    cmocka_unit_test(test_semaphore_by_hand),
	};
	return cmocka_run_group_tests(tests, find_fixture, NULL);
}
