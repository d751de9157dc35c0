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

struct folded *folded_new(const struct ksyms *ksyms);
/* With room for kframes kernel and uframes user frames (profile's 127 each); comm up to 31
 * bytes (a name with its pid: "sh (123)"). A stack counted costs 64 bytes plus 8 per frame
 * it has, and its folded line. */
struct folded *folded_new_depth(const struct ksyms *ksyms, int kframes, int uframes);
/* The same, its kernel frames named only when printed, from one reading of kallsyms (the
 * path, kept: /proc/kallsyms) for all the stacks' addresses: no table held through the run
 * (~5 MB); each print reads the file (~40 ms of the kernel's time here). */
struct folded *folded_new_late(const char *kallsyms, int kframes, int uframes);
/*
 * Count one stack of task comm in process tgid: kernel frames k[0..nk) and user frames
 * u[0..nu), each leaf first as the kernel records them. Returns -1 when out of memory.
 */
int folded_add(struct folded *f, const char *comm, int tgid, const unsigned long long *k, int nk,
	       const unsigned long long *u, int nu);
/* The same, counted n times (a weight: offcputime's nanoseconds off the CPU); 0 adds
 * nothing. */
int folded_add_n(struct folded *f, const char *comm, int tgid, const unsigned long long *k, int nk,
		 const unsigned long long *u, int nu, uint64_t n);
/* One stack's folded text, as folded_add's lines name it (comm;user root..leaf;kernel
 * root..leaf with _[k]), malloc'd; NULL when out of memory. Frames leaf first, as recorded. */
char *folded_name(const struct ksyms *ksyms, const char *comm, int tgid,
		  const unsigned long long *k, int nk, const unsigned long long *u, int nu);
/* The folded lines, sorted by stack; returns how many. */
size_t folded_print(struct folded *f, FILE *out);
/* The folded lines as folded_print writes them, in memory (malloc'd, *size bytes, *n lines);
 * NULL when out of memory. */
char *folded_text(struct folded *f, size_t *size, size_t *n);
/* A line of that text split in two: its stack and its count. */
struct folded_line {
	char *stack;
	uint64_t n;
};
/* The n lines of text (folded_text's, cut in place) as an array (malloc'd, *got entries),
 * by count, the largest first, when by_count (ties by stack), else as written; NULL when out
 * of memory. */
struct folded_line *folded_split(char *text, size_t n, size_t *got, bool by_count);
/* How many stacks were counted. */
unsigned long long folded_total(const struct folded *f);
void folded_free(struct folded *f);

/*
 * The addresses of a stack event (ftrace:kernel_stack, ftrace:user_stack: their caller
 * field), leaf first, up to the first 0 or -1, at most max; returns how many. The kernel's
 * caller[] fills the rest of the record (its declared size is a minimum): rest = true;
 * the user's is its declared size.
 */
int folded_frames(const struct tep_record *rec, const struct tep_format_field *caller, bool rest,
		  unsigned long long *a, int max);

/*
 * One frame's name as folded text into buf: bytes that would split a line or a stack (';',
 * newline, other control bytes, '\\') as \xHH; returns buf.
 */
const char *folded_frame(const char *name, char *buf, size_t len);
/* A folded frame's N bytes at S back to the bytes folded_frame escaped (\xHH), into OUT (at
 * least N bytes; not terminated): their length. */
size_t folded_unescape(const char *s, size_t n, char *out);

#endif
