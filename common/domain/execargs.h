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
/* Add an argument: n bytes of s held, of one size bytes long (EXECARGS_SIZE_UNKNOWN: cut,
 * length unknown). What does not fit in the buffer is cut there, its length kept; a list
 * with no room for another one's NUL is marked cut. */
void execargs_add(struct execargs *a, const char *s, size_t n, uint32_t size);
/* Argument after offset *o (0: the first): its bytes, *held of them; *o moves to the next. */
const char *execargs_next(const struct execargs *a, size_t *o, size_t *held);
/* Whether every argument is held whole and they were read at all. */
bool execargs_whole(const struct execargs *a);

/* From a probe's record, at most max arguments. Returns false when the record is of no use
 * (a string the kernel could not read; an eprobe that read every argv[0] as ""): then a holds
 * nothing to show. */
bool execargs_from_record(struct execargs *a, const struct execargs_record *r, int max);
/* Only how many pointers argv had (a record of the pointers, never too large): that many
 * arguments, each cut at a length not known. */
void execargs_count(struct execargs *a, const uint64_t *ptr, int max, enum execargs_from from);
/* From the new program's stack: argc and slot[1..max+2] (the pointers of argv, its NULL and
 * envp[0]; slot[0] unused), the strings packed in that order. */
void execargs_image_from(struct execargs_image *im, long long argc, const uint64_t *slot, int max);
/* The image's lengths for a's arguments, when they are the same arguments (a script's
 * interpreter gets other ones): every one held whole must have the image's length, then each
 * one cut gets its true length. Returns whether they were the same. */
bool execargs_sizes_from(struct execargs *a, const struct execargs_image *im);
/* Nothing of the strings, only how many and how long: each one shown cut, with its length. */
void execargs_from_image(struct execargs *a, const struct execargs_image *im, int max,
			 enum execargs_from from);
/* A command line as /proc/PID/cmdline has it, read from fd to its end for the true lengths:
 * from PROC, or NONE when fd gave nothing (a process gone, a kernel thread). */
void execargs_from_cmdline(struct execargs *a, int fd, int max);
/* The same from /proc/PID/cmdline. */
void execargs_from_proc(struct execargs *a, int pid, int max);

/*
 * The best of what came for one successful exec, into a: a's own arguments (the caller's,
 * as passed) when whole, else the loader's strings when whole, else a's when read, else the
 * loader's, else /proc's (fallback), else the image's lengths only. The image gives the true
 * lengths to a and loader first.
 */
void execargs_best(struct execargs *a, struct execargs *loader, const struct execargs *fallback,
		   const struct execargs_image *im, int max);

/* The arguments as text, each one a word ("[cut]" or "[cut: N bytes]" after one cut, "[...]"
 * when more were passed, "[late]" when read from /proc); when none were read, the file the
 * kernel ran (filename, "" if none) and "[arguments not read]". */
void execargs_text(FILE *f, const struct execargs *a, const char *filename, bool quote);
/* As JSON: the arguments an array of strings, the lengths an array (null: not known); null
 * when none were read. And whether anything was cut. */
void execargs_json(FILE *f, const struct execargs *a);
void execargs_json_sizes(FILE *f, const struct execargs *a);
bool execargs_any_cut(const struct execargs *a);

#endif
