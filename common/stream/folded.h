/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * folded: stacks counted in user space and printed as folded lines, root first, the format
 * flame graph tools read (flamegraph.pl, speedscope, inferno, our flamegraph):
 *
 *   comm;user_root;...;user_leaf;kernel_root_[k];...;kernel_leaf_[k] COUNT
 *
 * Kernel frames carry the suffix "_[k]" (as perf's and bcc's folded output), so they can be
 * told from user frames. Counted by raw addresses on the per-event path (a hash of the
 * frames); each new stack is named once, when first seen, while its process still has its
 * maps; lines that name the same frames are summed when printed.
 */
#ifndef FTT_FOLDED_H
#define FTT_FOLDED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ksyms;
struct folded;
struct tep_record;
struct tep_format_field;

#define FOLDED_KFRAMES 64 /* kernel frames kept (the ones nearest the event) */
#define FOLDED_UFRAMES 8  /* the kernel records at most 8 user frames */

/* A table of stacks with room for FOLDED_KFRAMES kernel and FOLDED_UFRAMES user frames, its
 * kernel frames named from ksyms (NULL: addresses; kept, not copied: it must outlive the
 * table). Returns the table, or NULL when out of memory. The caller frees it with
 * folded_free(). */
struct folded *folded_new(const struct ksyms *ksyms);
/* The same with room for kframes kernel and uframes user frames (profile's 127 each); comm up
 * to 31 bytes (a name with its pid: "sh (123)"). A stack counted costs 64 bytes plus 8 per
 * frame it has, and its folded line. ksyms as folded_new's. Returns the table, or NULL when out
 * of memory; freed with folded_free(). */
struct folded *folded_new_depth(const struct ksyms *ksyms, int kframes, int uframes);
/* The same (kframes, uframes), its kernel frames named only when printed, from one reading of
 * kallsyms (the path, kept: /proc/kallsyms) for all the stacks' addresses: no table held
 * through the run (~5 MB); each print reads the file (~40 ms of the kernel's time here). Its
 * user frames in files are named when printed too. Returns the table, or NULL when out of
 * memory; freed with folded_free(). */
struct folded *folded_new_late(const char *kallsyms, int kframes, int uframes);
/* For f, a table of folded_new_late: its user frames named when counted, while their
 * processes run (offcputime's), with users_now; its kernel frames cut to start at top (the
 * frames above it dropped) when it is among the first 8 (NULL: kept whole). top is kept, not
 * copied. */
void folded_late_setup(struct folded *f, bool users_now, const char *top);
/*
 * Count in f one stack of task comm in process tgid: kernel frames k[0..nk) and user frames
 * u[0..nu), each leaf first as the kernel records them (copied; frames past the table's room
 * cut on the root side). Returns 0, or -1 when out of memory.
 */
int folded_add(struct folded *f, const char *comm, int tgid, const unsigned long long *k, int nk,
	       const unsigned long long *u, int nu);
/* The same (f, comm, tgid, k, nk, u, nu), counted n times (a weight: offcputime's
 * nanoseconds off the CPU); 0 adds nothing. Returns 0, or -1 when out of memory. */
int folded_add_n(struct folded *f, const char *comm, int tgid, const unsigned long long *k, int nk,
		 const unsigned long long *u, int nu, uint64_t n);
/* One stack's folded text, as folded_add's lines name it (comm;user root..leaf;kernel
 * root..leaf with _[k]): task comm of process tgid, kernel frames k[0..nk) named from ksyms
 * (NULL: addresses), user frames u[0..nu); frames leaf first, as recorded. Returns the text,
 * malloc'd (the caller frees it with free()), or NULL when out of memory. */
char *folded_name(const struct ksyms *ksyms, const char *comm, int tgid,
		  const unsigned long long *k, int nk, const unsigned long long *u, int nu);
/* Write f's folded lines to out, sorted by stack (lines that name the same frames summed).
 * Returns how many lines, 0 also when out of memory (nothing written). */
size_t folded_print(struct folded *f, FILE *out);
/* The folded lines of f as folded_print writes them, in memory (*size bytes, *n lines).
 * Returns the text, malloc'd (the caller frees it with free()), or NULL when out of memory. */
char *folded_text(struct folded *f, size_t *size, size_t *n);
/* A line of that text split in two: its stack and its count. */
struct folded_line {
	char *stack;
	uint64_t n;
};
/* The n lines of text (folded_text's, cut in place) as an array (*got entries; a line
 * without a count left out), by count, the largest first, when by_count (ties by stack), else
 * as written. Returns the array, malloc'd (the caller frees it with free(); its stacks point
 * into text, valid while text is), or NULL when out of memory (*got 0). */
struct folded_line *folded_split(char *text, size_t n, size_t *got, bool by_count);
/* How many stacks were counted in f (each folded_add or folded_add_n once, whatever its n).
 * Returns that count; 0 for NULL. */
unsigned long long folded_total(const struct folded *f);
/* Free f (NULL: nothing). */
void folded_free(struct folded *f);

/*
 * The addresses of a stack event's record rec (ftrace:kernel_stack, ftrace:user_stack: their
 * caller field), leaf first, up to the first 0 or -1, at most max, into a. The kernel's
 * caller[] fills the rest of the record (its declared size is a minimum): rest = true; the
 * user's is its declared size. Returns how many (0 when caller is NULL or not in the record).
 */
int folded_frames(const struct tep_record *rec, const struct tep_format_field *caller, bool rest,
		  unsigned long long *a, int max);

/*
 * One frame's name as folded text into buf (len bytes, terminated; the name cut where an
 * escape would not fit): bytes that would split a line or a stack (';', newline, other
 * control bytes, '\\') as \xHH. Returns buf (the caller's).
 */
const char *folded_frame(const char *name, char *buf, size_t len);
/* A folded frame's n bytes at s back to the bytes folded_frame escaped (\xHH), into out (at
 * least n bytes; not terminated). Returns their length. */
size_t folded_unescape(const char *s, size_t n, char *out);

#endif
