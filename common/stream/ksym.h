/* SPDX-License-Identifier: GPL-2.0-only */
/* ksym: kernel symbols from /proc/kallsyms, for kernel stacks (-s) and addresses. */
#ifndef FTT_KSYM_H
#define FTT_KSYM_H

#include <stdbool.h>
#include <stddef.h>

struct ksyms;

/* The text symbols of the running kernel. Sorted addresses and one blob of names: 12 bytes
 * per symbol plus its name (tpoint -s stayed under 9 MB of memory, bench/). Read by a thread of
 * its own, with every signal blocked, while the caller goes on (setting the kernel up): the
 * first lookup, ksym_free or ksym_wait_all waits for it. One thread at a time uses a table.
 * Returns the table (what fitted, when memory ran out while reading), or NULL when
 * /proc/kallsyms cannot be opened or out of memory. The caller frees it with ksym_free(). */
struct ksyms *ksym_load(void);
/* The same from a file in kallsyms' form at path (the tests'). Returns the table, or NULL when
 * path cannot be opened or out of memory; freed with ksym_free(). */
struct ksyms *ksym_load_file(const char *path);
/* The same, read only at its first lookup, in the thread that asks: for the tools that name
 * kernel frames when they print, at the end, so that no CPU goes to reading ~120,000 lines
 * (40-50 ms of the kernel's time) before the banner or while the run traces. A module loaded
 * or removed meanwhile is as the file says then. The data symbols (ksym_load_data's) with
 * data. Returns the table (/proc/kallsyms opened), or NULL when it cannot be opened or out of
 * memory; freed with ksym_free(). */
struct ksyms *ksym_load_late(bool data);
/* The data symbols instead (d, D, b, B, r, R: variables, a static lock): klockstat's names
 * of locks. A lookup's offset then says where in the variable the address is. Returns the
 * table, or NULL as ksym_load; freed with ksym_free(). */
struct ksyms *ksym_load_data(void);
/* The same from a file in kallsyms' form at path. Returns the table, or NULL when path cannot
 * be opened or out of memory; freed with ksym_free(). */
struct ksyms *ksym_load_data_file(const char *path);
/* How many symbols table k holds (kallsyms lists variables only with CONFIG_KALLSYMS_ALL:
 * 35 of them on a 6.18 without it, the symbol before an address is then no guide). Returns
 * that count, 0 for NULL. */
size_t ksym_count(const struct ksyms *k);
/* The symbol of table k at or before addr, and addr's offset from it in off. Returns its name,
 * owned by the table (valid until ksym_free), or NULL when there is none (or k is NULL; off
 * then untouched). */
const char *ksym_find(const struct ksyms *k, unsigned long long addr, unsigned long long *off);
/* The address of a function of table k by name (a linear search: once per run). Returns it,
 * or 0 when not found (or k is NULL). */
unsigned long long ksym_addr(const struct ksyms *k, const char *name);
/* Free table k (NULL: nothing), once its loader is done. */
void ksym_free(struct ksyms *k);
/* Without a table: the text symbols of n addresses addrs (sorted, ascending) from one reading
 * of path (/proc/kallsyms), names[i] and offs[i] as ksym_find gives them (NULL: none), the names
 * in *blob (malloc'd: the caller frees it with free()). Memory for the answers only, not the
 * table's ~5 MB. Returns 0, or -1 when path cannot be read or memory runs out (every names[i]
 * NULL, *blob NULL). */
int ksym_resolve(const char *path, const unsigned long long *addrs, size_t n, const char **names,
		 unsigned long long *offs, char **blob);
/* Every table still loading, loaded: before a run's banner (tool.c), so that no event after it
 * waits for kallsyms (a process gone by then has no user stack to name: -U). */
void ksym_wait_all(void);

#endif
