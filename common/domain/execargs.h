/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * execargs: an exec's command line put back together from what the events of a run tell
 * (execsnoop): the strings a probe read of argv (each rung's record), how many pointers argv
 * had, the new program's stack (argc and the pointers the kernel packed the strings at: the
 * true lengths), /proc/PID/cmdline read late, and the best of these when several came.
 *
 * No argument is cut silently: each one keeps its length as passed beside the bytes held
 * (EXECARGS_SIZE_UNKNOWN: cut at a length not known), and the list says when argv had more
 * arguments than are held. Nothing here reads a trace record: the tool gives the fields'
 * values, so every case can be built in a unit test.
 */
#ifndef FTT_EXECARGS_H
#define FTT_EXECARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXECARGS_MAX 40	    /* the most arguments held: 2 fetches each, the kernel takes 128 */
#define EXECARGS_BYTES 4096 /* as much as one event can hold */
#define EXECARGS_SIZE_UNKNOWN UINT32_MAX /* an argument cut where its length is not known */
#define EXECARGS_MAX_LEN 131072		 /* the kernel's MAX_ARG_STRLEN: none is longer */

/* Where the arguments came from (execargs_from_names: their names). */
enum execargs_from {
	EXECARGS_NONE,
	EXECARGS_KPROBE,
	EXECARGS_EPROBE,
	EXECARGS_LIBC,
	EXECARGS_LOADER,
	EXECARGS_PROC,
};
extern const char *const execargs_from_names[];

struct execargs {
	unsigned char from; /* enum execargs_from */
	bool cut;	    /* there were more arguments than are held */
	unsigned short n;   /* arguments held */
	unsigned short len; /* bytes of buf: n strings, each ending with a NUL */
	/* Each one's length as passed: more than the bytes held when it was cut
	 * (EXECARGS_SIZE_UNKNOWN: cut at a length not known). */
	uint32_t size[EXECARGS_MAX];
	char buf[EXECARGS_BYTES];
};

/* The new program's arguments as its stack has them: how many, and the lengths of the first
 * ones (nsize), from the pointers. */
struct execargs_image {
	bool known;
	int argc, nsize;
	uint32_t size[EXECARGS_MAX];
};

/*
 * What one probe's record of argv holds, as the tool read its fields: argc (the loader's
 * record: has_argc) or the pointers (ptr[i], 0 for a NULL or a field not there), the strings
 * (str[i] NULL when the field is not there; len[i] its bytes as recorded), and whether the
 * string that is always there when nothing was cut ($comm, the field "end") came.
 */
struct execargs_record {
	enum execargs_from from; /* KPROBE or EPROBE: the kernel's fetches; else a uprobe's */
	bool has_argc;
	long long argc;
	uint64_t ptr[EXECARGS_MAX + 1];
	const char *str[EXECARGS_MAX];
	size_t len[EXECARGS_MAX];
	bool has_end;
	size_t end_len;
};

/* Forget a's arguments (from NONE). */
void execargs_clear(struct execargs *a);
/* Copy from (its held bytes only) into to. */
void execargs_copy(struct execargs *to, const struct execargs *from);
/* Add an argument to a: n bytes of s held, of one size bytes long (EXECARGS_SIZE_UNKNOWN: cut,
 * length unknown). What does not fit in the buffer is cut there, its length kept; a list
 * with no room for another one's NUL is marked cut; a list of EXECARGS_MAX already is left as
 * it is (not marked cut). */
void execargs_add(struct execargs *a, const char *s, size_t n, uint32_t size);
/* The argument of a at offset *o (0: the first): *held its bytes; *o moves to the next (no
 * more than a->n calls: nothing is checked). Returns its bytes, NUL-terminated, in a's buffer
 * (valid while a is unchanged). */
const char *execargs_next(const struct execargs *a, size_t *o, size_t *held);
/* Whether every argument of a is held whole and they were read at all (a->cut, more
 * arguments than held, is not looked at). Returns true when so. */
bool execargs_whole(const struct execargs *a);

/* Into a from a probe's record r, at most max arguments (EXECARGS_MAX at most). Returns true,
 * or false when the record is of no use (a string the kernel could not read; an eprobe that
 * read every argv[0] as ""): then a holds nothing to show (from NONE). */
bool execargs_from_record(struct execargs *a, const struct execargs_record *r, int max);
/* Into a, only how many pointers argv had (ptr: a record of the pointers, never too large;
 * 0 ends them): that many arguments, at most max (EXECARGS_MAX at most), each cut at a length
 * not known, the list cut when there was one more; from: where they came from. */
void execargs_count(struct execargs *a, const uint64_t *ptr, int max, enum execargs_from from);
/* Into im from the new program's stack: argc and slot[1..max+2] (the pointers of argv, its
 * NULL and envp[0]; slot[0] unused; max: EXECARGS_MAX at most), the strings packed in that
 * order. im is not known when argc is below 0 or above EXECARGS_MAX_LEN. */
void execargs_image_from(struct execargs_image *im, long long argc, const uint64_t *slot, int max);
/* The lengths of the image im for a's arguments, when they are the same arguments (a script's
 * interpreter gets other ones): every one held whole must have the image's length, then each
 * one cut gets its true length. Returns whether they were the same (false: a unchanged). */
bool execargs_sizes_from(struct execargs *a, const struct execargs_image *im);
/* Into a from the image im, nothing of the strings, only how many and how long: at most max,
 * each one shown cut, with its length (not known past the image's nsize); from: where they
 * came from. */
void execargs_from_image(struct execargs *a, const struct execargs_image *im, int max,
			 enum execargs_from from);
/* Into a, a command line as /proc/PID/cmdline has it, read from fd to its end for the true
 * lengths, at most max arguments (EXECARGS_MAX at most): from PROC, or NONE when fd gave
 * nothing (a process gone, a kernel thread). */
void execargs_from_cmdline(struct execargs *a, int fd, int max);
/* The same into a from /proc/PID/cmdline of process pid, at most max arguments (from NONE
 * when it cannot be opened). */
void execargs_from_proc(struct execargs *a, int pid, int max);

/*
 * The best of what came for one successful exec, into a: a's own arguments (the caller's,
 * as passed) when whole, else the loader's strings when whole, else a's when read, else the
 * loader's, else /proc's (fallback), else the image's lengths only (at most max, from LOADER).
 * The image im gives the true lengths to a and loader first.
 */
void execargs_best(struct execargs *a, struct execargs *loader, const struct execargs *fallback,
		   const struct execargs_image *im, int max);

/* The arguments of a as text on f, each one a word (out_text_arg's: in double quotes when
 * needed, always with quote; "[cut]" or "[cut: N bytes]" after one cut, "[...]" when more were
 * passed, "[late]" when read from /proc); when none were read, the file the kernel ran
 * (filename, "" if none, not NULL) and "[arguments not read]". */
void execargs_text(FILE *f, const struct execargs *a, const char *filename, bool quote);
/* The arguments of a as JSON on f: an array of strings; null when none were read. */
void execargs_json(FILE *f, const struct execargs *a);
/* The same for the lengths of a's arguments on f: an array (null: not known); null when none
 * were read. */
void execargs_json_sizes(FILE *f, const struct execargs *a);
/* Whether anything of a was cut (an argument not held whole, or more arguments than held).
 * Returns true when so; false when none were read. */
bool execargs_any_cut(const struct execargs *a);

#endif
