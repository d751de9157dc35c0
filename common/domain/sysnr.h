/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysnr: system calls by number, for the raw_syscalls events, which carry only the number
 * (one event for every call: enabled at once, where the syscalls:* events are ~700 to enable
 * one by one). The numbers are the compiler's for this architecture (<sys/syscall.h>, read
 * when the tools are built), with the calls added to Linux after those headers; the names
 * are the kernel's own, checked at start against its list of calls (the syscalls:sys_enter_*
 * events: "newstat" where the headers say "stat").
 */
#ifndef FTT_SYSNR_H
#define FTT_SYSNR_H

#include <stddef.h>

struct sysnr {
	int max;	   /* numbers 0 .. max-1 have a slot */
	const char **name; /* by number; NULL: not known */
	/* The check against the kernel's list: its calls, how many of them the table names,
	 * and the first few it does not (counted by number: "syscall_NNN"). */
	int kernel, named, unnamed;
	char unnamed_list[256];
};

/* The table t, its names matched to the kernel's calls (kernel: the names of its syscalls:
 * sys_enter_* events, n of them; n 0: not known, the headers' names stand). Returns 0, or -1
 * when out of memory. Frees: sysnr_free(t), after -1 too. */
int sysnr_init(struct sysnr *t, const char *const *kernel, int n);
/* The name of call nr in t. Returns the kernel's (the headers' for a call the kernel has no
 * event of), owned by t (valid until sysnr_free), or "syscall_NNN" written in buf (len bytes,
 * the caller's) when not known. */
const char *sysnr_name(const struct sysnr *t, long nr, char *buf, size_t len);
/* The number of the call named name in t. Returns it, or -1 when no call of t has it. */
long sysnr_number(const struct sysnr *t, const char *name);
/* t's names freed and t zeroed: it may be freed again. */
void sysnr_free(struct sysnr *t);

#endif
