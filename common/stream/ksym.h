/* SPDX-License-Identifier: GPL-2.0-only */
/* ksym: kernel symbols from /proc/kallsyms, for kernel stacks (-s) and addresses. */
#ifndef FTT_KSYM_H
#define FTT_KSYM_H

#include <stddef.h>

struct ksyms;

/* The text symbols of the running kernel; NULL when /proc/kallsyms cannot be opened. Sorted
 * addresses and one blob of names: 12 bytes per symbol plus its name (tpoint -s stayed
 * under 9 MB of memory, bench/). Read by a thread of its own, with every signal blocked, while
 * the caller goes on (setting the kernel up): the first lookup, ksym_free or ksym_wait_all
 * waits for it. One thread at a time uses a table. */
struct ksyms *ksym_load(void);
/* The same from a file in kallsyms' form (the tests'). */
struct ksyms *ksym_load_file(const char *path);
/* The data symbols instead (d, D, b, B, r, R: variables, a static lock): klockstat's names
 * of locks. A lookup's offset then says where in the variable the address is. */
struct ksyms *ksym_load_data(void);
struct ksyms *ksym_load_data_file(const char *path);
/* How many symbols the table holds (kallsyms lists variables only with CONFIG_KALLSYMS_ALL:
 * 35 of them on a 6.18 without it, the symbol before an address is then no guide). */
size_t ksym_count(const struct ksyms *k);
/* The symbol at or before addr and addr's offset from it; NULL when there is none. */
const char *ksym_find(const struct ksyms *k, unsigned long long addr, unsigned long long *off);
/* The address of a function by name (a linear search: once per run); 0 when not found. */
unsigned long long ksym_addr(const struct ksyms *k, const char *name);
void ksym_free(struct ksyms *k);
/* Without a table: the text symbols of n addresses (sorted, ascending) from one reading of
 * path (/proc/kallsyms), names[i] and offs[i] as ksym_find gives them (NULL: none), the names
 * in *blob (malloc'd: the caller frees it). Memory for the answers only, not the table's
 * ~5 MB. 0, or -1 when path cannot be read or memory runs out. */
int ksym_resolve(const char *path, const unsigned long long *addrs, size_t n, const char **names,
		 unsigned long long *offs, char **blob);
/* Every table still loading, loaded: before a run's banner (tool.c), so that no event after it
 * waits for kallsyms (a process gone by then has no user stack to name: -U). */
void ksym_wait_all(void);

#endif
