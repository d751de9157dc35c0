/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sdt: the statically defined probes of an ELF file (<sys/sdt.h>, DTrace's USDT), read from
 * its .note.stapsdt notes, and their argument specifications turned into uprobe_events fetch
 * arguments, so that a USDT probe is a uprobe definition like any other.
 *
 * A note (owner "stapsdt", type 3) holds three addresses of the file's word size (the probe's
 * pc, the link-time address of the .stapsdt.base section, the semaphore's address or 0) and
 * three NUL-terminated strings: provider, name, arguments. When the file has been prelinked
 * (or otherwise moved), .stapsdt.base is no longer where the note says: pc and semaphore are
 * moved by the same distance.
 */
#ifndef FTT_SDT_H
#define FTT_SDT_H

#include <stdbool.h>
#include <stddef.h>

#define SDT_NAME_MAX 128
#define SDT_ARGS_MAX 1024
#define SDT_ARGC_MAX 12 /* sys/sdt.h's STAP_PROBE12 */

struct sdt_note {
	char provider[SDT_NAME_MAX], name[SDT_NAME_MAX], args[SDT_ARGS_MAX];
	unsigned long long pc, base, sem; /* as the note writes them */
};

/* One note's descriptor desc (len bytes; addresses of 8 bytes, or 4 when !is64) into n.
 * Returns 0, or -1 with the reason in why (whylen bytes) when it is short, a string runs off
 * its end or is too long. */
int sdt_note_parse(const void *desc, size_t len, bool is64, struct sdt_note *n, char *why,
		   size_t whylen);

struct sdt_probe {
	struct sdt_note note;
	unsigned long long addr, sem; /* moved with .stapsdt.base; sem 0: none */
	unsigned long long off;	      /* the file offset of addr, for uprobe_events */
	unsigned long long sem_off;   /* of sem, for the kernel's ref_ctr_offset */
};

typedef int (*sdt_fn)(const struct sdt_probe *p, void *ctx);
/*
 * fn(probe, ctx) for each probe of the ELF file at path (fn NULL: only counted); fn returns
 * non-zero to stop (that probe counted). The probe is valid during the call only. Returns how
 * many probes were seen (0: no notes), or -1 with the reason in why (whylen bytes; not an ELF
 * file, a malformed note, a probe or its semaphore outside the file's segments: the probes
 * before it were given).
 */
int sdt_probes(const char *path, sdt_fn fn, void *ctx, char *why, size_t whylen);

/* One argument specification of x86-64 notes: [-]SIZE@OPERAND. */
enum sdt_arg_kind { SDT_REG, SDT_MEM, SDT_CONST, SDT_GLOBAL };
struct sdt_arg {
	enum sdt_arg_kind kind;
	int size; /* 1, 2, 4, 8 */
	bool is_signed;
	long long value; /* SDT_CONST; SDT_GLOBAL: the offset from the symbol */
	char symbol[64]; /* SDT_GLOBAL: SYMBOL[+-N](%rip), a variable of the file */
	char fetch[48];	 /* SDT_REG "%di", SDT_MEM "-8(%bp)", "+8(%sp)" */
	char type[8];	 /* "s32" */
};
/* One argument specification spec (as the note writes it) into a. Returns 0, or -1 with the
 * reason in why (whylen bytes; a form uprobes cannot fetch: an index register, a number
 * relative to %rip, a symbol's address as a constant). */
int sdt_arg_parse(const char *spec, struct sdt_arg *a, char *why, size_t whylen);

/*
 * The note's arguments args as uprobe_events fetch arguments named arg1..argN, into out (len
 * bytes): "arg1=%di:s32 arg2=+8(%sp):u64". Argument string_arg (1..N, 0 none) is read as a
 * string it points to. Constants are fetched as immediates (\VALUE) when imm (the kernel's
 * README lists "imm-value"); otherwise they are left out and their bits set in *consts (bit
 * N-1), values in values[N-1] (room for SDT_ARGC_MAX), for the caller to say. A variable
 * (SYMBOL(%rip)) is found in the probe's file (path) and fetched at its place relative to the
 * probe site (@+OFFSET: the kernel adds where the probe's file is mapped; its own address in an
 * executable linked at fixed addresses); site NULL: refused. Returns the number of arguments
 * (constants left out included), or -1 with the reason in why (whylen bytes).
 */
int sdt_fetch_args(const char *args, int string_arg, bool imm, const char *path,
		   const struct sdt_probe *site, char *out, size_t len, unsigned *consts,
		   long long *values, char *why, size_t whylen);

/* A semaphore raised by hand in one process (sdt_sem_raise). */
struct sdt_sem {
	char mem[32]; /* /proc/PID/mem */
	unsigned long long addr;
	int emergency;
	bool raised;
};
/*
 * Raise s, a semaphore by hand in one process, for kernels without the uprobe reference
 * counter (before Linux 4.20): the u16 at the semaphore's file offset sem_off of path, where
 * process pid maps it (by device and inode), read and written through /proc/PID/mem. Raised
 * by one, with an emergency step (sig.h) that lowers it if the tool dies of a signal.
 * Returns 0, or -1 with the reason in why (whylen bytes; not mapped, no access, at its
 * largest value already). Nothing to free: sdt_sem_lower(s) undoes it.
 */
int sdt_sem_raise(struct sdt_sem *s, int pid, const char *path, unsigned long long sem_off,
		  char *why, size_t whylen);
/* Lower s by one again (unless it is 0: the process restarted, or another lowered it);
 * nothing when s is not raised, and nothing said when it cannot be written. */
void sdt_sem_lower(struct sdt_sem *s);

#endif
